/* The team side of task scheduling (src/omp/task/scheduler.c, and the deferral rules of task/defer.c), driven directly
 * from one thread: a thief tries the member it last stole from first, then
 * every other member once, never itself; what it takes comes out oldest
 * first; the prioritized queue goes highest first, first come first served
 * within a priority, and a restricted taker skips what it may not run
 * without disturbing it; and, with threads, that a wake for one idle
 * member wakes that member and leaves the others asleep, and that the
 * team's last task wakes the members waiting for it but not one asleep at
 * a barrier; and that a bound team's members beyond its places' CPUs are
 * spare: their hunger queues no task. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "barrier/runtime.h"
#include "omp/task/defer.h"
#include "omp/task/scheduler.h"
#include "platform/cpus.h"
#include "stress_common.h"

static void *item(uintptr_t k) { return (void *)(k * 16 + 16); }

static void test_last_victim_first(void)
{
    enum { N = 5 };
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(N);
    CHECK(tt != NULL, "create");
    muster_omp_thief thief = muster_omp_thief_for(0);
    CHECK(muster_omp_tasks_steal(tt, 0, &thief, 0, NULL) == NULL, "nothing to steal from empty deques");
    CHECK(thief.last_victim == MUSTER_OMP_NO_VICTIM, "no victim after a failed round");
    /* Member 3 has two tasks: the thief finds it, oldest first. */
    CHECK(muster_omp_tasks_push(tt, 3, item(1), NULL) && muster_omp_tasks_push(tt, 3, item(2), NULL), "push");
    CHECK(muster_omp_tasks_steal(tt, 0, &thief, 0, NULL) == item(1), "the oldest of member 3's tasks");
    CHECK(thief.last_victim == 3, "member 3 is the last victim (%u)", thief.last_victim);
    /* Now members 1, 2 and 4 have work too; for many random first picks
     * the thief goes back to member 3 while it has any. */
    for (unsigned round = 0; round < 40; round++) {
        muster_omp_tasks_push_again(tt, 1, item(100 + round), NULL);
        muster_omp_tasks_push_again(tt, 2, item(200 + round), NULL);
        muster_omp_tasks_push_again(tt, 4, item(400 + round), NULL);
        muster_omp_tasks_push_again(tt, 3, item(300 + round), NULL);
        thief.seed = round * 7919u + 1u;
        void *got = muster_omp_tasks_steal(tt, 0, &thief, 0, NULL);
        CHECK(got == item(2) || (round > 0 && got == item(300 + round - 1)) || got == item(300 + round),
              "round %u: took %p, not member 3's", round, got);
        CHECK(thief.last_victim == 3, "round %u: last victim %u", round, thief.last_victim);
    }
    /* Member 3 emptied: the thief moves on and remembers the new victim;
     * it never steals from itself. */
    while (muster_omp_tasks_take_own(tt, 3) != NULL)
        ;
    muster_omp_tasks_push_again(tt, 0, item(999), NULL);
    void *got = muster_omp_tasks_steal(tt, 0, &thief, 0, NULL);
    CHECK(got != NULL && got != item(999), "a task from another member, not its own (%p)", got);
    CHECK(thief.last_victim == 1 || thief.last_victim == 2 || thief.last_victim == 4, "new victim %u",
          thief.last_victim);
    muster_omp_team_tasks_destroy(tt);
}

/* Never itself, and every other member is visited in one round: with work
 * only in member k, a thief always finds it, whatever its random start. */
static void test_round_visits_everyone(void)
{
    enum { N = 7 };
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(N);
    CHECK(tt != NULL, "create");
    for (unsigned thief_id = 0; thief_id < N; thief_id++)
        for (unsigned k = 0; k < N; k++) {
            if (k == thief_id)
                continue;
            for (unsigned s = 0; s < 5; s++) {
                muster_omp_tasks_push_again(tt, k, item(k), NULL);
                muster_omp_thief thief = {.seed = s * 40503u + thief_id, .last_victim = (k + 1) % N};
                CHECK(muster_omp_tasks_steal(tt, thief_id, &thief, 0, NULL) == item(k),
                      "thief %u, seed %u: member %u's task not found", thief_id, s, k);
            }
        }
    muster_omp_team_tasks_destroy(tt);
}

static bool odd_only(void *task, const void *arg)
{
    (void)arg;
    return ((uintptr_t)task / 16 - 1) % 2 == 1; /* item(k) for odd k */
}

