/* soak_omp: an OpenMP program that runs random mixes of constructs for a
 * fixed time, checking every result; built by gcc -fopenmp, run on
 * libmuster-omp (the ctest case preloads it) or any runtime.
 *
 *   soak_omp [--seconds S] [--seed N] [--no-signals]
 *
 * Step after step until S seconds (default 30) have passed, each a region
 * of a random team size (1 to 2x the CPUs + 1, mostly not a power of two)
 * running one of: a reduction loop under a random schedule (omp_set_schedule),
 * critical sections, locks and atomics, an ordered loop, tasks with
 * dependences and a taskgroup, a taskloop, cancellation of a loop and of a
 * taskgroup (when OMP_CANCELLATION is on), nested regions two and three
 * levels deep under a random max-active-levels, sections with single,
 * master and barriers, runs of hundreds of short regions.  Meanwhile a
 * signal storm (unless --no-signals) interrupts one of the team's threads
 * with SIGUSR1 every ~100 us.
 *
 * Each step checks its answer against the serial one; a watchdog that sees
 * no step finish for 60 s names the step, prints every OpenMP thread's
 * stack, and aborts.  Prints a progress line every 10 s and a summary at
 * the end (steps by kind and their mean time, parallel regions, signals);
 * exit 0 when every answer was right.  SOAK_EXPECT_RUNTIME=TEXT: refuse
 * to run (exit 2) unless the library answering omp_get_thread_num has
 * TEXT in its path, so that a run meant for muster cannot pass on
 * another runtime. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "soak_common.h"

enum step { REDUCE, MUTUAL, ORDERED, DEPEND, TASKLOOP, CANCEL, NESTED, SECTIONS, REGIONS, STEPS };
static const char *const step_names[STEPS] = {"reduce", "mutual", "ordered", "depend", "taskloop",
                                              "cancel", "nested", "sections", "regions"};

static _Atomic uint64_t regions, steps_done, step_count[STEPS], step_ns[STEPS], wrong, signals_sent;
static _Atomic int current_step = -1;
static _Atomic bool finished, storm_on = true;

/* ---- threads to signal: every OpenMP thread seen, by its kernel id ---- */

enum { MAX_TIDS = 512 };
static _Atomic pid_t tids[MAX_TIDS];
static _Atomic unsigned tid_count;

static void note_thread(void)
{
    static _Thread_local bool noted;
    if (noted)
        return;
    noted = true;
    unsigned slot = atomic_fetch_add(&tid_count, 1);
    if (slot < MAX_TIDS)
        atomic_store(&tids[slot], (pid_t)syscall(SYS_gettid));
}

static void signal_thread(unsigned k, int signo)
{
    unsigned n = atomic_load(&tid_count);
    n = n < MAX_TIDS ? n : MAX_TIDS;
    pid_t tid = n > 0 ? atomic_load(&tids[k % n]) : 0;
    /* tgkill: an exited thread's id gives ESRCH (or, reused, signals
     * another thread of this process, which is harmless here). */
    if (tid > 0 && syscall(SYS_tgkill, getpid(), tid, signo) == 0 && signo == SIGUSR1)
        atomic_fetch_add(&signals_sent, 1);
}

/* ---- helpers ---- */

static void report_wrong(const char *step, const char *what, long long got, long long want)
{
    atomic_fetch_add(&wrong, 1);
    fprintf(stderr, "soak_omp: WRONG in %s: %s: got %lld, want %lld\n", step, what, got, want);
}
#define EXPECT(step, what, got, want)                                                                   \
    do {                                                                                                \
        long long g_ = (long long)(got), w_ = (long long)(want);                                        \
        if (g_ != w_)                                                                                   \
            report_wrong(step, what, g_, w_);                                                           \
    } while (0)

static void begin_region(void)
{
    note_thread();
    if (omp_get_thread_num() == 0)
        atomic_fetch_add(&regions, 1);
}

/* ---- the steps ---- */

static void step_reduce(int team, unsigned *seed)
{
    static const omp_sched_t kinds[] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided, omp_sched_auto};
    omp_set_schedule(kinds[next_random(seed) % 4], (int)(next_random(seed) % 9));
    long n = 1 + next_random(seed) % 20000;
    long long sum = 0;
#pragma omp parallel num_threads(team) reduction(+ : sum)
    {
        begin_region();
#pragma omp for schedule(runtime)
        for (long i = 0; i < n; i++)
            sum += i;
    }
    EXPECT("reduce", "sum of 0..n-1", sum, (long long)n * (n - 1) / 2);
}

