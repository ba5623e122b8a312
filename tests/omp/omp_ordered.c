/* ordered: the ordered blocks of a loop run in iteration order whatever the
 * schedule (static, static,1, static,3, dynamic, dynamic,4, guided,
 * runtime, auto), with random delays outside the block; the log each
 * writes (without any lock) must be exactly the iterations in order.  Also
 * negative steps, the combined parallel for ordered, and loops whose
 * iterations do not all reach the ordered block.  With a chunk size,
 * static deals chunk k to thread k mod T: each iteration must run there
 * (LLVM libomp 14 under gcc's ABI deals blocks instead). */
#include "corpus.h"

#define N 300

static int log_[N + 1];
static int who_[N + 1]; /* the thread that ran log_[k] */
static int len;
static int team;

static void reset(void) { len = 0; }

static void body(int i, uint64_t *seed)
{
    corpus_delay(seed, 40);
#pragma omp ordered
    {
        if (len >= N)
            FAIL("ordered log overflow");
        who_[len] = omp_get_thread_num();
        log_[len++] = i;
    }
    corpus_delay(seed, 0);
}

static void check(int first, int step, int n, const char *what)
{
    CHECK_EQ(len, n, "%s: ordered blocks run", what);
    for (int k = 0; k < n; k++)
        CHECK_EQ(log_[k], first + k * step, "%s: iteration in ordered position %d", what, k);
}

/* schedule(static, chunk): iteration i on thread (i / chunk) mod T. */
static void check_static_chunks(int chunk, const char *what)
{
    for (int k = 0; k < len; k++)
        CHECK_EQ(who_[k], (log_[k] / chunk) % team, "%s: the thread of iteration %d", what, log_[k]);
}

int main(void)
{
    corpus_begin("omp_ordered");
    corpus_threads();
    int loops = 0;
#define ORD(sched, name)                                                                              \
    do {                                                                                              \
        reset();                                                                                      \
        _Pragma("omp parallel")                                                                       \
        {                                                                                             \
            uint64_t seed = corpus_seed(omp_get_thread_num(), (unsigned)loops);                      \
            if (omp_get_thread_num() == 0)                                                            \
                team = omp_get_num_threads(); /* read after the region's end */                       \
            _Pragma(sched) for (int i = 0; i < N; i++) body(i, &seed);                                \
        }                                                                                             \
        check(0, 1, N, name);                                                                         \
        loops++;                                                                                      \
    } while (0)
    ORD("omp for ordered schedule(static)", "ordered static");
    ORD("omp for ordered schedule(static, 1)", "ordered static,1");
    check_static_chunks(1, "ordered static,1");
    ORD("omp for ordered schedule(static, 3)", "ordered static,3");
    check_static_chunks(3, "ordered static,3");
    ORD("omp for ordered schedule(dynamic)", "ordered dynamic");
    ORD("omp for ordered schedule(dynamic, 4)", "ordered dynamic,4");
    ORD("omp for ordered schedule(guided)", "ordered guided");
    ORD("omp for ordered schedule(guided, 5)", "ordered guided,5");
    ORD("omp for ordered schedule(runtime)", "ordered runtime");
    ORD("omp for ordered schedule(auto)", "ordered auto");
    ORD("omp for ordered schedule(monotonic: dynamic, 2)", "ordered monotonic dynamic,2");

    /* Negative step. */
    reset();
#pragma omp parallel
    {
        uint64_t seed = corpus_seed(omp_get_thread_num(), 99);
#pragma omp for ordered schedule(dynamic, 3)
        for (int i = 2 * N - 1; i > 0; i -= 2)
            body(i, &seed);
    }
    check(2 * N - 1, -2, N, "ordered step -2");
    loops++;

    /* Combined, with a nowait loop before it. */
    reset();
#pragma omp parallel for ordered schedule(guided, 2)
    for (int i = 0; i < N; i++) {
        uint64_t seed = corpus_seed((unsigned)i, 7);
        body(i, &seed);
    }
    check(0, 1, N, "parallel for ordered guided,2");
    loops++;

    /* Only the odd iterations reach the ordered block. */
    reset();
#pragma omp parallel for ordered schedule(static, 2)
    for (int i = 0; i < N; i++) {
        if (i % 2) {
#pragma omp ordered
            log_[len++] = i;
        }
    }
    check(1, 2, N / 2, "ordered reached by odd iterations");
    loops++;

    /* Several ordered loops in one region (work shares reused). */
    unsigned long long checksum = 0; /* unsigned: it wraps */
    reset();
#pragma omp parallel
    for (int r = 0; r < 4; r++) {
#pragma omp for ordered schedule(dynamic)
        for (int i = 0; i < 50; i++) {
#pragma omp ordered
            checksum = checksum * 31 + (unsigned)(i + r);
        }
    }
    unsigned long long want = 0;
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 50; i++)
            want = want * 31 + (unsigned)(i + r);
    CHECK(checksum == want, "order-sensitive checksum over four ordered loops: %llu, expected %llu", checksum, want);
    loops += 4;
    corpus_summary("loops=%d checksum=%llu ok", loops, checksum);
    return 0;
}
