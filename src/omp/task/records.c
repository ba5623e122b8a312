/* Task records and where a thread is among them: frames, nodes,
 * taskgroups, cancellation, and running and completing a record (core.h
 * says how the wing fits together). */
#include <omp.h>
#include <string.h>

#include "omp/task/core.h"
#include "omp/task/defer.h"
#include "omp/task/task_memory.h"

_Thread_local task_frame *muster_omp_current_frame;
_Thread_local taskgroup *muster_omp_current_group;
_Thread_local task_node muster_omp_implicit_node = {.refs = 1};

/* ---- taskgroups and cancellation ---- */

static void push_group(void)
{
    taskgroup *outer = innermost_group();
    taskgroup *group = checked_malloc(sizeof *group);
    *group = (taskgroup){
        .prev = muster_omp_current_group,
        .team = current_team(),
        .reductions = outer ? outer->reductions : NULL,
    };
    atomic_init(&group->tasks, 0);
    atomic_init(&group->cancelled, false);
    muster_omp_current_group = group;
}

static void pop_group(void)
{
    taskgroup *group = muster_omp_current_group;
    muster_omp_current_group = group->prev;
    free(group);
}

void muster_omp_taskgroup_cancel(void)
{
    taskgroup *group = cancellable_group(innermost_group());
    if (group != NULL)
        atomic_store_explicit(&group->cancelled, true, memory_order_relaxed); /* relaxed: as group_cancelled */
}

bool muster_omp_taskgroup_cancelled(void)
{
    return group_cancelled(innermost_group());
}

MUSTER_OMP_EXPORT int omp_in_final(void)
{
    task_frame *frame = running_task();
    return frame != NULL && frame->final;
}

void muster_omp_taskgroup_start(void)
{
    push_group();
}

void muster_omp_taskgroup_end(void)
{
    taskgroup *group = innermost_group();
    if (group == NULL)
        muster_omp_fatal("the end of a taskgroup that was not started");
    muster_omp_wait_descendants(&group->tasks, muster_omp_frame_node(running_task()));
    if (muster_omp_pending_events != NULL)
        muster_omp_events_settle_group(group);
    pop_group();
}

/* ---- the ABI layers' data on taskgroups ----
 *
 * Each taskgroup has one slot for the task reductions an ABI layer
 * registers in it (gomp/taskred.c: gcc's descriptor); a nested group
 * starts with its enclosing group's value. */

void **muster_omp_taskgroup_reduction_slot(void)
{
    taskgroup *group = innermost_group();
    return group != NULL ? &group->reductions : NULL;
}

void muster_omp_workshare_taskgroup_start(void)
{
    push_group();
    muster_omp_current_group->workshare = true;
}

/* ---- frames ---- */

void muster_omp_frame_enter(task_frame *frame, bool final)
{
    task_frame *parent = running_task();
    *frame = (task_frame){
        .parent = muster_omp_current_frame,
        .team = current_team(),
        .final = final || (parent != NULL && parent->final),
        .depth = depth_below(parent),
        .work_first = work_first_at_once(parent),
    };
    muster_omp_current_frame = frame;
}

void muster_omp_frame_leave(task_frame *frame)
{
    muster_omp_current_frame = frame->parent;
    if (muster_omp_pending_events != NULL)
        muster_omp_events_orphan(frame);
    muster_omp_node_release(frame->node, frame->team); /* its deferred children may still hold it */
}

/* ---- undeferred tasks whose body the compiler runs (LLVM's if(0)) ---- */

_Static_assert(sizeof(task_frame) <= MUSTER_OMP_UNDEFERRED_FRAME_SIZE, "task.h's frame size holds a frame");