static void step_mutual(int team, unsigned *seed)
{
    int rounds = 1 + (int)(next_random(seed) % 300);
    long by_critical = 0, by_lock = 0, by_nest_lock = 0, by_atomic = 0;
    int members = 0;
    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
#pragma omp parallel num_threads(team)
    {
        begin_region();
#pragma omp atomic
        members++;
        for (int r = 0; r < rounds; r++) {
#pragma omp critical(soak)
            by_critical++;
            omp_set_lock(&lock);
            by_lock++;
            omp_unset_lock(&lock);
            omp_set_nest_lock(&nest);
            omp_set_nest_lock(&nest);
            by_nest_lock++;
            omp_unset_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
#pragma omp atomic
            by_atomic++;
        }
    }
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    EXPECT("mutual", "critical", by_critical, (long)members * rounds);
    EXPECT("mutual", "lock", by_lock, (long)members * rounds);
    EXPECT("mutual", "nest lock", by_nest_lock, (long)members * rounds);
    EXPECT("mutual", "atomic", by_atomic, (long)members * rounds);
}

static void step_ordered(int team, unsigned *seed)
{
    int n = 1 + (int)(next_random(seed) % 400), next = 0, out_of_order = 0;
#pragma omp parallel num_threads(team)
    {
        begin_region();
#pragma omp for ordered schedule(dynamic, 1)
        for (int i = 0; i < n; i++) {
#pragma omp ordered
            {
                out_of_order += next != i;
                next = i + 1;
            }
        }
    }
    EXPECT("ordered", "iterations out of order", out_of_order, 0);
    EXPECT("ordered", "iterations", next, n);
}

static void step_depend(int team, unsigned *seed)
{
    int n = 1 + (int)(next_random(seed) % 200), chain[256], length = 0;
    long grouped = 0;
#pragma omp parallel num_threads(team)
    {
        begin_region();
#pragma omp single
        {
            for (int i = 0; i < n; i++) {
#pragma omp task depend(inout : length) shared(chain, length) firstprivate(i)
                chain[length++] = i;
            }
#pragma omp taskgroup
            {
                for (int i = 0; i < n; i++) {
#pragma omp task shared(grouped)
                    {
#pragma omp atomic
                        grouped++;
                    }
                }
            }
            EXPECT("depend", "tasks of the taskgroup done at its end", grouped, n);
#pragma omp taskwait
        }
    }
    EXPECT("depend", "chain length", length, n);
    for (int i = 0; i < length && i < n; i++)
        if (chain[i] != i) {
            report_wrong("depend", "the chain ran out of order at", i, chain[i]);
            break;
        }
}

static void step_taskloop(int team, unsigned *seed)
{
    long n = 1 + next_random(seed) % 5000, sum = 0;
    int grain = 1 + (int)(next_random(seed) % 64);
#pragma omp parallel num_threads(team)
    {
        begin_region();
#pragma omp single
#pragma omp taskloop grainsize(grain) reduction(+ : sum)
        for (long i = 0; i < n; i++)
            sum += i;
    }
    EXPECT("taskloop", "sum", sum, n * (n - 1) / 2);
}

static void step_cancel(int team, unsigned *seed)
{
    int n = 1000 + (int)(next_random(seed) % 5000), stop_at = (int)(next_random(seed) % 1000);
    long ran = 0, tasks_ran = 0;
#pragma omp parallel num_threads(team) reduction(+ : ran)
    {
        begin_region();
#pragma omp for schedule(dynamic, 4)
        for (int i = 0; i < n; i++) {
            ran++;
            if (i == stop_at) {
#pragma omp cancel for
            }
#pragma omp cancellation point for
        }
#pragma omp single
        {
#pragma omp taskgroup
            {
                for (int i = 0; i < 200; i++) {
#pragma omp task shared(tasks_ran)
                    {
#pragma omp atomic
                        tasks_ran++;
                        if (i == stop_at % 200) {
#pragma omp cancel taskgroup
                        }
                    }
                }
            }
        }
    }
    /* Cancelled or not (OMP_CANCELLATION), no iteration runs twice and the
     * one that cancels always runs. */
    if (ran < 1 || ran > n)
        report_wrong("cancel", "iterations run", ran, n);
    if (tasks_ran < 1 || tasks_ran > 200)
        report_wrong("cancel", "tasks run", tasks_ran, 200);
    if (!omp_get_cancellation()) {
        EXPECT("cancel", "iterations with cancellation off", ran, n);
        EXPECT("cancel", "tasks with cancellation off", tasks_ran, 200);
    }
}

