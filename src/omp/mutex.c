/* The runtime's queue mutex (mutex.h): its contended paths, the waiters'
 * queue nodes and the spin plan.  Mechanism only: how long a contended locker spins, and when it
 * stops spinning, are the wait policy module's (muster_mutex_plan_for),
 * installed here once; the one thing it asks the OpenMP runtime above it,
 * the caller's team size, comes through the query the runtime installs
 * (muster_omp_mutex_set_team_size_query).  Depends on libmuster's wait
 * layer and platform only. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "omp/mutex.h"
#include "omp/waiter.h" /* the mutex plan */
#include "platform/platform.h"
#include "wait/load.h"
#include "wait/policy.h"
#include "wait/wait.h"

/* relaxed: statistics only; they order nothing. */
static _Atomic uint64_t sleep_count, wake_count, head_sleep_count, word_wake_count, ids_count;

muster_omp_mutex_counts muster_omp_mutex_counters(void)
{
    /* relaxed (all): statistics counters, read for the report only. */
    return (muster_omp_mutex_counts){
        .sleeps = atomic_load_explicit(&sleep_count, memory_order_relaxed),
        .wakes = atomic_load_explicit(&wake_count, memory_order_relaxed),
        .head_sleeps = atomic_load_explicit(&head_sleep_count, memory_order_relaxed),
        .word_wakes = atomic_load_explicit(&word_wake_count, memory_order_relaxed),
        .node_ids = atomic_load_explicit(&ids_count, memory_order_relaxed),
    };
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
    /* release: pairs with the acquire load in spin_plan(), publishing the plan to the readers
     * that skip pthread_once. */
    atomic_store_explicit(&plan_ready, true, memory_order_release);
}

static const muster_mutex_plan *spin_plan(void)
{
    /* acquire: pairs with install_plan's release, so the plan is seen whole. */
    if (__builtin_expect(!atomic_load_explicit(&plan_ready, memory_order_acquire), 0))
        pthread_once(&plan_once, install_plan);
    return &plan;
}

