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
 *     region and team size, and (1) the enclosing one;
 *   - tasks: each created once with cleared data by the task its thread
 *     runs, switched to once, then completed (or detached and fulfilled
 *     late), each switch and completion on top of its thread's task stack,
 *     and ompt_get_task_info(0) answers the running task; none is left
 *     unfinished at the end;
 *   - thread states (ompt_get_state): a wait of its kind in a sync
 *     region's wait (barrier, taskwait, taskgroup), working where a task
 *     starts and a mutex is acquired, work_parallel in an implicit task;
 *   - frames (ompt_frame_t, through ompt_get_task_info and the events that
 *     pass one): a task in the runtime (a sync region, a region it forks,
 *     a task it creates, a task it is suspended for) has an enter frame
 *     above the tool's own frame and, where it has an exit frame, not
 *     above that; a task the runtime started has an exit frame above the
 *     tool's; a task suspended for another is entered at or above the
 *     other's exit frame; and no enter frame is left behind once a task
 *     is back (at a work share's or masked region's begin, which keep
 *     none);
 *   - a region forked inside an explicit task names that task as its
 *     encountering task, and ompt_get_task_info(0) inside answers the
 *     region's implicit task;
 *   - mutexes: acquire, acquired and released by one thread, at most one
 *     holder at a time of each wait id (mutual exclusion as the tool sees
 *     it), none held at the end; nested nest-lock acquisitions balanced;
 *     reductions begun and ended on one thread (the mutexes inside one
 *     are not counted: how a runtime folds is its own).
 * A second line counts them:
 *   ompt-recorder: tasks=T/C deps=D taskwaits=W/W taskgroups=G/G mutexes=M/R nested=N/N reductions=R/R
 *                  codeptrs=K/N ok
 *   ompt-recorder: loops=L/L singles=S/S executors=E masked=M/M ok
 *   ompt-recorder: taskloops=T/T distributes=D/D frames=F/X ok
 * (work shares begun/ended, each ended on its thread in the order begun;
 * masked regions likewise.)
 * (frames: how many frames were checked, and how many differ, on the
 * reference run only.)
 * (codeptrs: of the N events that name the program's construct, K name an
 * address in the program's own code, as codeptr_ra must.)
 * Loaded with OMP_TOOL_LIBRARIES=.../libompt_recorder.so. */
#include OMP_TOOLS_H

#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_THREADS = 64, MAX_REGIONS = 4096, MAX_DEPTH = 64, MAX_TASKS = 1 << 16, MAX_MUTEXES = 64 };

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
static ompt_get_task_info_t get_task_info;
static ompt_get_state_t get_state;
static atomic_int states_checked;


/* codeptr_ra: each the program's own code (its main object's loaded
 * segments), for the events whose construct the program wrote: parallel
 * regions, explicit barriers, taskwait, taskgroup, mutexes. */
typedef struct code_range {
    uintptr_t start, end;
} code_range;
static code_range program_code[16];
static int program_ranges;
static atomic_int codeptrs_checked, codeptrs_in_program;

static int note_main_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    for (int i = 0; i < info->dlpi_phnum && program_ranges < 16; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X))
            program_code[program_ranges++] = (code_range){info->dlpi_addr + info->dlpi_phdr[i].p_vaddr,
                                                           info->dlpi_addr + info->dlpi_phdr[i].p_vaddr +
                                                               info->dlpi_phdr[i].p_memsz};
    return 1; /* the first object is the program */
}

/* `what` names the event in the first miss's message, on stderr. */
static void check_codeptr(const void *codeptr, const char *what)
{
    uintptr_t a = (uintptr_t)codeptr;
    int checked = atomic_fetch_add(&codeptrs_checked, 1);
    for (int i = 0; i < program_ranges; i++)
        if (a >= program_code[i].start && a < program_code[i].end) {
            atomic_fetch_add(&codeptrs_in_program, 1);
            return;
        }
    if (checked == atomic_load(&codeptrs_in_program))
        fprintf(stderr, "ompt-recorder: %s's codeptr_ra %p is not in the program\n", what, codeptr);
}

