/* Worksharing loops for clang-built code.
 *
 * clang normalises every loop: static_init gets the inclusive bounds of the
 * logical iteration space (incr 1 in practice), dispatch_init lb 0 and st 1.
 * Both are mapped onto muster's index space (workshare.h): a static loop is
 * split by each member alone (muster_ws_static_block: gcc's balanced split,
 * so gcc- and clang-compiled static loops of one program agree); dispatched
 * loops (dynamic, guided, runtime, ordered) open a work share as
 * GOMP_loop_*_start does, and are left when dispatch_next runs out, as the
 * ABI has no end call.  Schedule values are libomp's sched_type.  Also
 * doacross loops (below). */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* sched without its modifier bits and its ordered form: the plain kind. */
static kmp_int32 plain_schedule(kmp_int32 sched)
{
    kmp_int32 base = sched & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC);
    return base > KMP_ORD_LOWER && base <= KMP_ORD_UPPER ? base - (KMP_ORD_LOWER - 32) : base;
}

/* Every schedule muster runs is monotonic, which serves both modifiers. */
static kmp_schedule decode_schedule(kmp_int32 sched)
{
    kmp_int32 base = plain_schedule(sched);
    /* ordered: plain_schedule took the ordered form's offset off. */
    kmp_schedule s = {MUSTER_OMP_SCHED_STATIC, false, base != (sched & ~(KMP_SCH_MODIFIER_MONOTONIC |
                                                                         KMP_SCH_MODIFIER_NONMONOTONIC))};
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

/* ---- omp_get_schedule as clang-built code calls it ---- */

/* At VERSION: libomp reports a static schedule without the monotonic bit
 * (static is monotonic anyway), and clang users' checks compare the kind
 * with omp_sched_static; gcc's name keeps libgomp's answer, which has the
 * bit.  Another kind keeps an explicit monotonic modifier. */
__attribute__((symver("omp_get_schedule@VERSION"))) MUSTER_OMP_EXPORT void muster_kmp_get_schedule(omp_sched_t *kind,
                                                                                                    int *chunk)
{
    omp_get_schedule(kind, chunk);
    if (((unsigned)*kind & ~(unsigned)omp_sched_monotonic) == (unsigned)omp_sched_static)
        *kind = omp_sched_static;
}

/* ---- static: each member computes its own chunks ---- */

/* A loop's bounds, step and type, widened to 64 bits. */
typedef struct kmp_bounds {
    uint64_t lower, upper; /* inclusive, as the type's bits */
    int64_t incr;
    bool is_signed;
    bool narrow; /* a 32-bit loop */
} kmp_bounds;

/* A loop of type T widened: signed types sign-extended, so the 64-bit
 * arithmetic wraps as T's would. */
#define bounds_of(lower, upper, incr, is_signed)                                                              \
    ((kmp_bounds){(is_signed) ? (uint64_t)(int64_t)(lower) : (uint64_t)(lower),                              \
                  (is_signed) ? (uint64_t)(int64_t)(upper) : (uint64_t)(upper), (int64_t)(incr), (is_signed), \
                  sizeof(lower) == 4})

/* Iterations from lower to upper inclusive, stepping by incr; 0 when the
 * range is empty in incr's direction.  Counted in the loop's own width, as
 * libomp counts: flang 19 passes a loop of no iterations to
 * __kmpc_for_static_init_4u as 0 .. 2^32 - 1 (and reads the bounds back as
 * signed), whose count of 2^32 is 0 in 32 bits.  No 32-bit loop has more
 * iterations than 32 bits can count. */
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
    uint64_t n = span / step + 1u;
    return b->narrow ? (uint32_t)n : n;
}

/* A tool's work events for the static loops of __kmpc_for_static_init
 * (a team's loop, or with a distribute schedule the league's distribute):
 * begun there, ended by __kmpc_for_static_fini, which also follows
 * dist_for_static_init's combined form (not told): it ends only what was
 * begun. */
static _Thread_local unsigned static_loops_told;

