/* The queue-or-run decision's out-of-line parts and its thread's state
 * (defer.h says what is decided, and from what). */
#include "omp/task/defer.h"

#include "platform/platform.h" /* muster_now_ns */

_Thread_local muster_omp_level_stats muster_omp_levels[MUSTER_OMP_STAT_DEPTHS];
_Thread_local uint32_t muster_omp_until_sample;

__attribute__((noinline)) void muster_omp_defer_sample_end(unsigned depth, uint64_t start)
{
    bool long_task = muster_now_ns() - start >= LONG_TASK_NS;
    /* depth < MUSTER_OMP_STAT_DEPTHS: muster_omp_defer_sample_start */
    muster_omp_defer_bump(&muster_omp_levels[depth].length, long_task);
    muster_omp_until_sample = (long_task ? LONG_SAMPLE_EVERY : SHORT_SAMPLE_EVERY) - 1;
}

bool muster_omp_defer_hungry_slow(muster_omp_team_tasks *tt, unsigned id)
{
    if (muster_deque_size(&tt->deques[id]) >= tt->queue_ahead)
        return false;
    /* hungry, or the team's first task (counting it sets tasks_seen). */
    return true;
}

/* The throttle, per member: it re-reads the team's total only once its
 * credit (its share of the room left) is spent, and a throttled member
 * runs THROTTLED_RUNS tasks at once before it looks again.  Soft, as
 * libgomp's: it bounds memory, not exactly. */
enum { THROTTLED_RUNS = 16 };

bool muster_omp_defer_throttled(muster_omp_team_tasks *tt, unsigned id)
{
    muster_omp_member_counts *c = &tt->counts[id]; /* credit: the member's own field */
    if (c->credit > 0) {
        c->credit--;
        return false;
    }
    if (c->credit < 0) {
        c->credit++;
        return true;
    }
    int64_t room = (int64_t)MUSTER_OMP_TASKS_PER_MEMBER * tt->size - muster_omp_tasks_pending(tt);
    if (room <= 0) {
        c->credit = -THROTTLED_RUNS;
        return true;
    }
    /* At least 1: with less room than members, re-reading the sum at every
     * push would cost more than overshooting by one task per member. */
    c->credit = room / tt->size > 0 ? room / tt->size : 1;
    return false;
}

void muster_omp_defer_reset_throttle(muster_omp_team_tasks *tt, unsigned id)
{
    tt->counts[id].credit = 0; /* the member's own field */
}
