/* Reductions as gcc lowers them: +, *, -, min, max, &&, ||, &, |, ^ over
 * int, long, unsigned long long, float and double (values chosen so that
 * every order of combination gives the same exact result), several clauses
 * at once, array sections, user-defined `declare reduction` on a struct
 * and on an int, on parallel, for (also nowait), sections and parallel
 * for, and an inscan reduction (prefix sums with #pragma omp scan). */
#include <float.h>
#include <limits.h>

#include "corpus.h"

#define N 1000

struct stats {
    long count, sum, min, max;
};

static struct stats stats_merge(struct stats a, struct stats b)
{
    a.count += b.count;
    a.sum += b.sum;
    a.min = b.min < a.min ? b.min : a.min;
    a.max = b.max > a.max ? b.max : a.max;
    return a;
}

#pragma omp declare reduction(merge:struct stats : omp_out = stats_merge(omp_out, omp_in))                   \
    initializer(omp_priv = (struct stats){0, 0, LONG_MAX, LONG_MIN})

/* Multiplication mod 1000003, a commutative monoid with identity 1. */
#pragma omp declare reduction(mulmod:long : omp_out = (omp_out * omp_in) % 1000003) initializer(omp_priv = 1)

static long value(int i) { return (long)((i * 7919) % 1013) - 500; }

