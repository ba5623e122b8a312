/* `muster bench omp`: the EPCC syncbench (bench/omp/syncbench.c), one
 * unchanged gcc -fopenmp binary, on libgomp, LLVM libomp and libmuster-omp,
 * interleaved: every sample is its own syncbench process, and each round
 * visits every runtime in turn, so drift on a shared machine hits all alike. */
#include "bench_omp.h"

#include "bench_child.h"
#include "bench_omp_report.h"
#include "cli.h"
#include "epcc_delay.h"
#include "omp_runtime.h"
#include "platform/cpus.h" /* muster_affinity_cpus */

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "muster bench omp"

struct options {
    omp_bench_choice choice; /* first: the shared setters take the options as a whole */
    int construct[OMP_CONSTRUCT_COUNT];
    unsigned long reps;
    double target_ms, timeout_s, delay_ns;
    int json;
};

static void usage(FILE *out)
{
    fprintf(out,
"usage: muster bench omp [options]\n"
"\n"
"The overhead of OpenMP constructs on three runtimes under one unchanged gcc -fopenmp\n"
"program, syncbench, and on libomp and muster under the same program built by clang\n"
"-fopenmp (LLVM's __kmpc ABI; libgomp cannot run it).  syncbench follows EPCC's\n"
"method (the construct INNER times with a ~0.1 us busy delay\n"
"inside, then a reference loop of as many delays on one thread; overhead = (test -\n"
"reference) / constructs executed).  The runtimes: libgomp (the program's own), LLVM\n"
"libomp (preloaded) and libmuster-omp (preloaded, as 'muster run' does).  Each sample is\n"
"one syncbench process with a test loop of about --target-ms (INNER is calibrated in\n"
"the first round and reused), stopped after 3 times that however slow the construct\n"
"turns out (e.g. spinning threads outnumbering CPUs); each round takes one sample of\n"
"every construct on every runtime in turn (A, B, C, A, B, C, ...).  syncbench checks\n"
"each construct before timing it; a runtime that gets it wrong is reported as an\n"
"error, not a number.\n"
"\n"
"For each construct and team size the table shows the overhead on each runtime in us\n"
"(mean ± sd over the rounds), muster's time ÷ the better of libgomp and libomp (below\n"
"1× muster is faster), and context switches per construct (voluntary + involuntary,\n"
"all threads, during the timed loop, ÷ constructs executed).\n"
"\n"
"options:\n"
"  --threads LIST     team sizes, comma-separated (default 2,4,8)\n"
"  --constructs LIST  comma-separated, case-insensitive, '-' for '_' (default all):\n"
"                     parallel, for, parallel-for, barrier, single, critical, lock,\n"
"                     ordered, atomic, reduction; EPCC taskbench's parallel-task,\n"
"                     master-task, master-task-busy-slaves, conditional-task,\n"
"                     task-wait, task-barrier, nested-task, nested-master-task;\n"
"                     'sync' for the first ten, 'tasks' for the last eight\n"
"  --runtimes LIST    libgomp, libomp, muster, comma-separated (default all)\n"
"  --compilers LIST   gcc, clang: whose syncbench to run, one table each (default both\n"
"                     when the clang-built one exists, else gcc)\n"
"  --reps N           rounds, i.e. samples per cell (default 5); also --repetitions\n"
"  --target-ms MS     length of one sample's test loop (default 10)\n"
"  --delay-ns NS      the delay inside each construct (default 100; calibrated once, the\n"
"                     same number of delay steps is given to every runtime)\n"
"  --timeout S        seconds before one syncbench process is killed (default 20); a\n"
"                     cell that errs or does not finish is not tried again\n"
"  --json             one JSON object on stdout instead of the table (with two compilers,\n"
"                     {\"runs\": [gcc's object, clang's object]})\n"
"  --help             this text\n"
"\n"
"Files: libmuster-omp.so is $MUSTER_OMP_LIBRARY, else the build tree's, else installed\n"
"beside muster; libomp is $MUSTER_LIBOMP, else /usr/lib/*-linux-gnu/libomp.so.5 or\n"
"/usr/lib/llvm-*/lib/libomp.so.5; syncbench is $MUSTER_SYNCBENCH, else the build tree's;\n"
"clang's is $MUSTER_SYNCBENCH_CLANG, else the build tree's syncbench-clang.\n"
"A runtime that is not found is left out with a message; the others still run.  The\n"
"environment passes through: OMP_WAIT_POLICY, GOMP_SPINCOUNT, KMP_BLOCKTIME,\n"
"MUSTER_BARRIER and MUSTER_WAIT_POLICY apply to the runtimes that read them.\n"
"\n"
"Progress goes to stderr.  Exit status: 0 when the run completed (cells may still be\n"
"errors or dnf), 1 when it could not run, 2 for a bad command line.\n");
}

