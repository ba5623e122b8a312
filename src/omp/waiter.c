/* The runtime's one waiter builder (waiter.h).  Where waiters spin, the
 * team barrier's census guards them against a team-mate on their CPU, as
 * it guards the barrier's waits: a futex wake-up can put a member on its
 * waker's CPU, and there a spinning waiter holds the CPU its predecessor
 * needs for the whole spin budget (docs/tuning.md, the co-location guard
 * of work-share waits). */
#include "omp/waiter.h"

#include <stdio.h>

#include "omp/internal.h" /* muster_omp_env_statistics */
#include "wait/load.h"

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
