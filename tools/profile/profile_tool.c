/* libmuster-profile.so: the OMPT tool behind `muster profile` (profile.c).
 * It speaks only OMPT, so it sees any runtime that implements it: muster
 * and LLVM's libomp (libgomp has no OMPT).
 *
 * Where do the threads wait?  Each thread keeps, in a table of its own
 * (no lock, no shared line on an event's path), time and counts keyed by
 * (parallel region, construct, caller, thread index):
 *   - its time in the region's team (implicit task begin to end);
 *   - its waits (sync_region_wait) in barriers, taskwait and taskgroup,
 *     less the time it ran tasks inside them, which is work;
 *   - its waits for the program's mutexes (mutex_acquire to acquired);
 *   - tasks made, run, and run by a thread other than their maker (stolen).
 * The encountering thread times each region (parallel_begin to end).
 * At finalize the tables are merged and written, as lines of text, to the
 * file $MUSTER_PROFILE_OUTPUT names (else muster-profile.PID.txt), for the
 * command to name by source line and print.  The format is profile.h's.
 *
 * Its own cost is measured, not guessed: at finalize it times its event
 * path on a table of its own and reports that per event, with the count. */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "omp/ompt_abi.h"
#include "profile_format.h"

#define TOOL_EXPORT __attribute__((visibility("default")))

/* OMPT event numbers this tool registers beyond those ompt_abi.h names. */
enum { EVENT_MUTEX_ACQUIRE = MUSTER_OMPT_MUTEX_ACQUIRE };

/* ---- the clock ---- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- parallel regions, by caller: shared, created under `sites_lock` ---- */

typedef struct region_site {
    const void *ra;
    unsigned id;                 /* 1.. in order of first run; 0 is "outside any region" */
    _Atomic uint64_t runs, time_ns;
    _Atomic unsigned max_team;
    struct region_site *next;
} region_site;

static region_site outside = {.id = 0};
static region_site *sites = &outside;
static unsigned site_count = 1;
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;

static region_site *site_of(const void *ra)
{
    pthread_mutex_lock(&sites_lock);
    region_site *s = sites;
    while (s != NULL && !(s != &outside && s->ra == ra))
        s = s->next;
    if (s == NULL && (s = calloc(1, sizeof *s)) != NULL) {
        s->ra = ra;
        s->id = site_count++;
        s->next = sites;
        sites = s;
    }
    pthread_mutex_unlock(&sites_lock);
    return s != NULL ? s : &outside;
}

/* ---- each thread's table of (region, construct, caller, index) ---- */

typedef struct cell {
    const region_site *region; /* NULL: an empty slot */
    const void *ra;
    unsigned kind, index;
    uint64_t count, ns;
} cell;

typedef struct scope {
    const region_site *region;
    unsigned index;
    uint64_t begin_ns;
} scope;

typedef struct wait_scope {
    unsigned kind;
    const void *ra;
    uint64_t begin_ns, tasks_ns; /* tasks_ns: task bodies run inside, not waiting */
} wait_scope;

enum { MAX_NESTING = 64 };

typedef struct thread_state {
    struct thread_state *next; /* every thread's, for finalize */
    unsigned number;           /* the tool's, from 1 */
    cell *cells;
    size_t capacity, used;
    scope regions[MAX_NESTING]; /* the implicit tasks it runs, innermost last */
    int depth;
    scope encountered[MAX_NESTING]; /* the regions it began (parallel_begin), innermost last */
    int encountered_depth;
    wait_scope waits[MAX_NESTING];
    int wait_depth;
    uint64_t task_begin[MAX_NESTING]; /* the explicit tasks it runs, innermost last */
    int task_depth;
    unsigned acquiring_kind;
    const void *acquiring_ra;
    uint64_t acquire_ns;
    uint64_t events;
} thread_state;

static thread_state *threads;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned thread_numbers;
static __thread thread_state *me;
static const char *runtime_version = "";

static size_t hash_key(const region_site *region, unsigned kind, const void *ra, unsigned index)
{
    uint64_t h = (uint64_t)(uintptr_t)region * 0x9e3779b97f4a7c15u;
    h ^= ((uint64_t)(uintptr_t)ra + kind * 0x100000001b3u + index) * 0xff51afd7ed558ccdu;
    return (size_t)(h ^ (h >> 29));
}

