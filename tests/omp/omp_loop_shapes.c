/* Loop shapes: negative steps, empty loops (and loops with fewer iterations
 * than threads), collapse(2) and collapse(3) (also a triangular nest),
 * long bounds near LONG_MAX, nowait, lastprivate (plain, with collapse, and
 * lastprivate(conditional:)), under several schedules. */
#include <limits.h>

#include "corpus.h"

#define MAXN 2000

static int hits[MAXN];

static void reset(void) { memset(hits, 0, sizeof hits); }

static void hit(long k)
{
    if (k < 0 || k >= MAXN)
        FAIL("logical iteration %ld out of range", k);
#pragma omp atomic
    hits[k]++;
}

static void check(int n, const char *what)
{
    for (int k = 0; k < MAXN; k++)
        CHECK_EQ(hits[k], k < n, "%s: runs of logical iteration %d (of %d)", what, k, n);
}

int main(void)
{
    corpus_begin("omp_loop_shapes");
    corpus_threads();
    int loops = 0;

    /* Negative steps: i = 100, 97, ..., -47 (50 iterations). */
#define NEG(sched, name)                                                                               \
    do {                                                                                               \
        reset();                                                                                       \
        _Pragma("omp parallel") _Pragma(sched) for (int i = 100; i > -50; i -= 3) hit((100 - i) / 3);  \
        check(50, name);                                                                               \
        loops++;                                                                                       \
    } while (0)
    NEG("omp for schedule(static)", "step -3 static");
    NEG("omp for schedule(static, 4)", "step -3 static,4");
    NEG("omp for schedule(dynamic, 3)", "step -3 dynamic,3");
    NEG("omp for schedule(guided)", "step -3 guided");
    NEG("omp for schedule(runtime)", "step -3 runtime");
    NEG("omp for schedule(monotonic: dynamic)", "step -3 monotonic dynamic");

    /* long bounds at the top and bottom of the range (never letting the
     * variable's last increment overflow, which OpenMP leaves undefined). */
    reset();
#pragma omp parallel for schedule(dynamic, 5)
    for (long i = LONG_MAX; i > LONG_MAX - 7 * 300L; i -= 7)
        hit((LONG_MAX - i) / 7);
    check(300, "long near LONG_MAX, step -7");
    reset();
#pragma omp parallel for schedule(guided, 2)
    for (long i = LONG_MAX - 1000000L; i <= LONG_MAX - 1000000L + 11 * 399L; i += 11)
        hit((i - (LONG_MAX - 1000000L)) / 11);
    check(400, "long near LONG_MAX, step 11");
    reset();
#pragma omp parallel for schedule(static, 3)
    for (long i = LONG_MIN + 5; i < LONG_MIN + 5 + 13 * 100L; i += 13)
        hit((i - (LONG_MIN + 5)) / 13);
    check(100, "long near LONG_MIN, step 13");
    loops += 3;

    /* Empty loops and loops with fewer iterations than threads. */
    int runs = 0;
    volatile int zero = 0, two = 2, ten = 10;
#pragma omp parallel reduction(+ : runs)
    {
#pragma omp for schedule(static)
        for (int i = zero; i < zero; i++)
            runs += 1000;
#pragma omp for schedule(static, 2)
        for (int i = ten; i < zero; i++)
            runs += 1000;
#pragma omp for schedule(dynamic)
        for (int i = zero; i < zero; i++)
            runs += 1000;
#pragma omp for schedule(guided) nowait
        for (int i = ten; i > ten; i--)
            runs += 1000;
#pragma omp for schedule(runtime)
        for (int i = 5; i < 5 - zero; i++)
            runs += 1000;
#pragma omp for schedule(dynamic, 4)
        for (int i = 0; i < two; i++)
            runs += 1;
#pragma omp for schedule(static)
        for (int i = 0; i < two; i++)
            runs += 1;
#pragma omp for schedule(guided, 3) nowait
        for (int i = 0; i < two; i++)
            runs += 1;
    }
    CHECK_EQ(runs, 6, "iterations run by five empty loops and three two-iteration loops");
    loops += 8;

    /* collapse(2) and collapse(3). */
#define COLL2(sched, name)                                                                             \
    do {                                                                                               \
        reset();                                                                                       \
        _Pragma("omp parallel") _Pragma(sched) for (int i = 0; i < 17; i++) for (int j = 5; j > -25; j -= 2) \
            hit(i * 15 + (5 - j) / 2);                                                                 \
        check(17 * 15, name);                                                                          \
        loops++;                                                                                       \
    } while (0)
    COLL2("omp for collapse(2) schedule(static)", "collapse(2) static");
    COLL2("omp for collapse(2) schedule(static, 7)", "collapse(2) static,7");
    COLL2("omp for collapse(2) schedule(dynamic, 4)", "collapse(2) dynamic,4");
    COLL2("omp for collapse(2) schedule(guided)", "collapse(2) guided");
    COLL2("omp for collapse(2) schedule(runtime)", "collapse(2) runtime");
    reset();
#pragma omp parallel for collapse(3) schedule(dynamic, 2)
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 7; j++)
            for (int k = 0; k < 9; k++)
                hit((i * 7 + j) * 9 + k);
    check(5 * 7 * 9, "collapse(3) dynamic,2");
    /* A triangular nest (j from i; no schedule clause allowed): n(n+1)/2 iterations. */
    reset();
