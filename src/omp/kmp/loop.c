/* Worksharing loops for clang-built code.
 *
 * clang normalises every loop: static_init gets the inclusive bounds of the
 * logical iteration space (incr 1 in practice), dispatch_init lb 0 and st 1.
 * Both are mapped onto muster's index space (workshare.h): a static loop is
 * split by each member alone (muster_ws_static_block: gcc's balanced split,
 * so gcc- and clang-compiled static loops of one program agree); dispatched
 * loops (dynamic, guided, runtime, ordered) open a work share as
 * GOMP_loop_*_start does, and are left when dispatch_next runs out, as the
 * ABI has no end call.  Schedule values are libomp's sched_type. */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>

#include "omp/kmp/kmp.h"
#include "omp/workshare.h"

/* sched_type values clang 14 passes, and the modifier bits it may add. */
enum {
    KMP_SCH_STATIC_CHUNKED = 33,
    KMP_SCH_STATIC = 34,
    KMP_SCH_DYNAMIC_CHUNKED = 35,
    KMP_SCH_GUIDED_CHUNKED = 36,
    KMP_SCH_RUNTIME = 37,
    KMP_SCH_AUTO = 38,
    KMP_SCH_TRAPEZOIDAL = 39,
    KMP_SCH_STATIC_GREEDY = 40,
    KMP_SCH_STATIC_BALANCED = 41,
    KMP_SCH_GUIDED_ITERATIVE = 42,
    KMP_SCH_GUIDED_ANALYTICAL = 43,
    KMP_SCH_STATIC_STEAL = 44,
    KMP_SCH_STATIC_BALANCED_CHUNKED = 45,
    KMP_SCH_GUIDED_SIMD = 46,
    KMP_SCH_RUNTIME_SIMD = 47,
    KMP_ORD_LOWER = 64,  /* ordered forms: the plain value + 32 */
    KMP_ORD_UPPER = 72,
    KMP_DISTRIBUTE_STATIC_CHUNKED = 91,
    KMP_DISTRIBUTE_STATIC = 92,
    KMP_SCH_MODIFIER_MONOTONIC = 1 << 29,
    KMP_SCH_MODIFIER_NONMONOTONIC = 1 << 30,
};

/* A schedule as muster runs it: MUSTER_OMP_SCHED_* or MUSTER_WS_SCHED_RUNTIME,
 * whether the chunk argument counts, and ordered. */
typedef struct kmp_schedule {
    unsigned kind;
    bool chunked;
    bool ordered;
} kmp_schedule;

/* Every schedule muster runs is monotonic, which serves both modifiers. */
static kmp_schedule decode_schedule(kmp_int32 sched)
{
    kmp_int32 base = sched & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC);
    kmp_schedule s = {MUSTER_OMP_SCHED_STATIC, false, false};
    if (base > KMP_ORD_LOWER && base <= KMP_ORD_UPPER) {
        s.ordered = true;
        base -= KMP_ORD_LOWER - 32;
    }
    switch (base) {
    case KMP_SCH_STATIC_CHUNKED:
    case KMP_SCH_STATIC_BALANCED_CHUNKED:
    case KMP_DISTRIBUTE_STATIC_CHUNKED:
        s.chunked = true;
        break;
    case KMP_SCH_STATIC:
    case KMP_SCH_STATIC_GREEDY:
    case KMP_SCH_STATIC_BALANCED:
    case KMP_DISTRIBUTE_STATIC:
        break;
    case KMP_SCH_DYNAMIC_CHUNKED:
    case KMP_SCH_STATIC_STEAL:
    case KMP_SCH_TRAPEZOIDAL:
        s.kind = MUSTER_OMP_SCHED_DYNAMIC;
        s.chunked = true;
        break;
    case KMP_SCH_GUIDED_CHUNKED:
    case KMP_SCH_GUIDED_ITERATIVE:
    case KMP_SCH_GUIDED_ANALYTICAL:
    case KMP_SCH_GUIDED_SIMD:
        s.kind = MUSTER_OMP_SCHED_GUIDED;
        s.chunked = true;
        break;
    case KMP_SCH_RUNTIME:
    case KMP_SCH_RUNTIME_SIMD:
    case KMP_SCH_AUTO:
        s.kind = MUSTER_WS_SCHED_RUNTIME;
        break;
    default: {
        static _Atomic bool warned;
        /* relaxed: one warning per process is all this decides. */
        if (!atomic_exchange_explicit(&warned, true, memory_order_relaxed))
            fprintf(stderr, "libmuster-omp: loop schedule %d (libomp's sched_type) is unknown; using static\n",
                    (int)sched);
        break;
    }
    }
    return s;
}

