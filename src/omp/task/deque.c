/* The bounded work-stealing deque (deque.h says what and why). */
#include "omp/task/deque.h"

#include <stdlib.h>

int muster_deque_init(muster_deque *d, unsigned capacity)
{
    unsigned size = 2;
    while (size < capacity && size < (1u << 30))
        size *= 2;
    d->items = calloc(size, sizeof *d->items);
    d->tags = calloc((size_t)size * MUSTER_DEQUE_TAGS, sizeof *d->tags);
    if (d->items == NULL || d->tags == NULL) {
        free((void *)d->items);
        free((void *)d->tags);
        return -1;
    }
    d->mask = (int64_t)size - 1;
    atomic_init(&d->top, 0);
    atomic_init(&d->bottom, 0);
    return 0;
}

void muster_deque_destroy(muster_deque *d)
{
    free((void *)d->items);
    free((void *)d->tags);
    d->items = NULL;
    d->tags = NULL;
}

/* Writes item and its tags (NULL: all 0) into slot b; relaxed: the caller's
 * store of bottom publishes them. */
static void fill_slot(muster_deque *d, int64_t b, void *item, const uintptr_t *tags)
{
    atomic_store_explicit(&d->items[b & d->mask], item, memory_order_relaxed);
    _Atomic(uintptr_t) *slot_tags = &d->tags[(b & d->mask) * MUSTER_DEQUE_TAGS];
    /* relaxed: as the item's store above, published by the store of bottom. */
    for (int k = 0; k < MUSTER_DEQUE_TAGS; k++)
        atomic_store_explicit(&slot_tags[k], tags != NULL ? tags[k] : 0, memory_order_relaxed);
}

bool muster_deque_push_tagged(muster_deque *d, void *item, const uintptr_t *tags)
{
    /* relaxed: only the owner writes bottom. */
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* acquire: pairs with a thief's successful CAS on top (steal_tagged()), so its read of
     * the slot we may now reuse happened before our write to it. */
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    if (b - t > d->mask)
        return false;
    fill_slot(d, b, item, tags); /* published by the store of bottom below */
    /* seq_cst, though release would do for the deque (a thief that reads
     * the new bottom sees the item): a pusher may then read another
     * variable with a seq_cst load and be ordered after this store, which
     * scheduler.c's wake-up handshake relies on (platform.h: why an
     * exchange). */
    muster_store_before_load(&d->bottom, b + 1);
    return true;
}

void *muster_deque_take(muster_deque *d)
{
    /* relaxed: only the owner writes bottom. */
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    /* seq_cst store, then seq_cst load of top: thieves must see the
     * reservation before we read top, or both could take the last task
     * (the paper's fence; platform.h: why an exchange). */
    muster_store_before_load(&d->bottom, b);
    int64_t t = atomic_load(&d->top);
    if (t > b) {
        /* Empty: undo the reservation.  relaxed: only the owner writes bottom. */
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        return NULL;
    }
    /* relaxed: our own write, or one ordered before us by the owner's program order. */
    void *item = atomic_load_explicit(&d->items[b & d->mask], memory_order_relaxed);
    if (t == b) {
        /* The last task: race the thieves for it on top.  seq_cst on success
         * (the paper's); relaxed on failure: we only learn we lost. */
        if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                     memory_order_relaxed))
            item = NULL;
        /* relaxed: only the owner writes bottom; top has moved past b either way. */
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    }
    return item;
}

bool muster_deque_push_private(muster_deque *d, void *item, const uintptr_t *tags)
{
    /* relaxed (all): one thread uses the deque (deque.h). */
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    if (b - t > d->mask)
        return false;
    fill_slot(d, b, item, tags);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    return true;
}

void *muster_deque_take_private(muster_deque *d)
{
    /* relaxed (all): one thread uses the deque (deque.h). */
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    if (b <= t)
        return NULL;
    atomic_store_explicit(&d->bottom, b - 1, memory_order_relaxed);
    return atomic_load_explicit(&d->items[(b - 1) & d->mask], memory_order_relaxed);
}

static bool slot_has_tag(const muster_deque *d, int64_t t, uintptr_t tag)
{
    const _Atomic(uintptr_t) *slot_tags = &d->tags[(t & d->mask) * MUSTER_DEQUE_TAGS];
    for (int k = 0; k < MUSTER_DEQUE_TAGS; k++)
        /* relaxed: published with the item by the bottom the caller read;
         * a slot reused meanwhile gives a wrong hint, never a wrong item. */
        if (atomic_load_explicit(&slot_tags[k], memory_order_relaxed) == tag)
            return true;
    return false;
}

static muster_steal steal_tagged(muster_deque *d, void **item, uintptr_t tag)
{
    /* seq_cst load of top, then seq_cst load of bottom: we must not read a
     * bottom older than the top we read (the paper's fence between them). */
    int64_t t = atomic_load(&d->top);
    int64_t b = atomic_load(&d->bottom);
    if (t >= b)
        return MUSTER_STEAL_EMPTY;
    if (tag != 0 && !slot_has_tag(d, t, tag))
        return MUSTER_STEAL_OTHER;
    /* relaxed: the item was published by the bottom we read (seq_cst, so at
     * least acquire); if the owner reuses the slot meanwhile, top has moved
     * and the CAS below fails, so a stale value is never returned. */
    void *x = atomic_load_explicit(&d->items[t & d->mask], memory_order_relaxed);
    /* seq_cst on success (the paper's); relaxed on failure: we only learn we lost. */
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return MUSTER_STEAL_LOST;
    *item = x;
    return MUSTER_STEAL_OK;
}

muster_steal muster_deque_steal(muster_deque *d, void **item)
{
    return steal_tagged(d, item, 0);
}

muster_steal muster_deque_steal_tagged(muster_deque *d, void **item, uintptr_t tag)
{
    return steal_tagged(d, item, tag);
}

int64_t muster_deque_size(const muster_deque *d)
{
    /* seq_cst (both): a snapshot, but one a thread about to sleep can rely
     * on: after its seq_cst announcement it sees any push ordered before the
     * pusher's seq_cst store of bottom (scheduler.c's wake-up handshake). */
    int64_t b = atomic_load(&d->bottom);
    int64_t t = atomic_load(&d->top);
    return b > t ? b - t : 0;
}
