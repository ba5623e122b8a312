/* A barrier's communication pattern, as the simulator (src/model/sim.c) reads
 * it: for one participant, the steps of one episode, naming the flags it
 * writes and waits on by their byte offsets in the barrier's arena.  Each
 * algorithm emits the steps its wait function performs, from the same plan
 * and layout, so what is simulated is what runs.  Not installed. */
#ifndef MUSTER_BARRIER_SCHEDULE_H
#define MUSTER_BARRIER_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "muster/barrier.h"

typedef enum muster_step_kind {
    MUSTER_STEP_WAIT,        /* wait until flag has been published this episode */
    MUSTER_STEP_PUBLISH,     /* store this episode into flag (its only writer) */
    MUSTER_STEP_ARRIVE,      /* atomic add to the counter at flag; the arrival that
                              * makes it `count` completes it and goes on, the
                              * others jump to step `next` */
    MUSTER_STEP_CLEAR,       /* plain store of 0 into the counter at flag */
    MUSTER_STEP_LOCK,        /* acquire the mutex at flag (an atomic RMW) */
    MUSTER_STEP_UNLOCK,      /* release it (a store) */
    MUSTER_STEP_ALL_ARRIVED, /* marker: this participant now knows all arrived */
    MUSTER_STEP_DONE,        /* the episode is over for this participant */
} muster_step_kind;

typedef struct muster_step {
    muster_step_kind kind;
    uint32_t flag;  /* byte offset; the cache line is flag / line size */
    uint32_t count; /* ARRIVE: arrivals that complete the counter */
    uint32_t next;  /* ARRIVE: where the non-completing arrivals continue */
} muster_step;

typedef struct muster_schedule {
    muster_step *steps;
    unsigned count, capacity;
    bool out_of_memory;
} muster_schedule;

/* Appends a step and returns its index (so ARRIVE's `next` can be patched). */
unsigned muster_schedule_add(muster_schedule *s, muster_step_kind kind, uint32_t flag, uint32_t count);
void muster_schedule_clear(muster_schedule *s);
void muster_schedule_free(muster_schedule *s);

/* The steps of participant id's episode (replacing s's contents).  The last
 * step of every path is DONE.  MUSTER_OK, MUSTER_E_INVAL for a NULL
 * barrier or schedule, MUSTER_E_RANGE for a bad id, MUSTER_E_NOMEM. */
int muster_barrier_schedule(const muster_barrier *b, unsigned id, muster_schedule *s);

/* Bytes of the address space the flag offsets range over. */
size_t muster_barrier_flag_span(const muster_barrier *b);

#endif
