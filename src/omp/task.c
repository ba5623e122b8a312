/* The task core, under both ABIs' entry points (task.h): explicit tasks,
 * taskwait, taskgroups (with a slot for an ABI layer's task reductions),
 * taskloop tasks, omp_in_final, omp_fulfill_event.
 *
 * Deferred tasks.  In a team of two or more, a task with an if clause that
 * holds, no detach and no final ancestor (it may be final itself) may be
 * queued on its creator's deque (scheduler.h) and run on any member: the
 * creator takes its newest tasks back, idle members steal the oldest.  It is
 * queued only while some member is hungry (looking for work) and the creator
 * keeps fewer than MUSTER_OMP_QUEUE_AHEAD queued; otherwise it runs at once,
 * so that while everyone is busy a task costs about a call and runs in the
 * serial order.
 * A task record carries a copy of the arguments, the node of its parent
 * (whose taskwait counts it) and its taskgroup (whose end counts it).
 * Nodes are reference counted because a child may finish after its parent
 * did.  Waiting is working: taskwait and taskgroup end run the waiter's own
 * descendants (the tied-task scheduling constraint), and a member reaching
 * a team barrier or the end of its region runs, or steals, tasks until the
 * team has none left (muster_omp_tasks_drain).
 *
 * Dependences (depend.h): a task with in, out, inout, mutexinoutset or
 * depobj dependences is registered in its parent's table and queued when its
 * last predecessor finishes (by that thread) and it holds its mutexinoutset
 * addresses, or at once if it has no predecessor.  An undeferred task
 * (if(0), or made inside a final task) with dependences, and taskwait
 * depend, register a stand-in the same way and wait, running the waiter's
 * descendants, until the stand-in is ready: they wait for their own
 * predecessors only.  A kind depend.h does not handle (no gcc 12 kind) makes
 * the task wait for all of its creator's deferred children and run at once
 * (more waiting than needed, never less).
 *
 * Priorities: with OMP_MAX_TASK_PRIORITY above 0, a task whose priority
 * clause gives it a priority above 0 (clamped to the maximum) is always
 * queued, in the team's priority queue (priority.h) rather than a deque,
 * and every member looking for work takes from that queue first, the most
 * urgent task first.  A waiter restricted to its descendants takes the most
 * urgent of those and leaves the rest in place.  Priority-0 tasks, the
 * default, never touch the queue.
 *
 * Every other task runs to completion in the thread that encounters it,
 * before the construct returns, as libgomp runs undeferred tasks.
 * Taskloop's tasks are always queued (if(true), not inside a final task),
 * as they are few and coarse; a full deque runs one at once.
 *
 * Detachable tasks (detach clause) complete only when omp_fulfill_event is
 * called on their event, which may happen later, from any thread, inside the
 * team or not.  In a parallel region (if(true), not inside a final task)
 * such a task is a task record like any deferred one, counted in its parent,
 * its taskgroup and the team's unfinished tasks until both its body has
 * ended and its event is fulfilled; so its dependence successors, taskwait,
 * taskgroup end, barriers and the region's end wait for the event without
 * anything of their own.  A team of one gets a scheduler for this at its
 * first detachable task (give_solo_team_a_scheduler).  Otherwise (if(0),
 * inside a final task, outside any region) its body runs at once and the
 * thread keeps the unfulfilled event in a list: taskwait waits for those of
 * the current task's children, taskgroup end for those created in the group,
 * and team barriers and the region's end for those of the team.  A task run
 * at once with a depend clause does not wait for such events (its
 * predecessor's fulfiller may be a task made later: waiting would deadlock),
 * so outside any parallel region a detached task's successors may start
 * before its event is fulfilled (libgomp 12 blocks the creator there until
 * the event is fulfilled, and deadlocks when a later task fulfils it).
 *
 * Where a task runs: each thread keeps a chain of the explicit tasks it is
 * running (frames, on its stack) and of the taskgroups it is in.  Each entry
 * records the team it belongs to; an entry of another team (the thread has
 * since entered a nested parallel region) does not apply. */
#include <omp.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/depend.h"
#include "omp/env.h"
#include "omp/internal.h"
#include "omp/scheduler.h"
#include "omp/task.h"
#include "omp/task_memory.h"

/* The task core's flags are gcc's GOMP_task flags (gomp-constants.h). */
#define TASK_FLAG_FINAL (1u << 1)
#define TASK_FLAG_PRIORITY (1u << 4)
#define TASK_FLAG_DETACH (1u << 13)

/* Task arguments up to this size are copied on the stack, larger on the heap. */
#define STACK_ARG_LIMIT 4096

static _Noreturn void fatal(const char *what)
{
    muster_omp_fatal("%s", what);
}

static void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        fatal("out of memory");
    return p;
}

/* ---- where the calling thread is ---- */

/* A count of unfinished tasks that one thread may wait for (a task's
 * deferred children for its taskwait, a taskgroup's tasks for its end, a
 * stand-in's predecessors) in the low 32 bits, and in the high 32 the team
 * member asleep waiting for it (id + 1; 0: none).  One word, so that the
 * decrement that empties it also says whom to wake, and touches nothing of
 * the count's owner afterwards (its waiter may free it at once): only that
 * member is woken, not every sleeper of the team. */
typedef _Atomic uint64_t task_count;
#define TASK_COUNT_ONE ((uint64_t)1)
#define TASK_COUNT_SLEEPER(id) ((uint64_t)((id) + 1u) << 32)

static uint32_t tasks_left(uint64_t count) { return (uint32_t)count; }

/* The tag of the member asleep on a count whose value was `count` just
 * before the decrement that emptied it, or 0. */
static uint32_t sleeper_tag(uint64_t count)
{
    uint32_t sleeper = (uint32_t)(count >> 32);
    return sleeper == 0 ? 0 : muster_omp_member_tag(sleeper - 1);
}

/* Counts one of the tasks finished; the tag of the member to wake when
 * that emptied the count (0: none, or nobody asleep on it). */
static uint32_t count_finished(task_count *count)
{
    /* seq_cst: releases the task's writes to the waiter that reads the
     * count empty (acquire), and orders this against a waiter's
     * announcement on the same word (count_nonzero). */
    uint64_t before = atomic_fetch_sub(count, TASK_COUNT_ONE);
    return tasks_left(before) == 1 ? sleeper_tag(before) : 0;
}

/* The completion count of a task's deferred children: heap-allocated when
 * the first one is created, and reference counted (the task's frame holds
 * one reference, each unfinished child another), since a child may finish
 * after its parent.  Holds a reference to its own parent's node, so a
 * chain of nodes answers "is this task a descendant of that one?". */
typedef struct task_node {
    task_count children;       /* deferred children not finished yet */
    _Atomic uint32_t refs;
    struct task_node *parent;  /* the creating task's node; NULL: none (an implicit task) */
    /* Its children's dependences: made by the task's own thread with the
     * first child that has some; read by the threads that finish those
     * children, which got them after it was set (depend.h). */
    muster_omp_dep_table *deps;
} task_node;

typedef struct task_frame {
    struct task_frame *parent;
    muster_omp_team *team; /* the encountering thread's team */
    task_node *node;       /* created with its first deferred child; NULL until then */
    task_node *origin;     /* a deferred task: its parent's node; else NULL (see frame_node) */
    struct deferred_task *delayed; /* its last child queued by delay_sibling, if still ours to run */
    /* Last, in one word: a task run at once fills its frame with few stores. */
    unsigned depth;        /* tasks between this one and the implicit task, itself included */
    bool final;            /* a final task: every task it creates is final too */
    bool spawned;          /* it has created a task */
} task_frame;

typedef struct taskgroup {
    struct taskgroup *prev;
    muster_omp_team *team;
    void *reductions;       /* the ABI layer's task reductions (see the slot below); inherited */
    bool workshare;         /* the group of a worksharing construct's task reductions */
    _Atomic bool cancelled; /* cancel taskgroup (cancel.c): its tasks no longer start */
    task_count tasks;       /* deferred tasks created in the group, not finished yet */
} taskgroup;

