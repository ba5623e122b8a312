/* The wait layer on its own: the sleep handshake, deadlines, BROKEN, EINTR,
 * episode arithmetic, the oversubscription rule for the spin budget, and
 * the CPU census (CPU sharing when oversubscribed, the co-location guard). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "stress_common.h"
#include "platform/cpus.h"
#include "platform/platform.h" /* muster_now_ns */
#include "wait/census.h"
#include "wait/policy.h"
#include "wait/load.h"
#include "wait/wait.h"
#include "barrier/internal.h" /* muster_team_waiter, the barrier struct */

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

/* A working waiter whose work source bounds its naps (nap_ns) finds work
 * added with no wake-up at all, and still returns when the flag is
 * published; without nap_ns it would sleep through the work. */
typedef struct nap_work {
    atomic_int available, done_by_waiter;
} nap_work;

static bool run_nap_work(void *arg)
{
    nap_work *w = arg;
    if (!atomic_exchange(&w->available, 0))
        return false;
    atomic_fetch_add(&w->done_by_waiter, 1);
    return true;
}

static void test_working_wait_naps(void)
{
    muster_flag flag = 3;
    nap_work w = {0};
    _Atomic uint32_t sleepers = 0;
    muster_wait_work work = {.run = run_nap_work, .arg = &w, .sleepers = &sleepers, .nap_ns = 2000000};
    sleeper s = {.flag = &flag, .target = 4, .waiter = passive(0)};
    s.waiter.work = &work;
    pthread_t thread;
    pthread_create(&thread, NULL, sleeper_main, &s);
    until_announced(&flag);
    muster_wait_counts before = muster_wait_counters();
    atomic_store(&w.available, 1); /* no nudge, no wake */
    for (int i = 0; i < 2000 && atomic_load(&w.done_by_waiter) == 0; i++)
        usleep(1000);
    CHECK(atomic_load(&w.done_by_waiter) == 1, "a napping waiter did not find work added without a wake-up");
    CHECK(muster_wait_counters().wakes == before.wakes, "nobody woke the waiter: it woke on its own");
    CHECK(!atomic_load(&s.done), "the waiter returned before the publish");
    muster_flag_publish(&flag, 4, true);
    pthread_join(thread, NULL);
    CHECK(atomic_load(&s.result) == 0, "the working wait returned %d", atomic_load(&s.result));
}

/* nudge_some wakes at most the number asked for and leaves the flag as it
 * was; the publish still wakes every sleeper. */
