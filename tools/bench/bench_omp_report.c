#include "bench_omp_report.h"

#include "report_text.h"
#include "sample_stats.h"
#include "json_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const omp_construct_names[OMP_CONSTRUCT_COUNT] = {
    "PARALLEL", "FOR",     "PARALLEL_FOR", "BARRIER", "SINGLE",
    "CRITICAL", "LOCK",    "ORDERED",      "ATOMIC",  "REDUCTION",
    "PARALLEL_TASK", "MASTER_TASK", "MASTER_TASK_BUSY_SLAVES", "CONDITIONAL_TASK",
    "TASK_WAIT", "TASK_BARRIER", "NESTED_TASK", "NESTED_MASTER_TASK",
};
const char *const omp_construct_labels[OMP_CONSTRUCT_COUNT] = {
    "PARALLEL", "FOR",     "PARALLEL FOR", "BARRIER", "SINGLE",
    "CRITICAL", "LOCK",    "ORDERED",      "ATOMIC",  "REDUCTION",
    "PARALLEL TASK", "MASTER TASK", "MASTER TASK BUSY", "CONDITIONAL TASK",
    "TASK WAIT", "TASK BARRIER", "NESTED TASK", "NESTED MASTER TASK",
};

#define MIN_NAME_W 13 /* "PARALLEL FOR" and a blank */
#define GROUP_W (1 + REPORT_STATS_W) /* one runtime: median, worst, >5x */
#define RATIO_W 8   /* " 0.036×" */
#define TABLE_COLUMNS 100

/* Initials of the runtimes in the context-switch column's head. */
static const char csw_initials[OMP_RUNTIME_COUNT] = {'g', 'o', 'm'};

/* The construct column fits the longest label selected and a blank: the
 * syncbench table keeps its 100 columns, the taskbench rows widen it. */
static int name_width(const omp_bench_run *run)
{
    int width = MIN_NAME_W;
    for (size_t c = 0; c < OMP_CONSTRUCT_COUNT; c++) {
        int len = (int)strlen(omp_construct_labels[c]) + 1;
        if (run->construct[c] && len > width)
            width = len;
    }
    return width;
}

static sample_stats cell_stats(const omp_cell *c) { return sample_stats_of(c->us, c->samples); }

static double cell_csw(const omp_cell *c) { return c->samples ? c->csw_sum / c->samples : NAN; }
static double cell_cpu(const omp_cell *c) { return c->samples ? c->cpu_sum / c->samples : NAN; }
#define CSW_W 16 /* the csw column's width: "0.00/0.00/0.00" */

/* Error and dnf cells are numbered in reading order and explained under
 * the table. */
static int note_number(const omp_bench_run *run, const omp_cell *cell)
{
    return cell_note_number(run->cells, sizeof *cell, (size_t)(cell - run->cells));
}

static void put_time(FILE *out, const omp_bench_run *run, const omp_cell *c)
{
    char text[64], median[24], worst[24];
    sample_stats s = cell_stats(c);
    if (c->status == CELL_OK) {
        snprintf(median, sizeof median, "%.*f", report_decimals_for(s.median), s.median);
        snprintf(worst, sizeof worst, "%.*f", report_decimals_for(s.max), s.max);
        fputc(' ', out);
        report_put_stats(out, median, worst, s.outliers);
        return;
    }
    if (c->status == CELL_DNF)
        snprintf(text, sizeof text, "dnf, note %d", note_number(run, c));
    else if (c->status == CELL_ERROR)
        snprintf(text, sizeof text, "error, note %d", note_number(run, c));
    else
        snprintf(text, sizeof text, "-");
    report_put_padded(out, text, GROUP_W, 1);
}

/* muster's median ÷ the better median of libgomp and libomp; NAN when
 * either side is missing. */
static double muster_ratio(const omp_bench_run *run, size_t c, size_t k)
{
    const omp_cell *m = omp_cell_at(run, c, k, OMP_RUNTIME_MUSTER);
    double best = NAN;
    for (int rt = OMP_RUNTIME_LIBGOMP; rt <= OMP_RUNTIME_LIBOMP; rt++) {
        const omp_cell *x = omp_cell_at(run, c, k, (size_t)rt);
        if (x->status == CELL_OK && (isnan(best) || cell_stats(x).median < best))
            best = cell_stats(x).median;
    }
    if (m->status != CELL_OK || !(best > 0) || !(cell_stats(m).median > 0))
        return NAN;
    return cell_stats(m).median / best;
}

