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

muster_ompt_data *muster_ompt_current_task(void)
{
    return muster_ompt_running != NULL ? &muster_ompt_running->data : muster_omp_implicit_task_data(muster_omp_self());
}

/* The caller of the taskloop the thread is making tasks for (NULL:
 * none), below with the work shares. */
static const void *open_taskloop_caller(void);

/* ---- parallel regions ---- */

void muster_ompt_parallel_begin(muster_ompt_encountering *outer, muster_ompt_data *parallel, unsigned requested)
{
    muster_ompt_parallel_begin_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_parallel_begin_fn, MUSTER_OMPT_PARALLEL_BEGIN);
    muster_omp_thread *self = muster_omp_self();
    outer->ra = muster_ompt_take_caller();
    outer->running = muster_ompt_running;
    outer->implicit_task = self->ompt_task;
    parallel->value = 0; /* a pool's team object serves region after region */
    muster_ompt_enter_runtime();
    muster_ompt_data *task = muster_ompt_current_task();
    if (cb != NULL)
        cb(task, muster_ompt_current_frame(), parallel, requested,
           MUSTER_OMPT_PARALLEL_INVOKER_PROGRAM | MUSTER_OMPT_PARALLEL_TEAM, outer->ra);
    outer->implicit_frame = muster_ompt_implicit_frame;
    muster_ompt_running = NULL;            /* the region's tasks run on member 0's implicit task, */
    self->ompt_task = &outer->member_task; /* which is the region's, not the thread's */
}

void muster_ompt_parallel_end(muster_ompt_encountering *outer, muster_ompt_data *parallel)
{
    muster_ompt_parallel_end_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_parallel_end_fn, MUSTER_OMPT_PARALLEL_END);
    muster_omp_thread *self = muster_omp_self();
    self->ompt_task = outer->implicit_task;
    muster_ompt_implicit_frame = outer->implicit_frame;
    muster_ompt_running = outer->running;
    muster_ompt_state = muster_ompt_working_state();
    if (cb != NULL)
        cb(parallel, muster_ompt_current_task(), MUSTER_OMPT_PARALLEL_INVOKER_PROGRAM | MUSTER_OMPT_PARALLEL_TEAM,
           outer->ra);
    muster_ompt_leave_runtime();
}

/* ---- tasks ---- */

void muster_ompt_task_create(muster_ompt_task *task, int flags, bool has_dependences)
{
    muster_ompt_task_create_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_task_create_fn, MUSTER_OMPT_TASK_CREATE);
    *task = (muster_ompt_task){.flags = flags};
    const void *ra = muster_ompt_take_caller();
    if (ra == NULL)
        ra = open_taskloop_caller();
    /* In the runtime while the tool hears of it (the encountering task may
     * be in already: a taskloop's, or tasks made inside a wait). */
    bool entered = muster_ompt_enter_runtime_once();
    if (cb != NULL)
        cb(muster_ompt_current_task(), muster_ompt_current_frame(), &task->data, flags, has_dependences, ra);
    muster_ompt_leave_runtime_if(entered);
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

void muster_ompt_task_begin(muster_ompt_task *task, void *body_frame)
{
    muster_ompt_data *prior = muster_ompt_current_task();
    /* The task it suspends is in the runtime from here, if it was not
     * already (in a wait): a task run at once, at its creation. */
    muster_ompt_frame *suspended = muster_ompt_current_frame();
    task->entered_outer = suspended->enter_frame.ptr == NULL && body_frame != NULL;
    if (task->entered_outer)
        muster_ompt_frame_set(&suspended->enter_frame, &suspended->enter_frame_flags, body_frame);
    task->frame = (muster_ompt_frame){0};
    if (body_frame != NULL)
        muster_ompt_frame_set(&task->frame.exit_frame, &task->frame.exit_frame_flags, body_frame);
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
    if (task->entered_outer)
        muster_ompt_leave_runtime();
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

/* The task is in the runtime while the tool hears of it (and stays in
 * for a wait, between the wait's begin and end). */
static void sync_event(int event, int kind, int endpoint, const void *ra)
{
    muster_ompt_sync_region_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_sync_region_fn, event);
    bool entered = muster_ompt_enter_runtime_once();
    if (cb != NULL)
        cb(kind, endpoint, current_parallel(), muster_ompt_current_task(), ra);
    muster_ompt_leave_runtime_if(entered);
}

void muster_ompt_sync_region_only(int kind, int endpoint, const void *ra)
{
    sync_event(MUSTER_OMPT_SYNC_REGION, kind, endpoint, ra);
}

void muster_ompt_sync_wait_only(int kind, int endpoint, const void *ra)
{
    muster_ompt_set_wait_state(kind, endpoint);
    if (endpoint == MUSTER_OMPT_SCOPE_BEGIN)
        muster_ompt_enter_runtime();
    sync_event(MUSTER_OMPT_SYNC_REGION_WAIT, kind, endpoint, ra);
    if (endpoint == MUSTER_OMPT_SCOPE_END)
        muster_ompt_leave_runtime();
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

static void open_work_region(int type, const void *ra, uint64_t count)
{
    open_work w = {type, ra, count};
    if (work_depth < WORK_NESTING)
        works[work_depth] = w;
    work_depth++;
    work_event(&w, MUSTER_OMPT_SCOPE_BEGIN);
}

void muster_ompt_work_begin(int type, uint64_t count)
{
    muster_ompt_work_close_single();
    open_work_region(type, muster_ompt_take_caller(), count);
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

static const void *open_taskloop_caller(void)
{
    unsigned depth = work_depth < WORK_NESTING ? work_depth : WORK_NESTING;
    return depth > 0 && works[depth - 1].type == MUSTER_OMPT_WORK_TASKLOOP ? works[depth - 1].ra : NULL;
}

/* Not a work share of the team's: a single it is in (gcc's, whose end
 * is told late) stays open around it. */
void muster_ompt_taskloop_begin(muster_ompt_site site, uint64_t count)
{
    open_work_region(MUSTER_OMPT_WORK_TASKLOOP, muster_ompt_in_program(site.ra), count);
}

void muster_ompt_taskloop_end(void)
{
    muster_ompt_work_end();
}

void muster_ompt_masked(int endpoint)
{
    muster_ompt_masked_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_masked_fn, MUSTER_OMPT_MASKED);
    const void *ra = muster_ompt_take_caller();
    if (cb != NULL)
        cb(endpoint, current_parallel(), muster_ompt_current_task(), ra);
}
