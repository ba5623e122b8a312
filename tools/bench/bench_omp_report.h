/* The results of `muster bench omp` and their two forms: a table for people
 * (at most 100 columns) and one JSON object for programs. */
#ifndef MUSTER_TOOLS_BENCH_OMP_REPORT_H
#define MUSTER_TOOLS_BENCH_OMP_REPORT_H

#include "bench_report.h" /* cell_status */
#include "omp_runtime.h"

#include <stdint.h>
#include <stdio.h>

#define OMP_CONSTRUCT_COUNT 18
/* The first ten are syncbench's, the rest EPCC taskbench's. */
#define OMP_SYNC_CONSTRUCT_COUNT 10
#define OMP_MESSAGE_LEN 640

/* The constructs syncbench measures, as it spells them, and for people. */
extern const char *const omp_construct_names[OMP_CONSTRUCT_COUNT];
extern const char *const omp_construct_labels[OMP_CONSTRUCT_COUNT];

/* One construct on one runtime at one team size: one sample per round. */
typedef struct omp_cell {
    cell_status status;
    unsigned samples;
    double *us;       /* [reps] overhead per construct, one per round */
    double csw_sum;   /* context switches per construct, summed over samples */
    double cpu_sum;   /* CPU us per construct (every thread, the delay too), summed over samples */
    uint64_t inner;   /* calibrated in the first round, reused after */
    char message[OMP_MESSAGE_LEN];
} omp_cell;

typedef struct omp_bench_run {
    /* what is measured */
    const unsigned *threads; /* team sizes, ascending */
    size_t ncounts;
    int construct[OMP_CONSTRUCT_COUNT]; /* selected? */
    int runtime[OMP_RUNTIME_COUNT];     /* selected and found? */
    char runtime_path[OMP_RUNTIME_COUNT][4096]; /* what answered (syncbench's dladdr) */
    char runtime_missing[OMP_RUNTIME_COUNT][2300]; /* selected but not found: why */
    omp_cell *cells; /* [construct][count][runtime] */
    /* settings */
    unsigned reps;
    double target_ms, timeout_s, delay_ns;
    unsigned delay_iters;
    const char *syncbench;
    const char *compiler;  /* "gcc" or "clang": who built syncbench */
    report_machine machine;
} omp_bench_run;

static inline omp_cell *omp_cell_at(const omp_bench_run *run, size_t construct, size_t count,
                                    size_t runtime)
{
    return &run->cells[(construct * run->ncounts + count) * OMP_RUNTIME_COUNT + runtime];
}

void omp_report_table(FILE *out, const omp_bench_run *run);
void omp_report_json(FILE *out, const omp_bench_run *run);

/* Shared by the reports of both OpenMP benchmarks (bench omp, bench tasks). */

/* The table's runtime lines: each runtime asked for, with the file that
 * answered or why none was found. */
void omp_report_put_runtimes(FILE *out, const int runtime[OMP_RUNTIME_COUNT],
                             const char path[OMP_RUNTIME_COUNT][4096], const char missing[OMP_RUNTIME_COUNT][2300]);
/* The table's second heading line: `indent` blank columns, then the stats
 * heads (median, worst, >5x) of each runtime asked for, and "÷ best" above
 * the ratio column when the table has one. */
void omp_report_put_stats_heads(FILE *out, const int runtime[OMP_RUNTIME_COUNT], size_t indent, int ratio);
/* Writes one JSON cell of `run`: the item (construct, workload), the team
 * size index and the runtime. */
typedef void omp_report_cell_writer(FILE *out, const void *run, size_t item, size_t count, size_t runtime);
/* "cells": [...] and the end of the object: write_cell for every selected
 * item, team size and runtime found, in that order. */
void omp_report_json_cells(FILE *out, const void *run, const int *selected, size_t items, size_t ncounts,
                           const int runtime[OMP_RUNTIME_COUNT], omp_report_cell_writer *write_cell);
/* "runtimes": {"libgomp": {"found": true, "path": ...}, ...}: the runtimes
 * asked for, with the file that answered or why none was found. */
void omp_report_json_runtimes(FILE *out, const int runtime[OMP_RUNTIME_COUNT],
                              const char path[OMP_RUNTIME_COUNT][4096], const char missing[OMP_RUNTIME_COUNT][2300]);

#endif
