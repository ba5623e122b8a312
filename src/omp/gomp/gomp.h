/* What gcc's entry points (src/omp/gomp/) share among themselves. */
#ifndef MUSTER_OMP_GOMP_H
#define MUSTER_OMP_GOMP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "omp/internal.h"

/* GOMP_task and GOMP_taskloop flags (gcc's gomp-constants.h). */
#define GOMP_TASK_FLAG_FINAL (1u << 1)
#define GOMP_TASK_FLAG_PRIORITY (1u << 4)
#define GOMP_TASK_FLAG_UP (1u << 8)
#define GOMP_TASK_FLAG_GRAINSIZE (1u << 9)
#define GOMP_TASK_FLAG_IF (1u << 10) /* taskloop: its if clause holds (or is absent) */
#define GOMP_TASK_FLAG_NOGROUP (1u << 11)
#define GOMP_TASK_FLAG_REDUCTION (1u << 12)
#define GOMP_TASK_FLAG_DETACH (1u << 13)
#define GOMP_TASK_FLAG_STRICT (1u << 14)

/* GOMP_parallel's flags: the proc_bind clause in the low 3 bits, as the
 * core takes it (an omp_proc_bind_t value, 0 without one). */
#define GOMP_PARALLEL_PROC_BIND(flags) ((flags) & 7u)

/* A worksharing construct's reduction(task, ...) (taskred.c): registers
 * gcc's descriptor `own` in the construct's taskgroup, allocating the
 * per-thread blocks (first NULL) or sharing those of `first`, the
 * descriptor of the member that opened the work share.  The
 * register_reductions of muster_ws_loop_extras. */
void muster_gomp_workshare_reductions(void *own, void *first);

/* GOMP_taskgroup_reduction_register, for taskloop's reductions. */
void muster_gomp_taskgroup_reductions(uintptr_t *data);

/* Doacross loops of either width (loop.c, loop_ull.c): `counts` points to
 * ncounts longs (signed_counts) or unsigned long longs.  A doacross loop
 * always runs a static schedule over its outermost dimension (loop.c says
 * why).  Opens the loop; the caller then takes its first chunk. */
void muster_gomp_doacross_open(unsigned ncounts, const void *counts, bool signed_counts, uint64_t chunk,
                               void **mem, uintptr_t *reductions);
/* The chunk of a doacross loop with GOMP_loop_doacross_start's `sched`:
 * the runtime schedule's for runtime and auto, else `chunk`, at least 1
 * for a dynamic or guided one. */
uint64_t muster_gomp_doacross_chunk(long sched, uint64_t chunk);
/* The runtime schedule's chunk, as a doacross loop uses it. */
uint64_t muster_gomp_doacross_runtime_chunk(void);
/* GOMP_doacross[_ull]_post and _wait: the iteration in `counts`, or
 * `first` and then the other dimensions from ap, of either width. */
void muster_gomp_doacross_post(const void *counts, bool signed_counts);
void muster_gomp_doacross_wait(uint64_t first, va_list ap, bool signed_counts);

/* The size of the calling thread's team; 1 outside any region. */
static inline unsigned muster_gomp_team_size(void)
{
    muster_omp_team *team = muster_omp_self()->team;
    return team ? team->size : 1;
}

#endif
