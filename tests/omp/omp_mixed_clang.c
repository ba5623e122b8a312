/* omp_mixed's half built by clang: see omp_mixed.c. */
#include <omp.h>

void gcc_half_loop(long *sum);

void clang_half_in_gcc_team(long *total, omp_lock_t *lock, long *locked, int *singles, int round)
{
#pragma omp for schedule(static) reduction(+ : total[0])
    for (int i = 0; i < 300; i++)
        total[0] += i;
    for (int i = 0; i < 100; i++) {
        omp_set_lock(lock);
        long v = *locked; /* plain: the lock orders it */
        *locked = v + 1;
        omp_unset_lock(lock);
    }
#pragma omp single
    ++*singles;
#pragma omp for schedule(dynamic, 1 + round % 5) nowait
    for (int i = 0; i < 300; i++) {
#pragma omp atomic
        total[0] += i;
    }
#pragma omp barrier
}

void clang_half_forks(long *sum, int threads)
{
#pragma omp parallel num_threads(threads)
    gcc_half_loop(sum);
}
