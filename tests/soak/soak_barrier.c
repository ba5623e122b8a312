/* soak_barrier: libmuster's barriers under random mixes, for a fixed time.
 *
 *   soak_barrier [--seconds S] [--seed N] [--max-team N] [--no-signals]
 *
 * Trial after trial until S seconds (default 30) have passed, each with a
 * random algorithm (every one, and auto), wait policy (default, active,
 * passive, hybrid with a random budget), team size (2 to 2x the CPUs + 1,
 * mostly not a power of two), episode count and kind:
 *   plain     every member waits every episode, with random delays
 *   split     participant 0 gathers, checks every member arrived, releases
 *             (the algorithms that offer it; else plain)
 *   phases    arrive, work, await (the algorithms that offer it; else plain)
 *   timeout   one member is late at one episode; the others wait with a
 *             deadline: the episode completes for all, or somebody timed
 *             out there and every member not yet through it (at that
 *             episode or, still being released, the one before) sees it
 *             broken; nobody sees it broken without a timeout
 *   abort     a thread breaks the barrier at a random moment: every member
 *             sees it broken within its next wait; reset; the barrier works
 * Meanwhile a signal storm (unless --no-signals) interrupts a member with
 * SIGUSR1 every ~100 us, each in turn, so futex waits return EINTR.
 *
 * Invariants checked as it goes: after an episode every member finds every
 * arrival of that episode counted; exactly one member per episode gets
 * MUSTER_BARRIER_SERIAL; the counts of episodes add up.  A watchdog that
 * sees no episode complete for 30 s prints the trial and every member's
 * stack, and aborts: a lost wake-up fails the run instead of hanging it.
 * Prints a progress line every 10 s and a summary at the end; exit 0 when
 * nothing was lost. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "muster/barrier.h"
#include "soak_common.h"

enum kind { PLAIN, SPLIT, PHASES, TIMEOUT, ABORT, KINDS };
static const char *const kind_names[KINDS] = {"plain", "split", "phases", "timeout", "abort"};
enum { MAX_TEAM = 64, MAX_EPISODES = 250000 };

/* How late members arrive, chosen per trial: not at all (the fastest
 * episodes, where wake-ups race arrivals), after short spins, or after
 * spins, yields and sleeps of up to 200 us (late arrivals, sleeping
 * waiters). */
enum delays { NO_DELAY, SPIN_DELAY, MIXED_DELAY, DELAY_KINDS };
static const char *const delay_names[DELAY_KINDS] = {"no delays", "short spins", "spins, yields and sleeps"};
static _Thread_local enum delays delay_kind;

static void random_delay(unsigned *s)
{
    if (delay_kind == NO_DELAY)
        return;
    unsigned r = next_random(s);
    if (delay_kind == MIXED_DELAY && r % 16 == 0)
        sched_yield();
    else if (delay_kind == MIXED_DELAY && r % 16 == 1)
        usleep(r % 200);
    else
        for (volatile unsigned i = 0; i < r % (delay_kind == MIXED_DELAY ? 2000u : 200u); i++)
            ;
}

/* Sleeps us microseconds however often a signal interrupts the sleep. */
static void sleep_full(unsigned us)
{
    struct timespec left = {0, (long)us * 1000};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
}

/* ---- one trial ---- */

typedef struct trial {
    muster_barrier *barrier;
    muster_barrier_attr attr;
    enum kind kind;
    unsigned size, episodes, seed;
    _Atomic unsigned limit;             /* episodes to run: cut short at the soak's end (cut_short) */
    enum delays delays;
    unsigned late_member, late_episode; /* timeout */
    _Atomic unsigned arrived[MAX_EPISODES];
    _Atomic unsigned serial[MAX_EPISODES];
    _Atomic int result_at_late[MAX_TEAM];  /* timeout: each member's return at late_episode */
    _Atomic unsigned broken_seen;          /* abort: members that saw it broken */
} trial;

/* Process-wide counts and what the watchdog and the storm need. */
static _Atomic uint64_t episodes_done, trials_done, kind_count[KINDS], timeouts_seen, aborts_seen, signals_sent;
static _Atomic uint64_t lost; /* invariant violations */
static pthread_t members[MAX_TEAM];
static unsigned member_count; /* members[0..member_count) are alive: under members_lock */
static pthread_mutex_t members_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool storm_on = true, finished;
static char trial_text[400];

