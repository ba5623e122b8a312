/* What every concurrency test and soak draws on: cheap per-thread
 * randomness and the CPUs this process may run on. */
#ifndef MUSTER_TEST_RANDOM_COMMON_H
#define MUSTER_TEST_RANDOM_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>

/* The CPUs of the affinity mask (1 when it cannot be read). */
static inline unsigned online_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return (unsigned)CPU_COUNT(&set);
    return 1;
}

/* xorshift: cheap per-thread randomness. */
static inline unsigned next_random(unsigned *state)
{
    unsigned x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x ? x : 0x9e3779b9u;
}

#endif
