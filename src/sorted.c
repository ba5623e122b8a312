/* Sorting and medians of doubles (sorted.h). */
#include "sorted.h"

#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void muster_sort_doubles(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_doubles);
}

double muster_median_of_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double muster_median_sorting(double *v, size_t n)
{
    muster_sort_doubles(v, n);
    return muster_median_of_sorted(v, n);
}
