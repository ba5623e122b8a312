/* `muster compare` (compare.h): runs one OpenMP program under each runtime
 * that can run it, round by round (A, B, C, A, B, C, ...) so drift hits them
 * alike, one process a run; reports per team size and runtime the median
 * and worst wall time, the rounds above 5x the median, CPU time (user +
 * system) and CPU / wall, context switches, peak memory and exit status;
 * then checks that the outputs agree. */
#include "compare.h"

#include "agreement.h"
#include "bench_child.h"
#include "cli.h"
#include "json_write.h"
#include "omp_entries.h"
#include "omp_runtime.h"
#include "platform/cpus.h"
#include "sample_stats.h"

#include <elf.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "muster compare"
#define MAX_ROUNDS 1000
#define MAX_COUNTS 16

/* ---- the program's ABI, from its dynamic section ---- */

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Reads the whole file (a program: a few MiB at most matter here). */
static unsigned char *read_file(const char *path, size_t *len, char *why, size_t why_len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(why, why_len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 20;
            unsigned char *grown = realloc(buf, cap);
            if (grown == NULL) {
                free(buf);
                fclose(f);
                snprintf(why, why_len, "%s: out of memory reading it", path);
                return NULL;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* The ABI named by one DT_NEEDED library, or COMPARE_ABI_NONE. */
static compare_abi abi_of_needed(const char *name)
{
    if (starts_with(name, "libgomp.so"))
        return COMPARE_ABI_GOMP;
    if (starts_with(name, "libomp.so") || starts_with(name, "libiomp5.so"))
        return COMPARE_ABI_KMP;
    return COMPARE_ABI_NONE;
}

compare_abi compare_program_abi(const char *path, char *why, size_t why_len)
{
    size_t len;
    unsigned char *file = read_file(path, &len, why, why_len);
    if (file == NULL)
        return COMPARE_ABI_ERROR;
    compare_abi abi = COMPARE_ABI_ERROR;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(why, why_len, "%s is not an ELF program (a script? give the program it runs)", path);
    } else if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
               eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len) {
        snprintf(why, why_len, "%s: not a 64-bit ELF file whose sections can be read", path);
    } else {
        const Elf64_Shdr *sh = (const Elf64_Shdr *)(file + eh->e_shoff);
        abi = COMPARE_ABI_NONE;
        for (unsigned i = 0; i < eh->e_shnum; i++) {
            if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum)
                continue;
            const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
            if (sh[i].sh_offset + sh[i].sh_size > len || strtab->sh_offset + strtab->sh_size > len)
                break;
            const Elf64_Dyn *dyn = (const Elf64_Dyn *)(file + sh[i].sh_offset);
            for (size_t d = 0; d < sh[i].sh_size / sizeof *dyn && dyn[d].d_tag != DT_NULL; d++) {
                if (dyn[d].d_tag != DT_NEEDED || dyn[d].d_un.d_val >= strtab->sh_size)
                    continue;
                const char *name = (const char *)file + strtab->sh_offset + dyn[d].d_un.d_val;
                compare_abi found = abi_of_needed(name);
                if (found != COMPARE_ABI_NONE)
                    abi = found;
            }
        }
        if (abi == COMPARE_ABI_NONE)
            snprintf(why, why_len,
                     "%s links no OpenMP runtime (neither libgomp nor libomp in its dynamic section; "
                     "built without -fopenmp, or statically?)",
                     path);
    }
    free(file);
    return abi;
}

/* ---- options ---- */

struct options {
    omp_bench_choice choice; /* threads, runtimes (compilers unused) */
    unsigned long rounds;
    double timeout_s, tolerance;
    const char *figure, *expect, *json, *plot;
    int ignore_output;
    char **program; /* argv of the program, NULL-terminated */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: muster compare [options] -- PROGRAM [ARGS...]\n\n"
            "Runs an OpenMP program under each runtime that can run it: libgomp (the program's own\n"
            "when gcc built it), LLVM libomp and libmuster-omp (preloaded, as 'muster run' does).\n"
            "Which ones can is read from the program's dynamic section: a gcc -fopenmp program (it\n"
            "links libgomp) runs on all three, a clang -fopenmp one (libomp) on libomp and muster.\n"
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
        ((struct options *)opts)->figure = value;
    return rc;
}

static int set_expect(const char *value, void *opts)
{
    int rc = check_regex("--expect", value, REG_EXTENDED | REG_NEWLINE | REG_NOSUB);
    if (rc == 0)
        ((struct options *)opts)->expect = value;
    return rc;
}

