/* One calling convention for every barrier the benchmark measures.
 *
 * muster's own barriers and each comparator (Concurrency Kit, pthreads,
 * std::barrier, the flag-exchange floor) sit behind the same few function
 * pointers, so every row of the table pays the same indirect call and the
 * differences left are the barriers' own.
 */
#ifndef MUSTER_BENCH_IMPL_H
#define MUSTER_BENCH_IMPL_H

#include <stddef.h>

/* A thread's private barrier state (CK's per-thread state, muster's id, ...).
 * It lives on the waiting thread's own stack, as the libraries' examples keep
 * it, and one cache line is enough for every adapter. */
#define BENCH_SLOT_BYTES 64
typedef struct bench_slot {
    _Alignas(64) unsigned char bytes[BENCH_SLOT_BYTES];
} bench_slot;

#define BENCH_ERR_LEN 160

typedef struct bench_impl {
    const char *name;   /* JSON "impl" and, unless label is set, the row label */
    const char *label;  /* the table's row label where it differs from name */
    const char *family; /* "muster", "ck", "pthread", "std", "floor" */
    unsigned only_threads; /* 0: any team size; else the one size it supports */
    int counts_serial;  /* wait() returns 1 to exactly one thread per episode */

    /* Builds the shared state for n threads.  arg is adapter-specific (muster's
     * algorithm and policy).  Returns 0, or -1 with a message in err. */
    int (*create)(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN]);
    /* Called by thread `id` itself before its first wait, so that per-thread
     * state is set up (and, for CK, subscribed) by the thread that uses it. */
    int (*attach)(void *shared, unsigned id, bench_slot *slot, char err[BENCH_ERR_LEN]);
    /* 1 for the serial thread (where known), 0 otherwise, < 0 on failure. */
    int (*wait)(bench_slot *slot);
    void (*destroy)(void *shared, unsigned n);
    /* Bytes of barrier state per participant, or < 0 when it cannot be known. */
    double (*state_bytes)(void *shared, unsigned n);
    /* Optional: what an adapter that resolves defaults actually chose
     * (muster's algorithm and policy numbers); NULL elsewhere. */
    void (*resolved)(void *shared, int *algorithm, int *policy);
    /* Optional: a message for a failed wait (muster's error detail). */
    void (*describe_error)(int rc, char err[BENCH_ERR_LEN]);
} bench_impl;

/* muster's adapter; its arg is a struct bench_muster_choice. */
struct bench_muster_choice {
    int algorithm; /* muster_algorithm */
    int policy;    /* muster_wait_policy */
};
extern const bench_impl bench_muster;

/* The comparators compiled in, in table order; *count is set. */
const bench_impl *const *bench_comparators(size_t *count);

#endif
