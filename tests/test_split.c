/* Split episodes (muster_barrier_gather / muster_barrier_release), as a
 * fork/join pool uses them: participant 0 gathers, then - with everybody
 * else still held - writes the next "region" into plain (non-atomic)
 * memory, then releases; the others must find every member arrived when
 * the gather returns, and must read the new region after their wait.  Runs
 * for participants 1, 2, 3, 5, 7 (oversubscribed on small machines), with
 * random delays, under each wait policy, mixing full episodes in, and every
 * padding and wake-up the algorithm offers.  Under ThreadSanitizer the plain
 * region variable also checks that the release orders the writes.
 * Algorithms that cannot split must say MUSTER_E_UNSUPPORTED.
 *
 * usage: test_split ALGORITHM */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "stress_common.h"

typedef struct team {
    muster_barrier *barrier;
    unsigned participants, episodes;
    _Atomic unsigned long arrived; /* members 1.. that have entered episode e, summed over e */
    unsigned long region;          /* plain: written by 0 between gather and release */
    _Atomic int failures;
} team;

/* Episodes where participant 0 runs a full wait instead of a split one. */
static int full_episode(unsigned e)
{
    return e % 5 == 3;
}

static void fail(team *t, const char *what, unsigned id, unsigned e)
{
    fprintf(stderr, "participant %u, episode %u: %s\n", id, e, what);
    atomic_fetch_add(&t->failures, 1);
}

static void *worker_main(void *arg)
{
    team_member *m = arg;
    team *t = m->shared;
    unsigned id = m->id + 1; /* participant 0 is the primary */
    unsigned seed = 0x1234567u * id + t->participants;
    for (unsigned e = 0; e < t->episodes; e++) {
        random_delay(&seed);
        atomic_fetch_add(&t->arrived, 1);
        if (muster_barrier_wait(t->barrier, id) < 0) {
            fail(t, muster_error_detail(), id, e);
            return NULL;
        }
        /* The region of episode e is e + 1 after a split episode. */
        if (!full_episode(e) && t->region != e + 1)
            fail(t, "left before the release published the region", id, e);
    }
    return NULL;
}

static void primary_episode(team *t, unsigned e, unsigned *seed)
{
    random_delay(seed);
    if (full_episode(e)) {
        if (muster_barrier_wait(t->barrier, 0) < 0)
            fail(t, "full wait failed", 0, e);
        return;
    }
    if (muster_barrier_gather(t->barrier) != MUSTER_OK) {
        fail(t, "gather failed", 0, e);
        return;
    }
    unsigned long expected = (unsigned long)(e + 1) * (t->participants - 1);
    if (atomic_load(&t->arrived) != expected)
        fail(t, "gather returned before every member arrived", 0, e);
    random_delay(seed); /* serial code between join and fork */
    t->region = e + 1;
    if (muster_barrier_release(t->barrier) != MUSTER_OK)
        fail(t, "release failed", 0, e);
}

static void run_team(const muster_barrier_attr *attr, unsigned participants)
{
    static team t;
    memset(&t, 0, sizeof t);
    t.participants = participants;
    t.episodes = scaled(participants > online_cpus() ? 200 : 1000);
    CHECK(muster_barrier_create(&t.barrier, participants, attr) == MUSTER_OK, "%s", muster_error_detail());
    test_threads workers = test_threads_start(participants - 1, worker_main, &t);
    unsigned seed = 0xabcdefu + participants;
    for (unsigned e = 0; e < t.episodes && atomic_load(&t.failures) == 0; e++)
        primary_episode(&t, e, &seed);
    if (atomic_load(&t.failures) != 0)
        muster_barrier_abort(t.barrier); /* free the others to report and exit */
    test_threads_join(&workers);
    CHECK(atomic_load(&t.failures) == 0, "%u participants", participants);
    muster_barrier_destroy(t.barrier);
}

static void check_unsupported(muster_algorithm algorithm)
{
    muster_barrier *b = test_barrier(algorithm, 3);
    CHECK(!muster_barrier_can_split(b));
    CHECK(muster_barrier_gather(b) == MUSTER_E_UNSUPPORTED);
    CHECK(strstr(muster_error_detail(), "cannot split") != NULL, "%s", muster_error_detail());
    CHECK(muster_barrier_release(b) == MUSTER_E_UNSUPPORTED);
    muster_barrier_destroy(b);
}

int main(int argc, char **argv)
{
    muster_algorithm algorithm = test_algorithm_argument(argc, argv);
    static const unsigned sizes[] = {1, 2, 3, 5, 7};
    static const muster_wait_policy policies[] = {MUSTER_WAIT_ACTIVE, MUSTER_WAIT_PASSIVE, MUSTER_WAIT_HYBRID};
    static const muster_wakeup wakeups[] = {MUSTER_WAKE_DEFAULT, MUSTER_WAKE_GLOBAL, MUSTER_WAKE_BINARY,
                                            MUSTER_WAKE_CLUSTER, MUSTER_WAKE_TREE};
    if (!algorithm_can(algorithm, muster_barrier_can_split)) {
        check_unsupported(algorithm);
        printf("test_split: %s does not split, as it says: ok\n", argv[1]);
        return 0;
    }
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = algorithm;
    unsigned teams = 0;
    for (size_t w = 0; w < sizeof wakeups / sizeof wakeups[0]; w++)
        for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                attr.wakeup = wakeups[w];
                attr.wait_policy = policies[p];
                /* Spinning threads that outnumber CPUs only burn time. */
                if (policies[p] == MUSTER_WAIT_ACTIVE && sizes[s] > online_cpus())
                    continue;
                muster_barrier *b;
                if (muster_barrier_create(&b, sizes[s], &attr) != MUSTER_OK)
                    continue; /* a wake-up this algorithm does not offer */
                muster_barrier_destroy(b);
                run_team(&attr, sizes[s]);
                teams++;
            }
    CHECK(teams > 0);
    printf("test_split: %s, %u teams: ok\n", argv[1], teams);
    return 0;
}