static int set_json(const char *value, void *opts)
{
    ((struct options *)opts)->json = value;
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
    ((struct options *)opts)->plot = value;
    return 0;
}

static compare_plotter plotter;

void compare_set_plotter(compare_plotter p)
{
    plotter = p;
}

#define NUMBER(name, kind, field, lo, hi) {name, kind, offsetof(struct options, field), lo, hi, NULL}
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
    {"--ignore-output", CLI_FLAG, offsetof(struct options, ignore_output), 0, 0, NULL},
};
#undef NUMBER

static int parse_options(int argc, char **argv, struct options *o)
{
    char defaults[16];
    snprintf(defaults, sizeof defaults, "%u", muster_cpus_available());
    *o = (struct options){.choice = omp_bench_choice_defaults(PROG, defaults), .rounds = 5, .timeout_s = 600,
                          .tolerance = 1e-9};
    int split = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            split = i;
            break;
        }
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

/* ---- the runs ---- */

typedef struct run_result {
    double wall_s, cpu_s, figure;
    long voluntary, involuntary, peak_kb;
    int status, timed_out, failed_to_start, has_figure;
    char *out;
    char err_line[200];
} run_result;

typedef struct child_ctx {
    const char *library; /* NULL: the program's own runtime */
    unsigned threads;
    char **argv;
} child_ctx;