void muster_omp_mutex_use_plan(const muster_mutex_plan *p)
{
    (void)spin_plan(); /* the process's first, so it cannot overwrite this one later */
    plan = p != NULL ? *p : muster_mutex_plan_for(muster_wait_settings_get()->policy);
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

/* The caller's innermost team size; 1 outside any team, or without the
 * runtime above. */
static unsigned caller_team_size(void)
{
    /* relaxed: see muster_omp_mutex_set_team_size_query. */
    unsigned (*query)(void) = atomic_load_explicit(&team_size_query, memory_order_relaxed);
    return query != NULL ? query() : 1u;
}

/* ---- the waiters' nodes ---- */

/* A waiter's place in a queue: one cache line, which only its owner spins
 * on.  A thread waits for one mutex at a time, so one node a thread
 * serves every mutex; the word names it by id (1-based), since gcc's
 * omp_lock_t has room for 32 bits, not a pointer.  Nodes live in chunks
 * that are never freed: a predecessor's late futex wake on a node whose
 * thread has moved on, or exited, finds valid memory (and wakes nobody who
 * minds: every sleeper here re-checks its state). */
enum { NODE_WAITING = 0, NODE_HEAD = 1, NODE_PARKED = 2 };

typedef struct queue_node {
    _Atomic uint32_t state; /* NODE_WAITING, NODE_HEAD or NODE_PARKED */
    _Atomic uint32_t next;  /* the successor's id, 0 until it links itself */
} __attribute__((aligned(MUSTER_CACHE_LINE))) queue_node;

enum {
    NODES_PER_CHUNK = 256,
    NODE_CHUNKS = 4096, /* a million threads waiting at once at most; more use no node */
};
static _Atomic(queue_node *) node_chunks[NODE_CHUNKS];

/* Ids handed out so far, and those of exited threads, to reuse; thread
 * start and exit only, so a plain mutex. */
static pthread_mutex_t ids_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t ids_issued;
static uint32_t *free_ids;
static size_t free_count, free_capacity;

static pthread_key_t id_key;
static pthread_once_t id_key_once = PTHREAD_ONCE_INIT;
static _Thread_local uint32_t my_id;

static queue_node *node_at(uint32_t id)
{
    /* acquire: pairs with the release store of the chunk in new_id(), which published its zeroed
     * nodes; an id is only ever read after its chunk exists. */
    queue_node *chunk = atomic_load_explicit(&node_chunks[(id - 1) / NODES_PER_CHUNK], memory_order_acquire);
    return &chunk[(id - 1) % NODES_PER_CHUNK];
}

static void return_id(void *value)
{
    uint32_t id = (uint32_t)(uintptr_t)value;
    my_id = 0; /* a destructor after this one that locks takes a new id */
    pthread_mutex_lock(&ids_lock);
    if (free_count == free_capacity) {
        size_t capacity = free_capacity ? 2 * free_capacity : 64;
        uint32_t *grown = realloc(free_ids, capacity * sizeof *grown);
        if (grown == NULL) { /* the id is lost, nothing worse */
            pthread_mutex_unlock(&ids_lock);
            return;
        }
        free_ids = grown;
        free_capacity = capacity;
    }
    free_ids[free_count++] = id;
    pthread_mutex_unlock(&ids_lock);
}

static void create_id_key(void)
{
    if (pthread_key_create(&id_key, return_id) != 0)
        id_key = (pthread_key_t)-1; /* ids are then never returned, only lost */
}

/* A reused id or a new one (with its chunk); 0 when none can be had. */
static uint32_t new_id(void)
{
    uint32_t id = 0;
    pthread_mutex_lock(&ids_lock);
    if (free_count > 0) {
        id = free_ids[--free_count];
    } else if (ids_issued < (uint32_t)NODE_CHUNKS * NODES_PER_CHUNK) {
        size_t chunk = ids_issued / NODES_PER_CHUNK;
        /* relaxed: chunks are written under ids_lock. */
        if (atomic_load_explicit(&node_chunks[chunk], memory_order_relaxed) == NULL) {
            queue_node *nodes = aligned_alloc(MUSTER_CACHE_LINE, NODES_PER_CHUNK * sizeof *nodes);
            if (nodes != NULL) {
                memset(nodes, 0, NODES_PER_CHUNK * sizeof *nodes);
                /* release: pairs with the acquire load in node_at(). */
                atomic_store_explicit(&node_chunks[chunk], nodes, memory_order_release);
            }
        }
        /* relaxed: as above. */
        if (atomic_load_explicit(&node_chunks[chunk], memory_order_relaxed) != NULL) {
            id = ++ids_issued;
            atomic_fetch_add_explicit(&ids_count, 1, memory_order_relaxed); /* relaxed: statistics */
        }
    }
    pthread_mutex_unlock(&ids_lock);
    return id;
}

/* The calling thread's node id; 0 when it has none (out of memory). */
static uint32_t own_id(void)
{
    if (__builtin_expect(my_id != 0, 1))
        return my_id;
    pthread_once(&id_key_once, create_id_key);
    my_id = new_id();
    if (my_id != 0 && id_key != (pthread_key_t)-1)
        pthread_setspecific(id_key, (void *)(uintptr_t)my_id);
    return my_id;
}

/* ---- the contended paths ---- */

/* Threads asleep on any runtime mutex, past the plan's sleeper limit the
 * longer oversubscribed spin stops paying (muster_omp_mutex_contended_polls).
 * Only threads that go to sleep touch the count, and they make a system
 * call anyway; spinners just read it. */
static _Atomic unsigned sleepers;

/* A fork()ed child has only the forking thread: the parent's sleepers do
 * not exist there, and ids_lock may have been held by one of them. */
static void in_forked_child(void)
{
    atomic_store_explicit(&sleepers, 0, memory_order_relaxed); /* relaxed: one thread runs now */
    pthread_mutex_init(&ids_lock, NULL);
}

__attribute__((constructor)) static void register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, in_forked_child);
}

