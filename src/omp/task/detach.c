/* Detachable tasks (the detach clause): they complete only when
 * omp_fulfill_event is called on their event, which may happen later, from
 * any thread, inside the team or not.
 *
 * In a parallel region (if(true), not inside a final task) such a task is
 * a task record like any deferred one (muster_omp_defer_detached), counted
 * in its parent, its taskgroup and the team's unfinished tasks until both
 * its body has ended and its event is fulfilled; so its dependence
 * successors, taskwait, taskgroup end, barriers and the region's end wait
 * for the event without anything of their own.  A team of one gets a
 * scheduler for this at its first detachable task (solo.c).  Otherwise (if(0),
 * inside a final task, outside any region) its body runs at once and the
 * thread keeps the unfulfilled event in a list (events.c): taskwait
 * waits for those of the current task's children, taskgroup end for those
 * created in the group, and team barriers and the region's end for those
 * of the team.  A task run at once with a depend clause does not wait for
 * such events (its predecessor's fulfiller may be a task made later:
 * waiting would deadlock), so outside any parallel region a detached
 * task's successors may start before its event is fulfilled (libgomp 12
 * blocks the creator there until the event is fulfilled, and deadlocks
 * when a later task fulfils it). */
#include <omp.h>

#include "omp/task/core.h"

/* omp_fulfill_event for a detached record: the task completes now if its
 * body has ended, in this thread (which may be outside the team). */
static void fulfil_record(deferred_task *t)
{
    bool told = muster_ompt_on();
    if (told) {
        /* seq_cst (both): with the body's end (records.c: tell_body_end), so
         * that one of the two sees the other: an end that did not see the
         * fulfilment told "detach", and its body had ended before this load. */
        if (atomic_exchange(&t->fulfilled, true))
            muster_omp_fatal("omp_fulfill_event: event already fulfilled");
        if (!atomic_load(&told_of(t)->body_ended))
            muster_ompt_task_fulfilled(&told_of(t)->ompt, MUSTER_OMPT_TASK_EARLY_FULFILL);
    } else if (atomic_exchange_explicit(&t->fulfilled, true, memory_order_relaxed)) {
        /* relaxed: only detects a second call made before the task completed
         * (after that the record is gone, as libgomp's is). */
        muster_omp_fatal("omp_fulfill_event: event already fulfilled");
    }
    /* acq_rel: as in run_record_body() (records.c), whose decrement this pairs with. */
    if (atomic_fetch_sub_explicit(&t->detach_outstanding, 1, memory_order_acq_rel) != 1)
        return;
    if (told && told_of(t)->told_detach)
        muster_ompt_task_fulfilled(&told_of(t)->ompt, MUSTER_OMPT_TASK_LATE_FULFILL);
    muster_omp_team *team = t->team;
    muster_omp_team_tasks *tt = team->tasks;
    muster_omp_thread *self = muster_omp_self();
    unsigned id = self->team == team ? self->id : MUSTER_OMP_NOT_MEMBER;
    /* seq_cst (both): the increment comes before the decrements that let
     * the team's end go on, which then waits for the decrement, after our
     * last touch of tt (a team of one frees it at its end). */
    atomic_fetch_add(&tt->fulfillers, 1);
    muster_omp_tasks_finished(tt, id, muster_omp_record_complete(t));
    atomic_fetch_sub(&tt->fulfillers, 1);
}

/* A detachable task of a team with a scheduler: a record like any
 * deferred task, whose completion waits for omp_fulfill_event too, so that
 * its successors, taskwait, taskgroup end, barriers and the region's end
 * all wait for the event, counted like any unfinished task.  The handle
 * goes where task.h says: *detach and the argument block's first pointer. */
void muster_omp_defer_detached(muster_omp_thread *self, muster_omp_team *team, task_frame *running, bool final,
                               const muster_omp_task_desc *task, int priority)
{
    /* Its fulfiller, any thread, will count it finished in its parent's
     * node: from now on every node's counts move by read-modify-writes.
     * relaxed: the handle's hand-over to the fulfiller publishes it. */
    atomic_store_explicit(&team->tasks->counts_private, false, memory_order_relaxed);
    deferred_task *t = muster_omp_record_new(team, running, final, task);
    t->priority = priority;
    t->detached = true;
    atomic_init(&t->detach_outstanding, 2); /* the body's end and the fulfilment */
    atomic_init(&t->fulfilled, false);
    if (muster_ompt_on())
        atomic_init(&told_of(t)->body_ended, false);
    void *handle = (void *)((uintptr_t)t | 1);
    *task->detach = handle;
    *(void **)t->data = handle;
    muster_omp_record_schedule(self, t, task->depend);
}

MUSTER_OMP_EXPORT void omp_fulfill_event(omp_event_handle_t handle)
{
    if ((uintptr_t)handle & 1)
        fulfil_record((deferred_task *)((uintptr_t)handle & ~(uintptr_t)1));
    else
        muster_omp_event_fulfil((void *)(uintptr_t)handle);
}
