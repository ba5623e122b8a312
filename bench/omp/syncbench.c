/* syncbench: the overhead of OpenMP's synchronization constructs, by the
 * method of the EPCC OpenMP microbenchmarks (Bull, Reid & McDonnell).
 *
 * For each construct the test loop runs the construct INNER times with a
 * calibrated busy delay (~0.1 us) inside; a reference loop runs as many
 * delays on one thread; overhead = (test time - reference time) /
 * executions.  INNER is calibrated so one test loop takes about --target-ms,
 * and a loop that runs past BUDGET_FACTOR times that stops early, so every
 * sample is bounded by time; --samples such loops give mean, median and
 * spread.  Before it times anything, each
 * construct is run under checks (every iteration once, mutual exclusion, the
 * barrier holding, the team size, the reduction's sum, the atomic count):
 * numbers from a runtime that gets the construct wrong are not reported.
 *
 * An ordinary `gcc -fopenmp` program: it runs on whichever runtime answers
 * the GOMP_* calls (libgomp, or another under LD_PRELOAD), names that runtime
 * in its first line and prints one line per construct:
 *   # syncbench runtime=PATH threads=N delay_iters=I delay_ns=D target_ms=T
 *   construct=BARRIER threads=2 status=ok inner=... samples=... executions=...
 *     mean_us=... median_us=... sd_us=... min_us=... max_us=... csw_per_op=... cpu_us_per_op=...
 *   construct=CRITICAL threads=2 status=error message=what went wrong
 * `muster bench omp` runs it once per sample under each runtime in turn. */
#include "cli.h"
#include "record.h"
#include "epcc_delay.h"
#include "sample_stats.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <omp.h>
#include <stdarg.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define PROG "syncbench"
#define MAX_SAMPLES 1000
#define CHECK_REPS 200       /* episodes of each construct run under checks */
#define CHECK_SLOW_ITERS 20  /* x delay: how much later one thread arrives in the checks */
#define MIN_INNER 4          /* one lucky episode must never be the sample */
#define BUDGET_FACTOR 3      /* a test loop is stopped after this many times --target-ms */
#define MAX_INNER ((uint64_t)INT_MAX) /* ORDERED's loop variable is an int */
#define CONFIRMATIONS 3      /* loops of the calibrated INNER that may correct it */

/* What one test or check reports: NULL when all was well, else why not. */
typedef const char *verdict;

/* One run of a construct's loop: up to `inner` executions of the construct
 * with delay_iters steps of delay in each, stopped early (at a point the
 * whole team agrees on) once the clock passes `deadline`, so that a sample
 * is bounded by time however slow the construct turns out to be: a barrier
 * that took 0.4 us while INNER was calibrated can take milliseconds when
 * spinning threads outnumber the CPUs.  `done` says how many executions
 * there were; the reference loop is then run for that many. */
typedef struct loop_args {
    uint64_t inner;
    unsigned delay_iters;
    unsigned threads;
    uint64_t deadline; /* epcc_now_ns() */
    uint64_t done;     /* out */
} loop_args;

/* The clock is read every CLOCK_EVERY executions: often enough to stop
 * promptly, seldom enough to cost nothing beside the construct. */
#define CLOCK_EVERY 16

static int time_is_up(const loop_args *a, uint64_t j)
{
    return j % CLOCK_EVERY == CLOCK_EVERY - 1 && epcc_now_ns() > a->deadline;
}

typedef long long (*region_fn)(const loop_args *a);
typedef void (*team_step_fn)(const loop_args *a);

/* A construct's timed loop is one of three shapes: regions one after
 * another (region), constructs inside one region (step), or a loop of its
 * own (test). */
typedef struct construct {
    const char *name;     /* as printed: construct=NAME */
    int shared_by_team;   /* INNER is divided among the threads (EPCC: innerreps / nthreads) */
    region_fn region;     /* one region of a loop of regions */
    team_step_fn step;    /* one construct of a loop inside one region */
    verdict (*test)(loop_args *a);            /* else: the whole timed loop, with the checks that cost nothing */
    void (*reference)(const loop_args *a);    /* the same work without the construct, one thread */
    verdict (*check)(unsigned threads);       /* the construct under instrumented checks */
} construct;

static char verdict_buf[256];

static verdict failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static verdict failed(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(verdict_buf, sizeof verdict_buf, fmt, ap);
    va_end(ap);
    return verdict_buf;
}

/* ---- reference loops ------------------------------------------------------ */

static void reference_delay(const loop_args *a)
{
    for (uint64_t j = 0; j < a->inner; j++)
        epcc_delay(a->delay_iters);
}

/* EPCC's ATOMIC has no delay: its reference is the same update, unprotected. */
static double atomic_epsilon_sum(uint64_t n)
{
    double sum = 0, b = 1.0, c = 1.0 + 1.0e-15;
    for (uint64_t j = 0; j < n; j++) {
        sum += b;
        b *= c;
    }
    return sum;
}

/* Where results go that nothing reads, so the loops making them stay. */
static volatile double sink;

static void reference_atomic(const loop_args *a) { sink = atomic_epsilon_sum(a->inner); }

static void reference_reduction(const loop_args *a)
{
    volatile int sum = 0;
    for (uint64_t j = 0; j < a->inner; j++) {
        epcc_delay(a->delay_iters);
        sum += 1;
    }
}

/* ---- the timed loops (EPCC syncbench's test functions) -------------------- */

/* Loops of whole regions, run by the initial thread: it alone decides when
 * to stop.  A region returns what it adds to a total (REDUCTION's sum). */
static long long run_regions(loop_args *a, region_fn region)
{
    long long total = 0;
    uint64_t j = 0, n = a->inner;
    for (; j < n; j++) {
        total += region(a);
        if (time_is_up(a, j))
            n = j + 1; /* leave after counting this one */
    }
    a->done = j;
    return total;
}

static long long region_parallel(const loop_args *a)
{
#pragma omp parallel
    epcc_delay(a->delay_iters);
    return 0;
}

static long long region_parallel_for(const loop_args *a)
{
    int n = (int)a->threads;
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        epcc_delay(a->delay_iters);
    return 0;
}

static long long region_reduction(const loop_args *a)
{
    long long sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
        epcc_delay(a->delay_iters);
        sum += 1;
    }
    return sum;
}