static _Thread_local task_frame *current_frame;
static _Thread_local taskgroup *current_group;

static muster_omp_team *current_team(void)
{
    return muster_omp_self()->team;
}

/* The explicit task the thread is running in its current team; NULL: an
 * implicit task. */
static task_frame *running_task(void)
{
    task_frame *frame = current_frame;
    return frame != NULL && frame->team == current_team() ? frame : NULL;
}

/* The depth of a task created or run by `running`, the team's task the
 * thread runs (NULL: its implicit task, at depth 0). */
static unsigned depth_below(const task_frame *running)
{
    return running != NULL ? running->depth + 1 : 1;
}

/* The same for `parent`, the thread's current frame, of any team: a frame
 * of another team counts as the implicit task. */
static unsigned child_depth(const task_frame *parent, const muster_omp_team *team)
{
    return depth_below(parent != NULL && parent->team == team ? parent : NULL);
}

static taskgroup *innermost_group(void)
{
    taskgroup *group = current_group;
    return group != NULL && group->team == current_team() ? group : NULL;
}

static void push_group(void)
{
    taskgroup *outer = innermost_group();
    taskgroup *group = checked_malloc(sizeof *group);
    *group = (taskgroup){
        .prev = current_group,
        .team = current_team(),
        .reductions = outer ? outer->reductions : NULL,
    };
    atomic_init(&group->tasks, 0);
    atomic_init(&group->cancelled, false);
    current_group = group;
}

static void pop_group(void)
{
    taskgroup *group = current_group;
    current_group = group->prev;
    free(group);
}

/* ---- cancellation (cancel.c says what each construct means) ---- */

/* `cancel taskgroup` inside a worksharing construct's reduction group
 * means the construct's enclosing group, as in libgomp. */
static taskgroup *cancellable_group(taskgroup *group)
{
    return group != NULL && group->workshare && group->prev != NULL ? group->prev : group;
}

