/* Cancellation: OMP_CANCELLATION, cancel and cancellation points, and the
 * cancellable barriers (the region's, and the ends of loops and sections),
 * for both ABIs' entry points (gomp/parallel.c, kmp/sync.c).
 *
 * Off by default, as in libgomp: then cancel and cancellation point return
 * false and a cancellable barrier is the team barrier.  On, with libgomp's
 * meaning for each construct:
 *   cancel parallel   sets team->cancelled and breaks the cancellable
 *                     barrier, whose waiters leave (true) as every later
 *                     arrival does; the members skip to the region's end.
 *                     Tasks of the team not started yet never start.
 *   cancel for/sections  sets team->ws_cancelled to 1 + the number of team
 *                     barriers the member has passed in the region, so it
 *                     lapses at the construct's end barrier (gcc ends a
 *                     cancellable loop with a plain barrier unless the
 *                     region can also be cancelled); the cancelling thread
 *                     leaves the construct, the others at their next
 *                     cancellation point.
 *   cancel taskgroup  marks the innermost taskgroup (task/taskgroup.c): its tasks not
 *                     started yet never start, and none is created in it.
 * gcc calls the cancellable entry points only in regions that contain a
 * cancel construct, so a cancelled region never waits at the team's own
 * barrier for members that left.  The cancellable barrier is a counter and
 * a release flag apart from the team barrier: the team barrier's algorithm
 * may be the fork/join's too, which must never break. */
#include <stdbool.h>

#include "omp/internal.h"
#include "omp/task/scheduler.h"

/* gcc's `which` values (gomp-constants.h). */
#define CANCEL_PARALLEL 1
#define CANCEL_LOOP 2
#define CANCEL_SECTIONS 4
#define CANCEL_TASKGROUP 8

static void cancel_region(muster_omp_team *team)
{
    if (atomic_exchange(&team->cancelled, true)) /* seq_cst: rare; orders the break after it */
        return;
    if (team->cancel_barrier != NULL)
        muster_flag_break(&team->cancel_barrier->release);
}

bool muster_omp_cancel(int which, bool do_cancel)
{
    if (!muster_omp_cancellation)
        return false;
    if (!do_cancel) /* cancel ... if(false): a cancellation point */
        return muster_omp_cancellation_point(which);
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    if (which & (CANCEL_LOOP | CANCEL_SECTIONS)) {
        /* Orphaned (no team): only this thread's share is left. */
        if (team != NULL)
            /* relaxed: a flag the others poll at cancellation points; the
             * construct's end barrier orders everything else. */
            atomic_store_explicit(&team->ws_cancelled, self->barriers_passed + 1u, memory_order_relaxed);
        return true;
    }
    if (which & CANCEL_TASKGROUP) {
        muster_omp_taskgroup_cancel();
        return true;
    }
    if (team != NULL)
        cancel_region(team);
    return true;
}

bool muster_omp_cancellation_point(int which)
{
    if (!muster_omp_cancellation)
        return false;
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    if (which & (CANCEL_LOOP | CANCEL_SECTIONS))
        /* relaxed: as in muster_omp_cancel() (GOMP_cancel). */
        return team != NULL &&
               atomic_load_explicit(&team->ws_cancelled, memory_order_relaxed) == self->barriers_passed + 1u;
    /* cancel parallel also cancels the region's tasks: a taskgroup's
     * cancellation point sees it too. */
    if ((which & CANCEL_TASKGROUP) && muster_omp_taskgroup_cancelled())
        return true;
    return muster_omp_team_cancelled(team);
}

bool muster_omp_cancel_barrier_wait(muster_omp_thread *self)
{
    muster_omp_team *team = self->team;
    self->barriers_passed++;
    if (team == NULL || team->size == 1) {
        muster_omp_tasks_drain(self);
        return muster_omp_team_cancelled(team);
    }
    if (muster_omp_team_cancelled(team))
        return true;
    /* Tasks first, as at the team barrier: the last arrival finds none. */
    muster_omp_tasks_drain(self);
    muster_omp_cancel_barrier *b = team->cancel_barrier;
    /* acquire: pairs with the release exchange of the last episode's muster_flag_publish() below;
     * reads the episode before arriving, so the target is the release of this episode (it cannot
     * come before our arrival). */
    uint32_t target = muster_episode_next(atomic_load_explicit(&b->release, memory_order_acquire));
    if (muster_omp_team_cancelled(team))
        return true;
    /* acq_rel: pairs with the other members' acq_rel increments of arrived (the RMWs chain), so
     * the last arrival sees every member's writes, and publishes them with the release exchange
     * in muster_flag_publish() below. */
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) == team->size - 1) {
        /* relaxed: nobody arrives at the next episode before the release
         * below, which orders this store before their increments. */
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        muster_flag_publish(&b->release, target, true);
        return false;
    }
    muster_omp_task_work storage;
    muster_waiter waiter = muster_omp_waiter_for(team->size, NULL);
    waiter.work = muster_omp_tasks_work(self, team, self->id, &storage);
    int rc = muster_wait_reach(&b->release, target, &waiter);
    muster_omp_tasks_work_done(waiter.work);
    return rc != 0; /* broken: cancel parallel */
}

void muster_omp_cancel_region_end(muster_omp_team *team)
{
    /* relaxed (all): every member has left the region (the join orders
     * this before the next region's fork).  Barrier counts restart at 0 in
     * the next region: a cancelled work share must not match there. */
    if (atomic_load_explicit(&team->ws_cancelled, memory_order_relaxed) != 0)
        atomic_store_explicit(&team->ws_cancelled, 0, memory_order_relaxed);
    if (!atomic_load_explicit(&team->cancelled, memory_order_relaxed))
        return;
    muster_omp_cancel_barrier *b = team->cancel_barrier;
    if (b != NULL) {
        /* relaxed (all three): as above, nobody is inside the cancel barrier. */
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        uint32_t v = atomic_load_explicit(&b->release, memory_order_relaxed);
        atomic_store_explicit(&b->release, v & MUSTER_FLAG_VALUE_MASK, memory_order_relaxed);
    }
    /* relaxed: as above, the join orders it before the next fork. */
    atomic_store_explicit(&team->cancelled, false, memory_order_relaxed);
}

bool muster_omp_barrier_cancel(muster_omp_thread *self)
{
    if (!muster_omp_cancellation) {
        muster_omp_team_barrier(self);
        return false;
    }
    return muster_omp_cancel_barrier_wait(self);
}

MUSTER_OMP_EXPORT int omp_get_cancellation(void)
{
    muster_omp_globals_get(); /* a process that dlopen()ed OpenMP code may ask before its first region */
    return muster_omp_cancellation;
}