static void test_prioritized(void)
{
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(3);
    CHECK(tt != NULL, "create");
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == NULL, "empty");
    int prio[] = {3, 9, 3, 1, 9, 5};
    for (uintptr_t k = 0; k < 6; k++)
        CHECK(muster_omp_tasks_push_prioritized(tt, item(k), prio[k], 0), "push %lu", (unsigned long)k);
    /* A taker that may run only odd-numbered items: 1 (9), then 5 (5),
     * then 3 (1); the even ones stay. */
    CHECK(muster_omp_tasks_take_prioritized(tt, odd_only, NULL) == item(1), "odd: the 9");
    CHECK(muster_omp_tasks_take_prioritized(tt, odd_only, NULL) == item(5), "odd: the 5");
    CHECK(muster_omp_tasks_take_prioritized(tt, odd_only, NULL) == item(3), "odd: the 1");
    CHECK(muster_omp_tasks_take_prioritized(tt, odd_only, NULL) == NULL, "odd: none left");
    /* Everyone else: 4 (9), then 0 and 2 (3, in arrival order). */
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == item(4), "the other 9");
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == item(0), "first 3 first");
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == item(2), "then the second 3");
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == NULL, "empty again");
    CHECK(!muster_omp_tasks_visible(tt), "nothing visible");
    muster_omp_team_tasks_destroy(tt);
}

/* ---- waking one member ---- */

typedef struct sleeper {
    muster_omp_team_tasks *tt;
    unsigned id;
    _Atomic bool released;    /* what the member waits for */
    _Atomic unsigned returns; /* times muster_omp_tasks_idle came back */
    _Atomic uint64_t returned_ns;
    _Atomic long tid;
} sleeper;

static bool not_released(void *arg)
{
    return !atomic_load(&((sleeper *)arg)->released);
}

static void *sleeper_main(void *arg)
{
    sleeper *s = arg;
    atomic_store(&s->tid, (long)syscall(SYS_gettid));
    muster_omp_idle idle = {0};
    while (!atomic_load(&s->released)) {
        muster_omp_tasks_idle(s->tt, &idle, not_released, s, muster_omp_member_tag(s->id));
        atomic_fetch_add(&s->returns, 1);
    }
    atomic_store(&s->returned_ns, muster_now_ns());
    return NULL;
}

/* Whether thread tid is blocked in the kernel (state S: in its futex wait,
 * not merely counted asleep and about to call it). */
static bool blocked(long tid)
{
    char path[64], text[256];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *after_name = strrchr(text, ')');
    return after_name != NULL && after_name[1] == ' ' && after_name[2] == 'S';
}

/* Until `sleepers` members are counted asleep and members first..last are
 * blocked in the kernel: a wake that finds one on its way in makes it
 * return (the word changed), which is right but not what this test looks
 * at.  The kernel state alone is not enough: under qemu-user a thread is
 * also in state S while it waits for the emulator's own locks, before it
 * has reached the code under test (a CI run caught it). */
static void wait_until_asleep(muster_omp_team_tasks *tt, unsigned sleepers, sleeper *members, unsigned first,
                              unsigned last)
{
    while (atomic_load(&tt->sleepers) < sleepers)
        sched_yield();
    for (unsigned id = first; id <= last; id++)
        while (atomic_load(&members[id].tid) == 0 || !blocked(atomic_load(&members[id].tid)))
            sched_yield();
}

/* Members 1 and 2 sleep (no looks first, and a nap of 60 s, so a lost wake
 * shows); a wake for member 1 releases it within a second (not a timing
 * check: a lost wake takes the whole nap) and leaves member 2 asleep,
 * never having returned; then member 2's own wake. */
