/* TEMPORARY: weak stand-ins for parts being written on other branches
 * (env.c, affinity.c, workshare.c), so the fork/join core can be built and
 * tested alone.  The real definitions override these; this file goes away
 * when they land. */
#include <stdio.h>
#include <stdlib.h>

#include "omp/internal.h"

__attribute__((weak)) const muster_omp_globals *muster_omp_globals_get(void)
{
    static muster_omp_globals globals;
    static _Atomic int ready;
    if (!atomic_load(&ready)) {
        const char *n = getenv("OMP_NUM_THREADS");
        unsigned cpus = muster_cpus_available();
        globals.available_cpus = cpus;
        globals.icvs.nthreads = n && atoi(n) > 0 ? (unsigned)atoi(n) : cpus;
        globals.icvs.max_active_levels = 1;
        globals.icvs.run_sched = MUSTER_OMP_SCHED_STATIC;
        atomic_store(&ready, 1);
    }
    return &globals;
}

__attribute__((weak)) int muster_omp_workshares_prepare(muster_omp_workshares **ws, unsigned size)
{
    (void)ws;
    (void)size;
    return 0;
}

__attribute__((weak)) void muster_omp_workshares_free(muster_omp_workshares *ws)
{
    (void)ws;
}

__attribute__((weak)) void muster_omp_team_places(const muster_omp_thread *primary, unsigned size, unsigned bind,
                                                  muster_omp_place_state *members)
{
    for (unsigned i = 0; i < size; i++)
        members[i] = (muster_omp_place_state){.place = -1};
}

__attribute__((weak)) void muster_omp_bind_self(muster_omp_thread *self, const muster_omp_place_state *state)
{
    self->place = *state;
}

__attribute__((weak)) MUSTER_OMP_EXPORT void omp_set_max_active_levels(int levels)
{
    muster_omp_self()->icvs.max_active_levels = levels > 0 ? (unsigned)levels : 0;
}

__attribute__((weak)) MUSTER_OMP_EXPORT int omp_get_num_procs(void)
{
    return (int)muster_cpus_available();
}
