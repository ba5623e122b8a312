/* Static f-way tournament barrier (Grunwald & Vajracharya; Gao STOUR): each
 * round groups the remaining players in groups of at most f, as even as
 * possible, and the first of each group is the fixed winner.  The champion
 * releases everybody with a global flag.  32-bit flags packed, as in the
 * source publication. */
#include "internal.h"

static void parents(const muster_barrier *b, unsigned *parent, unsigned *members)
{
    for (unsigned i = 0; i < b->participants; i++)
        members[i] = i;
    muster_tournament_rounds(members, b->participants, b->attr.fan_in, true, parent);
}

const muster_barrier_ops muster_static_fway_ops = {
    .algorithm = MUSTER_ALG_STATIC_FWAY,
    .default_fan_in = 4,
    .default_wakeup = MUSTER_WAKE_GLOBAL,
    .wakeups = MUSTER_WAKEUPS_TREE,
    .default_padding = MUSTER_PAD_PACKED,
    MUSTER_PLAN_TREE_OPS(parents),
};
