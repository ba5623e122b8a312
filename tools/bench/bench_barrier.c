/* `muster bench barrier`: muster's barriers beside the comparators, by the
 * EPCC method, interleaved, each measurement in its own child process. */
#include "bench_barrier.h"

#include "bench_epcc.h"
#include "bench_impl.h"
#include "bench_report.h"
#include "cli.h"
#include "platform/cpus.h" /* muster_affinity_cpus */

#include <muster/barrier.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "muster bench barrier"
#define MAX_COUNTS 32
#define DELAY_NS 100.0 /* EPCC's delay between barriers: short, but not nothing */

enum pin_mode { PIN_CLOSE, PIN_SPREAD, PIN_NONE };
static const char *const pin_names[] = {"close", "spread", "none"};

struct options {
    unsigned threads[MAX_COUNTS];
    size_t nthreads;
    int alg[MUSTER_ALG_COUNT];     /* selected algorithms; [MUSTER_ALG_AUTO] too */
    int policy[MUSTER_WAIT_COUNT]; /* selected policies; [MUSTER_WAIT_DEFAULT] too */
    int no_compare; /* --no-compare: muster only */
    enum pin_mode pin;
    unsigned long reps;
    double target_ms, timeout_s;
    int json;
    int seen_alg, seen_policy; /* given on the command line, so no defaults */
};

/* The CPUs this process may run on, in order. */
struct cpu_mask {
    int cpu[CPU_SETSIZE];
    unsigned count;
};

static void usage(FILE *out)
{
    fprintf(out,
"usage: muster bench barrier [options]\n"
"\n"
"The overhead of one barrier episode, by the EPCC method (Bull & O'Neill).  A reference\n"
"loop runs a short calibrated busy delay (~0.1 us) INNER times on one thread; the test loop\n"
"runs {delay; barrier} INNER times on every thread; overhead = (test - reference) / INNER.\n"
"INNER is calibrated so the test loop takes about --target-ms; --reps outer repetitions\n"
"give mean ± sd.  Each repetition visits every implementation in turn, so drift on a\n"
"shared machine hits all alike.  Each measurement runs in a child process, killed after\n"
"--timeout seconds (\"did not finish\": e.g. spinning with more threads than CPUs).\n"
"Context switches (getrusage, all threads) are reported per barrier.\n"
"\n"
"Rows: every muster algorithm x wait policy, \"auto\" with the default policy, and the\n"
"comparators: Concurrency Kit's five barriers (all spin), pthread_barrier_wait, C++20\n"
"std::barrier and muster::barrier (the C++ API, used the same way: threads without\n"
"ids, libmuster's defaults), and the floor: two threads exchanging flags on separate\n"
"cache lines (at 2 threads only).  The table adds B/thr, bytes of barrier state per participant.\n"
"\n"
"options:\n"
"  --alg LIST      muster algorithms, comma-separated, or all (default); see below\n"
"  --policy LIST   wait policies: active, passive, hybrid, default; all (default) means\n"
"                  the first three\n"
"  --no-compare    muster only, no comparators\n"
"  --threads LIST  team sizes, comma-separated (default: 2, the CPUs in the affinity\n"
"                  mask, and 4 times that)\n"
"  --pin MODE      close (default): thread i on the i-th allowed CPU, modulo;\n"
"                  spread: thread i on allowed CPU i x cpus / threads; none: unpinned\n"
"  --reps N        outer repetitions (default 5)\n"
"  --target-ms MS  length of the test loop (default 20; at least 4 barriers)\n"
"  --timeout S     seconds before one measurement is abandoned (default 5); a cell that\n"
"                  did not finish is not tried again in later repetitions\n"
"  --json          print one JSON object instead of the table\n"
"  --help          this text\n"
"\n"
"algorithms:");
    size_t col = strlen("algorithms:");
    for (int a = 0; a < MUSTER_ALG_COUNT; a++) {
        const char *name = muster_algorithm_name((muster_algorithm)a);
        if (col + 1 + strlen(name) > 88) {
            fputs("\n ", out);
            col = 1;
        }
        col += (size_t)fprintf(out, " %s", name);
    }
    fprintf(out,
"\n\n"
"Progress goes to stderr when it is a terminal; stdout holds only the table or the JSON.\n"
"Exit status: 0 when the run completed (cells may still be dnf or error), 1 when it\n"
"could not run, 2 for a bad command line.\n");
}

/* ---- options ------------------------------------------------------------ */

