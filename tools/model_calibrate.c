/* muster model calibrate: how far the simulator is from this machine.  For
 * every algorithm, the simulated time per barrier at 2 threads on the probed
 * machine (its latency matrix) beside the barrier's measured EPCC overhead
 * at 2 threads pinned to the same two CPUs, spinning, interleaved over
 * repetitions; the ratio says how much of the real cost the model sees. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_epcc.h"
#include "cli.h"
#include "model/sim.h"
#include "model_cli.h"

#define PROG "muster model calibrate"
#define CALIBRATE_DELAY_NS 100.0

static void usage(FILE *out)
{
    fprintf(out,
            "usage: muster model calibrate --machine FILE [--repetitions N]\n\n"
            "Compares the simulator with this machine at 2 threads: for every algorithm,\n"
            "the predicted time per barrier (from FILE's latencies, participants on its\n"
            "first two CPUs) and the EPCC overhead measured on those two CPUs with the\n"
            "active policy, and their ratio (measured / predicted).\n\n"
            "  --machine FILE     this machine's probe: 'muster probe --output FILE'\n"
            "  --repetitions N    measurements per algorithm, interleaved (default 5)\n");
}

typedef struct calibration_row {
    muster_algorithm algorithm;
    double predicted_ns;
    double measured_sum_ns, measured_min_ns;
    unsigned measured;
} calibration_row;

static double predict(const muster_machine *m, muster_algorithm a)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = a;
    attr.wait_policy = MUSTER_WAIT_ACTIVE;
    /* The same barrier the measurement runs: its cluster size is this
     * process's N_c (topology, MUSTER_CLUSTER_SIZE or MUSTER_MACHINE). */
    if (a == MUSTER_ALG_TUNED)
        attr.cluster_size = muster_default_cluster_size(NULL);
    muster_barrier *b;
    if (muster_barrier_create(&b, 2, &attr) != MUSTER_OK)
        return NAN;
    muster_sim_result r;
    char err[256];
    int rc = muster_simulate(m, b, NULL, &r, err, sizeof err);
    muster_barrier_destroy(b);
    return rc == 0 ? r.barrier_ns : NAN;
}

static void measure(calibration_row *row, const int cpus[2], unsigned delay_iters)
{
    struct bench_muster_choice choice = {.algorithm = (int)row->algorithm, .policy = MUSTER_WAIT_ACTIVE};
    epcc_request rq = {
        .impl = &bench_muster,
        .arg = &choice,
        .threads = 2,
        .cpus = cpus,
        .target_ns = 100 * 1000 * 1000,
        .delay_iters = delay_iters,
        .timeout_s = 20,
    };
    epcc_result res;
    epcc_measure(&rq, &res);
    if (res.status != EPCC_OK || res.inner == 0)
        return;
    double ns = ((double)res.test_ns - (double)res.ref_ns) / (double)res.inner;
    row->measured_sum_ns += ns;
    if (row->measured == 0 || ns < row->measured_min_ns)
        row->measured_min_ns = ns;
    row->measured++;
}

static void print_rows(const muster_machine *m, const calibration_row *rows, size_t count, unsigned reps)
{
    printf("calibration at 2 threads on CPUs %d and %d of %s\n", m->cpu_ids[0], m->cpu_ids[1], m->name);
    printf("one-way latency %.1f ns / %.1f ns, epsilon %.2f ns; measured = mean EPCC overhead of %u runs\n\n",
           muster_machine_latency(m, 0, 1), muster_machine_latency(m, 1, 0), m->epsilon_ns, reps);
    printf("%-17s %11s %11s %11s\n", "algorithm", "predicted", "measured", "measured/");
    printf("%-17s %11s %11s %11s\n", "", "ns", "ns", "predicted");
    double log_sum = 0;
    unsigned logs = 0;
    for (size_t k = 0; k < count; k++) {
        const calibration_row *r = &rows[k];
        printf("%-17s ", muster_algorithm_name(r->algorithm));
        if (isnan(r->predicted_ns) || r->measured == 0) {
            printf("%11s %11s %11s\n", isnan(r->predicted_ns) ? "-" : "", r->measured ? "" : "failed", "-");
            continue;
        }
        double mean = r->measured_sum_ns / r->measured, ratio = mean / r->predicted_ns;
        printf("%11.1f %11.1f %10.2fx\n", r->predicted_ns, mean, ratio);
        log_sum += log(ratio);
        logs++;
    }
    if (logs > 0)
        printf("\ngeometric mean of measured/predicted: %.2fx over %u algorithms\n", exp(log_sum / logs), logs);
}

int model_calibrate_main(int argc, char **argv)
{
    model_machine_choice choice = {0};
    unsigned long reps = 5;
    for (int i = 1; i < argc; i++) {
        const char *value;
        int rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return CLI_OK;
        }
        if ((rc = model_machine_option(PROG, argc, argv, &i, &choice)) != 0) {
            if (rc < 0)
                return CLI_USAGE;
        } else if ((rc = cli_option_value(PROG, argc, argv, &i, "--repetitions", &value)) != 0) {
            if (rc < 0 || cli_parse_ulong(PROG, "--repetitions", value, 1, 1000, &reps))
                return CLI_USAGE;
        } else {
            return cli_usage_error(PROG, "unknown option '%s' (try --help)", argv[i]);
        }
    }
    if (choice.file == NULL || choice.preset != NULL)
        return cli_usage_error(PROG, "needs --machine FILE: this machine's probe ('muster probe --output FILE')");
    if (cli_parsing_only)
        return CLI_OK;
    muster_machine m;
    int rc = model_load_machine(PROG, &choice, &m);
    if (rc != CLI_OK)
        return rc;
    if (m.cpus < 2) {
        fprintf(stderr, "%s: %s has %u CPU; calibration needs two\n", PROG, choice.file, m.cpus);
        muster_machine_free(&m);
        return CLI_FAILED;
    }
    calibration_row rows[MUSTER_ALG_COUNT];
    size_t count = 0;
    for (int a = 1; a < MUSTER_ALG_COUNT; a++)
        rows[count++] = (calibration_row){.algorithm = (muster_algorithm)a, .predicted_ns = predict(&m, a)};
    double delay_ns;
    unsigned delay_iters = epcc_calibrate_delay(CALIBRATE_DELAY_NS, &delay_ns);
    int cpus[2] = {m.cpu_ids[0], m.cpu_ids[1]};
    for (unsigned long rep = 0; rep < reps; rep++) {
        fprintf(stderr, "\rmeasuring: repetition %lu of %lu ", rep + 1, reps);
        for (size_t k = 0; k < count; k++)
            measure(&rows[k], cpus, delay_iters);
    }
    fprintf(stderr, "\r%40s\r", "");
    print_rows(&m, rows, count, (unsigned)reps);
    muster_machine_free(&m);
    return CLI_OK;
}
