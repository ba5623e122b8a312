/* OMPT's ABI (OpenMP 5.1 chapter 4, omp-tools.h): the types, constants
 * and callback signatures both sides use, under muster_ names, so that
 * neither the runtime (ompt.h) nor the tool muster ships (tools/profile)
 * needs a compiler's header.  tests/ompt checks them against clang's
 * omp-tools.h where one is installed.  Only what muster uses is here. */
#ifndef MUSTER_OMP_OMPT_ABI_H
#define MUSTER_OMP_OMPT_ABI_H

#include <stdint.h>

/* ---- OMPT's types and constants (the ABI a tool is built against) ---- */

typedef union muster_ompt_data {
    uint64_t value;
    void *ptr;
} muster_ompt_data;

typedef struct muster_ompt_frame {
    muster_ompt_data exit_frame, enter_frame;
    int exit_frame_flags, enter_frame_flags;
} muster_ompt_frame;

/* ompt_callbacks_t: the events, numbered as OMPT numbers them. */
enum {
    MUSTER_OMPT_THREAD_BEGIN = 1,
    MUSTER_OMPT_THREAD_END = 2,
    MUSTER_OMPT_PARALLEL_BEGIN = 3,
    MUSTER_OMPT_PARALLEL_END = 4,
    MUSTER_OMPT_TASK_CREATE = 5,
    MUSTER_OMPT_TASK_SCHEDULE = 6,
    MUSTER_OMPT_IMPLICIT_TASK = 7,
    MUSTER_OMPT_WORK = 20,
    MUSTER_OMPT_MASKED = 21,
    MUSTER_OMPT_SYNC_REGION_WAIT = 16,
    MUSTER_OMPT_MUTEX_RELEASED = 17,
    MUSTER_OMPT_DEPENDENCES = 18,
    MUSTER_OMPT_SYNC_REGION = 23,
    MUSTER_OMPT_LOCK_INIT = 24,
    MUSTER_OMPT_LOCK_DESTROY = 25,
    MUSTER_OMPT_MUTEX_ACQUIRE = 26,
    MUSTER_OMPT_MUTEX_ACQUIRED = 27,
    MUSTER_OMPT_NEST_LOCK = 28,
    MUSTER_OMPT_REDUCTION = 31,
    MUSTER_OMPT_EVENTS = 38, /* one past the last event OMPT 5.1 numbers (error, 37) */
};

/* ompt_set_result_t */
enum { MUSTER_OMPT_SET_ERROR = 0, MUSTER_OMPT_SET_NEVER = 1, MUSTER_OMPT_SET_ALWAYS = 5 };
/* ompt_thread_t */
enum { MUSTER_OMPT_THREAD_INITIAL = 1, MUSTER_OMPT_THREAD_WORKER = 2 };
/* ompt_scope_endpoint_t */
enum { MUSTER_OMPT_SCOPE_BEGIN = 1, MUSTER_OMPT_SCOPE_END = 2 };
/* ompt_sync_region_t */
enum {
    MUSTER_OMPT_SYNC_BARRIER_EXPLICIT = 3,
    MUSTER_OMPT_SYNC_TASKWAIT = 5,
    MUSTER_OMPT_SYNC_TASKGROUP = 6,
    MUSTER_OMPT_SYNC_REDUCTION = 7,
    MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
    MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
};
/* ompt_work_t */
enum {
    MUSTER_OMPT_WORK_LOOP = 1,
    MUSTER_OMPT_WORK_SECTIONS = 2,
    MUSTER_OMPT_WORK_SINGLE_EXECUTOR = 3,
    MUSTER_OMPT_WORK_SINGLE_OTHER = 4,
    MUSTER_OMPT_WORK_DISTRIBUTE = 6,
    MUSTER_OMPT_WORK_TASKLOOP = 7,
};
/* ompt_state_t: what a thread is doing, for a sampling profiler */
enum {
    MUSTER_OMPT_STATE_WORK_SERIAL = 0x000,
    MUSTER_OMPT_STATE_WORK_PARALLEL = 0x001,
    MUSTER_OMPT_STATE_WAIT_BARRIER_IMPLICIT_PARALLEL = 0x011,
    MUSTER_OMPT_STATE_WAIT_BARRIER_IMPLICIT_WORKSHARE = 0x012,
    MUSTER_OMPT_STATE_WAIT_BARRIER_EXPLICIT = 0x014,
    MUSTER_OMPT_STATE_WAIT_TASKWAIT = 0x020,
    MUSTER_OMPT_STATE_WAIT_TASKGROUP = 0x021,
    MUSTER_OMPT_STATE_WAIT_LOCK = 0x041,
    MUSTER_OMPT_STATE_WAIT_CRITICAL = 0x042,
    MUSTER_OMPT_STATE_WAIT_ATOMIC = 0x043,
    MUSTER_OMPT_STATE_WAIT_ORDERED = 0x044,
    MUSTER_OMPT_STATE_IDLE = 0x100,
    MUSTER_OMPT_STATE_UNDEFINED = 0x102,
};
/* ompt_frame_flag_t: who a frame is of, and what its address is */
enum { MUSTER_OMPT_FRAME_RUNTIME = 0x00, MUSTER_OMPT_FRAME_APPLICATION = 0x01, MUSTER_OMPT_FRAME_CFA = 0x10 };
/* ompt_task_flag_t */
enum {
    MUSTER_OMPT_TASK_INITIAL = 0x1,
    MUSTER_OMPT_TASK_IMPLICIT = 0x2,
    MUSTER_OMPT_TASK_EXPLICIT = 0x4,
    MUSTER_OMPT_TASK_UNDEFERRED = 0x08000000,
    MUSTER_OMPT_TASK_FINAL = 0x20000000,
};
/* ompt_task_status_t */
enum {
    MUSTER_OMPT_TASK_COMPLETE = 1,
    MUSTER_OMPT_TASK_CANCEL = 3,
    MUSTER_OMPT_TASK_DETACH = 4,
    MUSTER_OMPT_TASK_EARLY_FULFILL = 5,
    MUSTER_OMPT_TASK_LATE_FULFILL = 6,
    MUSTER_OMPT_TASK_SWITCH = 7,
};
/* ompt_mutex_t */
enum {
    MUSTER_OMPT_MUTEX_LOCK = 1,
    MUSTER_OMPT_MUTEX_TEST_LOCK = 2,
    MUSTER_OMPT_MUTEX_NEST_LOCK = 3,
    MUSTER_OMPT_MUTEX_TEST_NEST_LOCK = 4,
    MUSTER_OMPT_MUTEX_CRITICAL = 5,
    MUSTER_OMPT_MUTEX_ATOMIC = 6,
    MUSTER_OMPT_MUTEX_ORDERED = 7,
};
/* ompt_mutex_impl_t: how muster's mutexes wait (ompt_enumerate_mutex_impls) */
enum { MUSTER_OMPT_MUTEX_IMPL_QUEUING = 2 };
/* ompt_dependence_type_t */
enum { MUSTER_OMPT_DEPENDENCE_IN = 1, MUSTER_OMPT_DEPENDENCE_INOUT = 3, MUSTER_OMPT_DEPENDENCE_MUTEXINOUTSET = 4 };

