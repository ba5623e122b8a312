/* The runtime's futex mutex (mutex.h): its contended paths and its spin
 * plan.  Mechanism only: how long a contended locker spins, and when it
 * stops spinning, are the wait policy module's (muster_mutex_plan_for),
 * installed here once; the one thing it asks the OpenMP runtime above it,
 * the caller's team size, comes through the query the runtime installs
 * (muster_omp_mutex_set_team_size_query).  Depends on libmuster's wait
 * layer and platform only. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "omp/mutex.h"
#include "platform/platform.h"
#include "wait/policy.h"
#include "wait/wait.h"

/* relaxed: statistics only; they order nothing. */
static _Atomic uint64_t sleep_count, wake_count;

muster_omp_mutex_counts muster_omp_mutex_counters(void)
{
    return (muster_omp_mutex_counts){atomic_load_explicit(&sleep_count, memory_order_relaxed),
                                     atomic_load_explicit(&wake_count, memory_order_relaxed)};
}

/* ---- the spin plan, installed once ---- */

/* The process's policy (passive: no spinning) decides the budgets, read
 * once from the wait layer's settings, the same the teams' barriers use. */
static muster_mutex_plan plan;
static pthread_once_t plan_once = PTHREAD_ONCE_INIT;
/* Set once the plan is installed: every contended lock reads it, and only
 * the first ones pay for pthread_once (a call into libc each time). */
static _Atomic bool plan_ready;

static void install_plan(void)
{
    plan = muster_mutex_plan_for(muster_wait_settings_get()->policy);
    /* release: publishes the plan to the readers that skip pthread_once. */
    atomic_store_explicit(&plan_ready, true, memory_order_release);
}

static const muster_mutex_plan *spin_plan(void)
{
    /* acquire: pairs with install_plan's release, so the plan is seen whole. */
    if (__builtin_expect(!atomic_load_explicit(&plan_ready, memory_order_acquire), 0))
        pthread_once(&plan_once, install_plan);
    return &plan;
}

uint64_t muster_omp_mutex_spin_polls(void)
{
    return spin_plan()->spin_polls;
}

/* The caller's team size, as the runtime above reports it; NULL (a
 * program of plain threads): no team. */
static _Atomic(unsigned (*)(void)) team_size_query;

void muster_omp_mutex_set_team_size_query(unsigned (*query)(void))
{
    /* relaxed: installed at load, before any thread that could contend. */
    atomic_store_explicit(&team_size_query, query, memory_order_relaxed);
}

/* True when the caller's innermost team has more threads than the process
 * has CPUs (the sleeper limit is one fewer than the CPUs). */
static bool team_outnumbers_cpus(const muster_mutex_plan *p)
{
    /* relaxed: see muster_omp_mutex_set_team_size_query. */
    unsigned (*query)(void) = atomic_load_explicit(&team_size_query, memory_order_relaxed);
    return query != NULL && query() > p->sleeper_limit + 1u;
}

/* ---- the contended paths ---- */

/* Threads asleep on any runtime mutex, past the plan's sleeper limit the
 * longer oversubscribed spin stops paying (muster_omp_mutex_contended_polls).
 * Only threads that go to sleep touch the count, and they make a system
 * call anyway; spinners just read it. */
static _Atomic unsigned sleepers;

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
 * the process has spare CPUs.  A crowded process still spins the plain
 * budget (docs/tuning.md, MUSTER_MUTEX_SPIN_NS).  Gives up early when the
 * word says CONTENDED: others sleep on this one, so it is busy for a while
 * and we queue behind them. */
uint64_t muster_omp_mutex_contended_polls(void)
{
    const muster_mutex_plan *p = spin_plan();
    if (p->spin_polls == 0)
        return 0;
    /* relaxed: a heuristic; a stale value costs a shorter or a longer spin. */
    bool crowded = atomic_load_explicit(&sleepers, memory_order_relaxed) >= p->sleeper_limit;
    return !crowded && team_outnumbers_cpus(p) ? p->oversubscribed_polls : p->spin_polls;
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
    /* relaxed: statistics. */
    atomic_fetch_add_explicit(&wake_count, 1, memory_order_relaxed);
    muster_futex_wake(mutex, 1);
}