static void fail(const trial *t, const char *what, unsigned member, unsigned episode, long value)
{
    atomic_fetch_add(&lost, 1);
    fprintf(stderr, "soak_barrier: LOST: %s (member %u, episode %u, value %ld) in %s\n", what, member, episode,
            value, trial_text);
    (void)t;
}

static bool is_success(int rc)
{
    return rc == 0 || rc == MUSTER_BARRIER_SERIAL;
}

/* After a completed episode e: every arrival is counted. */
static void check_episode(trial *t, unsigned id, unsigned e)
{
    unsigned seen = atomic_load(&t->arrived[e]);
    if (seen != t->size)
        fail(t, "left an episode before every member arrived", id, e, seen);
}

static uint64_t soak_end_ns;

/* Member 0, before arriving at episode e: past the soak's end, episode e
 * is the last.  Every member reads the limit after episode e-1, and again
 * after e, which the barrier orders after this write. */
static void cut_short(trial *t, unsigned id, unsigned e)
{
    if (id == 0 && (e & 63) == 0 && now_ns() > soak_end_ns)
        atomic_store(&t->limit, e + 1);
}

static void count_serial(trial *t, unsigned e, int rc)
{
    if (rc == MUSTER_BARRIER_SERIAL)
        atomic_fetch_add(&t->serial[e], 1);
}

static void run_plain(trial *t, unsigned id, unsigned *seed)
{
    for (unsigned e = 0; e < atomic_load(&t->limit); e++) {
        cut_short(t, id, e);
        random_delay(seed);
        atomic_fetch_add(&t->arrived[e], 1);
        int rc = muster_barrier_wait(t->barrier, id);
        if (!is_success(rc)) {
            fail(t, "a plain wait failed", id, e, rc);
            return;
        }
        count_serial(t, e, rc);
        check_episode(t, id, e);
        if (id == 0)
            atomic_fetch_add(&episodes_done, 1);
    }
}

static void run_split(trial *t, unsigned id, unsigned *seed)
{
    for (unsigned e = 0; e < atomic_load(&t->limit); e++) {
        cut_short(t, id, e);
        random_delay(seed);
        atomic_fetch_add(&t->arrived[e], 1);
        if (id == 0) {
            int rc = muster_barrier_gather(t->barrier);
            if (rc != 0) {
                fail(t, "gather failed", id, e, rc);
                return;
            }
            check_episode(t, id, e); /* all have arrived, none released */
            atomic_fetch_add(&t->serial[e], 1);
            atomic_fetch_add(&episodes_done, 1);
            if ((rc = muster_barrier_release(t->barrier)) != 0) {
                fail(t, "release failed", id, e, rc);
                return;
            }
        } else {
            int rc = muster_barrier_wait(t->barrier, id);
            if (rc != 0) { /* split episodes give participant 0 the serial part */
                fail(t, "a wait of a split episode did not return 0", id, e, rc);
                return;
            }
            check_episode(t, id, e);
        }
    }
}

static void run_phases(trial *t, unsigned id, unsigned *seed)
{
    for (unsigned e = 0; e < atomic_load(&t->limit); e++) {
        cut_short(t, id, e);
        random_delay(seed);
        atomic_fetch_add(&t->arrived[e], 1);
        muster_arrival token;
        int rc = muster_barrier_arrive(t->barrier, id, &token);
        if (!is_success(rc)) {
            fail(t, "arrive failed", id, e, rc);
            return;
        }
        count_serial(t, e, rc);
        random_delay(seed); /* the work between arrive and await */
        if ((rc = muster_barrier_await(t->barrier, id, token)) != 0) {
            fail(t, "await failed", id, e, rc);
            return;
        }
        check_episode(t, id, e);
        if (id == 0)
            atomic_fetch_add(&episodes_done, 1);
    }
}

/* Episodes before late_episode as plain; at it the late member sleeps 3 ms
 * and the others wait 1 ms at most; the trial ends there.  A timeout at
 * the late episode breaks the barrier for every wait not yet through, so a
 * member still being released from the episode before may see BROKEN
 * there: result_at_late is each member's last return, wherever it was. */
