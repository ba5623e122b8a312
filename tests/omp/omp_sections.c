/* sections: each section runs exactly once per encounter, on any thread;
 * the implicit barrier at the end (all sections' writes are visible after
 * it), nowait, lastprivate (the lexically last section's value),
 * firstprivate, sections repeated many times in one region, fewer and more
 * sections than threads, and parallel sections. */
#include "corpus.h"

#define REPS 30

int main(void)
{
    corpus_begin("omp_sections");
    corpus_threads();
    static int runs[REPS][9];
    int late = 0;
    int last = -1;
    int first = 5;
#pragma omp parallel
    {
        uint64_t seed = corpus_seed(omp_get_thread_num(), 11);
        for (int r = 0; r < REPS; r++) {
#pragma omp sections
            {
#pragma omp section
                {
                    corpus_delay(&seed, 20);
                    runs[r][0]++;
                }
#pragma omp section
                runs[r][1]++;
#pragma omp section
                {
                    corpus_delay(&seed, 0);
                    runs[r][2]++;
                }
#pragma omp section
                runs[r][3]++;
#pragma omp section
                runs[r][4]++;
            }
            /* After the implicit barrier every section of this round has run. */
            int seen = runs[r][0] + runs[r][1] + runs[r][2] + runs[r][3] + runs[r][4];
            if (seen != 5)
#pragma omp atomic
                late++;
#pragma omp sections nowait
            {
#pragma omp section
#pragma omp atomic
                runs[r][5]++;
#pragma omp section
#pragma omp atomic
                runs[r][6]++;
            }
        }
#pragma omp barrier
        /* One section: exactly one thread runs it. */
#pragma omp sections
        {
#pragma omp section
#pragma omp atomic
            runs[0][7]++;
        }
#pragma omp sections lastprivate(last) firstprivate(first)
        {
#pragma omp section
            last = first + 1;
#pragma omp section
            last = first + 2;
#pragma omp section
            last = first + 3;
        }
    }
    CHECK_EQ(late, 0, "threads that saw a section unfinished after the sections' barrier");
    for (int r = 0; r < REPS; r++)
        for (int k = 0; k < 7; k++)
            CHECK_EQ(runs[r][k], 1, "round %d: runs of section %d", r, k);
    CHECK_EQ(runs[0][7], 1, "runs of a lone section");
    CHECK_EQ(last, 8, "lastprivate from the lexically last section");

    /* Which threads ran sections: all in range. */
    int bad = 0, count = 0;
#pragma omp parallel sections reduction(+ : bad, count)
    {
#pragma omp section
        bad += omp_get_thread_num() >= omp_get_num_threads(), count++;
#pragma omp section
        bad += omp_get_thread_num() >= omp_get_num_threads(), count++;
#pragma omp section
        bad += omp_get_thread_num() >= omp_get_num_threads(), count++;
    }
    CHECK(bad == 0 && count == 3, "parallel sections: %d sections counted, %d on bad thread numbers", count, bad);
    /* A sections construct in a team of one. */
    int solo = 0;
#pragma omp parallel num_threads(1)
#pragma omp sections
    {
#pragma omp section
        solo += 1;
#pragma omp section
        solo += 2;
    }
    CHECK_EQ(solo, 3, "sections in a team of one");
    corpus_summary("rounds=%d sections_per_round=7 lastprivate=%d ok", REPS, last);
    return 0;
}
