/* barrier: in each round every thread writes its slot after a random delay,
 * waits at a barrier, and checks every other thread's write of that round;
 * a second barrier keeps the next round's writes out.  Also barriers in a
 * team of one, in regions of changing sizes, and in a nested inactive region. */
#include "corpus.h"

#define ROUNDS 40
#define MAXT 64

int main(void)
{
    corpus_begin("omp_barrier");
    int T = corpus_threads();
    static volatile long slot[MAXT];
    long checked = 0;
#pragma omp parallel reduction(+ : checked)
    {
        int id = omp_get_thread_num(), n = omp_get_num_threads();
        uint64_t seed = corpus_seed(id, 1);
        for (int r = 0; r < ROUNDS; r++) {
            corpus_delay(&seed, r % 8 == 0 ? 200 : 0);
            slot[id] = (long)r * 1000 + id;
#pragma omp barrier
            for (int j = 0; j < n; j++) {
                if (slot[j] != (long)r * 1000 + j)
                    FAIL("round %d: thread %d sees slot %d = %ld after the barrier, expected %ld", r, id, j,
                         slot[j], (long)r * 1000 + j);
                checked++;
            }
#pragma omp barrier
        }
    }
    CHECK_EQ(checked, (long)ROUNDS * T * T, "slots checked");

    /* Teams of 3 and 5 (not the default size), a few rounds each. */
    for (int size = 3; size <= 5; size += 2) {
        int errors = 0;
#pragma omp parallel num_threads(size) reduction(+ : errors)
        {
            int id = omp_get_thread_num();
            uint64_t seed = corpus_seed(id, (unsigned)size);
            for (int r = 0; r < 6; r++) {
                corpus_delay(&seed, 100);
                slot[id] = -r - 1;
#pragma omp barrier
                for (int j = 0; j < size; j++)
                    errors += slot[j] != -r - 1;
#pragma omp barrier
            }
        }
        CHECK_EQ(errors, 0, "stale slots seen after barriers in a team of %d", size);
    }

    /* A barrier in an inactive nested region (a team of one) returns at once. */
    int nested = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel
        {
#pragma omp barrier
#pragma omp atomic
            nested++;
        }
    }
    CHECK_EQ(nested, 2, "inner regions that passed their barrier");

    /* An orphaned barrier outside any region. */
#pragma omp barrier
    corpus_summary("rounds=%d checks_per_thread_pair=%d ok", ROUNDS, ROUNDS);
    return 0;
}
