/* libmuster-omp's waiting plans (src/omp/waiter.c), built on the wait
 * layer's policy: an OpenMP team's policy under each way the environment
 * can set it, the runtime mutex's plan and the task scheduler's, checked
 * for this machine (the team sizes are the CPUs available and more) and,
 * for the mutex, as pure functions of the CPUs of made-up machines.
 *
 * usage: test_omp_waiter unset|omp-active|omp-passive|muster-active|muster-passive */
#include "omp/waiter.h"
#include "platform/cpus.h"
#include "wait_setting.h"

/* OpenMP teams: explicit policies; OMP_WAIT_POLICY=active is a hint that an
 * oversubscribed team does not take, MUSTER_WAIT_POLICY=active an order. */
static void check_omp_team_policy(const wait_setting *s, unsigned cpus, unsigned mask)
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

/* The mutex plan as a pure function of the CPUs the process may use at
 * once and those of its mask: the quota case runs everywhere, whatever
 * this machine's cgroup says. */
static void check_mutex_plan_for_machines(void)
{
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
    const wait_setting *s = wait_setting_from_args(argc, argv, "test_omp_waiter");
    unsigned cpus, mask;
    wait_test_cpus(&cpus, &mask);
    check_omp_team_policy(s, cpus, mask);
    check_mutex_plan(cpus, mask);
    check_task_plan(cpus, mask);
    check_mutex_plan_for_machines();
    printf("OpenMP wait plans (%s, %u CPUs): ok\n", s->name, cpus);
    return 0;
}
