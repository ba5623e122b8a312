/* Cancellation entry points: cancellation is disabled, as libgomp does by default. */
#include "omp/internal.h"
