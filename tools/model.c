/* muster model: the cost model (Gao et al. eq. 1-5) and the simulator, on a
 * built-in machine or on a machine file written by `muster probe`.
 *
 *   muster model presets
 *   muster model cost     (--preset NAME | --machine FILE) [--threads N]
 *   muster model simulate (--preset NAME | --machine FILE) [--threads LIST]
 *                         [--algorithms LIST] [--padding P] [--json] [--output F] [--png F]
 *   muster model calibrate [--machine FILE]   (see model_calibrate.c) */
#include "model_cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "model/cost.h"
#include "model/sim.h"
#include "report_python.h"

#define PROG_COST "muster model cost"
#define PROG_SIM "muster model simulate"
#define MAX_THREAD_COUNTS 64

/* ---- choosing the machine (shared by every subcommand) ---- */

int model_machine_option(const char *prog, int argc, char **argv, int *i, model_machine_choice *c)
{
    const char *value;
    int rc;
    if ((rc = cli_option_value(prog, argc, argv, i, "--preset", &value)) != 0) {
        c->preset = value;
        return rc;
    }
    if ((rc = cli_option_value(prog, argc, argv, i, "--machine", &value)) != 0) {
        c->file = value;
        return rc;
    }
    if ((rc = cli_option_value(prog, argc, argv, i, "--replicate", &value)) != 0) {
        if (rc < 0)
            return rc;
        char *end = NULL;
        unsigned long copies = strtoul(value, &end, 10);
        c->replicate_ns = 0;
        if (end != value && *end == ':')
            c->replicate_ns = strtod(end + 1, &end);
        if (end == value || *end != '\0' || copies < 1 || copies > 64 || c->replicate_ns < 0) {
            cli_usage_error(prog, "--replicate: '%s' is not COPIES[:NS] with COPIES in 1..64", value);
            return -1;
        }
        c->replicate = (unsigned)copies;
        return 1;
    }
    return 0;
}

int model_load_machine(const char *prog, const model_machine_choice *c, muster_machine *m)
{
    char err[512];
    if ((c->preset == NULL) == (c->file == NULL)) {
        fprintf(stderr, "%s: choose one machine: --preset NAME (phytium2000, thunderx2, kunpeng920) "
                        "or --machine FILE (from 'muster probe --output FILE')\n", prog);
        return CLI_USAGE;
    }
    int rc = c->preset ? muster_machine_preset(c->preset, m, err, sizeof err)
                       : muster_machine_load(c->file, m, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return c->preset ? CLI_USAGE : CLI_FAILED;
    }
    if (c->replicate > 1) {
        muster_machine bigger;
        double outer = m->layer_count ? m->layers[m->layer_count - 1].latency_ns : m->epsilon_ns;
        double between = c->replicate_ns > 0 ? c->replicate_ns : 2 * outer;
        rc = muster_machine_replicate(m, c->replicate, between, &bigger, err, sizeof err);
        muster_machine_free(m);
        if (rc != 0) {
            fprintf(stderr, "%s: %s\n", prog, err);
            return CLI_USAGE;
        }
        *m = bigger;
    }
    return CLI_OK;
}

void model_describe_machine(FILE *out, const muster_machine *m)
{
    fprintf(out, "%s: %u CPUs, N_c = %u, epsilon %.2f ns, c = %.2f ns\n", m->name, m->cpus, m->cluster_size,
            m->epsilon_ns, m->contention_ns);
    fprintf(out, "  source: %s\n", m->source);
    for (unsigned k = 0; k < m->layer_count; k++)
        fprintf(out, "  L%-2u %7.1f ns  alpha %.3f  %s\n", k, m->layers[k].latency_ns, m->layers[k].alpha,
                m->layers[k].name);
}

/* ---- presets ---- */

static int presets_main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") != 0)
        return cli_usage_error("muster model presets", "takes no options (got '%s')", argv[1]);
    if (argc > 1) {
        printf("usage: muster model presets\n\nLists the built-in machines (Gao et al. 2021, Tables I-III).\n");
        return CLI_OK;
    }
    for (const char *const *name = muster_machine_preset_names(); *name; name++) {
        muster_machine m;
        char err[256];
        if (muster_machine_preset(*name, &m, err, sizeof err) != 0)
            return CLI_FAILED;
        printf("%s\n  ", *name);
        model_describe_machine(stdout, &m);
        muster_machine_free(&m);
    }
    return CLI_OK;
}

