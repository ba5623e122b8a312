/* The runtime's one waiter builder (waiter.h).  Where waiters spin, the
 * team barrier's census guards them against a team-mate on their CPU, as
 * it guards the barrier's waits: a futex wake-up can put a member on its
 * waker's CPU, and there a spinning waiter holds the CPU its predecessor
 * needs for the whole spin budget (docs/tuning.md, the co-location guard
 * of work-share waits). */
#include "omp/waiter.h"

muster_waiter muster_omp_waiter_for(unsigned size, muster_census *census)
{
    muster_waiter waiter = muster_team_waiter(size, muster_omp_team_policy(size), -1, NULL);
    if (census != NULL) {
        muster_census_plan plan = muster_census_plan_for(size, &waiter, false);
        waiter.census = plan.attach && plan.share_ns == 0 ? census : NULL;
    }
    return waiter;
}
