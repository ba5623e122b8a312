/* MCS tree barrier (Mellor-Crummey & Scott; Gao MCS): every participant is a
 * node of a 4-ary arrival tree (children 4i+1..4i+4) and of a binary wake-up
 * tree (children 2i+1, 2i+2).  Flags packed as in the original, where a
 * parent's children share one word. */
#include <stdlib.h>

#include "internal.h"

static int init(muster_barrier *b)
{
    unsigned n = b->participants, f = b->attr.fan_in;
    unsigned *parent = malloc(n * sizeof *parent);
    if (parent == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the MCS tree");
    parent[0] = 0;
    for (unsigned i = 1; i < n; i++)
        parent[i] = (i - 1) / f;
    int rc = muster_plan_build(b, parent);
    free(parent);
    return rc;
}

const muster_barrier_ops muster_mcs_tree_ops = {
    .algorithm = MUSTER_ALG_MCS_TREE,
    .default_fan_in = 4,
    .default_wakeup = MUSTER_WAKE_BINARY,
    .wakeups = (1u << MUSTER_WAKE_GLOBAL) | (1u << MUSTER_WAKE_BINARY) | (1u << MUSTER_WAKE_CLUSTER) | (1u << MUSTER_WAKE_TREE),
    .default_padding = MUSTER_PAD_PACKED,
    .init = init,
    .wait = muster_plan_wait,
};