static bool group_cancelled(taskgroup *group)
{
    /* relaxed (both): a hint to skip work, as team->cancelled. */
    return group != NULL && (atomic_load_explicit(&group->cancelled, memory_order_relaxed) ||
                             atomic_load_explicit(&cancellable_group(group)->cancelled, memory_order_relaxed));
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

/* A task of `team` in `group` that has not started may no longer start
 * (nor be created). */
static inline bool task_cancelled(muster_omp_team *team, taskgroup *group)
{
    return __builtin_expect(muster_omp_cancellation, 0) &&
           (muster_omp_team_cancelled(team) || group_cancelled(group));
}

MUSTER_OMP_EXPORT int omp_in_final(void)
{
    task_frame *frame = running_task();
    return frame != NULL && frame->final;
}

/* ---- detach events ----
 *
 * A detachable task of a team with a scheduler is a task record (below,
 * defer_detached) whose event is the record itself.  The task_event list
 * here serves the rest: teams of one, and tasks that run at once (if(0),
 * final), whose body runs before the construct returns. */

typedef struct deferred_task deferred_task;
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
static _Thread_local task_event *pending_events;

static void drop_event(task_event *event)
{
    if (atomic_fetch_sub(&event->references, 1) == 1)
        free(event);
}

static bool event_fulfilled(task_event *event)
{
    /* acquire: the fulfiller's writes before omp_fulfill_event are then seen. */
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
    task_event **link = &pending_events;
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
    if (pending_events != NULL)
        settle_events(of_team, team, true);
}

static void orphan_children(const task_frame *frame)
{
    for (task_event *event = pending_events; event != NULL; event = event->next)
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
    event->next = pending_events;
    pending_events = event;
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
    /* release: publishes what the fulfiller wrote for the task's successors. */
    if (atomic_exchange_explicit(&event->fulfilled, 1, memory_order_release) != 0)
        fatal("omp_fulfill_event: event already fulfilled");
    muster_futex_wake(&event->fulfilled, INT32_MAX);
    drop_event(event);
}

/* ---- running a task ---- */

/* Runs fn on a copy of its argument block made by cpyfn (firstprivate
 * copy constructors), aligned to arg_align.  Without a cpyfn the caller
 * calls fn(data) itself. */
static void run_body_on_copy(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                             long arg_align)
{
    size_t align = arg_align > 0 ? (size_t)arg_align : 1;
    size_t bytes = (size_t)arg_size + align - 1;
    char stack_buffer[bytes <= STACK_ARG_LIMIT ? bytes : 1];
    char *buffer = bytes <= STACK_ARG_LIMIT ? stack_buffer : checked_malloc(bytes);
    char *arg = (char *)(((uintptr_t)buffer + align - 1) & ~(uintptr_t)(align - 1));
    cpyfn(arg, data);
    fn(arg);
    if (buffer != stack_buffer)
        free(buffer);
}

static void enter_task(task_frame *frame, bool final)
{
    task_frame *parent = running_task();
    *frame = (task_frame){
        .parent = current_frame,
        .team = current_team(),
        .final = final || (parent != NULL && parent->final),
    };
    current_frame = frame;
}

static void node_release(task_node *node);

static void leave_task(task_frame *frame)
{
    current_frame = frame->parent;
    if (pending_events != NULL)
        orphan_children(frame);
    node_release(frame->node); /* its deferred children may still hold it */
}

/* ---- deferred tasks ---- */

/* The implicit task's node: never freed (its reference is never dropped).
 * One per thread serves every level of nesting: an inner region's tasks all
 * finish before the region ends, so they never mix with the outer ones. */
static _Thread_local task_node implicit_node = {.refs = 1};

static task_node *node_new(task_node *parent)
{
    task_node *node = checked_malloc(sizeof *node);
    atomic_init(&node->children, 0);
    atomic_init(&node->refs, 1);
    node->parent = parent;
    node->deps = NULL;
    if (parent != NULL)
        /* relaxed: taking a reference while holding one orders nothing. */
        atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    return node;
}

static void node_release(task_node *node)
{
    /* acq_rel: the last holder must see every other holder's use before
     * it frees (and releases the parent in turn). */
    while (node != NULL && atomic_fetch_sub_explicit(&node->refs, 1, memory_order_acq_rel) == 1) {
        task_node *parent = node->parent;
        muster_omp_dep_table_free(node->deps);
        free(node);
        node = parent;
    }
}

/* The node of the task running in `frame` (NULL: the implicit task),
 * created if need be: a deferred task's links to its parent's node; an
 * undeferred one's to the node of the task that ran it. */
static task_node *frame_node(task_frame *frame)
{
    if (frame == NULL || frame->team != current_team())
        return &implicit_node;
    if (frame->node == NULL) {
        task_node *parent = frame->origin;
        if (parent == NULL)
            parent = frame_node(frame->parent);
        frame->node = node_new(parent);
    }
    return frame->node;
}

/* True when `node` (a task's parent node) lies under `ancestor`.  A very
 * deep chain is taken as "no": the task then waits for someone else. */
static bool descends_from(const task_node *node, const task_node *ancestor)
{
    for (int depth = 0; node != NULL && depth < 1024; depth++, node = node->parent)
        if (node == ancestor)
            return true;
    return false;
}

struct deferred_task {
    void (*fn)(void *);
    void *data;          /* the argument copy, in this block */
    task_node *parent;   /* counts this task until it finishes; a reference held */
    taskgroup *group;    /* counts it too; NULL: none */
    muster_omp_team *team;
    muster_omp_deps *deps; /* NULL: no depend clause */
    int priority;          /* above 0: queued in the team's priority queue */
    bool final;            /* a final task: the tasks it creates run at once, final too */
    unsigned depth;        /* its frame's (task_frame) */
    /* detach: the task completes when both its body has ended and its
     * event is fulfilled; this counts the two down, and whichever comes
     * second completes it.  The event handle is the record's address with
     * the low bit set (omp_fulfill_event tells it from a task_event). */
    bool detached;
    _Atomic uint32_t detach_outstanding;
    _Atomic bool fulfilled; /* detach: a second omp_fulfill_event is an error */
    /* A stand-in (fn NULL) for an undeferred task or taskwait depend: 1
     * until its predecessors have finished, then 0 (see wait_for_own_deps). */
    task_count stand_in_waiting;
    /* the argument block follows */
};

static muster_omp_team_tasks *team_tasks(void)
{
    muster_omp_team *team = current_team();
    return team != NULL ? team->tasks : NULL;
}

static void run_deferred(deferred_task *t);

/* Delayed siblings.  With nobody hungry a task runs at once, so the top of
 * a recursion left nothing to steal: a member that ran out of work waited
 * for someone to create the next task, usually a small one deep down.  In
 * a task at depth below the team's delay_depth (scheduler.h:
 * MUSTER_OMP_DELAY_DEPTH, 3; the task made by an implicit task is at
 * depth 1), a new task is queued instead, and the sibling queued before
 * it, if still at the bottom of this member's deque, runs now
 * (delay_sibling): the creator still runs the siblings in creation order
 * (a branch-and-bound search depends on it), and one of them per level, a
 * large piece, stays stealable.  Only where the tasks one level down have
 * mostly created tasks themselves in this thread (level_stats' spawn): a
 * level of small leaf tasks keeps running at once (EPCC's NESTED TASK cost
 * 3x otherwise).  Measured on 2 CPUs, 9-15 interleaved rounds: knapsack
 * 13% faster at 2 threads; fib, nqueens, uts and knapsack 5% at 8; the
 * other workloads and the task constructs unchanged.  Where the tasks one
 * level down are long, from the implicit task too (below). */
enum { SPAWN_DEPTHS = MUSTER_OMP_DELAY_DEPTH_MAX + 1 };

/* Long tasks.  A creator that runs a task at once is away for the task's
 * length: a member that runs out of work meanwhile waits until the next
 * creation to be given one.  With tasks of a millisecond made in a loop
 * (BOTS alignment: a `single` or an `omp for` making one task per pair of
 * sequences) that idled the other member for about half of each task.
 * So where the tasks one level down are long (LONG_TASK_NS), the creator
 * queues them (plan_child), at every depth below delay_depth, the implicit
 * task's included: ~0.15 us each, under 1% of such a task (tasks of 20 us
 * from one member while the other is busy: 20.77 us each against 20.63
 * run at once, medians of 8 rounds).
 * Lengths are sampled: the clock is read around one task in
 * SHORT_SAMPLE_EVERY after a short one, one in LONG_SAMPLE_EVERY after a
 * long one (two reads, ~60 ns: nothing beside a long task). */
enum { LONG_TASK_NS = 20000, SHORT_SAMPLE_EVERY = 64, LONG_SAMPLE_EVERY = 2 };
/* A level's tasks count as long from this score up: two long samples more
 * than short ones.  One is not enough: a sample is wall time, and a thread
 * preempted during one tiny task made its level "long" (a fresh-clone run
 * of the tests, two test processes on 2 CPUs: omp_tools task_order, whose
 * 2000 tiny tasks must run at once in creation order, found 1998 queued).
 * Once queued, a level's tasks are no longer sampled by their creator
 * until it runs them, so the mistake lasted to the region's end. */
enum { LONG_EVIDENCE = 2 };

/* What this thread saw of the tasks at one depth, for plan_child. */
typedef struct level_stats {
    int8_t spawn;  /* up when a task there created tasks, down when it did not */
    int8_t length; /* up when a sampled task there was long, down when short */
} level_stats;
static _Thread_local level_stats levels[SPAWN_DEPTHS];
/* Tasks to run before the next sampled one. */
static _Thread_local uint32_t until_sample;

/* The implicit task's last child queued by delay_sibling (task_frame's
 * `delayed` for an explicit task).  Possibly stale: only compared with the
 * task at the bottom of this member's deque, which is then live, and one
 * this thread made. */
static _Thread_local struct deferred_task *implicit_delayed;

/* Moves a score one step, saturating at +-4. */
static inline void bump(int8_t *score, bool up)
{
    if (up ? *score < 4 : *score > -4)
        *score += up ? 1 : -1;
}

/* True when the next task, at `depth`, is to have its length sampled
 * (sample_end after it).  Only the depths whose stats plan_child reads:
 * deeper tasks neither take a sample nor count towards one.  Sampling them
 * cost a deep recursion two clock reads per 64 tasks for nothing (uts at 2
 * threads: 2.6% of its samples in clock_gettime). */
static inline bool sample_start(unsigned depth)
{
    if (depth >= SPAWN_DEPTHS)
        return false;
    if (__builtin_expect(until_sample != 0, 1)) {
        until_sample--;
        return false;
    }
    return true;
}

static __attribute__((noinline)) void sample_end(unsigned depth, uint64_t start)
{
    bool long_task = muster_now_ns() - start >= LONG_TASK_NS;
    bump(&levels[depth].length, long_task); /* depth < SPAWN_DEPTHS: sample_start */
    until_sample = (long_task ? LONG_SAMPLE_EVERY : SHORT_SAMPLE_EVERY) - 1;
}

static inline void note_spawned(const task_frame *frame)
{
    if (frame->depth < SPAWN_DEPTHS)
        bump(&levels[frame->depth].spawn, frame->spawned);
}

/* What a task at `depth` does with a new child while nobody is hungry:
 * below delay_depth, where the children's level mostly creates tasks
 * (below the implicit task's children: there loops of small tasks such as
 * EPCC's PARALLEL TASK would pay), it queues the child and runs the one
 * queued before (delay_sibling); where the children are long, the same if
 * they create tasks, else it just queues it, as libgomp and libomp queue
 * every task: one queued ahead fed a member that ran out of work only
 * until the creator's next task (200 tasks of 0.1-3 ms from a `single` at
 * 2 threads: 88-89% of the ideal time, one ahead 87-91%, libgomp 96-99%).
 * The order of leaf tasks decides nothing the way a search's does.  Else
 * it runs the child at once.  The implicit task's usual answer first, in
 * one load: it is the common creator. */
enum child_plan { CHILD_AT_ONCE, CHILD_DELAYED, CHILD_QUEUED };

static inline enum child_plan plan_child(unsigned depth, unsigned delay_depth)
{
    if ((depth == 0 && levels[1].length < LONG_EVIDENCE) || depth >= delay_depth)
        return CHILD_AT_ONCE;
    const level_stats *children = &levels[depth + 1];
    if (children->length >= LONG_EVIDENCE)
        return children->spawn < 0 ? CHILD_QUEUED : CHILD_DELAYED;
    return depth > 0 && children->spawn >= 0 ? CHILD_DELAYED : CHILD_AT_ONCE;
}

/* A queued task's tags (deque.h): the nodes of its nearest ancestors, its
 * parent's first.  A waiter restricted to its descendants
 * (wait_running_descendants) steals only tasks that carry its own node, so
 * it leaves the others in place instead of taking and re-queueing them:
 * at 16 threads on 16 CPUs, fine-grained tasks were stolen ~13 times each
 * that way (fib without a cut-off: 6 million steals for 455 000 queued
 * tasks).  The nodes are alive while the task is: each holds a reference
 * to its parent. */
static void task_tags(const deferred_task *t, uintptr_t tags[MUSTER_DEQUE_TAGS])
{
    const task_node *node = t->parent;
    for (int k = 0; k < MUSTER_DEQUE_TAGS; k++) {
        tags[k] = (uintptr_t)node;
        if (node != NULL)
            node = node->parent;
    }
}

/* Queues a task already counted in the team's pending (one whose
 * predecessors have finished): a prioritized one in the team's priority
 * queue, else in member id's deque.  False when that failed. */
static bool queue_again(deferred_task *t, unsigned id)
{
    muster_omp_team_tasks *tt = t->team->tasks;
    if (t->priority > 0)
        return muster_omp_tasks_push_prioritized(tt, t, t->priority, MUSTER_OMP_NOT_MEMBER);
    uintptr_t tags[MUSTER_DEQUE_TAGS];
    task_tags(t, tags);
    return muster_omp_tasks_push_again(tt, id, t, tags);
}

/* A task whose last predecessor just finished in this thread: onto this
 * member's deque for anyone to take, or run here when that is full. */
static void successor_ready(void *task, void *arg)
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
            fatal("out of memory queueing a task");
        return;
    }
    if (!queue_again(t, self->id))
        run_deferred(t);
}

