/* The C half of the Fortran corpus's helpers (fcorpus.f90 is the Fortran
 * half): the same checks, messages and random delays as the C corpus
 * (tests/omp/corpus.h), behind bind(c) names a Fortran program can call.
 * Strings come from Fortran with their lengths and no NUL. */
#include <sched.h>

#include "corpus.h"

/* Fortran's omp_lib names, whose addresses show which runtime answers. */
extern int32_t omp_get_thread_num_(void);
extern int32_t omp_get_num_threads_(void);

static char program_name[64];
static char *message; /* the text being built for FAIL or the summary */

static const char *c_string(const char *text, int length, char *buf, size_t size)
{
    size_t n = length < 0 ? 0 : (size_t)length;
    if (n >= size)
        n = size - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return buf;
}

void fcorpus_begin(const char *name, int length);
void fcorpus_begin(const char *name, int length)
{
    corpus_begin(c_string(name, length, program_name, sizeof program_name));
    corpus_check_symbol("omp_get_thread_num_", (const void *)&omp_get_thread_num_);
    corpus_check_symbol("omp_get_num_threads_", (const void *)&omp_get_num_threads_);
}

void fcorpus_fail(const char *text, int length);
/* "FAIL <program>: <what>" (no file:line: a Fortran check names itself). */
void fcorpus_fail(const char *text, int length)
{
    char buf[900];
    fflush(stdout);
    fprintf(stderr, "FAIL %s: %s\n", corpus_program, c_string(text, length, buf, sizeof buf));
    _exit(1);
}

void fcorpus_summary(const char *text, int length);
void fcorpus_summary(const char *text, int length)
{
    message = malloc((size_t)length + 1);
    if (message == NULL)
        FAIL("out of memory for the summary");
    corpus_summary("%s", c_string(text, length, message, (size_t)length + 1));
    free(message);
}

/* corpus.h's capture, for Fortran: one at a time; end returns which
 * streams got the needle (1 stdout, 2 stderr; an empty needle: any text). */
static corpus_capture capture;

void fcorpus_capture_begin(void);
void fcorpus_capture_begin(void)
{
    corpus_capture_begin(&capture);
}

int fcorpus_capture_end(const char *needle, int length);
int fcorpus_capture_end(const char *needle, int length)
{
    char buf[256];
    const char *text = c_string(needle, length, buf, sizeof buf);
    return corpus_capture_end(&capture, *text ? text : NULL);
}

int64_t fcorpus_seed(int a, int b);
int64_t fcorpus_seed(int a, int b)
{
    return (int64_t)corpus_seed((unsigned)a, (unsigned)b);
}

int64_t fcorpus_rand(int64_t *state);
int64_t fcorpus_rand(int64_t *state)
{
    return (int64_t)(corpus_rand((uint64_t *)state) >> 1); /* non-negative */
}

void fcorpus_delay(int64_t *state, int max_us);
void fcorpus_delay(int64_t *state, int max_us)
{
    corpus_delay((uint64_t *)state, max_us < 0 ? 0u : (unsigned)max_us);
}

/* Runs the program again with name=value set, unless it is set already
 * (runtimes read OMP_CANCELLATION and the like when they load). */
void fcorpus_reexec_with(const char *name, int name_length, const char *value, int value_length);
void fcorpus_reexec_with(const char *name, int name_length, const char *value, int value_length)
{
    char n[128], v[128];
    char *argv[] = {"/proc/self/exe", NULL};
    corpus_reexec_with(argv, c_string(name, name_length, n, sizeof n), c_string(value, value_length, v, sizeof v));
}

/* The runtime's `name` at symbol version `version` (NULL: the default
 * one), or NULL when it has none: how a program reaches the entry points
 * of another compiler's binaries (the OpenMP 2.5 locks at OMP_1.0) or ones
 * that only some runtimes export. */
void *fcorpus_entry(const char *name, int name_length, const char *version, int version_length);
void *fcorpus_entry(const char *name, int name_length, const char *version, int version_length)
{
    char n[128], v[32];
    c_string(name, name_length, n, sizeof n);
    if (version_length == 0)
        return dlsym(RTLD_DEFAULT, n);
    return dlvsym(RTLD_DEFAULT, n, c_string(version, version_length, v, sizeof v));
}

/* The n-th CPU (from 0) of the affinity mask this process started with,
 * or -1 when it has fewer. */
int fcorpus_allowed_cpu(int n);
int fcorpus_allowed_cpu(int n)
{
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0)
        return n == 0 ? 0 : -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &mask) && n-- == 0)
            return cpu;
    return -1;
}
