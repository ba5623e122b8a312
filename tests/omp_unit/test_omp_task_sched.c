/* libmuster-omp's task scheduler (src/omp/task/) as
 * an OpenMP program compiled with gcc -fopenmp and linked against
 * libmuster-omp: deferred tasks run on several threads, exactly once, and
 * every wait (taskwait, taskgroup end, barriers, the end of a region) sees
 * them finished.  Team sizes that are not powers of two, and more threads
 * than CPUs; random trees with random delays and priorities, checked against
 * a serial oracle.  ctest runs it twice: as is (OMP_MAX_TASK_PRIORITY unset,
 * every priority counts as 0) and with OMP_MAX_TASK_PRIORITY=10, where the
 * trees' tasks go through the team's priority queue and their waiters
 * (taskwait and taskgroup) must skip the queued tasks they may not run. */
#include <omp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "stress_common.h"

static const int team_sizes[] = {1, 2, 3, 5, 7};
#define TEAM_SIZES (int)(sizeof team_sizes / sizeof team_sizes[0])

static void sleep_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

static void spin_a_little(unsigned *seed)
{
    for (unsigned k = rand_r(seed) % 2000; k > 0; k--)
        __asm__ __volatile__("" ::: "memory");
}

/* Each of `tasks` ran on a thread of the team (ran_on[i]), and with more
 * than one thread, not all on the same one; `what` ("task", "final task")
 * names them in the messages. */
static void check_spread(const int *ran_on, int tasks, int threads, const char *what)
{
    bool used[64] = {false};
    int distinct = 0;
    for (int i = 0; i < tasks; i++) {
        CHECK(ran_on[i] >= 0 && ran_on[i] < threads, "%s %d ran on thread %d", what, i, ran_on[i]);
        distinct += !used[ran_on[i]];
        used[ran_on[i]] = true;
    }
    if (threads > 1)
        CHECK(distinct >= 2, "%d threads: all %d blocking %ss ran on one thread", threads, tasks, what);
}

/* Tasks that block (sleep), all created by one thread inside single: the
 * others, waiting at the single's barrier, must take some.  (Run at once,
 * as before the scheduler, every one ran on the creating thread.) */
static void test_blocking_tasks_spread(int threads)
{
    enum { PER_THREAD = 6 };
    int tasks = PER_THREAD * threads, ran_on[64];
    atomic_int runs[64];
    for (int i = 0; i < 64; i++)
        atomic_init(&runs[i], 0);
    memset(ran_on, -1, sizeof ran_on);
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
        for (int i = 0; i < tasks; i++) {
#pragma omp task firstprivate(i) shared(ran_on, runs)
            {
                sleep_us(2000);
                ran_on[i] = omp_get_thread_num();
                atomic_fetch_add(&runs[i], 1);
            }
        }
    }
    for (int i = 0; i < tasks; i++)
        CHECK(atomic_load(&runs[i]) == 1, "%d threads: task %d ran %d times", threads, i, atomic_load(&runs[i]));
    check_spread(ran_on, tasks, threads, "task");
}

/* The body of a final task that blocks: inside it omp_in_final() holds,
 * and the task it creates is included: it has run, on the same thread, when
 * its construct returns.  Counts in *wrong what did not hold. */
static void final_task_body(int i, int *ran_on, atomic_int *wrong)
{
    int me = omp_get_thread_num(), child_ran_on = -1;
#pragma omp task shared(child_ran_on)
    child_ran_on = omp_in_final() ? omp_get_thread_num() : -2;
    if (!omp_in_final() || child_ran_on != me)
        atomic_fetch_add(wrong, 1);
    sleep_us(2000);
    ran_on[i] = me;
}

/* How the final tasks of test_final_tasks_spread are made: each path of
 * the task core that may queue a task. */
typedef enum final_kind { FINAL_PLAIN, FINAL_DEPEND, FINAL_PRIORITY, FINAL_TASKLOOP } final_kind;
static const char *const final_kind_names[] = {"final", "final depend", "final priority", "final taskloop"};

static void make_final_tasks(final_kind kind, int tasks, int *ran_on, atomic_int *wrong)
{
    char cells[64]; /* only their addresses matter, as dependences */
    (void)cells;
    switch (kind) {
    case FINAL_PLAIN:
        for (int i = 0; i < tasks; i++) {
#pragma omp task final(1) firstprivate(i)
            final_task_body(i, ran_on, wrong);
        }
        break;
    case FINAL_DEPEND: /* independent dependences: each is ready at once */
        for (int i = 0; i < tasks; i++) {
#pragma omp task final(1) firstprivate(i) depend(out : cells[i])
            final_task_body(i, ran_on, wrong);
        }
#pragma omp taskwait
        break;
    case FINAL_PRIORITY: /* the priority queue when OMP_MAX_TASK_PRIORITY > 0 */
        for (int i = 0; i < tasks; i++) {
#pragma omp task final(1) firstprivate(i) priority(1)
            final_task_body(i, ran_on, wrong);
        }
        break;
    case FINAL_TASKLOOP:
#pragma omp taskloop final(1) num_tasks(tasks)
        for (int i = 0; i < tasks; i++)
            final_task_body(i, ran_on, wrong);
        break;
    }
}

