/* Work-share waits of a 2-thread team whose members share one CPU.  Run
 * with OMP_PLACES='{0}' OMP_PROC_BIND=true in a process that may use more
 * CPUs: the runtime then plans to spin (a team that fits the CPUs), yet a
 * waiter's team-mate cannot run while it spins.  Linux does this to a team
 * by itself for a while (a futex wake-up puts the woken thread on its
 * waker's CPU); binding makes it last.
 *
 * Times R team barriers, then R iterations of an ordered loop
 * (schedule(static, 1): the turn passes from member to member), per
 * episode or iteration.  Each hand-off between the two members costs a
 * context switch, so a barrier episode is the yardstick: a waiter that
 * spins its whole budget before its team-mate may run costs a hundred
 * times one or more (the ordered turn's waits had no co-location guard:
 * 1.3-2.8 ms per iteration against ~2 us per barrier).  Judges the
 * constructs against each other, in one process: not a timing test.
 *
 * Prints both figures; exit status 0 when an ordered iteration costs at
 * most RATIO times a barrier, 1 when more, 77 when the members did not
 * share a CPU (nothing to judge). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu */
#endif
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

enum { R = 400, RATIO = 20 };

static volatile unsigned sink;

int main(void)
{
    int cpus[2] = {-1, -2}, team = 0;
    double barrier_us = 0, ordered_us = 0;
#pragma omp parallel num_threads(2)
    {
        int id = omp_get_thread_num();
        cpus[id & 1] = sched_getcpu();
#pragma omp single
        team = omp_get_num_threads();
        double t0 = omp_get_wtime();
        for (int i = 0; i < R; i++) {
#pragma omp barrier
        }
        double t1 = omp_get_wtime();
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < R; i++) {
#pragma omp ordered
            sink += (unsigned)i;
        }
        double t2 = omp_get_wtime();
#pragma omp master
        {
            barrier_us = (t1 - t0) * 1e6 / R;
            ordered_us = (t2 - t1) * 1e6 / R;
        }
    }
    if (team != 2 || cpus[0] != cpus[1]) {
        printf("not co-located: team of %d on CPUs %d and %d\n", team, cpus[0], cpus[1]);
        return 77;
    }
    printf("co-located on CPU %d: barrier %.2f us per episode, ordered %.2f us per iteration\n", cpus[0], barrier_us,
           ordered_us);
    return ordered_us <= RATIO * (barrier_us > 0.5 ? barrier_us : 0.5) ? 0 : 1;
}
