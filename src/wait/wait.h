/* The wait layer: every "wait until this flag changes" in every algorithm
 * goes through muster_wait_reach(), and every release through
 * muster_flag_publish().  Algorithms know nothing about how a thread waits;
 * this layer knows nothing about algorithms.
 *
 * A flag is one 32-bit futex word:
 *   bits 0..29  an episode counter, written by exactly one thread per episode
 *   bit 30      BROKEN: set by muster_flag_break() when the barrier is aborted
 *   bit 31      SLEEPING: a waiter is, or is about to be, asleep on the word
 * Waits are "until the counter reaches target" in modular arithmetic, so a
 * fast writer may run ahead by an episode without a waiter missing it.
 *
 * The sleep handshake: a waiter that gives up spinning sets SLEEPING with a
 * CAS and futex-waits on the value with the bit set; a publisher swaps in the
 * new value with one atomic exchange and calls futex_wake only if the old
 * value had SLEEPING.  Both are read-modify-writes of the same word, so they
 * are totally ordered: either the publisher sees the bit, or the waiter's CAS
 * fails (the value moved) and it never sleeps.  No lost wake-up, and no
 * system call unless somebody sleeps. */
#ifndef MUSTER_WAIT_H
#define MUSTER_WAIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "muster/barrier.h"

#define MUSTER_FLAG_SLEEPING (1u << 31)
#define MUSTER_FLAG_BROKEN (1u << 30)
#define MUSTER_FLAG_VALUE_MASK (MUSTER_FLAG_BROKEN - 1u)

typedef _Atomic uint32_t muster_flag;

/* A barrier's CPU census (wait/census.h): a waiter notes its CPU there. */
typedef struct muster_census muster_census;

/* Work a waiter may do while it waits, such as the queued tasks of a
 * thread pool.  run(arg) does one piece and returns true, or returns false
 * when there is none.  A waiter about to sleep counts itself in *sleepers
 * (seq_cst) and calls run once more: whoever adds work must make it
 * visible with a seq_cst write, then read *sleepers with a seq_cst load and
 * wake the sleepers it finds (muster_barrier_nudge), so no piece of work
 * goes unnoticed by a sleeping waiter.  A work source may also leave some
 * sleepers asleep on purpose (more of them awake could not run anyway):
 * then nap_ns > 0 bounds each sleep, after which the waiter looks again. */
typedef struct muster_wait_work {
    bool (*run)(void *arg);
    void *arg;
    _Atomic uint32_t *sleepers;
    uint64_t nap_ns; /* 0: sleep until woken */
} muster_wait_work;

/* How one participant waits in one call; built on the stack by the caller. */
typedef struct muster_waiter {
    muster_wait_policy policy; /* ACTIVE, PASSIVE or HYBRID, never DEFAULT */
    uint64_t spin_iterations;  /* HYBRID: spin this many polls before sleeping */
    bool adaptive;             /* the default budget: each thread scales it by its sleeps (tuning.h) */
    bool watch_load;           /* HYBRID: probe the load and spin little while contended (wait/load.h) */
    unsigned yields;           /* HYBRID: then give the CPU away this many times */
    bool watch_yields;         /* judge its yields for the load watch, and stop them while costly (wait/load.h) */
    /* HYBRID: after the yields or the share below, before sleeping, keep
     * yielding for up to yield_ns (its yields stop, and it sleeps, once they
     * are costly); 0: none. */
    uint64_t yield_ns;
    /* With a census and share_ns 0: the co-location guard while spinning
     * (ACTIVE and HYBRID).  With share_ns > 0 (HYBRID, oversubscribed):
     * instead of the yields, share the CPU by the census for up to
     * share_ns, then sleep. */
    muster_census *census;
    unsigned census_id;        /* the waiting participant */
    uint64_t share_ns;
    uint64_t deadline_ns;      /* CLOCK_MONOTONIC; 0 = no deadline */
    const muster_wait_work *work; /* NULL: none; else done between polls and sleeps */
    /* Return MUSTER_WAIT_WOULD_SLEEP where the wait would sleep (no work):
     * for a waiter that sleeps somewhere else of its own (the ordered
     * turn's doorbells, omp/loop.c). */
    bool stop_before_sleep;
} muster_waiter;

/* What muster_wait_reach returns for a waiter with stop_before_sleep that
 * spent its budget; not an error code of the public API. */
#define MUSTER_WAIT_WOULD_SLEEP 2

/* The next episode counter value after v. */
static inline uint32_t muster_episode_next(uint32_t v)
{
    return (v + 1u) & MUSTER_FLAG_VALUE_MASK;
}

/* True when the counter in flag value v has reached target (modular). */
static inline bool muster_flag_reached(uint32_t v, uint32_t target)
{
    return ((v - target) & MUSTER_FLAG_VALUE_MASK) < (MUSTER_FLAG_VALUE_MASK / 2u);
}

