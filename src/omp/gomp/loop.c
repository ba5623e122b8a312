/* GOMP_loop_* for long iteration variables, GOMP_parallel_loop_*, ordered
 * and doacross: gcc's entry points onto the loop machinery in loop.c.
 *
 * What gcc 12 expects (libgomp's ABI):
 *  - *_start(start, end, incr, chunk, &istart, &iend) opens the work share
 *    and returns the caller's first chunk; *_next returns the following ones.
 *    A chunk runs values istart, istart + incr, ... while before iend (< for
 *    incr > 0, > for incr < 0); the chunk holding the last iteration has
 *    iend == end exactly, which lastprivate relies on.
 *  - Every *_next entry point serves every schedule: the combined forms open
 *    the loop before the team starts, and doacross loops pair
 *    GOMP_loop_doacross_dynamic_start with GOMP_loop_dynamic_next.
 *  - GOMP_loop_start's sched is 0 (runtime), 1 static, 2 dynamic, 3 guided or
 *    4 (runtime, nonmonotonic), maybe | 0x80000000 (monotonic); istart NULL
 *    asks only for the work share (task reductions); *mem, when mem is not
 *    NULL, is a size in bytes on entry and team-shared zeroed memory on exit.
 * Every schedule here is monotonic, which satisfies both modifiers. */
#include <stdarg.h>
#include <stdlib.h>

#include "omp/gomp/gomp.h"
#include "omp/workshare.h"

/* ---- ordered ---- */

MUSTER_OMP_EXPORT void GOMP_ordered_start(void)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_ws_ordered_start(muster_omp_self());
}

/* The turn moves when the chunk ends (next chunk or loop end), not here: the
 * chunk's later iterations are this thread's and come in order anyway. */
MUSTER_OMP_EXPORT void GOMP_ordered_end(void)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_ws_ordered_end(muster_omp_self());
}

/* ---- the long entry points ---- */

/* A long loop in index space; sched and chunk already resolved. */
static muster_ws_loop long_loop(long start, long end, long incr, unsigned sched, uint64_t chunk, bool ordered)
{
    uint64_t n;
    if (incr > 0)
        n = start < end ? muster_ws_count_up(0, (uint64_t)end - (uint64_t)start, (uint64_t)incr) : 0;
    else
        n = start > end ? muster_ws_count_up(0, (uint64_t)start - (uint64_t)end, -(uint64_t)incr) : 0;
    return (muster_ws_loop){.n = n, .start = (uint64_t)start, .incr = (uint64_t)incr, .end = (uint64_t)end,
                            .chunk = chunk, .sched = sched, .ordered = ordered};
}

static bool long_next(muster_omp_thread *self, long *istart, long *iend)
{
    uint64_t first, last;
    if (!muster_ws_loop_next(self, &first, &last))
        return false;
    const muster_ws_loop *l = muster_ws_loop_current(self);
    *istart = (long)muster_ws_value(l, first);
    *iend = (long)muster_ws_end_value(l, last);
    return true;
}

static bool long_start(long start, long end, long incr, unsigned sched, long chunk, bool ordered, long *istart,
                       long *iend)
{
    muster_omp_thread *self = muster_omp_self();
    uint64_t c = chunk > 0 ? (uint64_t)chunk : 0;
    muster_ws_resolve_schedule(self, &sched, &c);
    muster_ws_loop_open(self, long_loop(start, end, incr, sched, c, ordered), NULL);
    return long_next(self, istart, iend);
}

#define LONG_START(name, sched, ordered)                                                                 \
    MUSTER_OMP_EXPORT bool name(long start, long end, long incr, long chunk, long *istart, long *iend) \
    {                                                                                                    \
        MUSTER_OMPT_NOTE_CALLER();                                                                       \
        return long_start(start, end, incr, sched, chunk, ordered, istart, iend);                        \
    }
