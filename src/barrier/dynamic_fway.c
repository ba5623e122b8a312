/* Dynamic f-way tournament barrier (Grunwald & Vajracharya; Gao DTOUR):
 * groups of f; each member sets its bit in the group's word, and the one
 * whose bit completes the word wins the round, so the winner is whoever
 * arrives last.  The bit mask holds at most 30 members. */
#include "internal.h"

static int wait(muster_barrier *b, unsigned id, const muster_waiter *waiter)
{
    return muster_node_tree_wait(b, id, waiter, true);
}

const muster_barrier_ops muster_dynamic_fway_ops = {
    .algorithm = MUSTER_ALG_DYNAMIC_FWAY,
    .default_fan_in = 4,
    .max_fan_in = 30,
    .default_wakeup = MUSTER_WAKE_GLOBAL,
    .wakeups = 1u << MUSTER_WAKE_GLOBAL,
    .waits_only_for_release = true,
    .default_padding = MUSTER_PAD_PACKED,
    .init = muster_node_tree_init,
    .wait = wait,
    .schedule = muster_node_tree_schedule,
    .destroy = muster_node_tree_destroy,
};
