/* The work-share ring that every worksharing construct enters. */
#include "omp/internal.h"
