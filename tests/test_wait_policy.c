/* The wait policy module (src/wait/policy.c): every decision about how a
 * thread waits, checked directly for a machine of any size (the team sizes
 * are the CPUs available and more), and as pure functions of the CPUs for
 * made-up machines, cgroup quotas included.  libmuster-omp's plans built on
 * it: tests/omp_unit/test_omp_waiter.c.
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
#include "wait_setting.h"

/* Barriers of the plain library: DEFAULT is the settings' policy, else
 * hybrid; the budget follows the team size unless given. */
static void check_team_waiter(const wait_setting *s, unsigned cpus, unsigned mask)
{
    int64_t spin = -1;
    muster_waiter w = muster_team_waiter(cpus, MUSTER_WAIT_DEFAULT, -1, &spin);
    CHECK(w.policy == (s->policy == MUSTER_WAIT_DEFAULT ? MUSTER_WAIT_HYBRID : s->policy), "%s: default policy %s",
          s->name, muster_wait_policy_name(w.policy));
    CHECK(spin == MUSTER_SPIN_NS_DEFAULT && w.yields == 0, "a team that fits: the default budget, no yields");
    CHECK(w.watch_yields == muster_wait_settings_get()->load_watch, "its yields are judged as MUSTER_LOAD_WATCH says");
    CHECK(w.yield_ns == 0, "a team that fits: no yield phase");
    w = muster_team_waiter(mask + 1, MUSTER_WAIT_DEFAULT, -1, &spin);
    CHECK(spin == MUSTER_SPIN_NS_OVERSUBSCRIBED, "an oversubscribed team: the oversubscribed budget");
    muster_default_budget over = muster_default_budget_for(mask + 1, cpus, mask, w.policy);
    CHECK(w.yields == over.yields && w.yield_ns == over.yield_ns,
          "an oversubscribed team's waiter takes its budget's yields (%u, %llu ns)", w.yields,
          (unsigned long long)w.yield_ns);
    if (cpus < mask) { /* this process is under a quota short of its mask */
        w = muster_team_waiter(cpus + 1, MUSTER_WAIT_DEFAULT, -1, &spin);
        CHECK(spin == MUSTER_SPIN_NS_QUOTA && w.yields == 0, "only the quota short: the quota's budget");
    }
    w = muster_team_waiter(cpus + 1, MUSTER_WAIT_HYBRID, 7000, &spin);
    CHECK(spin == 7000 && w.yields == 0 && w.yield_ns == 0, "a given budget is the whole story: no yields");
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

/* The default budget as a pure function of the CPUs the process may use
 * at once and those of its mask: the quota case runs everywhere, whatever
 * this machine's cgroup says. */
static void check_budgets_for_machines(void)
{
    typedef struct {
        unsigned participants, available, mask;
        muster_wait_policy policy;
        int64_t spin_ns;
        unsigned yields;
        uint64_t yield_ns;
        bool adaptive;
    } budget_case;
    enum { Y = MUSTER_YIELDS_OVERSUBSCRIBED };
    const uint64_t phase = MUSTER_YIELD_NS_OVERSUBSCRIBED;
    const unsigned per_cpu = MUSTER_YIELD_MEMBERS_PER_CPU;
    const budget_case cases[] = {
        {2, 2, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_DEFAULT, 0, 0, true},
        {2, 2, 2, MUSTER_WAIT_ACTIVE, MUSTER_SPIN_NS_DEFAULT, 0, 0, false},
        {16, 16, 64, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_DEFAULT, 0, 0, true},
        {3, 2, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, Y, phase, false},
        /* the yield phase up to MUSTER_YIELD_MEMBERS_PER_CPU a CPU of the mask, not beyond */
        {2 * per_cpu, 2, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, Y, phase, false},
        {2 * per_cpu + 1, 2, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, Y, 0, false},
        {24, 2, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, Y, 0, false},
        {20, 16, 16, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, Y, phase, false},
        {2, 1, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_QUOTA, 0, 0, false},    /* a 1-CPU quota, 2 CPUs */
        {8, 2, 16, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_QUOTA, 0, 0, false},   /* a 2-CPU quota, 16 CPUs */
        {3, 1, 2, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, Y, phase, false},
        {2, 1, 0, MUSTER_WAIT_HYBRID, MUSTER_SPIN_NS_OVERSUBSCRIBED, Y, phase, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const budget_case *c = &cases[i];
        muster_default_budget b = muster_default_budget_for(c->participants, c->available, c->mask, c->policy);
        CHECK(b.spin_ns == c->spin_ns && b.yields == c->yields && b.yield_ns == c->yield_ns &&
                  b.adaptive == c->adaptive,
              "%u participants, %u available of %u: spin %lld yields %u for %llu ns adaptive %d, "
              "expected %lld %u %llu %d",
              c->participants, c->available, c->mask, (long long)b.spin_ns, b.yields,
              (unsigned long long)b.yield_ns, b.adaptive, (long long)c->spin_ns, c->yields,
              (unsigned long long)c->yield_ns, c->adaptive);
    }
}

int main(int argc, char **argv)
{
    const wait_setting *s = wait_setting_from_args(argc, argv, "test_wait_policy");
    unsigned cpus, mask;
    wait_test_cpus(&cpus, &mask);
    check_team_waiter(s, cpus, mask);
    check_census_plan(cpus, mask);
    check_budgets_for_machines();
    printf("wait policy (%s, %u CPUs): ok\n", s->name, cpus);
    return 0;
}
