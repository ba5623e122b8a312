/* The team side of task scheduling: one work-stealing deque per member, the
 * count of the team's unfinished deferred tasks, and how a member with
 * nothing to run waits for work without a system call per task.
 *
 * The rest of the wing owns the tasks themselves (records, frames,
 * taskgroups); this file moves opaque task pointers between members.  Who
 * may run what (the tied task scheduling constraint) is wait.c's business,
 * and whether a task is queued at all defer.h's. */
#ifndef MUSTER_OMP_SCHEDULER_H
#define MUSTER_OMP_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "omp/task/deque.h"
#include "omp/task/priority.h"
#include "omp/task/settings.h"
#include "wait/wait.h"


/* One member's counts of the team's deferred tasks, written by that member
 * alone (a store, no read-modify-write) on a line of its own: a count
 * every member bumped for every task was one cache line taking two
 * read-modify-writes per task from every core (docs/tuning.md). */
typedef struct muster_omp_member_counts {
    _Alignas(MUSTER_CACHE_LINE) _Atomic uint64_t created; /* deferred tasks counted by this member */
    _Atomic uint64_t finished;                             /* deferred tasks this member completed */
    /* Tasks this member may still queue before it re-reads the team's
     * total for the throttle (defer.c); below 0: throttled, runs that many
     * more at once first.  The member's own. */
    int64_t credit;
} muster_omp_member_counts;

typedef struct muster_omp_team_tasks {
    /* Members looking for work (at a barrier, in taskwait, at the end):
     * read by every task creation (defer.h), written only when a member
     * starts or stops looking.  Alone on its line with what creators read beside it:
     * the other shared words change at other times. */
    _Alignas(MUSTER_CACHE_LINE) _Atomic uint32_t hungry;
    /* Set when the team's first deferred task is counted (count_created);
     * until then waiting members do not count themselves hungry, so
     * barriers of task-free teams pay no write for it. */
    _Atomic bool tasks_seen;
    /* Members asleep waiting for work, at a barrier or in the scheduler's
     * own waits: creating a task wakes one only when sleepers > 0.  Of
     * them last_task_sleepers sleep on `signal` at the end of a region or
     * before a barrier (muster_omp_tasks_drain), the only ones that wait
     * for the team's last task: a finishing task adds up the team's counts
     * only when one sleeps so. */
    _Alignas(MUSTER_CACHE_LINE) _Atomic uint32_t sleepers;
    _Atomic uint32_t last_task_sleepers;
    _Atomic uint32_t signal;
    /* Tasks in `prioritized`: every look for work reads it, and takes the
     * queue's lock only when it is not 0. */
    _Atomic uint32_t prio_count;
    /* Threads inside omp_fulfill_event completing one of the team's tasks:
     * such a thread may still touch this struct after the count it let
     * reach zero, so a team of one's scheduler is freed only once this is
     * 0 (muster_omp_tasks_end_solo). */
    _Atomic uint32_t fulfillers;
    /* Deferred tasks completed by threads outside the team (omp_fulfill_event). */
    _Atomic uint64_t foreign_finished;
    _Alignas(MUSTER_CACHE_LINE) unsigned size;
    uint64_t idle_polls;       /* looks for work before sleeping (muster_task_wait_plan) */
    uint64_t probe_polls;      /* the load watch: looks between probes (0: none) */
    uint64_t contended_polls;  /* ... and looks before sleeping once contended */
    uint64_t nap_ns;           /* the longest an idle member sleeps unwoken (the plan's) */
    /* The deferral settings (defer.h), copied once per team. */
    int64_t queue_ahead;       /* MUSTER_OMP_QUEUE_AHEAD */
    unsigned delay_depth;      /* MUSTER_OMP_DELAY_DEPTH */
    unsigned help_first_depth; /* MUSTER_OMP_HELP_FIRST_DEPTH (a team of one: at most
                                * MUSTER_OMP_SOLO_HELP_FIRST_DEPTH) */
    bool defer_always;         /* MUSTER_OMP_DEFER=ahead: queue ahead even when nobody is hungry */
    /* Members beyond the CPUs the team can run on: hungry ones that cannot
     * help.  Written only by the primary before a fork (muster_omp_tasks_set_cpus). */
    _Atomic uint32_t spare_members;
    uint32_t unbound_spare;    /* members beyond the process's CPUs (muster_task_wait_plan) */
    bool never_sleep;          /* an active team */
    /* A team of one that has made no detachable task: only its member
     * touches its tasks' nodes, so their counts move without
     * read-modify-writes (core.h: node_counts_private).  Cleared, for
     * good, by the member before its first detachable task is published. */
    _Atomic bool counts_private;
    muster_deque *deques;      /* [size], each aligned to a cache line */
    muster_omp_member_counts *counts; /* [size]: the deferred tasks queued or running are
                                       * the sum of created - finished (muster_omp_tasks_pending) */
    muster_omp_prio_queue prioritized; /* tasks with a priority above 0 */
    /* The team's barriers, whose waiters run tasks too (a member waiting at
     * a barrier may sleep there): new work nudges them.  Set by the pool. */
    struct muster_barrier *barriers[2];
} muster_omp_team_tasks;