/* Explicit tasks: their data is TASK_TAG | number; the state of each. */
#define TASK_TAG (UINT64_C(1) << 62)
enum { CREATED = 1, RUNNING, DETACHED, FINISHED };
static unsigned char task_state[MAX_TASKS];
static atomic_int tasks_created, tasks_finished, deps_seen, taskwaits_begun, taskwaits_ended;
static atomic_int taskgroups_begun, taskgroups_ended, mutexes_acquired, mutexes_released, nested_begun;
static atomic_int nested_ended, reductions_begun, reductions_ended;

/* The wait ids seen, and who holds each (NULL: nobody); under `lock`. */
typedef struct mutex_rec {
    uint64_t wait_id;
    void *holder;
} mutex_rec;
static mutex_rec mutexes[MAX_MUTEXES];
static int mutex_count;

/* Each thread's open scopes, innermost last: 'I' implicit task, 'S' sync
 * region, 'W' its wait. */
typedef struct thread_rec {
    char open[MAX_DEPTH];
    int depth, alive;
    ompt_data_t *tasks[MAX_DEPTH]; /* the tasks it runs, the one running last */
    int ntasks;
    int in_reduction;
    int works[MAX_DEPTH]; /* the work shares it is in (ompt_work_t), innermost last */
    int nworks, in_masked;
} thread_rec;

/* OMPT_RECORDER_REFERENCE=1: the run on LLVM libomp 14, the reference,
 * which passes other task data at taskgroups, ends some implicit tasks
 * inside their barrier and tells a mutex released after unlocking it (so
 * that the next holder's acquired may come first); those checks are then
 * skipped. */
static int reference_run;

static void fail(const char *what)
{
    if (atomic_fetch_add(&failures, 1) < 10)
        fprintf(stderr, "ompt-recorder: FAIL %s\n", what);
}

static ompt_data_t *running_task(void);

/* ---- frames ----
 * The stack grows down: a frame of the runtime's that a task entered it
 * through lies above (at a higher address than) the tool's callback. */
static atomic_int frames_checked;

static void *here_frame(void) __attribute__((noinline));
static void *here_frame(void)
{
    return __builtin_frame_address(0);
}

/* libomp 14, the reference, keeps its frames otherwise in places: it
 * sets an implicit task's exit frame after its begin event, gives a task
 * it starts an enter frame, and none to some tasks that create one; its
 * differences are counted (frames=F/differences), not failed. */
static atomic_int frame_differences;

static void frame_fail(const char *what, const ompt_frame_t *f)
{
    if (reference_run) {
        atomic_fetch_add(&frame_differences, 1);
        return;
    }
    char msg[200];
    snprintf(msg, sizeof msg, "%s (exit %p, enter %p, the tool at %p)", what, f->exit_frame.ptr, f->enter_frame.ptr,
             here_frame());
    fail(msg);
}

/* A task the runtime is serving: entered, above the tool, not above its
 * own exit frame. */
static void check_entered(const ompt_frame_t *f, const char *what)
{
    atomic_fetch_add(&frames_checked, 1);
    char msg[120];
    if (f->enter_frame.ptr == NULL || (uintptr_t)f->enter_frame.ptr <= (uintptr_t)here_frame()) {
        snprintf(msg, sizeof msg, "%s: no enter frame above the tool's", what);
        frame_fail(msg, f);
    } else if (f->exit_frame.ptr != NULL && (uintptr_t)f->enter_frame.ptr > (uintptr_t)f->exit_frame.ptr) {
        snprintf(msg, sizeof msg, "%s: an enter frame above its exit frame", what);
        frame_fail(msg, f);
    }
}

