/* Every algorithm x every wait policy x many team sizes: many episodes with
 * random per-thread delays.  Asserts that no participant leaves an episode
 * before all have entered it, and that exactly one participant per episode
 * gets MUSTER_BARRIER_SERIAL.
 *
 * The "shapes" pass repeats this for every wake-up shape, flag padding,
 * fan-in and cluster size each algorithm accepts, at uneven team sizes.
 *
 * usage: test_barrier_stress [algorithm ... | shapes]   (default: all) */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "stress_common.h"

static const unsigned team_sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 33, 64};

typedef struct run {
    muster_barrier *barrier;
    unsigned participants, episodes;
    _Atomic unsigned long entered;  /* total entries into the barrier */
    _Atomic unsigned *serials;      /* per episode */
    _Atomic int failures;
} run;

static void *participate(void *arg)
{
    team_member *w = arg;
    run *r = w->shared;
    unsigned seed = 2654435761u * (w->id + 1);
    for (unsigned e = 0; e < r->episodes; e++) {
        random_delay(&seed);
        atomic_fetch_add(&r->entered, 1);
        int rc = muster_barrier_wait(r->barrier, w->id);
        if (rc < 0) {
            fprintf(stderr, "participant %u episode %u: %s\n", w->id, e, muster_strerror(rc));
            atomic_fetch_add(&r->failures, 1);
            return NULL;
        }
        /* Everybody must have entered episode e before anyone leaves it. */
        unsigned long entered = atomic_load(&r->entered);
        if (entered < (unsigned long)(e + 1) * r->participants) {
            fprintf(stderr, "participant %u left episode %u after %lu entries (< %lu)\n", w->id, e,
                    entered, (unsigned long)(e + 1) * r->participants);
            atomic_fetch_add(&r->failures, 1);
        }
        if (rc == MUSTER_BARRIER_SERIAL)
            atomic_fetch_add(&r->serials[e], 1);
    }
    return NULL;
}

static unsigned episodes_for(unsigned participants, muster_wait_policy policy, unsigned cpus)
{
    if (participants > cpus)
        /* Spinning oversubscribed needs the scheduler to rotate the spinners
         * out: each episode costs timeslices, so run only a few. */
        return scaled(policy == MUSTER_WAIT_ACTIVE ? (participants > 8 ? 3 : 20) : 60);
    return scaled(participants <= 2 ? 3000 : 600);
}

static void run_attr(const muster_barrier_attr *attr, unsigned participants, unsigned episodes)
{
    muster_algorithm alg = attr->algorithm;
    muster_wait_policy policy = attr->wait_policy;
    run r = {.participants = participants, .episodes = episodes};
    int rc = muster_barrier_create(&r.barrier, participants, attr);
    CHECK(rc == MUSTER_OK, "create %s/%s P=%u: %s (%s)", muster_algorithm_name(alg),
          muster_wait_policy_name(policy), participants, muster_strerror(rc), muster_error_detail());
    r.serials = calloc(r.episodes, sizeof *r.serials);
    CHECK(r.serials != NULL, "out of memory");
    test_threads workers = test_threads_start(participants, participate, &r);
    test_threads_join(&workers);
    CHECK(atomic_load(&r.failures) == 0, "%s/%s P=%u: %d failures", muster_algorithm_name(alg),
          muster_wait_policy_name(policy), participants, atomic_load(&r.failures));
    for (unsigned e = 0; e < r.episodes; e++)
        CHECK(atomic_load(&r.serials[e]) == 1, "%s/%s P=%u episode %u: %u serial participants",
              muster_algorithm_name(alg), muster_wait_policy_name(policy), participants, e,
              atomic_load(&r.serials[e]));
    CHECK(!muster_barrier_is_broken(r.barrier), "barrier broken after a clean run");
    muster_barrier_destroy(r.barrier);
    free(r.serials);
}

static void run_case(muster_algorithm alg, muster_wait_policy policy, unsigned participants, unsigned cpus)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = alg;
    attr.wait_policy = policy;
    run_attr(&attr, participants, episodes_for(participants, policy, cpus));
}

/* Every accepted combination of shape attributes, hybrid policy. */
static void run_shapes(void)
{
    static const unsigned sizes[] = {3, 6, 7, 13, 33};
    static const unsigned fan_ins[] = {0, 2, 3, 4, 8, 16};
    static const unsigned clusters[] = {0, 1, 3, 4, 5, 64};
    uint64_t start = test_now_ns();
    unsigned cases = 0;
    for (int a = MUSTER_ALG_AUTO + 1; a < MUSTER_ALG_COUNT; a++)
        for (int w = MUSTER_WAKE_DEFAULT; w < MUSTER_WAKE_COUNT; w++)
            for (int pad = MUSTER_PAD_DEFAULT; pad < MUSTER_PAD_COUNT; pad++)
                for (size_t f = 0; f < sizeof fan_ins / sizeof *fan_ins; f++)
                    for (size_t c = 0; c < sizeof clusters / sizeof *clusters; c++) {
                        muster_barrier_attr attr;
                        muster_barrier_attr_init(&attr);
                        attr.algorithm = (muster_algorithm)a;
                        attr.wait_policy = MUSTER_WAIT_HYBRID;
                        attr.wakeup = (muster_wakeup)w;
                        attr.padding = (muster_padding)pad;
                        attr.fan_in = fan_ins[f];
                        attr.cluster_size = clusters[c];
                        muster_barrier *probe;
                        if (muster_barrier_create(&probe, 4, &attr) != MUSTER_OK)
                            continue; /* a combination the algorithm refuses */
                        muster_barrier_destroy(probe);
                        unsigned p = sizes[cases % (sizeof sizes / sizeof *sizes)];
                        run_attr(&attr, p, scaled(p <= 2 ? 400 : 60));
                        cases++;
                    }
    CHECK(cases > 300, "only %u shape combinations were accepted", cases);
    printf("shapes            %u cases ok in %.1f s\n", cases, (double)(test_now_ns() - start) / 1e9);
}

static void run_algorithm(muster_algorithm alg, unsigned cpus)
{
    static const muster_wait_policy policies[] = {MUSTER_WAIT_ACTIVE, MUSTER_WAIT_PASSIVE, MUSTER_WAIT_HYBRID};
    uint64_t start = test_now_ns();
    unsigned cases = 0;
    for (size_t p = 0; p < sizeof policies / sizeof *policies; p++)
        for (size_t t = 0; t < sizeof team_sizes / sizeof *team_sizes; t++, cases++)
            run_case(alg, policies[p], team_sizes[t], cpus);
    printf("%-17s %u cases ok in %.1f s\n", muster_algorithm_name(alg), cases,
           (double)(test_now_ns() - start) / 1e9);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    unsigned cpus = online_cpus();
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], "shapes") == 0) {
                run_shapes();
                continue;
            }
            muster_algorithm alg;
            CHECK(muster_algorithm_parse(argv[i], &alg) == MUSTER_OK && alg != MUSTER_ALG_AUTO,
                  "unknown algorithm '%s'", argv[i]);
            run_algorithm(alg, cpus);
        }
        return 0;
    }
    for (int a = MUSTER_ALG_AUTO + 1; a < MUSTER_ALG_COUNT; a++)
        run_algorithm((muster_algorithm)a, cpus);
    run_shapes();
    return 0;
}
