/* GOMP_loop_* for long iteration variables, GOMP_parallel_loop_*, ordered,
 * doacross; and the loop machinery in index space that loop_ull.c shares.
 *
 * What gcc 12 expects (libgomp's ABI):
 *  - *_start(start, end, incr, chunk, &istart, &iend) opens the work share
 *    and returns the caller's first chunk; *_next returns the following ones.
 *    A chunk runs values istart, istart + incr, ... while before iend (< for
 *    incr > 0, > for incr < 0); the chunk holding the last iteration has
 *    iend == end exactly, which lastprivate relies on.
 *  - Every *_next entry point serves every schedule: the combined forms open
 *    the loop before the team starts, and doacross loops pair
 *    GOMP_loop_doacross_dynamic_start with GOMP_loop_dynamic_next.
 *  - GOMP_loop_start's sched is 0 (runtime), 1 static, 2 dynamic, 3 guided or
 *    4 (runtime, nonmonotonic), maybe | 0x80000000 (monotonic); istart NULL
 *    asks only for the work share (task reductions); *mem, when mem is not
 *    NULL, is a size in bytes on entry and team-shared zeroed memory on exit.
 * Every schedule here is monotonic, which satisfies both modifiers. */
#include <stdarg.h>
#include <stdlib.h>

#include "omp/task.h"
#include "omp/workshare.h"

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

static void wait_for_turn(muster_omp_thread *self, muster_ws_member *m)
{
    uint32_t target = (uint32_t)m->seq & MUSTER_FLAG_VALUE_MASK;
    muster_wait_reach(&m->slot->ordered_turn, target, muster_ws_waiter(self));
    m->turn_reached = true;
}

/* A chunk passes the turn on when its thread is done with it, whether or not
 * it ran an ordered region: after its predecessors did. */
static void pass_turn(muster_omp_thread *self, muster_ws_member *m)
{
    if (!m->turn_reached)
        wait_for_turn(self, m);
    uint32_t next = muster_episode_next((uint32_t)m->seq & MUSTER_FLAG_VALUE_MASK);
    muster_flag_publish(&m->slot->ordered_turn, next, muster_ws_may_sleep(self));
    m->holds_turn = false;
}

void muster_ws_ordered_start(muster_omp_thread *self)
{
    muster_ws_member *m = muster_ws_member_current(self);
    if (m != NULL && m->loop != NULL && m->holds_turn && !m->turn_reached)
        wait_for_turn(self, m);
}

MUSTER_OMP_EXPORT void GOMP_ordered_start(void)
{
    muster_ws_ordered_start(muster_omp_self());
}

/* The turn moves when the chunk ends (next chunk or loop end), not here: the
 * chunk's later iterations are this thread's and come in order anyway. */
MUSTER_OMP_EXPORT void GOMP_ordered_end(void)
{
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
            muster_ws_fatal("doacross loop nest with more than 2^64 iterations is not supported");
    }
    muster_ws_doacross *d = muster_ws_slot_doacross(slot, extras->ncounts, slot->loop.nthreads);
    if (d == NULL)
        muster_ws_fatal("out of memory for a doacross loop");
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
        muster_ws_fatal("out of memory for a work share");
    /* A team of one has nobody to wait for: post and wait do nothing. */
    if (extras->ncounts != 0 && proto->nthreads > 1)
        init_doacross(slot, extras);
}