#define LONG_RUNTIME_START(name, ordered)                                                      \
    MUSTER_OMP_EXPORT bool name(long start, long end, long incr, long *istart, long *iend)   \
    {                                                                                          \
        MUSTER_OMPT_NOTE_CALLER();                                                             \
        return long_start(start, end, incr, MUSTER_WS_SCHED_RUNTIME, 0, ordered, istart, iend); \
    }
#define LONG_NEXT(name)                                      \
    MUSTER_OMP_EXPORT bool name(long *istart, long *iend)    \
    {                                                        \
        return long_next(muster_omp_self(), istart, iend);   \
    }

LONG_START(GOMP_loop_static_start, MUSTER_OMP_SCHED_STATIC, false)
LONG_START(GOMP_loop_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC, false)
LONG_START(GOMP_loop_guided_start, MUSTER_OMP_SCHED_GUIDED, false)
LONG_START(GOMP_loop_nonmonotonic_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC, false)
LONG_START(GOMP_loop_nonmonotonic_guided_start, MUSTER_OMP_SCHED_GUIDED, false)
LONG_START(GOMP_loop_ordered_static_start, MUSTER_OMP_SCHED_STATIC, true)
LONG_START(GOMP_loop_ordered_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC, true)
LONG_START(GOMP_loop_ordered_guided_start, MUSTER_OMP_SCHED_GUIDED, true)
LONG_RUNTIME_START(GOMP_loop_runtime_start, false)
LONG_RUNTIME_START(GOMP_loop_nonmonotonic_runtime_start, false)
LONG_RUNTIME_START(GOMP_loop_maybe_nonmonotonic_runtime_start, false)
LONG_RUNTIME_START(GOMP_loop_ordered_runtime_start, true)

LONG_NEXT(GOMP_loop_static_next)
LONG_NEXT(GOMP_loop_dynamic_next)
LONG_NEXT(GOMP_loop_guided_next)
LONG_NEXT(GOMP_loop_runtime_next)
LONG_NEXT(GOMP_loop_nonmonotonic_dynamic_next)
LONG_NEXT(GOMP_loop_nonmonotonic_guided_next)
LONG_NEXT(GOMP_loop_nonmonotonic_runtime_next)
LONG_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next)
LONG_NEXT(GOMP_loop_ordered_static_next)
LONG_NEXT(GOMP_loop_ordered_dynamic_next)
LONG_NEXT(GOMP_loop_ordered_guided_next)
LONG_NEXT(GOMP_loop_ordered_runtime_next)

static bool long_generic_start(long start, long end, long incr, long sched, long chunk, long *istart, long *iend,
                               uintptr_t *reductions, void **mem, bool ordered)
{
    muster_omp_thread *self = muster_omp_self();
    unsigned kind = (unsigned)sched;
    uint64_t c = chunk > 0 ? (uint64_t)chunk : 0;
    muster_ws_resolve_schedule(self, &kind, &c);
    muster_ws_loop_extras extras = {
        .mem = mem, .reductions = reductions, .register_reductions = muster_gomp_workshare_reductions};
    muster_ws_loop_open(self, long_loop(start, end, incr, kind, c, ordered), &extras);
    if (istart == NULL)
        return true;
    return long_next(self, istart, iend);
}

MUSTER_OMP_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart,
                                       long *iend, uintptr_t *reductions, void **mem)
{
    MUSTER_OMPT_NOTE_CALLER();
    return long_generic_start(start, end, incr, sched, chunk, istart, iend, reductions, mem, false);
}

MUSTER_OMP_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                               long *istart, long *iend, uintptr_t *reductions, void **mem)
{
    MUSTER_OMPT_NOTE_CALLER();
    return long_generic_start(start, end, incr, sched, chunk, istart, iend, reductions, mem, true);
}

MUSTER_OMP_EXPORT void GOMP_loop_end(void)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_ws_loop_close(muster_omp_self(), true);
}

MUSTER_OMP_EXPORT void GOMP_loop_end_nowait(void)
{
    muster_ws_loop_close(muster_omp_self(), false);
}