/* How a contended locker waits, decided once per contended lock (one look
 * at the team size, which costs a call and a thread-local lookup). */
typedef struct contention {
    uint64_t polls; /* before sleeping: the plain budget, or the longer
                     * oversubscribed one while fewer threads sleep on
                     * mutexes than the process has spare CPUs (a crowded
                     * process still spins the plain budget: docs/tuning.md,
                     * MUSTER_MUTEX_SPIN_NS); 0 on one CPU or passive */
    bool queue;     /* queue (see contention_now), else wait on the word */
} contention;

/* Whether a contender queues: only while the threads fit the CPUs.  Once
 * they do not (its team outnumbers them, or as many threads sleep on
 * mutexes as there are spare CPUs), or on one CPU or under the passive
 * policy (no spinning), it waits on the word as a futex mutex's waiter
 * does (lock_on_word): a queue hands the lock in order, so each hand-off
 * to a waiter that is not running costs a wake-up while the lock waits,
 * where a waiter on the word lets whoever runs take it (sparselu's
 * dependence table at 8 threads on 2 CPUs: 1.4x slower queued).  Nor in
 * a team of two: one waits at most, and a queue of one buys nothing
 * (docs/tuning.md, "The runtime mutex"). */
static contention contention_now(void)
{
    const muster_mutex_plan *p = spin_plan();
    if (p->spin_polls == 0)
        return (contention){0, false};
    /* relaxed: a heuristic; a stale value costs a shorter or a longer spin. */
    bool crowded = atomic_load_explicit(&sleepers, memory_order_relaxed) >= p->sleeper_limit;
    /* Other processes want the CPUs (wait/load.h): a queued hand-off to a
     * waiter that is not running waits for a wake-up, as when crowded. */
    crowded = crowded || (p->watch_load && muster_load_contended());
    unsigned team = caller_team_size();
    bool outnumbered = team > p->sleeper_limit + 1u;
    return (contention){
        .polls = !crowded && outnumbered ? p->oversubscribed_polls : p->spin_polls,
        .queue = !crowded && !outnumbered && team != 2u,
    };
}

uint64_t muster_omp_mutex_contended_polls(void)
{
    return contention_now().polls;
}

static void sleep_on(_Atomic uint32_t *word, uint32_t expected)
{
    /* relaxed: a statistic and a head count, ordering no memory. */
    atomic_fetch_add_explicit(&sleep_count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&sleepers, 1, memory_order_relaxed);
    /* Returns at once when the word no longer holds `expected`; EINTR and
     * spurious wake-ups return too, and every caller checks again. */
    muster_futex_wait(word, expected, 0);
    atomic_fetch_sub_explicit(&sleepers, 1, memory_order_relaxed);
}

/* A queued waiter behind the head: spins on its own node until its
 * predecessor makes it the head, then sleeps there. */
static void wait_to_be_head(queue_node *node)
{
    uint64_t polls = spin_plan()->spin_polls;
    /* relaxed (all loads of state here): HEAD orders nothing; the lock is
     * taken by the CAS on the word, which acquires. */
    for (uint64_t i = 0; i < polls; i++) {
        if (atomic_load_explicit(&node->state, memory_order_relaxed) == NODE_HEAD)
            return;
        muster_cpu_relax();
    }
    uint32_t expected = NODE_WAITING;
    /* relaxed: the exchange of the promoter (promote_successor) and this CAS
     * are ordered by the state's own modification order; one of the two
     * sees the other, so either this CAS fails or the promoter wakes us. */
    if (!atomic_compare_exchange_strong_explicit(&node->state, &expected, NODE_PARKED, memory_order_relaxed,
                                                 memory_order_relaxed))
        return;
    while (atomic_load_explicit(&node->state, memory_order_relaxed) != NODE_HEAD)
        sleep_on(&node->state, NODE_PARKED);
}