static verdict test_reduction(loop_args *a)
{
    long long sum = run_regions(a, region_reduction), want = (long long)a->done * a->threads;
    if (sum != want)
        return failed("REDUCTION: the sum is %lld, not %lld", sum, want);
    return NULL;
}

/* Loops inside one region, where every thread meets every construct: thread
 * 0 decides before it enters construct j, the others read the decision
 * after it, and the construct's own synchronization (the barrier, or the
 * barrier that ends a for or single) orders the two, so all leave after the
 * same construct. */
static _Atomic uint64_t stop_after;

static void decide(const loop_args *a, uint64_t j)
{
    if (omp_get_thread_num() == 0 && time_is_up(a, j))
        atomic_store_explicit(&stop_after, j, memory_order_relaxed);
}

static int decided(uint64_t j) { return atomic_load_explicit(&stop_after, memory_order_relaxed) == j; }

/* Each step is one construct of a team loop, orphaned: called inside the
 * region. */
static void run_team_loop(loop_args *a, team_step_fn step)
{
    atomic_store(&stop_after, UINT64_MAX);
#pragma omp parallel
    for (uint64_t j = 0; j < a->inner; j++) {
        decide(a, j);
        step(a);
        if (decided(j))
            break;
    }
    uint64_t stop = atomic_load(&stop_after);
    a->done = stop != UINT64_MAX ? stop + 1 : a->inner;
}

static void step_for(const loop_args *a)
{
    int n = (int)a->threads;
#pragma omp for
    for (int i = 0; i < n; i++)
        epcc_delay(a->delay_iters);
}

static void step_barrier(const loop_args *a)
{
    epcc_delay(a->delay_iters);
#pragma omp barrier
}

static void step_single(const loop_args *a)
{
#pragma omp single
    epcc_delay(a->delay_iters);
}

/* Loops where each thread runs its share alone (EPCC: innerreps / nthreads
 * each): each thread stops on its own, and the executions are summed. */
static verdict test_critical(loop_args *a)
{
    uint64_t each = a->inner / a->threads, done = 0;
#pragma omp parallel reduction(+ : done)
    {
        uint64_t j = 0, mine = each;
        for (; j < mine; j++) {
#pragma omp critical
            epcc_delay(a->delay_iters);
            if (time_is_up(a, j))
                mine = j + 1;
        }
        done = j;
    }
    a->done = done;
    return NULL;
}

static omp_lock_t bench_lock;

/* Made on first use, so that a runtime without locks can still be measured
 * on everything else. */
static void init_bench_lock(void)
{
    static int ready;
    if (!ready)
        omp_init_lock(&bench_lock);
    ready = 1;
}

static verdict test_lock(loop_args *a)
{
    uint64_t each = a->inner / a->threads, done = 0;
    init_bench_lock();
#pragma omp parallel reduction(+ : done)
    {
        uint64_t j = 0, mine = each;
        for (; j < mine; j++) {
            omp_set_lock(&bench_lock);
            epcc_delay(a->delay_iters);
            omp_unset_lock(&bench_lock);
            if (time_is_up(a, j))
                mine = j + 1;
        }
        done = j;
    }
    a->done = done;
    return NULL;
}

/* Each thread adds b, b*c, b*c^2 ... to one shared double: the total is the
 * sum of each thread's unprotected sum, to rounding, when no update was
 * lost. */
static verdict test_atomic(loop_args *a)
{
    uint64_t each = a->inner / a->threads;
    uint64_t *count = calloc(a->threads, sizeof *count);
    double sum = 0;
    if (count == NULL)
        return failed("ATOMIC: out of memory");
#pragma omp parallel
    {
        double b = 1.0, c = 1.0 + 1.0e-15;
        uint64_t j = 0, mine = each;
        for (; j < mine; j++) {
#pragma omp atomic
            sum += b;
            b *= c;
            if (time_is_up(a, j))
                mine = j + 1;
        }
        count[omp_get_thread_num() % a->threads] = j;
    }
    double want = 0;
    a->done = 0;
    for (unsigned t = 0; t < a->threads; t++) {
        want += atomic_epsilon_sum(count[t]);
        a->done += count[t];
    }
    free(count);
    if (sum < want * (1 - 1e-9) || sum > want * (1 + 1e-9))
        return failed("ATOMIC: the shared sum is %.17g, not %.17g: updates were lost", sum, want);
    return NULL;
}

/* A worksharing loop cannot be left early, so once time is up the remaining
 * iterations skip their ordered region (OpenMP allows an iteration none);
 * the ordered regions that did run are counted inside, in order. */
static verdict test_ordered(loop_args *a)
{
    int n = (int)a->inner;
    uint64_t ran = 0;
    atomic_int stopped = 0;
#pragma omp parallel for ordered schedule(static, 1)
    for (int j = 0; j < n; j++) {
        if (atomic_load_explicit(&stopped, memory_order_relaxed))
            continue;
#pragma omp ordered
        {
            epcc_delay(a->delay_iters);
            if (time_is_up(a, ran++))
                atomic_store_explicit(&stopped, 1, memory_order_relaxed);
        }
    }
    a->done = ran;
    return NULL;
}

/* ---- checks: the same constructs, instrumented ---------------------------- */

/* The delay that makes one thread late, so that a construct that does not
 * wait for it shows. */
static unsigned slow_iters;

static verdict check_parallel(unsigned threads)
{
    long entries = 0;
    for (int j = 0; j < CHECK_REPS; j++) {
#pragma omp parallel
        {
#pragma omp atomic
            entries++;
        }
    }
    if (entries != (long)CHECK_REPS * threads)
        return failed("PARALLEL: %ld thread entries in %d regions of %u", entries, CHECK_REPS, threads);
    return NULL;
}

/* hits[i] counts the executions of iteration i over all episodes. */
static verdict count_iterations(const char *name, const long *hits, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (hits[i] != CHECK_REPS)
            return failed("%s: iteration %u ran %ld times in %d loops", name, i, hits[i], CHECK_REPS);
    return NULL;
}

static verdict check_for(unsigned threads)
{
    long hits[threads];
    int n = (int)threads;
    memset(hits, 0, sizeof hits);
#pragma omp parallel
    for (int j = 0; j < CHECK_REPS; j++) {
#pragma omp for
        for (int i = 0; i < n; i++) {
#pragma omp atomic
            hits[i]++;
        }
    }
    return count_iterations("FOR", hits, threads);
}

