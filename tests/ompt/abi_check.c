/* src/omp/ompt.h declares OMPT's ABI under muster_ names, so that the
 * runtime builds without a compiler's omp-tools.h; this checks each
 * constant and layout against that header (clang's).  Compiling it is the
 * test; running it prints one line. */
#include OMP_TOOLS_H

#include <assert.h>
#include <stddef.h>
#include <stdio.h>

#include "omp/ompt.h"

/* As ints: the two sides are different enumerations. */
#define SAME(ours, theirs) ((long long)(ours) == (long long)(theirs))

static_assert(sizeof(muster_ompt_data) == sizeof(ompt_data_t), "ompt_data_t");
static_assert(sizeof(muster_ompt_frame) == sizeof(ompt_frame_t), "ompt_frame_t");
static_assert(offsetof(muster_ompt_frame, enter_frame) == offsetof(ompt_frame_t, enter_frame), "enter_frame");
static_assert(offsetof(muster_ompt_frame, enter_frame_flags) == offsetof(ompt_frame_t, enter_frame_flags),
              "enter_frame_flags");
static_assert(SAME(MUSTER_OMPT_THREAD_BEGIN, ompt_callback_thread_begin), "thread_begin");
static_assert(SAME(MUSTER_OMPT_THREAD_END, ompt_callback_thread_end), "thread_end");
static_assert(SAME(MUSTER_OMPT_PARALLEL_BEGIN, ompt_callback_parallel_begin), "parallel_begin");
static_assert(SAME(MUSTER_OMPT_PARALLEL_END, ompt_callback_parallel_end), "parallel_end");
static_assert(SAME(MUSTER_OMPT_TASK_CREATE, ompt_callback_task_create), "task_create");
static_assert(SAME(MUSTER_OMPT_TASK_SCHEDULE, ompt_callback_task_schedule), "task_schedule");
static_assert(SAME(MUSTER_OMPT_IMPLICIT_TASK, ompt_callback_implicit_task), "implicit_task");
static_assert(SAME(MUSTER_OMPT_SYNC_REGION_WAIT, ompt_callback_sync_region_wait), "sync_region_wait");
static_assert(SAME(MUSTER_OMPT_SYNC_REGION, ompt_callback_sync_region), "sync_region");
static_assert(SAME(MUSTER_OMPT_EVENTS, ompt_callback_error + 1), "the last event");
static_assert(SAME(MUSTER_OMPT_SET_ERROR, ompt_set_error) && SAME(MUSTER_OMPT_SET_NEVER, ompt_set_never) &&
                  SAME(MUSTER_OMPT_SET_ALWAYS, ompt_set_always),
              "ompt_set_result_t");
static_assert(SAME(MUSTER_OMPT_THREAD_INITIAL, ompt_thread_initial) && SAME(MUSTER_OMPT_THREAD_WORKER, ompt_thread_worker),
              "ompt_thread_t");
static_assert(SAME(MUSTER_OMPT_SCOPE_BEGIN, ompt_scope_begin) && SAME(MUSTER_OMPT_SCOPE_END, ompt_scope_end),
              "ompt_scope_endpoint_t");
static_assert(SAME(MUSTER_OMPT_SYNC_BARRIER_EXPLICIT, ompt_sync_region_barrier_explicit) &&
                  SAME(MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE, ompt_sync_region_barrier_implicit_workshare) &&
                  SAME(MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL, ompt_sync_region_barrier_implicit_parallel),
              "ompt_sync_region_t");
static_assert(SAME(MUSTER_OMPT_TASK_INITIAL, ompt_task_initial) && SAME(MUSTER_OMPT_TASK_IMPLICIT, ompt_task_implicit),
              "ompt_task_flag_t");
static_assert(SAME(MUSTER_OMPT_PARALLEL_INVOKER_PROGRAM, ompt_parallel_invoker_program) &&
                  SAME((unsigned)MUSTER_OMPT_PARALLEL_TEAM, (unsigned)ompt_parallel_team),
              "ompt_parallel_flag_t");

int main(void)
{
    printf("ompt abi: the constants and layouts of src/omp/ompt.h agree with %s\n", OMP_TOOLS_H);
    return 0;
}
