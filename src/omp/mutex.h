/* The runtime's mutex: one 32-bit word, a queue lock with barging (mutex.c).
 *
 * The word:
 *   bit 0        LOCKED    held
 *   bit 1        SLEEPERS  a waiter sleeps, or may sleep, on the word's
 *                          futex: the unlock clears the bit and wakes one
 *   bits 2..31   tail      the queue's last waiter (its node's id), 0 when
 *                          nobody queues
 * The uncontended lock is one compare-and-swap of 0 to LOCKED and the
 * uncontended unlock one compare-and-swap back; neither makes a system call.
 * A contended locker takes the lock if it is free at that moment (barging:
 * a waiter that is preempted or asleep never holds the lock idle), polls
 * the word for a moment while nobody queues (two threads trading the lock
 * never queue), then swaps itself in as the tail and waits on a cache line
 * of its own (its node), as in an MCS lock: only the queue's head watches
 * the word.  So a release under contention moves one cache line to one
 * spinner, not to every waiter, and a spinning head takes the lock without
 * a futex call.  The head, once it holds the lock, hands the head's place
 * to its successor (waking it if it slept).  Waiters spin as the wait
 * policy plans, then sleep: the head on the word, the others on their
 * nodes.
 * The queue pays only while the threads fit the CPUs: in order, each
 * hand-off to a waiter that is not running would cost a wake-up while the
 * lock waits.  So once they do not (the locker's team outnumbers the CPUs,
 * or sleepers crowd them), on one CPU or under the passive policy, and in
 * a team of two (one waits at most), a contender waits on the word
 * instead, as a futex mutex's waiter does: spin, then sleep announced by
 * SLEEPERS; whoever runs takes the lock.
 * Nothing here calls sched_yield in a loop, but for the one wait that can
 * be for a preempted thread: a new head waits for its successor to link
 * itself (two instructions after its swap).
 *
 * Zero is the unlocked state, so zero-filled memory is an unlocked mutex
 * (gomp/critical.c and kmp/sync.c rely on that for named critical sections). */
#ifndef MUSTER_OMP_MUTEX_H
#define MUSTER_OMP_MUTEX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "platform/check.h"

typedef _Atomic uint32_t muster_omp_mutex;

enum {
    MUSTER_OMP_MUTEX_UNLOCKED = 0,
    MUSTER_OMP_MUTEX_LOCKED = 1u,
    MUSTER_OMP_MUTEX_SLEEPERS = 2u,
    MUSTER_OMP_MUTEX_TAIL_SHIFT = 2,
};

#define MUSTER_OMP_MUTEX_INITIALIZER 0u

/* The contended halves, out of line. */
void muster_omp_mutex_lock_slow(muster_omp_mutex *mutex);
void muster_omp_mutex_unlock_slow(muster_omp_mutex *mutex, uint32_t seen);

static inline void muster_omp_mutex_init(muster_omp_mutex *mutex)
{
    atomic_init(mutex, MUSTER_OMP_MUTEX_UNLOCKED);
}

/* True when the lock was taken: it was free, queue or not. */
static inline bool muster_omp_mutex_trylock(muster_omp_mutex *mutex)
{
    /* relaxed: the CAS below does the acquiring. */
    uint32_t word = atomic_load_explicit(mutex, memory_order_relaxed);
    /* acquire: pairs with the previous holder's release in muster_omp_mutex_unlock() (or the
     * fetch_sub in muster_omp_mutex_unlock_slow(), mutex.c), so the critical section sees its
     * writes; relaxed on failure: nothing was taken, nothing to order. */
    while (!(word & MUSTER_OMP_MUTEX_LOCKED))
        if (atomic_compare_exchange_weak_explicit(mutex, &word, word | MUSTER_OMP_MUTEX_LOCKED, memory_order_acquire,
                                                  memory_order_relaxed))
            return true;
    return false;
}

