/* GOMP_loop_ull_* for unsigned long long iteration variables. */
#include "omp/internal.h"