/* ---- cost ---- */

static void cost_usage(FILE *out)
{
    fprintf(out,
            "usage: muster model cost (--preset NAME | --machine FILE) [--replicate K[:NS]] [--threads N]\n\n"
            "Evaluates the analytical model of Gao et al. (CLUSTER 2021) on a machine, each\n"
            "term with the latency of the CPUs it joins (participant i on CPU i):\n"
            "  eq. 1  arrival of a static f-way tournament, for f = 2..16\n"
            "  eq. 3  global wake-up   eq. 4  binary-tree wake-up   eq. 5  cluster-aware tree\n"
            "and prints the fan-in and wake-up the model chooses.\n\n"
            "  --preset NAME      phytium2000, thunderx2 or kunpeng920 ('muster model presets')\n"
            "  --machine FILE     a machine file, e.g. from 'muster probe --output FILE'\n"
            "  --replicate K[:NS] K copies of the machine joined by a layer of NS ns\n"
            "                     (default twice the outermost layer): for bigger P\n"
            "  --threads N        participants (default: every CPU of the machine)\n");
}

static int cost_main(int argc, char **argv)
{
    model_machine_choice choice = {0};
    unsigned long threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *value;
        int rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cost_usage(stdout);
            return CLI_OK;
        }
        if ((rc = model_machine_option(PROG_COST, argc, argv, &i, &choice)) != 0) {
            if (rc < 0)
                return CLI_USAGE;
        } else if ((rc = cli_option_value(PROG_COST, argc, argv, &i, "--threads", &value)) != 0) {
            if (rc < 0 || cli_parse_ulong(PROG_COST, "--threads", value, 1, MUSTER_MACHINE_MAX_CPUS, &threads))
                return CLI_USAGE;
        } else {
            return cli_usage_error(PROG_COST, "unknown option '%s' (try --help)", argv[i]);
        }
    }
    muster_machine m;
    int rc = model_load_machine(PROG_COST, &choice, &m);
    if (rc != CLI_OK)
        return rc;
    unsigned p = threads ? (unsigned)threads : m.cpus;
    if (p > m.cpus) {
        fprintf(stderr, "%s: --threads %u is more than %s's %u CPUs (try --replicate)\n", PROG_COST, p, m.name,
                m.cpus);
        muster_machine_free(&m);
        return CLI_USAGE;
    }
    model_describe_machine(stdout, &m);
    printf("\nP = %u participants\n\neq. 1, arrival (ns):\n  fan-in  rounds  arrival\n", p);
    muster_cost_choice best;
    muster_cost_choose(&m, p, &best);
    for (unsigned f = 2; f <= MUSTER_COST_MAX_FAN_IN; f++)
        printf("  %6u  %6u  %7.1f%s\n", f, muster_cost_arrival_rounds(p, f), muster_cost_arrival(&m, p, f),
               f == best.fan_in ? "  <- cheapest" : "");
    printf("\nwake-up (ns):\n  eq. 3 global         %7.1f%s\n  eq. 4 binary tree    %7.1f%s\n"
           "  eq. 5 cluster-aware  %7.1f%s  (N_c = %u)\n",
           best.global_ns, best.wakeup == MUSTER_WAKE_GLOBAL ? "  <- cheapest" : "", best.binary_ns,
           best.wakeup == MUSTER_WAKE_BINARY ? "  <- cheapest" : "", best.cluster_ns,
           best.wakeup == MUSTER_WAKE_CLUSTER ? "  <- cheapest" : "", m.cluster_size);
    printf("\nmodel's choice: fan-in %u, %s wake-up, about %.1f ns per barrier\n", best.fan_in,
           muster_wakeup_name(best.wakeup), best.arrival_ns + best.wakeup_ns);
    muster_machine_free(&m);
    return CLI_OK;
}

/* ---- simulate ---- */

typedef struct sim_options {
    model_machine_choice machine;
    unsigned threads[MAX_THREAD_COUNTS];
    size_t thread_count;
    bool algorithm_chosen[MUSTER_ALG_COUNT];
    bool any_algorithm;
    muster_padding padding;
    bool json;
    const char *output, *png;
} sim_options;

