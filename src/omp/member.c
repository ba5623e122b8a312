/* A thread as a member of a team: joining it with a fresh implicit task,
 * running the region's body (pool workers), and waiting at the team's
 * barriers while running its tasks.  Below parallel.c (which forms and
 * ends regions), pool.c and cancel.c, which all call it. */
#include <stdio.h>
#include <stdlib.h>

#include "barrier/runtime.h" /* muster_barrier_wait_working */
#include "omp/display.h"
#include "omp/env.h" /* muster_omp_set_league */
#include "omp/internal.h"
#include "omp/mutex.h" /* the team-size query */
#include "omp/task/defer.h" /* muster_omp_defer_join; scheduler.h */

void muster_omp_become_member(muster_omp_thread *self, muster_omp_team *team, unsigned id, void *body_frame)
{
    MUSTER_INVARIANT(team->size >= 1 && id < team->size, "member %u of a team of %u", id, team->size);
    self->team = team;
    self->id = id;
    /* After team and id: the tool may ask where it is (get_parallel_info). */
    if (muster_ompt_on())
        muster_ompt_implicit_task(MUSTER_OMPT_SCOPE_BEGIN, &team->ompt_parallel, muster_omp_implicit_task_data(self), team->size, id,
                                  MUSTER_OMPT_TASK_IMPLICIT, body_frame);
    self->icvs = team->icvs;
    self->ws_private = NULL;
    self->ws_sequence = 0;
    self->barriers_passed = 0;
    muster_omp_defer_join(self, team->size);
    if (id != 0) /* member 0 forked the team in its own league */
        muster_omp_set_league(team->league_size, team->league_rank);
    if (team->places != NULL)
        muster_omp_bind_self(self, &team->places[id]);
    muster_omp_affinity_display_on_start(self);
}

void muster_omp_run_member(muster_omp_thread *self, muster_omp_team *team, unsigned id)
{
    muster_omp_become_member(self, team, id, __builtin_dwarf_cfa());
    team->fn(team->data);
    /* Still a member: the tasks it runs here and while it waits at the join
     * belong to this team (the caller leaves the team after the join). */
    muster_omp_tasks_drain(self);
    muster_omp_tasks_settle_events(team);
}

int muster_omp_wait_running_tasks(muster_omp_thread *self, muster_omp_team *team, muster_barrier *barrier,
                                  unsigned id)
{
    muster_omp_task_work storage;
    const muster_wait_work *work = muster_omp_tasks_work(self, team, id, &storage);
    int rc = work != NULL ? muster_barrier_wait_working(barrier, id, work) : muster_barrier_wait(barrier, id);
    muster_omp_tasks_work_done(work);
    return rc;
}

/* A team barrier: the tasks drained, then the wait (running the team's
 * tasks) when the team has more than one member. */
static inline void team_barrier(muster_omp_thread *self)
{
    muster_omp_team *team = self->team;
    self->barriers_passed++;
    muster_omp_tasks_drain(self);
    muster_omp_tasks_settle_events(team);
    if (team == NULL || team->size == 1)
        return;
    int rc = muster_omp_wait_running_tasks(self, team, team->barrier, self->id);
    if (rc < 0) {
        muster_omp_fatal("barrier failed: %s (%s)", muster_strerror(rc), muster_error_detail());
    }
}

/* The barrier as a tool sees it: a sync region with its wait.  Out of
 * line: without a tool a barrier pays one branch. */
__attribute__((noinline)) void muster_omp_team_barrier_of(muster_omp_thread *self, int ompt_kind)
{
    muster_ompt_data *parallel = self->team != NULL ? &self->team->ompt_parallel : NULL;
    const void *ra = muster_ompt_take_caller();
    muster_ompt_work_close_single();
    muster_ompt_sync_region(ompt_kind, MUSTER_OMPT_SCOPE_BEGIN, parallel, muster_omp_implicit_task_data(self), ra);
    team_barrier(self);
    muster_ompt_sync_region(ompt_kind, MUSTER_OMPT_SCOPE_END, parallel, muster_omp_implicit_task_data(self), ra);
}

void muster_omp_team_barrier(muster_omp_thread *self)
{
    if (muster_ompt_on())
        muster_omp_team_barrier_of(self, MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE);
    else
        team_barrier(self);
}

/* The size of the calling thread's innermost team (1 outside any): what
 * the runtime mutex asks to choose its spin (mutex.h). */
static unsigned caller_team_size(void)
{
    const muster_omp_team *team = muster_omp_self()->team;
    return team != NULL ? team->size : 1;
}

__attribute__((constructor)) static void tell_the_mutex(void)
{
    muster_omp_mutex_set_team_size_query(caller_team_size);
}
