/* `muster bench tasks`: the task workloads of bench/omp/taskbench.c, each a
 * self-verifying gcc -fopenmp program run, one process per run, on every
 * runtime in turn (as `muster bench omp` runs syncbench), round by round so
 * that drift hits all alike.  A run that verifies wrong is an error, not a
 * number. */
#include "bench_tasks.h"
#include "bench_tasks_report.h"

#include "bench_child.h"
#include "cli.h"
#include "epcc_delay.h"
#include "platform/cpus.h" /* muster_affinity_cpus */

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "muster bench tasks"

struct options {
    omp_bench_choice choice; /* first: the shared setters take the options as a whole */
    int workload[TASK_WORKLOAD_COUNT];
    unsigned long reps;
    double scale, timeout_s;
    int json;
};

static void usage(FILE *out)
{
    fprintf(out,
"usage: muster bench tasks [options]\n"
"\n"
"Task-parallel workloads on three runtimes under one unchanged gcc -fopenmp program,\n"
"taskbench: libgomp (the program's own), LLVM libomp and libmuster-omp (both preloaded,\n"
"as 'muster run' does); and on libomp and muster under the same program built by clang\n"
"(LLVM's __kmpc ABI).  Every workload checks its own result against a serial one; a\n"
"run that gets it wrong is reported as an error.  Each run is one process; each round\n"
"runs every workload at every team size on every runtime in turn.\n"
"\n"
"workloads: fib (recursive Fibonacci with a cut-off), fib-nocut (a task per call),\n"
"nqueens, mergesort, sparselu (blocked LU with task dependences), uts (unbalanced tree\n"
"search), knapsack (branch and bound with a shared bound), knapsack-last (the same search\n"
"as task suites write it: two tasks per node, the promising one last, and a taskwait),\n"
"depfan (many tasks reading one\n"
"address, then one mutexinoutset set of many, behind a slow writer)\n"
"\n"
"The table shows, per workload and team size, each runtime's median and worst wall time\n"
"(ms) and the rounds above 5x the median, muster's median ÷ the better of libgomp and\n"
"libomp, and each runtime's speed-up over its own 1-thread median; then context\n"
"switches per run and peak memory (medians).\n"
"\n"
"options:\n"
"  --threads LIST     team sizes, comma-separated (default 1, the CPUs, 4x the CPUs)\n"
"  --workloads LIST   comma-separated (default all)\n"
"  --runtimes LIST    libgomp, libomp, muster, comma-separated (default all)\n"
"  --compilers LIST   gcc, clang: whose taskbench to run, one table each (default both\n"
"                     when the clang-built one exists, else gcc)\n"
"  --reps N           rounds (default 5)\n"
"  --scale S          problem size factor, 0.001 to 100 (default 1: ~50-300 ms a run\n"
"                     on one thread of the development VM)\n"
"  --timeout S        seconds before one run is killed (default 120); a cell that\n"
"                     errs or does not finish is not tried again\n"
"  --json             one JSON object on stdout instead of the tables (with two\n"
"                     compilers, {\"runs\": [gcc's object, clang's object]})\n"
"  --help             this text\n"
"\n"
"Files: as 'muster bench omp' (MUSTER_OMP_LIBRARY, MUSTER_LIBOMP); taskbench is\n"
"$MUSTER_TASKBENCH, else the build tree's (clang's: $MUSTER_TASKBENCH_CLANG, else the\n"
"build tree's taskbench-clang).  Progress goes to stderr.  Exit status: 0\n"
"when the run completed (cells may still be errors), 1 when it could not run, 2 for a\n"
"bad command line.\n");
}

/* ---- options ------------------------------------------------------------ */

static int add_workload(const char *name, void *ctx)
{
    struct options *o = ctx;
    for (int w = 0; w < TASK_WORKLOAD_COUNT; w++)
        if (strcmp(name, "all") == 0 || strcmp(name, task_workload_names[w]) == 0) {
            o->workload[w] = 1;
            if (strcmp(name, "all") != 0)
                return 0;
        }
    if (strcmp(name, "all") == 0)
        return 0;
    return cli_usage_error(PROG, "--workloads: unknown workload '%s' (fib, fib-nocut, nqueens, mergesort, "
                                 "sparselu, uts, knapsack, knapsack-last, depfan)", name);
}

static int set_workloads(const char *v, void *o)
{
    memset(((struct options *)o)->workload, 0, sizeof ((struct options *)o)->workload);
    return cli_for_each_item(PROG, "--workloads", v, add_workload, o);
}

#define NUMBER(name, kind, field, min, max) {name, kind, offsetof(struct options, field), min, max, NULL}
static const cli_option valued_options[] = {
    OMP_BENCH_CHOICE_OPTIONS,
    {"--workloads", CLI_VALUE_CUSTOM, 0, 0, 0, set_workloads},
    NUMBER("--reps", CLI_VALUE_ULONG, reps, 1, 1000),
    NUMBER("--scale", CLI_VALUE_DOUBLE, scale, 0.001, 100),
    NUMBER("--timeout", CLI_VALUE_DOUBLE, timeout_s, 0, 3600),
    {"--json", CLI_FLAG, offsetof(struct options, json), 0, 0, NULL},
};
#undef NUMBER

