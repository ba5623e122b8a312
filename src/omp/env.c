/* OMP_* and MUSTER_* environment variables -> the global ICVs; OMP_DISPLAY_ENV. */
#include "omp/internal.h"
