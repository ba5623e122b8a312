/* atomic: update (+=, -=, *=, |=, &=, ^=, ++ on int, long, unsigned long
 * long, float, double, long double and unsigned __int128 — the last two
 * through GOMP_atomic_start/end), capture (tickets handed out by x++ must
 * be all distinct), read/write of 64-bit values without tearing, compare
 * (atomic max), and seq_cst. */
#include "corpus.h"

#define ITERS 400
#define MAXT 64

int main(void)
{
    corpus_begin("omp_atomic");
    int T = corpus_threads_at_most(MAXT);
    int i_add = 0;
    long l_sub = 0;
    unsigned long long u_mul = 1, u_or = 0, u_and = ~0ull, u_xor = 0;
    float f_add = 0;
    double d_add = 0;
    long double ld_add = 0;
    unsigned __int128 q_add = 0;
    long maxv = -1;
    static int tickets[MAXT * ITERS];
    int next_ticket = 0;
    static volatile unsigned long long word;
    int torn = 0;
#pragma omp parallel reduction(+ : torn)
    {
        int id = omp_get_thread_num();
        uint64_t seed = corpus_seed(id, 19);
        for (int i = 0; i < ITERS; i++) {
            int k = id * ITERS + i;
#pragma omp atomic
            i_add += 2;
#pragma omp atomic update
            l_sub -= k;
#pragma omp atomic
            u_mul *= 3;
#pragma omp atomic
            u_or |= 1ull << (k % 64);
#pragma omp atomic
            u_and &= ~(1ull << (k % 40));
#pragma omp atomic
            u_xor ^= (unsigned long long)k * 0x9e3779b97f4a7c15ull;
#pragma omp atomic
            f_add += 1.0f;
#pragma omp atomic seq_cst
            d_add += 0.5;
#pragma omp atomic
            ld_add += 0.25L;
#pragma omp atomic
            q_add += (unsigned __int128)1 << 70;
            int t;
#pragma omp atomic capture
            t = next_ticket++;
            if (t < 0 || t >= T * ITERS)
                FAIL("ticket %d out of range", t);
            tickets[t]++;
            long v = (long)(corpus_rand(&seed) % 100000);
#pragma omp atomic compare
            if (maxv < v) {
                maxv = v;
            }
            if (i % 4 == 0) {
                unsigned long long half = (unsigned long long)(unsigned)k;
#pragma omp atomic write
                word = half << 32 | half;
            } else {
                unsigned long long w;
#pragma omp atomic read
                w = word;
                torn += (w >> 32) != (w & 0xffffffffull);
            }
        }
    }
    long n = (long)T * ITERS;
    CHECK_EQ(i_add, 2 * n, "atomic += on int");
    CHECK_EQ(l_sub, -(n * (n - 1) / 2), "atomic -= on long");
    unsigned long long pow3 = 1;
    for (long k = 0; k < n; k++)
        pow3 *= 3;
    CHECK(u_mul == pow3, "atomic *= on unsigned long long: %llu, expected %llu", u_mul, pow3);
    unsigned long long w_or = 0, w_and = ~0ull, w_xor = 0;
    for (long k = 0; k < n; k++) {
        w_or |= 1ull << (k % 64);
        w_and &= ~(1ull << (k % 40));
        w_xor ^= (unsigned long long)k * 0x9e3779b97f4a7c15ull;
    }
    CHECK(u_or == w_or && u_and == w_and && u_xor == w_xor, "atomic |= &= ^=: %#llx %#llx %#llx", u_or, u_and, u_xor);
    CHECK(f_add == (float)n, "atomic += on float: %g, expected %ld", f_add, n);
    CHECK(d_add == 0.5 * n, "atomic += on double: %g", d_add);
    CHECK(ld_add == 0.25L * n, "atomic += on long double: %Lg", ld_add);
    CHECK(q_add == (unsigned __int128)n << 70, "atomic += on unsigned __int128");
    for (long k = 0; k < n; k++)
        CHECK_EQ(tickets[k], 1, "times ticket %ld was handed out by atomic capture", k);
    CHECK_EQ(next_ticket, n, "tickets handed out");
    CHECK(maxv >= 0 && maxv < 100000, "atomic compare max: %ld", maxv);
    CHECK_EQ(torn, 0, "torn 64-bit atomic reads");

    /* The atomic max equals the maximum of the same random sequence. */
    long want_max = -1;
    for (int id = 0; id < T; id++) {
        uint64_t seed = corpus_seed(id, 19);
        for (int i = 0; i < ITERS; i++) {
            long v = (long)(corpus_rand(&seed) % 100000);
            want_max = v > want_max ? v : want_max;
        }
    }
    CHECK_EQ(maxv, want_max, "atomic compare: the maximum");
    corpus_summary("updates_per_thread=%d ok", ITERS);
    return 0;
}
