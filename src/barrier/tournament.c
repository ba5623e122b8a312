/* Tournament barrier (Hensgen, Finkel & Manber; Nanjegowda §3.5; Gao TOUR):
 * in round k, participant i with i mod 2^(k+1) == 0 waits for i + 2^k, its
 * statically chosen loser; the champion, participant 0, releases everybody
 * with a global flag. */
#include "internal.h"

/* i loses in the round of its lowest set bit, to i without that bit. */
static void parents(const muster_barrier *b, unsigned *parent, unsigned *scratch)
{
    for (unsigned i = 1; i < b->participants; i++)
        parent[i] = i & (i - 1);
}

const muster_barrier_ops muster_tournament_ops = {
    .algorithm = MUSTER_ALG_TOURNAMENT,
    .default_wakeup = MUSTER_WAKE_GLOBAL,
    .wakeups = MUSTER_WAKEUPS_TREE,
    .default_padding = MUSTER_PAD_PADDED,
    MUSTER_PLAN_TREE_OPS(parents),
};
