/* What the files of the task wing share: task records, their nodes and
 * frames, taskgroups, and the calling thread's place among them.  Private
 * to src/omp/task/; the ABI layers see task.h only.
 *
 * Deferred tasks.  In a team of two or more, a task with an if clause that
 * holds, no detach and no final ancestor (it may be final itself) may be
 * queued on its creator's deque (scheduler.h) and run on any member: the
 * creator takes its newest tasks back, idle members steal the oldest.
 * Whether it is queued or run at once is decided in one place, defer.h.
 * A task record carries a copy of the arguments, the node of its parent
 * (whose taskwait counts it) and its taskgroup (whose end counts it).
 * Nodes are reference counted because a child may finish after its parent
 * did.  Waiting is working (wait.c): taskwait and taskgroup end run the
 * waiter's own descendants (the tied-task scheduling constraint), and a
 * member reaching a team barrier or the end of its region runs, or steals,
 * tasks until the team has none left (muster_omp_tasks_drain).
 *
 * Dependences (depend.h): a task with in, out, inout, mutexinoutset or
 * depobj dependences is registered in its parent's table and queued when its
 * last predecessor finishes (by that thread) and it holds its mutexinoutset
 * addresses, or at once if it has no predecessor.  An undeferred task
 * (if(0), or made inside a final task) with dependences, and taskwait
 * depend, register a stand-in the same way and wait, running the waiter's
 * descendants, until the stand-in is ready: they wait for their own
 * predecessors only.  A kind depend.h does not handle makes the task wait
 * for all of its creator's deferred children and run at once (more waiting
 * than needed, never less).
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
 * Detachable tasks: detach.c.
 *
 * Where a task runs: each thread keeps a chain of the explicit tasks it is
 * running (frames, on its stack) and of the taskgroups it is in.  Each entry
 * records the team it belongs to; an entry of another team (the thread has
 * since entered a nested parallel region) does not apply. */
#ifndef MUSTER_OMP_TASK_CORE_H
#define MUSTER_OMP_TASK_CORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "omp/team.h"
#include "omp/export.h"
#include "omp/warn.h" /* muster_omp_fatal */
#include "omp/task/depend.h"
#include "omp/task/scheduler.h"
#include "omp/task/task.h"

/* Task arguments up to this size are copied on the stack, larger on the heap. */
#define STACK_ARG_LIMIT 4096

static inline void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        muster_omp_fatal("out of memory");
    return p;
}

/* ---- counts that one thread may wait for ---- */

/* A count of unfinished tasks that one thread may wait for (a task's
 * deferred children for its taskwait, a taskgroup's tasks for its end, a
 * stand-in's predecessors) in the low 32 bits, and in the high 32 the team
 * member asleep waiting for it (id + 1; 0: none).  One word, so that the
 * decrement that empties it also says whom to wake, and touches nothing of
 * the count's owner afterwards (its waiter may free it at once): only that
 * member is woken, not every sleeper of the team.  tests/spin/task_count.pml
 * model-checks this handshake. */
typedef _Atomic uint64_t task_count;
#define TASK_COUNT_ONE ((uint64_t)1)
#define TASK_COUNT_SLEEPER(id) ((uint64_t)((id) + 1u) << 32)

static inline uint32_t tasks_left(uint64_t count)
{
    return (uint32_t)count;
}

/* The tag of the member asleep on a count whose value was `count` just
 * before the decrement that emptied it, or 0. */
static inline uint32_t sleeper_tag(uint64_t count)
{
    uint32_t sleeper = (uint32_t)(count >> 32);
    return sleeper == 0 ? 0 : muster_omp_member_tag(sleeper - 1);
}

/* Counts one of the tasks finished; the tag of the member to wake when
 * that emptied the count (0: none, or nobody asleep on it). */
static inline uint32_t count_finished(task_count *count)
{
    /* seq_cst: releases the task's writes to the waiter that reads the
     * count empty (acquire), and orders this against a waiter's
     * announcement on the same word (wait.c: count_nonzero). */
    uint64_t before = atomic_fetch_sub(count, TASK_COUNT_ONE);
    MUSTER_INVARIANT(tasks_left(before) > 0, "a task count went below zero (%p)", (void *)count);
    return tasks_left(before) == 1 ? sleeper_tag(before) : 0;
}