static cell *find_slot(cell *cells, size_t capacity, const region_site *region, unsigned kind, const void *ra,
                       unsigned index)
{
    size_t i = hash_key(region, kind, ra, index) & (capacity - 1);
    while (cells[i].region != NULL && !(cells[i].region == region && cells[i].kind == kind && cells[i].ra == ra &&
                                        cells[i].index == index))
        i = (i + 1) & (capacity - 1);
    return &cells[i];
}

static bool grow(thread_state *t)
{
    size_t capacity = t->capacity ? t->capacity * 2 : 256;
    cell *cells = calloc(capacity, sizeof *cells);
    if (cells == NULL)
        return false;
    for (size_t i = 0; i < t->capacity; i++)
        if (t->cells[i].region != NULL)
            *find_slot(cells, capacity, t->cells[i].region, t->cells[i].kind, t->cells[i].ra, t->cells[i].index) =
                t->cells[i];
    free(t->cells);
    t->cells = cells;
    t->capacity = capacity;
    return true;
}

/* Adds one occurrence taking `ns` to the cell of (region, kind, ra, index). */
static void add(thread_state *t, const region_site *region, unsigned kind, const void *ra, unsigned index,
                uint64_t count, uint64_t ns)
{
    if (t->used * 2 >= t->capacity && !grow(t))
        return; /* out of memory: the event is lost, the program goes on */
    cell *c = find_slot(t->cells, t->capacity, region, kind, ra, index);
    if (c->region == NULL) {
        *c = (cell){.region = region, .ra = ra, .kind = kind, .index = index};
        t->used++;
    }
    c->count += count;
    c->ns += ns;
}

static thread_state *new_thread_state(void)
{
    thread_state *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->number = atomic_fetch_add(&thread_numbers, 1) + 1;
    pthread_mutex_lock(&threads_lock);
    t->next = threads;
    threads = t;
    pthread_mutex_unlock(&threads_lock);
    return t;
}

/* The calling thread's state: made at thread_begin, or at its first event
 * on a runtime that skipped thread_begin.  NULL only when out of memory. */
static thread_state *self(void)
{
    if (me == NULL)
        me = new_thread_state();
    if (me != NULL)
        me->events++;
    return me;
}

/* Where the thread is: its innermost region and its index there. */
static const scope *current_scope(const thread_state *t)
{
    static const scope none = {&outside, 0, 0};
    return t->depth > 0 ? &t->regions[t->depth - 1] : &none;
}

/* ---- the callbacks ---- */

static void on_thread_begin(int type, muster_ompt_data *data)
{
    (void)type;
    thread_state *t = self();
    data->ptr = t;
}

static void on_parallel_begin(muster_ompt_data *task, const muster_ompt_frame *frame, muster_ompt_data *parallel,
                              unsigned requested, int flags, const void *ra)
{
    (void)task, (void)frame, (void)requested, (void)flags;
    thread_state *t = self();
    region_site *site = site_of(ra);
    parallel->ptr = site;
    if (t != NULL && t->encountered_depth < MAX_NESTING)
        t->encountered[t->encountered_depth] = (scope){site, 0, now_ns()};
    if (t != NULL)
        t->encountered_depth++;
}

static void on_parallel_end(muster_ompt_data *parallel, muster_ompt_data *task, int flags, const void *ra)
{
    (void)parallel, (void)task, (void)flags, (void)ra;
    thread_state *t = self();
    if (t == NULL || t->encountered_depth == 0)
        return;
    if (--t->encountered_depth >= MAX_NESTING)
        return;
    scope *s = &t->encountered[t->encountered_depth];
    region_site *site = (region_site *)s->region;
    /* relaxed: counters summed at finalize, after every region ended. */
    atomic_fetch_add_explicit(&site->runs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&site->time_ns, now_ns() - s->begin_ns, memory_order_relaxed);
}

