/* Cancellation enabled (OMP_CANCELLATION=true: the program re-executes
 * itself with it set, since runtimes read it at load).  Each construct is
 * exercised over many episodes with a random canceller and random delays,
 * and the regions that do not cancel are checked to synchronise as usual
 * afterwards (a cancelled barrier or loop must leave nothing behind):
 *   cancel parallel: nothing after it runs; the other members leave at
 *     their cancellation points, or from a barrier they wait at;
 *   cancel for / sections: the canceller leaves the construct, the others at
 *     their next cancellation point; the next construct runs in full;
 *   cancel taskgroup: tasks created after it are dropped, and no thread
 *     starts a task after cancelling; the next taskgroup runs in full.
 * Waits that could hang if a cancellation were lost give up after 10 s and
 * fail instead. */
#include <stdatomic.h>

#include "corpus.h"

#define EPISODES 40
#define N 2000

/* False, but not known to the compiler: a cancel construct with if(never)
 * makes a region or construct cancellable without cancelling it. */
static volatile int never;

static double now(void)
{
    return omp_get_wtime();
}

/* cancel parallel with the others polling cancellation points. */
static void parallel_points(int T, int episode)
{
    int after = 0, stuck = 0;
    int canceller = (int)(corpus_seed(episode, 1) % (uint64_t)T);
#pragma omp parallel reduction(+ : after, stuck)
    {
        int id = omp_get_thread_num();
        uint64_t rng = corpus_seed(episode, (unsigned)id + 7);
        corpus_delay(&rng, 200);
        if (id == canceller) {
#pragma omp cancel parallel
            after++;
        }
        double give_up = now() + 10.0;
        while (now() < give_up) {
#pragma omp cancellation point parallel
            corpus_delay(&rng, 0);
        }
        stuck++;
    }
    CHECK_EQ(after, 0, "statements after cancel parallel that ran (episode %d)", episode);
    CHECK_EQ(stuck, 0, "threads that never saw cancel parallel at a cancellation point (episode %d)", episode);
}

/* cancel parallel while the others wait at a (cancellable) barrier, then
 * a region with the same constructs that does not cancel: its barrier must
 * hold. */
static void parallel_barrier(int T, int episode)
{
    int after = 0;
    int canceller = (int)(corpus_seed(episode, 2) % (uint64_t)T);
#pragma omp parallel reduction(+ : after)
    {
        int id = omp_get_thread_num();
        uint64_t rng = corpus_seed(episode, (unsigned)id + 11);
        if (id == canceller) {
            corpus_delay(&rng, 2000); /* the others may be asleep in the barrier */
#pragma omp cancel parallel
        }
#pragma omp barrier
        after++;
    }
    CHECK_EQ(after, 0, "threads past the barrier of a cancelled region (episode %d)", episode);

    static int slot[256];
    int late = 0;
#pragma omp parallel reduction(+ : late)
    {
        int id = omp_get_thread_num(), n = omp_get_num_threads();
        uint64_t rng = corpus_seed(episode, (unsigned)id + 13);
        corpus_delay(&rng, 200);
        slot[id % 256] = episode;
#pragma omp cancel parallel if (n < 0)
#pragma omp barrier
        for (int k = 0; k < n && k < 256; k++)
            late += slot[k] != episode;
#pragma omp barrier
    }
    CHECK_EQ(late, 0, "slots unwritten after the barrier of a region that did not cancel (episode %d)", episode);
}

/* cancel for in a dynamic loop: iteration `stop` cancels; later iterations
 * poll a cancellation point until it has, so every thread meets the
 * cancellation.  (They must not wait for a flag the canceller sets just
 * before `cancel for`: a canceller preempted between the two let them run
 * on through the loop, seen under ThreadSanitizer.) */
