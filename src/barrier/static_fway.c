/* Static f-way tournament barrier (Grunwald & Vajracharya; Gao STOUR): each
 * round groups the remaining players in groups of at most f, as even as
 * possible, and the first of each group is the fixed winner.  The champion
 * releases everybody with a global flag.  32-bit flags packed, as in the
 * source publication. */
#include <stdlib.h>

#include "internal.h"

static int init(muster_barrier *b)
{
    unsigned n = b->participants;
    unsigned *parent = malloc(n * sizeof *parent);
    unsigned *members = malloc(n * sizeof *members);
    int rc = MUSTER_OK;
    if (parent == NULL || members == NULL) {
        rc = muster_fail(MUSTER_E_NOMEM, "no memory for the tournament");
    } else {
        for (unsigned i = 0; i < n; i++)
            members[i] = i;
        parent[0] = 0;
        muster_tournament_rounds(members, n, b->attr.fan_in, true, parent);
        rc = muster_plan_build(b, parent);
    }
    free(parent);
    free(members);
    return rc;
}

const muster_barrier_ops muster_static_fway_ops = {
    .algorithm = MUSTER_ALG_STATIC_FWAY,
    .default_fan_in = 4,
    .default_wakeup = MUSTER_WAKE_GLOBAL,
    .wakeups = (1u << MUSTER_WAKE_GLOBAL) | (1u << MUSTER_WAKE_BINARY) | (1u << MUSTER_WAKE_CLUSTER) | (1u << MUSTER_WAKE_TREE),
    .default_padding = MUSTER_PAD_PACKED,
    .init = init,
    .wait = muster_plan_wait,
};
