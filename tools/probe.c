/* `muster probe`: the core-to-core latency matrix of this machine by pinned
 * ping-pong (src/model/probe.c), shown as a table, saved as a machine
 * file, or drawn as a heat map by python/muster_report. */
#include "probe.h"

#include "cli.h"
#include "report_python.h"
#include "machine/machine.h"
#include "model/probe.h"
#include "muster/barrier.h"
#include "muster/topology.h"
#include "platform/affinity.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "muster probe"
#define MAX_REPETITIONS 1000ul
#define FULL_MATRIX_CPUS 16u  /* above this the table shows layers only, unless --matrix */
#define COLUMNS_PER_BLOCK 8u  /* 7 + 8 x 9 = 79 columns */

#ifndef MUSTER_PYTHON_DIR
#define MUSTER_PYTHON_DIR "python"
#endif

/* The CPUs this process may run on, ascending. */
struct cpu_mask {
    int *cpu;
    unsigned count;
};

struct options {
    const struct cpu_mask *mask; /* what --cpus may choose from */
    int *cpus;                   /* ascending; NULL: the whole affinity mask */
    unsigned count;
    unsigned long repetitions, round_trips; /* round_trips 0: calibrated */
    int json, matrix;
    const char *output, *png;
};

static void usage(FILE *out)
{
    fprintf(out,
"usage: muster probe [options]\n"
"\n"
"Measures the core-to-core latency of this machine (Gao et al. 2021, Sec. III-A).  For\n"
"each ordered pair (i, j) of CPUs, a thread pinned to i and a thread pinned to j bounce\n"
"one cache line: i writes an odd value, j answers with the next even one.  R round\n"
"trips are timed together (one is too short for the clock), K times; the minimum and\n"
"the median per round trip are reported, and the one-way latency i -> j is half the\n"
"median.  epsilon, the local cost, is a dependent load+store in the CPU's own cache.\n"
"The latencies are grouped into layers L0..Ln (values within 15%% of a layer's\n"
"smallest join it); N_c, the logical cluster size, is read off layer 0.\n"
"\n"
"options:\n"
"  --cpus LIST         CPUs to probe, e.g. 0-3,8 (default: the whole affinity mask)\n"
"  --repetitions K     samples per pair (default %u)\n"
"  --round-trips R     round trips per sample (default: calibrated to ~1 ms a sample)\n"
"  --json              print the machine file (muster-machine/1) instead of the table\n"
"  --output FILE       also write the machine file to FILE (via FILE.tmp, renamed)\n"
"  --png FILE          also draw a heat map with python3 -m muster_report heatmap\n"
"                      (package looked up in $MUSTER_PYTHON_DIR, default %s)\n"
"  --matrix            print the matrices even above %u CPUs\n"
"  --help              this text\n"
"\n"
"A run takes about N x (N-1) x K x 1 ms for N CPUs.  Progress goes to stderr when it is\n"
"a terminal or when there are more than 4 CPUs.  Exit status: 0 done, 1 the measurement\n"
"or an output failed, 2 a bad command line.\n",
            MUSTER_PROBE_DEFAULT_REPETITIONS, MUSTER_PYTHON_DIR, FULL_MATRIX_CPUS);
}

/* ---- CPU lists ---------------------------------------------------------- */

static int mask_index(const struct cpu_mask *mask, long cpu)
{
    for (unsigned i = 0; i < mask->count; i++)
        if (mask->cpu[i] == cpu)
            return (int)i;
    return -1;
}

/* A CPU number: digits only (strtol alone would take " 3", "+3", "-3"). */
static int parse_cpu_number(const char *text, size_t len, long *out)
{
    if (len == 0 || len > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        v = v * 10 + (text[i] - '0');
    }
    *out = v;
    return 0;
}

