/* libomp's kmp_* API as muster offers it (kmp/api.c): the C names, by
 * value, which the Fortran names (fortran/kmp.c) call.  LLVM's omp.h
 * declares the same routines for programs. */
#ifndef MUSTER_OMP_KMP_API_H
#define MUSTER_OMP_KMP_API_H

#include <stddef.h>

void kmp_set_stacksize(int size);
void kmp_set_stacksize_s(size_t size);
int kmp_get_stacksize(void);
size_t kmp_get_stacksize_s(void);
void kmp_set_blocktime(int ms);
int kmp_get_blocktime(void);
void kmp_set_library(int mode);
void kmp_set_library_serial(void);
void kmp_set_library_turnaround(void);
void kmp_set_library_throughput(void);
int kmp_get_library(void);
void kmp_set_disp_num_buffers(int buffers);
void kmp_set_defaults(const char *settings);
int kmp_get_affinity_max_proc(void);
void kmp_create_affinity_mask(void **mask);
void kmp_destroy_affinity_mask(void **mask);
int kmp_set_affinity_mask_proc(int proc, void **mask);
int kmp_unset_affinity_mask_proc(int proc, void **mask);
int kmp_get_affinity_mask_proc(int proc, void **mask);
int kmp_set_affinity(void **mask);
int kmp_get_affinity(void **mask);
int kmp_set_thread_affinity_mask_initial(void);
void *kmp_malloc(size_t size);
void *kmp_aligned_malloc(size_t size, size_t alignment);
void *kmp_calloc(size_t count, size_t size);
void *kmp_realloc(void *p, size_t size);
void kmp_free(void *p);
void kmp_set_warnings_on(void);
void kmp_set_warnings_off(void);
int kmp_get_cancellation_status(int kind);
int kmp_get_num_known_threads(void);
/* omp_display_affinity at VERSION: on stdout, as libomp writes it. */
void muster_kmp_display_affinity(const char *format);

void kmpc_set_stacksize(int size);
void kmpc_set_stacksize_s(size_t size);
void kmpc_set_blocktime(int ms);
void kmpc_set_library(int mode);
void kmpc_set_defaults(const char *settings);
void kmpc_set_disp_num_buffers(int buffers);
int kmpc_set_affinity_mask_proc(int proc, void **mask);
int kmpc_unset_affinity_mask_proc(int proc, void **mask);
int kmpc_get_affinity_mask_proc(int proc, void **mask);
void *kmpc_malloc(size_t size);
void *kmpc_aligned_malloc(size_t size, size_t alignment);
void *kmpc_calloc(size_t count, size_t size);
void *kmpc_realloc(void *p, size_t size);
void kmpc_free(void *p);

#endif
