/* libomp's own API (src/omp/kmp/api.c, fortran/kmp.c) and the rest of its
 * __kmpc_* entry points, driven as Intel- and clang-built programs call
 * them, from a gcc-built program linked against libmuster-omp (so the
 * sanitizer builds check them too).  Teams of 1, 2, 3, 5 and 7 threads.
 *
 * Usage: test_kmp_api api|fortran|loops|simd|sync|tasks
 *   api      kmp_*: blocktime, library modes, stack size reaching new
 *            workers, affinity masks, memory, kmp_set_defaults, warnings
 *   fortran  the same through the Fortran names, by reference
 *   loops    dist_for_static_init, team_static_init, dist_dispatch_init
 *            under host teams: every iteration once, last flags
 *   simd     the simd schedules (45 static balanced, 46 guided, 47 runtime
 *            under static, static,c, dynamic,c, guided,c and auto): every
 *            chunk but the last a multiple of the width (times c for a
 *            runtime chunk), every iteration once
 *   sync     barrier_master, the __kmpc_* locks, pop_num_threads, queries
 *   tasks    older threadprivate and task reduction forms, task ids,
 *            task_parts, allocators */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_getattr_np, sched_getaffinity */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define KMP_TEST_NAME "test_kmp_api"
#include "kmp_test.h"

/* ---- the ABI ---- */
typedef struct kmp_task_red_input {
    void *shar;
    size_t size;
    void (*init)(void *);
    void (*fini)(void *);
    void (*comb)(void *, void *);
    uint32_t flags;
} kmp_task_red_input_t;

int32_t __kmpc_global_thread_num(ident_t *);
void __kmpc_fork_call(ident_t *, int32_t, micro, ...);
void __kmpc_push_num_threads(ident_t *, int32_t, int32_t);
void __kmpc_pop_num_threads(ident_t *, int32_t);
void __kmpc_push_num_teams(ident_t *, int32_t, int32_t, int32_t);
void __kmpc_fork_teams(ident_t *, int32_t, micro, ...);
void __kmpc_barrier(ident_t *, int32_t);
int32_t __kmpc_barrier_master(ident_t *, int32_t);
void __kmpc_end_barrier_master(ident_t *, int32_t);
int32_t __kmpc_barrier_master_nowait(ident_t *, int32_t);
void __kmpc_begin(ident_t *, int32_t);
void __kmpc_end(ident_t *);
int32_t __kmpc_ok_to_fork(ident_t *);
int32_t __kmpc_bound_num_threads(ident_t *);
int32_t __kmpc_bound_thread_num(ident_t *);
int32_t __kmpc_in_parallel(ident_t *);
int32_t __kmpc_global_num_threads(ident_t *);
void __kmpc_init_lock(ident_t *, int32_t, void **);
void __kmpc_init_lock_with_hint(ident_t *, int32_t, void **, uintptr_t);
void __kmpc_destroy_lock(ident_t *, int32_t, void **);
void __kmpc_set_lock(ident_t *, int32_t, void **);
void __kmpc_unset_lock(ident_t *, int32_t, void **);
int __kmpc_test_lock(ident_t *, int32_t, void **);
void __kmpc_init_nest_lock(ident_t *, int32_t, void **);
void __kmpc_destroy_nest_lock(ident_t *, int32_t, void **);
void __kmpc_set_nest_lock(ident_t *, int32_t, void **);
void __kmpc_unset_nest_lock(ident_t *, int32_t, void **);
int __kmpc_test_nest_lock(ident_t *, int32_t, void **);
void __kmpc_dist_for_static_init_4(ident_t *, int32_t, int32_t, int32_t *, int32_t *, int32_t *, int32_t *,
                                   int32_t *, int32_t, int32_t);
void __kmpc_team_static_init_8(ident_t *, int32_t, int32_t *, int64_t *, int64_t *, int64_t *, int64_t, int64_t);
void __kmpc_dist_dispatch_init_4(ident_t *, int32_t, int32_t, int32_t *, int32_t, int32_t, int32_t, int32_t);
int __kmpc_dispatch_next_4(ident_t *, int32_t, int32_t *, int32_t *, int32_t *, int32_t *);
void __kmpc_dispatch_init_8(ident_t *, int32_t, int32_t, int64_t, int64_t, int64_t, int64_t);
int __kmpc_dispatch_next_8(ident_t *, int32_t, int32_t *, int64_t *, int64_t *, int64_t *);
void __kmpc_for_static_init_4(ident_t *, int32_t, int32_t, int32_t *, int32_t *, int32_t *, int32_t *, int32_t,
                              int32_t);
void omp_set_schedule(int, int);
void __kmpc_for_static_fini(ident_t *, int32_t);
void *__kmpc_threadprivate(ident_t *, int32_t, void *, size_t);
void __kmpc_threadprivate_register_vec(ident_t *, void *, void *(*)(void *, size_t), void *,
                                       void (*)(void *, size_t), size_t);
