/* libFuzzer target: every environment variable muster reads (OMP_*,
 * GOMP_*, KMP_FORCE_REDUCTION, KMP_BLOCKTIME, KMP_LIBRARY, MUSTER_*), read
 * again as at load by each
 * module that reads them (libmuster-omp's ICVs, places and settings, the
 * wait policy, the barrier's algorithm and cluster size).  The input is
 * lines; a line's first byte picks the variable, the rest (up to a NUL) is
 * its value.  Variables muster ignores (GOMP_CPU_AFFINITY, OMP_ALLOCATOR,
 * OMP_TOOL) are in the list too: setting them must change nothing.
 * Checks the invariants the runtime relies on: at least one thread, a
 * stack size it can use, a known schedule and binding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "barrier/runtime.h"
#include "omp/env.h"
#include "omp/internal.h"
#include "wait/policy.h"

static const char *const variables[] = {
    "OMP_NUM_THREADS", "OMP_SCHEDULE", "OMP_DYNAMIC", "OMP_PROC_BIND", "OMP_PLACES",
    "OMP_MAX_ACTIVE_LEVELS", "OMP_NESTED", "OMP_THREAD_LIMIT", "OMP_STACKSIZE", "GOMP_STACKSIZE",
    "OMP_WAIT_POLICY", "OMP_CANCELLATION", "OMP_DISPLAY_ENV", "OMP_DISPLAY_AFFINITY", "OMP_AFFINITY_FORMAT",
    "OMP_DEFAULT_DEVICE", "OMP_MAX_TASK_PRIORITY", "OMP_TEAMS_THREAD_LIMIT", "OMP_NUM_TEAMS",
    "KMP_FORCE_REDUCTION", "KMP_BLOCKTIME", "KMP_LIBRARY", "MUSTER_OMP_QUEUE_AHEAD", "MUSTER_OMP_DELAY_DEPTH",
    "MUSTER_OMP_HELP_FIRST_DEPTH",
    "MUSTER_OMP_DEFER", "MUSTER_OMP_TASK_STATS", "MUSTER_OMP_WAIT_STATS", "MUSTER_WAIT_POLICY",
    "MUSTER_SPIN_NS", "MUSTER_LOAD_WATCH", "MUSTER_BARRIER", "MUSTER_CLUSTER_SIZE", "GOMP_CPU_AFFINITY",
    "OMP_ALLOCATOR", "OMP_TOOL",
};
enum { VARIABLES = sizeof variables / sizeof variables[0] };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (unsigned v = 0; v < VARIABLES; v++)
        unsetenv(variables[v]);
    bool cluster = false;
    for (size_t at = 0; at < size;) {
        const uint8_t *end = memchr(data + at, '\n', size - at);
        size_t line = end != NULL ? (size_t)(end - (data + at)) : size - at;
        if (line > 0) {
            const char *name = variables[data[at] % VARIABLES];
            char *value = strndup((const char *)data + at + 1, line - 1); /* stops at a NUL too */
            if (value != NULL) {
                setenv(name, value, 1);
                free(value);
            }
            cluster |= strcmp(name, "MUSTER_CLUSTER_SIZE") == 0;
        }
        at += line + 1;
    }
    muster_wait_settings_reread();
    muster_env_reread();
    if (cluster) /* unset, the size comes from topology discovery: slow, and not a parser */
        muster_cluster_reread();
    muster_omp_env_reread();

    const muster_omp_globals *g = muster_omp_globals_get();
    const muster_omp_icvs *icvs = &g->icvs;
    if (icvs->nthreads < 1 || icvs->thread_limit < 1)
        abort();
    if (g->stacksize != 0 && g->stacksize < 16384)
        abort(); /* below what pthread_attr_setstacksize takes */
    if (icvs->max_active_levels > MUSTER_OMP_SUPPORTED_ACTIVE_LEVELS)
        abort();
    const muster_wait_settings *w = muster_wait_settings_get();
    if (w->policy >= MUSTER_WAIT_COUNT || (w->has_spin_ns && (w->spin_ns < 0 || w->spin_ns > MUSTER_MAX_SPIN_NS)))
        abort();
    const muster_env_config *b = muster_env();
    if (b->has_algorithm && (b->algorithm < 0 || b->algorithm >= MUSTER_ALG_COUNT))
        abort();
    return 0;
}
