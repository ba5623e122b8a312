/* Built without -fopenmp: its OpenMP runtime comes through team_size.c's
 * library (test_compare_outputs: muster compare must see libgomp's ABI). */
#include <stdio.h>

int omp_via_library_team_size(void);

int main(void)
{
    printf("team of %d\n", omp_via_library_team_size());
    return 0;
}