static __attribute__((noinline)) void tell_static_begin(const void *ra, const kmp_bounds *b, kmp_int32 sched)
{
    kmp_int32 base = sched & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC);
    bool distribute = base == KMP_DISTRIBUTE_STATIC || base == KMP_DISTRIBUTE_STATIC_CHUNKED;
    muster_ompt_note(ra, NULL);
    static_loops_told++;
    muster_ompt_work_begin(distribute ? MUSTER_OMPT_WORK_DISTRIBUTE : MUSTER_OMPT_WORK_LOOP, trip_count(b));
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

static uint64_t round_up(uint64_t v, uint64_t multiple)
{
    return multiple > 1 && v % multiple != 0 ? v + multiple - v % multiple : v;
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
    /* static simd (libomp's static_balanced_chunked): one block per member,
     * rounded up to the simd width, which the chunk argument is. */
    if (base == KMP_SCH_STATIC_BALANCED_CHUNKED && chunk > 0)
        chunk = (int64_t)round_up(n / nthreads + (n % nthreads != 0), (uint64_t)chunk);
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
        kmp_bounds b = bounds_of(*plower, *pupper, incr, SIGNED);                                                \
        int64_t stride;                                                                                          \
        kmp_int32 last;                                                                                          \
        if (muster_ompt_on())                                                                                    \
            tell_static_begin(__builtin_return_address(0), &b, sched);                                                  \
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

/* ---- distribute parallel for in one call (Intel's compilers) ----
 * dist_for_static_init: the league's teams first split the loop in
 * blocks (the team's block ends at *pupperD), then the team's members
 * split their team's block by `sched`; *plast: the caller holds the loop's
 * last iteration.  team_static_init: chunks of `chunk` dealt to the teams
 * in turn (the caller's first chunk, and the stride to its next). */

static void dist_static_init(kmp_int32 sched, kmp_bounds *b, uint64_t *team_upper, int64_t *stride,
                             kmp_int32 *last, int64_t chunk)
{
    int64_t team_stride;
    kmp_int32 team_last;
    static_init(KMP_DISTRIBUTE_STATIC, b, &team_stride, &team_last, 0);
    *team_upper = b->upper;
    kmp_int32 member_last;
    static_init(sched, b, stride, &member_last, chunk);
    *last = team_last && member_last;
}

#define KMP_DIST_STATIC_INIT(suffix, T, ST, SIGNED)                                                              \
    MUSTER_OMP_EXPORT void __kmpc_dist_for_static_init_##suffix(ident_t *loc, kmp_int32 gtid, kmp_int32 sched,   \
                                                                kmp_int32 *plast, T *plower, T *pupper,         \
                                                                T *pupperD, ST *pstride, ST incr, ST chunk)     \
    {                                                                                                            \
        (void)loc, (void)gtid;                                                                                   \
        kmp_bounds b = bounds_of(*plower, *pupper, incr, SIGNED);                                                \
        uint64_t team_upper;                                                                                     \
        int64_t stride;                                                                                          \
        kmp_int32 last;                                                                                          \
        dist_static_init(sched, &b, &team_upper, &stride, &last, (int64_t)chunk);                                \
        *plower = (T)b.lower;                                                                                    \
        *pupper = (T)b.upper;                                                                                    \
        if (pupperD != NULL)                                                                                     \
            *pupperD = (T)team_upper;                                                                            \
        *pstride = (ST)stride;                                                                                   \
        if (plast != NULL)                                                                                       \
            *plast = last;                                                                                       \
    }                                                                                                            \
    MUSTER_OMP_EXPORT void __kmpc_team_static_init_##suffix(ident_t *loc, kmp_int32 gtid, kmp_int32 *plast,      \
                                                            T *plower, T *pupper, ST *pstride, ST incr,         \
                                                            ST chunk)                                            \
    {                                                                                                            \
        (void)loc, (void)gtid;                                                                                   \
        kmp_bounds b = bounds_of(*plower, *pupper, incr, SIGNED);                                                \
        int64_t stride;                                                                                          \
        kmp_int32 last;                                                                                          \
        static_init(KMP_DISTRIBUTE_STATIC_CHUNKED, &b, &stride, &last, chunk > 0 ? (int64_t)chunk : 1);          \
        *plower = (T)b.lower;                                                                                    \
        *pupper = (T)b.upper;                                                                                    \
        *pstride = (ST)stride;                                                                                   \
        if (plast != NULL)                                                                                       \
            *plast = last;                                                                                       \
    }