static void run_timeout(trial *t, unsigned id, unsigned *seed)
{
    for (unsigned e = 0; e < t->late_episode; e++) {
        random_delay(seed);
        atomic_fetch_add(&t->arrived[e], 1);
        int rc = muster_barrier_wait(t->barrier, id);
        if (rc == MUSTER_E_BROKEN && e + 1 == t->late_episode) {
            atomic_store(&t->result_at_late[id], rc);
            return;
        }
        if (!is_success(rc)) {
            fail(t, "a wait before the late episode failed", id, e, rc);
            return;
        }
        count_serial(t, e, rc);
        check_episode(t, id, e);
        if (id == 0)
            atomic_fetch_add(&episodes_done, 1);
    }
    unsigned e = t->late_episode;
    if (id == t->late_member)
        sleep_full(3000);
    atomic_fetch_add(&t->arrived[e], 1);
    int rc = id == t->late_member ? muster_barrier_wait(t->barrier, id)
                                  : muster_barrier_wait_timeout(t->barrier, id, 1000000u);
    count_serial(t, e, rc);
    atomic_store(&t->result_at_late[id], rc);
}

/* Waits until broken (the abort comes within 3 ms); a member that passes
 * an episode before it goes on to the next. */
static void run_abort(trial *t, unsigned id, unsigned *seed)
{
    for (unsigned e = 0;; e++) {
        random_delay(seed);
        int rc = muster_barrier_wait(t->barrier, id);
        if (rc == MUSTER_E_BROKEN) {
            atomic_fetch_add(&t->broken_seen, 1);
            return;
        }
        if (!is_success(rc)) {
            fail(t, "a wait of an abort trial failed otherwise", id, e, rc);
            return;
        }
        if (id == 0)
            atomic_fetch_add(&episodes_done, 1);
    }
}

typedef struct member_arg {
    trial *t;
    unsigned id;
} member_arg;

static void *member_main(void *arg)
{
    member_arg *m = arg;
    trial *t = m->t;
    unsigned seed = t->seed * 2654435761u + m->id * 40503u + 1u;
    delay_kind = t->delays;
    switch (t->kind) {
    case PLAIN: run_plain(t, m->id, &seed); break;
    case SPLIT: run_split(t, m->id, &seed); break;
    case PHASES: run_phases(t, m->id, &seed); break;
    case TIMEOUT: run_timeout(t, m->id, &seed); break;
    case ABORT: run_abort(t, m->id, &seed); break;
    default: break;
    }
    return NULL;
}

/* ---- choosing a trial ---- */

static bool power_of_two(unsigned n)
{
    return (n & (n - 1)) == 0;
}

static void choose(trial *t, unsigned *seed, unsigned max_team)
{
    unsigned top = 2 * online_cpus() + 1;
    if (top < 9)
        top = 9;
    if (top > max_team)
        top = max_team;
    do
        t->size = 2 + next_random(seed) % (top - 1);
    while (power_of_two(t->size) && next_random(seed) % 4 != 0);
    muster_barrier_attr_init(&t->attr);
    t->attr.algorithm = (muster_algorithm)(next_random(seed) % MUSTER_ALG_COUNT);
    static const muster_wait_policy policies[] = {MUSTER_WAIT_DEFAULT, MUSTER_WAIT_ACTIVE, MUSTER_WAIT_PASSIVE,
                                                  MUSTER_WAIT_HYBRID};
    t->attr.wait_policy = policies[next_random(seed) % 4];
    if (t->attr.wait_policy == MUSTER_WAIT_ACTIVE && t->size > online_cpus())
        t->attr.wait_policy = MUSTER_WAIT_HYBRID; /* spinning past the CPUs only crawls */
    t->attr.spin_ns = t->attr.wait_policy == MUSTER_WAIT_HYBRID ? (int64_t)(next_random(seed) % 50000) : -1;
    if (next_random(seed) % 3 == 0) { /* a shape: refused ones fall back to the defaults (run_trial) */
        t->attr.fan_in = next_random(seed) % 2 ? 2 + next_random(seed) % 15 : 0;
        t->attr.wakeup = (muster_wakeup)(next_random(seed) % MUSTER_WAKE_COUNT);
        t->attr.padding = (muster_padding)(next_random(seed) % MUSTER_PAD_COUNT);
        t->attr.cluster_size = next_random(seed) % 2 ? 1 + next_random(seed) % 8 : 0;
    }
    t->kind = (enum kind)(next_random(seed) % KINDS);
    unsigned d = next_random(seed) % 10;
    t->delays = d < 4 ? NO_DELAY : d < 7 ? SPIN_DELAY : MIXED_DELAY;
    /* Many episodes where they are cheap, fewer where members sleep. */
    /* Many episodes where they are cheap (no delays, the team within the
     * CPUs: the fastest episodes, where a wake-up races the next arrival),
     * fewer where members are late or share CPUs. */
    if (t->delays == MIXED_DELAY)
        t->episodes = 50 + next_random(seed) % 1000;
    else if (t->delays == NO_DELAY && t->size <= online_cpus())
        t->episodes = 20000 + next_random(seed) % (MAX_EPISODES - 20000);
    else
        t->episodes = 1000 + next_random(seed) % 19000;
    t->seed = next_random(seed);
    t->late_member = next_random(seed) % t->size;
    t->late_episode = next_random(seed) % 20;
}

