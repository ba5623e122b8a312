/* The latency probe (src/model/probe.c), kept short (a fraction of a
 * second on 2 CPUs: small R and K):
 *  - the affinity mask comes back ascending and complete;
 *  - a two-CPU probe gives a valid machine: entries positive and finite,
 *    min <= median, latency = median / 2, epsilon > 0 and below every
 *    one-way latency, layers and N_c derived, and it survives save + load;
 *  - R is calibrated when not given; progress is reported once per pair;
 *  - one CPU gives a 1x1 machine with no layers and N_c 1;
 *  - a partner that falls silent makes the probe give up within the silence
 *    limit with a message naming both CPUs, instead of hanging;
 *  - bad options and a CPU that cannot run a thread are refused. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/machine.h"
#include "platform/platform.h"
#include "model/probe.h"

#include "check.h"
#include "platform/affinity.h"

static int *cpus;
static unsigned ncpus;

static void check_affinity(void)
{
    CHECK(muster_thread_cpus(&cpus, &ncpus) == 0);
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    CHECK(ncpus == (unsigned)CPU_COUNT(&set), "%u CPUs, the mask has %d", ncpus, CPU_COUNT(&set));
    for (unsigned i = 0; i < ncpus; i++) {
        CHECK(CPU_ISSET(cpus[i], &set));
        CHECK(i == 0 || cpus[i] > cpus[i - 1]);
    }
}

struct progress_log {
    unsigned calls, last_done, total;
};

static void count_progress(unsigned done, unsigned total, void *ctx)
{
    struct progress_log *log = ctx;
    CHECK(done == log->last_done + 1, "progress went from %u to %u", log->last_done, done);
    log->calls++;
    log->last_done = done;
    log->total = total;
}

static void check_measured(const muster_machine *m, const int *ids, unsigned n)
{
    char err[256];
    CHECK(muster_machine_validate(m, err, sizeof err) == 0, "%s", err);
    CHECK(m->cpus == n && memcmp(m->cpu_ids, ids, n * sizeof *ids) == 0);
    CHECK(m->epsilon_ns > 0 && isfinite(m->epsilon_ns));
    CHECK(m->name[0] != '\0' && strncmp(m->source, "muster probe ", 13) == 0, "name '%s' source '%s'", m->name,
          m->source);
    CHECK(m->round_trip_min_ns != NULL && m->round_trip_median_ns != NULL);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            size_t k = (size_t)i * n + j;
            double lo = m->round_trip_min_ns[k], mid = m->round_trip_median_ns[k], one_way = m->latency_ns[k];
            if (i == j) {
                CHECK(lo == 0 && mid == 0 && one_way == m->epsilon_ns);
                continue;
            }
            CHECK(isfinite(lo) && lo > 0 && lo <= mid && isfinite(mid), "[%u][%u]: min %g median %g", i, j, lo, mid);
            CHECK(one_way == mid / 2, "[%u][%u]: latency %g, median round trip %g", i, j, one_way, mid);
            /* A line moved between two cores costs tens of cycles at least; a
             * dependent access in the own L1 a few.  Holds on VMs too: a
             * vCPU that is descheduled makes the round trip slower, not the
             * local loop. */
            CHECK(m->epsilon_ns < one_way, "epsilon %g ns is not below latency [%u][%u] %g ns", m->epsilon_ns, i, j,
                  one_way);
        }
    CHECK(m->layer_count >= (n > 1 ? 1u : 0u) && m->cluster_size >= 1 && m->cluster_size <= n);
}

static void check_two_cpus(void)
{
    int pair[2] = {cpus[0], cpus[1]};
    struct progress_log log = {0};
    muster_probe_options o = {.cpus = pair, .cpu_count = 2, .repetitions = 3, .round_trips = 200,
                              .progress = count_progress, .progress_ctx = &log};
    muster_machine m;
    char err[512];
    uint64_t start = muster_now_ns();
    CHECK(muster_probe_machine(&o, &m, err, sizeof err) == 0, "%s", err);
    fprintf(stderr, "probe of CPUs %d,%d: %.1f ms; one-way %.1f / %.1f ns, epsilon %.2f ns\n", pair[0], pair[1],
            (double)(muster_now_ns() - start) / 1e6, m.latency_ns[1], m.latency_ns[2], m.epsilon_ns);
    check_measured(&m, pair, 2);
    CHECK(m.probe_repetitions == 3 && m.probe_round_trips == 200);
    CHECK(log.calls == 2 && log.last_done == 2 && log.total == 2);

    /* The saved file loads back as the same machine. */
    char path[] = "/tmp/test_probe.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    CHECK(f != NULL && muster_machine_save(&m, f, NULL) == 0 && fclose(f) == 0);
    muster_machine back;
    CHECK(muster_machine_load(path, &back, err, sizeof err) == 0, "%s", err);
    unlink(path);
    CHECK(back.cpus == 2 && back.epsilon_ns == m.epsilon_ns && back.cluster_size == m.cluster_size);
    CHECK(memcmp(back.latency_ns, m.latency_ns, 4 * sizeof(double)) == 0);
    CHECK(memcmp(back.round_trip_median_ns, m.round_trip_median_ns, 4 * sizeof(double)) == 0);
    CHECK(memcmp(back.layer_of, m.layer_of, 4) == 0 && back.probe_round_trips == 200);
    muster_machine_free(&back);
    muster_machine_free(&m);

    /* R calibrated: within its bounds (and recorded). */
    o = (muster_probe_options){.cpus = pair, .cpu_count = 2, .repetitions = 1};
    CHECK(muster_probe_machine(&o, &m, err, sizeof err) == 0, "%s", err);
    CHECK(m.probe_round_trips >= MUSTER_PROBE_MIN_ROUND_TRIPS && m.probe_round_trips <= MUSTER_PROBE_MAX_ROUND_TRIPS,
          "R = %u", m.probe_round_trips);
    check_measured(&m, pair, 2);
    muster_machine_free(&m);
}

