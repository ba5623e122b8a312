/* Task memory (src/omp/task/task_memory.c): blocks are reused by the thread that
 * allocated them, blocks freed by other threads go back to their owner, a
 * thread keeps at most MUSTER_OMP_TASK_MEMORY_KEEP per class, big requests
 * go to malloc, and a thread that exits with blocks still out leaves its
 * cache to the next thread.  Above all, under concurrent allocation and
 * freeing from 3 and 5 threads with random pauses, no block is ever handed
 * out twice at once: every block carries its holder's stamp, checked before
 * it is freed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "omp/task/task_memory.h"
#include "stress_common.h"

static uint64_t reused(void) { return muster_omp_task_memory_counters().reused; }
static uint64_t returned(void) { return muster_omp_task_memory_counters().returned; }

static void test_reuse_in_one_thread(void)
{
    enum { N = 100 };
    void *first[N], *again[N];
    for (int i = 0; i < N; i++) {
        first[i] = muster_omp_task_alloc(100);
        CHECK(first[i] != NULL && (uintptr_t)first[i] % 16 == 0, "block %d: %p, 16-aligned", i, first[i]);
        memset(first[i], 0xab, 100);
    }
    for (int i = 0; i < N; i++)
        muster_omp_task_free(first[i]);
    uint64_t before = reused();
    for (int i = 0; i < N; i++) {
        again[i] = muster_omp_task_alloc(90);
        bool known = false;
        for (int j = 0; j < N && !known; j++)
            known = again[i] == first[j];
        CHECK(known, "block %d (%p) is not one this thread freed", i, again[i]);
    }
    CHECK(reused() - before == N, "%llu of %d blocks came from the cache", (unsigned long long)(reused() - before), N);
    for (int i = 0; i < N; i++)
        muster_omp_task_free(again[i]);
    /* Each class is its own: a 600-byte request does not take a 128-byte block. */
    void *big = muster_omp_task_alloc(600);
    for (int j = 0; j < N; j++)
        CHECK(big != first[j], "a 600-byte block came from the 128-byte class");
    memset(big, 1, 600);
    muster_omp_task_free(big);
    /* Above the largest class: malloc, not counted as reuse. */
    before = reused();
    void *huge = muster_omp_task_alloc(100000);
    CHECK(huge != NULL, "a 100000-byte block");
    memset(huge, 2, 100000);
    muster_omp_task_free(huge);
    CHECK(reused() == before, "a block above the classes came from a cache");
    muster_omp_task_free(NULL);
}

static void test_keep_bound(void)
{
    enum { N = 3 * MUSTER_OMP_TASK_MEMORY_KEEP };
    void **blocks = malloc(N * sizeof *blocks);
    CHECK(blocks != NULL, "malloc");
    /* Empty the 256-byte class's cache first. */
    for (int i = 0; i < N; i++)
        blocks[i] = muster_omp_task_alloc(200);
    for (int i = 0; i < N; i++)
        muster_omp_task_free(blocks[i]);
    uint64_t before = reused();
    for (int i = 0; i < N; i++)
        blocks[i] = muster_omp_task_alloc(200);
    CHECK(reused() - before == MUSTER_OMP_TASK_MEMORY_KEEP, "%llu blocks reused after freeing %d: the cache keeps %d",
          (unsigned long long)(reused() - before), N, MUSTER_OMP_TASK_MEMORY_KEEP);
    for (int i = 0; i < N; i++)
        muster_omp_task_free(blocks[i]);
    free(blocks);
}

/* ---- blocks freed by other threads ---- */

typedef struct handoff {
    void *blocks[64];
    int count;
} handoff;

static void *free_them(void *arg)
{
    handoff *h = arg;
    for (int i = 0; i < h->count; i++)
        muster_omp_task_free(h->blocks[i]);
    return NULL;
}

static void test_return_to_owner(void)
{
    handoff h = {.count = 64};
    for (int i = 0; i < h.count; i++)
        h.blocks[i] = muster_omp_task_alloc(64);
    uint64_t returned_before = returned();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, free_them, &h) == 0, "pthread_create");
    pthread_join(t, NULL);
    /* This thread's 128-byte class may hold blocks of earlier tests; the
     * returned ones come once those are used up. */
    int found = 0;
    void *taken[64 + MUSTER_OMP_TASK_MEMORY_KEEP];
    int n = 0;
    while (found < 64 && n < (int)(sizeof taken / sizeof taken[0])) {
        void *b = taken[n++] = muster_omp_task_alloc(64);
        for (int j = 0; j < 64; j++)
            found += b == h.blocks[j];
    }
    CHECK(found == 64, "the owner got back %d of the 64 blocks other threads freed", found);
    CHECK(returned() - returned_before == 64, "%llu of 64 blocks freed elsewhere were counted back",
          (unsigned long long)(returned() - returned_before));
    for (int i = 0; i < n; i++)
        muster_omp_task_free(taken[i]);
    /* Returned blocks are kept uncounted, and handing them out does not
     * drive the count of this thread's own frees below zero: the n blocks
     * just freed here were kept up to the limit, and come back now. */
    int expect = n < MUSTER_OMP_TASK_MEMORY_KEEP ? n : MUSTER_OMP_TASK_MEMORY_KEEP;
    uint64_t before = reused();
    for (int i = 0; i < expect; i++)
        taken[i] = muster_omp_task_alloc(64);
    CHECK(reused() - before == (uint64_t)expect, "%llu of the %d blocks freed here came back from the cache",
          (unsigned long long)(reused() - before), expect);
    for (int i = 0; i < expect; i++)
        muster_omp_task_free(taken[i]);
}