#pragma omp parallel for collapse(2)
    for (int i = 0; i < 40; i++)
        for (int j = i; j < 40; j++)
            hit(i * 40 + j);
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 40; j++)
            CHECK_EQ(hits[i * 40 + j], j >= i, "triangular collapse(2): runs of (%d, %d)", i, j);
    /* An empty inner loop makes the whole collapsed nest empty. */
    runs = 0;
#pragma omp parallel for collapse(2) schedule(guided) reduction(+ : runs)
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < zero; j++)
            runs++;
    CHECK_EQ(runs, 0, "iterations of a collapsed nest with an empty inner loop");
    loops += 3;

    /* lastprivate: the value from the sequentially last iteration. */
#define LASTP(sched, name)                                                                             \
    do {                                                                                               \
        int li = -1, lv = -1;                                                                          \
        _Pragma("omp parallel") _Pragma(sched) for (int i = 3; i < 1000; i += 7)                       \
        {                                                                                              \
            li = i;                                                                                    \
            lv = i * 2 + 1;                                                                            \
        }                                                                                              \
        CHECK_EQ(li, 997, "%s: lastprivate loop variable copy", name);                                 \
        CHECK_EQ(lv, 997 * 2 + 1, "%s: lastprivate value", name);                                     \
        loops++;                                                                                       \
    } while (0)
    LASTP("omp for schedule(static) lastprivate(li, lv)", "lastprivate static");
    LASTP("omp for schedule(static, 5) lastprivate(li, lv)", "lastprivate static,5");
    LASTP("omp for schedule(dynamic, 3) lastprivate(li, lv)", "lastprivate dynamic,3");
    LASTP("omp for schedule(guided) lastprivate(li, lv)", "lastprivate guided");
    LASTP("omp for schedule(runtime) lastprivate(li, lv)", "lastprivate runtime");
    LASTP("omp for schedule(dynamic) lastprivate(li, lv) nowait", "lastprivate dynamic nowait");
    int ci = -1, cj = -1;
#pragma omp parallel for collapse(2) schedule(dynamic, 2) lastprivate(ci, cj)
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 11; j++)
            ci = i, cj = j;
    CHECK(ci == 8 && cj == 10, "lastprivate with collapse(2): (%d, %d), expected (8, 10)", ci, cj);
    /* lastprivate(conditional:): the value of the last iteration that
     * assigned it.  clang 14 compiles it as a plain lastprivate (the last
     * chunk's thread's value: seen in its IR), which no runtime can mend. */
#ifndef __clang__
    int cond = -1;
#pragma omp parallel for schedule(dynamic, 4) lastprivate(conditional : cond)
    for (int i = 0; i < 500; i++)
        if (i % 37 == 5)
            cond = i;
    CHECK_EQ(cond, 486, "lastprivate(conditional:) after a dynamic loop");
#endif
    loops += 2;

    /* nowait loops filling two arrays, a barrier, then a loop reading both. */
    static int a[MAXN], b[MAXN];
    long long total = 0;
#pragma omp parallel reduction(+ : total)
    {
#pragma omp for schedule(dynamic, 16) nowait
        for (int i = 0; i < MAXN; i++)
            a[i] = i;
#pragma omp for schedule(guided) nowait
        for (int i = 0; i < MAXN; i++)
            b[i] = 2 * i;
#pragma omp barrier
#pragma omp for schedule(static, 3) nowait
        for (int i = 0; i < MAXN; i++)
            total += a[MAXN - 1 - i] + b[i];
    }
    CHECK_EQ(total, 3LL * MAXN * (MAXN - 1) / 2, "sum over nowait-filled arrays");
    loops += 3;
    corpus_summary("loops=%d ok", loops);
    return 0;
}
