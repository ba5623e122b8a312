/* OMPT's tool side of the runtime (ompt.h): finding the tool
 * (ompt_start_tool in the program or a loaded library, else each library
 * of OMP_TOOL_LIBRARIES; OMP_TOOL=disabled turns it off;
 * OMP_TOOL_VERBOSE_INIT says what happened), initializing and finalizing
 * it, and the entry points it looks up by name.  Core layer: the
 * inquiries read teams and places. */
#include <dlfcn.h>
#include <omp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "omp/internal.h"
#include "omp/ompt.h"

/* The OpenMP version this runtime reports to ompt_start_tool (5.1). */
#define OMPT_OPENMP_VERSION 202011

typedef muster_ompt_start_tool_result start_tool_result;
typedef start_tool_result *(*start_tool_fn)(unsigned omp_version, const char *runtime_version);

static start_tool_result *tool;

/* ---- OMP_TOOL_VERBOSE_INIT ---- */

static FILE *verbose;

static void open_verbose(void)
{
    const char *where = getenv("OMP_TOOL_VERBOSE_INIT");
    if (where == NULL || where[0] == '\0' || strcasecmp(where, "disabled") == 0)
        return;
    if (strcasecmp(where, "stdout") == 0)
        verbose = stdout;
    else if (strcasecmp(where, "stderr") == 0)
        verbose = stderr;
    else if ((verbose = fopen(where, "w")) == NULL)
        muster_omp_warn_env("OMP_TOOL_VERBOSE_INIT", where, "cannot be opened for writing", "stderr");
    if (verbose == NULL)
        verbose = stderr;
}

static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *format, ...)
{
    if (verbose == NULL)
        return;
    va_list ap;
    va_start(ap, format);
    fputs("libmuster-omp: OMPT: ", verbose);
    vfprintf(verbose, format, ap);
    fputc('\n', verbose);
    va_end(ap);
    fflush(verbose);
}

/* ---- the entry points a tool looks up ---- */

static int set_callback(int event, muster_ompt_callback callback)
{
    switch (event) {
    case MUSTER_OMPT_THREAD_BEGIN:
    case MUSTER_OMPT_THREAD_END:
    case MUSTER_OMPT_PARALLEL_BEGIN:
    case MUSTER_OMPT_PARALLEL_END:
    case MUSTER_OMPT_IMPLICIT_TASK:
    case MUSTER_OMPT_SYNC_REGION:
    case MUSTER_OMPT_SYNC_REGION_WAIT:
    case MUSTER_OMPT_TASK_CREATE:
    case MUSTER_OMPT_TASK_SCHEDULE:
    case MUSTER_OMPT_DEPENDENCES:
    case MUSTER_OMPT_MUTEX_ACQUIRE:
    case MUSTER_OMPT_MUTEX_ACQUIRED:
    case MUSTER_OMPT_MUTEX_RELEASED:
    case MUSTER_OMPT_LOCK_INIT:
    case MUSTER_OMPT_LOCK_DESTROY:
    case MUSTER_OMPT_NEST_LOCK:
    case MUSTER_OMPT_REDUCTION:
    case MUSTER_OMPT_WORK:
    case MUSTER_OMPT_MASKED:
        muster_ompt_callbacks[event] = callback;
        return MUSTER_OMPT_SET_ALWAYS;
    default:
        return event > 0 && event < MUSTER_OMPT_EVENTS ? MUSTER_OMPT_SET_NEVER : MUSTER_OMPT_SET_ERROR;
    }
}

static int get_callback(int event, muster_ompt_callback *callback)
{
    if (event <= 0 || event >= MUSTER_OMPT_EVENTS || muster_ompt_callbacks[event] == NULL)
        return 0;
    *callback = muster_ompt_callbacks[event];
    return 1;
}

static muster_ompt_data *get_thread_data(void)
{
    return muster_ompt_thread_data();
}

/* The region of a thread outside any: the initial task's implicit
 * parallel region, a team of one. */
