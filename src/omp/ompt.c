/* The OMPT hooks (ompt.h): the registered callbacks and their dispatch.
 * Thread layer: every layer above calls these. */
#include "omp/ompt.h"

#include <stddef.h>

_Atomic bool muster_ompt_enabled;
muster_ompt_callback muster_ompt_callbacks[MUSTER_OMPT_EVENTS];
_Thread_local const void *muster_ompt_caller;
void (*muster_ompt_discover)(void);

/* The calling thread's data for the tool: its thread_begin fills it. */
static _Thread_local muster_ompt_data thread_data;

muster_ompt_data *muster_ompt_thread_data(void)
{
    return &thread_data;
}

/* The caller noted by the entry point, once. */
static const void *take_caller(void)
{
    const void *ra = muster_ompt_caller;
    muster_ompt_caller = NULL;
    return ra;
}

#define CALLBACK(type, event) ((type)muster_ompt_callbacks[event])

void muster_ompt_thread_begin(int thread_type)
{
    muster_ompt_thread_begin_fn cb = CALLBACK(muster_ompt_thread_begin_fn, MUSTER_OMPT_THREAD_BEGIN);
    thread_data.value = 0;
    if (cb != NULL)
        cb(thread_type, &thread_data);
}

void muster_ompt_thread_end(void)
{
    muster_ompt_thread_end_fn cb = CALLBACK(muster_ompt_thread_end_fn, MUSTER_OMPT_THREAD_END);
    if (cb != NULL)
        cb(&thread_data);
}

/* The encountering task's frame: frames are not yet reported (exit and
 * enter frames 0, which OMPT allows: "unknown"). */
static const muster_ompt_frame unknown_frame;

void muster_ompt_parallel_begin(muster_ompt_data *encountering_task, muster_ompt_data *parallel,
                                unsigned requested)
{
    muster_ompt_parallel_begin_fn cb = CALLBACK(muster_ompt_parallel_begin_fn, MUSTER_OMPT_PARALLEL_BEGIN);
    parallel->value = 0; /* a pool's team object serves region after region */
    if (cb != NULL)
        cb(encountering_task, &unknown_frame, parallel, requested,
           MUSTER_OMPT_PARALLEL_INVOKER_PROGRAM | MUSTER_OMPT_PARALLEL_TEAM, take_caller());
}

void muster_ompt_parallel_end(muster_ompt_data *parallel, muster_ompt_data *encountering_task)
{
    muster_ompt_parallel_end_fn cb = CALLBACK(muster_ompt_parallel_end_fn, MUSTER_OMPT_PARALLEL_END);
    if (cb != NULL)
        cb(parallel, encountering_task, MUSTER_OMPT_PARALLEL_INVOKER_PROGRAM | MUSTER_OMPT_PARALLEL_TEAM,
           take_caller());
}

void muster_ompt_implicit_task(int endpoint, muster_ompt_data *parallel, muster_ompt_data *task, unsigned size,
                               unsigned index, int flags)
{
    muster_ompt_implicit_task_fn cb = CALLBACK(muster_ompt_implicit_task_fn, MUSTER_OMPT_IMPLICIT_TASK);
    if (endpoint == MUSTER_OMPT_SCOPE_BEGIN)
        task->value = 0;
    if (cb != NULL)
        cb(endpoint, parallel, task, size, index, flags);
}

void muster_ompt_sync_region(int kind, int endpoint, muster_ompt_data *parallel, muster_ompt_data *task)
{
    muster_ompt_sync_region_fn region = CALLBACK(muster_ompt_sync_region_fn, MUSTER_OMPT_SYNC_REGION);
    muster_ompt_sync_region_fn wait = CALLBACK(muster_ompt_sync_region_fn, MUSTER_OMPT_SYNC_REGION_WAIT);
    const void *ra = endpoint == MUSTER_OMPT_SCOPE_BEGIN ? take_caller() : NULL;
    if (endpoint == MUSTER_OMPT_SCOPE_BEGIN) {
        if (region != NULL)
            region(kind, endpoint, parallel, task, ra);
        if (wait != NULL)
            wait(kind, endpoint, parallel, task, ra);
    } else {
        if (wait != NULL)
            wait(kind, endpoint, parallel, task, ra);
        if (region != NULL)
            region(kind, endpoint, parallel, task, ra);
    }
}
