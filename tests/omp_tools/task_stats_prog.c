/* Every member of the team creates tiny tasks as fast as it can, and runs
 * them: nobody is idle for long.  Run with MUSTER_OMP_TASK_STATS=1 under
 * libmuster-omp; check_task_stats.py then checks that creating and finishing
 * tasks made (almost) no futex wake-up: a system call per task would show
 * as wake-ups near the task count.  Prints the tasks it ran.
 * usage: task_stats_prog [tasks per thread]   (default 200000) */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long per_thread = argc > 1 ? atol(argv[1]) : 200000;
    atomic_long ran = 0;
    int threads = 0;
#pragma omp parallel
    {
#pragma omp single nowait
        threads = omp_get_num_threads();
        for (long i = 0; i < per_thread; i++) {
#pragma omp task shared(ran)
            atomic_fetch_add_explicit(&ran, 1, memory_order_relaxed);
        }
    }
    printf("threads=%d tasks=%ld ran=%ld\n", threads, per_thread * threads, atomic_load(&ran));
    return atomic_load(&ran) == per_thread * threads ? 0 : 1;
}
