/* Waiting is working: taskwait, taskgroup end and taskwait depend run the
 * waiter's own descendants while they wait (the tied-task scheduling
 * constraint), and a member at a team barrier or the end of its region
 * runs, or steals, any of the team's tasks (muster_omp_tasks_work,
 * muster_omp_tasks_drain). */
#include "omp/task/core.h"
#include "omp/task/defer.h"

/* True when `node` (a task's parent node) lies under `ancestor`.  A very
 * deep chain is taken as "no": the task then waits for someone else. */
static bool descends_from(const task_node *node, const task_node *ancestor)
{
    for (int depth = 0; node != NULL && depth < 1024; depth++, node = node->parent)
        if (node == ancestor)
            return true;
    return false;
}

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
    return muster_omp_record_queue_again(t, id); /* priority 0: it came from a deque */
}

/* Puts a task member id just took from its own deque back, unrun. */
void muster_omp_record_put_back(muster_omp_team_tasks *tt, unsigned id, deferred_task *t)
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
void muster_omp_wait_descendants(task_count *count, const task_node *waiter)
{
    muster_omp_team_tasks *tt = team_tasks();
    /* acquire: pairs with the decrement in count_finished() (core.h; seq_cst, so a release):
     * the finished tasks' writes are seen once the count is zero. */
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
    /* acquire: as above, pairs with count_finished()'s decrement. */
    while (tasks_left(atomic_load_explicit(count, memory_order_acquire)) != 0) {
        if (held != NULL && pass_on(id, held))
            held = NULL;
        deferred_task *t = muster_omp_tasks_take_prioritized(tt, may_run_here, waiter);
        if (t != NULL) {
            muster_omp_tasks_set_hungry(tt, &hungry, false);
            muster_omp_record_run_deferred(t);
            idle.polls = 0;
            continue;
        }
        t = muster_omp_tasks_take_own(tt, id);
        if (t != NULL && !descends_from(t->parent, waiter)) {
            muster_omp_record_put_back(tt, id, t);
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
            muster_omp_record_run_deferred(t);
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
    task_node *node = frame == NULL ? &muster_omp_implicit_node : frame->node;
    if (node != NULL)
        muster_omp_wait_descendants(&node->children, node);
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
    muster_omp_record_run_deferred(t);
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
        muster_omp_defer_reset_throttle(w->tt, w->id);
        muster_omp_implicit_table_release(); /* the team's tasks have all finished */
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
        /* A team of one runs what its barrier finds oldest first: libgomp's
         * order there (solo.c), breadth first where a taskwait goes newest
         * first. */
        if (t == NULL)
            t = tt->size == 1 ? muster_omp_tasks_take_oldest(tt, 0) : muster_omp_tasks_take_own(tt, self->id);
        if (t == NULL)
            t = muster_omp_tasks_steal(tt, self->id, &thief, 0, NULL);
        muster_omp_tasks_set_hungry(tt, &hungry, t == NULL);
        if (t != NULL) {
            muster_omp_record_run_deferred(t);
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

/* Registers a stand-in with `depend` in the running task's table, as a
 * task would be, and waits until its predecessors have finished (and it
 * holds its mutexinoutset addresses), running the waiter's descendants
 * meanwhile (the predecessors are among them).  Without a table nothing
 * was deferred with dependences, so there is nothing to wait for.  A kind
 * depend.h does not handle: waits for all deferred children instead. */
void muster_omp_stand_in_wait(muster_omp_team *team, task_frame *running, const muster_omp_depend *depend,
                              muster_omp_stand_in *s)
{
    task_node *node = muster_omp_frame_node(running);
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
        muster_omp_wait_descendants(&s->record.stand_in_waiting, node);
}

/* The undeferred task has run: its successors may go. */
void muster_omp_stand_in_leave(muster_omp_stand_in *s)
{
    if (s->table == NULL)
        return;
    muster_omp_deps_release(s->table, s->record.deps, muster_omp_successor_ready, NULL);
    muster_omp_deps_free(s->record.deps);
}

/* The tool's events of a taskwait: its region with its wait inside. */
static void tell_taskwait(int endpoint, const void *ra)
{
    if (endpoint == MUSTER_OMPT_SCOPE_BEGIN)
        muster_ompt_sync_region_only(MUSTER_OMPT_SYNC_TASKWAIT, endpoint, ra);
    muster_ompt_sync_wait_only(MUSTER_OMPT_SYNC_TASKWAIT, endpoint, ra);
    if (endpoint == MUSTER_OMPT_SCOPE_END)
        muster_ompt_sync_region_only(MUSTER_OMPT_SYNC_TASKWAIT, endpoint, ra);
}

void muster_omp_taskwait(void)
{
    bool told = muster_ompt_on();
    const void *ra = told ? muster_ompt_take_caller() : NULL;
    if (told)
        tell_taskwait(MUSTER_OMPT_SCOPE_BEGIN, ra);
    wait_children();
    if (muster_omp_pending_events != NULL)
        muster_omp_events_settle_children(running_task());
    if (told)
        tell_taskwait(MUSTER_OMPT_SCOPE_END, ra);
}

/* taskwait depend(...): waits for the calling task's own predecessors
 * among the addresses named, through a stand-in in the dependence table. */
void muster_omp_taskwait_depend(const muster_omp_depend *depend)
{
    muster_omp_team *team = current_team();
    muster_omp_stand_in waited = {0};
    bool told = muster_ompt_on();
    const void *ra = told ? muster_ompt_take_caller() : NULL;
    if (told)
        tell_taskwait(MUSTER_OMPT_SCOPE_BEGIN, ra);
    muster_omp_stand_in_wait(team, running_task(), depend, &waited);
    muster_omp_stand_in_leave(&waited);
    if (told)
        tell_taskwait(MUSTER_OMPT_SCOPE_END, ra);
}