KMP_DIST_STATIC_INIT(4, kmp_int32, kmp_int32, true)
KMP_DIST_STATIC_INIT(4u, kmp_uint32, kmp_int32, false)
KMP_DIST_STATIC_INIT(8, kmp_int64, kmp_int64, true)
KMP_DIST_STATIC_INIT(8u, kmp_uint64, kmp_int64, false)

MUSTER_OMP_EXPORT void __kmpc_for_static_fini(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    if (muster_ompt_on() && static_loops_told > 0) {
        static_loops_told--;
        muster_ompt_work_end();
    }
}

/* ---- dispatch: a work share, as GOMP_loop_*_start opens ---- */

/* The simd schedules (schedule(simd: ...); libomp's own tests call them
 * directly): the chunk argument is the simd width, and every chunk but the
 * last is a multiple of it, as libomp makes them.  static_balanced_chunked
 * is one block per member, rounded up to the width; guided_simd is guided
 * with every chunk a multiple of the width; runtime_simd takes
 * run-sched-var: static without a chunk (or auto) as balanced, else its
 * chunk times the width (libomp multiplies), guided as guided_simd. */
static void simd_schedule(muster_omp_thread *self, kmp_int32 base, uint64_t n, uint64_t width, unsigned *kind,
                          uint64_t *chunk, bool *guided_simd)
{
    bool balanced = base == KMP_SCH_STATIC_BALANCED_CHUNKED;
    *kind = base == KMP_SCH_GUIDED_SIMD ? MUSTER_OMP_SCHED_GUIDED : MUSTER_OMP_SCHED_STATIC;
    *chunk = width;
    if (base == KMP_SCH_RUNTIME_SIMD) {
        *kind = MUSTER_WS_SCHED_RUNTIME;
        *chunk = 0;
        muster_ws_resolve_schedule(self, kind, chunk);
        balanced = *kind == MUSTER_OMP_SCHED_STATIC && *chunk == 0;
        *chunk = (*chunk ? *chunk : 1u) * width;
    }
    if (balanced) {
        unsigned nthreads = muster_ws_team_size(self);
        uint64_t block = n / nthreads + (n % nthreads != 0);
        *chunk = round_up(block ? block : 1u, width);
    }
    *guided_simd = *kind == MUSTER_OMP_SCHED_GUIDED; /* its chunks multiples of *chunk */
}