static verdict check_parallel_for(unsigned threads)
{
    long hits[threads];
    int n = (int)threads;
    memset(hits, 0, sizeof hits);
    for (int j = 0; j < CHECK_REPS; j++) {
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
#pragma omp atomic
            hits[i]++;
        }
    }
    return count_iterations("PARALLEL FOR", hits, threads);
}

/* In episode j thread j % threads arrives late; after the barrier every
 * thread must see all (j + 1) x threads arrivals. */
static verdict check_barrier(unsigned threads)
{
    long arrivals = 0, early = 0;
#pragma omp parallel
    for (int j = 0; j < CHECK_REPS; j++) {
        if ((unsigned)omp_get_thread_num() == (unsigned)j % threads)
            epcc_delay(slow_iters);
#pragma omp atomic
        arrivals++;
#pragma omp barrier
        long seen;
#pragma omp atomic read
        seen = arrivals;
        if (seen < (long)(j + 1) * threads) {
#pragma omp atomic
            early++;
        }
#pragma omp barrier
    }
    if (early)
        return failed("BARRIER: %ld threads left a barrier before everyone arrived", early);
    return NULL;
}

/* Every episode's body runs once, and the implied barrier holds everyone
 * until it has. */
static verdict check_single(unsigned threads)
{
    long bodies = 0, early = 0;
#pragma omp parallel
    for (int j = 0; j < CHECK_REPS; j++) {
#pragma omp single
        {
            epcc_delay(slow_iters);
#pragma omp atomic
            bodies++;
        }
        long seen;
#pragma omp atomic read
        seen = bodies;
        if (seen < j + 1) {
#pragma omp atomic
            early++;
        }
    }
    if (bodies != CHECK_REPS)
        return failed("SINGLE: the body ran %ld times in %d constructs", bodies, CHECK_REPS);
    if (early)
        return failed("SINGLE: %ld threads passed a single before its body had run", early);
    return NULL;
}

/* What the CRITICAL and LOCK checks share.  Broken exclusion only shows
 * when a second thread tries to enter while one is inside, and on a busy
 * machine two threads may seldom run at the same moment; so
 * - the threads first wait until all have started;
 * - each announces itself (`waiting`) before it asks to enter, and a thread
 *   inside lingers until someone is waiting (up to COMPANY_NS, and not once
 *   the others are done), yielding its CPU meanwhile: on a loaded machine
 *   the others may share it, and one that cannot run cannot arrive (two
 *   busy processes beside a 2-thread check on 2 CPUs: a broken lock went
 *   unseen in 1 of 25 runs while the one inside spun);
 * - once someone waits, the one inside stays WAITER_GRACE_NS more, for a
 *   waiter between its announcement and its entry;
 * - no thread starts entry j+1 before every other has made entry j (or
 *   finished): a waiter descheduled for milliseconds after announcing
 *   could otherwise watch the others, who saw it announced and so stopped
 *   lingering, make all their entries before it made its own (a broken
 *   lock passed in CI so; BROKEN_GOMP=late-lock reproduces it).
 * Broken exclusion then lets a waiter in beside the one inside, and it is
 * counted.  Correct exclusion costs the grace per entry (CHECK_REPS x
 * threads x 20 us: 8 ms at 2 threads); its threads take turns anyway, so
 * the lockstep costs nothing. */
#define COMPANY_NS 1000000
#define WAITER_GRACE_NS 20000
struct exclusion {
    atomic_int started, finished, waiting, inside;
    atomic_long overlaps;
    long counter;        /* incremented by read, linger, write: a lost update shows too */
    unsigned threads;
    atomic_int *entries; /* entries made, per thread; INT_MAX once done */
    uint64_t give_up;    /* no thread waits past this for the others */
    atomic_bool apart;   /* not all started by then: no lockstep */
};

/* Prepares e for a team of `threads` (NULL: no memory). */
static struct exclusion *exclusion_new(unsigned threads)
{
    struct exclusion *e = calloc(1, sizeof *e);
    if (e == NULL || (e->entries = calloc(threads, sizeof *e->entries)) == NULL) {
        free(e);
        return NULL;
    }
    e->threads = threads;
    e->give_up = epcc_now_ns() + 2000000000u; /* two seconds: never hang the check */
    return e;
}

static void exclusion_free(struct exclusion *e)
{
    free(e->entries);
    free(e);
}

static void exclusion_start(struct exclusion *e)
{
    atomic_fetch_add(&e->started, 1);
    while ((unsigned)atomic_load(&e->started) < e->threads)
        if (epcc_now_ns() >= e->give_up) {
            atomic_store(&e->apart, true);
            return;
        }
}

/* Waits (yielding) until every other thread has made `entry` entries. */
static void keep_step(struct exclusion *e, unsigned me, int entry)
{
    for (unsigned i = 0; i < e->threads && !atomic_load(&e->apart); i++)
        while (i != me && atomic_load(&e->entries[i]) < entry && epcc_now_ns() < e->give_up)
            sched_yield();
}

static void announce(struct exclusion *e, unsigned me, int entry)
{
    keep_step(e, me, entry);
    atomic_fetch_add(&e->waiting, 1);
}

static void exclusive_body(struct exclusion *e, unsigned me)
{
    atomic_fetch_sub(&e->waiting, 1);
    if (atomic_fetch_add(&e->inside, 1) > 0)
        atomic_fetch_add(&e->overlaps, 1);
    atomic_fetch_add(&e->entries[me], 1);
    long v = *(volatile long *)&e->counter;
    uint64_t now = epcc_now_ns(), until = now + COMPANY_NS;
    bool company = false;
    while ((unsigned)atomic_load(&e->finished) + 1 < e->threads && now < until) {
        if (!company && atomic_load(&e->waiting) > 0) {
            company = true;
            until = now + WAITER_GRACE_NS;
        }
        sched_yield();
        now = epcc_now_ns();
    }
    *(volatile long *)&e->counter = v + 1;
    atomic_fetch_sub(&e->inside, 1);
}

static void exclusion_done(struct exclusion *e, unsigned me)
{
    atomic_store(&e->entries[me], INT_MAX);
    atomic_fetch_add(&e->finished, 1);
}