void muster_omp_undeferred_begin(void *storage, bool final)
{
    task_frame *frame = storage, *parent = muster_omp_current_frame;
    muster_omp_team *team = current_team();
    /* running_task(), without looking the team up twice */
    const task_frame *running = parent != NULL && parent->team == team ? parent : NULL;
    *frame = (task_frame){.parent = parent,
                          .team = team,
                          .final = final || included_in_final(running),
                          .depth = depth_below(running),
                          .work_first = work_first_at_once(running)};
    muster_omp_current_frame = frame;
}

void muster_omp_undeferred_end(void *storage)
{
    task_frame *frame = storage;
    if (muster_omp_current_frame != frame)
        muster_omp_fatal("an undeferred task ended that is not the innermost one running");
    muster_omp_frame_leave(frame);
}

/* ---- nodes ---- */

/* Takes a reference to a node of `team`'s tasks, for a holder that holds
 * one already (its child's node, or a new record of the running task). */
static void node_hold(task_node *node, const muster_omp_team *team)
{
    if (node_counts_private(node, team))
        private_add32(&node->refs, 1);
    else
        /* relaxed: taking a reference while holding one orders nothing. */
        atomic_fetch_add_explicit(&node->refs, 1, memory_order_relaxed);
}

/* A new node for a task of `team` whose parent's node is `parent`. */
static task_node *node_new(task_node *parent, const muster_omp_team *team)
{
    task_node *node = checked_malloc(sizeof *node);
    atomic_init(&node->children, 0);
    atomic_init(&node->refs, 1);
    node->parent = parent;
    node->deps = NULL;
    if (parent != NULL)
        node_hold(parent, team);
    return node;
}

/* Drops a reference to a node of `team`'s tasks; true when it was the last. */
static bool node_unref(task_node *node, const muster_omp_team *team)
{
    if (node_counts_private(node, team))
        return private_add32(&node->refs, (uint32_t)-1) == 1;
    /* acq_rel: pairs with the other holders' acq_rel decrements here: the last holder must see
     * every other holder's use before it frees (and releases the parent in turn). */
    return atomic_fetch_sub_explicit(&node->refs, 1, memory_order_acq_rel) == 1;
}

void muster_omp_node_release(task_node *node, const muster_omp_team *team)
{
    while (node != NULL && node_unref(node, team)) {
        task_node *parent = node->parent;
        muster_omp_dep_table_free(node->deps);
        free(node);
        node = parent;
    }
}

/* The node of the task running in `frame` (NULL: the implicit task),
 * created if need be: a deferred task's links to its parent's node; an
 * undeferred one's to the node of the task that ran it. */
task_node *muster_omp_frame_node(task_frame *frame)
{
    if (frame == NULL || frame->team != current_team())
        return &muster_omp_implicit_node;
    if (frame->node == NULL) {
        task_node *parent = frame->origin;
        if (parent == NULL)
            parent = muster_omp_frame_node(frame->parent);
        frame->node = node_new(parent, frame->team);
    }
    return frame->node;
}

/* Once the team's tasks have all finished: the implicit task's dependence
 * table (thread-local, so never freed with a node) goes unless an outer
 * region's tasks still use it.  Else it would leak when the thread exits. */
void muster_omp_implicit_table_release(void)
{
    if (muster_omp_implicit_node.deps != NULL && muster_omp_dep_table_free_if_empty(muster_omp_implicit_node.deps))
        muster_omp_implicit_node.deps = NULL;
}

/* ---- records ---- */

/* Queues a task already counted in the team's pending (one whose
 * predecessors have finished): a prioritized one in the team's priority
 * queue, else in member id's deque.  False when that failed. */
bool muster_omp_record_queue_again(deferred_task *t, unsigned id)
{
    muster_omp_team_tasks *tt = t->team->tasks;
    if (t->priority > 0)
        return muster_omp_tasks_push_prioritized(tt, t, t->priority, MUSTER_OMP_NOT_MEMBER);
    uintptr_t tags[MUSTER_DEQUE_TAGS];
    task_tags(t, tags);
    return muster_omp_tasks_push_again(tt, id, t, tags);
}

