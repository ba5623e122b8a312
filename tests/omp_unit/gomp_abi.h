/* The libgomp entry points the worksharing tests call directly, as gcc 12
 * emits them (libgomp_g.h's prototypes).  Tests call them the way gcc's
 * lowering does, with outlined region bodies, so that every schedule, chunk
 * size and range can be driven exactly. */
#ifndef MUSTER_TEST_GOMP_ABI_H
#define MUSTER_TEST_GOMP_ABI_H

#include <stdbool.h>
#include <stdint.h>

typedef unsigned long long ull;

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);
void GOMP_barrier(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);

bool GOMP_loop_static_start(long, long, long, long, long *, long *);
bool GOMP_loop_dynamic_start(long, long, long, long, long *, long *);
bool GOMP_loop_guided_start(long, long, long, long, long *, long *);
bool GOMP_loop_runtime_start(long, long, long, long *, long *);
bool GOMP_loop_nonmonotonic_dynamic_start(long, long, long, long, long *, long *);
bool GOMP_loop_nonmonotonic_guided_start(long, long, long, long, long *, long *);
bool GOMP_loop_maybe_nonmonotonic_runtime_start(long, long, long, long *, long *);
bool GOMP_loop_start(long, long, long, long, long, long *, long *, uintptr_t *, void **);
bool GOMP_loop_ordered_static_start(long, long, long, long, long *, long *);
bool GOMP_loop_ordered_dynamic_start(long, long, long, long, long *, long *);
bool GOMP_loop_ordered_guided_start(long, long, long, long, long *, long *);
bool GOMP_loop_ordered_runtime_start(long, long, long, long *, long *);
bool GOMP_loop_ordered_start(long, long, long, long, long, long *, long *, uintptr_t *, void **);
bool GOMP_loop_static_next(long *, long *);
bool GOMP_loop_dynamic_next(long *, long *);
bool GOMP_loop_guided_next(long *, long *);
bool GOMP_loop_runtime_next(long *, long *);
bool GOMP_loop_nonmonotonic_dynamic_next(long *, long *);
bool GOMP_loop_nonmonotonic_guided_next(long *, long *);
bool GOMP_loop_maybe_nonmonotonic_runtime_next(long *, long *);
bool GOMP_loop_ordered_static_next(long *, long *);
bool GOMP_loop_ordered_dynamic_next(long *, long *);
bool GOMP_loop_ordered_guided_next(long *, long *);
bool GOMP_loop_ordered_runtime_next(long *, long *);
bool GOMP_loop_doacross_static_start(unsigned, long *, long, long *, long *);
bool GOMP_loop_doacross_dynamic_start(unsigned, long *, long, long *, long *);
bool GOMP_loop_doacross_guided_start(unsigned, long *, long, long *, long *);
bool GOMP_loop_doacross_runtime_start(unsigned, long *, long *, long *);
bool GOMP_loop_doacross_start(unsigned, long *, long, long, long *, long *, uintptr_t *, void **);
void GOMP_parallel_loop_static_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_dynamic_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_guided_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_runtime_start(void (*)(void *), void *, unsigned, long, long, long);
void GOMP_parallel_loop_static(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_dynamic(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_guided(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_runtime(void (*)(void *), void *, unsigned, long, long, long, unsigned);
void GOMP_parallel_loop_nonmonotonic_dynamic(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_nonmonotonic_guided(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
void GOMP_parallel_loop_nonmonotonic_runtime(void (*)(void *), void *, unsigned, long, long, long, unsigned);
void GOMP_parallel_loop_maybe_nonmonotonic_runtime(void (*)(void *), void *, unsigned, long, long, long, unsigned);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
bool GOMP_loop_end_cancel(void);

bool GOMP_loop_ull_static_start(bool, ull, ull, ull, ull, ull *, ull *);
bool GOMP_loop_ull_dynamic_start(bool, ull, ull, ull, ull, ull *, ull *);
bool GOMP_loop_ull_guided_start(bool, ull, ull, ull, ull, ull *, ull *);
bool GOMP_loop_ull_runtime_start(bool, ull, ull, ull, ull *, ull *);
bool GOMP_loop_ull_start(bool, ull, ull, ull, long, ull, ull *, ull *, uintptr_t *, void **);
bool GOMP_loop_ull_ordered_static_start(bool, ull, ull, ull, ull, ull *, ull *);
bool GOMP_loop_ull_ordered_dynamic_start(bool, ull, ull, ull, ull, ull *, ull *);
bool GOMP_loop_ull_ordered_guided_start(bool, ull, ull, ull, ull, ull *, ull *);
bool GOMP_loop_ull_static_next(ull *, ull *);
bool GOMP_loop_ull_dynamic_next(ull *, ull *);
bool GOMP_loop_ull_guided_next(ull *, ull *);
bool GOMP_loop_ull_runtime_next(ull *, ull *);
bool GOMP_loop_ull_ordered_static_next(ull *, ull *);
bool GOMP_loop_ull_ordered_dynamic_next(ull *, ull *);
bool GOMP_loop_ull_ordered_guided_next(ull *, ull *);
bool GOMP_loop_ull_doacross_static_start(unsigned, ull *, ull, ull *, ull *);
bool GOMP_loop_ull_doacross_dynamic_start(unsigned, ull *, ull, ull *, ull *);
void GOMP_doacross_post(long *);
void GOMP_doacross_wait(long, ...);
void GOMP_doacross_ull_post(ull *);
void GOMP_doacross_ull_wait(ull, ...);
void GOMP_ordered_start(void);
void GOMP_ordered_end(void);

unsigned GOMP_sections_start(unsigned);
unsigned GOMP_sections2_start(unsigned, uintptr_t *, void **);
unsigned GOMP_sections_next(void);
void GOMP_parallel_sections_start(void (*)(void *), void *, unsigned, unsigned);
void GOMP_parallel_sections(void (*)(void *), void *, unsigned, unsigned, unsigned);
void GOMP_sections_end(void);
void GOMP_sections_end_nowait(void);
bool GOMP_sections_end_cancel(void);

bool GOMP_single_start(void);
void *GOMP_single_copy_start(void);
void GOMP_single_copy_end(void *);
void GOMP_scope_start(uintptr_t *);

#endif
