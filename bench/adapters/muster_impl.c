/* muster's barriers behind the benchmark's calling convention. */
#include "bench_impl.h"

#include <muster/barrier.h>
#include <stdio.h>
#include <string.h>

struct muster_slot {
    muster_barrier *barrier;
    unsigned id;
};
_Static_assert(sizeof(struct muster_slot) <= BENCH_SLOT_BYTES, "slot too small");

static void mu_describe(int rc, char err[BENCH_ERR_LEN])
{
    const char *detail = muster_error_detail();
    snprintf(err, BENCH_ERR_LEN, "%s%s%s", muster_strerror(rc), *detail ? ": " : "", detail);
}

static int mu_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    const struct bench_muster_choice *choice = arg;
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = (muster_algorithm)choice->algorithm;
    attr.wait_policy = (muster_wait_policy)choice->policy;
    muster_barrier *barrier = NULL;
    int rc = muster_barrier_create(&barrier, n, &attr);
    if (rc < 0) {
        mu_describe(rc, err);
        return -1;
    }
    *shared = barrier;
    return 0;
}

static int mu_attach(void *shared, unsigned id, bench_slot *slot, char err[BENCH_ERR_LEN])
{
    struct muster_slot *s = (struct muster_slot *)slot->bytes;
    s->barrier = shared;
    s->id = id;
    return 0;
}

static int mu_wait(bench_slot *slot)
{
    struct muster_slot *s = (struct muster_slot *)slot->bytes;
    int rc = muster_barrier_wait(s->barrier, s->id);
    return rc == MUSTER_BARRIER_SERIAL ? 1 : rc;
}

static void mu_destroy(void *shared, unsigned n) { muster_barrier_destroy(shared); }

static double mu_state_bytes(void *shared, unsigned n)
{
    return (double)muster_barrier_state_bytes(shared);
}

static void mu_resolved(void *shared, int *algorithm, int *policy)
{
    muster_barrier_attr attr;
    memset(&attr, 0, sizeof attr);
    if (muster_barrier_get_attr(shared, &attr) < 0)
        return;
    *algorithm = (int)attr.algorithm;
    *policy = (int)attr.wait_policy;
}

const bench_impl bench_muster = {
    .name = "muster",
    .family = "muster",
    .counts_serial = 1,
    .create = mu_create,
    .attach = mu_attach,
    .wait = mu_wait,
    .destroy = mu_destroy,
    .state_bytes = mu_state_bytes,
    .resolved = mu_resolved,
    .describe_error = mu_describe,
};