static muster_ompt_data initial_parallel;

/* The tool's data of the region ancestor_level levels out from the
 * calling thread's innermost (0: that one; one past the outermost team:
 * the initial region), and its size; NULL past that. */
static muster_ompt_data *parallel_at(int ancestor_level, int *team_size)
{
    muster_omp_team *team = muster_omp_self()->team;
    for (int level = 0; level < ancestor_level; level++) {
        if (team == NULL)
            return NULL;
        team = team->parent;
    }
    *team_size = team != NULL ? (int)team->size : 1;
    return team != NULL ? &team->ompt_parallel : &initial_parallel;
}

static int get_parallel_info(int ancestor_level, muster_ompt_data **parallel_data, int *team_size)
{
    int size;
    muster_ompt_data *data = ancestor_level >= 0 ? parallel_at(ancestor_level, &size) : NULL;
    if (data == NULL)
        return 0;
    if (parallel_data != NULL)
        *parallel_data = data;
    if (team_size != NULL)
        *team_size = size;
    return 2;
}

/* The task `ancestor_level` levels out from the one the calling thread
 * runs, as far as its implicit (or initial) task: explicit tasks it
 * suspended, then the implicit task; tasks of outer regions are not
 * reported (0: no such task). */
static int get_task_info(int ancestor_level, int *flags, muster_ompt_data **task_data,
                         muster_ompt_frame **task_frame, muster_ompt_data **parallel_data, int *thread_num)
{
    muster_ompt_task *task = muster_ompt_running;
    for (; ancestor_level > 0; ancestor_level--) {
        if (task == NULL)
            return 0;
        task = task->outer;
    }
    muster_omp_thread *self = muster_omp_self();
    if (flags != NULL)
        *flags = task != NULL ? task->flags : self->team != NULL ? MUSTER_OMPT_TASK_IMPLICIT : MUSTER_OMPT_TASK_INITIAL;
    if (task_data != NULL)
        *task_data = task != NULL ? &task->data : muster_omp_implicit_task_data(self);
    if (task_frame != NULL)
        *task_frame = task != NULL ? &task->frame : &muster_ompt_implicit_frame;
    int size;
    if (parallel_data != NULL)
        *parallel_data = parallel_at(0, &size);
    if (thread_num != NULL)
        *thread_num = (int)self->id;
    return 2;
}

static int get_task_memory(void **addr, size_t *size, int block)
{
    (void)addr, (void)size, (void)block;
    return 0;
}

static uint64_t get_unique_id(void)
{
    static _Atomic uint64_t next = 1;
    /* relaxed: a counter; each caller only needs its own value unique. */
    return atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
}

/* ompt_state_t: the states reported (ompt.h says when each is set). */
static const struct {
    int state;
    const char *name;
} states[] = {
    {MUSTER_OMPT_STATE_WORK_SERIAL, "ompt_state_work_serial"},
    {MUSTER_OMPT_STATE_WORK_PARALLEL, "ompt_state_work_parallel"},
    {MUSTER_OMPT_STATE_WAIT_BARRIER_IMPLICIT_PARALLEL, "ompt_state_wait_barrier_implicit_parallel"},
    {MUSTER_OMPT_STATE_WAIT_BARRIER_IMPLICIT_WORKSHARE, "ompt_state_wait_barrier_implicit_workshare"},
    {MUSTER_OMPT_STATE_WAIT_BARRIER_EXPLICIT, "ompt_state_wait_barrier_explicit"},
    {MUSTER_OMPT_STATE_WAIT_TASKWAIT, "ompt_state_wait_taskwait"},
    {MUSTER_OMPT_STATE_WAIT_TASKGROUP, "ompt_state_wait_taskgroup"},
    {MUSTER_OMPT_STATE_WAIT_LOCK, "ompt_state_wait_lock"},
    {MUSTER_OMPT_STATE_WAIT_CRITICAL, "ompt_state_wait_critical"},
    {MUSTER_OMPT_STATE_WAIT_ATOMIC, "ompt_state_wait_atomic"},
    {MUSTER_OMPT_STATE_WAIT_ORDERED, "ompt_state_wait_ordered"},
    {MUSTER_OMPT_STATE_IDLE, "ompt_state_idle"},
    {MUSTER_OMPT_STATE_UNDEFINED, "ompt_state_undefined"},
};

