/* One program, two compilers (issue #12): this half is built by gcc (GOMP_*
 * calls), omp_mixed_clang.c by clang (__kmpc_* calls), linked together
 * against both libgomp and libomp.  Under libmuster-omp they share one
 * runtime: a region forked by gcc code runs clang-built worksharing,
 * barriers, single and atomics in its team, and a lock initialised by gcc
 * code excludes clang code; a region forked by clang code runs gcc-built
 * worksharing.  Named critical sections do not cross the halves (their
 * names are different symbols to the two compilers, as under libomp), so
 * each half keeps to its own.  Run on muster only: on the two libraries it
 * links, the halves would have two runtimes. */
#include "corpus.h"

void clang_half_in_gcc_team(long *total, omp_lock_t *lock, long *locked, int *singles, int round);
void clang_half_forks(long *sum, int threads);

/* Worksharing from gcc code, in a team clang code forked. */
void gcc_half_loop(long *sum)
{
#pragma omp for schedule(dynamic, 3) reduction(+ : sum[0])
    for (int i = 0; i < 300; i++)
        sum[0] += i;
}

int main(void)
{
    corpus_begin("omp_mixed");
    int T = corpus_threads();
    omp_lock_t lock;
    omp_init_lock(&lock);
    for (int round = 0; round < 20; round++) {
        long total = 0, locked = 0, sum = 0;
        int singles = 0, members = 0;
#pragma omp parallel reduction(+ : members)
        {
            members++;
            clang_half_in_gcc_team(&total, &lock, &locked, &singles, round);
        }
        CHECK_EQ(members, T, "round %d: gcc's team", round);
        CHECK_EQ(total, 2L * 44850, "round %d: clang's static and dynamic loops in gcc's team", round);
        CHECK_EQ(locked, 100L * T, "round %d: increments under a lock gcc initialised", round);
        CHECK_EQ(singles, 1, "round %d: clang's single in gcc's team", round);
        clang_half_forks(&sum, T);
        CHECK_EQ(sum, 44850, "round %d: gcc's dynamic loop in clang's team", round);
    }
    omp_destroy_lock(&lock);
    corpus_summary("rounds=20 ok");
    return 0;
}