/* The task had dependences: it leaves its parent's table, and successors
 * whose last predecessor it was become ready.  Its parent node is alive
 * (the task holds a reference until after this). */
static void release_successors(deferred_task *t)
{
    muster_omp_deps_release(t->parent->deps, t->deps, successor_ready, NULL);
    muster_omp_deps_free(t->deps);
    t->deps = NULL;
}

/* Runs a task record's body in the calling thread (a member of its team),
 * in the frame and taskgroup it was created in, whichever thread runs it.
 * True when the task is complete: always, unless it is detached and its
 * event not fulfilled yet (omp_fulfill_event then completes it). */
static bool run_record_body(deferred_task *t)
{
    taskgroup *saved_group = current_group;
    task_frame frame = {
        .parent = current_frame, .team = t->team, .final = t->final, .origin = t->parent, .depth = t->depth};
    current_frame = &frame;
    current_group = t->group;
    bool timed = sample_start(frame.depth);
    uint64_t start = timed ? muster_now_ns() : 0;
    if (!task_cancelled(t->team, t->group))
        t->fn(t->data);
    if (timed)
        sample_end(frame.depth, start);
    current_frame = frame.parent;
    note_spawned(&frame);
    if (pending_events != NULL)
        orphan_children(&frame);
    current_group = saved_group;
    node_release(frame.node);
    /* acq_rel: whichever of the body's end and the fulfilment comes second
     * completes the task, and must see what the first did. */
    return !t->detached || atomic_fetch_sub_explicit(&t->detach_outstanding, 1, memory_order_acq_rel) == 1;
}

/* A task that is complete: its successors become ready, its parent and
 * taskgroup count it finished, and the record is freed.  Returns the tags
 * of the members asleep waiting for a count that emptied (0: none). */
static uint32_t complete_record(deferred_task *t)
{
    if (t->deps != NULL)
        release_successors(t);
    uint32_t wake = t->group != NULL ? count_finished(&t->group->tasks) : 0;
    wake |= count_finished(&t->parent->children);
    node_release(t->parent);
    muster_omp_task_free(t);
    return wake;
}

/* Runs a record that is not counted in the team's pending (not detached)
 * and completes it. */
static uint32_t run_record(deferred_task *t)
{
    (void)run_record_body(t);
    return complete_record(t);
}

/* Runs a deferred task (one counted in the team's pending) and, once it is
 * complete, counts it finished there too.  The caller is a member of the
 * task's team. */
static void run_deferred(deferred_task *t)
{
    muster_omp_team_tasks *tt = t->team->tasks;
    if (run_record_body(t))
        muster_omp_tasks_finished(tt, muster_omp_self()->id, complete_record(t));
}

/* omp_fulfill_event for a detached record: the task completes now if its
 * body has ended, in this thread (which may be outside the team). */
static void fulfil_record(deferred_task *t)
{
    /* relaxed: only detects a second call made before the task completed
     * (after that the record is gone, as libgomp's is). */
    if (atomic_exchange_explicit(&t->fulfilled, true, memory_order_relaxed))
        fatal("omp_fulfill_event: event already fulfilled");
    /* acq_rel: as in run_record_body. */
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
    muster_omp_tasks_finished(tt, id, complete_record(t));
    atomic_fetch_sub(&tt->fulfillers, 1);
}

/* A task record with a copy of the arguments, counted in its parent's
 * children and its taskgroup (and holding a reference to the parent's
 * node).  `running`: the explicit task creating it, NULL for the implicit
 * one; `final`: the task is final (the tasks it creates are included). */
static deferred_task *new_record(muster_omp_team *team, task_frame *running, bool final, void (*fn)(void *),
                                 void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align)
{
    size_t align = arg_align > 0 ? (size_t)arg_align : 1;
    size_t header = (sizeof(deferred_task) + align - 1) & ~(align - 1);
    /* From the thread's task memory: no malloc on the hot path, and the
     * block returns here whichever thread finishes the task. */
    deferred_task *t = muster_omp_task_alloc(header + (size_t)(arg_size > 0 ? arg_size : 0) + align);
    if (t == NULL)
        fatal("out of memory for a task");
    char *arg = (char *)(((uintptr_t)t + header + align - 1) & ~(uintptr_t)(align - 1));
    if (cpyfn != NULL)
        cpyfn(arg, data);
    else if (arg_size > 0)
        memcpy(arg, data, (size_t)arg_size);
    task_node *parent = frame_node(running);
    *t = (deferred_task){.fn = fn,
                         .data = arg,
                         .parent = parent,
                         .group = innermost_group(),
                         .team = team,
                         .final = final,
                         .depth = depth_below(running)};
    /* relaxed (all three): the push (or the dependence table's lock)
     * publishes them, and the task's finish, which undoes them, comes after
     * its start. */
    atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&parent->children, TASK_COUNT_ONE, memory_order_relaxed);
    if (t->group != NULL)
        atomic_fetch_add_explicit(&t->group->tasks, TASK_COUNT_ONE, memory_order_relaxed);
    return t;
}

/* Queues the record for any member to run; when the deque is full or the
 * team throttled, runs it here at once instead, on the copy it already
 * holds (so a firstprivate copy is made and destroyed exactly once).
 * True when it was queued. */
static bool queue_record(muster_omp_thread *self, deferred_task *t)
{
    uintptr_t tags[MUSTER_DEQUE_TAGS];
    task_tags(t, tags);
    if (muster_omp_tasks_push(t->team->tasks, self->id, t, tags))
        return true;
    (void)run_record(t); /* its parent and group are this thread's own: nobody waits on them meanwhile */
    return false;
}

/* The priority clause's value as the runtime uses it: clamped to
 * [0, OMP_MAX_TASK_PRIORITY], so with the default maximum of 0 every task
 * is of priority 0 (as in libgomp). */
static int effective_priority(int priority)
{
    int max = (int)muster_omp_env_extras_get()->max_task_priority;
    return priority < 0 ? 0 : priority > max ? max : priority;
}

/* A task of priority above 0 is always queued, whoever is busy, in the
 * team's priority queue: there every member looking for work sees it
 * first, and the most urgent goes first.  Run here at once only when that
 * queue cannot grow. */
static void queue_prioritized(muster_omp_thread *self, deferred_task *t, int priority)
{
    t->priority = priority;
    bool queued = muster_omp_tasks_push_prioritized(t->team->tasks, t, priority, self->id);
    if (!queued)
        (void)run_record(t); /* as queue_record */
    muster_omp_task_count_deferred(queued);
}

/* Counts a record in the team's pending and schedules it: with `depend`,
 * registered in its parent's table to wait for its predecessors (the last
 * one's thread queues it) or, ready at once, queued; without, queued while
 * a member is hungry (always when prioritized), else run here.  A ready
 * dependence task is queued whoever is busy, as libgomp and libomp queue
 * it: run here, a long one kept its creator from making the tasks the
 * others were about to need (depfan: a 5 ms writer run by the creator
 * while the other member ran dry, rounds made in 11-27 ms instead of 5);
 * a dependence task's registration already costs more than the push. */