/* Sleeps on the word, announced by SLEEPERS, until it is seen unlocked;
 * returns that word, and sets *slept if it slept (a queue's head counts
 * its first sleep in the statistics).  A thread that slept here takes the
 * lock with SLEEPERS set again (other sleepers may remain: the unlock that
 * woke it cleared the bit). */
static uint32_t sleep_until_unlocked(muster_omp_mutex *mutex, uint32_t word, bool *slept, bool head)
{
    while (word & MUSTER_OMP_MUTEX_LOCKED) {
        uint32_t asleep = word | MUSTER_OMP_MUTEX_SLEEPERS;
        /* relaxed (the CAS and the load): the word's modification order
         * alone decides whether the unlock saw the bit (and wakes) or
         * futex_wait sees the change; the CAS that takes the lock acquires. */
        if (word == asleep ||
            atomic_compare_exchange_weak_explicit(mutex, &word, asleep, memory_order_relaxed, memory_order_relaxed)) {
            if (head && !*slept) /* relaxed: statistics */
                atomic_fetch_add_explicit(&head_sleep_count, 1, memory_order_relaxed);
            *slept = true;
            sleep_on(mutex, asleep);
            word = atomic_load_explicit(mutex, memory_order_relaxed);
        }
    }
    return word;
}

/* The head's wait for the word: spin, then sleep on it.  Returns the word
 * seen unlocked; *slept tells whether it slept. */
static uint32_t wait_for_unlocked(muster_omp_mutex *mutex, uint32_t word, uint64_t polls, bool *slept)
{
    /* relaxed (every load here): the CAS that takes the lock acquires. */
    for (uint64_t i = 0; i < polls && (word & MUSTER_OMP_MUTEX_LOCKED); i++) {
        muster_cpu_relax();
        word = atomic_load_explicit(mutex, memory_order_relaxed);
    }
    if (word & MUSTER_OMP_MUTEX_LOCKED)
        word = sleep_until_unlocked(mutex, word, slept, true);
    return word;
}

/* Once the new holder was the head with others queued behind it: its
 * successor becomes the head.  The successor swapped itself in as the
 * tail and links itself right after; in that window it may have been
 * preempted, so after a short spin we yield to let it run. */
static void promote_successor(queue_node *node)
{
    uint32_t next;
    /* acquire: pairs with the release store of the link in lock_queued(): the successor's node
     * was made ready (state WAITING) before it linked itself; our exchange below must follow. */
    for (unsigned i = 0; (next = atomic_load_explicit(&node->next, memory_order_acquire)) == 0; i++) {
        if (i < 1000)
            muster_cpu_relax();
        else
            sched_yield();
    }
    queue_node *successor = node_at(next);
    /* relaxed: see wait_to_be_head. */
    if (atomic_exchange_explicit(&successor->state, NODE_HEAD, memory_order_relaxed) == NODE_PARKED) {
        atomic_fetch_add_explicit(&wake_count, 1, memory_order_relaxed); /* relaxed: statistics */
        muster_futex_wake(&successor->state, 1);
    }
}

/* What a waiter writes to take the lock from `word` (unlocked): LOCKED,
 * the tail unless it empties the queue, and SLEEPERS as it was, or set if
 * the taker slept on the word. */
static uint32_t taken_word(uint32_t word, bool empties_queue, bool slept)
{
    uint32_t kept = empties_queue ? word & MUSTER_OMP_MUTEX_SLEEPERS : word;
    return kept | MUSTER_OMP_MUTEX_LOCKED | (slept ? MUSTER_OMP_MUTEX_SLEEPERS : 0u);
}

/* The head takes the lock when it is free: alone in the queue, it empties
 * the queue; else it keeps the tail and passes the head's place on.
 * SLEEPERS stays as it is (threads waiting on the word may sleep), and is
 * set if the head slept. */