static void simulate_usage(FILE *out)
{
    fprintf(out,
            "usage: muster model simulate (--preset NAME | --machine FILE) [options]\n\n"
            "Runs each barrier algorithm's own communication pattern (the flags its code\n"
            "writes and waits on) on a modelled machine and prints the predicted time per\n"
            "barrier in ns, participant i on CPU i, every participant spinning.\n\n"
            "  --preset NAME        phytium2000, thunderx2 or kunpeng920\n"
            "  --machine FILE       a machine file, e.g. from 'muster probe --output FILE'\n"
            "  --replicate K[:NS]   K copies of the machine joined at NS ns: P up to K x CPUs\n"
            "  --threads LIST       participant counts, e.g. 2,4,8-12 (default 2,3,4,6,8,12,...\n"
            "                       up to the machine's CPUs, at most 512)\n"
            "  --algorithms LIST    algorithms to simulate (default: all but auto)\n"
            "  --padding P          padded, packed or default (each algorithm's own)\n"
            "  --json               print a muster-scaling/1 JSON document instead of the table\n"
            "  --output FILE        write that JSON to FILE as well\n"
            "  --png FILE           plot it (python3 -m muster_report scaling)\n\n"
            "The tuned barrier's clusters are the machine's N_c.  The model: see\n"
            "src/model/sim.h; its parameters alpha and c come from the machine.\n");
}

static int add_thread_range(const char *item, void *ctx)
{
    sim_options *o = ctx;
    char *end = NULL;
    unsigned long lo = strtoul(item, &end, 10), hi = lo;
    if (end != item && *end == '-')
        hi = strtoul(end + 1, &end, 10);
    if (end == item || *end != '\0' || lo < 1 || hi < lo || hi > 4096)
        return cli_usage_error(PROG_SIM, "--threads: '%s' is not a count or range within 1..4096", item);
    for (unsigned long p = lo; p <= hi; p++) {
        if (o->thread_count == MAX_THREAD_COUNTS)
            return cli_usage_error(PROG_SIM, "--threads: more than %d counts", MAX_THREAD_COUNTS);
        o->threads[o->thread_count++] = (unsigned)p;
    }
    return 0;
}

static int add_algorithm(const char *name, void *ctx)
{
    sim_options *o = ctx;
    muster_algorithm a;
    if (muster_algorithm_parse(name, &a) != MUSTER_OK || a == MUSTER_ALG_AUTO)
        return cli_usage_error(PROG_SIM, "--algorithms: unknown algorithm '%s'", name);
    o->algorithm_chosen[a] = true;
    o->any_algorithm = true;
    return 0;
}

static int parse_simulate(int argc, char **argv, sim_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *v;
        int rc;
        if (strcmp(argv[i], "--json") == 0) {
            o->json = true;
        } else if ((rc = model_machine_option(PROG_SIM, argc, argv, &i, &o->machine)) != 0) {
            if (rc < 0)
                return CLI_USAGE;
        } else if ((rc = cli_option_value(PROG_SIM, argc, argv, &i, "--threads", &v)) != 0) {
            if (rc < 0 || cli_for_each_item(PROG_SIM, "--threads", v, add_thread_range, o))
                return CLI_USAGE;
        } else if ((rc = cli_option_value(PROG_SIM, argc, argv, &i, "--algorithms", &v)) != 0) {
            if (rc < 0 || cli_for_each_item(PROG_SIM, "--algorithms", v, add_algorithm, o))
                return CLI_USAGE;
        } else if ((rc = cli_option_value(PROG_SIM, argc, argv, &i, "--padding", &v)) != 0) {
            if (rc < 0)
                return CLI_USAGE;
            if (strcmp(v, "default") == 0)
                o->padding = MUSTER_PAD_DEFAULT;
            else if (muster_padding_parse(v, &o->padding) != MUSTER_OK)
                return cli_usage_error(PROG_SIM, "--padding: '%s' is not padded, packed or default", v);
        } else if ((rc = cli_option_value(PROG_SIM, argc, argv, &i, "--output", &v)) != 0) {
            if (rc < 0)
                return CLI_USAGE;
            o->output = v;
        } else if ((rc = cli_option_value(PROG_SIM, argc, argv, &i, "--png", &v)) != 0) {
            if (rc < 0)
                return CLI_USAGE;
            o->png = v;
        } else {
            return cli_usage_error(PROG_SIM, "unknown option '%s' (try --help)", argv[i]);
        }
    }
    return 0;
}

static void default_threads(sim_options *o, unsigned cpus)
{
    static const unsigned counts[] = {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0] && counts[k] <= cpus; k++)
        o->threads[o->thread_count++] = counts[k];
    if (o->thread_count == 0)
        o->threads[o->thread_count++] = 1;
}

