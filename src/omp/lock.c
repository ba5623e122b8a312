/* omp_*_lock and omp_*_nest_lock: a futex mutex that spins, then sleeps. */
#include "omp/internal.h"