/* ---- options ------------------------------------------------------------ */

/* Case-insensitive; '-' and ' ' stand for '_'. */
static int construct_index(const char *name)
{
    for (int c = 0; c < OMP_CONSTRUCT_COUNT; c++) {
        const char *a = omp_construct_names[c], *b = name;
        while (*a && *b && (*a == (*b & ~0x20) || (*a == '_' && (*b == '-' || *b == ' '))))
            a++, b++;
        if (*a == '\0' && *b == '\0')
            return c;
    }
    return -1;
}

static int add_construct(const char *name, void *ctx)
{
    struct options *o = ctx;
    int c = construct_index(name);
    if (strcmp(name, "all") == 0 || strcmp(name, "sync") == 0 || strcmp(name, "tasks") == 0) {
        int first = strcmp(name, "tasks") == 0 ? OMP_SYNC_CONSTRUCT_COUNT : 0;
        int end = strcmp(name, "sync") == 0 ? OMP_SYNC_CONSTRUCT_COUNT : OMP_CONSTRUCT_COUNT;
        for (c = first; c < end; c++)
            o->construct[c] = 1;
        return 0;
    }
    if (c < 0)
        return cli_usage_error(PROG, "--constructs: unknown construct '%s' (see --help)", name);
    o->construct[c] = 1;
    return 0;
}

static int set_constructs(const char *v, void *o)
{
    memset(((struct options *)o)->construct, 0, sizeof ((struct options *)o)->construct);
    return cli_for_each_item(PROG, "--constructs", v, add_construct, o);
}

#define NUMBER(name, kind, field, min, max) {name, kind, offsetof(struct options, field), min, max, NULL}
static const cli_option valued_options[] = {
    OMP_BENCH_CHOICE_OPTIONS,
    {"--constructs", CLI_VALUE_CUSTOM, 0, 0, 0, set_constructs},
    NUMBER("--reps", CLI_VALUE_ULONG, reps, 1, 1000),
    NUMBER("--repetitions", CLI_VALUE_ULONG, reps, 1, 1000),
    NUMBER("--target-ms", CLI_VALUE_DOUBLE, target_ms, 0, 60000),
    NUMBER("--delay-ns", CLI_VALUE_DOUBLE, delay_ns, 0, 1e6),
    NUMBER("--timeout", CLI_VALUE_DOUBLE, timeout_s, 0, 3600),
    {"--json", CLI_FLAG, offsetof(struct options, json), 0, 0, NULL},
};
#undef NUMBER

/* Returns -1 to run the benchmark, else the exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
    *o = (struct options){.choice = omp_bench_choice_defaults(PROG, "2,4,8"), .reps = 5, .target_ms = 10,
                          .timeout_s = 20, .delay_ns = 100};
    for (int c = 0; c < OMP_CONSTRUCT_COUNT; c++)
        o->construct[c] = 1;
    return cli_parse_args(PROG, argc, argv, valued_options, sizeof valued_options / sizeof valued_options[0],
                          o, usage);
}

/* ---- one syncbench process ---------------------------------------------- */

/* One sample: which runtime, construct and team size, how many episodes. */
struct sample_request {
    const omp_bench_run *run;
    omp_runtime rt;
    const char *library; /* NULL for libgomp */
    int construct;
    unsigned threads;
    uint64_t inner; /* 0: let syncbench calibrate */
};

/* In the child (bench_child_run): becomes syncbench on the runtime asked for. */
static void exec_syncbench(const void *ctx)
{
    const struct sample_request *rq = ctx;
    char threads[16], delay[32], target[32], inner[32];
    snprintf(threads, sizeof threads, "%u", rq->threads);
    snprintf(delay, sizeof delay, "%u", rq->run->delay_iters);
    snprintf(target, sizeof target, "%g", rq->run->target_ms);
    snprintf(inner, sizeof inner, "%llu", (unsigned long long)rq->inner);
    char *argv[] = {(char *)rq->run->syncbench, "--threads", threads,
                    "--constructs", (char *)omp_construct_names[rq->construct],
                    "--samples", "1", "--delay-iters", delay, "--target-ms", target, "--json",
                    rq->inner ? "--inner" : NULL, inner, NULL};
    bench_child_exec(rq->library, rq->threads, argv);
}

