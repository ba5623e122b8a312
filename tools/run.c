/* `muster run`: runs an unchanged OpenMP program on libmuster-omp. */
#include "run.h"

#include "cli.h"
#include "omp_entries.h"
#include "omp_runtime.h"

#include <errno.h>
#include <muster/barrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "muster run"

/* What the command line asked for; NULL: leave the environment as it is. */
struct run_options {
    const char *threads, *barrier, *wait;
    int unchecked;  /* --unchecked: no entry-point check, no LD_BIND_NOW */
    char **program; /* argv of the program, NULL-terminated */
};

static void usage(FILE *out)
{
    fprintf(out,
"usage: muster run [--threads N] [--barrier ALG] [--wait POLICY] [--unchecked] -- PROGRAM [ARGS...]\n"
"\n"
"Runs an OpenMP program built with gcc, g++ or gfortran -fopenmp, clang or flang -fopenmp\n"
"(or another compiler using LLVM's libomp) on libmuster-omp, unchanged: preloads\n"
"libmuster-omp.so (LD_PRELOAD, before anything already there) and puts a directory whose\n"
"libgomp.so.1, libomp.so.5, libomp.so and libiomp5.so are that same library first on\n"
"LD_LIBRARY_PATH, so the program's own runtime is never loaded beside it.  First the\n"
"program's dynamic loader lists, without running it, every OpenMP entry point the program\n"
"and its libraries need that libmuster-omp does not define: if there is one, they are\n"
"named and the program is not started.  LD_BIND_NOW=1 (unless set).  The program\n"
"replaces this command; its exit status is ours.\n"
"\n"
"options:\n"
"  --threads N     OMP_NUM_THREADS=N (1 to %u)\n"
"  --barrier ALG   MUSTER_BARRIER=ALG, the barrier algorithm:", MUSTER_MAX_PARTICIPANTS);
    size_t col = 88; /* start a line at once */
    for (int a = 0; a < MUSTER_ALG_COUNT; a++) {
        const char *name = muster_algorithm_name((muster_algorithm)a);
        if (col + 2 + strlen(name) > 88)
            col = (size_t)fprintf(out, "%s\n                 ", a ? "," : "") - 1;
        else
            col += (size_t)fprintf(out, ",");
        col += (size_t)fprintf(out, " %s", name);
    }
    fprintf(out,
"\n"
"  --wait POLICY   MUSTER_WAIT_POLICY=POLICY: active (spin), passive (sleep at once),\n"
"                  hybrid (spin, then sleep)\n"
"  --unchecked     start the program without the check, and bind lazily: an entry point\n"
"                  it never calls is then never missed (one it calls stops it there)\n"
"  --help          this text\n"
"\n"
"Without an option the variable keeps whatever value it has.  libmuster-omp.so is\n"
"$MUSTER_OMP_LIBRARY, else the build tree's, else ../lib/libmuster-omp.so beside this\n"
"executable.  Exit status: the program's; 1 when no libmuster-omp.so was found,\n"
"2 for a bad command line, 126 when the program cannot be run (or is statically linked,\n"
"so no runtime can be put under it), 127 when it is not found or needs entry points\n"
"libmuster-omp lacks.\n");
}

/* ", "-separated names the parse function knows, for the error message. */
static void list_names(char *buf, size_t len, int count, const char *(*name)(int), int first)
{
    buf[0] = '\0';
    for (int i = first; i < count; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i > first ? ", " : "", name(i));
    }
}

static const char *algorithm_name(int a) { return muster_algorithm_name((muster_algorithm)a); }
static const char *policy_name(int p) { return muster_wait_policy_name((muster_wait_policy)p); }

static int set_threads(const char *text, void *o)
{
    unsigned long n;
    ((struct run_options *)o)->threads = text;
    return cli_parse_ulong(PROG, "--threads", text, 1, MUSTER_MAX_PARTICIPANTS, &n);
}

static int set_barrier(const char *text, void *o)
{
    muster_algorithm a;
    char known[512];
    ((struct run_options *)o)->barrier = text;
    if (muster_algorithm_parse(text, &a) == MUSTER_OK)
        return 0;
    list_names(known, sizeof known, MUSTER_ALG_COUNT, algorithm_name, 0);
    return cli_usage_error(PROG, "--barrier: unknown algorithm '%s' (one of %s)", text, known);
}

/* "default" is the library's own choice, which an unset variable already
 * gives, so only the three real policies are offered (as MUSTER_WAIT_POLICY
 * accepts them). */
