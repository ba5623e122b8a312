/* The analytical cost model of Gao et al. (CLUSTER 2021, §III-B and §V),
 * evaluated on a machine (machine.h) with participant i on CPU index i.
 *
 * The paper states each equation with one layer latency L_i.  On a real
 * topology the layer depends on who talks to whom, so every term below takes
 * the latency (and alpha) of the CPUs it joins:
 *   eq. 1  arrival of a static f-way tournament with groups of consecutive
 *          participants: per round, W_R + (f-1) R_R = (1 + alpha) L +
 *          (f - 1) L = (f + alpha) L, with L the slowest child-to-winner pair
 *          of the round.  (The paper prints (f + 1) L, i.e. alpha = 1; its
 *          eq. 2 keeps alpha, and so do we.)
 *   eq. 3  global wake-up: sum over the P-1 copies of alpha L (the root's
 *          store invalidates each) + the slowest R_R + c (P - 1).
 *   eq. 4  binary-tree wake-up: per level of the tree, (1 + alpha) L of the
 *          slowest parent-child pair of that level.
 *   eq. 5  cluster-aware wake-up tree: as eq. 4 on the tree of eq. 5.
 * With one layer these reduce to the paper's formulas exactly (tested). */
#ifndef MUSTER_MODEL_COST_H
#define MUSTER_MODEL_COST_H

#include "machine/machine.h"
#include "muster/barrier.h"

#define MUSTER_COST_MAX_FAN_IN 16u

double muster_cost_arrival(const muster_machine *m, unsigned participants, unsigned fan_in); /* eq. 1 */
unsigned muster_cost_arrival_rounds(unsigned participants, unsigned fan_in);            /* ceil(log_f P) */
double muster_cost_global_wakeup(const muster_machine *m, unsigned participants);       /* eq. 3 */
double muster_cost_binary_wakeup(const muster_machine *m, unsigned participants);       /* eq. 4 */
double muster_cost_cluster_wakeup(const muster_machine *m, unsigned participants,
                                  unsigned cluster_size);                               /* eq. 5 */

/* The model's choice for P participants: the fan-in in [2, MAX_FAN_IN] with
 * the cheapest arrival (ties to the smaller), and the cheapest wake-up. */
typedef struct muster_cost_choice {
    unsigned fan_in;
    double arrival_ns;
    muster_wakeup wakeup;   /* GLOBAL, BINARY or CLUSTER */
    double wakeup_ns;
    double global_ns, binary_ns, cluster_ns;
} muster_cost_choice;

/* 0, or -1 when participants is 0 or exceeds the machine's CPUs. */
int muster_cost_choose(const muster_machine *m, unsigned participants, muster_cost_choice *choice);

#endif
