/* gcc's task waits: GOMP_taskwait, GOMP_taskwait_depend, GOMP_taskyield,
 * GOMP_taskgroup_start and _end, onto the task core (task.c).  GOMP_task,
 * GOMP_taskloop and the task-reduction entry points stay in task.c for
 * now: GOMP_task's common path is inlined into the core's (a call saved
 * per task), and the reductions read gcc's descriptor layout inside it. */
#include "omp/internal.h"
#include "omp/task.h"

MUSTER_OMP_EXPORT void GOMP_taskwait(void)
{
    muster_omp_taskwait();
}

MUSTER_OMP_EXPORT void GOMP_taskwait_depend(void **depend)
{
    muster_omp_taskwait_depend(depend);
}

/* Nothing else to run: the calling task just continues. */
MUSTER_OMP_EXPORT void GOMP_taskyield(void)
{
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_start(void)
{
    muster_omp_taskgroup_start();
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_end(void)
{
    muster_omp_taskgroup_end();
}
