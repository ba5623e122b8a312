/* Task records and where a thread is among them: frames, nodes, and
 * scheduling, running and completing a record (core.h says how the wing
 * fits together).  Below the waits (wait.c, taskgroup.c) and the creation
 * paths (submit.c, detach.c), which call it. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "omp/task/core.h"
#include "omp/task/defer.h"
#include "omp/task/task_memory.h"

_Thread_local task_frame *muster_omp_current_frame;
_Thread_local taskgroup *muster_omp_current_group;
_Thread_local task_node muster_omp_implicit_node = {.refs = 1};
size_t muster_omp_record_told_bytes;

void muster_omp_tasks_told(void)
{
    muster_omp_record_told_bytes = sizeof(deferred_task_told);
    muster_omp_task_memory_told();
}

/* ---- frames ---- */

MUSTER_OMP_EXPORT int omp_in_final(void)
{
    task_frame *frame = running_task();
    return frame != NULL && frame->final;
}

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

/* What an undeferred task keeps in the storage its ABI layer gives it. */
typedef struct undeferred_storage {
    task_frame frame;      /* first: the storage is the frame */
    muster_ompt_task *ompt; /* the tool's view of it, while a tool is attached (kept out: every task of
                               clang's carries the storage) */
} undeferred_storage;

_Static_assert(sizeof(undeferred_storage) <= MUSTER_OMP_UNDEFERRED_FRAME_SIZE, "task.h's frame size holds a frame");

/* The tool's events of an undeferred task (out of line: without a tool
 * the task pays the flag's test only). */
static __attribute__((noinline)) void undeferred_told(undeferred_storage *s, bool begin)
{
    if (begin) {
        s->ompt = malloc(sizeof *s->ompt);
        if (s->ompt == NULL)
            muster_omp_fatal("out of memory telling a tool of a task");
        muster_ompt_task_create(s->ompt, muster_ompt_task_flags(MUSTER_OMPT_TASK_UNDEFERRED, s->frame.final), false);
        muster_ompt_task_begin(s->ompt, NULL); /* the program runs the body */
    } else {
        muster_ompt_task_end(s->ompt, MUSTER_OMPT_TASK_COMPLETE);
        free(s->ompt);
    }
}

static inline __attribute__((always_inline)) void undeferred_enter(void *storage, bool final)
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

void muster_omp_undeferred_begin(void *storage, bool final)
{
    undeferred_enter(storage, final);
}

void muster_omp_undeferred_begin_told(void *storage, bool final)
{
    undeferred_enter(storage, final);
    undeferred_told(storage, true);
}

