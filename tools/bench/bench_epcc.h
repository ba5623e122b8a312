/* One EPCC measurement (Bull & O'Neill) of one barrier at one team size, made
 * in a child process so that a barrier that never finishes (spinning threads
 * outnumbering CPUs) can be killed without taking the command with it. */
#ifndef MUSTER_TOOLS_BENCH_EPCC_H
#define MUSTER_TOOLS_BENCH_EPCC_H

#include "bench_impl.h"
#include "epcc_delay.h"

#include <stdint.h>

/* EPCC_INFO is the child's first record (what the barrier is, before it is
 * timed), so that a measurement that never finishes still reports it. */
typedef enum epcc_status { EPCC_OK, EPCC_DNF, EPCC_ERROR, EPCC_INFO } epcc_status;

typedef struct epcc_request {
    const bench_impl *impl;
    const void *arg;    /* the adapter's create() argument */
    unsigned threads;
    const int *cpus;    /* cpus[i]: the CPU thread i is pinned to; -1: not pinned */
    uint64_t inner;     /* inner repetitions; 0: calibrate them to target_ns */
    uint64_t target_ns; /* how long the test loop should take */
    unsigned delay_iters;
    double timeout_s;
} epcc_request;

typedef struct epcc_result {
    int status;         /* epcc_status */
    uint64_t inner;     /* the inner repetitions used (calibrated or given) */
    uint64_t test_ns;   /* inner x {delay; barrier}, all threads */
    uint64_t ref_ns;    /* inner x {delay}, one thread alone */
    uint64_t csw;       /* voluntary + involuntary context switches in the test loop */
    double state_bytes; /* per participant; < 0: unknown */
    int resolved_algorithm, resolved_policy; /* what muster chose; -1 elsewhere */
    char message[BENCH_ERR_LEN];
} epcc_result;

/* Measures in a child process and always fills *out: EPCC_OK, EPCC_DNF when
 * the child ran past the timeout and was killed (state_bytes and resolved_*
 * still filled where the child got that far), or EPCC_ERROR with a message. */
void epcc_measure(const epcc_request *rq, epcc_result *out);

#endif