/* ---- the watchdog and the signal storm ---- */

/* One member every 100 us, in turn: a wait is interrupted every 100 us,
 * each member's every 100 us times the team size. */
static void *storm_main(void *arg)
{
    (void)arg;
    unsigned next = 0;
    while (!atomic_load(&finished)) {
        if (atomic_load(&storm_on)) {
            pthread_mutex_lock(&members_lock); /* no member is joined while we signal it */
            if (member_count > 0 && pthread_kill(members[next++ % member_count], SIGUSR1) == 0)
                atomic_fetch_add(&signals_sent, 1);
            pthread_mutex_unlock(&members_lock);
        }
        usleep(100);
    }
    return NULL;
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    uint64_t last = atomic_load(&episodes_done) + atomic_load(&trials_done), stuck = 0;
    while (!atomic_load(&finished)) {
        sleep(1);
        uint64_t seen = atomic_load(&episodes_done) + atomic_load(&trials_done);
        stuck = seen == last ? stuck + 1 : 0;
        last = seen;
        if (stuck < 30)
            continue;
        fprintf(stderr, "soak_barrier: HANG: no episode completed for 30 s in %s; the members' stacks:\n",
                trial_text);
        atomic_store(&storm_on, false);
        pthread_mutex_lock(&members_lock);
        for (unsigned i = 0; i < member_count; i++) {
            pthread_kill(members[i], SIGUSR2);
            usleep(100000);
        }
        abort();
    }
    return NULL;
}

/* ---- running a trial and checking it ---- */

static void check_trial(trial *t)
{
    if (t->kind == PLAIN || t->kind == PHASES || t->kind == SPLIT) {
        t->episodes = atomic_load(&t->limit);
        for (unsigned e = 0; e < t->episodes; e++)
            if (atomic_load(&t->serial[e]) != 1)
                fail(t, "an episode's serial member count is not 1", 0, e, atomic_load(&t->serial[e]));
    } else if (t->kind == TIMEOUT) {
        unsigned passed = 0, timed_out = 0, broken = 0;
        for (unsigned id = 0; id < t->size; id++) {
            int rc = atomic_load(&t->result_at_late[id]);
            passed += is_success(rc);
            timed_out += rc == MUSTER_E_TIMEDOUT;
            broken += rc == MUSTER_E_BROKEN;
        }
        /* Through for all, or a timeout and every other member through or
         * broken; the late member never times out (it waits without). */
        bool all_passed = passed == t->size && atomic_load(&t->serial[t->late_episode]) == 1;
        bool timed = timed_out >= 1 && passed + timed_out + broken == t->size &&
                     atomic_load(&t->result_at_late[t->late_member]) != MUSTER_E_TIMEDOUT;
        if (!all_passed && !timed)
            fail(t, "the late episode ended otherwise", t->late_member, t->late_episode,
                 (long)passed * 10000 + timed_out * 100 + broken);
        if (timed)
            atomic_fetch_add(&timeouts_seen, 1);
    } else if (t->kind == ABORT) {
        if (atomic_load(&t->broken_seen) != t->size)
            fail(t, "members missed the abort", 0, 0, atomic_load(&t->broken_seen));
        if (!muster_barrier_is_broken(t->barrier))
            fail(t, "an aborted barrier does not say it is broken", 0, 0, 0);
    }
}

