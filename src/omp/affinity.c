/* OMP_PLACES and OMP_PROC_BIND: places, and pinning team threads to them. */
#include "omp/internal.h"