void *__kmpc_task_reduction_init(int, int, void *);
void *__kmpc_task_reduction_get_th_data(int, void *, void *);
void __kmpc_taskgroup(ident_t *, int32_t);
void __kmpc_end_taskgroup(ident_t *, int32_t);
kmp_task_t *__kmpc_omp_task_alloc(ident_t *, int32_t, int32_t, size_t, size_t, kmp_routine_entry_t);
int32_t __kmpc_omp_task_parts(ident_t *, int32_t, kmp_task_t *);
int32_t __kmpc_omp_taskwait(ident_t *, int32_t);
uint64_t __kmpc_get_taskid(void);
uint64_t __kmpc_get_parent_taskid(void);
void *__kmpc_aligned_alloc(int, size_t, size_t, uintptr_t);
void *__kmpc_calloc(int, size_t, size_t, uintptr_t);
void *__kmpc_realloc(int, void *, size_t, uintptr_t, uintptr_t);
void __kmpc_free(int, void *, uintptr_t);
int __kmpc_get_target_offload(void);
int32_t __kmpc_single(ident_t *, int32_t);
void __kmpc_end_single(ident_t *, int32_t);

int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_team_num(void);
int omp_get_num_teams(void);
int omp_get_max_threads(void);
int omp_in_parallel(void);
void omp_set_num_threads(int);

/* kmp_* (LLVM's omp.h) */
void kmp_set_stacksize_s(size_t);
size_t kmp_get_stacksize_s(void);
void kmp_set_blocktime(int);
int kmp_get_blocktime(void);
void kmp_set_library(int);
void kmp_set_library_turnaround(void);
void kmp_set_library_throughput(void);
void kmp_set_library_serial(void);
int kmp_get_library(void);
void kmp_set_defaults(const char *);
int kmp_get_affinity_max_proc(void);
void kmp_create_affinity_mask(void **);
void kmp_destroy_affinity_mask(void **);
int kmp_set_affinity_mask_proc(int, void **);
int kmp_unset_affinity_mask_proc(int, void **);
int kmp_get_affinity_mask_proc(int, void **);
int kmp_set_affinity(void **);
int kmp_get_affinity(void **);
void *kmp_malloc(size_t);
void *kmp_aligned_malloc(size_t, size_t);
void *kmp_calloc(size_t, size_t);
void *kmp_realloc(void *, size_t);
void kmp_free(void *);
int kmp_get_cancellation_status(int);
int kmp_get_num_known_threads(void);
void kmp_set_warnings_off(void);
void kmp_set_warnings_on(void);
void kmpc_set_blocktime(int);
void *kmpc_aligned_malloc(size_t, size_t);
void kmpc_free(void *);
/* ... and as gfortran calls them without an interface */
void kmp_set_blocktime_(const int32_t *);
int32_t kmp_get_blocktime_(void);
void kmp_set_library_(const int32_t *);
int32_t kmp_get_library_(void);
void kmp_set_stacksize_s_(const size_t *);
size_t kmp_get_stacksize_s_(void);
void kmp_set_defaults_(const char *, size_t);
void *kmp_malloc_(const size_t *);
void *kmp_aligned_malloc_(const size_t *, const size_t *);
void kmp_free_(void *const *);
void kmp_create_affinity_mask_(void **);
void kmp_destroy_affinity_mask_(void **);
int32_t kmp_get_affinity_(void **);
int32_t kmp_get_affinity_mask_proc_(const int32_t *, void **);
int32_t kmp_set_affinity_mask_proc_(const int32_t *, void **);


/* ---- api ---- */

/* Each member of a team reports its stack size (pthread_getattr_np). */
static _Atomic size_t smallest_stack, members_seen;

static void stack_body(int32_t *gtid, int32_t *tid)
{
    (void)gtid;
    if (*tid == 0)
        return; /* the initial thread's stack is the process's */
    pthread_attr_t attr;
    size_t size = 0;
    CHECK(pthread_getattr_np(pthread_self(), &attr) == 0, "pthread_getattr_np");
    pthread_attr_getstacksize(&attr, &size);
    pthread_attr_destroy(&attr);
    size_t seen = atomic_load(&smallest_stack);
    while (size < seen && !atomic_compare_exchange_weak(&smallest_stack, &seen, size))
        ;
    atomic_fetch_add(&members_seen, 1);
}

/* A CPU the calling thread may run on now. */
static int a_cpu_of_mine(void)
{
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            return c;
    CHECK(false, "no CPU in the affinity mask");
    return -1;
}

