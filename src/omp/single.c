/* GOMP_single_start, GOMP_single_copy_start/end (copyprivate). */
#include "omp/internal.h"