/* `*word += delta` for a word that only the calling thread touches
 * (node_counts_private): a plain load and store, without the lock prefix
 * and store-buffer drain of a read-modify-write (five a task: ~10% of a
 * lone thread's fine-grained search; docs/tuning.md).  Returns the old value.
 * relaxed (both): nobody else reads or writes the word meanwhile. */
static inline uint64_t private_add64(_Atomic uint64_t *word, uint64_t delta)
{
    /* relaxed (both): as above, the word is private to this thread. */
    uint64_t v = atomic_load_explicit(word, memory_order_relaxed);
    atomic_store_explicit(word, v + delta, memory_order_relaxed);
    return v;
}

static inline uint32_t private_add32(_Atomic uint32_t *word, uint32_t delta)
{
    /* relaxed (both): as in private_add64(). */
    uint32_t v = atomic_load_explicit(word, memory_order_relaxed);
    atomic_store_explicit(word, v + delta, memory_order_relaxed);
    return v;
}

/* ---- nodes, frames, taskgroups, records ---- */

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

typedef struct deferred_task deferred_task;

typedef struct task_frame {
    struct task_frame *parent;
    muster_omp_team *team; /* the encountering thread's team */
    task_node *node;       /* created with its first deferred child; NULL until then */
    task_node *origin;     /* a deferred task: its parent's node; else NULL (see muster_omp_frame_node) */
    deferred_task *delayed; /* its last child queued by delay_sibling, if still ours to run */
    /* Last, in one word: a task run at once fills its frame with few stores. */
    unsigned depth;        /* tasks between this one and the implicit task, itself included */
    bool final;            /* a final task: every task it creates is final too */
    bool spawned;          /* it has created a task */
    /* Its children near the root run in creation order, not newest first
     * (defer.h: help first; work_first_queued and _at_once). */
    bool work_first;
} task_frame;

typedef struct taskgroup {
    struct taskgroup *prev;
    muster_omp_team *team;
    void *reductions;       /* the ABI layer's task reductions (see the slot in taskgroup.c); inherited */
    bool workshare;         /* the group of a worksharing construct's task reductions */
    _Atomic bool cancelled; /* cancel taskgroup (cancel.c): its tasks no longer start */
    task_count tasks;       /* deferred tasks created in the group, not finished yet */
} taskgroup;

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
    unsigned creator;      /* the member that made it (its id) */
    bool work_first;       /* its creator's frame's; a thief's frame flips it */
    /* detach: the task completes when both its body has ended and its
     * event is fulfilled; this counts the two down, and whichever comes
     * second completes it.  The event handle is the record's address with
     * the low bit set (omp_fulfill_event tells it from a task_event). */
    bool detached;
    _Atomic uint32_t detach_outstanding;
    _Atomic bool fulfilled; /* detach: a second omp_fulfill_event is an error */
    /* A stand-in (fn NULL) for an undeferred task or taskwait depend: 1
     * until its predecessors have finished, then 0 (see wait.c: wait_for_own_deps). */
    task_count stand_in_waiting;
    /* the argument block follows (after a deferred_task_told, when a tool is attached) */
};

/* What a record keeps for a tool (ompt.h), after the record, only while a
 * tool is attached (muster_ompt_on: on before the first task, off only at
 * the program's exit): without one the record stays as small, and as
 * quick to fill, as before tools. */
typedef struct deferred_task_told {
    muster_ompt_task ompt;
    /* A detached task: whether its body ended, and what its end told the
     * tool (detach.c orders the events). */
    _Atomic bool body_ended;
    bool told_detach;
} deferred_task_told;

/* Its size while a tool is attached, else 0 (records.c; set by
 * muster_omp_tasks_told). */
extern size_t muster_omp_record_told_bytes;

static inline deferred_task_told *told_of(deferred_task *t)
{
    return (deferred_task_told *)(void *)(t + 1);
}

/* ---- where the calling thread is ---- */

extern _Thread_local task_frame *muster_omp_current_frame;
extern _Thread_local taskgroup *muster_omp_current_group;
/* The unfulfilled events of tasks this thread ran at once (events.c). */
extern _Thread_local struct task_event *muster_omp_pending_events;
/* The implicit task's node: never freed (its reference is never dropped).
 * One per thread serves every level of nesting: an inner region's tasks all
 * finish before the region ends, so they never mix with the outer ones. */
extern _Thread_local task_node muster_omp_implicit_node;