/* After a timeout or an abort: reset, then a few plain episodes must work. */
static void check_reusable(trial *t)
{
    if (muster_barrier_reset(t->barrier) != 0) {
        fail(t, "reset failed", 0, 0, 0);
        return;
    }
    trial *again = calloc(1, sizeof *again);
    if (again == NULL)
        return;
    *again = (trial){.barrier = t->barrier, .attr = t->attr, .kind = PLAIN, .size = t->size, .episodes = 20,
                     .seed = t->seed + 1, .delays = t->delays};
    atomic_store(&again->limit, again->episodes);
    member_arg args[MAX_TEAM];
    pthread_t threads[MAX_TEAM];
    for (unsigned i = 0; i < t->size; i++) {
        args[i] = (member_arg){again, i};
        pthread_create(&threads[i], NULL, member_main, &args[i]);
    }
    for (unsigned i = 0; i < t->size; i++)
        pthread_join(threads[i], NULL);
    /* As check_trial: the soak's end cuts these episodes short too
     * (cut_short), and those never run have no serial member. */
    again->episodes = atomic_load(&again->limit);
    for (unsigned e = 0; e < again->episodes; e++)
        if (atomic_load(&again->serial[e]) != 1)
            fail(t, "after reset an episode's serial count is not 1", 0, e, atomic_load(&again->serial[e]));
    free(again);
}

static void run_trial(trial *t)
{
    uint64_t began = now_ns();
    int created = muster_barrier_create(&t->barrier, t->size, &t->attr);
    if (created == MUSTER_E_INVAL || created == MUSTER_E_UNSUPPORTED) {
        /* a shape this algorithm does not take: its defaults */
        t->attr.fan_in = 0;
        t->attr.wakeup = MUSTER_WAKE_DEFAULT;
        t->attr.padding = MUSTER_PAD_DEFAULT;
        t->attr.cluster_size = 0;
        created = muster_barrier_create(&t->barrier, t->size, &t->attr);
    }
    if (created != MUSTER_OK) {
        fail(t, "create failed", 0, 0, created);
        return;
    }
    atomic_store(&t->limit, t->episodes);
    if (t->kind == SPLIT && !muster_barrier_can_split(t->barrier))
        t->kind = PLAIN;
    if (t->kind == PHASES && !muster_barrier_can_arrive(t->barrier))
        t->kind = PLAIN;
    snprintf(trial_text, sizeof trial_text,
             "trial %llu: %s, %u members, %s (fan-in %u, wake-up %s, %s, cluster %u), policy %s, spin %lld ns, "
             "%u episodes, %s",
             (unsigned long long)atomic_load(&trials_done), kind_names[t->kind], t->size,
             muster_algorithm_name(t->attr.algorithm), t->attr.fan_in, muster_wakeup_name(t->attr.wakeup),
             muster_padding_name(t->attr.padding), t->attr.cluster_size, muster_wait_policy_name(t->attr.wait_policy),
             (long long)t->attr.spin_ns, t->episodes, delay_names[t->delays]);
    member_arg args[MAX_TEAM];
    for (unsigned i = 0; i < t->size; i++) {
        args[i] = (member_arg){t, i};
        pthread_mutex_lock(&members_lock);
        int rc = pthread_create(&members[i], NULL, member_main, &args[i]);
        if (rc == 0)
            member_count = i + 1;
        pthread_mutex_unlock(&members_lock);
        if (rc != 0) {
            fprintf(stderr, "soak_barrier: cannot start thread %u of %u\n", i, t->size);
            exit(1);
        }
    }
    if (t->kind == ABORT) {
        unsigned when = t->seed ^ 0x5bd1e995u; /* not t->seed itself: the members read it as they start */
        usleep(next_random(&when) % 3000);
        muster_barrier_abort(t->barrier);
        atomic_fetch_add(&aborts_seen, 1);
    }
    /* Each member in turn: out of the storm's list, then joined. */
    for (unsigned i = t->size; i-- > 0;) {
        pthread_mutex_lock(&members_lock);
        member_count = i;
        pthread_mutex_unlock(&members_lock);
        pthread_join(members[i], NULL);
    }
    check_trial(t);
    if (t->kind == TIMEOUT || t->kind == ABORT)
        check_reusable(t);
    muster_barrier_destroy(t->barrier);
    if (getenv("SOAK_VERBOSE"))
        printf("%s: %.3f s\n", trial_text, (double)(now_ns() - began) / 1e9);
    atomic_fetch_add(&kind_count[t->kind], 1);
    atomic_fetch_add(&trials_done, 1);
}