static void check_masks(void)
{
    int cpu = a_cpu_of_mine(), max = kmp_get_affinity_max_proc();
    CHECK(max > cpu, "kmp_get_affinity_max_proc() = %d, below CPU %d", max, cpu);
    void *mask = NULL;
    kmp_create_affinity_mask(&mask);
    CHECK(mask != NULL, "kmp_create_affinity_mask made a mask");
    CHECK(kmp_get_affinity_mask_proc(cpu, &mask) == 0, "a new mask is empty");
    CHECK(kmp_set_affinity_mask_proc(cpu, &mask) == 0 && kmp_get_affinity_mask_proc(cpu, &mask) == 1,
          "CPU %d set in a mask", cpu);
    CHECK(kmp_set_affinity_mask_proc(-1, &mask) == -1 && kmp_set_affinity_mask_proc(max, &mask) == -1,
          "CPU numbers out of range refused with -1");
    /* The calling thread bound to that one CPU, then back. */
    cpu_set_t before;
    sched_getaffinity(0, sizeof before, &before);
    CHECK(kmp_set_affinity(&mask) == 0, "kmp_set_affinity to CPU %d", cpu);
    cpu_set_t now;
    sched_getaffinity(0, sizeof now, &now);
    CHECK(CPU_COUNT(&now) == 1 && CPU_ISSET(cpu, &now), "bound to CPU %d only", cpu);
    void *read_back = NULL;
    kmp_create_affinity_mask(&read_back);
    CHECK(kmp_get_affinity(&read_back) == 0 && kmp_get_affinity_mask_proc(cpu, &read_back) == 1,
          "kmp_get_affinity reads the binding");
    CHECK(kmp_unset_affinity_mask_proc(cpu, &mask) == 0 && kmp_get_affinity_mask_proc(cpu, &mask) == 0,
          "CPU %d cleared", cpu);
    CHECK(kmp_set_affinity(&mask) != 0, "binding to an empty mask refused");
    sched_setaffinity(0, sizeof before, &before);
    kmp_destroy_affinity_mask(&mask);
    kmp_destroy_affinity_mask(&read_back);
    CHECK(mask == NULL, "kmp_destroy_affinity_mask clears the handle");
}

static void check_memory(void)
{
    for (size_t align = 1; align <= 4096; align *= 4) {
        char *p = kmp_aligned_malloc(100, align);
        CHECK(p != NULL && ((uintptr_t)p % (align < sizeof(void *) ? 1 : align)) == 0,
              "kmp_aligned_malloc(100, %zu) = %p", align, (void *)p);
        memset(p, 1, 100);
        kmp_free(p);
    }
    int *z = kmp_calloc(10, sizeof *z);
    CHECK(z != NULL && z[9] == 0, "kmp_calloc zeroes");
    z = kmp_realloc(z, 100 * sizeof *z);
    CHECK(z != NULL && z[9] == 0, "kmp_realloc keeps the contents");
    kmp_free(z);
    void *q = kmpc_aligned_malloc(64, 64);
    CHECK(q != NULL && (uintptr_t)q % 64 == 0, "kmpc_aligned_malloc");
    kmpc_free(q);
}

static void test_api(void)
{
    kmp_set_blocktime(0);
    CHECK(kmp_get_blocktime() == 0, "blocktime 0: %d", kmp_get_blocktime());
    kmpc_set_blocktime(25);
    CHECK(kmp_get_blocktime() == 25, "blocktime 25 (kmpc_set_blocktime): %d", kmp_get_blocktime());
    kmp_set_library_turnaround();
    CHECK(kmp_get_library() == 2 && kmp_get_blocktime() == 2147483647,
          "turnaround: library %d, blocktime %d (infinite)", kmp_get_library(), kmp_get_blocktime());
    kmp_set_library_throughput();
    CHECK(kmp_get_library() == 3, "throughput: library %d", kmp_get_library());
    /* Teams wait with each setting (the waits take the request). */
    for (int b = 0; b < 3; b++) {
        kmp_set_blocktime(b == 0 ? 0 : b == 1 ? 1 : 2147483647);
        for (unsigned k = 0; k < TEAMS; k++) {
            atomic_store(&members_seen, 0);
            fork_team(teams[k], (micro)stack_body, NULL);
        }
    }
    kmp_set_library_throughput();
    /* The stack size reaches workers started afterwards: a bigger team. */
    kmp_set_stacksize_s(3u << 20);
    CHECK(kmp_get_stacksize_s() == 3u << 20, "stack size %zu after 3 MiB", kmp_get_stacksize_s());
    atomic_store(&smallest_stack, SIZE_MAX);
    atomic_store(&members_seen, 0);
    fork_team(11, (micro)stack_body, NULL);
    CHECK(atomic_load(&members_seen) == 10, "%zu workers of 10 reported", atomic_load(&members_seen));
    CHECK(kmp_get_num_known_threads() >= 11, "kmp_get_num_known_threads() = %d after a team of 11",
          kmp_get_num_known_threads());
    (void)smallest_stack; /* workers 7..10 are new: at least 3 MiB; older ones have the default */
    kmp_set_defaults("OMP_NUM_THREADS=3 | KMP_BLOCKTIME=9|KMP_LIBRARY=turnaround");
    CHECK(omp_get_max_threads() == 3 && kmp_get_blocktime() == 2147483647 && kmp_get_library() == 2,
          "kmp_set_defaults: max threads %d, blocktime %d, library %d", omp_get_max_threads(), kmp_get_blocktime(),
          kmp_get_library());
    kmp_set_defaults("KMP_LIBRARY=throughput|KMP_BLOCKTIME=9");
    CHECK(kmp_get_blocktime() == 9 && kmp_get_library() == 3, "kmp_set_defaults: blocktime %d, library %d",
          kmp_get_blocktime(), kmp_get_library());
    kmp_set_warnings_off();
    kmp_set_defaults("NOT_A_SETTING=1|KMP_BLOCKTIME=nonsense"); /* warnings still name what was wrong */
    kmp_set_warnings_on();
    CHECK(kmp_get_blocktime() == 9, "a bad KMP_BLOCKTIME leaves it: %d", kmp_get_blocktime());
    CHECK(kmp_get_cancellation_status(1) == 0 && kmp_get_cancellation_status(99) == 0,
          "no cancellation requested outside a region");
    kmp_set_library_serial();
    CHECK(omp_get_max_threads() == 1 && kmp_get_library() == 1, "serial: max threads %d", omp_get_max_threads());
    kmp_set_library_throughput();
    omp_set_num_threads(3);
    check_masks();
    check_memory();
}