static void schedule_counted(muster_omp_thread *self, deferred_task *t, void **depend)
{
    muster_omp_team_tasks *tt = t->team->tasks;
    muster_omp_tasks_count_new(tt, self->id);
    if (depend != NULL) {
        t->deps = muster_omp_deps_new(depend, t, t->team);
        if (t->parent->deps == NULL)
            t->parent->deps = muster_omp_dep_table_new();
        if (!muster_omp_deps_register(t->parent->deps, t->deps))
            return; /* a predecessor's end will queue it */
    }
    if ((t->priority > 0 || depend != NULL || muster_omp_tasks_want(tt, self->id)) && queue_again(t, self->id))
        return;
    run_deferred(t);
}

/* A detachable task of a team with a scheduler: a record like any
 * deferred task, whose completion waits for omp_fulfill_event too, so that
 * its successors, taskwait, taskgroup end, barriers and the region's end
 * all wait for the event, counted like any unfinished task.  gcc reads the
 * event handle from *detach and from the task's firstprivate copy, the
 * first field of the argument block. */
static void defer_detached(muster_omp_thread *self, muster_omp_team *team, task_frame *running, bool final,
                           void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                           long arg_align, void **depend, int priority, void *detach)
{
    deferred_task *t = new_record(team, running, final, fn, data, cpyfn, arg_size, arg_align);
    t->priority = priority;
    t->detached = true;
    atomic_init(&t->detach_outstanding, 2); /* the body's end and the fulfilment */
    atomic_init(&t->fulfilled, false);
    void *handle = (void *)((uintptr_t)t | 1);
    *(void **)detach = handle;
    *(void **)t->data = handle;
    schedule_counted(self, t, depend);
}

/* A task with dependences: registered in its parent's table, it waits
 * there until its predecessors finish (the last one's thread queues it);
 * ready at once, it is queued (schedule_counted says why).  Not
 * throttled: it cannot run at once before its predecessors, and waiting
 * for them here would serialise the producer.  False when the clauses
 * include a kind handled only conservatively (a depobj kind gcc 12 does not emit). */
static bool defer_with_deps(muster_omp_thread *self, muster_omp_team *team, task_frame *running, bool final,
                            void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                            long arg_align, void **depend, int priority)
{
    muster_omp_team_tasks *tt = team->tasks;
    if (tt == NULL || muster_omp_depend_count(depend) < 0)
        return false;
    deferred_task *t = new_record(team, running, final, fn, data, cpyfn, arg_size, arg_align);
    t->priority = priority;
    schedule_counted(self, t, depend);
    return true;
}
/* ---- waiting is working ---- */

typedef struct count_wait {
    task_count *count;
    unsigned member;
    bool announced; /* the member is counted asleep on the count */
} count_wait;

/* The re-check of a member about to sleep until the count empties: it
 * announces itself on the count first, so the decrement that empties it
 * wakes this member (count_finished). */
static bool count_nonzero(void *arg)
{
    count_wait *cw = arg;
    /* seq_cst: one RMW both announces and re-checks; the emptying
     * decrement, an RMW of the same word, comes before it (we see 0) or
     * after it (it sees us). */
    uint64_t before = atomic_fetch_add(cw->count, TASK_COUNT_SLEEPER(cw->member));
    cw->announced = true;
    return tasks_left(before) != 0;
}

/* Takes the announcement back once awake: the count is then a plain count
 * again for the next sleep, or for its owner. */
static void count_withdraw(count_wait *cw)
{
    if (!cw->announced)
        return;
    /* relaxed: only this member writes the high half; a finisher that read
     * it set just before sends one needless wake. */
    atomic_fetch_sub_explicit(cw->count, TASK_COUNT_SLEEPER(cw->member), memory_order_relaxed);
    cw->announced = false;
}

/* A task the waiter may not run (not its descendant) moves to the waiter's
 * own deque, where a member that may run it finds it: members at a barrier
 * run anything, and a member in the taskwait of one of its ancestors steals
 * it.  False when the own deque is full: the caller keeps the task. */
static bool pass_on(unsigned id, deferred_task *t)
{
    return queue_again(t, id); /* priority 0: it came from a deque */
}

/* Puts a task member id just took from its own deque back, unrun. */
static void put_back_own(muster_omp_team_tasks *tt, unsigned id, deferred_task *t)
{
    uintptr_t tags[MUSTER_DEQUE_TAGS];
    task_tags(t, tags);
    muster_omp_tasks_put_back(tt, id, t, tags);
}

/* Whether a waiter suspended in task `waiter`'s taskwait or taskgroup may
 * run `task` (the tied-task scheduling constraint). */
static bool may_run_here(void *task, const void *waiter)
{
    return descends_from(((deferred_task *)task)->parent, waiter);
}

/* Rounds over the team in which a restricted waiter passed over tasks it
 * may not run before it takes one of them anyway, to re-queue it where a
 * member that may run it can reach it (pass_on): its own descendants may
 * lie under it, and its ancestors' waiters more than MUSTER_DEQUE_TAGS
 * generations up do not recognise it. */
enum { PASSED_OVER_ROUNDS = 16 };

/* Waits until *count reaches zero, running meanwhile tasks that descend
 * from `waiter` (the tied-task scheduling constraint: a thread suspended in
 * a task's taskwait or taskgroup may run only that task's descendants).
 * Such tasks sit on top of the waiter's own deque; once that has none, it
 * steals those tagged with its node (task_tags), now and then anything,
 * and passes on what it may not run. */
static void wait_running_descendants(task_count *count, const task_node *waiter)
{
    muster_omp_team_tasks *tt = team_tasks();
    /* acquire: the finished tasks' writes are seen once the count is zero. */
    if (tt == NULL || tasks_left(atomic_load_explicit(count, memory_order_acquire)) == 0)
        return;
    muster_omp_thread *self = muster_omp_self();
    unsigned id = self->id;
    muster_omp_thief thief = muster_omp_thief_for(id);
    count_wait cw = {.count = count, .member = id};
    muster_omp_idle idle = {0};
    deferred_task *held = NULL; /* stolen, not ours to run, own deque full */
    bool hungry = false;
    unsigned passed_over_rounds = 0;
    while (tasks_left(atomic_load_explicit(count, memory_order_acquire)) != 0) {
        if (held != NULL && pass_on(id, held))
            held = NULL;
        deferred_task *t = muster_omp_tasks_take_prioritized(tt, may_run_here, waiter);
        if (t != NULL) {
            muster_omp_tasks_set_hungry(tt, &hungry, false);
            run_deferred(t);
            idle.polls = 0;
            continue;
        }
        t = muster_omp_tasks_take_own(tt, id);
        if (t != NULL && !descends_from(t->parent, waiter)) {
            put_back_own(tt, id, t);
            t = NULL;
        }
        if (t == NULL && held == NULL) {
            bool anything = passed_over_rounds >= PASSED_OVER_ROUNDS, passed_over;
            t = muster_omp_tasks_steal(tt, id, &thief, anything ? 0 : (uintptr_t)waiter, &passed_over);
            passed_over_rounds = anything ? 0 : passed_over_rounds + (t == NULL && passed_over);
            if (t != NULL && !descends_from(t->parent, waiter)) {
                if (!pass_on(id, t))
                    held = t;
                t = NULL;
            }
        }
        muster_omp_tasks_set_hungry(tt, &hungry, t == NULL);
        if (t != NULL) {
            run_deferred(t);
            idle.polls = 0;
            continue;
        }
        muster_omp_tasks_idle(tt, &idle, count_nonzero, &cw, muster_omp_member_tag(id));
        count_withdraw(&cw);
    }
    muster_omp_tasks_set_hungry(tt, &hungry, false);
    if (held != NULL)
        while (!pass_on(id, held))
            muster_cpu_relax(); /* the count is zero, so our own tasks are being taken */
}

/* Waits for the deferred children of the running task. */
static void wait_children(void)
{
    task_frame *frame = running_task();
    task_node *node = frame == NULL ? &implicit_node : frame->node;
    if (node != NULL)
        wait_running_descendants(&node->children, node);
}