static void take_as_head(muster_omp_mutex *mutex, queue_node *node, uint32_t id, uint64_t polls)
{
    /* relaxed: wait_for_unlocked's loads are hints; the CAS acquires. */
    uint32_t word = atomic_load_explicit(mutex, memory_order_relaxed);
    bool slept = false, alone;
    do {
        word = wait_for_unlocked(mutex, word, polls, &slept);
        alone = (word >> MUSTER_OMP_MUTEX_TAIL_SHIFT) == id;
        /* acquire: as in trylock (pairs with the previous holder's release in unlock): the
         * critical section sees the previous holder's writes; relaxed on failure: the loop reads again. */
    } while (!atomic_compare_exchange_weak_explicit(mutex, &word, taken_word(word, alone, slept), memory_order_acquire,
                                                    memory_order_relaxed));
    if (!alone)
        promote_successor(node);
}

/* The wait of a contender that does not queue (contention_now): the futex
 * mutex's (Drepper's "mutex 3", with SLEEPERS for its CONTENDED state):
 * spin on the word, taking it when free, until the budget is spent or
 * SLEEPERS says others sleep (it is busy for a while: queue behind them);
 * then sleep on it. */
static void lock_on_word(muster_omp_mutex *mutex, uint64_t polls)
{
    /* Held, as the failed fast path just saw: the first poll comes after a
     * relax, not at once (see docs/tuning.md, "The runtime mutex"). */
    uint32_t word = MUSTER_OMP_MUTEX_LOCKED;
    bool polled = false, slept = false;
    for (uint64_t i = 0;;) {
        if (!(word & MUSTER_OMP_MUTEX_LOCKED)) {
            /* acquire: as in trylock; relaxed on failure: the loop reads again. */
            if (atomic_compare_exchange_weak_explicit(mutex, &word, taken_word(word, false, slept),
                                                      memory_order_acquire, memory_order_relaxed))
                return;
            continue;
        }
        if (!polled && i < polls && !(word & MUSTER_OMP_MUTEX_SLEEPERS)) {
            i++;
            muster_cpu_relax();
            /* relaxed: a poll; the CAS above acquires. */
            word = atomic_load_explicit(mutex, memory_order_relaxed);
            continue;
        }
        polled = true;
        word = sleep_until_unlocked(mutex, word, &slept, false);
    }
}

/* Before queueing: while the holder is alone (no tail), a contender
 * polls the word and takes the lock when it is free, as a plain spinlock
 * would; so two threads trading the lock never queue.  It stops at once
 * when a queue forms, and after MUSTER_MUTEX_BARGE_NS; then it queues.
 * Returns the word last seen, LOCKED clear when the lock was taken. */
static uint32_t spin_while_nobody_queues(muster_omp_mutex *mutex)
{
    /* relaxed (the loads): the CAS acquires. */
    uint32_t word = atomic_load_explicit(mutex, memory_order_relaxed);
    uint64_t polls = spin_plan()->barge_polls;
    for (uint64_t i = 0;; i++) {
        if (!(word & MUSTER_OMP_MUTEX_LOCKED)) {
            /* acquire: as in trylock; relaxed on failure: the loop reads again. */
            if (atomic_compare_exchange_weak_explicit(mutex, &word, word | MUSTER_OMP_MUTEX_LOCKED,
                                                      memory_order_acquire, memory_order_relaxed))
                return word;
            continue;
        }
        if ((word >> MUSTER_OMP_MUTEX_TAIL_SHIFT) != 0 || i >= polls)
            return word;
        muster_cpu_relax();
        /* relaxed: a poll, as above; the CAS acquires. */
        word = atomic_load_explicit(mutex, memory_order_relaxed);
    }
}

/* Swaps the calling thread's node in as the queue's tail, unless the lock
 * is free (then takes it: true).  *predecessor: the node before it, 0 when
 * it is the head at once. */
