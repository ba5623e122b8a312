/* A library built with -fopenmp: a program that links it links no OpenMP
 * runtime itself, yet needs libgomp through it (as GROMACS's gmx needs it
 * through libgromacs). */
#include <omp.h>

int omp_via_library_team_size(void)
{
    int n = 0;
#pragma omp parallel
#pragma omp single
    n = omp_get_num_threads();
    return n;
}
