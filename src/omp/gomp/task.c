/* gcc's tasks and task waits: GOMP_task, GOMP_taskwait, GOMP_taskwait_depend,
 * GOMP_taskyield, GOMP_taskgroup_start and _end, onto the task core
 * (task/task.h), translated into its task description: gcc's flags become
 * its fields, gcc's depend array is read through a muster_omp_depend.
 * (taskloop.c and taskred.c hold taskloops and task reductions.) */
#include "omp/gomp/gomp.h"
#include "omp/task/task.h"

/* ---- gcc's depend array ---- */

/* gcc's dependence kinds (gomp-constants.h GOMP_DEPEND_*), as depobj
 * entries carry them. */
enum { GOMP_DEPEND_IN = 1, GOMP_DEPEND_OUT = 2, GOMP_DEPEND_INOUT = 3, GOMP_DEPEND_MUTEXINOUTSET = 4 };

/* depend[0] != 0: {n, nout, addresses...}: the first nout write.
 * depend[0] == 0: {0, n, nout, nmutexinoutset, nin, addresses..., depobjs...}:
 * then n - nout - nmutexinoutset - nin depobj pointers, each {addr, kind}. */
typedef struct gomp_depend {
    void *const *array;
    size_t nout, nmutex, nin, first; /* first: index of the first address */
} gomp_depend;

static bool depobj_kind(uintptr_t kind, muster_omp_dep_kind *out)
{
    switch (kind) {
    case GOMP_DEPEND_IN:
        *out = MUSTER_OMP_DEP_READ;
        return true;
    case GOMP_DEPEND_OUT:
    case GOMP_DEPEND_INOUT:
        *out = MUSTER_OMP_DEP_WRITE;
        return true;
    case GOMP_DEPEND_MUTEXINOUTSET:
        *out = MUSTER_OMP_DEP_MUTEX;
        return true;
    default:
        return false; /* none that gcc 12 emits */
    }
}

/* muster_omp_depend's nth for gcc's array: addresses by kind, then depobjs. */
static bool gomp_nth_dep(const void *list, size_t i, uintptr_t *addr, muster_omp_dep_kind *kind)
{
    const gomp_depend *g = list;
    void *entry = g->array[g->first + i];
    *addr = (uintptr_t)entry;
    if (i < g->nout) {
        *kind = MUSTER_OMP_DEP_WRITE;
        return true;
    }
    if (i < g->nout + g->nmutex) {
        *kind = MUSTER_OMP_DEP_MUTEX;
        return true;
    }
    if (i < g->nout + g->nmutex + g->nin) {
        *kind = MUSTER_OMP_DEP_READ;
        return true;
    }
    void *const *depobj = entry; /* omp_depend_t: {address, kind} */
    *addr = (uintptr_t)depobj[0];
    return depobj_kind((uintptr_t)depobj[1], kind);
}

/* The core's view of gcc's depend array, in either form; `g` holds the
 * form's counts and must live as long as the result is used. */
static muster_omp_depend gomp_depend_read(void *const *array, gomp_depend *g)
{
    uintptr_t total;
    if ((uintptr_t)array[0] != 0) {
        total = (uintptr_t)array[0];
        *g = (gomp_depend){.array = array, .nout = (uintptr_t)array[1], .first = 2};
        g->nin = total - g->nout;
    } else {
        total = (uintptr_t)array[1];
        *g = (gomp_depend){.array = array,
                           .nout = (uintptr_t)array[2],
                           .nmutex = (uintptr_t)array[3],
                           .nin = (uintptr_t)array[4],
                           .first = 5};
    }
    return (muster_omp_depend){.list = g, .count = total, .nth = gomp_nth_dep};
}

/* ---- entry points ---- */

/* GOMP_task's if clause, flags and priority in one word (gcc's flags
 * use the low 16 bits), so that submit_described, given the caller's site
 * besides, takes no more arguments than GOMP_task and stays its tail call
 * (a plain call there cost every task two more saved registers). */
