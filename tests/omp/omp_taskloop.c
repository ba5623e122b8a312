/* taskloop over random episodes, with random bounds, steps (up and down),
 * grainsize, strict grainsize, num_tasks, nogroup, reductions, lastprivate
 * and collapse, created inside single while the rest of the team waits at
 * its barrier, with random delays in the bodies:
 *   - every iteration runs exactly once, and the sums and lastprivate
 *     values equal the serial loop's;
 *   - taskloop if(0) runs every iteration on the encountering thread;
 *   - with two or more threads, tasks that block are taken by another
 *     thread: a task waits (up to 10 s) until a second thread has run a
 *     task of the same taskloop, so a runtime that runs them all in the
 *     creating thread fails here rather than passing slowly. */
#include <stdatomic.h>

#include "corpus.h"

#define EPISODES 40
#define MAX_N 700

static int hits[MAX_N];

/* The serial loop's facts: iterations, their sum and the last value. */
typedef struct serial_facts {
    int n;
    long sum, last;
} serial_facts;

static serial_facts serial(long start, long end, long step)
{
    serial_facts f = {0, 0, 0};
    for (long i = start; step > 0 ? i < end : i > end; i += step) {
        f.n++;
        f.sum += i;
        f.last = i;
    }
    return f;
}

/* Index of value i in the loop start, start+step, ... */
static int slot(long i, long start, long step)
{
    return (int)((i - start) / step);
}

static void episode(int T, int e, long *checksum)
{
    uint64_t rng = corpus_seed((unsigned)e, 3);
    long n = (long)(corpus_rand(&rng) % MAX_N);
    long steps[] = {1, 3, 7, -1, -4};
    long step = steps[corpus_rand(&rng) % 5];
    long start = (long)(corpus_rand(&rng) % 1000) - 500;
    long end = start + n * step - (step > 0 ? 1 : -1) * (long)(corpus_rand(&rng) % (unsigned long)(step > 0 ? step : -step));
    if (n == 0)
        end = start;
    long g = 1 + (long)(corpus_rand(&rng) % 40);
    int mode = (int)(corpus_rand(&rng) % 4);
    serial_facts want = serial(start, end, step);
    memset(hits, 0, sizeof hits);
    long sum = 0, last = -999999;
#pragma omp parallel
#pragma omp single
    {
        uint64_t body_rng = corpus_seed((unsigned)e, 4);
        /* One taskloop per clause set and direction (a canonical loop's
         * test names its direction). */
#define BODY                                                                                            \
    {                                                                                                   \
        corpus_delay(&body_rng, 50);                                                                    \
        _Pragma("omp atomic") hits[slot(i, start, step)]++;                                             \
        sum += i;                                                                                       \
        last = i;                                                                                       \
    }
#define BOTH_WAYS(clauses)                                                                              \
    if (step > 0) {                                                                                     \
        _Pragma(clauses) for (long i = start; i < end; i += step) BODY                                  \
    } else {                                                                                            \
        _Pragma(clauses) for (long i = start; i > end; i += step) BODY                                  \
    }
        switch (mode) {
        case 0:
            BOTH_WAYS("omp taskloop grainsize(g) reduction(+ : sum) lastprivate(last) firstprivate(body_rng)")
            break;
        case 1:
            BOTH_WAYS("omp taskloop grainsize(strict : g) reduction(+ : sum) lastprivate(last) firstprivate(body_rng)")
            break;
        case 2:
            BOTH_WAYS("omp taskloop num_tasks(g) reduction(+ : sum) lastprivate(last) firstprivate(body_rng)")
            break;
        default:
            /* nogroup, the sum kept atomically: the taskwait after it
             * waits for its tasks. */
#undef BODY
#define BODY                                                                                            \
    {                                                                                                   \
        corpus_delay(&body_rng, 50);                                                                    \
        _Pragma("omp atomic") hits[slot(i, start, step)]++;                                             \
        _Pragma("omp atomic") sum += i;                                                                 \
        last = i;                                                                                       \
    }
            BOTH_WAYS("omp taskloop num_tasks(g) nogroup lastprivate(last) firstprivate(body_rng)")
#pragma omp taskwait
            break;
        }
#undef BODY
#undef BOTH_WAYS
    }
    for (int k = 0; k < want.n; k++)
        CHECK_EQ(hits[k], 1, "episode %d (mode %d, %ld..%ld step %ld, g %ld): runs of iteration %d", e, mode,
                 start, end, step, g, k);
    CHECK_EQ(sum, want.sum, "episode %d (mode %d): reduction", e, mode);
    if (want.n > 0)
        CHECK_EQ(last, want.last, "episode %d (mode %d): lastprivate", e, mode);
    *checksum += want.sum + want.n;
    (void)T;
}

/* collapse(2) with a reduction and lastprivate of both variables. */
static void collapsed(void)
{
    long sum = 0;
    int li = -1, lj = -1;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop collapse(2) grainsize(5) reduction(+ : sum) lastprivate(li, lj)
    for (int i = 0; i < 13; i++)
        for (int j = 10; j > 0; j -= 3) {
            sum += i * 100 + j;
            li = i;
            lj = j;
        }
    long want = 0;
    for (int i = 0; i < 13; i++)
        for (int j = 10; j > 0; j -= 3)
            want += i * 100 + j;
    CHECK_EQ(sum, want, "collapse(2) reduction");
    CHECK(li == 12 && lj == 1, "collapse(2) lastprivate: %d %d, expected 12 1", li, lj);
}

/* if(0): every task undeferred, run by the encountering thread. */
static void undeferred(void)
{
    int elsewhere = 0, runs = 0;
#pragma omp parallel reduction(+ : elsewhere, runs)
#pragma omp single
    {
        int me = omp_get_thread_num();
#pragma omp taskloop num_tasks(8) if (0) shared(elsewhere, runs)
        for (int i = 0; i < 64; i++) {
            if (omp_get_thread_num() != me)
                elsewhere++;
            runs++;
        }
    }
    CHECK_EQ(runs, 64, "taskloop if(0): iterations run");
    CHECK_EQ(elsewhere, 0, "taskloop if(0): iterations run on another thread than the encountering one");
}

/* Tasks that block until a second thread has run one of them. */
static void spread(int T)
{
    if (T < 2)
        return;
    atomic_int mask = 0, gave_up = 0;
    int tasks = 3 * T;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop num_tasks(tasks) shared(mask, gave_up)
    for (int i = 0; i < tasks; i++) {
        int me = omp_get_thread_num();
        atomic_fetch_or(&mask, 1 << (me % 30));
        double give_up = omp_get_wtime() + 10.0;
        while (__builtin_popcount((unsigned)atomic_load(&mask)) < 2 && atomic_load(&gave_up) == 0) {
            if (omp_get_wtime() > give_up) {
                atomic_fetch_add(&gave_up, 1);
                break;
            }
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    }
    CHECK_EQ(atomic_load(&gave_up), 0,
             "taskloop tasks that waited 10 s for a second thread to take one (%d threads)", T);
}

int main(void)
{
    corpus_begin("omp_taskloop");
    int T = corpus_threads();
    long checksum = 0;
    for (int e = 0; e < EPISODES; e++)
        episode(T, e, &checksum);
    collapsed();
    undeferred();
    spread(T);
    corpus_summary("episodes=%d checksum=%ld ok", EPISODES, checksum);
    return 0;
}
