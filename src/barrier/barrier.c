/* The public API: resolves attributes, dispatches to the algorithm, and owns
 * what every algorithm shares — participant checks, deadlines, abort/reset. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "names.h"
#include "platform/cpus.h"
#include "platform/platform.h"
#include "wait/census.h"

/* ---- algorithms ---- */

static const muster_barrier_ops *const algorithm_ops[MUSTER_ALG_COUNT] = {
    [MUSTER_ALG_CENTRAL_BLOCKING] = &muster_central_blocking_ops,
    [MUSTER_ALG_CENTRAL_SENSE] = &muster_central_sense_ops,
    [MUSTER_ALG_DISSEMINATION] = &muster_dissemination_ops,
    [MUSTER_ALG_COMBINING_TREE] = &muster_combining_tree_ops,
    [MUSTER_ALG_MCS_TREE] = &muster_mcs_tree_ops,
    [MUSTER_ALG_TOURNAMENT] = &muster_tournament_ops,
    [MUSTER_ALG_STATIC_FWAY] = &muster_static_fway_ops,
    [MUSTER_ALG_DYNAMIC_FWAY] = &muster_dynamic_fway_ops,
    [MUSTER_ALG_HYPER] = &muster_hyper_ops,
    [MUSTER_ALG_TUNED] = &muster_tuned_ops,
};

/* ---- attributes ---- */

void muster_barrier_attr_init(muster_barrier_attr *attr)
{
    if (attr == NULL)
        return;
    memset(attr, 0, sizeof *attr);
    attr->spin_ns = -1;
}

/* The auto selector: a rule from the papers.  Oversubscribed, a single
 * release flag means one futex wake for everybody.  Within one cluster of
 * N_c CPUs every flag is a cache-local hop and dissemination's log2 P
 * rounds are cheapest; beyond it the tournament family wins (Gao et al.,
 * §VI, reproduced by test_model_agreement), so the tuned barrier. */
static muster_algorithm select_algorithm(unsigned participants, unsigned cpus)
{
    if (participants > cpus)
        return MUSTER_ALG_CENTRAL_SENSE;
    return participants <= muster_default_cluster_size(NULL) ? MUSTER_ALG_DISSEMINATION : MUSTER_ALG_TUNED;
}

static int check_attr_ranges(const muster_barrier_attr *a)
{
    if ((unsigned)a->algorithm >= MUSTER_ALG_COUNT)
        return muster_fail(MUSTER_E_INVAL, "algorithm %d is not a muster_algorithm", (int)a->algorithm);
    if ((unsigned)a->wait_policy >= MUSTER_WAIT_COUNT)
        return muster_fail(MUSTER_E_INVAL, "wait policy %d is not a muster_wait_policy", (int)a->wait_policy);
    if ((unsigned)a->wakeup >= MUSTER_WAKE_COUNT)
        return muster_fail(MUSTER_E_INVAL, "wake-up %d is not a muster_wakeup", (int)a->wakeup);
    if ((unsigned)a->padding >= MUSTER_PAD_COUNT)
        return muster_fail(MUSTER_E_INVAL, "padding %d is not a muster_padding", (int)a->padding);
    if (a->spin_ns > MUSTER_MAX_SPIN_NS)
        return muster_fail(MUSTER_E_INVAL, "spin budget %lld ns exceeds the maximum %lld ns",
                           (long long)a->spin_ns, (long long)MUSTER_MAX_SPIN_NS);
    if (a->cluster_size > MUSTER_MAX_PARTICIPANTS)
        return muster_fail(MUSTER_E_INVAL, "cluster size %u exceeds the maximum %u",
                           a->cluster_size, MUSTER_MAX_PARTICIPANTS);
    return MUSTER_OK;
}

static int resolve_fan_in(const muster_barrier_ops *ops, muster_barrier_attr *a)
{
    const char *name = muster_algorithm_name(ops->algorithm);
    if (ops->default_fan_in == 0) {
        if (a->fan_in != 0)
            return muster_fail(MUSTER_E_UNSUPPORTED, "fan-in %u given, but %s has no fan-in", a->fan_in, name);
        return MUSTER_OK;
    }
    if (a->fan_in == 0)
        a->fan_in = ops->default_fan_in;
    unsigned hi = ops->max_fan_in ? ops->max_fan_in : MUSTER_MAX_FAN_IN;
    if (a->fan_in < 2 || a->fan_in > hi)
        return muster_fail(MUSTER_E_INVAL, "fan-in %u is out of range [2, %u] for %s", a->fan_in, hi, name);
    if (ops->fan_in_power_of_two && (a->fan_in & (a->fan_in - 1)) != 0)
        return muster_fail(MUSTER_E_INVAL, "fan-in %u is not a power of two, as %s requires", a->fan_in, name);
    return MUSTER_OK;
}