static int add_algorithm(const char *name, void *ctx)
{
    struct options *o = ctx;
    muster_algorithm a;
    if (strcmp(name, "all") == 0) {
        for (int i = 0; i < MUSTER_ALG_COUNT; i++)
            o->alg[i] = 1;
        return 0;
    }
    if (muster_algorithm_parse(name, &a) < 0)
        return cli_usage_error(PROG, "--alg: unknown algorithm '%s' (see --help)", name);
    o->alg[a] = 1;
    return 0;
}

/* "all" is the three real policies; "default" is one of them, resolved. */
static void select_all_policies(struct options *o)
{
    o->policy[MUSTER_WAIT_ACTIVE] = o->policy[MUSTER_WAIT_PASSIVE] = o->policy[MUSTER_WAIT_HYBRID] = 1;
}

static int add_policy(const char *name, void *ctx)
{
    struct options *o = ctx;
    muster_wait_policy p;
    if (strcmp(name, "all") == 0) {
        select_all_policies(o);
        return 0;
    }
    if (muster_wait_policy_parse(name, &p) < 0)
        return cli_usage_error(PROG, "--policy: unknown policy '%s' (active, passive, hybrid, default)",
                               name);
    o->policy[p] = 1;
    return 0;
}

static int compare_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

static void sort_unique(unsigned *v, size_t *n)
{
    qsort(v, *n, sizeof *v, compare_unsigned);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (kept == 0 || v[kept - 1] != v[i])
            v[kept++] = v[i];
    *n = kept;
}

static int set_pin(const char *text, void *opts)
{
    struct options *o = opts;
    for (int m = 0; m < 3; m++)
        if (strcmp(text, pin_names[m]) == 0) {
            o->pin = (enum pin_mode)m;
            return 0;
        }
    return cli_usage_error(PROG, "--pin: unknown mode '%s' (close, spread, none)", text);
}

static int set_algorithms(const char *v, void *opts)
{
    ((struct options *)opts)->seen_alg = 1;
    return cli_for_each_item(PROG, "--alg", v, add_algorithm, opts);
}

static int set_policies(const char *v, void *opts)
{
    ((struct options *)opts)->seen_policy = 1;
    return cli_for_each_item(PROG, "--policy", v, add_policy, opts);
}

static int set_threads(const char *v, void *opts)
{
    struct options *o = opts;
    return cli_parse_count_list(PROG, "--threads", v, 1, MUSTER_MAX_PARTICIPANTS, o->threads, &o->nthreads,
                                MAX_COUNTS);
}

#define NUMBER(name, kind, field, min, max) {name, kind, offsetof(struct options, field), min, max, NULL}
static const cli_option options_table[] = {
    {"--alg", CLI_VALUE_CUSTOM, 0, 0, 0, set_algorithms},
    {"--policy", CLI_VALUE_CUSTOM, 0, 0, 0, set_policies},
    {"--threads", CLI_VALUE_CUSTOM, 0, 0, 0, set_threads},
    {"--pin", CLI_VALUE_CUSTOM, 0, 0, 0, set_pin},
    NUMBER("--reps", CLI_VALUE_ULONG, reps, 1, 1000),
    NUMBER("--target-ms", CLI_VALUE_DOUBLE, target_ms, 0, 60000),
    NUMBER("--timeout", CLI_VALUE_DOUBLE, timeout_s, 0, 3600),
    {"--json", CLI_FLAG, offsetof(struct options, json), 0, 0, NULL},
    {"--no-compare", CLI_FLAG, offsetof(struct options, no_compare), 0, 0, NULL},
};
#undef NUMBER

static void default_selection(struct options *o)
{
    if (!o->seen_alg)
        for (int a = 0; a < MUSTER_ALG_COUNT; a++)
            o->alg[a] = 1;
    if (!o->seen_policy)
        select_all_policies(o);
}

/* 2, the CPUs we may use, and four times that: no oversubscription, full,
 * and the oversubscribed case where spinning collapses. */
static void default_threads(struct options *o, unsigned ncpus)
{
    o->threads[0] = 2;
    o->threads[1] = ncpus;
    o->threads[2] = 4 * ncpus;
    o->nthreads = 3;
}

/* Returns -1 on success (run the benchmark) or the exit status. */
static int parse_options(int argc, char **argv, struct options *o, unsigned ncpus)
{
    *o = (struct options){.pin = PIN_CLOSE, .reps = 5, .target_ms = 20, .timeout_s = 5};
    int rc = cli_parse_args(PROG, argc, argv, options_table, sizeof options_table / sizeof options_table[0], o,
                            usage);
    if (rc >= 0)
        return rc;
    default_selection(o);
    if (o->nthreads == 0)
        default_threads(o, ncpus);
    sort_unique(o->threads, &o->nthreads);
    return -1;
}