int muster_wait_slow(muster_flag *flag, uint32_t target, const muster_waiter *waiter);
/* How many times the calling thread's adaptive spin budgets are doubled
 * now (0 to MUSTER_SPIN_ADAPT_MAX_DOUBLINGS, tuning.h); for tests. */
unsigned muster_wait_spin_doublings(void);

/* Waits until *flag reaches target.  Returns 0, MUSTER_E_BROKEN or
 * MUSTER_E_TIMEDOUT (or MUSTER_WAIT_WOULD_SLEEP, see stop_before_sleep).
 * The fast path is one acquire load. */
static inline int muster_wait_reach(muster_flag *flag, uint32_t target, const muster_waiter *waiter)
{
    /* acquire: pairs with the release exchange or store in muster_flag_publish() (or the release
     * CAS in muster_flag_bump(), wait.c), so the publisher's prior writes are seen. */
    uint32_t v = atomic_load_explicit(flag, memory_order_acquire);
    if (muster_flag_reached(v, target))
        return 0;
    return muster_wait_slow(flag, target, waiter);
}

void muster_flag_wake_sleepers(muster_flag *flag);

/* Publishes value (an episode counter) to the waiters of flag.  With
 * may_sleep false (ACTIVE policy: nobody ever sleeps) a plain release store
 * does; otherwise the exchange that implements the handshake above. */
static inline void muster_flag_publish(muster_flag *flag, uint32_t value, bool may_sleep)
{
    if (!may_sleep) {
        /* release: pairs with the acquire load in muster_wait_reach() (and spin(), wait.c): the
         * waiter then sees everything before it. */
        atomic_store_explicit(flag, value, memory_order_release);
        return;
    }
    /* release: pairs with the acquire load in muster_wait_reach() (and spin(), wait.c) to publish
     * prior writes; the RMW order on this one word (not a fence) is what guarantees the SLEEPING
     * bit set by prepare_to_sleep()'s CAS (wait.c) is seen, see above. */
    uint32_t old = atomic_exchange_explicit(flag, value, memory_order_release);
    if (old & MUSTER_FLAG_SLEEPING)
        muster_flag_wake_sleepers(flag);
}

/* Advances the flag's counter by one, whatever it is (two bumpers racing
 * both count), and wakes its sleepers if any: a doorbell, for a waiter
 * that reads the counter before it checks what it waits for and then
 * waits for the next value. */
void muster_flag_bump(muster_flag *flag);

/* muster_flag_publish (may_sleep) as a sequentially consistent exchange:
 * for a publisher that next reads what a waiter announced elsewhere (a
 * Dekker handshake: either it sees the announcement, or the waiter sees
 * the value). */
static inline void muster_flag_publish_seq_cst(muster_flag *flag, uint32_t value)
{
    if (atomic_exchange(flag, value) & MUSTER_FLAG_SLEEPING)
        muster_flag_wake_sleepers(flag);
}

/* Wakes the flag's sleepers without changing it, so that waiters with work
 * (muster_wait_work) look for it; no system call unless one sleeps. */
void muster_flag_nudge(muster_flag *flag);
/* Wakes at most `count` of the flag's sleepers, leaving it unchanged;
 * returns how many it woke.  The others sleep on (a working waiter's nap
 * bounds that). */
int muster_flag_nudge_some(muster_flag *flag, int count);

/* Marks flag BROKEN and wakes its sleepers: used by abort. */
void muster_flag_break(muster_flag *flag);

/* Futex sleeps and wakes, and yields, made by this process so far (slow
 * path only; used by tests and benchmarks to show the fast path makes no
 * system call). */
typedef struct muster_wait_counts {
    uint64_t sleeps, wakes, yields;
    /* Sleeps that ended on a wake call (one made after the sleep began),
     * those of them that ran MUSTER_SLOW_WAKE_NS or more after the call,
     * and the sum of those delays: how long a woken waiter waited for a
     * CPU (a busy process on it keeps it for its slice). */
    uint64_t woken, slow_wakes, wake_delay_ns;
} muster_wait_counts;
muster_wait_counts muster_wait_counters(void);

/* Polls of the spin loop that fit in spin_ns, from a one-time calibration. */
uint64_t muster_spin_iterations(int64_t spin_ns);

/* The program's own request, made while it runs (libomp's kmp_set_blocktime
 * and library modes, src/omp/kmp/api.c): how long a hybrid waiter spins
 * before it sleeps, in place of the default budget and the load watch.
 * Not for waiters whose team outnumbers the CPUs (their default yields):
 * there a spin keeps the awaited thread off its CPU, whatever was asked.
 * spin_ns < 0 withdraws it.  Waits that have begun keep their budget. */
void muster_wait_request_spin_ns(int64_t spin_ns);
/* The request in force: its nanoseconds, or -1 for none. */
int64_t muster_wait_requested_spin_ns(void);
/* ... as polls: UINT64_MAX for none.  One relaxed load, read at every
 * slow wait. */
uint64_t muster_wait_requested_spin_iterations(void);

#endif