static void test_nudge_some(void)
{
    muster_flag flag = 5;
    CHECK(muster_flag_nudge_some(&flag, 1) == 0, "a nudge with nobody asleep woke someone");
    sleeper a = {.flag = &flag, .target = 6, .waiter = passive(0)};
    sleeper b = a;
    pthread_t ta, tb;
    pthread_create(&ta, NULL, sleeper_main, &a);
    pthread_create(&tb, NULL, sleeper_main, &b);
    until_announced(&flag);
    int woken = 0;
    for (int i = 0; i < 2000 && woken == 0; i++) {
        usleep(1000);
        woken = muster_flag_nudge_some(&flag, 1);
    }
    CHECK(woken == 1, "nudge_some(1) woke %d sleepers", woken);
    CHECK((atomic_load(&flag) & ~MUSTER_FLAG_SLEEPING) == 5, "the nudge changed the flag's value");
    usleep(5000);
    CHECK(!atomic_load(&a.done) && !atomic_load(&b.done), "a nudged waiter returned before the publish");
    muster_flag_publish(&flag, 6, true);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(atomic_load(&a.result) == 0 && atomic_load(&b.result) == 0, "waits returned %d and %d",
          atomic_load(&a.result), atomic_load(&b.result));
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

/* The default hybrid budget adapts per thread (MUSTER_SPIN_ADAPT_*,
 * policy.h): a sleep that ended soon quadruples it, up to the cap; one that
 * lasted longer than MUSTER_SPIN_ADAPT_LONG_SLEEP_NS halves it; the adapted
 * budget is the one spun; an explicit budget never changes. */
#define ADAPT_EPISODES 4
typedef struct adaptive_waits {
    muster_flag flag;
    muster_waiter waiter;
    unsigned doublings[ADAPT_EPISODES]; /* the waiting thread's, after each wait */
    _Atomic uint64_t started_ns;       /* when the current wait began */
} adaptive_waits;

static void *adaptive_waiter_main(void *arg)
{
    adaptive_waits *a = arg;
    for (uint32_t e = 1; e <= ADAPT_EPISODES; e++) {
        atomic_store(&a->started_ns, muster_now_ns());
        CHECK(muster_wait_reach(&a->flag, e, &a->waiter) == 0, "adaptive wait %u", e);
        a->doublings[e - 1] = muster_wait_spin_doublings();
    }
    return NULL;
}

/* Publishes episode e once the waiter has announced its sleep, hold_us
 * later; returns how long the waiter had been waiting when it announced. */
static uint64_t release_when_asleep(adaptive_waits *a, uint32_t e, unsigned hold_us)
{
    for (int i = 0; i < 250000 && !(atomic_load(&a->flag) & MUSTER_FLAG_SLEEPING); i++)
        usleep(20);
    CHECK(atomic_load(&a->flag) & MUSTER_FLAG_SLEEPING, "the adaptive waiter never slept in episode %u", e);
    uint64_t waited = muster_now_ns() - atomic_load(&a->started_ns);
    if (hold_us > 0)
        usleep(hold_us);
    muster_flag_publish(&a->flag, e, true);
    return waited;
}

/* One waiting thread through ADAPT_EPISODES waits, each released hold_us
 * after it began to sleep; waited[e]: how long wait e spun, at least. */
static void run_adaptive_waits(adaptive_waits *a, const unsigned hold_us[ADAPT_EPISODES],
                               uint64_t waited[ADAPT_EPISODES])
{
    pthread_t thread;
    atomic_store(&a->flag, 0);
    CHECK(pthread_create(&thread, NULL, adaptive_waiter_main, a) == 0, "adaptive waiter thread");
    for (uint32_t e = 1; e <= ADAPT_EPISODES; e++)
        waited[e - 1] = release_when_asleep(a, e, hold_us[e - 1]);
    pthread_join(thread, NULL);
}

static bool no_work(void *arg)
{
    (void)arg;
    return false;
}

/* With work NULL the plain wait, else the working wait (wait.c has both). */
static void check_adaptive_spin_budget(const muster_wait_work *work)
{
    static const unsigned soon[ADAPT_EPISODES] = {0, 0, 0, 0};
    static const unsigned soon_then_late[ADAPT_EPISODES] = {0, 0, 0, 20000};
    uint64_t waited[ADAPT_EPISODES];
    adaptive_waits a = {.waiter = muster_team_waiter(1, MUSTER_WAIT_HYBRID, 200000, NULL)};
    a.waiter.work = work;
    CHECK(!a.waiter.adaptive, "an explicit budget is not adaptive");
    run_adaptive_waits(&a, soon, waited);
    for (int e = 0; e < ADAPT_EPISODES; e++)
        CHECK(a.doublings[e] == 0, "an explicit budget doubled %u times", a.doublings[e]);

    a.waiter = muster_team_waiter(1, MUSTER_WAIT_HYBRID, -1, NULL);
    a.waiter.work = work;
    CHECK(a.waiter.adaptive, "the default budget adapts");
    /* The adaptation alone: on a busy machine the load watch would stop it
     * (test_wait_load checks that). */
    a.waiter.watch_load = false;
    /* A loaded machine may make a sleep "long" by accident: a few tries. */
    bool learnt = false;
    for (int attempt = 0; attempt < 5 && !learnt; attempt++) {
        run_adaptive_waits(&a, soon_then_late, waited);
        learnt = a.doublings[0] == 2 && a.doublings[1] == MUSTER_SPIN_ADAPT_MAX_DOUBLINGS &&
                 a.doublings[2] == MUSTER_SPIN_ADAPT_MAX_DOUBLINGS;
    }
    CHECK(learnt, "short sleeps left the budget doubled %u, %u, %u times (%s wait)", a.doublings[0],
          a.doublings[1], a.doublings[2], work != NULL ? "working" : "plain");
    CHECK(a.doublings[3] == MUSTER_SPIN_ADAPT_MAX_DOUBLINGS - 1, "a 20 ms sleep left %u doublings, not %u",
          a.doublings[3], MUSTER_SPIN_ADAPT_MAX_DOUBLINGS - 1);
    /* Wait 3 began with the full budget: it spun that long before it slept
     * (a quarter, against a calibration that may overrate a poll). */
    uint64_t full_ns = (uint64_t)MUSTER_SPIN_NS_DEFAULT << MUSTER_SPIN_ADAPT_MAX_DOUBLINGS;
    CHECK(waited[2] >= full_ns / 4, "with the budget at %llu ns the %s wait slept after %llu ns",
          (unsigned long long)full_ns, work != NULL ? "working" : "plain", (unsigned long long)waited[2]);
}

static void test_adaptive_spin_budget(void)
{
    check_adaptive_spin_budget(NULL);
    _Atomic uint32_t sleepers = 0;
    muster_wait_work work = {.run = no_work, .sleepers = &sleepers};
    check_adaptive_spin_budget(&work);
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
    /* Yields this process made earlier on a loaded machine may have made
     * yields costly (wait/load.h), which stops them: not what is tested. */
    muster_load_reset();
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

/* Barriers yield only when they outnumber the CPUs of the affinity mask
 * and the budget is the default one: a team's waits then make yields, and
 * otherwise none (a cgroup quota short of the mask gives a short spin
 * instead, test_wait_policy). */
static void test_oversubscribed_barriers_yield(void)
{
    unsigned cpus = muster_cpus_available(), mask = muster_affinity_cpus(NULL, 0);
    muster_waiter w = muster_team_waiter((mask > cpus ? mask : cpus) + 1, MUSTER_WAIT_DEFAULT, -1, NULL);
    CHECK(w.policy == MUSTER_WAIT_HYBRID && w.yields == MUSTER_YIELDS_OVERSUBSCRIBED && w.spin_iterations == 0);
    CHECK(muster_team_waiter(cpus, MUSTER_WAIT_DEFAULT, -1, NULL).yields == 0);
    CHECK(muster_team_waiter(cpus + 1, MUSTER_WAIT_HYBRID, 0, NULL).yields == 0, "explicit budget yielded");
    CHECK(muster_team_waiter(cpus + 1, MUSTER_WAIT_PASSIVE, -1, NULL).policy == MUSTER_WAIT_PASSIVE);
}

/* Pins the calling thread to one CPU. */
static void pin_self_to(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

/* The process's mask is what counts, not the creating thread's pinning. */
static void *pinned_create(void *arg)
{
    pin_self_to(0);
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

/* ---- the CPU census ---- */

static bool needed(const muster_census *c, unsigned self, int cpu)
{
    return muster_census_cpu_needed(c, self, cpu);
}

/* Who still needs a CPU: participants behind the asking one, on that CPU,
 * and a participant that owes the release; nobody before anyone arrived
 * or after a reset. */
static void test_census_rules(void)
{
    muster_census *c = muster_census_create(4);
    CHECK(c != NULL, "census of 4");
    CHECK(!needed(c, 0, 0) && !needed(c, 0, 1), "nobody has arrived: no CPU is known to be needed");
    /* Episode 1: participants 0 and 1 on CPU 0, 2 and 3 on CPU 1. */
    muster_census_arrive_on(c, 0, 0, false);
    muster_census_arrive_on(c, 1, 0, false);
    muster_census_arrive_on(c, 2, 1, false);
    muster_census_arrive_on(c, 3, 1, false);
    CHECK(!needed(c, 0, 0) && !needed(c, 1, 0) && !needed(c, 2, 1), "everybody arrived");
    /* Episode 2: participant 0 arrives first. */
    muster_census_arrive_on(c, 0, 0, false);
    CHECK(needed(c, 0, 0), "participant 1, on CPU 0, has still to arrive");
    CHECK(needed(c, 0, 1), "so have 2 and 3, on CPU 1");
    CHECK(!needed(c, 0, 5), "nobody runs on CPU 5");
    CHECK(!needed(c, 1, 0), "participant 1 does not wait for the episode it has not reached");
    muster_census_arrive_on(c, 1, 0, false);
    CHECK(!needed(c, 0, 0) && !needed(c, 1, 0), "CPU 0's participants have both arrived");
    CHECK(needed(c, 1, 1), "CPU 1's have not");
    muster_census_arrive_on(c, 2, -1, false); /* from a CPU it could not tell */
    muster_census_arrive_on(c, 3, 1, false);
    /* Episode 3: participant 0 gathers (owes the release), 1 arrives after it. */
    muster_census_arrive_on(c, 0, 0, true);
    muster_census_arrive_on(c, 1, 0, false);
    CHECK(needed(c, 1, 0), "participant 0 must still run to release the others");
    CHECK(!needed(c, 0, 0), "a participant never waits for itself");
    CHECK(needed(c, 1, 1), "participant 3, on CPU 1, has still to arrive");
    muster_census_arrive_on(c, 3, 1, false);
    CHECK(!needed(c, 1, 1), "participant 2 is behind, but on no CPU anyone knows");
    muster_census_reset(c);
    CHECK(!needed(c, 0, 0) && !needed(c, 1, 0) && !needed(c, 0, 1), "a reset census knows nobody");
    muster_census_destroy(c);
}

typedef struct late_publisher {
    muster_flag *flag;
    uint32_t value;
    unsigned delay_us;
    bool after_a_yield;      /* publish once the yield count passes yields_before */
    uint64_t yields_before;
} late_publisher;

/* How long a publisher that waits for a yield waits at most: a waiter that
 * never yields is then released, and its check fails. */
#define YIELD_WAIT_LIMIT_NS 5000000000ull

static void *publish_later(void *arg)
{
    late_publisher *p = arg;
    if (p->after_a_yield) {
        /* A delay alone is not enough: a waiter preempted for longer than
         * the delay finds the flag published and never yields. */
        uint64_t give_up = muster_now_ns() + YIELD_WAIT_LIMIT_NS;
        while (muster_wait_counters().yields == p->yields_before && muster_now_ns() < give_up)
            usleep(100);
    }
    usleep(p->delay_us);
    muster_flag_publish(p->flag, p->value, true);
    return NULL;
}

/* Waits for a flag that another thread publishes after delay_us, or, with
 * after_a_yield, delay_us after the wait's first yield; returns the wait's
 * result and the yields and sleeps it made. */
static int publisher_wait(const muster_waiter *w, unsigned delay_us, bool after_a_yield, bool yields_costly,
                          uint64_t *yields, uint64_t *sleeps)
{
    muster_flag flag = 0;
    /* Each wait starts with yields cheap: an earlier one's yields, slow
     * under an emulator, may have made them costly (wait/load.h), and
     * then no wait yields. */
    muster_load_reset();
    for (int piece = 0; yields_costly && piece < 3; piece++) /* the rule needs three (wait/load.c) */
        muster_load_note_costly(muster_now_ns());
    CHECK(muster_load_yields_costly() == yields_costly, "yields costly: %d", yields_costly);
    muster_wait_counts before = muster_wait_counters();
    late_publisher p = {&flag, 1, delay_us, after_a_yield, before.yields};
    pthread_t thread;
    if (delay_us > 0)
        pthread_create(&thread, NULL, publish_later, &p);
    int rc = muster_wait_reach(&flag, 1, w);
    if (delay_us > 0)
        pthread_join(thread, NULL);
    muster_wait_counts after = muster_wait_counters();
    *yields = after.yields - before.yields;
    *sleeps = after.sleeps - before.sleeps;
    return rc;
}

static int census_wait(const muster_waiter *w, unsigned delay_us, uint64_t *yields, uint64_t *sleeps)
{
    return publisher_wait(w, delay_us, false, false, yields, sleeps);
}

/* A wait expected to yield: released delay_us after its first yield, or
 * after YIELD_WAIT_LIMIT_NS without one. */
static int census_wait_to_yield(const muster_waiter *w, unsigned delay_us, uint64_t *yields, uint64_t *sleeps)
{
    return publisher_wait(w, delay_us, true, false, yields, sleeps);
}

/* census_wait with yields made costly (wait/load.h) as the wait begins. */
static int costly_wait(const muster_waiter *w, unsigned delay_us, uint64_t *yields, uint64_t *sleeps)
{
    return publisher_wait(w, delay_us, false, true, yields, sleeps);
}

/* An oversubscribed waiter with a yield phase (yield_ns) keeps yielding,
 * not sleeping, while the flag comes within the phase; past it, or while
 * yields are costly, it sleeps.  With work NULL the plain wait, else the
 * working wait.  The first two waits do not watch their yields: on a
 * loaded machine long yields could make them costly and end the phase. */
static void check_yield_phase(const muster_wait_work *work)
{
    const char *kind = work != NULL ? "working" : "plain";
    muster_waiter w = {.policy = MUSTER_WAIT_HYBRID, .yields = 4, .yield_ns = 10000000000ull, .work = work};
    uint64_t yields, sleeps;
    CHECK(census_wait(&w, 30000, &yields, &sleeps) == 0, "released");
    CHECK(sleeps == 0 && yields > w.yields, "%s wait, flag within the yield phase: %llu yields, %llu sleeps", kind,
          (unsigned long long)yields, (unsigned long long)sleeps);

    w.yield_ns = 1000000;
    CHECK(census_wait(&w, 100000, &yields, &sleeps) == 0, "released");
    CHECK(sleeps >= 1, "%s wait: after a 1 ms yield phase no sleep in 100 ms", kind);

    w.yield_ns = 10000000000ull;
    w.watch_yields = true;
    CHECK(costly_wait(&w, 30000, &yields, &sleeps) == 0, "released");
    CHECK(sleeps >= 1, "%s wait: a yield phase while yields are costly (%llu yields, no sleep)", kind,
          (unsigned long long)yields);
    muster_load_reset();
}

static void test_yield_phase(void)
{
    check_yield_phase(NULL);
    _Atomic uint32_t sleepers = 0;
    muster_wait_work work = {.run = no_work, .sleepers = &sleepers};
    check_yield_phase(&work);
}

/* Pins the calling thread to the first CPU of the affinity mask; false
 * (and the thread left as it was) when the system cannot say which CPU a
 * thread runs on. */
static bool pin_to_first_cpu(int *cpu, cpu_set_t *saved)
{
    CHECK(muster_affinity_cpus(cpu, 1) >= 1, "the affinity mask");
    pthread_getaffinity_np(pthread_self(), sizeof *saved, saved);
    pin_self_to(*cpu);
    if (muster_current_cpu() == *cpu)
        return true;
    pthread_setaffinity_np(pthread_self(), sizeof *saved, saved);
    return false;
}

/* pin_to_first_cpu, or the line that says test is skipped and why. */
static bool pinned_or_skipped(const char *test, int *cpu, cpu_set_t *saved)
{
    if (pin_to_first_cpu(cpu, saved))
        return true;
    printf("%s: skipped, this system does not report the current CPU\n", test);
    return false;
}

/* With a census, an oversubscribed hybrid waiter yields only while a
 * participant on its CPU has still to arrive; once all have, it keeps the
 * CPU and polls, for up to share_ns, then sleeps. */
static void test_census_waits(void)
{
    int cpu;
    cpu_set_t saved;
    if (!pinned_or_skipped("census waits", &cpu, &saved))
        return;
    muster_census *c = muster_census_create(2);
    CHECK(c != NULL, "census of 2");
    muster_waiter w = {.policy = MUSTER_WAIT_HYBRID, .yields = 4, .census = c, .census_id = 0,
                       .share_ns = 10000000000ull};
    uint64_t yields, sleeps;

    muster_census_arrive_on(c, 0, cpu, false);
    muster_census_arrive_on(c, 1, cpu, false);
    CHECK(census_wait(&w, 20000, &yields, &sleeps) == 0, "released");
    CHECK(yields == 0 && sleeps == 0, "all arrived on our CPU: %llu yields, %llu sleeps, expected none",
          (unsigned long long)yields, (unsigned long long)sleeps);

    muster_census_arrive_on(c, 0, cpu, false); /* participant 1 is now behind, on our CPU */
    CHECK(census_wait_to_yield(&w, 20000, &yields, &sleeps) == 0, "released");
    CHECK(yields > 0 && sleeps == 0, "a CPU-mate still to arrive: %llu yields, %llu sleeps",
          (unsigned long long)yields, (unsigned long long)sleeps);

    muster_census_arrive_on(c, 1, cpu, true); /* arrived, but owes the release */
    CHECK(census_wait_to_yield(&w, 20000, &yields, &sleeps) == 0, "released");
    CHECK(yields > 0, "a CPU-mate that owes the release got no yield");

    muster_census_arrive_on(c, 0, cpu, false);
    muster_census_arrive_on(c, 1, cpu + 1, false); /* elsewhere: nobody needs our CPU */
    w.share_ns = 1000000;
    CHECK(census_wait(&w, 100000, &yields, &sleeps) == 0, "released");
    CHECK(yields == 0 && sleeps >= 1, "after share_ns a waiter sleeps: %llu yields, %llu sleeps",
          (unsigned long long)yields, (unsigned long long)sleeps);

    w.share_ns = 10000000000ull;
    uint64_t start = muster_now_ns();
    w.deadline_ns = start + 20000000;
    CHECK(census_wait(&w, 0, &yields, &sleeps) == MUSTER_E_TIMEDOUT, "a deadline ends a census wait");
    CHECK(muster_now_ns() - start < 2000000000ull, "and promptly");
    muster_census_destroy(c);
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
}

/* ---- the co-location guard ---- */

/* The occupancy counts follow each participant's latest CPU, whether it was
 * noted by an arrival or by a waiter; unknown CPUs count nowhere. */
static void test_census_occupancy(void)
{
    muster_census *c = muster_census_create(3);
    CHECK(c != NULL, "census of 3");
    CHECK(!muster_census_colocated(c, 0), "nobody noted yet");
    muster_census_note_cpu(c, 0, 0);
    CHECK(!muster_census_colocated(c, 0), "one participant on CPU 0 is alone");
    muster_census_note_cpu(c, 1, 0);
    CHECK(muster_census_colocated(c, 0), "two participants on CPU 0");
    muster_census_note_cpu(c, 1, 0);
    CHECK(muster_census_colocated(c, 0), "noting the same CPU again changes nothing");
    muster_census_note_cpu(c, 1, 1);
    CHECK(!muster_census_colocated(c, 0) && !muster_census_colocated(c, 1), "participant 1 moved to CPU 1");
    muster_census_arrive_on(c, 2, 1, false);
    CHECK(muster_census_colocated(c, 1), "an arrival notes the CPU too");
    muster_census_note_cpu(c, 2, -1);
    CHECK(!muster_census_colocated(c, 1), "a participant on an unknown CPU counts nowhere");
    muster_census_note_cpu(c, 2, 1 << 20);
    CHECK(!muster_census_colocated(c, 1 << 20), "nor on a CPU beyond the table");
    muster_census_note_cpu(c, 2, 1);
    CHECK(muster_census_colocated(c, 1), "back on CPU 1");
    /* A noted CPU keeps the arrival count and the owes-release mark. */
    muster_census_arrive_on(c, 0, 0, true);
    muster_census_note_cpu(c, 0, 1);
    CHECK(muster_census_cpu_needed(c, 1, 1), "participant 0 still owes the release after a move");
    muster_census_reset(c);
    CHECK(!muster_census_colocated(c, 0) && !muster_census_colocated(c, 1), "a reset census knows nobody");
    muster_census_destroy(c);
}

/* A spinning waiter whose census shows a team-mate on its own CPU yields
 * instead of spinning (ACTIVE and HYBRID alike); one whose mates are
 * elsewhere spins and never yields. */
static void test_guard_waits(void)
{
    int cpu;
    cpu_set_t saved;
    if (!pinned_or_skipped("guard waits", &cpu, &saved))
        return;
    muster_census *c = muster_census_create(2);
    CHECK(c != NULL, "census of 2");
    muster_waiter w = {.policy = MUSTER_WAIT_HYBRID, .spin_iterations = muster_spin_iterations(200000),
                       .census = c, .census_id = 0};
    uint64_t yields, sleeps;

    muster_census_note_cpu(c, 1, cpu + 1); /* the mate runs elsewhere */
    CHECK(census_wait(&w, 2000, &yields, &sleeps) == 0, "released");
    CHECK(yields == 0, "no mate on our CPU, yet %llu yields", (unsigned long long)yields);

    muster_census_note_cpu(c, 1, cpu); /* the mate shares our CPU */
    CHECK(census_wait_to_yield(&w, 2000, &yields, &sleeps) == 0, "released");
    CHECK(yields > 0, "a mate on our CPU and no yield");

    w.policy = MUSTER_WAIT_ACTIVE;
    CHECK(census_wait_to_yield(&w, 20000, &yields, &sleeps) == 0, "released");
    CHECK(yields > 0 && sleeps == 0, "ACTIVE with a mate on our CPU: %llu yields, %llu sleeps",
          (unsigned long long)yields, (unsigned long long)sleeps);

    w.policy = MUSTER_WAIT_HYBRID;
    uint64_t start = muster_now_ns();
    w.deadline_ns = start + 20000000;
    CHECK(census_wait(&w, 0, &yields, &sleeps) == MUSTER_E_TIMEDOUT, "a deadline ends a guarded wait");
    CHECK(muster_now_ns() - start < 2000000000ull, "and promptly");
    muster_census_destroy(c);
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
}

typedef struct colocated_team {
    muster_barrier *barrier;
    int cpu;
    unsigned episodes;
    _Atomic unsigned arrived;
    _Atomic int early_leaver;
} colocated_team;

static void *colocated_member(void *arg)
{
    colocated_team *t = arg;
    pin_self_to(t->cpu);
    unsigned seed = (unsigned)t->cpu * 7919u + 1u;
    for (unsigned e = 0; e < t->episodes; e++) {
        for (unsigned k = rand_r(&seed) % 500; k > 0; k--)
            muster_cpu_relax();
        atomic_fetch_add(&t->arrived, 1);
        CHECK(muster_barrier_wait(t->barrier, 1) >= 0, "member's wait");
        if (atomic_load(&t->arrived) < 2 * (e + 1))
            atomic_store(&t->early_leaver, 1);
        CHECK(muster_barrier_wait(t->barrier, 1) >= 0, "member's second wait");
    }
    return NULL;
}

/* Issue #10: two members of a barrier that fit the CPUs, but that the
 * scheduler put on one CPU, must not spin the whole budget at every
 * episode (each then costs 200 us and a sleep).  Both are pinned to one
 * CPU of a mask of two or more, with the default policy: the waits yield
 * to each other instead, and almost never sleep. */
static void test_colocated_barrier_yields(void)
{
    if (muster_cpus_available() < 2) {
        printf("co-located barrier: skipped, fewer than 2 CPUs (the team would be oversubscribed)\n");
        return;
    }
    int cpu;
    cpu_set_t saved;
    if (!pinned_or_skipped("co-located barrier", &cpu, &saved))
        return;
    colocated_team t = {.cpu = cpu, .episodes = 300};
    CHECK(muster_barrier_create(&t.barrier, 2, NULL) == MUSTER_OK, "barrier of 2");
    muster_barrier_attr attr;
    muster_barrier_get_attr(t.barrier, &attr);
    CHECK(attr.wait_policy == MUSTER_WAIT_HYBRID && attr.spin_ns > 0, "the default: hybrid with a spin budget");
    muster_wait_counts before = muster_wait_counters();
    pthread_t member;
    pthread_create(&member, NULL, colocated_member, &t);
    unsigned seed = 12345u;
    for (unsigned e = 0; e < t.episodes; e++) {
        for (unsigned k = rand_r(&seed) % 500; k > 0; k--)
            muster_cpu_relax();
        atomic_fetch_add(&t.arrived, 1);
        CHECK(muster_barrier_wait(t.barrier, 0) >= 0, "primary's wait");
        if (atomic_load(&t.arrived) < 2 * (e + 1))
            atomic_store(&t.early_leaver, 1);
        CHECK(muster_barrier_wait(t.barrier, 0) >= 0, "primary's second wait");
    }
    pthread_join(member, NULL);
    muster_wait_counts after = muster_wait_counters();
    uint64_t waits = 2ull * 2 * t.episodes, sleeps = after.sleeps - before.sleeps;
    uint64_t yields = after.yields - before.yields;
    CHECK(!atomic_load(&t.early_leaver), "a member left a barrier before both arrived");
    CHECK(yields > 0, "co-located members never yielded to each other");
    CHECK(sleeps * 20 <= waits, "co-located members slept %llu times in %llu waits (at most 1 in 20 expected)",
          (unsigned long long)sleeps, (unsigned long long)waits);
    printf("co-located barrier: %llu waits, %llu yields, %llu sleeps\n", (unsigned long long)waits,
           (unsigned long long)yields, (unsigned long long)sleeps);
    muster_barrier_destroy(t.barrier);
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
}

static void *wait_as_participant_0(void *arg)
{
    CHECK(muster_barrier_wait(arg, 0) >= 0, "participant 0's wait");
    return NULL;
}

/* A participant that arrives last never waits, yet its mates must see
 * where it runs: the barrier notes its CPU on entry, not only in the slow
 * path.  Participant 0 waits first; participant 1, pinned, arrives last
 * (dissemination: its wait finds participant 0's flag already set). */
static void test_last_arriver_is_noted(void)
{
    int cpu;
    cpu_set_t saved;
    if (muster_cpus_available() < 2 || !pin_to_first_cpu(&cpu, &saved)) {
        printf("last arriver noted: skipped (fewer than 2 CPUs, or the current CPU is unknown)\n");
        return;
    }
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = MUSTER_ALG_DISSEMINATION;
    attr.wait_policy = MUSTER_WAIT_HYBRID;
    attr.spin_ns = 10000000000ll; /* participant 0 spins, and notes its CPU, all along */
    muster_barrier *b;
    CHECK(muster_barrier_create(&b, 2, &attr) == MUSTER_OK, "dissemination barrier of 2");
    CHECK(b->census != NULL, "a spinning barrier has a census");
    pthread_t first;
    pthread_create(&first, NULL, wait_as_participant_0, b);
    usleep(20000); /* participant 0 is waiting by now */
    CHECK(muster_barrier_wait(b, 1) >= 0, "participant 1's wait");
    pthread_join(first, NULL);
    muster_census_note_cpu(b->census, 0, cpu); /* put participant 0 beside 1 */
    CHECK(muster_census_colocated(b->census, cpu), "participant 1 arrived last on CPU %d, unnoted", cpu);
    muster_barrier_destroy(b);
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
}

/* The program's request (wait/policy.h: kmp_set_blocktime's, KMP_BLOCKTIME's):
 * a hybrid waiter whose team fits the CPUs spins that long instead of its
 * default budget (at most 3.2 ms adapted: it would have announced its sleep
 * long before 50 ms); withdrawn, the default again; a waiter whose team
 * outnumbers the CPUs sleeps as before, whatever was asked. */
static bool sleeps_within(unsigned participants, unsigned ms)
{
    muster_flag flag = 0;
    sleeper s = {.flag = &flag, .target = 1,
                 .waiter = muster_team_waiter(participants, MUSTER_WAIT_HYBRID, -1, NULL)};
    atomic_init(&s.result, -1);
    atomic_init(&s.done, 0);
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, sleeper_main, &s) == 0, "waiter thread");
    bool slept = false;
    for (unsigned i = 0; i < ms * 10 && !slept; i++) {
        slept = (atomic_load(&flag) & MUSTER_FLAG_SLEEPING) != 0;
        usleep(100);
    }
    muster_flag_publish(&flag, 1, true);
    pthread_join(thread, NULL);
    CHECK(atomic_load(&s.result) == 0, "the wait ended when published");
    return slept;
}

static void test_program_request(void)
{
    CHECK(muster_wait_requested_spin_ns() == -1, "no request at start");
    muster_wait_request_spin_ns(MUSTER_MAX_SPIN_NS);
    CHECK(muster_wait_requested_spin_ns() == MUSTER_MAX_SPIN_NS, "the request reads back");
    CHECK(!sleeps_within(1, 50), "a long request: the waiter still spins after 50 ms");
    unsigned crowd = muster_cpus_available() + 1;
    CHECK(sleeps_within(crowd, 5000), "a team of %u on %u CPUs sleeps whatever was asked", crowd,
          muster_cpus_available());
    muster_wait_request_spin_ns(-1);
    CHECK(muster_wait_requested_spin_ns() == -1 && muster_wait_requested_spin_iterations() == UINT64_MAX,
          "withdrawn");
    CHECK(sleeps_within(1, 5000), "without a request the default budget ends in a sleep");
    muster_wait_request_spin_ns(0);
    CHECK(muster_wait_requested_spin_iterations() == 0 && sleeps_within(1, 5000), "a request of 0: a sleep");
    muster_wait_request_spin_ns(-1);
}

int main(void)
{
    unsetenv("MUSTER_SPIN_NS");
    test_episode_arithmetic();
    test_publish_without_sleepers_makes_no_wake();
    test_sleeper_is_woken();
    test_working_wait_naps();
    test_nudge_some();
    test_eintr_does_not_end_a_wait();
    test_deadline(MUSTER_WAIT_ACTIVE);
    test_deadline(MUSTER_WAIT_PASSIVE);
    test_deadline(MUSTER_WAIT_HYBRID);
    test_break_wakes_sleeper();
    test_spin_budget();
    test_adaptive_spin_budget();
    test_oversubscription_shrinks_default_budget();
    test_yields_before_sleeping();
    test_oversubscribed_barriers_yield();
    test_census_rules();
    test_yield_phase();
    test_census_waits();
    test_census_occupancy();
    test_guard_waits();
    test_colocated_barrier_yields();
    test_last_arriver_is_noted();
    test_pinned_creator_sees_process_cpus();
    test_program_request();
    printf("wait layer ok\n");
    return 0;
}