static void test_wake_one_member(void)
{
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(3);
    CHECK(tt != NULL, "create");
    tt->idle_polls = 0;
    tt->never_sleep = false;
    tt->nap_ns = 60ull * 1000000000u;
    sleeper members[3] = {{.tt = tt, .id = 0}, {.tt = tt, .id = 1}, {.tt = tt, .id = 2}};
    pthread_t threads[3];
    for (unsigned id = 1; id <= 2; id++)
        CHECK(pthread_create(&threads[id], NULL, sleeper_main, &members[id]) == 0, "thread");
    wait_until_asleep(tt, 2, members, 1, 2);
    CHECK(atomic_load(&tt->sleepers) == 2, "both counted asleep");
    uint64_t woken_at = muster_now_ns();
    atomic_store(&members[1].released, true);
    muster_omp_tasks_wake_members(tt, muster_omp_member_tag(1));
    pthread_join(threads[1], NULL);
    uint64_t took = atomic_load(&members[1].returned_ns) - woken_at;
    CHECK(took < 1000000000u, "member 1 came back after %.3f s: its wake was lost (slept to its nap)", took / 1e9);
    wait_until_asleep(tt, 1, members, 2, 2);
    CHECK(atomic_load(&members[2].returns) == 0, "member 2 woke %u times for member 1's wake",
          atomic_load(&members[2].returns));
    atomic_store(&members[2].released, true);
    muster_omp_tasks_wake_members(tt, muster_omp_member_tag(2));
    pthread_join(threads[2], NULL);
    CHECK(atomic_load(&members[2].returned_ns) - woken_at < 2000000000u, "member 2's wake was lost");
    muster_omp_team_tasks_destroy(tt);
}

/* A member asleep at a barrier, running no task (there is none). */
typedef struct barrier_sleeper {
    muster_barrier *barrier;
    muster_omp_team_tasks *tt;
    _Atomic unsigned looks; /* times it looked for work */
    _Atomic long tid;
} barrier_sleeper;

static bool look_for_work(void *arg)
{
    atomic_fetch_add(&((barrier_sleeper *)arg)->looks, 1);
    return false;
}

static void *barrier_sleeper_main(void *arg)
{
    barrier_sleeper *s = arg;
    atomic_store(&s->tid, (long)syscall(SYS_gettid));
    muster_wait_work work = {.run = look_for_work, .arg = s, .sleepers = &s->tt->sleepers, .nap_ns = 0};
    CHECK(muster_barrier_wait_working(s->barrier, 1, &work) >= 0, "barrier wait");
    return NULL;
}

static bool team_has_tasks(void *arg)
{
    return muster_omp_tasks_pending(arg) != 0;
}

static void *drainer_main(void *arg)
{
    sleeper *s = arg;
    atomic_store(&s->tid, (long)syscall(SYS_gettid));
    muster_omp_idle idle = {0};
    while (team_has_tasks(s->tt)) {
        muster_omp_tasks_idle(s->tt, &idle, team_has_tasks, s->tt, 0);
        atomic_fetch_add(&s->returns, 1);
    }
    atomic_store(&s->returned_ns, muster_now_ns());
    return NULL;
}

/* Member 1 sleeps at a barrier that member 0 has not reached, member 2 in
 * the scheduler's wait for the team's last task (as at a region's end).
 * That task's finish wakes member 2 and leaves member 1 asleep: the
 * barrier is released by member 0's arrival, not by the task count.
 * (Measured: nudging the barrier's sleepers at every last task woke one
 * ~4 000 times a run of uts at 3 members on 2 CPUs, for nothing.) */
static void test_last_task_leaves_barrier_asleep(void)
{
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(3);
    CHECK(tt != NULL, "create");
    tt->idle_polls = 0;
    tt->never_sleep = false;
    tt->nap_ns = 3ull * 1000000000u; /* a lost wake shows as a 3 s wait */
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.wait_policy = MUSTER_WAIT_PASSIVE; /* asleep at once */
    muster_barrier *b;
    CHECK(muster_barrier_create(&b, 2, &attr) == 0, "barrier");
    tt->barriers[0] = b;
    muster_omp_tasks_count_new(tt, 0); /* the task, running on member 0 */
    barrier_sleeper at_barrier = {.barrier = b, .tt = tt};
    sleeper drainer = {.tt = tt, .id = 2};
    pthread_t threads[2];
    CHECK(pthread_create(&threads[0], NULL, barrier_sleeper_main, &at_barrier) == 0, "thread");
    CHECK(pthread_create(&threads[1], NULL, drainer_main, &drainer) == 0, "thread");
    /* A passive barrier waiter looks for work twice before it sleeps
     * (once, then again once counted asleep). */
    while (atomic_load(&at_barrier.looks) < 2 || !blocked(atomic_load(&at_barrier.tid)))
        sched_yield();
    wait_until_asleep(tt, 2, &drainer, 0, 0);
    unsigned looks = atomic_load(&at_barrier.looks);
    uint64_t finished_at = muster_now_ns();
    muster_omp_tasks_finished(tt, 0, 0);
    pthread_join(threads[1], NULL);
    uint64_t took = atomic_load(&drainer.returned_ns) - finished_at;
    CHECK(took < 1000000000u, "the member waiting for the last task came back after %.3f s: its wake was lost",
          took / 1e9);
    /* A barrier sleeper woken looks for work at once; give it half a second. */
    for (int k = 0; k < 50 && atomic_load(&at_barrier.looks) == looks; k++)
        usleep(10000);
    CHECK(atomic_load(&at_barrier.looks) == looks, "the barrier's sleeper was woken by the last task (%u looks)",
          atomic_load(&at_barrier.looks) - looks);
    CHECK(muster_barrier_wait(b, 0) >= 0, "member 0 arrives");
    pthread_join(threads[0], NULL);
    muster_barrier_destroy(b);
    muster_omp_team_tasks_destroy(tt);
}