/* Whether only the calling thread touches `node`'s counts (children,
 * refs): a node of a team of one's explicit task while the team has made
 * no detachable task (whose fulfiller, any thread, would count it
 * finished).  Not the implicit node: one per thread serves every level, and
 * an outer team's members count their tasks finished on it. */
static inline bool node_counts_private(const task_node *node, const muster_omp_team *team)
{
    if (team->size != 1 || node == &muster_omp_implicit_node || team->tasks == NULL)
        return false;
    /* relaxed: written by this thread, or before this team's first task. */
    return atomic_load_explicit(&team->tasks->counts_private, memory_order_relaxed);
}

static inline muster_omp_team *current_team(void)
{
    return muster_omp_self()->team;
}

/* The explicit task the thread is running in its current team; NULL: an
 * implicit task. */
static inline task_frame *running_task(void)
{
    task_frame *frame = muster_omp_current_frame;
    return frame != NULL && frame->team == current_team() ? frame : NULL;
}

/* Whether a task created by `running` (NULL: the implicit task) is
 * included: made inside a final task, so run at once and final too. */
static inline bool included_in_final(const task_frame *running)
{
    return running != NULL && running->final;
}

/* The depth of a task created or run by `running`, the team's task the
 * thread runs (NULL: its implicit task, at depth 0). */
static inline unsigned depth_below(const task_frame *running)
{
    return running != NULL ? running->depth + 1 : 1;
}

/* work_first (defer.h: help first) of a task created by `running` (NULL:
 * the implicit task): queued, its creator's (a task the implicit task
 * queued is a root that helps first); run at once, its creator's too, but
 * a task the implicit task ran at once keeps that serial order below it.
 * A thief flips a queued task's (run_record_body). */
static inline bool work_first_queued(const task_frame *running)
{
    return running != NULL && running->work_first;
}
static inline bool work_first_at_once(const task_frame *running)
{
    return running == NULL || running->work_first;
}

static inline taskgroup *innermost_group(void)
{
    taskgroup *group = muster_omp_current_group;
    return group != NULL && group->team == current_team() ? group : NULL;
}

static inline muster_omp_team_tasks *team_tasks(void)
{
    muster_omp_team *team = current_team();
    return team != NULL ? team->tasks : NULL;
}

/* ---- cancellation (cancel.c says what each construct means) ---- */

/* `cancel taskgroup` inside a worksharing construct's reduction group
 * means the construct's enclosing group, as in libgomp. */
static inline taskgroup *cancellable_group(taskgroup *group)
{
    return group != NULL && group->workshare && group->prev != NULL ? group->prev : group;
}

static inline bool group_cancelled(taskgroup *group)
{
    /* relaxed (both): a hint to skip work, as team->cancelled. */
    return group != NULL && (atomic_load_explicit(&group->cancelled, memory_order_relaxed) ||
                             atomic_load_explicit(&cancellable_group(group)->cancelled, memory_order_relaxed));
}

/* A task of `team` in `group` that has not started may no longer start
 * (nor be created). */
static inline bool task_cancelled(muster_omp_team *team, taskgroup *group)
{
    return __builtin_expect(muster_omp_cancellation, 0) &&
           (muster_omp_team_cancelled(team) || group_cancelled(group));
}

/* A queued task's tags (deque.h): the nodes of its nearest ancestors, its
 * parent's first.  A waiter restricted to its descendants (wait.c) steals
 * only tasks that carry its own node, so it leaves the others in place
 * instead of taking and re-queueing them (docs/tuning.md: task tags).  The
 * nodes are alive while the task is: each holds a reference to its parent. */
static inline void task_tags(const deferred_task *t, uintptr_t tags[MUSTER_DEQUE_TAGS])
{
    const task_node *node = t->parent;
    for (int k = 0; k < MUSTER_DEQUE_TAGS; k++) {
        tags[k] = (uintptr_t)node;
        if (node != NULL)
            node = node->parent;
    }
}

/* The flags a tool is told for an explicit task (ompt.h). */
static inline int muster_ompt_task_flags(int extra, bool final)
{
    return MUSTER_OMPT_TASK_EXPLICIT | extra | (final ? MUSTER_OMPT_TASK_FINAL : 0);
}

/* ---- records.c: frames, nodes and records (below the waits and the creation paths) ---- */

