/* The OpenMP tools interface (OMPT, OpenMP 5.1 chapter 4): the hooks the
 * runtime calls where a tool's events happen, for every layer from the
 * thread's up, with nothing of either ABI in them.  ompt.c (thread layer)
 * holds the registered callbacks and dispatches them, ompt_tasks.c (the
 * same layer) the events that ask which task the thread runs; ompt_tool.c (core)
 * finds the tool, initializes and finalizes it and answers its inquiries.
 *
 * Free without a tool: each hook site is one predictable branch on
 * muster_ompt_enabled, a flag set once, when a tool's initialize accepted.
 *
 * The types are OMPT's ABI (omp-tools.h), declared here under muster_
 * names so that the runtime needs no compiler's header; tests/ompt checks
 * them against clang's omp-tools.h where one is installed. */
#ifndef MUSTER_OMP_OMPT_H
#define MUSTER_OMP_OMPT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "omp/mutex.h"

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

/* ---- the runtime's side ---- */

/* A tool is attached and its initialize accepted: the one flag each hook
 * site tests (muster_ompt_on), set by the discovery (ompt_tool.c) and
 * cleared at finalize. */
extern _Atomic bool muster_ompt_enabled __attribute__((visibility("hidden")));

static inline bool muster_ompt_on(void)
{
    /* relaxed: a switch, not a message; what a hook then reads (the
     * callback table) was written before the discovery set it, by the
     * thread that set it, and a thread that starts later is ordered after
     * by pthread_create.  A thread of the program's own racing the
     * discovery sees the tool a little later: no event it reports is lost. */
    return __builtin_expect(atomic_load_explicit(&muster_ompt_enabled, memory_order_relaxed), 0);
}

/* The registered callbacks, by event number (NULL: none). */
extern muster_ompt_callback muster_ompt_callbacks[MUSTER_OMPT_EVENTS] __attribute__((visibility("hidden")));

/* The return address of the entry point the program called, for the
 * events that report one (codeptr_ra): set by the ABI layers' entry
 * points with MUSTER_OMPT_NOTE_CALLER(), taken (and cleared) by the hooks. */
extern _Thread_local const void *muster_ompt_caller __attribute__((visibility("hidden")));
/* Takes the caller noted (and clears it): ompt.c's and ompt_tasks.c's hooks. */
const void *muster_ompt_take_caller(void) __attribute__((visibility("hidden")));
/* What the hooks report for a frame: unknown (exit and enter frames 0). */
extern const muster_ompt_frame muster_ompt_unknown_frame __attribute__((visibility("hidden")));
/* A registered callback as its type. */
#define MUSTER_OMPT_CALLBACK(type, event) ((type)muster_ompt_callbacks[event])

#define MUSTER_OMPT_NOTE_CALLER()                                                                                 \
    do {                                                                                                          \
        if (muster_ompt_on())                                                                                     \
            muster_ompt_caller = __builtin_return_address(0);                                                     \
    } while (0)

/* The calling thread's data for the tool (ompt_get_thread_data). */
muster_ompt_data *muster_ompt_thread_data(void);

/* The hooks; call each only under `if (muster_ompt_on())`. */
void muster_ompt_thread_begin(int thread_type);
void muster_ompt_thread_end(void);
void muster_ompt_parallel_begin(muster_ompt_data *encountering_task, muster_ompt_data *parallel,
                                unsigned requested);
void muster_ompt_parallel_end(muster_ompt_data *parallel, muster_ompt_data *encountering_task);
/* parallel: NULL at the end, as OMPT has it (the region may be gone). */
void muster_ompt_implicit_task(int endpoint, muster_ompt_data *parallel, muster_ompt_data *task, unsigned size,
                               unsigned index, int flags);
/* The region's begin or end (sync_region), with its wait inside
 * (sync_region_wait): begin dispatches sync_region then its wait, end the
 * wait's end then the region's. */
void muster_ompt_sync_region(int kind, int endpoint, muster_ompt_data *parallel, muster_ompt_data *task);