/* A member's state as a thief: its random numbers, and the member it last
 * stole from, which it tries first next time (a victim with work left
 * often has more). */
typedef struct muster_omp_thief {
    unsigned seed;
    unsigned last_victim; /* MUSTER_OMP_NO_VICTIM: none yet */
} muster_omp_thief;
#define MUSTER_OMP_NO_VICTIM 0xffffffffu

static inline muster_omp_thief muster_omp_thief_for(unsigned id)
{
    return (muster_omp_thief){.seed = id * 2654435761u + 1u, .last_victim = MUSTER_OMP_NO_VICTIM};
}

/* What a member waiting at one of its team's barriers does meanwhile: run
 * one of the team's tasks (wait.c). */
typedef struct muster_omp_task_work {
    muster_wait_work work;
    muster_omp_team_tasks *tt;
    unsigned id;
    muster_omp_thief thief;
    bool hungry; /* counted in tt->hungry; muster_omp_tasks_work_done clears it */
} muster_omp_task_work;

/* NULL when out of memory. */
muster_omp_team_tasks *muster_omp_team_tasks_create(unsigned size);
void muster_omp_team_tasks_destroy(muster_omp_team_tasks *tt);

/* The team can run `cpus` members at once: the CPUs of its places when it
 * is bound (muster_omp_bound_cpus), 0 when unbound (then the process's
 * CPUs count).  Members beyond that are spare: hungry ones that cannot help,
 * so their hunger queues no task and wakes no sleeper.  The primary calls
 * it before a fork. */
static inline void muster_omp_tasks_set_cpus(muster_omp_team_tasks *tt, unsigned cpus)
{
    uint32_t spare = tt->unbound_spare;
    if (cpus > 0 && cpus < tt->size && tt->size - cpus > spare)
        spare = tt->size - cpus;
    /* relaxed: the fork that follows publishes it to the members.  Inline,
     * and the compare keeps the line clean: an unbound fork pays two loads. */
    if (atomic_load_explicit(&tt->spare_members, memory_order_relaxed) != spare)
        atomic_store_explicit(&tt->spare_members, spare, memory_order_relaxed);
}
/* A member starts (true) or stops (false) looking for work; *marked keeps
 * its state, so repeated calls write nothing. */
void muster_omp_tasks_set_hungry(muster_omp_team_tasks *tt, bool *marked, bool hungry);
/* Counts a new task and queues it in member id's deque, with its
 * MUSTER_DEQUE_TAGS tags (its nearest ancestors, for thieves restricted to
 * some task's descendants; NULL: none).  False when the deque is full: the
 * caller runs the task at once.  (The throttle is the caller's to ask:
 * muster_omp_defer_throttled.) */
bool muster_omp_tasks_push(muster_omp_team_tasks *tt, unsigned id, void *task, const uintptr_t *tags);
/* Member id counts a task that will be queued later
 * (muster_omp_tasks_push_again): one waiting for its dependences.  Not
 * throttled. */
void muster_omp_tasks_count_new(muster_omp_team_tasks *tt, unsigned id);
/* A deferred task finished in member `id` (MUSTER_OMP_NOT_MEMBER: in a
 * thread outside the team): counts it, and wakes the sleepers waiting for
 * the team's last task when it was that; else only the members in
 * wake_members (the tags of muster_omp_member_tag: those asleep waiting
 * for a count the task emptied, its parent's children or its taskgroup's
 * tasks). */
