/* The runtime's futex mutex (mutex.h) and the OpenMP locks on top of it:
 * omp_*_lock and omp_*_nest_lock.
 *
 * Layout: gcc 12's omp.h gives omp_lock_t 4 bytes (aligned 4) and
 * omp_nest_lock_t 8 + sizeof(void *) bytes (aligned to a pointer), as
 * libgomp's config/linux/omp-lock.h does.  A simple lock is the mutex word
 * itself; a nest lock is the mutex word, the nesting count and the owner. */
#include <assert.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>

#include "omp/internal.h"
#include "omp/mutex.h"

/* ---- the mutex's contended paths ---- */

/* How long a contended locker spins, and when it stops spinning, are the
 * wait policy module's (muster_mutex_plan_for); this is the mechanism. */

/* relaxed: statistics only; they order nothing. */
static _Atomic uint64_t sleep_count, wake_count;

muster_omp_mutex_counts muster_omp_mutex_counters(void)
{
    return (muster_omp_mutex_counts){atomic_load_explicit(&sleep_count, memory_order_relaxed),
                                     atomic_load_explicit(&wake_count, memory_order_relaxed)};
}

/* The plan's spin budgets (in polls; UINT64_MAX: not computed yet). */
static _Atomic uint64_t spin_polls = UINT64_MAX;
static _Atomic uint64_t oversubscribed_polls;
/* Threads asleep on any runtime mutex, and the plan's limit on them, past
 * which the longer oversubscribed spin stops paying (spin_then_take).
 * Only threads that go to sleep touch the count, and they make a system
 * call anyway; spinners just read it. */
static _Atomic unsigned sleepers;
static _Atomic unsigned sleeper_limit;

/* True when the caller's innermost team has more threads than the process
 * has CPUs. */
static bool team_outnumbers_cpus(void)
{
    const muster_omp_team *team = muster_omp_self()->team;
    /* relaxed: set once before any spin reads it, see muster_omp_mutex_spin_polls;
     * the sleeper limit is one fewer than the CPUs. */
    return team != NULL && team->size > atomic_load_explicit(&sleeper_limit, memory_order_relaxed) + 1u;
}

uint64_t muster_omp_mutex_spin_polls(void)
{
    /* relaxed: every thread computes the same values; a race only repeats
     * the computation. */
    uint64_t polls = atomic_load_explicit(&spin_polls, memory_order_relaxed);
    if (polls != UINT64_MAX)
        return polls;
    /* The process's policy (passive: no spinning), as the OpenMP layer holds it. */
    muster_mutex_plan plan = muster_mutex_plan_for(muster_omp_globals_get()->wait_policy);
    atomic_store_explicit(&sleeper_limit, plan.sleeper_limit, memory_order_relaxed);
    atomic_store_explicit(&oversubscribed_polls, plan.oversubscribed_polls, memory_order_relaxed);
    atomic_store_explicit(&spin_polls, plan.spin_polls, memory_order_relaxed);
    return plan.spin_polls;
}

/* A fork()ed child has only the forking thread: the parent's sleepers do
 * not exist there. */
static void in_forked_child(void)
{
    atomic_store_explicit(&sleepers, 0, memory_order_relaxed); /* relaxed: one thread runs now */
}

__attribute__((constructor)) static void register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, in_forked_child);
}

/* Spins while the holder may be about to release: the plain budget, or
 * the longer oversubscribed one while fewer threads sleep on mutexes than
 * the process has spare CPUs (sleepers).  Once that many sleep, it used
 * not to spin at all: every contender then slept and every release woke
 * one, about one futex call per 3-4 lock operations with 8 threads on 2
 * CPUs (2M operations: 500 000-630 000 calls; libgomp's mutex, which
 * spins ~100 pauses first, 35 000-70 000; with the plain budget,
 * 1 500-25 000).  Gives up early when the word says CONTENDED: others
 * sleep on this one, so it is busy for a while and we queue behind
 * them. */
