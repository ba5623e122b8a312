/* Explicit tasks, run at once: GOMP_task, GOMP_taskloop(_ull), taskwait,
 * taskyield, taskgroups, task reductions, omp_in_final, omp_fulfill_event.
 *
 * Every task runs to completion in the thread that encounters it, before
 * the construct returns: as libgomp runs undeferred tasks.  That is always
 * a correct schedule (OpenMP lets any task be undeferred), just not a
 * parallel one.  It also means a task's dependences are met before it is
 * created (its predecessors have all finished) and taskwait, taskgroup end
 * and taskyield have no running children to wait for.
 *
 * The exception is a detachable task (detach clause): its body runs at once,
 * but it completes only when omp_fulfill_event is called on its event, which
 * may happen later, from any thread.  GOMP_task does not wait for that
 * (waiting there deadlocks the common pattern where a later task fulfills
 * the event).  Instead taskwait waits for the unfulfilled events of the
 * current task's children and taskgroup end for those created in the group.
 * Not done: the implicit barrier at the end of a parallel region does not
 * wait for unfulfilled events, and the implicit tasks of regions a thread
 * runs one after another share one list of events.
 *
 * Where a task runs: each thread keeps a chain of the explicit tasks it is
 * running (frames, on its stack) and of the taskgroups it is in.  Each entry
 * records the team it belongs to; an entry of another team (the thread has
 * since entered a nested parallel region) does not apply. */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/internal.h"
#include "omp/task.h"

/* gcc's GOMP_task / GOMP_taskloop flags (gomp-constants.h). */
#define TASK_FLAG_FINAL (1u << 1)
#define TASK_FLAG_UP (1u << 8)
#define TASK_FLAG_GRAINSIZE (1u << 9)
#define TASK_FLAG_NOGROUP (1u << 11)
#define TASK_FLAG_REDUCTION (1u << 12)
#define TASK_FLAG_DETACH (1u << 13)
#define TASK_FLAG_STRICT (1u << 14)

/* Task arguments up to this size are copied on the stack, larger on the heap. */
#define STACK_ARG_LIMIT 4096

static _Noreturn void fatal(const char *what)
{
    fprintf(stderr, "libmuster-omp: %s\n", what);
    abort();
}

static void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        fatal("out of memory");
    return p;
}

/* ---- where the calling thread is ---- */

typedef struct task_frame {
    struct task_frame *parent;
    muster_omp_team *team; /* the encountering thread's team */
    bool final;            /* a final task: every task it creates is final too */
} task_frame;

typedef struct taskgroup {
    struct taskgroup *prev;
    muster_omp_team *team;
    uintptr_t *reductions; /* innermost registered reduction descriptor; inherited */
    bool free_reductions_at_end; /* an orphaned worksharing group: nobody else frees */
} taskgroup;

static _Thread_local task_frame *current_frame;
static _Thread_local taskgroup *current_group;

static muster_omp_team *current_team(void)
{
    return muster_omp_self()->team;
}

/* The explicit task the thread is running in its current team; NULL: an
 * implicit task. */
static task_frame *running_task(void)
{
    task_frame *frame = current_frame;
    return frame != NULL && frame->team == current_team() ? frame : NULL;
}

static taskgroup *innermost_group(void)
{
    taskgroup *group = current_group;
    return group != NULL && group->team == current_team() ? group : NULL;
}

static void push_group(uintptr_t *reductions)
{
    taskgroup *outer = innermost_group();
    taskgroup *group = checked_malloc(sizeof *group);
    *group = (taskgroup){
        .prev = current_group,
        .team = current_team(),
        .reductions = reductions ? reductions : (outer ? outer->reductions : NULL),
    };
    current_group = group;
}

static void pop_group(void)
{
    taskgroup *group = current_group;
    current_group = group->prev;
    free(group);
}

MUSTER_OMP_EXPORT int omp_in_final(void)
{
    task_frame *frame = running_task();
    return frame != NULL && frame->final;
}

/* ---- detach events ---- */

typedef struct task_event {
    _Atomic uint32_t fulfilled; /* futex word: 0, then 1 */
    _Atomic uint32_t references; /* the fulfiller's and the waiting list's */
    struct task_event *next;    /* in the creating thread's list */
    const task_frame *parent;   /* the task whose taskwait waits for it; NULL: implicit */
    const taskgroup *group;     /* the taskgroup whose end waits for it */
    bool orphaned;              /* its parent has finished: no taskwait waits for it */
} task_event;

