/* `muster profile`: runs an OpenMP program under libmuster-profile.so (an
 * OMPT tool, profile_tool.c) on muster, on libomp, or on the runtime it
 * has, and prints where its threads waited (profile_report.c). */
#include "profile.h"

#include "cli.h"
#include "omp_runtime.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "muster profile"

struct profile_options {
    unsigned long top;
    unsigned long threads; /* 0: leave OMP_NUM_THREADS as it is */
    const char *runtime;
    const char *json;   /* NULL: none; "-": stdout */
    const char *output; /* the table: NULL stderr */
    int per_thread, overhead, quiet;
    char **program;
};

static void usage(FILE *out)
{
    fprintf(out,
"usage: muster profile [options] -- PROGRAM [ARGS...]\n"
"\n"
"Runs an OpenMP program (gcc, g++, gfortran, clang or flang -fopenmp) under muster's OMPT\n"
"tool and prints where its threads waited: per parallel region, named by source line, how\n"
"often it ran and for how long, and how its threads' time split into work, barriers,\n"
"taskwait/taskgroup, locks and critical sections, and idle (not yet or no longer in the\n"
"team); its load imbalance; tasks made, run and stolen; and its constructs by wait.  Lines\n"
"need the program built with -g; without, callers are named by object and offset.  The\n"
"tool speaks only OMPT: it works on libmuster-omp and on LLVM's libomp (libgomp has none).\n"
"\n"
"options:\n"
"  --runtime RT    muster (the default): libmuster-omp, as 'muster run' puts it under;\n"
"                  libomp: LLVM's; own: the runtime the program loads itself\n"
"  --threads N     OMP_NUM_THREADS=N\n"
"  --top N         the N regions with the most thread time (default 8)\n"
"  --per-thread    a bar per thread under each region\n"
"  --json FILE     everything, as JSON, to FILE ('-': standard output)\n"
"  --output FILE   the table to FILE (default: standard error, after the program's output)\n"
"  --overhead      run the program once without the tool first, and compare the times\n"
"  --quiet         no table (with --json)\n"
"  --help          this text\n"
"\n"
"Exit status: the program's (128+N when signal N ended it); 1 when no profile came back,\n"
"2 for a bad command line, 126/127 when the program cannot be run or found.\n");
}

static int set_runtime(const char *text, void *o)
{
    if (strcmp(text, "muster") == 0 || strcmp(text, "libomp") == 0 || strcmp(text, "own") == 0) {
        ((struct profile_options *)o)->runtime = text;
        return 0;
    }
    if (strcmp(text, "libgomp") == 0)
        return cli_usage_error(PROG, "--runtime libgomp: libgomp has no OMPT (GCC's manual lists it as not "
                                     "done), so no tool sees it; use muster (the default) or libomp");
    return cli_usage_error(PROG, "--runtime: unknown runtime '%s' (one of muster, libomp, own)", text);
}

static int set_json(const char *text, void *o)
{
    ((struct profile_options *)o)->json = text;
    return 0;
}

static int set_output(const char *text, void *o)
{
    ((struct profile_options *)o)->output = text;
    return 0;
}

