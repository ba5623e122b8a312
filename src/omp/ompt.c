/* The OMPT hooks (ompt.h): the registered callbacks and their dispatch.
 * Thread layer: every layer above calls these. */
#include "omp/ompt.h"

#include <link.h>
#include <stdbool.h>
#include <stddef.h>


_Atomic bool muster_ompt_enabled;
muster_ompt_callback muster_ompt_callbacks[MUSTER_OMPT_EVENTS];
_Thread_local const void *muster_ompt_caller;
_Thread_local void *muster_ompt_caller_frame;
_Thread_local void *muster_ompt_entry_frame;
_Thread_local muster_ompt_frame muster_ompt_implicit_frame;
_Thread_local int muster_ompt_state;
_Thread_local uint64_t muster_ompt_wait_id;
void (*muster_ompt_discover)(void);

/* The calling thread's data for the tool: its thread_begin fills it. */
static _Thread_local muster_ompt_data thread_data;

muster_ompt_data *muster_ompt_thread_data(void)
{
    return &thread_data;
}

/* The runtime's own code: a return address inside it means the program
 * reached the entry point by a tail call (a body ending in `#pragma omp
 * barrier` jumps to GOMP_barrier), so the address is the runtime's call of
 * the body, not the program's construct: unknown (NULL) is the truth. */
static uintptr_t own_code_start, own_code_end;

static int find_own_code(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    uintptr_t self = (uintptr_t)muster_ompt_take_caller;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && self >= start && self < start + ph->p_memsz) {
            own_code_start = start;
            own_code_end = start + ph->p_memsz;
            return 1;
        }
    }
    return 0;
}

void muster_ompt_find_own_code(void)
{
    dl_iterate_phdr(find_own_code, NULL);
}

/* The caller noted by the entry point, once; its frame becomes the
 * entry's (the enter frame of the waits and regions it begins). */
const void *muster_ompt_take_caller(void)
{
    const void *ra = muster_ompt_caller;
    muster_ompt_caller = NULL;
    muster_ompt_entry_frame = muster_ompt_caller_frame;
    muster_ompt_caller_frame = NULL;
    return muster_ompt_in_program(ra);
}

const void *muster_ompt_in_program(const void *ra)
{
    if ((uintptr_t)ra >= own_code_start && (uintptr_t)ra < own_code_end)
        return NULL;
    return ra;
}


/* ---- the thread's state ---- */

/* The implicit tasks the thread runs (nested teams count each). */
static _Thread_local unsigned team_depth;

int muster_ompt_working_state(void)
{
    return team_depth > 0 ? MUSTER_OMPT_STATE_WORK_PARALLEL : MUSTER_OMPT_STATE_WORK_SERIAL;
}

static int sync_wait_state(int kind)
{
    switch (kind) {
    case MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL:
        return MUSTER_OMPT_STATE_WAIT_BARRIER_IMPLICIT_PARALLEL;
    case MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE:
        return MUSTER_OMPT_STATE_WAIT_BARRIER_IMPLICIT_WORKSHARE;
    case MUSTER_OMPT_SYNC_TASKWAIT:
        return MUSTER_OMPT_STATE_WAIT_TASKWAIT;
    case MUSTER_OMPT_SYNC_TASKGROUP:
        return MUSTER_OMPT_STATE_WAIT_TASKGROUP;
    default:
        return MUSTER_OMPT_STATE_WAIT_BARRIER_EXPLICIT;
    }
}

void muster_ompt_set_wait_state(int kind, int endpoint)
{
    muster_ompt_state = endpoint == MUSTER_OMPT_SCOPE_BEGIN ? sync_wait_state(kind) : muster_ompt_working_state();
}

void muster_ompt_thread_begin(int thread_type)
{
    muster_ompt_thread_begin_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_thread_begin_fn, MUSTER_OMPT_THREAD_BEGIN);
    thread_data.value = 0;
    muster_ompt_state = thread_type == MUSTER_OMPT_THREAD_WORKER ? MUSTER_OMPT_STATE_IDLE
                                                                  : MUSTER_OMPT_STATE_WORK_SERIAL;
    if (cb != NULL)
        cb(thread_type, &thread_data);
}

void muster_ompt_thread_end(void)
{
    muster_ompt_thread_end_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_thread_end_fn, MUSTER_OMPT_THREAD_END);
    if (cb != NULL)
        cb(&thread_data);
}