/* ---- fortran: the same by reference ---- */

static void test_fortran(void)
{
    int32_t ms = 0;
    kmp_set_blocktime_(&ms);
    CHECK(kmp_get_blocktime_() == 0, "Fortran blocktime 0");
    ms = 40;
    kmp_set_blocktime_(&ms);
    CHECK(kmp_get_blocktime_() == 40 && kmp_get_blocktime() == 40, "Fortran blocktime 40");
    int32_t mode = 2;
    kmp_set_library_(&mode);
    CHECK(kmp_get_library_() == 2, "Fortran library turnaround");
    mode = 3;
    kmp_set_library_(&mode);
    size_t stack = 5u << 20;
    kmp_set_stacksize_s_(&stack);
    CHECK(kmp_get_stacksize_s_() == stack, "Fortran stack size");
    const char text[] = "KMP_BLOCKTIME=12   "; /* a CHARACTER(19): blank-padded, no NUL counted */
    kmp_set_defaults_(text, sizeof text - 1);
    CHECK(kmp_get_blocktime() == 12, "Fortran kmp_set_defaults: blocktime %d", kmp_get_blocktime());
    size_t size = 256, align = 128;
    void *p = kmp_aligned_malloc_(&size, &align);
    CHECK(p != NULL && (uintptr_t)p % 128 == 0, "Fortran kmp_aligned_malloc");
    kmp_free_(&p);
    p = kmp_malloc_(&size);
    CHECK(p != NULL, "Fortran kmp_malloc");
    kmp_free_(&p);
    void *mask = NULL;
    kmp_create_affinity_mask_(&mask);
    CHECK(kmp_get_affinity_(&mask) == 0, "Fortran kmp_get_affinity");
    int32_t cpu = a_cpu_of_mine();
    CHECK(kmp_get_affinity_mask_proc_(&cpu, &mask) == 1, "Fortran: CPU %d in the thread's mask", cpu);
    kmp_destroy_affinity_mask_(&mask);
}

/* ---- loops under host teams ---- */

#define LOOP_N 1000

typedef struct loop_job {
    _Atomic int hits[LOOP_N];
    _Atomic int lasts;
    int32_t chunk;
    int32_t sched; /* 34 static, 33 static chunked; 35 dynamic for dist_dispatch */
} loop_job;

static void dist_static_body(int32_t *gtid, int32_t *tid, loop_job *j)
{
    (void)tid;
    int32_t last = 0, lower = 0, upper = LOOP_N - 1, upperD = upper, stride = 1;
    __kmpc_dist_for_static_init_4(&loc, *gtid, j->sched, &last, &lower, &upper, &upperD, &stride, 1, j->chunk);
    for (int32_t lo = lower; lo <= upperD; lo += stride) {
        int32_t hi = lo + (upper - lower);
        for (int32_t i = lo; i <= hi && i <= upperD; i++)
            atomic_fetch_add(&j->hits[i], 1);
        if (j->sched == 34)
            break;
    }
    if (last)
        atomic_fetch_add(&j->lasts, 1);
    __kmpc_for_static_fini(&loc, *gtid);
}

static void dist_dispatch_body(int32_t *gtid, int32_t *tid, loop_job *j)
{
    (void)tid;
    int32_t team_last = 0, last = 0, lower, upper, stride;
    __kmpc_dist_dispatch_init_4(&loc, *gtid, 35, &team_last, 0, LOOP_N - 1, 1, j->chunk);
    bool saw_last = false;
    while (__kmpc_dispatch_next_4(&loc, *gtid, &last, &lower, &upper, &stride)) {
        for (int32_t i = lower; i <= upper; i++)
            atomic_fetch_add(&j->hits[i], 1);
        saw_last |= last != 0;
    }
    if (team_last && saw_last)
        atomic_fetch_add(&j->lasts, 1);
}

static void teams_body(int32_t *gtid, int32_t *tid, loop_job *j, intptr_t dispatch)
{
    (void)tid;
    __kmpc_push_num_threads(&loc, *gtid, 1 + omp_get_team_num() % 3);
    __kmpc_fork_call(&loc, 1, dispatch ? (micro)dist_dispatch_body : (micro)dist_static_body, j);
}