/* The team's count of unfinished tasks is a sum of per-member counts: a
 * task counted by one member and finished by another, or by a thread
 * outside the team, leaves it at 0; the throttle stops queueing once the
 * team holds MUSTER_OMP_TASKS_PER_MEMBER per member (and, being per
 * member and soft, not much later). */
static void test_counts_and_throttle(void)
{
    enum { N = 3 };
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(N);
    CHECK(tt != NULL, "create");
    CHECK(muster_omp_tasks_pending(tt) == 0, "a new team has no tasks");
    muster_omp_tasks_count_new(tt, 2);
    muster_omp_tasks_count_new(tt, 2);
    CHECK(muster_omp_tasks_push_prioritized(tt, item(1), 3, 1), "push prioritized");
    CHECK(muster_omp_tasks_pending(tt) == 3, "3 counted (%lld)", (long long)muster_omp_tasks_pending(tt));
    muster_omp_tasks_finished(tt, 0, 0);
    muster_omp_tasks_finished(tt, MUSTER_OMP_NOT_MEMBER, 0);
    CHECK(muster_omp_tasks_pending(tt) == 1, "1 left (%lld)", (long long)muster_omp_tasks_pending(tt));
    CHECK(muster_omp_tasks_take_prioritized(tt, NULL, NULL) == item(1), "take it");
    muster_omp_tasks_finished(tt, 1, 0);
    CHECK(muster_omp_tasks_pending(tt) == 0, "none left (%lld)", (long long)muster_omp_tasks_pending(tt));
    /* Every member queues until the throttle stops it: the total lands
     * between the limit and the limit plus what one member's credit can
     * overshoot (its share of the room, re-read when spent). */
    unsigned queued = 0;
    for (unsigned id = 0; id < N; id++)
        for (unsigned k = 0; k < 2 * MUSTER_OMP_TASKS_PER_MEMBER * N; k++)
            queued += !muster_omp_defer_throttled(tt, id) && muster_omp_tasks_push(tt, id, item(k + 1), NULL);
    unsigned limit = MUSTER_OMP_TASKS_PER_MEMBER * N;
    CHECK(queued >= limit && queued <= limit + limit / N, "throttle: %u queued, limit %u", queued,
          limit);
    CHECK(muster_omp_tasks_pending(tt) == (int64_t)queued, "pending %lld, queued %u",
          (long long)muster_omp_tasks_pending(tt), queued);
    /* Throttled, a member runs tasks at once for a while, then queues again
     * once the team has room. */
    for (unsigned id = 0; id < N; id++)
        while (muster_omp_tasks_take_own(tt, id) != NULL)
            muster_omp_tasks_finished(tt, id, 0);
    bool queued_again = false;
    for (unsigned k = 0; k < 64 && !queued_again; k++)
        queued_again = !muster_omp_defer_throttled(tt, 0) && muster_omp_tasks_push(tt, 0, item(1), NULL);
    CHECK(queued_again, "a throttled member never queued again once the team had room");
    muster_omp_team_tasks_destroy(tt);
}

/* A member's hunger queues a creator's task only where it has a CPU to run
 * it on: a bound team whose places hold fewer CPUs than members counts the
 * rest spare (an idle member on its creator's CPU would take the task only
 * when the creator is off it: two context switches, no parallelism). */
