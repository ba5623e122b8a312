/* The team side of task scheduling (scheduler.h says what it is). */
#include "omp/task/scheduler.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/env.h" /* muster_omp_env_extras_get: the scheduler's MUSTER_OMP_* settings */
#include "omp/team.h"
#include "omp/warn.h" /* muster_omp_env_statistics */
#include "omp/waiter.h"
#include "barrier/runtime.h" /* muster_barrier_nudge */
#include "wait/load.h"

/* MUSTER_OMP_TASK_STATS=1 turns the counters on.  Off, they cost one
 * predictable branch: a shared counter bumped per task would be a contended
 * cache line on the hot path of every team member.
 * relaxed (all five): statistics; they order nothing. */
bool muster_omp_task_stats_enabled;
static _Atomic uint64_t deferred_count, at_once_count, stolen_count, sleep_count, wake_count;

static inline void count(_Atomic uint64_t *counter)
{
    if (__builtin_expect(muster_omp_task_stats_enabled, 0))
        /* relaxed: a statistic, as above. */
        atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

__attribute__((constructor)) static void read_task_stats_setting(void)
{
    muster_omp_task_stats_enabled = muster_omp_env_statistics("MUSTER_OMP_TASK_STATS");
}

/* The same per member id, to see where a team's time goes (who ran the
 * tasks, who stole, who looked and found nothing, how deep the deques got,
 * who sat idle).  Ids past the table fold into its last row.  Each row is
 * its own line: members write only their own (relaxed, as above). */
enum { STATS_MEMBERS = 64 };
typedef struct member_stats {
    _Alignas(MUSTER_CACHE_LINE) _Atomic uint64_t ran; /* deferred tasks it finished */
    _Atomic uint64_t stolen;                           /* tasks it took from another member */
    _Atomic uint64_t empty_rounds;                     /* steal rounds around the team that found nothing */
    _Atomic uint64_t max_queued;                       /* its deque's most tasks after a push */
    _Atomic uint64_t idle_ns;                          /* in muster_omp_tasks_idle: polling or asleep */
} member_stats;
static member_stats by_member[STATS_MEMBERS];

static inline member_stats *member_row(unsigned id)
{
    return &by_member[id < STATS_MEMBERS ? id : STATS_MEMBERS - 1];
}

/* relaxed: statistics, as above. */
#define COUNT_MEMBER(id, field, n)                                                                            \
    do {                                                                                                     \
        if (__builtin_expect(muster_omp_task_stats_enabled, 0) && (id) != MUSTER_OMP_NOT_MEMBER)             \
            atomic_fetch_add_explicit(&member_row(id)->field, (n), memory_order_relaxed);                    \
    } while (0)

static void note_queue_depth(muster_omp_team_tasks *tt, unsigned id)
{
    if (__builtin_expect(!muster_omp_task_stats_enabled, 1))
        return;
    uint64_t depth = (uint64_t)muster_deque_size(&tt->deques[id]);
    _Atomic uint64_t *max = &member_row(id)->max_queued;
    /* relaxed (load and CAS): a statistic; a lost race keeps the larger. */
    uint64_t seen = atomic_load_explicit(max, memory_order_relaxed);
    while (depth > seen &&
           !atomic_compare_exchange_weak_explicit(max, &seen, depth, memory_order_relaxed, memory_order_relaxed))
        ;
}

muster_omp_task_counts muster_omp_task_counters(void)
{
    /* relaxed (all): statistics counters, read for the report only. */
    return (muster_omp_task_counts){
        atomic_load_explicit(&deferred_count, memory_order_relaxed),
        atomic_load_explicit(&at_once_count, memory_order_relaxed),
        atomic_load_explicit(&stolen_count, memory_order_relaxed),
        atomic_load_explicit(&sleep_count, memory_order_relaxed),
        atomic_load_explicit(&wake_count, memory_order_relaxed),
    };
}

/* The counters on stderr at exit, one line. */
__attribute__((destructor)) static void report_task_stats(void)
{
    if (!muster_omp_task_stats_enabled)
        return;
    muster_omp_task_counts c = muster_omp_task_counters();
    fprintf(stderr,
            "libmuster-omp: tasks: deferred=%llu run_at_once=%llu stolen=%llu idle_sleeps=%llu wakeups=%llu\n",
            (unsigned long long)c.deferred, (unsigned long long)c.run_at_once, (unsigned long long)c.stolen,
            (unsigned long long)c.sleeps, (unsigned long long)c.wakes);
    for (unsigned id = 0; id < STATS_MEMBERS; id++) {
        member_stats *m = &by_member[id];
        /* relaxed: statistics, read at exit. */
        uint64_t ran = atomic_load_explicit(&m->ran, memory_order_relaxed),
                 stolen = atomic_load_explicit(&m->stolen, memory_order_relaxed),
                 empty = atomic_load_explicit(&m->empty_rounds, memory_order_relaxed),
                 queued = atomic_load_explicit(&m->max_queued, memory_order_relaxed),
                 idle = atomic_load_explicit(&m->idle_ns, memory_order_relaxed);
        if (ran == 0 && stolen == 0 && empty == 0 && queued == 0 && idle == 0)
            continue;
        fprintf(stderr,
                "libmuster-omp: tasks: member %u%s ran=%llu stolen=%llu empty_steal_rounds=%llu max_queued=%llu "
                "idle_ms=%.1f\n",
                id, id == STATS_MEMBERS - 1 ? "+" : "", (unsigned long long)ran, (unsigned long long)stolen,
                (unsigned long long)empty, (unsigned long long)queued, (double)idle / 1e6);
    }
}

void muster_omp_task_count_slow(bool deferred)
{
    count(deferred ? &deferred_count : &at_once_count);
}

muster_omp_team_tasks *muster_omp_team_tasks_create(unsigned size)
{
    muster_omp_team_tasks *tt = aligned_alloc(MUSTER_CACHE_LINE, sizeof *tt);
    muster_deque *deques = aligned_alloc(MUSTER_CACHE_LINE, size * sizeof *deques);
    muster_omp_member_counts *counts = aligned_alloc(MUSTER_CACHE_LINE, size * sizeof *counts);
    if (tt == NULL || deques == NULL || counts == NULL) {
        free(tt);
        free(deques);
        free(counts);
        return NULL;
    }
    memset(tt, 0, sizeof *tt);
    memset(counts, 0, size * sizeof *counts);
    for (unsigned id = 0; id < size; id++) {
        if (muster_deque_init(&deques[id], MUSTER_OMP_DEQUE_CAPACITY) != 0) {
            while (id-- > 0)
                muster_deque_destroy(&deques[id]);
            free(deques);
            free(counts);
            free(tt);
            return NULL;
        }
    }
    muster_waiter w = muster_omp_waiter_for(size, NULL);
    muster_omp_prio_init(&tt->prioritized);
    tt->size = size;
    /* relaxed: nobody else holds the new scheduler yet. */
    atomic_store_explicit(&tt->counts_private, size == 1, memory_order_relaxed);
    tt->deques = deques;
    tt->counts = counts;
    muster_task_wait_plan plan = muster_task_wait_plan_for(size, &w);
    tt->never_sleep = plan.never_sleep;
    tt->idle_polls = plan.idle_polls;
    tt->probe_polls = plan.probe_polls;
    tt->contended_polls = plan.contended_polls;
    tt->nap_ns = plan.nap_ns;
    tt->unbound_spare = plan.spare_members;
    atomic_init(&tt->spare_members, plan.spare_members);
    const muster_omp_env_extras *extras = muster_omp_env_extras_get();
    tt->queue_ahead = extras->queue_ahead;
    tt->delay_depth = extras->delay_depth;
    tt->help_first_depth = size == 1 && extras->help_first_depth > MUSTER_OMP_SOLO_HELP_FIRST_DEPTH
                               ? MUSTER_OMP_SOLO_HELP_FIRST_DEPTH
                               : extras->help_first_depth;
    tt->defer_always = extras->defer_ahead;
    return tt;
}

void muster_omp_team_tasks_destroy(muster_omp_team_tasks *tt)
{
    if (tt == NULL)
        return;
    for (unsigned id = 0; id < tt->size; id++)
        muster_deque_destroy(&tt->deques[id]);
    free(tt->deques);
    free(tt->counts);
    muster_omp_prio_destroy(&tt->prioritized);
    free(tt);
}

/* The wake-up handshake.  A waker has just queued a task (the deque's
 * push stores bottom seq_cst) or finished one (a seq_cst store of its
 * finished count, or RMW of a taskwait count), and then loads a sleeper
 * count.  A sleeper announces itself
 * with a seq_cst RMW on that count before it looks for work or re-reads
 * what it waits for with seq_cst loads.  All of these are in C11's single
 * total order, so either the waker sees the sleeper or the sleeper's look
 * sees what the waker did: no lost wake-up.  (Not a fence: ThreadSanitizer
 * does not model fences, and gcc warns.) */

/* Wakes at most `count` members asleep at the team's barriers (one
 * barrier when fork/join and team barriers are the same); how many. */
static int nudge_barriers(muster_omp_team_tasks *tt, int count)
{
    int woken = 0;
    for (int k = 0; k < 2 && woken < count; k++)
        if (tt->barriers[k] != NULL && (k == 0 || tt->barriers[k] != tt->barriers[0]))
            woken += muster_barrier_nudge_some(tt->barriers[k], count - woken);
    return woken;
}

/* Wakes the members asleep waiting for the team's last task (in
 * muster_omp_tasks_drain).  Not those asleep at a barrier: a barrier is
 * released by its last arrival, which comes only after no task is left
 * (the arrival's drain), so the last task tells them nothing
 * (docs/tuning.md: the last task wakes only the drain's sleepers). */
static void wake_last_task_sleepers(muster_omp_team_tasks *tt)
{
    atomic_fetch_add(&tt->signal, 1);
    count(&wake_count);
    muster_futex_wake(&tt->signal, INT_MAX);
}

/* New work (a task queued): wakes the sleepers only when some CPU has no
 * awake member to run it.  With more members than CPUs and at most
 * spare_members asleep, the awake ones fill the CPUs: they will take the
 * task when their own work ends, and waking the sleepers would only make
 * them fight for the CPUs (docs/tuning.md: wake for work).  An awake member may
 * be blocked in its own code instead; then a sleeper finds the task within
 * its nap (MUSTER_TASK_NAP_NS).  A count reaching zero wakes its waiter,
 * and the team's last task the scheduler's sleepers, whatever their number
 * (muster_omp_tasks_finished). */
static void wake_for_work(muster_omp_team_tasks *tt)
{
    /* seq_cst: the wake-up handshake, read once here. */
    uint32_t asleep = atomic_load(&tt->sleepers);
    /* relaxed: written before the fork that started this member. */
    if (asleep == 0 || asleep <= atomic_load_explicit(&tt->spare_members, memory_order_relaxed))
        return;
    /* One task needs one member: a sleeper at a barrier first (it may run
     * any task), else one in the scheduler's own idle wait. */
    count(&wake_count);
    if (nudge_barriers(tt, 1) > 0)
        return;
    atomic_fetch_add(&tt->signal, 1);
    muster_futex_wake(&tt->signal, 1);
}

void muster_omp_tasks_set_hungry(muster_omp_team_tasks *tt, bool *marked, bool hungry)
{
    if (*marked == hungry)
        return;
    /* relaxed: a hint read by creators (muster_omp_defer_hungry). */
    if (!hungry)
        atomic_fetch_sub_explicit(&tt->hungry, 1, memory_order_relaxed);
    else if (atomic_load_explicit(&tt->tasks_seen, memory_order_relaxed))
        atomic_fetch_add_explicit(&tt->hungry, 1, memory_order_relaxed);
    else
        return; /* a team without tasks: nothing to say */
    *marked = hungry;
}

/* Member counts are written by their member alone: a load and a store, no
 * read-modify-write.  created: seq_cst, so that a reader's seq_cst loads
 * of the counts (muster_omp_tasks_pending) never see a task's finish
 * without its creation, nor miss a creation ordered before them; it comes
 * before the task is visible to anyone (the push, or the dependence
 * table's lock). */
static void count_created(muster_omp_team_tasks *tt, muster_omp_member_counts *c, int64_t n)
{
    /* relaxed load: a flag set once.  seq_cst store: before the task is
     * visible, for the barrier waiters' and drains' seq_cst load (the one
     * load a team that never had a task pays). */
    if (!atomic_load_explicit(&tt->tasks_seen, memory_order_relaxed))
        atomic_store(&tt->tasks_seen, true);
    /* relaxed: our own count. */
    uint64_t v = atomic_load_explicit(&c->created, memory_order_relaxed);
    atomic_store(&c->created, v + (uint64_t)n);
}

int64_t muster_omp_tasks_pending(muster_omp_team_tasks *tt)
{
    /* seq_cst (all): the finished counts first, then the created ones.
     * Both only grow, so the finished read are at most those of a moment
     * m between the two passes and the created read at least those of m:
     * the result is at least the true count at m, and 0 only if it was 0
     * then (no task ran, so none could be created by one).  Also the
     * re-check of a sleeper's handshake (the finisher's store). */
    uint64_t finished = atomic_load(&tt->foreign_finished);
    for (unsigned id = 0; id < tt->size; id++)
        finished += atomic_load(&tt->counts[id].finished);
    uint64_t created = 0;
    for (unsigned id = 0; id < tt->size; id++)
        created += atomic_load(&tt->counts[id].created);
    return (int64_t)(created - finished);
}

/* A team of one's push.  Its one member alone touches its deque and its
 * counts: nobody steals, nobody sleeps waiting for work, and a fulfiller
 * outside the team queues successors in the priority queue and counts in
 * foreign_finished; one that reads the counts to wake the member first
 * reads the member's seq_cst announcement (last_task_sleepers), made after
 * these stores.  So no fence: three fewer on every task a lone thread
 * queues (docs/tuning.md). */
static bool push_solo(muster_omp_team_tasks *tt, void *task, const uintptr_t *tags)
{
    muster_omp_member_counts *c = &tt->counts[0];
    /* relaxed (all): the member's own, as above. */
    atomic_store_explicit(&tt->tasks_seen, true, memory_order_relaxed);
    uint64_t v = atomic_load_explicit(&c->created, memory_order_relaxed);
    if (!muster_deque_push_private(&tt->deques[0], task, tags))
        return false;
    atomic_store_explicit(&c->created, v + 1, memory_order_relaxed);
    note_queue_depth(tt, 0);
    return true;
}

bool muster_omp_tasks_push(muster_omp_team_tasks *tt, unsigned id, void *task, const uintptr_t *tags)
{
    if (tt->size == 1)
        return push_solo(tt, task, tags);
    muster_omp_member_counts *c = &tt->counts[id];
    count_created(tt, c, 1);
    if (!muster_deque_push_tagged(&tt->deques[id], task, tags)) {
        count_created(tt, c, -1); /* nobody saw the task */
        return false;
    }
    note_queue_depth(tt, id);
    wake_for_work(tt);
    return true;
}

void muster_omp_tasks_count_new(muster_omp_team_tasks *tt, unsigned id)
{
    count_created(tt, &tt->counts[id], 1);
}

bool muster_omp_tasks_push_again(muster_omp_team_tasks *tt, unsigned id, void *task, const uintptr_t *tags)
{
    if (!muster_deque_push_tagged(&tt->deques[id], task, tags))
        return false;
    wake_for_work(tt);
    return true;
}

void muster_omp_tasks_finished(muster_omp_team_tasks *tt, unsigned id, uint32_t wake_members)
{
    if (id == MUSTER_OMP_NOT_MEMBER) {
        /* seq_cst: as the store below. */
        atomic_fetch_add(&tt->foreign_finished, 1);
    } else if (tt->size == 1) {
        /* A team of one: relaxed (both), as push_solo's counts; the member
         * that finished the task is the one that would sleep. */
        uint64_t v = atomic_load_explicit(&tt->counts[0].finished, memory_order_relaxed);
        atomic_store_explicit(&tt->counts[0].finished, v + 1, memory_order_relaxed);
        COUNT_MEMBER(0, ran, 1);
    } else {
        muster_omp_member_counts *c = &tt->counts[id];
        /* relaxed: our own count.  The store: seq_cst, and ordered before
         * the load of last_task_sleepers below (the wake-up handshake; it
         * also releases the task's writes to whoever reads the sum). */
        uint64_t v = atomic_load_explicit(&c->finished, memory_order_relaxed);
        muster_store_before_load(&c->finished, v + 1);
        COUNT_MEMBER(id, ran, 1);
    }
    /* Sleepers wait for new work, for the team's last task, or for a count
     * reaching zero (taskwait, taskgroup end).  A count has one waiter, so
     * only it is woken (docs/tuning.md: an emptied count wakes only its
     * waiter).  The sum is read only while someone waits for the last task: of the
     * finishers that race to finish the last tasks, the last to store its
     * count reads every other's (seq_cst), so one of them sees 0. */
    if (atomic_load(&tt->last_task_sleepers) != 0 && muster_omp_tasks_pending(tt) == 0)
        wake_last_task_sleepers(tt);
    else if (wake_members != 0)
        muster_omp_tasks_wake_members(tt, wake_members);
}

void muster_omp_tasks_wake_members(muster_omp_team_tasks *tt, uint32_t members)
{
    /* seq_cst RMW: a member about to sleep read signal before announcing
     * itself to the count it waits for, which this waker's emptying of
     * that count follows; the futex then sees the word changed. */
    atomic_fetch_add(&tt->signal, 1);
    count(&wake_count);
    muster_futex_wake_tagged(&tt->signal, INT_MAX, members);
}

void *muster_omp_tasks_take_own(muster_omp_team_tasks *tt, unsigned id)
{
    return tt->size == 1 ? muster_deque_take_private(&tt->deques[0]) : muster_deque_take(&tt->deques[id]);
}

void *muster_omp_tasks_take_oldest(muster_omp_team_tasks *tt, unsigned id)
{
    void *task;
    muster_steal r;
    while ((r = muster_deque_steal(&tt->deques[id], &task)) == MUSTER_STEAL_LOST)
        ; /* lost a race for the last task: to the owner or a thief, which a team of one has not */
    return r == MUSTER_STEAL_OK ? task : NULL;
}

void muster_omp_tasks_put_back(muster_omp_team_tasks *tt, unsigned id, void *task, const uintptr_t *tags)
{
    /* Cannot fail: the task came out of this deque a moment ago, and only
     * the owner adds to it. */
    (void)muster_deque_push_tagged(&tt->deques[id], task, tags);
}

bool muster_omp_tasks_push_prioritized(muster_omp_team_tasks *tt, void *task, int priority, unsigned id)
{
    if (id != MUSTER_OMP_NOT_MEMBER)
        count_created(tt, &tt->counts[id], 1);
    if (!muster_omp_prio_push(&tt->prioritized, task, priority)) {
        if (id != MUSTER_OMP_NOT_MEMBER)
            count_created(tt, &tt->counts[id], -1); /* nobody saw the task */
        return false;
    }
    /* seq_cst: the wake-up handshake, like a deque push. */
    atomic_fetch_add(&tt->prio_count, 1);
    wake_for_work(tt);
    return true;
}

void *muster_omp_tasks_take_prioritized(muster_omp_team_tasks *tt, bool (*eligible)(void *task, const void *arg),
                                        const void *arg)
{
    /* relaxed: a hint; a task missed here is found at the next look, and
     * a member about to sleep re-checks with seq_cst (visible). */
    if (atomic_load_explicit(&tt->prio_count, memory_order_relaxed) == 0)
        return NULL;
    void *task = muster_omp_prio_take(&tt->prioritized, eligible, arg);
    if (task != NULL)
        atomic_fetch_sub_explicit(&tt->prio_count, 1, memory_order_relaxed); /* relaxed: a hint, as above */
    return task;
}

/* A task from victim's deque for thief `id` (a few tries past lost races),
 * or NULL. */
static void *steal_from(muster_omp_team_tasks *tt, unsigned id, unsigned victim, uintptr_t tag, bool *passed_over)
{
    for (int tries = 0; tries < 4; tries++) {
        void *task;
        muster_steal r = muster_deque_steal_tagged(&tt->deques[victim], &task, tag);
        if (r == MUSTER_STEAL_OK) {
            count(&stolen_count);
            COUNT_MEMBER(id, stolen, 1);
            return task;
        }
        if (r == MUSTER_STEAL_OTHER)
            *passed_over = true;
        if (r != MUSTER_STEAL_LOST)
            break;
    }
    return NULL;
}

void *muster_omp_tasks_steal(muster_omp_team_tasks *tt, unsigned id, muster_omp_thief *thief, uintptr_t tag,
                             bool *passed_over)
{
    unsigned n = tt->size, last = thief->last_victim;
    bool other = false;
    if (passed_over == NULL)
        passed_over = &other;
    *passed_over = false;
    if (n < 2)
        return NULL;
    if (last < n && last != id) {
        void *task = steal_from(tt, id, last, tag, passed_over);
        if (task != NULL)
            return task;
    }
    /* A random first victim, then round the team once. */
    thief->seed = thief->seed * 1103515245u + 12345u;
    unsigned first = (thief->seed >> 16) % n;
    for (unsigned k = 0; k < n; k++) {
        unsigned victim = (first + k) % n;
        if (victim == id || victim == last)
            continue;
        void *task = steal_from(tt, id, victim, tag, passed_over);
        if (task != NULL) {
            thief->last_victim = victim;
            return task;
        }
    }
    COUNT_MEMBER(id, empty_rounds, 1);
    return NULL;
}

bool muster_omp_tasks_visible(muster_omp_team_tasks *tt)
{
    if (atomic_load(&tt->prio_count) != 0) /* seq_cst: the sleeper's side of the handshake */
        return true;
    for (unsigned id = 0; id < tt->size; id++)
        if (muster_deque_size(&tt->deques[id]) > 0)
            return true;
    return false;
}

void muster_omp_tasks_idle(muster_omp_team_tasks *tt, muster_omp_idle *idle, bool (*still_waiting)(void *),
                           void *arg, uint32_t tag)
{
    uint64_t start = muster_omp_task_stats_enabled ? muster_now_ns() : 0;
    /* The load watch (wait/load.h): while other processes want the CPUs,
     * a short look, one probe (while yields are costly, only as their hold
     * runs out), then sleep; otherwise a probe now and then. */
    bool contended = tt->probe_polls != 0 && muster_load_contended();
    uint64_t limit = contended && tt->contended_polls < tt->idle_polls ? tt->contended_polls : tt->idle_polls;
    if (tt->never_sleep || idle->polls < limit) {
        idle->polls += 16;
        for (int k = 0; k < 16; k++)
            muster_cpu_relax();
        if (!contended && tt->probe_polls != 0 && idle->polls % tt->probe_polls < 16 && idle->polls < limit)
            muster_load_probe();
        if (start != 0)
            COUNT_MEMBER(muster_omp_self()->id, idle_ns, muster_now_ns() - start);
        return;
    }
    if (contended && (!muster_load_yields_costly() || muster_load_renewal_due()))
        muster_load_probe();
    idle->polls = 0;
    /* acquire: nothing to publish; pairs with the wakers' seq_cst increments of signal
     * (wake_for_work(), wake_last_task_sleepers(), muster_omp_tasks_wake_members()) only to read
     * the word the futex compares. */
    uint32_t seen = atomic_load_explicit(&tt->signal, memory_order_acquire);
    atomic_fetch_add(&tt->sleepers, 1); /* seq_cst: the wake-up handshake */
    if (tag == 0)
        atomic_fetch_add(&tt->last_task_sleepers, 1); /* seq_cst: as sleepers */
    if (still_waiting(arg) && !muster_omp_tasks_visible(tt)) {
        count(&sleep_count);
        /* Never an empty tag (bit 31 is no member's): the general wakes
         * (plain FUTEX_WAKE) match any tag, a member's wake only its own. */
        muster_futex_wait_tagged(&tt->signal, seen, muster_now_ns() + tt->nap_ns, tag | (1u << 31));
    }
    if (tag == 0)
        atomic_fetch_sub(&tt->last_task_sleepers, 1);
    atomic_fetch_sub(&tt->sleepers, 1);
    if (start != 0)
        COUNT_MEMBER(muster_omp_self()->id, idle_ns, muster_now_ns() - start);
}
