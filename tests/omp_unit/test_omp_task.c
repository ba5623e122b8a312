/* Tasks in libmuster-omp (src/omp/task/), as gcc 12 emits them: an OpenMP
 * program compiled with -fopenmp and linked against libmuster-omp, not
 * libgomp.  Every check here holds for any correct schedule, tasks run at
 * once or deferred to other threads: counts and sums, firstprivate
 * capture, final, detach and its events, taskgroups, taskloop splits
 * (num_tasks, grainsize, strict, negative and unsigned long long loops)
 * and task reductions (taskgroup, taskloop, parallel). */
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "stress_common.h"

/* Entry points called directly, as libgomp_g.h declares them. */
void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
               bool if_clause, unsigned flags, void **depend, int priority, void *detach);
void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                   unsigned flags, unsigned long num_tasks, int priority, long start, long end, long step);
void GOMP_taskwait(void);
/* gomp-constants.h */
#define FLAG_DETACH (1u << 13)
#define FLAG_IF (1u << 10)

static const int team_sizes[] = {1, 2, 3, 4, 8};
#define TEAM_SIZES (int)(sizeof team_sizes / sizeof team_sizes[0])

/* ---- tasks run, each once, with their firstprivate values ---- */

static void test_tasks_run(int threads)
{
    enum { TASKS = 500 };
    int seen[TASKS];
    memset(seen, 0, sizeof seen);
    atomic_int ran = 0, children = 0;
#pragma omp parallel num_threads(threads)
    {
        if (omp_get_thread_num() == 0) {
            for (int i = 0; i < TASKS; i++) {
#pragma omp task firstprivate(i) shared(seen, ran, children)
                {
                    seen[i]++;
                    atomic_fetch_add(&ran, 1);
                    atomic_fetch_add(&children, 1);
                }
            }
#pragma omp taskwait
            CHECK(atomic_load(&children) == TASKS, "taskwait: every child has run");
        }
        /* Every thread creates tasks too. */
#pragma omp task shared(ran)
        atomic_fetch_add(&ran, 1);
#pragma omp taskyield
#pragma omp taskwait
    }
    CHECK(atomic_load(&ran) == TASKS + threads, "%d threads: %d tasks ran", threads, atomic_load(&ran));
    for (int i = 0; i < TASKS; i++)
        CHECK(seen[i] == 1, "task %d ran %d times", i, seen[i]);
}

static void test_if_depend_priority(void)
{
    int x = 0, order[3], n = 0;
#pragma omp parallel num_threads(2) shared(x, order, n)
    if (omp_get_thread_num() == 1) {
#pragma omp task depend(out : x) shared(x, order, n) priority(5)
        {
            x = 1;
            order[n++] = 1;
        }
#pragma omp task depend(in : x) shared(x, order, n) if (0)
        {
            CHECK(x == 1, "an in dependence sees the out task's write");
            order[n++] = 2;
        }
#pragma omp task depend(inout : x) shared(x, order, n) mergeable untied
        {
            x = 3;
            order[n++] = 3;
        }
#pragma omp taskwait depend(in : x)
        CHECK(x == 3);
    }
    CHECK(n == 3 && order[0] == 1 && order[1] == 2 && order[2] == 3);
}

/* ---- final ---- */

static void test_final(void)
{
    int outside = -1, in_final = -1, child_of_final = -1, not_final = -1;
    outside = omp_in_final();
#pragma omp task final(1) shared(in_final, child_of_final)
    {
        in_final = omp_in_final();
#pragma omp task shared(child_of_final)
        child_of_final = omp_in_final();
    }
#pragma omp task final(0) shared(not_final)
    not_final = omp_in_final();
    CHECK(outside == 0 && in_final == 1, "omp_in_final: %d outside, %d in a final task", outside, in_final);
    CHECK(child_of_final == 1, "a task created in a final task is final");
    CHECK(not_final == 0 && omp_in_final() == 0, "final(0) is not final, and finality ends with the task");
    /* A parallel region inside a final task starts implicit tasks that are
     * not final. */
    int inner = -1;
#pragma omp task final(1) shared(inner)
    {
#pragma omp parallel num_threads(2) shared(inner)
        if (omp_get_thread_num() == 0)
            inner = omp_in_final();
    }
    CHECK(inner == 0, "an implicit task inside a final task is not final");
}

