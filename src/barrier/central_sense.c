/* Central sense-reversing barrier (Nanjegowda §3.2; Gao SENSE; libgomp's
 * design): one shared arrival counter, one global release flag.  The release
 * flag carries the episode number, which plays the part of the sense.
 * For split episodes (muster_barrier_gather) participant 0 does not count
 * itself: it waits on a third flag, GATHERED, that the arrival of another
 * member bringing the count to participants - 1 publishes, and later
 * releases everybody.
 * The release wakes every sleeper with one FUTEX_WAKE, not a wake-up tree
 * (see docs/tuning.md, central-sense release). */
#include "internal.h"

enum { COUNTER, RELEASE, GATHERED };

static int init(muster_barrier *b)
{
    return muster_layout(b, 3, 0);
}

/* The arrival half of an episode: one increment; the last arriver resets
 * the counter, runs on_complete, and publishes the release. */
static int arrive(muster_barrier *b, unsigned id, uint64_t *token, void (*on_complete)(void *), void *arg)
{
    uint32_t episode = muster_next_episode(b, id);
    *token = episode;
    muster_flag *counter = muster_flag_at(b, muster_shared_flag(b, COUNTER));
    /* acq_rel: pairs with the other arrivers' acq_rel increments of this counter, so the last
     * arriver acquires everyone's writes, and its release publish below (muster_flag_publish())
     * passes them on. */
    uint32_t arrived = (atomic_fetch_add_explicit(counter, 1u, memory_order_acq_rel) & MUSTER_FLAG_VALUE_MASK) + 1u;
    MUSTER_INVARIANT(arrived <= b->participants, "arrival %u of an episode of %u participants (id %u)", arrived,
                     b->participants, id);
    if (arrived < b->participants) {
        /* Tells a gathering participant 0 that all the others are in; when
         * participant 0 runs full episodes this is one unwatched store.
         * Participant 0 itself never publishes: preempted between its
         * increment and the store, it could overwrite the next episode's
         * GATHERED with this one's while the others run on, and its next
         * gather would wait forever.  A member's late store always lands
         * before its own next arrival, so before any later GATHERED. */
        if (arrived == b->participants - 1 && id != 0)
            muster_flag_publish(muster_flag_at(b, muster_shared_flag(b, GATHERED)), episode, b->may_sleep);
        return 0;
    }
    /* relaxed: ordered before the next episode's increments by the release. */
    atomic_store_explicit(counter, 0, memory_order_relaxed);
    if (on_complete != NULL)
        on_complete(arg);
    muster_flag_publish(muster_flag_at(b, muster_shared_flag(b, RELEASE)), episode, b->may_sleep);
    return MUSTER_BARRIER_SERIAL;
}

/* The waiting half: the release of the episode arrived at.  It cannot have
 * moved past it: the next episode needs this participant's arrival. */
static int await(muster_barrier *b, unsigned id, uint64_t token, const muster_waiter *waiter)
{
    (void)id;
    return muster_wait_reach(muster_flag_at(b, muster_shared_flag(b, RELEASE)), (uint32_t)token, waiter);
}

static int wait(muster_barrier *b, unsigned id, const muster_waiter *waiter)
{
    uint64_t episode;
    int rc = arrive(b, id, &episode, NULL, NULL);
    return rc != 0 ? rc : await(b, id, episode, waiter);
}

static int gather(muster_barrier *b, const muster_waiter *waiter)
{
    uint32_t episode = muster_next_episode(b, 0);
    if (b->participants == 1)
        return 0;
    int rc = muster_wait_reach(muster_flag_at(b, muster_shared_flag(b, GATHERED)), episode, waiter);
    /* relaxed: nobody increments again before the release below publishes. */
    atomic_store_explicit(muster_flag_at(b, muster_shared_flag(b, COUNTER)), 0, memory_order_relaxed);
    return rc;
}

static void release(muster_barrier *b)
{
    muster_flag_publish(muster_flag_at(b, muster_shared_flag(b, RELEASE)), muster_current_episode(b, 0),
                        b->may_sleep);
}

static void schedule(const muster_barrier *b, unsigned id, muster_schedule *s)
{
    uint32_t counter = muster_shared_flag(b, COUNTER), release = muster_shared_flag(b, RELEASE);
    unsigned arrive = muster_schedule_add(s, MUSTER_STEP_ARRIVE, counter, b->participants);
    muster_schedule_add(s, MUSTER_STEP_CLEAR, counter, 0);
    muster_schedule_add(s, MUSTER_STEP_ALL_ARRIVED, 0, 0);
    muster_schedule_add(s, MUSTER_STEP_PUBLISH, release, 0);
    muster_schedule_add(s, MUSTER_STEP_DONE, 0, 0);
    unsigned wait = muster_schedule_add(s, MUSTER_STEP_WAIT, release, 0);
    muster_schedule_add(s, MUSTER_STEP_DONE, 0, 0);
    if (!s->out_of_memory)
        s->steps[arrive].next = wait;
}

const muster_barrier_ops muster_central_sense_ops = {
    .algorithm = MUSTER_ALG_CENTRAL_SENSE,
    .default_wakeup = MUSTER_WAKE_GLOBAL,
    .wakeups = 1u << MUSTER_WAKE_GLOBAL,
    .waits_only_for_release = true,
    .default_padding = MUSTER_PAD_PADDED,
    .init = init,
    .wait = wait,
    .gather = gather,
    .release = release,
    .arrive = arrive,
    .await = await,
    .schedule = schedule,
};