static int get_state(uint64_t *wait_id)
{
    if (wait_id != NULL)
        *wait_id = muster_ompt_wait_id;
    return muster_ompt_state;
}

/* Starting from ompt_state_undefined (0x102), each state in turn; 0 after
 * the last. */
static int enumerate_states(int current, int *next, const char **name)
{
    size_t n = sizeof states / sizeof states[0];
    size_t i = 0;
    if (current != 0x102)
        for (i = 0; i < n && states[i].state != current; i++) {
        }
    else
        i = (size_t)-1;
    if (i + 1 >= n || states[i + 1].state == 0x102)
        return 0;
    *next = states[i + 1].state;
    *name = states[i + 1].name;
    return 1;
}

/* ompt_mutex_impl: one kind, the runtime mutex (mutex.h). */
static int enumerate_mutex_impls(int current, int *next, const char **name)
{
    if (current != 0)
        return 0;
    *next = 1;
    *name = "futex mutex (queued while the threads fit the CPUs)";
    return 1;
}

static int get_num_procs(void)
{
    return omp_get_num_procs();
}

static int get_num_places(void)
{
    return omp_get_num_places();
}

static int get_place_proc_ids(int place, int ids_size, int *ids)
{
    int n = omp_get_place_num_procs(place);
    if (n <= 0 || ids == NULL || ids_size < n)
        return n;
    omp_get_place_proc_ids(place, ids);
    return n;
}

static int get_place_num(void)
{
    return omp_get_place_num();
}

static int get_partition_place_nums(int size, int *nums)
{
    int n = omp_get_partition_num_places();
    if (nums != NULL && size >= n)
        omp_get_partition_place_nums(nums);
    return n;
}

static int get_proc_id(void)
{
    return sched_getcpu();
}

static void finalize_tool(void);

