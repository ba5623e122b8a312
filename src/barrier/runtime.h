/* What a runtime built on libmuster (libmuster-omp) uses beyond the public
 * API: the environment as libmuster read it, the waiter a team's barriers
 * get, and waits that do work meanwhile.  Not installed; the algorithms'
 * own internals stay in internal.h. */
#ifndef MUSTER_BARRIER_RUNTIME_H
#define MUSTER_BARRIER_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "muster/barrier.h"
#include "wait/wait.h"

/* ---- environment (parsed once per process; warnings printed once) ---- */

typedef struct muster_env_config {
    bool has_algorithm, has_policy, has_spin_ns;
    muster_algorithm algorithm;
    muster_wait_policy policy;
    int64_t spin_ns;
} muster_env_config;

const muster_env_config *muster_env(void);

/* How a participant of a team of `participants` waits: policy DEFAULT and
 * spin_ns < 0 mean the environment's, else hybrid with libmuster's budget
 * for the team size (shorter, plus a few yields, when it outnumbers the
 * CPUs).  The budget used goes to *resolved_spin_ns when not NULL. */
muster_waiter muster_team_waiter(unsigned participants, muster_wait_policy policy, int64_t spin_ns,
                                 int64_t *resolved_spin_ns);

/* Waits that do work meanwhile (wait.h, muster_wait_work), for thread pools
 * whose members run queued tasks while they wait at a barrier: the same as
 * muster_barrier_wait and muster_barrier_gather otherwise.  Whoever queues
 * work calls muster_barrier_nudge when the work's sleepers count is not
 * zero (wait.h says in what order), which wakes the barrier's sleepers so
 * they look for it. */
int muster_barrier_wait_working(muster_barrier *b, unsigned id, const muster_wait_work *work);
int muster_barrier_gather_working(muster_barrier *b, const muster_wait_work *work);
void muster_barrier_nudge(muster_barrier *b);
/* Wakes at most `count` of the barrier's sleepers (its flags in order);
 * returns how many it woke. */
int muster_barrier_nudge_some(muster_barrier *b, int count);

#endif
