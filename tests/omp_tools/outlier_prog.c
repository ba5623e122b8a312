/* One short run for the outlier check (check_outliers.py): a 2-thread team
 * (OMP_NUM_THREADS) that goes through `episodes` barriers in one region,
 * then `regions` parallel regions, each member doing ~1 us of work before
 * every one.  Prints the run's time in microseconds, counted from the
 * start of the first region's body: the one-time costs before it (the
 * runtime reading the topology, calibrating its spin) are left out, while
 * a bad placement of the team's threads, made when the team starts (issue
 * #10), is already in place and is measured.
 *
 * The work makes the check fair to a runtime whose team-mates share a CPU
 * for a while: a hand-off between them costs a context switch (~2 us),
 * three or four times a normal episode; a waiter that spins its whole
 * budget instead costs hundreds of times one.
 *
 * usage: outlier_prog [episodes [regions]]   (default 300 60: short, like
 * the many short runs where issue #10 was seen; longer runs dilute a bad
 * start into the median) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

static void work(void)
{
    unsigned x = sink;
    for (int i = 0; i < 300; i++)
        x = x * 1103515245u + 12345u;
    sink = x;
}

int main(int argc, char **argv)
{
    long episodes = argc > 1 ? atol(argv[1]) : 300;
    long regions = argc > 2 ? atol(argv[2]) : 60;
    if (episodes < 1 || regions < 1) {
        fprintf(stderr, "outlier_prog: episodes and regions must be positive\n");
        return 2;
    }
    int team = 0;
    double start = 0.0;
#pragma omp parallel
    {
#pragma omp master
        start = omp_get_wtime();
#pragma omp single
        team = omp_get_num_threads();
        for (long i = 0; i < episodes; i++) {
            work();
#pragma omp barrier
        }
    }
    for (long i = 0; i < regions; i++) {
#pragma omp parallel
        work();
    }
    double elapsed = omp_get_wtime() - start;
    printf("team=%d us=%.1f\n", team, elapsed * 1e6);
    return 0;
}