static int set_wait(const char *text, void *o)
{
    muster_wait_policy p;
    char known[128];
    ((struct run_options *)o)->wait = text;
    if (muster_wait_policy_parse(text, &p) == MUSTER_OK && p != MUSTER_WAIT_DEFAULT)
        return 0;
    list_names(known, sizeof known, MUSTER_WAIT_COUNT, policy_name, MUSTER_WAIT_DEFAULT + 1);
    return cli_usage_error(PROG, "--wait: unknown policy '%s' (one of %s)", text, known);
}

static const cli_option valued_options[] = {
    {"--threads", CLI_VALUE_CUSTOM, 0, 0, 0, set_threads},
    {"--barrier", CLI_VALUE_CUSTOM, 0, 0, 0, set_barrier},
    {"--wait", CLI_VALUE_CUSTOM, 0, 0, 0, set_wait},
};

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct run_options *o)
{
    *o = (struct run_options){0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error(PROG, "no program after '--' (see --help)");
            o->program = argv + i + 1;
            return -1;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return CLI_OK;
        }
        if (strcmp(arg, "--unchecked") == 0) {
            o->unchecked = 1;
            continue;
        }
        int rc = cli_parse_option(PROG, argc, argv, &i, valued_options,
                                  sizeof valued_options / sizeof valued_options[0], o);
        if (rc < 0)
            return CLI_USAGE;
        if (rc == 0 && arg[0] == '-')
            return cli_usage_error(PROG, "unknown option '%s' (see --help)", arg);
        if (rc == 0)
            return cli_usage_error(PROG, "put '--' before the program: muster run [options] -- %s ...",
                                   arg);
    }
    return cli_usage_error(PROG, "no program to run: muster run [options] -- PROGRAM [ARGS...]");
}

static int set_if_given(const char *variable, const char *value)
{
    return value == NULL || setenv(variable, value, 1) == 0 ? 0 : -1;
}

/* The check before the start (omp_entries.h), in the environment the
 * program will get.  Returns -1 to start it, else the exit status. */
static int check_entry_points(const char *name)
{
    char path[4096];
    if (omp_program_path(name, path, sizeof path) != 0)
        return -1; /* execvp says why */
    omp_entries_report r;
    switch (omp_check_entries(path, NULL, &r)) {
    case OMP_ENTRIES_OK:
        return -1;
    case OMP_ENTRIES_NOT_CHECKED:
        if (strstr(r.why, "not an ELF executable") == NULL)
            fprintf(stderr, "%s: could not check %s's entry points (%s); starting it\n", PROG, name, r.why);
        return -1;
    case OMP_ENTRIES_STATIC:
        omp_entries_explain(stderr, PROG, name, "libmuster-omp", &r);
        fprintf(stderr, "%s: not started; run it directly\n", PROG);
        return 126;
    case OMP_ENTRIES_MISSING:
        break;
    }
    omp_entries_explain(stderr, PROG, name, "libmuster-omp", &r);
    fprintf(stderr, "%s: not started (on its own runtime it runs as it is; --unchecked starts it here anyway)\n",
            PROG);
    return 127;
}

int run_main(int argc, char **argv)
{
    struct run_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0 || cli_parsing_only)
        return rc >= 0 ? rc : CLI_OK;
    omp_found lib;
    if (omp_find_runtime(OMP_RUNTIME_MUSTER, &lib) != 0) {
        fprintf(stderr, "%s: libmuster-omp.so not found (looked at %s); build it with "
                        "'make muster-omp' or set MUSTER_OMP_LIBRARY\n", PROG, lib.looked);
        return CLI_FAILED;
    }
    char err[512];
    int bind_now_set = getenv("LD_BIND_NOW") != NULL;
    if (omp_use_runtime(lib.path, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return CLI_FAILED;
    }
    if (set_if_given("OMP_NUM_THREADS", o.threads) || set_if_given("MUSTER_BARRIER", o.barrier) ||
        set_if_given("MUSTER_WAIT_POLICY", o.wait)) {
        fprintf(stderr, "%s: cannot set the environment: %s\n", PROG, strerror(errno));
        return CLI_FAILED;
    }
    if (o.unchecked && !bind_now_set)
        unsetenv("LD_BIND_NOW");
    int refused = o.unchecked ? -1 : check_entry_points(o.program[0]);
    if (refused >= 0)
        return refused;
    execvp(o.program[0], o.program);
    int e = errno;
    fprintf(stderr, "%s: cannot run %s: %s\n", PROG, o.program[0], strerror(e));
    return e == ENOENT ? 127 : 126; /* as a shell says it */
}