/* One simulated point; NAN when the algorithm refuses the attributes. */
static double simulate_one(const muster_machine *m, muster_algorithm a, unsigned p, muster_padding padding,
                           char *err, size_t err_len)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = a;
    attr.padding = a == MUSTER_ALG_CENTRAL_BLOCKING ? MUSTER_PAD_DEFAULT : padding;
    if (a == MUSTER_ALG_TUNED)
        attr.cluster_size = m->cluster_size;
    attr.wait_policy = MUSTER_WAIT_ACTIVE;
    muster_barrier *b;
    if (muster_barrier_create(&b, p, &attr) != MUSTER_OK)
        return NAN;
    muster_sim_result r;
    int rc = muster_simulate(m, b, NULL, &r, err, err_len);
    muster_barrier_destroy(b);
    return rc == 0 ? r.barrier_ns : NAN;
}

static void write_scaling_json(FILE *out, const muster_machine *m, const sim_options *o, const double *ns,
                               const muster_algorithm *algs, size_t alg_count)
{
    fprintf(out, "{\n  \"format\": \"muster-scaling/1\",\n  \"machine\": \"%s\",\n", m->name);
    fprintf(out, "  \"source\": \"muster model simulate (%s)\",\n  \"unit\": \"ns\",\n  \"threads\": [", m->source);
    for (size_t t = 0; t < o->thread_count; t++)
        fprintf(out, "%s%u", t ? ", " : "", o->threads[t]);
    fprintf(out, "],\n  \"series\": [\n");
    for (size_t k = 0; k < alg_count; k++) {
        fprintf(out, "    {\"label\": \"%s\", \"ns\": [", muster_algorithm_name(algs[k]));
        for (size_t t = 0; t < o->thread_count; t++) {
            double v = ns[k * o->thread_count + t];
            if (isnan(v))
                fprintf(out, "%snull", t ? ", " : "");
            else
                fprintf(out, "%s%.1f", t ? ", " : "", v);
        }
        fprintf(out, "]}%s\n", k + 1 < alg_count ? "," : "");
    }
    fprintf(out, "  ]\n}\n");
}

static void print_scaling_table(const muster_machine *m, const sim_options *o, const double *ns,
                                const muster_algorithm *algs, size_t alg_count)
{
    model_describe_machine(stdout, m);
    printf("\npredicted time per barrier (ns), every participant spinning:\n");
    for (size_t first = 0; first < o->thread_count; first += 7) {
        size_t last = first + 7 < o->thread_count ? first + 7 : o->thread_count;
        printf("\n%-17s", "P =");
        for (size_t t = first; t < last; t++)
            printf(" %8u", o->threads[t]);
        printf("\n");
        for (size_t k = 0; k < alg_count; k++) {
            printf("%-17s", muster_algorithm_name(algs[k]));
            for (size_t t = first; t < last; t++) {
                double v = ns[k * o->thread_count + t];
                isnan(v) ? printf(" %8s", "-") : printf(" %8.0f", v);
            }
            printf("\n");
        }
        printf("%-17s", "fastest");
        for (size_t t = first; t < last; t++) {
            size_t best = SIZE_MAX;
            for (size_t k = 0; k < alg_count; k++) {
                double v = ns[k * o->thread_count + t];
                if (!isnan(v) && (best == SIZE_MAX || v < ns[best * o->thread_count + t]))
                    best = k;
            }
            printf(" %8.8s", best == SIZE_MAX ? "-" : muster_algorithm_name(algs[best]));
        }
        printf("\n");
    }
}

static int run_simulations(const muster_machine *m, const sim_options *o, double *ns, const muster_algorithm *algs,
                           size_t alg_count)
{
    bool progress = isatty(STDERR_FILENO);
    char err[256];
    for (size_t t = 0; t < o->thread_count; t++) {
        if (progress)
            fprintf(stderr, "\rsimulating P = %u (%zu of %zu) ", o->threads[t], t + 1, o->thread_count);
        for (size_t k = 0; k < alg_count; k++) {
            err[0] = '\0';
            ns[k * o->thread_count + t] = simulate_one(m, algs[k], o->threads[t], o->padding, err, sizeof err);
            if (err[0] != '\0') {
                fprintf(stderr, "%s%s: %s\n", progress ? "\n" : "", PROG_SIM, err);
                return CLI_FAILED;
            }
        }
    }
    if (progress)
        fprintf(stderr, "\r%40s\r", "");
    return CLI_OK;
}

