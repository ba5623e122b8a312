/* unsigned long long loops (gcc calls the GOMP_loop_ull_* entry points):
 * iteration values beyond 2^32 and across 2^63, increasing and decreasing,
 * with every schedule, ordered and combined: every iteration runs once and
 * the sum of the iteration values (mod 2^64) matches the serial loop. */
#include "corpus.h"

#define N 600

typedef unsigned long long ull;

static int hits[N];
static ull sum;

static void reset(void)
{
    memset(hits, 0, sizeof hits);
    sum = 0;
}

static void record(ull k, ull value)
{
    if (k >= N)
        FAIL("logical iteration %llu out of range", k);
#pragma omp atomic
    hits[k]++;
#pragma omp atomic
    sum += value;
}

static void check(const char *what, ull base, ull step, int down)
{
    ull want = 0;
    for (ull k = 0; k < N; k++)
        want += down ? base - k * step : base + k * step;
    for (int k = 0; k < N; k++)
        CHECK_EQ(hits[k], 1, "%s: runs of logical iteration %d", what, k);
    CHECK(sum == want, "%s: sum of iteration values %#llx, expected %#llx", what, sum, want);
}

int main(void)
{
    corpus_begin("omp_loop_ull");
    corpus_threads();
    /* Values above 2^32 (base 3*2^32+5, step 2^28), and across 2^63. */
    static const ull bases[] = {(3ull << 32) + 5, (1ull << 63) - 300ull * 7};
    static const ull steps[] = {1ull << 28, 7};
    int loops = 0;
    for (int b = 0; b < 2; b++) {
        ull base = bases[b], step = steps[b], end = base + N * step;
#define UP(sched, name)                                                                                \
    do {                                                                                               \
        reset();                                                                                       \
        _Pragma("omp parallel") _Pragma(sched) for (ull i = base; i < end; i += step)                 \
            record((i - base) / step, i);                                                              \
        check(name, base, step, 0);                                                                    \
        loops++;                                                                                       \
    } while (0)
        UP("omp for schedule(static)", "ull static");
        UP("omp for schedule(static, 3)", "ull static,3");
        UP("omp for schedule(dynamic)", "ull dynamic");
        UP("omp for schedule(dynamic, 4)", "ull dynamic,4");
        UP("omp for schedule(monotonic: dynamic, 4)", "ull monotonic dynamic,4");
        UP("omp for schedule(guided)", "ull guided");
        UP("omp for schedule(monotonic: guided, 3)", "ull monotonic guided,3");
        UP("omp for schedule(nonmonotonic: guided, 2)", "ull nonmonotonic guided,2");
        UP("omp for schedule(runtime)", "ull runtime");
        UP("omp for schedule(monotonic: runtime)", "ull monotonic runtime");
        UP("omp for schedule(nonmonotonic: runtime)", "ull nonmonotonic runtime");
        UP("omp for schedule(auto)", "ull auto");
        UP("omp for schedule(dynamic, 2) nowait", "ull dynamic,2 nowait");

        /* Decreasing: i from base + (N-1)*step down to base. */
        ull top = base + (N - 1) * step;
#define DOWN(sched, name)                                                                              \
    do {                                                                                               \
        reset();                                                                                       \
        _Pragma("omp parallel") _Pragma(sched) for (ull i = top; i >= base; i -= step)                 \
            record((top - i) / step, i);                                                               \
        check(name, top, step, 1);                                                                     \
        loops++;                                                                                       \
    } while (0)
        DOWN("omp for schedule(static)", "ull down static");
        DOWN("omp for schedule(dynamic, 3)", "ull down dynamic,3");
        DOWN("omp for schedule(guided)", "ull down guided");

        /* Ordered: the values come in loop order, under four schedules. */
        for (int sched = 0; sched < 4; sched++) {
            ull last = 0, bad = 0;
            int first = 1;
            reset();
#define ORDERED_BODY                                                                                   \
    {                                                                                                  \
        record((i - base) / step, i);                                                                  \
        _Pragma("omp ordered")                                                                         \
        {                                                                                              \
            if (!first && i != last + step)                                                            \
                bad++;                                                                                 \
            first = 0;                                                                                 \
            last = i;                                                                                  \
        }                                                                                              \
    }
            if (sched == 0) {
#pragma omp parallel
#pragma omp for ordered schedule(dynamic, 2)
                for (ull i = base; i < end; i += step)
                    ORDERED_BODY
            } else if (sched == 1) {
#pragma omp parallel
#pragma omp for ordered schedule(static, 3)
                for (ull i = base; i < end; i += step)
                    ORDERED_BODY
            } else if (sched == 2) {
#pragma omp parallel
#pragma omp for ordered schedule(guided)
                for (ull i = base; i < end; i += step)
                    ORDERED_BODY
            } else {
#pragma omp parallel
#pragma omp for ordered schedule(runtime)
                for (ull i = base; i < end; i += step)
                    ORDERED_BODY
            }
            CHECK(bad == 0, "ull ordered (schedule %d): %llu iterations out of order", sched, bad);
            check("ull ordered", base, step, 0);
            loops++;
        }

        /* Combined parallel for. */
        reset();
#pragma omp parallel for schedule(guided, 3)
        for (ull i = base; i < end; i += step)
            record((i - base) / step, i);
        check("ull parallel for guided,3", base, step, 0);
        reset();
#pragma omp parallel for schedule(dynamic)
        for (ull i = base; i < end; i += step)
            record((i - base) / step, i);
        check("ull parallel for dynamic", base, step, 0);
        loops += 2;
    }
    /* An empty unsigned loop and a one-iteration one. */
    int runs = 0;
    ull hi = 1ull << 40;
#pragma omp parallel for schedule(dynamic) reduction(+ : runs)
    for (ull i = hi; i < hi; i++)
        runs++;
#pragma omp parallel for schedule(guided) reduction(+ : runs)
    for (ull i = hi; i < hi + 1; i++)
        runs += 1 + (i != hi);
    CHECK_EQ(runs, 1, "iterations of an empty and a one-iteration ull loop");
    corpus_summary("loops=%d iterations_each=%d ok", loops, N);
    return 0;
}
