/* The comparators `muster bench barrier` runs beside muster, in table order. */
#include "bench_impl.h"

extern const bench_impl bench_ck[];
extern const size_t bench_ck_count;
extern const bench_impl bench_pthread, bench_std_barrier, bench_muster_cxx, bench_floor;

/* Room for every comparator; CK contributes five when it is compiled in. */
#define MAX_COMPARATORS 16

const bench_impl *const *bench_comparators(size_t *count)
{
    static const bench_impl *list[MAX_COMPARATORS];
    size_t n = 0;
    for (size_t i = 0; i < bench_ck_count && n < MAX_COMPARATORS - 4; i++)
        list[n++] = &bench_ck[i];
    list[n++] = &bench_pthread;
    list[n++] = &bench_std_barrier;
    list[n++] = &bench_muster_cxx;
    list[n++] = &bench_floor;
    *count = n;
    return list;
}
