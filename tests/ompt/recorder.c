/* A recording OMPT tool (built against the compiler's omp-tools.h, as any
 * tool is): it registers the callbacks the runtime offers, keeps every
 * event of every thread in order, and at finalize checks each thread's
 * sequence and prints one summary line:
 *   ompt-recorder: threads=T parallel=P/P implicit=I/I barriers=B/B waits=W/W initial=1 ok
 * The checks (a broken one prints "ompt-recorder: FAIL ..." and the line
 * ends "bad"):
 *   - every begin has its end, on the same thread, properly nested
 *     (implicit task > sync region > sync wait), and a thread's events
 *     lie between its thread_begin and thread_end;
 *   - each parallel region's parallel_begin precedes the implicit tasks
 *     of its members, whose indices are 0..size-1 once each, and its
 *     parallel_end comes after member 0's implicit task ends;
 *   - a sync region's parallel data is the region's (or NULL at an end);
 *   - inside an implicit task, ompt_get_parallel_info(0) answers its
 *     region and team size, and (1) the enclosing one.
 * Loaded with OMP_TOOL_LIBRARIES=.../libompt_recorder.so. */
#include OMP_TOOLS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_THREADS = 64, MAX_REGIONS = 4096, MAX_DEPTH = 8 };

typedef struct region_rec {
    int began, ended, size, members_begun, members_ended;
    unsigned char seen_index[MAX_THREADS];
} region_rec;

static region_rec regions[MAX_REGIONS];
static atomic_int region_count;
static atomic_int threads_begun, threads_ended, implicit_begun, implicit_ended, barriers_begun, barriers_ended;
static atomic_int waits_begun, waits_ended, initial_tasks, failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ompt_get_thread_data_t get_thread_data;
static ompt_get_parallel_info_t get_parallel_info;

/* Each thread's open scopes, innermost last: 'I' implicit task, 'S' sync
 * region, 'W' its wait. */
typedef struct thread_rec {
    char open[MAX_DEPTH];
    int depth, alive;
} thread_rec;

static void fail(const char *what)
{
    if (atomic_fetch_add(&failures, 1) < 10)
        fprintf(stderr, "ompt-recorder: FAIL %s\n", what);
}

static thread_rec *me(void)
{
    ompt_data_t *d = get_thread_data();
    if (d == NULL || d->ptr == NULL) {
        fail("an event on a thread without thread_begin");
        static thread_rec nobody;
        return &nobody;
    }
    return d->ptr;
}

static void open_scope(char kind)
{
    thread_rec *t = me();
    if (t->depth == MAX_DEPTH)
        fail("scopes nested too deep");
    else
        t->open[t->depth++] = kind;
}

static void close_scope(char kind)
{
    thread_rec *t = me();
    if (t->depth == 0 || t->open[t->depth - 1] != kind) {
        char msg[64];
        snprintf(msg, sizeof msg, "an end of '%c' that is not the innermost open scope", kind);
        fail(msg);
        return;
    }
    t->depth--;
}

/* Every thread's record, handed out at its thread_begin (no allocation:
 * pool workers outlive the program's last call, and nothing frees then). */
static thread_rec thread_recs[MAX_THREADS];
static atomic_int thread_recs_used;

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
    (void)type;
    int n = atomic_fetch_add(&thread_recs_used, 1);
    if (n >= MAX_THREADS) {
        fail("more threads than the recorder keeps");
        n = MAX_THREADS - 1;
    }
    thread_rec *t = &thread_recs[n];
    t->alive = 1;
    data->ptr = t;
    atomic_fetch_add(&threads_begun, 1);
}

static void on_thread_end(ompt_data_t *data)
{
    thread_rec *t = data->ptr;
    if (t == NULL || !t->alive)
        fail("thread_end without thread_begin");
    else if (t->depth != 0)
        fail("a thread ended with scopes open");
    atomic_fetch_add(&threads_ended, 1);
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned requested, int flags, const void *codeptr)
{
    (void)task, (void)frame, (void)requested, (void)flags, (void)codeptr;
    int n = atomic_fetch_add(&region_count, 1);
    if (n >= MAX_REGIONS) {
        fail("too many regions for the recorder");
        return;
    }
    regions[n].began = 1;
    parallel->value = (uint64_t)n + 1;
}

