/* The engine for tree-shaped barriers.  An algorithm describes its arrival
 * tree (parent of each participant) and its release shape; the plan turns
 * that into flag offsets, and muster_plan_wait() runs an episode:
 *
 *   poll the children's arrival flags; publish our own; wait for release;
 *   publish the release flags of our wake-up children.
 *
 * Every flag lives in the block of the one participant that writes it: the
 * arrival flag in the child's, a wake-up flag in the waker's. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The wake-up tree parents for BINARY and CLUSTER (Gao et al. eq. 5). */
static void wake_parents(unsigned participants, muster_wakeup wakeup, unsigned cluster_size,
                         unsigned *wake_parent)
{
    wake_parent[0] = 0;
    for (unsigned i = 1; i < participants; i++) {
        if (wakeup == MUSTER_WAKE_CLUSTER) {
            /* Gao et al. eq. 5: the first participant of each cluster (its
             * master) is woken by a master along a binary tree of clusters;
             * the others along a binary tree inside their cluster. */
            unsigned cluster = i / cluster_size, local = i % cluster_size;
            wake_parent[i] = local == 0 ? (cluster - 1) / 2 * cluster_size
                                        : cluster * cluster_size + (local - 1) / 2;
        } else {
            wake_parent[i] = (i - 1) / 2;
        }
    }
}

/* Fills a CSR child list from a parent array.  Wake-up trees list each
 * parent's children by descending subtree size, so the biggest subtree hears
 * first.  Arrival trees list them by ascending size: the smallest subtree is
 * expected to finish first, so polling in that order overlaps each wait with
 * the bigger subtrees' progress (polling the biggest first would add every
 * other child's fetch after it; the simulator shows the difference). */
typedef enum { SMALLEST_FIRST, BIGGEST_FIRST } child_order;

static int children_of(unsigned n, const unsigned *parent, child_order order, uint32_t **start_out,
                       uint32_t **list_out)
{
    uint32_t *start = calloc(n + 1, sizeof *start);
    uint32_t *list = calloc(n ? n : 1, sizeof *list);
    uint32_t *subtree = calloc(n, sizeof *subtree);
    if (start == NULL || list == NULL || subtree == NULL) {
        free(start), free(list), free(subtree);
        return MUSTER_E_NOMEM;
    }
    for (unsigned i = 0; i < n; i++)
        subtree[i] = 1;
    /* Parents always have smaller ids than their children in our trees. */
    for (unsigned i = n; i-- > 1;)
        subtree[parent[i]] += subtree[i];
    for (unsigned i = 1; i < n; i++)
        start[parent[i] + 1]++;
    for (unsigned i = 0; i < n; i++)
        start[i + 1] += start[i];
    uint32_t *fill = calloc(n, sizeof *fill);
    if (fill == NULL) {
        free(start), free(list), free(subtree);
        return MUSTER_E_NOMEM;
    }
    for (unsigned i = 1; i < n; i++) {
        unsigned p = parent[i];
        unsigned at = start[p] + fill[p]++;
        /* insertion into the parent's slice, keeping descending subtree size */
        while (at > start[p] && (order == BIGGEST_FIRST ? subtree[list[at - 1]] < subtree[i]
                                                        : subtree[list[at - 1]] > subtree[i])) {
            list[at] = list[at - 1];
            at--;
        }
        list[at] = i;
    }
    free(fill);
    free(subtree);
    *start_out = start;
    *list_out = list;
    return MUSTER_OK;
}

static unsigned max_children(unsigned n, const uint32_t *start)
{
    unsigned most = 0;
    for (unsigned i = 0; i < n; i++)
        if (start[i + 1] - start[i] > most)
            most = start[i + 1] - start[i];
    return most;
}

