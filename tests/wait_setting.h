/* The ways the environment can set the wait policy, for the tests of the
 * decisions taken from it (test_wait_policy.c, omp_unit/test_omp_waiter.c):
 * each test takes one by name, sets its variable before the wait layer
 * first reads the environment, and checks that the settings hold it. */
#ifndef MUSTER_TESTS_WAIT_SETTING_H
#define MUSTER_TESTS_WAIT_SETTING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "platform/cpus.h"
#include "wait/policy.h"

typedef struct wait_setting {
    const char *name, *variable, *value;
    muster_wait_policy policy; /* what the settings must hold */
    bool from_omp;
} wait_setting;

static const wait_setting wait_settings_under_test[] = {
    {"unset", NULL, NULL, MUSTER_WAIT_DEFAULT, false},
    {"omp-active", "OMP_WAIT_POLICY", "active", MUSTER_WAIT_ACTIVE, true},
    {"omp-passive", "OMP_WAIT_POLICY", "passive", MUSTER_WAIT_PASSIVE, true},
    {"muster-active", "MUSTER_WAIT_POLICY", "active", MUSTER_WAIT_ACTIVE, false},
    {"muster-passive", "MUSTER_WAIT_POLICY", "passive", MUSTER_WAIT_PASSIVE, false},
};

/* The setting argv[1] names, set in the environment and checked in the
 * settings; exits 2 with a usage line when there is none. */
static inline const wait_setting *wait_setting_from_args(int argc, char **argv, const char *program)
{
    const wait_setting *s = NULL;
    for (size_t i = 0; argc == 2 && i < sizeof wait_settings_under_test / sizeof wait_settings_under_test[0]; i++)
        if (strcmp(wait_settings_under_test[i].name, argv[1]) == 0)
            s = &wait_settings_under_test[i];
    if (s == NULL) {
        fprintf(stderr, "usage: %s unset|omp-active|omp-passive|muster-active|muster-passive\n", program);
        exit(2);
    }
    unsetenv("MUSTER_WAIT_POLICY");
    unsetenv("OMP_WAIT_POLICY");
    unsetenv("MUSTER_SPIN_NS");
    if (s->variable != NULL)
        setenv(s->variable, s->value, 1);
    const muster_wait_settings *read = muster_wait_settings_get();
    CHECK(read->policy == s->policy && read->policy_from_omp == s->from_omp && !read->has_spin_ns,
          "%s: settings hold %s (from OMP_WAIT_POLICY: %d)", s->name, muster_wait_policy_name(read->policy),
          read->policy_from_omp);
    return s;
}

/* The CPUs this process may use at once, and those of its mask (never
 * fewer): the team sizes the checks take are these and more. */
static inline void wait_test_cpus(unsigned *cpus, unsigned *mask)
{
    *cpus = muster_cpus_available();
    *mask = muster_affinity_cpus(NULL, 0);
    if (*mask < *cpus)
        *mask = *cpus;
}

#endif
