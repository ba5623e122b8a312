/* LLVM's __kmpc ABI (src/omp/kmp/) driven the way clang 14's code drives
 * it, from a gcc-built program linked against libmuster-omp: so the
 * sanitizer builds check this layer too (the clang-built corpus runs only
 * in the plain build).  Teams of 1, 2, 3, 5 and 7 threads, random delays,
 * many episodes; data the runtime must order is plain memory.
 *
 * Usage: test_kmp_abi fork|static|dispatch|reduce|single|tasks|taskloop|taskred|doacross|locks|newer|detach|proxy
 * (newer: the entry points of clang after 14, which the corpus cannot reach). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dlvsym */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#define KMP_TEST_NAME "test_kmp_abi"
#include "kmp_test.h"

/* ---- the ABI, as clang 14 declares it ---- */

typedef int32_t kmp_critical_name[8];
typedef struct kmp_depend_info {
    intptr_t base_addr;
    size_t len;
    uint8_t flags;
} kmp_depend_info_t;
typedef struct kmp_dim {
    int64_t lo, up, st;
} kmp_dim;
typedef struct kmp_taskred_input {
    void *shar, *orig;
    size_t size;
    void (*init)(void *, void *);
    void (*fini)(void *);
    void (*comb)(void *, void *);
    uint32_t flags;
} kmp_taskred_input_t;

int32_t __kmpc_global_thread_num(ident_t *);
void __kmpc_fork_call(ident_t *, int32_t, void (*)(int32_t *, int32_t *, ...), ...);
void __kmpc_push_num_threads(ident_t *, int32_t, int32_t);
void __kmpc_serialized_parallel(ident_t *, int32_t);
void __kmpc_end_serialized_parallel(ident_t *, int32_t);
void __kmpc_barrier(ident_t *, int32_t);
int32_t __kmpc_master(ident_t *, int32_t);
int32_t __kmpc_single(ident_t *, int32_t);
void __kmpc_end_single(ident_t *, int32_t);
void __kmpc_copyprivate(ident_t *, int32_t, size_t, void *, void (*)(void *, void *), int32_t);
void __kmpc_critical(ident_t *, int32_t, kmp_critical_name *);
void __kmpc_end_critical(ident_t *, int32_t, kmp_critical_name *);
int32_t __kmpc_reduce_nowait(ident_t *, int32_t, int32_t, size_t, void *, void (*)(void *, void *),
                             kmp_critical_name *);
void __kmpc_end_reduce_nowait(ident_t *, int32_t, kmp_critical_name *);
int32_t __kmpc_reduce(ident_t *, int32_t, int32_t, size_t, void *, void (*)(void *, void *), kmp_critical_name *);
void __kmpc_end_reduce(ident_t *, int32_t, kmp_critical_name *);
void __kmpc_for_static_init_4(ident_t *, int32_t, int32_t, int32_t *, int32_t *, int32_t *, int32_t *, int32_t,
                              int32_t);
void __kmpc_for_static_init_8u(ident_t *, int32_t, int32_t, int32_t *, uint64_t *, uint64_t *, int64_t *, int64_t,
                               int64_t);
void __kmpc_for_static_fini(ident_t *, int32_t);
void __kmpc_dispatch_init_4(ident_t *, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t);
int __kmpc_dispatch_next_4(ident_t *, int32_t, int32_t *, int32_t *, int32_t *, int32_t *);
void __kmpc_dispatch_init_8u(ident_t *, int32_t, int32_t, uint64_t, uint64_t, int64_t, int64_t);
int __kmpc_dispatch_next_8u(ident_t *, int32_t, int32_t *, uint64_t *, uint64_t *, int64_t *);
void __kmpc_dispatch_fini_4(ident_t *, int32_t);
void __kmpc_ordered(ident_t *, int32_t);
void __kmpc_end_ordered(ident_t *, int32_t);
kmp_task_t *__kmpc_omp_task_alloc(ident_t *, int32_t, int32_t, size_t, size_t, kmp_routine_entry_t);
int32_t __kmpc_omp_task(ident_t *, int32_t, kmp_task_t *);
void __kmpc_omp_task_begin_if0(ident_t *, int32_t, kmp_task_t *);
void __kmpc_omp_task_complete_if0(ident_t *, int32_t, kmp_task_t *);
int32_t __kmpc_omp_task_with_deps(ident_t *, int32_t, kmp_task_t *, int32_t, kmp_depend_info_t *, int32_t,
                                  kmp_depend_info_t *);
int32_t __kmpc_omp_taskwait(ident_t *, int32_t);
void __kmpc_taskgroup(ident_t *, int32_t);
void __kmpc_end_taskgroup(ident_t *, int32_t);
void __kmpc_taskloop(ident_t *, int32_t, kmp_task_t *, int, uint64_t *, uint64_t *, int64_t, int, int, uint64_t,
                     void *);
void *__kmpc_task_allow_completion_event(ident_t *, int32_t, kmp_task_t *);
void __kmpc_proxy_task_completed_ooo(kmp_task_t *);
void __kmpc_proxy_task_completed(int32_t, kmp_task_t *);
int32_t __kmpc_omp_reg_task_with_affinity(ident_t *, int32_t, kmp_task_t *, int32_t, void *);
void *__kmpc_taskred_init(int, int, void *);
void *__kmpc_task_reduction_get_th_data(int, void *, void *);
void __kmpc_doacross_init(ident_t *, int32_t, int32_t, const kmp_dim *);
void __kmpc_doacross_wait(ident_t *, int32_t, const int64_t *);
void __kmpc_doacross_post(ident_t *, int32_t, const int64_t *);
void __kmpc_doacross_fini(ident_t *, int32_t);
void __kmpc_fork_call_if(ident_t *, int32_t, void (*)(int32_t *, int32_t *, ...), int32_t, void *);
void __kmpc_push_num_teams_51(ident_t *, int32_t, int32_t, int32_t, int32_t);
void __kmpc_fork_teams(ident_t *, int32_t, void (*)(int32_t *, int32_t *, ...), ...);
void __kmpc_scope(ident_t *, int32_t, void *);
void __kmpc_end_scope(ident_t *, int32_t, void *);
void __kmpc_error(ident_t *, int, const char *);
void __kmpc_omp_taskwait_deps_51(ident_t *, int32_t, int32_t, kmp_depend_info_t *, int32_t, kmp_depend_info_t *,
                                 int32_t);