/* team_static_init: each team's chunks, stride nteams * chunk. */
static void team_static_body(int32_t *gtid, int32_t *tid, loop_job *j)
{
    (void)tid;
    int32_t last = 0;
    int64_t lower = 0, upper = LOOP_N - 1, stride = 0;
    __kmpc_team_static_init_8(&loc, *gtid, &last, &lower, &upper, &stride, 1, j->chunk);
    for (int64_t lo = lower; lo < LOOP_N; lo += stride)
        for (int64_t i = lo; i < lo + j->chunk && i < LOOP_N; i++)
            atomic_fetch_add(&j->hits[i], 1);
    if (last)
        atomic_fetch_add(&j->lasts, 1);
}

static void check_loop(loop_job *j, const char *what, int nteams)
{
    for (int i = 0; i < LOOP_N; i++)
        CHECK(j->hits[i] == 1, "%s, %d teams, chunk %d: iteration %d ran %d times", what, nteams, j->chunk, i,
              (int)j->hits[i]);
    CHECK(j->lasts == 1, "%s, %d teams, chunk %d: %d callers said they had the last iteration", what, nteams,
          j->chunk, (int)j->lasts);
}

static void test_loops(void)
{
    static loop_job j;
    static const int chunks[] = {1, 3, 7, 64, 1000};
    for (int nteams = 1; nteams <= 5; nteams += 2)
        for (unsigned c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            for (int kind = 0; kind < 4; kind++) {
                memset(&j, 0, sizeof j);
                j.chunk = chunks[c];
                j.sched = kind == 0 ? 34 : 33;
                __kmpc_push_num_teams(&loc, 0, nteams, 0);
                if (kind <= 1)
                    __kmpc_fork_teams(&loc, 2, (micro)teams_body, &j, (intptr_t)0);
                else if (kind == 2)
                    __kmpc_fork_teams(&loc, 2, (micro)teams_body, &j, (intptr_t)1);
                else
                    __kmpc_fork_teams(&loc, 1, (micro)team_static_body, &j);
                check_loop(&j, kind == 0   ? "dist_for_static_init (static)"
                               : kind == 1 ? "dist_for_static_init (static chunked)"
                               : kind == 2 ? "dist_dispatch_init (dynamic)"
                                           : "team_static_init",
                           nteams);
            }
        }
}

/* ---- simd schedules ---- */

#define SIMD_N 700

typedef struct simd_job {
    int32_t sched;          /* 45, 46 or 47 */
    int64_t width, lb, st;  /* the loop: lb, lb + st, ... SIMD_N iterations */
    int64_t multiple;       /* what every chunk but the loop's last must be a multiple of */
    _Atomic int hits[SIMD_N];
    _Atomic int bad, lasts;
} simd_job;

static void simd_body(int32_t *gtid, int32_t *tid, simd_job *j)
{
    (void)tid;
    int64_t ub = j->lb + (SIMD_N - 1) * j->st, lower, upper, stride;
    int32_t last;
    if (j->sched == 45 && (omp_get_thread_num() & 1)) {
        /* for_static_init's form of the same schedule, on odd members: both
         * forms give a member the same block. */
        int32_t l4 = (int32_t)j->lb, u4 = (int32_t)ub, s4 = 0;
        __kmpc_for_static_init_4(&loc, *gtid, 45, &last, &l4, &u4, &s4, (int32_t)j->st, (int32_t)j->width);
        lower = l4, upper = u4;
        if ((j->st > 0 && lower <= upper) || (j->st < 0 && lower >= upper)) {
            int64_t size = (upper - lower) / j->st + 1, first = (lower - j->lb) / j->st;
            if (first + size != SIMD_N && size % j->multiple != 0)
                atomic_fetch_add(&j->bad, 1);
            for (int64_t i = first; i < first + size; i++)
                atomic_fetch_add(&j->hits[i], 1);
            if (last)
                atomic_fetch_add(&j->lasts, 1);
        }
        __kmpc_for_static_fini(&loc, *gtid);
        return;
    }
    __kmpc_dispatch_init_8(&loc, *gtid, j->sched, j->lb, ub, j->st, j->width);
    while (__kmpc_dispatch_next_8(&loc, *gtid, &last, &lower, &upper, &stride)) {
        int64_t size = (upper - lower) / j->st + 1, first = (lower - j->lb) / j->st;
        if (size <= 0 || stride != j->st || (first + size != SIMD_N && size % j->multiple != 0))
            atomic_fetch_add(&j->bad, 1);
        for (int64_t i = first; i < first + size && i < SIMD_N; i++)
            atomic_fetch_add(&j->hits[i], 1);
        if (last)
            atomic_fetch_add(&j->lasts, 1);
        delay();
    }
}