static void step_nested(int team, unsigned *seed)
{
    int levels = 1 + (int)(next_random(seed) % 3);
    int outer = 1 + (int)(next_random(seed) % 3), inner = 1 + (int)(next_random(seed) % 3);
    (void)team;
    omp_set_max_active_levels(levels);
    long leaves = 0;
#pragma omp parallel num_threads(outer)
    {
        begin_region();
#pragma omp parallel num_threads(inner)
        {
            note_thread();
#pragma omp parallel num_threads(2)
            {
                note_thread();
#pragma omp atomic
                leaves++;
            }
        }
    }
    /* A team of one is not an active level: the next team may be. */
    long want = 1;
    int sizes[3] = {outer, inner, 2}, active = 0;
    for (int l = 0; l < 3; l++)
        if (sizes[l] > 1 && active < levels) {
            want *= sizes[l];
            active++;
        }
    EXPECT("nested", "innermost bodies run", leaves, want);
    omp_set_max_active_levels(1);
}

static void step_sections(int team, unsigned *seed)
{
    int rounds = 1 + (int)(next_random(seed) % 20), a = 0, b = 0, c = 0, singles = 0, masters = 0;
#pragma omp parallel num_threads(team)
    {
        begin_region();
        for (int r = 0; r < rounds; r++) {
#pragma omp sections
            {
#pragma omp section
                a++;
#pragma omp section
                b++;
#pragma omp section
                c++;
            }
#pragma omp single
            singles++;
#pragma omp master
            masters++;
#pragma omp barrier
        }
    }
    EXPECT("sections", "each section", a + b + c, 3 * rounds);
    EXPECT("sections", "singles", singles, rounds);
    EXPECT("sections", "masters", masters, rounds);
}

/* Many short regions in a row, as solvers make them: each member counts
 * itself, a barrier, each checks the count. */
static void step_regions(int team, unsigned *seed)
{
    int count = 100 + (int)(next_random(seed) % 400), wrong_counts = 0, sizes = 0;
    for (int r = 0; r < count; r++) {
        int members = 0;
#pragma omp parallel num_threads(team) reduction(+ : wrong_counts, sizes)
        {
            begin_region();
#pragma omp atomic
            members++;
#pragma omp barrier
            int seen;
#pragma omp atomic read
            seen = members;
            wrong_counts += seen != omp_get_num_threads();
            sizes += omp_get_thread_num() == 0 ? omp_get_num_threads() : 0;
        }
    }
    EXPECT("regions", "members counted before the barrier", wrong_counts, 0);
    EXPECT("regions", "team sizes", sizes, count * team);
}

/* ---- the storm, the watchdog ---- */