static verdict judge_exclusion(const char *name, struct exclusion *e)
{
    if (e == NULL)
        return failed("%s: no memory for the check", name);
    long want = (long)CHECK_REPS * e->threads, overlaps = atomic_load(&e->overlaps);
    long counter = e->counter;
    exclusion_free(e);
    if (overlaps || counter != want)
        return failed("%s: %ld entries found another thread inside, %ld of %ld increments survived: "
                      "mutual exclusion failed", name, overlaps, counter, want);
    return NULL;
}

static verdict check_critical(unsigned threads)
{
    struct exclusion *e = exclusion_new(threads);
    if (e == NULL)
        return judge_exclusion("CRITICAL", e);
#pragma omp parallel
    {
        unsigned me = (unsigned)omp_get_thread_num() % threads;
        exclusion_start(e);
        for (int j = 0; j < CHECK_REPS; j++) {
            announce(e, me, j);
#pragma omp critical
            exclusive_body(e, me);
        }
        exclusion_done(e, me);
    }
    return judge_exclusion("CRITICAL", e);
}

static verdict check_lock(unsigned threads)
{
    struct exclusion *e = exclusion_new(threads);
    if (e == NULL)
        return judge_exclusion("LOCK", e);
    init_bench_lock();
#pragma omp parallel
    {
        unsigned me = (unsigned)omp_get_thread_num() % threads;
        exclusion_start(e);
        for (int j = 0; j < CHECK_REPS; j++) {
            announce(e, me, j);
            omp_set_lock(&bench_lock);
            exclusive_body(e, me);
            omp_unset_lock(&bench_lock);
        }
        exclusion_done(e, me);
    }
    return judge_exclusion("LOCK", e);
}

/* The timed loop's schedule too: static with chunk 1 deals iteration j to
 * thread j mod T, so consecutive ordered parts pass from thread to thread.
 * LLVM libomp 14, running gcc's GOMP_loop_ordered_static_start, deals the
 * iterations in blocks (thread 0 gets the first n/T), so its ordered parts
 * never change hands: a different, cheaper loop (0.3 us per iteration at 4
 * threads on 2 CPUs, where a hand-off between threads sharing a CPU costs a
 * context switch), not a faster runtime. */
static verdict check_ordered(unsigned threads)
{
    int next = 0, out_of_order = 0, misplaced = 0, first_misplaced = -1, n = CHECK_REPS * (int)threads;
#pragma omp parallel for ordered schedule(static, 1)
    for (int j = 0; j < n; j++) {
        if (j % 3 == 0)
            epcc_delay(slow_iters / 4 + 1); /* some iterations reach ordered late */
#pragma omp ordered
        {
            if (next != j)
                out_of_order++;
            next = j + 1;
            if ((unsigned)omp_get_thread_num() != (unsigned)j % threads && misplaced++ == 0)
                first_misplaced = j;
        }
    }
    if (out_of_order)
        return failed("ORDERED: %d of %d iterations ran their ordered part out of order", out_of_order, n);
    if (misplaced)
        return failed("ORDERED: %d of %d iterations ran on a thread schedule(static, 1) does not give them "
                      "(iteration %d should run on thread %u)",
                      misplaced, n, first_misplaced, (unsigned)first_misplaced % threads);
    return NULL;
}

static verdict check_atomic(unsigned threads)
{
    long count = 0;
#pragma omp parallel
    for (int j = 0; j < CHECK_REPS * 50; j++) {
#pragma omp atomic
        count++;
    }
    if (count != (long)CHECK_REPS * 50 * threads)
        return failed("ATOMIC: the count is %ld, not %ld", count, (long)CHECK_REPS * 50 * threads);
    loop_args a = {.inner = (uint64_t)CHECK_REPS * threads, .threads = threads, .deadline = UINT64_MAX};
    return test_atomic(&a);
}

static verdict check_reduction(unsigned threads)
{
    long sum = 0;
    double product = 1;
#pragma omp parallel reduction(+ : sum) reduction(* : product)
    {
        sum += omp_get_thread_num() + 1;
        product *= 2;
    }
    long want = (long)threads * (threads + 1) / 2;
    if (sum != want || product != ldexp(1, (int)threads))
        return failed("REDUCTION: sum %ld (want %ld), product %g (want %g)", sum, want, product,
                      ldexp(1, (int)threads));
    loop_args a = {.inner = CHECK_REPS, .threads = threads, .deadline = UINT64_MAX};
    return test_reduction(&a);
}

/* ---- task constructs (EPCC taskbench) -------------------------------------
 *
 * Each loop makes tasks of one delay each, in EPCC taskbench's shapes, and
 * counts the delays it asked for; `done` is that count ÷ the team size, the
 * delays one thread would run if the work were spread evenly, so the
 * reference loop (that many delays on one thread) is the ideal time and the
 * overhead is per task each thread sees, as EPCC reports it.  Every thread
 * stops making tasks on its own once time is up (TASK_BARRIER: the team
 * stops together, its barrier orders the decision).
 *
 * Under checks (`checking_tasks`) every task body counts itself, and the
 * constructs that promise completion (taskwait, barrier, the end of a
 * parallel region) are checked to have given it. */
static int checking_tasks;        /* set only between regions */
static atomic_long tasks_ran;     /* task bodies run, while checking */
static atomic_long tasks_early;   /* waits that returned before their tasks had run */
static volatile int never_true;   /* CONDITIONAL_TASK's if(): false, and the compiler cannot know it */

static void task_body(unsigned delay_iters)
{
    epcc_delay(delay_iters);
    if (checking_tasks)
        atomic_fetch_add_explicit(&tasks_ran, 1, memory_order_relaxed); /* relaxed: a count, read after the region */
}

/* After a wait that must have completed every task counted in `made`. */
static void expect_ran(long made)
{
    if (checking_tasks && atomic_load(&tasks_ran) < made)
        atomic_fetch_add(&tasks_early, 1);
}

/* The end of every task loop: `made` tasks (or delays standing in for
 * them, MASTER_TASK_BUSY_SLAVES's other threads) over the whole team. */
