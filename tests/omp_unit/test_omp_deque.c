/* The work-stealing deque of libmuster-omp's task scheduler (src/omp/task/deque.c):
 * its order (owner LIFO, thieves FIFO), its bound, and above all that under
 * concurrent takes and steals every task comes out exactly once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "omp/task/deque.h"
#include "stress_common.h"

static void *item_of(uintptr_t k) { return (void *)(k + 1); } /* never NULL */
static uintptr_t number_of(void *item) { return (uintptr_t)item - 1; }

static void test_order_and_bound(void)
{
    muster_deque d;
    CHECK(muster_deque_init(&d, 5) == 0, "init");
    CHECK(d.mask == 7, "capacity 5 rounds up to 8, mask %lld", (long long)d.mask);
    void *x;
    CHECK(muster_deque_take(&d) == NULL, "a new deque is empty to its owner");
    CHECK(muster_deque_steal(&d, &x) == MUSTER_STEAL_EMPTY, "and to thieves");
    for (uintptr_t k = 0; k < 8; k++)
        CHECK(muster_deque_push(&d, item_of(k)), "push %lu of 8", (unsigned long)k);
    CHECK(!muster_deque_push(&d, item_of(8)), "a full deque refuses the ninth");
    CHECK(muster_deque_size(&d) == 8, "8 queued");
    CHECK(muster_deque_steal(&d, &x) == MUSTER_STEAL_OK && number_of(x) == 0, "thieves take the oldest");
    CHECK(muster_deque_steal(&d, &x) == MUSTER_STEAL_OK && number_of(x) == 1, "then the next oldest");
    CHECK(number_of(muster_deque_take(&d)) == 7, "the owner takes the newest");
    CHECK(muster_deque_push(&d, item_of(100)), "room again after taking");
    CHECK(muster_deque_push(&d, item_of(101)) && muster_deque_push(&d, item_of(102)), "and after stealing");
    CHECK(!muster_deque_push(&d, item_of(103)), "full again at 8");
    uintptr_t expect[] = {102, 101, 100, 6, 5, 4, 3, 2};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        void *y = muster_deque_take(&d);
        CHECK(y != NULL && number_of(y) == expect[i], "take %zu: %lu, expected %lu", i,
              (unsigned long)(y ? number_of(y) : 0), (unsigned long)expect[i]);
    }
    CHECK(muster_deque_take(&d) == NULL && muster_deque_size(&d) == 0, "empty again");
    /* Wrapping round the ring many times keeps the order. */
    for (uintptr_t k = 0; k < 1000; k++) {
        CHECK(muster_deque_push(&d, item_of(k)) && muster_deque_push(&d, item_of(k + 5000)), "push pair");
        CHECK(muster_deque_steal(&d, &x) == MUSTER_STEAL_OK && number_of(x) == k, "steal the first of the pair");
        CHECK(number_of(muster_deque_take(&d)) == k + 5000, "take the second");
    }
    muster_deque_destroy(&d);
}

/* ---- concurrent: every task exactly once ---- */

typedef struct stress {
    muster_deque deque;
    uintptr_t items;
    unsigned seed;                /* the episode's; each thief's follows from it */
    _Atomic unsigned *seen;       /* [items]: times each item came out */
    _Atomic int owner_done;
    _Atomic uint64_t stolen, lost;
} stress;

/* A team of one's deque (push_private, take_private, and the owner taking
 * its oldest with steal): the same order and bound, with the tags kept. */
