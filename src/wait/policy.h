/* How a thread waits: every decision about it, and every constant behind
 * those decisions with a one-line reason (the measurements that chose the
 * values: docs/tuning.md, by the constant's name).  The mechanisms take
 * their numbers from here and decide nothing themselves: wait.c's spin /
 * yield / share / sleep loop and its census, the barriers, and
 * libmuster-omp's teams, runtime mutex and task scheduler.  Nothing else
 * reads MUSTER_WAIT_POLICY, MUSTER_SPIN_NS or OMP_WAIT_POLICY. */
#ifndef MUSTER_WAIT_POLICY_H
#define MUSTER_WAIT_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "muster/barrier.h"
#include "wait/wait.h"

/* ---- the constants ---- */

/* Hybrid spin budget of a barrier waiter: long enough to ride out a late
 * arrival on an idle machine, since sleeping too early causes
 * context-switch storms (see docs/tuning.md, MUSTER_SPIN_NS_DEFAULT). */
#define MUSTER_SPIN_NS_DEFAULT 200000
/* ... and when participants outnumber CPUs: none, since the thread we wait
 * for usually needs our CPU to run at all. */
#define MUSTER_SPIN_NS_OVERSUBSCRIBED 0

/* The default budget adapts, per thread: a waiter that slept and was woken
 * within MUSTER_SPIN_ADAPT_SHORT_SLEEP_NS quadruples its budget for its
 * next waits (quadrupling, since each sleep it takes to learn costs a
 * wake-up), up to MUSTER_SPIN_ADAPT_MAX_DOUBLINGS doublings; one that
 * slept longer than MUSTER_SPIN_ADAPT_LONG_SLEEP_NS (the thread it waited
 * for was really late) halves it again.  Where a wake-up takes longer than
 * the budget, team-mates would otherwise sleep by turns and pay a wake-up
 * every episode; a fixed longer budget would burn a CPU that long at every
 * late arrival (see docs/tuning.md, MUSTER_SPIN_ADAPT_*). */
#define MUSTER_SPIN_ADAPT_SHORT_SLEEP_NS 2000000
#define MUSTER_SPIN_ADAPT_LONG_SLEEP_NS 8000000
#define MUSTER_SPIN_ADAPT_MAX_DOUBLINGS 4

/* When threads outnumber CPUs, a few sched_yield calls before sleeping hand
 * the CPU to the thread we wait for at once, where a futex sleep lets the
 * CPU go idle and the release must wake it (an IPI).  Bounded, and only
 * when oversubscribed (see docs/tuning.md, MUSTER_YIELDS_OVERSUBSCRIBED). */
#define MUSTER_YIELDS_OVERSUBSCRIBED 4

/* ... and when only a cgroup CPU quota is short: the participants
 * outnumber the quota's CPUs but not the affinity mask's, so they run on
 * CPUs of their own between throttlings and the thread we wait for does
 * not need ours.  A short spin, about what a futex sleep and its wake-up
 * cost, so spinning never burns much more of the quota than sleeping would
 * (the classic 2-competitive choice), and no yields (nobody on our CPU to
 * yield to) (see docs/tuning.md, MUSTER_SPIN_NS_QUOTA). */
#define MUSTER_SPIN_NS_QUOTA 10000

/* How long an oversubscribed waiter with a census shares its CPU (yielding
 * to CPU-mates that have not arrived, polling when all have) before it
 * sleeps: long enough to cover a few rounds of context switches on the
 * other CPUs, short enough that a late arrival does not burn a CPU for
 * long. */
#define MUSTER_SHARE_NS_OVERSUBSCRIBED 50000

/* The load watch (wait/load.h): a waiter spinning the default budget
 * probes with a yield every MUSTER_LOAD_PROBE_NS, a probe that handed the
 * CPU to another thread for at least MUSTER_LOAD_GAP_NS is evidence, and
 * two pieces within MUSTER_LOAD_HOLD_NS make the process contended until
 * MUSTER_LOAD_HOLD_NS after the last.  A probe costs about a microsecond
 * where nobody else wants the CPU (1% of the spin at this interval); the
 * gap is far above an idle yield and far below another thread's time
 * slice; the hold is long against the evidence a contended waiter renews
 * at each wait and short against a program's phases (see docs/tuning.md,
 * MUSTER_LOAD_*). */
#define MUSTER_LOAD_PROBE_NS 100000
#define MUSTER_LOAD_GAP_NS 20000
#define MUSTER_LOAD_HOLD_NS 20000000u
/* The spin of a default-budget waiter while the process is contended:
 * about what a futex sleep and its wake-up cost, as under a short quota,
 * since the CPU is wanted elsewhere (see docs/tuning.md,
 * MUSTER_SPIN_NS_CONTENDED). */
#define MUSTER_SPIN_NS_CONTENDED 10000
/* A yield away this long is evidence too (wait/load.h, muster_load_yield):
 * far above a team-mate's turn between two barriers of short regions, far
 * below another process's slice (docs/tuning.md, MUSTER_LOAD_LONG_YIELD_NS). */
