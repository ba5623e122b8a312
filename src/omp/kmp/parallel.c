/* Identity, parallel regions, barrier, flush, master and masked for
 * clang-built code.  __kmpc_fork_call forks a team through the same
 * muster_omp_parallel as GOMP_parallel; each member calls the outlined body
 * with its gtid, its thread number and the region's arguments. */
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp/display.h" /* muster_omp_display_as_libomp */
#include "omp/env.h"     /* muster_omp_nteams_var */
#include "omp/kmp/kmp.h"

/* The most arguments a region's body takes here; clang passes one per
 * variable the region shares or copies in (NPB's largest: 11). */
#define KMP_MAX_ARGS 32

/* ---- identity ---- */

static _Atomic kmp_int32 next_gtid;
/* 0: not yet asked; else gtid + 1. */
static _Thread_local kmp_int32 my_gtid_plus_one __attribute__((tls_model("initial-exec")));

kmp_int32 muster_kmp_gtid(void)
{
    kmp_int32 g = my_gtid_plus_one;
    if (__builtin_expect(g != 0, 1))
        return g - 1;
    /* relaxed: the counter only hands out distinct numbers. */
    g = atomic_fetch_add_explicit(&next_gtid, 1, memory_order_relaxed);
    my_gtid_plus_one = g + 1;
    return g;
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_global_thread_num(ident_t *loc)
{
    (void)loc;
    muster_omp_self(); /* a foreign thread gets its state now, as libomp registers it */
    return muster_kmp_gtid();
}

/* ---- clauses pushed for the next fork (one-shot, per thread) ---- */

typedef struct pushed_clauses {
    unsigned num_threads; /* 0: none */
    unsigned proc_bind;   /* 0: none; else omp_proc_bind_t */
    unsigned num_teams, thread_limit; /* for the next fork_teams; 0: none */
} pushed_clauses;

static _Thread_local pushed_clauses pushed __attribute__((tls_model("initial-exec")));

MUSTER_OMP_EXPORT void __kmpc_push_num_threads(ident_t *loc, kmp_int32 gtid, kmp_int32 num_threads)
{
    (void)loc, (void)gtid;
    /* A num_threads clause below 1 is the program's error; libomp takes 1. */
    pushed.num_threads = num_threads > 0 ? (unsigned)num_threads : 1u;
}

MUSTER_OMP_EXPORT void __kmpc_push_proc_bind(ident_t *loc, kmp_int32 gtid, kmp_int32 proc_bind)
{
    (void)loc, (void)gtid;
    /* GOMP_parallel's flags carry a proc_bind clause in their low 3 bits,
     * with omp_proc_bind_t's values (master 2, close 3, spread 4). */
    pushed.proc_bind = proc_bind >= MUSTER_OMP_BIND_PRIMARY && proc_bind <= MUSTER_OMP_BIND_SPREAD
                           ? (unsigned)proc_bind
                           : 0u;
}

/* Drops a pushed num_threads that no fork took (Intel's compilers). */
MUSTER_OMP_EXPORT void __kmpc_pop_num_threads(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    pushed.num_threads = 0;
}

/* Every fork of LLVM's ABI takes its pushed clauses here: also where the
 * program's OMP_DISPLAY_AFFINITY lines are sent to stdout, as libomp
 * writes them. */
static pushed_clauses take_pushed(void)
{
    muster_omp_display_as_libomp();
    pushed_clauses p = pushed;
    pushed = (pushed_clauses){0, 0, 0, 0};
    return p;
}

/* ---- parallel regions ---- */

typedef struct kmp_region {
    kmpc_micro fn;
    int argc;
    void **args;
} kmp_region;

/* Calls fn(gtid, tid, a[0], ..., a[argc-1]) with its real arity: every
 * argument is pointer-sized, so each case is ABI-exact on x86-64 and
 * AArch64. */
static void invoke_microtask(kmpc_micro fn, kmp_int32 *gtid, kmp_int32 *tid, int argc, void **a)
{
    if (muster_ompt_on()) /* this adapter, not the core, calls the program's code */
        muster_ompt_set_exit_frame(__builtin_dwarf_cfa());
    switch (argc) {
    case 0:
        ((void (*)(kmp_int32 *, kmp_int32 *))fn)(gtid, tid);
        return;
    case 1:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *))fn)(gtid, tid, a[0]);
        return;
    case 2:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *))fn)(gtid, tid, a[0], a[1]);
        return;
    case 3:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2]);
        return;
    case 4:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3]);
        return;
    case 5:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4]);
        return;
    case 6:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5]);
        return;
    case 7:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
        return;
    case 8:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
        return;
    case 9:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
        return;
    case 10:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
        return;
    case 11:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]);
        return;
    case 12:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]);
        return;
    case 13:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12]);
        return;
    case 14:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13]);
        return;
    case 15:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14]);
        return;
    case 16:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
        return;
    case 17:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16]);
        return;
    case 18:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17]);
        return;
    case 19:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18]);
        return;
    case 20:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19]);
        return;
    case 21:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20]);
        return;
    case 22:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21]);
        return;
    case 23:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22]);
        return;
    case 24:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23]);
        return;
    case 25:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24]);
        return;
    case 26:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25]);
        return;
    case 27:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26]);
        return;
    case 28:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27]);
        return;
    case 29:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28]);
        return;
    case 30:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29]);
        return;
    case 31:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29], a[30]);
        return;
    case 32:
        ((void (*)(kmp_int32 *, kmp_int32 *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *, void *))fn)(gtid, tid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29], a[30], a[31]);
        return;
    default:
        muster_omp_fatal("a parallel region with %d arguments (at most %d are supported)", argc, KMP_MAX_ARGS);
    }
}

