/* The loop machinery in index space that every worksharing loop of both
 * ABIs runs on: schedules (static, dynamic, guided; ordered chunks passing
 * a turn), opening, stepping and closing a loop's work share, doacross
 * progress streams, and combined parallel loops.  gcc's entry points are in
 * gomp/loop.c and gomp/loop_ull.c, LLVM's in kmp/loop.c. */
#include <stdlib.h>

#include "omp/task/task.h"
#include "omp/workshare.h"
#include "omp/warn.h"

/* ---- schedules ---- */

void muster_ws_resolve_schedule(muster_omp_thread *self, unsigned *sched, uint64_t *chunk)
{
    unsigned kind = *sched & ~MUSTER_OMP_SCHED_MONOTONIC;
    if (kind == MUSTER_WS_SCHED_RUNTIME || kind == MUSTER_OMP_SCHED_AUTO) {
        kind = self->icvs.run_sched & ~MUSTER_OMP_SCHED_MONOTONIC;
        long icv_chunk = self->icvs.run_sched_chunk;
        *chunk = icv_chunk > 0 ? (uint64_t)icv_chunk : 0u;
        if (kind == MUSTER_OMP_SCHED_AUTO) { /* auto: our choice is static */
            kind = MUSTER_OMP_SCHED_STATIC;
            *chunk = 0;
        }
    }
    if (kind != MUSTER_OMP_SCHED_DYNAMIC && kind != MUSTER_OMP_SCHED_GUIDED)
        kind = MUSTER_OMP_SCHED_STATIC;
    else if (*chunk == 0)
        *chunk = 1; /* the default chunk of dynamic and guided */
    *sched = kind;
}

/* The ordered turn's ring of sleepers, at least nthreads entries (a power
 * of two), all NULL: every sleeper clears its entry before it leaves.  No
 * memory: no ring, and the members sleep on the turn itself (woken all at
 * once, as before the ring). */
static void size_turn_ring(muster_ws_slot *slot, uint32_t nthreads)
{
    if (slot->turn_ring_size >= nthreads)
        return;
    uint32_t size = 1;
    while (size < nthreads)
        size *= 2;
    free((void *)slot->turn_ring);
    slot->turn_ring = calloc(size, sizeof *slot->turn_ring);
    slot->turn_ring_size = slot->turn_ring != NULL ? size : 0;
}

void muster_ws_slot_init_loop(muster_ws_slot *slot, const muster_ws_loop *proto)
{
    slot->loop = *proto;
    slot->loop.doacross = false;
    /* relaxed, all: nobody uses this lap of the slot before `ready` (release)
     * publishes it, and the previous lap's users have all left. */
    atomic_store_explicit(&slot->next, 0, memory_order_relaxed);
    if (!proto->ordered)
        return; /* the ordered line stays where it is */
    slot->chunks_issued = 0;
    size_turn_ring(slot, proto->nthreads);
    /* relaxed (all three): as above, `ready` publishes them. */
    atomic_store_explicit(&slot->ordered_turn, 0, memory_order_relaxed);
    atomic_store_explicit(&slot->lock_next, 0, memory_order_relaxed);
    atomic_store_explicit(&slot->lock_serving, 0, memory_order_relaxed);
}

/* Computed once per loop: dynamic_next compares against it per chunk. */
static uint64_t chunk_count(const muster_ws_loop *l)
{
    return l->n == 0 || l->chunk == 0 ? 0 : (l->n - 1u) / l->chunk + 1u;
}

void muster_ws_static_block(uint64_t n, unsigned nthreads, unsigned id, uint64_t *first, uint64_t *last)
{
    uint64_t T = nthreads, q = n / T, r = n % T;
    *first = id < r ? id * (q + 1u) : r * (q + 1u) + (id - r) * q;
    *last = *first + q + (id < r ? 1u : 0u);
}

static void static_block(const muster_ws_loop *l, unsigned id, uint64_t *first, uint64_t *last)
{
    muster_ws_static_block(l->n, l->nthreads, id, first, last);
}

