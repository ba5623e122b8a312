/* Tasks (results only, never parallelism: muster may run a task at once in
 * the thread that creates it): task + taskwait (Fibonacci), tasks created
 * in single and in every thread, firstprivate capture at creation, task
 * if(0), final (omp_in_final inside), mergeable, untied, priority,
 * depend(out/in/inout) chains in program order, taskgroup waiting for
 * descendants, taskyield, taskloop (grainsize, num_tasks, nogroup,
 * reduction, unsigned long long), taskgroup task_reduction with
 * in_reduction tasks, worksharing loops and sections with a task
 * reduction modifier, and taskwait with depend. */
#include "corpus.h"

static long fib(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a) firstprivate(n)
    a = fib(n - 1);
#pragma omp task shared(b) firstprivate(n)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

#define N 500

int main(void)
{
    corpus_begin("omp_tasks");
    int T = corpus_threads();

    /* Fibonacci. */
    long f = 0;
#pragma omp parallel
#pragma omp single
    f = fib(16);
    CHECK_EQ(f, fib_serial(16), "fib(16) with tasks");

    /* Tasks from one thread and from all, firstprivate captured at creation. */
    static int hits[N];
    memset(hits, 0, sizeof hits);
#pragma omp parallel
    {
#pragma omp single
        for (int i = 0; i < N; i++) {
#pragma omp task firstprivate(i)
#pragma omp atomic
            hits[i]++;
        }
        /* The single's barrier completes the tasks. */
        int id = omp_get_thread_num();
        for (int k = 0; k < 10; k++) {
            int slot = 10 * id + k;
#pragma omp task firstprivate(slot)
#pragma omp atomic
            hits[slot] += 100;
        }
#pragma omp taskwait
    }
    for (int i = 0; i < N; i++)
        CHECK_EQ(hits[i], 1 + (i < 10 * T ? 100 : 0), "runs of task for element %d (+100 per thread task)", i);

    /* if(0), final, mergeable, untied, priority. */
    int in_final = -1, not_final = -1, ran = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task if(0) shared(ran)
        ran += 1;
#pragma omp task final(1) shared(in_final, ran)
        {
            in_final = omp_in_final();
#pragma omp task shared(ran)
#pragma omp atomic
            ran += 10; /* an included task, run at once (atomic: the others may run meanwhile) */
        }
#pragma omp task final(0) shared(not_final)
        not_final = omp_in_final();
#pragma omp task mergeable shared(ran)
#pragma omp atomic
        ran += 100;
#pragma omp task untied shared(ran)
        {
#pragma omp taskyield
#pragma omp atomic
            ran += 1000;
        }
#pragma omp task priority(5) shared(ran)
#pragma omp atomic
        ran += 10000;
#pragma omp taskwait
    }
    CHECK_EQ(ran, 11111, "tasks run (if(0), final child, mergeable, untied, priority by digit)");
    CHECK_EQ(in_final, 1, "omp_in_final inside a final task");
    CHECK_EQ(not_final, 0, "omp_in_final inside a final(0) task");

    /* depend chains: program order between dependent tasks. */
    long x = 1, y = 0;
    long trace[8];
    int nt = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int k = 0; k < 4; k++) {
#pragma omp task depend(inout : x) shared(x, trace, nt) firstprivate(k)
            {
                x = x * 3 + k;
                trace[nt++] = x;
            }
        }
#pragma omp task depend(in : x) depend(out : y) shared(x, y)
        y = x + 1;
#pragma omp task depend(in : y) shared(y, trace, nt)
        trace[nt++] = y * 2;