/* The unfulfilled events of tasks this thread ran. */
static _Thread_local task_event *pending_events;

static void drop_event(task_event *event)
{
    if (atomic_fetch_sub(&event->references, 1) == 1)
        free(event);
}

static bool event_fulfilled(task_event *event)
{
    /* acquire: the fulfiller's writes before omp_fulfill_event are then seen. */
    return atomic_load_explicit(&event->fulfilled, memory_order_acquire) != 0;
}

static void wait_fulfilled(task_event *event)
{
    /* EINTR and spurious wake-ups return here and re-check. */
    while (!event_fulfilled(event))
        muster_futex_wait(&event->fulfilled, 0, 0);
}

/* Waits for (when `wait`) or forgets (fulfilled) the listed events for
 * which `matches` holds, and keeps the others. */
static void settle_events(bool (*matches)(const task_event *, const void *), const void *key, bool wait)
{
    task_event **link = &pending_events;
    while (*link != NULL) {
        task_event *event = *link;
        if (matches(event, key) && wait)
            wait_fulfilled(event);
        if (event_fulfilled(event)) {
            *link = event->next;
            drop_event(event);
        } else {
            link = &event->next;
        }
    }
}

static bool any_event(const task_event *event, const void *key)
{
    (void)event;
    (void)key;
    return false; /* nothing to wait for: only forgets the fulfilled */
}

static bool child_of(const task_event *event, const void *frame)
{
    return !event->orphaned && event->parent == frame;
}

static bool in_group(const task_event *event, const void *group)
{
    return event->group == group;
}

static void orphan_children(const task_frame *frame)
{
    for (task_event *event = pending_events; event != NULL; event = event->next)
        if (event->parent == frame)
            event->orphaned = true;
}

static task_event *new_event(void)
{
    settle_events(any_event, NULL, false);
    task_event *event = checked_malloc(sizeof *event);
    atomic_init(&event->fulfilled, 0);
    atomic_init(&event->references, 2);
    event->parent = running_task();
    event->group = innermost_group();
    event->orphaned = false;
    event->next = pending_events;
    pending_events = event;
    return event;
}

MUSTER_OMP_EXPORT void omp_fulfill_event(omp_event_handle_t handle)
{
    task_event *event = (task_event *)(uintptr_t)handle;
    /* release: publishes what the fulfiller wrote for the task's successors. */
    if (atomic_exchange_explicit(&event->fulfilled, 1, memory_order_release) != 0)
        fatal("omp_fulfill_event: event already fulfilled");
    muster_futex_wake(&event->fulfilled, INT32_MAX);
    drop_event(event);
}

/* ---- running a task ---- */

/* Runs fn on a copy of its argument block made by cpyfn (firstprivate
 * copy constructors), aligned to arg_align; fn(data) itself when no copy
 * is needed. */
static void run_body(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align)
{
    if (cpyfn == NULL) {
        fn(data);
        return;
    }
    size_t align = arg_align > 0 ? (size_t)arg_align : 1;
    size_t bytes = (size_t)arg_size + align - 1;
    char stack_buffer[bytes <= STACK_ARG_LIMIT ? bytes : 1];
    char *buffer = bytes <= STACK_ARG_LIMIT ? stack_buffer : checked_malloc(bytes);
    char *arg = (char *)(((uintptr_t)buffer + align - 1) & ~(uintptr_t)(align - 1));
    cpyfn(arg, data);
    fn(arg);
    if (buffer != stack_buffer)
        free(buffer);
}

static void enter_task(task_frame *frame, bool final)
{
    task_frame *parent = running_task();
    *frame = (task_frame){
        .parent = current_frame,
        .team = current_team(),
        .final = final || (parent != NULL && parent->final),
    };
    current_frame = frame;
}

static void leave_task(task_frame *frame)
{
    current_frame = frame->parent;
    if (pending_events != NULL)
        orphan_children(frame);
}

/* `depend` needs no work: every earlier sibling has finished.  priority,
 * untied and mergeable change nothing when the task runs at once; `if`
 * only says it must not be deferred, and it never is. */
MUSTER_OMP_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                                 long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                                 void *detach)
{
    (void)if_clause;
    (void)depend;
    (void)priority;
    if (flags & TASK_FLAG_DETACH) {
        task_event *event = new_event();
        /* The event variable, and the task's firstprivate copy of it,
         * which gcc puts first in the argument block. */
        *(void **)detach = event;
        if (data != NULL)
            *(void **)data = event;
    }
    task_frame frame;
    enter_task(&frame, (flags & TASK_FLAG_FINAL) != 0);
    run_body(fn, data, cpyfn, arg_size, arg_align);
    leave_task(&frame);
}

