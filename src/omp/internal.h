/* libmuster-omp internals: what the files of src/omp/ share.  Not installed.
 *
 * libmuster-omp.so exports the libgomp ABI that gcc 12 emits and the
 * __kmpc ABI that clang 14 emits (symbol versions from libmuster-omp.map),
 * so unchanged `gcc -fopenmp` and `clang -fopenmp` binaries run on it under
 * LD_PRELOAD.  A core that does the work, and two layers of thin entry
 * points that translate each compiler's calls into it:
 *
 * The core (src/omp/), in layers (CMakeLists.txt checks that each calls
 * only those below it):
 *   base: mutex.c (the futex mutex under locks, critical and atomic),
 *         waiter.c (how threads wait outside barriers), warn.c (messages)
 *   env:  env.c (OMP_* and MUSTER_* variables -> the global ICVs),
 *         places.c (OMP_PLACES: the place list)
 *   thread: thread.c   the calling thread's state
 *   task: task/        the task wing: tasks, taskwait, taskgroups, detach,
 *                      taskloop tasks, the queue-or-run decision (defer.c),
 *                      the team's queues (task/task.h lists its files)
 *   core: member.c     a thread as a team member: its implicit task, the
 *                      team barrier
 *         pool.c       thread pools: workers that persist between regions,
 *                      fork (a release) and join (an arrival) on a
 *                      libmuster barrier
 *         parallel.c   regions (muster_omp_parallel*), team queries
 *                      (omp_get_thread_num ...)
 *         workshare.c  the work-share ring every worksharing construct enters
 *         loop.c       loops in index space: schedules, ordered, doacross
 *         lock.c       omp_*_lock and omp_*_nest_lock on the mutex
 *         affinity.c   OMP_PROC_BIND: team places and pinning
 *         api.c        the omp_* functions that read or set ICVs, wtime, wtick
 *         display.c    OMP_DISPLAY_ENV, the affinity format
 *         target.c     host teams, target regions run on the host,
 *                      omp_target_*, the allocators
 *         cancel.c     cancellation (OMP_CANCELLATION), the cancellable barrier
 *         reduce.c     reductions folded by member 0
 * abi:  gomp/, kmp/ and fortran/ (never called by the core)
 * gomp/          gcc's GOMP_* entry points: parallel.c (regions, barrier,
 *                cancel), loop.c, loop_ull.c, sections.c, single.c,
 *                critical.c (with the unnamed and atomic locks), task.c,
 *                taskloop.c, taskred.c (gcc's task-reduction descriptors),
 *                target.c (offload, teams, error, allocate); gomp/gomp.h
 * kmp/           LLVM's __kmpc_* entry points: kmp/kmp.h lists its files
 * fortran/       the Fortran names of the omp_* API (omp_*_, omp_*_8_), onto
 *                the C ones: fortran/fortran.h says how
 * Names: muster_omp_* for everything internal; the exported GOMP_*,
 * __kmpc_* and omp_* keep their ABI names. */
#ifndef MUSTER_OMP_INTERNAL_H
#define MUSTER_OMP_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "muster/barrier.h"
#include "platform/cpus.h"
#include "platform/platform.h"
#include "wait/policy.h"
#include "wait/wait.h"
#include "omp/waiter.h"
#include "omp/icvs.h"
#include "omp/thread.h"
#include "omp/team.h"
#include "omp/export.h"
#include "omp/task/task.h" /* what the core asks of the task wing */
#include "omp/warn.h" /* muster_omp_fatal, the warnings */

/* Writes a field that other threads read only when its value changes: a
 * fork that rewrote an unchanged team would send every member a cache miss
 * per line it wrote. */
#define MUSTER_OMP_SET(field, value)       \
    do {                                   \
        if ((field) != (value))            \
            (field) = (value);             \
    } while (0)

/* ---- threads, teams and pools ---- */

/* ---- pools (pool.c) ----
 * Each thread that forks active teams owns a pool: worker threads that
 * persist between its regions and park in the wait layer.  Members 1.. of a
 * team are pool workers; member 0 is the forking thread itself. */

/* Forms a team of up to `size` threads, at active level `active_level`,
 * from self's pool for that level: creates missing
 * workers and barriers.  Returns the pool's team object with size, barrier
 * and ws filled in (size is smaller when threads or memory ran out: a
 * warning says so); the caller fills in the rest, then calls fork. */
