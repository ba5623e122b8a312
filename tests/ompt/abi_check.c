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
/* ompt_state_t */
static_assert(SAME(MUSTER_OMPT_STATE_WORK_SERIAL, ompt_state_work_serial), "state work_serial");
static_assert(SAME(MUSTER_OMPT_STATE_WORK_PARALLEL, ompt_state_work_parallel), "state work_parallel");
static_assert(SAME(MUSTER_OMPT_STATE_WAIT_BARRIER_IMPLICIT_PARALLEL,
                   ompt_state_wait_barrier_implicit_parallel), "state wait_barrier_implicit_parallel");
static_assert(SAME(MUSTER_OMPT_STATE_WAIT_BARRIER_IMPLICIT_WORKSHARE,
                   ompt_state_wait_barrier_implicit_workshare), "state wait_barrier_implicit_workshare");
static_assert(SAME(MUSTER_OMPT_STATE_WAIT_BARRIER_EXPLICIT,
                   ompt_state_wait_barrier_explicit), "state wait_barrier_explicit");
static_assert(SAME(MUSTER_OMPT_STATE_WAIT_TASKWAIT, ompt_state_wait_taskwait), "state wait_taskwait");
static_assert(SAME(MUSTER_OMPT_STATE_WAIT_TASKGROUP, ompt_state_wait_taskgroup), "state wait_taskgroup");
static_assert(SAME(MUSTER_OMPT_STATE_WAIT_LOCK, ompt_state_wait_lock), "state wait_lock");
static_assert(SAME(MUSTER_OMPT_STATE_WAIT_CRITICAL, ompt_state_wait_critical), "state wait_critical");
static_assert(SAME(MUSTER_OMPT_STATE_WAIT_ATOMIC, ompt_state_wait_atomic), "state wait_atomic");
static_assert(SAME(MUSTER_OMPT_STATE_WAIT_ORDERED, ompt_state_wait_ordered), "state wait_ordered");
static_assert(SAME(MUSTER_OMPT_STATE_IDLE, ompt_state_idle), "state idle");
static_assert(SAME(MUSTER_OMPT_STATE_UNDEFINED, ompt_state_undefined), "state undefined");
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
static_assert(SAME(MUSTER_OMPT_WORK_DISTRIBUTE, ompt_work_distribute) && SAME(MUSTER_OMPT_WORK_TASKLOOP, ompt_work_taskloop),
              "ompt_work_t: distribute, taskloop");
static_assert(SAME(MUSTER_OMPT_FRAME_RUNTIME, ompt_frame_runtime) && SAME(MUSTER_OMPT_FRAME_APPLICATION, ompt_frame_application) &&
                  SAME(MUSTER_OMPT_FRAME_CFA, ompt_frame_cfa),
              "ompt_frame_flag_t");
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

static_assert(SAME(MUSTER_OMPT_MUTEX_RELEASED, ompt_callback_mutex_released) &&
                  SAME(MUSTER_OMPT_DEPENDENCES, ompt_callback_dependences) &&
                  SAME(MUSTER_OMPT_LOCK_INIT, ompt_callback_lock_init) &&
                  SAME(MUSTER_OMPT_LOCK_DESTROY, ompt_callback_lock_destroy) &&
                  SAME(MUSTER_OMPT_MUTEX_ACQUIRE, ompt_callback_mutex_acquire) &&
                  SAME(MUSTER_OMPT_MUTEX_ACQUIRED, ompt_callback_mutex_acquired) &&
                  SAME(MUSTER_OMPT_NEST_LOCK, ompt_callback_nest_lock) &&
                  SAME(MUSTER_OMPT_REDUCTION, ompt_callback_reduction),
              "the task, mutex and reduction events");
static_assert(SAME(MUSTER_OMPT_SYNC_TASKWAIT, ompt_sync_region_taskwait) &&
                  SAME(MUSTER_OMPT_SYNC_TASKGROUP, ompt_sync_region_taskgroup) &&
                  SAME(MUSTER_OMPT_SYNC_REDUCTION, ompt_sync_region_reduction),
              "ompt_sync_region_t, beyond barriers");
static_assert(SAME(MUSTER_OMPT_TASK_EXPLICIT, ompt_task_explicit) &&
                  SAME(MUSTER_OMPT_TASK_UNDEFERRED, ompt_task_undeferred) &&
                  SAME(MUSTER_OMPT_TASK_FINAL, ompt_task_final),
              "ompt_task_flag_t, explicit tasks");
static_assert(SAME(MUSTER_OMPT_TASK_COMPLETE, ompt_task_complete) && SAME(MUSTER_OMPT_TASK_CANCEL, ompt_task_cancel) &&
                  SAME(MUSTER_OMPT_TASK_DETACH, ompt_task_detach) &&
                  SAME(MUSTER_OMPT_TASK_EARLY_FULFILL, ompt_task_early_fulfill) &&
                  SAME(MUSTER_OMPT_TASK_LATE_FULFILL, ompt_task_late_fulfill) &&
                  SAME(MUSTER_OMPT_TASK_SWITCH, ompt_task_switch),
              "ompt_task_status_t");
static_assert(SAME(MUSTER_OMPT_MUTEX_LOCK, ompt_mutex_lock) && SAME(MUSTER_OMPT_MUTEX_TEST_LOCK, ompt_mutex_test_lock) &&
                  SAME(MUSTER_OMPT_MUTEX_NEST_LOCK, ompt_mutex_nest_lock) &&
                  SAME(MUSTER_OMPT_MUTEX_TEST_NEST_LOCK, ompt_mutex_test_nest_lock) &&
                  SAME(MUSTER_OMPT_MUTEX_CRITICAL, ompt_mutex_critical) &&
                  SAME(MUSTER_OMPT_MUTEX_ATOMIC, ompt_mutex_atomic) && SAME(MUSTER_OMPT_MUTEX_ORDERED, ompt_mutex_ordered),
              "ompt_mutex_t");
/* The mutex implementations are the runtime's own; clang's header names libomp's. */
static_assert(SAME(MUSTER_OMPT_MUTEX_IMPL_QUEUING, kmp_mutex_impl_queuing), "a queuing mutex, as libomp numbers it");
static_assert(SAME(MUSTER_OMPT_DEPENDENCE_IN, ompt_dependence_type_in) &&
                  SAME(MUSTER_OMPT_DEPENDENCE_INOUT, ompt_dependence_type_inout) &&
                  SAME(MUSTER_OMPT_DEPENDENCE_MUTEXINOUTSET, ompt_dependence_type_mutexinoutset),
              "ompt_dependence_type_t");
static_assert(sizeof(muster_ompt_dependence) == sizeof(ompt_dependence_t) &&
                  offsetof(muster_ompt_dependence, dependence_type) == offsetof(ompt_dependence_t, dependence_type),
              "ompt_dependence_t");

int main(void)
{
    printf("ompt abi: the constants and layouts of src/omp/ompt.h agree with %s\n", OMP_TOOLS_H);
    return 0;
}
