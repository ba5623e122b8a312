/* Timeouts, abort and reset, for every algorithm and wait policy:
 *  - a missing participant: the others, waiting with a deadline, all return
 *    TIMEDOUT or BROKEN (at least one TIMEDOUT) soon after the deadline;
 *  - plain waiters are woken when a peer with a deadline times out;
 *  - abort() wakes plain waiters, later waits return BROKEN at once, and
 *    reset() makes the barrier work again;
 *  - abort() racing with live episodes at random moments never hangs anyone.
 *
 * usage: test_abort [algorithm ...]   (default: all) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "stress_common.h"

#define DEADLINE_NS 150000000ull /* 150 ms */
/* Generous: the machine is shared; this bounds "promptly", it times nothing. */
#define SLACK_NS 3000000000ull

static const unsigned team_sizes[] = {2, 3, 5, 8};

typedef struct team {
    muster_barrier *barrier;
    unsigned participants;
    unsigned warmup;       /* full episodes before the failing one */
    uint64_t timeout_ns;   /* 0: plain wait in the failing episode */
    unsigned timed_id;     /* with timeout_ns and mixed: only this id times out */
    int mixed;
    _Atomic int results[64];
    _Atomic uint64_t returned_at[64];
    _Atomic int loop_broken; /* race test: participants that saw BROKEN */
} team;

static void *member_main(void *arg)
{
    team_member *m = arg;
    team *t = m->shared;
    for (unsigned e = 0; e < t->warmup; e++) {
        int rc = muster_barrier_wait(t->barrier, m->id);
        if (rc < 0) {
            atomic_store(&t->results[m->id], 100 + rc);
            return NULL;
        }
    }
    int rc;
    if (t->timeout_ns != 0 && (!t->mixed || m->id == t->timed_id))
        rc = muster_barrier_wait_timeout(t->barrier, m->id, t->timeout_ns);
    else
        rc = muster_barrier_wait(t->barrier, m->id);
    atomic_store(&t->returned_at[m->id], test_now_ns());
    atomic_store(&t->results[m->id], rc);
    return NULL;
}

static muster_barrier *make_barrier(muster_algorithm alg, muster_wait_policy policy, unsigned participants)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = alg;
    attr.wait_policy = policy;
    muster_barrier *b = NULL;
    int rc = muster_barrier_create(&b, participants, &attr);
    CHECK(rc == MUSTER_OK, "create: %s", muster_error_detail());
    return b;
}

/* Starts participants 0..count-1 (the missing one, if any, is count). */
static test_threads start(team *t, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        atomic_store(&t->results[i], 1000);
    return test_threads_start(count, member_main, t);
}

static const char *label(muster_algorithm alg, muster_wait_policy policy)
{
    static _Thread_local char text[64];
    snprintf(text, sizeof text, "%s/%s", muster_algorithm_name(alg), muster_wait_policy_name(policy));
    return text;
}

/* Everyone but the last participant waits with a deadline. */
static void missing_participant(muster_algorithm alg, muster_wait_policy policy, unsigned p, int mixed)
{
    team t = {.barrier = make_barrier(alg, policy, p), .participants = p, .warmup = 5,
              .timeout_ns = DEADLINE_NS, .mixed = mixed, .timed_id = p / 2 % (p - 1)};
    uint64_t begin = test_now_ns();
    test_threads members = start(&t, p - 1);
    /* The missing participant still takes part in the warm-up episodes. */
    for (unsigned e = 0; e < t.warmup; e++)
        CHECK(muster_barrier_wait(t.barrier, p - 1) >= 0, "%s warm-up failed", label(alg, policy));
    test_threads_join(&members);
    unsigned timed_out = 0;
    for (unsigned i = 0; i + 1 < p; i++) {
        int rc = atomic_load(&t.results[i]);
        CHECK(rc == MUSTER_E_TIMEDOUT || rc == MUSTER_E_BROKEN, "%s P=%u mixed=%d: participant %u got %d",
              label(alg, policy), p, mixed, i, rc);
        timed_out += rc == MUSTER_E_TIMEDOUT;
        uint64_t took = atomic_load(&t.returned_at[i]) - begin;
        CHECK(took < DEADLINE_NS + SLACK_NS, "%s P=%u: participant %u returned after %.3f s",
              label(alg, policy), p, i, took / 1e9);
    }
    CHECK(timed_out >= 1, "%s P=%u: nobody reported TIMEDOUT", label(alg, policy), p);
    if (mixed)
        CHECK(atomic_load(&t.results[t.timed_id]) == MUSTER_E_TIMEDOUT, "%s: the timed participant got %d",
              label(alg, policy), atomic_load(&t.results[t.timed_id]));
    CHECK(muster_barrier_is_broken(t.barrier), "%s: not broken after a timeout", label(alg, policy));
    CHECK(muster_barrier_wait(t.barrier, p - 1) == MUSTER_E_BROKEN, "%s: late arrival not BROKEN",
          label(alg, policy));
    muster_barrier_destroy(t.barrier);
}

