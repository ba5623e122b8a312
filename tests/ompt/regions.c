/* The program the recording tool watches: ROUNDS parallel regions, each
 * with an explicit barrier and a worksharing loop (its implicit barrier),
 * then a region with num_threads(1) and one nested inside another.  Its
 * output is the events it expects of a tool, one line, which
 * check_ompt.py compares with the recorder's:
 *   regions: threads=T parallel=P implicit=I barriers=B */
#include <omp.h>
#include <stdio.h>

enum { ROUNDS = 10 };

int main(void)
{
    int team = 0;
    long sum = 0;
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel reduction(+ : sum)
        {
#pragma omp single
            team = omp_get_num_threads();
#pragma omp barrier
#pragma omp for
            for (int i = 0; i < 100; i++)
                sum += i;
        }
    }
#pragma omp parallel num_threads(1)
    sum += 1;
    /* Regions: ROUNDS + 1; implicit tasks: ROUNDS * team + 1; barriers per
     * member of a round: the single's, the explicit one, the loop's and the
     * region's end (4), and the end of the team of one's region (1). */
    printf("regions: parallel=%d implicit=%d barriers=%d sum=%ld\n", ROUNDS + 1, ROUNDS * team + 1,
           ROUNDS * team * 4 + 1, sum);
    return 0;
}
