/* Task reductions on worksharing constructs (task.c), for loop.c and
 * sections.c: what GOMP_loop_start, GOMP_loop_ull_start and
 * GOMP_sections2_start do with a non-NULL `reductions` argument, as
 * libgomp's loop.c does:
 *
 *     if (reductions)
 *         muster_omp_workshare_taskgroup_start();
 *     if (this thread opened the work share) {
 *         muster_omp_workshare_task_reduction_register(reductions, NULL);
 *         work_share->task_reductions = reductions;   // for the others
 *     } else if (reductions) {
 *         muster_omp_workshare_task_reduction_register(reductions,
 *                                                       work_share->task_reductions);
 *     }
 *
 * The compiler-emitted code later calls GOMP_workshare_task_reduction_unregister,
 * which ends the taskgroup, frees the shared arrays (thread 0) and, unless
 * cancelled, waits at the team barrier. */
#ifndef MUSTER_OMP_TASK_H
#define MUSTER_OMP_TASK_H

#include <stdint.h>

/* Opens the taskgroup a worksharing construct with task reductions binds to. */
void muster_omp_workshare_taskgroup_start(void);

/* Registers the calling thread's reduction descriptor `data` (libgomp's
 * layout: see task.c) in its innermost taskgroup.  orig NULL: allocate the
 * per-thread arrays (the first thread); otherwise share those of orig, the
 * first thread's descriptor. */
void muster_omp_workshare_task_reduction_register(uintptr_t *data, uintptr_t *orig);

#endif