/* A thread allocates and exits; its blocks are freed afterwards by this
 * one; a new thread then takes the spare cache, returned blocks included. */
static void *allocate_and_exit(void *arg)
{
    handoff *h = arg;
    for (int i = 0; i < h->count; i++)
        h->blocks[i] = muster_omp_task_alloc(300);
    return NULL;
}

static void *count_reuse(void *arg)
{
    uint64_t before = reused();
    void *b[8];
    for (int i = 0; i < 8; i++)
        b[i] = muster_omp_task_alloc(300);
    for (int i = 0; i < 8; i++)
        muster_omp_task_free(b[i]);
    *(uint64_t *)arg = reused() - before;
    return NULL;
}

static void test_owner_exits(void)
{
    handoff h = {.count = 40};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, allocate_and_exit, &h) == 0, "pthread_create");
    pthread_join(t, NULL);
    for (int i = 0; i < h.count; i++) {
        memset(h.blocks[i], 3, 300);
        muster_omp_task_free(h.blocks[i]);
    }
    uint64_t got = 0;
    CHECK(pthread_create(&t, NULL, count_reuse, &got) == 0, "pthread_create");
    pthread_join(t, NULL);
    CHECK(got == 8, "a new thread reused %llu of 8 blocks from an exited thread's cache", (unsigned long long)got);
}

/* ---- concurrent stress ---- */

#define SLOTS 64
typedef struct stamp {
    uint64_t holder, serial, size;
} stamp;

/* A block in transit, and the stamp it must still carry when taken out. */
typedef struct in_transit {
    unsigned char *block;
    stamp expected;
} in_transit;

typedef struct exchange {
    pthread_mutex_t lock;
    in_transit slot[SLOTS]; /* blocks in transit between threads */
    atomic_long in_flight, checked, bad;
    int threads;
} exchange;

static bool stamp_intact(const unsigned char *p, size_t size, uint64_t holder, uint64_t serial)
{
    const stamp *s = (const stamp *)p;
    if (s->holder != holder || s->serial != serial || s->size != size)
        return false;
    for (size_t k = sizeof *s; k < size; k++)
        if (p[k] != (unsigned char)(serial + k))
            return false;
    return true;
}

typedef struct worker {
    exchange *x;
    unsigned id, seed, ops;
} worker;

static void *stress(void *arg)
{
    worker *w = arg;
    exchange *x = w->x;
    for (unsigned op = 0; op < w->ops; op++) {
        size_t size = sizeof(stamp) + (size_t)(rand_r(&w->seed) % 1000);
        unsigned char *p = muster_omp_task_alloc(size);
        uint64_t serial = (uint64_t)w->id << 32 | op;
        *(stamp *)p = (stamp){w->id, serial, size};
        for (size_t k = sizeof(stamp); k < size; k++)
            p[k] = (unsigned char)(serial + k);
        for (unsigned spin = rand_r(&w->seed) % 200; spin > 0; spin--)
            __asm__ __volatile__("" ::: "memory");
        /* Still ours: nobody got it meanwhile. */
        if (!stamp_intact(p, size, w->id, serial))
            atomic_fetch_add(&x->bad, 1);
        /* Swap it into a random slot; free whatever was there, after
         * checking its stamp is still its holder's. */
        unsigned k = rand_r(&w->seed) % SLOTS;
        pthread_mutex_lock(&x->lock);
        in_transit old = x->slot[k];
        x->slot[k] = (in_transit){p, {w->id, serial, size}};
        pthread_mutex_unlock(&x->lock);
        if (old.block != NULL) {
            /* A block handed out again while in transit carries another
             * stamp by now. */
            if (!stamp_intact(old.block, old.expected.size, old.expected.holder, old.expected.serial))
                atomic_fetch_add(&x->bad, 1);
            atomic_fetch_add(&x->checked, 1);
            memset(old.block, 0xee, sizeof(stamp));
            muster_omp_task_free(old.block);
        }
    }
    return NULL;
}

static void test_concurrent(int threads, unsigned episode)
{
    exchange x = {.threads = threads};
    pthread_mutex_init(&x.lock, NULL);
    worker w[8];
    pthread_t t[8];
    for (int i = 0; i < threads; i++) {
        w[i] = (worker){&x, (unsigned)i + 1, episode * 131u + (unsigned)i, scaled(3000) + 10};
        CHECK(pthread_create(&t[i], NULL, stress, &w[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    for (int k = 0; k < SLOTS; k++) {
        in_transit *left = &x.slot[k];
        if (left->block == NULL)
            continue;
        if (!stamp_intact(left->block, left->expected.size, left->expected.holder, left->expected.serial))
            atomic_fetch_add(&x.bad, 1);
        muster_omp_task_free(left->block);
    }
    CHECK(atomic_load(&x.bad) == 0, "%d threads, episode %u: %ld blocks were handed out while in use", threads,
          episode, atomic_load(&x.bad));
    CHECK(atomic_load(&x.checked) > 0, "the stress exchanged no blocks");
    pthread_mutex_destroy(&x.lock);
}

int main(void)
{
    test_reuse_in_one_thread();
    test_keep_bound();
    test_return_to_owner();
    test_owner_exits();
    uint64_t returned_before = returned();
    for (unsigned e = 0; e < scaled(12) + 2; e++) {
        test_concurrent(3, e);
        test_concurrent(5, e);
    }
    CHECK(returned() > returned_before, "the stress never freed a block in another thread");
    printf("test_omp_task_memory: ok\n");
    return 0;
}