static void test_spare_members(void)
{
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(2);
    CHECK(tt != NULL, "create");
    CHECK(muster_omp_defer_hungry(tt, 0), "the team's first task is queued");
    muster_omp_tasks_count_new(tt, 0);
    CHECK(!muster_omp_defer_hungry(tt, 0), "nobody hungry: run at once");
    bool hungry = false;
    muster_omp_tasks_set_hungry(tt, &hungry, true);
    bool fits = muster_cpus_available() >= 2;
    CHECK(muster_omp_defer_hungry(tt, 0) == fits, "unbound, member 1 hungry on %u CPUs: queue iff 2 fit",
          muster_cpus_available());
    muster_omp_tasks_set_cpus(tt, 1); /* both members' places hold one CPU */
    CHECK(!muster_omp_defer_hungry(tt, 0), "bound to one CPU: member 1 is spare, its hunger queues nothing");
    muster_omp_tasks_set_cpus(tt, 2);
    CHECK(muster_omp_defer_hungry(tt, 0) == fits, "bound to two CPUs: as unbound");
    muster_omp_tasks_set_cpus(tt, 1);
    muster_omp_tasks_set_cpus(tt, 0); /* a later unbound region */
    CHECK(muster_omp_defer_hungry(tt, 0) == fits, "unbound again: as before");
    muster_omp_tasks_set_hungry(tt, &hungry, false);
    muster_omp_team_tasks_destroy(tt);
}

/* Many members finish the team's last tasks at once while one waits for
 * the last (as at a region's end): each finisher stores its own count and
 * only reads the others', so exactly which finisher sees 0 is a race.  In
 * every episode the waiter must come back (a lost wake shows as its 3 s
 * nap) and only after every finish.  Team of 6, 5 finishers, random
 * shares and delays, the five last finishes released together. */
typedef struct last_task_race {
    muster_omp_team_tasks *tt;
    pthread_barrier_t start, created, last;
    unsigned episodes;
    unsigned share[5][2000]; /* per episode: tasks finished by member i (i < 5) */
    _Atomic unsigned finishes_done;
    _Atomic int failures;
} last_task_race;

typedef struct race_member {
    last_task_race *race;
    unsigned id;
} race_member;

static void *race_finisher(void *arg)
{
    race_member *m = arg;
    last_task_race *r = m->race;
    unsigned seed = 7919u * (m->id + 1);
    for (unsigned e = 0; e < r->episodes; e++) {
        /* Each member counts its own creations: its share of episode e's. */
        for (unsigned k = 0; k < r->share[m->id][e]; k++)
            muster_omp_tasks_count_new(r->tt, m->id);
        pthread_barrier_wait(&r->created);
        pthread_barrier_wait(&r->start);
        /* ... and finishes as many, which others may have created. */
        unsigned mine = r->share[(m->id + 1) % 5][e];
        for (unsigned k = 0; k + 1 < mine; k++) {
            if (next_random(&seed) % 4 == 0)
                random_delay(&seed);
            atomic_fetch_add(&r->finishes_done, 1);
            muster_omp_tasks_finished(r->tt, m->id, 0);
        }
        /* The last finishes of all five at once: the race to see 0. */
        pthread_barrier_wait(&r->last);
        atomic_fetch_add(&r->finishes_done, 1);
        muster_omp_tasks_finished(r->tt, m->id, 0);
        pthread_barrier_wait(&r->created); /* the episode is over for everyone */
    }
    return NULL;
}

static bool race_pending(void *arg) { return muster_omp_tasks_pending(arg) != 0; }