int main(void)
{
    corpus_begin("omp_reduction");
    int T = corpus_threads();

    /* Serial results. */
    long s_sum = 0, s_min = LONG_MAX, s_max = LONG_MIN, s_mulmod = 1;
    unsigned long long s_prod = 1, s_xor = 0, s_or = 0, s_and = ~0ull;
    int s_all = 1, s_any = 0;
    double s_dsum = 0, s_dprod = 1, s_dmin = DBL_MAX, s_dmax = -DBL_MAX;
    float s_fsum = 0;
    for (int i = 0; i < N; i++) {
        long v = value(i);
        s_sum += v;
        s_min = v < s_min ? v : s_min;
        s_max = v > s_max ? v : s_max;
        s_mulmod = (s_mulmod * (v + 501)) % 1000003;
        s_prod *= (unsigned long long)(2 * i + 1);
        s_xor ^= (unsigned long long)v * 0x9e3779b97f4a7c15ull;
        s_or |= 1ull << (i % 61);
        s_and &= ~(1ull << (i % 50));
        s_all = s_all && v > -501;
        s_any = s_any || v == 499;
        s_dsum += v * 0.125;
        s_dprod *= (i % 3 == 0) ? 2.0 : (i % 3 == 1 ? 0.5 : 1.0);
        s_dmin = v * 0.25 < s_dmin ? v * 0.25 : s_dmin;
        s_dmax = v * 0.25 > s_dmax ? v * 0.25 : s_dmax;
        s_fsum += (float)(i % 17);
    }

    for (int variant = 0; variant < 4; variant++) {
        long sum = 0, mn = LONG_MAX, mx = LONG_MIN, mulmod = 1, diff = 0;
        unsigned long long prod = 1, x = 0, o = 0, a = ~0ull;
        int all = 1, any = 0;
        double dsum = 0, dprod = 1, dmin = DBL_MAX, dmax = -DBL_MAX;
        float fsum = 0;
        struct stats st = {0, 0, LONG_MAX, LONG_MIN};
#define BODY                                                                                           \
    {                                                                                                  \
        long v = value(i);                                                                             \
        sum += v;                                                                                      \
        diff -= v;                                                                                     \
        mn = v < mn ? v : mn;                                                                          \
        mx = v > mx ? v : mx;                                                                          \
        mulmod = (mulmod * (v + 501)) % 1000003;                                                       \
        prod *= (unsigned long long)(2 * i + 1);                                                       \
        x ^= (unsigned long long)v * 0x9e3779b97f4a7c15ull;                                            \
        o |= 1ull << (i % 61);                                                                         \
        a &= ~(1ull << (i % 50));                                                                      \
        all = all && v > -501;                                                                         \
        any = any || v == 499;                                                                         \
        dsum += v * 0.125;                                                                             \
        dprod *= (i % 3 == 0) ? 2.0 : (i % 3 == 1 ? 0.5 : 1.0);                                        \
        dmin = v * 0.25 < dmin ? v * 0.25 : dmin;                                                      \
        dmax = v * 0.25 > dmax ? v * 0.25 : dmax;                                                      \
        fsum += (float)(i % 17);                                                                       \
        st = stats_merge(st, (struct stats){1, v, v, v});                                              \
    }
#define CLAUSES                                                                                        \
    reduction(+ : sum, dsum, fsum) reduction(- : diff) reduction(min : mn, dmin) reduction(max : mx, dmax)   \
        reduction(* : prod, dprod) reduction(^ : x) reduction(| : o) reduction(& : a) reduction(&& : all)   \
            reduction(|| : any) reduction(merge : st) reduction(mulmod : mulmod)
        if (variant == 0) {
#pragma omp parallel for schedule(dynamic, 7) CLAUSES
            for (int i = 0; i < N; i++)
                BODY
        } else if (variant == 1) {
#pragma omp parallel
#pragma omp for schedule(guided) CLAUSES
            for (int i = 0; i < N; i++)
                BODY
        } else if (variant == 2) {
#pragma omp parallel
            {
#pragma omp for schedule(static, 3) nowait CLAUSES
                for (int i = 0; i < N; i++)
                    BODY
#pragma omp barrier
            }
        } else {
            /* A reduction on the parallel construct itself: thread t takes i = t, t+T, ... */
#pragma omp parallel CLAUSES
            {
                int n = omp_get_num_threads();
                for (int i = omp_get_thread_num(); i < N; i += n)
                    BODY
            }
        }
        CHECK_EQ(sum, s_sum, "variant %d: + over long", variant);
        CHECK_EQ(diff, -s_sum, "variant %d: - over long", variant);
        CHECK_EQ(mn, s_min, "variant %d: min over long", variant);
        CHECK_EQ(mx, s_max, "variant %d: max over long", variant);
        CHECK_EQ(mulmod, s_mulmod, "variant %d: declare reduction mulmod", variant);
        CHECK(prod == s_prod, "variant %d: * over unsigned long long: %llu, expected %llu", variant, prod, s_prod);
        CHECK(x == s_xor, "variant %d: ^ over unsigned long long", variant);
        CHECK(o == s_or, "variant %d: | over unsigned long long", variant);
        CHECK(a == s_and, "variant %d: & over unsigned long long: %#llx, expected %#llx", variant, a, s_and);
        CHECK_EQ(all, s_all, "variant %d: &&", variant);
        CHECK_EQ(any, s_any, "variant %d: ||", variant);
        CHECK(dsum == s_dsum, "variant %d: + over double: %.17g, expected %.17g", variant, dsum, s_dsum);
        CHECK(dprod == s_dprod, "variant %d: * over double: %g, expected %g", variant, dprod, s_dprod);
        CHECK(dmin == s_dmin && dmax == s_dmax, "variant %d: min/max over double", variant);
        CHECK(fsum == s_fsum, "variant %d: + over float: %g, expected %g", variant, fsum, s_fsum);
        CHECK(st.count == N && st.sum == s_sum && st.min == s_min && st.max == s_max,
              "variant %d: declare reduction on struct stats: count %ld sum %ld min %ld max %ld", variant, st.count,
              st.sum, st.min, st.max);
    }

    /* && and || that come out the other way. */
    int all2 = 1, any2 = 0;
#pragma omp parallel for reduction(&& : all2) reduction(|| : any2)
    for (int i = 0; i < N; i++) {
        all2 = all2 && i != 777;
        any2 = any2 || i < 0;
    }
    CHECK(all2 == 0 && any2 == 0, "&& with one false term: %d, || with no true term: %d", all2, any2);

    /* An array section. */
    long hist[16] = {0};
#pragma omp parallel for schedule(dynamic, 13) reduction(+ : hist[:16])
    for (int i = 0; i < N; i++)
        hist[(value(i) + 500) % 16]++;
    long hist_want[16] = {0};
    for (int i = 0; i < N; i++)
        hist_want[(value(i) + 500) % 16]++;
    for (int b = 0; b < 16; b++)
        CHECK_EQ(hist[b], hist_want[b], "array-section reduction: bin %d", b);

    /* Sections with a reduction. */
    int sec = 0;
#pragma omp parallel sections reduction(+ : sec)
    {
#pragma omp section
        sec += 1;
#pragma omp section
        sec += 10;
#pragma omp section
        sec += 100;
    }
    CHECK_EQ(sec, 111, "reduction over three sections");

    /* The team size shows in a reduction on parallel. */
    int members = 0;
#pragma omp parallel reduction(+ : members)
    members++;
    CHECK_EQ(members, T, "threads counted by a + reduction on parallel");

    /* Inclusive and exclusive scans. */
    static long in[N], incl[N], excl[N];
    for (int i = 0; i < N; i++)
        in[i] = value(i);
    long run = 0;
#pragma omp parallel for reduction(inscan, + : run)
    for (int i = 0; i < N; i++) {
        run += in[i];
#pragma omp scan inclusive(run)
        incl[i] = run;
    }
    long run2 = 0;
#pragma omp parallel for reduction(inscan, + : run2)
    for (int i = 0; i < N; i++) {
        excl[i] = run2;
#pragma omp scan exclusive(run2)
        run2 += in[i];
    }
    long acc = 0;
    for (int i = 0; i < N; i++) {
        CHECK_EQ(excl[i], acc, "exclusive scan at %d", i);
        acc += in[i];
        CHECK_EQ(incl[i], acc, "inclusive scan at %d", i);
    }
    corpus_summary("sum=%ld min=%ld max=%ld mulmod=%ld prod=%llu xor=%llx dsum=%g ok", s_sum, s_min, s_max,
                   s_mulmod, s_prod, s_xor, s_dsum);
    return 0;
}
