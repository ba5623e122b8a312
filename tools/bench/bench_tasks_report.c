/* The report of `muster bench tasks`: two tables for people (at most 100
 * columns: times, then context switches and memory) and one JSON object. */
#include "bench_tasks_report.h"

#include "bench_omp_report.h" /* omp_report_json_runtimes */

#include "report_text.h"
#include "sample_stats.h"
#include "json_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* taskbench's names of its workloads, in the table's order. */
const char *const task_workload_names[TASK_WORKLOAD_COUNT] = {
    "fib", "fib-nocut", "nqueens", "mergesort", "sparselu", "uts", "knapsack", "knapsack-last", "depfan",
};

#define NAME_W 14   /* "knapsack-last" and a blank */
#define THREADS_W 4
#define GROUP_W (1 + REPORT_STATS_W)
#define RATIO_W 8

static sample_stats stats_of(const double *x, const task_cell *c) { return sample_stats_of(x, c->samples); }

static double median_ms(const task_cell *c)
{
    return c->status == CELL_OK ? stats_of(c->ms, c).median : NAN;
}

/* Error and dnf cells are numbered in reading order and explained below. */
static int note_number(const task_bench_run *run, const task_cell *cell)
{
    return cell_note_number(run->cells, sizeof *cell, (size_t)(cell - run->cells));
}

/* muster's median ÷ the better median of libgomp and libomp; NAN if missing. */
static double muster_ratio(const task_bench_run *run, size_t w, size_t k)
{
    double best = NAN;
    for (int rt = OMP_RUNTIME_LIBGOMP; rt <= OMP_RUNTIME_LIBOMP; rt++) {
        double m = median_ms(task_cell_at(run, w, k, (size_t)rt));
        if (!isnan(m) && (isnan(best) || m < best))
            best = m;
    }
    double mine = median_ms(task_cell_at(run, w, k, OMP_RUNTIME_MUSTER));
    return best > 0 ? mine / best : NAN;
}

/* A runtime's speed-up at count k over its own 1-thread median; NAN when
 * 1 thread was not run. */
static double speedup(const task_bench_run *run, size_t w, size_t k, size_t rt)
{
    for (size_t one = 0; one < run->ncounts; one++)
        if (run->threads[one] == 1) {
            double base = median_ms(task_cell_at(run, w, one, rt)), now = median_ms(task_cell_at(run, w, k, rt));
            return now > 0 ? base / now : NAN;
        }
    return NAN;
}

static int has_ratio(const task_bench_run *run)
{
    return run->runtime[OMP_RUNTIME_MUSTER] && (run->runtime[OMP_RUNTIME_LIBGOMP] || run->runtime[OMP_RUNTIME_LIBOMP]);
}

static void format_value(char *text, size_t len, double x)
{
    if (isnan(x))
        snprintf(text, len, "-");
    else
        snprintf(text, len, "%.*f", report_decimals_for(x), x);
}

static void put_time(FILE *out, const task_bench_run *run, const task_cell *c)
{
    char text[40];
    if (c->status == CELL_OK) {
        sample_stats s = stats_of(c->ms, c);
        char median[32], worst[32];
        format_value(median, sizeof median, s.median);
        format_value(worst, sizeof worst, s.max);
        fputc(' ', out);
        report_put_stats(out, median, worst, s.outliers);
        return;
    }
    if (c->status == CELL_DNF || c->status == CELL_ERROR)
        snprintf(text, sizeof text, "%s, note %d", c->status == CELL_DNF ? "dnf" : "error", note_number(run, c));
    else
        snprintf(text, sizeof text, "-");
    report_put_padded(out, text, GROUP_W, 1);
}

/* "a/b/c" of the runtimes run into buf; '-' where missing.  decimals < 0:
 * as many as the value needs. */
static void format_triple(char *buf, size_t len, const task_bench_run *run, const double values[OMP_RUNTIME_COUNT],
                          int decimals)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int rt = 0; rt < OMP_RUNTIME_COUNT && used < len; rt++) {
        if (!run->runtime[rt])
            continue;
        const char *sep = used ? "/" : "";
        if (isnan(values[rt]))
            used += (size_t)snprintf(buf + used, len - used, "%s-", sep);
        else
            used += (size_t)snprintf(buf + used, len - used, "%s%.*f", sep,
                                     decimals < 0 ? report_decimals_for(values[rt]) : decimals, values[rt]);
    }
}

