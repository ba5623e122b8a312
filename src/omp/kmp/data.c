/* The data libomp exports beside its functions, for programs that link to
 * it by name: the predefined allocator and memory-space handles as
 * read-only objects (LLVM's omp.h makes them constants, so clang's C code
 * never reads these; Intel's Fortran and C++ modules may), and the two
 * markers Intel's compilers reference so that a program links one OpenMP
 * runtime.  Values as libomp 14 has them.  Not <omp.h>: gcc's declares the
 * handles as enumerators of the same names. */
#include <stdint.h>

#define MUSTER_OMP_EXPORT __attribute__((visibility("default")))

MUSTER_OMP_EXPORT const uintptr_t omp_null_allocator = 0;
MUSTER_OMP_EXPORT const uintptr_t omp_default_mem_alloc = 1;
MUSTER_OMP_EXPORT const uintptr_t omp_large_cap_mem_alloc = 2;
MUSTER_OMP_EXPORT const uintptr_t omp_const_mem_alloc = 3;
MUSTER_OMP_EXPORT const uintptr_t omp_high_bw_mem_alloc = 4;
MUSTER_OMP_EXPORT const uintptr_t omp_low_lat_mem_alloc = 5;
MUSTER_OMP_EXPORT const uintptr_t omp_cgroup_mem_alloc = 6;
MUSTER_OMP_EXPORT const uintptr_t omp_pteam_mem_alloc = 7;
MUSTER_OMP_EXPORT const uintptr_t omp_thread_mem_alloc = 8;
/* libomp's bound: handles below it are predefined, above it made by
 * omp_init_allocator. */
MUSTER_OMP_EXPORT const uintptr_t kmp_max_mem_alloc = 1024;

MUSTER_OMP_EXPORT const uintptr_t omp_default_mem_space = 0;
MUSTER_OMP_EXPORT const uintptr_t omp_large_cap_mem_space = 1;
MUSTER_OMP_EXPORT const uintptr_t omp_const_mem_space = 2;
MUSTER_OMP_EXPORT const uintptr_t omp_high_bw_mem_space = 3;
MUSTER_OMP_EXPORT const uintptr_t omp_low_lat_mem_space = 4;

MUSTER_OMP_EXPORT int _You_must_link_with_Intel_OpenMP_library = 1;
MUSTER_OMP_EXPORT int _You_must_link_with_exactly_one_OpenMP_library = 1;
