/* The omp_* functions that read or set ICVs; omp_get_wtime, omp_get_wtick. */
#include "omp/internal.h"