/* ---- cpyfn and alignment, called directly ---- */

typedef struct aligned_arg {
    _Alignas(64) int value;
    int copies;
} aligned_arg;

static int cpyfn_value;
static uintptr_t cpyfn_address;

static void copy_arg(void *dst, void *src)
{
    aligned_arg *to = dst, *from = src;
    to->value = from->value * 10; /* a "copy constructor" that shows it ran */
    to->copies = from->copies + 1;
}

static void read_arg(void *p)
{
    aligned_arg *arg = p;
    cpyfn_value = arg->value + arg->copies;
    cpyfn_address = (uintptr_t)p;
}

static void test_cpyfn(void)
{
    aligned_arg original = {.value = 4, .copies = 0};
    GOMP_task(read_arg, &original, copy_arg, sizeof original, 64, true, 0, NULL, 0, NULL);
    CHECK(cpyfn_value == 41, "fn ran on cpyfn's copy (%d)", cpyfn_value);
    CHECK(cpyfn_address % 64 == 0, "the copy honours arg_align");
    CHECK(cpyfn_address != (uintptr_t)&original && original.value == 4, "the original is untouched");
}

/* cpyfn on every path that copies a task's arguments: run at once, a task
 * record (queued through its dependence), a detachable record, and each
 * task of a taskloop.  Each task must run on a copy that cpyfn made (and
 * only cpyfn: the runtime must not also memcpy over it afterwards, except
 * a taskloop's bounds), aligned as asked; cpyfn runs once per task. */
typedef struct copied_arg {
    /* First, as gcc lays them out: a taskloop's bounds, or a detachable
     * task's event handle. */
    long first[2];
    _Alignas(64) int value;
    int copies;
} copied_arg;

static atomic_int cpyfn_calls, copies_seen_bad, copies_ran;

static void copy_counted(void *dst, void *src)
{
    copied_arg *to = dst, *from = src;
    memcpy(to->first, from->first, sizeof to->first);
    to->value = from->value;
    to->copies = from->copies + 1;
    atomic_fetch_add(&cpyfn_calls, 1);
}

static void check_copied(void *p)
{
    copied_arg *arg = p;
    if (arg->copies != 1 || arg->value != 7 || (uintptr_t)p % 64 != 0)
        atomic_fetch_add(&copies_seen_bad, 1);
    atomic_fetch_add(&copies_ran, 1);
}

static void check_copied_and_fulfil(void *p)
{
    check_copied(p);
    omp_fulfill_event((omp_event_handle_t)((copied_arg *)p)->first[0]);
}

static void cpyfn_paths(void *unused)
{
    (void)unused;
    if (omp_get_thread_num() != 0)
        return;
    copied_arg original = {.value = 7};
    int dep = 0;
    void *depend[] = {(void *)1, (void *)1, &dep}; /* one address, out */
    GOMP_task(check_copied, &original, copy_counted, sizeof original, 64, false, 0, NULL, 0, NULL); /* at once */
    GOMP_task(check_copied, &original, copy_counted, sizeof original, 64, true, 0, depend, 0, NULL); /* record */
    omp_event_handle_t event;
    GOMP_task(check_copied_and_fulfil, &original, copy_counted, sizeof original, 64, true, FLAG_DETACH, NULL, 0,
              &event); /* detachable record */
    GOMP_taskwait();
    GOMP_taskloop(check_copied, &original, copy_counted, sizeof original, 64, FLAG_IF, 5, 0, 0, 50, 1);
}

static void test_cpyfn_every_path(int threads)
{
    atomic_store(&cpyfn_calls, 0);
    atomic_store(&copies_seen_bad, 0);
    atomic_store(&copies_ran, 0);
#pragma omp parallel num_threads(threads)
    cpyfn_paths(NULL);
    CHECK(atomic_load(&copies_ran) == 8, "%d threads: %d of 8 tasks ran", threads, atomic_load(&copies_ran));
    CHECK(atomic_load(&cpyfn_calls) == 8, "%d threads: cpyfn ran %d times for 8 tasks", threads,
          atomic_load(&cpyfn_calls));
    CHECK(atomic_load(&copies_seen_bad) == 0, "%d threads: %d tasks ran on something other than one aligned "
          "cpyfn copy", threads, atomic_load(&copies_seen_bad));
}

