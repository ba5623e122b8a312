/* Helpers shared by the concurrency tests: checks, scaling, random delays,
 * teams of threads. */
#ifndef MUSTER_TEST_STRESS_COMMON_H
#define MUSTER_TEST_STRESS_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "muster/barrier.h"

#include "check.h"
#include "random_common.h"

/* MUSTER_TEST_SCALE shrinks episode counts (sanitizer builds are slower). */
static inline double test_scale(void)
{
    const char *s = getenv("MUSTER_TEST_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0.0 ? v : 1.0;
}

static inline unsigned scaled(unsigned n)
{
    unsigned v = (unsigned)(n * test_scale());
    return v ? v : 1;
}

/* A random delay: mostly a short spin, sometimes a yield or a short sleep,
 * so arrival orders and sleep/wake races vary from episode to episode. */
static inline void random_delay(unsigned *state)
{
    unsigned r = next_random(state);
    switch (r % 16) {
    case 0:
        sched_yield();
        break;
    case 1:
        usleep(r % 200);
        break;
    default:
        for (volatile unsigned i = 0; i < r % 2000; i++)
            ;
    }
}

static inline uint64_t test_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether an algorithm offers a feature, as a created barrier of it says
 * (muster_barrier_can_split, muster_barrier_can_arrive). */
/* A barrier of `participants` running `algorithm`, otherwise defaults. */
static inline muster_barrier *test_barrier(muster_algorithm algorithm, unsigned participants)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = algorithm;
    muster_barrier *b;
    CHECK(muster_barrier_create(&b, participants, &attr) == MUSTER_OK, "create %s: %s",
          muster_algorithm_name(algorithm), muster_error_detail());
    return b;
}

static inline int algorithm_can(muster_algorithm algorithm, int (*can)(const muster_barrier *barrier))
{
    muster_barrier *probe = test_barrier(algorithm, 2);
    int yes = can(probe);
    muster_barrier_destroy(probe);
    return yes;
}

/* The algorithm a test is run for, its one argument (not auto); exits
 * with a usage message otherwise. */
static inline muster_algorithm test_algorithm_argument(int argc, char **argv)
{
    muster_algorithm algorithm;
    if (argc != 2 || muster_algorithm_parse(argv[1], &algorithm) != MUSTER_OK || algorithm == MUSTER_ALG_AUTO) {
        fprintf(stderr, "usage: %s ALGORITHM\n", argv[0]);
        exit(2);
    }
    return algorithm;
}

/* A thread of a test's team: what the team shares, and its own number. */
typedef struct team_member {
    void *shared;
    unsigned id;
} team_member;

/* The threads of a test's team (test_threads_start). */
typedef struct test_threads {
    unsigned count;
    pthread_t *threads;
    team_member *members;
} test_threads;

/* Starts `count` threads, thread i running body(&members[i]) with
 * members[i] = {shared, i}. */
static inline test_threads test_threads_start(unsigned count, void *(*body)(void *), void *shared)
{
    test_threads t = {count, calloc(count ? count : 1, sizeof(pthread_t)),
                      calloc(count ? count : 1, sizeof(team_member))};
    CHECK(t.threads != NULL && t.members != NULL, "out of memory for %u threads", count);
    for (unsigned i = 0; i < count; i++) {
        t.members[i] = (team_member){shared, i};
        CHECK(pthread_create(&t.threads[i], NULL, body, &t.members[i]) == 0, "pthread_create");
    }
    return t;
}

/* Waits for every thread of t to return, and frees t. */
static inline void test_threads_join(test_threads *t)
{
    for (unsigned i = 0; i < t->count; i++)
        pthread_join(t->threads[i], NULL);
    free(t->threads);
    free(t->members);
    *t = (test_threads){0};
}

#endif