static int resolve_shape(const muster_barrier_ops *ops, muster_barrier_attr *a)
{
    const char *name = muster_algorithm_name(ops->algorithm);
    if (a->wakeup == MUSTER_WAKE_DEFAULT)
        a->wakeup = ops->default_wakeup;
    else if (!(ops->wakeups & (1u << a->wakeup)))
        return muster_fail(MUSTER_E_UNSUPPORTED, "wake-up '%s' is not available for %s",
                           muster_wakeup_name(a->wakeup), name);
    if (ops->default_padding == MUSTER_PAD_DEFAULT) {
        if (a->padding != MUSTER_PAD_DEFAULT)
            return muster_fail(MUSTER_E_UNSUPPORTED, "%s has no flags to pad", name);
    } else if (a->padding == MUSTER_PAD_DEFAULT) {
        a->padding = ops->default_padding;
    }
    /* Clusters shape tuned's arrival groups and any cluster-aware wake-up. */
    if (!ops->uses_cluster_size && a->wakeup != MUSTER_WAKE_CLUSTER) {
        if (a->cluster_size != 0)
            return muster_fail(MUSTER_E_UNSUPPORTED, "cluster size %u given, but %s does not use clusters",
                               a->cluster_size, name);
    } else if (a->cluster_size == 0) {
        a->cluster_size = muster_default_cluster_size(NULL);
    }
    return MUSTER_OK;
}

static void resolve_wait(muster_barrier *b)
{
    muster_barrier_attr *a = &b->attr;
    b->waiter = muster_team_waiter(b->participants, a->wait_policy, a->spin_ns, &a->spin_ns);
    a->wait_policy = b->waiter.policy;
    b->may_sleep = a->wait_policy != MUSTER_WAIT_ACTIVE;
}