static void dispatch_init(kmp_int32 sched, const kmp_bounds *b, int64_t chunk)
{
    muster_omp_thread *self = muster_omp_self();
    /* A loop left early (cancel for, then a plain barrier) is still open:
     * leave its work share before entering the next. */
    if (muster_ws_loop_current(self) != NULL)
        muster_ws_loop_close(self, false);
    kmp_schedule s = decode_schedule(sched);
    unsigned kind = s.kind;
    uint64_t n = trip_count(b), c = s.chunked && chunk > 0 ? (uint64_t)chunk : 0u;
    bool simd = false;
    kmp_int32 base = plain_schedule(sched);
    if (base == KMP_SCH_STATIC_BALANCED_CHUNKED || base == KMP_SCH_GUIDED_SIMD || base == KMP_SCH_RUNTIME_SIMD)
        simd_schedule(self, base, n, chunk > 0 ? (uint64_t)chunk : 1u, &kind, &c, &simd);
    else
        muster_ws_resolve_schedule(self, &kind, &c);
    muster_ws_loop proto = {.n = n, .start = b->lower, .incr = (uint64_t)b->incr,
                            .end = b->lower + n * (uint64_t)b->incr, .chunk = c, .sched = (uint8_t)kind,
                            .simd = simd, .ordered = s.ordered};
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
        MUSTER_OMPT_NOTE_CALLER();                                                                               \
        (void)loc, (void)gtid;                                                                                   \
        kmp_bounds b = bounds_of(lb, ub, st, SIGNED);                                                            \
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

/* distribute parallel for with a dynamic schedule in one call (Intel's
 * compilers): the league's teams split the loop in blocks, then the team
 * shares its block by `sched`; *plast: the caller's team holds the last
 * block. */
#define KMP_DIST_DISPATCH(suffix, T, ST, SIGNED)                                                                 \
    MUSTER_OMP_EXPORT void __kmpc_dist_dispatch_init_##suffix(ident_t *loc, kmp_int32 gtid, kmp_int32 sched,     \
                                                              kmp_int32 *plast, T lb, T ub, ST st, ST chunk)     \
    {                                                                                                            \
        MUSTER_OMPT_NOTE_CALLER();                                                                               \
        (void)loc, (void)gtid;                                                                                   \
        kmp_bounds b = bounds_of(lb, ub, st, SIGNED);                                                            \
        int64_t team_stride;                                                                                     \
        kmp_int32 team_last;                                                                                     \
        static_init(KMP_DISTRIBUTE_STATIC, &b, &team_stride, &team_last, 0);                                     \
        if (plast != NULL)                                                                                       \
            *plast = team_last;                                                                                  \
        dispatch_init(sched, &b, (int64_t)chunk);                                                                \
    }

KMP_DIST_DISPATCH(4, kmp_int32, kmp_int32, true)
KMP_DIST_DISPATCH(4u, kmp_uint32, kmp_int32, false)
KMP_DIST_DISPATCH(8, kmp_int64, kmp_int64, true)
KMP_DIST_DISPATCH(8u, kmp_uint64, kmp_int64, false)

/* ---- doacross: ordered(n) loops with depend(sink) / depend(source) ----
 * One flag per iteration of the whole nest, flattened in lexicographic
 * order (as libomp keeps one bit): post sets the iteration's flag, wait
 * waits for it in the wait layer.  So any schedule works, static or
 * dispatched.  The flags are shared by the team through a work share (the
 * first member allocates them); the last member to finish frees them. */

typedef struct kmp_dim {
    kmp_int64 lo, up, st; /* inclusive bounds, step */
} kmp_dim;

typedef struct doacross {
    int ndims;
    _Atomic unsigned left; /* members yet to call doacross_fini */
    kmp_dim *dims;
    uint64_t *counts;      /* iterations per dimension */
    muster_flag *done;     /* one per iteration of the nest */
} doacross;

/* The calling member's current doacross loop; NULL: none, or a team of
 * one (its iterations run in order, so it never waits). */
static _Thread_local doacross *current_doacross;

static uint64_t dim_count(const kmp_dim *d)
{
    if (d->st > 0)
        return d->up >= d->lo ? ((uint64_t)d->up - (uint64_t)d->lo) / (uint64_t)d->st + 1u : 0u;
    if (d->st < 0)
        return d->lo >= d->up ? ((uint64_t)d->lo - (uint64_t)d->up) / -(uint64_t)d->st + 1u : 0u;
    return 0u;
}

static doacross *new_doacross(int ndims, const kmp_dim *dims, unsigned members)
{
    uint64_t total = 1;
    for (int d = 0; d < ndims; d++)
        if (__builtin_mul_overflow(total, dim_count(&dims[d]), &total) || total > (UINT64_C(1) << 40))
            muster_omp_fatal("a doacross loop nest with more than 2^40 iterations is not supported");
    doacross *x = calloc(1, sizeof *x);
    if (x != NULL) {
        x->dims = malloc((size_t)ndims * sizeof *x->dims);
        x->counts = malloc((size_t)ndims * sizeof *x->counts);
        x->done = calloc(total ? total : 1, sizeof *x->done);
    }
    if (x == NULL || x->dims == NULL || x->counts == NULL || x->done == NULL)
        muster_omp_fatal("out of memory for a doacross loop of %llu iterations", (unsigned long long)total);
    x->ndims = ndims;
    memcpy(x->dims, dims, (size_t)ndims * sizeof *dims);
    for (int d = 0; d < ndims; d++)
        x->counts[d] = dim_count(&dims[d]);
    atomic_init(&x->left, members);
    return x;
}