uint64_t muster_omp_mutex_contended_polls(void)
{
    uint64_t polls = muster_omp_mutex_spin_polls();
    if (polls == 0)
        return 0;
    /* relaxed: both are heuristics; a stale value costs a shorter or a longer spin. */
    bool crowded = atomic_load_explicit(&sleepers, memory_order_relaxed) >=
                   atomic_load_explicit(&sleeper_limit, memory_order_relaxed);
    if (!crowded && team_outnumbers_cpus())
        polls = atomic_load_explicit(&oversubscribed_polls, memory_order_relaxed);
    return polls;
}

static bool spin_then_take(muster_omp_mutex *mutex)
{
    uint64_t polls = muster_omp_mutex_contended_polls();
    for (uint64_t i = 0; i < polls; i++) {
        muster_cpu_relax();
        /* relaxed: only a hint; the CAS in trylock does the acquiring. */
        uint32_t state = atomic_load_explicit(mutex, memory_order_relaxed);
        if (state == MUSTER_OMP_MUTEX_CONTENDED)
            return false;
        if (state == MUSTER_OMP_MUTEX_UNLOCKED && muster_omp_mutex_trylock(mutex))
            return true;
    }
    return false;
}

static void sleep_until_taken(muster_omp_mutex *mutex)
{
    /* Swapping in CONTENDED both takes a free lock and announces a sleeper;
     * taking it CONTENDED when we did not need to costs one spare wake.
     * acquire: as in trylock. */
    if (atomic_exchange_explicit(mutex, MUSTER_OMP_MUTEX_CONTENDED, memory_order_acquire) ==
        MUSTER_OMP_MUTEX_UNLOCKED)
        return;
    /* relaxed: a head count that orders no memory. */
    atomic_fetch_add_explicit(&sleepers, 1, memory_order_relaxed);
    do {
        atomic_fetch_add_explicit(&sleep_count, 1, memory_order_relaxed);
        /* Returns at once when the word is no longer CONTENDED; EINTR from a
         * signal and spurious wake-ups just loop back to the exchange. */
        muster_futex_wait(mutex, MUSTER_OMP_MUTEX_CONTENDED, 0);
    } while (atomic_exchange_explicit(mutex, MUSTER_OMP_MUTEX_CONTENDED, memory_order_acquire) !=
             MUSTER_OMP_MUTEX_UNLOCKED);
    atomic_fetch_sub_explicit(&sleepers, 1, memory_order_relaxed);
}

void muster_omp_mutex_lock_slow(muster_omp_mutex *mutex)
{
    if (!spin_then_take(mutex))
        sleep_until_taken(mutex);
}

void muster_omp_mutex_wake_one(muster_omp_mutex *mutex)
{
    atomic_fetch_add_explicit(&wake_count, 1, memory_order_relaxed);
    muster_futex_wake(mutex, 1);
}

/* ---- simple locks ---- */

static_assert(sizeof(omp_lock_t) >= sizeof(muster_omp_mutex), "omp_lock_t holds the mutex word");
static_assert(_Alignof(omp_lock_t) >= _Alignof(muster_omp_mutex), "omp_lock_t is aligned for it");

static muster_omp_mutex *lock_mutex(omp_lock_t *lock)
{
    return (muster_omp_mutex *)(void *)lock;
}

MUSTER_OMP_EXPORT void omp_init_lock(omp_lock_t *lock)
{
    muster_omp_mutex_init(lock_mutex(lock));
}

/* Hints (contended, uncontended, speculative ...) may be ignored (OpenMP
 * 5.1 §3.9.2); libgomp ignores them too.  One mutex serves every hint: it
 * already spins only when that can pay off. */
MUSTER_OMP_EXPORT void omp_init_lock_with_hint(omp_lock_t *lock, omp_sync_hint_t hint)
{
    (void)hint;
    omp_init_lock(lock);
}

MUSTER_OMP_EXPORT void omp_destroy_lock(omp_lock_t *lock)
{
    (void)lock;
}

MUSTER_OMP_EXPORT void omp_set_lock(omp_lock_t *lock)
{
    muster_omp_mutex_lock(lock_mutex(lock));
}

MUSTER_OMP_EXPORT void omp_unset_lock(omp_lock_t *lock)
{
    muster_omp_mutex_unlock(lock_mutex(lock));
}

MUSTER_OMP_EXPORT int omp_test_lock(omp_lock_t *lock)
{
    return muster_omp_mutex_trylock(lock_mutex(lock));
}

/* ---- nestable locks ---- */

