/* Worksharing as gcc 12 really lowers it: `gcc -fopenmp` code linked against
 * libmuster-omp instead of libgomp.  Each construct computes something and
 * checks it against a serial computation.  Team sizes 1, 2, 3, 5, 8. */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 1000

static int team_size;

/* Dynamic and guided loops with reduction, lastprivate, collapse. */
static void test_schedules(void)
{
    static int hits[N];
    long sum = 0;
    int last = -1;
    memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(dynamic, 3) reduction(+ : sum) lastprivate(last) num_threads(team_size)
    for (int i = 0; i < N; i++) {
        __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
        sum += i;
        last = i;
    }
    CHECK(sum == (long)N * (N - 1) / 2 && last == N - 1, "dynamic: sum %ld last %d", sum, last);
    for (int i = 0; i < N; i++)
        CHECK(hits[i] == 1);

    long long gsum = 0;
    long long glast = 0;
#pragma omp parallel for schedule(guided, 2) reduction(+ : gsum) lastprivate(glast) num_threads(team_size)
    for (long long i = 3 * N; i > 0; i -= 7) {
        gsum += i;
        glast = i;
    }
    long long expect = 0, expect_last = 0;
    for (long long i = 3 * N; i > 0; i -= 7) {
        expect += i;
        expect_last = i;
    }
    CHECK(gsum == expect && glast == expect_last, "guided descending: %lld %lld", gsum, glast);

    unsigned long long usum = 0;
#pragma omp parallel for schedule(nonmonotonic : dynamic, 5) reduction(+ : usum) num_threads(team_size)
    for (unsigned long long u = ~0ull - 5000; u < ~0ull - 3; u += 3)
        usum += u - (~0ull - 5000);
    unsigned long long uexpect = 0;
    for (unsigned long long u = ~0ull - 5000; u < ~0ull - 3; u += 3)
        uexpect += u - (~0ull - 5000);
    CHECK(usum == uexpect, "ull near 2^64: %llu %llu", usum, uexpect);

    long rsum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : rsum) num_threads(team_size)
    for (int i = -N; i < N; i += 2)
        rsum += i;
    CHECK(rsum == -N, "runtime: %ld", rsum);

    long csum = 0;
#pragma omp parallel for collapse(2) schedule(dynamic) reduction(+ : csum) num_threads(team_size)
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 30; j++)
            csum += i * 30 + j;
    CHECK(csum == 1200L * 1199 / 2, "collapse: %ld", csum);

    /* lastprivate(conditional:) is left out: gcc merges it under
     * GOMP_atomic_start (critical.c), not a worksharing entry point. */
}

/* ordered: the ordered regions run in iteration order. */
static void test_ordered(void)
{
    static int order[N];
    int next = 0;
#pragma omp parallel for ordered schedule(dynamic, 2) num_threads(team_size)
    for (int i = 0; i < N; i++) {
#pragma omp ordered
        order[next++] = i;
    }
    CHECK(next == N);
    for (int i = 0; i < N; i++)
        CHECK(order[i] == i, "ordered dynamic: position %d holds %d", i, order[i]);

    next = 0;
#pragma omp parallel for ordered schedule(static, 3) num_threads(team_size)
    for (int i = N; i > 0; i--) {
#pragma omp ordered
        order[next++] = i;
    }
    for (int i = 0; i < N; i++)
        CHECK(order[i] == N - i, "ordered static descending: position %d holds %d", i, order[i]);

    next = 0;
#pragma omp parallel for ordered schedule(guided) num_threads(team_size)
    for (unsigned long long u = 0; u < N; u++) {
#pragma omp ordered
        order[next++] = (int)u;
    }
    for (int i = 0; i < N; i++)
        CHECK(order[i] == i, "ordered guided ull: position %d holds %d", i, order[i]);
}

/* doacross: a wavefront with sink dependences. */
#define DN 80
#define DM 40

/* The wavefront's recurrence: cell (i, j) from the cell above and the cell
 * to its left.  Unsigned: it overflows, and wraps the same way each time. */
static unsigned long wavefront_cell(unsigned long a[DN][DM], int i, int j)
{
    return (i ? a[i - 1][j] : 1) * 3 + (j ? a[i][j - 1] : 1) + (unsigned long)(i - j);
}