void muster_ws_loop_open(muster_omp_thread *self, muster_ws_loop proto, const muster_ws_loop_extras *extras)
{
    proto.nthreads = muster_ws_team_size(self);
    proto.nchunks = chunk_count(&proto);
    uintptr_t *reductions = extras != NULL ? extras->reductions : NULL;
    /* Task reductions bind to a taskgroup around the construct; every
     * member registers its descriptor, sharing the initialiser's arrays
     * (task.h has the protocol, as libgomp's loop.c runs it). */
    if (reductions != NULL)
        muster_omp_workshare_taskgroup_start();
    muster_ws_member *m = muster_ws_member_begin(self);
    m->trip = 0;
    m->holds_turn = false;
    if (!needs_slot(&proto, extras)) {
        self->ws_sequence++;
        m->slot = NULL;
        m->private_loop = proto;
        m->loop = &m->private_loop;
        if (reductions != NULL)
            muster_omp_workshare_task_reduction_register(reductions, NULL);
        return;
    }
    if (muster_ws_enter(self, m)) {
        init_slot(m->slot, &proto, extras);
        if (reductions != NULL)
            muster_omp_workshare_task_reduction_register(reductions, NULL);
        m->slot->task_reductions = reductions;
        muster_ws_publish(self, m);
    } else if (reductions != NULL) {
        muster_omp_workshare_task_reduction_register(reductions, m->slot->task_reductions);
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
    if (m != NULL && m->loop != NULL) {
        if (m->holds_turn)
            pass_turn(self, m);
        muster_ws_leave(self, m);
    }
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
    /* release: the iteration's writes are seen by whoever sees the progress. */
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
        /* acquire, both: the flag read first, so a post we miss in the
         * progress word is one whose flag change we then wait for; and the
         * progress read pairs with the post's release store. */
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

void muster_ws_parallel_loop(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                             const muster_ws_loop *proto, bool split)
{
    if (split)
        muster_omp_parallel_start(fn, data, num_threads, flags, open_team_loop, (void *)proto);
    else
        muster_omp_parallel(fn, data, num_threads, flags, open_team_loop, (void *)proto);
}

/* ---- the long entry points ---- */

/* A long loop in index space; sched and chunk already resolved. */
static muster_ws_loop long_loop(long start, long end, long incr, unsigned sched, uint64_t chunk, bool ordered)
{
    uint64_t n;
    if (incr > 0)
        n = start < end ? muster_ws_count_up(0, (uint64_t)end - (uint64_t)start, (uint64_t)incr) : 0;
    else
        n = start > end ? muster_ws_count_up(0, (uint64_t)start - (uint64_t)end, -(uint64_t)incr) : 0;
    return (muster_ws_loop){.n = n, .start = (uint64_t)start, .incr = (uint64_t)incr, .end = (uint64_t)end,
                            .chunk = chunk, .sched = sched, .ordered = ordered};
}

static bool long_next(muster_omp_thread *self, long *istart, long *iend)
{
    uint64_t first, last;
    if (!muster_ws_loop_next(self, &first, &last))
        return false;
    const muster_ws_loop *l = muster_ws_loop_current(self);
    *istart = (long)muster_ws_value(l, first);
    *iend = (long)muster_ws_end_value(l, last);
    return true;
}

static bool long_start(long start, long end, long incr, unsigned sched, long chunk, bool ordered, long *istart,
                       long *iend)
{
    muster_omp_thread *self = muster_omp_self();
    uint64_t c = chunk > 0 ? (uint64_t)chunk : 0;
    muster_ws_resolve_schedule(self, &sched, &c);
    muster_ws_loop_open(self, long_loop(start, end, incr, sched, c, ordered), NULL);
    return long_next(self, istart, iend);
}

#define LONG_START(name, sched, ordered)                                                                 \
    MUSTER_OMP_EXPORT bool name(long start, long end, long incr, long chunk, long *istart, long *iend) \
    {                                                                                                    \
        return long_start(start, end, incr, sched, chunk, ordered, istart, iend);                        \
    }
#define LONG_RUNTIME_START(name, ordered)                                                      \
    MUSTER_OMP_EXPORT bool name(long start, long end, long incr, long *istart, long *iend)   \
    {                                                                                          \
        return long_start(start, end, incr, MUSTER_WS_SCHED_RUNTIME, 0, ordered, istart, iend); \
    }
#define LONG_NEXT(name)                                      \
    MUSTER_OMP_EXPORT bool name(long *istart, long *iend)    \
    {                                                        \
        return long_next(muster_omp_self(), istart, iend);   \
    }

LONG_START(GOMP_loop_static_start, MUSTER_OMP_SCHED_STATIC, false)
LONG_START(GOMP_loop_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC, false)
LONG_START(GOMP_loop_guided_start, MUSTER_OMP_SCHED_GUIDED, false)
LONG_START(GOMP_loop_nonmonotonic_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC, false)
LONG_START(GOMP_loop_nonmonotonic_guided_start, MUSTER_OMP_SCHED_GUIDED, false)
LONG_START(GOMP_loop_ordered_static_start, MUSTER_OMP_SCHED_STATIC, true)
LONG_START(GOMP_loop_ordered_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC, true)
LONG_START(GOMP_loop_ordered_guided_start, MUSTER_OMP_SCHED_GUIDED, true)
LONG_RUNTIME_START(GOMP_loop_runtime_start, false)
LONG_RUNTIME_START(GOMP_loop_nonmonotonic_runtime_start, false)
LONG_RUNTIME_START(GOMP_loop_maybe_nonmonotonic_runtime_start, false)
LONG_RUNTIME_START(GOMP_loop_ordered_runtime_start, true)

LONG_NEXT(GOMP_loop_static_next)
LONG_NEXT(GOMP_loop_dynamic_next)
LONG_NEXT(GOMP_loop_guided_next)
LONG_NEXT(GOMP_loop_runtime_next)
LONG_NEXT(GOMP_loop_nonmonotonic_dynamic_next)
LONG_NEXT(GOMP_loop_nonmonotonic_guided_next)
LONG_NEXT(GOMP_loop_nonmonotonic_runtime_next)
LONG_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next)
LONG_NEXT(GOMP_loop_ordered_static_next)
LONG_NEXT(GOMP_loop_ordered_dynamic_next)
LONG_NEXT(GOMP_loop_ordered_guided_next)
LONG_NEXT(GOMP_loop_ordered_runtime_next)

static bool long_generic_start(long start, long end, long incr, long sched, long chunk, long *istart, long *iend,
                               uintptr_t *reductions, void **mem, bool ordered)
{
    muster_omp_thread *self = muster_omp_self();
    unsigned kind = (unsigned)sched;
    uint64_t c = chunk > 0 ? (uint64_t)chunk : 0;
    muster_ws_resolve_schedule(self, &kind, &c);
    muster_ws_loop_extras extras = {.mem = mem, .reductions = reductions};
    muster_ws_loop_open(self, long_loop(start, end, incr, kind, c, ordered), &extras);
    if (istart == NULL)
        return true;
    return long_next(self, istart, iend);
}

MUSTER_OMP_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart,
                                       long *iend, uintptr_t *reductions, void **mem)
{
    return long_generic_start(start, end, incr, sched, chunk, istart, iend, reductions, mem, false);
}