static void check_one_cpu(void)
{
    muster_probe_options o = {.cpus = cpus, .cpu_count = 1, .repetitions = 3, .round_trips = 200};
    muster_machine m;
    char err[512];
    CHECK(muster_probe_machine(&o, &m, err, sizeof err) == 0, "%s", err);
    check_measured(&m, cpus, 1);
    CHECK(m.layer_count == 0 && m.cluster_size == 1 && m.probe_round_trips == 0);
    muster_machine_free(&m);
}

/* The partner stops answering after 10 round trips: the initiator gives up
 * after silence_s and says so, well before any outer timeout. */
static void check_silent_partner(void)
{
    muster_probe_options o = {.repetitions = 3, .silence_s = 0.2, .partner_silent_after = 10};
    double lo = -1, mid = -1;
    char err[512] = "";
    uint64_t start = muster_now_ns();
    int rc = muster_probe_pair(cpus[0], cpus[1], 100, &o, &lo, &mid, err, sizeof err);
    double took = (double)(muster_now_ns() - start) / 1e9;
    CHECK(rc == -1);
    CHECK(strstr(err, "stopped answering") != NULL && strstr(err, "0.2 s") != NULL, "%s", err);
    char both[64];
    snprintf(both, sizeof both, "CPU %d and CPU %d", cpus[0], cpus[1]);
    CHECK(strstr(err, both) != NULL, "%s", err);
    CHECK(took >= 0.2 && took < 3, "gave up after %.2f s", took);
    CHECK(lo == -1 && mid == -1);

    /* Through the whole-machine call: an error and an empty machine. */
    int pair[2] = {cpus[0], cpus[1]};
    o = (muster_probe_options){.cpus = pair, .cpu_count = 2, .repetitions = 3, .round_trips = 100,
                               .silence_s = 0.2, .partner_silent_after = 10};
    muster_machine m;
    CHECK(muster_probe_machine(&o, &m, err, sizeof err) == -1 && strstr(err, "stopped answering"), "%s", err);
    CHECK(m.cpus == 0 && m.latency_ns == NULL && m.round_trip_min_ns == NULL);
}

static void check_bad_options(void)
{
    muster_machine m;
    char err[512];
    int backwards[2] = {1, 0};
    muster_probe_options o = {.cpus = cpus, .cpu_count = 1, .repetitions = 0};
    CHECK(muster_probe_machine(&o, &m, err, sizeof err) == -1 && strstr(err, "repetitions"), "%s", err);
    o = (muster_probe_options){.cpus = backwards, .cpu_count = 2, .repetitions = 1};
    CHECK(muster_probe_machine(&o, &m, err, sizeof err) == -1 && strstr(err, "out of order"), "%s", err);
    o = (muster_probe_options){.cpus = cpus, .cpu_count = 0, .repetitions = 1};
    CHECK(muster_probe_machine(&o, &m, err, sizeof err) == -1 && strstr(err, "no CPUs"), "%s", err);
    CHECK(m.cpus == 0 && m.cpu_ids == NULL);

    /* A CPU that does not exist cannot run a thread: said, not hung. */
    int ghost = 1 << 17;
    double ns;
    CHECK(muster_probe_local(ghost, 1, &ns, err, sizeof err) == -1 && strstr(err, "cannot start a thread on CPU 131072"),
          "%s", err);
    o = (muster_probe_options){.repetitions = 1};
    double lo, mid;
    CHECK(muster_probe_pair(cpus[0], ghost, 100, &o, &lo, &mid, err, sizeof err) == -1 &&
              strstr(err, "cannot start a thread on CPU 131072"),
          "%s", err);
}

int main(void)
{
    check_affinity();
    check_one_cpu();
    check_bad_options();
    if (ncpus >= 2) {
        check_two_cpus();
        check_silent_partner();
    } else {
        fprintf(stderr, "test_probe: only one CPU in the affinity mask; the two-CPU checks are skipped\n");
    }
    free(cpus);
    printf("test_probe: ok\n");
    return 0;
}