/* Static: computed from the loop and the thread number alone. */
static bool static_next(muster_omp_thread *self, muster_ws_member *m, uint64_t *first, uint64_t *last,
                        uint64_t *seq)
{
    const muster_ws_loop *l = m->loop;
    unsigned id = muster_ws_thread_id(self);
    if (l->chunk == 0) {
        if (m->trip++ > 0)
            return false;
        static_block(l, id, first, last);
        *seq = id;
        return *first < *last;
    }
    uint64_t k = m->trip * l->nthreads + id;
    if (k >= l->nchunks)
        return false;
    m->trip++;
    *first = k * l->chunk;
    *last = l->n - *first > l->chunk ? *first + l->chunk : l->n;
    *seq = k;
    return true;
}

/* Dynamic: one fetch-add per chunk. */
static bool dynamic_next(muster_ws_member *m, uint64_t *first, uint64_t *last, uint64_t *seq)
{
    const muster_ws_loop *l = m->loop;
    /* relaxed: atomicity alone makes the chunks disjoint; the loop bounds
     * were published by the slot's `ready`. */
    uint64_t k = atomic_fetch_add_explicit(&m->slot->next, 1, memory_order_relaxed);
    if (k >= l->nchunks)
        return false;
    *first = k * l->chunk;
    *last = l->n - *first > l->chunk ? *first + l->chunk : l->n;
    *seq = k;
    return true;
}

/* Guided: the remaining iterations over the team, at least chunk. */
static uint64_t guided_size(const muster_ws_loop *l, uint64_t first)
{
    uint64_t remaining = l->n - first;
    uint64_t size = remaining / l->nthreads + (remaining % l->nthreads != 0);
    if (size < l->chunk)
        size = l->chunk;
    if (l->simd && size % l->chunk != 0)
        size += l->chunk - size % l->chunk;
    return size < remaining ? size : remaining;
}

static bool guided_next(muster_ws_member *m, uint64_t *first, uint64_t *last)
{
    const muster_ws_loop *l = m->loop;
    /* relaxed: as in dynamic_next. */
    uint64_t a = atomic_load_explicit(&m->slot->next, memory_order_relaxed);
    uint64_t size;
    do {
        if (a >= l->n)
            return false;
        size = guided_size(l, a);
        /* relaxed: the CAS's atomicity alone keeps chunks disjoint. */
    } while (!atomic_compare_exchange_weak_explicit(&m->slot->next, &a, a + size, memory_order_relaxed,
                                                    memory_order_relaxed));
    *first = a;
    *last = a + size;
    return true;
}

/* Guided and ordered: a chunk's turn is its place in the order chunks were
 * handed out, which the CAS above cannot tell; a ticket lock hands out the
 * chunk and its number together.  Ordered loops serialise anyway. */
static bool guided_ordered_next(muster_omp_thread *self, muster_ws_member *m, uint64_t *first, uint64_t *last,
                                uint64_t *seq)
{
    muster_ws_slot *slot = m->slot;
    const muster_ws_loop *l = m->loop;
    /* relaxed: the ticket only orders the waiters; lock_serving carries the data. */
    uint32_t ticket = atomic_fetch_add_explicit(&slot->lock_next, 1, memory_order_relaxed) & MUSTER_FLAG_VALUE_MASK;
    muster_wait_reach(&slot->lock_serving, ticket, muster_ws_waiter(self));
    /* relaxed: under the lock, whose acquire/release orders these. */
    uint64_t a = atomic_load_explicit(&slot->next, memory_order_relaxed);
    bool got = a < l->n;
    if (got) {
        uint64_t size = guided_size(l, a);
        /* relaxed: the next holder reads it after lock_serving's release. */
        atomic_store_explicit(&slot->next, a + size, memory_order_relaxed);
        *first = a;
        *last = a + size;
        *seq = slot->chunks_issued++;
    }
    muster_flag_publish(&slot->lock_serving, muster_episode_next(ticket), muster_ws_may_sleep(self));
    return got;
}

/* ---- ordered: the turn passes from chunk to chunk in iteration order ---- */

/* How a member waits for its turn.  It polls the turn as its team's
 * waiter does (spin, then share the CPU), and where that waiter would
 * sleep it sleeps on a doorbell of its own instead, registered in the
 * slot's ring under its chunk's number: the member that passes the turn
 * to chunk S rings the bells of S and S + 1 alone (the second ahead, so
 * that its wake-up overlaps S's region).  Asleep on the turn itself, every
 * waiter was woken at each pass, to find it was not its turn: with 32
 * threads on 16 cores, 15 us a pass (libomp 0.56); ringing S alone made
 * each pass wait for a wake-up (docs/tuning.md, "ORDERED"). */
