/* How libmuster-omp decides to queue a task or run it at once.
 *
 * Part 1, everyone busy: member 0 creates TASKS tasks while every other
 * member is busy in user code (spinning on a flag, not waiting in the
 * runtime).  Nobody is hungry, so each task after member 0's first
 * size - 1 (queued whoever is hungry: task/defer.h, early tasks) must run at
 * once, on member 0, in creation order: the serial order, which is
 * what a branch-and-bound search needs (a deferred task would run after
 * tasks created later).  Before them member 0 runs a few long if(0)
 * tasks: undeferred tasks say nothing about how deferrable ones are
 * planned (counted as long ones, they queued all 2000).
 *
 * Part 2, the others hungry: member 0 creates slow tasks while the others
 * wait at the single's barrier.  They are hungry, so tasks must be queued
 * for them: some run on a member other than 0.
 *
 * Part 3, the top of a recursion: with the others busy in user code,
 * member 0 runs a task at once that creates two children.  While one runs
 * on member 0, the other must be queued, for a member that runs out of
 * work to take (task/defer.h: delayed siblings below a parent run at once,
 * help first below one that was queued): each child, once started,
 * releases the others and waits, up to 2 s, for the other to start
 * elsewhere.  Run at once, the second would not exist before the
 * first had returned.  Before
 * that, member 0 runs recursions three deep, whose tasks two levels down
 * create tasks: what it learns from them must not turn the delay off
 * (under OMP_CANCELLATION=true it did: tasks made there were not counted
 * as their creator's).
 *
 * Part 4, long tasks made in a loop: with the others busy in user code,
 * member 0's implicit task makes LONG_TASKS tasks of 100 us (long ones, as
 * the task wing samples lengths; they all run on member 0), then two more, each
 * of which, once started, releases the others and waits, up to 2 s, for
 * the other to start.  Long tasks are queued, not run at once: while one
 * of the two runs on member 0 the other must be there for a member that
 * runs out of work.  Run at once, as short tasks are, the second would not
 * exist before the first had returned.
 *
 * Part 5, dependence tasks ready when made: with the others busy in user
 * code, member 0 makes two tasks with dependences on different addresses,
 * so both are ready at once; each, once started, releases the others and
 * waits, up to 2 s, for the other to start.  A ready dependence task is
 * queued whoever is busy (task/defer.h, muster_omp_defer_ready): run at once, the
 * second would not exist before the first had returned.
 *
 * Prints what it saw; exit status 0 when all five hold, 1 otherwise.  Only
 * meaningful under libmuster-omp (libgomp and libomp queue every task). */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define TASKS 2000
#define SLOW_TASKS 64

static int ran_on[TASKS], order[TASKS];
static atomic_int next_slot;

static void busy_ns(long ns)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
}

#define LONG_UNDEFERRED 4

static int everyone_busy(void)
{
    atomic_int created_all = 0;
    atomic_store(&next_slot, 0);
#pragma omp parallel shared(created_all)
    {
        if (omp_get_thread_num() == 0) {
            /* Long undeferred tasks first: whatever their length, they
             * must not change how the deferrable ones are planned. */
            for (int k = 0; k < LONG_UNDEFERRED; k++) {
#pragma omp task if (0)
                busy_ns(100000);
            }
            for (int i = 0; i < TASKS; i++) {
#pragma omp task firstprivate(i)
                {
                    ran_on[i] = omp_get_thread_num();
                    order[atomic_fetch_add(&next_slot, 1)] = i;
                }
            }
            atomic_store(&created_all, 1);
        } else {
            while (!atomic_load(&created_all))
                ; /* busy in user code: not looking for tasks */
        }
    }
    /* Member 0's first size - 1 tasks are queued (task/defer.h, early tasks: a
     * task may wait for one made after it); every later one ran at once,
     * in order, on member 0. */
    int early = omp_get_max_threads() - 1;
    int out_of_order = 0, elsewhere = 0, k = early - 1;
    for (int slot = 0; slot < TASKS; slot++) {
        if (order[slot] < early)
            continue;
        k++;
        out_of_order += order[slot] != k;
    }
    for (int i = early; i < TASKS; i++)
        elsewhere += ran_on[i] != 0;
    printf("everyone busy: %d of %d tasks out of creation order, %d ran on another member\n", out_of_order,
           TASKS - early, elsewhere);
    return out_of_order == 0 && elsewhere == 0;
}

