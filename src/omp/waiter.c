/* The runtime's one waiter builder (waiter.h).  Where waiters spin, the
 * team barrier's census guards them against a team-mate on their CPU, as
 * it guards the barrier's waits: a futex wake-up can put a member on its
 * waker's CPU, and there a spinning waiter holds the CPU its predecessor
 * needs for the whole spin budget (docs/tuning.md, the co-location guard
 * of work-share waits). */
#include "omp/waiter.h"

#include <stdio.h>

#include "omp/warn.h" /* muster_omp_env_statistics */
#include "platform/cpus.h"
#include "wait/load.h"

muster_wait_policy muster_omp_team_policy(unsigned size)
{
    const muster_wait_settings *env = muster_wait_settings_get();
    if (env->policy == MUSTER_WAIT_DEFAULT)
        return MUSTER_WAIT_HYBRID;
    if (env->policy == MUSTER_WAIT_ACTIVE && env->policy_from_omp && size > muster_cpus_available())
        return MUSTER_WAIT_HYBRID;
    return env->policy;
}

muster_mutex_plan muster_mutex_plan_from(muster_wait_policy policy, unsigned available, unsigned mask_cpus)
{
    mask_cpus = muster_mask_or_available(mask_cpus, available);
    /* One CPU in the mask: the holder cannot run while we spin.  Passive:
     * libgomp's mutex does not spin then either.  A quota short of the
     * mask: the holder runs on a CPU of its own between throttlings, so a
     * spin pays, a short one (MUSTER_SPIN_NS_QUOTA says why). */
    bool spins = mask_cpus > 1 && policy != MUSTER_WAIT_PASSIVE;
    bool quota_short = available < mask_cpus;
    int64_t plain_ns = quota_short ? MUSTER_SPIN_NS_QUOTA : MUSTER_MUTEX_SPIN_NS;
    int64_t longer_ns = quota_short ? MUSTER_SPIN_NS_QUOTA : MUSTER_MUTEX_SPIN_OVERSUBSCRIBED_NS;
    return (muster_mutex_plan){
        .spin_polls = spins ? muster_spin_iterations(plain_ns) : 0,
        .oversubscribed_polls = spins ? muster_spin_iterations(longer_ns) : 0,
        .barge_polls = spins ? muster_spin_iterations(MUSTER_MUTEX_BARGE_NS) : 0,
        .sleeper_limit = available > 0 ? available - 1 : 0,
        /* active: spin as asked */
        .watch_load = spins && policy != MUSTER_WAIT_ACTIVE && muster_wait_settings_get()->load_watch,
    };
}

muster_mutex_plan muster_mutex_plan_for(muster_wait_policy policy)
{
    return muster_mutex_plan_from(policy, muster_cpus_available(), muster_affinity_cpus(NULL, 0));
}

/* MUSTER_TASK_NAP_NS, times how far the team outnumbers
 * MUSTER_TASK_NAP_MEMBERS_PER_CPU members a CPU: the naps' wake-ups then
 * stay near that many per CPU per nap, whatever the team. */
static uint64_t nap_for(unsigned size, unsigned cpus)
{
    uint64_t per_cpus = (uint64_t)MUSTER_TASK_NAP_MEMBERS_PER_CPU * (cpus > 0 ? cpus : 1);
    return size > per_cpus ? (uint64_t)MUSTER_TASK_NAP_NS * (size / per_cpus) : MUSTER_TASK_NAP_NS;
}

muster_task_wait_plan muster_task_wait_plan_for(unsigned size, const muster_waiter *waiter)
{
    unsigned cpus = muster_cpus_available();
    bool watch = waiter->watch_load && waiter->policy == MUSTER_WAIT_HYBRID; /* as wait.c's watches_load */
    uint64_t polls = waiter->policy == MUSTER_WAIT_PASSIVE ? 0
                     : waiter->spin_iterations > 0         ? waiter->spin_iterations
                                                           : MUSTER_TASK_IDLE_POLLS_OVERSUBSCRIBED;
    return (muster_task_wait_plan){
        .never_sleep = waiter->policy == MUSTER_WAIT_ACTIVE,
        .idle_polls = polls,
        .nap_ns = nap_for(size, cpus),
        .spare_members = cpus > 0 && size > cpus ? size - cpus : 0,
        .probe_polls = watch ? muster_spin_iterations(MUSTER_LOAD_PROBE_NS) : 0,
        .contended_polls = watch ? muster_spin_iterations(MUSTER_SPIN_NS_CONTENDED) : 0,
    };
}

muster_waiter muster_omp_waiter_for(unsigned size, muster_census *census)
{
    muster_waiter waiter = muster_team_waiter(size, muster_omp_team_policy(size), -1, NULL);
    if (census != NULL) {
        muster_census_plan plan = muster_census_plan_for(size, &waiter, false);
        waiter.census = plan.attach && plan.share_ns == 0 ? census : NULL;
    }
    return waiter;
}

/* MUSTER_OMP_WAIT_STATS=1: at exit, one line on stderr saying how the
 * process's threads waited (futex sleeps and wakes, yields) and what the
 * load watch saw (wait/load.h): whether waits spun or slept, and why. */
static bool wait_stats_enabled;

__attribute__((constructor)) static void read_wait_stats_setting(void)
{
    wait_stats_enabled = muster_omp_env_statistics("MUSTER_OMP_WAIT_STATS");
}

__attribute__((destructor)) static void report_wait_stats(void)
{
    if (!wait_stats_enabled)
        return;
    muster_wait_counts w = muster_wait_counters();
    muster_load_counts l = muster_load_counters();
    fprintf(stderr,
            "libmuster-omp: waits: sleeps=%llu wakes=%llu yields=%llu woken=%llu slow_wakes=%llu "
            "mean_wake_us=%.1f load_probes=%llu load_evidence=%llu contended_spells=%llu costly_yields=%llu "
            "costly_spells=%llu busy_windows=%llu quiet_windows=%llu\n",
            (unsigned long long)w.sleeps, (unsigned long long)w.wakes, (unsigned long long)w.yields,
            (unsigned long long)w.woken, (unsigned long long)w.slow_wakes,
            w.woken > 0 ? (double)w.wake_delay_ns / (double)w.woken / 1000.0 : 0.0,
            (unsigned long long)l.probes, (unsigned long long)l.evidence, (unsigned long long)l.contended_spells,
            (unsigned long long)l.costly_yields, (unsigned long long)l.costly_spells,
            (unsigned long long)l.busy_windows, (unsigned long long)l.quiet_windows);
}