static int parse_options(int argc, char **argv, struct options *o, unsigned cpus)
{
    char defaults[64]; /* 1, the CPUs and 4 times that, ascending without repeats */
    snprintf(defaults, sizeof defaults, "1,%u,%u", cpus, 4u * cpus);
    *o = (struct options){.choice = omp_bench_choice_defaults(PROG, defaults), .reps = 5, .scale = 1.0,
                          .timeout_s = 120};
    for (int w = 0; w < TASK_WORKLOAD_COUNT; w++)
        o->workload[w] = 1;
    return cli_parse_args(PROG, argc, argv, valued_options, sizeof valued_options / sizeof valued_options[0],
                          o, usage);
}

/* ---- one run ------------------------------------------------------------ */

struct run_request {
    const task_bench_run *run;
    const char *library; /* NULL for libgomp */
    int workload;
    unsigned threads;
};

/* In the child (bench_child_run): becomes taskbench on the runtime asked for. */
static void exec_taskbench(const void *ctx)
{
    const struct run_request *rq = ctx;
    char threads[16], scale[32];
    snprintf(threads, sizeof threads, "%u", rq->threads);
    snprintf(scale, sizeof scale, "%g", rq->run->scale);
    char *argv[] = {(char *)rq->run->taskbench, "--workload", (char *)task_workload_names[rq->workload],
                    "--threads", threads, "--scale", scale, "--json", NULL};
    bench_child_exec(rq->library, rq->threads, argv);
}

static void cell_fail(task_cell *c, cell_status status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cell_fail(task_cell *c, cell_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof c->message, fmt, ap);
    va_end(ap);
    c->status = status;
}

/* Folds one run's output into its cell: its first line says which runtime
 * answered, the next one the workload's result. */
static void fold(const struct run_request *rq, const bench_child_output *co, task_cell *c, char *answered,
                 size_t answered_len)
{
    json_value result;
    char why[TASK_MESSAGE_LEN];
    if (!bench_check_answer(co->out, rq->library, answered, answered_len, why, sizeof why)) {
        cell_fail(c, CELL_ERROR, "%s", why);
        return;
    }
    /* The result line: the one with a status (the first line names the
     * workload too). */
    const char *workload = bench_find_record(co->out, "status", NULL, &result) == 0
                               ? bench_record_string(&result, "workload")
                               : NULL;
    if (workload == NULL || strcmp(workload, task_workload_names[rq->workload]) != 0 || co->timed_out) {
        muster_json_free(&result);
        int dnf = bench_child_explain(co, "taskbench", rq->run->timeout_s, why, sizeof why);
        cell_fail(c, dnf ? CELL_DNF : CELL_ERROR, "%s", why);
        return;
    }
    const char *status = bench_record_string(&result, "status");
    if (status == NULL || strcmp(status, "ok") != 0) {
        const char *message = bench_record_string(&result, "message");
        cell_fail(c, CELL_ERROR, "%s", message ? message : "failed");
        muster_json_free(&result);
        return;
    }
    c->ms[c->samples] = bench_record_number(&result, "ms");
    c->cpu_ms[c->samples] = bench_record_number(&result, "cpu_ms");
    c->csw[c->samples] = bench_record_number(&result, "csw");
    c->rss_kb[c->samples] = bench_record_number(&result, "maxrss_kb");
    c->samples++;
    double tasks = bench_record_number(&result, "tasks");
    const char *check = bench_record_string(&result, "check");
    if (!isnan(tasks))
        snprintf(c->tasks, sizeof c->tasks, "%.0f", tasks);
    snprintf(c->check, sizeof c->check, "%s", check ? check : "");
    c->status = CELL_OK;
    muster_json_free(&result);
}

/* ---- the rounds --------------------------------------------------------- */

static void measure(task_bench_run *run, const char *library, int rt, int w, size_t k)
{
    task_cell *c = task_cell_at(run, (size_t)w, k, (size_t)rt);
    struct run_request rq = {.run = run, .library = library, .workload = w, .threads = run->threads[k]};
    static bench_child_output co; /* 32 KiB: not on the stack */
    if (bench_child_run(exec_taskbench, &rq, run->timeout_s, &co) != 0) {
        cell_fail(c, CELL_ERROR, "cannot start taskbench: %s", strerror(errno));
        return;
    }
    fold(&rq, &co, c, run->runtime_path[rt], sizeof run->runtime_path[rt]);
}