/* One item of --cpus, "N" or "A-B", marked in chosen (indexed like mask). */
static int choose_item(const char *item, size_t len, const struct cpu_mask *mask, char *chosen)
{
    const char *dash = memchr(item, '-', len);
    long first, last;
    size_t first_len = dash ? (size_t)(dash - item) : len;
    if (parse_cpu_number(item, first_len, &first) != 0 ||
        (dash && parse_cpu_number(dash + 1, len - first_len - 1, &last) != 0))
        return cli_usage_error(PROG, "--cpus: '%.*s' is not a CPU number or a range like 0-3", (int)len, item);
    if (!dash)
        last = first;
    if (first > last)
        return cli_usage_error(PROG, "--cpus: '%.*s' runs backwards", (int)len, item);
    for (long c = first; c <= last; c++) {
        int at = mask_index(mask, c);
        if (at < 0) {
            char allowed[256];
            muster_format_cpu_list(allowed, sizeof allowed, mask->cpu, mask->count);
            return cli_usage_error(PROG, "--cpus: CPU %ld is not in this process's affinity mask (%s)", c, allowed);
        }
        chosen[at] = 1;
    }
    return 0;
}

static int parse_cpu_list(const char *list, const struct cpu_mask *mask, struct options *o)
{
    char *chosen = calloc(mask->count, 1);
    if (chosen == NULL)
        return cli_usage_error(PROG, "--cpus: out of memory");
    int rc = *list == '\0' ? cli_usage_error(PROG, "--cpus: empty list") : 0;
    for (const char *item = list; rc == 0;) {
        const char *comma = strchr(item, ',');
        size_t len = comma ? (size_t)(comma - item) : strlen(item);
        rc = len == 0 ? cli_usage_error(PROG, "--cpus: empty item in '%s'", list) : choose_item(item, len, mask, chosen);
        if (!comma)
            break;
        item = comma + 1;
    }
    free(o->cpus);
    o->cpus = rc == 0 ? malloc(mask->count * sizeof *o->cpus) : NULL;
    o->count = 0;
    for (unsigned i = 0; o->cpus != NULL && i < mask->count; i++)
        if (chosen[i])
            o->cpus[o->count++] = mask->cpu[i];
    free(chosen);
    return rc == 0 && o->cpus == NULL ? cli_usage_error(PROG, "--cpus: out of memory") : rc;
}

/* ---- options ------------------------------------------------------------ */

static int set_cpus(const char *list, void *opts)
{
    struct options *o = opts;
    return parse_cpu_list(list, o->mask, o);
}

/* A file name, not empty: 0, or a usage error naming the option. */
static int set_path(const char *option, const char *value, const char **path)
{
    if (*value == '\0')
        return cli_usage_error(PROG, "%s: empty file name", option);
    *path = value;
    return 0;
}

static int set_output(const char *v, void *opts)
{
    return set_path("--output", v, &((struct options *)opts)->output);
}

static int set_png(const char *v, void *opts)
{
    return set_path("--png", v, &((struct options *)opts)->png);
}

#define NUMBER(name, field, max) {name, CLI_VALUE_ULONG, offsetof(struct options, field), 1, max, NULL}
static const cli_option options_table[] = {
    {"--cpus", CLI_VALUE_CUSTOM, 0, 0, 0, set_cpus},
    NUMBER("--repetitions", repetitions, MAX_REPETITIONS),
    NUMBER("--round-trips", round_trips, MUSTER_PROBE_MAX_ROUND_TRIPS),
    {"--output", CLI_VALUE_CUSTOM, 0, 0, 0, set_output},
    {"--png", CLI_VALUE_CUSTOM, 0, 0, 0, set_png},
    {"--json", CLI_FLAG, offsetof(struct options, json), 0, 0, NULL},
    {"--matrix", CLI_FLAG, offsetof(struct options, matrix), 0, 0, NULL},
};
#undef NUMBER