MUSTER_OMP_EXPORT bool GOMP_loop_end_cancel(void)
{
    return muster_ws_loop_close_cancellable(muster_omp_self());
}

/* ---- doacross, both widths ---- */

void muster_gomp_doacross_open(unsigned ncounts, const void *counts, bool signed_counts, uint64_t chunk,
                               void **mem, uintptr_t *reductions)
{
    uint64_t dims[ncounts ? ncounts : 1];
    for (unsigned d = 0; d < ncounts; d++) {
        long signed_count = signed_counts ? ((const long *)counts)[d] : 0;
        dims[d] = !signed_counts ? ((const unsigned long long *)counts)[d]
                  : signed_count > 0 ? (uint64_t)signed_count
                                     : 0;
    }
    muster_ws_loop l = {.n = dims[0], .start = 0, .incr = 1, .end = dims[0], .chunk = chunk,
                        .sched = MUSTER_OMP_SCHED_STATIC};
    muster_ws_loop_extras extras = {.mem = mem,
                                    .reductions = reductions,
                                    .register_reductions = muster_gomp_workshare_reductions,
                                    .ncounts = ncounts,
                                    .counts = dims};
    muster_ws_loop_open(muster_omp_self(), l, &extras);
}

/* The runtime schedule's chunk still applies; its kind does not (see above). */
uint64_t muster_gomp_doacross_runtime_chunk(void)
{
    unsigned kind = MUSTER_WS_SCHED_RUNTIME;
    uint64_t chunk = 0;
    muster_ws_resolve_schedule(muster_omp_self(), &kind, &chunk);
    return kind == MUSTER_OMP_SCHED_STATIC ? chunk : 1;
}

uint64_t muster_gomp_doacross_chunk(long sched, uint64_t chunk)
{
    unsigned kind = (unsigned)sched & ~MUSTER_OMP_SCHED_MONOTONIC;
    if (kind == MUSTER_WS_SCHED_RUNTIME || kind == MUSTER_OMP_SCHED_AUTO)
        return muster_gomp_doacross_runtime_chunk();
    if (kind != MUSTER_OMP_SCHED_STATIC && chunk == 0)
        return 1;
    return chunk;
}

void muster_gomp_doacross_post(const void *counts, bool signed_counts)
{
    muster_omp_thread *self = muster_omp_self();
    unsigned n = muster_ws_doacross_dimensions(self);
    if (n == 0)
        return;
    uint64_t iter[n];
    for (unsigned d = 0; d < n; d++)
        iter[d] = signed_counts ? (uint64_t)((const long *)counts)[d] : ((const unsigned long long *)counts)[d];
    muster_ws_doacross_post(self, iter);
}

void muster_gomp_doacross_wait(uint64_t first, va_list ap, bool signed_counts)
{
    muster_omp_thread *self = muster_omp_self();
    unsigned n = muster_ws_doacross_dimensions(self);
    if (n == 0)
        return;
    uint64_t iter[n];
    iter[0] = first;
    for (unsigned d = 1; d < n; d++)
        iter[d] = signed_counts ? (uint64_t)va_arg(ap, long) : va_arg(ap, unsigned long long);
    muster_ws_doacross_wait(self, iter);
}

/* ---- doacross (long) ---- */

