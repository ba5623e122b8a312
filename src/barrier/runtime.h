/* What a runtime built on libmuster (libmuster-omp) uses beyond the public
 * API: MUSTER_BARRIER as libmuster read it, how threads wait (the wait
 * policy module), and waits that do work meanwhile.  Not installed; the algorithms'
 * own internals stay in internal.h. */
#ifndef MUSTER_BARRIER_RUNTIME_H
#define MUSTER_BARRIER_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "muster/barrier.h"
#include "wait/policy.h"
#include "wait/wait.h"

/* ---- MUSTER_BARRIER (parsed once per process; a warning printed once) ---- */

typedef struct muster_env_config {
    bool has_algorithm;
    muster_algorithm algorithm;
} muster_env_config;

const muster_env_config *muster_env(void);
/* Reads MUSTER_BARRIER again, and the cluster size's sources
 * (MUSTER_CLUSTER_SIZE, MUSTER_MACHINE): for the fuzzing harness only. */
void muster_env_reread(void);
void muster_cluster_reread(void);

/* Waits that do work meanwhile (wait.h, muster_wait_work), for thread pools
 * whose members run queued tasks while they wait at a barrier: the same as
 * muster_barrier_wait and muster_barrier_gather otherwise.  Whoever queues
 * work calls muster_barrier_nudge when the work's sleepers count is not
 * zero (wait.h says in what order), which wakes the barrier's sleepers so
 * they look for it. */
int muster_barrier_wait_working(muster_barrier *b, unsigned id, const muster_wait_work *work);
int muster_barrier_gather_working(muster_barrier *b, const muster_wait_work *work);
void muster_barrier_nudge(muster_barrier *b);
/* Wakes at most `count` of the barrier's sleepers (its flags in order);
 * returns how many it woke. */
int muster_barrier_nudge_some(muster_barrier *b, int count);
/* The barrier's CPU census (wait/census.h), NULL when it keeps none: for a
 * runtime's other waits among the same participants (libmuster-omp's work
 * shares), whose waiters note their CPUs in it as the barrier's do. */
muster_census *muster_barrier_census(muster_barrier *b);

#endif
