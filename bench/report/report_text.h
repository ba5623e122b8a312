/* Text and JSON helpers the benchmark reports share (bench_report.c for
 * `muster bench barrier`, bench_omp_report.c for `muster bench omp`): one
 * way of padding UTF-8, rounding overheads and writing JSON values. */
#ifndef MUSTER_BENCH_REPORT_TEXT_H
#define MUSTER_BENCH_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Columns a UTF-8 string takes ("±" and "µ" are two bytes, one column). */
size_t report_display_width(const char *s);
/* s in width columns, right-aligned when `right`, else left. */
void report_put_padded(FILE *out, const char *s, size_t width, int right);
/* Decimals that show an overhead of this size to about four digits. */
int report_decimals_for(double x);
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
void report_json_machine(FILE *out, long cpus_online, unsigned cpus_available, const int *cpu_list);

#endif
