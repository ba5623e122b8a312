/* The task core (task.c) as both ABI layers call it: tasks, waits,
 * taskgroups, undeferred tasks run by the caller, detach events, taskloop
 * tasks, and the taskgroup slot an ABI layer keeps its task reductions in. */
#ifndef MUSTER_OMP_TASK_H
#define MUSTER_OMP_TASK_H

#include <stdbool.h>
#include <stddef.h>
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

/* Opens the taskgroup a worksharing construct with task reductions binds
 * to (loop.c; `cancel taskgroup` inside it means the enclosing group). */
void muster_omp_workshare_taskgroup_start(void);

/* The innermost taskgroup's slot for an ABI layer's task reductions (a
 * nested group starts with its enclosing group's value); NULL outside any
 * taskgroup. */
void **muster_omp_taskgroup_reduction_slot(void);

/* One task of a taskloop: fn on its own copy of data's arg_size bytes
 * (cpyfn makes it when not NULL), whose first bounds_size bytes are then
 * overwritten with `bounds`.  Queued for any member when if_clause holds,
 * its creator is not a final task and the team has a scheduler (a final
 * task is queued too; the tasks it makes run at once); else run here at
 * once.  priority: the clause's value, or 0.  False, and nothing
 * made, when the taskgroup or region was cancelled: the caller stops. */
bool muster_omp_taskloop_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                              long arg_align, const void *bounds, size_t bounds_size, bool if_clause, bool final,
                              int priority);

#endif