static bool queue_or_take(muster_omp_mutex *mutex, uint32_t word, uint32_t id, uint32_t *predecessor)
{
    for (;;) {
        if (!(word & MUSTER_OMP_MUTEX_LOCKED)) {
            /* acquire: as in trylock; relaxed on failure: the loop reads again. */
            if (atomic_compare_exchange_weak_explicit(mutex, &word, word | MUSTER_OMP_MUTEX_LOCKED,
                                                      memory_order_acquire, memory_order_relaxed))
                return true; /* free at this moment: barge in */
            continue;
        }
        uint32_t queued = (word & (MUSTER_OMP_MUTEX_LOCKED | MUSTER_OMP_MUTEX_SLEEPERS)) |
                          (id << MUSTER_OMP_MUTEX_TAIL_SHIFT);
        /* acq_rel: pairs with the other queuers' tail CASes here: releases our node's reset to
         * whoever queues behind us (its CAS reads our id), and acquires the predecessor's reset of
         * its own node (from its CAS) before we link into it.  Relaxed on failure: nothing was
         * published, and the loop retries. */
        if (atomic_compare_exchange_weak_explicit(mutex, &word, queued, memory_order_acq_rel, memory_order_relaxed)) {
            *predecessor = word >> MUSTER_OMP_MUTEX_TAIL_SHIFT;
            return false;
        }
    }
}

/* The queue's way (mutex.h), out of line: the word's way, all that two
 * threads trading a lock use, stays a short call. */
__attribute__((noinline)) static void lock_queued(muster_omp_mutex *mutex, contention how)
{
    uint32_t word = spin_while_nobody_queues(mutex);
    if (!(word & MUSTER_OMP_MUTEX_LOCKED))
        return; /* taken */
    uint32_t id = own_id();
    if (id == 0) { /* no node: out of memory */
        lock_on_word(mutex, how.polls);
        return;
    }
    queue_node *node = node_at(id);
    /* relaxed: published by the tail CAS (acq_rel) to the successor, and by
     * the link store to the predecessor. */
    atomic_store_explicit(&node->next, 0, memory_order_relaxed);
    atomic_store_explicit(&node->state, NODE_WAITING, memory_order_relaxed);
    uint32_t predecessor;
    if (queue_or_take(mutex, word, id, &predecessor))
        return;
    if (predecessor != 0) {
        /* release: pairs with the acquire load of next in promote_successor(): our node's reset
         * happens before the predecessor's exchange of our state. */
        atomic_store_explicit(&node_at(predecessor)->next, id, memory_order_release);
        wait_to_be_head(node);
    }
    take_as_head(mutex, node, id, how.polls);
}

void muster_omp_mutex_lock_slow(muster_omp_mutex *mutex)
{
    contention how = contention_now();
    if (how.queue)
        lock_queued(mutex, how);
    else
        lock_on_word(mutex, how.polls);
}

void muster_omp_mutex_unlock_slow(muster_omp_mutex *mutex, uint32_t word)
{
    if (!(word & MUSTER_OMP_MUTEX_LOCKED))
        return; /* not held: unlocking it is a no-op (as an exchange to 0 was) */
    /* The holder alone clears LOCKED, so it is still set: subtracting it
     * cannot borrow, whatever queued meanwhile.  release: pairs with the next holder's acquire
     * CAS (muster_omp_mutex_lock(), take_as_head() and the others), publishing the critical
     * section's writes. */
    word = atomic_fetch_sub_explicit(mutex, MUSTER_OMP_MUTEX_LOCKED, memory_order_release);
    if (word & MUSTER_OMP_MUTEX_SLEEPERS) {
        /* relaxed: the word's modification order decides, as in
         * sleep_until_unlocked: cleared, then woken, a sleeper either wakes
         * or finds the word changed; one that set the bit again meanwhile
         * is woken for nothing and sleeps again. */
        atomic_fetch_and_explicit(mutex, ~(uint32_t)MUSTER_OMP_MUTEX_SLEEPERS, memory_order_relaxed);
        /* relaxed: statistics. */
        atomic_fetch_add_explicit(&wake_count, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&word_wake_count, 1, memory_order_relaxed);
        muster_futex_wake(mutex, 1);
    }
}