static int others_hungry(void)
{
    int elsewhere = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < SLOW_TASKS; i++) {
#pragma omp task shared(elsewhere)
        {
            busy_ns(200000);
            if (omp_get_thread_num() != 0) {
#pragma omp atomic
                elsewhere++;
            }
        }
    }
    printf("others hungry: %d of %d slow tasks ran on another member\n", elsewhere, SLOW_TASKS);
    return elsewhere > 0;
}

static atomic_int first_running, child_on[2], child_done[2], saw_other[2], spinning;

static long elapsed_ns(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

/* Child `which` of the two that tell whether the one not running was
 * stealable: says where it runs, releases members waiting for
 * first_running, waits up to 2 s for the other to start, and notes in
 * saw_other whether the other was running then (started, not done: one
 * that ran before or after this one was not side by side).  Set
 * first_running to 0, child_on[] to -1, child_done[] and saw_other[] to 0
 * before. */
static void one_of_two(int which)
{
    atomic_store(&child_on[which], omp_get_thread_num());
    atomic_store(&first_running, 1);
    struct timespec w0;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    while (atomic_load(&child_on[1 - which]) < 0 && elapsed_ns(&w0) < 2000000000L)
        ;
    atomic_store(&saw_other[which], atomic_load(&child_on[1 - which]) >= 0 && !atomic_load(&child_done[1 - which]));
    atomic_store(&child_done[which], 1);
}

#define WARM_UP_RECURSIONS 8

static int sibling_stealable(void)
{
    atomic_store(&first_running, 0);
    atomic_store(&child_on[0], -1);
    atomic_store(&child_on[1], -1);
    for (int c = 0; c < 2; c++) {
        atomic_store(&child_done[c], 0);
        atomic_store(&saw_other[c], 0);
    }
    atomic_store(&spinning, 0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
#pragma omp parallel shared(t0)
    {
        if (omp_get_thread_num() == 0) {
            /* Every other member busy in user code first: one still
             * leaving the last region's end may count as hungry. */
            while (atomic_load(&spinning) < omp_get_num_threads() - 1 && elapsed_ns(&t0) < 4000000000L)
                ;
            /* The team's first task may be queued whatever the others do:
             * get it out of the way. */
#pragma omp task
            busy_ns(1000);
#pragma omp taskwait
            /* Recursions three deep first: member 0 learns that tasks two
             * levels down create tasks, as the check's do not. */
            for (int r = 0; r < WARM_UP_RECURSIONS; r++) {
#pragma omp task
                {
                    for (int c = 0; c < 2; c++) {
#pragma omp task
                        {
#pragma omp task
                            busy_ns(100);
                        }
                    }
#pragma omp taskwait
                }
            }
#pragma omp taskwait
#pragma omp task
            {
#pragma omp task
                one_of_two(0);
#pragma omp task
                one_of_two(1);
#pragma omp taskwait
            }
        } else {
            /* busy in user code until the first child runs (or 8 s pass) */
            atomic_fetch_add(&spinning, 1);
            while (!atomic_load(&first_running) && elapsed_ns(&t0) < 8000000000L)
                ;
        }
    }
    int first = atomic_load(&child_on[0]), second = atomic_load(&child_on[1]);
    int side_by_side = first >= 0 && second >= 0 && first != second &&
                       (atomic_load(&saw_other[0]) || atomic_load(&saw_other[1]));
    printf("top of a recursion: the two children %s\n", side_by_side ? "ran side by side" : "did not run side by side");
    return side_by_side;
}

#define LONG_TASKS 100

static atomic_int two_started;

/* One of two tasks: releases the members waiting for first_running and
 * waits for the other to start; 1 when it did while this one ran. */
static int both_of_two(void)
{
    atomic_fetch_add(&two_started, 1);
    atomic_store(&first_running, 1);
    struct timespec w0;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    while (atomic_load(&two_started) < 2 && elapsed_ns(&w0) < 2000000000L)
        ;
    return atomic_load(&two_started) == 2;
}

static int long_tasks_queued(void)
{
    int side_by_side = 0, ran_elsewhere = 0;
    atomic_store(&first_running, 0);
    atomic_store(&two_started, 0);
    atomic_store(&spinning, 0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
#pragma omp parallel shared(side_by_side, ran_elsewhere, t0)
    {
        if (omp_get_thread_num() == 0) {
            while (atomic_load(&spinning) < omp_get_num_threads() - 1 && elapsed_ns(&t0) < 4000000000L)
                ;
            for (int i = 0; i < LONG_TASKS; i++) {
#pragma omp task shared(ran_elsewhere)
                {
                    busy_ns(100000);
                    if (omp_get_thread_num() != 0) {
#pragma omp atomic
                        ran_elsewhere++;
                    }
                }
            }
            /* Those ran on member 0 by its end (the others were busy). */
#pragma omp taskwait
            for (int k = 0; k < 2; k++) {
#pragma omp task shared(side_by_side)
                {
                    int both = both_of_two(); /* the two may end together */
#pragma omp atomic
                    side_by_side += both;
                }
            }
        } else {
            atomic_fetch_add(&spinning, 1);
            while (!atomic_load(&first_running) && elapsed_ns(&t0) < 8000000000L)
                ;
        }
    }
    /* The team's first task may have run elsewhere, and a member leaving
     * the last region may have been hungry for one more. */
    printf("long tasks in a loop: the last two %s (%s)\n", side_by_side == 2 ? "ran side by side" : "did not",
           ran_elsewhere <= 2 ? "the earlier ones ran on member 0" : "earlier ones ran elsewhere");
    return side_by_side == 2 && ran_elsewhere <= 2;
}

static int dependence_tasks_queued(void)
{
    int side_by_side = 0, x = 0, y = 0;
    atomic_store(&first_running, 0);
    atomic_store(&two_started, 0);
    atomic_store(&spinning, 0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
#pragma omp parallel shared(side_by_side, x, y, t0)
    {
        if (omp_get_thread_num() == 0) {
            while (atomic_load(&spinning) < omp_get_num_threads() - 1 && elapsed_ns(&t0) < 4000000000L)
                ;
            /* The team's first task may be queued whatever the others do. */
#pragma omp task
            busy_ns(1000);
#pragma omp taskwait
#pragma omp task depend(out : x) shared(side_by_side, x)
            {
                int both = both_of_two();
#pragma omp atomic
                side_by_side += both;
                x = 1;
            }
#pragma omp task depend(out : y) shared(side_by_side, y)
            {
                int both = both_of_two();
#pragma omp atomic
                side_by_side += both;
                y = 1;
            }
        } else {
            atomic_fetch_add(&spinning, 1);
            while (!atomic_load(&first_running) && elapsed_ns(&t0) < 8000000000L)
                ;
        }
    }
    printf("dependence tasks ready when made: the two %s\n", side_by_side == 2 ? "ran side by side" : "did not");
    return side_by_side == 2 && x == 1 && y == 1;
}

int main(void)
{
    int ok = everyone_busy();
    ok &= others_hungry();
    ok &= sibling_stealable();
    ok &= long_tasks_queued();
    ok &= dependence_tasks_queued();
    return ok ? 0 : 1;
}