static void run_rounds(task_bench_run *run, char library[OMP_RUNTIME_COUNT][4096])
{
    unsigned total = 0;
    for (int w = 0; w < TASK_WORKLOAD_COUNT; w++)
        for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
            total += run->workload[w] && run->runtime[rt] ? run->reps * (unsigned)run->ncounts : 0;
    bench_progress p = bench_progress_start(PROG, "runs", total);
    for (unsigned rep = 0; rep < run->reps; rep++)
        for (int w = 0; w < TASK_WORKLOAD_COUNT; w++)
            for (size_t k = 0; k < run->ncounts; k++)
                for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
                    if (!run->workload[w] || !run->runtime[rt])
                        continue;
                    bench_progress_step(&p, task_workload_names[w], run->threads[k], omp_runtime_name((omp_runtime)rt));
                    cell_status s = task_cell_at(run, (size_t)w, k, (size_t)rt)->status;
                    if (s == CELL_PENDING || s == CELL_OK)
                        measure(run, library[rt][0] ? library[rt] : NULL, rt, w, k);
                }
    bench_progress_end(&p);
}

/* ---- setting up --------------------------------------------------------- */

static unsigned read_cpus(int *cpu)
{
    return muster_affinity_cpus(cpu, CPU_SETSIZE);
}

static int alloc_cells(task_bench_run *run)
{
    size_t n = TASK_WORKLOAD_COUNT * run->ncounts * OMP_RUNTIME_COUNT;
    run->cells = calloc(n, sizeof *run->cells);
    double *values = calloc(4 * n * run->reps, sizeof *values);
    if (run->cells == NULL || values == NULL) {
        free(run->cells);
        free(values);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        double *mine = values + 4 * i * run->reps;
        run->cells[i] = (task_cell){.status = CELL_PENDING, .ms = mine, .csw = mine + run->reps,
                                    .rss_kb = mine + 2 * run->reps, .cpu_ms = mine + 3 * run->reps};
    }
    return 0;
}

static int run_benchmark(const struct options *o, const char *taskbench, const char *compiler, int *cpu,
                         unsigned cpus)
{
    static char library[OMP_RUNTIME_COUNT][4096];
    static task_bench_run run;
    run = (task_bench_run){.threads = o->choice.threads, .ncounts = o->choice.nthreads, .reps = (unsigned)o->reps,
                           .scale = o->scale, .timeout_s = o->timeout_s, .taskbench = taskbench,
                           .compiler = compiler,
                           .machine = {.cpus_online = sysconf(_SC_NPROCESSORS_ONLN), .cpus_available = cpus,
                                       .cpu_list = cpu}};
    memcpy(run.workload, o->workload, sizeof run.workload);
    memcpy(run.runtime, o->choice.runtime, sizeof run.runtime);
    if (strcmp(compiler, "clang") == 0)
        omp_leave_out_libgomp(run.runtime, run.runtime_missing);
    if (omp_find_runtimes(PROG, run.runtime, library, run.runtime_missing) == 0) {
        fprintf(stderr, "%s: none of the runtimes asked for was found%s\n", PROG,
                strcmp(compiler, "clang") == 0 ? " that can run the clang-built taskbench" : "");
        return CLI_FAILED;
    }
    if (alloc_cells(&run) != 0) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        return CLI_FAILED;
    }
    run_rounds(&run, library);
    if (o->json)
        task_report_json(stdout, &run);
    else
        task_report_table(stdout, &run);
    free(run.cells[0].ms);
    free(run.cells);
    return CLI_OK;
}

struct compiler_run {
    const struct options *o;
    const omp_found *found;
    int *cpu;
    unsigned cpus;
};

static int run_one(omp_compiler k, void *ctx)
{
    const struct compiler_run *rq = ctx;
    return run_benchmark(rq->o, rq->found[k].path, omp_compiler_names[k], rq->cpu, rq->cpus);
}

int bench_tasks_main(int argc, char **argv)
{
    static int cpu[CPU_SETSIZE];
    unsigned cpus = read_cpus(cpu);
    struct options o;
    int rc = parse_options(argc, argv, &o, cpus ? cpus : 1);
    if (rc >= 0 || cli_parsing_only)
        return rc >= 0 ? rc : CLI_OK;
    static omp_found found[OMP_COMPILER_COUNT];
    static const char *const program[OMP_COMPILER_COUNT] = {"taskbench", "taskbench-clang"};
    static const char *const hint[OMP_COMPILER_COUNT] = {
        "build it, or set MUSTER_TASKBENCH",
        "build it with 'make taskbench_clang' (needs clang-14 and libomp-dev) or set MUSTER_TASKBENCH_CLANG"};
    int programs = omp_choose_compilers(PROG, o.choice.compiler, o.choice.runtime, omp_find_taskbench, found, program,
                                        hint);
    if (programs <= 0)
        return CLI_FAILED;
    struct compiler_run rq = {&o, found, cpu, cpus};
    return omp_run_each_compiler(o.choice.compiler, o.json, run_one, &rq);
}