/* ---- reading what syncbench said ---------------------------------------- */

static void cell_fail(omp_cell *c, cell_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void cell_fail(omp_cell *c, cell_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof c->message, fmt, ap);
    va_end(ap);
    c->status = status;
}

/* Why a process that gave no result line ended as it did. */
static void explain_end(omp_cell *c, const bench_child_output *co, const omp_bench_run *run)
{
    char why[OMP_MESSAGE_LEN];
    int dnf = bench_child_explain(co, "syncbench", run->timeout_s, why, sizeof why);
    cell_fail(c, dnf ? CELL_DNF : CELL_ERROR, "%s", why);
}

static void add_sample(omp_cell *c, const json_value *result)
{
    double inner = bench_record_number(result, "inner");
    double csw = bench_record_number(result, "csw_per_op");
    double cpu = bench_record_number(result, "cpu_us_per_op");
    if (c->inner == 0 && inner >= 1)
        c->inner = (uint64_t)inner;
    c->us[c->samples++] = bench_record_number(result, "mean_us");
    c->csw_sum += isnan(csw) ? 0 : csw;
    c->cpu_sum += isnan(cpu) ? 0 : cpu;
    c->status = CELL_OK;
}

/* Folds one process's output into its cell: its first line says which
 * runtime answered, the next one the construct's result. */
static void fold(const struct sample_request *rq, const bench_child_output *co, omp_cell *c,
                 char *answered, size_t answered_len)
{
    json_value result;
    char why[OMP_MESSAGE_LEN];
    if (!bench_check_answer(co->out, rq->library, answered, answered_len, why, sizeof why)) {
        cell_fail(c, CELL_ERROR, "%s", why);
        return;
    }
    if (bench_find_record(co->out, "construct", omp_construct_names[rq->construct], &result) != 0 ||
        co->timed_out) {
        muster_json_free(&result);
        explain_end(c, co, rq->run);
        return;
    }
    const char *status = bench_record_string(&result, "status");
    if (status != NULL && strcmp(status, "ok") == 0) {
        add_sample(c, &result);
    } else {
        const char *message = bench_record_string(&result, "message");
        cell_fail(c, CELL_ERROR, "%s", message ? message : "failed");
    }
    muster_json_free(&result);
}

/* ---- the rounds --------------------------------------------------------- */

static void measure(omp_bench_run *run, const char *const *library, omp_runtime rt, int construct,
                    size_t k)
{
    omp_cell *c = omp_cell_at(run, (size_t)construct, k, rt);
    struct sample_request rq = {.run = run, .rt = rt, .library = library[rt], .construct = construct,
                                .threads = run->threads[k], .inner = c->inner};
    static bench_child_output co; /* 32 KiB: not on the stack */
    if (bench_child_run(exec_syncbench, &rq, run->timeout_s, &co) != 0) {
        cell_fail(c, CELL_ERROR, "cannot start syncbench: %s", strerror(errno));
        return;
    }
    fold(&rq, &co, c, run->runtime_path[rt], sizeof run->runtime_path[rt]);
}

static int still_measuring(const omp_cell *c)
{
    return c->status == CELL_PENDING || c->status == CELL_OK;
}

/* Rounds outermost, runtimes innermost: every runtime gives its sample of a
 * construct before any gives the next. */
static void run_rounds(omp_bench_run *run, const char *const *library)
{
    unsigned total = 0;
    for (int c = 0; c < OMP_CONSTRUCT_COUNT; c++)
        for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
            total += run->construct[c] && run->runtime[rt] ? run->reps * (unsigned)run->ncounts : 0;
    bench_progress p = bench_progress_start(PROG, "samples", total);
    for (unsigned rep = 0; rep < run->reps; rep++)
        for (size_t k = 0; k < run->ncounts; k++)
            for (int c = 0; c < OMP_CONSTRUCT_COUNT; c++)
                for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
                    if (!run->construct[c] || !run->runtime[rt])
                        continue;
                    bench_progress_step(&p, omp_construct_labels[c], run->threads[k], omp_runtime_name(rt));
                    if (still_measuring(omp_cell_at(run, (size_t)c, k, rt)))
                        measure(run, library, (omp_runtime)rt, c, k);
                }
    bench_progress_end(&p);
}

