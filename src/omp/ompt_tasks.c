/* The OMPT hooks that ask which task and region the calling thread is
 * in (ompt.h): explicit tasks, and the synchronization beyond barriers
 * (taskwait, taskgroup, reductions).  Thread layer, beside ompt.c, whose
 * dispatch they use; apart from it so that ompt.c, which thread.c calls,
 * needs nothing of the thread's. */
#include <stddef.h>

#include "omp/ompt.h"
#include "omp/team.h"
#include "omp/thread.h"

_Thread_local muster_ompt_task *muster_ompt_running;

/* ---- tasks ---- */

muster_ompt_data *muster_ompt_current_task(void)
{
    return muster_ompt_running != NULL ? &muster_ompt_running->data : &muster_omp_self()->ompt_task;
}

void muster_ompt_task_create(muster_ompt_task *task, int flags, bool has_dependences)
{
    muster_ompt_task_create_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_task_create_fn, MUSTER_OMPT_TASK_CREATE);
    task->data.value = 0;
    task->outer = NULL;
    task->flags = flags;
    const void *ra = muster_ompt_take_caller();
    if (cb != NULL)
        cb(muster_ompt_current_task(), &muster_ompt_unknown_frame, &task->data, flags, has_dependences, ra);
}

void muster_ompt_dependences(muster_ompt_task *task, const muster_ompt_dependence *deps, int ndeps)
{
    muster_ompt_dependences_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_dependences_fn, MUSTER_OMPT_DEPENDENCES);
    if (cb != NULL)
        cb(&task->data, deps, ndeps);
}

static void schedule(muster_ompt_data *prior, int status, muster_ompt_data *next)
{
    muster_ompt_task_schedule_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_task_schedule_fn, MUSTER_OMPT_TASK_SCHEDULE);
    if (cb != NULL)
        cb(prior, status, next);
}

void muster_ompt_task_begin(muster_ompt_task *task)
{
    muster_ompt_data *prior = muster_ompt_current_task();
    task->outer = muster_ompt_running;
    muster_ompt_running = task;
    schedule(prior, MUSTER_OMPT_TASK_SWITCH, &task->data);
}

void muster_ompt_task_end(muster_ompt_task *task, int status)
{
    muster_ompt_running = task->outer;
    schedule(&task->data, status, muster_ompt_current_task());
}

void muster_ompt_task_fulfilled(muster_ompt_task *task, int status)
{
    schedule(&task->data, status, NULL);
}

/* ---- synchronization beyond barriers ---- */

static muster_ompt_data *current_parallel(void)
{
    muster_omp_team *team = muster_omp_self()->team;
    return team != NULL ? &team->ompt_parallel : NULL;
}

static void sync_event(int event, int kind, int endpoint, const void *ra)
{
    muster_ompt_sync_region_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_sync_region_fn, event);
    if (cb != NULL)
        cb(kind, endpoint, current_parallel(), muster_ompt_current_task(), ra);
}

void muster_ompt_sync_region_only(int kind, int endpoint, const void *ra)
{
    sync_event(MUSTER_OMPT_SYNC_REGION, kind, endpoint, ra);
}

void muster_ompt_sync_wait_only(int kind, int endpoint, const void *ra)
{
    sync_event(MUSTER_OMPT_SYNC_REGION_WAIT, kind, endpoint, ra);
}

void muster_ompt_reduction(int endpoint)
{
    const void *ra = endpoint == MUSTER_OMPT_SCOPE_BEGIN ? muster_ompt_take_caller() : NULL;
    sync_event(MUSTER_OMPT_REDUCTION, MUSTER_OMPT_SYNC_REDUCTION, endpoint, ra);
}
