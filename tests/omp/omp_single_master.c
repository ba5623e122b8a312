/* single (with its barrier, with nowait, with copyprivate of scalars, a
 * struct and an array), master and masked (with filter): per encounter,
 * single runs on exactly one thread; master only on thread 0; masked
 * filter(k) only on thread k (nobody when the team has no thread k). */
#include "corpus.h"

#define REPS 40

struct blob {
    int a;
    double b;
    char text[16];
};

int main(void)
{
    corpus_begin("omp_single_master");
    int T = corpus_threads();
    static int single_runs[REPS], nowait_runs[REPS];
    int after_barrier_wrong = 0, copy_wrong = 0;
    int master_runs = 0, master_wrong = 0;
    int masked_runs[3] = {0};
#pragma omp parallel reduction(+ : after_barrier_wrong, copy_wrong)
    {
        int id = omp_get_thread_num();
        uint64_t seed = corpus_seed(id, 13);
        for (int r = 0; r < REPS; r++) {
            corpus_delay(&seed, r % 10 == 0 ? 100 : 0);
#pragma omp single
            single_runs[r]++;
            /* The barrier at the end of single: its write is visible. */
            after_barrier_wrong += single_runs[r] != 1;
#pragma omp single nowait
#pragma omp atomic
            nowait_runs[r]++;
        }
        /* copyprivate: the single thread's values reach every thread. */
        for (int r = 0; r < 10; r++) {
            int x;
            long y;
            struct blob blob;
            int arr[5];
#pragma omp single copyprivate(x, y, blob, arr)
            {
                x = 1000 * r + omp_get_thread_num();
                y = -7L * r;
                blob.a = r;
                blob.b = r * 0.5;
                snprintf(blob.text, sizeof blob.text, "round %d", r);
                for (int k = 0; k < 5; k++)
                    arr[k] = r * k;
            }
            char want[16];
            snprintf(want, sizeof want, "round %d", r);
            copy_wrong += x / 1000 != r || x % 1000 >= omp_get_num_threads() || y != -7L * r || blob.a != r ||
                          blob.b != r * 0.5 || strcmp(blob.text, want) != 0;
            for (int k = 0; k < 5; k++)
                copy_wrong += arr[k] != r * k;
        }
        for (int r = 0; r < REPS; r++) {
#pragma omp master
            {
#pragma omp atomic
                master_runs++;
                if (omp_get_thread_num() != 0)
#pragma omp atomic
                    master_wrong++;
            }
#pragma omp masked
#pragma omp atomic
            masked_runs[0] += 1 + 1000 * (omp_get_thread_num() != 0);
#pragma omp masked filter(2)
#pragma omp atomic
            masked_runs[1] += 1 + 1000 * (omp_get_thread_num() != 2);
#pragma omp masked filter(T - 1)
#pragma omp atomic
            masked_runs[2] += 1 + 1000 * (omp_get_thread_num() != T - 1);
        }
    }
    for (int r = 0; r < REPS; r++) {
        CHECK_EQ(single_runs[r], 1, "single %d: threads that ran it", r);
        CHECK_EQ(nowait_runs[r], 1, "single nowait %d: threads that ran it", r);
    }
    CHECK_EQ(after_barrier_wrong, 0, "threads that missed a single's write after its barrier");
    CHECK_EQ(copy_wrong, 0, "wrong values received through copyprivate");
    CHECK_EQ(master_runs, REPS, "master blocks run");
    CHECK_EQ(master_wrong, 0, "master blocks run by a thread other than 0");
    CHECK_EQ(masked_runs[0], REPS, "masked (no filter) blocks run, *1000 if on a wrong thread");
    CHECK_EQ(masked_runs[1], T > 2 ? REPS : 0, "masked filter(2) blocks run, *1000 if on a wrong thread");
    CHECK_EQ(masked_runs[2], REPS, "masked filter(T-1) blocks run, *1000 if on a wrong thread");

    /* Outside any region: the initial thread runs single and master. */
    int outside = 0;
#pragma omp single
    outside++;
#pragma omp master
    outside++;
    CHECK_EQ(outside, 2, "single and master outside a parallel region");
    corpus_summary("singles=%d copyprivate_rounds=10 master=%d ok", REPS, REPS);
    return 0;
}
