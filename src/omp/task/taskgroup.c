/* Taskgroups: their start and end (which waits for the group's tasks,
 * running the waiter's descendants: wait.c), cancel taskgroup, and the slot
 * an ABI layer keeps the group's task reductions in. */
#include "omp/task/core.h"

static void push_group(void)
{
    taskgroup *outer = innermost_group();
    taskgroup *group = checked_malloc(sizeof *group);
    *group = (taskgroup){
        .prev = muster_omp_current_group,
        .team = current_team(),
        .reductions = outer ? outer->reductions : NULL,
    };
    atomic_init(&group->tasks, 0);
    atomic_init(&group->cancelled, false);
    muster_omp_current_group = group;
}

static void pop_group(void)
{
    taskgroup *group = muster_omp_current_group;
    muster_omp_current_group = group->prev;
    free(group);
}

void muster_omp_taskgroup_cancel(void)
{
    taskgroup *group = cancellable_group(innermost_group());
    if (group != NULL)
        atomic_store_explicit(&group->cancelled, true, memory_order_relaxed); /* relaxed: as group_cancelled */
}

bool muster_omp_taskgroup_cancelled(void)
{
    return group_cancelled(innermost_group());
}

void muster_omp_taskgroup_start(void)
{
    push_group();
    if (muster_ompt_on())
        muster_ompt_sync_region_only(MUSTER_OMPT_SYNC_TASKGROUP, MUSTER_OMPT_SCOPE_BEGIN, muster_ompt_take_caller());
}

void muster_omp_taskgroup_end(void)
{
    taskgroup *group = innermost_group();
    if (group == NULL)
        muster_omp_fatal("the end of a taskgroup that was not started");
    /* The region began at the start; its wait is the end's, named by the
     * end's caller. */
    bool told = muster_ompt_on();
    const void *ra = told ? muster_ompt_take_caller() : NULL;
    if (told)
        muster_ompt_sync_wait_only(MUSTER_OMPT_SYNC_TASKGROUP, MUSTER_OMPT_SCOPE_BEGIN, ra);
    muster_omp_wait_descendants(&group->tasks, muster_omp_frame_node(running_task()));
    if (muster_omp_pending_events != NULL)
        muster_omp_events_settle_group(group);
    pop_group();
    if (told) {
        muster_ompt_sync_wait_only(MUSTER_OMPT_SYNC_TASKGROUP, MUSTER_OMPT_SCOPE_END, ra);
        muster_ompt_sync_region_only(MUSTER_OMPT_SYNC_TASKGROUP, MUSTER_OMPT_SCOPE_END, ra);
    }
}

/* ---- the ABI layers' data on taskgroups ----
 *
 * Each taskgroup has one slot for the task reductions an ABI layer
 * registers in it (gomp/taskred.c: gcc's descriptor); a nested group
 * starts with its enclosing group's value. */

void **muster_omp_taskgroup_reduction_slot(void)
{
    taskgroup *group = innermost_group();
    return group != NULL ? &group->reductions : NULL;
}

void muster_omp_workshare_taskgroup_start(void)
{
    push_group();
    muster_omp_current_group->workshare = true;
}