/* The ratio column appears when muster and at least one other was run. */
static int has_ratio(const omp_bench_run *run)
{
    return run->runtime[OMP_RUNTIME_MUSTER] && (run->runtime[OMP_RUNTIME_LIBGOMP] || run->runtime[OMP_RUNTIME_LIBOMP]);
}

/* "csw g/o/m" (or "CPU µs g/o/m") for the runtimes run: their initials. */
static void csw_head(const omp_bench_run *run, const char *what, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s ", what);
    for (int rt = 0, first = 1; rt < OMP_RUNTIME_COUNT && used + 3 < len; rt++)
        if (run->runtime[rt]) {
            if (!first)
                buf[used++] = '/';
            buf[used++] = csw_initials[rt];
            first = 0;
        }
    buf[used] = '\0';
}

static void put_block_header(FILE *out, const omp_bench_run *run, size_t k)
{
    char title[32], head[32];
    snprintf(title, sizeof title, "%u thread%s", run->threads[k], run->threads[k] == 1 ? "" : "s");
    report_put_padded(out, title, name_width(run), 0);
    int last = -1;
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        if (run->runtime[rt])
            last = rt;
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        if (run->runtime[rt]) {
            snprintf(head, sizeof head, " %s µs", omp_runtime_name((omp_runtime)rt));
            report_put_padded(out, head, rt == last ? 0 : GROUP_W, 0);
        }
    fputc('\n', out);
    omp_report_put_stats_heads(out, run->runtime, name_width(run), has_ratio(run));
    char cpu_head[32];
    csw_head(run, "csw", head, sizeof head);
    csw_head(run, "CPU µs", cpu_head, sizeof cpu_head);
    fprintf(out, "  %-*s  %s\n", CSW_W, head, cpu_head);
}

/* One figure per runtime run, "a/b/c" ("-" for a cell without one),
 * padded to width. */
static void put_triple(FILE *out, const omp_bench_run *run, size_t c, size_t k, double (*figure)(const omp_cell *),
                       int width)
{
    char text[96] = "", one[32];
    size_t used = 0;
    for (int rt = 0, first = 1; rt < OMP_RUNTIME_COUNT; rt++)
        if (run->runtime[rt]) {
            const omp_cell *x = omp_cell_at(run, c, k, (size_t)rt);
            if (x->status == CELL_OK)
                report_format_csw(one, sizeof one, figure(x));
            else
                snprintf(one, sizeof one, "-");
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", first ? "" : "/", one);
            first = 0;
        }
    fprintf(out, "%-*s", width, text);
}

static void put_row(FILE *out, const omp_bench_run *run, size_t c, size_t k)
{
    report_put_padded(out, omp_construct_labels[c], name_width(run), 0);
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        if (run->runtime[rt])
            put_time(out, run, omp_cell_at(run, c, k, (size_t)rt));
    if (has_ratio(run))
        report_put_ratio(out, muster_ratio(run, c, k), RATIO_W);
    fputs("  ", out);
    put_triple(out, run, c, k, cell_csw, CSW_W);
    fputs("  ", out);
    put_triple(out, run, c, k, cell_cpu, 0);
    fputc('\n', out);
}

static void put_title(FILE *out, const omp_bench_run *run)
{
    const char *wait = getenv("OMP_WAIT_POLICY");
    fprintf(out, "muster bench omp: overhead per OpenMP construct (EPCC syncbench, built by %s), µs: "
                 "median and worst of %u round%s\n", run->compiler ? run->compiler : "gcc", run->reps,
            run->reps == 1 ? "" : "s");
    report_put_machine(out, &run->machine);
    fprintf(out, "; delay %.3f µs; test loop %g ms; OMP_WAIT_POLICY %s\n", run->delay_ns / 1000.0, run->target_ms,
            wait ? wait : "unset");
    omp_report_put_runtimes(out, run->runtime, run->runtime_path, run->runtime_missing);
    fprintf(out, "a round is one process per runtime; >5×: rounds above 5× the median, marked ! (a bad "
                 "mode\nthe median hides); ÷ best: muster's median ÷ the better median of libgomp and "
                 "libomp (below 1×\nmuster is faster); csw: context switches per construct, all "
                 "threads (g/o/m: libgomp/libomp/muster);\nCPU µs: CPU time per construct, all threads, the "
                 "delay inside it too\n");
}

