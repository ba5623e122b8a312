/* The cost model and the simulator: the schedules every algorithm emits are
 * barriers when run on random machines (nobody leaves an episode before
 * everyone entered it, no deadlock), the model's equations reduce to the
 * paper's closed forms on a one-layer machine, and the presets hold the
 * paper's tables. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/cost.h"
#include "machine/machine.h"
#include "model/sim.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-9)

/* A machine with one layer (alpha, nominal latency) whose pairs have random
 * latencies in [lo, hi): every interleaving a schedule could meet. */
static void random_machine(muster_machine *m, unsigned cpus, double lo, double hi, double alpha, unsigned *seed)
{
    CHECK(muster_machine_init(m, cpus) == 0);
    snprintf(m->name, sizeof m->name, "random");
    m->epsilon_ns = 1.0;
    m->contention_ns = (double)(rand_r(seed) % 4);
    m->layer_count = 1;
    m->layers[0] = (muster_layer){.name = "L0", .latency_ns = (lo + hi) / 2, .alpha = alpha};
    m->cluster_size = 1 + (unsigned)rand_r(seed) % cpus;
    for (unsigned i = 0; i < cpus; i++)
        for (unsigned j = 0; j < cpus; j++) {
            size_t at = (size_t)i * cpus + j;
            m->latency_ns[at] = i == j ? m->epsilon_ns : lo + (hi - lo) * rand_r(seed) / ((double)RAND_MAX + 1);
            m->layer_of[at] = i == j ? MUSTER_MACHINE_NO_LAYER : 0;
        }
}

static void uniform_machine(muster_machine *m, unsigned cpus, double latency, double alpha, double c)
{
    CHECK(muster_machine_init(m, cpus) == 0);
    m->epsilon_ns = 1.0;
    m->contention_ns = c;
    m->layer_count = 1;
    m->layers[0] = (muster_layer){.name = "L0", .latency_ns = latency, .alpha = alpha};
    m->cluster_size = cpus;
    for (unsigned i = 0; i < cpus; i++)
        for (unsigned j = 0; j < cpus; j++) {
            m->latency_ns[(size_t)i * cpus + j] = i == j ? 1.0 : latency;
            m->layer_of[(size_t)i * cpus + j] = i == j ? MUSTER_MACHINE_NO_LAYER : 0;
        }
}

static muster_barrier *make(muster_algorithm a, unsigned p, muster_padding padding, muster_wakeup wakeup,
                            unsigned cluster)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = a;
    attr.padding = padding;
    attr.wakeup = wakeup;
    attr.cluster_size = cluster;
    muster_barrier *b = NULL;
    return muster_barrier_create(&b, p, &attr) == MUSTER_OK ? b : NULL;
}

/* Every algorithm, padding and wake-up shape, odd team sizes, random
 * latencies: the simulated run must finish and be a barrier. */
static void test_schedules_are_barriers(void)
{
    static const unsigned sizes[] = {1, 2, 3, 5, 6, 7, 13, 33, 50};
    unsigned seed = 12345, runs = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int a = 1; a < MUSTER_ALG_COUNT; a++)
            for (int pad = 0; pad < MUSTER_PAD_COUNT; pad++)
                for (int w = 0; w <= MUSTER_WAKE_TREE; w++) {
                    unsigned p = sizes[k];
                    muster_machine m;
                    random_machine(&m, p, 5, 200, 0.2, &seed);
                    unsigned cluster = 1 + (unsigned)rand_r(&seed) % p;
                    bool clusters = a == MUSTER_ALG_TUNED || w == MUSTER_WAKE_CLUSTER;
                    muster_barrier *b = make(a, p, pad, w, clusters ? cluster : 0);
                    if (b == NULL) { /* a combination the algorithm refuses */
                        muster_machine_free(&m);
                        continue;
                    }
                    muster_sim_options o = {.episodes = 5, .warmup = 1};
                    muster_sim_result r;
                    char err[256] = "";
                    CHECK(muster_simulate(&m, b, &o, &r, err, sizeof err) == 0, "%s P=%u: %s",
                          muster_algorithm_name(a), p, err);
                    CHECK(r.early_exits == 0, "%s P=%u pad=%d wake=%d: %lu early exits", muster_algorithm_name(a),
                          p, pad, w, r.early_exits);
                    CHECK(isfinite(r.barrier_ns) && (p == 1 || r.barrier_ns > 0), "%s P=%u", muster_algorithm_name(a), p);
                    CHECK(r.arrival_ns >= 0 && r.release_ns >= 0, "%s P=%u", muster_algorithm_name(a), p);
                    if (p > 1)
                        CHECK(r.barrier_ns >= 5.0, "%s P=%u: %.2f ns is below one transfer",
                              muster_algorithm_name(a), p, r.barrier_ns);
                    muster_barrier_destroy(b);
                    muster_machine_free(&m);
                    runs++;
                }
    CHECK(runs > 300, "only %u combinations simulated", runs);
}

/* With two participants each must hear from the other, so a period is at
 * least two one-way transfers; and no algorithm needs more than eight. */
static void test_two_thread_round_trip(void)
{
    muster_machine m;
    uniform_machine(&m, 2, 50, 0, 0);
    for (int a = 2; a < MUSTER_ALG_COUNT; a++) {
        muster_barrier *b = make(a, 2, MUSTER_PAD_DEFAULT, MUSTER_WAKE_DEFAULT, 0);
        CHECK(b != NULL);
        muster_sim_result r;
        char err[256];
        CHECK(muster_simulate(&m, b, NULL, &r, err, sizeof err) == 0, "%s", err);
        /* Both must hear from each other: at least two one-way transfers. */
        CHECK(r.barrier_ns >= 100.0 - 1e-9, "%s: %.1f ns < 2 L", muster_algorithm_name(a), r.barrier_ns);
        CHECK(r.barrier_ns <= 400.0, "%s: %.1f ns > 8 L", muster_algorithm_name(a), r.barrier_ns);
        muster_barrier_destroy(b);
    }
    muster_machine_free(&m);
}

