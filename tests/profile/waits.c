/* A program whose waits are known, for `muster profile` (check_profile.py).
 * Its "work" is sleeping, so that the times do not depend on how many
 * CPUs the threads share:
 *   - region A (IMBALANCED): thread i sleeps (i + 1) * STEP_US, then an
 *     explicit barrier (BARRIER_LINE): thread 0 waits the longest there;
 *   - region B (LOCKED): every thread takes a critical section (CRITICAL_LINE)
 *     LOCK_ROUNDS times and holds it HOLD_US: the others wait for it;
 *   - region C (TASKS): one thread makes TASKS tasks that sleep TASK_US,
 *     and waits for them (TASKWAIT_LINE).
 * It prints the lines of those constructs and the counts to expect, as
 *   profile-expect: KEY=VALUE ...
 * Each region runs RUNS times. */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

enum { RUNS = 5, STEP_US = 4000, LOCK_ROUNDS = 4, HOLD_US = 1000, TASKS = 12, TASK_US = 2000 };

static int imbalanced_line, barrier_line, locked_line, critical_line, tasks_line, taskwait_line;

static void imbalanced(void)
{
    imbalanced_line = __LINE__ + 1;
#pragma omp parallel
    {
        usleep((useconds_t)(omp_get_thread_num() + 1) * STEP_US);
        barrier_line = __LINE__ + 1;
#pragma omp barrier
    }
}

static void locked(void)
{
    static int held;
    locked_line = __LINE__ + 1;
#pragma omp parallel
    {
        for (int r = 0; r < LOCK_ROUNDS; r++) {
            critical_line = __LINE__ + 1;
#pragma omp critical
            {
                held++;
                usleep(HOLD_US);
            }
        }
    }
}

static int tasks(void)
{
    int done = 0;
    tasks_line = __LINE__ + 1;
#pragma omp parallel
    {
#pragma omp single
        {
            for (int t = 0; t < TASKS; t++) {
#pragma omp task shared(done)
                {
                    usleep(TASK_US);
#pragma omp atomic
                    done++;
                }
            }
            taskwait_line = __LINE__ + 1;
#pragma omp taskwait
        }
    }
    return done;
}

int main(void)
{
    int made = 0;
    for (int run = 0; run < RUNS; run++) {
        imbalanced();
        locked();
        made += tasks();
    }
    int threads = 0;
#pragma omp parallel
#pragma omp single
    threads = omp_get_num_threads();
    printf("profile-expect: threads=%d runs=%d imbalanced=%d barrier=%d locked=%d critical=%d tasks=%d "
           "taskwait=%d critical_count=%d tasks_made=%d\n",
           threads, RUNS, imbalanced_line, barrier_line, locked_line, critical_line, tasks_line, taskwait_line,
           RUNS * threads * LOCK_ROUNDS, made);
    return made == RUNS * TASKS ? 0 : 1;
}