/* ---- frames ---- */

muster_ompt_frame *muster_ompt_current_frame(void)
{
    return muster_ompt_running != NULL ? &muster_ompt_running->frame : &muster_ompt_implicit_frame;
}

void muster_ompt_enter_runtime(void)
{
    muster_ompt_frame *f = muster_ompt_current_frame();
    /* No entry noted (a region's own end): this hook's caller's frame, a
     * runtime frame below the program's. */
    void *cfa = muster_ompt_entry_frame != NULL ? muster_ompt_entry_frame : __builtin_dwarf_cfa();
    muster_ompt_frame_set(&f->enter_frame, &f->enter_frame_flags, cfa);
}

void muster_ompt_leave_runtime(void)
{
    muster_ompt_current_frame()->enter_frame.ptr = NULL;
}

bool muster_ompt_enter_runtime_once(void)
{
    if (muster_ompt_current_frame()->enter_frame.ptr != NULL)
        return false;
    muster_ompt_enter_runtime();
    return true;
}

void muster_ompt_leave_runtime_if(bool entered)
{
    if (entered)
        muster_ompt_leave_runtime();
}

void muster_ompt_body_returned(void *frame)
{
    muster_ompt_implicit_frame.exit_frame.ptr = NULL;
    muster_ompt_entry_frame = frame;
}

void muster_ompt_set_exit_frame(void *frame)
{
    muster_ompt_frame *f = muster_ompt_current_frame();
    muster_ompt_frame_set(&f->exit_frame, &f->exit_frame_flags, frame);
}

void muster_ompt_implicit_task(int endpoint, muster_ompt_data *parallel, muster_ompt_data *task, unsigned size,
                               unsigned index, int flags, void *body_frame)
{
    muster_ompt_implicit_task_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_implicit_task_fn, MUSTER_OMPT_IMPLICIT_TASK);
    if (endpoint == MUSTER_OMPT_SCOPE_BEGIN)
        task->value = 0;
    bool initial = flags & MUSTER_OMPT_TASK_INITIAL;
    if (endpoint == MUSTER_OMPT_SCOPE_BEGIN && !initial) {
        team_depth++;
        muster_ompt_state = MUSTER_OMPT_STATE_WORK_PARALLEL;
        muster_ompt_implicit_frame = (muster_ompt_frame){0};
        if (body_frame != NULL)
            muster_ompt_set_exit_frame(body_frame);
    }
    if (endpoint == MUSTER_OMPT_SCOPE_END && !initial && team_depth > 0) {
        team_depth--;
        muster_ompt_implicit_frame = (muster_ompt_frame){0}; /* member 0's: parallel_end puts it back */
    }
    if (cb != NULL)
        cb(endpoint, parallel, task, size, index, flags);
    /* A worker leaves its team for the pool; member 0 goes on in the
     * encountering task (parallel_end sets its state). */
    if (endpoint == MUSTER_OMPT_SCOPE_END && index != 0 && team_depth == 0)
        muster_ompt_state = MUSTER_OMPT_STATE_IDLE;
}

void muster_ompt_sync_region(int kind, int endpoint, muster_ompt_data *parallel, muster_ompt_data *task,
                             const void *ra)
{
    muster_ompt_sync_region_fn region = MUSTER_OMPT_CALLBACK(muster_ompt_sync_region_fn, MUSTER_OMPT_SYNC_REGION);
    muster_ompt_sync_region_fn wait = MUSTER_OMPT_CALLBACK(muster_ompt_sync_region_fn, MUSTER_OMPT_SYNC_REGION_WAIT);
    muster_ompt_set_wait_state(kind, endpoint);
    if (endpoint == MUSTER_OMPT_SCOPE_BEGIN) {
        muster_ompt_enter_runtime();
        if (region != NULL)
            region(kind, endpoint, parallel, task, ra);
        if (wait != NULL)
            wait(kind, endpoint, parallel, task, ra);
    } else {
        if (wait != NULL)
            wait(kind, endpoint, parallel, task, ra);
        if (region != NULL)
            region(kind, endpoint, parallel, task, ra);
        muster_ompt_leave_runtime();
    }
}

/* ---- mutexes ---- */