/* Final tasks that block, created by one thread inside single: they may
 * be queued and taken by the others, whatever their other clauses (only
 * the tasks a final task creates are included). */
static void test_final_tasks_spread(int threads, final_kind kind)
{
    enum { PER_THREAD = 6 };
    int tasks = PER_THREAD * threads, ran_on[64];
    atomic_int wrong = 0;
    memset(ran_on, -1, sizeof ran_on);
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
        make_final_tasks(kind, tasks, ran_on, &wrong);
    }
    const char *name = final_kind_names[kind];
    CHECK(atomic_load(&wrong) == 0, "%d threads, %s: %d tasks saw a child not run at once (included) or were "
                                    "not final", threads, name, atomic_load(&wrong));
    char what[32];
    snprintf(what, sizeof what, "%s task", name);
    check_spread(ran_on, tasks, threads, what);
}

/* A task made while the members that are awake all block in their own
 * code (not at a task scheduling point) and the rest sleep at the region's
 * end: a sleeper must still find it.  With 8 members on a 2-CPU machine
 * the scheduler wakes nobody for it (the awake members seem to fill the
 * CPUs); the sleepers' bounded nap is what finds it.  Gives up after 5 s. */
static void test_task_found_while_awake_members_block(int threads)
{
    atomic_int ran = 0, ran_on = -1, gave_up = 0;
#pragma omp parallel num_threads(threads) shared(ran, ran_on, gave_up)
    {
        int id = omp_get_thread_num();
        if (id == 0) {
            sleep_us(50000); /* the others reach the end and fall asleep */
            /* A taskloop's task is always queued (a GOMP_task task would
             * run at once here: nobody is hungry enough). */
#pragma omp taskloop nogroup num_tasks(1) shared(ran, ran_on)
            for (int i = 0; i < 1; i++) {
                atomic_store(&ran_on, omp_get_thread_num());
                atomic_store(&ran, 1);
            }
        }
        if (id <= 1) {
            struct timespec start;
            clock_gettime(CLOCK_MONOTONIC, &start);
            for (;;) {
                if (atomic_load(&ran))
                    break;
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (now.tv_sec - start.tv_sec > 5) {
                    atomic_store(&gave_up, 1);
                    break;
                }
                sleep_us(200);
            }
        }
    }
    CHECK(!atomic_load(&gave_up), "%d threads: a task made while the awake members blocked ran only after 5 s "
          "(on thread %d)", threads, atomic_load(&ran_on));
    CHECK(atomic_load(&ran) == 1, "%d threads: the task ran", threads);
    if (threads > 2)
        CHECK(atomic_load(&ran_on) >= 2, "%d threads: the task ran on blocked thread %d", threads,
              atomic_load(&ran_on));
}

/* Member 0 queues taskloop tasks (always queued, within the throttle)
 * while the others block in their own code, until one runs at once in it:
 * the team's throttle (MUSTER_OMP_TASKS_PER_MEMBER per member) is full and
 * member 0 is throttled.  It stops there; the region's end runs the rest.
 * The throttle must not outlive the region: the next region's first
 * queued task would run at once on its creator (seen in CI as
 * test_task_found_while_awake_members_block failing, after an earlier
 * test had left member 0 throttled). */
static void hit_the_throttle(int threads)
{
    atomic_int others_may_go = 0, at_once = 0, made = 0;
#pragma omp parallel num_threads(threads) shared(others_may_go, at_once, made)
    {
        if (omp_get_thread_num() == 0) {
            while (!atomic_load(&at_once) && atomic_load(&made) < 100000) {
                atomic_fetch_add(&made, 1);
#pragma omp taskloop nogroup num_tasks(1) shared(at_once)
                for (int i = 0; i < 1; i++) {
                    if (omp_get_thread_num() == 0 && !atomic_load(&others_may_go))
                        atomic_store(&at_once, 1);
                }
            }
            atomic_store(&others_may_go, 1);
        } else {
            while (!atomic_load(&others_may_go))
                sleep_us(100);
        }
    }
    CHECK(atomic_load(&at_once), "%d threads: %d taskloop tasks never hit the throttle", threads,
          atomic_load(&made));
}