/* ---- static: each member computes its own chunks ---- */

/* A loop's bounds, step and type, widened to 64 bits. */
typedef struct kmp_bounds {
    uint64_t lower, upper; /* inclusive, as the type's bits */
    int64_t incr;
    bool is_signed;
} kmp_bounds;

/* Iterations from lower to upper inclusive, stepping by incr; 0 when the
 * range is empty in incr's direction. */
static uint64_t trip_count(const kmp_bounds *b)
{
    bool ascending = b->incr > 0;
    bool empty = b->is_signed ? (ascending ? (int64_t)b->lower > (int64_t)b->upper
                                           : (int64_t)b->lower < (int64_t)b->upper)
                              : (ascending ? b->lower > b->upper : b->lower < b->upper);
    if (b->incr == 0 || empty)
        return 0;
    uint64_t span = ascending ? b->upper - b->lower : b->lower - b->upper;
    uint64_t step = ascending ? (uint64_t)b->incr : -(uint64_t)b->incr;
    return span / step + 1u;
}

/* The team this static loop is split over: the members of the caller's
 * team, or for distribute the league's teams. */
static void static_split(kmp_int32 base, unsigned *nthreads, unsigned *id)
{
    if (base == KMP_DISTRIBUTE_STATIC || base == KMP_DISTRIBUTE_STATIC_CHUNKED) {
        int teams = omp_get_num_teams(), team = omp_get_team_num();
        *nthreads = teams > 0 ? (unsigned)teams : 1u;
        *id = team >= 0 ? (unsigned)team : 0u;
        return;
    }
    muster_omp_thread *self = muster_omp_self();
    *nthreads = muster_ws_team_size(self);
    *id = muster_ws_thread_id(self);
}

/* The caller's first chunk of the loop *b: its bounds in *b, the distance
 * to its next chunk in *stride (in values), *last whether it holds the
 * loop's last iteration. */
static void static_init(kmp_int32 sched, kmp_bounds *b, int64_t *stride, kmp_int32 *last, int64_t chunk)
{
    kmp_int32 base = sched & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC);
    kmp_schedule s = decode_schedule(sched);
    uint64_t n = trip_count(b);
    unsigned nthreads, id;
    static_split(base, &nthreads, &id);
    if (n == 0) {
        *last = 0;
        *stride = b->incr;
        return;
    }
    uint64_t first, end; /* this member's first chunk, in iteration indices */
    if (s.chunked && chunk > 0) {
        uint64_t c = (uint64_t)chunk, nchunks = (n - 1u) / c + 1u;
        first = (uint64_t)id * c;
        end = first < n ? (n - first < c ? n : first + c) : first;
        *last = nchunks > 0 && (nchunks - 1u) % nthreads == id;
        *stride = (int64_t)(c * nthreads * (uint64_t)b->incr);
    } else {
        muster_ws_static_block(n, nthreads, id, &first, &end);
        *last = end == n && first < end;
        *stride = (int64_t)(n * (uint64_t)b->incr);
    }
    uint64_t start = b->lower;
    if (first >= end) {
        /* No iterations: lower past upper (clang runs lower..upper). */
        b->lower = b->upper + (uint64_t)b->incr;
        return;
    }
    b->lower = start + first * (uint64_t)b->incr;
    b->upper = start + (end - 1u) * (uint64_t)b->incr;
}

#define KMP_STATIC_INIT(suffix, T, ST, SIGNED)                                                                   \
    MUSTER_OMP_EXPORT void __kmpc_for_static_init_##suffix(ident_t *loc, kmp_int32 gtid, kmp_int32 sched,        \
                                                           kmp_int32 *plast, T *plower, T *pupper, ST *pstride,  \
                                                           ST incr, ST chunk)                                    \
    {                                                                                                            \
        (void)loc, (void)gtid;                                                                                   \
        kmp_bounds b = {(uint64_t)*plower, (uint64_t)*pupper, (int64_t)incr, SIGNED};                           \
        if (SIGNED) { /* sign-extend, so the 64-bit arithmetic wraps as T's would */                            \
            b.lower = (uint64_t)(int64_t)*plower;                                                                \
            b.upper = (uint64_t)(int64_t)*pupper;                                                                \
        }                                                                                                        \
        int64_t stride;                                                                                          \
        kmp_int32 last;                                                                                          \
        static_init(sched, &b, &stride, &last, (int64_t)chunk);                                                  \
        *plower = (T)b.lower;                                                                                    \
        *pupper = (T)b.upper;                                                                                    \
        *pstride = (ST)stride;                                                                                   \
        if (plast != NULL)                                                                                       \
            *plast = last;                                                                                       \
    }