static void on_implicit_task(int endpoint, muster_ompt_data *parallel, muster_ompt_data *task, unsigned size,
                             unsigned index, int flags)
{
    (void)task;
    thread_state *t = self();
    if (t == NULL || (flags & MUSTER_OMPT_TASK_INITIAL))
        return; /* the initial task: "outside any region" */
    if (endpoint == MUSTER_OMPT_SCOPE_BEGIN) {
        region_site *site = parallel != NULL && parallel->ptr != NULL ? parallel->ptr : &outside;
        /* relaxed, the load and the exchange: a maximum, read at finalize
         * after every region ended; nothing else is published with it. */
        unsigned seen = atomic_load_explicit(&site->max_team, memory_order_relaxed);
        while (size > seen &&
               !atomic_compare_exchange_weak_explicit(&site->max_team, &seen, size, memory_order_relaxed,
                                                      memory_order_relaxed))
            ;
        if (t->depth < MAX_NESTING)
            t->regions[t->depth] = (scope){site, index, now_ns()};
        t->depth++;
        return;
    }
    if (t->depth == 0)
        return;
    if (--t->depth >= MAX_NESTING)
        return;
    scope *s = &t->regions[t->depth];
    add(t, s->region, PROFILE_IN_TEAM, NULL, s->index, 1, now_ns() - s->begin_ns);
}

static unsigned wait_kind(int sync_kind)
{
    switch (sync_kind) {
    case MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL:
    case 2: /* ompt_sync_region_barrier_implicit (OpenMP 5.0): libomp's at a region's end */
        return PROFILE_BARRIER_END;
    case MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE:
        return PROFILE_BARRIER_WORKSHARE;
    case MUSTER_OMPT_SYNC_TASKWAIT:
        return PROFILE_TASKWAIT;
    case MUSTER_OMPT_SYNC_TASKGROUP:
        return PROFILE_TASKGROUP;
    case MUSTER_OMPT_SYNC_REDUCTION:
        return PROFILE_REDUCTION;
    default: /* explicit, and the others OMPT numbers (implicit 2, barrier 1, implementation 4) */
        return PROFILE_BARRIER;
    }
}

static void on_sync_wait(int kind, int endpoint, muster_ompt_data *parallel, muster_ompt_data *task,
                         const void *ra)
{
    (void)parallel, (void)task;
    thread_state *t = self();
    if (t == NULL)
        return;
    if (endpoint == MUSTER_OMPT_SCOPE_BEGIN) {
        if (t->wait_depth < MAX_NESTING)
            t->waits[t->wait_depth] = (wait_scope){wait_kind(kind), ra, now_ns(), 0};
        t->wait_depth++;
        return;
    }
    if (t->wait_depth == 0 || --t->wait_depth >= MAX_NESTING)
        return;
    wait_scope *w = &t->waits[t->wait_depth];
    uint64_t span = now_ns() - w->begin_ns;
    uint64_t waited = span > w->tasks_ns ? span - w->tasks_ns : 0;
    const scope *s = current_scope(t);
    add(t, s->region, w->kind, w->ra, s->index, 1, waited);
}

/* Explicit tasks: their data is their maker's thread number. */
static void on_task_create(muster_ompt_data *encountering, const muster_ompt_frame *frame, muster_ompt_data *task,
                           int flags, int has_dependences, const void *ra)
{
    (void)encountering, (void)frame, (void)has_dependences, (void)ra;
    thread_state *t = self();
    if (t == NULL || !(flags & MUSTER_OMPT_TASK_EXPLICIT))
        return;
    task->value = t->number;
    const scope *s = current_scope(t);
    add(t, s->region, PROFILE_TASKS_MADE, NULL, s->index, 1, 0);
}

static void on_task_schedule(muster_ompt_data *prior, int status, muster_ompt_data *next)
{
    thread_state *t = self();
    if (t == NULL)
        return;
    uint64_t now = now_ns();
    bool prior_ended = status == MUSTER_OMPT_TASK_COMPLETE || status == MUSTER_OMPT_TASK_CANCEL ||
                       status == MUSTER_OMPT_TASK_DETACH;
    if (prior_ended && prior != NULL && prior->value != 0 && t->task_depth > 0) {
        uint64_t begin = --t->task_depth < MAX_NESTING ? t->task_begin[t->task_depth] : now;
        /* A task run inside a wait is work, not waiting: only the
         * innermost wait is credited, and only for the outermost task
         * run inside it (a nested one is inside that task's time). */
        if (t->wait_depth > 0 && t->wait_depth <= MAX_NESTING) {
            wait_scope *w = &t->waits[t->wait_depth - 1];
            if (begin >= w->begin_ns && (t->task_depth == 0 || t->task_begin[t->task_depth - 1] < w->begin_ns))
                w->tasks_ns += now - begin;
        }
    }
    if (status == MUSTER_OMPT_TASK_SWITCH && next != NULL && next->value != 0) {
        if (t->task_depth < MAX_NESTING)
            t->task_begin[t->task_depth] = now;
        t->task_depth++;
        const scope *s = current_scope(t);
        add(t, s->region, PROFILE_TASKS_RUN, NULL, s->index, 1, 0);
        if (next->value != t->number)
            add(t, s->region, PROFILE_TASKS_STOLEN, NULL, s->index, 1, 0);
    }
}

