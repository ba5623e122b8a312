/* The program the recording tool watches: ROUNDS parallel regions, each
 * with tasks (queued, with dependences, in a taskgroup, if(0)) and a
 * taskwait in a single, an explicit barrier, a worksharing loop (its
 * implicit barrier), a critical section, a lock, a nest lock taken twice
 * and an ordered loop; a taskloop in the single; then a region with
 * num_threads(1) whose task forks a region of its own.  Its output is
 * the events it expects of a tool, one line, which check_ompt.py compares
 * with the recorder's:
 *   regions: parallel=P implicit=I barriers=B tasks=T deps=D taskwaits=W taskgroups=G mutexes=M nested=N */
#include <omp.h>
#include <stdio.h>

enum { ROUNDS = 10, TASKS_PER_ROUND = 8, ORDERED_ITERATIONS = 8, TASKLOOP_TASKS = 4 };

/* The single's tasks: 3 plain, 2 linked by a dependence (one entry
 * each), 2 in a taskgroup, 1 if(0); a taskwait before the taskgroup. */
static void make_tasks(long *counted)
{
    int x = 0;
    for (int k = 0; k < 3; k++) {
#pragma omp task shared(counted)
        {
#pragma omp atomic
            *counted += 1;
        }
    }
#pragma omp task depend(out : x) shared(x)
    x = 1;
#pragma omp task depend(in : x) shared(x, counted)
    {
#pragma omp atomic
        *counted += x;
    }
#pragma omp taskwait
#pragma omp taskgroup
    {
        for (int k = 0; k < 2; k++) {
#pragma omp task shared(counted)
            {
#pragma omp atomic
                *counted += 1;
            }
        }
    }
#pragma omp task if (0) shared(counted)
    {
#pragma omp atomic
        *counted += 1;
    }
    /* TASKLOOP_TASKS tasks, in a taskgroup of its own */
#pragma omp taskloop num_tasks(TASKLOOP_TASKS) shared(counted)
    for (int i = 0; i < 4 * TASKLOOP_TASKS; i++) {
#pragma omp atomic
        *counted += 1;
    }
}

int main(void)
{
    int team = 0;
    long sum = 0, counted = 0, in_critical = 0, in_lock = 0, in_order = 0, in_master = 0;
    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel reduction(+ : sum)
        {
#pragma omp single
            {
                team = omp_get_num_threads();
                make_tasks(&counted);
            }
#pragma omp barrier
#pragma omp for
            for (int i = 0; i < 100; i++)
                sum += i;
#pragma omp critical
            in_critical++;
#pragma omp master
            in_master++;
            omp_set_lock(&lock);
            in_lock++;
            omp_unset_lock(&lock);
            omp_set_nest_lock(&nest);
            omp_set_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
#pragma omp for ordered schedule(static, 1)
            for (int i = 0; i < ORDERED_ITERATIONS; i++) {
#pragma omp ordered
                in_order++;
            }
        }
    }
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    /* A region forked by an explicit task: the task is its encountering
     * task.  (A statement after the task: clang would end the body with a
     * jump to __kmpc_omp_task, whose codeptr_ra is then unknown.) */
    int levels = 0, after_task = 0;
#pragma omp parallel num_threads(1)
    {
#pragma omp task shared(levels)
        {
#pragma omp parallel num_threads(1)
            levels = omp_get_level();
        }
        after_task++;
    }
    sum += levels + after_task;
    /* Regions: ROUNDS + 2; implicit tasks: ROUNDS * team + 2; barriers per
     * member of a round: the single's, the explicit one, the two loops' and
     * the region's end (5), and the ends of the teams of one (2).  Tasks:
     * each round's and its taskloop's, and the last region's.
     * Mutexes acquired per round: critical, lock and nest lock by each
     * member, and each ordered iteration's turn; the nest lock's second
     * set is a nested acquisition. */
    int mutexes = ROUNDS * (3 * team + ORDERED_ITERATIONS);
    /* Work shares per member of a round: the single, and the loops the
     * runtime sees: gcc computes a static loop's bounds inline (only the
     * ordered loop calls the runtime), clang calls it for both; gcc
     * inlines master too (a thread-number test), clang calls it. */
#ifdef __clang__
    int runtime_loops = 2, masked = ROUNDS;
#else
    int runtime_loops = 1, masked = 0;
#endif
    printf("regions: parallel=%d implicit=%d barriers=%d tasks=%d deps=%d taskwaits=%d taskgroups=%d mutexes=%d "
           "nested=%d sum=%ld counted=%ld held=%ld/%ld/%ld\n",
           ROUNDS + 2, ROUNDS * team + 2, ROUNDS * team * 5 + 2, ROUNDS * (TASKS_PER_ROUND + TASKLOOP_TASKS) + 1,
           ROUNDS * 2, ROUNDS, ROUNDS * 2, mutexes, ROUNDS * team, sum, counted, in_critical, in_lock, in_order);
    printf("regions: loops=%d singles=%d executors=%d masked=%d master=%ld\n", ROUNDS * team * runtime_loops,
           ROUNDS * team, ROUNDS, masked, in_master);
    printf("regions: taskloops=%d\n", ROUNDS);
    return 0;
}
