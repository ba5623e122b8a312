/* How the OpenMP runtime's threads wait (waiter.c), decided from the wait
 * layer's policy (wait/policy.h): an OpenMP team's policy, the one place a
 * waiter is built for parked workers, work shares, the cancellable barrier
 * and the task scheduler, and the plans of the runtime mutex and of the
 * task scheduler's idle members, with the constants behind them (the
 * measurements: docs/tuning.md, by the constant's name). */
#ifndef MUSTER_OMP_WAITER_H
#define MUSTER_OMP_WAITER_H

#include <stdbool.h>
#include <stdint.h>

#include "wait/policy.h"
#include "wait/wait.h"

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

/* How a member of a team of `size` waits: as the team's barriers do, with
 * the team's explicit policy (muster_omp_team_policy: OMP_WAIT_POLICY=active
 * throttled when the team outnumbers the CPUs).  `census`: the team
 * barrier's census, or NULL; the waiter takes it for the co-location guard
 * when its waits spin (never for CPU sharing, which is for waits on a
 * barrier's arrivals).  census_id is 0: each member sets its own. */
muster_waiter muster_omp_waiter_for(unsigned size, muster_census *census);

#endif
