/* The table `muster bench omp` prints (tools/bench/bench_omp_report.c), fed a run
 * made up here: a construct cheaper than syncbench's reference loop comes
 * out as a negative overhead, which must print as itself, take no ratio and
 * explain itself under the table instead of passing for a speed-up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_omp_report.h"
#include "check.h"

#define REPS 3

static double samples[OMP_CONSTRUCT_COUNT][OMP_RUNTIME_COUNT][REPS];
static omp_cell cells[OMP_CONSTRUCT_COUNT * OMP_RUNTIME_COUNT];
static const unsigned two_threads[] = {2};
static const int cpus[] = {0, 1};

static size_t construct_index(const char *name)
{
    for (size_t c = 0; c < OMP_CONSTRUCT_COUNT; c++)
        if (strcmp(omp_construct_names[c], name) == 0)
            return c;
    CHECK(0, "no construct %s", name);
}

/* CONDITIONAL TASK and TASK WAIT on all three runtimes, every round of a
 * cell the same value. */
static omp_bench_run make_run(double gomp_cond_us, double muster_cond_us)
{
    const size_t cond = construct_index("CONDITIONAL_TASK");
    const size_t picked[] = {cond, construct_index("TASK_WAIT")};
    const double base[OMP_RUNTIME_COUNT] = {0.8, 11.8, 0.04};
    omp_bench_run run = {.threads = two_threads, .ncounts = 1, .cells = cells, .reps = REPS,
                         .target_ms = 0.2, .delay_ns = 100,
                         .machine = {.cpus_online = 2, .cpus_available = 2, .cpu_list = cpus}};
    memset(cells, 0, sizeof cells);
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
        run.runtime[rt] = 1;
        snprintf(run.runtime_path[rt], sizeof run.runtime_path[rt], "/lib/%s.so", omp_runtime_name((omp_runtime)rt));
    }
    for (size_t p = 0; p < 2; p++) {
        size_t c = picked[p];
        run.construct[c] = 1;
        for (size_t rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
            double v = base[rt];
            if (c == cond && rt == OMP_RUNTIME_LIBGOMP)
                v = gomp_cond_us;
            if (c == cond && rt == OMP_RUNTIME_MUSTER)
                v = muster_cond_us;
            for (int r = 0; r < REPS; r++)
                samples[c][rt][r] = v;
            omp_cell *x = omp_cell_at(&run, c, 0, rt);
            x->status = CELL_OK;
            x->samples = REPS;
            x->us = samples[c][rt];
        }
    }
    return run;
}

/* The table as text, in a buffer the caller frees. */
static char *table_of(const omp_bench_run *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out != NULL);
    omp_report_table(out, run);
    fclose(out);
    return text;
}

/* The table's row for label, up to its newline. */
static const char *row_of(const char *table, const char *label, char *row, size_t size)
{
    const char *at = strstr(table, label);
    CHECK(at != NULL, "no row '%s' in\n%s", label, table);
    size_t n = strcspn(at, "\n");
    CHECK(n < size);
    memcpy(row, at, n);
    row[n] = '\0';
    return row;
}

static void test_negative_overhead(void)
{
    omp_bench_run run = make_run(-0.011, 0.024);
    char *table = table_of(&run);
    char row[256];
    row_of(table, "CONDITIONAL TASK", row, sizeof row);
    CHECK(strstr(row, "-0.011") != NULL, "the negative median prints as itself: %s", row);
    CHECK(strstr(row, "×") == NULL, "no ratio against a median below zero: %s", row);
    CHECK(strstr(table, "A median at or below 0 µs") != NULL, "the table explains it:\n%s", table);
    row_of(table, "TASK WAIT", row, sizeof row);
    CHECK(strstr(row, "0.05×") != NULL, "a row beside it keeps its ratio, 0.04 over 0.8: %s", row);
    free(table);
}

static void test_positive_overheads_need_no_note(void)
{
    omp_bench_run run = make_run(0.5, 0.25);
    char *table = table_of(&run);
    char row[256];
    row_of(table, "CONDITIONAL TASK", row, sizeof row);
    CHECK(strstr(row, "0.50×") != NULL || strstr(row, "0.5×") != NULL, "muster 0.25 over libgomp 0.5: %s", row);
    CHECK(strstr(table, "at or below 0") == NULL, "no note when every median is above zero:\n%s", table);
    free(table);
}

static void test_muster_negative_too(void)
{
    omp_bench_run run = make_run(0.5, -0.02);
    char *table = table_of(&run);
    char row[256];
    row_of(table, "CONDITIONAL TASK", row, sizeof row);
    CHECK(strstr(row, "-0.02") != NULL, "%s", row);
    CHECK(strstr(row, "×") == NULL, "no ratio from muster's own median below zero: %s", row);
    CHECK(strstr(table, "A median at or below 0 µs") != NULL, "muster's own negative median is explained too");
    free(table);
}

int main(void)
{
    test_negative_overhead();
    test_positive_overheads_need_no_note();
    test_muster_negative_too();
    printf("bench omp report: ok\n");
    return 0;
}
