/* What every program of the OpenMP corpus (tests/omp/omp_*.c) shares.
 *
 * Each program checks its results against a serial computation and, on the
 * first mismatch, writes "FAIL <program> (file:line): <what>" on stderr and
 * exits 1 at once (_exit: a failing worker must not wait for its team).  On
 * success it writes exactly one line on stdout,
 *     summary <program>: <deterministic facts>
 * which the harness (run_corpus.py) compares between runtimes, thread counts
 * held equal.  Anything else goes to stderr.
 *
 * MUSTER_EXPECT_RUNTIME=muster|libgomp (set by the harness) makes
 * corpus_begin() check that the OpenMP entry points the program calls are
 * defined by that runtime's library, so that a run "on muster" whose
 * LD_PRELOAD did not take cannot pass as one. */
#ifndef MUSTER_OMP_CORPUS_H
#define MUSTER_OMP_CORPUS_H

#include <dlfcn.h>
#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *corpus_program = "omp_corpus";

__attribute__((format(printf, 3, 4), noreturn, unused)) static void corpus_fail(const char *file, int line,
                                                                             const char *fmt, ...)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "FAIL %s (%s:%d): ", corpus_program, file, line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof buf)
        n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf - 1)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    fflush(stdout);
    ssize_t ignored = write(2, buf, (size_t)n);
    (void)ignored;
    _exit(1);
}

#define FAIL(...) corpus_fail(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK(cond, ...)                                                                                \
    do {                                                                                                \
        if (!(cond))                                                                                    \
            FAIL(__VA_ARGS__);                                                                          \
    } while (0)
/* CHECK_EQ(got, want, "what %d", args): integers, printed as long long. */
#define CHECK_EQ(got, want, ...)                                                                        \
    do {                                                                                                \
        long long got_ = (long long)(got), want_ = (long long)(want);                                  \
        if (got_ != want_) {                                                                            \
            char what_[256];                                                                            \
            snprintf(what_, sizeof what_, __VA_ARGS__);                                                 \
            FAIL("%s: expected %lld, got %lld", what_, want_, got_);                                    \
        }                                                                                               \
    } while (0)

/* The summary line: "summary <program>: ...". */
__attribute__((format(printf, 1, 2), unused)) static void corpus_summary(const char *fmt, ...)
{
    printf("summary %s: ", corpus_program);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* ---- which runtime answers ---- */

/* The file that defines `addr`, or "(none)". */
static const char *corpus_object_of(const void *addr)
{
    Dl_info info;
    if (addr == NULL || !dladdr(addr, &info) || info.dli_fname == NULL)
        return "(none)";
    return info.dli_fname;
}

/* Whether `path` names the library of runtime `expect` ("muster": a file
 * named libmuster-omp.so*, "libgomp": libgomp.so*, "libomp": libomp.so*). */
static int corpus_is_runtime(const char *path, const char *expect)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *prefix = strcmp(expect, "muster") == 0 ? "libmuster-omp.so"
                         : strcmp(expect, "libomp") == 0 ? "libomp.so"
                                                          : "libgomp.so";
    return strncmp(base, prefix, strlen(prefix)) == 0;
}

/* Checks, when MUSTER_EXPECT_RUNTIME is set, that `name` (whose address the
 * program took, so the dynamic linker resolved it) and dlsym's default
 * lookup of `name` both come from the expected runtime. */
static void corpus_check_symbol(const char *name, const void *addr)
{
    const char *expect = getenv("MUSTER_EXPECT_RUNTIME");
    if (expect == NULL || *expect == '\0')
        return;
    if (strcmp(expect, "muster") != 0 && strcmp(expect, "libgomp") != 0 && strcmp(expect, "libomp") != 0)
        FAIL("MUSTER_EXPECT_RUNTIME='%s': expected 'muster', 'libgomp' or 'libomp'", expect);
    const char *by_addr = corpus_object_of(addr);
    if (!corpus_is_runtime(by_addr, expect))
        FAIL("%s resolves to %s, not to the %s runtime (MUSTER_EXPECT_RUNTIME=%s): is LD_PRELOAD in effect?",
             name, by_addr, expect, expect);
    const char *by_dlsym = corpus_object_of(dlsym(RTLD_DEFAULT, name));
    if (!corpus_is_runtime(by_dlsym, expect))
        FAIL("dlsym(RTLD_DEFAULT, \"%s\") finds it in %s, not in the %s runtime", name, by_dlsym, expect);
}