static void check_wavefront(unsigned long a[DN][DM], unsigned long expect[DN][DM], const char *loop)
{
    for (int i = 0; i < DN; i++)
        for (int j = 0; j < DM; j++)
            CHECK(a[i][j] == expect[i][j], "doacross %s: a[%d][%d]", loop, i, j);
}

static void test_doacross(void)
{
    static unsigned long a[DN][DM], expect[DN][DM];
    for (int i = 0; i < DN; i++)
        for (int j = 0; j < DM; j++)
            expect[i][j] = wavefront_cell(expect, i, j);
    memset(a, 0, sizeof a);
#pragma omp parallel for ordered(2) num_threads(team_size)
    for (int i = 0; i < DN; i++)
        for (int j = 0; j < DM; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            a[i][j] = wavefront_cell(a, i, j);
#pragma omp ordered depend(source)
        }
    check_wavefront(a, expect, "static");

    memset(a, 0, sizeof a);
#pragma omp parallel for ordered(2) schedule(dynamic, 3) num_threads(team_size)
    for (int i = 0; i < DN; i++)
        for (int j = 0; j < DM; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            a[i][j] = wavefront_cell(a, i, j);
#pragma omp ordered depend(source)
        }
    check_wavefront(a, expect, "dynamic");

    /* Bounds and steps other than 0 and 1, one loop descending: gcc passes
     * logical iteration numbers, which the runtime's owners must match. */
    memset(a, 0, sizeof a);
#pragma omp parallel for ordered(2) schedule(static, 2) num_threads(team_size)
    for (int i = 7; i < 7 + 3 * DN; i += 3)
        for (int j = 2 * DM - 1; j >= 0; j -= 2) {
            int x = (i - 7) / 3, y = DM - 1 - j / 2;
#pragma omp ordered depend(sink : i - 3, j) depend(sink : i, j + 2) depend(sink : i - 6, j - 2)
            a[x][y] = wavefront_cell(a, x, y);
#pragma omp ordered depend(source)
        }
    check_wavefront(a, expect, "strided");
}

/* sections, single, copyprivate, nowait chains inside one region. */
static void test_region_constructs(void)
{
    _Atomic int section_runs[4] = {0};
    _Atomic int single_runs = 0;
    _Atomic int copies_ok = 0;
    static _Atomic int chain[20][100];
    memset(chain, 0, sizeof chain);
    int last_section = 0;
#pragma omp parallel num_threads(team_size)
    {
#pragma omp sections lastprivate(last_section)
        {
#pragma omp section
            { section_runs[0]++; last_section = 1; }
#pragma omp section
            { section_runs[1]++; last_section = 2; }
#pragma omp section
            { section_runs[2]++; last_section = 3; }
#pragma omp section
            { section_runs[3]++; last_section = 4; }
        }
        for (int round = 0; round < 50; round++) {
#pragma omp single nowait
            single_runs++;
        }
        int token = -1;
#pragma omp single copyprivate(token)
        token = 4242;
        if (token == 4242)
            copies_ok++;
        for (int k = 0; k < 20; k++) {
#pragma omp for schedule(dynamic, 7) nowait
            for (int i = 0; i < 100; i++)
                chain[k][i]++;
        }
    }
    for (int s = 0; s < 4; s++)
        CHECK(section_runs[s] == 1, "section %d ran %d times", s, section_runs[s]);
    CHECK(last_section == 4, "sections lastprivate: %d", last_section);
    CHECK(single_runs == 50, "single ran %d times in 50 encounters", single_runs);
    CHECK(copies_ok == team_size, "copyprivate reached %d of %d threads", copies_ok, team_size);
    for (int k = 0; k < 20; k++)
        for (int i = 0; i < 100; i++)
            CHECK(chain[k][i] == 1, "nowait loop %d iteration %d ran %d times", k, i, chain[k][i]);

    _Atomic int ps[3] = {0};
#pragma omp parallel sections num_threads(team_size)
    {
#pragma omp section
        ps[0]++;
#pragma omp section
        ps[1]++;
#pragma omp section
        ps[2]++;
    }
    CHECK(ps[0] == 1 && ps[1] == 1 && ps[2] == 1, "parallel sections");
}

int main(void)
{
    static const int sizes[] = {1, 2, 3, 5, 8};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        team_size = sizes[s];
        for (int round = 0; round < 5; round++) {
            test_schedules();
            test_ordered();
            test_doacross();
            test_region_constructs();
        }
    }
    printf("gcc -fopenmp worksharing: all checks passed\n");
    return 0;
}
