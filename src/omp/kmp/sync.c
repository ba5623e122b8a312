/* single, copyprivate, critical, the reduce protocol, ordered and
 * cancellation for clang-built code, on the same work shares, futex mutex
 * and cancellation state as gcc's. */
#include "omp/env.h" /* KMP_FORCE_REDUCTION */
#include "omp/kmp/kmp.h"
#include "omp/mutex.h"
#include "omp/workshare.h"

/* ---- single and copyprivate ---- */

/* With a tool: the claim, then the single's events. */
static __attribute__((noinline)) kmp_int32 single_told(const void *ra)
{
    bool mine = muster_ws_single_claim(muster_omp_self());
    muster_ompt_note(ra, NULL);
    muster_ompt_single(mine, true);
    return mine;
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_single(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    if (muster_ompt_on())
        return single_told(__builtin_return_address(0));
    return muster_ws_single_claim(muster_omp_self());
}

/* Only the executor calls it. */
MUSTER_OMP_EXPORT void __kmpc_end_single(ident_t *loc, kmp_int32 gtid)
{
    (void)loc, (void)gtid;
    if (muster_ompt_on())
        muster_ompt_work_end();
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
    muster_omp_program_lock(name_mutex(name), MUSTER_OMPT_MUTEX_CRITICAL);
}

/* The hint (contended, speculative, ...) changes nothing here. */
MUSTER_OMP_EXPORT void __kmpc_critical_with_hint(ident_t *loc, kmp_int32 gtid, kmp_critical_name *name,
                                                 uint32_t hint)
{
    (void)loc, (void)gtid, (void)hint;
    muster_omp_program_lock(name_mutex(name), MUSTER_OMPT_MUTEX_CRITICAL);
}

MUSTER_OMP_EXPORT void __kmpc_end_critical(ident_t *loc, kmp_int32 gtid, kmp_critical_name *name)
{
    (void)loc, (void)gtid;
    muster_omp_program_unlock(name_mutex(name), MUSTER_OMPT_MUTEX_CRITICAL);
}

/* ---- reductions ----
 * Each member asks how to fold its private copies into the originals:
 *   1  the member folds them itself, then calls the end function: under
 *      the lock `name` (the critical method), alone (a team of one), or,
 *      member 0 only, once it has folded everyone's copies into its own
 *      (libomp's tree method; reduce.c);
 *   2  the member folds them with atomics (allowed when the call site's
 *      flags say so) and calls no end (nowait) or end_reduce (blocking);
 *   0  nothing to do: member 0 folded its copies into its own.
 * The runtime chooses (KMP_FORCE_REDUCTION overrides it, as in libomp):
 * member 0's fold for teams of more than REDUCE_TREE_ABOVE members that
 * fit the CPUs, where the reduction's end is a barrier anyway (blocking)
 * or atomics are not allowed; else atomics where allowed, else the lock.
 * Not oversubscribed: member 0 must run between the last arrival and the
 * release, a context switch more than a barrier whose last arrival
 * releases (docs/tuning.md, REDUCE_TREE_ABOVE).
 * Every member of a team makes the same choice (same team, call site and
 * settings), which member 0's fold needs.  The blocking form's end is a
 * team barrier; member 0's fold's is its release of the others, who wait
 * in reduce.  What the member chose is kept for its end call, which gets
 * only the lock. */

#define REDUCE_TREE_ABOVE 4

enum reduce_method { REDUCE_ALONE = 1, REDUCE_LOCKED, REDUCE_ATOMIC, REDUCE_TREE };

static _Thread_local unsigned char reduce_chosen __attribute__((tls_model("initial-exec")));

static enum reduce_method choose_method(const muster_omp_team *team, const ident_t *loc, bool can_fold,
                                        bool blocking)
{
    bool atomic_allowed = loc != NULL && (loc->flags & KMP_IDENT_ATOMIC_REDUCE);
    switch (muster_omp_env_extras_get()->force_reduction) {
    case MUSTER_OMP_REDUCE_TREE:
        if (can_fold)
            return REDUCE_TREE;
        break;
    case MUSTER_OMP_REDUCE_CRITICAL:
        return REDUCE_LOCKED;
    case MUSTER_OMP_REDUCE_ATOMIC:
        break;
    case MUSTER_OMP_REDUCE_AUTO:
        /* available_cpus: read once at load, so every member agrees */
        if (can_fold && team->size > REDUCE_TREE_ABOVE && team->size <= muster_omp_globals_get()->available_cpus &&
            (blocking || !atomic_allowed))
            return REDUCE_TREE;
        break;
    }
    return atomic_allowed ? REDUCE_ATOMIC : REDUCE_LOCKED;
}

static kmp_int32 reduce_begin(ident_t *loc, void *data, void (*combine)(void *, void *), kmp_critical_name *name,
                              bool blocking)
{
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *team = self->team;
    if (team == NULL || team->size == 1) {
        reduce_chosen = REDUCE_ALONE;
        return 1;
    }
    bool can_fold = data != NULL && combine != NULL && muster_omp_team_can_reduce(team);
    enum reduce_method method = choose_method(team, loc, can_fold, blocking);
    if (method == REDUCE_TREE) {
        bool member_0 = muster_omp_team_reduce(self, data, combine, blocking);
        if (member_0 && muster_ompt_on())
            muster_ompt_reduction(MUSTER_OMPT_SCOPE_BEGIN); /* it folds into the originals, alone */
        reduce_chosen = member_0 ? REDUCE_TREE : 0;
        return member_0 ? 1 : 0;
    }
    reduce_chosen = (unsigned char)method;
    if (method == REDUCE_ATOMIC)
        return 2;
    if (muster_ompt_on())
        muster_ompt_reduction(MUSTER_OMPT_SCOPE_BEGIN); /* the fold, under the lock */
    muster_omp_program_lock(name_mutex(name), MUSTER_OMPT_MUTEX_CRITICAL);
    return 1;
}

/* The end of a reduction; true when the team's barrier is still owed
 * (a blocking reduction not by the tree). */
static bool reduce_end(kmp_critical_name *name, bool blocking)
{
    unsigned char chosen = reduce_chosen;
    reduce_chosen = 0;
    if (chosen == REDUCE_LOCKED)
        muster_omp_program_unlock(name_mutex(name), MUSTER_OMPT_MUTEX_CRITICAL);
    /* A tool was told of the folds under the lock (the lock's events
     * inside the reduction's) and member 0's; the atomic ones it sees as
     * atomics. */
    if ((chosen == REDUCE_LOCKED || chosen == REDUCE_TREE) && muster_ompt_on())
        muster_ompt_reduction(MUSTER_OMPT_SCOPE_END);
    if (chosen == REDUCE_TREE) {
        if (blocking)
            muster_omp_team_reduce_release(muster_omp_self());
        return false;
    }
    return blocking;
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_reduce_nowait(ident_t *loc, kmp_int32 gtid, kmp_int32 nvars, size_t size,
                                                 void *data, void (*combine)(void *, void *), kmp_critical_name *name)
{
    (void)gtid, (void)nvars, (void)size;
    return reduce_begin(loc, data, combine, name, false);
}

MUSTER_OMP_EXPORT void __kmpc_end_reduce_nowait(ident_t *loc, kmp_int32 gtid, kmp_critical_name *name)
{
    (void)loc, (void)gtid;
    reduce_end(name, false);
}

MUSTER_OMP_EXPORT kmp_int32 __kmpc_reduce(ident_t *loc, kmp_int32 gtid, kmp_int32 nvars, size_t size, void *data,
                                          void (*combine)(void *, void *), kmp_critical_name *name)
{
    (void)gtid, (void)nvars, (void)size;
    return reduce_begin(loc, data, combine, name, true);
}

MUSTER_OMP_EXPORT void __kmpc_end_reduce(ident_t *loc, kmp_int32 gtid, kmp_critical_name *name)
{
    (void)loc, (void)gtid;
    if (reduce_end(name, true))
        muster_omp_team_barrier(muster_omp_self());
}

/* ---- ordered ---- */

MUSTER_OMP_EXPORT void __kmpc_ordered(ident_t *loc, kmp_int32 gtid)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    muster_ws_ordered_start(muster_omp_self());
}

/* The turn passes when the chunk ends (the next dispatch_next, or the
 * loop's end), as on the GOMP side. */
MUSTER_OMP_EXPORT void __kmpc_end_ordered(ident_t *loc, kmp_int32 gtid)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    muster_ws_ordered_end(muster_omp_self());
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