/* ---- rows and CPUs ------------------------------------------------------ */

static int read_cpu_mask(struct cpu_mask *mask)
{
    mask->count = muster_affinity_cpus(mask->cpu, CPU_SETSIZE);
    return mask->count > 0 ? 0 : -1;
}

/* The CPU of each thread of a team of n, by the pin mode. */
static int *plan_cpus(const struct cpu_mask *mask, enum pin_mode pin, unsigned n)
{
    int *cpus = malloc(n * sizeof *cpus);
    for (unsigned i = 0; cpus != NULL && i < n; i++) {
        if (pin == PIN_NONE)
            cpus[i] = -1;
        else if (pin == PIN_CLOSE)
            cpus[i] = mask->cpu[i % mask->count];
        else
            cpus[i] = mask->cpu[(unsigned long long)i * mask->count / n];
    }
    return cpus;
}

static void add_muster_row(bench_row *rows, size_t *n, int alg, int policy)
{
    bench_row *r = &rows[(*n)++];
    r->impl = &bench_muster;
    r->choice = (struct bench_muster_choice){.algorithm = alg, .policy = policy};
    r->policy = muster_wait_policy_name((muster_wait_policy)policy);
    const char *name = muster_algorithm_name((muster_algorithm)alg);
    snprintf(r->label, sizeof r->label, "%s/%s", name, r->policy);
}

/* muster's algorithms x policies, then auto with the default policy, then
 * the comparators.  Returns the number of rows written. */
static size_t build_rows(const struct options *o, bench_row *rows)
{
    size_t n = 0;
    for (int a = MUSTER_ALG_CENTRAL_BLOCKING; a < MUSTER_ALG_COUNT; a++)
        for (int p = 0; p < MUSTER_WAIT_COUNT; p++)
            if (o->alg[a] && o->policy[p])
                add_muster_row(rows, &n, a, p);
    if (o->alg[MUSTER_ALG_AUTO])
        add_muster_row(rows, &n, MUSTER_ALG_AUTO, MUSTER_WAIT_DEFAULT);
    size_t ncomp = 0;
    const bench_impl *const *comp = !o->no_compare ? bench_comparators(&ncomp) : NULL;
    for (size_t i = 0; i < ncomp; i++) {
        bench_row *r = &rows[n++];
        r->impl = comp[i];
        snprintf(r->label, sizeof r->label, "%s", comp[i]->label ? comp[i]->label : comp[i]->name);
    }
    return n;
}

/* ---- measuring ---------------------------------------------------------- */

struct progress {
    int tty;
    unsigned done, total;
};

static void show_progress(struct progress *p, const bench_row *row, unsigned threads)
{
    p->done++;
    if (p->tty)
        fprintf(stderr, "\r\033[K[%u/%u] %s @%u ...", p->done, p->total, row->label, threads);
}

static void fold_result(bench_cell *c, const epcc_result *res)
{
    if (res->state_bytes >= 0)
        c->state_bytes = res->state_bytes;
    if (res->resolved_algorithm >= 0) {
        c->resolved_algorithm = res->resolved_algorithm;
        c->resolved_policy = res->resolved_policy;
    }
    if (res->status != EPCC_OK) {
        c->status = res->status == EPCC_DNF ? CELL_DNF : CELL_ERROR;
        snprintf(c->message, sizeof c->message, "%s", res->message);
        return;
    }
    c->us[c->samples++] = ((double)res->test_ns - (double)res->ref_ns) / (double)res->inner / 1000.0;
    c->csw_sum += (double)res->csw / (double)res->inner;
    c->inner = res->inner;
    c->status = CELL_OK;
}

static void measure_cell(const bench_run *run, size_t r, size_t k, int *const *cpus)
{
    const bench_row *row = &run->rows[r];
    bench_cell *c = bench_cell_at(run, r, k);
    epcc_request rq = {
        .impl = row->impl,
        .arg = &row->choice,
        .threads = run->threads[k],
        .cpus = cpus[k],
        .inner = c->inner,
        .target_ns = (uint64_t)(run->target_ms * 1e6),
        .delay_iters = run->delay_iters,
        .timeout_s = run->timeout_s,
    };
    epcc_result res;
    epcc_measure(&rq, &res);
    fold_result(c, &res);
}

