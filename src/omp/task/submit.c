/* A new task: the ABI layers' description (task.h) becomes a task run at
 * once or a queued record, as defer.h decides.  Also taskloop's tasks. */
#include <string.h>

#include "omp/env.h"
#include "omp/task/core.h"
#include "omp/task/defer.h"
#include "omp/task/task_memory.h"

/* The implicit task's last child queued by delay_sibling (task_frame's
 * `delayed` for an explicit task).  Possibly stale: only compared with the
 * task at the bottom of this member's deque, which is then live, and one
 * this thread made. */
static _Thread_local deferred_task *implicit_delayed;

/* How plain_task may run a task: the if clause, task.h's queue_alone, and
 * whether a tool is told of it (the general path only; a constant false on
 * muster_omp_task_plain's, where the struct costs nothing: inlined, its
 * fields are values). */
typedef struct task_ways {
    bool if_clause, queue_alone, told;
} task_ways;

/* Queues the record for any member to run (the throttle asked already);
 * when the deque is full, runs it here at once instead, on the copy it
 * already holds (so a firstprivate copy is made and destroyed exactly
 * once).  True when it was queued. */
static bool push_record(muster_omp_thread *self, deferred_task *t)
{
    muster_omp_team_tasks *tt = t->team->tasks;
    uintptr_t tags[MUSTER_DEQUE_TAGS];
    task_tags(t, tags);
    if (muster_omp_tasks_push(tt, self->id, t, tags))
        return true;
    (void)muster_omp_record_run(t); /* its parent and group are this thread's own: nobody waits on them meanwhile */
    return false;
}