static bool team_has_tasks(void *arg)
{
    /* The re-check of an idle member's handshake (scheduler.c). */
    return muster_omp_tasks_pending(arg) != 0;
}

/* muster_wait_work's run: one of the team's tasks, own newest first, else
 * stolen.  One load when the team has never had one. */
static bool run_one_task(void *arg)
{
    muster_omp_task_work *w = arg;
    /* seq_cst: also the re-check of a waiter about to sleep (wait.h): the
     * team's first creator stores it before its push, and the sum's loads
     * are seq_cst too.  The sum spares the look below while the team has
     * no task (the steal round would read every member's deque). */
    if (!atomic_load(&w->tt->tasks_seen) || muster_omp_tasks_pending(w->tt) == 0) {
        muster_omp_tasks_set_hungry(w->tt, &w->hungry, true);
        return false;
    }
    deferred_task *t = muster_omp_tasks_take_prioritized(w->tt, NULL, NULL);
    if (t == NULL)
        t = muster_omp_tasks_take_own(w->tt, w->id);
    if (t == NULL)
        t = muster_omp_tasks_steal(w->tt, w->id, &w->thief, 0, NULL);
    muster_omp_tasks_set_hungry(w->tt, &w->hungry, t == NULL);
    if (t == NULL)
        return false;
    run_deferred(t);
    return true;
}

const muster_wait_work *muster_omp_tasks_work(muster_omp_thread *self, muster_omp_team *team, unsigned id,
                                              muster_omp_task_work *storage)
{
    (void)self;
    if (team == NULL || team->size < 2 || team->tasks == NULL)
        return NULL;
    *storage = (muster_omp_task_work){.tt = team->tasks, .id = id, .thief = muster_omp_thief_for(id)};
    /* A sleeping member looks again after its nap (MUSTER_TASK_NAP_NS): new work
     * wakes sleepers only while CPUs are idle (scheduler.c), so this is
     * what finds a task left for members that then blocked in their own
     * code. */
    storage->work = (muster_wait_work){
        .run = run_one_task, .arg = storage, .sleepers = &team->tasks->sleepers, .nap_ns = team->tasks->nap_ns};
    return &storage->work;
}

void muster_omp_tasks_work_done(const muster_wait_work *work)
{
    if (work != NULL) {
        muster_omp_task_work *w = work->arg;
        muster_omp_tasks_set_hungry(w->tt, &w->hungry, false);
        muster_omp_tasks_reset_throttle(w->tt, w->id);
        /* The team's tasks have all finished: the implicit task's table
         * (thread-local, so never freed with a node) goes unless an outer
         * region's tasks still use it.  Else it would leak when the
         * thread exits. */
        if (implicit_node.deps != NULL && muster_omp_dep_table_free_if_empty(implicit_node.deps))
            implicit_node.deps = NULL;
    }
}

void muster_omp_tasks_drain(muster_omp_thread *self)
{
    muster_omp_team *team = self->team;
    if (team == NULL || team->tasks == NULL)
        return;
    muster_omp_team_tasks *tt = team->tasks;
    /* seq_cst: a team that never had a task pays one load; the seq_cst
     * loads of the sum then see every finished task's writes. */
    if (!atomic_load(&tt->tasks_seen) || muster_omp_tasks_pending(tt) == 0)
        return;
    muster_omp_thief thief = muster_omp_thief_for(self->id);
    muster_omp_idle idle = {0};
    bool hungry = false;
    for (;;) {
        deferred_task *t = muster_omp_tasks_take_prioritized(tt, NULL, NULL);
        if (t == NULL)
            t = muster_omp_tasks_take_own(tt, self->id);
        if (t == NULL)
            t = muster_omp_tasks_steal(tt, self->id, &thief, 0, NULL);
        muster_omp_tasks_set_hungry(tt, &hungry, t == NULL);
        if (t != NULL) {
            run_deferred(t);
            idle.polls = 0;
            continue;
        }
        /* The sum only after a look found nothing: it reads every member's
         * line, which their owners write at every deferred task. */
        if (muster_omp_tasks_pending(tt) == 0)
            break;
        muster_omp_tasks_idle(tt, &idle, team_has_tasks, tt, 0);
    }
    muster_omp_tasks_set_hungry(tt, &hungry, false);
}

/* A stand-in for the dependences of an undeferred task or of taskwait
 * depend, between wait_for_own_deps and leave_own_deps. */
typedef struct stand_in_deps {
    deferred_task record; /* fn NULL: successor_ready marks it ready */
    muster_omp_dep_table *table;
} stand_in_deps;

/* Registers a stand-in with `depend` in the running task's table, as a
 * task would be, and waits until its predecessors have finished (and it
 * holds its mutexinoutset addresses), running the waiter's descendants
 * meanwhile (the predecessors are among them).  Without a table nothing
 * was deferred with dependences, so there is nothing to wait for.  A kind
 * depend.h does not handle: waits for all deferred children instead. */
static void wait_for_own_deps(muster_omp_team *team, task_frame *running, void **depend, stand_in_deps *s)
{
    task_node *node = frame_node(running);
    if (team == NULL || team->tasks == NULL || node->deps == NULL)
        return;
    if (muster_omp_depend_count(depend) < 0) {
        wait_children();
        return;
    }
    s->record = (deferred_task){.team = team, .parent = node};
    atomic_init(&s->record.stand_in_waiting, TASK_COUNT_ONE);
    s->record.deps = muster_omp_deps_new(depend, &s->record, team);
    s->table = node->deps;
    if (!muster_omp_deps_register(s->table, s->record.deps))
        wait_running_descendants(&s->record.stand_in_waiting, node);
}

/* The undeferred task has run: its successors may go. */
static void leave_own_deps(stand_in_deps *s)
{
    if (s->table == NULL)
        return;
    muster_omp_deps_release(s->table, s->record.deps, successor_ready, NULL);
    muster_omp_deps_free(s->record.deps);
}

/* What a task run at once rarely leaves behind: events to hand to its
 * parent, a node its deferred children still hold.  Out of line: the
 * common task's path stays short. */
static __attribute__((noinline)) void leave_at_once_rare(task_frame *frame)
{
    if (pending_events != NULL)
        orphan_children(frame);
    node_release(frame->node); /* its deferred children may still hold it */
}

/* Runs a task at once in the calling thread: if(0), final, throttled, or a
 * dependence or detach the deferred path does not handle yet.  `outer` is
 * current_frame and `running` the task of `team` it is, or NULL (the
 * caller has both at hand: reading them again here cost instructions on
 * the path every if(0) task takes, since the store to the creator's
 * `spawned` may alias them).
 *
 * Only a deferrable task (`deferrable`: neither if(0) nor included in a
 * final task, in a team of more than one) is sampled and counted in its
 * level's stats: those decide how deferrable tasks are planned
 * (plan_child), and an undeferred task's creation never asks, nor does a
 * team of one's; where a level mixes both kinds, its deferrable tasks
 * speak for it.  So an if(0) task costs the frame and the call, no more
 * (callgrind, a loop of empty if(0) tasks in a team of two, the loop's own
 * code included: 119 instructions a task with the bookkeeping, 101
 * without, libgomp 112; a loop of tasks in a team of one: 104, libgomp
 * 119). */
static inline __attribute__((always_inline)) void run_at_once(muster_omp_team *team, task_frame *outer,
                                                             const task_frame *running, bool final,
                                                             bool deferrable, void (*fn)(void *), void *data,
                                                             void (*cpyfn)(void *, void *), long arg_size,
                                                             long arg_align)
{
    task_frame frame = {
        .parent = outer, .team = team, .final = final, .depth = depth_below(running)};
    current_frame = &frame;
    bool timed = deferrable && sample_start(frame.depth);
    uint64_t start = timed ? muster_now_ns() : 0;
    if (cpyfn == NULL)
        fn(data);
    else
        run_body_on_copy(fn, data, cpyfn, arg_size, arg_align);
    if (timed)
        sample_end(frame.depth, start);
    current_frame = frame.parent;
    if (deferrable)
        note_spawned(&frame);
    if (__builtin_expect(frame.node != NULL || pending_events != NULL, 0))
        leave_at_once_rare(&frame);
}