static unsigned mutex_kind(int kind)
{
    switch (kind) {
    case MUSTER_OMPT_MUTEX_CRITICAL:
        return PROFILE_CRITICAL;
    case MUSTER_OMPT_MUTEX_ATOMIC:
        return PROFILE_ATOMIC;
    case MUSTER_OMPT_MUTEX_ORDERED:
        return PROFILE_ORDERED;
    default:
        return PROFILE_LOCK;
    }
}

static void on_mutex_acquire(int kind, unsigned hint, unsigned impl, uint64_t wait_id, const void *ra)
{
    (void)hint, (void)impl, (void)wait_id;
    thread_state *t = self();
    if (t == NULL)
        return;
    t->acquiring_kind = mutex_kind(kind);
    t->acquiring_ra = ra;
    t->acquire_ns = now_ns();
}

static void on_mutex_acquired(int kind, uint64_t wait_id, const void *ra)
{
    (void)kind, (void)wait_id, (void)ra;
    thread_state *t = self();
    if (t == NULL || t->acquire_ns == 0)
        return;
    const scope *s = current_scope(t);
    add(t, s->region, t->acquiring_kind, t->acquiring_ra, s->index, 1, now_ns() - t->acquire_ns);
    t->acquire_ns = 0;
}

/* ---- finalize: merge, name the callers' objects, write ---- */

/* `ra` as an object and the address addr2line wants in it: the offset
 * from its load address for a shared object or a position-independent
 * program, the address itself for a fixed-address one. */
static void write_where(FILE *out, const void *ra)
{
    Dl_info info;
    if (ra == NULL || dladdr(ra, &info) == 0 || info.dli_fname == NULL || info.dli_fbase == NULL) {
        fprintf(out, "where %p - ?\n", ra);
        return;
    }
    const ElfW(Ehdr) *header = info.dli_fbase;
    uintptr_t address = (uintptr_t)ra;
    if (header->e_type == ET_DYN)
        address -= (uintptr_t)info.dli_fbase;
    const char *name = info.dli_fname;
    char exe[4096];
    if (name[0] == '\0' || strchr(name, '/') == NULL) { /* the program itself, named as run */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = '\0';
            name = exe;
        }
    }
    fprintf(out, "where %p %#lx %s\n", ra, (unsigned long)address, name);
}

/* What one event costs the tool, timed on a table of its own: a clock
 * read and a table update, as on_sync_wait's end does. */
static double event_cost_ns(void)
{
    thread_state scratch = {0};
    region_site region = {.id = 1};
    enum { ROUNDS = 200000 };
    uint64_t begin = now_ns();
    for (unsigned i = 0; i < ROUNDS; i++)
        add(&scratch, &region, PROFILE_BARRIER, (const void *)(uintptr_t)(i & 63), i & 7, 1, now_ns() - begin);
    double cost = (double)(now_ns() - begin) / ROUNDS;
    free(scratch.cells);
    return cost;
}

static FILE *open_output(char *path, size_t len)
{
    const char *named = getenv(PROFILE_OUTPUT_ENV);
    if (named != NULL && named[0] != '\0')
        snprintf(path, len, "%s", named);
    else
        snprintf(path, len, "muster-profile.%ld.txt", (long)getpid());
    FILE *out = fopen(path, "w");
    if (out == NULL)
        fprintf(stderr, "muster-profile: cannot write %s: the profile is lost\n", path);
    else if (named == NULL || named[0] == '\0')
        fprintf(stderr, "muster-profile: profile written to %s ('muster profile -- PROGRAM' prints it)\n", path);
    return out;
}

