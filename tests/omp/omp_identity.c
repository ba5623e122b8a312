/* Which runtime answers.  With MUSTER_EXPECT_RUNTIME=muster (or libgomp,
 * or libomp) it fails unless GOMP_parallel (__kmpc_fork_call when built
 * by clang), GOMP_barrier (__kmpc_barrier), omp_get_thread_num,
 * omp_get_num_threads and omp_set_lock — by the address the program's own
 * references resolved to and by dlsym(RTLD_DEFAULT) — are defined in
 * libmuster-omp.so (or libgomp.so), and unless the region's threads see
 * the same.  Run on plain libgomp with MUSTER_EXPECT_RUNTIME=muster it
 * must fail: the harness checks that too.  Uses nothing only muster
 * exports. */
#include "corpus.h"

/* The compiler's entry points, which omp.h does not declare: gcc's
 * GOMP_*, or for a clang build LLVM's __kmpc_* (types beside the point). */
#ifdef __clang__
void __kmpc_fork_call(void *loc, int argc, void *fn, ...);
void __kmpc_barrier(void *loc, int gtid);
#define FORK_NAME "__kmpc_fork_call"
#define FORK_ENTRY ((const void *)&__kmpc_fork_call)
#define BARRIER_NAME "__kmpc_barrier"
#define BARRIER_ENTRY ((const void *)&__kmpc_barrier)
#else
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
#define FORK_NAME "GOMP_parallel"
#define FORK_ENTRY ((const void *)&GOMP_parallel)
#define BARRIER_NAME "GOMP_barrier"
#define BARRIER_ENTRY ((const void *)&GOMP_barrier)
#endif

int main(void)
{
    corpus_begin("omp_identity");
    const char *expect = getenv("MUSTER_EXPECT_RUNTIME");
    corpus_check_symbol(FORK_NAME, FORK_ENTRY);
    corpus_check_symbol(BARRIER_NAME, BARRIER_ENTRY);
    corpus_check_symbol("omp_set_lock", (const void *)&omp_set_lock);
    corpus_check_symbol("omp_get_max_threads", (const void *)&omp_get_max_threads);
    const char *where = corpus_object_of(FORK_ENTRY);
    int agree = 0, n = 0;
#pragma omp parallel reduction(+ : agree, n)
    {
        n++;
        agree += strcmp(corpus_object_of(dlsym(RTLD_DEFAULT, "omp_get_thread_num")), where) == 0;
#pragma omp barrier
    }
    CHECK_EQ(agree, n, "threads whose lookup of omp_get_thread_num names %s", where);
    fprintf(stderr, "omp_identity: " FORK_NAME " is defined in %s (expected: %s)\n", where,
            expect && *expect ? expect : "not checked");
    corpus_summary("entry points resolved to the expected runtime%s", expect && *expect ? "" : " (unchecked)");
    return 0;
}
