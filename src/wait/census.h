/* The CPU census of a barrier: where each participant last ran, and, when
 * the participants outnumber the CPUs, how often each has arrived.  Two uses:
 *
 * Co-location guard (every spinning barrier).  A spinning waiter assumes
 * that the thread it waits for runs on another CPU.  When the scheduler
 * puts two team-mates on one CPU (a new thread started beside its creator,
 * a wake-up pulled to the waker's CPU), a waiter that spins keeps the other
 * off the CPU for its whole budget, and every episode costs the budget
 * until the load balancer separates them.  So a spinning waiter notes its
 * CPU and, while the census shows another participant last seen there,
 * gives the CPU away instead of spinning: the hand-off costs a yield
 * instead of the budget.  (Not moving the waiter to a CPU without a mate:
 * see docs/tuning.md, co-location guard.)
 *
 * CPU sharing (oversubscribed barriers).  A waiter whose CPU still runs (or
 * queues) a participant that has not arrived gives the CPU away; one whose
 * CPU-mates have all arrived keeps the CPU and polls, so the release needs
 * neither a futex wake nor a context switch, and each CPU switches threads
 * only as often as its threads must run.
 *
 * Either way a hint: a stale slot costs one needless yield or one spin
 * chunk, never correctness. */
#ifndef MUSTER_WAIT_CENSUS_H
#define MUSTER_WAIT_CENSUS_H

#include <stdbool.h>

#include "wait/wait.h" /* the muster_census type */

/* NULL when out of memory. */
muster_census *muster_census_create(unsigned participants);
void muster_census_destroy(muster_census *census);
/* Forgets every arrival and CPU; only while nobody waits in the barrier. */
void muster_census_reset(muster_census *census);
/* Participant id arrives (at each episode): records its CPU and count, and
 * whether it must still run to release the others once all have arrived
 * (participant 0 of a split episode, muster_barrier_gather): its CPU-mates
 * then keep yielding to it. */
void muster_census_arrive(muster_census *census, unsigned id, bool owes_release);
/* The same, with the CPU given (-1: unknown; tests use it). */
void muster_census_arrive_on(muster_census *census, unsigned id, int cpu, bool owes_release);
/* Records that participant id now runs on `cpu` (-1: unknown), leaving its
 * arrival count alone.  Writes only when the CPU changed. */
void muster_census_note_cpu(muster_census *census, unsigned id, int cpu);
/* True when more than one participant was last seen on `cpu`. */
bool muster_census_colocated(const muster_census *census, int cpu);
/* True when a participant last seen on `cpu` has not yet arrived at the
 * episode that participant `self` waits in. */
bool muster_census_cpu_needed(const muster_census *census, unsigned self, int cpu);

#endif