static void mutex_event(int event, int kind, const void *wait_id, const void *ra)
{
    muster_ompt_mutex_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_mutex_fn, event);
    if (cb != NULL)
        cb(kind, (uint64_t)(uintptr_t)wait_id, ra);
}

static void acquire_event(int event, int kind, const void *wait_id, const void *ra)
{
    muster_ompt_mutex_acquire_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_mutex_acquire_fn, event);
    /* hint 0 (omp_sync_hint_none): a hint changes nothing in muster */
    if (cb != NULL)
        cb(kind, 0, MUSTER_OMPT_MUTEX_IMPL_QUEUING, (uint64_t)(uintptr_t)wait_id, ra);
}

/* ompt_state_t of a wait for a mutex of that kind (ompt_mutex_t). */
static int mutex_wait_state(int kind)
{
    switch (kind) {
    case MUSTER_OMPT_MUTEX_CRITICAL:
        return MUSTER_OMPT_STATE_WAIT_CRITICAL;
    case MUSTER_OMPT_MUTEX_ATOMIC:
        return MUSTER_OMPT_STATE_WAIT_ATOMIC;
    case MUSTER_OMPT_MUTEX_ORDERED:
        return MUSTER_OMPT_STATE_WAIT_ORDERED;
    default:
        return MUSTER_OMPT_STATE_WAIT_LOCK;
    }
}

void muster_ompt_mutex_acquire(int kind, const void *wait_id, const void *ra)
{
    muster_ompt_state = mutex_wait_state(kind);
    muster_ompt_wait_id = (uint64_t)(uintptr_t)wait_id;
    muster_ompt_enter_runtime();
    acquire_event(MUSTER_OMPT_MUTEX_ACQUIRE, kind, wait_id, ra);
}

/* The wait for a mutex is over, taken or not (a test lock). */
static void mutex_wait_over(void)
{
    muster_ompt_state = muster_ompt_working_state();
    muster_ompt_wait_id = 0;
    muster_ompt_leave_runtime();
}

void muster_ompt_mutex_acquired(int kind, const void *wait_id, const void *ra)
{
    mutex_wait_over();
    mutex_event(MUSTER_OMPT_MUTEX_ACQUIRED, kind, wait_id, ra);
}

void muster_ompt_mutex_released(int kind, const void *wait_id, const void *ra)
{
    mutex_event(MUSTER_OMPT_MUTEX_RELEASED, kind, wait_id, ra);
}

void muster_ompt_lock_init(int kind, const void *wait_id)
{
    acquire_event(MUSTER_OMPT_LOCK_INIT, kind, wait_id, muster_ompt_take_caller());
}

void muster_ompt_lock_destroy(int kind, const void *wait_id)
{
    mutex_event(MUSTER_OMPT_LOCK_DESTROY, kind, wait_id, muster_ompt_take_caller());
}

void muster_ompt_nest_lock(int endpoint, const void *wait_id)
{
    muster_ompt_nest_lock_fn cb = MUSTER_OMPT_CALLBACK(muster_ompt_nest_lock_fn, MUSTER_OMPT_NEST_LOCK);
    const void *ra = muster_ompt_take_caller();
    if (cb != NULL)
        cb(endpoint, (uint64_t)(uintptr_t)wait_id, ra);
}

/* The mutex's address is its wait identifier; acquire and acquired name
 * one caller. */
void muster_ompt_lock_told(muster_omp_mutex *mutex, int kind)
{
    const void *ra = muster_ompt_take_caller();
    muster_ompt_mutex_acquire(kind, mutex, ra);
    muster_omp_mutex_lock(mutex);
    muster_ompt_mutex_acquired(kind, mutex, ra);
}

bool muster_ompt_trylock_told(muster_omp_mutex *mutex, int kind)
{
    const void *ra = muster_ompt_take_caller();
    muster_ompt_mutex_acquire(kind, mutex, ra);
    bool locked = muster_omp_mutex_trylock(mutex);
    if (locked)
        muster_ompt_mutex_acquired(kind, mutex, ra);
    else
        mutex_wait_over();
    return locked;
}

/* Released before the unlock: the next holder's acquired event then comes
 * after it, so that a tool never sees two holders at once. */
void muster_ompt_unlock_told(muster_omp_mutex *mutex, int kind)
{
    muster_ompt_mutex_released(kind, mutex, muster_ompt_take_caller());
    muster_omp_mutex_unlock(mutex);
}