/* -1 to go on and measure, else the exit status. */
static int parse_options(int argc, char **argv, const struct cpu_mask *mask, struct options *o)
{
    *o = (struct options){.mask = mask, .repetitions = MUSTER_PROBE_DEFAULT_REPETITIONS};
    int rc = cli_parse_args(PROG, argc, argv, options_table, sizeof options_table / sizeof options_table[0], o,
                            usage);
    if (rc >= 0)
        return rc;
    if (o->cpus == NULL) {
        o->cpus = malloc(mask->count * sizeof *o->cpus);
        if (o->cpus == NULL)
            return cli_usage_error(PROG, "out of memory");
        memcpy(o->cpus, mask->cpu, mask->count * sizeof *o->cpus);
        o->count = mask->count;
    }
    if (o->count > MUSTER_MACHINE_MAX_CPUS)
        return cli_usage_error(PROG, "--cpus: %u CPUs, at most %u (choose some with --cpus)", o->count,
                               MUSTER_MACHINE_MAX_CPUS);
    return -1;
}

/* ---- the report --------------------------------------------------------- */

static void print_matrix(FILE *out, const char *title, const muster_machine *m, const double *a)
{
    unsigned n = m->cpus;
    fprintf(out, "\n%s\n", title);
    for (unsigned c0 = 0; c0 < n; c0 += COLUMNS_PER_BLOCK) {
        unsigned c1 = c0 + COLUMNS_PER_BLOCK < n ? c0 + COLUMNS_PER_BLOCK : n;
        if (c0 > 0)
            fputc('\n', out);
        fprintf(out, "%7s", "from\\to");
        for (unsigned c = c0; c < c1; c++)
            fprintf(out, "%9d", m->cpu_ids[c]);
        fputc('\n', out);
        for (unsigned r = 0; r < n; r++) {
            fprintf(out, "%7d", m->cpu_ids[r]);
            for (unsigned c = c0; c < c1; c++)
                if (r == c)
                    fprintf(out, "%9s", "-");
                else
                    fprintf(out, "%9.1f", a[(size_t)r * n + c]);
            fputc('\n', out);
        }
    }
}

static void print_layers(FILE *out, const muster_machine *m)
{
    size_t pairs[MUSTER_MACHINE_MAX_LAYERS] = {0}, n = m->cpus;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (i != j)
                pairs[m->layer_of[i * n + j]]++;
    fprintf(out, "layers of one-way latency (a value within %.0f%% of a layer's smallest joins it):\n",
            MUSTER_MACHINE_LAYER_TOLERANCE * 100);
    if (m->layer_count == 0)
        fprintf(out, "  none: one CPU, no pairs\n");
    for (unsigned k = 0; k < m->layer_count; k++)
        fprintf(out, "  %-4s %9.1f ns  %7zu pair%s\n", m->layers[k].name, m->layers[k].latency_ns, pairs[k],
                pairs[k] == 1 ? "" : "s");
    fprintf(out, "logical cluster size N_c: %u\n", m->cluster_size);
}

static void print_report(FILE *out, const muster_machine *m, const struct options *o)
{
    char cpus[256];
    muster_format_cpu_list(cpus, sizeof cpus, m->cpu_ids, m->cpus);
    fprintf(out, "muster probe: %s, %u CPU%s (%s)\n", m->name, m->cpus, m->cpus == 1 ? "" : "s", cpus);
    if (m->cpus == 1) {
        fprintf(out, "one CPU: no pairs to measure, only epsilon\n");
    } else {
        fprintf(out, "%u samples of %u round trips per ordered pair (%s)\n", m->probe_repetitions,
                m->probe_round_trips, o->round_trips ? "--round-trips" : "calibrated to ~1 ms a sample");
        if (m->cpus <= FULL_MATRIX_CPUS || o->matrix) {
            print_matrix(out, "round trip, minimum over the samples (ns); row: the CPU that starts it", m,
                         m->round_trip_min_ns);
            print_matrix(out, "round trip, median of the samples (ns); one-way latency = median / 2", m,
                         m->round_trip_median_ns);
        } else {
            fprintf(out, "(the %u x %u matrices are shown up to %u CPUs: --matrix prints them, --json and --output "
                         "save them)\n", m->cpus, m->cpus, FULL_MATRIX_CPUS);
        }
    }
    fprintf(out, "\nepsilon (local access: a dependent load+store in the own cache): %.2f ns\n", m->epsilon_ns);
    print_layers(out, m);
}

/* ---- progress ----------------------------------------------------------- */

struct progress {
    bool tty;
    unsigned last_tenth;
};

