/* GOMP_loop_ull_* for unsigned long long iteration variables.
 *
 * `up` says the direction: true, values rise from start towards end by
 * incr; false, they fall and incr holds the negated step (two's complement),
 * which is exactly what the index-space machinery of loop.c wants. */
#include <stdarg.h>

#include "omp/gomp/gomp.h"
#include "omp/workshare.h"

typedef unsigned long long ull;

static muster_ws_loop ull_loop(bool up, ull start, ull end, ull incr, unsigned sched, uint64_t chunk, bool ordered)
{
    uint64_t n = up ? muster_ws_count_up(start, end, incr) : muster_ws_count_up(end, start, -incr);
    return (muster_ws_loop){.n = n, .start = start, .incr = incr, .end = end, .chunk = chunk, .sched = sched,
                            .ordered = ordered};
}

static bool ull_next(muster_omp_thread *self, ull *istart, ull *iend)
{
    uint64_t first, last;
    if (!muster_ws_loop_next(self, &first, &last))
        return false;
    const muster_ws_loop *l = muster_ws_loop_current(self);
    *istart = muster_ws_value(l, first);
    *iend = muster_ws_end_value(l, last);
    return true;
}

static bool ull_start(bool up, ull start, ull end, ull incr, unsigned sched, ull chunk, bool ordered,
                      const muster_ws_loop_extras *extras, ull *istart, ull *iend)
{
    muster_omp_thread *self = muster_omp_self();
    uint64_t c = chunk;
    muster_ws_resolve_schedule(self, &sched, &c);
    muster_ws_loop_open(self, ull_loop(up, start, end, incr, sched, c, ordered), extras);
    if (istart == NULL)
        return true;
    return ull_next(self, istart, iend);
}

#define ULL_START(name, sched, ordered)                                                               \
    MUSTER_OMP_EXPORT bool name(bool up, ull start, ull end, ull incr, ull chunk, ull *istart,       \
                                ull *iend)                                                            \
    {                                                                                                 \
        MUSTER_OMPT_NOTE_CALLER();                                                                    \
        return ull_start(up, start, end, incr, sched, chunk, ordered, NULL, istart, iend);            \
    }
#define ULL_RUNTIME_START(name, ordered)                                                              \
    MUSTER_OMP_EXPORT bool name(bool up, ull start, ull end, ull incr, ull *istart, ull *iend)       \
    {                                                                                                 \
        MUSTER_OMPT_NOTE_CALLER();                                                                    \
        return ull_start(up, start, end, incr, MUSTER_WS_SCHED_RUNTIME, 0, ordered, NULL, istart, iend); \
    }
#define ULL_NEXT(name)                                     \
    MUSTER_OMP_EXPORT bool name(ull *istart, ull *iend)    \
    {                                                      \
        return ull_next(muster_omp_self(), istart, iend);  \
    }

ULL_START(GOMP_loop_ull_static_start, MUSTER_OMP_SCHED_STATIC, false)
ULL_START(GOMP_loop_ull_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC, false)
ULL_START(GOMP_loop_ull_guided_start, MUSTER_OMP_SCHED_GUIDED, false)
ULL_START(GOMP_loop_ull_nonmonotonic_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC, false)
ULL_START(GOMP_loop_ull_nonmonotonic_guided_start, MUSTER_OMP_SCHED_GUIDED, false)
ULL_START(GOMP_loop_ull_ordered_static_start, MUSTER_OMP_SCHED_STATIC, true)
ULL_START(GOMP_loop_ull_ordered_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC, true)
ULL_START(GOMP_loop_ull_ordered_guided_start, MUSTER_OMP_SCHED_GUIDED, true)
ULL_RUNTIME_START(GOMP_loop_ull_runtime_start, false)
ULL_RUNTIME_START(GOMP_loop_ull_nonmonotonic_runtime_start, false)
ULL_RUNTIME_START(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, false)
ULL_RUNTIME_START(GOMP_loop_ull_ordered_runtime_start, true)

