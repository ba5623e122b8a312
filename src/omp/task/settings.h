/* The task wing's settings that the environment may override (env.c reads
 * MUSTER_OMP_QUEUE_AHEAD and MUSTER_OMP_DELAY_DEPTH against these): their
 * defaults and limits, apart from the code that uses them, so that env.c
 * includes nothing else of the wing.  defer.h says what each decides. */
#ifndef MUSTER_OMP_TASK_SETTINGS_H
#define MUSTER_OMP_TASK_SETTINGS_H

/* Tasks a member's deque holds; a full deque runs new tasks at once. */
#define MUSTER_OMP_DEQUE_CAPACITY 256
/* Tasks a member keeps queued, not yet taken by anyone, before it runs new
 * ones at once: enough that a member looking for work finds some, few
 * enough that while everyone is busy a task costs a call. */
#define MUSTER_OMP_QUEUE_AHEAD 4
/* Tasks below this depth queue their children one ahead and run the one
 * queued before (delayed siblings); 0 to MUSTER_OMP_DELAY_DEPTH_MAX (0: off). */
#define MUSTER_OMP_DELAY_DEPTH 3
#define MUSTER_OMP_DELAY_DEPTH_MAX 7
/* Tasks at depths 1 to this - 1 (explicit tasks near the root of the
 * task tree) queue their children even while every member is busy, and a
 * taskwait runs them newest first, as both peers order them; thieves'
 * subtrees keep creation order (defer.h: muster_omp_defer_help_first).  0 to
 * MUSTER_OMP_HELP_FIRST_DEPTH_MAX (0 or 1: off). */
#define MUSTER_OMP_HELP_FIRST_DEPTH 24
#define MUSTER_OMP_HELP_FIRST_DEPTH_MAX 64
/* A team of one helps first to this depth at most (from its implicit task
 * down: defer.h, muster_omp_defer_solo): deeper, a queued task costs a
 * lone thread more than the order it keeps saves (docs/tuning.md). */
#define MUSTER_OMP_SOLO_HELP_FIRST_DEPTH 16
/* Unfinished deferred tasks per member before new ones run at once (a soft
 * bound on memory; libgomp's throttle is 64 per thread too). */
#define MUSTER_OMP_TASKS_PER_MEMBER 64

#endif
