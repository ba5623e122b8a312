/* Cancellation entry points.  Cancellation is disabled, as libgomp has it
 * unless OMP_CANCELLATION=true: `cancel` and `cancellation point` never
 * cancel (they return false), and a cancellable barrier is a plain team
 * barrier.  omp_get_cancellation reports false accordingly (OMP_CANCELLATION
 * is not read). */
#include <stdbool.h>

#include "omp/internal.h"

MUSTER_OMP_EXPORT bool GOMP_cancel(int which, bool do_cancel)
{
    (void)which;
    (void)do_cancel;
    return false;
}

MUSTER_OMP_EXPORT bool GOMP_cancellation_point(int which)
{
    (void)which;
    return false;
}

MUSTER_OMP_EXPORT bool GOMP_barrier_cancel(void)
{
    muster_omp_team_barrier(muster_omp_self());
    return false;
}

MUSTER_OMP_EXPORT int omp_get_cancellation(void)
{
    return 0;
}
