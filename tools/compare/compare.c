/* `muster compare` (compare.h): runs one OpenMP program under each runtime
 * that can run it, round by round (A, B, C, A, B, C, ...) so drift hits them
 * alike, one process a run; reports per team size and runtime the median
 * and worst wall time, the rounds above 5x the median, CPU time (user +
 * system) and CPU / wall, context switches, peak memory and exit status;
 * then checks that the outputs agree. */
#include "compare_run.h"

#include "bench_child.h"
#include "cli.h"
#include "platform/cpus.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- options ---- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: muster compare [options] -- PROGRAM [ARGS...]\n\n"
            "Runs an OpenMP program under each runtime that can run it: libgomp (the program's own\n"
            "when gcc built it), LLVM libomp and libmuster-omp (preloaded, as 'muster run' does).\n"
            "Which ones can is read from the libraries its loader maps: a gcc -fopenmp program (it\n"
            "needs libgomp, itself or through its libraries) runs on all three, a clang -fopenmp\n"
            "one (libomp) on libomp and muster.\n"
            "The runs are interleaved, round by round, one process each, so drift hits every\n"
            "runtime alike.  For each team size and runtime it shows the median and worst wall\n"
            "time, how many rounds took over 5x the median (marked !, a bad mode the median\n"
            "hides), CPU seconds (user + system) and CPU / wall, context switches (voluntary /\n"
            "involuntary), peak memory and exit status; then whether the outputs agree.\n\n"
            "Agreement: answers must agree, measurements need not.  Line by line (by place) in\n"
            "the first 16 KiB of each run's standard output: a line that changes from round to\n"
            "round under every runtime is a timing and is ignored; a line that names a time or a\n"
            "rate (time, seconds, elapsed, rate, ms, us, Mop/s, GB/s ...) and differs only in\n"
            "its numbers is a measurement: its words must agree, its numbers need not; every\n"
            "other line must be the same in every run.  --expect REGEX also requires each run's\n"
            "output to match (a verdict such as 'Verification += +SUCCESSFUL').  Or --figure\n"
            "REGEX compares one number, or --ignore-output nothing.  A disagreement, a run that\n"
            "fails or does not finish, makes the exit status 1.\n\n"
            "options:\n"
            "  --runtimes LIST    libgomp, libomp, muster, comma-separated (default: all that can run it)\n"
            "  --threads LIST     team sizes, OMP_NUM_THREADS (default: the CPUs available)\n"
            "  --rounds N         runs per runtime and team size (default 5)\n"
            "  --timeout S        seconds before one run is killed (default 600)\n"
            "  --figure REGEX     compare the number REGEX matches (its first group, else the whole\n"
            "                     match; POSIX extended) instead of the lines\n"
            "  --tolerance X      relative difference --figure allows (default 1e-9)\n"
            "  --expect REGEX     every run's output must match REGEX (POSIX extended, ^ and $ at\n"
            "                     each line); may go with the line check or --figure\n"
            "  --ignore-output    do not compare outputs\n"
            "  --json FILE        also write every run's figures as JSON to FILE\n"
            "  --plot FILE        also draw wall time (median, range of the rounds) and CPU time per\n"
            "                     runtime, against threads when several: FILE.png or FILE.svg\n"
            "                     (Python 3 with matplotlib)\n"
            "  --help             this text\n\n"
            "Files: libmuster-omp.so is $MUSTER_OMP_LIBRARY, else the build tree's, else installed\n"
            "beside muster; libomp is $MUSTER_LIBOMP, else /usr/lib/*-linux-gnu/libomp.so.5 or\n"
            "/usr/lib/llvm-*/lib/libomp.so.5.  Progress goes to stderr.  Exit status: 0 when every\n"
            "run succeeded and the outputs agree, 1 when not (or the program cannot be compared),\n"
            "2 for a bad command line.\n\n"
            "example: muster compare --threads 2,4 --rounds 3 -- ./my_program input.dat\n");
}

/* A quantifier right after another ("(\S+)++"), outside brackets and
 * escapes: glibc's regcomp copies the tree once per quantifier, so a run
 * of them takes memory exponential in its length (fuzz_cli found 40 "+"
 * taking gigabytes).  No figure needs one. */
static bool stacks_quantifiers(const char *re)
{
    bool in_brackets = false, after_quantifier = false;
    for (const char *p = re; *p != '\0'; p++) {
        bool quantifier = false;
        if (*p == '\\' && p[1] != '\0')
            p++;
        else if (in_brackets)
            in_brackets = *p != ']';
        else if (*p == '[')
            in_brackets = true;
        else if (*p == '*' || *p == '+' || *p == '?' || *p == '{') {
            if (after_quantifier)
                return true;
            quantifier = true;
            if (*p == '{')
                while (p[1] != '\0' && p[1] != '}')
                    p++;
        }
        after_quantifier = quantifier;
    }
    return false;
}

/* 0 when value is a regular expression the option may take (at most 256
 * characters, no stacked quantifiers, which made regcomp take gigabytes),
 * else the usage error naming it. */