/* ---- detach ---- */

static void test_detach_fulfilled_by_later_task(void)
{
    int x = 0, y = 0, z = 0;
    omp_event_handle_t first, second;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 0) {
#pragma omp task detach(first) shared(x)
        x++;
#pragma omp task detach(second) shared(y) firstprivate(first)
        {
            y++;
            omp_fulfill_event(first);
        }
#pragma omp task shared(z) firstprivate(second)
        {
            z++;
            omp_fulfill_event(second);
        }
#pragma omp taskwait
    }
    CHECK(x == 1 && y == 1 && z == 1, "detached tasks ran and their events were fulfilled without a deadlock");
}

/* The other thread fulfils the event 50 ms after the detached task's body
 * publishes it. */
static void fulfil_late(atomic_uintptr_t *published, atomic_int *fulfilled_flag)
{
    uintptr_t handle;
    while ((handle = atomic_load(published)) == 0)
        usleep(100);
    usleep(50000);
    atomic_store(fulfilled_flag, 1);
    omp_fulfill_event((omp_event_handle_t)handle);
}

/* Thread 0 creates a detached task and waits for it as detach_and_wait
 * does; the other thread fulfils the event late.  True when the wait ended
 * only after the fulfilment. */
static int wait_outlasts_late_fulfilment(void (*detach_and_wait)(atomic_uintptr_t *published))
{
    atomic_uintptr_t published = 0;
    atomic_int fulfilled_flag = 0;
    int ok = 0;
#pragma omp parallel num_threads(2) shared(published, fulfilled_flag, ok)
    {
        if (omp_get_thread_num() == 0) {
            detach_and_wait(&published);
            ok = atomic_load(&fulfilled_flag) == 1;
        } else {
            fulfil_late(&published, &fulfilled_flag);
        }
    }
    return ok;
}

static void detach_then_taskwait(atomic_uintptr_t *published)
{
    omp_event_handle_t event;
#pragma omp task detach(event) shared(published)
    atomic_store(published, (uintptr_t)event); /* the task's copy of the handle */
#pragma omp taskwait
}

static void test_taskwait_waits_for_fulfilment(void)
{
    CHECK(wait_outlasts_late_fulfilment(detach_then_taskwait),
          "taskwait returned only after another thread fulfilled the event");
}

/* The detached task is a grandchild: the taskgroup's end must wait for it. */
static void detach_grandchild_in_taskgroup(atomic_uintptr_t *published)
{
    omp_event_handle_t event;
#pragma omp taskgroup
    {
#pragma omp task shared(published, event)
        {
#pragma omp task detach(event) shared(published)
            atomic_store(published, (uintptr_t)event);
        }
    }
}

static void test_taskgroup_waits_for_fulfilment(void)
{
    CHECK(wait_outlasts_late_fulfilment(detach_grandchild_in_taskgroup),
          "taskgroup end waited for a grandchild's event");
}

/* A thread outside every team fulfils the published event 30 ms after it
 * appears, having set *fulfilled first. */
typedef struct outside_fulfiller {
    pthread_t thread;
    atomic_uintptr_t published;
    atomic_int fulfilled;
} outside_fulfiller;

static void *fulfil_from_outside(void *arg)
{
    outside_fulfiller *f = arg;
    uintptr_t handle;
    while ((handle = atomic_load(&f->published)) == 0)
        usleep(100);
    usleep(30000);
    atomic_store(&f->fulfilled, 1);
    omp_fulfill_event((omp_event_handle_t)handle);
    return NULL;
}

static void start_outside_fulfiller(outside_fulfiller *f)
{
    atomic_init(&f->published, 0);
    atomic_init(&f->fulfilled, 0);
    CHECK(pthread_create(&f->thread, NULL, fulfil_from_outside, f) == 0, "pthread_create");
}

/* An explicit barrier, and the end of the region, complete a detached
 * task only once its event is fulfilled: here by a thread outside the
 * team, so nothing else in the team waits for it.  `undeferred` makes the
 * task if(0) (its body runs at once, the event kept in the thread's list);
 * a team of one has no scheduler at all. */
