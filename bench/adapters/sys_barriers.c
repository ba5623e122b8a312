/* Comparators that need nothing beyond the system: glibc's
 * pthread_barrier_wait, C++20 std::barrier and muster's own C++ API beside
 * it (through cxx_barrier.cpp), and the floor, a two-thread exchange of
 * flags that no barrier can beat. */
#include "bench_impl.h"
#include "platform/platform.h"
#include "cxx_barrier.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pthreads, std::barrier and muster::barrier keep all their state behind
 * the shared pointer: a thread's slot holds only that pointer. */
static int attach_shared_pointer(void *shared, unsigned id, bench_slot *slot, char err[BENCH_ERR_LEN])
{
    memcpy(slot->bytes, &shared, sizeof shared);
    return 0;
}

static void *shared_pointer(const bench_slot *slot)
{
    void *shared;
    memcpy(&shared, slot->bytes, sizeof shared);
    return shared;
}

/* ---- pthread_barrier_wait ---------------------------------------------- */

static int pt_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    pthread_barrier_t *b = malloc(sizeof *b);
    int rc = b ? pthread_barrier_init(b, NULL, n) : ENOMEM;
    if (rc != 0) {
        snprintf(err, BENCH_ERR_LEN, "pthread_barrier_init: %s", strerror(rc));
        free(b);
        return -1;
    }
    *shared = b;
    return 0;
}

static int pt_wait(bench_slot *slot)
{
    int rc = pthread_barrier_wait(shared_pointer(slot));
    if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
        return 1;
    return rc == 0 ? 0 : -rc;
}

static void pt_destroy(void *shared, unsigned n)
{
    pthread_barrier_destroy(shared);
    free(shared);
}

/* glibc keeps the whole barrier inside pthread_barrier_t. */
static double pt_state_bytes(void *shared, unsigned n) { return (double)sizeof(pthread_barrier_t) / n; }

static void pt_describe(int rc, char err[BENCH_ERR_LEN])
{
    snprintf(err, BENCH_ERR_LEN, "pthread_barrier_wait: %s", strerror(rc < 0 ? -rc : rc));
}

const bench_impl bench_pthread = {
    .name = "pthread_barrier",
    .family = "pthread",
    .counts_serial = 1,
    .create = pt_create,
    .attach = attach_shared_pointer,
    .wait = pt_wait,
    .destroy = pt_destroy,
    .state_bytes = pt_state_bytes,
    .describe_error = pt_describe,
};

/* ---- std::barrier ------------------------------------------------------- */

static int cxx_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    *shared = cxx_barrier_create(n);
    if (*shared == NULL) {
        snprintf(err, BENCH_ERR_LEN, "std::barrier(%u) could not be constructed", n);
        return -1;
    }
    return 0;
}

static int cxx_wait(bench_slot *slot)
{
    cxx_barrier_wait(shared_pointer(slot));
    return 0;
}

static void cxx_destroy(void *shared, unsigned n) { cxx_barrier_destroy(shared); }

/* libstdc++ keeps its tree on the heap, out of sight: not knowable here. */
static double cxx_state_bytes(void *shared, unsigned n) { return -1.0; }

const bench_impl bench_std_barrier = {
    .name = "std::barrier",
    .family = "std",
    .create = cxx_create,
    .attach = attach_shared_pointer,
    .wait = cxx_wait,
    .destroy = cxx_destroy,
    .state_bytes = cxx_state_bytes,
};

/* ---- muster::barrier, the C++ API, used as std::barrier is ---------------- */

static int muster_cxx_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    (void)arg;
    *shared = cxx_muster_barrier_create(n, err, BENCH_ERR_LEN);
    return *shared != NULL ? 0 : -1;
}

static int muster_cxx_wait(bench_slot *slot)
{
    cxx_muster_barrier_wait(shared_pointer(slot));
    return 0;
}

static void muster_cxx_destroy(void *shared, unsigned n)
{
    (void)n;
    cxx_muster_barrier_destroy(shared);
}

const bench_impl bench_muster_cxx = {
    .name = "muster::barrier",
    .family = "muster",
    .create = muster_cxx_create,
    .attach = attach_shared_pointer,
    .wait = muster_cxx_wait,
    .destroy = muster_cxx_destroy,
    .state_bytes = cxx_state_bytes,
};

/* ---- the floor: two threads exchanging flags ---------------------------- */

/* Each flag on its own cache line, so the only traffic is the two stores and
 * the two remote reads that any two-thread barrier must make. */
struct floor_line {
    _Alignas(64) _Atomic uint64_t episode;
};
struct floor_shared {
    struct floor_line line[2];
};
struct floor_slot {
    struct floor_line *mine;
    struct floor_line *other;
    uint64_t episode;
};
_Static_assert(sizeof(struct floor_slot) <= BENCH_SLOT_BYTES, "slot too small");

static int floor_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    struct floor_shared *f = aligned_alloc(64, sizeof *f);
    if (f == NULL) {
        snprintf(err, BENCH_ERR_LEN, "out of memory");
        return -1;
    }
    atomic_init(&f->line[0].episode, 0);
    atomic_init(&f->line[1].episode, 0);
    *shared = f;
    return 0;
}

static int floor_attach(void *shared, unsigned id, bench_slot *slot, char err[BENCH_ERR_LEN])
{
    struct floor_shared *f = shared;
    struct floor_slot *s = (struct floor_slot *)slot->bytes;
    s->mine = &f->line[id];
    s->other = &f->line[1 - id];
    s->episode = 0;
    return 0;
}

/* Episode numbers only grow, so a thread that runs ahead into the next
 * episode cannot be mistaken for one still in this one.  Release/acquire
 * makes the flag carry everything its owner wrote before arriving. */
static int floor_wait(bench_slot *slot)
{
    struct floor_slot *s = (struct floor_slot *)slot->bytes;
    uint64_t e = ++s->episode;
    atomic_store_explicit(&s->mine->episode, e, memory_order_release);
    while (atomic_load_explicit(&s->other->episode, memory_order_acquire) < e)
        muster_cpu_relax();
    return 0;
}

static void floor_destroy(void *shared, unsigned n) { free(shared); }

/* Two flag lines plus each thread's episode counter. */
static double floor_state_bytes(void *shared, unsigned n)
{
    return (sizeof(struct floor_shared) + 2.0 * sizeof(uint64_t)) / 2.0;
}

const bench_impl bench_floor = {
    .name = "floor",
    .label = "floor: 2-thread flags",
    .family = "floor",
    .only_threads = 2,
    .create = floor_create,
    .attach = floor_attach,
    .wait = floor_wait,
    .destroy = floor_destroy,
    .state_bytes = floor_state_bytes,
};
