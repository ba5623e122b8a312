/* What the two soaks share beyond random_common.h: the clock, the number
 * options, and the signal handlers of the storm and of the watchdog's
 * stack dump. */
#ifndef MUSTER_SOAK_COMMON_H
#define MUSTER_SOAK_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <execinfo.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "random_common.h" /* next_random, online_cpus */

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A whole number option in [min, max], or a message naming it and exit 2. */
static inline unsigned long soak_number(const char *prog, const char *option, const char *text, unsigned long min,
                                        unsigned long max)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || text[0] == '-' || v < min || v > max) {
        fprintf(stderr, "%s: %s '%s': a whole number from %lu to %lu\n", prog, option, text, min, max);
        exit(2);
    }
    return v;
}

/* SIGUSR1, the storm's: does nothing but interrupt (no SA_RESTART, so
 * futex waits return EINTR).  SIGUSR2, the watchdog's: the receiving
 * thread's stack on stderr. */
static void soak_on_storm(int signo)
{
    (void)signo;
}

static void soak_on_dump(int signo)
{
    (void)signo;
    void *frames[48];
    int n = backtrace(frames, 48);
    static const char line[] = "---- a thread's stack:\n";
    ssize_t ignored = write(2, line, sizeof line - 1);
    (void)ignored;
    backtrace_symbols_fd(frames, n, 2);
}

static inline void soak_install_handlers(void)
{
    struct sigaction sa = {.sa_handler = soak_on_storm};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = soak_on_dump;
    sigaction(SIGUSR2, &sa, NULL);
}

#endif