static int check_regex(const char *option, const char *value, int flags)
{
    if (strlen(value) > 256)
        return cli_usage_error(PROG, "%s: a regular expression of at most 256 characters, not %zu", option,
                               strlen(value));
    if (stacks_quantifiers(value))
        return cli_usage_error(PROG, "%s '%s': a quantifier follows another (as in '+*'); give one", option, value);
    regex_t re;
    int rc = regcomp(&re, value, flags);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &re, msg, sizeof msg);
        return cli_usage_error(PROG, "%s '%s' is not a regular expression: %s", option, value, msg);
    }
    regfree(&re);
    return 0;
}

static int set_figure(const char *value, void *opts)
{
    int rc = check_regex("--figure", value, REG_EXTENDED);
    if (rc == 0)
        ((compare_options *)opts)->figure = value;
    return rc;
}

static int set_expect(const char *value, void *opts)
{
    int rc = check_regex("--expect", value, REG_EXTENDED | REG_NEWLINE | REG_NOSUB);
    if (rc == 0)
        ((compare_options *)opts)->expect = value;
    return rc;
}

static int set_json(const char *value, void *opts)
{
    ((compare_options *)opts)->json = value;
    return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcasecmp(s + n - k, suffix) == 0;
}

static int set_plot(const char *value, void *opts)
{
    if (!ends_with(value, ".png") && !ends_with(value, ".svg"))
        return cli_usage_error(PROG, "--plot '%s': give a file name ending in .png or .svg", value);
    ((compare_options *)opts)->plot = value;
    return 0;
}

static compare_plotter plotter;

void compare_set_plotter(compare_plotter p)
{
    plotter = p;
}

#define NUMBER(name, kind, field, lo, hi) {name, kind, offsetof(compare_options, field), lo, hi, NULL}
static const cli_option option_table[] = {
    {"--threads", CLI_VALUE_CUSTOM, 0, 0, 0, omp_bench_set_threads},
    {"--runtimes", CLI_VALUE_CUSTOM, 0, 0, 0, omp_bench_set_runtimes},
    NUMBER("--rounds", CLI_VALUE_ULONG, rounds, 1, MAX_ROUNDS),
    NUMBER("--timeout", CLI_VALUE_DOUBLE, timeout_s, 0, 86400),
    NUMBER("--tolerance", CLI_VALUE_DOUBLE, tolerance, 0, 1e300),
    {"--figure", CLI_VALUE_CUSTOM, 0, 0, 0, set_figure},
    {"--expect", CLI_VALUE_CUSTOM, 0, 0, 0, set_expect},
    {"--json", CLI_VALUE_CUSTOM, 0, 0, 0, set_json},
    {"--plot", CLI_VALUE_CUSTOM, 0, 0, 0, set_plot},
    {"--ignore-output", CLI_FLAG, offsetof(compare_options, ignore_output), 0, 0, NULL},
};
#undef NUMBER

static int parse_options(int argc, char **argv, compare_options *o)
{
    char defaults[16];
    snprintf(defaults, sizeof defaults, "%u", muster_cpus_available());
    *o = (compare_options){.choice = omp_bench_choice_defaults(PROG, defaults), .rounds = 5, .timeout_s = 600,
                          .tolerance = 1e-9};
    int split = cli_find_separator(argc, argv);
    int rc = cli_parse_args(PROG, split, argv, option_table, sizeof option_table / sizeof option_table[0], o, usage);
    if (rc >= 0)
        return rc;
    if (split + 1 >= argc)
        return cli_usage_error(PROG, "no program to run: give it after --, as in 'muster compare -- ./prog'");
    if (o->figure != NULL && o->ignore_output)
        return cli_usage_error(PROG, "--figure and --ignore-output contradict each other: give one");
    if (o->expect != NULL && o->ignore_output)
        return cli_usage_error(PROG, "--expect and --ignore-output contradict each other: give one");
    if (o->plot != NULL && plotter == NULL)
        return cli_usage_error(PROG, "--plot needs the muster command's Python reports, which this build lacks");
    o->program = argv + split + 1;
    return -1;
}

/* ---- the command ---- */

/* Which runtimes can run a program of this ABI, in the table's order. */
/* A runtime put under the program that lacks entry points it needs (libomp
 * has no _8_ Fortran names, for one) is left out, with the names, before
 * any run: each of its runs would only repeat the loader's one line. */
static void leave_out_unbindable(comparison *c)
{
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
        if (!c->runtime[rt] || c->library[rt][0] == '\0')
            continue;
        omp_entries_report r;
        if (omp_check_entries(c->o->program[0], c->library[rt], &r) != OMP_ENTRIES_MISSING)
            continue;
        omp_entries_explain(stderr, PROG, c->o->program[0], c->library[rt], &r);
        fprintf(stderr, "%s: %s left out\n", PROG, omp_runtime_name((omp_runtime)rt));
        c->runtime[rt] = 0;
    }
}