static const muster_waiter bell_waiter = {.policy = MUSTER_WAIT_PASSIVE};

static void sleep_for_turn(muster_ws_slot *slot, muster_ws_member *m, uint32_t target)
{
    _Atomic(muster_ws_member *) *entry = &slot->turn_ring[m->seq & (slot->turn_ring_size - 1u)];
    /* relaxed: published by the seq_cst registration below. */
    atomic_store_explicit(&m->turn_asleep_for, m->seq, memory_order_relaxed);
    /* seq_cst, the count, the entry and the turn's load: a Dekker handshake
     * with pass_turn's exchange and ring_for_turn's loads; either it sees
     * us here, or we see the turn passed. */
    atomic_fetch_add(&slot->turn_sleepers, 1);
    atomic_store(entry, m);
    for (;;) {
        /* acquire: pairs with the release CAS of muster_flag_bump() in ring_for_turn(); it keeps
         * the turn's load below after this one, so a ring we miss here was for a turn we see passed. */
        uint32_t bell = atomic_load_explicit(&m->turn_bell, memory_order_acquire) & MUSTER_FLAG_VALUE_MASK;
        if (muster_flag_reached(atomic_load(&slot->ordered_turn), target))
            break;
        muster_wait_reach(&m->turn_bell, muster_episode_next(bell), &bell_waiter);
    }
    /* relaxed, the three: a ringer that read us before this only rings a
     * bell nobody waits on, or skips the ring. */
    atomic_store_explicit(&m->turn_asleep_for, UINT64_MAX, memory_order_relaxed);
    atomic_store_explicit(entry, NULL, memory_order_relaxed);
    atomic_fetch_sub_explicit(&slot->turn_sleepers, 1, memory_order_relaxed);
}

static void wait_for_turn(muster_omp_thread *self, muster_ws_member *m)
{
    muster_ws_slot *slot = m->slot;
    uint32_t target = (uint32_t)m->seq & MUSTER_FLAG_VALUE_MASK;
    const muster_waiter *waiter = muster_ws_waiter(self);
    /* acquire: pairs with pass_turn()'s publish of ordered_turn (muster_flag_publish() or the
     * seq_cst exchange), as muster_wait_reach's fast path, taken here before the waiter's copy below. */
    if (muster_flag_reached(atomic_load_explicit(&slot->ordered_turn, memory_order_acquire), target)) {
        m->turn_reached = true;
        return;
    }
    if (slot->turn_ring == NULL || !muster_ws_may_sleep(self)) {
        muster_wait_reach(&slot->ordered_turn, target, waiter);
    } else {
        muster_waiter until_sleep = *waiter;
        until_sleep.stop_before_sleep = true;
        if (muster_wait_reach(&slot->ordered_turn, target, &until_sleep) == MUSTER_WAIT_WOULD_SLEEP)
            sleep_for_turn(slot, m, target);
    }
    m->turn_reached = true;
}

/* Rings the doorbell of the member asleep for chunk seq's turn, if any. */
static void ring_for_turn(muster_ws_slot *slot, uint64_t seq)
{
    muster_ws_member *sleeper = atomic_load(&slot->turn_ring[seq & (slot->turn_ring_size - 1u)]);
    /* relaxed: the entry's seq_cst load ordered it; a stale member shows
     * another number. */
    if (sleeper != NULL && atomic_load_explicit(&sleeper->turn_asleep_for, memory_order_relaxed) == seq)
        muster_flag_bump(&sleeper->turn_bell);
}

/* After the turn passed to chunk seq: the bells of seq and of seq + 1
 * (ahead: awake by its turn), when anybody sleeps for a turn. */
static void ring_for_turns(muster_ws_slot *slot, uint64_t seq)
{
    /* seq_cst, after the turn's seq_cst exchange: see sleep_for_turn. */
    if (atomic_load(&slot->turn_sleepers) == 0)
        return;
    ring_for_turn(slot, seq);
    ring_for_turn(slot, seq + 1u);
}

/* A chunk passes the turn on when its thread is done with it, whether or not
 * it ran an ordered region: after its predecessors did. */
