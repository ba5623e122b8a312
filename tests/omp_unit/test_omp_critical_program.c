/* critical, atomic fallbacks and locks as gcc 12 emits them, in parallel
 * regions of 2, 3, 4 and 8 threads (more than this machine's CPUs): an
 * OpenMP program compiled with -fopenmp and linked against libmuster-omp.
 * Each construct protects a non-atomic read-modify-write with a yield in
 * the middle, so overlapping sections lose updates. */
#include <omp.h>
#include <sched.h>

#include "check.h"

static const int team_sizes[] = {2, 3, 4, 8};
enum { ROUNDS = 3000 };

static void yield_sometimes(int i)
{
    if (i % 64 == 0)
        sched_yield(); /* a preemption inside the section */
}

static void test_constructs(int threads)
{
    long unnamed = 0, alpha = 0, beta = 0, locked = 0, nested = 0;
    long double wide = 0; /* no lock-free 16-byte add: GOMP_atomic_start/end */
    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock_with_hint(&lock, omp_sync_hint_contended);
    omp_init_nest_lock(&nest);
#pragma omp parallel num_threads(threads)
    for (int i = 0; i < ROUNDS; i++) {
#pragma omp critical
        {
            long seen = unnamed;
            yield_sometimes(i);
            unnamed = seen + 1;
        }
#pragma omp critical(alpha)
        {
            long seen = alpha;
            yield_sometimes(i + 1);
            alpha = seen + 1;
        }
#pragma omp critical(beta) hint(omp_sync_hint_uncontended)
        beta += 2;
#pragma omp atomic
        wide += 1.0L;
        omp_set_lock(&lock);
        {
            long seen = locked;
            yield_sometimes(i + 2);
            locked = seen + 1;
        }
        omp_unset_lock(&lock);
        omp_set_nest_lock(&nest);
        if (omp_test_nest_lock(&nest) == 2) {
            long seen = nested;
            yield_sometimes(i + 3);
            nested = seen + 1;
            omp_unset_nest_lock(&nest);
        }
        omp_unset_nest_lock(&nest);
    }
    long expected = (long)threads * ROUNDS;
    CHECK(unnamed == expected, "%d threads: unnamed critical %ld, expected %ld", threads, unnamed, expected);
    CHECK(alpha == expected && beta == 2 * expected, "%d threads: named criticals %ld %ld", threads, alpha, beta);
    CHECK(wide == (long double)expected, "%d threads: long double atomic %Lf", threads, wide);
    CHECK(locked == expected, "%d threads: omp_set_lock %ld", threads, locked);
    CHECK(nested == expected, "%d threads: nest lock %ld", threads, nested);
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
}

int main(void)
{
    for (size_t i = 0; i < sizeof team_sizes / sizeof team_sizes[0]; i++)
        test_constructs(team_sizes[i]);
    printf("test_omp_critical_program: ok\n");
    return 0;
}