ULL_NEXT(GOMP_loop_ull_static_next)
ULL_NEXT(GOMP_loop_ull_dynamic_next)
ULL_NEXT(GOMP_loop_ull_guided_next)
ULL_NEXT(GOMP_loop_ull_runtime_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_guided_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_runtime_next)
ULL_NEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next)
ULL_NEXT(GOMP_loop_ull_ordered_static_next)
ULL_NEXT(GOMP_loop_ull_ordered_dynamic_next)
ULL_NEXT(GOMP_loop_ull_ordered_guided_next)
ULL_NEXT(GOMP_loop_ull_ordered_runtime_next)

static bool ull_generic_start(bool up, ull start, ull end, ull incr, long sched, ull chunk, ull *istart, ull *iend,
                              uintptr_t *reductions, void **mem, bool ordered)
{
    muster_ws_loop_extras extras = {
        .mem = mem, .reductions = reductions, .register_reductions = muster_gomp_workshare_reductions};
    return ull_start(up, start, end, incr, (unsigned)sched, chunk, ordered, &extras, istart, iend);
}

MUSTER_OMP_EXPORT bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                                           ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
    MUSTER_OMPT_NOTE_CALLER();
    return ull_generic_start(up, start, end, incr, sched, chunk, istart, iend, reductions, mem, false);
}

MUSTER_OMP_EXPORT bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                                                   ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
    MUSTER_OMPT_NOTE_CALLER();
    return ull_generic_start(up, start, end, incr, sched, chunk, istart, iend, reductions, mem, true);
}

/* ---- doacross (unsigned long long): always a static schedule, see loop.c ---- */

static bool ull_doacross_start(unsigned ncounts, ull *counts, uint64_t chunk, ull *istart, ull *iend, void **mem,
                               uintptr_t *reductions)
{
    muster_gomp_doacross_open(ncounts, counts, false, chunk, mem, reductions);
    return istart == NULL || ull_next(muster_omp_self(), istart, iend);
}

MUSTER_OMP_EXPORT bool GOMP_loop_ull_doacross_static_start(unsigned ncounts, ull *counts, ull chunk, ull *istart,
                                                           ull *iend)
{
    MUSTER_OMPT_NOTE_CALLER();
    return ull_doacross_start(ncounts, counts, chunk, istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_ull_doacross_dynamic_start(unsigned ncounts, ull *counts, ull chunk, ull *istart,
                                                            ull *iend)
{
    MUSTER_OMPT_NOTE_CALLER();
    return ull_doacross_start(ncounts, counts, chunk ? chunk : 1, istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_ull_doacross_guided_start(unsigned ncounts, ull *counts, ull chunk, ull *istart,
                                                           ull *iend)
{
    MUSTER_OMPT_NOTE_CALLER();
    return ull_doacross_start(ncounts, counts, chunk ? chunk : 1, istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, ull *counts, ull *istart, ull *iend)
{
    MUSTER_OMPT_NOTE_CALLER();
    return ull_doacross_start(ncounts, counts, muster_gomp_doacross_runtime_chunk(), istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_ull_doacross_start(unsigned ncounts, ull *counts, long sched, ull chunk,
                                                    ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
    MUSTER_OMPT_NOTE_CALLER();
    return ull_doacross_start(ncounts, counts, muster_gomp_doacross_chunk(sched, chunk), istart, iend, mem,
                              reductions);
}

MUSTER_OMP_EXPORT void GOMP_doacross_ull_post(ull *counts)
{
    muster_gomp_doacross_post(counts, false);
}

MUSTER_OMP_EXPORT void GOMP_doacross_ull_wait(ull first, ...)
{
    va_list ap;
    va_start(ap, first);
    muster_gomp_doacross_wait(first, ap, false);
    va_end(ap);
}
