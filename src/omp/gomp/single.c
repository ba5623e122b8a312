/* GOMP_single_start, GOMP_single_copy_start/end (copyprivate), GOMP_scope_start.
 *
 * A plain single needs no slot: one team counter decides the winner.  A
 * single with copyprivate is a work share whose initialiser is the winner:
 * it publishes the slot only in GOMP_single_copy_end, with the address of
 * its data, and the others wait for that inside muster_ws_enter.  gcc puts a
 * barrier after the copies, which keeps the winner's data alive until every
 * member has copied it. */
#include "omp/gomp/gomp.h"
#include "omp/workshare.h"

/* With a tool: the claim, then the single's events. */
static __attribute__((noinline)) bool single_told(const void *ra)
{
    bool mine = muster_ws_single_claim(muster_omp_self());
    muster_ompt_note(ra, NULL);
    muster_ompt_single(mine, false);
    return mine;
}

MUSTER_OMP_EXPORT bool GOMP_single_start(void)
{
    if (muster_ompt_on())
        return single_told(__builtin_return_address(0));
    return muster_ws_single_claim(muster_omp_self());
}

/* NULL: the caller runs the single (then calls GOMP_single_copy_end);
 * otherwise the winner's data to copy from. */
static void *copy_start(muster_omp_thread *self)
{
    if (muster_ws_team_size(self) == 1)
        return NULL;
    muster_ws_member *m = muster_ws_member_begin(self);
    if (muster_ws_enter(self, m))
        return NULL;
    void *data = m->slot->copy_data;
    muster_ws_leave(self, m);
    return data;
}

/* A tool is told of the single once the thread knows its part: the
 * others after the executor's data came, the executor at once (its end
 * at GOMP_single_copy_end). */
MUSTER_OMP_EXPORT void *GOMP_single_copy_start(void)
{
    void *data = copy_start(muster_omp_self());
    if (muster_ompt_on()) {
        muster_ompt_note(MUSTER_OMPT_HERE());
        muster_ompt_single(data == NULL, false);
    }
    return data;
}

MUSTER_OMP_EXPORT void GOMP_single_copy_end(void *data)
{
    if (muster_ompt_on())
        muster_ompt_work_close_single();
    muster_omp_thread *self = muster_omp_self();
    if (muster_ws_team_size(self) == 1)
        return;
    muster_ws_member *m = muster_ws_member_current(self);
    m->slot->copy_data = data;
    muster_ws_publish(self, m);
    muster_ws_leave(self, m);
}

/* The scope construct needs the runtime only for task reductions; gcc emits
 * its barrier as GOMP_barrier. */
/* A scope's task reductions need a work share only to pass the first
 * member's descriptor to the others: an empty loop, left at once. */
MUSTER_OMP_EXPORT void GOMP_scope_start(uintptr_t *reductions)
{
    if (reductions == NULL)
        return;
    muster_omp_thread *self = muster_omp_self();
    muster_ws_loop empty = {.sched = MUSTER_OMP_SCHED_DYNAMIC, .chunk = 1};
    muster_ws_loop_extras extras = {.reductions = reductions,
                                    .register_reductions = muster_gomp_workshare_reductions,
                                    .ompt_work = -1};
    muster_ws_loop_open(self, empty, &extras);
    muster_ws_loop_close(self, false);
}
