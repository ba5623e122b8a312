#include "sample_stats.h"
#include "sorted.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The median of a sorted copy; the samples stay in the order they were taken. */
static double median_of(const double *x, size_t n)
{
    double small[64];
    double *sorted = n <= 64 ? small : malloc(n * sizeof *sorted);
    if (sorted == NULL)
        return NAN;
    memcpy(sorted, x, n * sizeof *sorted);
    double m = muster_median_sorting(sorted, n);
    if (sorted != small)
        free(sorted);
    return m;
}

sample_stats sample_stats_of(const double *x, size_t n)
{
    sample_stats s = {.n = n};
    if (n == 0)
        return s;
    s.min = s.max = x[0];
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        s.min = x[i] < s.min ? x[i] : s.min;
        s.max = x[i] > s.max ? x[i] : s.max;
    }
    s.mean = sum / (double)n;
    double squares = 0;
    for (size_t i = 0; i < n; i++)
        squares += (x[i] - s.mean) * (x[i] - s.mean);
    s.sd = n > 1 ? sqrt(squares / (double)(n - 1)) : 0;
    s.median = median_of(x, n);
    for (size_t i = 0; i < n; i++)
        s.outliers += x[i] > SAMPLE_OUTLIER_FACTOR * s.median && s.median > 0;
    return s;
}