#define MUSTER_OMP_NOT_MEMBER 0xffffffffu
void muster_omp_tasks_finished(muster_omp_team_tasks *tt, unsigned id, uint32_t wake_members);
/* The team's deferred tasks queued, waiting for dependences or running: a
 * sum over the members, so 2 loads per member.  0 means there was a
 * moment, during the call, when none was left. */
int64_t muster_omp_tasks_pending(muster_omp_team_tasks *tt);
/* Wakes the members in `members` (tags), if asleep in muster_omp_tasks_idle. */
void muster_omp_tasks_wake_members(muster_omp_team_tasks *tt, uint32_t members);
/* The futex tag of member id in muster_omp_tasks_idle: one of 31 bits
 * (members 31 apart share one, and a wake for one may wake the other: it
 * looks again and sleeps). */
static inline uint32_t muster_omp_member_tag(unsigned id)
{
    return 1u << (id % 31u);
}
/* Member id's newest queued task, or NULL. */
void *muster_omp_tasks_take_own(muster_omp_team_tasks *tt, unsigned id);
/* Member id's oldest queued task, or NULL (a team of one's drain: solo.c). */
void *muster_omp_tasks_take_oldest(muster_omp_team_tasks *tt, unsigned id);
/* Queues a task that is already counted in pending (one a member took or
 * stole and may not run) in member id's deque; false when that is full. */
bool muster_omp_tasks_push_again(muster_omp_team_tasks *tt, unsigned id, void *task, const uintptr_t *tags);
/* Puts back a task member id took from its own deque and cannot run. */
void muster_omp_tasks_put_back(muster_omp_team_tasks *tt, unsigned id, void *task, const uintptr_t *tags);
/* Queues a task with a priority above 0 in the team's priority queue
 * (priority.h), counted by member id unless it is MUSTER_OMP_NOT_MEMBER (a
 * task with dependences, counted when it was made).  False when out of
 * memory: the caller runs it at once. */
bool muster_omp_tasks_push_prioritized(muster_omp_team_tasks *tt, void *task, int priority, unsigned id);
/* The most urgent queued prioritized task for which eligible(task, arg)
 * holds (any when eligible is NULL), or NULL: one relaxed load when there
 * are none. */
void *muster_omp_tasks_take_prioritized(muster_omp_team_tasks *tt, bool (*eligible)(void *task, const void *arg),
                                        const void *arg);
/* A task stolen from another member (oldest first), or NULL when none was
 * found in one round over the team: the thief's last victim first, then
 * the others from a random one on, each once.  With a tag (not 0), only a
 * task tagged so (muster_deque_steal_tagged: a hint): a victim whose
 * oldest task is not is passed over, and *passed_over says whether one
 * was. */
void *muster_omp_tasks_steal(muster_omp_team_tasks *tt, unsigned id, muster_omp_thief *thief, uintptr_t tag,
                             bool *passed_over);

/* How a member waits while it has nothing to run: `idle_polls` looks, then
 * sleeps until a task is queued and, with tag 0, the team's last task
 * finishes, or with a tag (muster_omp_member_tag), a wake for that member
 * alone (or until its nap ends: a safety net, the handshake itself loses
 * no wake-up).  still_waiting(arg) is re-checked after announcing the
 * sleep. */
typedef struct muster_omp_idle {
    uint64_t polls;
} muster_omp_idle;
void muster_omp_tasks_idle(muster_omp_team_tasks *tt, muster_omp_idle *idle, bool (*still_waiting)(void *),
                           void *arg, uint32_t tag);
/* True when some member's deque or the priority queue holds a task (a
 * snapshot). */
bool muster_omp_tasks_visible(muster_omp_team_tasks *tt);

/* Counters for tests and benchmarks: futex sleeps and wakes made by idle
 * members and by task creation/completion. */
typedef struct muster_omp_task_counts {
    uint64_t deferred, run_at_once, stolen, sleeps, wakes;
} muster_omp_task_counts;
muster_omp_task_counts muster_omp_task_counters(void);
/* Counts a task deferred or run at once, when MUSTER_OMP_TASK_STATS=1. */
extern bool muster_omp_task_stats_enabled;
void muster_omp_task_count_slow(bool deferred);
static inline void muster_omp_task_count_deferred(bool deferred)
{
    if (__builtin_expect(muster_omp_task_stats_enabled, 0))
        muster_omp_task_count_slow(deferred);
}

#endif