static void *lookup(const char *name)
{
    static const struct {
        const char *name;
        void *fn;
    } entries[] = {
        {"ompt_set_callback", (void *)set_callback},
        {"ompt_get_callback", (void *)get_callback},
        {"ompt_get_thread_data", (void *)get_thread_data},
        {"ompt_get_parallel_info", (void *)get_parallel_info},
        {"ompt_get_task_info", (void *)get_task_info},
        {"ompt_get_task_memory", (void *)get_task_memory},
        {"ompt_get_unique_id", (void *)get_unique_id},
        {"ompt_get_state", (void *)get_state},
        {"ompt_enumerate_states", (void *)enumerate_states},
        {"ompt_enumerate_mutex_impls", (void *)enumerate_mutex_impls},
        {"ompt_get_num_procs", (void *)get_num_procs},
        {"ompt_get_num_places", (void *)get_num_places},
        {"ompt_get_place_proc_ids", (void *)get_place_proc_ids},
        {"ompt_get_place_num", (void *)get_place_num},
        {"ompt_get_partition_place_nums", (void *)get_partition_place_nums},
        {"ompt_get_proc_id", (void *)get_proc_id},
        {"ompt_finalize_tool", (void *)finalize_tool},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (strcmp(name, entries[i].name) == 0)
            return entries[i].fn;
    return NULL;
}

/* ---- discovery, initialize, finalize ---- */

static start_tool_result *start(start_tool_fn fn, const char *where)
{
    start_tool_result *r = fn(OMPT_OPENMP_VERSION, "libmuster-omp");
    say("ompt_start_tool in %s returned %s", where, r != NULL ? "a tool" : "NULL (no tool)");
    return r;
}

/* ompt_start_tool of the first library of OMP_TOOL_LIBRARIES (a colon-
 * separated list) that has one and returns a tool. */
static start_tool_result *start_from_libraries(void)
{
    const char *list = getenv("OMP_TOOL_LIBRARIES");
    if (list == NULL || list[0] == '\0') {
        say("OMP_TOOL_LIBRARIES is unset: no tool");
        return NULL;
    }
    for (const char *p = list; *p != '\0';) {
        size_t n = strcspn(p, ":");
        char path[4096];
        snprintf(path, sizeof path, "%.*s", (int)n, p);
        p += n + (p[n] == ':');
        if (path[0] == '\0')
            continue;
        void *handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
        if (handle == NULL) {
            say("cannot load %s: %s", path, dlerror());
            continue;
        }
        start_tool_fn fn = (start_tool_fn)dlsym(handle, "ompt_start_tool");
        start_tool_result *r = fn != NULL ? start(fn, path) : NULL;
        if (fn == NULL)
            say("%s has no ompt_start_tool", path);
        if (r != NULL)
            return r;
        dlclose(handle);
    }
    return NULL;
}

/* The initial task's begin and end name its region at both ends: an
 * implicit task's end gets NULL, but tools free the initial region's data
 * at the initial task's end (Archer does, as libomp passes it). */
static void dispatch_initial_task(int endpoint)
{
    muster_omp_thread *self = muster_omp_self();
    muster_ompt_implicit_task(endpoint, &initial_parallel, muster_omp_implicit_task_data(self), 1, 0, MUSTER_OMPT_TASK_INITIAL, NULL);
}

static void finalize_tool(void)
{
    if (tool == NULL)
        return;
    dispatch_initial_task(MUSTER_OMPT_SCOPE_END);
    muster_ompt_thread_end();
    start_tool_result *t = tool;
    tool = NULL;
    /* seq_cst: the hooks stop before the tool's finalize runs. */
    atomic_store(&muster_ompt_enabled, false);
    say("finalizing the tool");
    if (t->finalize != NULL)
        t->finalize(&t->tool_data);
}

static void finalize_at_exit(void)
{
    finalize_tool();
}

static void discover(void)
{
    open_verbose();
    const char *setting = getenv("OMP_TOOL");
    if (setting != NULL && strcasecmp(setting, "disabled") == 0) {
        say("OMP_TOOL=disabled: no tool");
        return;
    }
    if (setting != NULL && strcasecmp(setting, "enabled") != 0)
        muster_omp_warn_env("OMP_TOOL", setting, "is not enabled or disabled", "enabled");
    /* ompt_start_tool defined by the program or a library loaded with it
     * (never by this one). */
    start_tool_fn own = (start_tool_fn)dlsym(RTLD_DEFAULT, "ompt_start_tool");
    start_tool_result *r = own != NULL ? start(own, "the program or a library it loaded") : NULL;
    if (own == NULL)
        say("no ompt_start_tool in the program or its libraries");
    if (r == NULL)
        r = start_from_libraries();
    if (r == NULL || r->initialize == NULL)
        return;
    if (!r->initialize(lookup, omp_get_initial_device(), &r->tool_data)) {
        say("the tool's initialize returned 0: no tool");
        return;
    }
    tool = r;
    muster_omp_tasks_told();
    /* seq_cst: the callbacks the tool registered, and the records' room
     * for the tool, are written before. */
    muster_ompt_find_own_code();
    atomic_store(&muster_ompt_enabled, true);
    muster_omp_general_tasks = true; /* the tasks' events are on the task wing's general path */
    say("tool initialized");
    muster_ompt_thread_begin(MUSTER_OMPT_THREAD_INITIAL);
    dispatch_initial_task(MUSTER_OMPT_SCOPE_BEGIN);
    atexit(finalize_at_exit); /* before the tool's own destructors run */
}

/* The thread layer runs the discovery on the first thread-state setup
 * (muster_omp_self_first): before the first OpenMP activity. */
__attribute__((constructor)) static void install_discovery(void)
{
    muster_ompt_discover = discover;
}
