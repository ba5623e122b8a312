/* The report of `muster bench tasks` (bench_tasks_report.c): the run's
 * shape (workloads, cells), which the runner (bench_tasks.c) fills, and
 * its table and JSON. */
#ifndef MUSTER_TOOLS_BENCH_TASKS_REPORT_H
#define MUSTER_TOOLS_BENCH_TASKS_REPORT_H

#include "bench_report.h" /* cell_status */
#include "omp_runtime.h"

#include <stddef.h>
#include <stdio.h>

#define TASK_WORKLOAD_COUNT 9
#define TASK_MESSAGE_LEN 640

/* The workloads, as taskbench names them. */
extern const char *const task_workload_names[TASK_WORKLOAD_COUNT];

/* One workload on one runtime at one team size: one run per round. */
typedef struct task_cell {
    cell_status status;
    unsigned samples;
    double *ms, *csw, *rss_kb; /* [reps]: wall time, context switches, peak memory */
    double *cpu_ms;            /* [reps]: CPU time of the process, all threads, during the run */
    char tasks[32], check[64]; /* what the last run reported */
    char message[TASK_MESSAGE_LEN];
} task_cell;

typedef struct task_bench_run {
    const unsigned *threads; /* team sizes, ascending */
    size_t ncounts;
    int workload[TASK_WORKLOAD_COUNT];
    int runtime[OMP_RUNTIME_COUNT];
    char runtime_path[OMP_RUNTIME_COUNT][4096];
    char runtime_missing[OMP_RUNTIME_COUNT][2300];
    task_cell *cells; /* [workload][count][runtime] */
    unsigned reps;
    double scale, timeout_s;
    const char *taskbench;
    const char *compiler; /* "gcc" or "clang": who built taskbench */
    report_machine machine;
} task_bench_run;

static inline task_cell *task_cell_at(const task_bench_run *run, size_t workload, size_t count, size_t runtime)
{
    return &run->cells[(workload * run->ncounts + count) * OMP_RUNTIME_COUNT + runtime];
}

/* The table and the JSON of a run. */
void task_report_table(FILE *out, const task_bench_run *run);
void task_report_json(FILE *out, const task_bench_run *run);

#endif
