/* The kinds of explicit task, each checked against what it must do, in
 * random episodes (sizes, delays) at whatever team size runs it; built by
 * gcc (GOMP_task) and by clang (LLVM's __kmpc_omp_task_alloc protocol):
 *  - untied tasks (clang's re-submitting entry) run their body exactly once
 *    and are waited for by their parent's taskwait;
 *  - an if(0) task's own children are waited for by its taskwait, and it
 *    finishes before the construct returns;
 *  - final tasks make every descendant final (omp_in_final) and run them
 *    at once, in program order;
 *  - firstprivate copies (a struct of 40 bytes) and shared variables;
 *  - taskloop with grainsize, num_tasks, if(0), lastprivate, firstprivate
 *    and a descending loop: every iteration exactly once, the last value;
 *  - priority clauses are accepted and every task runs once;
 *  - taskgroup nesting waits for descendants, taskwait only for children. */
#include "corpus.h"

#define EPISODES 25
#define MAXN 2000

typedef struct payload {
    long words[5];
} payload;

static long payload_sum(const payload *p)
{
    return p->words[0] + p->words[1] + p->words[2] + p->words[3] + p->words[4];
}

static void untied_episode(uint64_t *seed, int n)
{
    static int ran[MAXN];
    memset(ran, 0, sizeof ran);
    long total = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < n; i++) {
            unsigned pause = (unsigned)(corpus_rand(seed) % 3);
#pragma omp task untied firstprivate(i, pause) shared(total)
            {
                corpus_delay(&(uint64_t){corpus_seed((unsigned)i, 1)}, pause);
#pragma omp atomic
                ran[i]++;
#pragma omp atomic
                total += i;
            }
        }
#pragma omp taskwait
        for (int i = 0; i < n; i++)
            CHECK_EQ(ran[i], 1, "untied task %d of %d: runs seen by its parent's taskwait", i, n);
    }
    CHECK_EQ(total, (long)n * (n - 1) / 2, "untied tasks: sum of their indices");
}

static void if0_episode(uint64_t *seed, int n)
{
    int done = 0, children = 0;
#pragma omp parallel shared(done, children)
#pragma omp single
    {
#pragma omp task if (0) shared(done, children)
        {
            for (int i = 0; i < n; i++) {
                unsigned pause = (unsigned)(corpus_rand(seed) % 4);
#pragma omp task firstprivate(pause) shared(children)
                {
                    corpus_delay(&(uint64_t){corpus_seed(pause, 2)}, pause);
#pragma omp atomic
                    children++;
                }
            }
#pragma omp taskwait
            int seen;
#pragma omp atomic read
            seen = children;
            CHECK_EQ(seen, n, "children of an if(0) task done at its taskwait");
            done = 1;
        }
        CHECK_EQ(done, 1, "an if(0) task has finished when its construct returns");
    }
}

static void final_episode(int n)
{
    static int order[MAXN];
    int next = 0, not_final = 0;
#pragma omp parallel shared(next, not_final)
#pragma omp single
    {
#pragma omp task final(1) shared(next, not_final)
        {
            for (int i = 0; i < n; i++) {
#pragma omp task firstprivate(i) shared(next, not_final)
                {
                    if (!omp_in_final())
                        not_final++;
                    order[next++] = i; /* final: run at once, in order, on this thread */
                }
            }
        }
#pragma omp taskwait
    }
    CHECK_EQ(not_final, 0, "descendants of a final task that were not final");
    CHECK_EQ(next, n, "tasks created inside a final task");
    for (int i = 0; i < n; i++)
        CHECK_EQ(order[i], i, "final task order, position %d", i);
}

static void firstprivate_episode(uint64_t *seed, int n)
{
    long expected = 0, got = 0;
#pragma omp parallel shared(expected, got)
#pragma omp single
    {
        for (int i = 0; i < n; i++) {
            payload p;
            for (int w = 0; w < 5; w++)
                p.words[w] = (long)(corpus_rand(seed) % 1000);
            expected += payload_sum(&p);
#pragma omp task firstprivate(p) shared(got)
            {
                long s = payload_sum(&p);
#pragma omp atomic
                got += s;
            }
            memset(&p, 0xff, sizeof p); /* the task has its own copy */
        }
    }
    CHECK_EQ(got, expected, "sum over firstprivate payloads");
}