/* The census (wait/census.h), when the wait policy module says it pays. */
static int attach_census(muster_barrier *b)
{
    muster_census_plan plan = muster_census_plan_for(b->participants, &b->waiter, b->ops->waits_only_for_release);
    if (!plan.attach)
        return MUSTER_OK;
    b->census = muster_census_create(b->participants);
    if (b->census == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the CPU census of %u participants", b->participants);
    b->waiter.census = b->census;
    b->waiter.share_ns = plan.share_ns;
    return MUSTER_OK;
}

static int resolve_attr(muster_barrier *b, const muster_barrier_attr *given)
{
    muster_barrier_attr defaults;
    muster_barrier_attr_init(&defaults);
    b->attr = given ? *given : defaults;
    int rc = check_attr_ranges(&b->attr);
    if (rc != MUSTER_OK)
        return rc;
    unsigned cpus = muster_cpus_available();
    if (b->attr.algorithm == MUSTER_ALG_AUTO) {
        const muster_env_config *env = muster_env();
        b->attr.algorithm = env->has_algorithm ? env->algorithm : MUSTER_ALG_AUTO;
        if (b->attr.algorithm == MUSTER_ALG_AUTO)
            b->attr.algorithm = select_algorithm(b->participants, cpus);
    }
    b->ops = algorithm_ops[b->attr.algorithm];
    rc = resolve_fan_in(b->ops, &b->attr);
    if (rc == MUSTER_OK)
        rc = resolve_shape(b->ops, &b->attr);
    if (rc == MUSTER_OK)
        resolve_wait(b);
    return rc;
}

/* ---- lifecycle ---- */

int muster_barrier_create(muster_barrier **out, unsigned participants, const muster_barrier_attr *attr)
{
    if (out == NULL)
        return muster_fail(MUSTER_E_INVAL, "the barrier pointer to fill in is NULL");
    *out = NULL;
    if (participants == 0 || participants > MUSTER_MAX_PARTICIPANTS)
        return muster_fail(MUSTER_E_INVAL, "%u participants is out of range [1, %u]", participants,
                           MUSTER_MAX_PARTICIPANTS);
    muster_barrier *b = calloc(1, sizeof *b);
    if (b == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the barrier object");
    b->participants = participants;
    int rc = resolve_attr(b, attr);
    if (rc == MUSTER_OK)
        rc = b->ops->init(b);
    if (rc == MUSTER_OK)
        rc = attach_census(b);
    if (rc != MUSTER_OK) {
        muster_barrier_destroy(b);
        return rc;
    }
    *out = b;
    return MUSTER_OK;
}

void muster_barrier_destroy(muster_barrier *b)
{
    if (b == NULL)
        return;
    if (b->ops != NULL && b->ops->destroy != NULL)
        b->ops->destroy(b);
    muster_plan_free(b);
    muster_census_destroy(b->census);
    muster_unmap(b->arena, b->arena_bytes);
    free(b);
}

/* ---- waiting ---- */

/* The checks every participant call starts with: 0, or why it cannot go on. */
static int check_participant(muster_barrier *b, unsigned id)
{
    if (b == NULL)
        return muster_fail(MUSTER_E_INVAL, "barrier is NULL");
    if (id >= b->participants)
        return muster_fail(MUSTER_E_RANGE, "participant id %u is out of range [0, %u)", id, b->participants);
    /* relaxed: a stale 0 is harmless, the flags themselves carry BROKEN. */
    if (atomic_load_explicit(&b->broken, memory_order_relaxed))
        return MUSTER_E_BROKEN;
    return 0;
}

/* Participant id's waiter for one wait, with the census told it is here.
 * Sharing counts every arrival.  The guard notes the CPU here as well as in
 * the slow path: a thread that always arrives last never waits, and its
 * mate must still see where it runs. */
static muster_waiter waiter_for(muster_barrier *b, unsigned id, uint64_t deadline_ns, const muster_wait_work *work)
{
    muster_waiter waiter = b->waiter;
    waiter.deadline_ns = deadline_ns;
    waiter.work = work;
    waiter.census_id = id;
    if (b->waiter.share_ns > 0)
        muster_census_arrive(b->census, id, false);
    else if (b->census != NULL)
        muster_census_note_cpu(b->census, id, muster_current_cpu());
    return waiter;
}

static int enter(muster_barrier *b, unsigned id, uint64_t deadline_ns, const muster_wait_work *work)
{
    int rc = check_participant(b, id);
    if (rc != 0)
        return rc;
    muster_waiter waiter = waiter_for(b, id, deadline_ns, work);
    rc = b->ops->wait(b, id, &waiter);
    if (rc == MUSTER_E_TIMEDOUT)
        muster_barrier_abort(b);
    return rc;
}

/* 0 = no deadline; a timeout past the end of time saturates to none. */
static uint64_t deadline_after(uint64_t timeout_ns)
{
    uint64_t now = muster_now_ns();
    return timeout_ns > UINT64_MAX - now ? 0 : now + timeout_ns;
}

int muster_barrier_wait(muster_barrier *b, unsigned id)
{
    return enter(b, id, 0, NULL);
}

int muster_barrier_wait_working(muster_barrier *b, unsigned id, const muster_wait_work *work)
{
    return enter(b, id, 0, work);
}

muster_census *muster_barrier_census(muster_barrier *b)
{
    return b->census;
}

void muster_barrier_nudge(muster_barrier *b)
{
    (void)muster_barrier_nudge_some(b, INT_MAX);
}

int muster_barrier_nudge_some(muster_barrier *b, int count)
{
    int woken = 0;
    for (unsigned k = 0; k < b->shared_flags && woken < count; k++)
        woken += muster_flag_nudge_some(muster_flag_at(b, muster_shared_flag(b, k)), count - woken);
    for (unsigned id = 0; id < b->participants && woken < count; id++)
        for (unsigned k = 0; k < b->flags_per_participant && woken < count; k++)
            woken += muster_flag_nudge_some(muster_flag_at(b, muster_participant_flag(b, id, k)), count - woken);
    return woken;
}

int muster_barrier_wait_timeout(muster_barrier *b, unsigned id, uint64_t timeout_ns)
{
    return enter(b, id, deadline_after(timeout_ns), NULL);
}

/* ---- split-phase episodes ---- */

int muster_barrier_can_arrive(const muster_barrier *b)
{
    return b != NULL && b->ops->arrive != NULL;
}

int muster_barrier_arrive(muster_barrier *b, unsigned id, muster_arrival *token)
{
    return muster_barrier_arrive_then(b, id, token, NULL, NULL);
}

int muster_barrier_arrive_then(muster_barrier *b, unsigned id, muster_arrival *token, void (*on_complete)(void *),
                               void *arg)
{
    int rc = check_participant(b, id);
    if (rc != 0)
        return rc;
    if (token == NULL)
        return muster_fail(MUSTER_E_INVAL, "arrival token is NULL");
    if (b->ops->arrive == NULL)
        return muster_fail(MUSTER_E_UNSUPPORTED, "%s has no split-phase arrival (central-sense and "
                           "central-blocking have)", muster_algorithm_name(b->ops->algorithm));
    uint64_t episode;
    rc = b->ops->arrive(b, id, &episode, on_complete, arg);
    token->episode = episode;
    return rc;
}

static int await(muster_barrier *b, unsigned id, muster_arrival token, uint64_t deadline_ns)
{
    int rc = check_participant(b, id);
    if (rc != 0)
        return rc;
    if (b->ops->await == NULL)
        return muster_fail(MUSTER_E_UNSUPPORTED, "%s has no split-phase arrival (central-sense and "
                           "central-blocking have)", muster_algorithm_name(b->ops->algorithm));
    muster_waiter waiter = waiter_for(b, id, deadline_ns, NULL);
    rc = b->ops->await(b, id, token.episode, &waiter);
    if (rc == MUSTER_E_TIMEDOUT)
        muster_barrier_abort(b);
    return rc;
}

int muster_barrier_await(muster_barrier *b, unsigned id, muster_arrival token)
{
    return await(b, id, token, 0);
}

int muster_barrier_await_timeout(muster_barrier *b, unsigned id, muster_arrival token, uint64_t timeout_ns)
{
    return await(b, id, token, deadline_after(timeout_ns));
}

int muster_barrier_can_split(const muster_barrier *b)
{
    return b != NULL && b->ops->gather != NULL;
}

static int gather(muster_barrier *b, const muster_wait_work *work);

int muster_barrier_gather(muster_barrier *b)
{
    return gather(b, NULL);
}

int muster_barrier_gather_working(muster_barrier *b, const muster_wait_work *work)
{
    return gather(b, work);
}

static int gather(muster_barrier *b, const muster_wait_work *work)
{
    if (b == NULL)
        return muster_fail(MUSTER_E_INVAL, "barrier is NULL");
    if (b->ops->gather == NULL)
        return muster_fail(MUSTER_E_UNSUPPORTED, "%s cannot split an episode (its last arriver releases)",
                           muster_algorithm_name(b->attr.algorithm));
    /* relaxed: as in check_participant(). */
    if (atomic_load_explicit(&b->broken, memory_order_relaxed))
        return MUSTER_E_BROKEN;
    if (b->waiter.share_ns > 0)
        muster_census_arrive(b->census, 0, true); /* b->waiter's census_id is 0 */
    muster_waiter waiter = b->waiter;
    waiter.work = work;
    return b->ops->gather(b, &waiter);
}

int muster_barrier_release(muster_barrier *b)
{
    if (b == NULL)
        return muster_fail(MUSTER_E_INVAL, "barrier is NULL");
    if (b->ops->release == NULL)
        return muster_fail(MUSTER_E_UNSUPPORTED, "%s cannot split an episode (its last arriver releases)",
                           muster_algorithm_name(b->attr.algorithm));
    b->ops->release(b);
    return MUSTER_OK;
}

int muster_barrier_abort(muster_barrier *b)
{
    if (b == NULL)
        return muster_fail(MUSTER_E_INVAL, "barrier is NULL");
    atomic_store(&b->broken, 1);
    /* Break every flag: a spinner sees the bit on the word it polls, and a
     * sleeper's futex word changes, so its wait cannot miss the wake. */
    for (unsigned k = 0; k < b->shared_flags; k++)
        muster_flag_break(muster_flag_at(b, muster_shared_flag(b, k)));
    for (unsigned id = 0; id < b->participants; id++)
        for (unsigned k = 0; k < b->flags_per_participant; k++)
            muster_flag_break(muster_flag_at(b, muster_participant_flag(b, id, k)));
    if (b->ops->abort != NULL)
        b->ops->abort(b);
    return MUSTER_OK;
}

int muster_barrier_reset(muster_barrier *b)
{
    if (b == NULL)
        return muster_fail(MUSTER_E_INVAL, "barrier is NULL");
    /* Dropping the pages zeroes every flag and private counter, and leaves
     * them untouched again, so first touch still places them. */
    if (b->arena != NULL && muster_release_pages(b->arena, b->arena_bytes) != 0)
        return muster_fail(MUSTER_E_SYSTEM, "cannot release the barrier's pages (madvise) while resetting it");
    if (b->ops->reset != NULL)
        b->ops->reset(b);
    if (b->census != NULL)
        muster_census_reset(b->census);
    atomic_store(&b->broken, 0);
    return MUSTER_OK;
}

int muster_barrier_is_broken(const muster_barrier *b)
{
    /* relaxed: a status query, it orders nothing. */
    return b != NULL && atomic_load_explicit(&b->broken, memory_order_relaxed) != 0;
}

int muster_barrier_get_attr(const muster_barrier *b, muster_barrier_attr *out)
{
    if (b == NULL || out == NULL)
        return muster_fail(MUSTER_E_INVAL, "barrier or output is NULL");
    *out = b->attr;
    return MUSTER_OK;
}

unsigned muster_barrier_participants(const muster_barrier *b)
{
    return b ? b->participants : 0;
}

size_t muster_barrier_state_bytes(const muster_barrier *b)
{
    if (b == NULL)
        return 0;
    return (b->used_bytes + b->plan_bytes) / b->participants;
}
