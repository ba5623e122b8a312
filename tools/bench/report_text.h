/* Text and JSON helpers the benchmark reports share (bench_report.c for
 * `muster bench barrier`, bench_omp_report.c for `muster bench omp`,
 * bench_tasks_report.c for `muster bench tasks`): one way of padding UTF-8,
 * rounding overheads, laying out a measurement's columns and writing JSON
 * values. */
#ifndef MUSTER_TOOLS_REPORT_TEXT_H
#define MUSTER_TOOLS_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* The CPUs a run had, as each report states them. */
typedef struct report_machine {
    long cpus_online;
    unsigned cpus_available;
    const int *cpu_list; /* [cpus_available]: the ids of those it could use, ascending */
} report_machine;

/* The three columns each report gives a measurement: median and worst,
 * and the count of outliers (">5×"), one blank between them. */
#define REPORT_TIME_W 7    /* "12345.6" */
#define REPORT_OUTLIER_W 4 /* "12!" */
#define REPORT_STATS_W (REPORT_TIME_W + 1 + REPORT_TIME_W + 1 + REPORT_OUTLIER_W)

/* Columns a UTF-8 string takes ("±" and "µ" are two bytes, one column). */
size_t report_display_width(const char *s);
/* s in width columns, right-aligned when `right`, else left. */
void report_put_padded(FILE *out, const char *s, size_t width, int right);
/* Decimals that show an overhead of this size to about four digits. */
int report_decimals_for(double x);
/* A measurement's three columns (REPORT_STATS_W): median and worst as
 * given, the outliers marked ! when there are any ("3!"). */
void report_put_stats(FILE *out, const char *median, const char *worst, size_t outliers);
/* The heads of those columns: "median", "worst", ">5×". */
void report_put_stats_heads(FILE *out);
/* Context switches per operation, ratios ("0.47×", "0.0047×"). */
void report_format_csw(char *buf, size_t len, double x);
void report_format_ratio(char *buf, size_t len, double r);
/* A ratio right-aligned in width columns, "-" when there is none (NaN). */
void report_put_ratio(FILE *out, double r, size_t width);
/* A measurement for JSON: 6 significant digits, or null when not finite
 * (strings: muster_json_write_string, json_write.h). */
void report_json_number(FILE *out, double x);
/* `, "name": x` with x as report_json_number writes it. */
void report_json_field(FILE *out, const char *name, double x);
/* `, "name": [x, ...]`: n measurements, each as report_json_number writes it. */
void report_json_samples(FILE *out, const char *name, const double *x, unsigned n);
/* The end of a cell's object: `, "message": "..."` when it did not pass
 * (ok is 0), then the closing brace. */
void report_json_end_cell(FILE *out, int ok, const char *message);
/* `, "threads": [2, 4, 8]`: the team sizes of a run. */
void report_json_threads(FILE *out, const unsigned *threads, size_t ncounts);
/* The settings of an EPCC run (bench barrier, bench omp) after its
 * method: `, "threads": [...], "reps": R, "target_ms": T, "timeout_s": S,
 * "delay_ns": D, "delay_iters": I`. */
void report_json_epcc_settings(FILE *out, const unsigned *threads, size_t ncounts, unsigned reps, double target_ms,
                               double timeout_s, double delay_ns, unsigned delay_iters);
/* `"machine": {"cpus": N, "cpus_available": M, "cpu_list": [...]}` without a
 * trailing comma or newline. */
void report_json_machine(FILE *out, const report_machine *m);
/* "3 of 4 CPUs available (0-1,3)", without a newline: the tables' line. */
void report_put_machine(FILE *out, const report_machine *m);

#endif