static void test_private(void)
{
    muster_deque d;
    CHECK(muster_deque_init(&d, 4) == 0, "init");
    void *x;
    CHECK(muster_deque_take_private(&d) == NULL, "a new deque is empty");
    for (uintptr_t k = 0; k < 4; k++) {
        uintptr_t tags[MUSTER_DEQUE_TAGS] = {k + 10, 0, 0, 0};
        CHECK(muster_deque_push_private(&d, item_of(k), tags), "push %lu of 4", (unsigned long)k);
    }
    CHECK(!muster_deque_push_private(&d, item_of(4), NULL), "a full deque refuses the fifth");
    CHECK(muster_deque_size(&d) == 4, "4 queued");
    CHECK(muster_deque_steal_tagged(&d, &x, 11) == MUSTER_STEAL_OTHER, "the oldest's tag is 10, not 11");
    CHECK(muster_deque_steal_tagged(&d, &x, 10) == MUSTER_STEAL_OK && number_of(x) == 0, "the oldest, by its tag");
    CHECK(number_of(muster_deque_take_private(&d)) == 3, "the newest");
    CHECK(muster_deque_push_private(&d, item_of(5), NULL) && muster_deque_push_private(&d, item_of(6), NULL),
          "room again");
    const uintptr_t expect[] = {6, 5, 2, 1};
    for (size_t i = 0; i < 4; i++) {
        void *y = muster_deque_take_private(&d);
        CHECK(y != NULL && number_of(y) == expect[i], "take %zu: %lu, expected %lu", i,
              y != NULL ? (unsigned long)number_of(y) : 0ul, (unsigned long)expect[i]);
    }
    CHECK(muster_deque_take_private(&d) == NULL && muster_deque_size(&d) == 0, "empty again");
    /* Mixed with the shared operations on the same deque, by one thread. */
    CHECK(muster_deque_push_private(&d, item_of(7), NULL) && muster_deque_push(&d, item_of(8)), "both pushes");
    CHECK(number_of(muster_deque_take(&d)) == 8 && number_of(muster_deque_take_private(&d)) == 7, "both takes");
    muster_deque_destroy(&d);
}

static void random_pause(unsigned *seed)
{
    unsigned r = rand_r(seed) % 64;
    if (r < 48)
        return;
    for (unsigned k = (r - 47) * 20; k > 0; k--)
        muster_cpu_relax();
}

static void got(stress *s, void *item)
{
    uintptr_t k = number_of(item);
    CHECK(k < s->items, "an item that was never pushed: %lu", (unsigned long)k);
    atomic_fetch_add(&s->seen[k], 1);
}

static void *thief_main(void *arg)
{
    team_member *me = arg;
    stress *s = me->shared;
    unsigned seed = s->seed * 31u + me->id;
    for (;;) {
        void *x;
        muster_steal r = muster_deque_steal(&s->deque, &x);
        if (r == MUSTER_STEAL_OK) {
            got(s, x);
            atomic_fetch_add(&s->stolen, 1);
        } else if (r == MUSTER_STEAL_LOST) {
            atomic_fetch_add(&s->lost, 1);
        } else if (atomic_load(&s->owner_done)) {
            /* The owner is done and the deque was empty after that. */
            if (muster_deque_size(&s->deque) == 0)
                return NULL;
        }
        random_pause(&seed);
    }
}

/* One episode: the owner pushes `items` tasks into a deque of `capacity`,
 * taking one back now and then (and running a task itself when the deque
 * is full), while `thieves` threads steal.  Afterwards every item must have
 * come out exactly once. */
static void run_episode(unsigned capacity, unsigned thieves, uintptr_t items, unsigned seed)
{
    stress s = {.items = items, .seed = seed};
    CHECK(muster_deque_init(&s.deque, capacity) == 0, "init");
    s.seen = calloc(items, sizeof *s.seen);
    CHECK(s.seen != NULL, "memory");
    test_threads thief_threads = test_threads_start(thieves, thief_main, &s);
    unsigned owner_seed = seed;
    uint64_t ran_at_once = 0;
    for (uintptr_t k = 0; k < items; k++) {
        if (!muster_deque_push(&s.deque, item_of(k))) {
            got(&s, item_of(k)); /* full: run it now, as the scheduler will */
            ran_at_once++;
        }
        if (rand_r(&owner_seed) % 3 == 0) {
            void *x = muster_deque_take(&s.deque);
            if (x != NULL)
                got(&s, x);
        }
        random_pause(&owner_seed);
    }
    /* Drain what the thieves leave, then let them go. */
    for (void *x; (x = muster_deque_take(&s.deque)) != NULL;)
        got(&s, x);
    atomic_store(&s.owner_done, 1);
    test_threads_join(&thief_threads);
    for (uintptr_t k = 0; k < items; k++)
        CHECK(atomic_load(&s.seen[k]) == 1, "capacity %u, %u thieves: item %lu came out %u times", capacity,
              thieves, (unsigned long)k, atomic_load(&s.seen[k]));
    if (thieves > 0 && items >= 10000)
        CHECK(atomic_load(&s.stolen) > 0, "%u thieves stole nothing of %lu items", thieves, (unsigned long)items);
    free(s.seen);
    muster_deque_destroy(&s.deque);
    (void)ran_at_once;
}

