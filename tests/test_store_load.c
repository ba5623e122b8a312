/* muster_store_before_load (platform.h), the store half of every
 * store-then-load handshake (the deque's take, the task scheduler's wake-up):
 * the store-buffering litmus test.  Two threads, in lockstep, each store 1
 * to their own fresh variable and then load the other's; C11 forbids both
 * loads seeing 0.  A plain seq_cst store gives that forbidden outcome under
 * qemu-user's AArch64 emulation (0.5-3.6% of tries), which is how the deque
 * once handed one task to two threads in CI; the exchange must never. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "platform/platform.h"

enum { TRIES = 100000 };

typedef struct litmus {
    _Atomic int64_t *x, *y;     /* [TRIES], one pair per try */
    int64_t *seen_y, *seen_x;   /* [TRIES]: what thread 0 read of y, thread 1 of x */
    _Atomic int32_t reached[2]; /* the try each thread has reached */
} litmus;

typedef struct side {
    litmus *l;
    int me;
} side;

/* Both threads start try i together, or the race never happens: spin a
 * little, then yield, since on a loaded 2-CPU machine the other may not be
 * running. */
static void meet(litmus *l, int me, int32_t i)
{
    /* release/acquire: only the meeting; the try's own accesses are seq_cst. */
    atomic_store_explicit(&l->reached[me], i, memory_order_release);
    for (unsigned spins = 0; atomic_load_explicit(&l->reached[1 - me], memory_order_acquire) < i; spins++) {
        if (spins < 200)
            muster_cpu_relax();
        else
            sched_yield();
    }
}

static void *run_side(void *arg)
{
    side *s = arg;
    litmus *l = s->l;
    for (int32_t i = 0; i < TRIES; i++) {
        meet(l, s->me, i);
        if (s->me == 0) {
            muster_store_before_load(&l->x[i], 1);
            l->seen_y[i] = atomic_load(&l->y[i]);
        } else {
            muster_store_before_load(&l->y[i], 1);
            l->seen_x[i] = atomic_load(&l->x[i]);
        }
    }
    return NULL;
}

int main(void)
{
    litmus l = {
        .x = calloc(TRIES, sizeof *l.x),
        .y = calloc(TRIES, sizeof *l.y),
        .seen_y = calloc(TRIES, sizeof *l.seen_y),
        .seen_x = calloc(TRIES, sizeof *l.seen_x),
    };
    CHECK(l.x && l.y && l.seen_y && l.seen_x, "memory");
    atomic_init(&l.reached[0], -1);
    atomic_init(&l.reached[1], -1);
    side sides[2] = {{&l, 0}, {&l, 1}};
    pthread_t other;
    CHECK(pthread_create(&other, NULL, run_side, &sides[1]) == 0, "thread");
    run_side(&sides[0]);
    pthread_join(other, NULL);
    unsigned forbidden = 0, both_saw = 0;
    for (int32_t i = 0; i < TRIES; i++) {
        forbidden += l.seen_y[i] == 0 && l.seen_x[i] == 0;
        both_saw += l.seen_y[i] == 1 && l.seen_x[i] == 1;
    }
    CHECK(forbidden == 0, "%u of %d tries: each thread's load missed the other's store", forbidden, TRIES);
    printf("store-before-load: %d tries, none missed both stores (%u saw both: the threads overlapped)\n", TRIES,
           both_saw);
    free(l.x);
    free(l.y);
    free(l.seen_y);
    free(l.seen_x);
    return 0;
}
