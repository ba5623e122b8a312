/* taskbench: task-parallel workloads, each checking its own answer.
 *
 * An ordinary `gcc -fopenmp` program, like syncbench: it runs on whichever
 * runtime answers the GOMP_* calls (libgomp, or another under LD_PRELOAD)
 * and names that runtime in its first line.  One process runs one workload
 * once:
 *   # taskbench runtime=PATH threads=N workload=NAME scale=S params=...
 *   workload=NAME threads=N status=ok ms=T cpu_ms=U csw=C maxrss_kb=K tasks=X check=Y
 *   workload=NAME threads=N status=error message=what went wrong
 * `muster bench tasks` runs it once per sample under each runtime in turn.
 *
 * The workloads are the kinds of program found in task benchmark suites,
 * written here, each in the cut-off style its kind is usually written in:
 *   fib        recursive Fibonacci, tasks above a manual depth cut-off
 *   fib-nocut  the same with a task for every call: the scheduler's overhead
 *   nqueens    N-queens, tasks with final() and omp_in_final() below a depth
 *   mergesort  merge sort with a parallel merge, tasks with if() above a size
 *   sparselu   blocked sparse LU whose tasks are ordered only by depend()
 *   uts        an unbalanced (near-critical binomial) tree, a task per node
 *   knapsack   0/1 knapsack by branch and bound, pruned by a shared bound
 *   knapsack-last  the same search as task suites write it: two tasks per
 *              node, the promising one last, a taskwait (order decides work)
 *   depfan     dependence fan-out: many tasks read one address, then many
 *              form one mutexinoutset set, behind a slow writer
 * The answer is checked against a serial computation (or a table) made
 * before the clock starts.  Only the parallel part is timed, after one empty
 * region has started the team, so the numbers are the scheduler's, not the
 * thread start's. */
#include "cli.h"
#include "record.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define PROG "taskbench"

/* ---- what every workload shares ---------------------------------------- */

/* Tasks created, counted by the creating thread without a shared write and
 * summed once at the end of the region (count_team_tasks). */
static _Thread_local unsigned long tasks_made;
static unsigned long tasks_total;

static inline void count_task(void)
{
    tasks_made++;
}