MUSTER_OMP_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                               long *istart, long *iend, uintptr_t *reductions, void **mem)
{
    return long_generic_start(start, end, incr, sched, chunk, istart, iend, reductions, mem, true);
}

MUSTER_OMP_EXPORT void GOMP_loop_end(void)
{
    muster_ws_loop_close(muster_omp_self(), true);
}

MUSTER_OMP_EXPORT void GOMP_loop_end_nowait(void)
{
    muster_ws_loop_close(muster_omp_self(), false);
}

MUSTER_OMP_EXPORT bool GOMP_loop_end_cancel(void)
{
    return muster_ws_loop_close_cancellable(muster_omp_self());
}

/* ---- doacross (long) ---- */

static bool long_doacross_start(unsigned ncounts, long *counts, long chunk, long *istart, long *iend, void **mem,
                                uintptr_t *reductions)
{
    muster_omp_thread *self = muster_omp_self();
    uint64_t dims[ncounts ? ncounts : 1];
    for (unsigned d = 0; d < ncounts; d++)
        dims[d] = counts[d] > 0 ? (uint64_t)counts[d] : 0;
    muster_ws_loop l = {.n = dims[0], .start = 0, .incr = 1, .end = dims[0],
                        .chunk = chunk > 0 ? (uint64_t)chunk : 0, .sched = MUSTER_OMP_SCHED_STATIC};
    muster_ws_loop_extras extras = {.mem = mem, .reductions = reductions, .ncounts = ncounts, .counts = dims};
    muster_ws_loop_open(self, l, &extras);
    if (istart == NULL)
        return true;
    return long_next(self, istart, iend);
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                                       long *iend)
{
    return long_doacross_start(ncounts, counts, chunk, istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_dynamic_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                                        long *iend)
{
    return long_doacross_start(ncounts, counts, chunk, istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_guided_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                                       long *iend)
{
    return long_doacross_start(ncounts, counts, chunk, istart, iend, NULL, NULL);
}

/* The runtime schedule's chunk still applies; its kind does not (see above). */
static long runtime_chunk(void)
{
    unsigned kind = MUSTER_WS_SCHED_RUNTIME;
    uint64_t chunk = 0;
    muster_ws_resolve_schedule(muster_omp_self(), &kind, &chunk);
    return kind == MUSTER_OMP_SCHED_STATIC ? (long)chunk : 1;
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart, long *iend)
{
    return long_doacross_start(ncounts, counts, runtime_chunk(), istart, iend, NULL, NULL);
}

MUSTER_OMP_EXPORT bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
                                                long *istart, long *iend, uintptr_t *reductions, void **mem)
{
    unsigned kind = (unsigned)sched & ~MUSTER_OMP_SCHED_MONOTONIC;
    if (kind == MUSTER_WS_SCHED_RUNTIME || kind == MUSTER_OMP_SCHED_AUTO)
        chunk = runtime_chunk();
    else if (kind != MUSTER_OMP_SCHED_STATIC && chunk <= 0)
        chunk = 1;
    return long_doacross_start(ncounts, counts, chunk, istart, iend, mem, reductions);
}

MUSTER_OMP_EXPORT void GOMP_doacross_post(long *counts)
{
    muster_omp_thread *self = muster_omp_self();
    unsigned n = muster_ws_doacross_dimensions(self);
    if (n == 0)
        return;
    uint64_t iter[n];
    for (unsigned d = 0; d < n; d++)
        iter[d] = (uint64_t)counts[d];
    muster_ws_doacross_post(self, iter);
}

MUSTER_OMP_EXPORT void GOMP_doacross_wait(long first, ...)
{
    muster_omp_thread *self = muster_omp_self();
    unsigned n = muster_ws_doacross_dimensions(self);
    if (n == 0)
        return;
    uint64_t iter[n];
    iter[0] = (uint64_t)first;
    va_list ap;
    va_start(ap, first);
    for (unsigned d = 1; d < n; d++)
        iter[d] = (uint64_t)va_arg(ap, long);
    va_end(ap);
    muster_ws_doacross_wait(self, iter);
}

/* ---- combined parallel loops (long) ---- */

static void parallel_loop(void (*fn)(void *), void *data, unsigned num_threads, long start, long end, long incr,
                          unsigned sched, long chunk, unsigned flags, bool split)
{
    uint64_t c = chunk > 0 ? (uint64_t)chunk : 0;
    muster_ws_resolve_schedule(muster_omp_self(), &sched, &c);
    muster_ws_loop proto = long_loop(start, end, incr, sched, c, false);
    muster_ws_parallel_loop(fn, data, num_threads, flags, &proto, split);
}

#define PARALLEL_LOOP(name, sched)                                                                      \
    MUSTER_OMP_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,       \
                                long end, long incr, long chunk, unsigned flags)                        \
    {                                                                                                   \
        parallel_loop(fn, data, num_threads, start, end, incr, sched, chunk, flags, false);             \
    }
