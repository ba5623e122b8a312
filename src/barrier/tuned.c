/* The tuned barrier of Gao et al. (CLUSTER 2021, §V): a static tournament
 * with one cache line per arrival flag, fan-in 4 (eq. 1-2: the optimum lies
 * in [e, 3.59], and a power of two keeps groups inside clusters), arrival
 * groups aligned to core clusters (participant ids follow cores, as with
 * close pinning), and a wake-up chosen among global flag, binary tree and
 * the cluster-aware tree of eq. 5 (the default). */
#include "internal.h"

/* Plays each cluster's tournament to one winner, then the winners'. */
static void parents(const muster_barrier *b, unsigned *parent, unsigned *members)
{
    unsigned n = b->participants, fan_in = b->attr.fan_in, cluster = b->attr.cluster_size;
    unsigned winners = 0;
    for (unsigned first = 0; first < n; first += cluster) {
        unsigned count = n - first < cluster ? n - first : cluster;
        for (unsigned k = 0; k < count; k++)
            members[first + k] = first + k;
        /* Winners are packed at the front, behind the clusters already played. */
        members[winners++] = muster_tournament_rounds(members + first, count, fan_in, false, parent);
    }
    muster_tournament_rounds(members, winners, fan_in, false, parent);
}

const muster_barrier_ops muster_tuned_ops = {
    .algorithm = MUSTER_ALG_TUNED,
    .default_fan_in = 4,
    .default_wakeup = MUSTER_WAKE_CLUSTER,
    .wakeups = MUSTER_WAKEUPS_TREE,
    .default_padding = MUSTER_PAD_PADDED,
    .uses_cluster_size = true,
    MUSTER_PLAN_TREE_OPS(parents),
};