/* Called by every team thread once all the region's tasks are done. */
static void count_team_tasks(void)
{
#pragma omp atomic
    tasks_total += tasks_made;
    tasks_made = 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: the inputs' pseudo-random numbers, the same on every run. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static uint64_t next_random(uint64_t *state)
{
    *state += 1;
    return mix64(*state);
}

/* A size that grows with --scale by a factor `growth` per step: the
 * exponential workloads (fib, nqueens) change their argument by log steps. */
static int scaled_step(int base, double scale, double growth, int lo, int hi)
{
    int n = base + (int)lround(log(scale) / log(growth));
    return n < lo ? lo : n > hi ? hi : n;
}

static long scaled_size(long base, double scale, long lo)
{
    double n = (double)base * scale;
    return n < (double)lo ? lo : (long)n;
}

/* A workload: set up (untimed) builds the input and the expected answer and
 * describes its parameters; run is the timed parallel part; verify says
 * NULL when the answer is right (and what it was, in check), else why not. */
typedef struct workload {
    const char *name;
    const char *(*setup)(double scale, char *params, size_t len);
    void (*run)(void);
    const char *(*verify)(char *check, size_t len);
    void (*teardown)(void);
} workload;

/* ---- fib and fib-nocut --------------------------------------------------- */

static int fib_n, fib_cut;
static long fib_result, fib_expected;

static long fib_serial(int n)
{
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

/* As task benchmark suites write it: both calls are tasks, then a taskwait.
 * Below the cut-off (cut < 0: never) the rest is serial. */
static long fib_tasks(int n, int cut)
{
    if (n < 2)
        return n;
    if (n <= cut)
        return fib_serial(n);
    long x, y;
    count_task();
#pragma omp task shared(x) firstprivate(n, cut)
    x = fib_tasks(n - 1, cut);
    count_task();
#pragma omp task shared(y) firstprivate(n, cut)
    y = fib_tasks(n - 2, cut);
#pragma omp taskwait
    return x + y;
}

static long fib_iterative(int n)
{
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        long t = a + b;
        a = b;
        b = t;
    }
    return a;
}

static const char *fib_setup_common(int n, int cut, char *params, size_t len)
{
    fib_n = n;
    fib_cut = cut;
    fib_expected = fib_iterative(n);
    snprintf(params, len, "n=%d,cutoff=%d", n, cut);
    return NULL;
}

static const char *fib_setup(double scale, char *params, size_t len)
{
    int n = scaled_step(38, scale, 1.618, 10, 50);
    return fib_setup_common(n, n - 17 > 2 ? n - 17 : 2, params, len);
}

static const char *fib_nocut_setup(double scale, char *params, size_t len)
{
    return fib_setup_common(scaled_step(27, scale, 1.618, 5, 40), -1, params, len);
}

static void fib_run(void)
{
#pragma omp parallel
    {
#pragma omp single
        fib_result = fib_tasks(fib_n, fib_cut);
        count_team_tasks();
    }
}

static const char *fib_verify(char *check, size_t len)
{
    snprintf(check, len, "fib(%d)=%ld", fib_n, fib_result);
    return fib_result == fib_expected ? NULL : "wrong Fibonacci number";
}

/* ---- nqueens ------------------------------------------------------------- */

#define NQ_MAX 16
typedef struct nq_board {
    signed char col[NQ_MAX]; /* the queen of each row placed so far */
} nq_board;

static int nq_n, nq_cut;
static long nq_solutions;
static _Thread_local long nq_found; /* this thread's, summed at the end */

/* Solutions for n = 1..16 (OEIS A000170). */
static const long nq_known[NQ_MAX + 1] = {
    0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
};

static int nq_safe(const nq_board *b, int row, int col)
{
    for (int r = 0; r < row; r++) {
        int d = b->col[r] - col;
        if (d == 0 || d == row - r || d == r - row)
            return 0;
    }
    return 1;
}

static void nq_serial(nq_board *b, int row)
{
    if (row == nq_n) {
        nq_found++;
        return;
    }
    for (int c = 0; c < nq_n; c++)
        if (nq_safe(b, row, c)) {
            b->col[row] = (signed char)c;
            nq_serial(b, row + 1);
        }
}

/* Tasks marked final from depth nq_cut on: their code sees omp_in_final()
 * and goes serial, the idiom for final(). */
static void nq_tasks(nq_board b, int row)
{
    if (omp_in_final()) {
        nq_serial(&b, row);
        return;
    }
    if (row == nq_n) {
        nq_found++;
        return;
    }
    for (int c = 0; c < nq_n; c++)
        if (nq_safe(&b, row, c)) {
            nq_board next = b;
            next.col[row] = (signed char)c;
            count_task();
#pragma omp task firstprivate(next, row) final(row + 1 >= nq_cut)
            nq_tasks(next, row + 1);
        }
}

static const char *nq_setup(double scale, char *params, size_t len)
{
    nq_n = scaled_step(12, scale, 6.0, 4, NQ_MAX);
    nq_cut = 4;
    snprintf(params, len, "n=%d,final_depth=%d", nq_n, nq_cut);
    return NULL;
}

static void nq_run(void)
{
    nq_solutions = 0;
#pragma omp parallel
    {
#pragma omp single
        nq_tasks((nq_board){{0}}, 0);
#pragma omp atomic
        nq_solutions += nq_found;
        nq_found = 0;
        count_team_tasks();
    }
}

static const char *nq_verify(char *check, size_t len)
{
    snprintf(check, len, "solutions=%ld", nq_solutions);
    return nq_solutions == nq_known[nq_n] ? NULL : "wrong number of N-queens solutions";
}

/* ---- mergesort ----------------------------------------------------------- */

#define MS_SORT_CUT 8192  /* elements below which a sort is serial */
#define MS_MERGE_CUT 8192 /* and a merge */

static long ms_n;
static int *ms_data, *ms_tmp;
static uint64_t ms_sum, ms_hash; /* of the input, as a multiset */

static void ms_merge_serial(const int *a, long na, const int *b, long nb, int *out)
{
    long i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = b[j] < a[i] ? b[j++] : a[i++];
    while (i < na)
        out[k++] = a[i++];
    while (j < nb)
        out[k++] = b[j++];
}

/* First index of a[0..n) not below key. */
static long ms_lower_bound(const int *a, long n, int key)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Splits the larger run at its middle, finds where that value falls in the
 * other, and merges the two halves as two tasks. */
static void ms_merge(const int *a, long na, const int *b, long nb, int *out)
{
    if (na < nb) {
        const int *t = a;
        a = b;
        b = t;
        long tn = na;
        na = nb;
        nb = tn;
    }
    if (na + nb <= MS_MERGE_CUT || nb == 0) {
        ms_merge_serial(a, na, b, nb, out);
        return;
    }
    long ma = na / 2, mb = ms_lower_bound(b, nb, a[ma]);
    count_task();
#pragma omp task if(na + nb > MS_MERGE_CUT)
    ms_merge(a, ma, b, mb, out);
    ms_merge(a + ma, na - ma, b + mb, nb - mb, out + ma + mb);
#pragma omp taskwait
}

/* Sorts data[0..n) using tmp[0..n); the result is in data. */
static void ms_sort_serial(int *data, int *tmp, long n)
{
    if (n < 2)
        return;
    long h = n / 2;
    ms_sort_serial(data, tmp, h);
    ms_sort_serial(data + h, tmp + h, n - h);
    ms_merge_serial(data, h, data + h, n - h, tmp);
    memcpy(data, tmp, (size_t)n * sizeof *data);
}

/* The parallel sort leaves its result in tmp when into_tmp, else in data,
 * so that no level copies back. */
static void ms_sort(int *data, int *tmp, long n, int into_tmp)
{
    if (n <= MS_SORT_CUT) {
        ms_sort_serial(data, tmp, n);
        if (into_tmp)
            memcpy(tmp, data, (size_t)n * sizeof *data);
        return;
    }
    long h = n / 2;
    count_task();
#pragma omp task if(n > MS_SORT_CUT)
    ms_sort(data, tmp, h, !into_tmp);
    ms_sort(data + h, tmp + h, n - h, !into_tmp);
#pragma omp taskwait
    if (into_tmp)
        ms_merge(data, h, data + h, n - h, tmp);
    else
        ms_merge(tmp, h, tmp + h, n - h, data);
}

static void ms_fingerprint(const int *a, long n, uint64_t *sum, uint64_t *hash)
{
    *sum = 0;
    *hash = 0;
    for (long i = 0; i < n; i++) {
        *sum += (uint64_t)(unsigned)a[i];
        *hash += mix64((uint64_t)(unsigned)a[i]);
    }
}

static const char *ms_setup(double scale, char *params, size_t len)
{
    ms_n = scaled_size(1L << 21, scale, 16);
    ms_data = malloc((size_t)ms_n * sizeof *ms_data);
    ms_tmp = malloc((size_t)ms_n * sizeof *ms_tmp);
    if (ms_data == NULL || ms_tmp == NULL)
        return "out of memory for the array";
    uint64_t seed = 42;
    for (long i = 0; i < ms_n; i++)
        ms_data[i] = (int)(next_random(&seed) >> 33);
    ms_fingerprint(ms_data, ms_n, &ms_sum, &ms_hash);
    snprintf(params, len, "n=%ld,cutoff=%d", ms_n, MS_SORT_CUT);
    return NULL;
}

static void ms_run(void)
{
#pragma omp parallel
    {
#pragma omp single
        ms_sort(ms_data, ms_tmp, ms_n, 0);
        count_team_tasks();
    }
}

static const char *ms_verify(char *check, size_t len)
{
    uint64_t sum, hash;
    for (long i = 1; i < ms_n; i++)
        if (ms_data[i - 1] > ms_data[i]) {
            snprintf(check, len, "unsorted_at=%ld", i);
            return "the array is not sorted";
        }
    ms_fingerprint(ms_data, ms_n, &sum, &hash);
    snprintf(check, len, "sorted=%ld", ms_n);
    return sum == ms_sum && hash == ms_hash ? NULL : "the sorted array is not a permutation of the input";
}

static void ms_teardown(void)
{
    free(ms_data);
    free(ms_tmp);
}

/* ---- sparselu ------------------------------------------------------------ */

/* An NB x NB matrix of BS x BS blocks, some absent; factorisation fills
 * some in.  Every task names its blocks in depend() and nothing else orders
 * them, so a runtime that ignores a dependence computes a different matrix;
 * one that honours them all computes exactly the serial one, bit for bit
 * (each block sees the same operations in the same order). */
#define LU_BS 32
typedef float lu_block[LU_BS * LU_BS];

static int lu_nb;
static lu_block **lu_par, **lu_ser; /* [nb*nb]; NULL for an absent block */

static int lu_present(int i, int j)
{
    if (i == j || i == j + 1 || j == i + 1)
        return 1;
    return (mix64((uint64_t)(i * 7919 + j)) & 7) < 2; /* about a quarter */
}

static lu_block *lu_new_block(void)
{
    lu_block *b = aligned_alloc(64, sizeof(lu_block));
    if (b)
        memset(b, 0, sizeof *b);
    return b;
}

/* Diagonally dominant, so no pivoting is needed and nothing overflows. */
static const char *lu_generate(lu_block **m)
{
    uint64_t seed = 7;
    for (int i = 0; i < lu_nb; i++)
        for (int j = 0; j < lu_nb; j++) {
            m[i * lu_nb + j] = NULL;
            if (!lu_present(i, j))
                continue;
            lu_block *b = lu_new_block();
            if (b == NULL)
                return "out of memory for the matrix";
            for (int k = 0; k < LU_BS * LU_BS; k++)
                (*b)[k] = (float)(next_random(&seed) >> 40) / (float)(1u << 24) - 0.5f;
            if (i == j)
                for (int k = 0; k < LU_BS; k++)
                    (*b)[k * LU_BS + k] += 4.0f * (float)lu_nb;
            m[i * lu_nb + j] = b;
        }
    return NULL;
}

static void lu0(float *d)
{
    for (int k = 0; k < LU_BS; k++)
        for (int i = k + 1; i < LU_BS; i++) {
            d[i * LU_BS + k] /= d[k * LU_BS + k];
            for (int j = k + 1; j < LU_BS; j++)
                d[i * LU_BS + j] -= d[i * LU_BS + k] * d[k * LU_BS + j];
        }
}

static void lu_fwd(const float *d, float *col)
{
    for (int k = 0; k < LU_BS; k++)
        for (int i = k + 1; i < LU_BS; i++)
            for (int j = 0; j < LU_BS; j++)
                col[i * LU_BS + j] -= d[i * LU_BS + k] * col[k * LU_BS + j];
}

static void lu_bdiv(const float *d, float *row)
{
    for (int i = 0; i < LU_BS; i++)
        for (int k = 0; k < LU_BS; k++) {
            row[i * LU_BS + k] /= d[k * LU_BS + k];
            for (int j = k + 1; j < LU_BS; j++)
                row[i * LU_BS + j] -= row[i * LU_BS + k] * d[k * LU_BS + j];
        }
}

static void lu_bmod(const float *row, const float *col, float *inner)
{
    for (int i = 0; i < LU_BS; i++)
        for (int j = 0; j < LU_BS; j++) {
            float s = inner[i * LU_BS + j];
            for (int k = 0; k < LU_BS; k++)
                s -= row[i * LU_BS + k] * col[k * LU_BS + j];
            inner[i * LU_BS + j] = s;
        }
}

#define LU_AT(m, i, j) ((m)[(i) * lu_nb + (j)])

/* The serial order; with tasks (tasks != 0) each step is a task ordered by
 * depend() on the blocks it reads and writes.  Absent blocks that an update
 * needs are made by the creating thread, before the task, as serially. */
static const char *lu_factor(lu_block **m, int tasks)
{
    for (int k = 0; k < lu_nb; k++) {
        float *diag = *LU_AT(m, k, k);
        if (tasks) {
            count_task();
#pragma omp task depend(inout: diag[0]) firstprivate(diag)
            lu0(diag);
        } else {
            lu0(diag);
        }
        for (int j = k + 1; j < lu_nb; j++) {
            if (LU_AT(m, k, j) == NULL)
                continue;
            float *col = *LU_AT(m, k, j);
            if (tasks) {
                count_task();
#pragma omp task depend(in: diag[0]) depend(inout: col[0]) firstprivate(diag, col)
                lu_fwd(diag, col);
            } else {
                lu_fwd(diag, col);
            }
        }
        for (int i = k + 1; i < lu_nb; i++) {
            if (LU_AT(m, i, k) == NULL)
                continue;
            float *row = *LU_AT(m, i, k);
            if (tasks) {
                count_task();
#pragma omp task depend(in: diag[0]) depend(inout: row[0]) firstprivate(diag, row)
                lu_bdiv(diag, row);
            } else {
                lu_bdiv(diag, row);
            }
        }
        for (int i = k + 1; i < lu_nb; i++) {
            if (LU_AT(m, i, k) == NULL)
                continue;
            float *row = *LU_AT(m, i, k);
            for (int j = k + 1; j < lu_nb; j++) {
                if (LU_AT(m, k, j) == NULL)
                    continue;
                float *col = *LU_AT(m, k, j);
                if (LU_AT(m, i, j) == NULL && (LU_AT(m, i, j) = lu_new_block()) == NULL)
                    return "out of memory for a fill-in block";
                float *inner = *LU_AT(m, i, j);
                if (tasks) {
                    count_task();
#pragma omp task depend(in: row[0], col[0]) depend(inout: inner[0]) firstprivate(row, col, inner)
                    lu_bmod(row, col, inner);
                } else {
                    lu_bmod(row, col, inner);
                }
            }
        }
    }
    return NULL;
}

static const char *lu_setup(double scale, char *params, size_t len)
{
    lu_nb = (int)lround(40.0 * cbrt(scale));
    lu_nb = lu_nb < 2 ? 2 : lu_nb > 400 ? 400 : lu_nb;
    lu_par = calloc((size_t)lu_nb * (size_t)lu_nb, sizeof *lu_par);
    lu_ser = calloc((size_t)lu_nb * (size_t)lu_nb, sizeof *lu_ser);
    if (lu_par == NULL || lu_ser == NULL)
        return "out of memory for the matrix";
    const char *why = lu_generate(lu_par);
    if (why == NULL)
        why = lu_generate(lu_ser);
    if (why == NULL)
        why = lu_factor(lu_ser, 0);
    snprintf(params, len, "blocks=%dx%d,block=%dx%d", lu_nb, lu_nb, LU_BS, LU_BS);
    return why;
}

static const char *lu_run_error;

static void lu_run(void)
{
#pragma omp parallel
    {
#pragma omp single
        lu_run_error = lu_factor(lu_par, 1);
        count_team_tasks();
    }
}

static const char *lu_verify(char *check, size_t len)
{
    long blocks = 0;
    if (lu_run_error)
        return lu_run_error;
    for (int i = 0; i < lu_nb; i++)
        for (int j = 0; j < lu_nb; j++) {
            lu_block *p = LU_AT(lu_par, i, j), *s = LU_AT(lu_ser, i, j);
            if ((p == NULL) != (s == NULL) || (p && memcmp(p, s, sizeof *p) != 0)) {
                snprintf(check, len, "differs_at=%d,%d", i, j);
                return "the factors differ from the serial order's (a task not run, or a dependence not honoured)";
            }
            blocks += p != NULL;
        }
    snprintf(check, len, "blocks=%ld", blocks);
    return NULL;
}

static void lu_teardown(void)
{
    for (long k = 0; lu_par && k < (long)lu_nb * lu_nb; k++) {
        free(lu_par[k]);
        free(lu_ser[k]);
    }
    free(lu_par);
    free(lu_ser);
}

/* ---- uts ----------------------------------------------------------------- */

/* A binomial tree as in the Unbalanced Tree Search benchmark: the root has
 * UTS_ROOT_CHILDREN * scale children; every other node has UTS_M children
 * with probability UTS_Q, else none.  m*q just below 1 makes subtrees whose
 * sizes differ by orders of magnitude, so the work cannot be split ahead.
 * A node's identity is a hash of its parent's and its index. */
#define UTS_M 4
#define UTS_Q 0.2475
#define UTS_ROOT_CHILDREN 40000

static long uts_root_children;
static long uts_nodes, uts_expected;
static _Thread_local long uts_visited;
static uint64_t uts_threshold;

static uint64_t uts_child(uint64_t parent, int i)
{
    return mix64(parent ^ ((uint64_t)(i + 1) * 0x2545f4914f6cdd1du));
}

static int uts_children(uint64_t node)
{
    return node < uts_threshold ? UTS_M : 0;
}

static long uts_serial(uint64_t node)
{
    long n = 1;
    for (int i = 0, c = uts_children(node); i < c; i++)
        n += uts_serial(uts_child(node, i));
    return n;
}

static void uts_tasks(uint64_t node)
{
    uts_visited++;
    for (int i = 0, c = uts_children(node); i < c; i++) {
        uint64_t child = uts_child(node, i);
        count_task();
#pragma omp task firstprivate(child)
        uts_tasks(child);
    }
}

static const char *uts_setup(double scale, char *params, size_t len)
{
    uts_threshold = (uint64_t)(UTS_Q * 18446744073709551616.0);
    uts_root_children = scaled_size(UTS_ROOT_CHILDREN, scale, 1);
    uts_expected = 1;
    for (long i = 0; i < uts_root_children; i++)
        uts_expected += uts_serial(uts_child(1, (int)i));
    snprintf(params, len, "root_children=%ld,m=%d,q=%g", uts_root_children, UTS_M, UTS_Q);
    return NULL;
}

static void uts_run(void)
{
    uts_nodes = 1;
#pragma omp parallel
    {
#pragma omp single
        for (long i = 0; i < uts_root_children; i++) {
            uint64_t child = uts_child(1, (int)i);
            count_task();
#pragma omp task firstprivate(child)
            uts_tasks(child);
        }
#pragma omp atomic
        uts_nodes += uts_visited;
        uts_visited = 0;
        count_team_tasks();
    }
}

static const char *uts_verify(char *check, size_t len)
{
    snprintf(check, len, "nodes=%ld", uts_nodes);
    return uts_nodes == uts_expected ? NULL : "wrong number of tree nodes";
}

/* ---- knapsack ------------------------------------------------------------ */

/* Items sorted by value density; a branch is cut when the value so far
 * plus the fractional bound of the rest cannot beat the best found by any
 * thread.  How soon a good bound is found (and shared) decides the work. */
#define KN_MAX_ITEMS 64
#define KN_TASK_DEPTH 14 /* items decided before the search goes serial */

static int kn_n;
static long kn_capacity, kn_weight[KN_MAX_ITEMS], kn_value[KN_MAX_ITEMS];
static long kn_expected;
static _Atomic long kn_best;
static long kn_nodes;
static _Thread_local long kn_visited; /* search nodes: how much the order cost */

/* relaxed: the bound is a hint that only prunes; a stale value costs work,
 * never correctness, and the final read is after the region's barrier. */
static void kn_offer(long value)
{
    long best = atomic_load_explicit(&kn_best, memory_order_relaxed);
    while (value > best &&
           !atomic_compare_exchange_weak_explicit(&kn_best, &best, value, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
}

/* What the rest could add at most: the room left filled at the best density
 * among the remaining items (they are sorted by density).  A loose bound,
 * as task benchmark suites use, so the search is big enough to measure and
 * its size depends on how early a good packing is found. */
static double kn_bound(int i, long room)
{
    return (double)room * (double)kn_value[i] / (double)kn_weight[i];
}

static void kn_search(int i, long room, long value)
{
    kn_visited++;
    kn_offer(value);
    if (i == kn_n ||
        (double)value + kn_bound(i, room) <= (double)atomic_load_explicit(&kn_best, memory_order_relaxed))
        return;
    if (kn_weight[i] <= room) {
        if (i < KN_TASK_DEPTH) {
            count_task();
#pragma omp task firstprivate(i, room, value)
            kn_search(i + 1, room - kn_weight[i], value + kn_value[i]);
        } else {
            kn_search(i + 1, room - kn_weight[i], value + kn_value[i]);
        }
    }
    kn_search(i + 1, room, value);
}

/* The exact answer by dynamic programming over the capacity. */
static const char *kn_dynamic(void)
{
    long *best = calloc((size_t)kn_capacity + 1, sizeof *best);
    if (best == NULL)
        return "out of memory for the check";
    for (int i = 0; i < kn_n; i++)
        for (long c = kn_capacity; c >= kn_weight[i]; c--)
            if (best[c - kn_weight[i]] + kn_value[i] > best[c])
                best[c] = best[c - kn_weight[i]] + kn_value[i];
    kn_expected = best[kn_capacity];
    free(best);
    return NULL;
}

static int kn_by_density(const void *a, const void *b)
{
    const long *x = a, *y = b; /* {weight, value} */
    double dx = (double)x[1] / (double)x[0], dy = (double)y[1] / (double)y[0];
    return dx < dy ? 1 : dx > dy ? -1 : 0;
}

/* Strongly correlated items (value = weight + a constant: the classic hard
 * kind), n of them, sorted by density; the expected answer. */
static const char *kn_make_items(int n, char *params, size_t len)
{
    long item[KN_MAX_ITEMS][2];
    uint64_t seed = 2024;
    kn_n = n;
    kn_capacity = 0;
    for (int i = 0; i < kn_n; i++) {
        item[i][0] = 1000 + (long)(next_random(&seed) % 9000);
        item[i][1] = item[i][0] + 1000;
        kn_capacity += item[i][0];
    }
    kn_capacity /= 2;
    qsort(item, (size_t)kn_n, sizeof item[0], kn_by_density);
    for (int i = 0; i < kn_n; i++) {
        kn_weight[i] = item[i][0];
        kn_value[i] = item[i][1];
    }
    snprintf(params, len, "items=%d,capacity=%ld", kn_n, kn_capacity);
    return kn_dynamic();
}

static const char *kn_setup(double scale, char *params, size_t len)
{
    return kn_make_items(scaled_step(54, scale, 1.6, 8, KN_MAX_ITEMS), params, len);
}

/* Fewer items: a task per node makes each node cost a task on the peers. */
static const char *kl_setup(double scale, char *params, size_t len)
{
    return kn_make_items(scaled_step(44, scale, 1.6, 8, KN_MAX_ITEMS), params, len);
}

static void kn_run(void)
{
    atomic_store(&kn_best, 0);
    kn_nodes = 0;
#pragma omp parallel
    {
#pragma omp single
        kn_search(0, kn_capacity, 0);
#pragma omp atomic
        kn_nodes += kn_visited;
        kn_visited = 0;
        count_team_tasks();
    }
}

static const char *kn_verify(char *check, size_t len)
{
    long best = atomic_load(&kn_best);
    snprintf(check, len, "best=%ld,nodes=%ld", best, kn_nodes);
    return best == kn_expected ? NULL : "the search missed the best packing";
}

/* ---- knapsack-last ------------------------------------------------------- */

/* The same items, searched as task suites write it for the peers: each node
 * makes two tasks, without the item and then with it (the promising branch
 * last), waits for both, and raises the bound only on return.  A runtime
 * that runs a node's tasks in creation order explores the hopeless branch
 * first at every level; libgomp and libomp run the last first near the
 * root.  Shares knapsack's items, bound and node count. */
#define KL_NONE (-1L) /* a pruned or infeasible branch's value */

static long kl_search(int i, long room, long value)
{
    kn_visited++;
    if (i == kn_n)
        return value;
    /* relaxed: the bound only prunes (kn_offer) */
    if ((double)value + kn_bound(i, room) <= (double)atomic_load_explicit(&kn_best, memory_order_relaxed))
        return KL_NONE;
    long without = KL_NONE, with = KL_NONE;
    count_task();
#pragma omp task shared(without) firstprivate(i, room, value)
    without = kl_search(i + 1, room, value);
    if (kn_weight[i] <= room) {
        count_task();
#pragma omp task shared(with) firstprivate(i, room, value)
        with = kl_search(i + 1, room - kn_weight[i], value + kn_value[i]);
    }
#pragma omp taskwait
    long best = with > without ? with : without;
    kn_offer(best);
    return best;
}

static void kl_run(void)
{
    atomic_store(&kn_best, 0);
    kn_nodes = 0;
#pragma omp parallel
    {
#pragma omp single
        {
#pragma omp task
            kn_offer(kl_search(0, kn_capacity, 0));
        }
#pragma omp atomic
        kn_nodes += kn_visited;
        kn_visited = 0;
        count_team_tasks();
    }
}

/* ---- depfan ------------------------------------------------------------- */

/* Each round: a writer computes the shared value (slowly, so that the tasks
 * behind it pile up in the runtime's dependence structures), df_n tasks
 * read it, and df_n tasks of one mutexinoutset set each add 1 to a plain
 * counter (right only if the set's members exclude each other).  A
 * runtime whose bookkeeping per finished task grows with the readers or
 * the set's members shows it here. */
static long df_n;
static int df_rounds;
static long df_value, df_count, df_seen_total;
static _Thread_local long df_seen; /* summed at the end of the region */

static long df_slow_value(int round)
{
    volatile unsigned long x = (unsigned long)round;
    for (long i = 0; i < 4000000; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    return round + 1 + (long)(x & 0); /* the work, then the round's value */
}

static const char *df_setup(double scale, char *params, size_t len)
{
    df_n = scaled_size(10000, scale, 50);
    df_rounds = 3;
    snprintf(params, len, "tasks=%ld,rounds=%d", df_n, df_rounds);
    return NULL;
}

static void df_run(void)
{
    df_value = df_count = df_seen_total = 0;
#pragma omp parallel
    {
#pragma omp single
        for (int r = 0; r < df_rounds; r++) {
            count_task();
#pragma omp task depend(out : df_value) firstprivate(r)
            df_value = df_slow_value(r);
            for (long i = 0; i < df_n; i++) {
                count_task();
#pragma omp task depend(in : df_value)
                df_seen += df_value;
            }
            for (long i = 0; i < df_n; i++) {
                count_task();
#pragma omp task depend(mutexinoutset : df_count)
                df_count++;
            }
        }
#pragma omp atomic
        df_seen_total += df_seen;
        df_seen = 0;
        count_team_tasks();
    }
}

static const char *df_verify(char *check, size_t len)
{
    long seen = df_n * (long)df_rounds * (df_rounds + 1) / 2, count = df_n * df_rounds;
    snprintf(check, len, "seen=%ld,count=%ld", df_seen_total, df_count);
    if (df_seen_total != seen)
        return "a reader ran before its writer, or not at all";
    return df_count == count ? NULL : "members of a mutexinoutset set overlapped, or did not all run";
}

/* ---- the table, options, main -------------------------------------------- */

static void nothing(void) {}

static const workload workloads[] = {
    {"fib", fib_setup, fib_run, fib_verify, nothing},
    {"fib-nocut", fib_nocut_setup, fib_run, fib_verify, nothing},
    {"nqueens", nq_setup, nq_run, nq_verify, nothing},
    {"mergesort", ms_setup, ms_run, ms_verify, ms_teardown},
    {"sparselu", lu_setup, lu_run, lu_verify, lu_teardown},
    {"uts", uts_setup, uts_run, uts_verify, nothing},
    {"knapsack", kn_setup, kn_run, kn_verify, nothing},
    {"knapsack-last", kl_setup, kl_run, kn_verify, nothing},
    {"depfan", df_setup, df_run, df_verify, nothing},
};
#define WORKLOAD_COUNT (sizeof workloads / sizeof workloads[0])

typedef struct options {
    const char *workload;
    unsigned long threads;
    double scale;
    int json; /* --json: JSON lines (record.h) */
} options;

static void usage(FILE *out)
{
    fprintf(out,
"usage: taskbench --workload NAME [--threads N] [--scale S] [--json]\n"
"\n"
"Runs one task-parallel workload once, checks its answer against a serial one, and\n"
"prints the time of the parallel part.\n"
"\n"
"workloads: fib, fib-nocut, nqueens, mergesort, sparselu, uts, knapsack, knapsack-last,\n"
"           depfan\n"
"\n"
"options:\n"
"  --workload NAME  the workload (required)\n"
"  --threads N      team size (default: the runtime's default)\n"
"  --scale S        problem size factor, 0.001 to 100 (default 1)\n"
"  --json           results as JSON lines (see Output)\n"
"  --help           this text\n"
"\n"
"Output: '# taskbench runtime=PATH ...' then 'workload=NAME threads=N status=ok ms=T\n"
"cpu_ms=U csw=C maxrss_kb=K tasks=X check=Y' (cpu_ms: user + system CPU time of the whole\n"
"process, all threads, during the run; csw: its context switches during the run;\n"
"maxrss_kb: its peak resident memory; tasks: task constructs encountered); with\n"
"--json the same fields as one JSON object per line (what 'muster bench tasks' reads).\n"
"Exit status 0 when the answer was right, 1 when it was wrong, 2 for a bad command line.\n");
}

static int set_workload(const char *v, void *o)
{
    for (size_t w = 0; w < WORKLOAD_COUNT; w++)
        if (strcmp(v, workloads[w].name) == 0) {
            ((options *)o)->workload = workloads[w].name;
            return 0;
        }
    return cli_usage_error(PROG, "--workload: unknown workload '%s' (fib, fib-nocut, nqueens, mergesort, "
                                 "sparselu, uts, knapsack, knapsack-last, depfan)", v);
}

static const cli_option valued_options[] = {
    {"--workload", CLI_VALUE_CUSTOM, 0, 0, 0, set_workload},
    {"--threads", CLI_VALUE_ULONG, offsetof(options, threads), 1, 4096, NULL},
    {"--scale", CLI_VALUE_DOUBLE, offsetof(options, scale), 0.001, 100, NULL},
    {"--json", CLI_FLAG, offsetof(options, json), 0, 0, NULL},
};

static const workload *find_workload(const char *name)
{
    for (size_t w = 0; w < WORKLOAD_COUNT; w++)
        if (strcmp(name, workloads[w].name) == 0)
            return &workloads[w];
    return NULL;
}

static long switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* User + system CPU time of the whole process (every thread), in ms. */
static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static long peak_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int fail(const workload *w, unsigned threads, bool json, const char *why)
{
    record_error(stdout, json, "workload", w->name, threads, why);
    return 1;
}

int main(int argc, char **argv)
{
    options o = {.scale = 1.0};
    int rc = cli_parse_args(PROG, argc, argv, valued_options, sizeof valued_options / sizeof valued_options[0],
                            &o, usage);
    if (rc >= 0)
        return rc;
    if (o.workload == NULL)
        return cli_usage_error(PROG, "--workload is required (fib, fib-nocut, nqueens, mergesort, sparselu, "
                                     "uts, knapsack, knapsack-last, depfan)");
    if (o.threads)
        omp_set_num_threads((int)o.threads);
    unsigned threads = (unsigned)omp_get_max_threads();
    const workload *w = find_workload(o.workload);
    char params[128] = "", check[96] = "";
    const char *why = w->setup(o.scale, params, sizeof params);
    record r = record_begin(stdout, o.json, "# taskbench");
    record_answering_runtime(&r);
    record_uint(&r, "threads", threads);
    record_string(&r, "workload", w->name);
    record_number(&r, "scale", o.scale);
    record_string(&r, "params", params);
    record_end(&r);
    if (why)
        return fail(w, threads, o.json, why);
#pragma omp parallel
    count_team_tasks(); /* starts the team before the clock does */
    tasks_total = 0;
    long csw0 = switches();
    double cpu0 = cpu_ms();
    uint64_t t0 = now_ns();
    w->run();
    uint64_t t1 = now_ns();
    double cpu1 = cpu_ms();
    long csw1 = switches();
    why = w->verify(check, sizeof check);
    if (why) {
        char message[256];
        snprintf(message, sizeof message, "%s (%s)", why, check);
        w->teardown();
        return fail(w, threads, o.json, message);
    }
    r = record_begin(stdout, o.json, NULL);
    record_string(&r, "workload", w->name);
    record_uint(&r, "threads", threads);
    record_string(&r, "status", "ok");
    record_number(&r, "ms", (double)(t1 - t0) / 1e6);
    record_number(&r, "cpu_ms", cpu1 - cpu0);
    record_uint(&r, "csw", (unsigned long long)(csw1 - csw0));
    record_uint(&r, "maxrss_kb", (unsigned long long)peak_kb());
    record_uint(&r, "tasks", tasks_total);
    record_string(&r, "check", check);
    record_end(&r);
    w->teardown();
    return 0;
}