static void pass_turn(muster_omp_thread *self, muster_ws_member *m)
{
    if (!m->turn_reached)
        wait_for_turn(self, m);
    uint32_t next = muster_episode_next((uint32_t)m->seq & MUSTER_FLAG_VALUE_MASK);
    if (muster_ws_may_sleep(self) && m->slot->turn_ring != NULL) {
        muster_flag_publish_seq_cst(&m->slot->ordered_turn, next); /* see sleep_for_turn */
        ring_for_turns(m->slot, m->seq + 1u);
    } else {
        muster_flag_publish(&m->slot->ordered_turn, next, muster_ws_may_sleep(self));
    }
    m->holds_turn = false;
}

/* What a tool is told an ordered region waits on: the loop's slot (the
 * thread, outside a loop). */
static const void *ordered_wait_id(muster_omp_thread *self, const muster_ws_member *m)
{
    return m != NULL && m->slot != NULL ? (const void *)m->slot : (const void *)self;
}

void muster_ws_ordered_start(muster_omp_thread *self)
{
    muster_ws_member *m = muster_ws_member_current(self);
    bool told = muster_ompt_on();
    const void *ra = told ? muster_ompt_take_caller() : NULL;
    if (told)
        muster_ompt_mutex_acquire(MUSTER_OMPT_MUTEX_ORDERED, ordered_wait_id(self, m), ra);
    if (m != NULL && m->loop != NULL && m->holds_turn && !m->turn_reached)
        wait_for_turn(self, m);
    if (told)
        muster_ompt_mutex_acquired(MUSTER_OMPT_MUTEX_ORDERED, ordered_wait_id(self, m), ra);
}

/* The turn passes when the chunk ends (pass_turn): the region's end is
 * only the tool's. */
void muster_ws_ordered_end(muster_omp_thread *self)
{
    if (muster_ompt_on())
        muster_ompt_mutex_released(MUSTER_OMPT_MUTEX_ORDERED, ordered_wait_id(self, muster_ws_member_current(self)),
                                   muster_ompt_take_caller());
}


/* ---- opening, stepping, closing ---- */

static bool needs_slot(const muster_ws_loop *l, const muster_ws_loop_extras *extras)
{
    if (l->sched != MUSTER_OMP_SCHED_STATIC || l->ordered)
        return true;
    return extras != NULL && (extras->mem != NULL || extras->ncounts != 0 || extras->reductions != NULL);
}

static void init_doacross(muster_ws_slot *slot, const muster_ws_loop_extras *extras)
{
    uint64_t product = 1;
    for (unsigned d = 0; d < extras->ncounts; d++) {
        if (extras->counts[d] == 0)
            return; /* no iterations: nobody posts or waits */
        if (__builtin_mul_overflow(product, extras->counts[d], &product))
            muster_omp_fatal("doacross loop nest with more than 2^64 iterations is not supported");
    }
    muster_ws_doacross *d = muster_ws_slot_doacross(slot, extras->ncounts, slot->loop.nthreads);
    if (d == NULL)
        muster_omp_fatal("out of memory for a doacross loop");
    for (unsigned i = 0; i < extras->ncounts; i++)
        d->counts[i] = extras->counts[i];
    slot->doacross = d;
    slot->loop.doacross = true;
}

static void init_slot(muster_ws_slot *slot, const muster_ws_loop *proto, const muster_ws_loop_extras *extras)
{
    muster_ws_slot_init_loop(slot, proto);
    if (extras == NULL)
        return;
    if (extras->mem != NULL && muster_ws_slot_memory(slot, (size_t)(uintptr_t)*extras->mem) == NULL)
        muster_omp_fatal("out of memory for a work share");
    /* A team of one has nobody to wait for: post and wait do nothing. */
    if (extras->ncounts != 0 && proto->nthreads > 1)
        init_doacross(slot, extras);
}

/* A tool's work event for the loop (or sections) the member begins. */
static __attribute__((noinline)) void tell_work_begin(muster_ws_member *m, const muster_ws_loop *proto,
                                                      const muster_ws_loop_extras *extras)
{
    int work = extras != NULL ? extras->ompt_work : 0;
    if (work < 0)
        return;
    m->ompt_work_told = true;
    muster_ompt_work_begin(work != 0 ? work : MUSTER_OMPT_WORK_LOOP, proto->n);
}

