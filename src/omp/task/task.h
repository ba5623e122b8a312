/* The task wing (src/omp/task/) as both ABI layers call it: tasks, waits,
 * taskgroups, undeferred tasks run by the caller, detach events, taskloop
 * tasks, and the taskgroup slot an ABI layer keeps its task reductions in.
 * Each ABI layer translates its compiler's calls into this vocabulary
 * (gomp/task.c, gomp/taskloop.c, kmp/task.c); neither layout reaches the
 * wing.
 *
 * The wing's files, from the top down (each calls only those below it):
 * submit.c (a new task: described, then queued or run as defer.h decides);
 * detach.c (detachable tasks, omp_fulfill_event), taskgroup.c, solo.c (a
 * team of one's scheduler); wait.c (waiting is working: taskwait,
 * barriers' and drains' task runs); records.c (task records, nodes,
 * frames: scheduling, running and completing a task); events.c (the events
 * of detachable tasks run at once); defer.h/defer.c (the one place that
 * decides whether a task is queued or run at once); scheduler.c (the
 * team's queues and wake-ups), deque.c, priority.c, depend.c,
 * task_memory.c. */
#ifndef MUSTER_OMP_TASK_H
#define MUSTER_OMP_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "omp/task/depend.h" /* muster_omp_depend */
#include "omp/thread.h"      /* muster_omp_thread, muster_omp_team */

/* ---- the task core, for both ABIs' entry points ---- */

/* A new task as its construct describes it: built by an ABI layer at its
 * entry point and passed down whole. */
typedef struct muster_omp_task_desc {
    void (*fn)(void *);          /* the body, run as fn(copy of data) */
    void *data;                  /* the argument block, arg_size bytes */
    void (*cpyfn)(void *, void *); /* makes the copy (firstprivate constructors); NULL: memcpy */
    long arg_size, arg_align;
    const muster_omp_depend *depend; /* depend clauses; NULL: none */
    /* detach clause: where the event handle goes; NULL: none.  The handle
     * is also written to the first pointer of the task's argument block
     * (gcc keeps its firstprivate copy of the event there; kmp/task.c puts
     * a slot there for it). */
    void **detach;
    int priority;                /* the priority clause's value; 0: none */
    bool if_clause;              /* false: if(0), an undeferred task */
    bool final;                  /* the final clause holds */
    /* A team of one queues it too (instead of running it at once), in the
     * order a bigger team's member keeps (defer.h): the gcc ABI asks, as
     * libgomp queues a lone thread's tasks and a search written for it
     * finds its bound in that order; libomp runs them at once, so the kmp
     * ABI does not. */
    bool queue_alone;
} muster_omp_task_desc;

/* A task as described.  A task without depend, detach or priority clause
 * may come through muster_omp_task_plain instead, its description's other
 * fields as arguments: the path of every undeferred task, where storing a
 * description and loading it again cost a fifth of the call, and where
 * GOMP_task stays a tail call of a dozen instructions (docs/tuning.md: the
 * if(0) path).  Both end in the same decision. */
void muster_omp_task_submit(const muster_omp_task_desc *task);
/* muster_omp_task_submit's two halves, for an entry point that tests
 * muster_ompt_on() itself, to note its caller in the same test: a tool
 * told of the task, and not. */
void muster_omp_task_submit_told(const muster_omp_task_desc *task);
void muster_omp_task_submit_quiet(const muster_omp_task_desc *task);
/* The plain way, only while muster_omp_general_tasks is false (the
 * caller tests it, noting its caller for a tool in the same branch);
 * muster_omp_task_plain_general otherwise. */
void muster_omp_task_plain(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                           long arg_align, unsigned how);
void muster_omp_task_plain_general(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                                   long arg_align, unsigned how);
/* muster_omp_task_plain's `how`: the description's flags in one word, so
 * that all six arguments travel in registers. */
enum { MUSTER_OMP_TASK_IF = 1u, MUSTER_OMP_TASK_FINAL = 2u, MUSTER_OMP_TASK_QUEUE_ALONE = 4u };

/* A key of the task the calling thread runs (ancestors 0) or of one of its
 * ancestors: unique among the tasks that exist now (not over time: keys
 * are reused); 0 past the implicit task. */
uint64_t muster_omp_task_key(unsigned ancestors);
void muster_omp_taskwait(void);
void muster_omp_taskwait_depend(const muster_omp_depend *depend);
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

#define MUSTER_OMP_UNDEFERRED_FRAME_SIZE 72 /* a frame, and the tool's view of the task */
void muster_omp_undeferred_begin(void *storage, bool final);
/* The same with a tool attached (the caller tested muster_ompt_on(), to
 * note its caller in the same test): the tool is told the task began. */
void muster_omp_undeferred_begin_told(void *storage, bool final);
void muster_omp_undeferred_end(void *storage);

/* Opens the taskgroup a worksharing construct with task reductions binds
 * to (loop.c; `cancel taskgroup` inside it means the enclosing group). */
void muster_omp_workshare_taskgroup_start(void);

/* The innermost taskgroup's slot for an ABI layer's task reductions (a
 * nested group starts with its enclosing group's value); NULL outside any
 * taskgroup. */
void **muster_omp_taskgroup_reduction_slot(void);

/* One task of a taskloop (task: without depend or detach): fn on its own
 * copy of the argument block, whose first bounds_size bytes are then
 * overwritten with `bounds`.  Queued for any member when if_clause holds,
 * its creator is not a final task and the team has a scheduler (a final
 * task is queued too; the tasks it makes run at once); else run here at
 * once.  False, and nothing made, when the taskgroup or region was
 * cancelled: the caller stops. */
bool muster_omp_taskloop_task(const muster_omp_task_desc *task, const void *bounds, size_t bounds_size);

/* ---- for the core: teams' barriers, region ends, cancellation ---- */

/* cancel taskgroup, and its cancellation point, for the calling task's
 * innermost taskgroup (task/taskgroup.c). */
void muster_omp_taskgroup_cancel(void);
/* A tool is about to be attached (ompt_tool.c): task records make room
 * for what the tool is told of them. */
void muster_omp_tasks_told(void);
bool muster_omp_taskgroup_cancelled(void);
/* Runs, or steals and runs, the team's deferred tasks until none is left:
 * what a member does before a team barrier and at the end of its implicit
 * task (task/wait.c).  One load when the team has no tasks. */
void muster_omp_tasks_drain(muster_omp_thread *self);
/* Waits for the events of the detachable tasks the calling thread ran at
 * once (if(0), final, a team of one) in `team`: a team barrier and the end
 * of a region complete them too.  One load when there are none. */
void muster_omp_tasks_settle_events(muster_omp_team *team);
/* The end of a team of one's region, after its tasks drained: frees the
 * scheduler its first detachable task gave it (task/solo.c), if any. */
void muster_omp_tasks_end_solo(muster_omp_team *team);
/* The work a member of self's team does while it waits at a team barrier
 * (run one of the team's tasks), in *storage; NULL when the team has no
 * task state (a team of one). */
struct muster_omp_task_work;
const struct muster_wait_work *muster_omp_tasks_work(muster_omp_thread *self, muster_omp_team *team,
                                                     unsigned id, struct muster_omp_task_work *storage);
/* After the wait that used muster_omp_tasks_work's work: the member is no
 * longer looking for tasks.  NULL: nothing to do. */
void muster_omp_tasks_work_done(const struct muster_wait_work *work);

#endif
