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
 * The types are OMPT's ABI, in ompt_abi.h. */
#ifndef MUSTER_OMP_OMPT_H
#define MUSTER_OMP_OMPT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "omp/mutex.h"
#include "omp/ompt_abi.h"

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
/* The noted entry point's frame, its CFA (the caller's stack pointer at
 * the call, where the program's frames end): noted with the caller, and
 * moved by muster_ompt_take_caller to muster_ompt_entry_frame, which the
 * hooks of a wait, a region or a task's creation make the enter frame of
 * the task that called (ompt_frame_t). */
extern _Thread_local void *muster_ompt_caller_frame __attribute__((visibility("hidden")));
extern _Thread_local void *muster_ompt_entry_frame __attribute__((visibility("hidden")));
/* Takes the caller noted (and clears it): ompt.c's and ompt_tasks.c's
 * hooks.  NULL for an address in the runtime's own code (a tail call). */
const void *muster_ompt_take_caller(void) __attribute__((visibility("hidden")));
/* `ra` if it is the program's, else NULL (the same test). */
const void *muster_ompt_in_program(const void *ra) __attribute__((visibility("hidden")));
/* Finds the runtime's own code, for that test: once, before a tool is on. */
void muster_ompt_find_own_code(void) __attribute__((visibility("hidden")));
/* A registered callback as its type. */
#define MUSTER_OMPT_CALLBACK(type, event) ((type)muster_ompt_callbacks[event])

/* Notes `ra` as the caller unless one is noted already: the outermost
 * entry point's caller wins (kmp's and Fortran's lock entries call the C
 * ones, which would otherwise note an address inside the runtime).  Every
 * hook takes the note, registered callback or not, so none is left for a
 * later event. */
static inline void muster_ompt_note(const void *ra, void *frame)
{
    if (muster_ompt_caller == NULL) {
        muster_ompt_caller = ra;
        muster_ompt_caller_frame = frame;
    }
}

/* The caller noted, kept by a construct of several events (a taskloop:
 * its taskgroup, its work region and its tasks name one caller). */
typedef struct muster_ompt_site {
    const void *ra;
    void *frame;
} muster_ompt_site;

/* Takes the note, for the construct to give its parts (muster_ompt_note
 * before each that takes one). */
static inline muster_ompt_site muster_ompt_take_site(void)
{
    muster_ompt_site site = {muster_ompt_caller, muster_ompt_caller_frame};
    muster_ompt_caller = NULL;
    muster_ompt_caller_frame = NULL;
    return site;
}

/* The entry point's CFA: __builtin_dwarf_cfa costs gcc no frame pointer
 * (an address off the stack pointer, computed only in the tool's branch). */
#define MUSTER_OMPT_HERE() __builtin_return_address(0), __builtin_dwarf_cfa()

#define MUSTER_OMPT_NOTE_CALLER()                                                                                 \
    do {                                                                                                          \
        if (muster_ompt_on())                                                                                     \
            muster_ompt_note(MUSTER_OMPT_HERE());                                                                 \
    } while (0)

/* A parallel region's entry notes its caller with or without a tool: the
 * first region's entry runs before the discovery that finds the tool (its
 * parallel_begin takes the note).  Two thread-local stores per region. */
#define MUSTER_OMPT_NOTE_REGION_CALLER()                                                                          \
    (muster_ompt_caller = __builtin_return_address(0), muster_ompt_caller_frame = __builtin_dwarf_cfa())

/* The calling thread's state (ompt_get_state) and what it waits for
 * (the mutex's address; 0 otherwise): kept by the hooks, so only while a
 * tool is attached.  A wait's begin sets its wait state, its end the
 * working one (work_parallel in a team, work_serial outside); a task runs
 * in the working state and gives back the state it found; a worker
 * between regions is idle. */
extern _Thread_local int muster_ompt_state __attribute__((visibility("hidden")));
extern _Thread_local uint64_t muster_ompt_wait_id __attribute__((visibility("hidden")));
/* work_parallel inside a team's implicit task, else work_serial. */
int muster_ompt_working_state(void) __attribute__((visibility("hidden")));
/* A sync region's wait begins (its wait state) or ends (working). */
void muster_ompt_set_wait_state(int kind, int endpoint) __attribute__((visibility("hidden")));

/* The calling thread's data for the tool (ompt_get_thread_data). */
muster_ompt_data *muster_ompt_thread_data(void);

/* The hooks; call each only under `if (muster_ompt_on())`. */
void muster_ompt_thread_begin(int thread_type);
void muster_ompt_thread_end(void);
/* parallel: NULL at the end, as OMPT has it (the region may be gone).
 * body_frame, at a begin: the exit frame, the CFA of the runtime's
 * function that calls the member's body (NULL: the program calls it). */
