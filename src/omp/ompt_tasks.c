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
    task->outer_state = muster_ompt_state; /* a task run inside a wait gives it back */
    muster_ompt_state = muster_ompt_working_state();
    muster_ompt_running = task;
    schedule(prior, MUSTER_OMPT_TASK_SWITCH, &task->data);
}

void muster_ompt_task_end(muster_ompt_task *task, int status)
{
    muster_ompt_running = task->outer;
    muster_ompt_state = task->outer_state;
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
    muster_ompt_set_wait_state(kind, endpoint);
    sync_event(MUSTER_OMPT_SYNC_REGION_WAIT, kind, endpoint, ra);
}

void muster_ompt_reduction(int endpoint)
{
    const void *ra = endpoint == MUSTER_OMPT_SCOPE_BEGIN ? muster_ompt_take_caller() : NULL;
    sync_event(MUSTER_OMPT_REDUCTION, MUSTER_OMPT_SYNC_REDUCTION, endpoint, ra);
}

/* ---- work shares and masked ---- */

enum { WORK_NESTING = 8 };
typedef struct open_work {
    int type;
    const void *ra;
    uint64_t count;
} open_work;
static _Thread_local open_work works[WORK_NESTING];
static _Thread_local unsigned work_depth;
static _Thread_local bool single_open; /* gcc's executor: its end not yet told */

static void work_event(const open_work *w, int endpoint)
{
    muster_ompt_work_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_work_fn, MUSTER_OMPT_WORK);
    if (cb != NULL)
        cb(w->type, endpoint, current_parallel(), muster_ompt_current_task(), w->count, w->ra);
}

void muster_ompt_work_close_single(void)
{
    if (!single_open)
        return;
    single_open = false;
    muster_ompt_work_end();
}

void muster_ompt_work_begin(int type, uint64_t count)
{
    muster_ompt_work_close_single();
    open_work w = {type, muster_ompt_take_caller(), count};
    if (work_depth < WORK_NESTING)
        works[work_depth] = w;
    work_depth++;
    work_event(&w, MUSTER_OMPT_SCOPE_BEGIN);
}

void muster_ompt_work_end(void)
{
    if (work_depth == 0)
        return;
    if (--work_depth < WORK_NESTING)
        work_event(&works[work_depth], MUSTER_OMPT_SCOPE_END);
}

/* The single's events at its claim: the others' begin and end at once;
 * the executor's begin, its end at __kmpc_end_single (clang) or, for gcc,
 * at what comes next (muster_ompt_work_close_single). */
void muster_ompt_single(bool executor, bool has_end)
{
    muster_ompt_work_begin(executor ? MUSTER_OMPT_WORK_SINGLE_EXECUTOR : MUSTER_OMPT_WORK_SINGLE_OTHER, 1);
    if (!executor)
        muster_ompt_work_end();
    else if (!has_end)
        single_open = true;
}

void muster_ompt_masked(int endpoint)
{
    muster_ompt_masked_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_masked_fn, MUSTER_OMPT_MASKED);
    const void *ra = muster_ompt_take_caller();
    if (cb != NULL)
        cb(endpoint, current_parallel(), muster_ompt_current_task(), ra);
}
