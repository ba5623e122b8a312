/* test_omp_bound_team: a bound team's task scheduler counts the CPUs of its
 * members' places (parallel.c's set_places, muster_omp_bound_cpus), so
 * members that share a CPU are spare and their hunger queues no task
 * (test_omp_scheduler checks that decision).  Real `gcc -fopenmp` regions
 * on the runtime linked in (muster_omp_static), each looking at its own
 * team's scheduler from inside:
 *   bound    OMP_PLACES='{0}' OMP_PROC_BIND=true: every member on CPU 0, so
 *            a team of n has n - 1 spare, whatever the process's CPUs
 *   unbound  OMP_PLACES='{0}' OMP_PROC_BIND=false: the process's CPUs count
 * Teams of 2 and 3 alternate, so a team reused after another size is seen. */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "omp/internal.h"
#include "omp/task/scheduler.h"
#include "platform/cpus.h"

static unsigned team_spare(unsigned threads)
{
    unsigned spare = 99, size = 0;
#pragma omp parallel num_threads(threads)
#pragma omp master
    {
        const muster_omp_team *team = muster_omp_self()->team;
        size = team->size;
        spare = atomic_load(&team->tasks->spare_members);
    }
    CHECK(size == threads, "a team of %u asked, %u formed", threads, size);
    return spare;
}

int main(int argc, char **argv)
{
    bool bound = argc == 2 && strcmp(argv[1], "bound") == 0;
    if (argc != 2 || (!bound && strcmp(argv[1], "unbound") != 0)) {
        fprintf(stderr, "usage: test_omp_bound_team bound|unbound\n");
        return 2;
    }
    unsigned cpus = muster_cpus_available();
    for (unsigned round = 0; round < 4; round++)
        for (unsigned threads = 2; threads <= 3; threads++) {
            unsigned expected = bound ? threads - 1 : threads > cpus ? threads - cpus : 0;
            unsigned spare = team_spare(threads);
            CHECK(spare == expected, "%s team of %u on %u CPUs: %u spare members, expected %u", argv[1], threads,
                  cpus, spare, expected);
        }
    printf("test_omp_bound_team %s: ok\n", argv[1]);
    return 0;
}