/* A task whose last predecessor just finished in this thread: onto this
 * member's deque for anyone to take, as defer.h decides for a ready task
 * that had dependences, or run here when it decides otherwise or the
 * deque is full. */
void muster_omp_successor_ready(void *task, void *arg)
{
    deferred_task *t = task;
    (void)arg;
    if (t->fn == NULL) {
        /* A stand-in: its waiter runs the task (or nothing) itself. */
        muster_omp_team_tasks *tt = t->team->tasks;
        uint32_t waiter = count_finished(&t->stand_in_waiting);
        if (waiter != 0)
            muster_omp_tasks_wake_members(tt, waiter);
        return;
    }
    muster_omp_thread *self = muster_omp_self();
    if (self->team != t->team) {
        /* The fulfiller of a detached predecessor, outside the team: it
         * owns no deque of the team, so the task goes to the shared queue
         * (as priority 0 when it has none). */
        if (!muster_omp_tasks_push_prioritized(t->team->tasks, t, t->priority, MUSTER_OMP_NOT_MEMBER))
            muster_omp_fatal("out of memory queueing a task");
        return;
    }
    bool queue = muster_omp_defer_ready(t->team->tasks, self->id, true, t->priority);
    if (!queue || !muster_omp_record_queue_again(t, self->id))
        muster_omp_record_run_deferred(t);
}

/* The task had dependences: it leaves its parent's table, and successors
 * whose last predecessor it was become ready.  Its parent node is alive
 * (the task holds a reference until after this). */
static void release_successors(deferred_task *t)
{
    muster_omp_deps_release(t->parent->deps, t->deps, muster_omp_successor_ready, NULL);
    muster_omp_deps_free(t->deps);
    t->deps = NULL;
}

/* Runs a task record's body in the calling thread (a member of its team),
 * in the frame and taskgroup it was created in, whichever thread runs it.
 * True when the task is complete: always, unless it is detached and its
 * event not fulfilled yet (omp_fulfill_event then completes it). */
static bool run_record_body(deferred_task *t)
{
    taskgroup *saved_group = muster_omp_current_group;
    /* A thief explores the subtree it took in the other order (defer.h:
     * help first); the implicit task's children are roots, whoever runs
     * them. */
    task_frame frame = {.parent = muster_omp_current_frame,
                        .team = t->team,
                        .final = t->final,
                        .origin = t->parent,
                        .depth = t->depth,
                        .work_first = t->work_first != (t->depth > 1 && muster_omp_self()->id != t->creator)};
    muster_omp_current_frame = &frame;
    muster_omp_current_group = t->group;
    bool timed = muster_omp_defer_sample_start(frame.depth);
    uint64_t start = timed ? muster_now_ns() : 0;
    if (!task_cancelled(t->team, t->group))
        t->fn(t->data);
    if (timed)
        muster_omp_defer_sample_end(frame.depth, start);
    muster_omp_current_frame = frame.parent;
    muster_omp_defer_note_spawned(frame.depth, frame.spawned);
    if (muster_omp_pending_events != NULL)
        muster_omp_events_orphan(&frame);
    muster_omp_current_group = saved_group;
    muster_omp_node_release(frame.node, frame.team);
    /* acq_rel: pairs with the decrement in fulfil_record() (detach.c): whichever of the body's
     * end and the fulfilment comes second completes the task, and must see what the first did. */
    return !t->detached || atomic_fetch_sub_explicit(&t->detach_outstanding, 1, memory_order_acq_rel) == 1;
}

/* A task that is complete: its successors become ready, its parent and
 * taskgroup count it finished, and the record is freed.  Returns the tags
 * of the members asleep waiting for a count that emptied (0: none). */