MUSTER_OMP_EXPORT void GOMP_taskwait(void)
{
    if (pending_events != NULL)
        settle_events(child_of, running_task(), true);
}

/* taskwait depend(...): the tasks it would wait for have all finished. */
MUSTER_OMP_EXPORT void GOMP_taskwait_depend(void **depend)
{
    (void)depend;
}

/* Nothing else to run: the calling task just continues. */
MUSTER_OMP_EXPORT void GOMP_taskyield(void)
{
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_start(void)
{
    push_group(NULL);
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_end(void)
{
    taskgroup *group = innermost_group();
    if (group == NULL)
        fatal("GOMP_taskgroup_end without GOMP_taskgroup_start");
    if (pending_events != NULL)
        settle_events(in_group, group, true);
    pop_group();
}

/* ---- task reductions ----
 *
 * The descriptor gcc builds (libgomp's task.c documents it):
 *   d[0] number of reduction entries
 *   d[1] bytes of one thread's private block
 *   d[2] alignment of the blocks; on return: the blocks' address
 *   d[3] allocator (-1: malloc)
 *   d[4] next descriptor registered together; on return: the link to the
 *        taskgroup's earlier registration
 *   d[5] ours: 1 on the first descriptor of a registration, else 0
 *   d[6] ours: the end of the blocks
 *   then per entry: [0] address of the original, [1] offset in a block,
 *   [2] ours: the descriptor the entry belongs to
 * One zero-filled block per team member; the emitted code combines them
 * after the taskgroup (reading d[2]) and then unregisters. */
enum { D_COUNT, D_BLOCK_SIZE, D_ARRAY, D_ALLOCATOR, D_NEXT, D_FIRST, D_END, D_ENTRIES };

static void *zeroed_blocks(size_t align, size_t bytes)
{
    if (align < sizeof(void *))
        align = sizeof(void *);
    void *p = NULL;
    if (posix_memalign(&p, align, bytes ? bytes : 1) != 0)
        fatal("out of memory for task reductions");
    memset(p, 0, bytes);
    return p;
}

static unsigned team_size_now(void)
{
    muster_omp_team *team = current_team();
    return team ? team->size : 1;
}

/* Fills in the descriptors of one registration and links it in front of
 * `older`; orig: share the blocks of another thread's registration. */
static void register_reductions(uintptr_t *data, uintptr_t *older, const uintptr_t *orig, unsigned nthreads)
{
    for (uintptr_t *d = data;; d = (uintptr_t *)d[D_NEXT]) {
        if (orig != NULL) {
            d[D_ARRAY] = orig[D_ARRAY];
            d[D_END] = orig[D_END];
            orig = (const uintptr_t *)orig[D_NEXT];
        } else {
            size_t bytes = d[D_BLOCK_SIZE] * nthreads;
            d[D_ARRAY] = (uintptr_t)zeroed_blocks(d[D_ARRAY], bytes);
            d[D_END] = d[D_ARRAY] + bytes;
        }
        d[D_FIRST] = d == data;
        for (uintptr_t j = 0; j < d[D_COUNT]; j++)
            d[D_ENTRIES + 3 * j + 2] = (uintptr_t)d;
        if (d[D_NEXT] == 0) {
            d[D_NEXT] = (uintptr_t)older;
            return;
        }
    }
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    taskgroup *group = innermost_group();
    if (group == NULL)
        fatal("GOMP_taskgroup_reduction_register outside a taskgroup");
    register_reductions(data, group->reductions, NULL, team_size_now());
    group->reductions = data;
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
    uintptr_t *d = data;
    do {
        free((void *)d[D_ARRAY]);
        d = (uintptr_t *)d[D_NEXT];
    } while (d != NULL && !d[D_FIRST]);
}

/* The original list item at block offset `offset` of descriptor d. */
static void *original_at(const uintptr_t *d, uintptr_t offset)
{
    for (uintptr_t j = 0; j < d[D_COUNT]; j++)
        if (d[D_ENTRIES + 3 * j + 1] == offset)
            return (void *)d[D_ENTRIES + 3 * j];
    fatal("couldn't find matching task_reduction or reduction with task modifier");
}

/* ptrs[i] is an original list item or an address in some thread's private
 * block; it becomes the calling thread's private copy.  For i < cntorig,
 * ptrs[cnt + i] receives the original's address. */
static void remap_one(uintptr_t *chain, unsigned id, void **ptrs, size_t i, size_t cnt, size_t cntorig)
{
    uintptr_t address = (uintptr_t)ptrs[i];
    for (uintptr_t *d = chain; d != NULL; d = (uintptr_t *)d[D_NEXT]) {
        for (uintptr_t j = 0; j < d[D_COUNT]; j++) {
            if (d[D_ENTRIES + 3 * j] != address)
                continue;
            ptrs[i] = (void *)(d[D_ARRAY] + id * d[D_BLOCK_SIZE] + d[D_ENTRIES + 3 * j + 1]);
            if (i < cntorig)
                ptrs[cnt + i] = (void *)address;
            return;
        }
        if (address >= d[D_ARRAY] && address < d[D_END]) {
            uintptr_t offset = (address - d[D_ARRAY]) % d[D_BLOCK_SIZE];
            ptrs[i] = (void *)(d[D_ARRAY] + id * d[D_BLOCK_SIZE] + offset);
            if (i < cntorig)
                ptrs[cnt + i] = original_at(d, offset);
            return;
        }
    }
    fatal("couldn't find matching task_reduction or reduction with task modifier");
}

MUSTER_OMP_EXPORT void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
    taskgroup *group = innermost_group();
    if (group == NULL || group->reductions == NULL)
        fatal("in_reduction without an enclosing task reduction");
    unsigned id = muster_omp_self()->id;
    for (size_t i = 0; i < cnt; i++)
        remap_one(group->reductions, id, ptrs, i, cnt, cntorig);
}

void muster_omp_workshare_taskgroup_start(void)
{
    push_group(NULL);
}

void muster_omp_workshare_task_reduction_register(uintptr_t *data, uintptr_t *orig)
{
    taskgroup *group = innermost_group();
    register_reductions(data, group->reductions, orig, team_size_now());
    group->reductions = data;
}

MUSTER_OMP_EXPORT void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    muster_omp_thread *self = muster_omp_self();
    taskgroup *group = innermost_group();
    uintptr_t *data = group->reductions;
    GOMP_taskgroup_end();
    /* Every thread's descriptor shares thread 0's blocks: freed once. */
    if (self->id == 0)
        GOMP_taskgroup_reduction_unregister(data);
    if (!cancelled)
        muster_omp_team_barrier(self);
}

