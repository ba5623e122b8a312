/* A bounded work-stealing deque: the task queue of one thread.
 *
 * The owner pushes and takes at the bottom (LIFO: the task it made last is
 * the one whose data is still in its cache); thieves steal at the top
 * (FIFO: the oldest task, usually the biggest piece of a recursive split).
 * The owner's push and take use no lock and no compare-and-swap except to
 * race a thief for the last task.  This is the Chase-Lev deque (SPAA 2005)
 * with the C11 orderings of Lê, Pop, Cohen and Zappa Nardelli (PPoPP 2013),
 * changed in two ways:
 *   - Bounded: a full deque refuses the push, and the caller runs the task
 *     at once (libomp does the same).  With no resize there is no resize
 *     bug (the published C11 version forgets to reload the array in push).
 *   - Where the paper puts a stand-alone seq_cst fence between a store and
 *     a load of the two indices, the store is a seq_cst exchange and the
 *     load seq_cst.  C11 gives the same order either way (both accesses are
 *     in the single total order S), x86 emits the same code for it (an
 *     xchg instead of mov + mfence), ThreadSanitizer, which does not model
 *     stand-alone fences, can see it, and qemu-user, which drops the order
 *     of a plain seq_cst store before a load on AArch64, keeps it
 *     (platform.h, muster_store_before_load).
 * Items are pointers; NULL cannot be pushed.
 *
 * Each slot also holds MUSTER_DEQUE_TAGS tags, words its pusher gives, that
 * a thief can test before it takes the item (muster_deque_steal_tagged)
 * without touching the item itself, which another thread may take and free
 * meanwhile: the scheduler tags a task with its nearest ancestors so that a
 * waiter restricted to its descendants leaves the others in place. */
#ifndef MUSTER_OMP_DEQUE_H
#define MUSTER_OMP_DEQUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "platform/platform.h"

typedef struct muster_deque {
    /* The thieves' end and the owner's end, each alone on its line: every
     * steal writes top, every push and take writes bottom. */
    _Alignas(MUSTER_CACHE_LINE) _Atomic int64_t top;
    _Alignas(MUSTER_CACHE_LINE) _Atomic int64_t bottom;
    _Alignas(MUSTER_CACHE_LINE) int64_t mask; /* capacity - 1 */
    _Atomic(void *) *items;                   /* [capacity] */
    _Atomic(uintptr_t) *tags;                 /* [capacity][MUSTER_DEQUE_TAGS] */
} muster_deque;

#define MUSTER_DEQUE_TAGS 4

typedef enum muster_steal {
    MUSTER_STEAL_OK,    /* *item is the stolen task */
    MUSTER_STEAL_EMPTY, /* nothing to steal */
    MUSTER_STEAL_LOST,  /* another thief or the owner took it first: try again or elsewhere */
    MUSTER_STEAL_OTHER, /* muster_deque_steal_tagged: the oldest item lacks the tag */
} muster_steal;

/* capacity: rounded up to a power of two, at least 2.  0, or -1 when out of
 * memory. */
int muster_deque_init(muster_deque *d, unsigned capacity);
void muster_deque_destroy(muster_deque *d);

/* Owner only.  False when the deque is full (the task was not queued).
 * tags: MUSTER_DEQUE_TAGS words, or NULL for none (all 0). */
bool muster_deque_push_tagged(muster_deque *d, void *item, const uintptr_t *tags);
static inline bool muster_deque_push(muster_deque *d, void *item)
{
    return muster_deque_push_tagged(d, item, NULL);
}
/* Owner only: the newest task, or NULL when the deque is empty. */
void *muster_deque_take(muster_deque *d);
/* The owner's push and take for a deque no other thread pushes to or
 * takes from at the same time (a team of one's: nobody steals there),
 * without the orderings that race thieves.  The owner may still steal
 * from it itself (muster_deque_steal), and any thread may read its size
 * once it has synchronized with the owner. */
bool muster_deque_push_private(muster_deque *d, void *item, const uintptr_t *tags);
void *muster_deque_take_private(muster_deque *d);
/* Any thread: the oldest task, into *item. */
muster_steal muster_deque_steal(muster_deque *d, void **item);
/* Any thread: the oldest task, if one of its tags is `tag` (not 0); else
 * MUSTER_STEAL_OTHER and the deque is left as it was.  The tags are read
 * before the item is taken, so they may belong to an item taken
 * meanwhile: a hint, which the taker checks again on what it got. */
muster_steal muster_deque_steal_tagged(muster_deque *d, void **item, uintptr_t tag);
/* Any thread: a snapshot of how many tasks are queued (stale by the time it
 * returns, but ordered: seq_cst loads). */
int64_t muster_deque_size(const muster_deque *d);

#endif