#define CLAUSES_IF (1ull << 31)
static inline uint64_t clauses_pack(bool if_clause, unsigned flags, int priority)
{
    return (uint64_t)(uint32_t)priority << 32 | (if_clause ? CLAUSES_IF : 0u) | (flags & 0xffffu);
}

/* A task with depend, detach or priority clauses, described. */
static __attribute__((noinline)) void submit_described(void (*fn)(void *), void *data,
                                                       void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                                                       uint64_t clauses, void **depend, void *detach,
                                                       const void *caller, void *caller_frame)
{
    bool if_clause = clauses & CLAUSES_IF;
    unsigned flags = (unsigned)(clauses & 0xffffu);
    int priority = (int)(uint32_t)(clauses >> 32);
    gomp_depend g;
    muster_omp_depend deps;
    muster_omp_task_desc task = {
        .fn = fn,
        .data = data,
        .cpyfn = cpyfn,
        .arg_size = arg_size,
        .arg_align = arg_align,
        .if_clause = if_clause,
        .final = (flags & GOMP_TASK_FLAG_FINAL) != 0,
        .priority = (flags & GOMP_TASK_FLAG_PRIORITY) ? priority : 0,
        /* gcc also reads the handle from the task's firstprivate copy of
         * the event, the first pointer of its argument block: as the core
         * writes it. */
        .detach = (flags & GOMP_TASK_FLAG_DETACH) ? detach : NULL,
        .queue_alone = true, /* task.h: libgomp's order in a team of one */
    };
    if (depend != NULL) {
        deps = gomp_depend_read(depend, &g);
        task.depend = &deps;
    }
    if (muster_ompt_on()) {
        muster_ompt_note(caller, caller_frame);
        muster_omp_task_submit_told(&task);
    } else {
        muster_omp_task_submit_quiet(&task);
    }
}

/* The plain way's general branch (cancellation on or a tool attached),
 * out of line: noting the caller inside GOMP_task cost every task there
 * two saved registers. */
static __attribute__((noinline)) void plain_general(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                                                    long arg_size, long arg_align, unsigned how,
                                                    muster_ompt_site caller)
{
    if (muster_ompt_on())
        muster_ompt_note(caller.ra, caller.frame);
    muster_omp_task_plain_general(fn, data, cpyfn, arg_size, arg_align, how);
}

/* A task without clauses goes the plain way (task.h says why), as a tail
 * call; the rest are described.  One flag test on the plain way: the
 * general tasks' (cancellation or a tool), whose branch notes the caller
 * for a tool. */
MUSTER_OMP_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                                 long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                                 void *detach)
{
    if (depend == NULL && !(flags & (GOMP_TASK_FLAG_DETACH | GOMP_TASK_FLAG_PRIORITY))) {
        unsigned how = (if_clause ? MUSTER_OMP_TASK_IF : 0u) | (flags & GOMP_TASK_FLAG_FINAL ? MUSTER_OMP_TASK_FINAL : 0u) |
                       MUSTER_OMP_TASK_QUEUE_ALONE;
        if (__builtin_expect(muster_omp_general_tasks, 0))
            plain_general(fn, data, cpyfn, arg_size, arg_align, how, (muster_ompt_site){MUSTER_OMPT_HERE()});
        else
            muster_omp_task_plain(fn, data, cpyfn, arg_size, arg_align, how);
    } else {
        submit_described(fn, data, cpyfn, arg_size, arg_align, clauses_pack(if_clause, flags, priority), depend,
                         detach, MUSTER_OMPT_HERE());
    }
}

MUSTER_OMP_EXPORT void GOMP_taskwait(void)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_taskwait();
}

MUSTER_OMP_EXPORT void GOMP_taskwait_depend(void **depend)
{
    MUSTER_OMPT_NOTE_CALLER();
    gomp_depend g;
    muster_omp_depend deps = gomp_depend_read(depend, &g);
    muster_omp_taskwait_depend(&deps);
}

/* Nothing else to run: the calling task just continues. */
MUSTER_OMP_EXPORT void GOMP_taskyield(void)
{
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_start(void)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_taskgroup_start();
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_end(void)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_taskgroup_end();
}
