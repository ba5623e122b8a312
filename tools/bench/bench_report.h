/* The results of `muster bench barrier` and the two ways of printing them: a
 * table for people (100 columns) and one JSON object for programs. */
#ifndef MUSTER_TOOLS_BENCH_REPORT_H
#define MUSTER_TOOLS_BENCH_REPORT_H

#include "bench_impl.h"
#include "report_text.h" /* report_machine */
#include "sample_stats.h"

#include <stdint.h>
#include <stdio.h>

typedef enum cell_status {
    CELL_PENDING, /* not measured yet */
    CELL_OK,
    CELL_DNF,
    CELL_ERROR,
    CELL_NOT_APPLICABLE, /* the floor beyond two threads */
} cell_status;

/* A cell's status in JSON: "ok", "dnf", "error" or "not run". */
const char *cell_status_name(cell_status s);

/* The note number of cells[index] in a table whose error and dnf cells are
 * numbered in reading order, which is the order of the cells array (`muster
 * bench omp` and `bench tasks`): cells holds cell_size-byte structs, each
 * starting with its cell_status. */
int cell_note_number(const void *cells, size_t cell_size, size_t index);

/* One implementation at one team size, over the outer repetitions: every
 * sample is kept, so the report can show the tail (the worst repetition,
 * and how many stray far from the median) as well as the middle. */
typedef struct bench_cell {
    cell_status status;
    unsigned samples;
    double *us;               /* [reps]: overhead per barrier, one per repetition */
    double csw_sum;           /* context switches per barrier, summed over samples */
    uint64_t inner;           /* calibrated on the first repetition, reused after */
    double state_bytes;       /* per participant; < 0: unknown */
    int resolved_algorithm, resolved_policy;
    char message[BENCH_ERR_LEN];
} bench_cell;

/* One row: a muster algorithm with a policy, "auto", or a comparator. */
typedef struct bench_row {
    const bench_impl *impl;
    struct bench_muster_choice choice; /* for muster rows */
    char label[48];                    /* e.g. "dissemination/hybrid", "ck-mcs" */
    const char *policy;                /* muster rows only, else NULL */
} bench_row;

typedef struct bench_run {
    bench_row *rows;
    size_t nrows;
    const unsigned *threads; /* team sizes, ascending */
    size_t ncounts;
    bench_cell *cells; /* nrows x ncounts, row-major */
    /* settings */
    unsigned reps;
    double target_ms, timeout_s;
    const char *pin;
    double delay_ns;
    unsigned delay_iters;
    report_machine machine;
} bench_run;

static inline bench_cell *bench_cell_at(const bench_run *run, size_t row, size_t count)
{
    return &run->cells[row * run->ncounts + count];
}

sample_stats bench_cell_stats(const bench_cell *c);
void bench_report_table(FILE *out, const bench_run *run);
void bench_report_json(FILE *out, const bench_run *run);

#endif
