/* Explicit tasks for clang-built code, on the task wing (task/task.h).
 *
 * clang allocates a task with __kmpc_omp_task_alloc (kmp_task_t, then its
 * privates, then the shared-variable pointers, all in one block), fills it
 * in and submits it with __kmpc_omp_task.  Here the block gets a header of
 * ours in front, and the core is handed a pointer to it as the task's
 * 8-byte argument: wherever and whenever the core runs it, run_task calls
 * the compiler's entry, then its destructors, and frees the block.
 *
 * Untied tasks resubmit themselves from inside their first run (clang's
 * part_id protocol: the first run only sets part_id and submits the task
 * again).  That second submission runs at once, nested in the first:
 * submitted through the core it would be the running task's child, and
 * its parent's taskwait would not wait for it.  So every run of a task
 * ends inside its outermost one, which alone finishes the task.
 *
 * Dependences arrive as LLVM's records {base_addr, len, flags}, in two
 * lists; the core reads them where they are, through a muster_omp_depend. */
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "omp/kmp/kmp.h"
#include "omp/task/task.h"
#include "omp/task/task_memory.h"

/* kmp_task_t as clang 14 lays it out (x86-64 and AArch64). */
typedef struct kmp_task kmp_task_t;
typedef kmp_int32 (*kmp_routine_entry_t)(kmp_int32, kmp_task_t *);
struct kmp_task {
    void *shareds;
    kmp_routine_entry_t routine;
    kmp_int32 part_id;
    union {
        kmp_routine_entry_t destructors; /* KMP_TASK_DESTRUCTORS */
        void *pad;
    } data1;
    union {
        kmp_int32 priority; /* KMP_TASK_PRIORITY */
        void *pad;
    } data2;
};

/* The compiler's task flags (the low 16 bits of task_alloc's flags). */
enum {
    KMP_TASK_TIED = 0x1,
    KMP_TASK_FINAL = 0x2,
    KMP_TASK_DESTRUCTORS = 0x8,
    KMP_TASK_PROXY = 0x10,
    KMP_TASK_PRIORITY = 0x20,
    KMP_TASK_DETACHABLE = 0x40,
};

/* A detachable task's event, as the program holds it (omp_event_handle_t):
 * the core's own handle, written when the task is submitted.  Freed by
 * the fulfilment, which the program makes exactly once. */
typedef struct kmp_event {
    void *core;
} kmp_event_t;

/* Ours, in front of the compiler's block. */
typedef struct task_header {
    size_t size;                 /* the compiler's block, kmp_task_t to the shareds' end */
    kmp_int32 flags;
    kmp_event_t *event;          /* detachable: its event; NULL otherwise */
    bool running;                /* its entry is running (an untied resubmission runs nested) */
    /* A proxy task's block outlives its run: the program completes the task
     * later by its address (__kmpc_proxy_task_completed_ooo), from any
     * thread.  Two owners, the run's end and the completion: the second
     * frees the block, which is malloc's (not a thread's task memory). */
    _Atomic int proxy_owners;
    _Alignas(void *) unsigned char frame[MUSTER_OMP_UNDEFERRED_FRAME_SIZE]; /* if(0): the core's frame */
} task_header;

/* kmp_task_t is 16-byte aligned (libomp asserts it). */
#define HEADER_SPACE ((sizeof(task_header) + 15u) & ~(size_t)15u)

static task_header *header_of(kmp_task_t *task)
{
    return (task_header *)(void *)((char *)task - HEADER_SPACE);
}

static kmp_event_t *new_event(void)
{
    kmp_event_t *e = malloc(sizeof *e);
    if (e == NULL)
        muster_omp_fatal("out of memory for a task's completion event");
    e->core = NULL;
    return e;
}