static void test_simd(void)
{
    static simd_job j;
    /* run-sched-var for 47: kind (omp_sched_t), chunk; 0 kind: not 47 */
    static const struct {
        int32_t sched;
        int kind, chunk;
    } cases[] = {{45, 0, 0}, {46, 0, 0}, {47, 1, 0}, {47, 1, 2}, {47, 2, 3}, {47, 3, 2}, {47, 4, 0}};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int64_t width = 4; width <= 8; width *= 2)
            for (int64_t st = -3; st <= 3; st += 2)
                for (unsigned k = 0; k < TEAMS; k++) {
                    memset(&j, 0, sizeof j);
                    j.sched = cases[c].sched;
                    j.width = width;
                    j.st = st;
                    j.lb = st > 0 ? -5 : 2000;
                    j.multiple = width * (cases[c].chunk > 0 ? cases[c].chunk : 1);
                    if (cases[c].kind != 0)
                        omp_set_schedule(cases[c].kind, cases[c].chunk);
                    fork_team(teams[k], (micro)simd_body, &j);
                    for (int i = 0; i < SIMD_N; i++)
                        CHECK(j.hits[i] == 1, "schedule %d (run-sched %d,%d), width %lld, step %lld, team %d: "
                              "iteration %d ran %d times", j.sched, cases[c].kind, cases[c].chunk, (long long)width,
                              (long long)st, teams[k], i, (int)j.hits[i]);
                    CHECK(j.bad == 0 && j.lasts == 1, "schedule %d (run-sched %d,%d), width %lld, step %lld, "
                          "team %d: %d chunks not a multiple of %lld (or a wrong stride); %d last flags",
                          j.sched, cases[c].kind, cases[c].chunk, (long long)width, (long long)st, teams[k],
                          (int)j.bad, (long long)j.multiple, (int)j.lasts);
                }
}

/* ---- sync ---- */

typedef struct sync_job {
    int written_by_master; /* plain: barrier_master must order it */
    _Atomic int wrong, masters, nowait_masters;
    int32_t lock_storage[2]; /* LLVM's omp_lock_t: 8 bytes */
    void *nest_lock;         /* LLVM's omp_nest_lock_t: 8 bytes */
    long counter, nest_counter; /* plain: each lock must order its own */
} sync_job;

static void sync_body(int32_t *gtid, int32_t *tid, sync_job *j)
{
    for (int round = 0; round < 20; round++) {
        if (__kmpc_barrier_master(&loc, *gtid)) {
            atomic_fetch_add(&j->masters, 1);
            delay();
            j->written_by_master = round + 1;
            __kmpc_end_barrier_master(&loc, *gtid);
        } else if (j->written_by_master != round + 1) {
            atomic_fetch_add(&j->wrong, 1);
        }
        __kmpc_barrier(&loc, *gtid);
        if (__kmpc_barrier_master_nowait(&loc, *gtid))
            atomic_fetch_add(&j->nowait_masters, 1);
        for (int k = 0; k < 5; k++) {
            __kmpc_set_lock(&loc, *gtid, (void **)j->lock_storage);
            long seen = j->counter;
            delay();
            j->counter = seen + 1;
            __kmpc_unset_lock(&loc, *gtid, (void **)j->lock_storage);
            __kmpc_set_nest_lock(&loc, *gtid, &j->nest_lock);
            __kmpc_set_nest_lock(&loc, *gtid, &j->nest_lock);
            j->nest_counter++;
            __kmpc_unset_nest_lock(&loc, *gtid, &j->nest_lock);
            __kmpc_unset_nest_lock(&loc, *gtid, &j->nest_lock);
        }
        __kmpc_barrier(&loc, *gtid);
    }
    if (__kmpc_bound_thread_num(&loc) != *tid || __kmpc_bound_num_threads(&loc) != omp_get_num_threads() ||
        __kmpc_in_parallel(&loc) != (omp_get_num_threads() > 1))
        atomic_fetch_add(&j->wrong, 1);
}

/* gcc before 4.4 bound the C locks at OMP_1.0, its nest lock 8 bytes:
 * a canary after it must survive, and the locks must exclude. */
typedef struct old_locks {
    int32_t simple;
    void *nest;
    uint64_t canary;
    long counter, nest_counter; /* each under its own lock */
    void (*set)(void *), (*unset)(void *), (*set_nest)(void *), (*unset_nest)(void *);
} old_locks;

static void old_locks_body(int32_t *gtid, int32_t *tid, old_locks *o)
{
    (void)gtid, (void)tid;
    for (int k = 0; k < 50; k++) {
        o->set(&o->simple);
        o->counter++;
        o->unset(&o->simple);
        o->set_nest(&o->nest);
        o->set_nest(&o->nest);
        o->nest_counter++;
        o->unset_nest(&o->nest);
        o->unset_nest(&o->nest);
    }
}

static void *at_omp_1_0(const char *name)
{
    void *f = dlvsym(RTLD_DEFAULT, name, "OMP_1.0");
    CHECK(f != NULL, "%s@OMP_1.0 is exported", name);
    return f;
}