/* On a terminal, one line rewritten in place; in a log, a line per tenth. */
static void show_progress(unsigned done, unsigned total, void *ctx)
{
    struct progress *p = ctx;
    if (p->tty) {
        fprintf(stderr, done == total ? "\r\033[K" : "\r\033[K" PROG ": pair %u/%u", done, total);
        return;
    }
    unsigned tenth = (unsigned)((unsigned long long)done * 10 / total);
    if (tenth > p->last_tenth) {
        fprintf(stderr, PROG ": %u/%u pairs\n", done, total);
        p->last_tenth = tenth;
    }
}

/* ---- outputs ------------------------------------------------------------ */

/* The machine's topology (muster/topology.h) as one JSON object, saved as
 * the machine file's "topology"; discovered once, NULL if discovery fails
 * (the file is complete without it).  Freed at exit by the OS. */
static const char *topology_json(void)
{
    static char *text;
    static bool tried;
    if (tried)
        return text;
    tried = true;
    muster_topology *t = NULL;
    size_t len = 0;
    FILE *f = NULL;
    if (muster_topology_discover(&t) == MUSTER_OK && (f = open_memstream(&text, &len)) != NULL) {
        if (muster_topology_write_json(t, f) != 0) {
            fclose(f);
            free(text);
            text = NULL;
        } else {
            fclose(f);
            /* the writer may end with a newline: the saver indents it as is */
            while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
                text[--len] = '\0';
        }
    }
    muster_topology_free(t);
    return text;
}

/* --output: FILE.tmp is opened before measuring (a bad path fails at once,
 * not after the run) and renamed over FILE only once complete. */
struct output_file {
    char *tmp;
    FILE *f;
};

static int open_output(struct output_file *out, const char *path)
{
    size_t len = strlen(path) + sizeof ".tmp";
    out->tmp = malloc(len);
    if (out->tmp == NULL)
        return -1;
    snprintf(out->tmp, len, "%s.tmp", path);
    out->f = fopen(out->tmp, "w");
    if (out->f == NULL) {
        fprintf(stderr, "%s: --output: cannot write %s: %s\n", PROG, out->tmp, strerror(errno));
        free(out->tmp);
        out->tmp = NULL;
        return -1;
    }
    return 0;
}

static void abandon_output(struct output_file *out)
{
    if (out->f != NULL) {
        fclose(out->f);
        unlink(out->tmp);
    }
    free(out->tmp);
    *out = (struct output_file){0};
}

static int commit_output(struct output_file *out, const char *path, const muster_machine *m)
{
    int failed = muster_machine_save(m, out->f, topology_json()) != 0 || fflush(out->f) != 0 || fsync(fileno(out->f)) != 0;
    int saved_errno = errno;
    failed |= fclose(out->f) != 0;
    out->f = NULL;
    if (!failed && rename(out->tmp, path) != 0) {
        saved_errno = errno;
        failed = 1;
    }
    if (failed) {
        fprintf(stderr, "%s: --output: cannot write %s: %s\n", PROG, path, strerror(saved_errno));
        unlink(out->tmp);
    }
    free(out->tmp);
    out->tmp = NULL;
    return failed ? -1 : 0;
}

static const char *python_dir(void)
{
    const char *env = getenv("MUSTER_PYTHON_DIR");
    return env != NULL && *env != '\0' ? env : MUSTER_PYTHON_DIR;
}

/* Runs python3 with argv and PYTHONPATH led by python_dir(); its stdout goes
 * to our stderr (our stdout may be carrying --json), or both to /dev/null
 * when quiet.  The exit status, 127 when python3 could not be run, -1 when
 * fork failed. */