/* run_at_once for a task with depend or detach clauses: it waits for its
 * own predecessors first, and a detachable one's event is kept for the
 * waits that must see it fulfilled.  Out of line: the common undeferred
 * task (if(0), final) pays nothing for these.  `outer`, `running` and
 * `deferrable` as for run_at_once (the waits leave current_frame as they
 * found it). */
static __attribute__((noinline)) void run_at_once_with_clauses(muster_omp_team *team, task_frame *outer,
                                                               task_frame *running, bool final, bool deferrable,
                                                               void (*fn)(void *), void *data,
                                                               void (*cpyfn)(void *, void *), long arg_size,
                                                               long arg_align, void **depend, unsigned flags,
                                                               void *detach)
{
    stand_in_deps waited = {0};
    if (depend != NULL)
        wait_for_own_deps(team, running, depend, &waited);
    if (flags & TASK_FLAG_DETACH) {
        task_event *event = new_event();
        /* The event variable, and the task's firstprivate copy of it,
         * which gcc puts first in the argument block. */
        *(void **)detach = event;
        if (data != NULL)
            *(void **)data = event;
    }
    run_at_once(team, outer, running, final, deferrable, fn, data, cpyfn, arg_size, arg_align);
    leave_own_deps(&waited);
}

/* Queues the new task and runs the sibling queued before it, if that is
 * still this member's newest (else a thief took it, or the creator's own
 * descendants lie on top of it: it stays queued). */
static __attribute__((noinline)) void delay_sibling(muster_omp_thread *self, muster_omp_team *team,
                                                    task_frame *running, bool final, void (*fn)(void *), void *data,
                                                    void (*cpyfn)(void *, void *), long arg_size, long arg_align)
{
    muster_omp_team_tasks *tt = team->tasks;
    deferred_task *t = new_record(team, running, final, fn, data, cpyfn, arg_size, arg_align);
    deferred_task *prev = NULL;
    deferred_task **delayed = running != NULL ? &running->delayed : &implicit_delayed;
    if (*delayed != NULL) {
        deferred_task *x = muster_omp_tasks_take_own(tt, self->id);
        if (x == *delayed)
            prev = x;
        else if (x != NULL)
            put_back_own(tt, self->id, x);
        *delayed = NULL;
    }
    bool queued = queue_record(self, t);
    muster_omp_task_count_deferred(queued);
    *delayed = queued ? t : NULL;
    if (prev != NULL)
        run_deferred(prev); /* counted already: as any queued task */
}

/* The frame of the task of `team` that creates a new task, given `outer`,
 * the thread's current frame (NULL: the team's implicit task creates it),
 * marked as having created one: every creation path notes it, so that its
 * level's stats say its tasks create tasks (plan_child; a path that did
 * not left a recursion looking like leaf tasks, 2280056). */
static inline __attribute__((always_inline)) task_frame *creator_frame(task_frame *outer,
                                                                      const muster_omp_team *team)
{
    task_frame *running = outer != NULL && outer->team == team ? outer : NULL;
    if (running != NULL)
        running->spawned = true;
    return running;
}

/* Whether a new task may be deferred: if(true), not included in a final
 * task, in a team of more than one.  A function, not a variable: named
 * once and used twice, the value cost the if(0) path 6 instructions
 * (gcc 12 then evaluates it whole before testing the team's scheduler). */
static inline bool deferrable_here(bool if_clause, bool included, const muster_omp_team *team)
{
    return if_clause && !included && team != NULL && team->size > 1;
}

/* A task without depend, detach or a priority above 0: queued when a
 * member is hungry (if(true), not inside a final task), else, near the top
 * of a recursion, queued one ahead (delay_sibling), else run at once.
 * untied and mergeable change nothing here: a freedom and an option. */
static inline __attribute__((always_inline)) void plain_task(muster_omp_thread *self, muster_omp_team *team,
                                                            task_frame *outer, task_frame *running, bool final,
                                                            bool if_clause,
                                                            void (*fn)(void *), void *data,
                                                            void (*cpyfn)(void *, void *), long arg_size,
                                                            long arg_align)
{
    /* Created inside a final task: included, so run at once.  A final task
     * itself may be queued (as libgomp does): a cut-off's final tasks are
     * its coarsest pieces, the ones worth spreading (nqueens at 8 threads
     * on 2 CPUs: 70 ms against 77 when they ran at once, 21 rounds). */
    bool included = running != NULL && running->final;
    muster_omp_team_tasks *tt;
    if (deferrable_here(if_clause, included, team) && (tt = team->tasks) != NULL) {
        unsigned depth = running != NULL ? running->depth : 0;
        enum child_plan plan = muster_omp_tasks_want(tt, self->id) ? CHILD_QUEUED : plan_child(depth, tt->delay_depth);
        if (running == NULL && __builtin_expect(self->early_tasks != 0, 0)) {
            self->early_tasks--;
            plan = CHILD_QUEUED; /* "Early tasks" below says why */
        }
        if (plan == CHILD_QUEUED) {
            deferred_task *t = new_record(team, running, final, fn, data, cpyfn, arg_size, arg_align);
            muster_omp_task_count_deferred(queue_record(self, t));
            return;
        }
        if (plan == CHILD_DELAYED) {
            delay_sibling(self, team, running, final, fn, data, cpyfn, arg_size, arg_align);
            return;
        }
    }
    muster_omp_task_count_deferred(false);
    run_at_once(team, outer, running, final, deferrable_here(if_clause, included, team), fn, data, cpyfn, arg_size,
                arg_align);
}

/* Early tasks.  A member's first size - 1 deferrable tasks in a region that
 * its implicit task makes are queued whoever is hungry (self->early_tasks,
 * set when it joins the team).  Not those that tasks make: counting them
 * too put a search's first branches out of its serial order in every
 * member (knapsack 2.9x slower at 2 threads, 12x at 8).
 * A task run at once keeps its creator until it returns, so a task that
 * waits for one created after it (a spin or sleep until a flag, made in a
 * loop in `single` before the task that sets the flag) never returned when
 * its creator ran it: with more members than CPUs no hunger counts (the
 * spare members, scheduler.h), and with fewer a member not yet at the
 * single's barrier had not said it was hungry.  libgomp and libomp queue
 * such tasks and finish whenever fewer tasks wait than the team has other
 * members; so does this, for the first ones of a region, at the cost of
 * size - 1 pushes a region per member.  (Non-conforming programs: OpenMP
 * lets any task run at once.  Waiters made after many other tasks of a
 * region can still hang, as they do on libgomp with as many waiters as
 * threads.) */

/* A team of one runs its tasks at once and has no scheduler, until its first
 * detachable task (if(true), not inside a final task): that task's
 * successors must wait for its event, which a task made later may fulfil, so
 * from then on the team's detachable tasks, tasks with dependences and
 * prioritized ones are task records as in a bigger team, run by the one
 * member at its next taskwait, taskgroup end, barrier or the region's end.
 * The region's end frees it (muster_omp_tasks_end_solo). */
static void give_solo_team_a_scheduler(muster_omp_team *team)
{
    if (team->size != 1)
        return;
    team->tasks = muster_omp_team_tasks_create(1);
    if (team->tasks == NULL)
        fatal("out of memory for a team of one's task scheduler");
}

void muster_omp_tasks_end_solo(muster_omp_team *team)
{
    if (team->size == 1 && team->tasks != NULL) {
        /* The drain's acquire load saw the last task's count reach zero:
         * its fulfiller's increment, before that, is seen here. */
        while (atomic_load(&team->tasks->fulfillers) != 0)
            sched_yield(); /* it is a few instructions from done */
        muster_omp_team_tasks_destroy(team->tasks);
        team->tasks = NULL;
        /* As muster_omp_tasks_work_done: the implicit task's table goes
         * once empty, or it would leak when the thread exits. */
        if (implicit_node.deps != NULL && muster_omp_dep_table_free_if_empty(implicit_node.deps))
            implicit_node.deps = NULL;
    }
}

