/* Task reductions on worksharing constructs (task.c), for loop.c and
 * gomp/sections.c: what GOMP_loop_start, GOMP_loop_ull_start and
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

#include <stdbool.h>
#include <stdint.h>

/* ---- the task core, for both ABIs' entry points ----
 * muster_omp_task_submit is GOMP_task: fn(arg) on a copy of data's
 * arg_size bytes (cpyfn makes it when not NULL), with gcc's flags (final
 * 2, priority 1 << 4, detach 1 << 13) and depend array (either form). */
void muster_omp_task_submit(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                            long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                            void *detach);
void muster_omp_taskwait(void);
void muster_omp_taskwait_depend(void **depend);
void muster_omp_taskgroup_start(void);
void muster_omp_taskgroup_end(void);

/* An undeferred task whose body the caller runs between the two calls
 * (LLVM's __kmpc_omp_task_begin_if0 / complete_if0): the task's frame is
 * kept in `storage`, MUSTER_OMP_UNDEFERRED_FRAME_SIZE bytes aligned for a
 * pointer, until the end.  Tasks it creates are its children. */
/* The event of a detachable task run at once (undeferred), made before
 * its frame is entered: the calling task's taskwait, its taskgroup's end,
 * the team's barriers and the region's end wait until omp_fulfill_event
 * is called on the handle returned. */
void *muster_omp_detach_event_new(void);

#define MUSTER_OMP_UNDEFERRED_FRAME_SIZE 48
void muster_omp_undeferred_begin(void *storage, bool final);
void muster_omp_undeferred_end(void *storage);

/* Opens the taskgroup a worksharing construct with task reductions binds to. */
void muster_omp_workshare_taskgroup_start(void);

/* Registers the calling thread's reduction descriptor `data` (libgomp's
 * layout: see task.c) in its innermost taskgroup.  orig NULL: allocate the
 * per-thread arrays (the first thread); otherwise share those of orig, the
 * first thread's descriptor. */
void muster_omp_workshare_task_reduction_register(uintptr_t *data, uintptr_t *orig);

#endif
