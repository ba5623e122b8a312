/* omp_dlopen's part built by clang (omp_dlopen.c says what it is for). */
#define PART_NAME(x) clang_part_##x
#include "omp_dlopen_part.h"