/* The running task's frame at an event it calls the runtime for. */
static void check_task_entered(const char *what)
{
    ompt_frame_t *f = NULL;
    if (get_task_info(0, NULL, NULL, &f, NULL, NULL) != 2 || f == NULL) {
        if (!reference_run) /* libomp 14: none for a worker in the region's end barrier */
            fail("ompt_get_task_info(0) gives no frame");
    } else
        check_entered(f, what);
}

/* Back from a wait, a region or a task's creation: no enter frame left.
 * (muster keeps one only for those; libomp for every entry point, so its
 * differences are counted.) */
static void check_not_stale(const char *what)
{
    ompt_frame_t *f = NULL;
    if (get_task_info(0, NULL, NULL, &f, NULL, NULL) != 2 || f == NULL)
        return;
    atomic_fetch_add(&frames_checked, 1);
    if (f->enter_frame.ptr != NULL) {
        char msg[120];
        snprintf(msg, sizeof msg, "%s: an enter frame left from an earlier wait", what);
        frame_fail(msg, f);
    }
}

/* The thread's state (ompt_get_state) as the event implies it: one of
 * [low, high]. */
static void check_state(int low, int high, const char *what)
{
    uint64_t wait_id = 0;
    int state = get_state(&wait_id);
    atomic_fetch_add(&states_checked, 1);
    if ((state < low || state > high) && !reference_run) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: ompt_get_state says %#x", what, state);
        fail(msg);
    }
}
#define WORKING ompt_state_work_serial, ompt_state_work_parallel

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
    (void)requested, (void)flags;
    check_codeptr(codeptr, "parallel_begin");
    if (task != running_task())
        fail("parallel_begin's encountering task is not the one its thread runs");
    check_entered(frame, "parallel_begin's encountering task");
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
    (void)task, (void)flags;
    check_codeptr(codeptr, "parallel_end");
    region_rec *r = region_of(parallel);
    if (r == NULL)
        return;
    pthread_mutex_lock(&lock);
    if (r->members_begun != r->size)
        fail("parallel_end before every member's implicit task began");
    r->ended = 1;
    pthread_mutex_unlock(&lock);
}

static void push_task(ompt_data_t *task)
{
    thread_rec *t = me();
    if (t->ntasks == MAX_DEPTH)
        fail("tasks nested too deep for the recorder");
    else
        t->tasks[t->ntasks++] = task;
}

static void pop_task(ompt_data_t *task)
{
    thread_rec *t = me();
    if (t->ntasks > 0 && t->tasks[t->ntasks - 1] == task) {
        t->ntasks--;
        return;
    }
    if (!reference_run) {
        fail("a task ended that is not the one its thread runs");
        return;
    }
    for (int i = t->ntasks - 1; i >= 0; i--)
        if (t->tasks[i] == task) {
            memmove(&t->tasks[i], &t->tasks[i + 1], (size_t)(t->ntasks - i - 1) * sizeof t->tasks[0]);
            t->ntasks--;
            return;
        }
}

static ompt_data_t *running_task(void)
{
    thread_rec *t = me();
    return t->ntasks > 0 ? t->tasks[t->ntasks - 1] : NULL;
}

static unsigned char *state_of(const ompt_data_t *task)
{
    if (task == NULL || (task->value & TASK_TAG) == 0 || (task->value & ~TASK_TAG) >= MAX_TASKS) {
        fail("an explicit task's data the recorder did not give out");
        static unsigned char nowhere;
        return &nowhere;
    }
    return &task_state[task->value & ~TASK_TAG];
}