/* text in lines of at most TABLE_COLUMNS, broken at blanks; the lines
 * after the first indented.  A word longer than a line gets one of its own. */
static void put_wrapped(FILE *out, const char *text)
{
    const size_t indent = 4;
    size_t col = 0;
    int line_start = 1;
    while (*text) {
        size_t word = strcspn(text, " ");
        if (!line_start && col + 1 + word > TABLE_COLUMNS) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
            line_start = 1;
        } else if (!line_start) {
            fputc(' ', out);
            col++;
        }
        line_start = 0;
        fwrite(text, 1, word, out);
        col += word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

/* Whether some runtime's median overhead came out at or below zero: the
 * construct cost less than the reference loop's own jitter. */
static int has_unresolved_median(const omp_bench_run *run)
{
    for (size_t c = 0; c < OMP_CONSTRUCT_COUNT; c++)
        for (size_t k = 0; k < run->ncounts; k++)
            for (size_t rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
                const omp_cell *x = omp_cell_at(run, c, k, rt);
                if (run->construct[c] && x->status == CELL_OK && !(cell_stats(x).median > 0))
                    return 1;
            }
    return 0;
}

static void put_notes(FILE *out, const omp_bench_run *run)
{
    char text[OMP_MESSAGE_LEN + 128];
    int note = 0;
    if (has_unresolved_median(run)) {
        fputc('\n', out);
        put_wrapped(out, "A median at or below 0 µs: the construct cost less than the reference loop's "
                         "jitter (a longer --target-ms resolves it); no ratio is taken against it.");
    }
    for (size_t c = 0; c < OMP_CONSTRUCT_COUNT; c++)
        for (size_t k = 0; k < run->ncounts; k++)
            for (size_t rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
                const omp_cell *x = omp_cell_at(run, c, k, rt);
                if (x->status != CELL_ERROR && x->status != CELL_DNF)
                    continue;
                snprintf(text, sizeof text, "note %d: %s @%u on %s: %s", ++note, omp_construct_labels[c],
                         run->threads[k], omp_runtime_name((omp_runtime)rt), x->message);
                fputs(note == 1 ? "\n" : "", out);
                put_wrapped(out, text);
            }
}

void omp_report_table(FILE *out, const omp_bench_run *run)
{
    put_title(out, run);
    for (size_t k = 0; k < run->ncounts; k++) {
        fputc('\n', out);
        put_block_header(out, run, k);
        for (size_t c = 0; c < OMP_CONSTRUCT_COUNT; c++)
            if (run->construct[c])
                put_row(out, run, c, k);
    }
    put_notes(out, run);
}

/* ---- JSON --------------------------------------------------------------- */

static void json_cell(FILE *out, const void *report_run, size_t c, size_t k, size_t rt)
{
    const omp_bench_run *run = report_run;
    const omp_cell *x = omp_cell_at(run, c, k, rt);
    sample_stats s = cell_stats(x);
    int ok = x->status == CELL_OK;
    fprintf(out, "    {\"construct\": \"%s\", \"threads\": %u, \"runtime\": \"%s\", \"status\": \"%s\"",
            omp_construct_names[c], run->threads[k], omp_runtime_name((omp_runtime)rt),
            cell_status_name(x->status));
    report_json_field(out, "mean_us", ok ? s.mean : NAN);
    report_json_field(out, "median_us", ok ? s.median : NAN);
    report_json_field(out, "sd_us", ok ? s.sd : NAN);
    report_json_field(out, "min_us", ok ? s.min : NAN);
    report_json_field(out, "max_us", ok ? s.max : NAN);
    report_json_field(out, "worst_us", ok ? s.max : NAN);
    report_json_field(out, "csw_per_op", ok ? cell_csw(x) : NAN);
    report_json_field(out, "cpu_us_per_op", ok ? cell_cpu(x) : NAN);
    fprintf(out, ", \"outliers\": %zu", ok ? s.outliers : 0);
    report_json_samples(out, "samples_us", x->us, ok ? x->samples : 0);
    if (rt == OMP_RUNTIME_MUSTER)
        report_json_field(out, "ratio_to_best", muster_ratio(run, c, k));
    fprintf(out, ", \"samples\": %u, \"inner\": %llu", x->samples, (unsigned long long)x->inner);
    report_json_end_cell(out, ok, x->message);
}

static void json_header(FILE *out, const omp_bench_run *run)
{
    fputs("{\n  ", out);
    report_json_machine(out, &run->machine);
    fputs(",\n  \"settings\": {\"method\": \"epcc-syncbench\", \"compiler\": ", out);
    muster_json_write_string(out, run->compiler ? run->compiler : "gcc");
    report_json_epcc_settings(out, run->threads, run->ncounts, run->reps, run->target_ms, run->timeout_s,
                              run->delay_ns, run->delay_iters);
    fputs(", \"omp_wait_policy\": ", out);
    const char *wait = getenv("OMP_WAIT_POLICY");
    if (wait)
        muster_json_write_string(out, wait);
    else
        fputs("null", out);
    fputs("},\n  ", out);
    omp_report_json_runtimes(out, run->runtime, run->runtime_path, run->runtime_missing);
    fputs(",\n", out);
}

void omp_report_put_runtimes(FILE *out, const int runtime[OMP_RUNTIME_COUNT],
                             const char path[OMP_RUNTIME_COUNT][4096], const char missing[OMP_RUNTIME_COUNT][2300])
{
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
        if (runtime[rt])
            fprintf(out, "  %-8s %s\n", omp_runtime_name((omp_runtime)rt), path[rt][0] ? path[rt] : "(never answered)");
        else if (missing[rt][0])
            fprintf(out, "  %-8s %s\n", omp_runtime_name((omp_runtime)rt), missing[rt]);
    }
}

