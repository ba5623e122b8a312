/* The OpenMP tools interface (OMPT, OpenMP 5.1 chapter 4): the hooks the
 * runtime calls where a tool's events happen, for every layer from the
 * thread's up, with nothing of either ABI in them.  ompt.c (thread layer)
 * holds the registered callbacks and dispatches them; ompt_tool.c (core)
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
    MUSTER_OMPT_SYNC_REGION = 23,
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
    MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
    MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
};
/* ompt_task_flag_t */
enum { MUSTER_OMPT_TASK_INITIAL = 0x1, MUSTER_OMPT_TASK_IMPLICIT = 0x2 };
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

/* The tool's discovery, run once before the first OpenMP activity (the
 * first thread-state setup calls it): installed by ompt_tool.c, the core
 * layer's, since it answers inquiries about teams and places. */
extern void (*muster_ompt_discover)(void);

#endif
