/* Detachable tasks (the detach clause): they complete only when
 * omp_fulfill_event is called on their event, which may happen later, from
 * any thread, inside the team or not.
 *
 * In a parallel region (if(true), not inside a final task) such a task is
 * a task record like any deferred one (muster_omp_defer_detached), counted
 * in its parent, its taskgroup and the team's unfinished tasks until both
 * its body has ended and its event is fulfilled; so its dependence
 * successors, taskwait, taskgroup end, barriers and the region's end wait
 * for the event without anything of their own.  A team of one gets a
 * scheduler for this at its first detachable task (solo.c).  Otherwise (if(0),
 * inside a final task, outside any region) its body runs at once and the
 * thread keeps the unfulfilled event in a list (task_event below): taskwait
 * waits for those of the current task's children, taskgroup end for those
 * created in the group, and team barriers and the region's end for those
 * of the team.  A task run at once with a depend clause does not wait for
 * such events (its predecessor's fulfiller may be a task made later:
 * waiting would deadlock), so outside any parallel region a detached
 * task's successors may start before its event is fulfilled (libgomp 12
 * blocks the creator there until the event is fulfilled, and deadlocks
 * when a later task fulfils it). */
#include <omp.h>

#include "omp/task/core.h"

static void fulfil_record(deferred_task *t);

typedef struct task_event {
    _Atomic uint32_t fulfilled; /* futex word: 0, then 1 */
    _Atomic uint32_t references; /* the fulfiller's and the waiting list's */
    struct task_event *next;    /* in the creating thread's list */
    const task_frame *parent;   /* the task whose taskwait waits for it; NULL: implicit */
    const taskgroup *group;     /* the taskgroup whose end waits for it */
    const muster_omp_team *team; /* whose barriers and end wait for it */
    bool orphaned;              /* its parent has finished: no taskwait waits for it */
} task_event;

/* The unfulfilled events of tasks this thread ran. */
_Thread_local task_event *muster_omp_pending_events;

static void drop_event(task_event *event)
{
    if (atomic_fetch_sub(&event->references, 1) == 1)
        free(event);
}

static bool event_fulfilled(task_event *event)
{
    /* acquire: pairs with the release exchange in omp_fulfill_event(): the fulfiller's writes
     * before it are then seen. */
    return atomic_load_explicit(&event->fulfilled, memory_order_acquire) != 0;
}

static void wait_fulfilled(task_event *event)
{
    /* EINTR and spurious wake-ups return here and re-check. */
    while (!event_fulfilled(event))
        muster_futex_wait(&event->fulfilled, 0, 0);
}

/* Waits for (when `wait`) or forgets (fulfilled) the listed events for
 * which `matches` holds, and keeps the others. */
static void settle_events(bool (*matches)(const task_event *, const void *), const void *key, bool wait)
{
    task_event **link = &muster_omp_pending_events;
    while (*link != NULL) {
        task_event *event = *link;
        if (matches(event, key) && wait)
            wait_fulfilled(event);
        if (event_fulfilled(event)) {
            *link = event->next;
            drop_event(event);
        } else {
            link = &event->next;
        }
    }
}

static bool any_event(const task_event *event, const void *key)
{
    (void)event;
    (void)key;
    return false; /* nothing to wait for: only forgets the fulfilled */
}

static bool child_of(const task_event *event, const void *frame)
{
    return !event->orphaned && event->parent == frame;
}

static bool in_group(const task_event *event, const void *group)
{
    return event->group == group;
}

static bool of_team(const task_event *event, const void *team)
{
    return event->team == team;
}

void muster_omp_tasks_settle_events(muster_omp_team *team)
{
    if (muster_omp_pending_events != NULL)
        settle_events(of_team, team, true);
}

void muster_omp_events_orphan(const task_frame *frame)
{
    for (task_event *event = muster_omp_pending_events; event != NULL; event = event->next)
        if (event->parent == frame)
            event->orphaned = true;
}