/* The rest of GOMP_task: cancellation on, or depend, detach or priority
 * clauses.  A detachable task, a prioritized one and one with dependences
 * become task records when the team has a scheduler (if(true), not created
 * inside a final task: final ones themselves may be queued, as in
 * plain_task); otherwise they run at once, a detachable one keeping its
 * event and one with dependences waiting for its own predecessors first. */
static __attribute__((noinline)) void task_with_clauses(void (*fn)(void *), void *data,
                                                        void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                                                        bool if_clause, unsigned flags, void **depend, int priority,
                                                        void *detach)
{
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    if (__builtin_expect(muster_omp_cancellation, 0) && task_cancelled(team, innermost_group()))
        return;
    task_frame *outer = current_frame;
    task_frame *running = creator_frame(outer, team);
    bool included = running != NULL && running->final;
    bool final = (flags & TASK_FLAG_FINAL) != 0 || included;
    bool detached = (flags & TASK_FLAG_DETACH) != 0;
    priority = (flags & TASK_FLAG_PRIORITY) ? effective_priority(priority) : 0;
    if (depend == NULL && !detached && priority == 0) {
        plain_task(self, team, outer, running, final, if_clause, fn, data, cpyfn, arg_size, arg_align);
        return;
    }
    if (detached && if_clause && !included && team != NULL && team->tasks == NULL)
        give_solo_team_a_scheduler(team);
    bool may_queue = if_clause && !included && team != NULL && team->tasks != NULL;
    if (may_queue && detached && (depend == NULL || muster_omp_depend_count(depend) >= 0)) {
        defer_detached(self, team, running, final, fn, data, cpyfn, arg_size, arg_align, depend, priority, detach);
        muster_omp_task_count_deferred(true);
        return;
    }
    if (may_queue && !detached && depend == NULL) {
        queue_prioritized(self, new_record(team, running, final, fn, data, cpyfn, arg_size, arg_align), priority);
        return;
    }
    if (may_queue && !detached &&
        defer_with_deps(self, team, running, final, fn, data, cpyfn, arg_size, arg_align, depend, priority)) {
        muster_omp_task_count_deferred(true);
        return;
    }
    muster_omp_task_count_deferred(false);
    run_at_once_with_clauses(team, outer, running, final, deferrable_here(if_clause, included, team), fn, data, cpyfn,
                             arg_size, arg_align, depend, flags, detach);
}

/* The common task (no depend, detach or priority clause; cancellation
 * off) is decided here without the general path's frame; like if(0) and
 * final ones (EPCC's CONDITIONAL TASK, and every task a cut-off turns
 * undeferred), it goes straight to the call when nobody is hungry. */
static inline __attribute__((always_inline)) void submit_task(void (*fn)(void *), void *data,
                                                             void (*cpyfn)(void *, void *), long arg_size,
                                                             long arg_align, bool if_clause, unsigned flags,
                                                             void **depend, int priority, void *detach)
{
    if (depend != NULL || (flags & (TASK_FLAG_DETACH | TASK_FLAG_PRIORITY)) || muster_omp_cancellation) {
        task_with_clauses(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
        return;
    }
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    task_frame *outer = current_frame;
    task_frame *running = creator_frame(outer, team);
    bool final = (flags & TASK_FLAG_FINAL) != 0 || (running != NULL && running->final);
    plain_task(self, team, outer, running, final, if_clause, fn, data, cpyfn, arg_size, arg_align);
}

void muster_omp_task_submit(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                            long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                            void *detach)
{
    submit_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

/* ---- undeferred tasks whose body the compiler runs (LLVM's if(0)) ---- */

_Static_assert(sizeof(task_frame) <= MUSTER_OMP_UNDEFERRED_FRAME_SIZE, "task.h's frame size holds a frame");

void muster_omp_undeferred_begin(void *storage, bool final)
{
    task_frame *frame = storage, *parent = current_frame;
    muster_omp_team *team = current_team();
    /* running_task(), without looking the team up twice */
    bool in_final = parent != NULL && parent->team == team && parent->final;
    *frame = (task_frame){
        .parent = parent, .team = team, .final = final || in_final, .depth = child_depth(parent, team)};
    current_frame = frame;
}

void muster_omp_undeferred_end(void *storage)
{
    task_frame *frame = storage;
    if (current_frame != frame)
        fatal("an undeferred task ended that is not the innermost one running");
    current_frame = frame->parent;
    if (pending_events != NULL)
        orphan_children(frame);
    node_release(frame->node); /* its deferred children may still hold it */
}

void muster_omp_taskwait(void)
{
    wait_children();
    if (pending_events != NULL)
        settle_events(child_of, running_task(), true);
}

/* taskwait depend(...): waits for the calling task's own predecessors
 * among the addresses named, through a stand-in in the dependence table. */
void muster_omp_taskwait_depend(void **depend)
{
    muster_omp_team *team = current_team();
    stand_in_deps waited = {0};
    wait_for_own_deps(team, running_task(), depend, &waited);
    leave_own_deps(&waited);
}

void muster_omp_taskgroup_start(void)
{
    push_group();
}

void muster_omp_taskgroup_end(void)
{
    taskgroup *group = innermost_group();
    if (group == NULL)
        fatal("the end of a taskgroup that was not started");
    wait_running_descendants(&group->tasks, frame_node(running_task()));
    if (pending_events != NULL)
        settle_events(in_group, group, true);
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
    current_group->workshare = true;
}

/* ---- taskloop ----
 *
 * One task of a taskloop (gomp/taskloop.c splits the iteration space as
 * libgomp does): fn runs on its own copy of the argument block, whose first
 * bounds_size bytes are then overwritten with the task's bounds. */

bool muster_omp_taskloop_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                              long arg_align, const void *bounds, size_t bounds_size, bool if_clause, bool final,
                              int priority)
{
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    if (task_cancelled(team, innermost_group()))
        return false; /* cancel taskgroup (or parallel): the rest never start */
    task_frame *running = running_task();
    priority = effective_priority(priority);
    /* Queued, unlike GOMP_task's tasks while everyone is busy: a taskloop's
     * tasks are few and coarse (as many as threads by default), and a
     * program may rely on them running side by side, as they do on libgomp
     * (one task waiting for another).  A full deque or the team's throttle
     * runs the task here.  A final taskloop's tasks are queued too; only
     * those created inside a final task are included. */
    bool included = running != NULL && running->final;
    if (if_clause && !included && team_tasks() != NULL) {
        deferred_task *t = new_record(team, running, final, fn, data, cpyfn, arg_size, arg_align);
        memcpy(t->data, bounds, bounds_size);
        if (priority > 0)
            queue_prioritized(self, t, priority);
        else
            muster_omp_task_count_deferred(queue_record(self, t));
        return true;
    }
    size_t align = arg_align > 0 ? (size_t)arg_align : 1;
    size_t bytes = (size_t)arg_size + align - 1;
    char stack_buffer[bytes <= STACK_ARG_LIMIT ? bytes : 1];
    char *buffer = bytes <= STACK_ARG_LIMIT ? stack_buffer : checked_malloc(bytes);
    char *arg = (char *)(((uintptr_t)buffer + align - 1) & ~(uintptr_t)(align - 1));
    if (cpyfn != NULL)
        cpyfn(arg, data);
    else
        memcpy(arg, data, (size_t)arg_size);
    memcpy(arg, bounds, bounds_size);
    muster_omp_task_count_deferred(false);
    task_frame frame;
    enter_task(&frame, final);
    fn(arg);
    leave_task(&frame);
    if (buffer != stack_buffer)
        free(buffer);
    return true;
}