static verdict tasks_finished(loop_args *a, const char *name, uint64_t made, uint64_t as_tasks)
{
    a->done = made / a->threads ? made / a->threads : 1;
    if (!checking_tasks)
        return NULL;
    long ran = atomic_load(&tasks_ran), early = atomic_load(&tasks_early);
    if (ran != (long)as_tasks)
        return failed("%s: %ld task bodies ran, %llu tasks were made", name, ran, (unsigned long long)as_tasks);
    if (early)
        return failed("%s: %ld waits returned before the tasks they wait for had run", name, early);
    return NULL;
}

/* tasks_finished for a loop whose `made` tasks must all have run by the
 * region's end (its implicit barrier). */
static verdict tasks_finished_at_join(loop_args *a, const char *name, uint64_t made)
{
    expect_ran((long)made);
    return tasks_finished(a, name, made, made);
}

/* Makes up to n tasks of one delay each, deferrable or not, stopping
 * early once time is up; returns how many it made. */
static uint64_t make_tasks(const loop_args *a, uint64_t n, int deferrable)
{
    uint64_t j = 0;
    for (; j < n; j++) {
#pragma omp task if (deferrable)
        task_body(a->delay_iters);
        if (time_is_up(a, j))
            n = j + 1;
    }
    return j;
}

/* PARALLEL TASK: every thread makes its tasks. */
static verdict test_parallel_task(loop_args *a)
{
    uint64_t made = 0;
#pragma omp parallel reduction(+ : made)
    made = make_tasks(a, a->inner, 1);
    return tasks_finished_at_join(a, "PARALLEL_TASK", made);
}

/* MASTER TASK: the master makes the whole team's tasks. */
static verdict test_master_task(loop_args *a)
{
    uint64_t made = 0;
#pragma omp parallel
#pragma omp master
    made = make_tasks(a, a->inner * a->threads, 1);
    return tasks_finished_at_join(a, "MASTER_TASK", made);
}

/* MASTER TASK BUSY SLAVES: the master makes tasks while the others run as
 * many delays themselves. */
static verdict test_master_task_busy(loop_args *a)
{
    uint64_t made = 0, delays = 0;
#pragma omp parallel reduction(+ : made, delays)
    {
        int master = omp_get_thread_num() == 0;
        uint64_t j = 0, mine = a->inner;
        for (; j < mine; j++) {
            if (master) {
#pragma omp task
                task_body(a->delay_iters);
            } else {
                epcc_delay(a->delay_iters);
            }
            if (time_is_up(a, j))
                mine = j + 1;
        }
        if (master)
            made = j;
        else
            delays = j;
    }
    expect_ran((long)made);
    return tasks_finished(a, "MASTER_TASK_BUSY_SLAVES", made + delays, made);
}

/* CONDITIONAL TASK: if(false), so every task is undeferred. */
static verdict test_conditional_task(loop_args *a)
{
    uint64_t made = 0;
#pragma omp parallel reduction(+ : made)
    made = make_tasks(a, a->inner, never_true);
    return tasks_finished(a, "CONDITIONAL_TASK", made, made);
}

/* TASK WAIT: every thread makes a task and waits for it.  While checking,
 * each thread's tasks count themselves in its own slot too. */
static verdict test_task_wait(loop_args *a)
{
    uint64_t made = 0;
    atomic_long *mine_ran = calloc(a->threads, sizeof *mine_ran);
    if (mine_ran == NULL)
        return failed("TASK_WAIT: out of memory");
#pragma omp parallel reduction(+ : made)
    {
        atomic_long *slot = &mine_ran[(unsigned)omp_get_thread_num() % a->threads];
        uint64_t j = 0, mine = a->inner;
        for (; j < mine; j++) {
#pragma omp task
            {
                task_body(a->delay_iters);
                if (checking_tasks)
                    atomic_fetch_add(slot, 1);
            }
#pragma omp taskwait
            if (checking_tasks && atomic_load(slot) != (long)j + 1)
                atomic_fetch_add(&tasks_early, 1);
            if (time_is_up(a, j))
                mine = j + 1;
        }
        made = j;
    }
    free(mine_ran);
    return tasks_finished(a, "TASK_WAIT", made, made);
}

/* TASK BARRIER: every thread makes a task, then the team meets at a
 * barrier, which completes every task made before it. */
static void step_task_barrier(const loop_args *a)
{
#pragma omp task
    task_body(a->delay_iters);
#pragma omp barrier
}

static verdict test_task_barrier(loop_args *a)
{
    if (!checking_tasks) {
        run_team_loop(a, step_task_barrier);
        return tasks_finished(a, "TASK_BARRIER", a->done * a->threads, a->done * a->threads);
    }
    atomic_store(&stop_after, UINT64_MAX);
#pragma omp parallel
    for (uint64_t j = 0; j < a->inner; j++) {
        step_task_barrier(a);
        expect_ran((long)((j + 1) * a->threads));
#pragma omp barrier
    }
    a->done = a->inner;
    return tasks_finished(a, "TASK_BARRIER", a->done * a->threads, a->done * a->threads);
}

/* The outer task of the nested shapes: one inner task per thread, then a
 * taskwait, which must have completed exactly those. */
static void nest_tasks(const loop_args *a, int untied)
{
    atomic_long kids = 0;
    for (unsigned i = 0; i < a->threads; i++) {
        if (untied) {
#pragma omp task untied shared(kids)
            {
                task_body(a->delay_iters);
                if (checking_tasks)
                    atomic_fetch_add(&kids, 1);
            }
        } else {
#pragma omp task shared(kids)
            {
                task_body(a->delay_iters);
                if (checking_tasks)
                    atomic_fetch_add(&kids, 1);
            }
        }
    }
#pragma omp taskwait
    if (checking_tasks && atomic_load(&kids) != (long)a->threads)
        atomic_fetch_add(&tasks_early, 1);
}

/* Makes up to n outer tasks of nest_tasks, as make_tasks does; returns
 * the number of inner tasks they made (a->threads each). */
static uint64_t make_nesting_tasks(const loop_args *a, uint64_t n, int untied)
{
    uint64_t j = 0;
    for (; j < n; j++) {
#pragma omp task
        nest_tasks(a, untied);
        if (time_is_up(a, j))
            n = j + 1;
    }
    return j * a->threads;
}

/* NESTED TASK: every thread makes tasks that each make one task per thread
 * (untied) and wait for them. */