void muster_ws_loop_open(muster_omp_thread *self, muster_ws_loop proto, const muster_ws_loop_extras *extras)
{
    proto.nthreads = muster_ws_team_size(self);
    proto.nchunks = chunk_count(&proto);
    void *reductions = extras != NULL ? extras->reductions : NULL;
    /* Task reductions bind to a taskgroup around the construct; every
     * member registers its descriptor, sharing the opening member's blocks
     * (as libgomp's loop.c runs it). */
    if (reductions != NULL)
        muster_omp_workshare_taskgroup_start();
    muster_ws_member *m = muster_ws_member_begin(self);
    m->trip = 0;
    m->holds_turn = false;
    m->ompt_work_told = false;
    if (muster_ompt_on())
        tell_work_begin(m, &proto, extras);
    if (!needs_slot(&proto, extras)) {
        self->ws_sequence++;
        m->slot = NULL;
        m->private_loop = proto;
        m->loop = &m->private_loop;
        if (reductions != NULL)
            extras->register_reductions(reductions, NULL);
        return;
    }
    if (muster_ws_enter(self, m)) {
        init_slot(m->slot, &proto, extras);
        if (reductions != NULL)
            extras->register_reductions(reductions, NULL);
        m->slot->task_reductions = reductions;
        muster_ws_publish(self, m);
    } else if (reductions != NULL) {
        extras->register_reductions(reductions, m->slot->task_reductions);
    }
    m->loop = &m->slot->loop;
    if (extras != NULL && extras->mem != NULL)
        *extras->mem = m->slot->mem;
}

const muster_ws_loop *muster_ws_loop_current(muster_omp_thread *self)
{
    muster_ws_member *m = muster_ws_member_current(self);
    return m != NULL ? m->loop : NULL;
}

bool muster_ws_loop_next(muster_omp_thread *self, uint64_t *first, uint64_t *last)
{
    muster_ws_member *m = muster_ws_member_current(self);
    if (m == NULL || m->loop == NULL) {
        /* First call of a combined construct's member: join its loop. */
        m = muster_ws_join_opened(self);
        if (m == NULL)
            return false;
        m->trip = 0;
        m->holds_turn = false;
        m->loop = &m->slot->loop;
    }
    const muster_ws_loop *l = m->loop;
    if (m->holds_turn)
        pass_turn(self, m);
    uint64_t seq = 0;
    bool got;
    switch (l->sched) {
    case MUSTER_OMP_SCHED_DYNAMIC:
        got = dynamic_next(m, first, last, &seq);
        break;
    case MUSTER_OMP_SCHED_GUIDED:
        got = l->ordered ? guided_ordered_next(self, m, first, last, &seq) : guided_next(m, first, last);
        break;
    default:
        got = static_next(self, m, first, last, &seq);
        break;
    }
    if (got && l->ordered) {
        m->seq = seq;
        m->holds_turn = true;
        m->turn_reached = false;
    }
    return got;
}

void muster_ws_loop_close(muster_omp_thread *self, bool barrier)
{
    muster_ws_member *m = muster_ws_member_current(self);
    bool owed = false; /* the tool's work end, told before the barrier */
    if (m != NULL && m->loop != NULL) {
        owed = m->ompt_work_told;
        m->ompt_work_told = false;
        if (m->holds_turn)
            pass_turn(self, m);
        muster_ws_leave(self, m);
    }
    if (owed)
        muster_ompt_work_end();
    if (barrier)
        muster_omp_team_barrier(self);
}

bool muster_ws_loop_close_cancellable(muster_omp_thread *self)
{
    if (!muster_omp_cancellation) {
        muster_ws_loop_close(self, true);
        return false;
    }
    muster_ws_loop_close(self, false);
    return muster_omp_cancel_barrier_wait(self);
}

/* ---- doacross: static schedule, one progress stream per thread ----
 *
 * Whatever schedule the clause names, a doacross loop runs a static one
 * (with the clause's chunk): a thread runs its iterations in lexicographic
 * order, so "iteration v is done" is "the stream of v's owner has posted v
 * or later", one word per thread.  Any schedule is a valid execution of the
 * loop; the dependences are what make progress, not the schedule. */