static void write_regions(FILE *out)
{
    for (const region_site *s = sites; s != NULL; s = s->next) {
        if (s == &outside)
            continue;
        /* relaxed: every region has ended; the runtime's joins ordered them. */
        fprintf(out, "region %u %p %llu %llu %u\n", s->id, s->ra,
                (unsigned long long)atomic_load_explicit(&s->runs, memory_order_relaxed),
                (unsigned long long)atomic_load_explicit(&s->time_ns, memory_order_relaxed),
                atomic_load_explicit(&s->max_team, memory_order_relaxed));
        write_where(out, s->ra);
    }
}

static void write_cells(FILE *out)
{
    const void *named[4096];
    size_t nnamed = 0;
    for (const thread_state *t = threads; t != NULL; t = t->next)
        for (size_t i = 0; i < t->capacity; i++) {
            const cell *c = &t->cells[i];
            if (c->region == NULL)
                continue;
            fprintf(out, "cell %u %s %p %u %llu %llu\n", c->region->id, profile_kind_name(c->kind), c->ra, c->index,
                    (unsigned long long)c->count, (unsigned long long)c->ns);
            bool seen = c->ra == NULL;
            for (size_t k = 0; k < nnamed && !seen; k++)
                seen = named[k] == c->ra;
            if (!seen && nnamed < sizeof named / sizeof named[0]) {
                named[nnamed++] = c->ra;
                write_where(out, c->ra);
            }
        }
}

static void finalize(muster_ompt_data *tool_data)
{
    (void)tool_data;
    char path[4096];
    FILE *out = open_output(path, sizeof path);
    if (out == NULL)
        return;
    uint64_t events = 0;
    for (const thread_state *t = threads; t != NULL; t = t->next)
        events += t->events;
    fprintf(out, "%s\nruntime %s\nthreads %u\nevents %llu\nevent_ns %.1f\n", PROFILE_FORMAT_LINE, runtime_version,
            atomic_load(&thread_numbers), (unsigned long long)events, event_cost_ns());
    write_regions(out);
    write_cells(out);
    fputs("end\n", out);
    if (fclose(out) != 0)
        fprintf(stderr, "muster-profile: writing %s failed: the profile is incomplete\n", path);
}

static int initialize(muster_ompt_lookup_fn lookup, int device, muster_ompt_data *tool_data)
{
    (void)device, (void)tool_data;
    muster_ompt_set_callback_fn set = (muster_ompt_set_callback_fn)lookup("ompt_set_callback");
    if (set == NULL) {
        fprintf(stderr, "muster-profile: the runtime offers no ompt_set_callback: no profile\n");
        return 0;
    }
    static const struct {
        int event;
        muster_ompt_callback fn;
    } callbacks[] = {
        {MUSTER_OMPT_THREAD_BEGIN, (muster_ompt_callback)on_thread_begin},
        {MUSTER_OMPT_PARALLEL_BEGIN, (muster_ompt_callback)on_parallel_begin},
        {MUSTER_OMPT_PARALLEL_END, (muster_ompt_callback)on_parallel_end},
        {MUSTER_OMPT_IMPLICIT_TASK, (muster_ompt_callback)on_implicit_task},
        {MUSTER_OMPT_SYNC_REGION_WAIT, (muster_ompt_callback)on_sync_wait},
        {MUSTER_OMPT_TASK_CREATE, (muster_ompt_callback)on_task_create},
        {MUSTER_OMPT_TASK_SCHEDULE, (muster_ompt_callback)on_task_schedule},
        {EVENT_MUTEX_ACQUIRE, (muster_ompt_callback)on_mutex_acquire},
        {MUSTER_OMPT_MUTEX_ACQUIRED, (muster_ompt_callback)on_mutex_acquired},
    };
    for (size_t i = 0; i < sizeof callbacks / sizeof callbacks[0]; i++)
        if (set(callbacks[i].event, callbacks[i].fn) == MUSTER_OMPT_SET_ERROR)
            fprintf(stderr, "muster-profile: the runtime refused callback %d: that part of the profile is empty\n",
                    callbacks[i].event);
    return 1;
}

TOOL_EXPORT muster_ompt_start_tool_result *ompt_start_tool(unsigned omp_version, const char *version)
{
    (void)omp_version;
    static muster_ompt_start_tool_result result = {initialize, finalize, {0}};
    static char kept[256];
    snprintf(kept, sizeof kept, "%s", version != NULL ? version : "");
    for (char *c = kept; *c; c++)
        if (*c == '\n')
            *c = ' ';
    runtime_version = kept;
    return &result;
}