static void test_barriers_wait_for_fulfilment(int threads, bool undeferred)
{
    outside_fulfiller f, g;
    start_outside_fulfiller(&f);
    start_outside_fulfiller(&g);
    omp_event_handle_t event;
    int early = 0;
#pragma omp parallel num_threads(threads) shared(f, g, event) reduction(+ : early)
    {
        if (omp_get_thread_num() == threads - 1) {
#pragma omp task detach(event) shared(f) if (!undeferred)
            atomic_store(&f.published, (uintptr_t)event);
        }
#pragma omp barrier
        early += atomic_load(&f.fulfilled) == 0;
        if (omp_get_thread_num() == 0) {
#pragma omp task detach(event) shared(g) if (!undeferred)
            atomic_store(&g.published, (uintptr_t)event);
        }
    }
    CHECK(early == 0, "%d threads%s: %d left a barrier before the detached task's event was fulfilled", threads,
          undeferred ? ", if(0)" : "", early);
    CHECK(atomic_load(&g.fulfilled) == 1, "%d threads%s: the region ended before the detached task's event was "
          "fulfilled", threads, undeferred ? ", if(0)" : "");
    pthread_join(f.thread, NULL);
    pthread_join(g.thread, NULL);
}

/* A task that depends on a detached task starts only after the event is
 * fulfilled, also when the fulfiller is outside the team, and in a team of
 * one (whose first detachable task gives it a scheduler). */
static void test_successor_waits_for_fulfilment(int threads)
{
    outside_fulfiller f;
    start_outside_fulfiller(&f);
    omp_event_handle_t event;
    int x = 0, seen = -1;
#pragma omp parallel num_threads(threads) shared(f, event, x, seen)
#pragma omp single
    {
#pragma omp task detach(event) depend(out : x) shared(f, x)
        {
            x = 1;
            atomic_store(&f.published, (uintptr_t)event);
        }
#pragma omp task depend(in : x) shared(f, seen)
        seen = atomic_load(&f.fulfilled);
    }
    pthread_join(f.thread, NULL);
    CHECK(seen == 1, "%d threads: a successor of a detached task ran before its event was fulfilled (%d)", threads,
          seen);
}

/* A team of one counts its tasks' children without read-modify-writes
 * until its first detachable task (core.h: node_counts_private); from then
 * on a fulfiller outside the team counts too.  Here an explicit task of a
 * team of one makes pairs of a plain child and a detached one, whose events
 * a thread outside fulfils as soon as each body has handed it over, while
 * the member runs the other children and counts them finished in the same
 * node.  A count moved without a read-modify-write after the first
 * detachable task would lose a decrement now and then, and the taskwait
 * would never return: the alarm turns that into a failure (with that
 * mutation: 6 runs of 6 failed). */
enum { SOLO_PAIRS = 24, SOLO_EPISODES = 12000, SOLO_RING = 64 };

/* Events handed to the fulfiller, in the order the bodies ran. */
typedef struct solo_fulfiller {
    pthread_t thread;
    atomic_uintptr_t ring[SOLO_RING];
    atomic_uint handed;    /* events handed over so far */
    atomic_int fulfilled;  /* ... and fulfilled */
    unsigned total;        /* events to fulfil before returning */
} solo_fulfiller;

static void *fulfil_each_at_once(void *arg)
{
    solo_fulfiller *f = arg;
    unsigned seed = 12345;
    for (unsigned n = 0; n < f->total; n++) {
        uintptr_t handle;
        while ((handle = atomic_exchange(&f->ring[n % SOLO_RING], 0)) == 0)
            ;
        for (unsigned spin = next_random(&seed) % 64; spin > 0; spin--)
            atomic_signal_fence(memory_order_seq_cst); /* kept by the compiler: lands at varied moments */
        atomic_fetch_add(&f->fulfilled, 1);
        omp_fulfill_event((omp_event_handle_t)handle);
    }
    return NULL;
}

static void hand_over(solo_fulfiller *f, omp_event_handle_t event)
{
    unsigned n = atomic_fetch_add(&f->handed, 1);
    atomic_store(&f->ring[n % SOLO_RING], (uintptr_t)event);
}

