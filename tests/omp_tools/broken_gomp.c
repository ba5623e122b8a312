/* A deliberately broken OpenMP runtime for the syncbench tests: preloaded in
 * front of libgomp, it passes every call through except the one that
 * BROKEN_GOMP names, which it gets wrong in the way a buggy runtime would:
 *   barrier   GOMP_barrier returns at once (nobody waits)
 *   critical  GOMP_critical_start/end do nothing (no mutual exclusion)
 *   lock      omp_set_lock/omp_unset_lock do nothing
 *   late-critical, late-lock
 *             as critical and lock, and each thread's first entry is 5 ms
 *             late (a thread descheduled between asking and entering)
 *   team      omp_get_num_threads says 1 (a team smaller than asked for)
 *   task      GOMP_task drops the task (never runs it)
 *   taskwait  GOMP_taskwait returns at once (nobody waits)
 *   ordered   GOMP_loop_ordered_static_start deals iterations in blocks, not
 *             the chunks the program asked for (what LLVM libomp 14 does)
 * syncbench and taskbench must report each of these as an error, never as
 * a number. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int broken(const char *what)
{
    const char *v = getenv("BROKEN_GOMP");
    return v != NULL && strcmp(v, what) == 0;
}

/* The real function, from the library after this one (libgomp). */
static void *next(const char *symbol)
{
    void *f = dlsym(RTLD_NEXT, symbol);
    if (f == NULL)
        abort();
    return f;
}

void GOMP_barrier(void)
{
    if (!broken("barrier"))
        ((void (*)(void))next("GOMP_barrier"))();
}

/* A broken exclusion: none at all, and in its late form each thread's
 * first entry waits 5 ms first. */
static int broken_exclusion(const char *what)
{
    char late[32] = "late-";
    strncat(late, what, sizeof late - sizeof "late-");
    if (broken(what))
        return 1;
    if (!broken(late))
        return 0;
    static _Thread_local int entered;
    if (!entered++)
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    return 1;
}

void GOMP_critical_start(void)
{
    if (!broken_exclusion("critical"))
        ((void (*)(void))next("GOMP_critical_start"))();
}

void GOMP_critical_end(void)
{
    if (!broken("critical") && !broken("late-critical"))
        ((void (*)(void))next("GOMP_critical_end"))();
}

void omp_set_lock(void *lock)
{
    if (!broken_exclusion("lock"))
        ((void (*)(void *))next("omp_set_lock"))(lock);
}

void omp_unset_lock(void *lock)
{
    if (!broken("lock") && !broken("late-lock"))
        ((void (*)(void *))next("omp_unset_lock"))(lock);
}

int omp_get_num_threads(void)
{
    return broken("team") ? 1 : ((int (*)(void))next("omp_get_num_threads"))();
}

typedef void (*task_entry)(void (*)(void *), void *, void (*)(void *, void *), long, long, _Bool, unsigned,
                           void **, int, void *);

void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
               _Bool if_clause, unsigned flags, void **depend, int priority, void *detach)
{
    if (!broken("task"))
        ((task_entry)next("GOMP_task"))(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
                                        detach);
}

void GOMP_taskwait(void)
{
    if (!broken("taskwait"))
        ((void (*)(void))next("GOMP_taskwait"))();
}

typedef bool (*ordered_static_start)(long, long, long, long, long *, long *);

/* A chunk size of 0 is libgomp's schedule(static) without a chunk: one
 * block of iterations per thread. */
bool GOMP_loop_ordered_static_start(long start, long end, long incr, long chunk_size, long *istart, long *iend)
{
    return ((ordered_static_start)next("GOMP_loop_ordered_static_start"))(
        start, end, incr, broken("ordered") ? 0 : chunk_size, istart, iend);
}