static void test_last_task_race(void)
{
    enum { MEMBERS = 6, FINISHERS = 5 };
    static last_task_race race;
    race.tt = muster_omp_team_tasks_create(MEMBERS);
    CHECK(race.tt != NULL, "create");
    race.tt->idle_polls = 0;
    race.tt->never_sleep = false;
    race.tt->nap_ns = 3ull * 1000000000u;
    race.episodes = 2000;
    unsigned seed = 12345;
    for (unsigned e = 0; e < race.episodes; e++)
        for (unsigned i = 0; i < FINISHERS; i++)
            race.share[i][e] = 1 + next_random(&seed) % 40;
    pthread_barrier_init(&race.start, NULL, FINISHERS + 1);
    pthread_barrier_init(&race.created, NULL, FINISHERS + 1);
    pthread_barrier_init(&race.last, NULL, FINISHERS);
    pthread_t threads[FINISHERS];
    race_member members[FINISHERS];
    for (unsigned i = 0; i < FINISHERS; i++) {
        members[i] = (race_member){.race = &race, .id = i};
        CHECK(pthread_create(&threads[i], NULL, race_finisher, &members[i]) == 0, "thread");
    }
    unsigned total = 0;
    for (unsigned e = 0; e < race.episodes; e++) {
        for (unsigned i = 0; i < FINISHERS; i++)
            total += race.share[i][e];
        pthread_barrier_wait(&race.created);
        pthread_barrier_wait(&race.start);
        /* Member 5 waits for the team's last task, as muster_omp_tasks_drain does. */
        muster_omp_idle idle = {0};
        uint64_t began = muster_now_ns();
        while (muster_omp_tasks_pending(race.tt) != 0 && muster_now_ns() - began < 2000000000u)
            muster_omp_tasks_idle(race.tt, &idle, race_pending, race.tt, 0);
        uint64_t took = muster_now_ns() - began;
        unsigned done = atomic_load(&race.finishes_done);
        CHECK(done == total, "episode %u: the waiter saw no task left after %u of %u finishes", e, done, total);
        CHECK(took < 1000000000u, "episode %u: the waiter came back after %.3f s: the last task's wake was lost"
              " (or the count never reached 0: %lld)", e, took / 1e9, (long long)muster_omp_tasks_pending(race.tt));
        pthread_barrier_wait(&race.created);
    }
    for (unsigned i = 0; i < FINISHERS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&race.start);
    pthread_barrier_destroy(&race.created);
    pthread_barrier_destroy(&race.last);
    muster_omp_team_tasks_destroy(race.tt);
}

/* A thief restricted to a tag takes only a task whose deque slot carries it:
 * it passes over members whose oldest task lacks it (and says so), takes
 * the tagged one wherever it is, and finds nothing, having passed over,
 * when no oldest task has it; untagged, it takes any. */
static void test_tagged_steal(void)
{
    enum { N = 4 };
    muster_omp_team_tasks *tt = muster_omp_team_tasks_create(N);
    CHECK(tt != NULL, "create");
    uintptr_t mine[MUSTER_DEQUE_TAGS] = {0x1000, 0x2000, 0, 0}, other[MUSTER_DEQUE_TAGS] = {0x3000, 0x4000, 0, 0};
    CHECK(muster_omp_tasks_push(tt, 1, item(1), other) && muster_omp_tasks_push(tt, 1, item(2), mine), "push 1");
    CHECK(muster_omp_tasks_push(tt, 3, item(3), mine), "push 3");
    for (unsigned s = 0; s < 8; s++) {
        muster_omp_thief thief = {.seed = s * 7919u + 3u, .last_victim = MUSTER_OMP_NO_VICTIM};
        bool passed_over = false;
        void *got = muster_omp_tasks_steal(tt, 0, &thief, 0x2000, &passed_over);
        CHECK(got == item(3), "seed %u: took %p, not member 3's tagged task", s, got);
        muster_omp_tasks_push_again(tt, 3, item(3), mine);
    }
    CHECK(muster_omp_tasks_take_own(tt, 3) == item(3), "member 3 takes its own back");
    muster_omp_thief thief = muster_omp_thief_for(0);
    bool passed_over = false;
    CHECK(muster_omp_tasks_steal(tt, 0, &thief, 0x2000, &passed_over) == NULL && passed_over,
          "member 1's oldest is not tagged 0x2000: nothing taken, passed over");
    CHECK(muster_omp_tasks_steal(tt, 0, &thief, 0x5000, &passed_over) == NULL && passed_over, "no such tag");
    CHECK(muster_omp_tasks_steal(tt, 0, &thief, 0x3000, &passed_over) == item(1), "its own tag");
    CHECK(muster_omp_tasks_steal(tt, 0, &thief, 0x1000, &passed_over) == item(2), "then the next");
    CHECK(muster_omp_tasks_steal(tt, 0, &thief, 0x1000, &passed_over) == NULL && !passed_over,
          "empty deques: nothing passed over");
    muster_omp_team_tasks_destroy(tt);
}

int main(void)
{
    test_tagged_steal();
    test_last_victim_first();
    test_round_visits_everyone();
    test_prioritized();
    test_wake_one_member();
    test_last_task_leaves_barrier_asleep();
    test_counts_and_throttle();
    test_spare_members();
    test_last_task_race();
    printf("test_omp_scheduler: ok\n");
    return 0;
}