#define MUSTER_LOAD_LONG_YIELD_NS 500000
/* ... unless, since the long yield before it, the process itself used at
 * least this share (percent) of the CPUs it may use: a team crowding its
 * own CPUs (nested teams, 64 threads on 2 CPUs) yields long to its own
 * members, which is progress, not a busy neighbour (docs/tuning.md,
 * MUSTER_LOAD_LONG_YIELD_NS). */
#define MUSTER_LOAD_OWN_SHARE_PERCENT 75
/* ... judged over windows this long at least: the kernel adds a running
 * thread's CPU time to the process's at its ticks (4 ms at HZ=250), so a
 * short window misses what the other CPUs did (2 ms windows: a team
 * alone read as 50% now and then; docs/tuning.md). */
#define MUSTER_LOAD_SHARE_WINDOW_NS 16000000u
/* ... and not when, over the last window this long at least, other
 * processes used under this share (percent of one CPU) of the process's
 * CPUs: then the CPUs it lacked went to the host's steal or stood idle, and
 * a long yield went to a team-mate.  /proc/stat counts at 10 ms ticks, so
 * the window is long against them; a busy neighbour uses a whole CPU
 * (docs/tuning.md, MUSTER_LOAD_NEIGHBOUR_PERCENT). */
#define MUSTER_LOAD_MACHINE_WINDOW_NS 200000000u
#define MUSTER_LOAD_NEIGHBOUR_PERCENT 25

/* How long a waiter with a census polls before it looks at the census
 * again: a CPU-mate cannot arrive while we hold the CPU, unless it migrated
 * here.  Short against MUSTER_SPIN_NS_DEFAULT, long against what a look
 * costs, rseq's CPU number and one or two cached loads (see docs/tuning.md,
 * MUSTER_CENSUS_CHUNK_NS). */
#define MUSTER_CENSUS_CHUNK_NS 2000

/* A woken waiter that runs this long after the wake call waited for a CPU
 * held by someone else (a statistic, muster_wait_counters; docs/waiting.md). */
#define MUSTER_SLOW_WAKE_NS 100000

/* How long a contended locker of libmuster-omp's runtime mutex spins before
 * sleeping.  OpenMP critical sections are short: a futex sleep and wake
 * costs several microseconds, so spinning for about as long as that round
 * trip wins whenever the holder runs on another CPU. */
#define MUSTER_MUTEX_SPIN_NS 20000
/* ... and when the locker's team outnumbers the CPUs.  A waiter that sleeps
 * then starts a cascade: its CPU goes to a team-mate that finds the word
 * CONTENDED and sleeps at once, so every later hand-off is a futex wake and
 * a context switch; spinning longer under heavier contention avoids it
 * (see docs/tuning.md, MUSTER_MUTEX_SPIN_OVERSUBSCRIBED_NS). */
#define MUSTER_MUTEX_SPIN_OVERSUBSCRIBED_NS 200000
/* How long a contender polls the word of a held mutex that nobody queues
 * for, before it queues (mutex.c, spin_while_nobody_queues): a queue costs
 * each hand-off two more atomic operations, which a short wait does not
 * repay; a longer one would have every contender poll the word, the
 * many-core traffic the queue exists to avoid (docs/tuning.md,
 * MUSTER_MUTEX_BARGE_NS). */
#define MUSTER_MUTEX_BARGE_NS 1000

/* Looks for a task an idle member of an oversubscribed team makes before it
 * sleeps (its barrier budget is 0 there): a few, since a task queued by a
 * CPU-mate appears only after a context switch anyway. */
#define MUSTER_TASK_IDLE_POLLS_OVERSUBSCRIBED 64
/* The longest a member with no task to run sleeps before it looks again,
 * whoever is supposed to wake it: a safety net under the scheduler's
 * choice to leave spare members asleep (src/omp/task/scheduler.c, wake_for_work). */
#define MUSTER_TASK_NAP_NS 10000000u
/* Members per CPU beyond which the nap grows with the team: a team of
 * 4 096 on 2 CPUs woke 400 000 times a second from its naps alone and ran
 * a region in seconds (docs/tuning.md, "MUSTER_TASK_NAP_NS"). */
#define MUSTER_TASK_NAP_MEMBERS_PER_CPU 16u

/* ---- the process's settings ---- */

/* MUSTER_WAIT_POLICY, else OMP_WAIT_POLICY (active or passive only),
 * MUSTER_SPIN_NS and MUSTER_LOAD_WATCH: read once per process; garbage gets one warning line
 * naming the variable, the value and what is used instead. */
typedef struct muster_wait_settings {
    muster_wait_policy policy; /* DEFAULT: neither variable set it */
    bool policy_from_omp;      /* OMP_WAIT_POLICY set it: a hint, see muster_omp_team_policy */
    bool has_spin_ns;
    int64_t spin_ns;
    bool load_watch; /* MUSTER_LOAD_WATCH (default 1): wait/load.h */
} muster_wait_settings;

