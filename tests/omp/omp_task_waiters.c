/* Tasks that wait for a task created after them (issue #11: "tasks that
 * sleep or spin until another task acts").  In each round one thread, in
 * `single` or `master`, makes T - 1 waiter tasks, each spinning (with
 * sched_yield) or sleeping until a flag shows the round, and then the
 * setter task that raises the flag.  OpenMP lets a runtime run any task at
 * once in its creator, so this is not a conforming program; but libgomp
 * and libomp queue such tasks and finish whenever fewer tasks wait than
 * the team has other threads, and a drop-in runtime must too: before the
 * "early tasks" rule (src/omp/task/defer.h) libmuster-omp ran the second waiter
 * in its creator whenever threads outnumbered CPUs (3 threads on 2 CPUs),
 * which then spun forever, the setter never made.
 *
 * A waiter gives up after WAIT_S seconds and the program fails, rather than
 * hang.  Rounds alternate spinning and sleeping waiters, `single` (the
 * others wait at its barrier) and `master` followed by a barrier, and a
 * fresh region with the same team. */
#include <sched.h>
#include <stdatomic.h>

#include "corpus.h"

enum { ROUNDS = 24, WAIT_S = 10 };

static atomic_int flag;           /* the last round whose setter ran */
static atomic_int waiters_done;   /* waiters that saw their round's flag */
static atomic_int waiters_failed; /* waiters that gave up */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void wait_for_round(int round, int sleeping)
{
    double give_up = now_s() + WAIT_S;
    while (atomic_load(&flag) < round) {
        if (now_s() > give_up) {
            atomic_fetch_add(&waiters_failed, 1);
            return;
        }
        if (sleeping) {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        } else {
            sched_yield();
        }
    }
    atomic_fetch_add(&waiters_done, 1);
}

/* The round's tasks: `waiters` waiters, then the setter. */
static void make_round(int round, int waiters, int sleeping)
{
    for (int k = 0; k < waiters; k++) {
#pragma omp task firstprivate(round, sleeping)
        wait_for_round(round, sleeping);
    }
#pragma omp task firstprivate(round)
    atomic_store(&flag, round);
}

int main(void)
{
    corpus_begin("omp_task_waiters");
    int T = corpus_threads();
    int waiters = T - 1, expected = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        int sleeping = round % 2, in_master = (round / 2) % 2;
#pragma omp parallel
        {
            if (in_master) {
#pragma omp master
                make_round(round, waiters, sleeping);
#pragma omp barrier
            } else {
#pragma omp single
                make_round(round, waiters, sleeping);
            }
        }
        expected += waiters;
        CHECK_EQ(atomic_load(&flag), round, "round %d: the setter ran by the region's end", round);
        CHECK_EQ(atomic_load(&waiters_failed), 0,
                 "round %d: a waiter waited %d s for a task made after it (its creator ran it at once?)", round,
                 WAIT_S);
        CHECK_EQ(atomic_load(&waiters_done), expected, "round %d: every waiter finished by the region's end", round);
    }
    corpus_summary("rounds=%d waiters_per_round=%d", ROUNDS, waiters);
    return 0;
}