void omp_report_put_stats_heads(FILE *out, const int runtime[OMP_RUNTIME_COUNT], size_t indent, int ratio)
{
    report_put_padded(out, "", indent, 0);
    for (int rt = 0; rt < OMP_RUNTIME_COUNT; rt++)
        if (runtime[rt]) {
            fputc(' ', out);
            report_put_stats_heads(out);
        }
    if (ratio)
        report_put_padded(out, "÷ best", RATIO_W, 1);
}

void omp_report_json_cells(FILE *out, const void *run, const int *selected, size_t items, size_t ncounts,
                           const int runtime[OMP_RUNTIME_COUNT], omp_report_cell_writer *write_cell)
{
    fputs("  \"cells\": [\n", out);
    int first = 1;
    for (size_t item = 0; item < items; item++)
        for (size_t k = 0; k < ncounts; k++)
            for (size_t rt = 0; rt < OMP_RUNTIME_COUNT; rt++) {
                if (!selected[item] || !runtime[rt])
                    continue;
                fputs(first ? "" : ",\n", out);
                write_cell(out, run, item, k, rt);
                first = 0;
            }
    fputs("\n  ]\n}\n", out);
}

void omp_report_json_runtimes(FILE *out, const int runtime[OMP_RUNTIME_COUNT],
                              const char path[OMP_RUNTIME_COUNT][4096], const char missing[OMP_RUNTIME_COUNT][2300])
{
    fputs("\"runtimes\": {", out);
    for (int rt = 0, first = 1; rt < OMP_RUNTIME_COUNT; rt++) {
        if (!runtime[rt] && !missing[rt][0])
            continue;
        fprintf(out, "%s\"%s\": {\"found\": %s, ", first ? "" : ", ", omp_runtime_name((omp_runtime)rt),
                runtime[rt] ? "true" : "false");
        fputs(runtime[rt] ? "\"path\": " : "\"message\": ", out);
        muster_json_write_string(out, runtime[rt] ? path[rt] : missing[rt]);
        fputc('}', out);
        first = 0;
    }
    fputc('}', out);
}

void omp_report_json(FILE *out, const omp_bench_run *run)
{
    json_header(out, run);
    omp_report_json_cells(out, run, run->construct, OMP_CONSTRUCT_COUNT, run->ncounts, run->runtime, json_cell);
}
