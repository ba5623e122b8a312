/* The runtime's mutex: one 32-bit futex word (mutex.c).
 *
 * The word holds one of three states (Drepper, "Futexes are tricky", mutex 3):
 *   UNLOCKED   0
 *   LOCKED     1  held, nobody asleep on it
 *   CONTENDED  2  held, and a waiter is (or may be) asleep on the futex
 * The uncontended lock is one compare-and-swap and the uncontended unlock one
 * exchange; neither makes a system call.  A contended lock spins briefly with
 * the CPU's relax hint (longer when the locker's team outnumbers the CPUs,
 * unless as many threads already sleep on mutexes as the process has spare
 * CPUs: mutex.c says why), then marks the word CONTENDED and sleeps.  It
 * does not spin at all on one CPU, nor when this mutex already has
 * sleepers, nor under OMP_WAIT_POLICY=passive.
 * Unlocking a CONTENDED word wakes exactly one sleeper, which takes the lock
 * marked CONTENDED again, since others may still sleep.  Nothing here calls
 * sched_yield: yielding in a loop is a busy-wait that the kernel cannot see
 * through (the DragonFly lesson).
 *
 * Zero is the unlocked state, so zero-filled memory is an unlocked mutex
 * (gomp/critical.c and kmp/sync.c rely on that for named critical sections). */
#ifndef MUSTER_OMP_MUTEX_H
#define MUSTER_OMP_MUTEX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef _Atomic uint32_t muster_omp_mutex;

enum {
    MUSTER_OMP_MUTEX_UNLOCKED = 0,
    MUSTER_OMP_MUTEX_LOCKED = 1,
    MUSTER_OMP_MUTEX_CONTENDED = 2,
};

#define MUSTER_OMP_MUTEX_INITIALIZER 0u

/* The contended halves, out of line. */
void muster_omp_mutex_lock_slow(muster_omp_mutex *mutex);
void muster_omp_mutex_wake_one(muster_omp_mutex *mutex);

static inline void muster_omp_mutex_init(muster_omp_mutex *mutex)
{
    atomic_init(mutex, MUSTER_OMP_MUTEX_UNLOCKED);
}

/* True when the lock was taken. */
static inline bool muster_omp_mutex_trylock(muster_omp_mutex *mutex)
{
    uint32_t expected = MUSTER_OMP_MUTEX_UNLOCKED;
    /* acquire: the critical section must see the previous holder's writes;
     * relaxed on failure: nothing was taken, nothing to order. */
    return atomic_compare_exchange_strong_explicit(mutex, &expected, MUSTER_OMP_MUTEX_LOCKED,
                                                   memory_order_acquire, memory_order_relaxed);
}

static inline void muster_omp_mutex_lock(muster_omp_mutex *mutex)
{
    if (!muster_omp_mutex_trylock(mutex))
        muster_omp_mutex_lock_slow(mutex);
}

static inline void muster_omp_mutex_unlock(muster_omp_mutex *mutex)
{
    /* release: publishes the critical section's writes to the next holder. */
    uint32_t old = atomic_exchange_explicit(mutex, MUSTER_OMP_MUTEX_UNLOCKED, memory_order_release);
    if (old == MUSTER_OMP_MUTEX_CONTENDED)
        muster_omp_mutex_wake_one(mutex);
}

/* True while some thread holds the mutex (a snapshot, for assertions and tests). */
static inline bool muster_omp_mutex_is_locked(muster_omp_mutex *mutex)
{
    /* relaxed: a snapshot that orders nothing. */
    return atomic_load_explicit(mutex, memory_order_relaxed) != MUSTER_OMP_MUTEX_UNLOCKED;
}

/* Contention statistics of this process (relaxed counters; tests use them to
 * show that waiters really sleep and that unlock wakes one at a time). */
typedef struct muster_omp_mutex_counts {
    uint64_t sleeps; /* futex waits entered by lockers */
    uint64_t wakes;  /* futex wakes issued by unlockers (each wakes at most one) */
} muster_omp_mutex_counts;
muster_omp_mutex_counts muster_omp_mutex_counters(void);

/* Polls a contended locker spins before sleeping: 0 when the process may use
 * one CPU only; computed once. */
uint64_t muster_omp_mutex_spin_polls(void);
/* Polls a contended locker in the calling thread would spin now: the plain
 * budget, the oversubscribed one, or 0 (mutex.c, spin_then_take). */
uint64_t muster_omp_mutex_contended_polls(void);
/* How the mutex learns the calling thread's team size (the longer spin is
 * for teams that outnumber the CPUs): installed once by the OpenMP runtime
 * at load (thread.c); without it every caller counts as outside any team. */
void muster_omp_mutex_set_team_size_query(unsigned (*query)(void));

/* The nestable lock (lock.c) on memory of MUSTER_OMP_NEST_LOCK_SIZE bytes,
 * pointer-aligned: gcc's omp_nest_lock_t holds it in place, clang's 8-byte
 * one points to it (kmp/lock.c).  The owner is the calling thread. */
#define MUSTER_OMP_NEST_LOCK_SIZE 16
void muster_omp_nest_lock_init(void *lock);
void muster_omp_nest_lock_set(void *lock);
void muster_omp_nest_lock_unset(void *lock);
int muster_omp_nest_lock_test(void *lock); /* the new nesting count, 0 when another thread holds it */

#endif
