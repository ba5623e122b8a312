/* The OpenMP locks on the runtime mutex (mutex.h, mutex.c):
 * omp_*_lock and omp_*_nest_lock.
 *
 * Layout: gcc 12's omp.h gives omp_lock_t 4 bytes (aligned 4) and
 * omp_nest_lock_t 8 + sizeof(void *) bytes (aligned to a pointer), as
 * libgomp's config/linux/omp-lock.h does.  A simple lock is the mutex word
 * itself; a nest lock is the mutex word, the nesting count and the owner. */
#include <assert.h>
#include <omp.h>
#include <stdint.h>

#include "omp/internal.h"
#include "omp/mutex.h"

/* ---- simple locks ---- */

static_assert(sizeof(omp_lock_t) >= sizeof(muster_omp_mutex), "omp_lock_t holds the mutex word");
static_assert(_Alignof(omp_lock_t) >= _Alignof(muster_omp_mutex), "omp_lock_t is aligned for it");

static muster_omp_mutex *lock_mutex(omp_lock_t *lock)
{
    return (muster_omp_mutex *)(void *)lock;
}

MUSTER_OMP_EXPORT void omp_init_lock(omp_lock_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_mutex_init(lock_mutex(lock));
    if (muster_ompt_on())
        muster_ompt_lock_init(MUSTER_OMPT_MUTEX_LOCK, lock);
}

/* Hints (contended, uncontended, speculative ...) may be ignored (OpenMP
 * 5.1 §3.9.2); libgomp ignores them too.  One mutex serves every hint: it
 * already spins only when that can pay off. */
MUSTER_OMP_EXPORT void omp_init_lock_with_hint(omp_lock_t *lock, omp_sync_hint_t hint)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)hint;
    omp_init_lock(lock);
}

MUSTER_OMP_EXPORT void omp_destroy_lock(omp_lock_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    if (muster_ompt_on())
        muster_ompt_lock_destroy(MUSTER_OMPT_MUTEX_LOCK, lock);
}

/* A simple lock's wait identifier is its address (the mutex word). */
MUSTER_OMP_EXPORT void omp_set_lock(omp_lock_t *lock)
{
    muster_omp_program_lock(lock_mutex(lock), MUSTER_OMPT_MUTEX_LOCK);
}

MUSTER_OMP_EXPORT void omp_unset_lock(omp_lock_t *lock)
{
    muster_omp_program_unlock(lock_mutex(lock), MUSTER_OMPT_MUTEX_LOCK);
}

MUSTER_OMP_EXPORT int omp_test_lock(omp_lock_t *lock)
{
    return muster_omp_program_trylock(lock_mutex(lock), MUSTER_OMPT_MUTEX_TEST_LOCK);
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
    if (muster_ompt_on())
        muster_ompt_lock_init(MUSTER_OMPT_MUTEX_NEST_LOCK, n);
}

void muster_omp_nest_lock_destroy(void *lock)
{
    if (muster_ompt_on())
        muster_ompt_lock_destroy(MUSTER_OMPT_MUTEX_NEST_LOCK, lock);
}

void muster_omp_nest_lock_set(void *lock)
{
    nest_lock *n = lock;
    if (owned_by_self(n)) {
        n->count++;
        if (muster_ompt_on())
            muster_ompt_nest_lock(MUSTER_OMPT_SCOPE_BEGIN, n);
        return;
    }
    muster_omp_program_lock(&n->mutex, MUSTER_OMPT_MUTEX_NEST_LOCK);
    take_ownership(n);
}

void muster_omp_nest_lock_unset(void *lock)
{
    nest_lock *n = lock;
    MUSTER_INVARIANT(owned_by_self(n) && n->count > 0, "unsetting a nest lock the thread does not hold (%p)", lock);
    if (--n->count != 0) {
        if (muster_ompt_on())
            muster_ompt_nest_lock(MUSTER_OMPT_SCOPE_END, n);
        return;
    }
    /* relaxed: the unlock's release publishes it with everything else. */
    atomic_store_explicit(&n->owner, NULL, memory_order_relaxed);
    muster_omp_program_unlock(&n->mutex, MUSTER_OMPT_MUTEX_NEST_LOCK);
}

/* Returns the new nesting count, or 0 when another thread holds the lock. */
int muster_omp_nest_lock_test(void *lock)
{
    nest_lock *n = lock;
    if (owned_by_self(n)) {
        if (muster_ompt_on())
            muster_ompt_nest_lock(MUSTER_OMPT_SCOPE_BEGIN, n);
        return (int)++n->count;
    }
    if (!muster_omp_program_trylock(&n->mutex, MUSTER_OMPT_MUTEX_TEST_NEST_LOCK))
        return 0;
    take_ownership(n);
    return 1;
}

/* gcc's omp_nest_lock_t holds the nest lock in place. */
MUSTER_OMP_EXPORT void omp_init_nest_lock(omp_nest_lock_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_nest_lock_init(as_nest_lock(lock));
}

MUSTER_OMP_EXPORT void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_sync_hint_t hint)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)hint;
    muster_omp_nest_lock_init(as_nest_lock(lock));
}

MUSTER_OMP_EXPORT void omp_destroy_nest_lock(omp_nest_lock_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_nest_lock_destroy(as_nest_lock(lock));
}

MUSTER_OMP_EXPORT void omp_set_nest_lock(omp_nest_lock_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_nest_lock_set(as_nest_lock(lock));
}

MUSTER_OMP_EXPORT void omp_unset_nest_lock(omp_nest_lock_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_nest_lock_unset(as_nest_lock(lock));
}

MUSTER_OMP_EXPORT int omp_test_nest_lock(omp_nest_lock_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    return muster_omp_nest_lock_test(as_nest_lock(lock));
}
