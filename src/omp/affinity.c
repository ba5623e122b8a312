/* Team places and pinning: the places of a team's members (OpenMP 5.1
 * §2.6.2: primary, close and spread, with spread splitting the primary's
 * place partition into sub-partitions), binding threads to them, and
 * where a new pool worker starts.  The place list itself is places.c's.
 * The arithmetic is a pure function (muster_omp_assign_places) so the
 * tests can check it for any number of places. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "omp/env.h"
#include "omp/internal.h"
#include "platform/affinity.h"

const muster_omp_places *muster_omp_places_get(void)
{
    muster_omp_globals_get(); /* the list is built by the globals' initialisation */
    return muster_omp_places_peek();
}

/* ---- team places: OpenMP 5.1 §2.6.2 ---- */

/* Threads [*next, ...) get place `place` and partition [first, first+count). */
static void give(muster_omp_place_state *members, unsigned *next, unsigned n, int place, int first, int count)
{
    for (unsigned k = 0; k < n; k++, (*next)++)
        members[*next] = (muster_omp_place_state){place, first, count};
}

/* More threads than places: places from the primary's on get s or s+1
 * consecutive threads (the first T mod P places one more).  With
 * own_partition (spread), each thread's partition is its one place. */
static void fill_places(muster_omp_place_state *members, unsigned size, int first, unsigned count, unsigned i0,
                        bool own_partition)
{
    unsigned s = size / count, rest = size % count, next = 0;
    for (unsigned j = 0; j < count && next < size; j++) {
        int place = first + (int)((i0 + j) % count);
        give(members, &next, s + (j < rest), place, own_partition ? place : first,
             own_partition ? 1 : (int)count);
    }
}

/* spread with T <= P: T sub-partitions of s or s+1 consecutive places (the
 * first P mod T one longer), fixed relative to the partition's start; the
 * primary keeps its place and takes the sub-partition holding it, thread i
 * the first place of the i-th sub-partition after that one. */
static void spread_partitions(muster_omp_place_state *members, unsigned size, int first, unsigned count,
                              unsigned i0)
{
    unsigned s = count / size, rest = count % size;
    unsigned k0 = i0 < rest * (s + 1) ? i0 / (s + 1) : rest + (i0 - rest * (s + 1)) / s;
    for (unsigned i = 0; i < size; i++) {
        unsigned k = (k0 + i) % size;
        unsigned start = k * s + (k < rest ? k : rest), len = s + (k < rest);
        int place = i == 0 ? first + (int)i0 : first + (int)start;
        members[i] = (muster_omp_place_state){place, first + (int)start, (int)len};
    }
}

void muster_omp_assign_places(unsigned bind, int primary_place, int part_first, int part_count,
                              unsigned num_places, unsigned size, muster_omp_place_state *members)
{
    if (part_count <= 0 || part_first < 0 || (unsigned)(part_first + part_count) > num_places) {
        part_first = 0;
        part_count = (int)num_places;
    }
    unsigned count = (unsigned)part_count;
    bool inside = primary_place >= part_first && primary_place < part_first + part_count;
    unsigned i0 = inside ? (unsigned)(primary_place - part_first) : 0;
    unsigned next = 0;
    if (num_places == 0 || bind == MUSTER_OMP_BIND_FALSE) {
        give(members, &next, size, -1, part_first, part_count);
        return;
    }
    switch (bind) {
    case MUSTER_OMP_BIND_PRIMARY:
        give(members, &next, size, part_first + (int)i0, part_first, part_count);
        break;
    case MUSTER_OMP_BIND_SPREAD:
        if (size <= count)
            spread_partitions(members, size, part_first, count, i0);
        else
            fill_places(members, size, part_first, count, i0, true);
        break;
    default: /* close, and true: the implementation's choice is close, as libgomp's */
        if (size <= count)
            for (unsigned i = 0; i < size; i++)
                members[i] = (muster_omp_place_state){part_first + (int)((i0 + i) % count), part_first,
                                                     part_count};
        else
            fill_places(members, size, part_first, count, i0, false);
        break;
    }
}

void muster_omp_current_partition(const muster_omp_thread *self, int *first, int *count)
{
    /* The partition this thread's implicit task was given when its team
     * formed; teams of one (no places array) inherit their forker's.  Read
     * from the teams rather than from self->place, which a region's primary
     * may still hold from the sub-partition of a region it has left. */
    const muster_omp_team *team = self->team;
    unsigned id = self->id;
    while (team != NULL && team->places == NULL) {
        id = team->parent_id;
        team = team->parent;
    }
    *first = 0;
    *count = (int)muster_omp_places_get()->count;
    if (team != NULL && team->places[id].partition_count > 0) {
        *first = team->places[id].partition_first;
        *count = team->places[id].partition_count;
    }
}