/* Random mutexinoutset tasks, each naming 1 to 3 of 4 addresses, some
 * also reading or writing one: no two tasks that share a mutexinoutset
 * address overlap, none is lost, and no set of tasks each holding one
 * address while waiting for another deadlocks. */
static void test_mutexinoutset_stress(int threads)
{
    enum { ADDRS = 4, TASKS = 200 };
    for (unsigned e = 0; e < scaled(10) + 1; e++) {
        int cell[ADDRS] = {0};
        atomic_int inside[ADDRS], overlaps = 0, ran = 0;
        for (int a = 0; a < ADDRS; a++)
            atomic_init(&inside[a], 0);
        unsigned seed = e * 977u + (unsigned)threads;
#pragma omp parallel num_threads(threads) shared(cell, inside, overlaps, ran)
#pragma omp single
        for (int t = 0; t < TASKS; t++) {
            int mask = 1 + (int)(rand_r(&seed) % ((1u << ADDRS) - 1)); /* which addresses, mutexinoutset */
            if (__builtin_popcount((unsigned)mask) > 3)
                mask &= ~1;
            int a0 = __builtin_ctz((unsigned)mask), a1 = a0, a2 = a0;
            for (int a = a0 + 1; a < ADDRS; a++)
                if (mask & (1 << a)) {
                    if (a1 == a0)
                        a1 = a;
                    else
                        a2 = a;
                }
            unsigned spin = rand_r(&seed) % 3000;
            /* Naming an address twice is allowed: a1 and a2 may equal a0. */
#pragma omp task depend(mutexinoutset : cell[a0], cell[a1], cell[a2]) firstprivate(mask, spin) \
    shared(cell, inside, overlaps, ran)
            {
                for (int a = 0; a < ADDRS; a++)
                    if (mask & (1 << a))
                        overlaps += atomic_fetch_add(&inside[a], 1) != 0;
                for (volatile unsigned k = 0; k < spin; k++)
                    ;
                for (int a = 0; a < ADDRS; a++)
                    if (mask & (1 << a)) {
                        cell[a]++;
                        atomic_fetch_sub(&inside[a], 1);
                    }
                atomic_fetch_add(&ran, 1);
            }
            if (t % 50 == 49) {
                /* A reader of everything: after every member so far. */
                int at = t;
#pragma omp task depend(in : cell[0], cell[1], cell[2], cell[3]) firstprivate(at) shared(ran, overlaps)
                overlaps += atomic_load(&ran) != at + 1;
            }
        }
        CHECK(atomic_load(&overlaps) == 0, "%d threads, episode %u: %d overlaps or early readers", threads, e,
              atomic_load(&overlaps));
        CHECK(atomic_load(&ran) == TASKS, "%d threads: %d of %d mutexinoutset tasks ran", threads,
              atomic_load(&ran), TASKS);
    }
}

/* ---- random task trees against a serial oracle ---- */

typedef struct tree_params {
    unsigned seed;
    int depth;
} tree_params;

/* The number of nodes of the tree grown from seed at depth (the oracle). */
static long tree_size_serial(unsigned seed, int depth)
{
    if (depth == 0)
        return 1;
    unsigned s = seed;
    int fan = rand_r(&s) % 4; /* 0..3 children */
    long total = 1;
    for (int c = 0; c < fan; c++)
        total += tree_size_serial(seed * 31u + (unsigned)c + 1u, depth - 1);
    return total;
}

static atomic_long visited;

/* The same tree, each child a task; children report through `out`, which
 * the parent reads after taskwait, or after a taskgroup (chosen by seed). */
static long tree_size_tasks(unsigned seed, int depth)
{
    atomic_fetch_add(&visited, 1);
    if (depth == 0)
        return 1;
    unsigned s = seed;
    int fan = rand_r(&s) % 4;
    bool group = rand_r(&s) % 2;
    unsigned delay_seed = seed;
    spin_a_little(&delay_seed);
    long out[3] = {0, 0, 0};
    if (group) {
#pragma omp taskgroup
        for (int c = 0; c < fan; c++) {
#pragma omp task firstprivate(c) shared(out) priority((seed + c) % 12)
            out[c] = tree_size_tasks(seed * 31u + (unsigned)c + 1u, depth - 1);
        }
    } else {
        for (int c = 0; c < fan; c++) {
#pragma omp task firstprivate(c) shared(out) priority((seed + c) % 12)
            out[c] = tree_size_tasks(seed * 31u + (unsigned)c + 1u, depth - 1);
        }
#pragma omp taskwait
    }
    return 1 + out[0] + out[1] + out[2];
}

