/* The wait layer on its own: the sleep handshake, deadlines, BROKEN, EINTR,
 * episode arithmetic and the oversubscription rule for the spin budget. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "stress_common.h"
#include "wait/wait.h"
#include "barrier/internal.h" /* muster_team_waiter */

typedef struct sleeper {
    muster_flag *flag;
    uint32_t target;
    muster_waiter waiter;
    _Atomic int result;
    _Atomic int done;
} sleeper;

static void *sleeper_main(void *arg)
{
    sleeper *s = arg;
    atomic_store(&s->result, muster_wait_reach(s->flag, s->target, &s->waiter));
    atomic_store(&s->done, 1);
    return NULL;
}

static muster_waiter passive(uint64_t deadline_ns)
{
    return (muster_waiter){.policy = MUSTER_WAIT_PASSIVE, .deadline_ns = deadline_ns};
}

/* Waits (bounded) until the sleeper has announced itself on the flag. */
static void until_announced(muster_flag *flag)
{
    for (int i = 0; i < 5000 && !(atomic_load(flag) & MUSTER_FLAG_SLEEPING); i++)
        usleep(1000);
    CHECK(atomic_load(flag) & MUSTER_FLAG_SLEEPING, "the sleeper never set SLEEPING");
}

static void test_episode_arithmetic(void)
{
    CHECK(muster_flag_reached(5, 5) && muster_flag_reached(6, 5) && !muster_flag_reached(4, 5), "reached");
    CHECK(muster_episode_next(MUSTER_FLAG_VALUE_MASK) == 0, "wraps to 0");
    CHECK(muster_flag_reached(0, MUSTER_FLAG_VALUE_MASK), "0 comes after the largest counter");
    CHECK(!muster_flag_reached(MUSTER_FLAG_VALUE_MASK, 0), "the largest counter is before 0");
    CHECK(!muster_flag_reached(MUSTER_FLAG_BROKEN | 3, 5), "BROKEN does not count as reached");
    CHECK(muster_flag_reached(MUSTER_FLAG_SLEEPING | 5, 5), "SLEEPING is not part of the counter");
}

static void test_publish_without_sleepers_makes_no_wake(void)
{
    muster_flag flag = 0;
    muster_wait_counts before = muster_wait_counters();
    for (uint32_t e = 1; e <= 1000; e++)
        muster_flag_publish(&flag, e, true);
    muster_wait_counts after = muster_wait_counters();
    CHECK(after.wakes == before.wakes, "publish made %llu wake calls with nobody asleep",
          (unsigned long long)(after.wakes - before.wakes));
    CHECK(atomic_load(&flag) == 1000, "flag holds %u", atomic_load(&flag));
    /* Already reached: the wait returns at once, no sleep. */
    muster_waiter w = passive(0);
    CHECK(muster_wait_reach(&flag, 999, &w) == 0, "reached wait");
    CHECK(muster_wait_counters().sleeps == before.sleeps, "a satisfied wait slept");
}

static void test_sleeper_is_woken(void)
{
    muster_flag flag = 7;
    sleeper s = {.flag = &flag, .target = 8, .waiter = passive(0)};
    pthread_t thread;
    muster_wait_counts before = muster_wait_counters();
    pthread_create(&thread, NULL, sleeper_main, &s);
    until_announced(&flag);
    CHECK(!atomic_load(&s.done), "returned before the publish");
    muster_flag_publish(&flag, 8, true);
    pthread_join(thread, NULL);
    CHECK(atomic_load(&s.result) == 0, "woken wait returned %d", atomic_load(&s.result));
    CHECK(muster_wait_counters().wakes == before.wakes + 1, "one wake expected");
    CHECK(atomic_load(&flag) == 8, "publish must clear SLEEPING");
}

static void on_signal(int signo) { (void)signo; }

static void test_eintr_does_not_end_a_wait(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal; /* no SA_RESTART: futex returns EINTR */
    sigaction(SIGUSR1, &action, NULL);
    muster_flag flag = 0;
    sleeper s = {.flag = &flag, .target = 1, .waiter = passive(0)};
    pthread_t thread;
    pthread_create(&thread, NULL, sleeper_main, &s);
    until_announced(&flag);
    for (int i = 0; i < 20; i++) {
        pthread_kill(thread, SIGUSR1);
        usleep(1000);
    }
    CHECK(!atomic_load(&s.done), "a signal ended the wait (result %d)", atomic_load(&s.result));
    muster_flag_publish(&flag, 1, true);
    pthread_join(thread, NULL);
    CHECK(atomic_load(&s.result) == 0, "after signals the wait returned %d", atomic_load(&s.result));
}

static void test_deadline(muster_wait_policy policy)
{
    muster_flag flag = 0;
    muster_waiter w = {.policy = policy, .spin_iterations = muster_spin_iterations(10000)};
    uint64_t begin = test_now_ns();
    w.deadline_ns = begin + 50000000u;
    int rc = muster_wait_reach(&flag, 1, &w);
    uint64_t took = test_now_ns() - begin;
    CHECK(rc == MUSTER_E_TIMEDOUT, "%s: expected TIMEDOUT, got %d", muster_wait_policy_name(policy), rc);
    CHECK(took >= 50000000u, "%s: timed out early, after %llu ns", muster_wait_policy_name(policy),
          (unsigned long long)took);
    CHECK(took < 3000000000u, "%s: took %llu ns", muster_wait_policy_name(policy), (unsigned long long)took);
}

