/* MUSTER_BARRIER, MUSTER_WAIT_POLICY, MUSTER_SPIN_NS and OMP_WAIT_POLICY,
 * read once per process.  Garbage gets one warning line naming the variable,
 * the value and what is used instead; it never fails a call. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static muster_env_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void warn(const char *variable, const char *value, const char *problem, const char *instead)
{
    fprintf(stderr, "muster: %s='%s' %s; using %s\n", variable, value, problem, instead);
}

static void read_algorithm(void)
{
    const char *value = getenv("MUSTER_BARRIER");
    if (value == NULL)
        return;
    if (muster_algorithm_parse(value, &config.algorithm) == MUSTER_OK) {
        config.has_algorithm = true;
        return;
    }
    char known[512] = "";
    for (int a = 0; a < MUSTER_ALG_COUNT; a++) {
        strcat(known, a ? ", " : "");
        strcat(known, muster_algorithm_name((muster_algorithm)a));
    }
    char problem[600];
    snprintf(problem, sizeof problem, "is not one of %s", known);
    warn("MUSTER_BARRIER", value, problem, "auto");
}

static bool parse_policy(const char *variable, muster_wait_policy *out, bool omp)
{
    const char *value = getenv(variable);
    if (value == NULL)
        return false;
    muster_wait_policy policy;
    if (muster_wait_policy_parse(value, &policy) == MUSTER_OK && policy != MUSTER_WAIT_DEFAULT &&
        (!omp || policy != MUSTER_WAIT_HYBRID)) {
        *out = policy;
        return true;
    }
    warn(variable, value, omp ? "is not one of active, passive" : "is not one of active, passive, hybrid",
         "hybrid");
    return false;
}

static void read_policy(void)
{
    if (getenv("MUSTER_WAIT_POLICY") != NULL)
        config.has_policy = parse_policy("MUSTER_WAIT_POLICY", &config.policy, false);
    else
        config.has_policy = parse_policy("OMP_WAIT_POLICY", &config.policy, true);
}

static void read_spin_ns(void)
{
    const char *value = getenv("MUSTER_SPIN_NS");
    if (value == NULL)
        return;
    char *end;
    errno = 0;
    long long ns = strtoll(value, &end, 10);
    if (errno == 0 && end != value && *end == '\0' && ns >= 0 && ns <= MUSTER_MAX_SPIN_NS) {
        config.has_spin_ns = true;
        config.spin_ns = ns;
        return;
    }
    char problem[96];
    snprintf(problem, sizeof problem, "is not a whole number of nanoseconds in [0, %lld]",
             (long long)MUSTER_MAX_SPIN_NS);
    warn("MUSTER_SPIN_NS", value, problem, "the default spin budget");
}

static void read_environment(void)
{
    read_algorithm();
    read_policy();
    read_spin_ns();
}

const muster_env_config *muster_env(void)
{
    pthread_once(&config_once, read_environment);
    return &config;
}