static verdict test_nested_task(loop_args *a)
{
    uint64_t made = 0;
    uint64_t outer = a->inner / a->threads ? a->inner / a->threads : 1;
#pragma omp parallel reduction(+ : made)
    made = make_nesting_tasks(a, outer, 1);
    return tasks_finished_at_join(a, "NESTED_TASK", made);
}

/* NESTED MASTER TASK: the master makes tasks that each make one task per
 * thread and wait for them. */
static verdict test_nested_master_task(loop_args *a)
{
    uint64_t made = 0;
#pragma omp parallel
#pragma omp master
    made = make_nesting_tasks(a, a->inner, 0);
    return tasks_finished_at_join(a, "NESTED_MASTER_TASK", made);
}

/* Runs a task loop under checks: every task body once, and every wait
 * complete.  A few rounds, so a runtime that loses a task now and then
 * shows. */
static verdict check_tasks(verdict (*test)(loop_args *), unsigned threads)
{
    verdict why = NULL;
    for (int round = 0; why == NULL && round < 4; round++) {
        atomic_store(&tasks_ran, 0);
        atomic_store(&tasks_early, 0);
        checking_tasks = 1;
        loop_args a = {.inner = CHECK_REPS / 4 + (uint64_t)round, .threads = threads, .deadline = UINT64_MAX,
                       .delay_iters = slow_iters / CHECK_SLOW_ITERS};
        why = test(&a);
        checking_tasks = 0;
    }
    return why;
}

static verdict check_parallel_task(unsigned threads) { return check_tasks(test_parallel_task, threads); }
static verdict check_master_task(unsigned threads) { return check_tasks(test_master_task, threads); }
static verdict check_master_task_busy(unsigned threads) { return check_tasks(test_master_task_busy, threads); }
static verdict check_conditional_task(unsigned threads) { return check_tasks(test_conditional_task, threads); }
static verdict check_task_wait(unsigned threads) { return check_tasks(test_task_wait, threads); }
static verdict check_task_barrier(unsigned threads) { return check_tasks(test_task_barrier, threads); }
static verdict check_nested_task(unsigned threads) { return check_tasks(test_nested_task, threads); }
static verdict check_nested_master_task(unsigned threads) { return check_tasks(test_nested_master_task, threads); }

/* ---- the table of constructs ---------------------------------------------- */

static const construct constructs[] = {
    {"PARALLEL", 0, region_parallel, NULL, NULL, reference_delay, check_parallel},
    {"FOR", 0, NULL, step_for, NULL, reference_delay, check_for},
    {"PARALLEL_FOR", 0, region_parallel_for, NULL, NULL, reference_delay, check_parallel_for},
    {"BARRIER", 0, NULL, step_barrier, NULL, reference_delay, check_barrier},
    {"SINGLE", 0, NULL, step_single, NULL, reference_delay, check_single},
    {"CRITICAL", 1, NULL, NULL, test_critical, reference_delay, check_critical},
    {"LOCK", 1, NULL, NULL, test_lock, reference_delay, check_lock},
    {"ORDERED", 0, NULL, NULL, test_ordered, reference_delay, check_ordered},
    {"ATOMIC", 1, NULL, NULL, test_atomic, reference_atomic, check_atomic},
    {"REDUCTION", 0, NULL, NULL, test_reduction, reference_reduction, check_reduction},
    {"PARALLEL_TASK", 0, NULL, NULL, test_parallel_task, reference_delay, check_parallel_task},
    {"MASTER_TASK", 0, NULL, NULL, test_master_task, reference_delay, check_master_task},
    {"MASTER_TASK_BUSY_SLAVES", 0, NULL, NULL, test_master_task_busy, reference_delay, check_master_task_busy},
    {"CONDITIONAL_TASK", 0, NULL, NULL, test_conditional_task, reference_delay, check_conditional_task},
    {"TASK_WAIT", 0, NULL, NULL, test_task_wait, reference_delay, check_task_wait},
    {"TASK_BARRIER", 0, NULL, NULL, test_task_barrier, reference_delay, check_task_barrier},
    {"NESTED_TASK", 0, NULL, NULL, test_nested_task, reference_delay, check_nested_task},
    {"NESTED_MASTER_TASK", 0, NULL, NULL, test_nested_master_task, reference_delay, check_nested_master_task},
};
#define CONSTRUCT_COUNT (sizeof constructs / sizeof constructs[0])

/* Case-insensitive; '-' and ' ' stand for '_' ("parallel-for"). */
static const construct *find_construct(const char *name)
{
    for (size_t c = 0; c < CONSTRUCT_COUNT; c++) {
        const char *a = constructs[c].name, *b = name;
        while (*a && *b && (*a == toupper((unsigned char)*b) || (*a == '_' && (*b == '-' || *b == ' '))))
            a++, b++;
        if (*a == '\0' && *b == '\0')
            return &constructs[c];
    }
    return NULL;
}

/* ---- measuring ------------------------------------------------------------ */

typedef struct options {
    unsigned long threads; /* 0: the runtime's default */
    int selected[CONSTRUCT_COUNT];
    unsigned long samples;
    double target_ms;
    double delay_ns;
    unsigned long delay_iters; /* 0: calibrate to delay_ns */
    unsigned long inner;       /* 0: calibrate to target_ms */
    int json;                  /* --json: JSON lines (record.h) */
} options;

/* --json: every line a JSON object (record.h). */
static bool output_json;

/* User + system CPU time of the whole process (every thread), in us. */
static double process_cpu_us(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static uint64_t context_switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru); /* every thread of the process, the runtime's workers too */
    return (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw);
}

/* INNER rounded so that a construct shared by the team gives every thread
 * the same count, and kept in [MIN_INNER, MAX_INNER]. */
static uint64_t fit_inner(const construct *c, uint64_t inner, unsigned threads)
{
    if (inner < MIN_INNER)
        inner = MIN_INNER;
    if (inner > MAX_INNER)
        inner = MAX_INNER;
    if (c->shared_by_team)
        inner = (inner + threads - 1) / threads * threads;
    return inner;
}

/* Runs the test loop once, stopping it after about budget_ns; returns its
 * time (a->done says how many executions that was), or UINT64_MAX after a
 * failed check (its message in *why). */