/* On one layer the equations are the paper's closed forms. */
static void test_closed_forms(void)
{
    const double L = 40, alpha = 0.3, c = 2;
    for (unsigned p = 2; p <= 64; p += 7) {
        muster_machine m;
        uniform_machine(&m, p, L, alpha, c);
        for (unsigned f = 2; f <= 8; f++) {
            double rounds = ceil(log((double)p) / log((double)f) - 1e-12);
            CHECK(muster_cost_arrival_rounds(p, f) == (unsigned)rounds, "P=%u f=%u", p, f);
            CHECK(NEAR(muster_cost_arrival(&m, p, f), rounds * (f + alpha) * L), "eq. 1 P=%u f=%u: %f", p, f,
                  muster_cost_arrival(&m, p, f));
        }
        CHECK(NEAR(muster_cost_global_wakeup(&m, p), ((p - 1) * alpha + 1) * L + c * (p - 1)), "eq. 3 P=%u", p);
        double levels = ceil(log2(p + 1.0)) - 1; /* hops between the tree's levels */
        CHECK(NEAR(muster_cost_binary_wakeup(&m, p), levels * (alpha + 1) * L), "eq. 4 P=%u: %f vs %f", p,
              muster_cost_binary_wakeup(&m, p), levels * (alpha + 1) * L);
        /* Eq. 5 with one cluster is the binary tree. */
        CHECK(NEAR(muster_cost_cluster_wakeup(&m, p, p), muster_cost_binary_wakeup(&m, p)), "eq. 5 P=%u", p);
        muster_machine_free(&m);
    }
    /* Eq. 2: at P = 64 with alpha in (0, 1] the cheapest fan-in is 4. */
    muster_machine m;
    uniform_machine(&m, 64, L, alpha, c);
    muster_cost_choice choice;
    CHECK(muster_cost_choose(&m, 64, &choice) == 0);
    CHECK(choice.fan_in == 4, "fan-in %u", choice.fan_in);
    CHECK(muster_cost_choose(&m, 65, &choice) != 0, "more participants than CPUs must be refused");
    muster_machine_free(&m);
}

static void test_presets(void)
{
    static const struct {
        const char *name;
        unsigned cluster;
        double epsilon, l0, outer;
        unsigned layers;
    } expect[] = {
        {"phytium2000", 4, 1.8, 9.1, 95.5, 9},
        {"thunderx2", 32, 1.2, 24.0, 140.7, 2},
        {"kunpeng920", 4, 1.15, 14.2, 75.0, 3},
    };
    char err[256];
    for (size_t k = 0; k < 3; k++) {
        muster_machine m;
        CHECK(muster_machine_preset(expect[k].name, &m, err, sizeof err) == 0, "%s", err);
        CHECK(m.cpus == 64 && m.cluster_size == expect[k].cluster && m.epsilon_ns == expect[k].epsilon);
        CHECK(m.layer_count == expect[k].layers, "%s: %u layers", expect[k].name, m.layer_count);
        CHECK(m.layers[0].latency_ns == expect[k].l0 && m.layers[m.layer_count - 1].latency_ns == expect[k].outer);
        for (unsigned l = 1; l < m.layer_count; l++)
            CHECK(m.layers[l].latency_ns > m.layers[l - 1].latency_ns, "layers must ascend");
        /* CPU 0's cluster is exactly its first N_c CPUs at layer 0. */
        for (unsigned j = 1; j < 64; j++)
            CHECK((m.layer_of[j] == 0) == (j < m.cluster_size), "%s: CPU %u", expect[k].name, j);
        for (unsigned i = 0; i < 64; i++)
            for (unsigned j = 0; j < 64; j++)
                CHECK(muster_machine_latency(&m, i, j) == muster_machine_latency(&m, j, i));
        muster_machine bigger;
        CHECK(muster_machine_replicate(&m, 8, 300, &bigger, err, sizeof err) == 0, "%s", err);
        CHECK(bigger.cpus == 512 && bigger.layer_count == m.layer_count + 1);
        CHECK(muster_machine_latency(&bigger, 0, 64) == 300 && muster_machine_latency(&bigger, 65, 66) ==
                                                                   muster_machine_latency(&m, 1, 2));
        muster_machine_free(&bigger);
        CHECK(muster_machine_replicate(&m, 2, 10, &bigger, err, sizeof err) != 0,
              "a joining layer faster than the machine's own must be refused");
        CHECK(strstr(err, "below") != NULL, "%s", err);
        CHECK(bigger.cpus == 0 && bigger.latency_ns == NULL, "a refused replica leaves the machine empty");
        muster_machine_free(&m);
    }
    muster_machine m;
    CHECK(muster_machine_preset("cray-1", &m, err, sizeof err) != 0);
    CHECK(strstr(err, "cray-1") && strstr(err, "kunpeng920"), "%s", err);
    CHECK(m.cpus == 0 && m.latency_ns == NULL, "a failed preset leaves the machine empty");
}

int main(void)
{
    test_closed_forms();
    test_presets();
    test_two_thread_round_trip();
    test_schedules_are_barriers();
    printf("test_model: ok\n");
    return 0;
}