#pragma omp taskwait
    }
    long xw = 1;
    for (int k = 0; k < 4; k++)
        xw = xw * 3 + k;
    CHECK_EQ(x, xw, "x after a chain of inout tasks");
    CHECK_EQ(y, xw + 1, "y from an in/out task");
    CHECK_EQ(nt, 5, "traced tasks");
    CHECK_EQ(trace[4], 2 * (xw + 1), "last task of the chain");

    /* taskgroup waits for descendants. */
    int desc = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
            for (int i = 0; i < 5; i++) {
#pragma omp task shared(desc)
                {
                    for (int j = 0; j < 4; j++) {
#pragma omp task shared(desc)
#pragma omp atomic
                        desc++;
                    }
#pragma omp atomic
                    desc += 100;
                }
            }
        }
        if (desc != 520)
            FAIL("after the taskgroup %d of 520 descendant increments are done", desc);
    }

    /* taskloop. */
    static int th[N];
    memset(th, 0, sizeof th);
    long tsum = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop grainsize(7)
        for (int i = 0; i < N; i++)
#pragma omp atomic
            th[i]++;
#pragma omp taskloop num_tasks(5)
        for (int i = 0; i < N; i += 2)
#pragma omp atomic
            th[i] += 10;
#pragma omp taskloop nogroup
        for (int i = 1; i < N; i += 2)
#pragma omp atomic
            th[i] += 10;
#pragma omp taskwait
#pragma omp taskloop reduction(+ : tsum) grainsize(16)
        for (int i = 0; i < N; i++)
            tsum += i;
    }
    for (int i = 0; i < N; i++)
        CHECK_EQ(th[i], 11, "taskloop runs of iteration %d (1 + 10)", i);
    CHECK_EQ(tsum, (long)N * (N - 1) / 2, "taskloop reduction");

    /* Task reductions: taskgroup task_reduction + in_reduction. */
    long tr = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : tr)
        {
            for (int i = 0; i < 50; i++) {
#pragma omp task in_reduction(+ : tr) firstprivate(i)
                tr += i;
            }
        }
    }
    CHECK_EQ(tr, 50 * 49 / 2, "taskgroup task_reduction");

    /* A worksharing loop with a task reduction modifier. */
    long lr = 0;
#pragma omp parallel
#pragma omp for reduction(task, + : lr) schedule(dynamic, 8)
    for (int i = 0; i < 200; i++) {
#pragma omp task in_reduction(+ : lr) firstprivate(i)
        lr += i;
        lr += 1;
    }
    CHECK_EQ(lr, 200 * 199 / 2 + 200, "for reduction(task, +) with in_reduction tasks");

    /* sections with a task reduction modifier (GOMP_sections2_start). */
    long sr = 0;
#pragma omp parallel
#pragma omp sections reduction(task, + : sr)
    {
#pragma omp section
        {
#pragma omp task in_reduction(+ : sr)
            sr += 5;
        }
#pragma omp section
        sr += 1;
#pragma omp section
        {
#pragma omp task in_reduction(+ : sr)
            sr += 100;
            sr += 10;
        }
    }
    CHECK_EQ(sr, 116, "sections reduction(task, +)");

    /* taskloop over unsigned long long beyond 2^40, and taskwait depend. */
    const unsigned long long base = 1ull << 40;
    long ul = 0;
    int dep = 0, dep_seen = -1;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop reduction(+ : ul) num_tasks(4)
        for (unsigned long long i = base; i < base + 300; i++)
            ul += (long)(i - base);
#pragma omp task depend(out : dep) shared(dep)
        dep = 42;
#pragma omp taskwait depend(in : dep)
        dep_seen = dep;
    }
    CHECK_EQ(ul, 300L * 299 / 2, "taskloop reduction over unsigned long long");
    CHECK_EQ(dep_seen, 42, "value after taskwait depend(in:)");

    /* parallel with a task reduction modifier. */
    long pr = 0;
#pragma omp parallel reduction(task, + : pr)
    {
#pragma omp task in_reduction(+ : pr)
        pr += 3;
        pr += 1;
    }
    CHECK_EQ(pr, 4L * T, "parallel reduction(task, +)");
    corpus_summary("fib16=%ld depend_x=%ld taskloop_sum=%ld ok", f, x, tsum);
    return 0;
}
