/* The wait layer's constants, each with a one-line reason (the
 * measurements that chose the values: docs/tuning.md, by the constant's
 * name).  The policy (policy.h) decides from them, the mechanisms (wait.c,
 * census.c, load.c) take their numbers from them; this header includes
 * nothing, so all of them may include it. */
#ifndef MUSTER_WAIT_TUNING_H
#define MUSTER_WAIT_TUNING_H

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

/* Then, before it sleeps, an oversubscribed waiter keeps yielding for up to
 * this long while its yields are cheap: a program's serial code between two
 * parallel regions outlasts the yields and the share above, and a futex
 * sleep and its wake-up cost the releaser a system call per sleeper and the
 * sleeper a wake-up latency of 50-130 us on a VM.  libomp yields for its
 * whole 200 ms blocktime (see docs/tuning.md, MUSTER_YIELD_NS_OVERSUBSCRIBED). */
#define MUSTER_YIELD_NS_OVERSUBSCRIBED 2000000

/* ... only while the participants are at most this many per CPU: with more,
 * the yielders crowd the CPUs' queues and delay the threads that work. */
#define MUSTER_YIELD_MEMBERS_PER_CPU 2

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

#endif
