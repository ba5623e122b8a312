/* Worksharing loops with dynamic, guided and auto schedules, with the
 * monotonic and nonmonotonic modifiers, with random delays in the body:
 * every iteration runs exactly once; with dynamic,c every run of
 * consecutive iterations a thread takes starts on a chunk boundary; with
 * guided,c every run but the one that ends the loop has at least c
 * iterations; with monotonic each thread sees its iterations in increasing
 * order.  Loops repeat in one region, so work shares are reused. */
#include "corpus.h"

#define N 777
#define MAXT 64

static int hits[N];
/* The order in which each thread ran iterations. */
static int seq[MAXT][N];
static int seq_len[MAXT];

enum kind { DYN, GUIDED, AUTO };

static void reset(void)
{
    memset(hits, 0, sizeof hits);
    memset(seq_len, 0, sizeof seq_len);
}

static void record(int i, uint64_t *seed)
{
    int id = omp_get_thread_num();
    corpus_delay(seed, 30);
    seq[id][seq_len[id]++] = i;
#pragma omp atomic
    hits[i]++;
}

/* Checks one loop's record (iterations 0..N-1). */
static void check(const char *what, enum kind kind, int chunk, int monotonic, int T)
{
    for (int i = 0; i < N; i++)
        CHECK_EQ(hits[i], 1, "%s: runs of iteration %d", what, i);
    for (int t = 0; t < T; t++) {
        int *s = seq[t];
        for (int k = 0; k < seq_len[t]; k++) {
            /* A run: iterations executed in a row, each one more than the last. */
            int start = k;
            while (k + 1 < seq_len[t] && s[k + 1] == s[k] + 1)
                k++;
            int len = k - start + 1;
            if (kind == DYN)
                CHECK(s[start] % chunk == 0, "%s: thread %d starts a run at iteration %d, not a multiple of %d",
                      what, t, s[start], chunk);
            if (kind == GUIDED && s[k] != N - 1)
                CHECK(len >= chunk, "%s: thread %d ran iterations %d..%d, fewer than the chunk %d", what, t,
                      s[start], s[k], chunk);
            if (monotonic && k + 1 < seq_len[t])
                CHECK(s[k + 1] > s[k], "%s: thread %d ran iteration %d after %d (monotonic)", what, t, s[k + 1],
                      s[k]);
        }
    }
}

int main(void)
{
    corpus_begin("omp_loop_dynamic");
    int T = corpus_threads_at_most(MAXT);
    int loops = 0;
    for (int rep = 0; rep < 2; rep++) {
#define LOOP(sched, kind, ch, mono, name)                                                             \
    do {                                                                                              \
        reset();                                                                                      \
        _Pragma("omp parallel")                                                                       \
        {                                                                                             \
            uint64_t seed = corpus_seed(omp_get_thread_num(), (unsigned)loops);                      \
            _Pragma(sched) for (int i = 0; i < N; i++) record(i, &seed);                              \
        }                                                                                             \
        check(name, kind, ch, mono, T);                                                               \
        loops++;                                                                                      \
    } while (0)
        if (rep == 0) {
            LOOP("omp for schedule(dynamic)", DYN, 1, 0, "schedule(dynamic)");
            LOOP("omp for schedule(guided)", GUIDED, 1, 0, "schedule(guided)");
            LOOP("omp for schedule(monotonic: dynamic)", DYN, 1, 1, "schedule(monotonic: dynamic)");
            LOOP("omp for schedule(monotonic: guided)", GUIDED, 1, 1, "schedule(monotonic: guided)");
            LOOP("omp for schedule(nonmonotonic: dynamic)", DYN, 1, 0, "schedule(nonmonotonic: dynamic)");
            LOOP("omp for schedule(nonmonotonic: guided)", GUIDED, 1, 0, "schedule(nonmonotonic: guided)");
        } else {
            LOOP("omp for schedule(dynamic, 5)", DYN, 5, 0, "schedule(dynamic, 5)");
            LOOP("omp for schedule(guided, 5)", GUIDED, 5, 0, "schedule(guided, 5)");
            LOOP("omp for schedule(monotonic: dynamic, 5)", DYN, 5, 1, "schedule(monotonic: dynamic, 5)");
            LOOP("omp for schedule(monotonic: guided, 5)", GUIDED, 5, 1, "schedule(monotonic: guided, 5)");
            LOOP("omp for schedule(nonmonotonic: dynamic, 5)", DYN, 5, 0, "schedule(nonmonotonic: dynamic, 5)");
            LOOP("omp for schedule(nonmonotonic: guided, 5)", GUIDED, 5, 0, "schedule(nonmonotonic: guided, 5)");
        }
    }
    LOOP("omp for schedule(auto)", AUTO, 1, 0, "schedule(auto)");

    /* Several dynamic loops in one region (work shares reused, nowait ones
     * in flight at once), each summing into a reduction. */
    long long sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
        for (int r = 0; r < 6; r++) {
#pragma omp for schedule(dynamic, 3) nowait
            for (int i = 0; i < 300; i++)
                sum += i * (r + 1);
#pragma omp for schedule(guided) nowait
            for (int i = -50; i < 250; i += 2)
                sum += i;
        }
    }
    long long want = 0;
    for (int r = 0; r < 6; r++) {
        for (int i = 0; i < 300; i++)
            want += i * (r + 1);
        for (int i = -50; i < 250; i += 2)
            want += i;
    }
    CHECK_EQ(sum, want, "sum over 12 nowait dynamic and guided loops in one region");
    corpus_summary("loops=%d iterations_each=%d nowait_sum=%lld ok", loops, N, sum);
    return 0;
}
