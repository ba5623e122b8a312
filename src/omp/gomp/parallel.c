/* gcc's parallel regions, barriers and cancellation: GOMP_parallel and its
 * GOMP 1.0 split form, GOMP_barrier, GOMP_cancel, GOMP_cancellation_point
 * and GOMP_barrier_cancel, onto the core in parallel.c and cancel.c. */
#include <stdbool.h>
#include <stddef.h>

#include "omp/gomp/gomp.h"

MUSTER_OMP_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    MUSTER_OMPT_NOTE_REGION_CALLER();
    muster_omp_parallel(fn, data, num_threads, GOMP_PARALLEL_PROC_BIND(flags), NULL, NULL);
}

MUSTER_OMP_EXPORT void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    MUSTER_OMPT_NOTE_REGION_CALLER();
    muster_omp_parallel_start(fn, data, num_threads, 0, NULL, NULL);
}

MUSTER_OMP_EXPORT void GOMP_parallel_end(void)
{
    muster_omp_parallel_end();
}

MUSTER_OMP_EXPORT void GOMP_barrier(void)
{
    if (!muster_ompt_on()) {
        muster_omp_team_barrier(muster_omp_self());
        return;
    }
    muster_ompt_caller = __builtin_return_address(0);
    muster_omp_team_barrier_of(muster_omp_self(), MUSTER_OMPT_SYNC_BARRIER_EXPLICIT);
}

/* ---- cancellation: `which` is gcc's bits, as the core takes them ---- */

MUSTER_OMP_EXPORT bool GOMP_cancel(int which, bool do_cancel)
{
    return muster_omp_cancel(which, do_cancel);
}

MUSTER_OMP_EXPORT bool GOMP_cancellation_point(int which)
{
    return muster_omp_cancellation_point(which);
}

MUSTER_OMP_EXPORT bool GOMP_barrier_cancel(void)
{
    return muster_omp_barrier_cancel(muster_omp_self());
}