static void *storm_main(void *arg)
{
    (void)arg;
    for (unsigned k = 0; !atomic_load(&finished); k++) {
        if (atomic_load(&storm_on))
            signal_thread(k, SIGUSR1);
        usleep(100);
    }
    return NULL;
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    uint64_t last = atomic_load(&steps_done), stuck = 0;
    while (!atomic_load(&finished)) {
        sleep(1);
        uint64_t seen = atomic_load(&steps_done);
        stuck = seen == last ? stuck + 1 : 0;
        last = seen;
        if (stuck < 60)
            continue;
        int step = atomic_load(&current_step);
        fprintf(stderr, "soak_omp: HANG: step %llu (%s) has not finished in 60 s; the threads' stacks:\n",
                (unsigned long long)seen, step >= 0 ? step_names[step] : "?");
        atomic_store(&storm_on, false);
        unsigned n = atomic_load(&tid_count);
        for (unsigned k = 0; k < n && k < MAX_TIDS; k++) {
            signal_thread(k, SIGUSR2);
            usleep(100000);
        }
        abort();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned long seconds = 30;
    unsigned seed = (unsigned)now_ns() | 1u;
    bool signals = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = soak_number("soak_omp", "--seconds", argv[++i], 1, 30L * 24 * 3600);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = (unsigned)soak_number("soak_omp", "--seed", argv[++i], 1, 0xffffffffu);
        else if (strcmp(argv[i], "--no-signals") == 0)
            signals = false;
        else {
            bool help = strcmp(argv[i], "--help") == 0;
            fprintf(help ? stdout : stderr, "usage: soak_omp [--seconds S (30)] [--seed N] [--no-signals]%s%s\n",
                    help ? "" : "\nunknown or incomplete: ", help ? "" : argv[i]);
            return help ? 0 : 2;
        }
    }
    soak_install_handlers();
    atomic_store(&storm_on, signals);
    Dl_info info;
    const char *runtime = dladdr((void *)omp_get_thread_num, &info) && info.dli_fname ? info.dli_fname : "?";
    const char *expect = getenv("SOAK_EXPECT_RUNTIME");
    if (expect != NULL && strstr(runtime, expect) == NULL) {
        fprintf(stderr, "soak_omp: the OpenMP runtime is %s, not %s (SOAK_EXPECT_RUNTIME)\n", runtime, expect);
        return 2;
    }
    unsigned top = 2 * online_cpus() + 1;
    printf("soak_omp: %lu s, seed %u, %u CPUs, teams of 1 to %u, cancellation %s, signal storm %s, runtime %s\n",
           seconds, seed, online_cpus(), top, omp_get_cancellation() ? "on" : "off (OMP_CANCELLATION)",
           signals ? "a thread every 100 us" : "off", runtime);
    fflush(stdout);
    pthread_t storm, watchdog;
    pthread_create(&storm, NULL, storm_main, NULL);
    pthread_create(&watchdog, NULL, watchdog_main, NULL);

    uint64_t start = now_ns(), end = start + seconds * 1000000000ull, next_report = start + 10000000000ull;
    while (now_ns() < end) {
        int team;
        do
            team = 1 + (int)(next_random(&seed) % top);
        while ((team & (team - 1)) == 0 && team > 1 && next_random(&seed) % 4 != 0);
        enum step s = (enum step)(next_random(&seed) % STEPS);
        atomic_store(&current_step, (int)s);
        uint64_t step_start = now_ns();
        switch (s) {
        case REDUCE: step_reduce(team, &seed); break;
        case MUTUAL: step_mutual(team, &seed); break;
        case ORDERED: step_ordered(team, &seed); break;
        case DEPEND: step_depend(team, &seed); break;
        case TASKLOOP: step_taskloop(team, &seed); break;
        case CANCEL: step_cancel(team, &seed); break;
        case NESTED: step_nested(team, &seed); break;
        case SECTIONS: step_sections(team, &seed); break;
        case REGIONS: step_regions(team, &seed); break;
        default: break;
        }
        atomic_fetch_add(&step_count[s], 1);
        atomic_fetch_add(&step_ns[s], now_ns() - step_start);
        atomic_fetch_add(&steps_done, 1);
        if (now_ns() >= next_report) {
            printf("soak_omp: %4.0f s: %llu steps, %llu parallel regions, %llu signals, %llu wrong\n",
                   (double)(now_ns() - start) / 1e9, (unsigned long long)atomic_load(&steps_done),
                   (unsigned long long)atomic_load(&regions), (unsigned long long)atomic_load(&signals_sent),
                   (unsigned long long)atomic_load(&wrong));
            fflush(stdout);
            next_report += 10000000000ull;
        }
    }
    atomic_store(&finished, true);
    pthread_join(storm, NULL);
    pthread_join(watchdog, NULL);
    double took = (double)(now_ns() - start) / 1e9;
    printf("soak_omp: done in %.0f s: %llu steps (", took, (unsigned long long)atomic_load(&steps_done));
    for (int k = 0; k < STEPS; k++)
        printf("%s%s %llu", k ? ", " : "", step_names[k], (unsigned long long)atomic_load(&step_count[k]));
    printf("); ms a step:");
    for (int k = 0; k < STEPS; k++)
        printf(" %s %.2f", step_names[k],
               atomic_load(&step_count[k]) ? (double)atomic_load(&step_ns[k]) / 1e6 / (double)atomic_load(&step_count[k]) : 0.0);
    printf("; %llu parallel regions (%.0f a second), %llu threads seen, %llu signals; %llu wrong\n",
           (unsigned long long)atomic_load(&regions), (double)atomic_load(&regions) / took,
           (unsigned long long)atomic_load(&tid_count), (unsigned long long)atomic_load(&signals_sent),
           (unsigned long long)atomic_load(&wrong));
    return atomic_load(&wrong) == 0 ? 0 : 1;
}
