/* Worksharing loops with schedule(static), with and without a chunk size:
 * every iteration runs once, on the thread the schedule names.  Without a
 * chunk each thread gets at most one contiguous block, in thread order, of
 * sizes differing by at most one; with chunk c, chunk k goes to thread
 * k mod T.  Also: two nowait loops with the same schedule give each thread
 * the same iterations (it may read its own writes without a barrier), and
 * non-unit steps and non-zero lower bounds. */
#include "corpus.h"

#define N_MAX 1200

static int owner[N_MAX];
static int hits[N_MAX];

/* Thread `thread` ran (logical) iteration i. */
static void record(int i, int thread)
{
    owner[i] = thread;
#pragma omp atomic
    hits[i]++;
}

static void reset(int n)
{
    for (int i = 0; i < n; i++)
        owner[i] = -1, hits[i] = 0;
}

static void check_once(int n, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK_EQ(hits[i], 1, "%s: runs of iteration %d (n=%d)", what, i, n);
}

/* schedule(static): blocks in thread order, sizes within one of each other. */
static void check_blocks(int n, int T, const char *what)
{
    int size[64] = {0};
    for (int i = 0; i < n; i++) {
        CHECK(owner[i] >= 0 && owner[i] < T, "%s: iteration %d ran on thread %d of %d", what, i, owner[i], T);
        if (i > 0)
            CHECK(owner[i] >= owner[i - 1], "%s: iteration %d on thread %d after iteration %d on thread %d", what, i,
                  owner[i], i - 1, owner[i - 1]);
        size[owner[i]]++;
    }
    int lo = n, hi = 0;
    for (int t = 0; t < T; t++) {
        lo = size[t] < lo ? size[t] : lo;
        hi = size[t] > hi ? size[t] : hi;
    }
    CHECK(hi - lo <= 1, "%s: block sizes from %d to %d for n=%d on %d threads", what, lo, hi, n, T);
}

int main(void)
{
    corpus_begin("omp_loop_static");
    int T = corpus_threads_at_most(64);
    static const int sizes[] = {0, 1, 2, 7, 64, 1001};
    long long total = 0;
    for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k];
        reset(n);
#pragma omp parallel
        {
            uint64_t seed = corpus_seed(omp_get_thread_num(), 2);
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++) {
                corpus_delay(&seed, 0);
                record(i, omp_get_thread_num());
            }
        }
        check_once(n, "schedule(static)");
        check_blocks(n, T, "schedule(static)");
        total += n;

        static const int chunks[] = {1, 3, 64};
        for (unsigned c = 0; c < 3; c++) {
            int chunk = chunks[c];
            reset(n);
#pragma omp parallel
            {
                uint64_t seed = corpus_seed(omp_get_thread_num(), 3);
#pragma omp for schedule(static, chunk)
                for (int i = 0; i < n; i++) {
                    corpus_delay(&seed, 0);
                    record(i, omp_get_thread_num());
                }
            }
            check_once(n, "schedule(static, chunk)");
            for (int i = 0; i < n; i++)
                CHECK_EQ(owner[i], (i / chunk) % T, "schedule(static, %d): thread of iteration %d", chunk, i);
            total += n;
        }
    }

    /* Non-zero lower bound, step 5: iteration i = 13 + 5k. */
    reset(N_MAX);
#pragma omp parallel
#pragma omp for schedule(static, 2)
    for (int i = 13; i < 13 + 5 * 200; i += 5)
        record((i - 13) / 5, omp_get_thread_num());
    check_once(200, "step 5");
    for (int k = 0; k < 200; k++)
        CHECK_EQ(owner[k], (k / 2) % T, "schedule(static, 2) step 5: thread of logical iteration %d", k);

    /* Two nowait loops with the same static schedule: same thread per iteration. */
    static int a[N_MAX], b[N_MAX], c[N_MAX];
    int mismatches = 0;
#pragma omp parallel reduction(+ : mismatches)
    {
        int id = omp_get_thread_num();
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N_MAX; i++)
            a[i] = i * 3 + id * 100000;
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N_MAX; i++) {
            b[i] = a[i] + 1;
            mismatches += a[i] / 100000 != id;
        }
#pragma omp for schedule(static, 7) nowait
        for (int i = 0; i < N_MAX; i++)
            c[i] = i * 5 + id * 100000;
#pragma omp for schedule(static, 7) nowait
        for (int i = 0; i < N_MAX; i++)
            mismatches += c[i] / 100000 != id || c[i] % 100000 != i * 5;
    }
    CHECK_EQ(mismatches, 0, "iterations of a second nowait static loop on a different thread than the first");
    for (int i = 0; i < N_MAX; i++)
        CHECK_EQ(b[i] % 100000, i * 3 + 1, "b[%d] after two nowait loops", i);

    corpus_summary("iterations=%lld ok", total);
    return 0;
}
