/* How a thread waits: every decision about it, read top to bottom: the
 * process's settings, a barrier waiter's default budget, the waiter built
 * from them, and whether its barrier gets a census.  The constants behind
 * the decisions are in wait/tuning.h.  The mechanisms take their numbers
 * from here and decide nothing themselves: wait.c's spin / yield / share /
 * sleep loop, the census and the load watch, which are below this (none
 * of them includes it).  libmuster-omp builds its own plans (its teams,
 * runtime mutex and task scheduler: src/omp/waiter.h) on these.  Nothing
 * else reads MUSTER_WAIT_POLICY, MUSTER_SPIN_NS or OMP_WAIT_POLICY. */
#ifndef MUSTER_WAIT_POLICY_H
#define MUSTER_WAIT_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "muster/barrier.h"
#include "wait/tuning.h"
#include "wait/wait.h"

/* ---- the process's settings ---- */

/* MUSTER_WAIT_POLICY, else OMP_WAIT_POLICY (active or passive only),
 * MUSTER_SPIN_NS and MUSTER_LOAD_WATCH: read once per process; garbage gets one warning line
 * naming the variable, the value and what is used instead. */
typedef struct muster_wait_settings {
    muster_wait_policy policy; /* DEFAULT: neither variable set it */
    bool policy_from_omp;      /* OMP_WAIT_POLICY set it: a hint (libmuster-omp's team policy) */
    bool has_spin_ns;
    int64_t spin_ns;
    bool load_watch; /* MUSTER_LOAD_WATCH (default 1): wait/load.h */
} muster_wait_settings;

const muster_wait_settings *muster_wait_settings_get(void);
/* Reads them again: for the fuzzing harness only (fuzz/fuzz_env.c), with
 * no other thread reading them. */
void muster_wait_settings_reread(void);


/* ---- the decisions ---- */

/* The CPUs of the affinity mask, given as 0 when unknown: never fewer than
 * those available (the mask capped by a quota). */
static inline unsigned muster_mask_or_available(unsigned mask_cpus, unsigned available)
{
    return mask_cpus < available ? available : mask_cpus;
}

/* The default budget of a barrier waiter, from the team size, the CPUs
 * the process may use at once (`available`: the affinity mask capped by a
 * cgroup quota) and those of its affinity mask (`mask_cpus`; 0: unknown,
 * taken as `available`): the default spin (adaptive when hybrid) when the
 * team fits; none and a few yields when it outnumbers the mask; a short
 * spin when only the quota is short. */
typedef struct muster_default_budget {
    int64_t spin_ns;
    unsigned yields;
    uint64_t yield_ns; /* the waiter's yield_ns (wait.h) */
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


#endif
