/* What the three files of `muster compare` share (compare.h is what the
 * command offers): compare.c parses the options, chooses the runtimes and
 * runs the rounds; compare_run.c runs the program once and keeps what the
 * run measured; compare_report.c prints the tables, checks the outputs and
 * writes the JSON and the plot. */
#ifndef MUSTER_TOOLS_COMPARE_RUN_H
#define MUSTER_TOOLS_COMPARE_RUN_H

#include "compare.h"
#include "omp_entries.h"
#include "omp_runtime.h"

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PROG "muster compare"
#define MAX_ROUNDS 1000

typedef struct compare_options {
    omp_bench_choice choice; /* threads, runtimes (compilers unused) */
    unsigned long rounds;
    double timeout_s, tolerance;
    const char *figure, *expect, *json, *plot;
    int ignore_output;
    char **program; /* argv of the program, NULL-terminated */
} compare_options;

/* One run of the program: what it measured, how it ended, its output. */
typedef struct run_result {
    double wall_s, cpu_s, figure;
    long voluntary, involuntary, peak_kb;
    int status, timed_out, failed_to_start, has_figure;
    char *out;
    char err_line[200];
} run_result;

/* Runs o->program once under `library` (NULL: its own runtime) with
 * `threads` threads, into r; the number `figure` matches, when given. */
void compare_run_once(const compare_options *o, const char *library, unsigned threads, const regex_t *figure,
                      run_result *r);
/* Whether the run started, finished in time and exited 0. */
bool compare_run_ok(const run_result *r);
/* "exit 0", "exit 3", "signal 11", "timed out", "not started" */
void compare_describe_end(const run_result *r, char *buf, size_t len);

/* The whole comparison: the runtimes in the table's order and every run. */
typedef struct comparison {
    const compare_options *o;
    omp_abi abi;
    int runtime[OMP_RUNTIME_COUNT];
    char library[OMP_RUNTIME_COUNT][4096];
    unsigned nruntimes, order[OMP_RUNTIME_COUNT];
    run_result *runs; /* [threads][runtime slot][round] */
} comparison;

static inline run_result *compare_run_at(const comparison *c, size_t t, size_t slot, size_t round)
{
    return &c->runs[(t * c->nruntimes + slot) * c->o->rounds + round];
}

/* The table of team size t. */
void compare_print_table(FILE *out, const comparison *c, size_t t);
/* --expect, then the agreement check (or --figure's) at every team size;
 * returns the disagreements. */
size_t compare_check_outputs(FILE *out, const comparison *c, const regex_t *figure);
/* --json FILE: 0, or -1 after a message. */
int compare_save_json(const char *path, const comparison *c, size_t disagreements, int failed);
/* --plot FILE, drawn by plotter from the JSON: 0, or -1 after a message. */
int compare_draw_plot(const comparison *c, compare_plotter plotter, size_t disagreements, int failed);

#endif