/* ---- the command line and the loop ---- */

int main(int argc, char **argv)
{
    unsigned long seconds = 30, max_team = MAX_TEAM;
    unsigned seed = (unsigned)now_ns() | 1u;
    bool signals = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = soak_number("soak_barrier", "--seconds", argv[++i], 1, 30L * 24 * 3600);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = (unsigned)soak_number("soak_barrier", "--seed", argv[++i], 1, 0xffffffffu);
        else if (strcmp(argv[i], "--max-team") == 0 && i + 1 < argc)
            max_team = soak_number("soak_barrier", "--max-team", argv[++i], 3, MAX_TEAM);
        else if (strcmp(argv[i], "--no-signals") == 0)
            signals = false;
        else {
            fprintf(stderr, "usage: soak_barrier [--seconds S (30)] [--seed N] [--max-team N (3-%d)] [--no-signals]\n"
                            "%s '%s'\n", MAX_TEAM, strcmp(argv[i], "--help") == 0 ? "" : "unknown or incomplete:",
                    argv[i]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    soak_install_handlers();
    atomic_store(&storm_on, signals);
    printf("soak_barrier: %lu s, seed %u, %u CPUs, teams of 2 to %lu, signal storm %s\n", seconds, seed, online_cpus(),
           max_team, signals ? "a member every 100 us" : "off");
    fflush(stdout);
    pthread_t storm, watchdog;
    pthread_create(&storm, NULL, storm_main, NULL);
    pthread_create(&watchdog, NULL, watchdog_main, NULL);

    uint64_t start = now_ns(), end = start + seconds * 1000000000ull, next_report = start + 10000000000ull;
    soak_end_ns = end;
    while (now_ns() < end) {
        trial *t = calloc(1, sizeof *t);
        if (t == NULL) {
            fprintf(stderr, "soak_barrier: out of memory\n");
            return 1;
        }
        choose(t, &seed, (unsigned)max_team);
        run_trial(t);
        free(t);
        if (now_ns() >= next_report) {
            printf("soak_barrier: %4.0f s: %llu trials, %llu episodes, %llu signals, %llu lost\n",
                   (double)(now_ns() - start) / 1e9, (unsigned long long)atomic_load(&trials_done),
                   (unsigned long long)atomic_load(&episodes_done), (unsigned long long)atomic_load(&signals_sent),
                   (unsigned long long)atomic_load(&lost));
            fflush(stdout);
            next_report += 10000000000ull;
        }
    }
    atomic_store(&finished, true);
    pthread_join(storm, NULL);
    pthread_join(watchdog, NULL);
    double took = (double)(now_ns() - start) / 1e9;
    printf("soak_barrier: done in %.0f s: %llu trials (", took, (unsigned long long)atomic_load(&trials_done));
    for (int k = 0; k < KINDS; k++)
        printf("%s%s %llu", k ? ", " : "", kind_names[k], (unsigned long long)atomic_load(&kind_count[k]));
    printf("), %llu episodes (%.0f a second), %llu timeouts taken, %llu aborts, %llu signals; %llu lost\n",
           (unsigned long long)atomic_load(&episodes_done), (double)atomic_load(&episodes_done) / took,
           (unsigned long long)atomic_load(&timeouts_seen), (unsigned long long)atomic_load(&aborts_seen),
           (unsigned long long)atomic_load(&signals_sent), (unsigned long long)atomic_load(&lost));
    return atomic_load(&lost) == 0 ? 0 : 1;
}