static kmp_task_t *alloc_task(kmp_int32 flags, size_t sizeof_task, size_t sizeof_shareds,
                              kmp_routine_entry_t entry)
{
    if (sizeof_task < sizeof(kmp_task_t))
        sizeof_task = sizeof(kmp_task_t);
    size_t task_part = (sizeof_task + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
    size_t size = task_part + sizeof_shareds;
    /* The per-thread task memory of the core: no malloc per task on the
     * hot path, and a block freed by the thread that ran the task goes
     * back to the one that made it. */
    bool proxy = (flags & KMP_TASK_PROXY) != 0;
    char *block = proxy ? aligned_alloc(16, (HEADER_SPACE + size + 15u) & ~(size_t)15u)
                        : muster_omp_task_alloc(HEADER_SPACE + size);
    if (block == NULL)
        muster_omp_fatal("out of memory for a task (%zu bytes)", size);
    task_header *h = (task_header *)(void *)block;
    h->size = size;
    h->flags = flags;
    h->event = NULL;
    h->running = false;
    atomic_init(&h->proxy_owners, 2);
    if (proxy)
        h->event = new_event();
    kmp_task_t *task = (kmp_task_t *)(void *)(block + HEADER_SPACE);
    memset(task, 0, sizeof *task);
    task->shareds = sizeof_shareds ? (char *)task + task_part : NULL;
    task->routine = entry;
    return task;
}

static void free_task(kmp_task_t *task)
{
    task_header *h = header_of(task);
    if (!(h->flags & KMP_TASK_PROXY))
        muster_omp_task_free(h);
    else if (atomic_fetch_sub(&h->proxy_owners, 1) == 1) /* seq_cst: the last of two owners frees */
        free(h);
}

/* After the task's last run: C++ destructors of its firstprivates, then
 * the block goes. */
static void finish_task(kmp_task_t *task)
{
    if (header_of(task)->flags & KMP_TASK_DESTRUCTORS)
        task->data1.destructors(muster_kmp_gtid(), task);
    free_task(task);
}

/* One run of the compiler's entry; the outermost finishes the task. */
static void run_entry(kmp_task_t *task)
{
    task_header *h = header_of(task);
    bool outer = !h->running;
    h->running = true;
    if (muster_ompt_on()) /* this adapter, not the core, calls the program's code */
        muster_ompt_set_exit_frame(__builtin_dwarf_cfa());
    task->routine(muster_kmp_gtid(), task);
    if (outer)
        finish_task(task);
}

/* What the core runs: its argument is a copy of the task's address. */
static void run_task(void *arg)
{
    kmp_task_t *task;
    memcpy(&task, arg, sizeof task);
    run_entry(task);
}

MUSTER_OMP_EXPORT kmp_task_t *__kmpc_omp_task_alloc(ident_t *loc, kmp_int32 gtid, kmp_int32 flags,
                                                    size_t sizeof_task, size_t sizeof_shareds,
                                                    kmp_routine_entry_t entry)
{
    (void)loc, (void)gtid;
    return alloc_task(flags, sizeof_task, sizeof_shareds, entry);
}

/* target nowait without an offload device: a task like any other. */
MUSTER_OMP_EXPORT kmp_task_t *__kmpc_omp_target_task_alloc(ident_t *loc, kmp_int32 gtid, kmp_int32 flags,
                                                           size_t sizeof_task, size_t sizeof_shareds,
                                                           kmp_routine_entry_t entry, kmp_int64 device_id)
{
    (void)loc, (void)gtid, (void)device_id;
    return alloc_task(flags, sizeof_task, sizeof_shareds, entry);
}

/* A detachable task's argument: the core writes its event handle into the
 * first pointer of its copy (task.h), so the task's address goes second. */
typedef struct detached_arg {
    void *core_event;
    kmp_task_t *task;
} detached_arg;

static void run_detached_task(void *arg)
{
    detached_arg a;
    memcpy(&a, arg, sizeof a);
    run_entry(a.task);
}

/* The core's description of a task, its clauses taken from the flags
 * clang gave __kmpc_omp_task_alloc; the caller sets the body and argument. */
static muster_omp_task_desc task_desc(const kmp_task_t *task, const muster_omp_depend *depend)
{
    kmp_int32 flags = header_of((kmp_task_t *)task)->flags;
    return (muster_omp_task_desc){
        .depend = depend,
        .priority = (flags & KMP_TASK_PRIORITY) ? task->data2.priority : 0,
        .if_clause = true,
        .final = (flags & KMP_TASK_FINAL) != 0,
    };
}

/* The core's half for `told`: a tool attached (muster_ompt_on(), tested
 * once by the entry point, which may note itself for the tool in that
 * test). */
static inline void submit_desc(const muster_omp_task_desc *desc, bool told)
{
    if (told)
        muster_omp_task_submit_told(desc);
    else
        muster_omp_task_submit_quiet(desc);
}

static inline __attribute__((always_inline)) void submit(kmp_task_t *task, const muster_omp_depend *depend,
                                                        bool told)
{
    task_header *h = header_of(task);
    if (h->running) {
        run_entry(task); /* an untied task's second part, see above: it runs, so its dependences are met */
        return;
    }
    muster_omp_task_desc desc = task_desc(task, depend);
    if (h->event != NULL) {
        detached_arg a = {NULL, task};
        desc.fn = run_detached_task;
        desc.data = &a;
        desc.arg_size = sizeof a;
        desc.arg_align = _Alignof(detached_arg);
        desc.detach = &h->event->core;
        submit_desc(&desc, told);
        return;
    }
    desc.fn = run_task;
    desc.data = &task;
    desc.arg_size = sizeof task;
    desc.arg_align = _Alignof(kmp_task_t *);
    submit_desc(&desc, told);
}

/* ---- detach ---- */

MUSTER_OMP_EXPORT kmp_event_t *__kmpc_task_allow_completion_event(ident_t *loc, kmp_int32 gtid, kmp_task_t *task)
{
    (void)loc, (void)gtid;
    task_header *h = header_of(task);
    if (!(h->flags & KMP_TASK_DETACHABLE))
        muster_omp_fatal("a completion event for a task not allocated as detachable");
    kmp_event_t *e = new_event();
    h->event = e;
    return e;
}

/* omp_fulfill_event as clang-built code calls it (at VERSION): its handle
 * is the kmp_event_t above. */
__attribute__((symver("omp_fulfill_event@VERSION"))) MUSTER_OMP_EXPORT void muster_kmp_fulfill_event(kmp_event_t *e)
{
    if (e == NULL || e->core == NULL)
        muster_omp_fatal("omp_fulfill_event on an event whose task was never submitted");
    void *core = e->core;
    free(e);
    omp_fulfill_event((omp_event_handle_t)(uintptr_t)core);
}

/* ---- proxy tasks ----
 * A task allocated with the proxy flag is complete only when the program
 * says so, by its address: a detachable task whose event the runtime made
 * at allocation.  libomptarget completes target tasks this way; programs
 * driving the ABI by hand do it from threads of their own. */

static void complete_proxy(kmp_task_t *task, const char *entry)
{
    task_header *h = header_of(task);
    if (!(h->flags & KMP_TASK_PROXY))
        muster_omp_fatal("%s on a task not allocated as a proxy task (flags 0x%x)", entry, (unsigned)h->flags);
    muster_kmp_fulfill_event(h->event);
    free_task(task); /* the completion's ownership */
}

/* From a thread of the team. */
MUSTER_OMP_EXPORT void __kmpc_proxy_task_completed(kmp_int32 gtid, kmp_task_t *task)
{
    (void)gtid;
    complete_proxy(task, "__kmpc_proxy_task_completed");
}

/* Out of order: from any thread, OpenMP's or not. */
MUSTER_OMP_EXPORT void __kmpc_proxy_task_completed_ooo(kmp_task_t *task)
{
    complete_proxy(task, "__kmpc_proxy_task_completed_ooo");
}

/* task affinity(...): where the task's data lives, a hint.  muster's
 * scheduler places tasks by who is idle, not by data, so the hint is taken
 * and not used (libomp records it and does not use it either). */
MUSTER_OMP_EXPORT kmp_int32 __kmpc_omp_reg_task_with_affinity(ident_t *loc, kmp_int32 gtid, kmp_task_t *task,
                                                              kmp_int32 naffins, void *affinity_list)
{
    (void)loc, (void)gtid, (void)task, (void)naffins, (void)affinity_list;
    return 0;
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_omp_task(ident_t *loc, kmp_int32 gtid, kmp_task_t *task)
{
    (void)loc, (void)gtid;
    if (muster_ompt_on()) {
        muster_ompt_note(MUSTER_OMPT_HERE());
        submit(task, NULL, true);
    } else {
        submit(task, NULL, false);
    }
    return 0; /* TASK_CURRENT_NOT_QUEUED; clang ignores it */
}

/* ---- if(0): the compiler runs the entry itself between the two ---- */

/* told: as submit's. */
static inline __attribute__((always_inline)) void begin_undeferred(kmp_task_t *task, bool told)
{
    task_header *h = header_of(task);
    if (h->event != NULL)
        h->event->core = muster_omp_detach_event_new(); /* before its frame: its parent waits for it */
    h->running = true;
    if (told)
        muster_omp_undeferred_begin_told(h->frame, (h->flags & KMP_TASK_FINAL) != 0);
    else
        muster_omp_undeferred_begin(h->frame, (h->flags & KMP_TASK_FINAL) != 0);
}

static void end_undeferred(kmp_task_t *task)
{
    muster_omp_undeferred_end(header_of(task)->frame);
    finish_task(task);
}

MUSTER_OMP_EXPORT void __kmpc_omp_task_begin_if0(ident_t *loc, kmp_int32 gtid, kmp_task_t *task)
{
    (void)loc, (void)gtid;
    if (muster_ompt_on()) {
        muster_ompt_note(MUSTER_OMPT_HERE());
        begin_undeferred(task, true);
    } else {
        begin_undeferred(task, false);
    }
}

MUSTER_OMP_EXPORT void __kmpc_omp_task_complete_if0(ident_t *loc, kmp_int32 gtid, kmp_task_t *task)
{
    (void)loc, (void)gtid;
    end_undeferred(task);
}

/* ---- dependences ---- */

/* LLVM's dependence record; flags: in 1, out 2 (inout 3), mutexinoutset 4,
 * inoutset 8 (newer clang), omp_all_memory 0x80. */
typedef struct kmp_depend_info {
    intptr_t base_addr;
    size_t len;
    uint8_t flags;
} kmp_depend_info_t;

enum { KMP_DEP_IN = 0x1, KMP_DEP_OUT = 0x2, KMP_DEP_MTX = 0x4 };

/* The core's kind of a record: in, mutexinoutset, else a write (inout,
 * and what the core has no kind for, inoutset and omp_all_memory: waiting
 * more is correct). */
static muster_omp_dep_kind core_kind(uint8_t flags)
{
    if (flags == KMP_DEP_IN)
        return MUSTER_OMP_DEP_READ;
    if (flags == KMP_DEP_MTX)
        return MUSTER_OMP_DEP_MUTEX;
    return MUSTER_OMP_DEP_WRITE;
}

/* clang's two lists of records, read in place. */
typedef struct kmp_depend_lists {
    const kmp_depend_info_t *a, *b;
    size_t na;
} kmp_depend_lists;

/* muster_omp_depend's nth for clang's records: list a, then list b. */
static bool kmp_nth_dep(const void *list, size_t i, uintptr_t *addr, muster_omp_dep_kind *kind)
{
    const kmp_depend_lists *l = list;
    const kmp_depend_info_t *d = i < l->na ? &l->a[i] : &l->b[i - l->na];
    *addr = (uintptr_t)d->base_addr;
    *kind = core_kind(d->flags);
    return true;
}

static muster_omp_depend depend_lists(kmp_depend_lists *l, const kmp_depend_info_t *a, kmp_int32 na,
                                      const kmp_depend_info_t *b, kmp_int32 nb)
{
    if (na < 0 || nb < 0)
        muster_omp_fatal("a negative dependence count (%d, %d)", (int)na, (int)nb);
    *l = (kmp_depend_lists){.a = a, .b = b, .na = (size_t)na};
    return (muster_omp_depend){.list = l, .count = (size_t)na + (size_t)nb, .nth = kmp_nth_dep};
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_omp_task_with_deps(ident_t *loc, kmp_int32 gtid, kmp_task_t *task,
                                                      kmp_int32 ndeps, kmp_depend_info_t *deps,
                                                      kmp_int32 ndeps_noalias, kmp_depend_info_t *noalias)
{
    (void)loc, (void)gtid;
    bool told = muster_ompt_on();
    if (told)
        muster_ompt_note(MUSTER_OMPT_HERE());
    if (ndeps + ndeps_noalias == 0) {
        submit(task, NULL, told);
        return 0;
    }
    kmp_depend_lists lists;
    muster_omp_depend depend = depend_lists(&lists, deps, ndeps, noalias, ndeps_noalias);
    submit(task, &depend, told);
    return 0;
}

/* Before an if(0) task with dependences, and for taskwait depend: waits
 * for the calling task's own earlier siblings these name. */
static void wait_deps(kmp_int32 ndeps, kmp_depend_info_t *deps, kmp_int32 ndeps_noalias, kmp_depend_info_t *noalias)
{
    if (ndeps + ndeps_noalias == 0)
        return;
    kmp_depend_lists lists;
    muster_omp_depend depend = depend_lists(&lists, deps, ndeps, noalias, ndeps_noalias);
    muster_omp_taskwait_depend(&depend);
}

MUSTER_OMP_EXPORT void __kmpc_omp_wait_deps(ident_t *loc, kmp_int32 gtid, kmp_int32 ndeps, kmp_depend_info_t *deps,
                                            kmp_int32 ndeps_noalias, kmp_depend_info_t *noalias)
{
    (void)loc, (void)gtid;
    wait_deps(ndeps, deps, ndeps_noalias, noalias);
}

/* taskwait depend (newer clang).  With nowait the construct would be an
 * empty task carrying the dependences; waiting for them is more waiting
 * than needed, never less. */
MUSTER_OMP_EXPORT void __kmpc_omp_taskwait_deps_51(ident_t *loc, kmp_int32 gtid, kmp_int32 ndeps,
                                                   kmp_depend_info_t *deps, kmp_int32 ndeps_noalias,
                                                   kmp_depend_info_t *noalias, kmp_int32 has_no_wait)
{
    (void)loc, (void)gtid, (void)has_no_wait;
    wait_deps(ndeps, deps, ndeps_noalias, noalias);
}

/* ---- waiting ---- */

MUSTER_OMP_EXPORT kmp_int32 __kmpc_omp_taskwait(ident_t *loc, kmp_int32 gtid)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    muster_omp_taskwait();
    return 0;
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_omp_taskyield(ident_t *loc, kmp_int32 gtid, kmp_int32 end_part)
{
    (void)loc, (void)gtid, (void)end_part;
    return 0;
}

/* __kmpc_taskgroup and __kmpc_end_taskgroup are in taskred.c: a group's
 * end folds its task reductions. */

/* ---- taskloop ----
 * The pattern task's block holds the loop's bounds after kmp_task_t:
 * lb, ub (inclusive) and st as 64-bit words, then liter (i32) and the
 * reductions handle.  clang passes pointers to lb and ub in the block,
 * and surrounds the call with its own taskgroup (nogroup 1). */
typedef struct kmp_taskloop_fields {
    kmp_uint64 lb, ub;
    kmp_int64 st;
    kmp_int32 liter;
    void *reductions;
} kmp_taskloop_fields;

static kmp_taskloop_fields *loop_fields(kmp_task_t *task)
{
    return (kmp_taskloop_fields *)(void *)((char *)task + sizeof(kmp_task_t));
}

/* A copy of the pattern: the whole block, shareds pointer moved along. */
static kmp_task_t *copy_task(kmp_task_t *pattern)
{
    task_header *h = header_of(pattern);
    size_t task_part = pattern->shareds ? (size_t)((char *)pattern->shareds - (char *)pattern) : h->size;
    size_t sizeof_shareds = h->size - task_part;
    kmp_task_t *t = alloc_task(h->flags, task_part, sizeof_shareds, pattern->routine);
    memcpy(t, pattern, h->size);
    if (pattern->shareds)
        t->shareds = (char *)t + task_part;
    return t;
}

enum { KMP_TASKLOOP_DEFAULT = 0, KMP_TASKLOOP_GRAINSIZE = 1, KMP_TASKLOOP_NUM_TASKS = 2 };

/* How many tasks the trip count is split into: a grainsize (at least that
 * many iterations each, as OpenMP 5.1 says for the non-strict form), a
 * number of tasks, or by default as many as the team has threads, times
 * ten for balance but never below one iteration each. */
static kmp_uint64 taskloop_pieces(kmp_uint64 trip, int sched, kmp_uint64 value, bool strict)
{
    kmp_uint64 pieces;
    if (sched == KMP_TASKLOOP_GRAINSIZE && strict && value != 0)
        pieces = (trip - 1u) / value + 1u; /* exactly value each, the last one the rest */
    else if (sched == KMP_TASKLOOP_GRAINSIZE)
        pieces = value == 0 ? trip : trip / value;
    else if (sched == KMP_TASKLOOP_NUM_TASKS)
        pieces = value;
    else
        pieces = 10u * (kmp_uint64)omp_get_num_threads();
    if (pieces == 0)
        pieces = 1;
    return pieces < trip ? pieces : trip;
}

static void taskloop(kmp_task_t *pattern, int if_val, kmp_uint64 *lb, kmp_uint64 *ub, kmp_int64 st, int nogroup,
                     int sched, kmp_uint64 grainsize, bool strict, void *task_dup)
{
    void (*dup)(kmp_task_t *, kmp_task_t *, kmp_int32) = (void (*)(kmp_task_t *, kmp_task_t *, kmp_int32))task_dup;
    kmp_uint64 lower = *lb, upper = *ub;
    kmp_uint64 trip = 0;
    if (st > 0 && (kmp_int64)lower <= (kmp_int64)upper)
        trip = (upper - lower) / (kmp_uint64)st + 1u;
    else if (st < 0 && (kmp_int64)lower >= (kmp_int64)upper)
        trip = (lower - upper) / (kmp_uint64)(-st) + 1u;
    bool told = muster_ompt_on();
    muster_ompt_site site = {NULL, NULL}; /* its taskgroup, work region and tasks name its caller */
    if (told)
        site = muster_ompt_take_site();
    if (!nogroup) {
        if (told)
            muster_ompt_note(site.ra, site.frame);
        muster_omp_taskgroup_start();
    }
    if (told && trip > 0)
        muster_ompt_taskloop_begin(site, trip);
    if (trip > 0) {
        bool exact = strict && sched == KMP_TASKLOOP_GRAINSIZE && grainsize != 0;
        kmp_uint64 pieces = taskloop_pieces(trip, sched, grainsize, strict);
        kmp_uint64 each = trip / pieces, extra = trip % pieces, first = 0;
        for (kmp_uint64 p = 0; p < pieces; p++) {
            kmp_uint64 count = exact ? (p + 1 < pieces ? grainsize : trip - first) : each + (p < extra ? 1u : 0u);
            kmp_task_t *t = copy_task(pattern);
            kmp_taskloop_fields *f = loop_fields(t);
            f->lb = lower + first * (kmp_uint64)st;
            f->ub = lower + (first + count - 1u) * (kmp_uint64)st;
            first += count;
            if (dup != NULL)
                dup(t, pattern, p + 1 == pieces);
            else
                f->liter = p + 1 == pieces;
            if (if_val) {
                submit(t, NULL, muster_ompt_on());
            } else { /* if(0): each piece at once, undeferred */
                begin_undeferred(t, muster_ompt_on());
                t->routine(muster_kmp_gtid(), t);
                end_undeferred(t);
            }
        }
    }
    if (told && trip > 0)
        muster_ompt_taskloop_end();
    if (!nogroup) {
        if (told)
            muster_ompt_note(site.ra, site.frame);
        muster_omp_taskgroup_end();
    }
    free_task(pattern); /* the pattern never runs; its copies own their copies of the firstprivates */
}

MUSTER_OMP_EXPORT void __kmpc_taskloop(ident_t *loc, kmp_int32 gtid, kmp_task_t *pattern, int if_val,
                                       kmp_uint64 *lb, kmp_uint64 *ub, kmp_int64 st, int nogroup, int sched,
                                       kmp_uint64 grainsize, void *task_dup)
{
    (void)loc, (void)gtid;
    MUSTER_OMPT_NOTE_CALLER();
    taskloop(pattern, if_val, lb, ub, st, nogroup, sched, grainsize, false, task_dup);
}

/* Newer clang: modifier 1 is the strict modifier of grainsize/num_tasks. */
MUSTER_OMP_EXPORT void __kmpc_taskloop_5(ident_t *loc, kmp_int32 gtid, kmp_task_t *pattern, int if_val,
                                         kmp_uint64 *lb, kmp_uint64 *ub, kmp_int64 st, int nogroup, int sched,
                                         kmp_uint64 grainsize, int modifier, void *task_dup)
{
    (void)loc, (void)gtid;
    MUSTER_OMPT_NOTE_CALLER();
    taskloop(pattern, if_val, lb, ub, st, nogroup, sched, grainsize, modifier != 0, task_dup);
}

/* The older untied-task protocol (Intel's compilers): a part to run. */
MUSTER_OMP_EXPORT kmp_int32 __kmpc_omp_task_parts(ident_t *loc, kmp_int32 gtid, kmp_task_t *task)
{
    (void)loc, (void)gtid;
    submit(task, NULL, muster_ompt_on());
    return 0;
}

/* Task ids, for Intel's tools: the task wing's keys, unique among the
 * tasks that exist now (libomp's are serial numbers; tools that need
 * those will get them through OMPT). */
MUSTER_OMP_EXPORT kmp_uint64 __kmpc_get_taskid(void)
{
    return muster_omp_task_key(0);
}

MUSTER_OMP_EXPORT kmp_uint64 __kmpc_get_parent_taskid(void)
{
    return muster_omp_task_key(1);
}

/* ---- memory: the allocate clause, and depobj storage ---- */

MUSTER_OMP_EXPORT void *__kmpc_alloc(int gtid, size_t size, omp_allocator_handle_t allocator)
{
    (void)gtid;
    return omp_alloc(size, allocator);
}

MUSTER_OMP_EXPORT void __kmpc_free(int gtid, void *ptr, omp_allocator_handle_t allocator)
{
    (void)gtid;
    omp_free(ptr, allocator);
}

MUSTER_OMP_EXPORT void *__kmpc_aligned_alloc(int gtid, size_t alignment, size_t size,
                                             omp_allocator_handle_t allocator)
{
    (void)gtid;
    return omp_aligned_alloc(alignment, size, allocator);
}

MUSTER_OMP_EXPORT void *__kmpc_calloc(int gtid, size_t count, size_t size, omp_allocator_handle_t allocator)
{
    (void)gtid;
    return omp_calloc(count, size, allocator);
}

MUSTER_OMP_EXPORT void *__kmpc_realloc(int gtid, void *ptr, size_t size, omp_allocator_handle_t allocator,
                                       omp_allocator_handle_t free_allocator)
{
    (void)gtid;
    return omp_realloc(ptr, size, allocator, free_allocator);
}

MUSTER_OMP_EXPORT omp_allocator_handle_t __kmpc_init_allocator(int gtid, omp_memspace_handle_t memspace,
                                                               int ntraits, const omp_alloctrait_t traits[])
{
    (void)gtid;
    return omp_init_allocator(memspace, ntraits, traits);
}

MUSTER_OMP_EXPORT void __kmpc_destroy_allocator(int gtid, omp_allocator_handle_t allocator)
{
    (void)gtid;
    omp_destroy_allocator(allocator);
}

MUSTER_OMP_EXPORT void __kmpc_set_default_allocator(int gtid, omp_allocator_handle_t allocator)
{
    (void)gtid;
    omp_set_default_allocator(allocator);
}

MUSTER_OMP_EXPORT omp_allocator_handle_t __kmpc_get_default_allocator(int gtid)
{
    (void)gtid;
    return omp_get_default_allocator();
}