/* Plain waiters, an explicit abort, then reset and clean episodes. */
static void abort_and_reset(muster_algorithm alg, muster_wait_policy policy, unsigned p)
{
    team t = {.barrier = make_barrier(alg, policy, p), .participants = p, .warmup = 0};
    test_threads members = start(&t, p - 1);
    usleep(20000);
    CHECK(muster_barrier_abort(t.barrier) == MUSTER_OK, "abort");
    test_threads_join(&members);
    for (unsigned i = 0; i + 1 < p; i++)
        CHECK(atomic_load(&t.results[i]) == MUSTER_E_BROKEN, "%s P=%u: participant %u got %d after abort",
              label(alg, policy), p, i, atomic_load(&t.results[i]));
    CHECK(muster_barrier_wait(t.barrier, 0) == MUSTER_E_BROKEN, "%s: wait after abort", label(alg, policy));
    CHECK(muster_barrier_reset(t.barrier) == MUSTER_OK, "reset");
    CHECK(!muster_barrier_is_broken(t.barrier), "broken after reset");
    /* Clean episodes after the reset: all return, one serial each time. */
    t.warmup = 20;
    members = start(&t, p - 1);
    for (unsigned e = 0; e < 20; e++) {
        int rc = muster_barrier_wait(t.barrier, p - 1);
        CHECK(rc >= 0, "%s P=%u: wait after reset got %d", label(alg, policy), p, rc);
    }
    /* The members' final (21st) wait is ours too: complete it. */
    CHECK(muster_barrier_wait(t.barrier, p - 1) >= 0, "final episode");
    test_threads_join(&members);
    for (unsigned i = 0; i + 1 < p; i++)
        CHECK(atomic_load(&t.results[i]) >= 0, "%s: member %u got %d after reset", label(alg, policy), i,
              atomic_load(&t.results[i]));
    muster_barrier_destroy(t.barrier);
}

/* Live episodes with random delays; abort lands at a random moment. */
typedef struct racer {
    muster_barrier *barrier;
    unsigned id;
    _Atomic int *broken_seen;
} racer;

static void *race_main(void *arg)
{
    racer *r = arg;
    unsigned seed = 77u * (r->id + 3);
    for (;;) {
        random_delay(&seed);
        int rc = muster_barrier_wait(r->barrier, r->id);
        if (rc == MUSTER_E_BROKEN) {
            atomic_fetch_add(r->broken_seen, 1);
            return NULL;
        }
        if (rc < 0)
            return (void *)1;
    }
}

static void abort_race(muster_algorithm alg, muster_wait_policy policy, unsigned p, unsigned rounds)
{
    muster_barrier *b = make_barrier(alg, policy, p);
    unsigned seed = 12345u + p;
    for (unsigned round = 0; round < rounds; round++) {
        pthread_t threads[64];
        racer racers[64];
        _Atomic int broken_seen = 0;
        for (unsigned i = 0; i < p; i++) {
            racers[i] = (racer){b, i, &broken_seen};
            CHECK(pthread_create(&threads[i], NULL, race_main, &racers[i]) == 0, "pthread_create");
        }
        usleep(next_random(&seed) % 3000);
        muster_barrier_abort(b);
        for (unsigned i = 0; i < p; i++) {
            void *result;
            pthread_join(threads[i], &result);
            CHECK(result == NULL, "%s P=%u: a racer failed with an unexpected error", label(alg, policy), p);
        }
        CHECK(atomic_load(&broken_seen) == (int)p, "%s P=%u: %d of %u saw BROKEN", label(alg, policy), p,
              atomic_load(&broken_seen), p);
        CHECK(muster_barrier_reset(b) == MUSTER_OK, "reset");
    }
    muster_barrier_destroy(b);
}

/* A timeout too large to add to the clock means no timeout at all. */
static void *huge_timeout_main(void *arg)
{
    return (void *)(intptr_t)muster_barrier_wait_timeout(arg, 1, UINT64_MAX);
}

static void huge_timeout(muster_algorithm alg)
{
    muster_barrier *b = make_barrier(alg, MUSTER_WAIT_HYBRID, 2);
    for (int e = 0; e < 20; e++) {
        pthread_t thread;
        void *other;
        pthread_create(&thread, NULL, huge_timeout_main, b);
        usleep(e % 4 == 0 ? 2000 : 0);
        int rc = muster_barrier_wait_timeout(b, 0, UINT64_MAX);
        pthread_join(thread, &other);
        CHECK(rc >= 0 && (intptr_t)other >= 0, "%s: UINT64_MAX timeout gave %d and %d",
              muster_algorithm_name(alg), rc, (int)(intptr_t)other);
    }
    muster_barrier_destroy(b);
}

static void run_algorithm(muster_algorithm alg)
{
    huge_timeout(alg);
    static const muster_wait_policy policies[] = {MUSTER_WAIT_ACTIVE, MUSTER_WAIT_PASSIVE, MUSTER_WAIT_HYBRID};
    uint64_t begin = test_now_ns();
    for (size_t k = 0; k < 3; k++) {
        for (size_t s = 0; s < sizeof team_sizes / sizeof *team_sizes; s++) {
            unsigned p = team_sizes[s];
            missing_participant(alg, policies[k], p, 0);
            if (p >= 3)
                missing_participant(alg, policies[k], p, 1);
            abort_and_reset(alg, policies[k], p);
            abort_race(alg, policies[k], p, scaled(policies[k] == MUSTER_WAIT_ACTIVE && p > 2 ? 3 : 10));
        }
    }
    printf("%-17s timeout/abort/reset ok in %.1f s\n", muster_algorithm_name(alg),
           (test_now_ns() - begin) / 1e9);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            muster_algorithm alg;
            CHECK(muster_algorithm_parse(argv[i], &alg) == MUSTER_OK && alg != MUSTER_ALG_AUTO,
                  "unknown algorithm '%s'", argv[i]);
            run_algorithm(alg);
        }
        return 0;
    }
    for (int a = MUSTER_ALG_AUTO + 1; a < MUSTER_ALG_COUNT; a++)
        run_algorithm((muster_algorithm)a);
    return 0;
}