static void on_task_create(ompt_data_t *encountering, const ompt_frame_t *frame, ompt_data_t *task, int flags,
                           int has_dependences, const void *codeptr)
{
    (void)has_dependences;
    check_codeptr(codeptr, "task_create");
    check_entered(frame, "task_create's encountering task");
    if (encountering != running_task())
        fail("task_create's encountering task is not the one its thread runs");
    if (!(flags & ompt_task_explicit))
        fail("an explicit task created without ompt_task_explicit");
    if (task->value != 0)
        fail("a new task's data is not cleared");
    int n = atomic_fetch_add(&tasks_created, 1) + 1;
    if (n >= MAX_TASKS) {
        fail("too many tasks for the recorder");
        return;
    }
    task->value = TASK_TAG | (uint64_t)n;
    task_state[n] = CREATED;
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    pthread_mutex_lock(&lock);
    switch (status) {
    case ompt_task_switch: {
        check_state(WORKING, "a task's start");
        unsigned char *s = state_of(next);
        if (prior != running_task())
            fail("a switch from a task its thread does not run");
        if (*s != CREATED)
            fail("a task started twice, or not created");
        *s = RUNNING;
        push_task(next);
        break;
    }
    case ompt_task_complete:
    case ompt_task_cancel:
    case ompt_task_detach: {
        unsigned char *s = state_of(prior);
        if (*s != RUNNING)
            fail("a task ended that was not running");
        pop_task(prior);
        if (next != running_task())
            fail("a task's end does not resume the task its thread ran before");
        *s = status == ompt_task_detach ? DETACHED : FINISHED;
        if (status != ompt_task_detach)
            atomic_fetch_add(&tasks_finished, 1);
        break;
    }
    case ompt_task_late_fulfill: {
        unsigned char *s = state_of(prior);
        if (*s != DETACHED)
            fail("a late fulfilment of a task that was not detached");
        *s = FINISHED;
        atomic_fetch_add(&tasks_finished, 1);
        break;
    }
    case ompt_task_early_fulfill:
        break;
    default:
        fail("a task_schedule status the recorder does not know");
    }
    pthread_mutex_unlock(&lock);
    if (status == ompt_task_switch) {
        ompt_data_t *data = NULL;
        ompt_frame_t *started = NULL, *suspended = NULL;
        int flags = 0;
        if (get_task_info(0, &flags, &data, &started, NULL, NULL) != 2 || data != next || !(flags & ompt_task_explicit))
            fail("ompt_get_task_info(0) in an explicit task does not answer it");
        else if (get_task_info(1, NULL, NULL, &suspended, NULL, NULL) != 2 || suspended == NULL)
            fail("ompt_get_task_info(1) in an explicit task does not answer the task it suspended");
        else if (started->exit_frame.ptr != NULL) { /* the runtime calls its body (not an if(0) task of clang's) */
            atomic_fetch_add(&frames_checked, 1);
            if ((uintptr_t)started->exit_frame.ptr <= (uintptr_t)here_frame())
                frame_fail("a task started with its exit frame below the tool's", started);
            else if (started->enter_frame.ptr != NULL)
                frame_fail("a task started with an enter frame", started);
            else if ((uintptr_t)suspended->enter_frame.ptr < (uintptr_t)started->exit_frame.ptr)
                frame_fail("the task a task suspended is not entered above the other's exit frame", suspended);
        }
    }
}

static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps)
{
    if (*state_of(task) != CREATED)
        fail("dependences of a task not just created");
    for (int i = 0; i < ndeps; i++)
        if (deps[i].variable.ptr == NULL || deps[i].dependence_type < ompt_dependence_type_in)
            fail("a dependence without an address or a type");
    atomic_fetch_add(&deps_seen, ndeps);
}

static mutex_rec *mutex_of(uint64_t wait_id)
{
    for (int i = 0; i < mutex_count; i++)
        if (mutexes[i].wait_id == wait_id)
            return &mutexes[i];
    if (mutex_count == MAX_MUTEXES) {
        fail("too many mutexes for the recorder");
        return &mutexes[0];
    }
    mutexes[mutex_count] = (mutex_rec){.wait_id = wait_id};
    return &mutexes[mutex_count++];
}

/* The calling thread takes (`acquired`) or gives up the mutex `wait_id`:
 * nobody else may hold it meanwhile.  Not counted inside a reduction. */