void muster_omp_undeferred_end(void *storage)
{
    task_frame *frame = storage;
    if (muster_omp_current_frame != frame)
        muster_omp_fatal("an undeferred task ended that is not the innermost one running");
    if (muster_ompt_on())
        undeferred_told(storage, false);
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

/* The dependences event of a new task: its depend clauses as OMPT lists
 * them (a kind the core does not read is left out). */
__attribute__((noinline)) void muster_omp_tell_dependences(muster_ompt_task *task, const muster_omp_depend *depend)
{
    enum { ON_STACK = 32 };
    muster_ompt_dependence stack[ON_STACK] = {0};
    muster_ompt_dependence *deps = depend->count <= ON_STACK ? stack : malloc(depend->count * sizeof *deps);
    if (deps == NULL)
        return; /* out of memory: the tool misses this event rather than the program failing */
    int n = 0;
    for (size_t i = 0; i < depend->count; i++) {
        uintptr_t addr;
        muster_omp_dep_kind kind;
        if (!depend->nth(depend->list, i, &addr, &kind))
            continue;
        deps[n].variable.ptr = (void *)addr;
        deps[n].dependence_type = kind == MUSTER_OMP_DEP_READ    ? MUSTER_OMPT_DEPENDENCE_IN
                                  : kind == MUSTER_OMP_DEP_WRITE ? MUSTER_OMPT_DEPENDENCE_INOUT
                                                                 : MUSTER_OMPT_DEPENDENCE_MUTEXINOUTSET;
        n++;
    }
    muster_ompt_dependences(task, deps, n);
    if (deps != stack)
        free(deps);
}

/* Counts a record in the team's pending and schedules it: with `depend`,
 * registered in its parent's table to wait for its predecessors (the last
 * one's thread queues it); once ready, queued or run here as defer.h says
 * (muster_omp_defer_ready). */
void muster_omp_record_schedule(muster_omp_thread *self, deferred_task *t, const muster_omp_depend *depend)
{
    muster_omp_team_tasks *tt = t->team->tasks;
    muster_omp_tasks_count_new(tt, self->id);
    if (depend != NULL && muster_ompt_on())
        muster_omp_tell_dependences(&told_of(t)->ompt, depend);
    if (depend != NULL) {
        t->deps = muster_omp_deps_new(depend, t, t->team);
        if (t->parent->deps == NULL)
            t->parent->deps = muster_omp_dep_table_new();
        if (!muster_omp_deps_register(t->parent->deps, t->deps))
            return; /* a predecessor's end will queue it */
    }
    if (muster_omp_defer_ready(tt, self->id, depend != NULL, t->priority) &&
        muster_omp_record_queue_again(t, self->id))
        return;
    muster_omp_record_run_deferred(t);
}

/* Tells the tool a record's body ended, before the body's end may hand
 * the record to its fulfiller (detach.c): complete, cancelled, or
 * detached with its event not fulfilled yet. */
static void tell_body_end(deferred_task *t, bool cancelled)
{
    int status = cancelled ? MUSTER_OMPT_TASK_CANCEL : MUSTER_OMPT_TASK_COMPLETE;
    if (t->detached) {
        /* seq_cst (both): against fulfil_record's exchange and load, so that
         * one of the two sees the other (detach.c: the fulfilment's events). */
        atomic_store(&told_of(t)->body_ended, true);
        if (!cancelled && !atomic_load(&t->fulfilled))
            status = MUSTER_OMPT_TASK_DETACH;
        told_of(t)->told_detach = status == MUSTER_OMPT_TASK_DETACH; /* the decrement publishes it */
    }
    muster_ompt_task_end(&told_of(t)->ompt, status);
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
    bool told = muster_ompt_on();
    if (told)
        muster_ompt_task_begin(&told_of(t)->ompt, __builtin_dwarf_cfa());
    bool cancelled = task_cancelled(t->team, t->group);
    if (!cancelled)
        t->fn(t->data);
    if (timed)
        muster_omp_defer_sample_end(frame.depth, start);
    muster_omp_current_frame = frame.parent;
    muster_omp_defer_note_spawned(frame.depth, frame.spawned);
    if (muster_omp_pending_events != NULL)
        muster_omp_events_orphan(&frame);
    muster_omp_current_group = saved_group;
    muster_omp_node_release(frame.node, frame.team);
    if (told)
        tell_body_end(t, cancelled);
    /* acq_rel: pairs with the decrement in fulfil_record() (detach.c): whichever of the body's
     * end and the fulfilment comes second completes the task, and must see what the first did. */
    bool complete = !t->detached || atomic_fetch_sub_explicit(&t->detach_outstanding, 1, memory_order_acq_rel) == 1;
    if (told && t->detached && complete && told_of(t)->told_detach)
        muster_ompt_task_fulfilled(&told_of(t)->ompt, MUSTER_OMPT_TASK_LATE_FULFILL);
    return complete;
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
    size_t header = (sizeof(deferred_task) + muster_omp_record_told_bytes + align - 1) & ~(align - 1);
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
    if (muster_ompt_on())
        muster_ompt_task_create(&told_of(t)->ompt, muster_ompt_task_flags(0, final), task->depend != NULL);
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