/* ---- tasks ----
 *
 * The task a thread runs, as the tool sees it: its data and the task it
 * suspended.  Kept only while a tool is attached, by the task paths' tool
 * branches; the implicit task's is the thread's own (muster_ompt_running
 * NULL). */
typedef struct muster_ompt_task {
    muster_ompt_data data;
    struct muster_ompt_task *outer; /* the task it suspended; NULL: the implicit task */
    int flags;                      /* ompt_task_flag_t */
} muster_ompt_task;
extern _Thread_local muster_ompt_task *muster_ompt_running __attribute__((visibility("hidden")));

/* The data of the task the calling thread runs (explicit or implicit). */
muster_ompt_data *muster_ompt_current_task(void);
/* A new task (task_create): `task` gets its flags and cleared data. */
void muster_ompt_task_create(muster_ompt_task *task, int flags, bool has_dependences);
/* Its dependences, after task_create and before it starts. */
void muster_ompt_dependences(muster_ompt_task *task, const muster_ompt_dependence *deps, int ndeps);
/* The thread starts running `task`, suspending the one it ran
 * (task_schedule, switch), and ends it, resuming that one (`status`:
 * complete, cancel or detach). */
void muster_ompt_task_begin(muster_ompt_task *task);
void muster_ompt_task_end(muster_ompt_task *task, int status);
/* A detached task's event fulfilled before (early) or after (late) its
 * body ended. */
void muster_ompt_task_fulfilled(muster_ompt_task *task, int status);

/* ---- synchronization beyond barriers ----
 *
 * taskwait, taskgroup and reductions, in the running task: begin and end
 * of the region alone, or of its wait alone. */
void muster_ompt_sync_region_only(int kind, int endpoint);
void muster_ompt_sync_wait_only(int kind, int endpoint);
/* The reduction event (a member folding copies into the originals). */
void muster_ompt_reduction(int endpoint);
/* The program's mutexes (locks, critical, atomic, ordered): `wait_id` is
 * the mutex's address, as the tool's wait identifier. */
void muster_ompt_mutex_acquire(int kind, const void *wait_id);
void muster_ompt_mutex_acquired(int kind, const void *wait_id);
void muster_ompt_mutex_released(int kind, const void *wait_id);
void muster_ompt_lock_init(int kind, const void *wait_id);
void muster_ompt_lock_destroy(int kind, const void *wait_id);
void muster_ompt_nest_lock(int endpoint, const void *wait_id);
/* A program's mutex locked, tried and unlocked with its events told. */
void muster_ompt_lock_told(muster_omp_mutex *mutex, int kind);
bool muster_ompt_trylock_told(muster_omp_mutex *mutex, int kind);
void muster_ompt_unlock_told(muster_omp_mutex *mutex, int kind);

/* The program's mutexes (its locks, critical, gcc's atomic fallback, a
 * reduction's lock; not the runtime's own): `kind` is what a tool is told,
 * when one is attached. */
static inline void muster_omp_program_lock(muster_omp_mutex *mutex, int kind)
{
    if (muster_ompt_on())
        muster_ompt_lock_told(mutex, kind);
    else
        muster_omp_mutex_lock(mutex);
}

static inline bool muster_omp_program_trylock(muster_omp_mutex *mutex, int kind)
{
    return muster_ompt_on() ? muster_ompt_trylock_told(mutex, kind) : muster_omp_mutex_trylock(mutex);
}

static inline void muster_omp_program_unlock(muster_omp_mutex *mutex, int kind)
{
    if (muster_ompt_on())
        muster_ompt_unlock_told(mutex, kind);
    else
        muster_omp_mutex_unlock(mutex);
}

/* The tool's discovery, run once before the first OpenMP activity (the
 * first thread-state setup calls it): installed by ompt_tool.c, the core
 * layer's, since it answers inquiries about teams and places. */
extern void (*muster_ompt_discover)(void);

#endif
