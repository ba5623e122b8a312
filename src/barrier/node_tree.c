/* The engine for dynamic trees: the combining tree (Yew et al.) and the
 * dynamic f-way tournament (Grunwald & Vajracharya).  Participants are
 * grouped fan_in at a time into leaf nodes, nodes fan_in at a time into
 * parents; whoever completes a node climbs to its parent, and whoever
 * completes the root releases everybody with the global flag.
 *
 * Arena: shared flag 0 is the release flag; shared flag 1+n is node n's
 * arrival word (a counter, or a bit mask with one bit per member). */
#include <stdlib.h>

#include "internal.h"

typedef struct node_tree {
    unsigned nodes;
    uint32_t *parent; /* parent node; the root's is itself */
    uint32_t *size;   /* members expected at the node */
    uint32_t *slot;   /* this node's member index in its parent */
} node_tree;

static void node_tree_destroy(node_tree *tree)
{
    if (tree != NULL)
        free(tree->parent), free(tree->size), free(tree->slot);
    free(tree);
}

/* Level l has ceil(members_l / fan_in) nodes; node ids run level by level. */
static node_tree *node_tree_build(unsigned participants, unsigned fan_in)
{
    node_tree *tree = calloc(1, sizeof *tree);
    if (tree == NULL)
        return NULL;
    unsigned total = 0;
    for (unsigned members = participants;;) {
        unsigned level = (members + fan_in - 1) / fan_in;
        total += level;
        if (level == 1)
            break;
        members = level;
    }
    tree->nodes = total;
    tree->parent = calloc(total, sizeof(uint32_t));
    tree->size = calloc(total, sizeof(uint32_t));
    tree->slot = calloc(total, sizeof(uint32_t));
    if (!tree->parent || !tree->size || !tree->slot) {
        node_tree_destroy(tree);
        return NULL;
    }
    unsigned first = 0; /* first node id of the current level */
    for (unsigned members = participants;;) {
        unsigned level = (members + fan_in - 1) / fan_in;
        for (unsigned n = 0; n < level; n++) {
            unsigned left = members - n * fan_in;
            tree->size[first + n] = left < fan_in ? left : fan_in;
            tree->parent[first + n] = level == 1 ? first + n : first + level + n / fan_in;
            tree->slot[first + n] = n % fan_in;
        }
        if (level == 1)
            break;
        first += level;
        members = level;
    }
    return tree;
}

int muster_node_tree_init(muster_barrier *b)
{
    node_tree *tree = node_tree_build(b->participants, b->attr.fan_in);
    if (tree == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the combining tree");
    b->state = tree;
    b->plan_bytes = sizeof *tree + tree->nodes * 3 * sizeof(uint32_t);
    return muster_layout(b, 1 + tree->nodes, 0);
}

void muster_node_tree_destroy(muster_barrier *b)
{
    node_tree_destroy(b->state);
    b->state = NULL;
}

/* Adds this member to node's word; true when it completed the node. */
static bool arrive(muster_flag *word, unsigned member, unsigned size, bool bit_mask)
{
    /* acq_rel: pairs with the earlier members' acq_rel RMWs on this word, so the completer
     * acquires their writes, and releases its own along with theirs to the next level by its
     * RMW there (at the root, by the release in muster_flag_publish()). */
    if (bit_mask) {
        uint32_t all = size == 32 ? UINT32_MAX : (1u << size) - 1u;
        uint32_t old = atomic_fetch_or_explicit(word, 1u << member, memory_order_acq_rel);
        return ((old | (1u << member)) & MUSTER_FLAG_VALUE_MASK & all) == all;
    }
    /* acq_rel: pairs with the other members' acq_rel increments of this word, as the fetch_or above. */
    uint32_t old = atomic_fetch_add_explicit(word, 1u, memory_order_acq_rel);
    return (old & MUSTER_FLAG_VALUE_MASK) + 1u == size;
}

void muster_node_tree_schedule(const muster_barrier *b, unsigned id, muster_schedule *s)
{
    const node_tree *tree = b->state;
    uint32_t release = muster_shared_flag(b, 0);
    unsigned node = id / b->attr.fan_in;
    unsigned arrivals[64], levels = 0; /* ARRIVE steps whose `next` is the wait */
    for (;;) {
        uint32_t word = muster_shared_flag(b, 1 + node);
        if (levels < 64)
            arrivals[levels++] = muster_schedule_add(s, MUSTER_STEP_ARRIVE, word, tree->size[node]);
        muster_schedule_add(s, MUSTER_STEP_CLEAR, word, 0);
        if (tree->parent[node] == node)
            break;
        node = tree->parent[node];
    }
    muster_schedule_add(s, MUSTER_STEP_ALL_ARRIVED, 0, 0);
    muster_schedule_add(s, MUSTER_STEP_PUBLISH, release, 0);
    muster_schedule_add(s, MUSTER_STEP_DONE, 0, 0);
    unsigned wait = muster_schedule_add(s, MUSTER_STEP_WAIT, release, 0);
    muster_schedule_add(s, MUSTER_STEP_DONE, 0, 0);
    for (unsigned k = 0; k < levels && !s->out_of_memory; k++)
        s->steps[arrivals[k]].next = wait;
}

int muster_node_tree_wait(muster_barrier *b, unsigned id, const muster_waiter *waiter, bool bit_mask)
{
    const node_tree *tree = b->state;
    uint32_t episode = muster_next_episode(b, id);
    muster_flag *release = muster_flag_at(b, muster_shared_flag(b, 0));
    unsigned fan_in = b->attr.fan_in;
    unsigned node = id / fan_in, member = id % fan_in;
    for (;;) {
        muster_flag *word = muster_flag_at(b, muster_shared_flag(b, 1 + node));
        if (!arrive(word, member, tree->size[node], bit_mask))
            return muster_wait_reach(release, episode, waiter);
        /* relaxed: the release publish below orders this before anyone's
         * next-episode arrival, which follows their acquire of the release. */
        atomic_store_explicit(word, 0, memory_order_relaxed);
        if (tree->parent[node] == node)
            break;
        member = tree->slot[node];
        node = tree->parent[node];
    }
    muster_flag_publish(release, episode, b->may_sleep);
    return MUSTER_BARRIER_SERIAL;
}