#define PARALLEL_LOOP_RUNTIME(name)                                                                     \
    MUSTER_OMP_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,       \
                                long end, long incr, unsigned flags)                                    \
    {                                                                                                   \
        parallel_loop(fn, data, num_threads, start, end, incr, MUSTER_WS_SCHED_RUNTIME, 0, flags, false); \
    }
#define PARALLEL_LOOP_SPLIT(name, sched)                                                                \
    MUSTER_OMP_EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,       \
                                long end, long incr, long chunk)                                        \
    {                                                                                                   \
        parallel_loop(fn, data, num_threads, start, end, incr, sched, chunk, 0, true);                  \
    }

PARALLEL_LOOP(GOMP_parallel_loop_static, MUSTER_OMP_SCHED_STATIC)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic, MUSTER_OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(GOMP_parallel_loop_guided, MUSTER_OMP_SCHED_GUIDED)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, MUSTER_OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, MUSTER_OMP_SCHED_GUIDED)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
PARALLEL_LOOP_SPLIT(GOMP_parallel_loop_static_start, MUSTER_OMP_SCHED_STATIC)
PARALLEL_LOOP_SPLIT(GOMP_parallel_loop_dynamic_start, MUSTER_OMP_SCHED_DYNAMIC)
PARALLEL_LOOP_SPLIT(GOMP_parallel_loop_guided_start, MUSTER_OMP_SCHED_GUIDED)

MUSTER_OMP_EXPORT void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data, unsigned num_threads,
                                                        long start, long end, long incr)
{
    parallel_loop(fn, data, num_threads, start, end, incr, MUSTER_WS_SCHED_RUNTIME, 0, 0, true);
}