int muster_plan_build(muster_barrier *b, const unsigned *parent)
{
    muster_wakeup wakeup = b->attr.wakeup;
    const unsigned *wake_parent = wakeup == MUSTER_WAKE_TREE ? parent : NULL;
    unsigned n = b->participants;
    muster_tree_plan *plan = &b->plan;
    bool global = wake_parent == NULL && wakeup == MUSTER_WAKE_GLOBAL;
    unsigned *tree = NULL;
    uint32_t *wake_start = NULL, *wake_list = NULL;

    if (!global) {
        tree = malloc(n * sizeof *tree);
        if (tree == NULL)
            return muster_fail(MUSTER_E_NOMEM, "no memory for the wake-up tree");
        if (wake_parent != NULL)
            memcpy(tree, wake_parent, n * sizeof *tree);
        else
            wake_parents(n, wakeup, b->attr.cluster_size, tree);
        if (children_of(n, tree, BIGGEST_FIRST, &wake_start, &wake_list) != MUSTER_OK) {
            free(tree);
            return muster_fail(MUSTER_E_NOMEM, "no memory for the wake-up tree");
        }
    }
    unsigned wake_flags = global ? 0 : max_children(n, wake_start);
    int rc = muster_layout(b, global ? 1 : 0, 1 + wake_flags);
    if (rc == MUSTER_OK && children_of(n, parent, SMALLEST_FIRST, &plan->arrive_start, &plan->arrive_poll) != MUSTER_OK)
        rc = muster_fail(MUSTER_E_NOMEM, "no memory for the arrival tree");
    plan->arrive_post = malloc(n * sizeof(uint32_t));
    plan->release_wait = malloc(n * sizeof(uint32_t));
    plan->release_start = calloc(n + 1, sizeof(uint32_t));
    plan->release_post = malloc((n ? n : 1) * sizeof(uint32_t));
    if (rc == MUSTER_OK && (!plan->arrive_post || !plan->release_wait || !plan->release_start || !plan->release_post))
        rc = muster_fail(MUSTER_E_NOMEM, "no memory for the barrier plan");
    if (rc != MUSTER_OK) {
        free(tree), free(wake_start), free(wake_list);
        return rc;
    }

    /* Arrival: children's flag 0 become offsets to poll; ours is flag 0. */
    for (unsigned k = 0; k < plan->arrive_start[n]; k++)
        plan->arrive_poll[k] = muster_participant_flag(b, plan->arrive_poll[k], 0);
    for (unsigned i = 0; i < n; i++)
        plan->arrive_post[i] = i == 0 ? MUSTER_NO_FLAG : muster_participant_flag(b, i, 0);

    /* Release: one global flag, or flag 1+k of the waker for its k-th child. */
    if (global) {
        for (unsigned i = 0; i < n; i++)
            plan->release_wait[i] = i == 0 ? MUSTER_NO_FLAG : muster_shared_flag(b, 0);
        plan->release_start[1] = 1;
        for (unsigned i = 1; i < n; i++)
            plan->release_start[i + 1] = 1;
        plan->release_post[0] = muster_shared_flag(b, 0);
    } else {
        plan->release_wait[0] = MUSTER_NO_FLAG;
        for (unsigned i = 0; i <= n; i++)
            plan->release_start[i] = wake_start[i];
        for (unsigned i = 0; i < n; i++) {
            for (unsigned k = wake_start[i]; k < wake_start[i + 1]; k++) {
                unsigned child = wake_list[k];
                uint32_t flag = muster_participant_flag(b, i, 1 + (k - wake_start[i]));
                plan->release_post[k] = flag;
                plan->release_wait[child] = flag;
            }
        }
    }
    b->plan_bytes = (size_t)(n + 1) * 2 * sizeof(uint32_t) + (size_t)n * 4 * sizeof(uint32_t);
    free(tree), free(wake_start), free(wake_list);
    return MUSTER_OK;
}

int muster_plan_init(muster_barrier *b)
{
    unsigned n = b->participants;
    unsigned *parent = malloc(n * sizeof *parent);
    unsigned *scratch = malloc(n * sizeof *scratch);
    int rc;
    if (parent == NULL || scratch == NULL) {
        rc = muster_fail(MUSTER_E_NOMEM, "no memory for the %s tree", muster_algorithm_name(b->attr.algorithm));
    } else {
        parent[0] = 0;
        b->ops->fill_parents(b, parent, scratch);
        rc = muster_plan_build(b, parent);
    }
    free(parent);
    free(scratch);
    return rc;
}

