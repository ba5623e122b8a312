/* parallel: team sizes (default, num_threads, omp_set_num_threads, if),
 * proc_bind, thread numbers, data sharing, and many regions whose team size
 * changes from one to the next (the pool must stay consistent). */
#include "corpus.h"

#define MAXT 64

/* Runs one region of `want` threads (0: the default) with if(cond) and
 * checks that every thread number 0..n-1 ran exactly once; returns n. */
static int region(int want, int cond, int expect)
{
    int count[MAXT] = {0};
    int size = -1, bad = 0;
    int shared_before = 41;
#pragma omp parallel num_threads(want > 0 ? want : corpus_threads()) if(cond) shared(count, size, bad)
    {
        int id = omp_get_thread_num(), n = omp_get_num_threads();
        if (id < 0 || id >= n || n > MAXT)
            FAIL("thread number %d in a team of %d", id, n);
#pragma omp atomic
        count[id]++;
        if (id == 0)
            size = n;
        if (shared_before != 41)
#pragma omp atomic write
            bad = 1;
    }
    CHECK(!bad, "a shared variable read wrong in a region");
    CHECK_EQ(size, expect, "team size of a region with num_threads(%d) if(%d)", want, cond);
    for (int i = 0; i < size; i++)
        CHECK_EQ(count[i], 1, "times thread %d of %d ran the region", i, size);
    for (int i = size; i < MAXT; i++)
        CHECK_EQ(count[i], 0, "times absent thread %d ran", i);
    return size;
}

int main(void)
{
    corpus_begin("omp_parallel");
    int T = corpus_threads();
    if (T > 16)
        FAIL("run with OMP_NUM_THREADS <= 16 (got %d)", T);

    /* The default team, and its view of the team queries. */
    int fails = 0;
#pragma omp parallel reduction(+ : fails)
    {
        int id = omp_get_thread_num(), n = omp_get_num_threads();
        fails += n != T;
        fails += omp_get_level() != 1;
        fails += omp_get_active_level() != (n > 1);
        fails += omp_in_parallel() != (n > 1);
        fails += omp_get_ancestor_thread_num(0) != 0;
        fails += omp_get_ancestor_thread_num(1) != id;
        fails += omp_get_ancestor_thread_num(2) != -1;
        fails += omp_get_ancestor_thread_num(-1) != -1;
        fails += omp_get_team_size(0) != 1;
        fails += omp_get_team_size(1) != n;
        fails += omp_get_team_size(2) != -1;
    }
    CHECK_EQ(fails, 0, "wrong team queries in the default region (of %d threads)", T);

    int total = region(0, 1, T);
    /* num_threads below, at and above OMP_NUM_THREADS (dynamic adjustment off: exact). */
    static const int wants[] = {1, 2, 3, 5, 7, 1, 6, 2};
    for (unsigned k = 0; k < sizeof wants / sizeof *wants; k++)
        total += region(wants[k], 1, wants[k]);
    /* if(false): a team of one, whatever num_threads says. */
    total += region(3, 0, 1);
    total += region(0, 0, 1);

    /* omp_set_num_threads changes nthreads-var for later regions. */
    omp_set_num_threads(3);
    CHECK_EQ(omp_get_max_threads(), 3, "omp_get_max_threads after omp_set_num_threads(3)");
    total += region(0, 1, 3);
    omp_set_num_threads(T);
    CHECK_EQ(omp_get_max_threads(), T, "omp_get_max_threads after restoring");

    /* proc_bind: any policy must still give the requested team and run every thread once. */
    int bound[4] = {0};
#pragma omp parallel num_threads(3) proc_bind(close)
#pragma omp atomic
    bound[0] += omp_get_thread_num() + 1;
#pragma omp parallel num_threads(3) proc_bind(spread)
#pragma omp atomic
    bound[1] += omp_get_thread_num() + 1;
#pragma omp parallel num_threads(3) proc_bind(master)
#pragma omp atomic
    bound[2] += omp_get_thread_num() + 1;
#pragma omp parallel proc_bind(primary)
#pragma omp atomic
    bound[3] += omp_get_thread_num() + 1;
    for (int k = 0; k < 3; k++)
        CHECK_EQ(bound[k], 6, "sum of thread numbers + 1 in proc_bind region %d of 3 threads", k);
    CHECK_EQ(bound[3], T * (T + 1) / 2, "sum of thread numbers + 1 in proc_bind(primary) region");

    /* Private, firstprivate and shared data. */
    int first = 7, priv = -1, sum = 0;
#pragma omp parallel firstprivate(first) private(priv) reduction(+ : sum)
    {
        priv = omp_get_thread_num();
        first += priv;
        sum += first;
    }
    CHECK_EQ(sum, 7 * T + T * (T - 1) / 2, "sum of firstprivate copies");
    CHECK_EQ(first, 7, "firstprivate original after the region");

    /* Many regions with team sizes changing between them. */
    long long ids = 0, want_ids = 0;
    for (int r = 0; r < 60; r++) {
        int n = 1 + (r * 7) % (T + 2);
        long long local = 0;
#pragma omp parallel num_threads(n) reduction(+ : local)
        local += omp_get_thread_num() + 1 + 100 * (omp_get_num_threads() != n);
        ids += local;
        want_ids += (long long)n * (n + 1) / 2;
    }
    CHECK_EQ(ids, want_ids, "sum of thread numbers over 60 regions of changing sizes");

    /* Back-to-back regions of the default size. */
    int runs = 0;
    for (int r = 0; r < 40; r++) {
#pragma omp parallel
#pragma omp atomic
        runs++;
    }
    CHECK_EQ(runs, 40 * T, "thread starts over 40 default regions");

    corpus_summary("team=%d members_over_fixed_regions=%d changing_regions=60 ok", T, total);
    return 0;
}
