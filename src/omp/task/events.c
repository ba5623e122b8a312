/* The events of detachable tasks run at once (if(0), inside a final task,
 * outside any parallel region: detach.c says when).  The thread that ran
 * such a task keeps its unfulfilled event in a list: taskwait waits for
 * those of the current task's children, taskgroup end for those created in
 * the group, and team barriers and the region's end for those of the team.
 * Below the records (records.c) and the waits (wait.c, taskgroup.c), which
 * settle them; omp_fulfill_event (detach.c) fulfils them. */
#include "omp/task/core.h"

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


/* omp_fulfill_event for the event of a task run at once (detach.c tells
 * the handles apart). */
void muster_omp_event_fulfil(void *handle)
{
    task_event *event = handle;
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