static void hold(ompt_wait_id_t wait_id, bool acquired)
{
    thread_rec *t = me();
    if (t->in_reduction)
        return;
    pthread_mutex_lock(&lock);
    mutex_rec *m = mutex_of(wait_id);
    if (m->holder != (acquired ? NULL : t) && !reference_run)
        fail(acquired ? "a mutex acquired while another thread holds it"
                      : "a mutex released by a thread that does not hold it");
    if (acquired)
        m->holder = t;
    else if (m->holder == t)
        m->holder = NULL;
    pthread_mutex_unlock(&lock);
    atomic_fetch_add(acquired ? &mutexes_acquired : &mutexes_released, 1);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    check_state(WORKING, "a mutex acquired");
    if (!me()->in_reduction)
        check_codeptr(codeptr, kind == ompt_mutex_critical ? "critical's mutex_acquired" : "mutex_acquired");
    hold(wait_id, true);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    if (!me()->in_reduction)
        check_codeptr(codeptr, kind == ompt_mutex_critical ? "critical's mutex_released" : "mutex_released");
    hold(wait_id, false);
}

static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void *codeptr)
{
    (void)codeptr;
    pthread_mutex_lock(&lock);
    if (mutex_of(wait_id)->holder != me() && !reference_run)
        fail("a nested acquisition of a nest lock the thread does not hold");
    pthread_mutex_unlock(&lock);
    atomic_fetch_add(endpoint == ompt_scope_begin ? &nested_begun : &nested_ended, 1);
}

