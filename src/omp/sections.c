/* GOMP_sections*, GOMP_parallel_sections*. */
#include "omp/internal.h"
