#include "epcc_delay.h"

#include <time.h>

uint64_t epcc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void epcc_delay(unsigned iters)
{
    unsigned x = 0;
    for (unsigned i = 0; i < iters; i++) {
        x += i;
        /* An empty asm that "changes" x keeps the loop from being folded. */
        __asm__ __volatile__("" : "+r"(x));
    }
}

/* The fastest of a few runs: on a shared machine the slow ones were
 * interrupted, not representative. */
static double best_ns_per_call(unsigned iters, unsigned calls)
{
    double best = 0;
    for (int run = 0; run < 5; run++) {
        uint64_t t0 = epcc_now_ns();
        for (unsigned c = 0; c < calls; c++)
            epcc_delay(iters);
        double ns = (double)(epcc_now_ns() - t0) / calls;
        if (run == 0 || ns < best)
            best = ns;
    }
    return best;
}

unsigned epcc_calibrate_delay(double ns, double *measured_ns)
{
    const unsigned probe = 1000000;
    double per_step = best_ns_per_call(probe, 1) / probe;
    unsigned iters = per_step > 0 ? (unsigned)(ns / per_step + 0.5) : 1;
    if (iters == 0)
        iters = 1;
    *measured_ns = best_ns_per_call(iters, 100000);
    return iters;
}