/* The region's pointer-sized arguments, from fork_call's or fork_teams's
 * variable part, into args[KMP_MAX_ARGS]. */
static void collect_args(const char *what, kmp_int32 argc, va_list ap, void **args)
{
    if (argc < 0 || argc > KMP_MAX_ARGS)
        muster_omp_fatal("%s with %d arguments (at most %d are supported)", what, (int)argc, KMP_MAX_ARGS);
    for (int i = 0; i < argc; i++)
        args[i] = va_arg(ap, void *);
}

/* What every member of a clang-forked team runs.  A clause pushed in the
 * body and left unused (clang drops an empty nested region but keeps its
 * push_num_threads) ends with the member's implicit task: it must not
 * size the thread's next region outside. */
static void run_microtask(void *data)
{
    const kmp_region *r = data;
    kmp_int32 gtid = muster_kmp_gtid();
    kmp_int32 tid = (kmp_int32)muster_omp_self()->id;
    invoke_microtask(r->fn, &gtid, &tid, r->argc, r->args);
    pushed = (pushed_clauses){0, 0, 0, 0};
}

MUSTER_OMP_EXPORT void __kmpc_fork_call(ident_t *loc, kmp_int32 argc, kmpc_micro fn, ...)
{
    (void)loc;
    MUSTER_OMPT_NOTE_REGION_CALLER();
    void *args[KMP_MAX_ARGS];
    va_list ap;
    va_start(ap, fn);
    collect_args("a parallel region", argc, ap, args);
    va_end(ap);
    pushed_clauses p = take_pushed();
    kmp_region r = {fn, argc, args};
    muster_omp_parallel(run_microtask, &r, p.num_threads, p.proc_bind, NULL, NULL);
}

/* Newer clang's (OpenMPIRBuilder's) form: one argument, a pointer to the
 * captured variables, or none; cond false runs the body here in a team of
 * one.  (Not emitted by clang 14.) */
MUSTER_OMP_EXPORT void __kmpc_fork_call_if(ident_t *loc, kmp_int32 argc, kmpc_micro fn, kmp_int32 cond, void *args)
{
    MUSTER_OMPT_NOTE_REGION_CALLER();
    (void)loc, (void)argc;
    void *arg[1] = {args};
    kmp_region r = {fn, args != NULL, arg};
    pushed_clauses p = take_pushed();
    muster_omp_parallel(run_microtask, &r, cond ? p.num_threads : 1u, p.proc_bind, NULL, NULL);
}