static task_event *new_event(void)
{
    settle_events(any_event, NULL, false);
    task_event *event = checked_malloc(sizeof *event);
    atomic_init(&event->fulfilled, 0);
    atomic_init(&event->references, 2);
    event->parent = running_task();
    event->group = innermost_group();
    event->team = current_team();
    event->orphaned = false;
    event->next = muster_omp_pending_events;
    muster_omp_pending_events = event;
    return event;
}

void *muster_omp_detach_event_new(void)
{
    return new_event();
}

MUSTER_OMP_EXPORT void omp_fulfill_event(omp_event_handle_t handle)
{
    if ((uintptr_t)handle & 1) {
        fulfil_record((deferred_task *)((uintptr_t)handle & ~(uintptr_t)1));
        return;
    }
    task_event *event = (task_event *)(uintptr_t)handle;
    /* release: pairs with the acquire load in event_fulfilled(), publishing what the fulfiller
     * wrote for the task's successors. */
    if (atomic_exchange_explicit(&event->fulfilled, 1, memory_order_release) != 0)
        muster_omp_fatal("omp_fulfill_event: event already fulfilled");
    muster_futex_wake(&event->fulfilled, INT32_MAX);
    drop_event(event);
}

void muster_omp_events_settle_children(const task_frame *frame)
{
    settle_events(child_of, frame, true);
}

void muster_omp_events_settle_group(const taskgroup *group)
{
    settle_events(in_group, group, true);
}

/* ---- detachable task records ---- */

/* omp_fulfill_event for a detached record: the task completes now if its
 * body has ended, in this thread (which may be outside the team). */
static void fulfil_record(deferred_task *t)
{
    /* relaxed: only detects a second call made before the task completed
     * (after that the record is gone, as libgomp's is). */
    if (atomic_exchange_explicit(&t->fulfilled, true, memory_order_relaxed))
        muster_omp_fatal("omp_fulfill_event: event already fulfilled");
    /* acq_rel: as in run_record_body() (records.c), whose decrement this pairs with. */
    if (atomic_fetch_sub_explicit(&t->detach_outstanding, 1, memory_order_acq_rel) != 1)
        return;
    muster_omp_team *team = t->team;
    muster_omp_team_tasks *tt = team->tasks;
    muster_omp_thread *self = muster_omp_self();
    unsigned id = self->team == team ? self->id : MUSTER_OMP_NOT_MEMBER;
    /* seq_cst (both): the increment comes before the decrements that let
     * the team's end go on, which then waits for the decrement, after our
     * last touch of tt (a team of one frees it at its end). */
    atomic_fetch_add(&tt->fulfillers, 1);
    muster_omp_tasks_finished(tt, id, muster_omp_record_complete(t));
    atomic_fetch_sub(&tt->fulfillers, 1);
}

/* A detachable task of a team with a scheduler: a record like any
 * deferred task, whose completion waits for omp_fulfill_event too, so that
 * its successors, taskwait, taskgroup end, barriers and the region's end
 * all wait for the event, counted like any unfinished task.  The handle
 * goes where task.h says: *detach and the argument block's first pointer. */
void muster_omp_defer_detached(muster_omp_thread *self, muster_omp_team *team, task_frame *running, bool final,
                               const muster_omp_task_desc *task, int priority)
{
    /* Its fulfiller, any thread, will count it finished in its parent's
     * node: from now on every node's counts move by read-modify-writes.
     * relaxed: the handle's hand-over to the fulfiller publishes it. */
    atomic_store_explicit(&team->tasks->counts_private, false, memory_order_relaxed);
    deferred_task *t = muster_omp_record_new(team, running, final, task);
    t->priority = priority;
    t->detached = true;
    atomic_init(&t->detach_outstanding, 2); /* the body's end and the fulfilment */
    atomic_init(&t->fulfilled, false);
    void *handle = (void *)((uintptr_t)t | 1);
    *task->detach = handle;
    *(void **)t->data = handle;
    muster_omp_record_schedule(self, t, task->depend);
}