const muster_wait_settings *muster_wait_settings_get(void);
/* Reads them again: for the fuzzing harness only (fuzz/fuzz_env.c), with
 * no other thread reading them. */
void muster_wait_settings_reread(void);

/* The program's own request, made while it runs (libomp's kmp_set_blocktime
 * and library modes, src/omp/kmp/api.c): how long a hybrid waiter spins
 * before it sleeps, in place of the default budget and the load watch.
 * Not for waiters whose team outnumbers the CPUs (their default yields):
 * there a spin keeps the awaited thread off its CPU, whatever was asked.
 * spin_ns < 0 withdraws it.  Waits that have begun keep their budget. */
void muster_wait_request_spin_ns(int64_t spin_ns);
/* The request in force: its nanoseconds, or -1 for none. */
int64_t muster_wait_requested_spin_ns(void);
/* ... as polls: UINT64_MAX for none.  One relaxed load, read at every
 * slow wait. */
uint64_t muster_wait_requested_spin_iterations(void);

/* ---- the decisions ---- */

/* The default budget of a barrier waiter, from the team size, the CPUs
 * the process may use at once (`available`: the affinity mask capped by a
 * cgroup quota) and those of its affinity mask (`mask_cpus`; 0: unknown,
 * taken as `available`): the default spin (adaptive when hybrid) when the
 * team fits; none and a few yields when it outnumbers the mask; a short
 * spin when only the quota is short. */
typedef struct muster_default_budget {
    int64_t spin_ns;
    unsigned yields;
    bool adaptive;
} muster_default_budget;
muster_default_budget muster_default_budget_for(unsigned participants, unsigned available, unsigned mask_cpus,
                                                muster_wait_policy policy);

/* How a participant of a barrier of `participants` waits: policy DEFAULT
 * and spin_ns < 0 mean the settings', else hybrid with the default budget
 * for this process (muster_default_budget_for).  The budget used goes to
 * *resolved_spin_ns when not NULL. */
muster_waiter muster_team_waiter(unsigned participants, muster_wait_policy policy, int64_t spin_ns,
                                 int64_t *resolved_spin_ns);

/* Whether a barrier's waiters get a census (wait/census.h), and for what: the
 * co-location guard for waiters that spin, CPU sharing (share_ns > 0) for
 * oversubscribed ones.  waits_only_for_release: the algorithm's waiters
 * wait for one release, not for each other (sharing needs that). */
typedef struct muster_census_plan {
    bool attach;
    uint64_t share_ns;
} muster_census_plan;
muster_census_plan muster_census_plan_for(unsigned participants, const muster_waiter *waiter,
                                          bool waits_only_for_release);

/* The policy of an OpenMP team of `size`, explicit (never DEFAULT):
 * OMP_WAIT_POLICY=active asks threads to spin, but spinning threads that
 * outnumber the CPUs only keep the thread they wait for off its CPU, so
 * such a team waits hybrid with the oversubscribed budget (like libgomp's
 * throttled spin count).  MUSTER_WAIT_POLICY=active is taken at its word. */
muster_wait_policy muster_omp_team_policy(unsigned size);

/* How libmuster-omp's runtime mutex waits, for threads whose teams wait
 * with `policy`: spin polls before sleeping (0: sleep at once: one CPU in
 * the affinity mask, or passive), the longer budget for oversubscribed teams, and how many
 * sleepers on any mutex make the longer budget stop paying (one fewer than
 * the CPUs: that many sleepers means threads outnumber CPUs, and the holder
 * needs the CPU a spinner would burn); the plain budget still applies then,
 * since a contender that sleeps at once costs the next release a futex
 * wake (lock.c). */
typedef struct muster_mutex_plan {
    uint64_t spin_polls, oversubscribed_polls, barge_polls;
    unsigned sleeper_limit;
    bool watch_load; /* contended (wait/load.h): wait on the word, plain budget */
} muster_mutex_plan;
muster_mutex_plan muster_mutex_plan_for(muster_wait_policy policy);
/* The same for a process that may use `available` CPUs at once (its mask
 * capped by a quota) of the `mask_cpus` of its affinity mask (0: unknown):
 * where only the quota is short, both budgets are MUSTER_SPIN_NS_QUOTA. */
muster_mutex_plan muster_mutex_plan_from(muster_wait_policy policy, unsigned available, unsigned mask_cpus);

/* How an idle member of a task team of `size` whose barriers wait as
 * `waiter` looks for tasks: never sleeping (active), or looking idle_polls
 * times (passive: none) and then napping at most nap_ns; spare_members are
 * those beyond the CPUs, which the scheduler may leave asleep. */
typedef struct muster_task_wait_plan {
    bool never_sleep;
    uint64_t idle_polls, nap_ns;
    unsigned spare_members;
    /* The load watch (wait/load.h), for the default budget: a probe every
     * probe_polls looks, and contended_polls looks once contended (0, 0:
     * no watch). */
    uint64_t probe_polls, contended_polls;
} muster_task_wait_plan;
muster_task_wait_plan muster_task_wait_plan_for(unsigned size, const muster_waiter *waiter);

#endif
