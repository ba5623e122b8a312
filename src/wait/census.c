/* The CPU census of an oversubscribed barrier (wait.h says what it is for).
 *
 * One slot per participant, alone on its cache line, written only by its
 * participant, once per arrival: (CPU << 32) | arrivals, with OWES_RELEASE
 * set in the CPU half when the participant must still run to release the
 * others (a gathering participant 0).  Readers scan the slots while they
 * wait; a slot's line moves once per episode. */
#include <stdlib.h>

#include "platform/platform.h"
#include "wait.h"

typedef struct census_slot {
    _Alignas(MUSTER_CACHE_LINE) _Atomic uint64_t cpu_and_arrivals;
} census_slot;

struct muster_census {
    unsigned participants;
    census_slot *slots;
};

/* Never-arrived participants sit on no CPU: NO_CPU is nobody's number. */
#define NO_CPU 0x7fffffffu
#define OWES_RELEASE 0x80000000u

static uint64_t slot_word(uint32_t cpu, uint32_t arrivals)
{
    return (uint64_t)cpu << 32 | arrivals;
}

muster_census *muster_census_create(unsigned participants)
{
    muster_census *c = malloc(sizeof *c);
    census_slot *slots = aligned_alloc(MUSTER_CACHE_LINE, participants * sizeof *slots);
    if (c == NULL || slots == NULL) {
        free(c);
        free(slots);
        return NULL;
    }
    for (unsigned id = 0; id < participants; id++)
        atomic_init(&slots[id].cpu_and_arrivals, slot_word(NO_CPU, 0));
    c->participants = participants;
    c->slots = slots;
    return c;
}

void muster_census_destroy(muster_census *c)
{
    if (c == NULL)
        return;
    free(c->slots);
    free(c);
}

void muster_census_reset(muster_census *c)
{
    for (unsigned id = 0; id < c->participants; id++)
        /* relaxed: reset runs with no waiter inside the barrier. */
        atomic_store_explicit(&c->slots[id].cpu_and_arrivals, slot_word(NO_CPU, 0), memory_order_relaxed);
}

void muster_census_arrive(muster_census *c, unsigned id, bool owes_release)
{
    muster_census_arrive_on(c, id, muster_current_cpu(), owes_release);
}

void muster_census_arrive_on(muster_census *c, unsigned id, int cpu, bool owes_release)
{
    _Atomic uint64_t *slot = &c->slots[id].cpu_and_arrivals;
    /* relaxed: the census is a scheduling hint that orders no memory, and
     * only this participant writes its slot. */
    uint32_t arrivals = (uint32_t)atomic_load_explicit(slot, memory_order_relaxed) + 1u;
    uint32_t where = (cpu < 0 || (uint32_t)cpu >= NO_CPU ? NO_CPU : (uint32_t)cpu) | (owes_release ? OWES_RELEASE : 0u);
    atomic_store_explicit(slot, slot_word(where, arrivals), memory_order_relaxed);
}

bool muster_census_cpu_needed(const muster_census *c, unsigned self, int cpu)
{
    /* relaxed: see muster_census_arrive; a stale slot costs one yield or one spin chunk. */
    uint32_t mine = (uint32_t)atomic_load_explicit(&c->slots[self].cpu_and_arrivals, memory_order_relaxed);
    for (unsigned id = 0; id < c->participants; id++) {
        uint64_t word = atomic_load_explicit(&c->slots[id].cpu_and_arrivals, memory_order_relaxed);
        uint32_t where = (uint32_t)(word >> 32);
        if ((where & ~OWES_RELEASE) != (uint32_t)cpu || id == self)
            continue;
        /* Behind us (it has not arrived at the episode we wait in), or
         * arrived but still to run the release. */
        if ((int32_t)(mine - (uint32_t)word) > 0 || (where & OWES_RELEASE))
            return true;
    }
    return false;
}