/* Outer repetitions outermost, implementations innermost: every
 * implementation is measured once before any is measured twice. */
static void run_all(bench_run *run, int *const *cpus)
{
    struct progress p = {.tty = isatty(STDERR_FILENO), .total = 0};
    for (size_t i = 0; i < run->nrows * run->ncounts; i++)
        p.total += run->cells[i].status == CELL_PENDING ? run->reps : 0;
    for (unsigned rep = 0; rep < run->reps; rep++)
        for (size_t k = 0; k < run->ncounts; k++)
            for (size_t r = 0; r < run->nrows; r++) {
                cell_status s = bench_cell_at(run, r, k)->status;
                if (s != CELL_PENDING && s != CELL_OK)
                    continue; /* not applicable, or already failed: the answer will not change */
                show_progress(&p, &run->rows[r], run->threads[k]);
                measure_cell(run, r, k, cpus);
            }
    if (p.tty)
        fprintf(stderr, "\r\033[K");
}

/* samples: room for run->reps samples per cell. */
static void init_cells(bench_run *run, double *samples)
{
    for (size_t r = 0; r < run->nrows; r++)
        for (size_t k = 0; k < run->ncounts; k++) {
            bench_cell *c = bench_cell_at(run, r, k);
            *c = (bench_cell){.status = CELL_PENDING, .state_bytes = -1, .resolved_algorithm = -1,
                              .resolved_policy = -1,
                              .us = samples + (r * run->ncounts + k) * run->reps};
            unsigned only = run->rows[r].impl->only_threads;
            if (only != 0 && only != run->threads[k])
                c->status = CELL_NOT_APPLICABLE;
        }
}

/* muster reads its environment once per process; doing it here, before any
 * fork, lets every child inherit the result, and a bad variable is warned
 * about once rather than once per measurement. */
static void read_muster_environment(void)
{
    muster_barrier *b = NULL;
    if (muster_barrier_create(&b, 1, NULL) == MUSTER_OK)
        muster_barrier_destroy(b);
}

static int run_benchmark(const struct options *o, const struct cpu_mask *mask)
{
    bench_row rows[MUSTER_ALG_COUNT * MUSTER_WAIT_COUNT + 32];
    bench_run run = {
        .rows = rows,
        .threads = o->threads,
        .ncounts = o->nthreads,
        .reps = (unsigned)o->reps,
        .target_ms = o->target_ms,
        .timeout_s = o->timeout_s,
        .pin = pin_names[o->pin],
        .machine = {.cpus_online = sysconf(_SC_NPROCESSORS_ONLN), .cpus_available = mask->count,
                    .cpu_list = mask->cpu},
    };
    memset(rows, 0, sizeof rows);
    run.nrows = build_rows(o, rows);
    if (run.nrows == 0)
        return cli_usage_error(PROG, "nothing to measure: no algorithm x policy selected");
    run.cells = calloc(run.nrows * run.ncounts, sizeof *run.cells);
    double *samples = calloc(run.nrows * run.ncounts * run.reps, sizeof *samples);
    int *cpus[MAX_COUNTS] = {0};
    int ok = run.cells != NULL && samples != NULL;
    for (size_t k = 0; ok && k < run.ncounts; k++)
        ok = (cpus[k] = plan_cpus(mask, o->pin, o->threads[k])) != NULL;
    if (ok) {
        read_muster_environment();
        run.delay_iters = epcc_calibrate_delay(DELAY_NS, &run.delay_ns);
        init_cells(&run, samples);
        run_all(&run, cpus);
        if (o->json)
            bench_report_json(stdout, &run);
        else
            bench_report_table(stdout, &run);
    } else {
        fprintf(stderr, "%s: out of memory\n", PROG);
    }
    for (size_t k = 0; k < run.ncounts; k++)
        free(cpus[k]);
    free(run.cells);
    free(samples);
    return ok ? CLI_OK : CLI_FAILED;
}

int bench_barrier_main(int argc, char **argv)
{
    struct cpu_mask mask;
    if (read_cpu_mask(&mask) != 0) {
        fprintf(stderr, "%s: cannot read the CPU affinity mask\n", PROG);
        return CLI_FAILED;
    }
    struct options o;
    int rc = parse_options(argc, argv, &o, mask.count);
    if (rc >= 0)
        return rc;
    return cli_parsing_only ? CLI_OK : run_benchmark(&o, &mask);
}
