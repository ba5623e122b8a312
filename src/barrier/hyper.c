/* Hyper barrier (LLVM libomp's default): a tree embedded in a hypercube.
 * With b = log2(fan-in) branch bits, at level l participant i is a child if
 * its bits [l*b, (l+1)*b) are not all zero, and its parent is i with bits
 * below (l+1)*b cleared; otherwise it gathers children i + k*2^(l*b).  The
 * release walks the same tree in reverse, farthest subtree first. */
#include <stdlib.h>

#include "internal.h"

static unsigned hyper_parent(unsigned i, unsigned bits)
{
    unsigned branch = (1u << bits) - 1u;
    for (unsigned level = 0; level < 32; level += bits)
        if ((i >> level) & branch)
            return i & ~((1u << (level + bits)) - 1u);
    return 0;
}

static int init(muster_barrier *b)
{
    unsigned n = b->participants, bits = 0;
    while ((1u << bits) < b->attr.fan_in)
        bits++;
    unsigned *parent = malloc(n * sizeof *parent);
    if (parent == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the hyper tree");
    for (unsigned i = 0; i < n; i++)
        parent[i] = hyper_parent(i, bits);
    int rc = muster_plan_build(b, parent);
    free(parent);
    return rc;
}

const muster_barrier_ops muster_hyper_ops = {
    .algorithm = MUSTER_ALG_HYPER,
    .default_fan_in = 4,
    .fan_in_power_of_two = true,
    .default_wakeup = MUSTER_WAKE_TREE,
    .wakeups = (1u << MUSTER_WAKE_GLOBAL) | (1u << MUSTER_WAKE_BINARY) | (1u << MUSTER_WAKE_CLUSTER) | (1u << MUSTER_WAKE_TREE),
    .default_padding = MUSTER_PAD_PADDED,
    .init = init,
    .wait = muster_plan_wait,
};
