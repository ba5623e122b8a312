/* Task priorities, with OMP_MAX_TASK_PRIORITY=10 (the program re-executes
 * itself with it set, since runtimes read it at load):
 *   - omp_get_max_task_priority() is 10;
 *   - higher first: thread 0 makes tasks of random priorities (some above
 *     the maximum, which count as 10) while the rest of the team stays busy
 *     in its own code until they are all done, then thread 0 runs them at
 *     its barrier: they start in order of priority, highest first;
 *   - no live-lock: random task trees whose nodes have random priorities
 *     and wait for their children at a taskgroup's end while other
 *     prioritized tasks they may not run are queued, checked against a
 *     serial count.  (taskwait is left out here: libgomp 12 crashes in
 *     GOMP_taskwait on nested prioritized tasks, SIGSEGV at any team size;
 *     muster's taskwait with priorities is tested in test_omp_task_sched);
 *   - priorities never reorder dependences: a chain of inout tasks of
 *     random priorities runs in program order;
 *   - taskloop with a priority.
 * Waits that could hang give up after 10 s and fail instead. */
#include <stdatomic.h>

#include "corpus.h"

#define ORDER_TASKS 60
#define TREE_EPISODES 12
#define CHAIN 200

static void nap(void)
{
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
}

static void higher_first(int T)
{
    if (T < 2)
        return; /* a team of one may run each task as it is made */
    int started[ORDER_TASKS];
    atomic_int next = 0, stuck = 0;
#pragma omp parallel shared(started, next, stuck)
    {
        if (omp_get_thread_num() == 0) {
            for (int i = 0; i < ORDER_TASKS; i++) {
                int p = 1 + (int)(corpus_seed((unsigned)i, 21) % 14); /* 1..14: above 10 counts as 10 */
#pragma omp task priority(p) firstprivate(p)
                started[atomic_fetch_add(&next, 1)] = p > 10 ? 10 : p;
            }
        } else {
            /* Busy in our own code: the tasks wait for thread 0's barrier. */
            double give_up = omp_get_wtime() + 10.0;
            while (atomic_load(&next) < ORDER_TASKS && omp_get_wtime() < give_up)
                nap();
            if (atomic_load(&next) < ORDER_TASKS)
                atomic_fetch_add(&stuck, 1);
        }
    }
    CHECK_EQ(atomic_load(&stuck), 0, "threads that waited 10 s for the prioritized tasks to run");
    CHECK_EQ(atomic_load(&next), ORDER_TASKS, "prioritized tasks run");
    for (int k = 1; k < ORDER_TASKS; k++)
        CHECK(started[k] <= started[k - 1], "task %d started with priority %d after one of priority %d", k,
              started[k], started[k - 1]);
}

/* The size of the tree grown from seed (the oracle). */
static long tree_serial(unsigned seed, int depth)
{
    uint64_t r = corpus_seed(seed, (unsigned)depth);
    int fan = depth == 0 ? 0 : (int)(r % 4);
    long n = 1;
    for (int c = 0; c < fan; c++)
        n += tree_serial(seed * 31u + (unsigned)c + 1u, depth - 1);
    return n;
}

static long tree_tasks(unsigned seed, int depth)
{
    uint64_t r = corpus_seed(seed, (unsigned)depth);
    int fan = depth == 0 ? 0 : (int)(r % 4);
    long out[3] = {0, 0, 0};
    uint64_t delay = r;
    corpus_delay(&delay, 30);
#pragma omp taskgroup
    for (int c = 0; c < fan; c++) {
        int p = (int)((r >> (12 + 4 * c)) % 12);
#pragma omp task priority(p) firstprivate(c) shared(out)
        out[c] = tree_tasks(seed * 31u + (unsigned)c + 1u, depth - 1);
    }
    return 1 + out[0] + out[1] + out[2];
}

static long trees(void)
{
    long total = 0;
    for (int e = 0; e < TREE_EPISODES; e++) {
        unsigned seed = (unsigned)corpus_seed((unsigned)e, 22);
        long got = 0;
#pragma omp parallel
        {
            /* Every thread grows a tree, so prioritized tasks of several
             * trees, not all runnable by every waiter, share the queue. */
            long mine = tree_tasks(seed + (unsigned)omp_get_thread_num(), 6);
#pragma omp atomic
            got += mine;
        }
        long want = 0;
        for (int t = 0; t < omp_get_max_threads(); t++)
            want += tree_serial(seed + (unsigned)t, 6);
        CHECK_EQ(got, want, "tree episode %d: nodes counted", e);
        total += want;
    }
    return total;
}

static void chain(void)
{
    int seen[CHAIN], x = 0, out_of_order = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < CHAIN; i++) {
        int p = (int)(corpus_seed((unsigned)i, 23) % 11);
#pragma omp task depend(inout : x) priority(p) firstprivate(i) shared(x, seen, out_of_order)
        {
            if (x != i)
                out_of_order++;
            seen[i] = x;
            x = i + 1;
        }
    }
    CHECK_EQ(out_of_order, 0, "inout tasks of random priorities that ran out of program order");
    CHECK_EQ(x, CHAIN, "inout chain's final value");
    (void)seen;
}

static long prioritized_taskloop(void)
{
    long sum = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop priority(7) grainsize(10) reduction(+ : sum)
    for (int i = 0; i < 1000; i++)
        sum += i;
    CHECK_EQ(sum, 999L * 1000 / 2, "taskloop priority(7): sum");
    return sum;
}

int main(int argc, char **argv)
{
    (void)argc;
    corpus_reexec_with(argv, "OMP_MAX_TASK_PRIORITY", "10");
    corpus_begin("omp_task_priority");
    int T = corpus_threads();
    CHECK_EQ(omp_get_max_task_priority(), 10, "omp_get_max_task_priority() with OMP_MAX_TASK_PRIORITY=10");
    higher_first(T);
    long nodes = trees();
    chain();
    long sum = prioritized_taskloop();
    corpus_summary("max_priority=10 tree_nodes=%ld loop_sum=%ld ok", nodes, sum);
    return 0;
}