static const cli_option options[] = {
    {"--top", CLI_VALUE_ULONG, offsetof(struct profile_options, top), 1, 100000, NULL},
    {"--threads", CLI_VALUE_ULONG, offsetof(struct profile_options, threads), 1, 4096, NULL},
    {"--runtime", CLI_VALUE_CUSTOM, 0, 0, 0, set_runtime},
    {"--json", CLI_VALUE_CUSTOM, 0, 0, 0, set_json},
    {"--output", CLI_VALUE_CUSTOM, 0, 0, 0, set_output},
    {"--per-thread", CLI_FLAG, offsetof(struct profile_options, per_thread), 0, 0, NULL},
    {"--overhead", CLI_FLAG, offsetof(struct profile_options, overhead), 0, 0, NULL},
    {"--quiet", CLI_FLAG, offsetof(struct profile_options, quiet), 0, 0, NULL},
};

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct profile_options *o)
{
    *o = (struct profile_options){.top = 8, .runtime = "muster"};
    int end = cli_find_separator(argc, argv);
    int rc = cli_parse_args(PROG, end, argv, options, sizeof options / sizeof options[0], o, usage);
    if (rc >= 0)
        return rc;
    if (end >= argc - 1)
        return cli_usage_error(PROG, "no program to profile: muster profile [options] -- PROGRAM [ARGS...]");
    o->program = argv + end + 1;
    return -1;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs the program (its environment as this process's, plus `tool` and
 * `output` when given); its wall and CPU time into run.  The exit status
 * as a shell gives it. */
static int run_program(char **program, const char *tool, const char *output, double *wall_s, double *cpu_s)
{
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ignore, &old_int); /* ^C is the program's: we report what it got to */
    sigaction(SIGQUIT, &ignore, &old_quit);
    double begin = seconds_now();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        if (tool != NULL) {
            setenv("OMP_TOOL_LIBRARIES", tool, 1);
            setenv(PROFILE_OUTPUT_ENV, output, 1);
            unsetenv("OMP_TOOL");
        } else {
            unsetenv("OMP_TOOL_LIBRARIES");
        }
        execvp(program[0], program);
        int e = errno;
        fprintf(stderr, "%s: cannot run %s: %s\n", PROG, program[0], strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }
    int status = 0;
    struct rusage usage = {0};
    int rc = pid < 0 ? -1 : 0;
    while (pid > 0 && (rc = (int)wait4(pid, &status, 0, &usage)) < 0 && errno == EINTR)
        ;
    *wall_s = seconds_now() - begin;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (rc < 0) {
        fprintf(stderr, "%s: cannot start %s: %s\n", PROG, program[0], strerror(errno));
        return 126;
    }
    *cpu_s = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec * 1e-6 +
             (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec * 1e-6;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The runtime under the program: preloaded (muster, libomp) or its own. */
static int use_runtime(const char *name)
{
    if (strcmp(name, "own") == 0)
        return 0;
    omp_runtime rt = strcmp(name, "libomp") == 0 ? OMP_RUNTIME_LIBOMP : OMP_RUNTIME_MUSTER;
    omp_found lib;
    if (omp_find_runtime(rt, &lib) != 0) {
        fprintf(stderr, "%s: %s not found (looked at %s)%s\n", PROG,
                rt == OMP_RUNTIME_MUSTER ? "libmuster-omp.so" : "LLVM's libomp.so.5", lib.looked,
                rt == OMP_RUNTIME_MUSTER ? "; build it or set MUSTER_OMP_LIBRARY"
                                         : "; install libomp-dev or set MUSTER_LIBOMP");
        return -1;
    }
    char err[512];
    if (omp_use_runtime(lib.path, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return -1;
    }
    return 0;
}

static FILE *open_or_say(const char *path, FILE *standard)
{
    if (path == NULL || strcmp(path, "-") == 0)
        return standard;
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
    return f;
}

static int report(const struct profile_options *o, profile *p, const profile_run *run)
{
    int rc = 0;
    if (!o->quiet) {
        FILE *out = open_or_say(o->output, stderr);
        profile_report_options ro = {.top = o->top, .per_thread = o->per_thread, .width = 72};
        if (out != NULL)
            profile_report_text(out, p, run, &ro);
        if (out == NULL || (out != stderr && fclose(out) != 0))
            rc = -1;
    }
    if (o->json != NULL) {
        FILE *out = open_or_say(o->json, stdout);
        if (out != NULL)
            profile_report_json(out, p, run);
        if (out == NULL || (out != stdout && fclose(out) != 0))
            rc = -1;
    }
    return rc;
}

int profile_main(int argc, char **argv)
{
    struct profile_options o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0 || cli_parsing_only)
        return rc >= 0 ? rc : CLI_OK;
    omp_found tool;
    if (omp_find_profile_tool(&tool) != 0) {
        fprintf(stderr, "%s: libmuster-profile.so not found (looked at %s); build it or set "
                        "MUSTER_PROFILE_LIBRARY\n", PROG, tool.looked);
        return CLI_FAILED;
    }
    if (use_runtime(o.runtime) != 0)
        return CLI_FAILED;
    char threads[32];
    snprintf(threads, sizeof threads, "%lu", o.threads);
    if (o.threads != 0)
        setenv("OMP_NUM_THREADS", threads, 1);
    const char *tmp = getenv("TMPDIR");
    char output[4096];
    snprintf(output, sizeof output, "%s/muster-profile.XXXXXX", tmp != NULL && tmp[0] ? tmp : "/tmp");
    int fd = mkstemp(output);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot make a file for the profile in %s: %s\n", PROG, tmp ? tmp : "/tmp",
                strerror(errno));
        return CLI_FAILED;
    }
    close(fd);
    unlink(output); /* the tool makes it: an absent file then means no tool ran */
    profile_run run = {.program = o.program[0], .runtime = o.runtime, .bare_wall_s = -1, .bare_cpu_s = -1};
    if (o.overhead)
        run_program(o.program, NULL, NULL, &run.bare_wall_s, &run.bare_cpu_s);
    run.exit_status = run_program(o.program, tool.path, output, &run.wall_s, &run.cpu_s);
    profile p;
    char err[4600];
    if (profile_read(output, &p, err, sizeof err) != 0) {
        fprintf(stderr, "%s: no profile of %s: %s.  The tool runs only where the program's OpenMP runtime "
                        "has OMPT (muster or libomp, not libgomp), and reports at the program's normal exit.\n",
                PROG, o.program[0], err);
        unlink(output);
        return run.exit_status != 0 ? run.exit_status : CLI_FAILED;
    }
    unlink(output);
    int written = report(&o, &p, &run);
    profile_free(&p);
    if (written != 0 && run.exit_status == 0)
        return CLI_FAILED;
    return run.exit_status;
}