uint32_t muster_omp_record_complete(deferred_task *t)
{
    if (t->deps != NULL)
        release_successors(t);
    uint32_t wake = t->group != NULL ? count_finished(&t->group->tasks) : 0;
    if (node_counts_private(t->parent, t->team)) {
        uint64_t before = private_add64(&t->parent->children, -TASK_COUNT_ONE); /* nobody sleeps on it */
        MUSTER_INVARIANT(tasks_left(before) > 0, "a task's parent counted no children (%p)", (void *)t->parent);
    } else {
        wake |= count_finished(&t->parent->children);
    }
    muster_omp_node_release(t->parent, t->team);
    muster_omp_task_free(t);
    return wake;
}

/* Runs a record that is not counted in the team's pending (not detached)
 * and completes it. */
uint32_t muster_omp_record_run(deferred_task *t)
{
    (void)run_record_body(t);
    return muster_omp_record_complete(t);
}

/* Runs a deferred task (one counted in the team's pending) and, once it is
 * complete, counts it finished there too.  The caller is a member of the
 * task's team. */
void muster_omp_record_run_deferred(deferred_task *t)
{
    muster_omp_team_tasks *tt = t->team->tasks;
    if (run_record_body(t))
        muster_omp_tasks_finished(tt, muster_omp_self()->id, muster_omp_record_complete(t));
}

/* A task record with a copy of the arguments, counted in its parent's
 * children and its taskgroup (and holding a reference to the parent's
 * node).  `running`: the explicit task creating it, NULL for the implicit
 * one; `final`: the task is final (the tasks it creates are included). */
deferred_task *muster_omp_record_new(muster_omp_team *team, task_frame *running, bool final,
                                     const muster_omp_task_desc *task)
{
    long arg_size = task->arg_size, arg_align = task->arg_align;
    size_t align = arg_align > 0 ? (size_t)arg_align : 1;
    size_t header = (sizeof(deferred_task) + align - 1) & ~(align - 1);
    /* From the thread's task memory: no malloc on the hot path, and the
     * block returns here whichever thread finishes the task. */
    deferred_task *t = muster_omp_task_alloc(header + (size_t)(arg_size > 0 ? arg_size : 0) + align);
    if (t == NULL)
        muster_omp_fatal("out of memory for a task");
    char *arg = (char *)(((uintptr_t)t + header + align - 1) & ~(uintptr_t)(align - 1));
    if (task->cpyfn != NULL)
        task->cpyfn(arg, task->data);
    else if (arg_size > 0)
        memcpy(arg, task->data, (size_t)arg_size);
    task_node *parent = muster_omp_frame_node(running);
    *t = (deferred_task){.fn = task->fn,
                         .data = arg,
                         .parent = parent,
                         .group = innermost_group(),
                         .team = team,
                         .final = final,
                         .depth = depth_below(running),
                         .creator = muster_omp_self()->id,
                         .work_first = work_first_queued(running)};
    node_hold(parent, team);
    if (node_counts_private(parent, team))
        private_add64(&parent->children, TASK_COUNT_ONE);
    else
        /* relaxed (and the group's below): the push (or the dependence
         * table's lock) publishes it, and the task's finish, which undoes
         * it, comes after its start. */
        atomic_fetch_add_explicit(&parent->children, TASK_COUNT_ONE, memory_order_relaxed);
    if (t->group != NULL)
        atomic_fetch_add_explicit(&t->group->tasks, TASK_COUNT_ONE, memory_order_relaxed);
    return t;
}

/* ---- which task the thread runs, for libomp's task ids ---- */

uint64_t muster_omp_task_key(unsigned ancestors)
{
    task_frame *frame = running_task();
    while (frame != NULL && ancestors > 0) {
        frame = frame->parent;
        ancestors--;
    }
    if (frame != NULL)
        return (uint64_t)(uintptr_t)frame;
    /* An implicit task: its thread's node, unless asked past it. */
    return ancestors == 0 ? (uint64_t)(uintptr_t)&muster_omp_implicit_node : 0;
}