/* push_record, or at once when the team is throttled. */
static bool queue_record(muster_omp_thread *self, deferred_task *t)
{
    if (!muster_omp_defer_throttled(t->team->tasks, self->id))
        return push_record(self, t);
    (void)muster_omp_record_run(t); /* as push_record's */
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

/* A task of priority above 0 goes to the team's priority queue: there
 * every member looking for work sees it first, and the most urgent goes
 * first.  Run here at once only when that queue cannot grow. */
static void queue_prioritized(muster_omp_thread *self, deferred_task *t, int priority)
{
    t->priority = priority;
    bool queued = muster_omp_tasks_push_prioritized(t->team->tasks, t, priority, self->id);
    if (!queued)
        (void)muster_omp_record_run(t); /* as queue_record */
    muster_omp_task_count_deferred(queued);
}

/* A task with dependences: registered in its parent's table, it waits
 * there until its predecessors finish.  Not throttled: it cannot run at
 * once before its predecessors, and waiting for them here would serialise
 * the producer.  False when the clauses include a kind handled only
 * conservatively (depend.h). */
static bool defer_with_deps(muster_omp_thread *self, muster_omp_team *team, task_frame *running, bool final,
                            const muster_omp_task_desc *task, int priority)
{
    if (muster_omp_depend_count(task->depend) < 0)
        return false;
    deferred_task *t = muster_omp_record_new(team, running, final, task);
    t->priority = priority;
    muster_omp_record_schedule(self, t, task->depend);
    return true;
}

/* ---- tasks run at once ---- */

/* Runs fn on a copy of its argument block, aligned to arg_align, made by
 * cpyfn (firstprivate copy constructors) or, without one, by memcpy; then
 * bounds_size bytes of `bounds` (a taskloop task's) overwrite its start. */
static void run_body_on_copy(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                             long arg_align, const void *bounds, size_t bounds_size)
{
    size_t align = arg_align > 0 ? (size_t)arg_align : 1;
    size_t bytes = (size_t)arg_size + align - 1;
    char stack_buffer[bytes <= STACK_ARG_LIMIT ? bytes : 1];
    char *buffer = bytes <= STACK_ARG_LIMIT ? stack_buffer : checked_malloc(bytes);
    char *arg = (char *)(((uintptr_t)buffer + align - 1) & ~(uintptr_t)(align - 1));
    if (cpyfn != NULL)
        cpyfn(arg, data);
    else
        memcpy(arg, data, (size_t)arg_size);
    if (bounds != NULL)
        memcpy(arg, bounds, bounds_size);
    fn(arg);
    if (buffer != stack_buffer)
        free(buffer);
}

/* What a task run at once rarely leaves behind: events to hand to its
 * parent, a node its deferred children still hold.  Out of line: the
 * common task's path stays short. */
static __attribute__((noinline)) void leave_at_once_rare(task_frame *frame)
{
    if (muster_omp_pending_events != NULL)
        muster_omp_events_orphan(frame);
    muster_omp_node_release(frame->node, frame->team); /* its deferred children may still hold it */
}

/* Runs a task at once in the calling thread: if(0), final, throttled, or a
 * dependence or detach the deferred path does not handle.  `outer` is the
 * current frame and `running` the task of `team` it is, or NULL (the caller
 * has both at hand: reading them again here costs instructions on the path
 * every if(0) task takes, since the store to the creator's `spawned` may
 * alias them).
 *
 * Only a deferrable task (`deferrable`: muster_omp_defer_possible) is
 * sampled and counted in its level's stats: those decide how deferrable
 * tasks are planned, and an undeferred task's creation never asks; where a
 * level mixes both kinds, its deferrable tasks speak for it.  So an if(0)
 * task costs the frame and the call, no more (docs/tuning.md: the if(0)
 * path).  The body comes as scalars, not a description: this is the path
 * of every undeferred task, and a description's fields would be stored and
 * loaded again. */
static inline __attribute__((always_inline)) void run_at_once(muster_omp_team *team, task_frame *outer,
                                                             const task_frame *running, bool final,
                                                             bool deferrable, muster_ompt_task *told,
                                                             void (*fn)(void *), void *data,
                                                             void (*cpyfn)(void *, void *), long arg_size,
                                                             long arg_align)
{
    task_frame frame = {.parent = outer,
                        .team = team,
                        .final = final,
                        .depth = depth_below(running),
                        .work_first = work_first_at_once(running)};
    muster_omp_current_frame = &frame;
    if (told != NULL)
        muster_ompt_task_begin(told, __builtin_dwarf_cfa());
    bool timed = deferrable && muster_omp_defer_sample_start(frame.depth);
    uint64_t start = timed ? muster_now_ns() : 0;
    if (cpyfn == NULL)
        fn(data);
    else
        run_body_on_copy(fn, data, cpyfn, arg_size, arg_align, NULL, 0);
    if (timed)
        muster_omp_defer_sample_end(frame.depth, start);
    if (told != NULL)
        muster_ompt_task_end(told, MUSTER_OMPT_TASK_COMPLETE);
    muster_omp_current_frame = frame.parent;
    if (deferrable)
        muster_omp_defer_note_spawned(frame.depth, frame.spawned);
    if (__builtin_expect(frame.node != NULL || muster_omp_pending_events != NULL, 0))
        leave_at_once_rare(&frame);
}

/* What a tool is told of a task run at once: undeferred when if(0) or
 * included in a final task (a task the runtime chose to run at once is an
 * explicit task like a queued one). */
static inline int at_once_flags(bool if_clause, bool final)
{
    return muster_ompt_task_flags(if_clause && !final ? 0 : MUSTER_OMPT_TASK_UNDEFERRED, final);
}

/* run_at_once for a task with depend or detach clauses: it waits for its
 * own predecessors first, and a detachable one's event is kept for the
 * waits that must see it fulfilled.  Out of line: the common undeferred
 * task (if(0), final) pays nothing for these. */
static __attribute__((noinline)) void run_at_once_with_clauses(muster_omp_team *team, task_frame *outer,
                                                               task_frame *running, bool final, bool deferrable,
                                                               bool told, const muster_omp_task_desc *task)
{
    muster_ompt_task ompt;
    if (told) {
        muster_ompt_task_create(&ompt, at_once_flags(task->if_clause, final), task->depend != NULL);
        if (task->depend != NULL)
            muster_omp_tell_dependences(&ompt, task->depend);
    }
    muster_omp_stand_in waited = {0};
    if (task->depend != NULL)
        muster_omp_stand_in_wait(team, running, task->depend, &waited);
    if (task->detach != NULL) {
        void *event = muster_omp_detach_event_new();
        *task->detach = event;
        if (task->data != NULL)
            *(void **)task->data = event; /* task.h: the argument block's first pointer */
    }
    run_at_once(team, outer, running, final, deferrable, told ? &ompt : NULL, task->fn, task->data, task->cpyfn,
                task->arg_size, task->arg_align);
    muster_omp_stand_in_leave(&waited);
}

/* ---- tasks queued ---- */

/* Queues the new task and runs the sibling queued before it, if that is
 * still this member's newest (else a thief took it, or the creator's own
 * descendants lie on top of it: it stays queued). */
static __attribute__((noinline)) void delay_sibling(muster_omp_thread *self, muster_omp_team *team,
                                                    task_frame *running, bool final,
                                                    const muster_omp_task_desc *task)
{
    muster_omp_team_tasks *tt = team->tasks;
    deferred_task *t = muster_omp_record_new(team, running, final, task);
    deferred_task *prev = NULL;
    deferred_task **delayed = running != NULL ? &running->delayed : &implicit_delayed;
    if (*delayed != NULL) {
        deferred_task *x = muster_omp_tasks_take_own(tt, self->id);
        if (x == *delayed)
            prev = x;
        else if (x != NULL)
            muster_omp_record_put_back(tt, self->id, x);
        *delayed = NULL;
    }
    bool queued = queue_record(self, t);
    muster_omp_task_count_deferred(queued);
    *delayed = queued ? t : NULL;
    if (prev != NULL)
        muster_omp_record_run_deferred(prev); /* counted already: as any queued task */
}

/* The frame of the task of `team` that creates a new task, given `outer`,
 * the thread's current frame (NULL: the team's implicit task creates it),
 * marked as having created one: every creation path notes it, so that its
 * level's stats say its tasks create tasks. */
static inline __attribute__((always_inline)) task_frame *creator_frame(task_frame *outer,
                                                                      const muster_omp_team *team)
{
    task_frame *running = outer != NULL && outer->team == team ? outer : NULL;
    if (running != NULL)
        running->spawned = true;
    return running;
}

/* The team's task scheduler, made now for a team of one whose task wants
 * to queue (`wants_one`: task.h's queue_alone, or a detachable task);
 * NULL: none (a team of one running its tasks at once). */
static inline muster_omp_team_tasks *scheduler_for(muster_omp_team *team, bool wants_one)
{
    if (__builtin_expect(team->tasks == NULL, 0) && wants_one)
        muster_omp_tasks_solo_scheduler(team);
    return team->tasks;
}

/* Queues a task without clauses (plain_task's rarer branches): its
 * description is built only here, off the path of tasks run at once. */
static __attribute__((noinline)) void queue_plain(muster_omp_thread *self, muster_omp_team *team,
                                                  task_frame *running, bool final, muster_omp_defer_plan plan,
                                                  void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                                  long arg_size, long arg_align)
{
    muster_omp_task_desc task = {
        .fn = fn, .data = data, .cpyfn = cpyfn, .arg_size = arg_size, .arg_align = arg_align, .if_clause = true};
    if (plan == MUSTER_OMP_QUEUE_DELAYED) {
        delay_sibling(self, team, running, final, &task);
        return;
    }
    deferred_task *t = muster_omp_record_new(team, running, final, &task);
    muster_omp_task_count_deferred(push_record(self, t)); /* plain_task asked the throttle */
}

/* A task without depend, detach or a priority above 0: queued, queued with
 * its previous sibling run now, or run at once, as defer.h plans it.
 * untied and mergeable change nothing here: a freedom and an option.
 * Created inside a final task, it is included, so run at once; a final
 * task itself may be queued (as libgomp does: a cut-off's final tasks are
 * its coarsest pieces, the ones worth spreading). */
static inline __attribute__((always_inline)) void plain_task(muster_omp_thread *self, muster_omp_team *team,
                                                            task_frame *outer, task_frame *running, bool final,
                                                            task_ways ways, void (*fn)(void *), void *data,
                                                            void (*cpyfn)(void *, void *), long arg_size,
                                                            long arg_align)
{
    bool if_clause = ways.if_clause, queue_alone = ways.queue_alone;
    bool included = included_in_final(running);
    muster_omp_team_tasks *tt = if_clause && !included && team != NULL ? scheduler_for(team, queue_alone) : NULL;
    if (tt != NULL) {
        muster_omp_defer_plan plan = muster_omp_defer_plain(self, tt, running != NULL ? running->depth : 0,
                                                            running != NULL && running->work_first);
        /* The throttle before the record: a throttled task costs the call,
         * not a copy (a team of one past its 64 unfinished tasks runs whole
         * subtrees so, as libgomp does). */
        if (plan == MUSTER_OMP_QUEUE && muster_omp_defer_throttled(tt, self->id))
            plan = MUSTER_OMP_RUN_NOW;
        if (plan != MUSTER_OMP_RUN_NOW) {
            queue_plain(self, team, running, final, plan, fn, data, cpyfn, arg_size, arg_align);
            return;
        }
    }
    muster_omp_task_count_deferred(false);
    muster_ompt_task ompt, *told = NULL;
    if (ways.told) {
        muster_ompt_task_create(&ompt, at_once_flags(if_clause, included), false);
        told = &ompt;
    }
    run_at_once(team, outer, running, final, tt != NULL, told, fn, data, cpyfn, arg_size, arg_align);
}

/* The rest of a task's creation: cancellation on, or depend, detach or
 * priority clauses.  A detachable task, a prioritized one and one with
 * dependences become task records when the team has a scheduler (if(true),
 * not created inside a final task: final ones themselves may be queued, as
 * in plain_task); otherwise they run at once, a detachable one keeping its
 * event and one with dependences waiting for its own predecessors first. */
static inline __attribute__((always_inline)) void submit_task(const muster_omp_task_desc *task, bool told)
{
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    if (__builtin_expect(muster_omp_cancellation, 0) && task_cancelled(team, innermost_group()))
        return;
    task_frame *outer = muster_omp_current_frame;
    task_frame *running = creator_frame(outer, team);
    bool included = included_in_final(running);
    bool final = task->final || included;
    bool detached = task->detach != NULL;
    int priority = effective_priority(task->priority);
    if (task->depend == NULL && !detached && priority == 0) {
        task_ways ways = {.if_clause = task->if_clause, .queue_alone = task->queue_alone, .told = told};
        plain_task(self, team, outer, running, final, ways, task->fn, task->data, task->cpyfn, task->arg_size,
                   task->arg_align);
        return;
    }
    if (task->if_clause && !included && team != NULL)
        (void)scheduler_for(team, detached || task->queue_alone);
    bool may_queue = muster_omp_defer_record(task->if_clause, included, team);
    if (may_queue && detached && (task->depend == NULL || muster_omp_depend_count(task->depend) >= 0)) {
        muster_omp_defer_detached(self, team, running, final, task, priority);
        muster_omp_task_count_deferred(true);
        return;
    }
    if (may_queue && !detached && task->depend == NULL) {
        queue_prioritized(self, muster_omp_record_new(team, running, final, task), priority);
        return;
    }
    if (may_queue && !detached && defer_with_deps(self, team, running, final, task, priority)) {
        muster_omp_task_count_deferred(true);
        return;
    }
    muster_omp_task_count_deferred(false);
    run_at_once_with_clauses(team, outer, running, final, muster_omp_defer_possible(task->if_clause, included, team),
                             told, task);
}

/* The general path twice over, with a tool told of each task and
 * without: the told flag is then a constant in each, and a program
 * without a tool pays its test once, here or in the entry point that
 * chose one of the two (docs/tuning.md: OMPT). */
__attribute__((noinline)) void muster_omp_task_submit_quiet(const muster_omp_task_desc *task)
{
    submit_task(task, false);
}

__attribute__((noinline)) void muster_omp_task_submit_told(const muster_omp_task_desc *task)
{
    submit_task(task, true);
}

void muster_omp_task_submit(const muster_omp_task_desc *task)
{
    if (muster_ompt_on())
        muster_omp_task_submit_told(task);
    else
        muster_omp_task_submit_quiet(task);
}

/* muster_omp_task_plain's general path, whose description lives in
 * memory here.  Out of line: with the description's address taken in
 * muster_omp_task_plain itself, its common path kept the description in
 * memory too (5 instructions a task; docs/tuning.md, the if(0) path). */
__attribute__((noinline)) void muster_omp_task_plain_general(void (*fn)(void *), void *data,
                                                             void (*cpyfn)(void *, void *), long arg_size,
                                                             long arg_align, unsigned how)
{
    muster_omp_task_desc task = {.fn = fn,
                                 .data = data,
                                 .cpyfn = cpyfn,
                                 .arg_size = arg_size,
                                 .arg_align = arg_align,
                                 .if_clause = how & MUSTER_OMP_TASK_IF,
                                 .final = how & MUSTER_OMP_TASK_FINAL,
                                 .queue_alone = how & MUSTER_OMP_TASK_QUEUE_ALONE};
    muster_omp_task_submit(&task);
}

/* The common task (no depend, detach or priority clause; cancellation
 * off, no tool: the caller tested muster_omp_general_tasks) is decided
 * here without the general path's frame; like if(0) and final ones (every
 * task a cut-off turns undeferred), it goes straight to the call when
 * nobody is hungry. */
void muster_omp_task_plain(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                           long arg_align, unsigned how)
{
    bool if_clause = how & MUSTER_OMP_TASK_IF, final = how & MUSTER_OMP_TASK_FINAL;
    bool queue_alone = how & MUSTER_OMP_TASK_QUEUE_ALONE;
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    task_frame *outer = muster_omp_current_frame;
    task_frame *running = creator_frame(outer, team);
    bool included = included_in_final(running);
    task_ways ways = {.if_clause = if_clause, .queue_alone = queue_alone, .told = false};
    plain_task(self, team, outer, running, final || included, ways, fn, data, cpyfn, arg_size, arg_align);
}

/* ---- taskloop ----
 *
 * One task of a taskloop (the ABI layer splits the iteration space): fn
 * runs on its own copy of the argument block, whose first bounds_size
 * bytes are then overwritten with the task's bounds. */

/* Runs a taskloop task at once, on a copy with its bounds. */
static void run_loop_task_at_once(const muster_omp_task_desc *task, const void *bounds, size_t bounds_size)
{
    task_frame frame;
    muster_ompt_task ompt;
    bool told = muster_ompt_on();
    muster_omp_frame_enter(&frame, task->final);
    if (told) {
        muster_ompt_task_create(&ompt, at_once_flags(task->if_clause, frame.final), false);
        muster_ompt_task_begin(&ompt, __builtin_dwarf_cfa());
    }
    run_body_on_copy(task->fn, task->data, task->cpyfn, task->arg_size, task->arg_align, bounds, bounds_size);
    if (told)
        muster_ompt_task_end(&ompt, MUSTER_OMPT_TASK_COMPLETE);
    muster_omp_frame_leave(&frame);
}

bool muster_omp_taskloop_task(const muster_omp_task_desc *task, const void *bounds, size_t bounds_size)
{
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    if (task_cancelled(team, innermost_group()))
        return false; /* cancel taskgroup (or parallel): the rest never start */
    task_frame *running = running_task();
    int priority = effective_priority(task->priority);
    /* Queued whenever it may be (defer.h): a taskloop's tasks are few and
     * coarse, and a program may rely on them running side by side, as they
     * do on libgomp (one task waiting for another).  A full deque or the
     * team's throttle runs the task here.  A final taskloop's tasks are
     * queued too; only those created inside a final task are included. */
    bool included = included_in_final(running);
    if (muster_omp_defer_record(task->if_clause, included, team)) {
        deferred_task *t = muster_omp_record_new(team, running, task->final, task);
        memcpy(t->data, bounds, bounds_size);
        if (priority > 0)
            queue_prioritized(self, t, priority);
        else
            muster_omp_task_count_deferred(queue_record(self, t));
        return true;
    }
    muster_omp_task_count_deferred(false);
    run_loop_task_at_once(task, bounds, bounds_size);
    return true;
}
