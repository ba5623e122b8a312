/* How a thread waits (policy.h says what lives here and why). */
#include "wait/policy.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "names.h"
#include "platform/cpus.h"

/* ---- the policies' names (the public muster_wait_policy_name/parse) ---- */

static const char *const policy_names[MUSTER_WAIT_COUNT] = {"default", "active", "passive", "hybrid"};

const char *muster_wait_policy_name(muster_wait_policy p)
{
    return muster_name_of(policy_names, MUSTER_WAIT_COUNT, (int)p);
}

int muster_wait_policy_parse(const char *name, muster_wait_policy *out)
{
    int value = 0;
    int rc = muster_name_parse(policy_names, MUSTER_WAIT_COUNT, name, &value);
    if (rc == MUSTER_OK && out != NULL)
        *out = (muster_wait_policy)value;
    return rc;
}

/* ---- the process's settings ---- */

static muster_wait_settings settings = {.policy = MUSTER_WAIT_DEFAULT, .load_watch = true};
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

/* OMP_WAIT_POLICY knows only active and passive (the OpenMP spec's). */
static bool read_policy_variable(const char *variable, bool omp)
{
    const char *value = getenv(variable);
    if (value == NULL)
        return false;
    muster_wait_policy policy;
    if (muster_wait_policy_parse(value, &policy) == MUSTER_OK && policy != MUSTER_WAIT_DEFAULT &&
        (!omp || policy != MUSTER_WAIT_HYBRID)) {
        settings.policy = policy;
        settings.policy_from_omp = omp;
        return true;
    }
    muster_warn_env(variable, value, omp ? "is not one of active, passive" : "is not one of active, passive, hybrid",
                    "hybrid");
    return false;
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
        settings.has_spin_ns = true;
        settings.spin_ns = ns;
        return;
    }
    char problem[96];
    snprintf(problem, sizeof problem, "is not a whole number of nanoseconds in [0, %lld]",
             (long long)MUSTER_MAX_SPIN_NS);
    muster_warn_env("MUSTER_SPIN_NS", value, problem, "the default spin budget");
}

/* MUSTER_LOAD_WATCH=0 turns the load watch off (wait/load.h): for a
 * machine the program has to itself, where the probes would only cost. */
static void read_load_watch(void)
{
    const char *value = getenv("MUSTER_LOAD_WATCH");
    if (value == NULL)
        return;
    if (strcmp(value, "0") == 0 || strcmp(value, "1") == 0)
        settings.load_watch = value[0] == '1';
    else
        muster_warn_env("MUSTER_LOAD_WATCH", value, "is not 0 or 1", "1 (watch the load)");
}

static void read_settings(void)
{
    /* A set MUSTER_WAIT_POLICY decides, even when it is garbage (then
     * hybrid, with its warning): OMP_WAIT_POLICY is not consulted. */
    if (getenv("MUSTER_WAIT_POLICY") != NULL)
        read_policy_variable("MUSTER_WAIT_POLICY", false);
    else
        read_policy_variable("OMP_WAIT_POLICY", true);
    read_spin_ns();
    read_load_watch();
}

void muster_wait_settings_reread(void)
{
    settings = (muster_wait_settings){.policy = MUSTER_WAIT_DEFAULT, .load_watch = true};
    read_settings();
}

const muster_wait_settings *muster_wait_settings_get(void)
{
    pthread_once(&settings_once, read_settings);
    return &settings;
}

/* ---- barriers ---- */

muster_default_budget muster_default_budget_for(unsigned participants, unsigned available, unsigned mask_cpus,
                                                muster_wait_policy policy)
{
    mask_cpus = muster_mask_or_available(mask_cpus, available);
    if (participants <= available)
        return (muster_default_budget){.spin_ns = MUSTER_SPIN_NS_DEFAULT, .adaptive = policy == MUSTER_WAIT_HYBRID};
    if (participants <= mask_cpus)
        return (muster_default_budget){.spin_ns = MUSTER_SPIN_NS_QUOTA};
    /* Yields only where the default budget is the oversubscribed one: an
     * explicit MUSTER_SPIN_NS or spin_ns is the whole story. */
    bool few_per_cpu = participants <= (uint64_t)MUSTER_YIELD_MEMBERS_PER_CPU * mask_cpus;
    return (muster_default_budget){.spin_ns = MUSTER_SPIN_NS_OVERSUBSCRIBED,
                                   .yields = MUSTER_YIELDS_OVERSUBSCRIBED,
                                   .yield_ns = few_per_cpu ? MUSTER_YIELD_NS_OVERSUBSCRIBED : 0};
}

muster_waiter muster_team_waiter(unsigned participants, muster_wait_policy policy, int64_t spin_ns,
                                 int64_t *resolved_spin_ns)
{
    const muster_wait_settings *env = muster_wait_settings_get();
    if (policy == MUSTER_WAIT_DEFAULT)
        policy = env->policy != MUSTER_WAIT_DEFAULT ? env->policy : MUSTER_WAIT_HYBRID;
    muster_waiter w = {.policy = policy};
    if (spin_ns < 0) {
        if (env->has_spin_ns) {
            spin_ns = env->spin_ns;
        } else {
            muster_default_budget budget = muster_default_budget_for(participants, muster_cpus_available(),
                                                                     muster_affinity_cpus(NULL, 0), policy);
            spin_ns = budget.spin_ns;
            w.yields = budget.yields;
            w.yield_ns = budget.yield_ns;
            w.adaptive = budget.adaptive;
        }
    }
    w.spin_iterations = muster_spin_iterations(spin_ns);
    w.watch_load = w.adaptive && policy == MUSTER_WAIT_HYBRID && env->load_watch;
    w.watch_yields = env->load_watch;
    if (resolved_spin_ns != NULL)
        *resolved_spin_ns = spin_ns;
    return w;
}

/* CPU sharing by the census pays when the participants outnumber the CPUs
 * of the affinity mask and the waits take the oversubscribed default
 * (yields).  Not when a cgroup quota is what is short: polling would burn
 * the quota that the threads still to arrive need. */
static bool census_sharing_pays(unsigned participants, const muster_waiter *w, bool waits_only_for_release)
{
    unsigned mask_cpus = muster_affinity_cpus(NULL, 0);
    return waits_only_for_release && w->yields > 0 && mask_cpus > 0 && participants > mask_cpus &&
           muster_cpus_available() == mask_cpus;
}

/* The co-location guard is for waiters that spin: ACTIVE, and HYBRID with
 * a budget.  PASSIVE waiters sleep at once, and an oversubscribed HYBRID
 * waiter without sharing yields before it sleeps. */
static bool census_guard_pays(unsigned participants, const muster_waiter *w)
{
    return participants > 1 && w->policy != MUSTER_WAIT_PASSIVE &&
           (w->policy == MUSTER_WAIT_ACTIVE || w->spin_iterations > 0);
}

muster_census_plan muster_census_plan_for(unsigned participants, const muster_waiter *waiter,
                                          bool waits_only_for_release)
{
    bool sharing = census_sharing_pays(participants, waiter, waits_only_for_release);
    return (muster_census_plan){
        .attach = sharing || census_guard_pays(participants, waiter),
        .share_ns = sharing ? MUSTER_SHARE_NS_OVERSUBSCRIBED : 0,
    };
}
