/* omp_dlopen's part built by gcc (omp_dlopen.c says what it is for). */
#define PART_NAME(x) gcc_part_##x
#include "omp_dlopen_part.h"