unsigned muster_tournament_rounds(unsigned *members, unsigned count, unsigned fan_in, bool balanced,
                                  unsigned *parent)
{
    /* Winners are compacted to the front of members after each round. */
    while (count > 1) {
        unsigned groups = (count + fan_in - 1) / fan_in;
        unsigned at = 0;
        for (unsigned g = 0; g < groups; g++) {
            unsigned size = fan_in;
            if (balanced)
                size = count / groups + (g < count % groups ? 1 : 0);
            if (at + size > count)
                size = count - at;
            unsigned winner = members[at];
            for (unsigned k = 1; k < size; k++)
                parent[members[at + k]] = winner;
            members[g] = winner;
            at += size;
        }
        count = groups;
    }
    return members[0];
}

void muster_plan_free(muster_barrier *b)
{
    muster_tree_plan *plan = &b->plan;
    free(plan->arrive_start), free(plan->arrive_poll), free(plan->arrive_post);
    free(plan->release_wait), free(plan->release_start), free(plan->release_post);
    memset(plan, 0, sizeof *plan);
}

void muster_plan_schedule(const muster_barrier *b, unsigned id, muster_schedule *s)
{
    const muster_tree_plan *plan = &b->plan;
    for (uint32_t k = plan->arrive_start[id]; k < plan->arrive_start[id + 1]; k++)
        muster_schedule_add(s, MUSTER_STEP_WAIT, plan->arrive_poll[k], 0);
    if (plan->arrive_post[id] != MUSTER_NO_FLAG) {
        muster_schedule_add(s, MUSTER_STEP_PUBLISH, plan->arrive_post[id], 0);
        muster_schedule_add(s, MUSTER_STEP_WAIT, plan->release_wait[id], 0);
    } else {
        muster_schedule_add(s, MUSTER_STEP_ALL_ARRIVED, 0, 0);
    }
    for (uint32_t k = plan->release_start[id]; k < plan->release_start[id + 1]; k++)
        muster_schedule_add(s, MUSTER_STEP_PUBLISH, plan->release_post[k], 0);
    muster_schedule_add(s, MUSTER_STEP_DONE, 0, 0);
}

/* Waits for the arrival flags of id's children in episode `episode`. */
static int gather_children(muster_barrier *b, unsigned id, uint32_t episode, const muster_waiter *waiter)
{
    const muster_tree_plan *plan = &b->plan;
    for (uint32_t k = plan->arrive_start[id]; k < plan->arrive_start[id + 1]; k++) {
        int rc = muster_wait_reach(muster_flag_at(b, plan->arrive_poll[k]), episode, waiter);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void release_children(muster_barrier *b, unsigned id, uint32_t episode)
{
    const muster_tree_plan *plan = &b->plan;
    for (uint32_t k = plan->release_start[id]; k < plan->release_start[id + 1]; k++)
        muster_flag_publish(muster_flag_at(b, plan->release_post[k]), episode, b->may_sleep);
}

int muster_plan_wait(muster_barrier *b, unsigned id, const muster_waiter *waiter)
{
    const muster_tree_plan *plan = &b->plan;
    uint32_t episode = muster_next_episode(b, id);
    int rc = gather_children(b, id, episode, waiter);
    if (rc != 0)
        return rc;
    if (plan->arrive_post[id] != MUSTER_NO_FLAG) {
        muster_flag_publish(muster_flag_at(b, plan->arrive_post[id]), episode, b->may_sleep);
        rc = muster_wait_reach(muster_flag_at(b, plan->release_wait[id]), episode, waiter);
        if (rc != 0)
            return rc;
    }
    release_children(b, id, episode);
    return id == 0 ? MUSTER_BARRIER_SERIAL : 0;
}

/* The root is participant 0 in every plan: once its children have arrived,
 * everybody has, and nobody moves until it publishes the release. */
int muster_plan_gather(muster_barrier *b, const muster_waiter *waiter)
{
    return gather_children(b, 0, muster_next_episode(b, 0), waiter);
}

void muster_plan_release(muster_barrier *b)
{
    release_children(b, 0, muster_current_episode(b, 0));
}
