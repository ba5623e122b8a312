/* The wait policy module (src/wait/policy.c): every decision about how a
 * thread waits, checked directly for a machine of any size (the team sizes
 * are the CPUs available and more), and as pure functions of the CPUs for
 * made-up machines, cgroup quotas included.
 *
 * usage: test_wait_policy unset|omp-active|omp-passive|muster-active|muster-passive
 * sets the matching variable (MUSTER_WAIT_POLICY or OMP_WAIT_POLICY) before
 * the module first reads the environment, and checks what follows from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "platform/cpus.h"
#include "wait/policy.h"

typedef struct setting {
    const char *name, *variable, *value;
    muster_wait_policy policy; /* what the settings must hold */
    bool from_omp;
} setting;

static const setting settings_under_test[] = {
    {"unset", NULL, NULL, MUSTER_WAIT_DEFAULT, false},
    {"omp-active", "OMP_WAIT_POLICY", "active", MUSTER_WAIT_ACTIVE, true},
    {"omp-passive", "OMP_WAIT_POLICY", "passive", MUSTER_WAIT_PASSIVE, true},
    {"muster-active", "MUSTER_WAIT_POLICY", "active", MUSTER_WAIT_ACTIVE, false},
    {"muster-passive", "MUSTER_WAIT_POLICY", "passive", MUSTER_WAIT_PASSIVE, false},
};

static const setting *find_setting(const char *name)
{
    for (size_t i = 0; i < sizeof settings_under_test / sizeof settings_under_test[0]; i++)
        if (strcmp(settings_under_test[i].name, name) == 0)
            return &settings_under_test[i];
    return NULL;
}

/* OpenMP teams: explicit policies; OMP_WAIT_POLICY=active is a hint that an
 * oversubscribed team does not take, MUSTER_WAIT_POLICY=active an order. */
static void check_omp_team_policy(const setting *s, unsigned cpus, unsigned mask)
{
    muster_wait_policy fits = muster_omp_team_policy(cpus);
    muster_wait_policy over = muster_omp_team_policy(cpus + 1);
    CHECK(fits != MUSTER_WAIT_DEFAULT && over != MUSTER_WAIT_DEFAULT, "the OpenMP policy is explicit");
    muster_wait_policy expect_fits = s->policy == MUSTER_WAIT_DEFAULT ? MUSTER_WAIT_HYBRID : s->policy;
    muster_wait_policy expect_over = s->policy == MUSTER_WAIT_ACTIVE && s->from_omp ? MUSTER_WAIT_HYBRID : expect_fits;
    CHECK(fits == expect_fits, "%s: team of %u: %s, expected %s", s->name, cpus, muster_wait_policy_name(fits),
          muster_wait_policy_name(expect_fits));
    CHECK(over == expect_over, "%s: team of %u: %s, expected %s", s->name, cpus + 1, muster_wait_policy_name(over),
          muster_wait_policy_name(expect_over));
    /* The waiter an OpenMP team's barriers get from that policy, in a team
     * that outnumbers the affinity mask. */
    muster_waiter w = muster_team_waiter(mask + 1, over, -1, NULL);
    CHECK(w.policy == expect_over, "the waiter keeps the team's policy");
    CHECK(w.spin_iterations == 0 && w.yields == MUSTER_YIELDS_OVERSUBSCRIBED,
          "an oversubscribed team: no spin budget, %u yields (got %llu polls, %u yields)",
          MUSTER_YIELDS_OVERSUBSCRIBED, (unsigned long long)w.spin_iterations, w.yields);
}

/* Barriers of the plain library: DEFAULT is the settings' policy, else
 * hybrid; the budget follows the team size unless given. */
static void check_team_waiter(const setting *s, unsigned cpus, unsigned mask)
{
    int64_t spin = -1;
    muster_waiter w = muster_team_waiter(cpus, MUSTER_WAIT_DEFAULT, -1, &spin);
    CHECK(w.policy == (s->policy == MUSTER_WAIT_DEFAULT ? MUSTER_WAIT_HYBRID : s->policy), "%s: default policy %s",
          s->name, muster_wait_policy_name(w.policy));
    CHECK(spin == MUSTER_SPIN_NS_DEFAULT && w.yields == 0, "a team that fits: the default budget, no yields");
    muster_team_waiter(mask + 1, MUSTER_WAIT_DEFAULT, -1, &spin);
    CHECK(spin == MUSTER_SPIN_NS_OVERSUBSCRIBED, "an oversubscribed team: the oversubscribed budget");
    if (cpus < mask) { /* this process is under a quota short of its mask */
        w = muster_team_waiter(cpus + 1, MUSTER_WAIT_DEFAULT, -1, &spin);
        CHECK(spin == MUSTER_SPIN_NS_QUOTA && w.yields == 0, "only the quota short: the quota's budget");
    }
    w = muster_team_waiter(cpus + 1, MUSTER_WAIT_HYBRID, 7000, &spin);
    CHECK(spin == 7000 && w.yields == 0, "a given budget is the whole story: no yields");
}

