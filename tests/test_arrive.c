/* Split-phase episodes (muster_barrier_arrive / muster_barrier_await): each
 * participant writes its part of episode e into plain memory, arrives, does
 * unrelated work, awaits, and then must find every participant's part of
 * episode e.  The parts are double-buffered (episode e's in buffer e % 2),
 * so the reads are race-free only if the await really orders them after
 * everyone's arrival: ThreadSanitizer checks that.  Exactly one arrival per
 * episode is told it completed the episode (MUSTER_BARRIER_SERIAL, also
 * counting full waits mixed in), and the completion step given to
 * muster_barrier_arrive_then runs once per episode, before any await of
 * the episode returns.  Runs for participants 1, 2, 3, 5, 7
 * (oversubscribed on small machines), with random delays, under each wait
 * policy.  Then: a timed await that outlives its deadline breaks the
 * barrier; algorithms without split-phase episodes say MUSTER_E_UNSUPPORTED.
 *
 * usage: test_arrive ALGORITHM */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "stress_common.h"

#define MAX_PARTICIPANTS 8

typedef struct team {
    muster_barrier *barrier;
    unsigned participants, episodes;
    unsigned long parts[2][MAX_PARTICIPANTS]; /* plain: episode e's in [e % 2] */
    _Atomic unsigned *serial;                 /* per episode: arrivals told SERIAL */
    _Atomic int failures;
} team;

static void fail(team *t, const char *what, unsigned id, unsigned e)
{
    fprintf(stderr, "participant %u, episode %u: %s\n", id, e, what);
    atomic_fetch_add(&t->failures, 1);
}

/* In some episodes the even participants run one full wait instead. */
static int full_episode(unsigned id, unsigned e)
{
    return e % 7 == 3 && id % 2 == 0;
}

/* The completion step: the arrival that completes an episode records it,
 * before anyone's await returns. */
typedef struct completion {
    team *team;
    unsigned episode;
} completion;

static unsigned long completed; /* plain: the last episode completed + 1 */

static void complete_episode(void *arg)
{
    completion *c = arg;
    if (completed > c->episode)
        fail(c->team, "the completion step ran twice or out of order", 0, c->episode);
    completed = c->episode + 1;
}

/* One episode of participant id; false when the team should stop. */
static int episode(team *t, unsigned id, unsigned *seed, unsigned e)
{
    t->parts[e % 2][id] = e + 1;
    int rc;
    if (full_episode(id, e)) {
        rc = muster_barrier_wait(t->barrier, id);
    } else {
        muster_arrival token;
        completion c = {t, e};
        rc = muster_barrier_arrive_then(t->barrier, id, &token, complete_episode, &c);
        if (rc >= 0) {
            random_delay(seed); /* work between arrival and wait */
            int waited = muster_barrier_await(t->barrier, id, token);
            if (waited != 0)
                rc = waited;
        }
    }
    if (rc < 0) {
        fail(t, muster_error_detail(), id, e);
        return 0;
    }
    if (rc == MUSTER_BARRIER_SERIAL)
        atomic_fetch_add(&t->serial[e], 1);
    /* With a full wait in the episode the completing arrival may be one. */
    if (e % 7 != 3 && completed != e + 1) {
        fail(t, "the await returned before the completion step", id, e);
        return 0;
    }
    for (unsigned j = 0; j < t->participants; j++)
        if (t->parts[e % 2][j] != e + 1) {
            fail(t, "a participant's part of the episode was not there after the await", id, e);
            return 0;
        }
    return 1;
}

static void *member_main(void *arg)
{
    team_member *m = arg;
    team *t = m->shared;
    unsigned seed = 0x7654321u * (m->id + 1) + t->participants;
    for (unsigned e = 0; e < t->episodes && atomic_load(&t->failures) == 0; e++) {
        random_delay(&seed);
        if (!episode(t, m->id, &seed, e))
            break;
    }
    if (atomic_load(&t->failures) != 0)
        muster_barrier_abort(t->barrier); /* free the others to report and exit */
    return NULL;
}

