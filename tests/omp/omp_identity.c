/* Which runtime answers.  With MUSTER_EXPECT_RUNTIME=muster (or libgomp)
 * it fails unless GOMP_parallel, GOMP_barrier, omp_get_thread_num,
 * omp_get_num_threads and omp_set_lock — by the address the program's own
 * references resolved to and by dlsym(RTLD_DEFAULT) — are defined in
 * libmuster-omp.so (or libgomp.so), and unless the region's threads see
 * the same.  Run on plain libgomp with MUSTER_EXPECT_RUNTIME=muster it
 * must fail: the harness checks that too.  Uses nothing only muster
 * exports. */
#include "corpus.h"

/* gcc's entry points, which omp.h does not declare. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);

int main(void)
{
    corpus_begin("omp_identity");
    const char *expect = getenv("MUSTER_EXPECT_RUNTIME");
    corpus_check_symbol("GOMP_parallel", (const void *)&GOMP_parallel);
    corpus_check_symbol("GOMP_barrier", (const void *)&GOMP_barrier);
    corpus_check_symbol("omp_set_lock", (const void *)&omp_set_lock);
    corpus_check_symbol("omp_get_max_threads", (const void *)&omp_get_max_threads);
    const char *where = corpus_object_of((const void *)&GOMP_parallel);
    int agree = 0, n = 0;
#pragma omp parallel reduction(+ : agree, n)
    {
        n++;
        agree += strcmp(corpus_object_of(dlsym(RTLD_DEFAULT, "omp_get_thread_num")), where) == 0;
#pragma omp barrier
    }
    CHECK_EQ(agree, n, "threads whose lookup of omp_get_thread_num names %s", where);
    fprintf(stderr, "omp_identity: GOMP_parallel is defined in %s (expected: %s)\n", where,
            expect && *expect ? expect : "not checked");
    corpus_summary("entry points resolved to the expected runtime%s", expect && *expect ? "" : " (unchecked)");
    return 0;
}
