/* GOMP_critical_start/end, GOMP_critical_name_start/end, GOMP_atomic_start/end. */
#include "omp/internal.h"
