/* GOMP_critical_*, GOMP_critical_name_* and GOMP_atomic_* with plain
 * pthreads: mutual exclusion of unnamed and named critical sections at
 * 3, 5, 7 and 8 threads (more than this machine's CPUs), many names whose
 * zero-filled slots threads race to use first, and independence: different
 * names, the unnamed section and the atomic fallback never exclude each
 * other.  Built from critical.c and lock.c, without the rest of the runtime. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "stress_common.h"

/* The entry points, as libgomp_g.h declares them. */
void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_critical_name_start(void **pptr);
void GOMP_critical_name_end(void **pptr);
void GOMP_atomic_start(void);
void GOMP_atomic_end(void);

#define MAX_THREADS 8
#define NAMES 64

/* ---- many names, raced to first use ---- */

/* What gcc emits per name: a pointer-sized zero-initialised slot. */
static void *name_slots[NAMES];
static unsigned long name_counters[NAMES];
static atomic_int name_inside[NAMES];
static unsigned long unnamed_counter;
static atomic_int unnamed_inside;
static atomic_int overlaps;

typedef struct race_arg {
    pthread_barrier_t *start;
    unsigned rounds;
    unsigned seed;
} race_arg;

static void enter_and_count(unsigned long *counter, atomic_int *inside, unsigned *random)
{
    if (atomic_fetch_add(inside, 1) != 0)
        atomic_fetch_add(&overlaps, 1);
    unsigned long seen = *counter;
    if (next_random(random) % 8 == 0)
        random_delay(random);
    *counter = seen + 1;
    atomic_fetch_sub(inside, 1);
}

static void *name_racer(void *p)
{
    race_arg *arg = p;
    unsigned random = arg->seed;
    /* Every thread starts on name 0, together: the first use of each slot
     * is contended.  Then the names in an order of the thread's own. */
    pthread_barrier_wait(arg->start);
    for (unsigned round = 0; round < arg->rounds; round++) {
        unsigned name = round < NAMES ? round : next_random(&random) % NAMES;
        GOMP_critical_name_start(&name_slots[name]);
        enter_and_count(&name_counters[name], &name_inside[name], &random);
        GOMP_critical_name_end(&name_slots[name]);
        if (round % 5 == 0) {
            GOMP_critical_start();
            enter_and_count(&unnamed_counter, &unnamed_inside, &random);
            GOMP_critical_end();
        }
    }
    return NULL;
}

static void run_name_race(unsigned threads, unsigned rounds)
{
    memset(name_slots, 0, sizeof name_slots);
    memset(name_counters, 0, sizeof name_counters);
    unnamed_counter = 0;
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, threads);
    pthread_t tids[MAX_THREADS];
    race_arg args[MAX_THREADS];
    for (unsigned t = 0; t < threads; t++) {
        args[t] = (race_arg){&start, rounds, 0xabcdefu * (t + 7)};
        CHECK(pthread_create(&tids[t], NULL, name_racer, &args[t]) == 0);
    }
    for (unsigned t = 0; t < threads; t++)
        pthread_join(tids[t], NULL);
    pthread_barrier_destroy(&start);
    CHECK(atomic_load(&overlaps) == 0, "%u threads: %d overlapping critical sections", threads, atomic_load(&overlaps));
    unsigned long total = 0;
    for (unsigned n = 0; n < NAMES; n++) {
        CHECK(name_counters[n] >= threads, "name %u: every thread entered it at least once", n);
        total += name_counters[n];
    }
    CHECK(total == (unsigned long)threads * rounds, "%u threads: %lu named entries, expected %lu", threads, total,
          (unsigned long)threads * rounds);
    unsigned long unnamed_expected = (unsigned long)threads * ((rounds + 4) / 5);
    CHECK(unnamed_counter == unnamed_expected, "unnamed: %lu, expected %lu", unnamed_counter, unnamed_expected);
    for (unsigned n = 0; n < NAMES; n++)
        CHECK(name_slots[n] == NULL, "name %u: its slot is back to unlocked (zero)", n);
}

static void test_named_and_unnamed_exclusion(void)
{
    const unsigned counts[] = {3, 5, 7, 8};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        run_name_race(counts[i], scaled(6000));
}

/* ---- independence ---- */

/* A second thread enters `enter` while the first holds `held`; the first
 * waits (up to timeout_ms) for it to get in.  If the two shared a mutex, the second
 * would block until the first gave up. */
typedef struct independence {
    void (*enter)(void);
    void (*leave)(void);
    atomic_int inside;
} independence;

static void *enter_other(void *p)
{
    independence *ind = p;
    ind->enter();
    atomic_store(&ind->inside, 1);
    ind->leave();
    return NULL;
}

static bool other_gets_in(void (*hold)(void), void (*unhold)(void), void (*enter)(void), void (*leave)(void),
                          int timeout_ms)
{
    independence ind = {.enter = enter, .leave = leave};
    hold();
    pthread_t tid;
    CHECK(pthread_create(&tid, NULL, enter_other, &ind) == 0);
    for (int i = 0; i < timeout_ms && !atomic_load(&ind.inside); i++)
        usleep(1000);
    bool got_in = atomic_load(&ind.inside);
    unhold();
    pthread_join(tid, NULL);
    return got_in;
}

static void *slot_a, *slot_b;
static void enter_a(void) { GOMP_critical_name_start(&slot_a); }
static void leave_a(void) { GOMP_critical_name_end(&slot_a); }
static void enter_b(void) { GOMP_critical_name_start(&slot_b); }
static void leave_b(void) { GOMP_critical_name_end(&slot_b); }

static void test_independence(void)
{
    CHECK(other_gets_in(enter_a, leave_a, enter_b, leave_b, 5000), "different names do not exclude each other");
    CHECK(other_gets_in(GOMP_critical_start, GOMP_critical_end, enter_a, leave_a, 5000),
          "a named section is not the unnamed one");
    CHECK(other_gets_in(GOMP_critical_start, GOMP_critical_end, GOMP_atomic_start, GOMP_atomic_end, 5000),
          "the atomic fallback is not the unnamed critical section");
    CHECK(!other_gets_in(enter_a, leave_a, enter_a, leave_a, 200), "the same name excludes");
    CHECK(!other_gets_in(GOMP_critical_start, GOMP_critical_end, GOMP_critical_start, GOMP_critical_end, 200),
          "the unnamed section excludes");
}

int main(void)
{
    test_independence();
    test_named_and_unnamed_exclusion();
    printf("test_omp_critical: ok\n");
    return 0;
}