static inline void muster_omp_mutex_lock(muster_omp_mutex *mutex)
{
    uint32_t expected = MUSTER_OMP_MUTEX_UNLOCKED;
    /* acquire: as in trylock; relaxed on failure: the slow path reads again. */
    if (!atomic_compare_exchange_strong_explicit(mutex, &expected, MUSTER_OMP_MUTEX_LOCKED, memory_order_acquire,
                                                 memory_order_relaxed))
        muster_omp_mutex_lock_slow(mutex);
}

static inline bool muster_omp_mutex_is_locked(muster_omp_mutex *mutex);

static inline void muster_omp_mutex_unlock(muster_omp_mutex *mutex)
{
    MUSTER_INVARIANT(muster_omp_mutex_is_locked(mutex), "unlocking a lock that nobody holds (mutex %p)",
                     (void *)mutex);
    uint32_t expected = MUSTER_OMP_MUTEX_LOCKED;
    /* release: pairs with the next holder's acquire CAS (trylock, lock, or the slow paths in
     * mutex.c), publishing the critical section's writes to it; relaxed on failure: the slow
     * path's fetch_sub releases. */
    if (!atomic_compare_exchange_strong_explicit(mutex, &expected, MUSTER_OMP_MUTEX_UNLOCKED, memory_order_release,
                                                 memory_order_relaxed))
        muster_omp_mutex_unlock_slow(mutex, expected);
}

/* True while some thread holds the mutex (a snapshot, for assertions and tests). */
static inline bool muster_omp_mutex_is_locked(muster_omp_mutex *mutex)
{
    /* relaxed: a snapshot that orders nothing. */
    return (atomic_load_explicit(mutex, memory_order_relaxed) & MUSTER_OMP_MUTEX_LOCKED) != 0;
}

/* Contention statistics of this process (relaxed counters; tests use them to
 * show that waiters really sleep and that unlock wakes one at a time). */
typedef struct muster_omp_mutex_counts {
    uint64_t sleeps;     /* futex waits entered by lockers (the head's and the queued ones') */
    uint64_t wakes;      /* futex wakes issued (each wakes at most one) */
    uint64_t head_sleeps; /* of the sleeps, those of a queue's head (on the word) */
    uint64_t word_wakes;  /* of the wakes, those of an unlock, for a sleeper on the word */
    uint64_t node_ids;    /* queue nodes handed out so far (an exited thread's is reused) */
} muster_omp_mutex_counts;
muster_omp_mutex_counts muster_omp_mutex_counters(void);

/* Polls a contended locker spins before sleeping: 0 when the process may use
 * one CPU only; computed once. */
uint64_t muster_omp_mutex_spin_polls(void);
/* Polls a contended locker in the calling thread would spin now: the plain
 * budget, the oversubscribed one, or 0 (mutex.c, spin_then_take). */
uint64_t muster_omp_mutex_contended_polls(void);
/* Tests only, with no other thread in the mutex: replaces the spin plan
 * (omp/waiter.h) by *plan, or by the process's own for NULL; so both ways
 * of waiting can be checked on any machine. */
struct muster_mutex_plan;
void muster_omp_mutex_use_plan(const struct muster_mutex_plan *plan);
/* How the mutex learns the calling thread's team size (the longer spin is
 * for teams that outnumber the CPUs): installed once by the OpenMP runtime
 * at load (thread.c); without it every caller counts as outside any team. */
void muster_omp_mutex_set_team_size_query(unsigned (*query)(void));

/* The nestable lock (lock.c) on memory of MUSTER_OMP_NEST_LOCK_SIZE bytes,
 * pointer-aligned: gcc's omp_nest_lock_t holds it in place, clang's 8-byte
 * one points to it (kmp/lock.c).  The owner is the calling thread. */
#define MUSTER_OMP_NEST_LOCK_SIZE 16
void muster_omp_nest_lock_init(void *lock);
void muster_omp_nest_lock_destroy(void *lock);
void muster_omp_nest_lock_set(void *lock);
void muster_omp_nest_lock_unset(void *lock);
int muster_omp_nest_lock_test(void *lock); /* the new nesting count, 0 when another thread holds it */

#endif
