/* Summary statistics of a handful of benchmark samples: the OpenMP syncbench
 * summarises its own samples, and `muster bench omp` the samples it gathers
 * one process at a time. */
#ifndef MUSTER_BENCH_SAMPLE_STATS_H
#define MUSTER_BENCH_SAMPLE_STATS_H

#include <stddef.h>

typedef struct sample_stats {
    size_t n;
    double mean, median, sd, min, max; /* sd: sample standard deviation, 0 when n < 2 */
    /* The tail: samples above SAMPLE_OUTLIER_FACTOR times the median.  A
     * median hides a bad mode that some runs fall into; this counts them. */
    size_t outliers;
} sample_stats;

/* A run this many times slower than the median is an outlier (issue #10). */
#define SAMPLE_OUTLIER_FACTOR 5.0

/* Summarises x[0..n) (n may be 0: everything zero).  Does not change x. */
sample_stats sample_stats_of(const double *x, size_t n);

#endif
