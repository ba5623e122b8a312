/* gcc's tasks and task waits: GOMP_task, GOMP_taskwait, GOMP_taskwait_depend,
 * GOMP_taskyield, GOMP_taskgroup_start and _end, onto the task core
 * (task.c), whose flags and depend array are gcc's.  (taskloop.c and
 * taskred.c hold taskloops and task reductions.) */
#include "omp/internal.h"
#include "omp/task.h"

/* A tail call: the core's entry takes the same arguments. */
MUSTER_OMP_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                                 long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                                 void *detach)
{
    muster_omp_task_submit(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

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