static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                         ompt_data_t *task, const void *codeptr)
{
    (void)parallel, (void)task, (void)codeptr;
    thread_rec *t = me();
    if (kind != ompt_sync_region_reduction)
        fail("a reduction event of another kind");
    if (endpoint == ompt_scope_begin) {
        if (t->in_reduction++)
            fail("a reduction begun inside another");
        atomic_fetch_add(&reductions_begun, 1);
    } else {
        if (t->in_reduction-- != 1)
            fail("a reduction ended that had not begun");
        atomic_fetch_add(&reductions_ended, 1);
    }
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned size, unsigned index, int flags)
{
    if (endpoint == ompt_scope_begin)
        push_task(task);
    else
        pop_task(task);
    if (flags & ompt_task_initial) {
        if (endpoint == ompt_scope_begin)
            atomic_fetch_add(&initial_tasks, 1), open_scope('I');
        else
            close_scope('I');
        return;
    }
    if (endpoint == ompt_scope_begin) {
        check_state(ompt_state_work_parallel, ompt_state_work_parallel, "an implicit task's begin");
        ompt_data_t *answered = NULL;
        ompt_frame_t *frame = NULL;
        int task_flags = 0;
        if (get_task_info(0, &task_flags, &answered, &frame, NULL, NULL) != 2 || answered != task ||
            !(task_flags & ompt_task_implicit)) {
            if (!reference_run) /* libomp 14 in a region forked by an explicit task: that task */
                fail("ompt_get_task_info(0) at an implicit task's begin does not answer it");
        }
        else if (frame->exit_frame.ptr == NULL || (uintptr_t)frame->exit_frame.ptr <= (uintptr_t)here_frame())
            frame_fail("an implicit task begun without an exit frame above the tool's", frame);
        else
            atomic_fetch_add(&frames_checked, 1);
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

static atomic_int loops_begun, loops_ended, singles_begun, singles_ended, executors, masked_begun, masked_ended;
static atomic_int taskloops_begun, taskloops_ended, distributes_begun, distributes_ended;

/* The counters of a work share's begins and ends, by its type. */
static atomic_int *work_counter(ompt_work_t type, ompt_scope_endpoint_t endpoint)
{
    bool begin = endpoint == ompt_scope_begin;
    switch (type) {
    case ompt_work_single_executor:
    case ompt_work_single_other:
        return begin ? &singles_begun : &singles_ended;
    case ompt_work_taskloop:
        return begin ? &taskloops_begun : &taskloops_ended;
    case ompt_work_distribute:
        return begin ? &distributes_begun : &distributes_ended;
    default:
        return begin ? &loops_begun : &loops_ended;
    }
}

static void on_work(ompt_work_t type, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                    uint64_t count, const void *codeptr)
{
    (void)parallel, (void)count;
    thread_rec *t = me();
    if (task != running_task() && !reference_run)
        fail("a work share's task is not the one its thread runs");
    bool single = type == ompt_work_single_executor || type == ompt_work_single_other;
    if (endpoint == ompt_scope_begin) {
        if (t->nworks == MAX_DEPTH) {
            fail("work shares nested too deep for the recorder");
            return;
        }
        t->works[t->nworks++] = type;
        check_codeptr(codeptr, single ? "single" : type == ompt_work_taskloop ? "a taskloop" : "a loop");
        check_not_stale("a work share's begin");
        atomic_fetch_add(work_counter(type, endpoint), 1);
        if (type == ompt_work_single_executor)
            atomic_fetch_add(&executors, 1);
        return;
    }
    if (t->nworks == 0 || t->works[t->nworks - 1] != (int)type) {
        fail("a work share ended that is not the one its thread is in");
        return;
    }
    t->nworks--;
    atomic_fetch_add(work_counter(type, endpoint), 1);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                      const void *codeptr)
{
    (void)parallel, (void)task;
    thread_rec *t = me();
    check_codeptr(codeptr, "masked");
    if (endpoint == ompt_scope_begin) {
        check_not_stale("a masked region's begin");
        if (t->in_masked++)
            fail("a masked region begun inside another");
        atomic_fetch_add(&masked_begun, 1);
    } else {
        if (t->in_masked-- != 1)
            fail("a masked region ended that had not begun");
        atomic_fetch_add(&masked_ended, 1);
    }
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                           ompt_data_t *task, const void *codeptr)
{
    if (kind == ompt_sync_region_barrier_explicit || kind == ompt_sync_region_taskwait ||
        kind == ompt_sync_region_taskgroup)
        check_codeptr(codeptr, kind == ompt_sync_region_taskwait    ? "taskwait"
                               : kind == ompt_sync_region_taskgroup ? "taskgroup"
                                                                    : "explicit barrier");
    atomic_int *count = kind == ompt_sync_region_taskwait    ? (endpoint == ompt_scope_begin ? &taskwaits_begun : &taskwaits_ended)
                        : kind == ompt_sync_region_taskgroup ? (endpoint == ompt_scope_begin ? &taskgroups_begun : &taskgroups_ended)
                        : endpoint == ompt_scope_begin       ? &barriers_begun
                                                             : &barriers_ended;
    if (task != running_task() && !reference_run)
        fail(kind == ompt_sync_region_taskwait ? "a taskwait's task is not the one its thread runs" : kind == ompt_sync_region_taskgroup ? "a taskgroup's task is not the one its thread runs" : "a barrier's task is not the one its thread runs");
    /* libomp 14 gives a taskgroup's begin no enter frame */
    if (!(reference_run && kind == ompt_sync_region_taskgroup))
        check_task_entered(kind == ompt_sync_region_taskwait    ? "a taskwait"
                           : kind == ompt_sync_region_taskgroup ? "a taskgroup"
                                                                : "a barrier");
    if (endpoint == ompt_scope_begin) {
        if (parallel != NULL && parallel->value != 0)
            (void)region_of(parallel);
        /* A taskgroup's region stays open while its tasks are made. */
        if (kind != ompt_sync_region_taskgroup)
            open_scope('S');
    } else if (kind != ompt_sync_region_taskgroup) {
        close_scope('S');
    }
    atomic_fetch_add(count, 1);
}

static void on_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                         ompt_data_t *task, const void *codeptr)
{
    (void)parallel, (void)task, (void)codeptr;
    if (endpoint == ompt_scope_begin) {
        if (kind == ompt_sync_region_taskwait)
            check_state(ompt_state_wait_taskwait, ompt_state_wait_taskwait, "a taskwait's wait");
        else if (kind == ompt_sync_region_taskgroup)
            check_state(ompt_state_wait_taskgroup, ompt_state_wait_taskgroup, "a taskgroup's wait");
        else
            check_state(ompt_state_wait_barrier, ompt_state_wait_barrier_teams, "a barrier's wait");
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
    dl_iterate_phdr(note_main_object, NULL);
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
    get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
    get_state = (ompt_get_state_t)lookup("ompt_get_state");
    const char *reference = getenv("OMPT_RECORDER_REFERENCE");
    reference_run = reference != NULL && strcmp(reference, "1") == 0;
    if (set == NULL || get_thread_data == NULL || get_parallel_info == NULL || get_task_info == NULL ||
        get_state == NULL) {
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
             set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_wait) == ompt_set_always &&
             set(ompt_callback_task_create, (ompt_callback_t)on_task_create) == ompt_set_always &&
             set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule) == ompt_set_always &&
             set(ompt_callback_dependences, (ompt_callback_t)on_dependences) == ompt_set_always &&
             set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired) == ompt_set_always &&
             set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released) == ompt_set_always &&
             set(ompt_callback_nest_lock, (ompt_callback_t)on_nest_lock) == ompt_set_always &&
             set(ompt_callback_reduction, (ompt_callback_t)on_reduction) == ompt_set_always &&
             set(ompt_callback_work, (ompt_callback_t)on_work) == ompt_set_always &&
             set(ompt_callback_masked, (ompt_callback_t)on_masked) == ompt_set_always;
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
    int created = atomic_load(&tasks_created);
    for (int i = 1; i <= created && i < MAX_TASKS; i++)
        if (task_state[i] != FINISHED)
            fail("a task that did not finish");
    for (int i = 0; i < mutex_count; i++)
        if (mutexes[i].holder != NULL)
            fail("a mutex still held at the end");
    printf("ompt-recorder: threads=%d parallel=%d/%d implicit=%d/%d barriers=%d/%d waits=%d/%d initial=%d %s\n",
           atomic_load(&threads_begun), n, ended, atomic_load(&implicit_begun), atomic_load(&implicit_ended),
           atomic_load(&barriers_begun), atomic_load(&barriers_ended), atomic_load(&waits_begun),
           atomic_load(&waits_ended), atomic_load(&initial_tasks), atomic_load(&failures) ? "bad" : "ok");
    printf("ompt-recorder: tasks=%d/%d deps=%d taskwaits=%d/%d taskgroups=%d/%d mutexes=%d/%d nested=%d/%d "
           "reductions=%d/%d codeptrs=%d/%d %s\n",
           created, atomic_load(&tasks_finished), atomic_load(&deps_seen), atomic_load(&taskwaits_begun),
           atomic_load(&taskwaits_ended), atomic_load(&taskgroups_begun), atomic_load(&taskgroups_ended),
           atomic_load(&mutexes_acquired), atomic_load(&mutexes_released), atomic_load(&nested_begun),
           atomic_load(&nested_ended), atomic_load(&reductions_begun), atomic_load(&reductions_ended),
           atomic_load(&codeptrs_in_program), atomic_load(&codeptrs_checked), atomic_load(&failures) ? "bad" : "ok");
    printf("ompt-recorder: loops=%d/%d singles=%d/%d executors=%d masked=%d/%d %s\n", atomic_load(&loops_begun),
           atomic_load(&loops_ended), atomic_load(&singles_begun), atomic_load(&singles_ended),
           atomic_load(&executors), atomic_load(&masked_begun), atomic_load(&masked_ended),
           atomic_load(&failures) ? "bad" : "ok");
    printf("ompt-recorder: taskloops=%d/%d distributes=%d/%d frames=%d/%d %s\n", atomic_load(&taskloops_begun),
           atomic_load(&taskloops_ended), atomic_load(&distributes_begun), atomic_load(&distributes_ended),
           atomic_load(&frames_checked), atomic_load(&frame_differences), atomic_load(&failures) ? "bad" : "ok");
    fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version, const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}