typedef struct muster_ompt_dependence {
    muster_ompt_data variable;
    int dependence_type;
} muster_ompt_dependence;
/* ompt_parallel_flag_t */
enum { MUSTER_OMPT_PARALLEL_INVOKER_PROGRAM = 0x1, MUSTER_OMPT_PARALLEL_TEAM = (int)0x80000000u };

/* The callbacks' signatures, for the events the runtime dispatches. */
typedef void (*muster_ompt_callback)(void);
typedef void (*muster_ompt_thread_begin_fn)(int thread_type, muster_ompt_data *thread_data);
typedef void (*muster_ompt_thread_end_fn)(muster_ompt_data *thread_data);
typedef void (*muster_ompt_parallel_begin_fn)(muster_ompt_data *encountering_task_data,
                                              const muster_ompt_frame *encountering_task_frame,
                                              muster_ompt_data *parallel_data, unsigned requested_parallelism,
                                              int flags, const void *codeptr_ra);
typedef void (*muster_ompt_parallel_end_fn)(muster_ompt_data *parallel_data,
                                            muster_ompt_data *encountering_task_data, int flags,
                                            const void *codeptr_ra);
typedef void (*muster_ompt_implicit_task_fn)(int endpoint, muster_ompt_data *parallel_data,
                                             muster_ompt_data *task_data, unsigned actual_parallelism,
                                             unsigned index, int flags);
typedef void (*muster_ompt_sync_region_fn)(int kind, int endpoint, muster_ompt_data *parallel_data,
                                           muster_ompt_data *task_data, const void *codeptr_ra);
typedef void (*muster_ompt_task_create_fn)(muster_ompt_data *encountering_task_data,
                                           const muster_ompt_frame *encountering_task_frame,
                                           muster_ompt_data *new_task_data, int flags, int has_dependences,
                                           const void *codeptr_ra);
typedef void (*muster_ompt_task_schedule_fn)(muster_ompt_data *prior_task_data, int prior_task_status,
                                             muster_ompt_data *next_task_data);
typedef void (*muster_ompt_dependences_fn)(muster_ompt_data *task_data, const muster_ompt_dependence *deps,
                                           int ndeps);
typedef void (*muster_ompt_mutex_acquire_fn)(int kind, unsigned hint, unsigned impl, uint64_t wait_id,
                                             const void *codeptr_ra);
typedef void (*muster_ompt_mutex_fn)(int kind, uint64_t wait_id, const void *codeptr_ra);
typedef void (*muster_ompt_nest_lock_fn)(int endpoint, uint64_t wait_id, const void *codeptr_ra);
typedef void (*muster_ompt_work_fn)(int work_type, int endpoint, muster_ompt_data *parallel_data,
                                    muster_ompt_data *task_data, uint64_t count, const void *codeptr_ra);
typedef void (*muster_ompt_masked_fn)(int endpoint, muster_ompt_data *parallel_data, muster_ompt_data *task_data,
                                      const void *codeptr_ra);

/* ---- the tool's side: what ompt_start_tool returns, and the entry
 * points a tool looks up by name ---- */
typedef void *(*muster_ompt_lookup_fn)(const char *entry_point);
typedef struct muster_ompt_start_tool_result {
    int (*initialize)(muster_ompt_lookup_fn lookup, int initial_device_num, muster_ompt_data *tool_data);
    void (*finalize)(muster_ompt_data *tool_data);
    muster_ompt_data tool_data;
} muster_ompt_start_tool_result;
typedef int (*muster_ompt_set_callback_fn)(int event, muster_ompt_callback callback);

#endif