void muster_omp_team_places(const muster_omp_thread *primary, unsigned size, unsigned bind,
                            muster_omp_place_state *members)
{
    const muster_omp_places *places = muster_omp_places_get();
    int first, count;
    muster_omp_current_partition(primary, &first, &count);
    muster_omp_assign_places(bind, primary->place.place, first, count, places->count, size, members);
}

/* Bound teams can share CPUs by construction (OMP_PLACES='{0}' with two
 * threads, proc_bind(primary), more members than places): the scheduler
 * must then count the CPUs the places give, not the process's.  A bitmap
 * of the first 1024 CPUs on the stack: no allocation at a fork. */
enum { PLACE_CPU_BITS = 1024 };

unsigned muster_omp_bound_cpus(const muster_omp_places *places, const muster_omp_place_state *members,
                               unsigned size)
{
    if (places->count == 0 || size == 0)
        return 0;
    uint64_t seen[PLACE_CPU_BITS / 64] = {0};
    unsigned cpus = 0;
    for (unsigned i = 0; i < size; i++) {
        int place = members[i].place;
        if (place < 0 || (unsigned)place >= places->count)
            return 0;
        for (unsigned k = places->start[place]; k < places->start[place + 1]; k++) {
            int cpu = places->cpus[k];
            if (cpu < 0 || cpu >= PLACE_CPU_BITS)
                return 0;
            uint64_t bit = UINT64_C(1) << (cpu % 64);
            cpus += (seen[cpu / 64] & bit) == 0;
            seen[cpu / 64] |= bit;
        }
    }
    return cpus;
}

/* ---- pinning ---- */

static atomic_bool pin_warned;

static void warn_pin_failed(int place, int error)
{
    /* relaxed: only decides who prints the one warning; orders nothing else. */
    if (!muster_omp_warnings_wanted() || atomic_exchange_explicit(&pin_warned, true, memory_order_relaxed))
        return;
    fprintf(stderr, "libmuster-omp: cannot bind a thread to place %d: %s; threads that cannot be bound run unbound\n",
            place, strerror(error));
}

static void pin_to_place(int place)
{
    const muster_omp_places *places = muster_omp_places_get();
    if (place < 0 || (unsigned)place >= places->count)
        return;
    unsigned first = places->start[place], end = places->start[place + 1];
    int rc = muster_thread_bind(&places->cpus[first], end - first);
    if (rc != 0)
        warn_pin_failed(place, rc);
}

void muster_omp_bind_self(muster_omp_thread *self, const muster_omp_place_state *state)
{
    if (state->place >= 0 && state->place != self->place.place)
        pin_to_place(state->place);
    self->place = *state;
}

void muster_omp_bind_initial_thread(muster_omp_thread *self)
{
    const muster_omp_places *places = muster_omp_places_get();
    if (self->place.place >= 0 || places->count == 0 || self->icvs.bind == MUSTER_OMP_BIND_FALSE)
        return;
    muster_omp_place_state state;
    muster_omp_current_partition(self, &state.partition_first, &state.partition_count);
    state.place = state.partition_first;
    muster_omp_bind_self(self, &state);
}

/* ---- where a new worker starts ---- */

/* The CPU `steps` places after `cpu` in `mask`, cyclically; -1 if `cpu` is
 * not in it. */
static int cpu_after(const cpu_set_t *mask, int cpu, unsigned steps)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, mask))
        return -1;
    while (steps > 0) {
        cpu = (cpu + 1) % CPU_SETSIZE;
        if (CPU_ISSET(cpu, mask))
            steps--;
    }
    return cpu;
}

bool muster_omp_spread_start(pthread_attr_t *attr, unsigned id, cpu_set_t *inherited)
{
    if (muster_thread_mask_get(inherited) != 0)
        return false;
    unsigned cpus = (unsigned)CPU_COUNT(inherited);
    if (cpus < 2 || id % cpus == 0)
        return false;
    int start = cpu_after(inherited, muster_current_cpu(), id % cpus);
    if (start < 0)
        return false;
    return muster_thread_attr_on_cpu(attr, start) == 0;
}

void muster_omp_spread_done(const cpu_set_t *inherited)
{
    /* Cannot fail with a mask the creator held a moment ago, unless its
     * CPUs went offline; the worker then keeps its start CPU, which the
     * kernel would move it off anyway. */
    (void)muster_thread_mask_set(inherited);
}
