/* Memory for task records (task_memory.h says how it works). */
#include "omp/task/task_memory.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "omp/ompt.h"
#include "platform/platform.h"

/* Payload sizes of the classes; the record header with a few words of
 * arguments fits the first. */
static const size_t class_bytes[] = {128, 256, 512, 1024};
#define CLASSES (sizeof class_bytes / sizeof class_bytes[0])
#define NO_CLASS CLASSES /* straight from malloc */

typedef struct free_block {
    struct free_block *next;
} free_block;

typedef struct task_cache task_cache;

typedef struct block_header {
    task_cache *owner;
    size_t cls;
} block_header;
_Static_assert(sizeof(block_header) == 16, "payloads stay 16-aligned");

struct task_cache {
    free_block *local[CLASSES]; /* the owner's alone */
    /* Blocks this thread freed into local[] and has not handed out again
     * (floored at 0): what the limit counts.  Blocks others return join
     * local[] uncounted: counting them meant walking the list taken, a
     * cache miss per block written by another CPU (docs/tuning.md), and
     * they are this thread's own
     * allocations anyway, so the cache stays bounded by its peak use. */
    unsigned kept[CLASSES];
    /* Statistics, written by the owner alone (a load and a store, no
     * shared line on the hot path), read by muster_omp_task_memory_counters:
     * blocks handed out again. */
    _Atomic uint64_t reused;
    /* Pushed by other threads; taken whole by the owner.  On its own line:
     * thieves write it while the owner allocates.  returned counts the
     * blocks pushed (a statistic, written by the pushers on the line the
     * push has just taken). */
    _Alignas(MUSTER_CACHE_LINE) _Atomic(free_block *) returned_blocks[CLASSES];
    _Atomic uint64_t returned;
    task_cache *next; /* in all_caches */
    bool in_use;      /* owned by a live thread; under caches_lock */
};

/* Every cache ever made, so none is lost: a thread that exits leaves its
 * cache here, emptied, for the next one. */
static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;
static task_cache *all_caches;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;
static _Thread_local task_cache *my_cache;

/* relaxed (all): statistics that order nothing. */
static void add_to(_Atomic uint64_t *counter, uint64_t n)
{
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + n, memory_order_relaxed);
}

muster_omp_task_memory_counts muster_omp_task_memory_counters(void)
{
    muster_omp_task_memory_counts sum = {0, 0};
    pthread_mutex_lock(&caches_lock);
    for (task_cache *c = all_caches; c != NULL; c = c->next) {
        /* relaxed (both): statistics counters, read for the report only. */
        sum.reused += atomic_load_explicit(&c->reused, memory_order_relaxed);
        sum.returned += atomic_load_explicit(&c->returned, memory_order_relaxed);
    }
    pthread_mutex_unlock(&caches_lock);
    return sum;
}

static free_block *take_returned(task_cache *c, size_t cls)
{
    /* acquire: pairs with the release CAS in muster_omp_task_free(): the blocks' last writes
     * (their next links) by the threads that pushed them are seen. */
    return atomic_exchange_explicit(&c->returned_blocks[cls], NULL, memory_order_acquire);
}

static void free_list(free_block *b)
{
    while (b != NULL) {
        free_block *next = b->next;
        free((block_header *)b - 1);
        b = next;
    }
}

/* The exiting thread's blocks go back to malloc; its cache stays in
 * all_caches for another thread. */
static void release_cache(void *arg)
{
    task_cache *c = arg;
    for (size_t cls = 0; cls < CLASSES; cls++) {
        free_list(c->local[cls]);
        c->local[cls] = NULL;
        c->kept[cls] = 0;
        free_list(take_returned(c, cls));
    }
    pthread_mutex_lock(&caches_lock);
    c->in_use = false;
    pthread_mutex_unlock(&caches_lock);
    my_cache = NULL;
}

static void create_cache_key(void)
{
    if (pthread_key_create(&cache_key, release_cache) != 0)
        cache_key = (pthread_key_t)-1; /* caches then outlive their threads: still correct */
}

/* The calling thread's cache: a spare one, or a new one; NULL when out of
 * memory. */