static uint64_t time_test(const construct *c, loop_args *a, uint64_t budget_ns, verdict *why)
{
    uint64_t t0 = epcc_now_ns();
    a->deadline = t0 + budget_ns;
    *why = NULL;
    if (c->region)
        run_regions(a, c->region);
    else if (c->step)
        run_team_loop(a, c->step);
    else
        *why = c->test(a);
    uint64_t t = epcc_now_ns() - t0;
    return *why ? UINT64_MAX : t;
}

/* INNER for a loop of about target_ns at per_execution ns each. */
static uint64_t scale_inner(const construct *c, uint64_t target_ns, double per_execution, unsigned threads)
{
    double scaled = (double)target_ns / per_execution;
    return fit_inner(c, scaled > (double)MAX_INNER ? MAX_INNER : (uint64_t)scaled, threads);
}

/* EPCC's innerreps calibration: grow INNER until the loop is long enough to
 * time well, then scale it to the target.  Every run is bounded by time,
 * so one slow construct cannot stretch the calibration either. */
static uint64_t calibrate_inner(const construct *c, loop_args *a, uint64_t target_ns, verdict *why)
{
    const uint64_t enough = target_ns / 8 ? target_ns / 8 : 1;
    uint64_t inner = fit_inner(c, 1, a->threads), ns;
    for (;;) {
        a->inner = inner;
        ns = time_test(c, a, BUDGET_FACTOR * target_ns, why);
        if (*why == NULL && ns >= enough) {
            /* Timed twice, the faster kept: one preemption on a busy
             * machine must not settle INNER at a handful of episodes. */
            uint64_t done = a->done, again = time_test(c, a, BUDGET_FACTOR * target_ns, why);
            if (again / (a->done ? a->done : 1) > ns / (done ? done : 1))
                a->done = done;
            else
                ns = again;
        }
        if (*why)
            return 0;
        if (ns >= enough || inner >= MAX_INNER / 16)
            break;
        uint64_t grow = ns > 0 ? enough / ns + 1 : 16;
        inner = fit_inner(c, inner * (grow < 2 ? 2 : grow > 16 ? 16 : grow), a->threads);
    }
    double per_execution = (double)(ns ? ns : 1) / (double)(a->done ? a->done : 1);
    uint64_t scaled = scale_inner(c, target_ns, per_execution, a->threads);
    /* Confirmed at the INNER found: early in a process, on this 2-CPU VM,
     * a region can take 0.3-1.3 ms for a while (libgomp too), and timing
     * two of them twice settled INNER at 43 episodes of a 0.1 us task
     * (muster 480 us per construct against 0.03 in other processes).  A
     * loop of the scaled length sees the real cost; re-scale while it is
     * far below the estimate. */
    for (int confirm = 0; confirm < CONFIRMATIONS; confirm++) {
        a->inner = scaled;
        ns = time_test(c, a, BUDGET_FACTOR * target_ns, why);
        if (*why)
            return 0;
        double seen = (double)(ns ? ns : 1) / (double)(a->done ? a->done : 1);
        if (seen * 2 > per_execution)
            break;
        per_execution = seen;
        scaled = scale_inner(c, target_ns, per_execution, a->threads);
    }
    return scaled;
}

/* The team must be the size asked for: a runtime that quietly runs fewer
 * threads would report a cheaper construct than it has. */
static verdict check_team(unsigned threads)
{
    unsigned seen = 0;
    /* Thread 0 reports, not a single: this check must not need more of the
     * runtime than the construct under test does. */
#pragma omp parallel
    if (omp_get_thread_num() == 0)
        seen = (unsigned)omp_get_num_threads();
    if (seen != threads)
        return failed("the team has %u threads, not the %u asked for", seen, threads);
    return NULL;
}

static void print_error(const construct *c, unsigned threads, verdict why)
{
    record_error(stdout, output_json, "construct", c->name, threads, why);
}

static void print_result(const construct *c, unsigned threads, uint64_t inner, const double *us,
                         size_t n, uint64_t executions, uint64_t csw, double cpu_us)
{
    sample_stats s = sample_stats_of(us, n);
    record r = record_begin(stdout, output_json, NULL);
    record_string(&r, "construct", c->name);
    record_uint(&r, "threads", threads);
    record_string(&r, "status", "ok");
    record_uint(&r, "inner", inner);
    record_uint(&r, "samples", n);
    record_uint(&r, "executions", executions);
    record_number(&r, "mean_us", s.mean);
    record_number(&r, "median_us", s.median);
    record_number(&r, "sd_us", s.sd);
    record_number(&r, "min_us", s.min);
    record_number(&r, "max_us", s.max);
    record_number(&r, "csw_per_op", (double)csw / (double)(executions ? executions : 1));
    record_number(&r, "cpu_us_per_op", cpu_us / (double)(executions ? executions : 1));
    record_end(&r); /* line by line: a driver that kills a later construct keeps this one */
}

/* One sample: the test loop (bounded by time), then the reference loop for
 * as many executions as the test loop managed.  Returns the overhead per
 * execution in us; adds the executions and context switches to the totals. */
static double take_sample(const construct *c, loop_args *a, uint64_t budget_ns, uint64_t *executions,
                          uint64_t *csw, double *cpu_us, verdict *why)
{
    uint64_t inner = a->inner, csw0 = context_switches();
    double cpu0 = process_cpu_us();
    uint64_t test_ns = time_test(c, a, budget_ns, why);
    *cpu_us += process_cpu_us() - cpu0;
    *csw += context_switches() - csw0;
    if (*why)
        return NAN;
    uint64_t done = a->done ? a->done : 1;
    a->inner = done;
    uint64_t t0 = epcc_now_ns();
    c->reference(a);
    uint64_t ref_ns = epcc_now_ns() - t0;
    a->inner = inner;
    *executions += done;
    return ((double)test_ns - (double)ref_ns) / (double)done / 1000.0;
}

/* Checks, calibrates, warms up, then takes the samples.  Returns 0, or 1
 * after reporting an error. */