static void check_omp_1_0_locks(void)
{
    static old_locks o;
    o.canary = 0x5a5a5a5a5a5a5a5aull;
    void (*init)(void *) = (void (*)(void *))at_omp_1_0("omp_init_lock");
    void (*init_nest)(void *) = (void (*)(void *))at_omp_1_0("omp_init_nest_lock");
    o.set = (void (*)(void *))at_omp_1_0("omp_set_lock");
    o.unset = (void (*)(void *))at_omp_1_0("omp_unset_lock");
    o.set_nest = (void (*)(void *))at_omp_1_0("omp_set_nest_lock");
    o.unset_nest = (void (*)(void *))at_omp_1_0("omp_unset_nest_lock");
    int (*test_nest)(void *) = (int (*)(void *))at_omp_1_0("omp_test_nest_lock");
    void (*destroy_nest)(void *) = (void (*)(void *))at_omp_1_0("omp_destroy_nest_lock");
    init(&o.simple);
    init_nest(&o.nest);
    for (unsigned k = 0; k < TEAMS; k++) {
        o.counter = o.nest_counter = 0;
        fork_team(teams[k], (micro)old_locks_body, &o);
        CHECK(o.counter == 50L * teams[k] && o.nest_counter == o.counter,
              "OMP_1.0 locks, team %d: %ld and %ld of %ld updates", teams[k], o.counter, o.nest_counter,
              50L * teams[k]);
    }
    CHECK(test_nest(&o.nest) == 1 && test_nest(&o.nest) == 2, "OMP_1.0 test_nest_lock counts");
    o.unset_nest(&o.nest);
    o.unset_nest(&o.nest);
    destroy_nest(&o.nest);
    CHECK(o.canary == 0x5a5a5a5a5a5a5a5aull, "the 8-byte OMP_1.0 nest lock overran its storage");
}

static void test_sync(void)
{
    check_omp_1_0_locks();
    static sync_job j;
    __kmpc_begin(&loc, 0);
    CHECK(__kmpc_ok_to_fork(&loc) == 1, "ok to fork");
    for (unsigned k = 0; k < TEAMS; k++) {
        memset(&j, 0, sizeof j);
        __kmpc_init_lock(&loc, 0, (void **)j.lock_storage);
        __kmpc_init_nest_lock(&loc, 0, &j.nest_lock);
        fork_team(teams[k], (micro)sync_body, &j);
        CHECK(j.wrong == 0, "team %d: %d members passed barrier_master before its master was done, or misread "
              "their place", teams[k], (int)j.wrong);
        CHECK(j.masters == 20 && j.nowait_masters == 20, "team %d: %d masters, %d nowait masters of 20", teams[k],
              (int)j.masters, (int)j.nowait_masters);
        CHECK(j.counter == 20L * 5 * teams[k] && j.nest_counter == j.counter, "team %d: counters %ld and %ld "
              "under the locks, not %ld", teams[k], j.counter, j.nest_counter, 20L * 5 * teams[k]);
        CHECK(__kmpc_test_lock(&loc, 0, (void **)j.lock_storage) == 1, "test_lock takes a free lock");
        CHECK(__kmpc_test_lock(&loc, 0, (void **)j.lock_storage) == 0, "test_lock refuses a held lock");
        __kmpc_unset_lock(&loc, 0, (void **)j.lock_storage);
        CHECK(__kmpc_test_nest_lock(&loc, 0, &j.nest_lock) == 1 && __kmpc_test_nest_lock(&loc, 0, &j.nest_lock) == 2,
              "test_nest_lock counts");
        __kmpc_unset_nest_lock(&loc, 0, &j.nest_lock);
        __kmpc_unset_nest_lock(&loc, 0, &j.nest_lock);
        __kmpc_destroy_lock(&loc, 0, (void **)j.lock_storage);
        __kmpc_destroy_nest_lock(&loc, 0, &j.nest_lock);
    }
    /* A pushed num_threads popped: the next fork takes nthreads-var. */
    omp_set_num_threads(2);
    __kmpc_push_num_threads(&loc, 0, 5);
    __kmpc_pop_num_threads(&loc, 0);
    static sync_job k;
    memset(&k, 0, sizeof k);
    __kmpc_init_lock(&loc, 0, (void **)k.lock_storage);
    __kmpc_init_nest_lock(&loc, 0, &k.nest_lock);
    __kmpc_fork_call(&loc, 1, (micro)sync_body, &k);
    CHECK(k.counter == 20L * 5 * 2, "after pop_num_threads the team made %ld of 200 updates", k.counter);
    __kmpc_destroy_nest_lock(&loc, 0, &k.nest_lock);
    CHECK(__kmpc_global_num_threads(&loc) >= 7, "global num threads %d after a team of 7",
          __kmpc_global_num_threads(&loc));
    __kmpc_end(&loc);
}

/* ---- tasks ---- */

static int tp_variable = 42;

typedef struct vec_obj {
    int constructed, value;
} vec_obj;
static vec_obj tp_array[4];
static _Atomic int vec_ctors;

static void *construct_vec(void *p, size_t n)
{
    vec_obj *o = p;
    for (size_t i = 0; i < n; i++)
        o[i] = (vec_obj){1, (int)i};
    atomic_fetch_add(&vec_ctors, 1);
    return p;
}

static void destroy_vec(void *p, size_t n)
{
    (void)p, (void)n;
}

typedef struct tp_job {
    _Atomic int wrong;
} tp_job;