static void run_team(const muster_barrier_attr *attr, unsigned participants)
{
    static team t;
    memset(&t, 0, sizeof t);
    t.participants = participants;
    t.episodes = scaled(participants > online_cpus() ? 300 : 1500);
    t.serial = calloc(t.episodes, sizeof *t.serial);
    CHECK(t.serial != NULL);
    CHECK(muster_barrier_create(&t.barrier, participants, attr) == MUSTER_OK, "%s", muster_error_detail());
    CHECK(muster_barrier_can_arrive(t.barrier));
    completed = 0;
    test_threads members = test_threads_start(participants, member_main, &t);
    test_threads_join(&members);
    CHECK(atomic_load(&t.failures) == 0, "%u participants", participants);
    for (unsigned e = 0; e < t.episodes; e++)
        CHECK(atomic_load(&t.serial[e]) == 1, "%u participants, episode %u: %u arrivals told SERIAL", participants,
              e, atomic_load(&t.serial[e]));
    free(t.serial);
    muster_barrier_destroy(t.barrier);
}

/* Participant 0 arrives and awaits 20 ms while participant 1 never comes:
 * TIMEDOUT, the barrier broken for participant 1, and usable after reset. */
static void check_timeout(const muster_barrier_attr *attr)
{
    muster_barrier *b;
    CHECK(muster_barrier_create(&b, 2, attr) == MUSTER_OK);
    muster_arrival token;
    CHECK(muster_barrier_arrive(b, 0, &token) == 0);
    uint64_t start = test_now_ns();
    CHECK(muster_barrier_await_timeout(b, 0, token, 20000000u) == MUSTER_E_TIMEDOUT);
    CHECK(test_now_ns() - start >= 19000000u, "the await returned before its deadline");
    CHECK(muster_barrier_is_broken(b) == 1);
    CHECK(muster_barrier_arrive(b, 1, &token) == MUSTER_E_BROKEN);
    CHECK(muster_barrier_wait(b, 1) == MUSTER_E_BROKEN);
    CHECK(muster_barrier_reset(b) == MUSTER_OK);
    /* After the reset: both arrive, and the second completes the episode. */
    CHECK(muster_barrier_arrive(b, 0, &token) == 0);
    muster_arrival second;
    CHECK(muster_barrier_arrive(b, 1, &second) == MUSTER_BARRIER_SERIAL);
    CHECK(muster_barrier_await(b, 1, second) == 0);
    CHECK(muster_barrier_await(b, 0, token) == 0);
    CHECK(muster_barrier_arrive(b, 0, NULL) == MUSTER_E_INVAL);
    CHECK(muster_barrier_arrive(b, 2, &token) == MUSTER_E_RANGE);
    muster_barrier_destroy(b);
}

static void check_unsupported(muster_algorithm algorithm)
{
    muster_barrier *b = test_barrier(algorithm, 3);
    CHECK(!muster_barrier_can_arrive(b));
    muster_arrival token = {0};
    CHECK(muster_barrier_arrive(b, 0, &token) == MUSTER_E_UNSUPPORTED);
    CHECK(strstr(muster_error_detail(), "no split-phase arrival") != NULL, "%s", muster_error_detail());
    CHECK(muster_barrier_await(b, 0, token) == MUSTER_E_UNSUPPORTED);
    /* Nothing was counted: a full episode still works. */
    CHECK(muster_barrier_is_broken(b) == 0);
    muster_barrier_destroy(b);
}

int main(int argc, char **argv)
{
    muster_algorithm algorithm = test_algorithm_argument(argc, argv);
    if (!algorithm_can(algorithm, muster_barrier_can_arrive)) {
        check_unsupported(algorithm);
        printf("test_arrive: %s has no split-phase episodes, as it says: ok\n", argv[1]);
        return 0;
    }
    static const unsigned sizes[] = {1, 2, 3, 5, 7};
    static const muster_wait_policy policies[] = {MUSTER_WAIT_ACTIVE, MUSTER_WAIT_PASSIVE, MUSTER_WAIT_HYBRID};
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = algorithm;
    unsigned teams = 0;
    for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            /* Spinning threads that outnumber CPUs only burn time. */
            if (policies[p] == MUSTER_WAIT_ACTIVE && sizes[s] > online_cpus())
                continue;
            attr.wait_policy = policies[p];
            run_team(&attr, sizes[s]);
            teams++;
        }
    attr.wait_policy = MUSTER_WAIT_HYBRID;
    check_timeout(&attr);
    printf("test_arrive: %s, %u teams: ok\n", argv[1], teams);
    return 0;
}