void muster_ompt_implicit_task(int endpoint, muster_ompt_data *parallel, muster_ompt_data *task, unsigned size,
                               unsigned index, int flags, void *body_frame);
/* The region's begin or end (sync_region), with its wait inside
 * (sync_region_wait): begin dispatches sync_region then its wait, end the
 * wait's end then the region's.  `ra`: the construct's codeptr_ra, the
 * same at both ends (taken once, at the begin, by the caller). */
void muster_ompt_sync_region(int kind, int endpoint, muster_ompt_data *parallel, muster_ompt_data *task,
                             const void *ra);

/* ---- tasks ----
 *
 * The task a thread runs, as the tool sees it: its data and the task it
 * suspended.  Kept only while a tool is attached, by the task paths' tool
 * branches; the implicit task's is the thread's own (muster_ompt_running
 * NULL). */
typedef struct muster_ompt_task {
    muster_ompt_data data;
    struct muster_ompt_task *outer; /* the task it suspended; NULL: the implicit task */
    muster_ompt_frame frame;        /* its exit and enter frames (below) */
    int flags;                      /* ompt_task_flag_t */
    int outer_state;                /* the thread's state when it began, given back at the end */
    bool entered_outer;             /* its begin set the suspended task's enter frame */
} muster_ompt_task;
extern _Thread_local muster_ompt_task *muster_ompt_running __attribute__((visibility("hidden")));

/* ---- frames (ompt_frame_t) ----
 *
 * A task's exit frame is the CFA of the runtime's function that called
 * its body (the program's frames of the task lie below it); its enter
 * frame, the CFA of the entry point through which it called the runtime,
 * kept while it is in there: waiting (barriers, taskwait, taskgroup, a
 * mutex), forking a region, creating a task, or suspended for a task run
 * at once.  0 where the runtime did not call the body (the program runs
 * an if(0) task of clang's, or GOMP_parallel_start's body, itself) and
 * while the task runs its own code.  Flags: runtime | cfa. */
extern _Thread_local muster_ompt_frame muster_ompt_implicit_frame __attribute__((visibility("hidden")));
/* The frame of the task the calling thread runs (explicit or implicit). */
muster_ompt_frame *muster_ompt_current_frame(void);
/* The task the thread runs is in the runtime now, through the entry
 * point noted last (muster_ompt_entry_frame), or has left it. */
void muster_ompt_enter_runtime(void);
void muster_ompt_leave_runtime(void);
/* The same for an event told from inside the runtime: enters unless the
 * task is in already (a wait, a taskloop), and says whether it did, for
 * muster_ompt_leave_runtime_if. */
bool muster_ompt_enter_runtime_once(void);
void muster_ompt_leave_runtime_if(bool entered);
/* Gives a frame field the runtime's CFA `cfa` (flags runtime | cfa). */
static inline void muster_ompt_frame_set(muster_ompt_data *field, int *flags, void *cfa)
{
    field->ptr = cfa;
    *flags = MUSTER_OMPT_FRAME_RUNTIME | MUSTER_OMPT_FRAME_CFA;
}
/* A member's body has returned (at the region's end, before its
 * barrier): no frame of the program's is left in its implicit task, whose
 * enter frame in the barrier is `frame`, the caller's. */
void muster_ompt_body_returned(void *frame);
/* An ABI layer's function calls the body (kmp's microtask and task
 * adapters): its CFA, closer to the program's frames than the core's, is
 * the running task's exit frame. */
void muster_ompt_set_exit_frame(void *frame);

/* ---- parallel regions ----
 *
 * What a region keeps of the task that forked it, for the tool, until
 * its end: where its implicit task's data is, and its frame (member 0's
 * implicit task takes the thread's place), the explicit task it ran, if
 * any; and member 0's implicit task's data. */
typedef struct muster_ompt_encountering {
    muster_ompt_data *implicit_task; /* the thread's implicit task's data (thread.h) */
    muster_ompt_data member_task;    /* member 0's implicit task's data */
    muster_ompt_frame implicit_frame;
    muster_ompt_task *running;
    const void *ra; /* the region's codeptr_ra, the same at both ends */
} muster_ompt_encountering;
/* The region's begin (from the forking thread, before member 0's
 * implicit task) and end (after it): the encountering task is in the
 * runtime in between. */
void muster_ompt_parallel_begin(muster_ompt_encountering *outer, muster_ompt_data *parallel, unsigned requested);
void muster_ompt_parallel_end(muster_ompt_encountering *outer, muster_ompt_data *parallel);

/* The data of the task the calling thread runs (explicit or implicit). */
muster_ompt_data *muster_ompt_current_task(void);
/* A new task (task_create): `task` gets its flags and cleared data. */
void muster_ompt_task_create(muster_ompt_task *task, int flags, bool has_dependences);
/* Its dependences, after task_create and before it starts. */
void muster_ompt_dependences(muster_ompt_task *task, const muster_ompt_dependence *deps, int ndeps);
/* The thread starts running `task`, suspending the one it ran
 * (task_schedule, switch), and ends it, resuming that one (`status`:
 * complete, cancel or detach).  body_frame: the CFA of the runtime's
 * function that calls its body (NULL: the program calls it). */