static region_rec *region_of(ompt_data_t *parallel)
{
    if (parallel == NULL || parallel->value == 0 || parallel->value > MAX_REGIONS) {
        fail("a parallel data the recorder did not give out");
        return NULL;
    }
    return &regions[parallel->value - 1];
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
    (void)task, (void)flags, (void)codeptr;
    region_rec *r = region_of(parallel);
    if (r == NULL)
        return;
    pthread_mutex_lock(&lock);
    if (r->members_begun != r->size)
        fail("parallel_end before every member's implicit task began");
    r->ended = 1;
    pthread_mutex_unlock(&lock);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned size, unsigned index, int flags)
{
    if (flags & ompt_task_initial) {
        if (endpoint == ompt_scope_begin)
            atomic_fetch_add(&initial_tasks, 1), open_scope('I');
        else
            close_scope('I');
        return;
    }
    if (endpoint == ompt_scope_begin) {
        region_rec *r = region_of(parallel);
        open_scope('I');
        ompt_data_t *here = NULL, *outer = NULL;
        int here_size = 0, outer_size = 0;
        if (get_parallel_info(0, &here, &here_size) != 2 || here != parallel || here_size != (int)size)
            fail("ompt_get_parallel_info(0) in an implicit task does not answer its region");
        if (get_parallel_info(1, &outer, &outer_size) != 2 || outer == NULL || outer_size < 1)
            fail("ompt_get_parallel_info(1) in an implicit task does not answer the enclosing region");
        atomic_fetch_add(&implicit_begun, 1);
        if (r == NULL)
            return;
        pthread_mutex_lock(&lock);
        if (r->size == 0)
            r->size = (int)size;
        if ((int)size != r->size || index >= size || index >= MAX_THREADS || r->seen_index[index]++)
            fail("an implicit task's index or team size is wrong");
        r->members_begun++;
        pthread_mutex_unlock(&lock);
        task->ptr = r;
    } else {
        close_scope('I');
        atomic_fetch_add(&implicit_ended, 1);
        region_rec *r = task->ptr;
        if (r != NULL) {
            pthread_mutex_lock(&lock);
            r->members_ended++;
            pthread_mutex_unlock(&lock);
        }
    }
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                           ompt_data_t *task, const void *codeptr)
{
    (void)kind, (void)task, (void)codeptr;
    if (endpoint == ompt_scope_begin) {
        if (parallel != NULL && parallel->value != 0)
            (void)region_of(parallel);
        open_scope('S');
        atomic_fetch_add(&barriers_begun, 1);
    } else {
        close_scope('S');
        atomic_fetch_add(&barriers_ended, 1);
    }
}

static void on_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                         ompt_data_t *task, const void *codeptr)
{
    (void)kind, (void)parallel, (void)task, (void)codeptr;
    if (endpoint == ompt_scope_begin) {
        open_scope('W');
        atomic_fetch_add(&waits_begun, 1);
    } else {
        close_scope('W');
        atomic_fetch_add(&waits_ended, 1);
    }
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool_data)
{
    (void)device, (void)tool_data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
    get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    if (set == NULL || get_thread_data == NULL || get_parallel_info == NULL) {
        fprintf(stderr, "ompt-recorder: FAIL the runtime lacks ompt_set_callback, _get_thread_data or "
                        "_get_parallel_info\n");
        return 0;
    }
    int ok = set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin) == ompt_set_always &&
             set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end) == ompt_set_always &&
             set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin) == ompt_set_always &&
             set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end) == ompt_set_always &&
             set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task) == ompt_set_always &&
             set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region) == ompt_set_always &&
             set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_wait) == ompt_set_always;
    if (!ok)
        fail("a callback the runtime should deliver always is not");
    return 1;
}

static void finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    int n = atomic_load(&region_count), ended = 0;
    for (int i = 0; i < n && i < MAX_REGIONS; i++) {
        ended += regions[i].ended;
        if (!regions[i].ended)
            fail("a parallel region without parallel_end");
        else if (regions[i].members_ended != regions[i].size)
            fail("a region whose members' implicit tasks did not all end");
    }
    if (atomic_load(&initial_tasks) != 1)
        fail("not one initial task");
    printf("ompt-recorder: threads=%d parallel=%d/%d implicit=%d/%d barriers=%d/%d waits=%d/%d initial=%d %s\n",
           atomic_load(&threads_begun), n, ended, atomic_load(&implicit_begun), atomic_load(&implicit_ended),
           atomic_load(&barriers_begun), atomic_load(&barriers_ended), atomic_load(&waits_begun),
           atomic_load(&waits_ended), atomic_load(&initial_tasks), atomic_load(&failures) ? "bad" : "ok");
    fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version, const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}