/* The owner is a task in OpenMP; here it is the thread.  A task runs from
 * start to end on one thread, so while it holds the lock its thread
 * identifies it.  They differ only for a task that the holder's thread
 * runs while the holder is suspended under it (at a taskwait, or a task
 * run at once at its creation): it gets the lock as a nested acquisition,
 * where OpenMP's owner rule would make it wait for a holder that cannot
 * resume before it ends, a deadlock. */
typedef struct nest_lock {
    muster_omp_mutex mutex;
    uint32_t count;           /* nesting depth; touched only by the owner */
    _Atomic(void *) owner;    /* the owning thread's identity; NULL when free */
} nest_lock;

static_assert(sizeof(omp_nest_lock_t) >= sizeof(nest_lock), "omp_nest_lock_t holds a nest lock");
static_assert(_Alignof(omp_nest_lock_t) >= _Alignof(nest_lock), "omp_nest_lock_t is aligned for it");
static_assert(sizeof(nest_lock) <= MUSTER_OMP_NEST_LOCK_SIZE, "mutex.h's size is the nest lock's");

/* Unique per live thread: the address of a thread-local. */
static _Thread_local char thread_identity;

static void *self_identity(void)
{
    return &thread_identity;
}

static nest_lock *as_nest_lock(omp_nest_lock_t *lock)
{
    return (nest_lock *)(void *)lock;
}

/* True when the calling thread owns the lock.  relaxed: only the owner
 * ever stores its own identity there, so reading it back needs no order;
 * any other value (NULL or another thread's) means "not mine". */
static bool owned_by_self(nest_lock *lock)
{
    return atomic_load_explicit(&lock->owner, memory_order_relaxed) == self_identity();
}

static void take_ownership(nest_lock *lock)
{
    lock->count = 1;
    /* relaxed: see owned_by_self; the mutex orders it for other threads. */
    atomic_store_explicit(&lock->owner, self_identity(), memory_order_relaxed);
}

void muster_omp_nest_lock_init(void *lock)
{
    nest_lock *n = lock;
    muster_omp_mutex_init(&n->mutex);
    n->count = 0;
    atomic_init(&n->owner, NULL);
}

void muster_omp_nest_lock_set(void *lock)
{
    nest_lock *n = lock;
    if (owned_by_self(n)) {
        n->count++;
        return;
    }
    muster_omp_mutex_lock(&n->mutex);
    take_ownership(n);
}

void muster_omp_nest_lock_unset(void *lock)
{
    nest_lock *n = lock;
    if (--n->count != 0)
        return;
    /* relaxed: the unlock's release publishes it with everything else. */
    atomic_store_explicit(&n->owner, NULL, memory_order_relaxed);
    muster_omp_mutex_unlock(&n->mutex);
}

/* Returns the new nesting count, or 0 when another thread holds the lock. */
int muster_omp_nest_lock_test(void *lock)
{
    nest_lock *n = lock;
    if (owned_by_self(n))
        return (int)++n->count;
    if (!muster_omp_mutex_trylock(&n->mutex))
        return 0;
    take_ownership(n);
    return 1;
}

/* gcc's omp_nest_lock_t holds the nest lock in place. */
MUSTER_OMP_EXPORT void omp_init_nest_lock(omp_nest_lock_t *lock)
{
    muster_omp_nest_lock_init(as_nest_lock(lock));
}

MUSTER_OMP_EXPORT void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_sync_hint_t hint)
{
    (void)hint;
    muster_omp_nest_lock_init(as_nest_lock(lock));
}

MUSTER_OMP_EXPORT void omp_destroy_nest_lock(omp_nest_lock_t *lock)
{
    (void)lock;
}

MUSTER_OMP_EXPORT void omp_set_nest_lock(omp_nest_lock_t *lock)
{
    muster_omp_nest_lock_set(as_nest_lock(lock));
}

MUSTER_OMP_EXPORT void omp_unset_nest_lock(omp_nest_lock_t *lock)
{
    muster_omp_nest_lock_unset(as_nest_lock(lock));
}

MUSTER_OMP_EXPORT int omp_test_nest_lock(omp_nest_lock_t *lock)
{
    return muster_omp_nest_lock_test(as_nest_lock(lock));
}
