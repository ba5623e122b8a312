/* GOMP_loop_* for long iteration variables, GOMP_parallel_loop_*, ordered. */
#include "omp/internal.h"
