/* How the OpenMP runtime's threads wait outside the teams' barriers
 * (waiter.c): the one place a waiter is built for parked workers, work
 * shares, the cancellable barrier and the task scheduler's plan. */
#ifndef MUSTER_OMP_WAITER_H
#define MUSTER_OMP_WAITER_H

#include "wait/policy.h"
#include "wait/wait.h"

/* How a member of a team of `size` waits: as the team's barriers do, with
 * the team's explicit policy (muster_omp_team_policy: OMP_WAIT_POLICY=active
 * throttled when the team outnumbers the CPUs).  `census`: the team
 * barrier's census, or NULL; the waiter takes it for the co-location guard
 * when its waits spin (never for CPU sharing, which is for waits on a
 * barrier's arrivals).  census_id is 0: each member sets its own. */
muster_waiter muster_omp_waiter_for(unsigned size, muster_census *census);

#endif