static void free_doacross(doacross *x)
{
    free(x->dims);
    free(x->counts);
    free((void *)x->done);
    free(x);
}

MUSTER_OMP_EXPORT void __kmpc_doacross_init(ident_t *loc, kmp_int32 gtid, kmp_int32 num_dims, const kmp_dim *dims)
{
    (void)loc, (void)gtid;
    if (num_dims < 1)
        muster_omp_fatal("a doacross loop of %d dimensions", (int)num_dims);
    muster_omp_thread *self = muster_omp_self();
    unsigned members = muster_ws_team_size(self);
    if (members == 1) {
        current_doacross = NULL;
        return;
    }
    /* A work share hands the first member's flags to the others (the
     * slot's copy_data: no single is in this slot). */
    muster_ws_member *m = muster_ws_member_begin(self);
    doacross *x;
    if (muster_ws_enter(self, m)) {
        x = new_doacross(num_dims, dims, members);
        m->slot->copy_data = x;
        muster_ws_publish(self, m);
    } else {
        x = m->slot->copy_data;
    }
    muster_ws_leave(self, m);
    current_doacross = x;
}

/* The flattened index of the iteration with values vec; false when it is
 * outside the nest (a sink before the first iteration: nothing to wait for). */
static bool flatten_values(const doacross *x, const kmp_int64 *vec, uint64_t *index)
{
    uint64_t f = 0;
    for (int d = 0; d < x->ndims; d++) {
        const kmp_dim *dim = &x->dims[d];
        kmp_int64 v = vec[d];
        uint64_t i;
        if (dim->st > 0) {
            if (v < dim->lo || v > dim->up)
                return false;
            i = ((uint64_t)v - (uint64_t)dim->lo) / (uint64_t)dim->st;
        } else {
            if (v > dim->lo || v < dim->up)
                return false;
            i = ((uint64_t)dim->lo - (uint64_t)v) / -(uint64_t)dim->st;
        }
        f = f * x->counts[d] + i;
    }
    *index = f;
    return true;
}

/* The done flag of the iteration with values vec in this thread's doacross
 * loop; NULL outside one, or when the iteration is outside the nest. */
static muster_flag *iteration_done(const kmp_int64 *vec)
{
    doacross *x = current_doacross;
    uint64_t i;
    if (x == NULL || !flatten_values(x, vec, &i))
        return NULL;
    return &x->done[i];
}

MUSTER_OMP_EXPORT void __kmpc_doacross_wait(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    (void)loc, (void)gtid;
    muster_flag *done = iteration_done(vec);
    if (done == NULL)
        return;
    muster_omp_thread *self = muster_omp_self();
    /* acquire (in the wait layer): the posting iteration's writes are seen. */
    muster_wait_reach(done, 1u, muster_ws_waiter(self));
}

MUSTER_OMP_EXPORT void __kmpc_doacross_post(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    (void)loc, (void)gtid;
    muster_flag *done = iteration_done(vec);
    if (done == NULL)
        return;
    /* release (in publish): the iteration's writes go with the flag. */
    muster_flag_publish(done, 1u, muster_ws_may_sleep(muster_omp_self()));
}

MUSTER_OMP_EXPORT void __kmpc_doacross_fini(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    doacross *x = current_doacross;
    current_doacross = NULL;
    /* acq_rel: pairs with the other members' acq_rel decrements of left here: each releases its
     * last use, and the last member out acquires them all before it frees what every member used. */
    if (x != NULL && atomic_fetch_sub_explicit(&x->left, 1, memory_order_acq_rel) == 1)
        free_doacross(x);
}