static void check_census_plan(unsigned cpus, unsigned mask)
{
    muster_waiter passive = muster_team_waiter(cpus, MUSTER_WAIT_PASSIVE, -1, NULL);
    CHECK(!muster_census_plan_for(cpus, &passive, true).attach, "passive waiters need no census");
    muster_waiter spinning = muster_team_waiter(2, MUSTER_WAIT_HYBRID, 5000, NULL);
    muster_census_plan plan = muster_census_plan_for(2, &spinning, true);
    CHECK(plan.attach && plan.share_ns == 0, "spinning waiters get the co-location guard, not sharing");
    muster_waiter alone = muster_team_waiter(1, MUSTER_WAIT_ACTIVE, -1, NULL);
    CHECK(!muster_census_plan_for(1, &alone, true).attach, "one participant has nobody to share a CPU with");
    /* Oversubscribed with the default budget: sharing, when the affinity
     * mask (not a quota) is what is short, and only for algorithms whose
     * waiters wait for one release. */
    muster_waiter over = muster_team_waiter(mask + 1, MUSTER_WAIT_HYBRID, -1, NULL);
    bool quota_short = cpus < mask;
    plan = muster_census_plan_for(mask + 1, &over, true);
    CHECK(plan.attach == !quota_short, "outnumbering the mask: a census exactly when no quota is short too");
    CHECK(plan.share_ns == (quota_short ? 0 : MUSTER_SHARE_NS_OVERSUBSCRIBED), "sharing for %llu ns",
          (unsigned long long)plan.share_ns);
    CHECK(muster_census_plan_for(mask + 1, &over, false).share_ns == 0, "no sharing for waiters of each other");
}

static void check_mutex_plan(unsigned cpus, unsigned mask)
{
    muster_mutex_plan passive = muster_mutex_plan_for(MUSTER_WAIT_PASSIVE);
    CHECK(passive.spin_polls == 0 && passive.oversubscribed_polls == 0, "passive: a locker sleeps at once");
    muster_mutex_plan hybrid = muster_mutex_plan_for(MUSTER_WAIT_HYBRID);
    CHECK(hybrid.sleeper_limit == cpus - 1, "sleeper limit %u with %u CPUs", hybrid.sleeper_limit, cpus);
    if (cpus < mask) {
        CHECK(hybrid.spin_polls == muster_spin_iterations(MUSTER_SPIN_NS_QUOTA) &&
                  hybrid.oversubscribed_polls == hybrid.spin_polls,
              "under a quota: the quota's budget");
        return;
    }
    if (cpus < 2) {
        CHECK(hybrid.spin_polls == 0, "one CPU: the holder cannot run while we spin");
        return;
    }
    CHECK(hybrid.spin_polls == muster_spin_iterations(MUSTER_MUTEX_SPIN_NS), "the mutex's budget");
    CHECK(hybrid.oversubscribed_polls == muster_spin_iterations(MUSTER_MUTEX_SPIN_OVERSUBSCRIBED_NS) &&
              hybrid.oversubscribed_polls > hybrid.spin_polls,
          "oversubscribed teams spin longer (%llu vs %llu polls)", (unsigned long long)hybrid.oversubscribed_polls,
          (unsigned long long)hybrid.spin_polls);
}

static void check_task_plan(unsigned cpus, unsigned mask)
{
    muster_waiter active = muster_team_waiter(cpus, MUSTER_WAIT_ACTIVE, -1, NULL);
    muster_task_wait_plan plan = muster_task_wait_plan_for(cpus, &active);
    CHECK(plan.never_sleep && plan.spare_members == 0, "an active team that fits never sleeps, spares none");
    muster_waiter passive = muster_team_waiter(cpus, MUSTER_WAIT_PASSIVE, -1, NULL);
    plan = muster_task_wait_plan_for(cpus, &passive);
    CHECK(!plan.never_sleep && plan.idle_polls == 0, "a passive member sleeps at once");
    CHECK(plan.nap_ns == MUSTER_TASK_NAP_NS, "the nap bounds every sleep");
    muster_waiter hybrid = muster_team_waiter(cpus, MUSTER_WAIT_HYBRID, -1, NULL);
    CHECK(muster_task_wait_plan_for(cpus, &hybrid).idle_polls == hybrid.spin_iterations,
          "a hybrid member looks for its barrier budget");
    muster_waiter over = muster_team_waiter(mask + 3, MUSTER_WAIT_HYBRID, -1, NULL);
    plan = muster_task_wait_plan_for(mask + 3, &over);
    CHECK(plan.idle_polls == MUSTER_TASK_IDLE_POLLS_OVERSUBSCRIBED && plan.spare_members == mask + 3 - cpus,
          "3 beyond the mask: %llu looks, %u spare members", (unsigned long long)plan.idle_polls,
          plan.spare_members);
}

