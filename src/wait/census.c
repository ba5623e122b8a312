/* The CPU census of a barrier (wait/census.h says what it is for).
 *
 * One slot per participant, alone on its cache line, written only by its
 * participant: (CPU << 32) | arrivals, with OWES_RELEASE set in the CPU half
 * when the participant must still run to release the others (a gathering
 * participant 0).  An oversubscribed barrier writes the slot at every
 * arrival; any other barrier only when a waiter's CPU changed, from the
 * wait's slow path.
 *
 * Beside the slots, a count per CPU of the participants whose slot names
 * it (occupants), so "does a team-mate share my CPU?" is one load however
 * big the team.  A slot changes CPU only when its thread migrated, so the
 * counts, packed 16 to a line, are written rarely and read from cache. */
#include <stdlib.h>

#include "platform/cpus.h"
#include "platform/platform.h"
#include "wait/census.h"

typedef struct census_slot {
    _Alignas(MUSTER_CACHE_LINE) _Atomic uint64_t cpu_and_arrivals;
} census_slot;

struct muster_census {
    unsigned participants;
    unsigned cpu_limit;              /* occupants covers CPU ids [0, cpu_limit) */
    census_slot *slots;
    _Atomic uint32_t *occupants;     /* per CPU id: participants whose slot names it */
};

/* Never-arrived participants sit on no CPU: NO_CPU is nobody's number. */
#define NO_CPU 0x7fffffffu
#define OWES_RELEASE 0x80000000u

static uint64_t slot_word(uint32_t where, uint32_t arrivals)
{
    return (uint64_t)where << 32 | arrivals;
}

static uint32_t slot_cpu(uint64_t word)
{
    return (uint32_t)(word >> 32) & ~OWES_RELEASE;
}

static uint32_t cpu_number(int cpu)
{
    return cpu < 0 || (uint32_t)cpu >= NO_CPU ? NO_CPU : (uint32_t)cpu;
}

/* One past the highest CPU id of the affinity mask read at load time: a
 * thread of ours runs on no other CPU unless the program widens its mask,
 * and a CPU beyond the table is simply not counted (no co-location seen). */
static unsigned census_cpu_limit(void)
{
    int cpus[1024];
    unsigned count = muster_affinity_cpus(cpus, 1024);
    if (count == 0 || count > 1024)
        return 1024;
    return (unsigned)cpus[count - 1] + 1u;
}

muster_census *muster_census_create(unsigned participants)
{
    muster_census *c = malloc(sizeof *c);
    census_slot *slots = aligned_alloc(MUSTER_CACHE_LINE, participants * sizeof *slots);
    unsigned cpu_limit = census_cpu_limit();
    _Atomic uint32_t *occupants = calloc(cpu_limit, sizeof *occupants);
    if (c == NULL || slots == NULL || occupants == NULL) {
        free(c);
        free(slots);
        free(occupants);
        return NULL;
    }
    for (unsigned id = 0; id < participants; id++)
        atomic_init(&slots[id].cpu_and_arrivals, slot_word(NO_CPU, 0));
    c->participants = participants;
    c->cpu_limit = cpu_limit;
    c->slots = slots;
    c->occupants = occupants;
    return c;
}

void muster_census_destroy(muster_census *c)
{
    if (c == NULL)
        return;
    free(c->slots);
    free((void *)c->occupants);
    free(c);
}

void muster_census_reset(muster_census *c)
{
    /* relaxed (both loops): reset runs with no waiter inside the barrier. */
    for (unsigned id = 0; id < c->participants; id++)
        atomic_store_explicit(&c->slots[id].cpu_and_arrivals, slot_word(NO_CPU, 0), memory_order_relaxed);
    for (unsigned cpu = 0; cpu < c->cpu_limit; cpu++)
        atomic_store_explicit(&c->occupants[cpu], 0, memory_order_relaxed);
}

/* A participant moved from CPU `from` to CPU `to`: moves its count. */
static void move_occupant(muster_census *c, uint32_t from, uint32_t to)
{
    if (from == to)
        return;
    /* relaxed: the counts are a scheduling hint and order no memory. */
    if (from < c->cpu_limit)
        atomic_fetch_sub_explicit(&c->occupants[from], 1, memory_order_relaxed);
    if (to < c->cpu_limit)
        atomic_fetch_add_explicit(&c->occupants[to], 1, memory_order_relaxed);
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
    uint64_t old = atomic_load_explicit(slot, memory_order_relaxed);
    uint32_t arrivals = (uint32_t)old + 1u;
    uint32_t where = cpu_number(cpu);
    move_occupant(c, slot_cpu(old), where);
    /* relaxed: as the load above; readers take the slot as a hint only. */
    atomic_store_explicit(slot, slot_word(where | (owes_release ? OWES_RELEASE : 0u), arrivals),
                          memory_order_relaxed);
}

void muster_census_note_cpu(muster_census *c, unsigned id, int cpu)
{
    _Atomic uint64_t *slot = &c->slots[id].cpu_and_arrivals;
    /* relaxed: as in muster_census_arrive_on. */
    uint64_t old = atomic_load_explicit(slot, memory_order_relaxed);
    uint32_t where = cpu_number(cpu);
    if (slot_cpu(old) == where)
        return;
    move_occupant(c, slot_cpu(old), where);
    uint32_t owes = (uint32_t)(old >> 32) & OWES_RELEASE;
    /* relaxed: as the load above; only this participant writes its slot. */
    atomic_store_explicit(slot, slot_word(where | owes, (uint32_t)old), memory_order_relaxed);
}

bool muster_census_colocated(const muster_census *c, int cpu)
{
    uint32_t where = cpu_number(cpu);
    /* relaxed: a hint; a stale count costs one needless yield or one spin chunk. */
    return where < c->cpu_limit && atomic_load_explicit(&c->occupants[where], memory_order_relaxed) > 1;
}

bool muster_census_cpu_needed(const muster_census *c, unsigned self, int cpu)
{
    /* relaxed (both loads): see muster_census_arrive_on(); a stale slot costs one yield or one spin chunk. */
    uint32_t mine = (uint32_t)atomic_load_explicit(&c->slots[self].cpu_and_arrivals, memory_order_relaxed);
    for (unsigned id = 0; id < c->participants; id++) {
        uint64_t word = atomic_load_explicit(&c->slots[id].cpu_and_arrivals, memory_order_relaxed);
        if (slot_cpu(word) != (uint32_t)cpu || id == self)
            continue;
        /* Behind us (it has not arrived at the episode we wait in), or
         * arrived but still to run the release. */
        if ((int32_t)(mine - (uint32_t)word) > 0 || ((uint32_t)(word >> 32) & OWES_RELEASE))
            return true;
    }
    return false;
}