void __kmpc_taskloop_5(ident_t *, int32_t, kmp_task_t *, int, uint64_t *, uint64_t *, int64_t, int, int, uint64_t,
                       int, void *);
int omp_get_team_num(void);
int omp_get_num_teams(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_num_procs(void);
int omp_get_level(void);
int omp_get_max_threads(void);

static ident_t loc_atomic = {0, 0x12, 0, 0, ";test_kmp_abi;unknown;0;0;;"};

#define EPISODES 30



/* ---- fork: arguments, team sizes, push is one-shot, gtid ---- */

static _Atomic int seen_members;
static int32_t gtid_of[8];

static void body0(int32_t *gtid, int32_t *tid)
{
    CHECK(*tid == omp_get_thread_num() && *gtid == __kmpc_global_thread_num(&loc), "gtid %d tid %d", *gtid, *tid);
    gtid_of[*tid] = *gtid;
    atomic_fetch_add(&seen_members, 1);
}

static void body3(int32_t *gtid, int32_t *tid, long a, long *b, double *c)
{
    (void)gtid;
    CHECK(a == 41 && *b == 42 && *c == 43.5, "three arguments: %ld %ld %g", a, *b, *c);
    atomic_fetch_add(&seen_members, 1 + 0 * *tid);
}

static void body11(int32_t *gtid, int32_t *tid, long a0, long a1, long a2, long a3, long a4, long a5, long a6,
                   long a7, long a8, long a9, long a10)
{
    (void)gtid, (void)tid;
    long want[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    long got[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10};
    CHECK(memcmp(want, got, sizeof want) == 0, "eleven arguments in order");
    atomic_fetch_add(&seen_members, 1);
}

static void test_fork(void)
{
    for (unsigned k = 0; k < TEAMS; k++) {
        int n = teams[k];
        seen_members = 0;
        __kmpc_push_num_threads(&loc, 0, n);
        __kmpc_fork_call(&loc, 0, (micro)body0);
        CHECK(seen_members == n, "team of %d: %d members ran", n, seen_members);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++)
                CHECK(gtid_of[i] != gtid_of[j], "members %d and %d share gtid %d", i, j, gtid_of[i]);
        long b = 42;
        double c = 43.5;
        seen_members = 0;
        __kmpc_push_num_threads(&loc, 0, n);
        __kmpc_fork_call(&loc, 3, (micro)body3, 41L, &b, &c);
        CHECK(seen_members == n, "three-argument region: %d of %d", seen_members, n);
        seen_members = 0;
        __kmpc_push_num_threads(&loc, 0, n);
        __kmpc_fork_call(&loc, 11, (micro)body11, 0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        CHECK(seen_members == n, "eleven-argument region: %d of %d", seen_members, n);
    }
    /* The push applies to one fork only. */
    seen_members = 0;
    __kmpc_push_num_threads(&loc, 0, 3);
    __kmpc_fork_call(&loc, 0, (micro)body0);
    int pushed = seen_members;
    seen_members = 0;
    __kmpc_fork_call(&loc, 0, (micro)body0);
    CHECK(pushed == 3 && seen_members == omp_get_max_threads(),
          "push_num_threads(3) then a plain fork: %d then %d members (nthreads-var %d)", pushed, seen_members,
          omp_get_max_threads());
    /* if(false): a level of one thread, run by the caller. */
    int32_t g = __kmpc_global_thread_num(&loc);
    __kmpc_serialized_parallel(&loc, g);
    CHECK(omp_get_level() == 1 && omp_get_num_threads() == 1, "serialized: level %d, %d threads", omp_get_level(),
          omp_get_num_threads());
    __kmpc_end_serialized_parallel(&loc, g);
    CHECK(omp_get_level() == 0, "after the serialized region: level %d", omp_get_level());
}

/* ---- static_init: every iteration once, plast on the last one's owner ---- */

typedef struct static_job {
    int32_t lower, upper, incr, chunk, sched;
    _Atomic int hits[400];
    _Atomic int lasts;
    _Atomic int last_owner_ok;
    uint64_t ulower, uupper;
    _Atomic int uhits[64];
} static_job;

static void static_body(int32_t *gtid, int32_t *tid, static_job *j)
{
    (void)tid;
    int32_t last = 0, lb = j->lower, ub = j->upper, st = 0;
    __kmpc_for_static_init_4(&loc, *gtid, j->sched, &last, &lb, &ub, &st, j->incr, j->chunk);
    int32_t global_ub = j->upper;
    bool ran_last = false;
    for (;;) {
        if (j->incr > 0 ? ub > global_ub : ub < global_ub)
            ub = global_ub;
        if (j->incr > 0 ? lb > ub : lb < ub)
            break;
        for (int32_t i = lb; j->incr > 0 ? i <= ub : i >= ub; i += j->incr) {
            atomic_fetch_add(&j->hits[i + 200], 1);
            ran_last |= i == global_ub - (global_ub - j->lower) % j->incr;
        }
        if (j->sched == 34)
            break;
        lb += st;
        ub += st;
    }
    __kmpc_for_static_fini(&loc, *gtid);
    if (last)
        atomic_fetch_add(&j->lasts, 1);
    if (last != ran_last)
        atomic_store(&j->last_owner_ok, 0);
    /* 8u near the top of the range: no wrap-around. */
    int32_t ulast = 0;
    uint64_t ulb = j->ulower, uub = j->uupper;
    int64_t ust = 0;
    __kmpc_for_static_init_8u(&loc, *gtid, 34, &ulast, &ulb, &uub, &ust, 1, 1);
    for (uint64_t i = ulb; ulb <= uub && i <= uub; i++) {
        atomic_fetch_add(&j->uhits[i - j->ulower], 1);
        if (i == UINT64_MAX)
            break;
    }
}

static void test_static(void)
{
    static static_job j;
    unsigned rnd = 12345;
    for (int e = 0; e < EPISODES; e++)
        for (unsigned k = 0; k < TEAMS; k++) {
            memset(&j, 0, sizeof j);
            int n = 1 + (int)(next_random(&rnd) % 190);
            j.incr = next_random(&rnd) % 3 == 0 ? -(int32_t)(1 + next_random(&rnd) % 3) : (int32_t)(1 + next_random(&rnd) % 3);
            j.lower = j.incr > 0 ? -(int32_t)(next_random(&rnd) % 10) : n;
            j.upper = j.incr > 0 ? j.lower + n - 1 : j.lower - n + 1;
            j.sched = next_random(&rnd) % 2 ? 34 : 33;
            j.chunk = 1 + (int32_t)(next_random(&rnd) % 6);
            j.ulower = UINT64_MAX - 20;
            j.uupper = UINT64_MAX;
            atomic_store(&j.last_owner_ok, 1);
            fork_team(teams[k], (micro)static_body, &j);
            for (int32_t i = j.lower; j.incr > 0 ? i <= j.upper : i >= j.upper; i += j.incr)
                CHECK(j.hits[i + 200] == 1, "static sched %d chunk %d incr %d team %d: iteration %d ran %d times",
                      j.sched, j.chunk, j.incr, teams[k], i, (int)j.hits[i + 200]);
            CHECK(j.lasts == 1 && j.last_owner_ok, "static sched %d team %d: plast set %d times, on the owner: %d",
                  j.sched, teams[k], (int)j.lasts, (int)j.last_owner_ok);
            for (int i = 0; i <= 20; i++)
                CHECK(j.uhits[i] == 1, "8u static at the top of the range: iteration max-%d ran %d times", 20 - i,
                      (int)j.uhits[i]);
        }
}

/* ---- dispatch: dynamic, guided, runtime, ordered ---- */

typedef struct dispatch_job {
    int32_t n, sched, chunk;
    _Atomic int hits[700];
    _Atomic int lasts;
    long next_ordered; /* plain: ordered regions run in iteration order */
    bool ordered;
    uint64_t un;
    _Atomic int uhits[100];
} dispatch_job;

static void dispatch_body(int32_t *gtid, int32_t *tid, dispatch_job *j)
{
    (void)tid;
    __kmpc_dispatch_init_4(&loc, *gtid, j->sched, 0, j->n - 1, 1, j->chunk);
    int32_t last = 0, lb, ub, st;
    while (__kmpc_dispatch_next_4(&loc, *gtid, &last, &lb, &ub, &st)) {
        for (int32_t i = lb; i <= ub; i++) {
            if (j->ordered) {
                __kmpc_ordered(&loc, *gtid);
                CHECK(j->next_ordered == i, "ordered: iteration %d ran its ordered region after %ld", i,
                      j->next_ordered - 1);
                j->next_ordered = i + 1;
                __kmpc_end_ordered(&loc, *gtid);
                __kmpc_dispatch_fini_4(&loc, *gtid);
            } else {
                delay();
            }
            atomic_fetch_add(&j->hits[i], 1);
        }
        if (last)
            atomic_fetch_add(&j->lasts, 1);
        last = 0;
    }
    __kmpc_barrier(&loc, *gtid);
    /* An unsigned 64-bit dynamic loop straight after (a new work share). */
    __kmpc_dispatch_init_8u(&loc, *gtid, 0x40000000 | 35, 1000, 1000 + j->un - 1, 1, 2);
    uint64_t ulb, uub;
    int64_t ust;
    int32_t ulast;
    while (__kmpc_dispatch_next_8u(&loc, *gtid, &ulast, &ulb, &uub, &ust))
        for (uint64_t i = ulb; i <= uub; i++)
            atomic_fetch_add(&j->uhits[i - 1000], 1);
}

static void test_dispatch(void)
{
    static dispatch_job j;
    static const int32_t scheds[] = {35, 36, 37, 0x40000000 | 35, 0x20000000 | 36, 66, 67, 65};
    unsigned rnd = 777;
    for (int e = 0; e < EPISODES; e++)
        for (unsigned k = 0; k < TEAMS; k++) {
            memset(&j, 0, sizeof j);
            j.n = 1 + (int32_t)(next_random(&rnd) % 699);
            j.sched = scheds[next_random(&rnd) % (sizeof scheds / sizeof scheds[0])];
            j.chunk = 1 + (int32_t)(next_random(&rnd) % 9);
            j.ordered = (j.sched & 0xff) >= 65;
            j.un = 1 + next_random(&rnd) % 99;
            fork_team(teams[k], (micro)dispatch_body, &j);
            for (int32_t i = 0; i < j.n; i++)
                CHECK(j.hits[i] == 1, "dispatch sched %#x chunk %d team %d n %d: iteration %d ran %d times", j.sched,
                      j.chunk, teams[k], j.n, i, (int)j.hits[i]);
            CHECK(j.lasts == 1, "dispatch sched %#x team %d: plast on %d chunks", j.sched, teams[k], (int)j.lasts);
            CHECK(!j.ordered || j.next_ordered == j.n, "ordered regions: %ld of %d", j.next_ordered, j.n);
            for (uint64_t i = 0; i < j.un; i++)
                CHECK(j.uhits[i] == 1, "8u dynamic: iteration %llu ran %d times", (unsigned long long)i,
                      (int)j.uhits[i]);
        }
}

/* ---- reduce, critical ---- */

static kmp_critical_name reduction_lock, critical_name;

typedef struct reduce_job {
    long sum;         /* plain: folded under the lock, or atomically, or by member 0 (tree) */
    long critical_sum;
    int atomic_method;
    bool blocking;
    _Atomic int folded_by_one; /* members told 1 */
    _Atomic int early;         /* tree, blocking: members let go before the sum was complete */
} reduce_job;

static void add_longs(void *lhs, void *rhs)
{
    **(long **)lhs += **(long **)rhs;
}

/* Whether a team of n folds by member 0 (reduce.c), as kmp/sync.c
 * chooses: always with KMP_FORCE_REDUCTION=tree; never when it forces
 * another method; else for teams of more than 4 that fit the CPUs, when
 * blocking or when the call site does not allow atomics. */
static bool member_0_folds(int n, const reduce_job *j)
{
    const char *forced = getenv("KMP_FORCE_REDUCTION");
    if (n == 1)
        return false;
    if (forced != NULL)
        return strcmp(forced, "tree") == 0;
    return n > 4 && n <= omp_get_num_procs() && (j->blocking || !j->atomic_method);
}

/* Member 0's fold: member 0 gets 1 with the team's fold in its copy, the
 * others 0 (after member 0's end, when blocking).  Otherwise each member
 * folds under the lock (1), or atomically where the call site allows it
 * and critical is not forced (2). */
static void reduce_body(int32_t *gtid, int32_t *tid, reduce_job *j)
{
    long mine = *tid + 1;
    void *data[1] = {&mine};
    ident_t *where = j->atomic_method ? &loc_atomic : &loc;
    delay(); /* members reach the reduction in varying order */
    int32_t r = j->blocking ? __kmpc_reduce(where, *gtid, 1, sizeof data, data, add_longs, &reduction_lock)
                            : __kmpc_reduce_nowait(where, *gtid, 1, sizeof data, data, add_longs, &reduction_lock);
    int n = omp_get_num_threads();
    bool tree = member_0_folds(n, j);
    const char *forced = getenv("KMP_FORCE_REDUCTION");
    bool critical = forced != NULL && strcmp(forced, "critical") == 0;
    if (r == 1) {
        CHECK(!j->atomic_method || n == 1 || tree || critical, "method 1 with the atomic flag in a team of %d", n);
        CHECK(!tree || *tid == 0, "tree: member %d was told to fold", (int)*tid);
        atomic_fetch_add(&j->folded_by_one, 1);
        long v = j->sum;
        delay();
        j->sum = v + mine;
        if (j->blocking)
            __kmpc_end_reduce(where, *gtid, &reduction_lock);
        else
            __kmpc_end_reduce_nowait(where, *gtid, &reduction_lock);
    } else if (r == 0) {
        CHECK(tree && *tid != 0, "reduce returned 0 to member %d of a team of %d", (int)*tid, n);
        /* blocking: a barrier, so member 0's fold into the sum is done */
        if (j->blocking && __atomic_load_n(&j->sum, __ATOMIC_RELAXED) != (long)n * (n + 1) / 2)
            atomic_fetch_add(&j->early, 1);
    } else {
        CHECK(r == 2 && j->atomic_method && n > 1 && !tree && !critical, "reduce returned %d (atomic flag %d, team %d)",
              r, j->atomic_method, n);
        __atomic_fetch_add(&j->sum, mine, __ATOMIC_SEQ_CST);
        if (j->blocking)
            __kmpc_end_reduce(where, *gtid, &reduction_lock);
    }
    for (int i = 0; i < 20; i++) {
        __kmpc_critical(&loc, *gtid, &critical_name);
        long v = j->critical_sum;
        if (i % 7 == 0)
            delay();
        j->critical_sum = v + 1;
        __kmpc_end_critical(&loc, *gtid, &critical_name);
    }
}

static void test_reduce(void)
{
    static reduce_job j;
    static const int reduce_teams[] = {1, 2, 3, 5, 6, 7, 9};
    for (int e = 0; e < EPISODES; e++)
        for (unsigned k = 0; k < sizeof reduce_teams / sizeof reduce_teams[0]; k++) {
            memset(&j, 0, sizeof j);
            j.atomic_method = e % 2;
            j.blocking = (e / 2) % 2;
            int n = reduce_teams[k];
            fork_team(n, (micro)reduce_body, &j);
            CHECK(j.sum == (long)n * (n + 1) / 2, "reduce (atomic %d, blocking %d) team %d: %ld", j.atomic_method,
                  j.blocking, n, j.sum);
            CHECK(!member_0_folds(n, &j) || atomic_load(&j.folded_by_one) == 1, "tree, team %d: %d members told to fold",
                  n, atomic_load(&j.folded_by_one));
            CHECK(atomic_load(&j.early) == 0, "tree, blocking, team %d: %d members left before member 0's fold", n,
                  atomic_load(&j.early));
            CHECK(j.critical_sum == 20L * n, "critical, team %d: %ld", n, j.critical_sum);
        }
}

/* ---- single and copyprivate ---- */

typedef struct single_job {
    _Atomic int singles;
    _Atomic int wrong_copies;
} single_job;

static void copy_int(void *dst, void *src)
{
    **(int **)dst = **(int **)src;
}

static void single_body(int32_t *gtid, int32_t *tid, single_job *j)
{
    for (int round = 0; round < 20; round++) {
        int value = -1;
        void *data[1] = {&value};
        int32_t didit = __kmpc_single(&loc, *gtid);
        if (didit) {
            atomic_fetch_add(&j->singles, 1);
            delay();
            value = round * 100 + *tid;
            __kmpc_end_single(&loc, *gtid);
        }
        __kmpc_copyprivate(&loc, *gtid, sizeof data, data, copy_int, didit);
        if (value / 100 != round || value % 100 >= omp_get_num_threads())
            atomic_fetch_add(&j->wrong_copies, 1);
    }
}

static void test_single(void)
{
    static single_job j;
    for (int e = 0; e < EPISODES; e++)
        for (unsigned k = 0; k < TEAMS; k++) {
            memset(&j, 0, sizeof j);
            fork_team(teams[k], (micro)single_body, &j);
            CHECK(j.singles == 20 && j.wrong_copies == 0, "team %d: %d singles of 20, %d wrong copies", teams[k],
                  (int)j.singles, (int)j.wrong_copies);
        }
}

/* ---- tasks: alloc/submit, untied resubmission, if(0), dependences ---- */

typedef struct task_shareds {
    _Atomic int *runs;
    long *chain;     /* plain: ordered by the dependences */
} task_shareds;

typedef struct counted_task {
    kmp_task_t task;
    int index;       /* the compiler's privates */
    int delay_us;
} counted_task;

static int32_t counted_entry(int32_t gtid, kmp_task_t *t)
{
    (void)gtid;
    counted_task *c = (counted_task *)t;
    task_shareds *s = t->shareds;
    if (c->delay_us)
        delay();
    atomic_fetch_add(&s->runs[c->index], 1);
    return 0;
}

/* clang's untied entry: the first call only resubmits, the second runs. */
static int32_t untied_entry(int32_t gtid, kmp_task_t *t)
{
    if (t->part_id == 0) {
        t->part_id = 1;
        __kmpc_omp_task(&loc, gtid, t);
        return 0;
    }
    return counted_entry(gtid, t);
}

static int32_t chain_entry(int32_t gtid, kmp_task_t *t)
{
    (void)gtid;
    counted_task *c = (counted_task *)t;
    task_shareds *s = t->shareds;
    delay();
    CHECK(*s->chain == c->index, "dependence chain: task %d ran after %ld", c->index, *s->chain - 1);
    *s->chain = c->index + 1;
    return 0;
}

static kmp_task_t *new_task(int32_t gtid, int32_t flags, kmp_routine_entry_t entry, task_shareds *shared, int index)
{
    kmp_task_t *t = __kmpc_omp_task_alloc(&loc, gtid, flags, sizeof(counted_task), sizeof(task_shareds), entry);
    CHECK(((uintptr_t)t & 15) == 0, "a task block aligned to 16");
    memcpy(t->shareds, shared, sizeof *shared);
    ((counted_task *)t)->index = index;
    ((counted_task *)t)->delay_us = index % 3 == 0;
    return t;
}

typedef struct tasks_job {
    int n;
    _Atomic int runs[300];
    long chain;
} tasks_job;

static void tasks_body(int32_t *gtid, int32_t *tid, tasks_job *j)
{
    (void)tid;
    if (!__kmpc_single(&loc, *gtid)) {
        __kmpc_barrier(&loc, *gtid);
        return;
    }
    task_shareds s = {j->runs, &j->chain};
    for (int i = 0; i < j->n; i++)
        __kmpc_omp_task(&loc, *gtid, new_task(*gtid, i % 2 ? 0 : 1, i % 2 ? untied_entry : counted_entry, &s, i));
    /* An if(0) task whose children its taskwait waits for. */
    kmp_task_t *outer = new_task(*gtid, 1, counted_entry, &s, j->n);
    __kmpc_omp_task_begin_if0(&loc, *gtid, outer);
    for (int i = j->n + 1; i < j->n + 6; i++)
        __kmpc_omp_task(&loc, *gtid, new_task(*gtid, 1, counted_entry, &s, i));
    __kmpc_omp_taskwait(&loc, *gtid);
    for (int i = j->n + 1; i < j->n + 6; i++)
        CHECK(j->runs[i] == 1, "child %d of an if(0) task done at its taskwait", i);
    counted_entry(*gtid, outer);
    __kmpc_omp_task_complete_if0(&loc, *gtid, outer);
    __kmpc_omp_taskwait(&loc, *gtid);
    for (int i = 0; i <= j->n + 5; i++)
        CHECK(j->runs[i] == 1, "task %d of %d (%s) ran %d times by the taskwait", i, j->n,
              i % 2 ? "untied" : "tied", (int)j->runs[i]);
    /* An inout chain on one address: program order. */
    j->chain = 0;
    for (int i = 0; i < 40; i++) {
        kmp_depend_info_t dep = {(intptr_t)&j->chain, sizeof j->chain, 3};
        __kmpc_omp_task_with_deps(&loc, *gtid, new_task(*gtid, 1, chain_entry, &s, i), 1, &dep, 0, NULL);
    }
    __kmpc_omp_taskwait(&loc, *gtid);
    CHECK(j->chain == 40, "dependence chain: %ld of 40", j->chain);
    __kmpc_end_single(&loc, *gtid);
    __kmpc_barrier(&loc, *gtid);
}

static void test_tasks(void)
{
    static tasks_job j;
    for (int e = 0; e < EPISODES; e++)
        for (unsigned k = 0; k < TEAMS; k++) {
            memset(&j, 0, sizeof j);
            j.n = 1 + e * 9 % 250;
            fork_team(teams[k], (micro)tasks_body, &j);
        }
}

/* ---- detach: an if(0) detachable task fulfilled by a thread outside ---- */

typedef struct fulfiller {
    void *event;
    _Atomic int fulfilled_after_delay;
} fulfiller;

static void *fulfil_later(void *arg)
{
    fulfiller *f = arg;
    void (*fulfil)(void *) = (void (*)(void *))dlvsym(RTLD_DEFAULT, "omp_fulfill_event", "VERSION");
    CHECK(fulfil != NULL, "omp_fulfill_event at VERSION");
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    atomic_store(&f->fulfilled_after_delay, 1);
    fulfil(f->event);
    return NULL;
}

static void detach_body(int32_t *gtid, int32_t *tid, _Atomic int *runs)
{
    (void)tid;
    if (__kmpc_single(&loc, *gtid)) {
        for (int deferred = 0; deferred < 2; deferred++) {
            task_shareds s = {runs, NULL};
            kmp_task_t *t = new_task(*gtid, 1 | 0x40, counted_entry, &s, deferred);
            fulfiller f = {__kmpc_task_allow_completion_event(&loc, *gtid, t), 0};
            pthread_t outside;
            /* The event goes to the outside thread once the task exists, as
             * a program hands it on from the task's body or after it. */
            if (deferred) {
                __kmpc_omp_task(&loc, *gtid, t);
                CHECK(pthread_create(&outside, NULL, fulfil_later, &f) == 0, "a thread outside the team");
            } else {
                __kmpc_omp_task_begin_if0(&loc, *gtid, t);
                CHECK(pthread_create(&outside, NULL, fulfil_later, &f) == 0, "a thread outside the team");
                counted_entry(*gtid, t);
                __kmpc_omp_task_complete_if0(&loc, *gtid, t);
            }
            __kmpc_omp_taskwait(&loc, *gtid);
            CHECK(atomic_load(&f.fulfilled_after_delay) == 1 && runs[deferred] == 1,
                  "%s detachable task: taskwait returned before its event was fulfilled",
                  deferred ? "a deferred" : "an if(0)");
            pthread_join(outside, NULL);
        }
        __kmpc_end_single(&loc, *gtid);
    }
    __kmpc_barrier(&loc, *gtid);
}

static void test_detach(void)
{
    static _Atomic int runs[2];
    for (unsigned k = 0; k < TEAMS; k++) {
        memset(runs, 0, sizeof runs);
        fork_team(teams[k], (micro)detach_body, runs);
    }
}

/* ---- proxy tasks: complete only when the program says, by address ----
 * As LLVM's own proxy-task tests drive them: each task's body hands its
 * task to a thread outside the team, which completes it later, in another
 * order than the tasks ran; a task after them depends on them all.  Every
 * wait must last until the completions, and a completed task's block must
 * not be freed under the completer (ASan's build would say). */

typedef struct proxy_job {
    _Atomic int ran, completed;
    pthread_t completers[8];
    kmp_task_t *tasks[8];
    _Atomic int handed;
    long after; /* written by the dependent task: completed count seen */
} proxy_job;

#define PROXIES 8

static void *complete_later(void *arg)
{
    kmp_task_t *t = arg;
    proxy_job *j = *(proxy_job **)t->shareds;
    int index = ((counted_task *)t)->index;
    struct timespec pause = {0, (long)(PROXIES - index) * 2 * 1000 * 1000}; /* the last one first */
    nanosleep(&pause, NULL);
    atomic_fetch_add(&j->completed, 1);
    if (index % 2)
        __kmpc_proxy_task_completed_ooo(t);
    else
        __kmpc_proxy_task_completed(0, t); /* gtid is not read; from outside the team it is what libomp allows */
    return NULL;
}

static int32_t proxy_entry(int32_t gtid, kmp_task_t *t)
{
    (void)gtid;
    proxy_job *j = *(proxy_job **)t->shareds;
    int index = ((counted_task *)t)->index;
    atomic_fetch_add(&j->ran, 1);
    CHECK(pthread_create(&j->completers[index], NULL, complete_later, t) == 0, "a completer thread");
    atomic_fetch_add(&j->handed, 1);
    return 0;
}

static int32_t after_proxies_entry(int32_t gtid, kmp_task_t *t)
{
    (void)gtid;
    proxy_job *j = *(proxy_job **)t->shareds;
    j->after = atomic_load(&j->completed);
    return 0;
}

static kmp_task_t *proxy_task(int32_t gtid, int32_t flags, kmp_routine_entry_t entry, proxy_job *j, int index)
{
    kmp_task_t *t = __kmpc_omp_task_alloc(&loc, gtid, flags, sizeof(counted_task), sizeof j, entry);
    memcpy(t->shareds, &j, sizeof j);
    ((counted_task *)t)->index = index;
    return t;
}

static void proxy_body(int32_t *gtid, int32_t *tid, proxy_job *j)
{
    (void)tid;
    if (__kmpc_single(&loc, *gtid)) {
        kmp_depend_info_t dep = {(intptr_t)&j->after, sizeof j->after, 2 /* out */};
        for (int i = 0; i < PROXIES; i++) {
            kmp_task_t *t = proxy_task(*gtid, 1 | 0x10, proxy_entry, j, i);
            j->tasks[i] = t;
            CHECK(__kmpc_omp_reg_task_with_affinity(&loc, *gtid, t, 1, &j->after) == 0,
                  "task affinity registered");
            __kmpc_omp_task_with_deps(&loc, *gtid, t, 1, &dep, 0, NULL);
            dep.flags = 3; /* inout: each after the one before */
        }
        dep.flags = 1; /* in */
        __kmpc_omp_task_with_deps(&loc, *gtid, proxy_task(*gtid, 1, after_proxies_entry, j, PROXIES), 1, &dep, 0,
                                  NULL);
        __kmpc_omp_taskwait(&loc, *gtid);
        CHECK(atomic_load(&j->completed) == PROXIES && atomic_load(&j->ran) == PROXIES,
              "taskwait returned with %d of %d proxy tasks completed (%d ran)", atomic_load(&j->completed), PROXIES,
              atomic_load(&j->ran));
        CHECK(j->after == PROXIES, "a task depending on proxy tasks ran after %ld of %d completions", j->after,
              PROXIES);
        for (int i = 0; i < PROXIES; i++)
            pthread_join(j->completers[i], NULL);
        __kmpc_end_single(&loc, *gtid);
    }
    __kmpc_barrier(&loc, *gtid);
}

static void test_proxy(void)
{
    static proxy_job j;
    for (int e = 0; e < 4; e++)
        for (unsigned k = 0; k < TEAMS; k++) {
            memset(&j, 0, sizeof j);
            fork_team(teams[k], (micro)proxy_body, &j);
        }
}

/* ---- taskloop with task_dup and lastprivate ---- */

typedef struct loop_task {
    kmp_task_t task;
    uint64_t lb, ub;
    int64_t st;
    int32_t liter;
    void *reductions;
    int dup_marker; /* a private set by task_dup */
} loop_task;

typedef struct loop_job {
    _Atomic int hits[500];
    _Atomic int dups;
    _Atomic int lasts;
    _Atomic int64_t last_ub;
} loop_job;

static int32_t loop_entry(int32_t gtid, kmp_task_t *t)
{
    (void)gtid;
    loop_task *l = (loop_task *)t;
    loop_job *j = *(loop_job **)t->shareds;
    CHECK(l->dup_marker == 7, "task_dup ran on this piece");
    for (uint64_t i = l->lb; (int64_t)i <= (int64_t)l->ub; i += (uint64_t)l->st)
        atomic_fetch_add(&j->hits[i], 1);
    if (l->liter) {
        atomic_fetch_add(&j->lasts, 1);
        atomic_store(&j->last_ub, (int64_t)l->ub);
    }
    return 0;
}

static void loop_dup(kmp_task_t *dst, kmp_task_t *src, int32_t lastpriv)
{
    (void)src;
    loop_job *j = *(loop_job **)dst->shareds;
    atomic_fetch_add(&j->dups, 1);
    ((loop_task *)dst)->dup_marker = 7;
    ((loop_task *)dst)->liter = lastpriv;
}

static void taskloop_body(int32_t *gtid, int32_t *tid, loop_job *j)
{
    (void)tid;
    if (__kmpc_single(&loc, *gtid)) {
        unsigned rnd = 99 + (unsigned)omp_get_num_threads();
        for (int form = 0; form < 6; form++) {
            memset(j, 0, sizeof *j);
            int n = 1 + (int)(next_random(&rnd) % 499);
            kmp_task_t *t = __kmpc_omp_task_alloc(&loc, *gtid, 1, sizeof(loop_task), sizeof(loop_job *), loop_entry);
            *(loop_job **)t->shareds = j;
            loop_task *l = (loop_task *)t;
            l->lb = 0;
            l->ub = (uint64_t)n - 1;
            l->st = 1;
            __kmpc_taskgroup(&loc, *gtid);
            __kmpc_taskloop(&loc, *gtid, t, form != 5, &l->lb, &l->ub, 1, 1, form % 3,
                            form % 3 == 1 ? 1 + next_random(&rnd) % 40 : 1 + next_random(&rnd) % 9, loop_dup);
            __kmpc_end_taskgroup(&loc, *gtid);
            for (int i = 0; i < n; i++)
                CHECK(j->hits[i] == 1, "taskloop form %d n %d: iteration %d ran %d times", form, n, i,
                      (int)j->hits[i]);
            CHECK(j->lasts == 1 && j->last_ub == n - 1, "taskloop form %d: lastprivate on %d pieces, ub %lld", form,
                  (int)j->lasts, (long long)j->last_ub);
            CHECK(j->dups >= 1, "taskloop form %d: task_dup called %d times", form, (int)j->dups);
        }
        __kmpc_end_single(&loc, *gtid);
    }
    __kmpc_barrier(&loc, *gtid);
}

static void test_taskloop(void)
{
    static loop_job j;
    for (int e = 0; e < EPISODES / 3; e++)
        for (unsigned k = 0; k < TEAMS; k++)
            fork_team(teams[k], (micro)taskloop_body, &j);
}

/* ---- task reductions on a taskgroup ---- */

static void init_long(void *priv, void *orig)
{
    (void)orig;
    *(long *)priv = 0;
}

static void comb_long(void *lhs, void *rhs)
{
    *(long *)lhs += *(long *)rhs;
}

typedef struct red_task {
    kmp_task_t task;
    void *tg;
    long *item;
    long value;
} red_task;

static int32_t red_entry(int32_t gtid, kmp_task_t *t)
{
    red_task *r = (red_task *)t;
    long *mine = __kmpc_task_reduction_get_th_data(gtid, r->tg, r->item);
    if (r->value % 5 == 0)
        delay();
    *mine += r->value; /* plain: the copy is this thread's */
    return 0;
}

static void taskred_body(int32_t *gtid, int32_t *tid, long *sum)
{
    (void)tid;
    if (__kmpc_single(&loc, *gtid)) {
        __kmpc_taskgroup(&loc, *gtid);
        kmp_taskred_input_t in = {sum, NULL, sizeof(long), init_long, NULL, comb_long, 0};
        void *tg = __kmpc_taskred_init(*gtid, 1, &in);
        for (long v = 1; v <= 200; v++) {
            kmp_task_t *t = __kmpc_omp_task_alloc(&loc, *gtid, 1, sizeof(red_task), 0, red_entry);
            red_task *r = (red_task *)t;
            r->tg = tg;
            r->item = sum;
            r->value = v;
            __kmpc_omp_task(&loc, *gtid, t);
        }
        __kmpc_end_taskgroup(&loc, *gtid);
        CHECK(*sum == 1000 + 200 * 201 / 2, "task reduction folded at the taskgroup's end: %ld", *sum);
        __kmpc_end_single(&loc, *gtid);
    }
    __kmpc_barrier(&loc, *gtid);
}

static void test_taskred(void)
{
    for (int e = 0; e < EPISODES; e++)
        for (unsigned k = 0; k < TEAMS; k++) {
            long sum = 1000;
            fork_team(teams[k], (micro)taskred_body, &sum);
        }
}

/* ---- doacross: a wavefront over a 2-D nest ---- */

#define DX 23
#define DY 17

static void doacross_body(int32_t *gtid, int32_t *tid, long (*grid)[DY])
{
    (void)tid;
    kmp_dim dims[2] = {{1, DX - 1, 1}, {1, DY - 1, 1}};
    __kmpc_doacross_init(&loc, *gtid, 2, dims);
    __kmpc_dispatch_init_4(&loc, *gtid, 35, 1, DX - 1, 1, 1);
    int32_t last, lb, ub, st;
    while (__kmpc_dispatch_next_4(&loc, *gtid, &last, &lb, &ub, &st))
        for (int32_t i = lb; i <= ub; i++)
            for (int64_t y = 1; y < DY; y++) {
                int64_t up[2] = {i - 1, y}, left[2] = {i, y - 1};
                __kmpc_doacross_wait(&loc, *gtid, up);
                __kmpc_doacross_wait(&loc, *gtid, left);
                if ((i + y) % 11 == 0)
                    delay();
                grid[i][y] = grid[i - 1][y] + grid[i][y - 1] + 1; /* plain: ordered by the dependences */
                int64_t here[2] = {i, y};
                __kmpc_doacross_post(&loc, *gtid, here);
            }
    __kmpc_doacross_fini(&loc, *gtid);
    __kmpc_barrier(&loc, *gtid);
}

static void test_doacross(void)
{
    static long grid[DX][DY], want[DX][DY];
    for (int x = 1; x < DX; x++)
        for (int y = 1; y < DY; y++)
            want[x][y] = want[x - 1][y] + want[x][y - 1] + 1;
    for (int e = 0; e < EPISODES / 3; e++)
        for (unsigned k = 0; k < TEAMS; k++) {
            memset(grid, 0, sizeof grid);
            fork_team(teams[k], (micro)doacross_body, grid);
            CHECK(memcmp(grid, want, sizeof grid) == 0, "doacross wavefront, team %d: grid differs", teams[k]);
        }
}

/* ---- LLVM's 8-byte nest lock at VERSION; detach's event at VERSION ---- */

typedef struct guarded_lock {
    uint64_t before, lock, after;
} guarded_lock;

static void test_locks(void)
{
    void (*init)(void *) = (void (*)(void *))dlvsym(RTLD_DEFAULT, "omp_init_nest_lock", "VERSION");
    void (*set)(void *) = (void (*)(void *))dlvsym(RTLD_DEFAULT, "omp_set_nest_lock", "VERSION");
    void (*unset)(void *) = (void (*)(void *))dlvsym(RTLD_DEFAULT, "omp_unset_nest_lock", "VERSION");
    int (*test)(void *) = (int (*)(void *))dlvsym(RTLD_DEFAULT, "omp_test_nest_lock", "VERSION");
    void (*destroy)(void *) = (void (*)(void *))dlvsym(RTLD_DEFAULT, "omp_destroy_nest_lock", "VERSION");
    CHECK(init && set && unset && test && destroy, "the nest-lock functions at version VERSION");
    guarded_lock g = {0x1111111111111111u, 0, 0x2222222222222222u};
    init(&g.lock);
    set(&g.lock);
    set(&g.lock);
    CHECK(test(&g.lock) == 3, "nesting count 3");
    unset(&g.lock);
    unset(&g.lock);
    unset(&g.lock);
    CHECK(test(&g.lock) == 1, "free again, taken once");
    unset(&g.lock);
    destroy(&g.lock);
    CHECK(g.before == 0x1111111111111111u && g.after == 0x2222222222222222u,
          "an 8-byte omp_nest_lock_t: the words beside it untouched");
}

/* ---- omp_get_schedule at VERSION: libomp's answers ---- */

/* clang-built programs compare the kind with omp_sched_static: libomp
 * reports a static schedule without the monotonic bit (libgomp, at gcc's
 * name, reports it with), whether static is the default or OMP_SCHEDULE's;
 * an explicit monotonic modifier of another kind stays. */
/* omp_sched_t's values, as both omp.h files give them (this file includes
 * neither: it is clang's code, built by gcc). */
enum { SCHED_STATIC = 1, SCHED_DYNAMIC = 2, SCHED_GUIDED = 3 };
#define SCHED_MONOTONIC 0x80000000u
void omp_set_schedule(int kind, int chunk);

static void test_schedule(void)
{
    void (*get)(int *, int *) = (void (*)(int *, int *))dlvsym(RTLD_DEFAULT, "omp_get_schedule", "VERSION");
    CHECK(get != NULL, "omp_get_schedule at VERSION");
    int kind, chunk;
    get(&kind, &chunk);
    CHECK(kind == SCHED_STATIC && chunk == 0, "the default schedule at VERSION: %#x,%d, not static,0",
          (unsigned)kind, chunk);
    omp_set_schedule((int)(SCHED_STATIC | SCHED_MONOTONIC), 4);
    get(&kind, &chunk);
    CHECK(kind == SCHED_STATIC && chunk == 4, "monotonic static at VERSION: %#x,%d", (unsigned)kind, chunk);
    omp_set_schedule((int)(SCHED_DYNAMIC | SCHED_MONOTONIC), 3);
    get(&kind, &chunk);
    CHECK((unsigned)kind == (SCHED_DYNAMIC | SCHED_MONOTONIC) && chunk == 3,
          "monotonic dynamic at VERSION keeps its modifier: %#x,%d", (unsigned)kind, chunk);
    omp_set_schedule(SCHED_GUIDED, 2);
    get(&kind, &chunk);
    CHECK(kind == SCHED_GUIDED && chunk == 2, "guided at VERSION: %#x,%d", (unsigned)kind, chunk);
}

/* ---- entry points of newer clang (OpenMP 5.1/5.2) ---- */

typedef struct newer_job {
    _Atomic int members;
    _Atomic int in_parallel;
    _Atomic int teams_seen;
    _Atomic int piece_sizes[64];
    _Atomic int pieces;
} newer_job;

static void if_body(int32_t *gtid, int32_t *tid, newer_job *j)
{
    (void)gtid, (void)tid;
    atomic_fetch_add(&j->members, 1);
    if (omp_get_level() == 1)
        atomic_fetch_add(&j->in_parallel, 1);
}

static void teams_body(int32_t *gtid, int32_t *tid, newer_job *j)
{
    (void)gtid;
    CHECK(*tid == 0 && omp_get_num_teams() == 5, "teams body: tid %d of %d teams", *tid, omp_get_num_teams());
    atomic_fetch_add(&j->teams_seen, 1 << omp_get_team_num());
}

static int32_t piece_entry(int32_t gtid, kmp_task_t *t)
{
    (void)gtid;
    loop_task *l = (loop_task *)t;
    newer_job *j = *(newer_job **)t->shareds;
    int n = (int)(l->ub - l->lb + 1);
    CHECK(n > 0 && n < 64, "a strict taskloop piece of %d iterations", n);
    atomic_fetch_add(&j->piece_sizes[n], 1);
    atomic_fetch_add(&j->pieces, 1);
    return 0;
}

static void test_newer(void)
{
    static newer_job j;
    for (unsigned k = 0; k < TEAMS; k++) {
        memset(&j, 0, sizeof j);
        __kmpc_push_num_threads(&loc, 0, teams[k]);
        __kmpc_fork_call_if(&loc, 1, (micro)if_body, 1, &j);
        CHECK(j.members == teams[k] && j.in_parallel == teams[k], "fork_call_if(true), team %d: %d members", teams[k],
              (int)j.members);
        memset(&j, 0, sizeof j);
        __kmpc_fork_call_if(&loc, 1, (micro)if_body, 0, &j);
        CHECK(j.members == 1 && j.in_parallel == 1, "fork_call_if(false): %d members at level 1", (int)j.members);
    }
    memset(&j, 0, sizeof j);
    __kmpc_push_num_teams_51(&loc, 0, 2, 5, 0);
    __kmpc_fork_teams(&loc, 1, (micro)teams_body, &j);
    CHECK(j.teams_seen == 31, "num_teams(2:5): teams seen %#x", (int)j.teams_seen);
    /* strict grainsize: every piece exactly 7 iterations but the last. */
    int32_t gtid = __kmpc_global_thread_num(&loc);
    for (int n = 1; n < 60; n += 4) {
        memset(&j, 0, sizeof j);
        kmp_task_t *t = __kmpc_omp_task_alloc(&loc, gtid, 1, sizeof(loop_task), sizeof(newer_job *), piece_entry);
        *(newer_job **)t->shareds = &j;
        loop_task *l = (loop_task *)t;
        l->lb = 0;
        l->ub = (uint64_t)n - 1;
        l->st = 1;
        __kmpc_taskgroup(&loc, gtid);
        __kmpc_taskloop_5(&loc, gtid, t, 1, &l->lb, &l->ub, 1, 1, 1, 7, 1, NULL);
        __kmpc_end_taskgroup(&loc, gtid);
        CHECK(j.pieces == (n + 6) / 7 && j.piece_sizes[7] == n / 7 && (n % 7 == 0 || j.piece_sizes[n % 7] == 1),
              "strict grainsize 7 over %d iterations: %d pieces", n, (int)j.pieces);
    }
    kmp_depend_info_t dep = {(intptr_t)&j, sizeof j, 3};
    __kmpc_omp_taskwait_deps_51(&loc, gtid, 1, &dep, 0, NULL, 0);
    __kmpc_scope(&loc, gtid, NULL);
    __kmpc_end_scope(&loc, gtid, NULL);
    __kmpc_error(&loc, 1, "a warning from test_kmp_abi");
}

int main(int argc, char **argv)
{
    CHECK(argc == 2,
          "usage: test_kmp_abi fork|static|dispatch|reduce|single|tasks|taskloop|taskred|doacross|locks|schedule|"
          "newer|detach|proxy");
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"fork", test_fork},       {"static", test_static},     {"dispatch", test_dispatch},
                 {"reduce", test_reduce},   {"single", test_single},     {"tasks", test_tasks},
                 {"taskloop", test_taskloop}, {"taskred", test_taskred}, {"doacross", test_doacross},
                 {"locks", test_locks},     {"schedule", test_schedule}, {"newer", test_newer},
                 {"detach", test_detach},     {"proxy", test_proxy}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return 0;
        }
    CHECK(false, "unknown case %s", argv[1]);
    return 1;
}
