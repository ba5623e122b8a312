/* critical: unnamed and several named critical sections guard non-atomic
 * read-modify-write updates (with random delays between the read and the
 * write) and an occupancy count that must be 0 on entry; sections with
 * different names nest; critical with a hint; critical in nested regions. */
#include "corpus.h"

#define ITERS 150

static volatile long counter[4];
static volatile int inside[4];

static void guarded(int k, uint64_t *seed)
{
    if (inside[k] != 0)
        FAIL("critical section %d entered while thread(s) were inside", k);
    inside[k] = 1;
    long v = counter[k];
    corpus_delay(seed, (corpus_rand(seed) & 63) == 0 ? 30 : 0);
    counter[k] = v + 1;
    inside[k] = 0;
}

int main(void)
{
    corpus_begin("omp_critical");
    int T = corpus_threads();
#pragma omp parallel
    {
        uint64_t seed = corpus_seed(omp_get_thread_num(), 17);
        for (int i = 0; i < ITERS; i++) {
#pragma omp critical
            guarded(0, &seed);
#pragma omp critical(alpha)
            guarded(1, &seed);
            if (i % 3 == 0) {
#pragma omp critical(beta)
                {
                    guarded(2, &seed);
                    /* A differently named critical nested inside. */
#pragma omp critical(gamma) hint(omp_sync_hint_contended)
                    guarded(3, &seed);
                }
            }
        }
    }
    long want_third = (ITERS + 2) / 3;
    CHECK_EQ(counter[0], (long)T * ITERS, "updates under the unnamed critical");
    CHECK_EQ(counter[1], (long)T * ITERS, "updates under critical(alpha)");
    CHECK_EQ(counter[2], (long)T * want_third, "updates under critical(beta)");
    CHECK_EQ(counter[3], (long)T * want_third, "updates under critical(gamma) nested in beta");

    /* The same name from a function called in different regions, and from
     * inner (nested, active) regions. */
    omp_set_max_active_levels(2);
    counter[1] = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(3)
        {
            uint64_t seed = corpus_seed(omp_get_ancestor_thread_num(1), omp_get_thread_num());
            for (int i = 0; i < 40; i++) {
#pragma omp critical(alpha)
                guarded(1, &seed);
            }
        }
    }
    omp_set_max_active_levels(1);
    CHECK_EQ(counter[1], 2 * 3 * 40, "updates under critical(alpha) from two nested teams of three");

    /* Outside any region. */
#pragma omp critical
    counter[0]++;
    CHECK_EQ(counter[0], (long)T * ITERS + 1, "unnamed critical outside a region");
    corpus_summary("iterations=%d names=4 nested_updates=240 ok", ITERS);
    return 0;
}