static int emit_outputs(const muster_machine *m, const sim_options *o, const double *ns,
                        const muster_algorithm *algs, size_t alg_count)
{
    char tmp[4096];
    int rc = CLI_OK;
    if (o->json)
        write_scaling_json(stdout, m, o, ns, algs, alg_count);
    else
        print_scaling_table(m, o, ns, algs, alg_count);
    if (o->output != NULL) {
        snprintf(tmp, sizeof tmp, "%s.tmp", o->output);
        FILE *f = fopen(tmp, "w");
        if (f == NULL) {
            fprintf(stderr, "%s: --output %s: cannot write: %s\n", PROG_SIM, tmp, strerror(errno));
            return CLI_FAILED;
        }
        write_scaling_json(f, m, o, ns, algs, alg_count);
        if (fclose(f) != 0 || rename(tmp, o->output) != 0) {
            fprintf(stderr, "%s: --output %s: %s\n", PROG_SIM, o->output, strerror(errno));
            unlink(tmp);
            return CLI_FAILED;
        }
    }
    if (o->png != NULL) {
        FILE *f = report_python_temp_json(tmp, sizeof tmp);
        if (f == NULL) {
            fprintf(stderr, "%s: --png: no temporary file: %s\n", PROG_SIM, strerror(errno));
            return CLI_FAILED;
        }
        write_scaling_json(f, m, o, ns, algs, alg_count);
        fclose(f);
        rc = report_python_run(PROG_SIM, "scaling", tmp, o->png);
        unlink(tmp);
    }
    return rc;
}

static int simulate_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            simulate_usage(stdout);
            return CLI_OK;
        }
    sim_options o = {.padding = MUSTER_PAD_DEFAULT};
    if (parse_simulate(argc, argv, &o) != 0)
        return CLI_USAGE;
    if (cli_parsing_only)
        return CLI_OK;
    muster_machine m;
    int rc = model_load_machine(PROG_SIM, &o.machine, &m);
    if (rc != CLI_OK)
        return rc;
    if (o.thread_count == 0)
        default_threads(&o, m.cpus < 512 ? m.cpus : 512);
    for (size_t t = 0; t < o.thread_count; t++)
        if (o.threads[t] > m.cpus) {
            fprintf(stderr, "%s: --threads: %u participants do not fit on %s's %u CPUs (try --replicate)\n",
                    PROG_SIM, o.threads[t], m.name, m.cpus);
            muster_machine_free(&m);
            return CLI_USAGE;
        }
    muster_algorithm algs[MUSTER_ALG_COUNT];
    size_t alg_count = 0;
    for (int a = 0; a < MUSTER_ALG_COUNT; a++)
        if (a != MUSTER_ALG_AUTO && (!o.any_algorithm || o.algorithm_chosen[a]))
            algs[alg_count++] = (muster_algorithm)a;
    double *ns = calloc(alg_count * o.thread_count, sizeof *ns);
    if (ns == NULL) {
        muster_machine_free(&m);
        return CLI_FAILED;
    }
    rc = run_simulations(&m, &o, ns, algs, alg_count);
    if (rc == CLI_OK)
        rc = emit_outputs(&m, &o, ns, algs, alg_count);
    free(ns);
    muster_machine_free(&m);
    return rc;
}

/* ---- the subcommand table ---- */

static const cli_command model_commands[] = {
    {"presets", presets_main, "list the built-in machines (Gao et al. 2021, Tables I-III)"},
    {"cost", cost_main, "the analytical model, eq. 1-5: fan-in and wake-up for P threads"},
    {"simulate", simulate_main, "simulated time per barrier of every algorithm for P = 2...512"},
    {"calibrate", model_calibrate_main, "simulated vs measured barrier time at 2 threads here"},
};
#define MODEL_COUNT (sizeof model_commands / sizeof model_commands[0])

static void model_usage(FILE *out)
{
    fprintf(out, "usage: muster model WHAT [options]\n\n"
                 "The cost model and many-core simulator; 'muster model WHAT --help' describes each.\n\n");
    cli_list_commands(out, model_commands, MODEL_COUNT);
}

int model_main(int argc, char **argv)
{
    return cli_dispatch("muster model", model_commands, MODEL_COUNT, argc - 1, argv + 1, model_usage);
}