static void start_child(const void *p)
{
    const child_ctx *c = p;
    bench_child_exec(c->library, c->threads, c->argv);
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static bool pull_figure(const char *text, const regex_t *re, double *value)
{
    regmatch_t m[2];
    if (regexec(re, text, 2, m, 0) != 0)
        return false;
    regmatch_t g = m[1].rm_so >= 0 ? m[1] : m[0];
    char number[64];
    snprintf(number, sizeof number, "%.*s", (int)(g.rm_eo - g.rm_so), text + g.rm_so);
    char *end;
    *value = strtod(number, &end);
    return end != number;
}

static void run_once(const struct options *o, const char *library, unsigned threads, const regex_t *figure,
                     run_result *r)
{
    static bench_child_output co; /* 32 KiB: not on the stack */
    child_ctx ctx = {library, threads, o->program};
    memset(r, 0, sizeof *r);
    if (bench_child_run(start_child, &ctx, o->timeout_s, &co) != 0) {
        r->failed_to_start = 1;
        snprintf(r->err_line, sizeof r->err_line, "could not start a process: %s", strerror(errno));
        r->out = strdup("");
        return;
    }
    r->wall_s = co.wall_s;
    r->cpu_s = seconds(co.usage.ru_utime) + seconds(co.usage.ru_stime);
    r->voluntary = co.usage.ru_nvcsw;
    r->involuntary = co.usage.ru_nivcsw;
    r->peak_kb = co.usage.ru_maxrss;
    r->timed_out = co.timed_out;
    r->status = co.status;
    r->out = strdup(co.out);
    bench_last_line(co.err, r->err_line, sizeof r->err_line);
    if (figure != NULL)
        r->has_figure = pull_figure(co.out, figure, &r->figure);
}

static bool run_ok(const run_result *r)
{
    return !r->failed_to_start && !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

/* "exit 0", "exit 3", "signal 11", "timed out" */
static void describe_end(const run_result *r, char *buf, size_t len)
{
    if (r->failed_to_start)
        snprintf(buf, len, "not started");
    else if (r->timed_out)
        snprintf(buf, len, "timed out");
    else if (WIFSIGNALED(r->status))
        snprintf(buf, len, "signal %d", WTERMSIG(r->status));
    else
        snprintf(buf, len, "exit %d", WEXITSTATUS(r->status));
}

/* ---- the report ---- */

typedef struct comparison {
    const struct options *o;
    compare_abi abi;
    int runtime[OMP_RUNTIME_COUNT];
    char library[OMP_RUNTIME_COUNT][4096];
    unsigned nruntimes, order[OMP_RUNTIME_COUNT];
    run_result *runs; /* [threads][runtime slot][round] */
} comparison;

static run_result *run_at(const comparison *c, size_t t, size_t slot, size_t round)
{
    return &c->runs[(t * c->nruntimes + slot) * c->o->rounds + round];
}

static double median_of(const comparison *c, size_t t, size_t slot, double (*field)(const run_result *),
                        sample_stats *stats)
{
    double x[MAX_ROUNDS];
    for (size_t r = 0; r < c->o->rounds; r++)
        x[r] = field(run_at(c, t, slot, r));
    *stats = sample_stats_of(x, c->o->rounds);
    return stats->median;
}

static double wall_of(const run_result *r) { return r->wall_s; }
static double cpu_of(const run_result *r) { return r->cpu_s; }
static double vol_of(const run_result *r) { return (double)r->voluntary; }
static double invol_of(const run_result *r) { return (double)r->involuntary; }
static double peak_of(const run_result *r) { return (double)r->peak_kb; }

static void print_cell_table(FILE *out, const comparison *c, size_t t)
{
    const struct options *o = c->o;
    char title[32];
    snprintf(title, sizeof title, "%u thread%s", o->choice.threads[t], o->choice.threads[t] == 1 ? "" : "s");
    fprintf(out, "\n%-12s   wall s   wall s       CPU s  CPU ÷      csw     peak\n", title);
    fprintf(out, "               median    worst  >5×  median  wall  vol/invol     MB  runs\n");
    double best_other = INFINITY, mine = NAN;
    for (size_t s = 0; s < c->nruntimes; s++) {
        sample_stats wall, cpu, vol, invol, peak;
        median_of(c, t, s, wall_of, &wall);
        median_of(c, t, s, cpu_of, &cpu);
        median_of(c, t, s, vol_of, &vol);
        median_of(c, t, s, invol_of, &invol);
        median_of(c, t, s, peak_of, &peak);
        char ends[64] = "all exit 0";
        for (size_t r = 0; r < o->rounds; r++)
            if (!run_ok(run_at(c, t, s, r))) {
                char what[32];
                describe_end(run_at(c, t, s, r), what, sizeof what);
                snprintf(ends, sizeof ends, "round %zu: %s", r + 1, what);
                break;
            }
        char csw[32];
        snprintf(csw, sizeof csw, "%.0f/%.0f", vol.median, invol.median);
        fprintf(out, "  %-10s %8.4g %8.4g %4zu%s %7.3g %5.2f %10s %6.1f  %s\n", omp_runtime_name(c->order[s]),
                wall.median, wall.max, wall.outliers, wall.outliers ? "!" : " ", cpu.median,
                wall.median > 0 ? cpu.median / wall.median : 0.0, csw, peak.max / 1024.0, ends);
        if (c->order[s] == OMP_RUNTIME_MUSTER)
            mine = wall.median;
        else if (wall.median < best_other)
            best_other = wall.median;
    }
    if (!isnan(mine) && isfinite(best_other) && best_other > 0)
        fprintf(out, "  muster ÷ the better peer: %.2f× wall\n", mine / best_other);
}

/* --expect: every run's output matches; returns the runs that do not. */
static size_t check_expected(FILE *out, const comparison *c)
{
    const struct options *o = c->o;
    regex_t re;
    if (o->expect == NULL || regcomp(&re, o->expect, REG_EXTENDED | REG_NEWLINE | REG_NOSUB) != 0)
        return 0;
    size_t missing = 0, runs = 0;
    for (size_t t = 0; t < o->choice.nthreads; t++)
        for (size_t s = 0; s < c->nruntimes; s++)
            for (size_t r = 0; r < o->rounds; r++, runs++)
                if (regexec(&re, run_at(c, t, s, r)->out, 0, NULL, 0) != 0 && missing++ < 5)
                    fprintf(out, "output @%u: --expect '%s' not found in round %zu on %s\n", o->choice.threads[t],
                            o->expect, r + 1, omp_runtime_name(c->order[s]));
    if (missing == 0)
        fprintf(out, "output: --expect '%s' found in all %zu runs\n", o->expect, runs);
    else
        fprintf(out, "output: --expect '%s' missing from %zu of %zu runs\n", o->expect, missing, runs);
    regfree(&re);
    return missing;
}

/* The agreement check at every team size; returns the disagreements. */
static size_t check_agreement(FILE *out, const comparison *c, const regex_t *figure)
{
    const struct options *o = c->o;
    if (o->ignore_output) {
        fprintf(out, "\noutput: not compared (--ignore-output)\n");
        return 0;
    }
    size_t total = check_expected(out, c);
    for (size_t t = 0; t < o->choice.nthreads; t++) {
        unsigned threads = o->choice.threads[t];
        if (figure != NULL) {
            const run_result *ref = NULL;
            size_t bad = 0;
            for (size_t s = 0; s < c->nruntimes; s++)
                for (size_t r = 0; r < o->rounds; r++) {
                    const run_result *x = run_at(c, t, s, r);
                    if (!x->has_figure) {
                        if (bad++ == 0)
                            fprintf(out, "output @%u: --figure found no number in round %zu on %s\n", threads,
                                    r + 1, omp_runtime_name(c->order[s]));
                        continue;
                    }
                    if (ref == NULL) {
                        ref = x;
                        continue;
                    }
                    double scale = fmax(fabs(ref->figure), fabs(x->figure));
                    if (fabs(ref->figure - x->figure) > o->tolerance * scale) {
                        if (bad++ == 0)
                            fprintf(out, "output @%u: DISAGREE: the figure is %.12g in round %zu on %s, %.12g first\n",
                                    threads, x->figure, r + 1, omp_runtime_name(c->order[s]), ref->figure);
                    }
                }
            if (bad == 0)
                fprintf(out, "output @%u: the figure agrees: %.12g in every run (tolerance %g)\n", threads,
                        ref ? ref->figure : NAN, o->tolerance);
            total += bad;
            continue;
        }
        const char *outputs[OMP_RUNTIME_COUNT * MAX_ROUNDS];
        for (size_t s = 0; s < c->nruntimes; s++)
            for (size_t r = 0; r < o->rounds; r++)
                outputs[s * o->rounds + r] = run_at(c, t, s, r)->out;
        const char *names[OMP_RUNTIME_COUNT];
        for (size_t s = 0; s < c->nruntimes; s++)
            names[s] = omp_runtime_name(c->order[s]);
        char diff[1024];
        agreement a = compare_outputs(outputs, names, c->nruntimes, o->rounds, diff, sizeof diff);
        if (a.differ == 0)
            fprintf(out,
                    "output @%u: agrees (%zu line%s compared; %zu measurement%s, their numbers not compared; %zu "
                    "that change from round to round ignored)\n",
                    threads, a.compared, a.compared == 1 ? "" : "s", a.measured, a.measured == 1 ? "" : "s",
                    a.ignored);
        else
            fprintf(out, "output @%u: DISAGREE on %zu of %zu lines compared; the first, %s%s\n", threads, a.differ,
                    a.compared, diff,
                    o->rounds == 1 ? " (with one round, an unnamed timing counts: try --rounds 3)" : "");
        total += a.differ;
    }
    return total;
}

static void write_json(FILE *f, const comparison *c, size_t disagreements, int failed)
{
    const struct options *o = c->o;
    fprintf(f, "{\"program\": ");
    muster_json_write_string(f, o->program[0]);
    fprintf(f, ", \"args\": [");
    for (char **a = o->program + 1; *a != NULL; a++) {
        fprintf(f, a == o->program + 1 ? "" : ", ");
        muster_json_write_string(f, *a);
    }
    fprintf(f, "], \"abi\": \"%s\", \"rounds\": %lu, \"runtimes\": [", c->abi == COMPARE_ABI_GOMP ? "libgomp" : "libomp",
            o->rounds);
    for (size_t s = 0; s < c->nruntimes; s++) {
        fprintf(f, "%s{\"name\": \"%s\", \"library\": ", s ? ", " : "", omp_runtime_name(c->order[s]));
        muster_json_write_string(f, c->library[c->order[s]]);
        fprintf(f, "}");
    }
    fprintf(f, "], \"cells\": [");
    bool first = true;
    for (size_t t = 0; t < o->choice.nthreads; t++)
        for (size_t s = 0; s < c->nruntimes; s++) {
            sample_stats wall, cpu;
            median_of(c, t, s, wall_of, &wall);
            median_of(c, t, s, cpu_of, &cpu);
            fprintf(f, "%s{\"threads\": %u, \"runtime\": \"%s\", \"median_wall_s\": ", first ? "" : ", ",
                    o->choice.threads[t], omp_runtime_name(c->order[s]));
            first = false;
            muster_json_write_number(f, wall.median);
            fprintf(f, ", \"worst_wall_s\": ");
            muster_json_write_number(f, wall.max);
            fprintf(f, ", \"over_5x_median\": %zu, \"median_cpu_s\": ", wall.outliers);
            muster_json_write_number(f, cpu.median);
            fprintf(f, ", \"runs\": [");
            for (size_t r = 0; r < o->rounds; r++) {
                const run_result *x = run_at(c, t, s, r);
                char ends[32];
                describe_end(x, ends, sizeof ends);
                fprintf(f, "%s{\"wall_s\": ", r ? ", " : "");
                muster_json_write_number(f, x->wall_s);
                fprintf(f, ", \"cpu_s\": ");
                muster_json_write_number(f, x->cpu_s);
                fprintf(f, ", \"voluntary_csw\": %ld, \"involuntary_csw\": %ld, \"peak_rss_kb\": %ld, \"ok\": %s, "
                           "\"end\": \"%s\"",
                        x->voluntary, x->involuntary, x->peak_kb, run_ok(x) ? "true" : "false", ends);
                if (x->has_figure) {
                    fprintf(f, ", \"figure\": ");
                    muster_json_write_number(f, x->figure);
                }
                fprintf(f, "}");
            }
            fprintf(f, "]}");
        }
    fprintf(f, "], \"outputs_compared\": %s, \"disagreements\": %zu, \"failed_runs\": %d}\n",
            o->ignore_output ? "false" : "true", disagreements, failed);
}

static int save_json(const char *path, const comparison *c, size_t disagreements, int failed)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
        return -1;
    }
    write_json(f, c, disagreements, failed);
    if (fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
        return -1;
    }
    return 0;
}