static void taskloop_episode(uint64_t *seed, int n)
{
    static int hits[MAXN];
    int grain = 1 + (int)(corpus_rand(seed) % 17), tasks = 1 + (int)(corpus_rand(seed) % 13);
    int offset = (int)(corpus_rand(seed) % 100);
    for (int form = 0; form < 4; form++) {
        memset(hits, 0, sizeof hits);
        int last = -1;
#pragma omp parallel shared(hits, last)
#pragma omp single
        {
            if (form == 0) {
#pragma omp taskloop grainsize(grain) lastprivate(last) firstprivate(offset)
                for (int i = 0; i < n; i++) {
                    hits[i] += 1 + offset - offset;
                    last = i;
                }
            } else if (form == 1) {
#pragma omp taskloop num_tasks(tasks) lastprivate(last)
                for (int i = n - 1; i >= 0; i--) {
                    hits[i]++;
                    last = i;
                }
            } else if (form == 2) {
#pragma omp taskloop if (0) lastprivate(last)
                for (int i = 0; i < n; i++) {
                    hits[i]++;
                    last = i;
                }
            } else {
#pragma omp taskloop nogroup lastprivate(last)
                for (int i = 0; i < n; i += 3) {
                    hits[i]++;
                    last = i;
                }
#pragma omp taskwait
            }
        }
        int want_last = form == 1 ? 0 : form == 3 ? (n - 1) / 3 * 3 : n - 1;
        CHECK_EQ(last, want_last, "taskloop form %d (grainsize %d, num_tasks %d, n %d): lastprivate", form, grain,
                 tasks, n);
        for (int i = 0; i < n; i++)
            CHECK_EQ(hits[i], form == 3 ? i % 3 == 0 : 1, "taskloop form %d: runs of iteration %d", form, i);
    }
}

static void priority_episode(uint64_t *seed, int n)
{
    int ran = 0;
#pragma omp parallel shared(ran)
#pragma omp single
    {
        for (int i = 0; i < n; i++) {
            int p = (int)(corpus_rand(seed) % 8);
#pragma omp task priority(p) shared(ran)
            {
#pragma omp atomic
                ran++;
            }
        }
    }
    CHECK_EQ(ran, n, "tasks with priorities that ran");
}

static void group_episode(uint64_t *seed, int n)
{
    int leaves = 0;
#pragma omp parallel shared(leaves)
#pragma omp single
    {
#pragma omp taskgroup
        {
            for (int i = 0; i < n; i++) {
                unsigned pause = (unsigned)(corpus_rand(seed) % 3);
#pragma omp task firstprivate(pause) shared(leaves)
                {
#pragma omp task firstprivate(pause) shared(leaves)
                    {
                        corpus_delay(&(uint64_t){corpus_seed(pause, 3)}, pause);
#pragma omp atomic
                        leaves++;
                    }
                }
            }
        }
        int seen;
#pragma omp atomic read
        seen = leaves;
        CHECK_EQ(seen, n, "grandchildren done at the end of their taskgroup");
    }
}

int main(void)
{
    corpus_begin("omp_task_kinds");
    uint64_t seed = corpus_seed(17, (unsigned)corpus_threads());
    for (int e = 0; e < EPISODES; e++) {
        int n = 1 + (int)(corpus_rand(&seed) % 97);
        untied_episode(&seed, n);
        if0_episode(&seed, n);
        final_episode(n);
        firstprivate_episode(&seed, n);
        taskloop_episode(&seed, n + (int)(corpus_rand(&seed) % 300));
        priority_episode(&seed, n);
        group_episode(&seed, n);
    }
    corpus_summary("episodes=%d kinds=7 ok", EPISODES);
    return 0;
}