static void cancel_for(int episode)
{
    static int hits[N];
    memset(hits, 0, sizeof hits);
    int stop = (int)(corpus_seed(episode, 3) % 50);
    int after = 0, ran = 0, second = 0, stuck = 0;
#pragma omp parallel reduction(+ : after, ran, second, stuck)
    {
        uint64_t rng = corpus_seed(episode, (unsigned)omp_get_thread_num() + 17);
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < N; i++) {
            ran++;
            hits[i]++;
            if (i == stop) {
#pragma omp cancel for
                after++;
            }
            if (i > stop) {
                double give_up = now() + 10.0;
                while (now() < give_up) {
#pragma omp cancellation point for
                    corpus_delay(&rng, 0);
                }
                stuck++;
            }
#pragma omp cancellation point for
        }
        /* The next loop in the same region is not cancelled. */
#pragma omp for schedule(dynamic, 3)
        for (int i = 0; i < N; i++) {
            second++;
#pragma omp cancel for if (i < 0)
#pragma omp cancellation point for
        }
    }
    CHECK_EQ(after, 0, "statements after cancel for that ran (episode %d)", episode);
    CHECK_EQ(stuck, 0, "iterations that waited 10 s for cancel for (episode %d)", episode);
    CHECK(ran > stop && ran < N / 2, "cancel for at iteration %d: %d of %d iterations ran (episode %d)", stop, ran, N,
          episode);
    for (int i = 0; i <= stop; i++)
        CHECK_EQ(hits[i], 1, "runs of iteration %d, before the cancel (episode %d)", i, episode);
    CHECK_EQ(second, N, "iterations of the loop after a cancelled one (episode %d)", episode);
}

static void cancel_sections(int episode)
{
    int after = 0, second = 0;
#pragma omp parallel reduction(+ : after, second)
    {
#pragma omp sections
        {
#pragma omp section
            {
#pragma omp cancel sections
                after++;
            }
#pragma omp section
            {
#pragma omp cancellation point sections
            }
        }
#pragma omp sections
        {
#pragma omp section
            {
                second++;
#pragma omp cancel sections if (second < 0)
            }
#pragma omp section
            second++;
        }
    }
    CHECK_EQ(after, 0, "statements after cancel sections that ran (episode %d)", episode);
    CHECK_EQ(second, 2, "sections of the construct after a cancelled one (episode %d)", episode);
}

/* An undeferred task cancels its taskgroup: the tasks created after it are
 * dropped; then tasks that each cancel their group as they start: no thread
 * starts another after its own cancel; then a group that runs in full. */
static void cancel_taskgroup(int T, int episode)
{
    int dropped_ran = 0, started = 0, full = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
#pragma omp task if (0)
            {
#pragma omp cancel taskgroup
            }
            for (int i = 0; i < 100; i++) {
#pragma omp task shared(dropped_ran)
                {
#pragma omp atomic
                    dropped_ran++;
                }
            }
        }
#pragma omp taskgroup
        {
            for (int i = 0; i < 200; i++) {
#pragma omp task shared(started)
                {
#pragma omp atomic
                    started++;
#pragma omp cancel taskgroup
                }
            }
        }
#pragma omp taskgroup
        {
            for (int i = 0; i < 100; i++) {
#pragma omp task shared(full)
                {
#pragma omp atomic
                    full++;
#pragma omp cancel taskgroup if (never)
                }
            }
        }
    }
    CHECK_EQ(dropped_ran, 0, "tasks that ran although created after cancel taskgroup (episode %d)", episode);
    CHECK(started >= 1 && started <= T, "%d tasks started in a group each of whose tasks cancels it, team of %d "
          "(episode %d)", started, T, episode);
    CHECK_EQ(full, 100, "tasks of a taskgroup after cancelled ones (episode %d)", episode);
}

int main(int argc, char **argv)
{
    (void)argc;
    corpus_reexec_with(argv, "OMP_CANCELLATION", "true");
    corpus_begin("omp_cancel_on");
    int T = corpus_threads();
    CHECK_EQ(omp_get_cancellation(), 1, "omp_get_cancellation() with OMP_CANCELLATION=true");
    for (int episode = 0; episode < EPISODES; episode++) {
        parallel_points(T, episode);
        parallel_barrier(T, episode);
        cancel_for(episode);
        cancel_sections(episode);
        cancel_taskgroup(T, episode);
    }
    corpus_summary("cancel_parallel_for_sections_taskgroup=honoured episodes=%d", EPISODES);
    return 0;
}