/* --plot: the JSON (--json's file, else a temporary one) drawn by the plotter. */
static int draw_plot(const comparison *c, size_t disagreements, int failed)
{
    const struct options *o = c->o;
    char tmp[64] = "";
    const char *json = o->json;
    if (json == NULL) {
        snprintf(tmp, sizeof tmp, "/tmp/muster-compare-XXXXXX");
        int fd = mkstemp(tmp);
        if (fd < 0) {
            fprintf(stderr, "%s: --plot: cannot make a temporary file: %s\n", PROG, strerror(errno));
            return -1;
        }
        close(fd);
        json = tmp;
        if (save_json(json, c, disagreements, failed) != 0) {
            unlink(tmp);
            return -1;
        }
    }
    int rc = plotter(json, o->plot);
    if (tmp[0])
        unlink(tmp);
    if (rc == 0)
        printf("plot: %s\n", o->plot);
    return rc == 0 ? 0 : -1;
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
    if (c->abi == COMPARE_ABI_KMP && c->runtime[OMP_RUNTIME_LIBGOMP]) {
        fprintf(stderr, "%s: libgomp cannot run %s (clang-built: it needs libomp's __kmpc entry points): left out\n",
                PROG, c->o->program[0]);
        c->runtime[OMP_RUNTIME_LIBGOMP] = 0;
    }
    char missing[OMP_RUNTIME_COUNT][2300];
    if (omp_find_runtimes(PROG, c->runtime, c->library, missing) == 0)
        return -1;
    /* A clang-built program's own runtime is libomp: nothing to preload. */
    if (c->abi == COMPARE_ABI_KMP)
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
    struct options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0 || cli_parsing_only)
        return rc >= 0 ? rc : CLI_OK;
    char path[4096], why[512];
    if (omp_program_path(o.program[0], path, sizeof path) != 0) {
        fprintf(stderr, "%s: %s: no such program (or not executable)\n", PROG, path);
        return CLI_FAILED;
    }
    o.program[0] = path;
    comparison c = {.o = &o, .abi = compare_program_abi(path, why, sizeof why)};
    if (c.abi == COMPARE_ABI_ERROR || c.abi == COMPARE_ABI_NONE) {
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
           c.abi == COMPARE_ABI_GOMP ? "libgomp's ABI (as gcc and gfortran build)"
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
                run_once(&o, c.library[rt][0] ? c.library[rt] : NULL, o.choice.threads[t], figure,
                         run_at(&c, t, s, r));
            }
    bench_progress_end(&progress);
    int failed = 0;
    for (size_t j = 0; j < nruns; j++)
        if (!run_ok(&c.runs[j])) {
            const run_result *x = &c.runs[j];
            size_t s = (j / o.rounds) % c.nruntimes, t = j / (o.rounds * c.nruntimes);
            char ends[32];
            describe_end(x, ends, sizeof ends);
            if (failed++ < 5)
                printf("FAILED: round %zu @%u on %s: %s%s%s\n", j % o.rounds + 1, o.choice.threads[t],
                       omp_runtime_name(c.order[s]), ends, x->err_line[0] ? ": " : "", x->err_line);
        }
    for (size_t t = 0; t < o.choice.nthreads; t++)
        print_cell_table(stdout, &c, t);
    size_t disagreements = check_agreement(stdout, &c, figure);
    if (o.json != NULL && save_json(o.json, &c, disagreements, failed) != 0)
        failed++;
    if (o.plot != NULL && draw_plot(&c, disagreements, failed) != 0)
        failed++;
    for (size_t j = 0; j < nruns; j++)
        free(c.runs[j].out);
    free(c.runs);
    if (figure != NULL)
        regfree(figure);
    return failed || disagreements ? CLI_FAILED : CLI_OK;
}