/* ---- setting up --------------------------------------------------------- */

static int find_runtimes(omp_bench_run *run, char library[OMP_RUNTIME_COUNT][4096])
{
    return omp_find_runtimes(PROG, run->runtime, library, run->runtime_missing);
}

static int read_cpus(omp_bench_run *run, int *cpu)
{
    run->machine.cpus_available = muster_affinity_cpus(cpu, CPU_SETSIZE);
    if (run->machine.cpus_available == 0)
        return -1;
    run->machine.cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
    run->machine.cpu_list = cpu;
    return 0;
}

static int alloc_cells(omp_bench_run *run)
{
    size_t n = OMP_CONSTRUCT_COUNT * run->ncounts * OMP_RUNTIME_COUNT;
    run->cells = calloc(n, sizeof *run->cells);
    double *us = calloc(n * run->reps, sizeof *us);
    if (run->cells == NULL || us == NULL) {
        free(run->cells);
        free(us);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        run->cells[i] = (omp_cell){.status = CELL_PENDING, .us = us + i * run->reps};
    return 0;
}

static void free_cells(omp_bench_run *run)
{
    if (run->cells)
        free(run->cells[0].us);
    free(run->cells);
}

static int run_benchmark(const struct options *o, const char *syncbench, const char *compiler)
{
    static int cpu[CPU_SETSIZE];
    static char library[OMP_RUNTIME_COUNT][4096];
    static omp_bench_run run;
    run = (omp_bench_run){.threads = o->choice.threads, .ncounts = o->choice.nthreads, .reps = (unsigned)o->reps,
                          .target_ms = o->target_ms, .timeout_s = o->timeout_s, .syncbench = syncbench,
                          .compiler = compiler};
    memcpy(run.construct, o->construct, sizeof run.construct);
    memcpy(run.runtime, o->choice.runtime, sizeof run.runtime);
    if (strcmp(compiler, "clang") == 0)
        omp_leave_out_libgomp(run.runtime, run.runtime_missing);
    if (find_runtimes(&run, library) == 0) {
        fprintf(stderr, "%s: none of the runtimes asked for was found%s\n", PROG,
                strcmp(compiler, "clang") == 0 ? " that can run the clang-built syncbench" : "");
        return CLI_FAILED;
    }
    if (read_cpus(&run, cpu) != 0 || alloc_cells(&run) != 0) {
        fprintf(stderr, "%s: cannot read the CPU affinity mask or allocate the results\n", PROG);
        return CLI_FAILED;
    }
    run.delay_iters = epcc_calibrate_delay(o->delay_ns, &run.delay_ns);
    const char *libs[OMP_RUNTIME_COUNT];
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        libs[rt] = library[rt][0] ? library[rt] : NULL;
    run_rounds(&run, libs);
    if (o->json)
        omp_report_json(stdout, &run);
    else
        omp_report_table(stdout, &run);
    free_cells(&run);
    return CLI_OK;
}

struct compiler_run {
    const struct options *o;
    const omp_found *found;
};

static int run_one(omp_compiler k, void *ctx)
{
    const struct compiler_run *rq = ctx;
    return run_benchmark(rq->o, rq->found[k].path, omp_compiler_names[k]);
}

int bench_omp_main(int argc, char **argv)
{
    struct options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0 || cli_parsing_only)
        return rc >= 0 ? rc : CLI_OK;
    static omp_found found[OMP_COMPILER_COUNT];
    static const char *const program[OMP_COMPILER_COUNT] = {"syncbench", "syncbench-clang"};
    static const char *const hint[OMP_COMPILER_COUNT] = {
        "build it with 'make syncbench' (needs gcc -fopenmp) or set MUSTER_SYNCBENCH",
        "build it with 'make syncbench_clang' (needs clang-14 and libomp-dev) or set MUSTER_SYNCBENCH_CLANG"};
    int programs = omp_choose_compilers(PROG, o.choice.compiler, o.choice.runtime, omp_find_syncbench, found, program,
                                        hint);
    if (programs <= 0)
        return CLI_FAILED;
    struct compiler_run rq = {&o, found};
    return omp_run_each_compiler(o.choice.compiler, o.json, run_one, &rq);
}
