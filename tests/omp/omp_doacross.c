/* Doacross loops: ordered(n) with depend(sink:) and depend(source).  A
 * recurrence a[i] = f(a[i-1], i) under several schedules, a 2-D wavefront
 * a[i][j] = g(a[i-1][j], a[i][j-1]) with ordered(2), a sink two iterations
 * back with step 2, and an unsigned long long loop; each result must equal
 * the serial computation, which it can only if every sink waited.
 *
 * Sizes are small: libgomp's GOMP_doacross_wait spins without ever
 * sleeping, so with more threads than CPUs every hand-over from one thread
 * to the next can cost a time slice.  Schedules that hand over at every
 * iteration (static,1, dynamic, ...) run SHORT iterations. */
#include "corpus.h"

#define N 240
#define SHORT 24
#define R 6
#define C 5

typedef unsigned long long ull;

static unsigned f(unsigned prev, int i) { return prev * 2654435761u + (unsigned)i; }

int main(void)
{
    corpus_begin("omp_doacross");
    corpus_threads();
    static unsigned a[N], want[N];
    want[0] = 1;
    for (int i = 1; i < N; i++)
        want[i] = f(want[i - 1], i);
    int loops = 0;

#define REC(sched, name, n)                                                                           \
    do {                                                                                              \
        memset(a, 0, sizeof a);                                                                       \
        a[0] = 1;                                                                                     \
        _Pragma("omp parallel")                                                                       \
        {                                                                                             \
            uint64_t seed = corpus_seed(omp_get_thread_num(), (unsigned)loops);                      \
            _Pragma(sched) for (int i = 1; i < (n); i++)                                              \
            {                                                                                         \
                corpus_delay(&seed, 0);                                                               \
                _Pragma("omp ordered depend(sink: i - 1)")                                            \
                a[i] = f(a[i - 1], i);                                                                \
                _Pragma("omp ordered depend(source)")                                                 \
                corpus_delay(&seed, 0);                                                               \
            }                                                                                         \
        }                                                                                             \
        for (int i = 0; i < (n); i++)                                                                 \
            CHECK(a[i] == want[i], "%s: a[%d] = %u, expected %u", name, i, a[i], want[i]);            \
        loops++;                                                                                      \
    } while (0)
    REC("omp for ordered(1) schedule(static)", "doacross static", N);
    REC("omp for ordered(1) schedule(static, 1)", "doacross static,1", SHORT);
    REC("omp for ordered(1) schedule(dynamic, 2)", "doacross dynamic,2", SHORT);
    REC("omp for ordered(1) schedule(guided)", "doacross guided", SHORT);
    REC("omp for ordered(1) schedule(runtime)", "doacross runtime", N);

    /* 2-D wavefront. */
    static unsigned g[R][C], gw[R][C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            gw[i][j] = (i == 0 || j == 0) ? (unsigned)(i + j + 1) : gw[i - 1][j] * 3u + gw[i][j - 1] * 5u + 1u;
#define WAVE(sched, name)                                                                                         \
    do {                                                                                                          \
        memset(g, 0, sizeof g);                                                                                   \
        for (int i = 0; i < R; i++)                                                                               \
            g[i][0] = (unsigned)(i + 1);                                                                          \
        for (int j = 0; j < C; j++)                                                                               \
            g[0][j] = (unsigned)(j + 1);                                                                          \
        _Pragma(sched) for (int i = 1; i < R; i++)                                                                \
            for (int j = 1; j < C; j++) {                                                                         \
                _Pragma("omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)")                            \
                g[i][j] = g[i - 1][j] * 3u + g[i][j - 1] * 5u + 1u;                                               \
                _Pragma("omp ordered depend(source)")                                                             \
            }                                                                                                     \
        for (int i = 0; i < R; i++)                                                                               \
            for (int j = 0; j < C; j++)                                                                           \
                CHECK(g[i][j] == gw[i][j], "2-D doacross (%s): g[%d][%d] = %u, expected %u", name, i, j, g[i][j], \
                      gw[i][j]);                                                                                  \
        loops++;                                                                                                  \
    } while (0)
    WAVE("omp parallel for ordered(2) schedule(static, 1)", "static,1");
    WAVE("omp parallel for ordered(2) schedule(dynamic, 3)", "dynamic,3");

    /* Step 2, sink two iterations back: two interleaved recurrences. */
    static unsigned b[2 * SHORT], bw[2 * SHORT];
    bw[0] = 3;
    bw[2] = 5;
    for (int i = 4; i < 2 * SHORT; i += 2)
        bw[i] = f(bw[i - 4], i);
    memset(b, 0, sizeof b);
    b[0] = 3;
    b[2] = 5;
#pragma omp parallel for ordered(1) schedule(dynamic)
    for (int i = 4; i < 2 * SHORT; i += 2) {
#pragma omp ordered depend(sink : i - 4)
        b[i] = f(b[i - 4], i);
#pragma omp ordered depend(source)
    }
    for (int i = 0; i < 2 * SHORT; i += 2)
        CHECK(b[i] == bw[i], "doacross step 2 sink i-4: b[%d] = %u, expected %u", i, b[i], bw[i]);
    loops++;

    /* unsigned long long iteration variable beyond 2^63 (GOMP_loop_ull_doacross_*). */
    static volatile ull vbase = (1ull << 63) + (5ull << 32); /* not a long; not a constant */
    const ull base = vbase;
    memset(a, 0, sizeof a);
    a[0] = 1;
#pragma omp parallel for ordered(1) schedule(static, 2)
    for (ull i = base + 1; i < base + SHORT; i++) {
#pragma omp ordered depend(sink : i - 1)
        a[i - base] = f(a[i - base - 1], (int)(i - base));
#pragma omp ordered depend(source)
    }
    for (int i = 0; i < SHORT; i++)
        CHECK(a[i] == want[i], "ull doacross: a[%d] = %u, expected %u", i, a[i], want[i]);
    loops++;
    corpus_summary("loops=%d last=%u wave=%u ok", loops, want[N - 1], gw[R - 1][C - 1]);
    return 0;
}