void muster_ompt_task_begin(muster_ompt_task *task, void *body_frame);
void muster_ompt_task_end(muster_ompt_task *task, int status);
/* A detached task's event fulfilled before (early) or after (late) its
 * body ended. */
void muster_ompt_task_fulfilled(muster_ompt_task *task, int status);

/* ---- work shares and masked ----
 *
 * A work share begins (`type`: ompt_work_t; `count`: its iterations or
 * sections, 1 for a single) and ends on the calling thread; the begin
 * takes the noted caller and the end repeats it.  They nest (a region
 * inside a loop's body), a few deep; deeper ones are not told. */
void muster_ompt_work_begin(int type, uint64_t count);
void muster_ompt_work_end(void);
/* gcc's single has no end of its own: an executor's end is told at the
 * thread's next barrier, work share or implicit task end (this call). */
void muster_ompt_work_close_single(void);
void muster_ompt_masked(int endpoint);
/* A taskloop of `count` iterations, on the thread that encounters it
 * (work, taskloop): `site` names it, and the tasks it makes. */
void muster_ompt_taskloop_begin(muster_ompt_site site, uint64_t count);
void muster_ompt_taskloop_end(void);
/* A single claimed (executor) or not; has_end: the ABI calls its end
 * (clang's __kmpc_end_single, which calls muster_ompt_work_end). */
void muster_ompt_single(bool executor, bool has_end);

/* ---- synchronization beyond barriers ----
 *
 * taskwait, taskgroup and reductions, in the running task: begin and end
 * of the region alone, or of its wait alone. */
void muster_ompt_sync_region_only(int kind, int endpoint, const void *ra);
void muster_ompt_sync_wait_only(int kind, int endpoint, const void *ra);
/* The reduction event (a member folding copies into the originals). */
void muster_ompt_reduction(int endpoint);
/* The program's mutexes (locks, critical, atomic, ordered): `wait_id` is
 * the mutex's address, as the tool's wait identifier; `ra` the caller the
 * entry point noted (muster_ompt_take_caller), one for acquire and
 * acquired. */
void muster_ompt_mutex_acquire(int kind, const void *wait_id, const void *ra);
void muster_ompt_mutex_acquired(int kind, const void *wait_id, const void *ra);
void muster_ompt_mutex_released(int kind, const void *wait_id, const void *ra);
void muster_ompt_lock_init(int kind, const void *wait_id);
void muster_ompt_lock_destroy(int kind, const void *wait_id);
void muster_ompt_nest_lock(int endpoint, const void *wait_id);
/* A program's mutex locked, tried and unlocked with its events told. */
void muster_ompt_lock_told(muster_omp_mutex *mutex, int kind);
bool muster_ompt_trylock_told(muster_omp_mutex *mutex, int kind);
void muster_ompt_unlock_told(muster_omp_mutex *mutex, int kind);

/* The program's mutexes (its locks, critical, gcc's atomic fallback, a
 * reduction's lock; not the runtime's own): `kind` is what a tool is told,
 * when one is attached.  Always inlined into the entry point the program
 * called, so that the return address noted (the tool's codeptr_ra) is the
 * program's: free without a tool. */
#define MUSTER_OMPT_IN_ENTRY static inline __attribute__((always_inline))

MUSTER_OMPT_IN_ENTRY void muster_omp_program_lock(muster_omp_mutex *mutex, int kind)
{
    if (muster_ompt_on()) {
        muster_ompt_note(MUSTER_OMPT_HERE());
        muster_ompt_lock_told(mutex, kind);
    } else {
        muster_omp_mutex_lock(mutex);
    }
}

MUSTER_OMPT_IN_ENTRY bool muster_omp_program_trylock(muster_omp_mutex *mutex, int kind)
{
    if (!muster_ompt_on())
        return muster_omp_mutex_trylock(mutex);
    muster_ompt_note(MUSTER_OMPT_HERE());
    return muster_ompt_trylock_told(mutex, kind);
}

MUSTER_OMPT_IN_ENTRY void muster_omp_program_unlock(muster_omp_mutex *mutex, int kind)
{
    if (muster_ompt_on()) {
        muster_ompt_note(MUSTER_OMPT_HERE());
        muster_ompt_unlock_told(mutex, kind);
    } else {
        muster_omp_mutex_unlock(mutex);
    }
}

/* The tool's discovery, run once before the first OpenMP activity (the
 * first thread-state setup calls it): installed by ompt_tool.c, the core
 * layer's, since it answers inquiries about teams and places. */
extern void (*muster_ompt_discover)(void);

#endif