static bool long_doacross_start(unsigned ncounts, long *counts, uint64_t chunk, long *istart, long *iend,
                                void **mem, uintptr_t *reductions)
{
    muster_gomp_doacross_open(ncounts, counts, true, chunk, mem, reductions);
    return istart == NULL || long_next(muster_omp_self(), istart, iend);
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                                       long *iend)
{
    MUSTER_OMPT_NOTE_CALLER();
    return long_doacross_start(ncounts, counts, chunk > 0 ? (uint64_t)chunk : 0, istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_dynamic_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                                        long *iend)
{
    MUSTER_OMPT_NOTE_CALLER();
    return long_doacross_start(ncounts, counts, chunk > 0 ? (uint64_t)chunk : 0, istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_guided_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                                       long *iend)
{
    MUSTER_OMPT_NOTE_CALLER();
    return long_doacross_start(ncounts, counts, chunk > 0 ? (uint64_t)chunk : 0, istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart, long *iend)
{
    MUSTER_OMPT_NOTE_CALLER();
    return long_doacross_start(ncounts, counts, muster_gomp_doacross_runtime_chunk(), istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
                                                long *istart, long *iend, uintptr_t *reductions, void **mem)
{
    MUSTER_OMPT_NOTE_CALLER();
    uint64_t c = muster_gomp_doacross_chunk(sched, chunk > 0 ? (uint64_t)chunk : 0);
    return long_doacross_start(ncounts, counts, c, istart, iend, mem, reductions);
}

MUSTER_OMP_EXPORT void GOMP_doacross_post(long *counts)
{
    muster_gomp_doacross_post(counts, true);
}

MUSTER_OMP_EXPORT void GOMP_doacross_wait(long first, ...)
{
    va_list ap;
    va_start(ap, first);
    muster_gomp_doacross_wait((uint64_t)first, ap, true);
    va_end(ap);
}

/* ---- combined parallel loops (long) ---- */

static void parallel_loop(void (*fn)(void *), void *data, unsigned num_threads, long start, long end, long incr,
                          unsigned sched, long chunk, unsigned flags, bool split)
{
    uint64_t c = chunk > 0 ? (uint64_t)chunk : 0;
    muster_ws_resolve_schedule(muster_omp_self(), &sched, &c);
    muster_ws_loop proto = long_loop(start, end, incr, sched, c, false);
    muster_ws_parallel_loop(fn, data, num_threads, GOMP_PARALLEL_PROC_BIND(flags), &proto, split);
}

#define PARALLEL_LOOP(name, sched)                                                                      \
    MUSTER_OMP_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,       \
                                long end, long incr, long chunk, unsigned flags)                        \
    {                                                                                                   \
        MUSTER_OMPT_NOTE_REGION_CALLER();                                                               \
        parallel_loop(fn, data, num_threads, start, end, incr, sched, chunk, flags, false);             \
    }
#define PARALLEL_LOOP_RUNTIME(name)                                                                     \
    MUSTER_OMP_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,       \
                                long end, long incr, unsigned flags)                                    \
    {                                                                                                   \
        MUSTER_OMPT_NOTE_REGION_CALLER();                                                               \
        parallel_loop(fn, data, num_threads, start, end, incr, MUSTER_WS_SCHED_RUNTIME, 0, flags, false); \
    }
#define PARALLEL_LOOP_SPLIT(name, sched)                                                                \
    MUSTER_OMP_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,       \
                                long end, long incr, long chunk)                                        \
    {                                                                                                   \
        MUSTER_OMPT_NOTE_REGION_CALLER();                                                               \
        parallel_loop(fn, data, num_threads, start, end, incr, sched, chunk, 0, true);                  \
    }

PARALLEL_LOOP(GOMP_parallel_loop_static, MUSTER_OMP_SCHED_STATIC)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic, MUSTER_OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(GOMP_parallel_loop_guided, MUSTER_OMP_SCHED_GUIDED)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, MUSTER_OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, MUSTER_OMP_SCHED_GUIDED)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
PARALLEL_LOOP_SPLIT(GOMP_parallel_loop_static_start, MUSTER_OMP_SCHED_STATIC)
PARALLEL_LOOP_SPLIT(GOMP_parallel_loop_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC)
PARALLEL_LOOP_SPLIT(GOMP_parallel_loop_guided_start, MUSTER_OMP_SCHED_GUIDED)

MUSTER_OMP_EXPORT void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data, unsigned num_threads,
                                                        long start, long end, long incr)
{
    MUSTER_OMPT_NOTE_REGION_CALLER();
    parallel_loop(fn, data, num_threads, start, end, incr, MUSTER_WS_SCHED_RUNTIME, 0, 0, true);
}
