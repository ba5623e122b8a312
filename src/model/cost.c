/* The analytical model: equations 1-5 of Gao et al., term by term on the
 * machine's own latencies (see cost.h). */
#include "model/cost.h"

#include <stdlib.h>

static double alpha_of(const muster_machine *m, unsigned i, unsigned j)
{
    const muster_layer *layer = muster_machine_layer(m, i, j);
    return layer != NULL ? layer->alpha : 0.0;
}

unsigned muster_cost_arrival_rounds(unsigned participants, unsigned fan_in)
{
    unsigned rounds = 0;
    for (unsigned long span = 1; span < participants; span *= fan_in)
        rounds++;
    return rounds;
}

double muster_cost_arrival(const muster_machine *m, unsigned participants, unsigned fan_in)
{
    double total = 0;
    unsigned long stride = 1; /* distance between a round's players */
    for (unsigned r = muster_cost_arrival_rounds(participants, fan_in); r > 0; r--, stride *= fan_in) {
        double worst = 0;
        for (unsigned long winner = 0; winner < participants; winner += stride * fan_in)
            for (unsigned k = 1; k < fan_in && winner + k * stride < participants; k++) {
                unsigned child = (unsigned)(winner + k * stride);
                double latency = muster_machine_latency(m, child, (unsigned)winner);
                double cost = (fan_in + alpha_of(m, child, (unsigned)winner)) * latency;
                if (cost > worst)
                    worst = cost;
            }
        total += worst;
    }
    return total;
}

double muster_cost_global_wakeup(const muster_machine *m, unsigned participants)
{
    double invalidations = 0, slowest_read = 0;
    for (unsigned j = 1; j < participants; j++) {
        double latency = muster_machine_latency(m, 0, j);
        invalidations += alpha_of(m, 0, j) * latency;
        if (latency > slowest_read)
            slowest_read = latency;
    }
    return invalidations + slowest_read + m->contention_ns * (participants - 1);
}

/* Sum over the tree's levels of the slowest (1 + alpha) L edge of that
 * level; parent[] must give smaller ids to parents. */
static double tree_wakeup(const muster_machine *m, unsigned participants, const unsigned *parent)
{
    unsigned *depth = calloc(participants, sizeof *depth);
    double *worst = calloc(participants, sizeof *worst);
    double total = 0;
    if (depth == NULL || worst == NULL) {
        free(depth), free(worst);
        return -1;
    }
    for (unsigned i = 1; i < participants; i++) {
        depth[i] = depth[parent[i]] + 1;
        double cost = (1 + alpha_of(m, parent[i], i)) * muster_machine_latency(m, parent[i], i);
        if (cost > worst[depth[i]])
            worst[depth[i]] = cost;
    }
    for (unsigned d = 0; d < participants; d++)
        total += worst[d];
    free(depth), free(worst);
    return total;
}

double muster_cost_binary_wakeup(const muster_machine *m, unsigned participants)
{
    unsigned *parent = malloc(participants * sizeof *parent);
    if (parent == NULL)
        return -1;
    parent[0] = 0;
    for (unsigned i = 1; i < participants; i++)
        parent[i] = (i - 1) / 2;
    double total = tree_wakeup(m, participants, parent);
    free(parent);
    return total;
}

double muster_cost_cluster_wakeup(const muster_machine *m, unsigned participants, unsigned cluster_size)
{
    unsigned *parent = malloc(participants * sizeof *parent);
    if (parent == NULL || cluster_size == 0) {
        free(parent);
        return -1;
    }
    /* Eq. 5: masters (the first of each cluster) form a binary tree of
     * clusters; inside a cluster, a binary tree under its master.  The same
     * tree the barrier builds (plan.c). */
    parent[0] = 0;
    for (unsigned i = 1; i < participants; i++) {
        unsigned cluster = i / cluster_size, local = i % cluster_size;
        parent[i] = local == 0 ? (cluster - 1) / 2 * cluster_size : cluster * cluster_size + (local - 1) / 2;
    }
    double total = tree_wakeup(m, participants, parent);
    free(parent);
    return total;
}

int muster_cost_choose(const muster_machine *m, unsigned participants, muster_cost_choice *choice)
{
    if (participants == 0 || participants > m->cpus)
        return -1;
    choice->fan_in = 2;
    choice->arrival_ns = muster_cost_arrival(m, participants, 2);
    for (unsigned f = 3; f <= MUSTER_COST_MAX_FAN_IN; f++) {
        double cost = muster_cost_arrival(m, participants, f);
        if (cost < choice->arrival_ns) {
            choice->fan_in = f;
            choice->arrival_ns = cost;
        }
    }
    choice->global_ns = muster_cost_global_wakeup(m, participants);
    choice->binary_ns = muster_cost_binary_wakeup(m, participants);
    choice->cluster_ns = muster_cost_cluster_wakeup(m, participants, m->cluster_size ? m->cluster_size : 1);
    choice->wakeup = MUSTER_WAKE_GLOBAL;
    choice->wakeup_ns = choice->global_ns;
    if (choice->binary_ns < choice->wakeup_ns) {
        choice->wakeup = MUSTER_WAKE_BINARY;
        choice->wakeup_ns = choice->binary_ns;
    }
    if (choice->cluster_ns < choice->wakeup_ns) {
        choice->wakeup = MUSTER_WAKE_CLUSTER;
        choice->wakeup_ns = choice->cluster_ns;
    }
    return 0;
}
