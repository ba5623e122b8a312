/* Offload entry points, run on the host as libgomp does without devices; host teams. */
#include "omp/internal.h"