static void test_break_wakes_sleeper(void)
{
    muster_flag flag = 3;
    sleeper s = {.flag = &flag, .target = 4, .waiter = passive(0)};
    pthread_t thread;
    pthread_create(&thread, NULL, sleeper_main, &s);
    until_announced(&flag);
    muster_flag_break(&flag);
    pthread_join(thread, NULL);
    CHECK(atomic_load(&s.result) == MUSTER_E_BROKEN, "break: got %d", atomic_load(&s.result));
    /* An active spinner sees it too. */
    muster_waiter spin = {.policy = MUSTER_WAIT_ACTIVE};
    CHECK(muster_wait_reach(&flag, 4, &spin) == MUSTER_E_BROKEN, "active wait on a broken flag");
}

static void test_spin_budget(void)
{
    CHECK(muster_spin_iterations(0) == 0 && muster_spin_iterations(-5) == 0, "no budget, no polls");
    uint64_t small = muster_spin_iterations(1000), big = muster_spin_iterations(1000000);
    CHECK(small >= 1 && big > small, "budget polls: 1us -> %llu, 1ms -> %llu", (unsigned long long)small,
          (unsigned long long)big);
}

static void test_oversubscription_shrinks_default_budget(void)
{
    unsigned cpus = muster_cpus_available();
    muster_barrier *b;
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = MUSTER_ALG_CENTRAL_SENSE;
    CHECK(muster_barrier_create(&b, cpus * 4, &attr) == MUSTER_OK, "create");
    muster_barrier_get_attr(b, &attr);
    muster_barrier_destroy(b);
    CHECK(attr.spin_ns == MUSTER_SPIN_NS_OVERSUBSCRIBED, "oversubscribed budget %lld",
          (long long)attr.spin_ns);
    muster_barrier_attr_init(&attr);
    attr.algorithm = MUSTER_ALG_CENTRAL_SENSE;
    CHECK(muster_barrier_create(&b, cpus, &attr) == MUSTER_OK, "create");
    muster_barrier_get_attr(b, &attr);
    muster_barrier_destroy(b);
    CHECK(attr.spin_ns == MUSTER_SPIN_NS_DEFAULT, "budget %lld with one participant per CPU",
          (long long)attr.spin_ns);
}

/* Hybrid waits yield the CPU waiter.yields times before sleeping; active
 * and passive ones never do, nor does a wait already satisfied. */
static void test_yields_before_sleeping(void)
{
    muster_flag flag = 0;
    muster_waiter w = {.policy = MUSTER_WAIT_HYBRID, .yields = 3};
    uint64_t before = muster_wait_counters().yields;
    w.deadline_ns = muster_now_ns() + 2000000;
    CHECK(muster_wait_reach(&flag, 1, &w) == MUSTER_E_TIMEDOUT);
    CHECK(muster_wait_counters().yields == before + 3, "%llu yields, expected 3",
          (unsigned long long)(muster_wait_counters().yields - before));
    before = muster_wait_counters().yields;
    w.policy = MUSTER_WAIT_PASSIVE;
    w.deadline_ns = muster_now_ns() + 2000000;
    CHECK(muster_wait_reach(&flag, 1, &w) == MUSTER_E_TIMEDOUT);
    w.policy = MUSTER_WAIT_ACTIVE;
    w.deadline_ns = muster_now_ns() + 2000000;
    CHECK(muster_wait_reach(&flag, 1, &w) == MUSTER_E_TIMEDOUT);
    w.policy = MUSTER_WAIT_HYBRID;
    CHECK(muster_wait_reach(&flag, 0, &w) == 0);
    CHECK(muster_wait_counters().yields == before, "a passive, active or satisfied wait yielded");
}

/* Barriers yield only when they outnumber the CPUs and the budget is the
 * default one: a team's waits then make yields, and otherwise none. */
static void test_oversubscribed_barriers_yield(void)
{
    unsigned cpus = muster_cpus_available();
    muster_waiter w = muster_team_waiter(cpus + 1, MUSTER_WAIT_DEFAULT, -1, NULL);
    CHECK(w.policy == MUSTER_WAIT_HYBRID && w.yields == MUSTER_YIELDS_OVERSUBSCRIBED && w.spin_iterations == 0);
    CHECK(muster_team_waiter(cpus, MUSTER_WAIT_DEFAULT, -1, NULL).yields == 0);
    CHECK(muster_team_waiter(cpus + 1, MUSTER_WAIT_HYBRID, 0, NULL).yields == 0, "explicit budget yielded");
    CHECK(muster_team_waiter(cpus + 1, MUSTER_WAIT_PASSIVE, -1, NULL).policy == MUSTER_WAIT_PASSIVE);
}

/* The process's mask is what counts, not the creating thread's pinning. */
static void *pinned_create(void *arg)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    *(unsigned *)arg = muster_cpus_available();
    return NULL;
}

static void test_pinned_creator_sees_process_cpus(void)
{
    unsigned seen = 0, cpus = muster_cpus_available();
    pthread_t thread;
    pthread_create(&thread, NULL, pinned_create, &seen);
    pthread_join(thread, NULL);
    CHECK(seen == cpus, "a pinned thread sees %u CPUs, the process has %u", seen, cpus);
}

int main(void)
{
    unsetenv("MUSTER_SPIN_NS");
    test_episode_arithmetic();
    test_publish_without_sleepers_makes_no_wake();
    test_sleeper_is_woken();
    test_eintr_does_not_end_a_wait();
    test_deadline(MUSTER_WAIT_ACTIVE);
    test_deadline(MUSTER_WAIT_PASSIVE);
    test_deadline(MUSTER_WAIT_HYBRID);
    test_break_wakes_sleeper();
    test_spin_budget();
    test_oversubscription_shrinks_default_budget();
    test_yields_before_sleeping();
    test_oversubscribed_barriers_yield();
    test_pinned_creator_sees_process_cpus();
    printf("wait layer ok\n");
    return 0;
}
