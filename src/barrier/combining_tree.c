/* Software combining tree barrier (Yew, Tzeng & Lawrie; Gao CMB): groups of
 * fan-in participants share a counter; the last to arrive at a group climbs
 * to the parent's counter; the last at the root releases everybody.  The
 * engine is shared with the dynamic f-way tournament (node_tree.c). */
#include "internal.h"

static int wait(muster_barrier *b, unsigned id, const muster_waiter *waiter)
{
    return muster_node_tree_wait(b, id, waiter, false);
}

const muster_barrier_ops muster_combining_tree_ops = {
    .algorithm = MUSTER_ALG_COMBINING_TREE,
    .default_fan_in = 2,
    .default_wakeup = MUSTER_WAKE_GLOBAL,
    .wakeups = 1u << MUSTER_WAKE_GLOBAL,
    .waits_only_for_release = true,
    .default_padding = MUSTER_PAD_PADDED,
    .init = muster_node_tree_init,
    .wait = wait,
    .schedule = muster_node_tree_schedule,
    .destroy = muster_node_tree_destroy,
};
