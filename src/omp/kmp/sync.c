/* single, copyprivate, critical, the reduce protocol, ordered and
 * cancellation for clang-built code, on the same work shares, futex mutex
 * and cancellation state as gcc's. */
#include "omp/kmp/kmp.h"
#include "omp/mutex.h"
#include "omp/workshare.h"

/* ---- single and copyprivate ---- */

MUSTER_OMP_EXPORT kmp_int32 __kmpc_single(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    return muster_ws_single_claim(muster_omp_self());
}

MUSTER_OMP_EXPORT void __kmpc_end_single(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
}

/* After a single with copyprivate, every member: the one that ran it
 * (didit) publishes its data (an array of pointers); the others copy from
 * it with cpy(own, published).  It replaces the single's closing barrier:
 * the first barrier publishes, the second keeps the data alive until every
 * member has copied. */
MUSTER_OMP_EXPORT void __kmpc_copyprivate(ident_t *loc, kmp_int32 gtid, size_t size, void *data,
                                          void (*cpy)(void *, void *), kmp_int32 didit)
{
    (void)loc, (void)gtid, (void)size;
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    if (team == NULL || team->size == 1) {
        muster_omp_team_barrier(self); /* settles what a barrier settles */
        return;
    }
    if (didit)
        team->copyprivate_data = data;
    muster_omp_team_barrier(self);
    if (!didit)
        cpy(data, team->copyprivate_data);
    muster_omp_team_barrier(self);
}

/* ---- critical ---- */

/* The name's 32 bytes start zeroed; their first word is muster's futex
 * mutex in place (0: unlocked), as gcc's pointer-sized slot holds it. */
static muster_omp_mutex *name_mutex(kmp_critical_name *name)
{
    _Static_assert(sizeof(kmp_critical_name) >= sizeof(muster_omp_mutex), "a critical name holds the mutex");
    return (muster_omp_mutex *)(void *)name;
}

MUSTER_OMP_EXPORT void __kmpc_critical(ident_t *loc, kmp_int32 gtid, kmp_critical_name *name)
{
    (void)loc, (void)gtid;
    muster_omp_mutex_lock(name_mutex(name));
}

/* The hint (contended, speculative, ...) changes nothing here. */
MUSTER_OMP_EXPORT void __kmpc_critical_with_hint(ident_t *loc, kmp_int32 gtid, kmp_critical_name *name,
                                                 uint32_t hint)
{
    (void)loc, (void)gtid, (void)hint;
    muster_omp_mutex_lock(name_mutex(name));
}

MUSTER_OMP_EXPORT void __kmpc_end_critical(ident_t *loc, kmp_int32 gtid, kmp_critical_name *name)
{
    (void)loc, (void)gtid;
    muster_omp_mutex_unlock(name_mutex(name));
}

/* ---- reductions ----
 * Each member asks how to fold its private copies into the originals:
 *   1  the member folds them itself, then calls the end function: under
 *      the lock `name` (the critical method), or alone (a team of one);
 *   2  the member folds them with atomics (allowed when the call site's
 *      flags say so) and calls no end (nowait) or end_reduce (blocking).
 * The blocking form's end is a team barrier.  What the member chose is
 * kept for its end call, which gets only the lock. */

enum reduce_method { REDUCE_ALONE = 1, REDUCE_LOCKED, REDUCE_ATOMIC };

static _Thread_local unsigned char reduce_chosen __attribute__((tls_model("initial-exec")));

static kmp_int32 reduce_begin(ident_t *loc, kmp_critical_name *name)
{
    muster_omp_thread *self = muster_omp_self();
    if (self->team == NULL || self->team->size == 1) {
        reduce_chosen = REDUCE_ALONE;
        return 1;
    }
    if (loc != NULL && (loc->flags & KMP_IDENT_ATOMIC_REDUCE)) {
        reduce_chosen = REDUCE_ATOMIC;
        return 2;
    }
    reduce_chosen = REDUCE_LOCKED;
    muster_omp_mutex_lock(name_mutex(name));
    return 1;
}

static void reduce_end(kmp_critical_name *name)
{
    if (reduce_chosen == REDUCE_LOCKED)
        muster_omp_mutex_unlock(name_mutex(name));
    reduce_chosen = 0;
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_reduce_nowait(ident_t *loc, kmp_int32 gtid, kmp_int32 nvars, size_t size,
                                                 void *data, void (*combine)(void *, void *), kmp_critical_name *name)
{
    (void)gtid, (void)nvars, (void)size, (void)data, (void)combine;
    return reduce_begin(loc, name);
}

MUSTER_OMP_EXPORT void __kmpc_end_reduce_nowait(ident_t *loc, kmp_int32 gtid, kmp_critical_name *name)
{
    (void)loc, (void)gtid;
    reduce_end(name);
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_reduce(ident_t *loc, kmp_int32 gtid, kmp_int32 nvars, size_t size, void *data,
                                          void (*combine)(void *, void *), kmp_critical_name *name)
{
    (void)gtid, (void)nvars, (void)size, (void)data, (void)combine;
    return reduce_begin(loc, name);
}

MUSTER_OMP_EXPORT void __kmpc_end_reduce(ident_t *loc, kmp_int32 gtid, kmp_critical_name *name)
{
    (void)loc, (void)gtid;
    reduce_end(name);
    muster_omp_team_barrier(muster_omp_self());
}

/* ---- ordered ---- */

MUSTER_OMP_EXPORT void __kmpc_ordered(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    muster_ws_ordered_start(muster_omp_self());
}

/* The turn passes when the chunk ends (the next dispatch_next, or the
 * loop's end), as on the GOMP side. */
MUSTER_OMP_EXPORT void __kmpc_end_ordered(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
}

/* ---- cancellation ---- */

/* LLVM's kinds: parallel 1, loop 2, sections 3, taskgroup 4; gcc's bits. */
static int gomp_which(kmp_int32 kind)
{
    static const int which[] = {0, 1, 2, 4, 8};
    if (kind < 1 || kind > 4)
        muster_omp_fatal("cancel of an unknown construct kind %d", (int)kind);
    return which[kind];
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_cancel(ident_t *loc, kmp_int32 gtid, kmp_int32 kind)
{
    (void)loc, (void)gtid;
    return muster_omp_cancel(gomp_which(kind), true);
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_cancellationpoint(ident_t *loc, kmp_int32 gtid, kmp_int32 kind)
{
    (void)loc, (void)gtid;
    return muster_omp_cancellation_point(gomp_which(kind));
}

/* Every barrier of a region that holds a cancel construct.  A member that
 * left a dispatched loop early (cancel for) never saw dispatch_next run
 * out: it leaves the loop's work share here. */
MUSTER_OMP_EXPORT kmp_int32 __kmpc_cancel_barrier(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    muster_omp_thread *self = muster_omp_self();
    if (muster_ws_loop_current(self) != NULL)
        muster_ws_loop_close(self, false);
    return muster_omp_barrier_cancel(self);
}
