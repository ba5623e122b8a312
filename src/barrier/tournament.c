/* Tournament barrier (Hensgen, Finkel & Manber; Nanjegowda §3.5; Gao TOUR):
 * in round k, participant i with i mod 2^(k+1) == 0 waits for i + 2^k, its
 * statically chosen loser; the champion, participant 0, releases everybody
 * with a global flag. */
#include <stdlib.h>

#include "internal.h"

static int init(muster_barrier *b)
{
    unsigned n = b->participants;
    unsigned *parent = malloc(n * sizeof *parent);
    if (parent == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the tournament");
    parent[0] = 0;
    /* i loses in the round of its lowest set bit, to i without that bit. */
    for (unsigned i = 1; i < n; i++)
        parent[i] = i & (i - 1);
    int rc = muster_plan_build(b, parent);
    free(parent);
    return rc;
}

const muster_barrier_ops muster_tournament_ops = {
    .algorithm = MUSTER_ALG_TOURNAMENT,
    .default_wakeup = MUSTER_WAKE_GLOBAL,
    .wakeups = (1u << MUSTER_WAKE_GLOBAL) | (1u << MUSTER_WAKE_BINARY) | (1u << MUSTER_WAKE_CLUSTER) | (1u << MUSTER_WAKE_TREE),
    .default_padding = MUSTER_PAD_PADDED,
    .init = init,
    .wait = muster_plan_wait,
};