static int run_python(char *const argv[], bool quiet)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        const char *old = getenv("PYTHONPATH");
        char path[8192];
        snprintf(path, sizeof path, "%s%s%s", python_dir(), old && *old ? ":" : "", old && *old ? old : "");
        setenv("PYTHONPATH", path, 1);
        int null = quiet ? open("/dev/null", O_WRONLY) : -1;
        dup2(quiet ? null : STDERR_FILENO, STDOUT_FILENO);
        if (quiet)
            dup2(null, STDERR_FILENO);
        execvp(report_python_interpreter(), argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* --png needs python3 and muster_report: checked before measuring, so a
 * missing one costs seconds, not the whole run. */
static int check_png_tools(void)
{
    char *argv[] = {"python3", "-c",
                    "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('muster_report') else 3)", NULL};
    int rc = run_python(argv, true);
    if (rc == 0)
        return 0;
    if (rc == 127 || rc < 0)
        fprintf(stderr, "%s: --png: cannot run python3 (the heat map is drawn by python3 -m muster_report)\n", PROG);
    else if (rc == 3)
        fprintf(stderr, "%s: --png: the Python package muster_report is not in %s (set MUSTER_PYTHON_DIR to the "
                        "directory that holds it)\n", PROG, python_dir());
    else
        fprintf(stderr, "%s: --png: python3 failed (exit status %d) while looking for muster_report\n", PROG, rc);
    return -1;
}

static int draw_png(const muster_machine *m, const char *png)
{
    const char *tmpdir = getenv("TMPDIR");
    char json[4096];
    snprintf(json, sizeof json, "%s/muster-probe-XXXXXX.json", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemps(json, 5);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        fprintf(stderr, "%s: --png: cannot create a temporary file in %s: %s\n", PROG,
                tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int rc = muster_machine_save(m, f, topology_json());
    rc |= fclose(f);
    if (rc == 0) {
        char *argv[] = {"python3", "-m", "muster_report", "heatmap", json, (char *)png, NULL};
        rc = run_python(argv, false);
        if (rc != 0)
            fprintf(stderr, "%s: --png: python3 -m muster_report heatmap failed (exit status %d); %s not written\n",
                    PROG, rc, png);
    } else {
        fprintf(stderr, "%s: --png: cannot write %s: %s\n", PROG, json, strerror(errno));
    }
    unlink(json);
    return rc == 0 ? 0 : -1;
}

/* ---- the command ---------------------------------------------------------- */

static int measure(const struct options *o, muster_machine *m)
{
    struct progress progress = {.tty = isatty(STDERR_FILENO)};
    muster_probe_options po = {
        .cpus = o->cpus,
        .cpu_count = o->count,
        .repetitions = (unsigned)o->repetitions,
        .round_trips = (unsigned)o->round_trips,
        .progress = progress.tty || o->count > 4 ? show_progress : NULL,
        .progress_ctx = &progress,
    };
    char err[512];
    if (muster_probe_machine(&po, m, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return -1;
    }
    return 0;
}

static int run(const struct options *o)
{
    struct output_file out = {0};
    muster_machine m;
    if (o->png != NULL && check_png_tools() != 0)
        return CLI_FAILED;
    if (o->output != NULL && open_output(&out, o->output) != 0)
        return CLI_FAILED;
    if (measure(o, &m) != 0) {
        abandon_output(&out);
        return CLI_FAILED;
    }
    int status = CLI_OK;
    if (o->json) {
        if (muster_machine_save(&m, stdout, topology_json()) != 0) {
            fprintf(stderr, "%s: cannot write the machine file to stdout: %s\n", PROG, strerror(errno));
            status = CLI_FAILED;
        }
    } else {
        print_report(stdout, &m, o);
    }
    if (o->output != NULL && commit_output(&out, o->output, &m) != 0)
        status = CLI_FAILED;
    if (o->png != NULL && draw_png(&m, o->png) != 0)
        status = CLI_FAILED;
    muster_machine_free(&m);
    return status;
}

int probe_main(int argc, char **argv)
{
    struct cpu_mask mask;
    if (muster_thread_cpus(&mask.cpu, &mask.count) != 0) {
        fprintf(stderr, "%s: cannot read the CPU affinity mask: %s\n", PROG, strerror(errno));
        return CLI_FAILED;
    }
    struct options o;
    int rc = parse_options(argc, argv, &mask, &o);
    if (rc < 0)
        rc = cli_parsing_only ? CLI_OK : run(&o);
    free(o.cpus);
    free(mask.cpu);
    return rc;
}