/* if(false): the compiler runs the body itself between the two calls, in
 * a team of one that still counts as a level. */
static void no_body(void *data)
{
    (void)data;
}

MUSTER_OMP_EXPORT void __kmpc_serialized_parallel(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    pushed_clauses p = take_pushed();
    muster_omp_parallel_start(no_body, NULL, 1, p.proc_bind, NULL, NULL);
}

MUSTER_OMP_EXPORT void __kmpc_end_serialized_parallel(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    muster_omp_parallel_end();
}

/* ---- host teams ---- */

static void push_teams(kmp_int32 num_teams, kmp_int32 thread_limit)
{
    pushed.num_teams = num_teams > 0 ? (unsigned)num_teams : 0u;
    pushed.thread_limit = thread_limit > 0 ? (unsigned)thread_limit : 0u;
}

MUSTER_OMP_EXPORT void __kmpc_push_num_teams(ident_t *loc, kmp_int32 gtid, kmp_int32 num_teams,
                                             kmp_int32 thread_limit)
{
    (void)loc, (void)gtid;
    push_teams(num_teams, thread_limit);
}

/* OpenMP 5.1's num_teams(lower:upper) (newer clang): the upper bound. */
MUSTER_OMP_EXPORT void __kmpc_push_num_teams_51(ident_t *loc, kmp_int32 gtid, kmp_int32 num_teams_lb,
                                                kmp_int32 num_teams_ub, kmp_int32 thread_limit)
{
    (void)loc, (void)gtid, (void)num_teams_lb;
    push_teams(num_teams_ub, thread_limit);
}

/* What each team's initial thread runs: the body with thread number 0. */
static void run_teams_microtask(void *data)
{
    const kmp_region *r = data;
    kmp_int32 gtid = muster_kmp_gtid(), tid = 0;
    invoke_microtask(r->fn, &gtid, &tid, r->argc, r->args);
}

/* The league runs one team after another on this thread, as for gcc's
 * GOMP_teams_reg; a reduction in the teams body then finds a team of one
 * and needs no barrier across teams.  Without num_teams, nteams-var or
 * else one team, as libomp forms (libgomp's host teams form 3). */
MUSTER_OMP_EXPORT void __kmpc_fork_teams(ident_t *loc, kmp_int32 argc, kmpc_micro fn, ...)
{
    (void)loc;
    void *args[KMP_MAX_ARGS];
    va_list ap;
    va_start(ap, fn);
    collect_args("a teams region", argc, ap, args);
    va_end(ap);
    pushed_clauses p = take_pushed();
    kmp_region r = {fn, argc, args};
    unsigned num_teams = p.num_teams ? p.num_teams : muster_omp_nteams_var() ? muster_omp_nteams_var() : 1;
    muster_omp_host_teams(run_teams_microtask, &r, num_teams, p.thread_limit);
}

/* ---- scope and error (newer clang) ---- */

/* The scope construct needs nothing of the runtime: its barrier and
 * reductions are emitted around it. */
MUSTER_OMP_EXPORT void __kmpc_scope(ident_t *loc, kmp_int32 gtid, void *reserved)
{
    (void)loc, (void)gtid, (void)reserved;
}

MUSTER_OMP_EXPORT void __kmpc_end_scope(ident_t *loc, kmp_int32 gtid, void *reserved)
{
    (void)loc, (void)gtid, (void)reserved;
}

/* The error directive at run time: severity 1 warning, 2 fatal. */
MUSTER_OMP_EXPORT void __kmpc_error(ident_t *loc, int severity, const char *message)
{
    const char *where = loc != NULL && loc->psource != NULL ? loc->psource : ";unknown;unknown;0;0;;";
    fprintf(stderr, "libmuster-omp: %serror directive encountered at %s: %s\n", severity == 2 ? "fatal " : "",
            where, message != NULL ? message : "(no message)");
    if (severity == 2)
        exit(EXIT_FAILURE);
}