static int choose_runtimes(comparison *c)
{
    if (c->abi == OMP_ABI_KMP && c->runtime[OMP_RUNTIME_LIBGOMP]) {
        fprintf(stderr, "%s: libgomp cannot run %s (clang-built: it needs libomp's __kmpc entry points): left out\n",
                PROG, c->o->program[0]);
        c->runtime[OMP_RUNTIME_LIBGOMP] = 0;
    }
    char missing[OMP_RUNTIME_COUNT][2300];
    if (omp_find_runtimes(PROG, c->runtime, c->library, missing) == 0)
        return -1;
    /* A clang-built program's own runtime is libomp: nothing to preload. */
    if (c->abi == OMP_ABI_KMP)
        c->library[OMP_RUNTIME_LIBOMP][0] = '\0';
    leave_out_unbindable(c);
    c->nruntimes = 0;
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        if (c->runtime[rt])
            c->order[c->nruntimes++] = (unsigned)rt;
    return 0;
}

int compare_main(int argc, char **argv)
{
    compare_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0 || cli_parsing_only)
        return rc >= 0 ? rc : CLI_OK;
    char path[4096], why[512];
    if (omp_program_path(o.program[0], path, sizeof path) != 0) {
        fprintf(stderr, "%s: %s: no such program (or not executable)\n", PROG, path);
        return CLI_FAILED;
    }
    o.program[0] = path;
    comparison c = {.o = &o, .abi = omp_program_abi(path, why, sizeof why)};
    if (c.abi == OMP_ABI_ERROR || c.abi == OMP_ABI_NONE) {
        fprintf(stderr, "%s: %s: nothing to compare\n", PROG, why);
        return CLI_FAILED;
    }
    memcpy(c.runtime, o.choice.runtime, sizeof c.runtime);
    if (choose_runtimes(&c) != 0 || c.nruntimes == 0) {
        fprintf(stderr, "%s: no runtime left to run %s\n", PROG, path);
        return CLI_FAILED;
    }
    regex_t figure_re, *figure = NULL;
    if (o.figure != NULL && regcomp(&figure_re, o.figure, REG_EXTENDED) == 0)
        figure = &figure_re;
    size_t nruns = o.choice.nthreads * c.nruntimes * o.rounds;
    c.runs = calloc(nruns, sizeof *c.runs);
    if (c.runs == NULL) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        return CLI_FAILED;
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("muster compare: %s, %s, %lu round%s interleaved, %zu team size%s, %u runtimes\n", base,
           c.abi == OMP_ABI_GOMP ? "libgomp's ABI (as gcc and gfortran build)"
                                     : "libomp's ABI (as clang and flang build)",
           o.rounds, o.rounds == 1 ? "" : "s", o.choice.nthreads, o.choice.nthreads == 1 ? "" : "s", c.nruntimes);
    for (size_t s = 0; s < c.nruntimes; s++)
        printf("  %-8s %s\n", omp_runtime_name(c.order[s]),
               c.library[c.order[s]][0] ? c.library[c.order[s]] : "(the program's own)");
    fflush(stdout);
    bench_progress progress = bench_progress_start(PROG, "runs", (unsigned)nruns);
    for (size_t r = 0; r < o.rounds; r++)
        for (size_t t = 0; t < o.choice.nthreads; t++)
            for (size_t s = 0; s < c.nruntimes; s++) {
                unsigned rt = c.order[s];
                bench_progress_step(&progress, base, o.choice.threads[t], omp_runtime_name(rt));
                compare_run_once(&o, c.library[rt][0] ? c.library[rt] : NULL, o.choice.threads[t], figure,
                         compare_run_at(&c, t, s, r));
            }
    bench_progress_end(&progress);
    int failed = 0;
    for (size_t j = 0; j < nruns; j++)
        if (!compare_run_ok(&c.runs[j])) {
            const run_result *x = &c.runs[j];
            size_t s = (j / o.rounds) % c.nruntimes, t = j / (o.rounds * c.nruntimes);
            char ends[32];
            compare_describe_end(x, ends, sizeof ends);
            if (failed++ < 5)
                printf("FAILED: round %zu @%u on %s: %s%s%s\n", j % o.rounds + 1, o.choice.threads[t],
                       omp_runtime_name(c.order[s]), ends, x->err_line[0] ? ": " : "", x->err_line);
        }
    for (size_t t = 0; t < o.choice.nthreads; t++)
        compare_print_table(stdout, &c, t);
    size_t disagreements = compare_check_outputs(stdout, &c, figure);
    if (o.json != NULL && compare_save_json(o.json, &c, disagreements, failed) != 0)
        failed++;
    if (o.plot != NULL && compare_draw_plot(&c, plotter, disagreements, failed) != 0)
        failed++;
    for (size_t j = 0; j < nruns; j++)
        free(c.runs[j].out);
    free(c.runs);
    if (figure != NULL)
        regfree(figure);
    return failed || disagreements ? CLI_FAILED : CLI_OK;
}