static void test_concurrent(void)
{
    static const unsigned capacities[] = {2, 4, 64, 1024};
    static const unsigned thief_counts[] = {1, 2, 3, 5, 7};
    uintptr_t items = scaled(60000);
    unsigned episodes = 0;
    for (size_t c = 0; c < sizeof capacities / sizeof capacities[0]; c++)
        for (size_t t = 0; t < sizeof thief_counts / sizeof thief_counts[0]; t++)
            for (unsigned rep = 0; rep < 2; rep++, episodes++)
                run_episode(capacities[c], thief_counts[t], items, 1000u * (unsigned)c + 10u * (unsigned)t + rep);
    printf("deque: %u episodes of %lu items, each came out exactly once\n", episodes, (unsigned long)items);
}

/* A tagged steal takes the oldest item only when one of its tags is the one
 * asked for; otherwise it leaves the deque as it was.  Slots reused after
 * a wrap carry their new item's tags, and an untagged push none. */
static void test_tags(void)
{
    muster_deque d;
    CHECK(muster_deque_init(&d, 4) == 0, "init");
    void *x = NULL;
    uintptr_t a[MUSTER_DEQUE_TAGS] = {11, 12, 13, 14}, b[MUSTER_DEQUE_TAGS] = {21, 22, 0, 0};
    CHECK(muster_deque_steal_tagged(&d, &x, 11) == MUSTER_STEAL_EMPTY, "empty");
    CHECK(muster_deque_push_tagged(&d, item_of(1), a) && muster_deque_push_tagged(&d, item_of(2), b), "push");
    for (int k = 0; k < MUSTER_DEQUE_TAGS; k++)
        if (b[k] != 0)
            CHECK(muster_deque_steal_tagged(&d, &x, b[k]) == MUSTER_STEAL_OTHER,
                  "the oldest item lacks tag %lu", (unsigned long)b[k]);
    CHECK(muster_deque_size(&d) == 2, "a refused steal leaves both items");
    CHECK(muster_deque_steal_tagged(&d, &x, 14) == MUSTER_STEAL_OK && number_of(x) == 1,
          "the last tag matches too");
    CHECK(muster_deque_steal_tagged(&d, &x, 11) == MUSTER_STEAL_OTHER, "the next oldest has other tags");
    CHECK(muster_deque_steal_tagged(&d, &x, 22) == MUSTER_STEAL_OK && number_of(x) == 2, "its own tag");
    /* Wrap around: every slot reused, untagged now. */
    for (uintptr_t k = 0; k < 4; k++)
        CHECK(muster_deque_push(&d, item_of(10 + k)), "push untagged");
    CHECK(muster_deque_steal_tagged(&d, &x, 11) == MUSTER_STEAL_OTHER &&
              muster_deque_steal_tagged(&d, &x, 21) == MUSTER_STEAL_OTHER,
          "a reused slot keeps no old tags");
    CHECK(muster_deque_steal(&d, &x) == MUSTER_STEAL_OK && number_of(x) == 10, "an untagged steal takes it");
    muster_deque_destroy(&d);
}

int main(void)
{
    test_order_and_bound();
    test_private();
    test_tags();
    test_concurrent();
    printf("deque ok\n");
    return 0;
}
