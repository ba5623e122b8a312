/* The benchmarks' summary of their samples (bench/omp/sample_stats.c), and above
 * all its tail: how many samples lie above 5x the median, the count that
 * `muster bench` shows beside the median so that a bad mode cannot hide. */
#include <math.h>

#include "check.h"
#include "sample_stats.h"

static void test_middle(void)
{
    double x[] = {3, 1, 2, 5, 4};
    sample_stats s = sample_stats_of(x, 5);
    CHECK(s.n == 5 && s.median == 3 && s.min == 1 && s.max == 5 && s.mean == 3, "1..5 summarised");
    CHECK(fabs(s.sd - sqrt(2.5)) < 1e-12, "sample sd of 1..5 is sqrt(2.5), got %g", s.sd);
    CHECK(x[0] == 3 && x[3] == 5, "the samples keep their order");
    double even[] = {4, 1, 3, 2};
    CHECK(sample_stats_of(even, 4).median == 2.5, "an even count takes the middle pair's mean");
    sample_stats none = sample_stats_of(NULL, 0);
    CHECK(none.n == 0 && none.outliers == 0 && none.median == 0, "no samples, all zero");
}

static void test_outliers(void)
{
    double calm[] = {1.0, 1.1, 0.9, 4.9, 1.0};
    CHECK(sample_stats_of(calm, 5).outliers == 0, "4.9 is below 5x a median of 1");
    double edge[] = {1.0, 1.0, 1.0, 5.0, 1.0};
    CHECK(sample_stats_of(edge, 5).outliers == 0, "exactly 5x the median is not above it");
    double bad[] = {0.1, 0.1, 150, 0.1, 0.1, 0.1, 40, 0.1, 0.5, 0.1};
    sample_stats s = sample_stats_of(bad, 10);
    CHECK(s.outliers == 2 && s.max == 150, "two runs in a bad mode among ten: %zu outliers", s.outliers);
    /* A bad mode in half the runs moves the median itself: a run of the
     * good mode is then no outlier, and the worst shows the mode instead. */
    double half[] = {0.1, 200, 0.1, 200, 0.1, 200};
    s = sample_stats_of(half, 6);
    CHECK(s.outliers == 0 && s.max / s.min > 1000, "half and half: no outlier, worst/best %g", s.max / s.min);
    double negative[] = {-0.2, -0.1, -0.3};
    CHECK(sample_stats_of(negative, 3).outliers == 0, "a median at or below zero marks nothing");
}

int main(void)
{
    test_middle();
    test_outliers();
    printf("sample stats ok\n");
    return 0;
}