static void put_triple(FILE *out, const task_bench_run *run, const double values[OMP_RUNTIME_COUNT], int decimals,
                       size_t width)
{
    char text[96];
    format_triple(text, sizeof text, run, values, decimals);
    fputs("  ", out);
    report_put_padded(out, text, width, 0);
}

static void put_initials(FILE *out, const task_bench_run *run, const char *head)
{
    static const char initials[OMP_RUNTIME_COUNT] = {'g', 'o', 'm'};
    fprintf(out, "  %s ", head);
    for (int rt = 0, first = 1; rt < OMP_RUNTIME_COUNT; rt++)
        if (run->runtime[rt]) {
            fprintf(out, "%s%c", first ? "" : "/", initials[rt]);
            first = 0;
        }
}

static void put_times_header(FILE *out, const task_bench_run *run)
{
    char head[32];
    report_put_padded(out, "workload", NAME_W, 0);
    report_put_padded(out, "thr", THREADS_W, 1);
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        if (run->runtime[rt]) {
            snprintf(head, sizeof head, " %s ms", omp_runtime_name((omp_runtime)rt));
            report_put_padded(out, head, GROUP_W, 0);
        }
    fputc('\n', out);
    omp_report_put_stats_heads(out, run->runtime, NAME_W + THREADS_W, has_ratio(run));
    put_initials(out, run, "×1");
    fputc('\n', out);
}

static void put_times_row(FILE *out, const task_bench_run *run, size_t w, size_t k)
{
    char text[32];
    report_put_padded(out, k == 0 ? task_workload_names[w] : "", NAME_W, 0);
    snprintf(text, sizeof text, "%u", run->threads[k]);
    report_put_padded(out, text, THREADS_W, 1);
    double speed[OMP_RUNTIME_COUNT];
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
        speed[rt] = speedup(run, w, k, (size_t)rt);
        if (run->runtime[rt])
            put_time(out, run, task_cell_at(run, w, k, (size_t)rt));
    }
    if (has_ratio(run))
        report_put_ratio(out, muster_ratio(run, w, k), RATIO_W);
    put_triple(out, run, speed, 1, 0);
    fputc('\n', out);
}

static void put_resources(FILE *out, const task_bench_run *run)
{
    fprintf(out, "\nCPU seconds (all threads, during the run), context switches per run and peak memory (MB),"
                 " medians\n");
    report_put_padded(out, "workload", NAME_W, 0);
    report_put_padded(out, "thr", THREADS_W, 1);
    put_initials(out, run, "CPU s");
    fputs("             ", out);
    put_initials(out, run, "csw");
    fputs("              ", out);
    put_initials(out, run, "peak MB");
    fputc('\n', out);
    for (size_t w = 0; w < TASK_WORKLOAD_COUNT; w++)
        for (size_t k = 0; w < TASK_WORKLOAD_COUNT && run->workload[w] && k < run->ncounts; k++) {
            char text[16];
            double cpu[OMP_RUNTIME_COUNT], csw[OMP_RUNTIME_COUNT], mb[OMP_RUNTIME_COUNT];
            for (size_t rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
                const task_cell *c = task_cell_at(run, w, k, rt);
                cpu[rt] = c->status == CELL_OK ? stats_of(c->cpu_ms, c).median / 1e3 : NAN;
                csw[rt] = c->status == CELL_OK ? stats_of(c->csw, c).median : NAN;
                mb[rt] = c->status == CELL_OK ? stats_of(c->rss_kb, c).median / 1024.0 : NAN;
            }
            report_put_padded(out, k == 0 ? task_workload_names[w] : "", NAME_W, 0);
            snprintf(text, sizeof text, "%u", run->threads[k]);
            report_put_padded(out, text, THREADS_W, 1);
            put_triple(out, run, cpu, 3, 24);
            put_triple(out, run, csw, 0, 24);
            put_triple(out, run, mb, 1, 0);
            fputc('\n', out);
        }
}

