/* Sorting and medians of doubles: the one copy that the latency probe, the
 * machine file's layers and the benchmarks' statistics share. */
#ifndef MUSTER_SORTED_H
#define MUSTER_SORTED_H

#include <stddef.h>

/* Sorts v ascending. */
void muster_sort_doubles(double *v, size_t n);

/* The median of v[0..n), sorted ascending: the middle value, or the mean
 * of the middle two.  n must be at least 1. */
double muster_median_of_sorted(const double *v, size_t n);

/* Sorts v, then its median (v[0] is then the least).  n >= 1. */
double muster_median_sorting(double *v, size_t n);

#endif
