/* The EPCC delay loop and the clock, shared by the barrier harness
 * (bench_epcc.c), the model's calibration and the OpenMP syncbench
 * (bench/omp/syncbench.c): every benchmark times the same busy delay. */
#ifndef MUSTER_BENCH_EPCC_DELAY_H
#define MUSTER_BENCH_EPCC_DELAY_H

#include <stdint.h>

/* The EPCC delay: a busy loop of `iters` steps the compiler cannot remove. */
void epcc_delay(unsigned iters);

/* Steps of epcc_delay that take about `ns` nanoseconds here; *measured_ns is
 * what that many steps actually took. */
unsigned epcc_calibrate_delay(double ns, double *measured_ns);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t epcc_now_ns(void);

#endif
