#include "omp_runtime.h"

#include "cli.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Compiled in by bench/CMakeLists.txt; empty when the target is not built. */
#ifndef MUSTER_OMP_BUILD_LIBRARY
#define MUSTER_OMP_BUILD_LIBRARY ""
#endif
#ifndef MUSTER_PROFILE_BUILD_LIBRARY
#define MUSTER_PROFILE_BUILD_LIBRARY ""
#endif
#ifndef MUSTER_INSTALLED_PROFILE_LIBRARY
#define MUSTER_INSTALLED_PROFILE_LIBRARY "../lib/libmuster-profile.so"
#endif
/* The installed layout, relative to the command (bench/CMakeLists.txt). */
#ifndef MUSTER_INSTALLED_OMP_LIBRARY
#define MUSTER_INSTALLED_OMP_LIBRARY "../lib/libmuster-omp.so"
#endif
#ifndef MUSTER_INSTALLED_LIBEXEC
#define MUSTER_INSTALLED_LIBEXEC "../libexec/muster"
#endif
#ifndef MUSTER_SYNCBENCH_BUILD_PATH
#define MUSTER_SYNCBENCH_BUILD_PATH ""
#endif
#ifndef MUSTER_SYNCBENCH_CLANG_BUILD_PATH
#define MUSTER_SYNCBENCH_CLANG_BUILD_PATH ""
#endif
#ifndef MUSTER_TASKBENCH_CLANG_BUILD_PATH
#define MUSTER_TASKBENCH_CLANG_BUILD_PATH ""
#endif
#ifndef MUSTER_TASKBENCH_BUILD_PATH
#define MUSTER_TASKBENCH_BUILD_PATH ""
#endif

/* The names under which programs look for their OpenMP runtime: gcc's
 * libgomp, LLVM's libomp (clang's DT_NEEDED) and its other names (Debian
 * links libiomp5.so to it; other builds link against libomp.so). */