static unsigned static_owner(const muster_ws_loop *l, uint64_t i)
{
    uint64_t T = l->nthreads;
    if (l->chunk != 0)
        return (unsigned)((i / l->chunk) % T);
    uint64_t q = l->n / T, r = l->n % T, boundary = r * (q + 1u);
    return (unsigned)(i < boundary ? i / (q + 1u) : r + (i - boundary) / q);
}

static uint64_t flatten(const muster_ws_doacross *d, const uint64_t *iter)
{
    uint64_t f = iter[0];
    for (unsigned k = 1; k < d->ncounts; k++)
        f = f * d->counts[k] + iter[k];
    return f;
}

static muster_ws_doacross *current_doacross(muster_omp_thread *self, muster_ws_member **out)
{
    muster_ws_member *m = muster_ws_member_current(self);
    *out = m;
    if (m == NULL || m->loop == NULL || !m->loop->doacross)
        return NULL;
    return m->slot->doacross;
}

unsigned muster_ws_doacross_dimensions(muster_omp_thread *self)
{
    muster_ws_member *m;
    muster_ws_doacross *d = current_doacross(self, &m);
    return d != NULL ? d->ncounts : 0;
}

void muster_ws_doacross_post(muster_omp_thread *self, const uint64_t *iter)
{
    muster_ws_member *m;
    muster_ws_doacross *d = current_doacross(self, &m);
    if (d == NULL)
        return;
    muster_ws_stream *s = &d->streams[muster_ws_thread_id(self)];
    /* release: pairs with the acquire load of progress in muster_ws_doacross_wait(): the
     * iteration's writes are seen by whoever sees the progress. */
    atomic_store_explicit(&s->progress, flatten(d, iter) + 1u, memory_order_release);
    /* relaxed: this thread is the only one that moves the counter. */
    uint32_t posts = atomic_load_explicit(&s->posts, memory_order_relaxed) & MUSTER_FLAG_VALUE_MASK;
    muster_flag_publish(&s->posts, muster_episode_next(posts), muster_ws_may_sleep(self));
}

void muster_ws_doacross_wait(muster_omp_thread *self, const uint64_t *iter)
{
    muster_ws_member *m;
    muster_ws_doacross *d = current_doacross(self, &m);
    if (d == NULL)
        return;
    /* Outside the iteration space there is nothing to wait for (gcc guards
     * its sinks, but a negative offset must never index a stream). */
    for (unsigned k = 0; k < d->ncounts; k++)
        if (iter[k] >= d->counts[k])
            return;
    unsigned owner = static_owner(m->loop, iter[0]);
    /* Our own earlier iterations are done: we run them in order. */
    if (owner == muster_ws_thread_id(self))
        return;
    muster_ws_stream *s = &d->streams[owner];
    uint64_t target = flatten(d, iter);
    for (;;) {
        /* acquire, both: the posts load pairs with the release in muster_flag_publish() of
         * muster_ws_doacross_post(), and is read first, so a post we miss in the progress word is
         * one whose flag change we then wait for; the progress load pairs with that function's
         * release store of progress. */
        uint32_t posts = atomic_load_explicit(&s->posts, memory_order_acquire) & MUSTER_FLAG_VALUE_MASK;
        if (atomic_load_explicit(&s->progress, memory_order_acquire) > target)
            return;
        muster_wait_reach(&s->posts, muster_episode_next(posts), muster_ws_waiter(self));
    }
}

/* ---- combined parallel loops ---- */

static void open_team_loop(muster_omp_team *team, void *arg)
{
    muster_ws_loop proto = *(const muster_ws_loop *)arg;
    proto.nthreads = team->size;
    proto.nchunks = chunk_count(&proto);
    muster_ws_slot *slot = muster_ws_open_for_team(team);
    muster_ws_slot_init_loop(slot, &proto);
    muster_ws_open_done(team, slot);
}

void muster_ws_parallel_loop(void (*fn)(void *), void *data, unsigned num_threads, unsigned proc_bind,
                             const muster_ws_loop *proto, bool split)
{
    if (split)
        muster_omp_parallel_start(fn, data, num_threads, proc_bind, open_team_loop, (void *)proto);
    else
        muster_omp_parallel(fn, data, num_threads, proc_bind, open_team_loop, (void *)proto);
}
