/* The runtime's messages on stderr: a warning about a variable of the
 * environment, and the fatal error (internal.h).  Each is one write of one
 * line, so that messages from two processes sharing stderr do not
 * interleave mid-line. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/warn.h"

static _Atomic bool warnings_off; /* kmp_set_warnings_off, KMP_WARNINGS in kmp_set_defaults */

void muster_omp_set_warnings(bool on)
{
    atomic_store_explicit(&warnings_off, !on, memory_order_relaxed); /* relaxed: a setting, ordering nothing */
}

bool muster_omp_warnings_wanted(void)
{
    return !atomic_load_explicit(&warnings_off, memory_order_relaxed); /* relaxed: as above */
}

void muster_omp_warn_env(const char *variable, const char *value, const char *problem, const char *instead)
{
    if (!muster_omp_warnings_wanted())
        return;
    /* One write of one line, so warnings from two processes sharing stderr
     * do not interleave mid-line. */
    char line[1024];
    snprintf(line, sizeof line, "libmuster-omp: %s='%s' %s; using %s\n", variable, value, problem, instead);
    fputs(line, stderr);
}

bool muster_omp_env_statistics(const char *variable)
{
    const char *want = getenv(variable);
    if (want == NULL || strcmp(want, "0") == 0)
        return false;
    if (strcmp(want, "1") == 0)
        return true;
    muster_omp_warn_env(variable, want, "is not 0 or 1", "0 (no statistics)");
    return false;
}

_Noreturn void muster_omp_fatal(const char *format, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, format);
    int n = snprintf(line, sizeof line, "libmuster-omp: ");
    vsnprintf(line + n, sizeof line - (size_t)n - 1, format, ap);
    va_end(ap);
    strcat(line, "\n");
    fputs(line, stderr); /* one write, as muster_omp_warn_env */
    abort();
}