static int measure(const construct *c, const options *o)
{
    uint64_t target_ns = (uint64_t)(o->target_ms * 1e6), budget_ns = BUDGET_FACTOR * target_ns;
    verdict why = check_team(o->threads);
    if (why == NULL)
        why = c->check(o->threads);
    loop_args a = {.delay_iters = (unsigned)o->delay_iters, .threads = o->threads};
    uint64_t inner = o->inner ? fit_inner(c, o->inner, o->threads)
                   : why ? 0 : calibrate_inner(c, &a, target_ns, &why);
    a.inner = inner / 8 ? fit_inner(c, inner / 8, o->threads) : inner;
    if (why == NULL)
        time_test(c, &a, budget_ns, &why); /* every thread of the runtime started and warm */
    double us[MAX_SAMPLES];
    uint64_t csw = 0, executions = 0;
    double cpu_us = 0.0;
    a.inner = inner;
    for (size_t k = 0; why == NULL && k < o->samples; k++)
        us[k] = take_sample(c, &a, budget_ns, &executions, &csw, &cpu_us, &why);
    if (why) {
        print_error(c, o->threads, why);
        return 1;
    }
    print_result(c, o->threads, inner, us, o->samples, executions, csw, cpu_us);
    return 0;
}

/* ---- options -------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
"usage: syncbench [options]\n"
"\n"
"EPCC-style overheads of OpenMP constructs, in microseconds per construct: the construct\n"
"INNER times with a short busy delay inside, then a reference loop of as many delays on\n"
"one thread; overhead = (test - reference) / executions.  A test loop that runs past 3x\n"
"--target-ms stops early (the whole team at the same construct) and counts what it did,\n"
"so every sample is bounded by time.  Each construct is first checked for correctness;\n"
"a construct that fails is reported as an error, with no numbers.\n"
"\n"
"options:\n"
"  --threads N         team size (default: the runtime's default)\n"
"  --constructs LIST   comma-separated, case-insensitive (default: all):\n"
"                      PARALLEL FOR PARALLEL_FOR BARRIER SINGLE CRITICAL LOCK ORDERED\n"
"                      ATOMIC REDUCTION, and EPCC taskbench's PARALLEL_TASK MASTER_TASK\n"
"                      MASTER_TASK_BUSY_SLAVES CONDITIONAL_TASK TASK_WAIT TASK_BARRIER\n"
"                      NESTED_TASK NESTED_MASTER_TASK\n"
"  --samples N         timed test loops per construct (default 10)\n"
"  --target-ms MS      length of one test loop (default 1, as EPCC)\n"
"  --delay-ns NS       the delay inside each construct (default 100)\n"
"  --delay-iters N     the delay as steps of the delay loop (overrides --delay-ns)\n"
"  --inner N           episodes per test loop (default: calibrated to --target-ms)\n"
"  --json              results as JSON lines (see Output)\n"
"  --help              this text\n"
"\n"
"Output: '# syncbench runtime=PATH ...' then one 'construct=NAME key=value ...' line per\n"
"construct; with --json the same fields as one JSON object per line (what 'muster bench\n"
"omp' reads).  Exit status 0 when every construct passed, 1 when one failed, 2 for a bad\n"
"command line.\n");
}

static int add_construct(const char *name, void *ctx)
{
    options *o = ctx;
    const construct *c = find_construct(name);
    if (c == NULL)
        return cli_usage_error(PROG, "--constructs: unknown construct '%s' (see --help)", name);
    o->selected[c - constructs] = 1;
    return 0;
}

static int set_constructs(const char *v, void *o)
{
    return cli_for_each_item(PROG, "--constructs", v, add_construct, o);
}

#define NUMBER(name, kind, field, min, max) {name, kind, offsetof(options, field), min, max, NULL}
static const cli_option valued_options[] = {
    NUMBER("--threads", CLI_VALUE_ULONG, threads, 1, 4096),
    {"--constructs", CLI_VALUE_CUSTOM, 0, 0, 0, set_constructs},
    NUMBER("--samples", CLI_VALUE_ULONG, samples, 1, MAX_SAMPLES),
    NUMBER("--target-ms", CLI_VALUE_DOUBLE, target_ms, 0, 60000),
    NUMBER("--delay-ns", CLI_VALUE_DOUBLE, delay_ns, 0, 1e6),
    NUMBER("--delay-iters", CLI_VALUE_ULONG, delay_iters, 1, 1e9),
    NUMBER("--inner", CLI_VALUE_ULONG, inner, 1, MAX_INNER),
    {"--json", CLI_FLAG, offsetof(options, json), 0, 0, NULL},
};
#undef NUMBER

/* Returns -1 to go on measuring, else the exit status. */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.samples = 10, .target_ms = 1, .delay_ns = 100};
    int any = 0;
    int rc = cli_parse_args(PROG, argc, argv, valued_options,
                            sizeof valued_options / sizeof valued_options[0], o, usage);
    if (rc >= 0)
        return rc;
    for (size_t c = 0; c < CONSTRUCT_COUNT; c++)
        any |= o->selected[c];
    for (size_t c = 0; !any && c < CONSTRUCT_COUNT; c++)
        o->selected[c] = 1;
    return -1;
}

/* OMP_NUM_THREADS already right (as `muster bench omp` sets it) needs no
 * call, so a runtime still without omp_set_num_threads can be measured. */
static void set_team_size(options *o)
{
    const char *env = getenv("OMP_NUM_THREADS");
    char want[16];
    snprintf(want, sizeof want, "%lu", o->threads);
    if (o->threads == 0)
        o->threads = (unsigned)omp_get_max_threads();
    else if (env == NULL || strcmp(env, want) != 0)
        omp_set_num_threads((int)o->threads);
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    set_team_size(&o);
    double delay_ns = 0;
    if (o.delay_iters == 0)
        o.delay_iters = epcc_calibrate_delay(o.delay_ns, &delay_ns);
    slow_iters = (unsigned)o.delay_iters * CHECK_SLOW_ITERS + 100;
    output_json = o.json;
    record r = record_begin(stdout, output_json, "# syncbench");
    record_answering_runtime(&r);
    record_uint(&r, "threads", o.threads);
    record_uint(&r, "delay_iters", o.delay_iters);
    record_number(&r, "delay_ns", delay_ns);
    record_number(&r, "target_ms", o.target_ms);
    record_end(&r);
    int failures = 0;
    for (size_t c = 0; c < CONSTRUCT_COUNT; c++)
        if (o.selected[c])
            failures += measure(&constructs[c], &o);
    return failures ? 1 : 0;
}