static void test_random_trees(int threads)
{
    unsigned episodes = scaled(40) + 1;
    for (unsigned e = 0; e < episodes; e++) {
        unsigned seed = 1000u * (unsigned)threads + e;
        int depth = 4 + (int)(e % 5);
        long expected = tree_size_serial(seed, depth), got = 0;
        atomic_store(&visited, 0);
#pragma omp parallel num_threads(threads)
#pragma omp single
        got = tree_size_tasks(seed, depth);
        CHECK(got == expected, "%d threads, tree %u: %ld nodes counted, %ld expected", threads, seed, got, expected);
        CHECK(atomic_load(&visited) == expected, "%d threads: %ld nodes visited, %ld expected", threads,
              atomic_load(&visited), expected);
    }
}

/* Tasks created by every thread before an explicit barrier have all run
 * when any thread leaves it; and those created after it, by the end of the
 * region. */
static void test_barrier_completes_tasks(int threads)
{
    enum { PER_THREAD = 300 };
    atomic_int before = 0, after = 0;
    int bad = 0;
#pragma omp parallel num_threads(threads) reduction(+ : bad)
    {
        unsigned seed = (unsigned)omp_get_thread_num() + 1u;
        for (int i = 0; i < PER_THREAD; i++) {
#pragma omp task shared(before) firstprivate(seed)
            {
                spin_a_little(&seed);
                atomic_fetch_add(&before, 1);
            }
        }
#pragma omp barrier
        bad += atomic_load(&before) != PER_THREAD * threads;
        for (int i = 0; i < PER_THREAD; i++) {
#pragma omp task shared(after)
            atomic_fetch_add(&after, 1);
        }
    }
    CHECK(bad == 0, "%d threads: %d threads left the barrier before every task had run", threads, bad);
    CHECK(atomic_load(&after) == PER_THREAD * threads, "%d threads: %d of %d tasks ran by the region's end",
          threads, atomic_load(&after), PER_THREAD * threads);
}

/* A deferred task may open a parallel region of its own. */
static void test_nested_parallel_in_tasks(void)
{
    omp_set_max_active_levels(2);
    atomic_int inner = 0, levels_ok = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    for (int i = 0; i < 6; i++) {
#pragma omp task shared(inner, levels_ok)
        {
#pragma omp parallel num_threads(2)
            {
                atomic_fetch_add(&inner, 1);
                if (omp_get_level() == 2 && omp_get_num_threads() == 2)
                    atomic_fetch_add(&levels_ok, 1);
            }
        }
    }
    omp_set_max_active_levels(1);
    CHECK(atomic_load(&inner) == 12, "6 tasks x 2 threads: %d inner members ran", atomic_load(&inner));
    CHECK(atomic_load(&levels_ok) == 12, "%d inner members saw level 2 of 2 threads", atomic_load(&levels_ok));
}

/* Very many tiny tasks from every thread: each counted once. */
static void test_many_tasks(int threads)
{
    long per_thread = (long)scaled(300000) / threads + 1;
    atomic_long ran = 0;
#pragma omp parallel num_threads(threads)
    for (long i = 0; i < per_thread; i++) {
#pragma omp task shared(ran)
        atomic_fetch_add_explicit(&ran, 1, memory_order_relaxed);
    }
    CHECK(atomic_load(&ran) == per_thread * threads, "%d threads: %ld of %ld tasks ran", threads,
          atomic_load(&ran), per_thread * threads);
}

int main(void)
{
    /* ctest's second run sets OMP_MAX_TASK_PRIORITY=10: the priority queue
     * must then really be in use. */
    const char *max_priority = getenv("OMP_MAX_TASK_PRIORITY");
    CHECK(omp_get_max_task_priority() == (max_priority ? atoi(max_priority) : 0),
          "omp_get_max_task_priority() is %d with OMP_MAX_TASK_PRIORITY=%s", omp_get_max_task_priority(),
          max_priority ? max_priority : "(unset)");
    for (int k = 0; k < TEAM_SIZES; k++) {
        int n = team_sizes[k];
        test_blocking_tasks_spread(n);
        for (final_kind kind = FINAL_PLAIN; kind <= FINAL_TASKLOOP; kind++)
            test_final_tasks_spread(n, kind);
        test_random_trees(n);
        test_barrier_completes_tasks(n);
        test_many_tasks(n);
        test_mutexinoutset_stress(n);
    }
    test_nested_parallel_in_tasks();
    hit_the_throttle(3);
    test_task_found_while_awake_members_block(3);
    hit_the_throttle(8);
    test_task_found_while_awake_members_block(8);
    printf("task scheduler ok (OMP_MAX_TASK_PRIORITY %d)\n", omp_get_max_task_priority());
    return 0;
}