/* parallel reduction(task, ...): the blocks are registered once the team
 * size is known, before any member starts; each member's implicit task
 * runs inside a taskgroup that holds them. */
typedef struct parallel_reductions {
    void (*fn)(void *);
    void *data;
    uintptr_t *descriptor;
    unsigned nthreads;
} parallel_reductions;

static void register_for_team(muster_omp_team *team, void *arg)
{
    parallel_reductions *pr = arg;
    pr->nthreads = team->size;
    register_reductions(pr->descriptor, NULL, NULL, team->size);
}

static void member_with_reductions(void *arg)
{
    parallel_reductions *pr = arg;
    push_group(pr->descriptor);
    pr->fn(pr->data);
    pop_group();
}

MUSTER_OMP_EXPORT unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                                     unsigned flags)
{
    /* gcc passes the descriptor as the first field of the data block. */
    parallel_reductions pr = {.fn = fn, .data = data, .descriptor = *(uintptr_t **)data};
    muster_omp_parallel(member_with_reductions, &pr, num_threads, flags, register_for_team, &pr);
    return pr.nthreads;
}

/* ---- taskloop ----
 *
 * The iteration space is split into tasks as libgomp's taskloop.c does
 * (grainsize, num_tasks, strict), and each task runs at once on a copy of
 * the argument block whose first two fields are its [start, end). */

#define TYPE long
#define UTYPE unsigned long
#define TASKLOOP_NAME GOMP_taskloop
#define TYPE_IS_LONG 1
#include "omp/taskloop.inc"
#undef TYPE
#undef UTYPE
#undef TASKLOOP_NAME
#undef TYPE_IS_LONG

#define TYPE unsigned long long
#define UTYPE unsigned long long
#define TASKLOOP_NAME GOMP_taskloop_ull
#define TYPE_IS_LONG 0
#include "omp/taskloop.inc"
#undef TYPE
#undef UTYPE
#undef TASKLOOP_NAME
#undef TYPE_IS_LONG
