/* The many-core simulator: runs a barrier's own communication pattern (its
 * schedule, schedule.h) on a modelled machine (machine.h) and predicts the
 * time per barrier.
 *
 * The machine model (Gao et al. 2021, §III-B, made executable):
 *   - each participant runs on its own CPU (participant i on CPU cpu_of[i]);
 *   - a read of a line this CPU holds costs epsilon; a read of a line it does
 *     not hold costs the latency L to the line's last writer, plus c times the
 *     number of CPUs that fetched the same version before it (readers of one
 *     line contend, eq. 3);
 *   - a write (store or atomic RMW) needs the line exclusively: epsilon if
 *     this CPU holds it, else L to the last writer, plus alpha*L for every
 *     other CPU holding a copy (invalidation, the O_W terms of §III-B);
 *     writes to one line are serialised;
 *   - a participant waiting on a flag holds a copy of its line; every write
 *     to that line invalidates it and it fetches the line again (so flags
 *     packed into one line interfere, as in Fig. 8);
 *   - the kernel is not modelled: nobody sleeps (the active policy).
 * Episodes run back to back from a common start; the first `warmup` episodes
 * fill the caches and are not counted. */
#ifndef MUSTER_MODEL_SIM_H
#define MUSTER_MODEL_SIM_H

#include <stddef.h>

#include "machine/machine.h"
#include "muster/barrier.h"

typedef struct muster_sim_options {
    unsigned episodes;      /* measured episodes; 0 = 8 */
    unsigned warmup;        /* unmeasured episodes first; 0 = 2 */
    const unsigned *cpu_of; /* participant -> machine CPU index; NULL = identity */
} muster_sim_options;

typedef struct muster_sim_result {
    double barrier_ns;   /* mean time per barrier in steady state (period) */
    double arrival_ns;   /* mean time from the last participant's entry to
                            the first moment someone knows all arrived */
    double release_ns;   /* mean time from then to the last one leaving */
    double transfers;    /* cache-line transfers between CPUs per episode */
    unsigned long early_exits; /* participants that left an episode before all
                                  entered it: 0 for any correct barrier */
} muster_sim_result;

/* Simulates b (created for P participants, P <= m->cpus) on m.  0, or -1
 * with a message in err (too many participants, a schedule that deadlocks,
 * no memory). */
int muster_simulate(const muster_machine *m, const muster_barrier *b, const muster_sim_options *options,
                    muster_sim_result *result, char *err, size_t err_len);

#endif
