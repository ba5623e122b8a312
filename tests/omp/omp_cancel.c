/* Cancellation entry points with cancellation disabled (OMP_CANCELLATION
 * unset, the default): omp_get_cancellation() is false, and `cancel
 * parallel/for/sections/taskgroup` and `cancellation point` have no
 * effect — every iteration, section, task and statement after them runs,
 * and the barriers of cancellable regions (GOMP_barrier_cancel,
 * GOMP_loop_end_cancel, ...) still synchronise. */
#include "corpus.h"

#define N 400

int main(void)
{
    corpus_begin("omp_cancel");
    int T = corpus_threads();
    CHECK_EQ(omp_get_cancellation(), 0, "omp_get_cancellation() with OMP_CANCELLATION unset");

    /* cancel parallel. */
    int after = 0, late = 0;
    static int slot[64];
#pragma omp parallel reduction(+ : after, late)
    {
        int id = omp_get_thread_num();
        slot[id % 64] = 1;
#pragma omp cancel parallel if(id == 0)
        after++;
#pragma omp barrier
        for (int k = 0; k < omp_get_num_threads() && k < 64; k++)
            late += slot[k] != 1;
#pragma omp cancellation point parallel
        after++;
    }
    CHECK_EQ(after, 2 * T, "statements after cancel parallel / cancellation point that ran");
    CHECK_EQ(late, 0, "slots unwritten after the barrier of a cancellable region");

    /* cancel for, static and dynamic. */
    static int hits[N];
    memset(hits, 0, sizeof hits);
    int seen_after = 0;
#pragma omp parallel reduction(+ : seen_after)
    {
#pragma omp for schedule(dynamic, 4)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            hits[i]++;
#pragma omp cancel for if(i == 10)
#pragma omp cancellation point for
        }
        /* The loop's barrier held: every iteration done. */
        for (int i = 0; i < N; i++)
            seen_after += hits[i] != 1;
#pragma omp barrier
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            hits[i]++;
#pragma omp cancel for if(i % 50 == 3)
        }
    }
    CHECK_EQ(seen_after, 0, "iterations not finished after a cancellable loop's barrier");
    for (int i = 0; i < N; i++)
        CHECK_EQ(hits[i], 2, "runs of iteration %d over two loops with cancel for", i);

    /* cancel sections. */
    int sec = 0;
#pragma omp parallel reduction(+ : sec)
#pragma omp sections
    {
#pragma omp section
        {
            sec += 1;
#pragma omp cancel sections
            sec += 10;
        }
#pragma omp section
        {
#pragma omp cancellation point sections
            sec += 100;
        }
    }
    CHECK_EQ(sec, 111, "sections with cancel: all statements ran");

    /* cancel taskgroup. */
    int tasks = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
            for (int i = 0; i < 20; i++) {
#pragma omp task shared(tasks) firstprivate(i)
                {
#pragma omp cancel taskgroup if(i == 3)
#pragma omp atomic
                    tasks++;
                }
            }
        }
    }
    CHECK_EQ(tasks, 20, "tasks completed after cancel taskgroup");
    corpus_summary("cancel_parallel_for_sections_taskgroup=ignored ok");
    return 0;
}