muster_omp_team *muster_omp_pool_team(muster_omp_thread *self, unsigned active_level, unsigned size);
/* Sets members 1..size-1 running team->fn (the fork: a release). */
void muster_omp_pool_fork(muster_omp_team *team);
/* Returns once every member has finished (the join: an arrival). */
void muster_omp_pool_join(muster_omp_team *team);
/* At exit: joins the workers of self's pools, when self is outside any
 * region. */
void muster_omp_pool_exit(muster_omp_thread *self);
/* Pool workers started and not yet ended, all pools together. */
unsigned muster_omp_pool_live_workers(void);
/* In a fork()ed child: drops the pools whose workers did not survive. */
void muster_omp_pool_forget(muster_omp_thread *self);
/* ---- members (member.c) ---- */

/* Makes self member id of team, with a fresh implicit task: the team's
 * ICVs, no work share or barrier passed yet, bound to its place.
 * body_frame: for a tool, the CFA of the function that will call the
 * region's body (its exit frame; NULL: the program calls it). */
void muster_omp_become_member(muster_omp_thread *self, muster_omp_team *team, unsigned id, void *body_frame);
/* What every member runs, on its own thread.  Leaves self in the team:
 * the caller waits at the join (running tasks), then leaves it. */
void muster_omp_run_member(muster_omp_thread *self, muster_omp_team *team, unsigned id);

/* An explicit or implicit barrier of the calling thread's team (a no-op in
 * a team of one). */
void muster_omp_team_barrier(muster_omp_thread *self);
/* The same with a tool attached (muster_ompt_on), reported as a barrier of
 * this kind (ompt.h's MUSTER_OMPT_SYNC_*); muster_omp_team_barrier's is
 * the implicit barrier of a work share.  An entry point tests the flag once
 * and calls one or the other. */
void muster_omp_team_barrier_of(muster_omp_thread *self, int ompt_kind);

/* ---- reductions folded by member 0 (reduce.c) ----
 * LLVM's reduce protocol lets the runtime fold the members' private copies
 * itself (libomp's "tree" method): each member passes its data and a
 * function that folds one member's data into another's.  Here member 0
 * folds them inside one split episode of the team's fork/join barrier,
 * instead of every member folding its own under a lock. */
typedef struct muster_omp_reduction muster_omp_reduction;
/* The slots for teams of `size` (one per team size of a pool); NULL when
 * out of memory. */
muster_omp_reduction *muster_omp_reduction_create(unsigned size);
void muster_omp_reduction_destroy(muster_omp_reduction *r);
/* Whether the team can (it has a barrier whose episodes split). */
bool muster_omp_team_can_reduce(const muster_omp_team *team);
/* Folds every member's data into member 0's: true to member 0 (which then
 * folds it into the originals; in a blocking reduction it then calls
 * muster_omp_team_reduce_release), false to the others once member 0 has
 * released them (at once after its fold when nowait, else at its
 * release: a barrier).  The team's queued tasks are run first, as at a
 * barrier.  Only for a team that can (muster_omp_team_can_reduce). */
bool muster_omp_team_reduce(muster_omp_thread *self, void *data, void (*combine)(void *into, void *from),
                            bool blocking);
void muster_omp_team_reduce_release(muster_omp_thread *self);

/* ---- cancellation (cancel.c) ---- */

/* A cancellable barrier of self's team: true when the region is cancelled
 * (at once, or while waiting), false when every member arrived. */
bool muster_omp_cancel_barrier_wait(muster_omp_thread *self);
/* The entry points' core, `which` in gcc's bits (parallel 1, loop 2,
 * sections 4, taskgroup 8): cancel (do_cancel false: a cancellation point),
 * the cancellation point, and a barrier that is cancellable when
 * OMP_CANCELLATION is on and the team's barrier otherwise.  True: cancelled. */
bool muster_omp_cancel(int which, bool do_cancel);
bool muster_omp_cancellation_point(int which);
bool muster_omp_barrier_cancel(muster_omp_thread *self);
/* After the join of a region (every member done), when cancellation is
 * on: the team and its cancellable barrier are ready for the next one. */