/* The default budget and the mutex plan as pure functions of the CPUs
 * the process may use at once and those of its mask: the quota case runs
 * everywhere, whatever this machine's cgroup says. */
static void check_budgets_for_machines(void)
{
    typedef struct {
        unsigned participants, available, mask;
        muster_wait_policy policy;
        int64_t spin_ns;
        unsigned yields;
        bool adaptive;
    } budget_case;
    static const budget_case cases[] = {
        {2, 2, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_DEFAULT, 0, true},
        {2, 2, 2, MUSTER_WAIT_ACTIVE, MUSTER_SPIN_NS_DEFAULT, 0, false},
        {16, 16, 64, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_DEFAULT, 0, true},
        {3, 2, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, MUSTER_YIELDS_OVERSUBSCRIBED, false},
        {2, 1, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_QUOTA, 0, false},    /* a 1-CPU quota, 2 CPUs */
        {8, 2, 16, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_QUOTA, 0, false},   /* a 2-CPU quota, 16 CPUs */
        {3, 1, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, MUSTER_YIELDS_OVERSUBSCRIBED, false},
        {2, 1, 0, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, MUSTER_YIELDS_OVERSUBSCRIBED, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const budget_case *c = &cases[i];
        muster_default_budget b = muster_default_budget_for(c->participants, c->available, c->mask, c->policy);
        CHECK(b.spin_ns == c->spin_ns && b.yields == c->yields && b.adaptive == c->adaptive,
              "%u participants, %u available of %u: spin %lld yields %u adaptive %d, expected %lld %u %d",
              c->participants, c->available, c->mask, (long long)b.spin_ns, b.yields, b.adaptive,
              (long long)c->spin_ns, c->yields, c->adaptive);
    }
    muster_mutex_plan one = muster_mutex_plan_from(MUSTER_WAIT_HYBRID, 1, 1);
    CHECK(one.spin_polls == 0 && one.oversubscribed_polls == 0 && one.sleeper_limit == 0, "one CPU: no spinning");
    muster_mutex_plan quota = muster_mutex_plan_from(MUSTER_WAIT_HYBRID, 1, 2);
    CHECK(quota.spin_polls == muster_spin_iterations(MUSTER_SPIN_NS_QUOTA) &&
              quota.oversubscribed_polls == quota.spin_polls && quota.spin_polls > 0 && quota.sleeper_limit == 0,
          "a 1-CPU quota on 2 CPUs: the holder runs beside us, a short spin");
    muster_mutex_plan two = muster_mutex_plan_from(MUSTER_WAIT_HYBRID, 2, 2);
    CHECK(two.spin_polls == muster_spin_iterations(MUSTER_MUTEX_SPIN_NS) &&
              two.oversubscribed_polls == muster_spin_iterations(MUSTER_MUTEX_SPIN_OVERSUBSCRIBED_NS) &&
              two.sleeper_limit == 1,
          "2 CPUs: the plain and the longer budget");
    CHECK(muster_mutex_plan_from(MUSTER_WAIT_PASSIVE, 1, 2).spin_polls == 0, "passive under a quota: no spin");
}

int main(int argc, char **argv)
{
    const setting *s = argc == 2 ? find_setting(argv[1]) : NULL;
    if (s == NULL) {
        fprintf(stderr, "usage: test_wait_policy unset|omp-active|omp-passive|muster-active|muster-passive\n");
        return 2;
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
    unsigned cpus = muster_cpus_available(), mask = muster_affinity_cpus(NULL, 0);
    if (mask < cpus)
        mask = cpus;
    check_omp_team_policy(s, cpus, mask);
    check_team_waiter(s, cpus, mask);
    check_census_plan(cpus, mask);
    check_mutex_plan(cpus, mask);
    check_task_plan(cpus, mask);
    check_budgets_for_machines();
    printf("wait policy (%s, %u CPUs): ok\n", s->name, cpus);
    return 0;
}