static task_cache *cache_of_this_thread(void)
{
    if (__builtin_expect(my_cache != NULL, 1))
        return my_cache;
    pthread_once(&cache_key_once, create_cache_key);
    pthread_mutex_lock(&caches_lock);
    task_cache *c = all_caches;
    while (c != NULL && c->in_use)
        c = c->next;
    if (c == NULL) {
        c = aligned_alloc(MUSTER_CACHE_LINE, (sizeof *c + MUSTER_CACHE_LINE - 1) / MUSTER_CACHE_LINE * MUSTER_CACHE_LINE);
        if (c != NULL) {
            *c = (task_cache){.next = all_caches};
            for (size_t cls = 0; cls < CLASSES; cls++)
                atomic_init(&c->returned_blocks[cls], NULL);
            atomic_init(&c->reused, 0);
            atomic_init(&c->returned, 0);
            all_caches = c;
        }
    }
    if (c != NULL)
        c->in_use = true;
    pthread_mutex_unlock(&caches_lock);
    if (c != NULL && cache_key != (pthread_key_t)-1)
        pthread_setspecific(cache_key, c);
    my_cache = c;
    return c;
}

static size_t class_of(size_t bytes)
{
    for (size_t cls = 0; cls < CLASSES; cls++)
        if (bytes <= class_bytes[cls])
            return cls;
    return NO_CLASS;
}

static void *new_block(task_cache *owner, size_t cls, size_t bytes)
{
    block_header *h = malloc(sizeof *h + (cls == NO_CLASS ? bytes : class_bytes[cls]));
    if (h == NULL)
        return NULL;
    *h = (block_header){.owner = owner, .cls = cls};
    return h + 1;
}

/* Blocks a thread keeps per class of those it frees itself: none while a
 * tool is attached (muster_omp_task_memory_told), so that every block
 * comes from malloc and goes back to free.  A race detector (Archer, on
 * TSan) then sees each task's memory as new, not as the last task's,
 * whose thread it never saw synchronize with this one.  A variable, not
 * the constant: the comparison costs the same. */
static unsigned task_memory_keep = MUSTER_OMP_TASK_MEMORY_KEEP;

void muster_omp_task_memory_told(void)
{
    task_memory_keep = 0;
}

void *muster_omp_task_alloc(size_t bytes)
{
    size_t cls = class_of(bytes);
    task_cache *c = cls == NO_CLASS ? NULL : cache_of_this_thread();
    if (c == NULL)
        return new_block(NULL, NO_CLASS, bytes);
    free_block *b = c->local[cls];
    if (b == NULL)
        b = take_returned(c, cls); /* the blocks others have freed since: all of them */
    if (b == NULL)
        return new_block(c, cls, bytes);
    c->local[cls] = b->next;
    if (c->kept[cls] > 0)
        c->kept[cls]--;
    add_to(&c->reused, 1);
    return b;
}

void muster_omp_task_free(void *p)
{
    if (p == NULL)
        return;
    block_header *h = (block_header *)p - 1;
    task_cache *owner = h->owner;
    free_block *b = p;
    if (owner == NULL || h->cls == NO_CLASS) {
        free(h);
    } else if (owner == my_cache) {
        if (owner->kept[h->cls] >= task_memory_keep) {
            free(h);
            return;
        }
        b->next = owner->local[h->cls];
        owner->local[h->cls] = b;
        owner->kept[h->cls]++;
    } else if (muster_ompt_on()) {
        free(h); /* as task_memory_keep says */
    } else {
        /* relaxed load: the CAS re-reads; release on success: pairs with the owner's acquire
         * exchange in take_returned(), which then sees b->next. */
        free_block *head = atomic_load_explicit(&owner->returned_blocks[h->cls], memory_order_relaxed);
        do
            b->next = head;
        while (!atomic_compare_exchange_weak_explicit(&owner->returned_blocks[h->cls], &head, b, memory_order_release,
                                                      memory_order_relaxed));
        /* relaxed: a statistic that orders nothing. */
        atomic_fetch_add_explicit(&owner->returned, 1, memory_order_relaxed);
    }
}