static void put_notes(FILE *out, const task_bench_run *run)
{
    int note = 0;
    for (size_t w = 0; w < TASK_WORKLOAD_COUNT; w++)
        for (size_t k = 0; k < run->ncounts; k++)
            for (size_t rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
                const task_cell *x = task_cell_at(run, w, k, rt);
                if (x->status != CELL_ERROR && x->status != CELL_DNF)
                    continue;
                note++;
                fprintf(out, "%snote %d: %s @%u on %s: %s\n", note == 1 ? "\n" : "", note, task_workload_names[w],
                        run->threads[k], omp_runtime_name((omp_runtime)rt), x->message);
            }
}

void task_report_table(FILE *out, const task_bench_run *run)
{
    fprintf(out, "muster bench tasks: task workloads (taskbench, built by %s), wall time in ms: median and worst "
                 "of %u round%s, scale %g\n",
            run->compiler ? run->compiler : "gcc", run->reps, run->reps == 1 ? "" : "s", run->scale);
    report_put_machine(out, &run->machine);
    fputc('\n', out);
    omp_report_put_runtimes(out, run->runtime, run->runtime_path, run->runtime_missing);
    fprintf(out, "a run is one process, its result checked; >5×: rounds above 5× the median, marked !;\n"
                 "÷ best: muster's median ÷ the better median of libgomp and libomp; ×1: each runtime's\n"
                 "speed-up over its own 1-thread median (g/o/m: libgomp/libomp/muster)\n\n");
    put_times_header(out, run);
    for (size_t w = 0; w < TASK_WORKLOAD_COUNT; w++)
        for (size_t k = 0; run->workload[w] && k < run->ncounts; k++)
            put_times_row(out, run, w, k);
    put_resources(out, run);
    put_notes(out, run);
}

/* ---- JSON --------------------------------------------------------------- */

static void json_cell(FILE *out, const void *report_run, size_t w, size_t k, size_t rt)
{
    const task_bench_run *run = report_run;
    const task_cell *c = task_cell_at(run, w, k, rt);
    int ok = c->status == CELL_OK;
    sample_stats ms = stats_of(c->ms, c);
    fprintf(out, "    {\"workload\": \"%s\", \"threads\": %u, \"runtime\": \"%s\", \"status\": \"%s\"",
            task_workload_names[w], run->threads[k], omp_runtime_name((omp_runtime)rt),
            cell_status_name(c->status));
    report_json_field(out, "median_ms", ok ? ms.median : NAN);
    report_json_field(out, "worst_ms", ok ? ms.max : NAN);
    report_json_field(out, "min_ms", ok ? ms.min : NAN);
    report_json_field(out, "speedup", ok ? speedup(run, w, k, rt) : NAN);
    report_json_field(out, "csw_median", ok ? stats_of(c->csw, c).median : NAN);
    report_json_field(out, "cpu_ms_median", ok ? stats_of(c->cpu_ms, c).median : NAN);
    report_json_field(out, "maxrss_kb_median", ok ? stats_of(c->rss_kb, c).median : NAN);
    if (rt == OMP_RUNTIME_MUSTER)
        report_json_field(out, "ratio_to_best", muster_ratio(run, w, k));
    fprintf(out, ", \"outliers\": %zu, \"samples\": %u", ok ? ms.outliers : 0, c->samples);
    report_json_samples(out, "samples_ms", c->ms, ok ? c->samples : 0);
    fputs(", \"tasks\": ", out);
    report_json_number(out, ok ? strtod(c->tasks, NULL) : NAN);
    fputs(", \"check\": ", out);
    muster_json_write_string(out, c->check);
    report_json_end_cell(out, ok, c->message);
}

void task_report_json(FILE *out, const task_bench_run *run)
{
    fputs("{\n  ", out);
    report_json_machine(out, &run->machine);
    fprintf(out, ",\n  \"settings\": {\"method\": \"taskbench\", \"compiler\": ");
    muster_json_write_string(out, run->compiler ? run->compiler : "gcc");
    fprintf(out, ", \"reps\": %u", run->reps);
    report_json_field(out, "scale", run->scale);
    report_json_threads(out, run->threads, run->ncounts);
    fputs("},\n  ", out);
    omp_report_json_runtimes(out, run->runtime, run->runtime_path, run->runtime_missing);
    fputs(",\n", out);
    omp_report_json_cells(out, run, run->workload, TASK_WORKLOAD_COUNT, run->ncounts, run->runtime, json_cell);
}