KMP_STATIC_INIT(4, kmp_int32, kmp_int32, true)
KMP_STATIC_INIT(4u, kmp_uint32, kmp_int32, false)
KMP_STATIC_INIT(8, kmp_int64, kmp_int64, true)
KMP_STATIC_INIT(8u, kmp_uint64, kmp_int64, false)

MUSTER_OMP_EXPORT void __kmpc_for_static_fini(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
}

/* ---- dispatch: a work share, as GOMP_loop_*_start opens ---- */

static void dispatch_init(kmp_int32 sched, const kmp_bounds *b, int64_t chunk)
{
    muster_omp_thread *self = muster_omp_self();
    /* A loop left early (cancel for, then a plain barrier) is still open:
     * leave its work share before entering the next. */
    if (muster_ws_loop_current(self) != NULL)
        muster_ws_loop_close(self, false);
    kmp_schedule s = decode_schedule(sched);
    unsigned kind = s.kind;
    uint64_t c = s.chunked && chunk > 0 ? (uint64_t)chunk : 0u;
    muster_ws_resolve_schedule(self, &kind, &c);
    uint64_t n = trip_count(b);
    muster_ws_loop proto = {.n = n, .start = b->lower, .incr = (uint64_t)b->incr,
                            .end = b->lower + n * (uint64_t)b->incr, .chunk = c, .sched = (uint8_t)kind,
                            .ordered = s.ordered};
    muster_ws_loop_open(self, proto, NULL);
}

/* The next chunk's inclusive bounds; false (and the loop left) when none. */
static bool dispatch_next(kmp_int32 *plast, uint64_t *lower, uint64_t *upper, int64_t *stride)
{
    muster_omp_thread *self = muster_omp_self();
    uint64_t first, end;
    if (!muster_ws_loop_next(self, &first, &end)) {
        muster_ws_loop_close(self, false);
        return false;
    }
    const muster_ws_loop *l = muster_ws_loop_current(self);
    *lower = muster_ws_value(l, first);
    *upper = muster_ws_value(l, end - 1u);
    *stride = (int64_t)l->incr;
    if (plast != NULL)
        *plast = end == l->n;
    return true;
}

#define KMP_DISPATCH(suffix, T, ST, SIGNED)                                                                      \
    MUSTER_OMP_EXPORT void __kmpc_dispatch_init_##suffix(ident_t *loc, kmp_int32 gtid, kmp_int32 sched, T lb,    \
                                                         T ub, ST st, ST chunk)                                  \
    {                                                                                                            \
        (void)loc, (void)gtid;                                                                                   \
        kmp_bounds b = {SIGNED ? (uint64_t)(int64_t)lb : (uint64_t)lb,                                          \
                        SIGNED ? (uint64_t)(int64_t)ub : (uint64_t)ub, (int64_t)st, SIGNED};                    \
        dispatch_init(sched, &b, (int64_t)chunk);                                                                \
    }                                                                                                            \
    MUSTER_OMP_EXPORT int __kmpc_dispatch_next_##suffix(ident_t *loc, kmp_int32 gtid, kmp_int32 *plast,         \
                                                        T *plower, T *pupper, ST *pstride)                       \
    {                                                                                                            \
        (void)loc, (void)gtid;                                                                                   \
        uint64_t lower, upper;                                                                                   \
        int64_t stride;                                                                                          \
        if (!dispatch_next(plast, &lower, &upper, &stride))                                                      \
            return 0;                                                                                            \
        *plower = (T)lower;                                                                                      \
        *pupper = (T)upper;                                                                                      \
        if (pstride != NULL)                                                                                     \
            *pstride = (ST)stride;                                                                               \
        return 1;                                                                                                \
    }                                                                                                            \
    /* After each iteration of an ordered loop: the turn passes at the next \
     * chunk instead. */                                                                                         \
    MUSTER_OMP_EXPORT void __kmpc_dispatch_fini_##suffix(ident_t *loc, kmp_int32 gtid)                          \
    {                                                                                                            \
        (void)loc, (void)gtid;                                                                                   \
    }

KMP_DISPATCH(4, kmp_int32, kmp_int32, true)
KMP_DISPATCH(4u, kmp_uint32, kmp_int32, false)
KMP_DISPATCH(8, kmp_int64, kmp_int64, true)
KMP_DISPATCH(8u, kmp_uint64, kmp_int64, false)