/* Enters and leaves a frame for a task the caller runs at once. */
void muster_omp_frame_enter(task_frame *frame, bool final);
void muster_omp_frame_leave(task_frame *frame);
/* The node of the task running in `frame` (NULL: the implicit task),
 * created if need be. */
task_node *muster_omp_frame_node(task_frame *frame);
void muster_omp_node_release(task_node *node, const muster_omp_team *team);
/* Frees the implicit task's dependence table once the team's tasks have
 * all finished and no outer region's tasks use it. */
void muster_omp_implicit_table_release(void);
/* A task record with a copy of the task's arguments, counted in its
 * parent's children and its taskgroup.  `running`: the explicit task
 * creating it, NULL for the implicit one; `final`: the task is final. */
deferred_task *muster_omp_record_new(muster_omp_team *team, task_frame *running, bool final,
                                     const muster_omp_task_desc *task);
/* Runs a record not counted in the team's pending (not detached) and
 * completes it. */
uint32_t muster_omp_record_run(deferred_task *t);
/* Runs a deferred task (counted in the team's pending) and, once complete,
 * counts it finished there too.  The caller is a member of its team. */
void muster_omp_record_run_deferred(deferred_task *t);
/* A task that is complete: its successors become ready, its parent and
 * taskgroup count it finished, and the record is freed.  Returns the tags
 * of the members asleep waiting for a count that emptied (0: none). */
uint32_t muster_omp_record_complete(deferred_task *t);
/* Queues a task already counted in the team's pending in the priority
 * queue (prioritized) or member id's deque.  False when that failed. */
bool muster_omp_record_queue_again(deferred_task *t, unsigned id);
/* depend.h's ready callback: a task whose last predecessor just finished. */
void muster_omp_successor_ready(void *task, void *arg);
/* Tells a tool a new task's depend clauses (the dependences event). */
void muster_omp_tell_dependences(muster_ompt_task *task, const muster_omp_depend *depend);
/* Counts a record in the team's pending and schedules it (with its
 * dependences, if any). */
void muster_omp_record_schedule(muster_omp_thread *self, deferred_task *t, const muster_omp_depend *depend);


/* ---- wait.c (above the records; taskgroup.c above it) ---- */

/* Puts a task member id just took from its own deque back, unrun. */
void muster_omp_record_put_back(muster_omp_team_tasks *tt, unsigned id, deferred_task *t);

/* Waits until *count reaches zero, running meanwhile tasks that descend
 * from `waiter` (the tied-task scheduling constraint). */
void muster_omp_wait_descendants(task_count *count, const task_node *waiter);

/* A stand-in for the dependences of an undeferred task or of taskwait
 * depend, between muster_omp_stand_in_wait and muster_omp_stand_in_leave. */
typedef struct muster_omp_stand_in {
    deferred_task record; /* fn NULL: muster_omp_successor_ready marks it ready */
    muster_omp_dep_table *table;
} muster_omp_stand_in;
/* Waits until the running task's predecessors among `depend` have
 * finished, running the waiter's descendants meanwhile. */
void muster_omp_stand_in_wait(muster_omp_team *team, task_frame *running, const muster_omp_depend *depend,
                              muster_omp_stand_in *s);
/* The undeferred task has run: its successors may go. */
void muster_omp_stand_in_leave(muster_omp_stand_in *s);

/* ---- events.c (below the records): events of detachable tasks run at once ---- */

/* The calling thread's events of `frame`'s children no longer have a
 * taskwait to wait for them (their parent has finished). */
void muster_omp_events_orphan(const task_frame *frame);
/* Waits for the events of the running task's children, or of a taskgroup. */
void muster_omp_events_settle_children(const task_frame *frame);
void muster_omp_events_settle_group(const taskgroup *group);
/* omp_fulfill_event for such an event. */
void muster_omp_event_fulfil(void *handle);

/* ---- solo.c ---- */

/* A team of one gets a scheduler for its first detachable task. */
void muster_omp_tasks_solo_scheduler(muster_omp_team *team);

/* ---- detach.c (above the records) ---- */

/* A detachable task of a team with a scheduler becomes a record completed
 * by its body's end and its event's fulfilment, whichever comes second. */
void muster_omp_defer_detached(muster_omp_thread *self, muster_omp_team *team, task_frame *running, bool final,
                               const muster_omp_task_desc *task, int priority);

#endif