static const char *const shim_names[] = {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so"};
#define SHIM_COUNT (sizeof shim_names / sizeof shim_names[0])

static const char *const runtime_names[OMP_RUNTIME_COUNT] = {"libgomp", "libomp", "muster"};

const char *omp_runtime_name(omp_runtime rt)
{
    return rt >= 0 && rt < OMP_RUNTIME_COUNT ? runtime_names[rt] : NULL;
}

int omp_runtime_parse(const char *name)
{
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        if (strcmp(name, runtime_names[rt]) == 0)
            return rt;
    return -1;
}

/* ---- finding files ------------------------------------------------------ */

static void note_looked(omp_found *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_looked(omp_found *f, const char *fmt, ...)
{
    size_t used = strlen(f->looked);
    if (used + 3 >= sizeof f->looked)
        return;
    if (used)
        used += (size_t)snprintf(f->looked + used, sizeof f->looked - used, ", ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->looked + used, sizeof f->looked - used, fmt, ap);
    va_end(ap);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Takes `path` if it is a file; else notes it (with `what`) as looked at. */
static int try_path(omp_found *f, const char *path, const char *what)
{
    if (path[0] != '\0' && is_file(path)) {
        snprintf(f->path, sizeof f->path, "%s", path);
        return 0;
    }
    note_looked(f, "%s%s", what, path[0] ? path : "(not built)");
    return -1;
}

/* env VARIABLE wins outright: a path the user named that is missing is an
 * answer (not found), not a cue to look elsewhere. */
static int try_env(omp_found *f, const char *variable, int *decided)
{
    const char *value = getenv(variable);
    *decided = value != NULL && value[0] != '\0';
    if (!*decided)
        return -1;
    char what[64];
    snprintf(what, sizeof what, "%s=", variable);
    return try_path(f, value, what);
}

/* `relative` beside the running muster executable (an installed layout). */
static int try_installed(omp_found *f, const char *relative)
{
    char exe[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    snprintf(path, sizeof path, "%s/%s", dirname(exe), relative);
    return try_path(f, path, "");
}

/* The build tree, then an installed layout. */
static int find_built(omp_found *f, const char *env, const char *build_path, const char *const *installed)
{
    int decided;
    memset(f, 0, sizeof *f);
    if (try_env(f, env, &decided) == 0 || decided)
        return decided && f->path[0] ? 0 : -1;
    if (try_path(f, build_path, "the build tree: ") == 0)
        return 0;
    for (; *installed; installed++)
        if (try_installed(f, *installed) == 0)
            return 0;
    return -1;
}

/* The highest version among a glob's matches (llvm-14 after llvm-9). */
static int try_glob(omp_found *f, const char *pattern)
{
    glob_t g;
    int rc = -1;
    if (glob(pattern, 0, NULL, &g) == 0) {
        const char *best = NULL;
        for (size_t i = 0; i < g.gl_pathc; i++)
            if (is_file(g.gl_pathv[i]) && (best == NULL || strverscmp(g.gl_pathv[i], best) > 0))
                best = g.gl_pathv[i];
        if (best) {
            snprintf(f->path, sizeof f->path, "%s", best);
            rc = 0;
        }
    }
    globfree(&g);
    if (rc != 0)
        note_looked(f, "%s", pattern);
    return rc;
}

static int find_libomp(omp_found *f)
{
    /* Debian's libomp5 puts the multiarch link first; the LLVM tree has it
     * too; other distributions use lib64 or /usr/local. */
    static const char *const patterns[] = {
        "/usr/lib/*-linux-gnu/libomp.so.5", "/usr/lib/llvm-*/lib/libomp.so.5", "/usr/lib64/libomp.so",
        "/usr/local/lib/libomp.so",
    };
    int decided;
    memset(f, 0, sizeof *f);
    if (try_env(f, "MUSTER_LIBOMP", &decided) == 0 || decided)
        return decided && f->path[0] ? 0 : -1;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        if (try_glob(f, patterns[i]) == 0)
            return 0;
    return -1;
}

int omp_find_profile_tool(omp_found *f)
{
    static const char *const installed[] = {MUSTER_INSTALLED_PROFILE_LIBRARY, "../lib/libmuster-profile.so",
                                            "libmuster-profile.so", NULL};
    return find_built(f, "MUSTER_PROFILE_LIBRARY", MUSTER_PROFILE_BUILD_LIBRARY, installed);
}

int omp_find_runtime(omp_runtime rt, omp_found *f)
{
    static const char *const muster_installed[] = {MUSTER_INSTALLED_OMP_LIBRARY, "../lib/libmuster-omp.so",
                                                   "libmuster-omp.so", NULL};
    memset(f, 0, sizeof *f);
    switch (rt) {
    case OMP_RUNTIME_LIBGOMP:
        return 0;
    case OMP_RUNTIME_LIBOMP:
        return find_libomp(f);
    case OMP_RUNTIME_MUSTER:
        return find_built(f, "MUSTER_OMP_LIBRARY", MUSTER_OMP_BUILD_LIBRARY, muster_installed);
    default:
        return -1;
    }
}

int omp_find_runtimes(const char *prog, int wanted[OMP_RUNTIME_COUNT], char library[OMP_RUNTIME_COUNT][4096],
                      char missing[OMP_RUNTIME_COUNT][2300])
{
    static const char *const remedy[OMP_RUNTIME_COUNT] = {
        "", "install libomp-dev or set MUSTER_LIBOMP", "build it with 'make muster-omp' or set MUSTER_OMP_LIBRARY"};
    static const char *const file[OMP_RUNTIME_COUNT] = {"libgomp", "libomp.so.5", "libmuster-omp.so"};
    int found = 0;
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
        omp_found f;
        library[rt][0] = '\0';
        if (!wanted[rt])
            continue;
        if (omp_find_runtime((omp_runtime)rt, &f) != 0) {
            snprintf(missing[rt], 2300, "%s not found (looked at %s); %s", file[rt], f.looked, remedy[rt]);
            fprintf(stderr, "%s: %s: left out\n", prog, missing[rt]);
            wanted[rt] = 0;
            continue;
        }
        snprintf(library[rt], 4096, "%s", f.path);
        found++;
    }
    return found;
}

/* Where to look for one compiler's build of a benchmark program, for
 * find_built: its environment variable, its path in the build tree and its
 * installed names. */
typedef struct built_program {
    const char *env;
    const char *build_path;
    const char *installed[3];
} built_program;

static int find_program(const built_program by_compiler[OMP_COMPILER_COUNT], omp_compiler k, omp_found *f)
{
    const built_program *p = &by_compiler[k];
    return find_built(f, p->env, p->build_path, p->installed);
}

int omp_find_syncbench(omp_compiler k, omp_found *f)
{
    static const built_program syncbench[OMP_COMPILER_COUNT] = {
        [OMP_COMPILER_GCC] = {"MUSTER_SYNCBENCH", MUSTER_SYNCBENCH_BUILD_PATH,
                              {MUSTER_INSTALLED_LIBEXEC "/syncbench", "syncbench", NULL}},
        [OMP_COMPILER_CLANG] = {"MUSTER_SYNCBENCH_CLANG", MUSTER_SYNCBENCH_CLANG_BUILD_PATH,
                                {MUSTER_INSTALLED_LIBEXEC "/syncbench-clang", "syncbench-clang", NULL}},
    };
    return find_program(syncbench, k, f);
}

int omp_find_taskbench(omp_compiler k, omp_found *f)
{
    static const built_program taskbench[OMP_COMPILER_COUNT] = {
        [OMP_COMPILER_GCC] = {"MUSTER_TASKBENCH", MUSTER_TASKBENCH_BUILD_PATH,
                              {MUSTER_INSTALLED_LIBEXEC "/taskbench", "taskbench", NULL}},
        [OMP_COMPILER_CLANG] = {"MUSTER_TASKBENCH_CLANG", MUSTER_TASKBENCH_CLANG_BUILD_PATH,
                                {MUSTER_INSTALLED_LIBEXEC "/taskbench-clang", "taskbench-clang", NULL}},
    };
    return find_program(taskbench, k, f);
}

/* ---- compilers ---------------------------------------------------------- */

const char *const omp_compiler_names[OMP_COMPILER_COUNT] = {"gcc", "clang"};

int omp_compiler_parse(const char *name)
{
    for (int k = 0; k < OMP_COMPILER_COUNT; k++)
        if (strcmp(name, omp_compiler_names[k]) == 0)
            return k;
    return -1;
}

int omp_choose_compilers(const char *prog, int compiler[OMP_COMPILER_COUNT], const int runtime[OMP_RUNTIME_COUNT],
                         int (*find)(omp_compiler k, omp_found *f), omp_found found[OMP_COMPILER_COUNT],
                         const char *const program[OMP_COMPILER_COUNT], const char *const hint[OMP_COMPILER_COUNT])
{
    int asked = 0, chosen = 0;
    for (int k = 0; k < OMP_COMPILER_COUNT; k++)
        asked += compiler[k] == 1;
    for (int k = 0; k < OMP_COMPILER_COUNT; k++) {
        int ok = find((omp_compiler)k, &found[k]) == 0;
        /* By default clang's only when a runtime that can run it is asked for. */
        int wanted = asked ? compiler[k] == 1
                           : k == OMP_COMPILER_GCC ||
                                 (ok && (runtime[OMP_RUNTIME_LIBOMP] || runtime[OMP_RUNTIME_MUSTER]));
        if (wanted && !ok) {
            fprintf(stderr, "%s: %s not found (looked at %s); %s\n", prog, program[k], found[k].looked, hint[k]);
            return -1;
        }
        compiler[k] = wanted;
        chosen += wanted;
    }
    return chosen;
}

struct compiler_list {
    const char *prog;
    int *compiler;
};

static int add_compiler(const char *name, void *ctx)
{
    struct compiler_list *l = ctx;
    int k = omp_compiler_parse(name);
    if (k < 0)
        return cli_usage_error(l->prog, "--compilers: unknown compiler '%s' (gcc, clang)", name);
    l->compiler[k] = 1;
    return CLI_OK;
}

int omp_parse_compilers(const char *prog, const char *list, int compiler[OMP_COMPILER_COUNT])
{
    for (int k = 0; k < OMP_COMPILER_COUNT; k++)
        compiler[k] = 0;
    struct compiler_list l = {prog, compiler};
    return cli_for_each_item(prog, "--compilers", list, add_compiler, &l);
}

struct runtime_list {
    const char *prog;
    int *runtime;
};

static int add_runtime(const char *name, void *ctx)
{
    struct runtime_list *l = ctx;
    if (strcmp(name, "all") == 0) {
        for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
            l->runtime[rt] = 1;
        return 0;
    }
    int rt = omp_runtime_parse(name);
    if (rt < 0)
        return cli_usage_error(l->prog, "--runtimes: unknown runtime '%s' (libgomp, libomp, muster)", name);
    l->runtime[rt] = 1;
    return 0;
}

int omp_parse_runtimes(const char *prog, const char *list, int runtime[OMP_RUNTIME_COUNT])
{
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        runtime[rt] = 0;
    struct runtime_list l = {prog, runtime};
    return cli_for_each_item(prog, "--runtimes", list, add_runtime, &l);
}

int omp_run_each_compiler(const int compiler[OMP_COMPILER_COUNT], int json, int (*run)(omp_compiler k, void *ctx),
                          void *ctx)
{
    int programs = 0, done = 0;
    for (int k = 0; k < OMP_COMPILER_COUNT; k++)
        programs += compiler[k] == 1;
    if (json && programs > 1)
        printf("{\"runs\": [\n");
    for (int k = 0; k < OMP_COMPILER_COUNT; k++) {
        if (compiler[k] != 1)
            continue;
        if (done++ > 0)
            fputs(json ? ",\n" : "\n", stdout);
        int rc = run((omp_compiler)k, ctx);
        fflush(stdout);
        if (rc != CLI_OK)
            return rc;
    }
    if (json && programs > 1)
        printf("]}\n");
    return CLI_OK;
}

void omp_leave_out_libgomp(int runtime[OMP_RUNTIME_COUNT], char missing[OMP_RUNTIME_COUNT][2300])
{
    if (!runtime[OMP_RUNTIME_LIBGOMP])
        return;
    runtime[OMP_RUNTIME_LIBGOMP] = 0;
    snprintf(missing[OMP_RUNTIME_LIBGOMP], 2300,
             "cannot run a clang-built program (it has no __kmpc entry points): left out");
}

/* ---- the libgomp.so.1 link ---------------------------------------------- */

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int failure(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failure(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Whether every shim name in dir leads to real. */
static int shim_complete(const char *dir, const char *real)
{
    for (size_t k = 0; k < SHIM_COUNT; k++) {
        char link[PATH_MAX + 96];
        snprintf(link, sizeof link, "%s/%s", dir, shim_names[k]);
        if (!same_file(link, real))
            return 0;
    }
    return 1;
}

/* The build's shim: omp-shim/ beside the library (as named, or where its
 * links lead), if each of its names leads to the library itself. */
static int build_shim(const char *library, const char *real, char *dir, size_t len)
{
    const char *bases[] = {library, real};
    for (int i = 0; i < 2; i++) {
        char copy[PATH_MAX];
        snprintf(copy, sizeof copy, "%s", bases[i]);
        snprintf(dir, len, "%s/omp-shim", dirname(copy));
        if (shim_complete(dir, real))
            return 0;
    }
    return -1;
}

/* A directory only this user can write: anyone else's could swap the link. */
static int private_dir(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return failure(err, errlen, "cannot create %s: %s", path, strerror(errno));
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
        return failure(err, errlen, "%s is not a private directory of this user's", path);
    return 0;
}

/* Points dir/name at real, replacing a link that leads elsewhere in one
 * rename so that a program starting meanwhile sees one or the other. */
static int place_link(const char *dir, const char *name, const char *real, char *err, size_t errlen)
{
    char link[PATH_MAX + 96], temp[PATH_MAX + 128];
    snprintf(link, sizeof link, "%s/%s", dir, name);
    if (same_file(link, real))
        return 0;
    snprintf(temp, sizeof temp, "%s/.%s.%ld", dir, name, (long)getpid());
    unlink(temp);
    if (symlink(real, temp) != 0 || rename(temp, link) != 0) {
        unlink(temp);
        return failure(err, errlen, "cannot make %s: %s", link, strerror(errno));
    }
    return 0;
}

/* $XDG_RUNTIME_DIR (or $TMPDIR, or /tmp)/muster-omp-shims-UID/DEV-INODE. */
static int private_shim(const char *real, char *dir, size_t len, char *err, size_t errlen)
{
    const char *base = getenv("XDG_RUNTIME_DIR");
    if (base == NULL || base[0] == '\0')
        base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    struct stat st;
    if (stat(real, &st) != 0)
        return failure(err, errlen, "%s: %s", real, strerror(errno));
    char top[PATH_MAX];
    snprintf(top, sizeof top, "%s/muster-omp-shims-%ld", base, (long)getuid());
    snprintf(dir, len, "%s/%lx-%lx", top, (unsigned long)st.st_dev, (unsigned long)st.st_ino);
    if (private_dir(top, err, errlen) != 0 || private_dir(dir, err, errlen) != 0)
        return -1;
    for (size_t k = 0; k < SHIM_COUNT; k++)
        if (place_link(dir, shim_names[k], real, err, errlen) != 0)
            return -1;
    return 0;
}

/* VARIABLE=first[:old value]. */
static int prepend_env(const char *variable, const char *first)
{
    const char *old = getenv(variable);
    if (old == NULL || old[0] == '\0')
        return setenv(variable, first, 1);
    size_t len = strlen(first) + 1 + strlen(old) + 1;
    char *value = malloc(len);
    if (value == NULL)
        return -1;
    snprintf(value, len, "%s:%s", first, old);
    int rc = setenv(variable, value, 1);
    free(value);
    return rc;
}

int omp_use_runtime(const char *library, char *err, size_t errlen)
{
    char real[PATH_MAX], dir[PATH_MAX + 64];
    if (realpath(library, real) == NULL)
        return failure(err, errlen, "%s: %s", library, strerror(errno));
    if (strchr(real, ':') || strchr(real, ' '))
        return failure(err, errlen, "%s: LD_PRELOAD cannot hold a path with ':' or ' '", real);
    if (build_shim(library, real, dir, sizeof dir) != 0 &&
        private_shim(real, dir, sizeof dir, err, errlen) != 0)
        return -1;
    if (prepend_env("LD_PRELOAD", real) != 0 || prepend_env("LD_LIBRARY_PATH", dir) != 0 ||
        setenv("LD_BIND_NOW", "1", 0) != 0)
        return failure(err, errlen, "cannot set the environment: %s", strerror(errno));
    return 0;
}

omp_bench_choice omp_bench_choice_defaults(const char *prog, const char *threads)
{
    omp_bench_choice c = {.prog = prog};
    (void)cli_parse_count_list(prog, "--threads", threads, 1, 4096, c.threads, &c.nthreads, OMP_BENCH_MAX_COUNTS);
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        c.runtime[rt] = 1;
    for (int k = 0; k < OMP_COMPILER_COUNT; k++)
        c.compiler[k] = -1;
    return c;
}

int omp_bench_set_threads(const char *list, void *options)
{
    omp_bench_choice *c = options;
    return cli_parse_count_list(c->prog, "--threads", list, 1, 4096, c->threads, &c->nthreads, OMP_BENCH_MAX_COUNTS);
}

int omp_bench_set_runtimes(const char *list, void *options)
{
    omp_bench_choice *c = options;
    return omp_parse_runtimes(c->prog, list, c->runtime);
}

int omp_bench_set_compilers(const char *list, void *options)
{
    omp_bench_choice *c = options;
    return omp_parse_compilers(c->prog, list, c->compiler);
}