static void hung_solo_taskwait(int sig)
{
    (void)sig;
    static const char msg[] = "test_omp_task: a team of one's taskwait never returned beside an outside "
                              "fulfiller (a lost count)\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

static void test_solo_counts_beside_outside_fulfiller(void)
{
    unsigned episodes = scaled(SOLO_EPISODES);
    static solo_fulfiller f;
    for (int i = 0; i < SOLO_RING; i++)
        atomic_init(&f.ring[i], 0);
    atomic_init(&f.handed, 0);
    atomic_init(&f.fulfilled, 0);
    f.total = episodes * SOLO_PAIRS;
    CHECK(pthread_create(&f.thread, NULL, fulfil_each_at_once, &f) == 0, "pthread_create");
    signal(SIGALRM, hung_solo_taskwait);
    for (unsigned e = 0; e < episodes; e++) {
        alarm(20); /* an episode takes microseconds */
        atomic_int ran = 0;
        int fulfilled_at_wait = -1;
#pragma omp parallel num_threads(1) shared(f, ran, fulfilled_at_wait)
#pragma omp task shared(f, ran, fulfilled_at_wait)
        {
            for (int i = 0; i < SOLO_PAIRS; i++) {
#pragma omp task shared(ran)
                atomic_fetch_add(&ran, 1);
                omp_event_handle_t event;
#pragma omp task detach(event) shared(f, ran)
                {
                    atomic_fetch_add(&ran, 1);
                    hand_over(&f, event);
                }
            }
#pragma omp taskwait
            fulfilled_at_wait = atomic_load(&f.fulfilled);
        }
        CHECK(atomic_load(&ran) == 2 * SOLO_PAIRS, "episode %u: %d of %d children ran", e, atomic_load(&ran),
              2 * SOLO_PAIRS);
        CHECK(fulfilled_at_wait == (int)((e + 1) * SOLO_PAIRS), "episode %u: taskwait returned with %d of %d "
              "events fulfilled", e, fulfilled_at_wait, (int)((e + 1) * SOLO_PAIRS));
    }
    alarm(0);
    signal(SIGALRM, SIG_DFL);
    pthread_join(f.thread, NULL);
}

/* Many detached tasks, each fulfilled by a task made later, in a random
 * order, with random delays: every body runs once and taskwait returns only
 * once all events are fulfilled. */
static void test_many_detached(int threads)
{
    enum { TASKS = 40, EPISODES = 25 };
    for (int e = 0; e < EPISODES; e++) {
        omp_event_handle_t events[TASKS];
        atomic_int bodies = 0, fulfilled = 0;
        int after = -1;
        unsigned seed = (unsigned)(e * 7919 + threads);
#pragma omp parallel num_threads(threads) shared(events, bodies, fulfilled, after)
#pragma omp single
        {
            for (int i = 0; i < TASKS; i++) {
                omp_event_handle_t ev;
#pragma omp task detach(ev) shared(bodies)
                atomic_fetch_add(&bodies, 1);
                events[i] = ev;
            }
            int order[TASKS];
            for (int i = 0; i < TASKS; i++)
                order[i] = i;
            for (int i = TASKS - 1; i > 0; i--) {
                int j = (int)(rand_r(&seed) % (unsigned)(i + 1)), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            for (int i = 0; i < TASKS; i++) {
                int k = order[i];
                unsigned spin = rand_r(&seed) % 3000;
#pragma omp task firstprivate(k, spin) shared(events, fulfilled)
                {
                    for (volatile unsigned s = 0; s < spin; s++)
                        ;
                    atomic_fetch_add(&fulfilled, 1);
                    omp_fulfill_event(events[k]);
                }
            }
#pragma omp taskwait
            after = atomic_load(&fulfilled);
        }
        CHECK(atomic_load(&bodies) == TASKS, "%d threads: %d of %d detached bodies ran", threads,
              atomic_load(&bodies), TASKS);
        CHECK(after == TASKS, "%d threads: taskwait returned after %d of %d fulfilments", threads, after, TASKS);
    }
}

/* ---- dependences waited for precisely ---- */

/* Waits up to 10 s for *flag; false when it never came. */
static bool await_flag(atomic_int *flag)
{
    for (int i = 0; i < 100000 && !atomic_load(flag); i++)
        usleep(100);
    return atomic_load(flag) != 0;
}

/* An undeferred task with a dependence, and taskwait depend, wait for
 * their own predecessors only: here a sibling with no dependences waits
 * for them to have run (it would wait forever if they waited for all
 * siblings).  The sibling is a taskloop's task, which is always queued. */
static void test_undeferred_waits_for_own_deps(int threads)
{
    atomic_int undeferred_ran = 0, taskwait_passed = 0, sibling_saw = 0;
    int x = 0, y = 0, seen_x = -1, seen_y = -1;
#pragma omp parallel num_threads(threads) shared(undeferred_ran, taskwait_passed, sibling_saw, x, y, seen_x, seen_y)
#pragma omp single
    {
#pragma omp taskloop nogroup num_tasks(1)
        for (int i = 0; i < 1; i++)
            atomic_store(&sibling_saw, await_flag(&undeferred_ran) && await_flag(&taskwait_passed));
#pragma omp task depend(out : x) shared(x)
        x = 1;
#pragma omp task depend(in : x) shared(x, seen_x, undeferred_ran) if (0)
        {
            seen_x = x;
            atomic_store(&undeferred_ran, 1);
        }
#pragma omp task depend(out : y) shared(y)
        y = 2;
#pragma omp taskwait depend(in : y)
        seen_y = y;
        atomic_store(&taskwait_passed, 1);
    }
    CHECK(atomic_load(&sibling_saw) == 1, "%d threads: an undeferred task or taskwait depend waited for an "
          "unrelated sibling", threads);
    CHECK(seen_x == 1 && seen_y == 2, "%d threads: they still waited for their predecessors (%d, %d)", threads,
          seen_x, seen_y);
}

/* mutexinoutset members exclude each other but are not ordered: a member
 * whose other predecessor is late does not hold back a later member.  The
 * late predecessor waits for a detached task whose event a thread outside
 * the team fulfils 30 ms on. */
static void test_mutexinoutset_not_serialised(int threads)
{
    int c = 0, y = 0, z = 0, order[2] = {-1, -1};
    atomic_int next = 0, inside = 0, overlaps = 0;
    outside_fulfiller f;
    start_outside_fulfiller(&f);
    omp_event_handle_t event;
#pragma omp parallel num_threads(threads) shared(c, y, z, order, next, inside, overlaps, f, event)
#pragma omp single
    {
#pragma omp task detach(event) depend(out : z) shared(f, z)
        {
            z = 1;
            atomic_store(&f.published, (uintptr_t)event);
        }
#pragma omp task depend(in : z) depend(out : y) shared(y, z)
        y = z;
#pragma omp task depend(in : y) depend(mutexinoutset : c) shared(c, order, next, inside, overlaps)
        {
            overlaps += atomic_fetch_add(&inside, 1) != 0;
            order[atomic_fetch_add(&next, 1)] = 1;
            c += 10;
            atomic_fetch_sub(&inside, 1);
        }
#pragma omp task depend(mutexinoutset : c) shared(c, order, next, inside, overlaps)
        {
            overlaps += atomic_fetch_add(&inside, 1) != 0;
            order[atomic_fetch_add(&next, 1)] = 2;
            usleep(2000);
            c += 1;
            atomic_fetch_sub(&inside, 1);
        }
#pragma omp task depend(in : c) shared(c, order)
        order[1] = order[1] * 100 + c;
    }
    pthread_join(f.thread, NULL);
    CHECK(atomic_load(&overlaps) == 0, "%d threads: mutexinoutset members overlapped", threads);
    CHECK(order[0] == 2 && order[1] == 111, "%d threads: order %d, then %d: the free member should go first and "
          "the reader after both (expected 2, 111)", threads, order[0], order[1]);
}

/* ---- taskgroups ---- */

static void test_taskgroups(int threads)
{
    atomic_int ran = 0;
#pragma omp parallel num_threads(threads) shared(ran)
    {
#pragma omp taskgroup
        {
            for (int i = 0; i < 10; i++) {
#pragma omp task shared(ran)
                {
#pragma omp taskgroup
                    {
#pragma omp task shared(ran)
                        atomic_fetch_add(&ran, 1);
                    }
                    atomic_fetch_add(&ran, 1);
                }
            }
        }
    }
    CHECK(atomic_load(&ran) == 20 * threads);
}

/* ---- taskloop ---- */

enum { N = 100 };

/* Runs a taskloop over 0..N-1 and returns how many tasks it made: each task
 * starts with its own copy of the firstprivate `fresh`. */
#define COUNT_TASKS(clause)                                                        \
    ({                                                                             \
        int hits[N] = {0}, tasks = 0, fresh = 1;                                   \
        _Pragma("omp parallel num_threads(3) shared(hits, tasks)")                 \
        if (omp_get_thread_num() == 2) {                                           \
            _Pragma(clause)                                                        \
            for (int i = 0; i < N; i++) {                                          \
                if (fresh) {                                                       \
                    fresh = 0;                                                     \
                    _Pragma("omp atomic") tasks++;                                 \
                }                                                                  \
                hits[i]++;                                                         \
            }                                                                      \
        }                                                                          \
        for (int i = 0; i < N; i++)                                                \
            CHECK(hits[i] == 1, "%s: iteration %d ran %d times", clause, i, hits[i]); \
        tasks;                                                                     \
    })

static void test_taskloop_splits(void)
{
    int t;
    t = COUNT_TASKS("omp taskloop num_tasks(4) firstprivate(fresh)");
    CHECK(t == 4, "num_tasks(4): %d tasks", t);
    t = COUNT_TASKS("omp taskloop num_tasks(1000) firstprivate(fresh)");
    CHECK(t == N, "num_tasks above the iteration count: one per iteration (%d)", t);
    t = COUNT_TASKS("omp taskloop grainsize(10) firstprivate(fresh)");
    CHECK(t == 10, "grainsize(10): %d tasks", t);
    t = COUNT_TASKS("omp taskloop grainsize(30) firstprivate(fresh)");
    CHECK(t == 3, "grainsize(30): %d tasks of 30-34 iterations", t);
    t = COUNT_TASKS("omp taskloop grainsize(strict: 30) firstprivate(fresh)");
    CHECK(t == 4, "grainsize(strict: 30): 3 tasks of 30 and one of 10 (%d)", t);
    t = COUNT_TASKS("omp taskloop grainsize(200) firstprivate(fresh)");
    CHECK(t == 1, "grainsize above the iteration count: one task (%d)", t);
    t = COUNT_TASKS("omp taskloop firstprivate(fresh)");
    CHECK(t == 3, "no clause: as many tasks as threads (%d)", t);
    t = COUNT_TASKS("omp taskloop num_tasks(7) nogroup firstprivate(fresh)");
    CHECK(t == 7, "nogroup, num_tasks(7): %d tasks", t);
}

static void test_taskloop_shapes(void)
{
    long sum = 0;
#pragma omp taskloop num_tasks(5) reduction(+ : sum)
    for (long i = 1000; i > -1000; i -= 7)
        sum += i;
    long expected = 0;
    for (long i = 1000; i > -1000; i -= 7)
        expected += i;
    CHECK(sum == expected, "negative step: %ld, expected %ld", sum, expected);

    unsigned long long usum = 0, uexpected = 0;
    const unsigned long long top = 0xffffffffffffff00ull;
#pragma omp taskloop grainsize(9) reduction(+ : usum)
    for (unsigned long long u = top; u > top - 200; u -= 3)
        usum += u - (top - 200);
    for (unsigned long long u = top; u > top - 200; u -= 3)
        uexpected += u - (top - 200);
    CHECK(usum == uexpected, "unsigned long long, downwards: %llu, expected %llu", usum, uexpected);

    usum = uexpected = 0;
#pragma omp taskloop num_tasks(6) reduction(+ : usum)
    for (unsigned long long u = top - 500; u < top; u += 11)
        usum += u - (top - 500);
    for (unsigned long long u = top - 500; u < top; u += 11)
        uexpected += u - (top - 500);
    CHECK(usum == uexpected, "unsigned long long, upwards: %llu, expected %llu", usum, uexpected);

    int empty_runs = 0;
#pragma omp taskloop reduction(+ : empty_runs)
    for (int i = 0; i < 0; i++)
        empty_runs++;
    CHECK(empty_runs == 0, "an empty taskloop with a reduction runs nothing");
}

/* lastprivate: the task that runs the last iteration copies it out, also
 * when the step does not divide the range. */
static void test_taskloop_lastprivate(void)
{
    int last = -1, last_down = -1;
    unsigned long long last_ull = 0;
#pragma omp parallel num_threads(2) shared(last, last_down, last_ull)
    if (omp_get_thread_num() == 1) {
#pragma omp taskloop lastprivate(last) num_tasks(3)
        for (int i = 0; i < 100; i += 7)
            last = i;
#pragma omp taskloop lastprivate(last_down) grainsize(4)
        for (int i = 50; i > 3; i -= 5)
            last_down = i;
#pragma omp taskloop lastprivate(last_ull) num_tasks(2)
        for (unsigned long long u = 10; u < 1000; u += 33)
            last_ull = u;
    }
    CHECK(last == 98 && last_down == 5 && last_ull == 967, "lastprivate: %d %d %llu", last, last_down, last_ull);
}

/* ---- task reductions ---- */

static void test_taskgroup_task_reduction(int threads)
{
    long r = 0;
    const int tasks = 50;
#pragma omp parallel num_threads(threads) shared(r)
    {
        /* Each thread its own taskgroup and its own variable: the
         * reductions of different threads are independent. */
        long mine = omp_get_thread_num();
#pragma omp taskgroup task_reduction(+ : mine)
        {
            for (int i = 1; i <= tasks; i++) {
#pragma omp task in_reduction(+ : mine) firstprivate(i)
                mine += i;
            }
        }
        mine -= omp_get_thread_num();
#pragma omp atomic
        r += mine;
    }
    /* One taskgroup, in the last thread (id > 0: its own private block). */
    long one = 0;
#pragma omp parallel num_threads(threads) shared(one)
    if (omp_get_thread_num() == threads - 1) {
#pragma omp taskgroup task_reduction(+ : one)
        for (int i = 1; i <= tasks; i++) {
#pragma omp task in_reduction(+ : one) firstprivate(i)
            one += i;
        }
    }
    CHECK(one == (long)tasks * (tasks + 1) / 2, "%d threads: one thread's taskgroup reduction %ld", threads, one);
    long expected = (long)threads * tasks * (tasks + 1) / 2;
    CHECK(r == expected, "%d threads: taskgroup reduction %ld, expected %ld", threads, r, expected);
}

/* Outside any parallel region. */
static void test_orphaned_nested_task_reductions(void)
{
    long s = 0, t = 0;
#pragma omp taskgroup task_reduction(+ : s)
    {
#pragma omp taskgroup task_reduction(+ : t)
        {
#pragma omp task in_reduction(+ : s, t)
            {
                s += 3;
                t += 4;
#pragma omp task in_reduction(+ : s)
                s += 5;
            }
        }
    }
    CHECK(s == 8 && t == 4, "nested task reductions: s %ld, t %ld", s, t);
}

static void test_parallel_task_reduction(int threads)
{
    long r = 0;
    int team = 0;
#pragma omp parallel num_threads(threads) reduction(task, + : r) shared(team)
    {
        if (omp_get_thread_num() == 0)
            team = omp_get_num_threads();
        r += 1;
#pragma omp task in_reduction(+ : r)
        r += 10;
    }
    long expected = 11L * team;
    CHECK(team == threads, "team of %d", team);
    CHECK(r == expected, "%d threads: parallel reduction(task) %ld, expected %ld", threads, r, expected);
}

int main(void)
{
    test_cpyfn();
    test_final();
    test_if_depend_priority();
    test_detach_fulfilled_by_later_task();
    test_taskwait_waits_for_fulfilment();
    test_taskgroup_waits_for_fulfilment();
    test_solo_counts_beside_outside_fulfiller();
    test_taskloop_splits();
    test_taskloop_lastprivate();
    for (int i = 0; i < TEAM_SIZES; i++) {
        test_cpyfn_every_path(team_sizes[i]);
        test_barriers_wait_for_fulfilment(team_sizes[i], false);
        test_barriers_wait_for_fulfilment(team_sizes[i], true);
        test_successor_waits_for_fulfilment(team_sizes[i]);
        if (team_sizes[i] > 1) /* its sibling waits for a flag the undeferred task sets */
            test_undeferred_waits_for_own_deps(team_sizes[i]);
        test_mutexinoutset_not_serialised(team_sizes[i]);
        test_many_detached(team_sizes[i]);
        test_tasks_run(team_sizes[i]);
        test_taskgroups(team_sizes[i]);
        test_taskgroup_task_reduction(team_sizes[i]);
        test_parallel_task_reduction(team_sizes[i]);
    }
    /* Task reductions outside any parallel region come last: libgomp
     * leaves the initial thread in a team of one after them. */
    test_taskloop_shapes();
    test_orphaned_nested_task_reductions();
    printf("test_omp_task: ok\n");
    return 0;
}
