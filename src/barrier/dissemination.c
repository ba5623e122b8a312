/* Dissemination barrier (Hensgen, Finkel & Manber; Nanjegowda §3.3; Gao DIS):
 * in round r participant i signals (i + 2^r) mod P and waits for
 * (i - 2^r) mod P.  After ceil(log2 P) rounds everyone knows everyone has
 * arrived; there is no release phase.  Flag r of participant i is the one it
 * writes in round r.  Episode counters replace the paper's parity and sense:
 * a partner may run one episode ahead, which "reached" still accepts. */
#include "internal.h"

static unsigned rounds_for(unsigned participants)
{
    unsigned rounds = 0;
    while ((1u << rounds) < participants)
        rounds++;
    return rounds;
}

static int init(muster_barrier *b)
{
    return muster_layout(b, 0, rounds_for(b->participants));
}

static int wait(muster_barrier *b, unsigned id, const muster_waiter *waiter)
{
    uint32_t episode = muster_next_episode(b, id);
    unsigned p = b->participants;
    for (unsigned r = 0, distance = 1; distance < p; r++, distance <<= 1) {
        unsigned from = (id + p - distance) % p;
        muster_flag_publish(muster_flag_at(b, muster_participant_flag(b, id, r)), episode, b->may_sleep);
        int rc = muster_wait_reach(muster_flag_at(b, muster_participant_flag(b, from, r)), episode, waiter);
        if (rc != 0)
            return rc;
    }
    /* Nobody is last here; participant 0 takes the serial role. */
    return id == 0 ? MUSTER_BARRIER_SERIAL : 0;
}

static void schedule(const muster_barrier *b, unsigned id, muster_schedule *s)
{
    unsigned p = b->participants;
    for (unsigned r = 0, distance = 1; distance < p; r++, distance <<= 1) {
        unsigned from = (id + p - distance) % p;
        muster_schedule_add(s, MUSTER_STEP_PUBLISH, muster_participant_flag(b, id, r), 0);
        muster_schedule_add(s, MUSTER_STEP_WAIT, muster_participant_flag(b, from, r), 0);
    }
    muster_schedule_add(s, MUSTER_STEP_ALL_ARRIVED, 0, 0);
    muster_schedule_add(s, MUSTER_STEP_DONE, 0, 0);
}

const muster_barrier_ops muster_dissemination_ops = {
    .algorithm = MUSTER_ALG_DISSEMINATION,
    .default_wakeup = MUSTER_WAKE_GLOBAL, /* no release phase at all */
    .wakeups = 1u << MUSTER_WAKE_GLOBAL,
    .default_padding = MUSTER_PAD_PADDED,
    .init = init,
    .wait = wait,
    .schedule = schedule,
};