/* ---- barrier, flush, master, masked ---- */

MUSTER_OMP_EXPORT void __kmpc_barrier(ident_t *loc, kmp_int32 gtid)
{
    (void)gtid;
    if (!muster_ompt_on()) {
        muster_omp_team_barrier(muster_omp_self());
        return;
    }
    muster_ompt_caller = __builtin_return_address(0);
    muster_omp_team_barrier_of(muster_omp_self(), loc != NULL && (loc->flags & KMP_IDENT_BARRIER_EXPL)
                                                      ? MUSTER_OMPT_SYNC_BARRIER_EXPLICIT
                                                      : MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE);
}

/* barrier_master: every member arrives; member 0 returns 1 and runs the
 * code that follows while the others wait, until its
 * __kmpc_end_barrier_master lets them go (they return 0).  The nowait form
 * lets the others go at once. */
MUSTER_OMP_EXPORT kmp_int32 __kmpc_barrier_master(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team_barrier(self);
    if (self->id == 0)
        return 1;
    muster_omp_team_barrier(self); /* member 0's __kmpc_end_barrier_master */
    return 0;
}

MUSTER_OMP_EXPORT void __kmpc_end_barrier_master(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    muster_omp_team_barrier(muster_omp_self());
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_barrier_master_nowait(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team_barrier(self);
    return self->id == 0;
}

MUSTER_OMP_EXPORT void __kmpc_flush(ident_t *loc)
{
    (void)loc;
    atomic_thread_fence(memory_order_seq_cst);
}

/* The thread that runs a masked (master) region tells a tool at its
 * begin and end; the others are told nothing (OMPT's masked event).
 * Inlined into each entry point, so that the caller noted is the program. */
MUSTER_OMPT_IN_ENTRY void tell_masked(bool mine, int endpoint)
{
    if (mine && muster_ompt_on()) {
        muster_ompt_note(MUSTER_OMPT_HERE());
        muster_ompt_masked(endpoint);
    }
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_master(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    bool mine = muster_omp_self()->id == 0;
    tell_masked(mine, MUSTER_OMPT_SCOPE_BEGIN);
    return mine;
}

MUSTER_OMP_EXPORT void __kmpc_end_master(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    tell_masked(true, MUSTER_OMPT_SCOPE_END);
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_masked(ident_t *loc, kmp_int32 gtid, kmp_int32 filter)
{
    (void)loc, (void)gtid;
    bool mine = filter >= 0 && muster_omp_self()->id == (unsigned)filter;
    tell_masked(mine, MUSTER_OMPT_SCOPE_BEGIN);
    return mine;
}

MUSTER_OMP_EXPORT void __kmpc_end_masked(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    tell_masked(true, MUSTER_OMPT_SCOPE_END);
}

/* ---- the runtime's start and end, and queries by location ---- */

/* The program's start and end as Intel's compilers mark them: muster
 * starts on first use and ends at exit, so there is nothing to do. */
MUSTER_OMP_EXPORT void __kmpc_begin(ident_t *loc, kmp_int32 flags)
{
    (void)loc, (void)flags;
}

MUSTER_OMP_EXPORT void __kmpc_end(ident_t *loc)
{
    (void)loc;
}

/* Whether a parallel region may fork: always (a team of one when it
 * cannot have more). */
MUSTER_OMP_EXPORT kmp_int32 __kmpc_ok_to_fork(ident_t *loc)
{
    (void)loc;
    return 1;
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_bound_num_threads(ident_t *loc)
{
    (void)loc;
    return omp_get_num_threads();
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_bound_thread_num(ident_t *loc)
{
    (void)loc;
    return omp_get_thread_num();
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_in_parallel(ident_t *loc)
{
    (void)loc;
    return omp_in_parallel();
}

/* All the runtime's threads (libomp's count of every thread it knows). */
MUSTER_OMP_EXPORT kmp_int32 __kmpc_global_num_threads(ident_t *loc)
{
    (void)loc;
    return 1 + (kmp_int32)muster_omp_pool_live_workers();
}
