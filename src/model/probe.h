/* The core-to-core latency probe behind `muster probe` (Gao et al. 2021,
 * §III-A): two threads pinned to CPUs i and j bounce one cache line; half
 * the median round trip is the one-way latency latency_ns[i][j].  The local
 * cost epsilon is a dependent load+store on a line in the CPU's own cache.
 * Internal: used by the muster command and the tests. */
#ifndef MUSTER_TOPOLOGY_PROBE_H
#define MUSTER_TOPOLOGY_PROBE_H

#include <stddef.h>

#include "machine/machine.h"

#define MUSTER_PROBE_DEFAULT_REPETITIONS 15u
/* With round_trips 0, R is calibrated so that one sample takes about this
 * long: long against the clock's resolution and its ~20 ns read cost, short
 * against the scheduler's time slice. */
#define MUSTER_PROBE_SAMPLE_NS 1000000.0
#define MUSTER_PROBE_MIN_ROUND_TRIPS 100u
#define MUSTER_PROBE_MAX_ROUND_TRIPS 1000000u
/* A partner that has not answered for this long is taken to be gone. */
#define MUSTER_PROBE_DEFAULT_SILENCE_S 2.0

typedef struct muster_probe_options {
    const int *cpus;      /* OS CPU ids to probe: ascending, distinct */
    unsigned cpu_count;   /* 1 .. MUSTER_MACHINE_MAX_CPUS */
    unsigned repetitions; /* K samples per ordered pair, >= 1 */
    unsigned round_trips; /* R round trips per sample; 0: calibrated (MUSTER_PROBE_SAMPLE_NS) */
    double silence_s;     /* 0: MUSTER_PROBE_DEFAULT_SILENCE_S */
    /* Called after each pair, from the calling thread; may be NULL. */
    void (*progress)(unsigned done, unsigned total, void *ctx);
    void *progress_ctx;
    /* For tests of the give-up path only: the answering thread falls silent
     * after this many round trips (0: it never does). */
    unsigned partner_silent_after;
} muster_probe_options;


/* Per-round-trip time between cpu_a (which starts each round trip) and
 * cpu_b, over o->repetitions samples of round_trips round trips: the
 * minimum and the median.  0, or -1 with a message (a CPU that cannot run a
 * thread, a partner silent for o->silence_s). */
int muster_probe_pair(int cpu_a, int cpu_b, unsigned round_trips, const muster_probe_options *o, double *min_ns,
                      double *median_ns, char *err, size_t err_len);

/* Epsilon on one CPU: the median over `repetitions` samples of the time per
 * dependent load+store of one word in the CPU's own L1. */
int muster_probe_local(int cpu, unsigned repetitions, double *ns, char *err, size_t err_len);

/* Probes every ordered pair of o->cpus and returns a complete, valid machine:
 * latency_ns, epsilon_ns (median over the CPUs), both round-trip matrices
 * (diagonal 0), probe_repetitions and probe_round_trips, layers and
 * cluster_size derived, name = the host name (or "this machine"), source =
 * "muster probe <UTC time>".  One CPU gives a 1x1 machine with no layers.
 * 0, or -1 with a message and m empty. */
int muster_probe_machine(const muster_probe_options *o, muster_machine *m, char *err, size_t err_len);

#endif