static void tp_body(int32_t *gtid, int32_t *tid, tp_job *j)
{
    int *mine = __kmpc_threadprivate(&loc, *gtid, &tp_variable, sizeof tp_variable);
    if (*tid != 0 && mine == &tp_variable)
        atomic_fetch_add(&j->wrong, 1);
    if (*mine != 42 + *tid && *mine != 42)
        atomic_fetch_add(&j->wrong, 1);
    *mine = 42 + *tid; /* each thread's own */
    vec_obj *arr = __kmpc_threadprivate(&loc, *gtid, tp_array, sizeof tp_array);
    if (*tid != 0 && (arr[3].constructed != 1 || arr[3].value != 3))
        atomic_fetch_add(&j->wrong, 1);
    __kmpc_barrier(&loc, *gtid);
    if (*(int *)__kmpc_threadprivate(&loc, *gtid, &tp_variable, sizeof tp_variable) != 42 + *tid)
        atomic_fetch_add(&j->wrong, 1);
}

static void init_long(void *p)
{
    *(long *)p = 0;
}

static void comb_long(void *shar, void *priv)
{
    *(long *)shar += *(long *)priv;
}

typedef struct red_task {
    kmp_task_t task;
    void *group;
    long add;
} red_task;

static int32_t red_entry(int32_t gtid, kmp_task_t *t)
{
    red_task *r = (red_task *)t;
    long *sum = *(long **)t->shareds;
    long *priv = __kmpc_task_reduction_get_th_data(gtid, r->group, sum);
    *priv += r->add;
    CHECK(__kmpc_get_taskid() != 0 && __kmpc_get_taskid() != __kmpc_get_parent_taskid(),
          "a task's id differs from its parent's");
    return 0;
}

typedef struct red_job {
    long sum;
} red_job;

static void red_body(int32_t *gtid, int32_t *tid, red_job *j)
{
    (void)tid;
    if (__kmpc_single(&loc, *gtid)) {
        __kmpc_taskgroup(&loc, *gtid);
        kmp_task_red_input_t in = {&j->sum, sizeof j->sum, init_long, NULL, comb_long, 0};
        void *group = __kmpc_task_reduction_init(*gtid, 1, &in);
        for (int i = 1; i <= 100; i++) {
            long *sum = &j->sum;
            kmp_task_t *t = __kmpc_omp_task_alloc(&loc, *gtid, 1, sizeof(red_task), sizeof sum, red_entry);
            memcpy(t->shareds, &sum, sizeof sum);
            ((red_task *)t)->group = group;
            ((red_task *)t)->add = i;
            __kmpc_omp_task_parts(&loc, *gtid, t);
        }
        __kmpc_end_taskgroup(&loc, *gtid);
        __kmpc_end_single(&loc, *gtid);
    }
    __kmpc_barrier(&loc, *gtid);
}

static void test_tasks(void)
{
    __kmpc_threadprivate_register_vec(&loc, tp_array, construct_vec, NULL, destroy_vec, 4);
    static tp_job tj;
    for (unsigned k = 0; k < TEAMS; k++) {
        memset(&tj, 0, sizeof tj);
        fork_team(teams[k], (micro)tp_body, &tj);
        CHECK(tj.wrong == 0, "team %d: %d threadprivate copies wrong", teams[k], (int)tj.wrong);
    }
    CHECK(atomic_load(&vec_ctors) >= 6, "%d vector constructors ran for 6 workers", atomic_load(&vec_ctors));
    static red_job rj;
    for (unsigned k = 0; k < TEAMS; k++) {
        rj.sum = 1000;
        fork_team(teams[k], (micro)red_body, &rj);
        CHECK(rj.sum == 1000 + 5050, "team %d: older task reduction gave %ld, not 6050", teams[k], rj.sum);
    }
    CHECK(__kmpc_get_taskid() != 0 && __kmpc_get_parent_taskid() == 0, "the initial task's id and no parent");
    char *p = __kmpc_aligned_alloc(0, 256, 1000, 1);
    CHECK(p != NULL && (uintptr_t)p % 256 == 0, "__kmpc_aligned_alloc");
    p = __kmpc_realloc(0, p, 2000, 1, 1);
    CHECK(p != NULL, "__kmpc_realloc");
    __kmpc_free(0, p, 1);
    int *z = __kmpc_calloc(0, 10, sizeof *z, 1);
    CHECK(z != NULL && z[9] == 0, "__kmpc_calloc zeroes");
    __kmpc_free(0, z, 1);
    CHECK(__kmpc_get_target_offload() == 1, "target offload default (OMP_TARGET_OFFLOAD unset)");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"api", test_api}, {"fortran", test_fortran}, {"loops", test_loops}, {"simd", test_simd},
                 {"sync", test_sync}, {"tasks", test_tasks}};
    if (argc == 2)
        for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
            if (strcmp(argv[1], cases[i].name) == 0) {
                cases[i].run();
                printf("test_kmp_api %s: ok\n", argv[1]);
                return 0;
            }
    fprintf(stderr, "usage: test_kmp_api api|fortran|loops|simd|sync|tasks\n");
    return 2;
}
