/* Hyper barrier (LLVM libomp's default): a tree embedded in a hypercube.
 * With b = log2(fan-in) branch bits, at level l participant i is a child if
 * its bits [l*b, (l+1)*b) are not all zero, and its parent is i with bits
 * below (l+1)*b cleared; otherwise it gathers children i + k*2^(l*b).  The
 * release walks the same tree in reverse, farthest subtree first. */
#include "internal.h"

static unsigned hyper_parent(unsigned i, unsigned bits)
{
    unsigned branch = (1u << bits) - 1u;
    for (unsigned level = 0; level < 32; level += bits)
        if ((i >> level) & branch)
            return i & ~((1u << (level + bits)) - 1u);
    return 0;
}

static void parents(const muster_barrier *b, unsigned *parent, unsigned *scratch)
{
    unsigned bits = 0;
    while ((1u << bits) < b->attr.fan_in)
        bits++;
    for (unsigned i = 1; i < b->participants; i++)
        parent[i] = hyper_parent(i, bits);
}

const muster_barrier_ops muster_hyper_ops = {
    .algorithm = MUSTER_ALG_HYPER,
    .default_fan_in = 4,
    .fan_in_power_of_two = true,
    .default_wakeup = MUSTER_WAKE_TREE,
    .wakeups = MUSTER_WAKEUPS_TREE,
    .default_padding = MUSTER_PAD_PADDED,
    MUSTER_PLAN_TREE_OPS(parents),
};
