/* MCS tree barrier (Mellor-Crummey & Scott; Gao MCS): every participant is a
 * node of a 4-ary arrival tree (children 4i+1..4i+4) and of a binary wake-up
 * tree (children 2i+1, 2i+2).  Flags packed as in the original, where a
 * parent's children share one word. */
#include "internal.h"

static void parents(const muster_barrier *b, unsigned *parent, unsigned *scratch)
{
    for (unsigned i = 1; i < b->participants; i++)
        parent[i] = (i - 1) / b->attr.fan_in;
}

const muster_barrier_ops muster_mcs_tree_ops = {
    .algorithm = MUSTER_ALG_MCS_TREE,
    .default_fan_in = 4,
    .default_wakeup = MUSTER_WAKE_BINARY,
    .wakeups = MUSTER_WAKEUPS_TREE,
    .default_padding = MUSTER_PAD_PACKED,
    MUSTER_PLAN_TREE_OPS(parents),
};
