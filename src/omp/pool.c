/* Thread pools: workers that persist between regions; fork is a release, join an arrival. */
#include "omp/internal.h"