static void corpus_begin(const char *program)
{
    corpus_program = program;
    corpus_check_symbol("omp_get_thread_num", (const void *)&omp_get_thread_num);
    corpus_check_symbol("omp_get_num_threads", (const void *)&omp_get_num_threads);
}

/* ---- random delays ---- */

/* A small per-call pseudo-random generator (xorshift64*); seed it per thread. */
static inline uint64_t corpus_rand(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dull;
}

static inline uint64_t corpus_seed(unsigned a, unsigned b)
{
    uint64_t s = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    return s ? s : 1;
}

/* A random delay: usually a short spin, now and then a yield-free sleep of
 * up to `max_us` microseconds (0: spins only). */
static inline void corpus_delay(uint64_t *state, unsigned max_us)
{
    uint64_t r = corpus_rand(state);
    if (max_us > 0 && (r & 15) == 0) {
        struct timespec ts = {0, (long)((r >> 8) % max_us + 1) * 1000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        return;
    }
    unsigned spins = (unsigned)((r >> 16) % 512);
    for (volatile unsigned i = 0; i < spins; i++) {
    }
}

/* The team size the program's parallel regions get by default. */
/* Re-executes the program with name=value in its environment unless it is
 * there already: runtimes read their settings when they load, so a
 * program that needs one (OMP_CANCELLATION, OMP_MAX_TASK_PRIORITY) sets it
 * this way, first thing in main. */
__attribute__((unused)) static void corpus_reexec_with(char **argv, const char *name, const char *value)
{
    const char *set = getenv(name);
    if (set != NULL && strcmp(set, value) == 0)
        return;
    setenv(name, value, 1);
    execv("/proc/self/exe", argv);
    FAIL("cannot re-execute /proc/self/exe with %s=%s: %s", name, value, strerror(errno));
}

/* Runs this program again as `self child WHICH` with the NAME, VALUE pairs
 * of env (NULL-terminated) set, and fails unless it exits 0 (its own
 * message, if any, is on stderr). */
static inline void corpus_run_child(const char *self, const char *which, const char *const *env)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        FAIL("fork: %s", strerror(errno));
    if (pid == 0) {
        for (; *env; env += 2)
            setenv(env[0], env[1], 1);
        execl("/proc/self/exe", self, "child", which, (char *)NULL);
        fprintf(stderr, "exec /proc/self/exe: %s\n", strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            FAIL("waitpid: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        FAIL("the child case '%s' failed (status %#x; its message is above)", which, status);
}

/* ---- which stream a runtime writes to ----
 * Between begin and end, stdout and stderr (the descriptors, so the
 * runtime's own writes too) go to two temporary files; end restores them
 * and says which got `needle` (NULL: any text): CORPUS_STDOUT,
 * CORPUS_STDERR, both, or 0.  Nothing in between may fail (a failure's
 * message would go to the file). */
enum { CORPUS_STDOUT = 1, CORPUS_STDERR = 2 };

typedef struct corpus_capture {
    int saved[2];
    FILE *files[2];
} corpus_capture;

static inline void corpus_capture_begin(corpus_capture *c)
{
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < 2; i++) {
        c->files[i] = tmpfile();
        c->saved[i] = dup(i + 1);
        if (c->files[i] == NULL || c->saved[i] < 0 || dup2(fileno(c->files[i]), i + 1) < 0)
            FAIL("cannot capture fd %d: %s", i + 1, strerror(errno));
    }
}

static inline int corpus_capture_end(corpus_capture *c, const char *needle)
{
    fflush(stdout);
    fflush(stderr);
    int found = 0;
    for (int i = 0; i < 2; i++) {
        dup2(c->saved[i], i + 1);
        close(c->saved[i]);
        char text[8192];
        rewind(c->files[i]);
        size_t n = fread(text, 1, sizeof text - 1, c->files[i]);
        text[n] = '\0';
        fclose(c->files[i]);
        if (needle != NULL ? strstr(text, needle) != NULL : n > 0)
            found |= i == 0 ? CORPUS_STDOUT : CORPUS_STDERR;
    }
    return found;
}

static inline const char *corpus_stream_name(int found)
{
    static const char *const names[] = {"none", "stdout", "stderr", "both"};
    return names[found & 3];
}

static inline int corpus_threads(void)
{
    int t = omp_get_max_threads();
    if (t < 1)
        FAIL("omp_get_max_threads() = %d", t);
    return t;
}

/* The team size, for a test whose tables hold at most max threads. */
static inline int corpus_threads_at_most(int max)
{
    int t = corpus_threads();
    if (t > max)
        FAIL("at most %d threads", max);
    return t;
}

#endif