void muster_omp_cancel_region_end(muster_omp_team *team);
/* Forks a team (parallel.c) and runs fn(data) as its thread 0; returns when
 * every member has finished (the join).  num_threads 0 means nthreads-var;
 * proc_bind: the proc_bind clause's omp_proc_bind_t value, 0 without one.  `setup`, when
 * not NULL, runs on the forking thread after the team is formed (team->ws
 * prepared, every member's ws_sequence 0 and ws_private NULL) and before any
 * member starts: the combined constructs (GOMP_parallel_loop_*, _sections)
 * open their work share there. */
typedef void (*muster_omp_setup_fn)(muster_omp_team *team, void *arg);
void muster_omp_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned proc_bind,
                         muster_omp_setup_fn setup, void *setup_arg);

/* The GOMP 1.0 split form: muster_omp_parallel_start forks and returns on
 * thread 0, which then runs fn itself; muster_omp_parallel_end joins. */
void muster_omp_parallel_start(void (*fn)(void *), void *data, unsigned num_threads, unsigned proc_bind,
                               muster_omp_setup_fn setup, void *setup_arg);
void muster_omp_parallel_end(void);

/* Host teams (target.c): runs fn(data) once per team of a league of
 * num_teams (0: nteams-var, else 3), one after another on the calling
 * thread, with omp_get_team_num and thread_limit (0: teams-thread-limit-var)
 * set for each. */
void muster_omp_host_teams(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit);
/* gcc's form of the same, one team per call: first starts a league of
 * num_teams (0: 1) at team 0; each later call moves to the next team, and
 * returns false after the last one. */
bool muster_omp_host_teams_step(bool first, unsigned num_teams);
/* A thread_limit clause (0: none) for the calling thread's teams. */
void muster_omp_teams_limit_threads(unsigned thread_limit);
/* A target region on the host: fn(arg) at once on the calling thread as a
 * fresh initial thread (no team, the environment's ICVs, thread_limit
 * when not 0, pools of its own, shut down after it); the thread's state
 * comes back after it. */
void muster_omp_target_run_on_host(void (*fn)(void *), void *arg, unsigned thread_limit);

/* ---- work shares (workshare.c) ---- */

/* Called by the team's forker before the fork: sizes or resets the state
 * for a team of `size` threads, whose waits may use `census` (the team
 * barrier's, NULL: none) for the co-location guard.  0, or -1 when out of
 * memory. */
int muster_omp_workshares_prepare(muster_omp_workshares **ws, unsigned size, muster_census *census);
void muster_omp_workshares_free(muster_omp_workshares *ws);

/* ---- environment and affinity ---- */


/* For a team of `size` threads forked by `primary` with proc-bind policy
 * `bind` (MUSTER_OMP_BIND_*): fills each member's place state (index = thread
 * number; member 0 is the primary itself), per OpenMP 5.1 §2.6.2.  With no
 * places or binding off, every place is -1. */
void muster_omp_team_places(const muster_omp_thread *primary, unsigned size, unsigned bind,
                            muster_omp_place_state *members);

/* Binds the calling thread to state->place (a no-op for -1, or when it is
 * already bound there) and stores the state in self. */
void muster_omp_bind_self(muster_omp_thread *self, const muster_omp_place_state *state);

/* Waits at barrier as member id of self's team, running the team's tasks
 * meanwhile (muster_omp_tasks_work); the barrier's return code
 * (member.c). */
int muster_omp_wait_running_tasks(muster_omp_thread *self, muster_omp_team *team, muster_barrier *barrier,
                                  unsigned id);

/* Where a new pool worker starts.  Linux puts a new thread on its creator's
 * CPU, where a pair of spinning team-mates can stay together for long
 * (docs/tuning.md, muster_omp_spread_start).  So worker `id` starts on the CPU `id`
 * places after its creator's in the creator's mask, and widens its mask
 * back at once: a hint like the kernel's own fork balancing, not binding.
 * Fills *inherited with the creator's mask and returns true when it set
 * the start CPU in attr; false (attr untouched) when the mask has one CPU
 * or `id` comes round to the creator's own CPU. */
bool muster_omp_spread_start(pthread_attr_t *attr, unsigned id, cpu_set_t *inherited);
/* Called by the new worker first: restores the creator's mask. */
void muster_omp_spread_done(const cpu_set_t *inherited);

#endif
