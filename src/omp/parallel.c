/* GOMP_parallel*, GOMP_barrier and the team queries (omp_get_thread_num, levels, ancestors). */
#include "omp/internal.h"
