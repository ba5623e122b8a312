#include "bench_report.h"
#include "report_text.h"
#include "json_write.h"

#include <math.h>
#include <muster/barrier.h>
#include <string.h>

#define TABLE_COLUMNS 100
#define CSW_W 6
#define GAP 2
#define CELL_W (REPORT_STATS_W + 1 + CSW_W)
#define GROUP_W (GAP + CELL_W)

sample_stats bench_cell_stats(const bench_cell *c) { return sample_stats_of(c->us, c->samples); }

static double median_of_cell(const bench_cell *c) { return bench_cell_stats(c).median; }

static double cell_csw(const bench_cell *c) { return c->samples ? c->csw_sum / c->samples : 0.0; }

/* ---- text helpers ------------------------------------------------------- */

/* Centred in width; trailing blanks only when more columns follow. */
static void put_centered(FILE *out, const char *s, size_t width, int last)
{
    size_t w = report_display_width(s), left = w < width ? (width - w) / 2 : 0;
    for (size_t i = 0; i < left; i++)
        fputc(' ', out);
    report_put_padded(out, s, last ? 0 : width - left, 0);
}

static void format_value(char *buf, size_t len, double x)
{
    snprintf(buf, len, "%.*f", report_decimals_for(x), x);
}

static void format_bytes(char *buf, size_t len, double b)
{
    if (b < 0)
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%.*f", b == floor(b) || b >= 100 ? 0 : 1, b);
}

const char *cell_status_name(cell_status s)
{
    return s == CELL_OK ? "ok" : s == CELL_DNF ? "dnf" : s == CELL_ERROR ? "error" : "not run";
}

int cell_note_number(const void *cells, size_t cell_size, size_t index)
{
    int n = 0;
    for (size_t i = 0; i <= index; i++) {
        cell_status status;
        memcpy(&status, (const char *)cells + i * cell_size, sizeof status);
        n += status == CELL_ERROR || status == CELL_DNF;
    }
    return n;
}

/* ---- the table ---------------------------------------------------------- */

/* Error cells are numbered in reading order and explained under the table. */
static int note_number(const bench_run *run, size_t row, size_t count)
{
    int n = 0;
    for (size_t r = 0; r < run->nrows; r++)
        for (size_t k = 0; k < run->ncounts; k++) {
            if (bench_cell_at(run, r, k)->status == CELL_ERROR)
                n++;
            if (r == row && k == count)
                return n;
        }
    return n;
}

/* The B/thr text for a row over counts [first, first+n): one value when all
 * agree, else each count's value joined by '/'. */
static void bytes_text(const bench_run *run, size_t row, size_t first, size_t n, char *buf, size_t len)
{
    char one[32];
    int all_same = 1;
    double b0 = bench_cell_at(run, row, first)->state_bytes;
    for (size_t k = first; k < first + n; k++) {
        const bench_cell *c = bench_cell_at(run, row, k);
        if (c->status != CELL_NOT_APPLICABLE && c->state_bytes != b0)
            all_same = 0;
    }
    buf[0] = '\0';
    for (size_t k = first; k < first + (all_same ? 1 : n); k++) {
        const bench_cell *c = bench_cell_at(run, row, k);
        if (c->status == CELL_NOT_APPLICABLE)
            snprintf(one, sizeof one, "-");
        else
            format_bytes(one, sizeof one, c->state_bytes);
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", k > first ? "/" : "", one);
    }
}

static size_t label_width(const bench_run *run)
{
    size_t w = strlen("implementation");
    for (size_t r = 0; r < run->nrows; r++)
        if (report_display_width(run->rows[r].label) > w)
            w = report_display_width(run->rows[r].label);
    return w;
}

static size_t bytes_width(const bench_run *run, size_t first, size_t n)
{
    char buf[128];
    size_t w = strlen("B/thr");
    for (size_t r = 0; r < run->nrows; r++) {
        bytes_text(run, r, first, n, buf, sizeof buf);
        if (strlen(buf) > w)
            w = strlen(buf);
    }
    return w;
}

/* As many team sizes per block as fit in TABLE_COLUMNS (at least one). */
static size_t block_size(const bench_run *run, size_t first, size_t label_w)
{
    size_t n = 1;
    while (first + n < run->ncounts &&
           label_w + 2 + bytes_width(run, first, n + 1) + (n + 1) * GROUP_W <= TABLE_COLUMNS)
        n++;
    return n;
}

/* "n" or "n!" when n > 0: the repetitions above 5x the median. */
static void put_cell(FILE *out, const bench_run *run, size_t r, size_t k)
{
    const bench_cell *c = bench_cell_at(run, r, k);
    char text[64], median[24], worst[24], csw[24];
    fprintf(out, "%*s", GAP, "");
    switch (c->status) {
    case CELL_OK: {
        sample_stats s = bench_cell_stats(c);
        format_value(median, sizeof median, s.median);
        format_value(worst, sizeof worst, s.max);
        report_format_csw(csw, sizeof csw, cell_csw(c));
        report_put_stats(out, median, worst, s.outliers);
        fputc(' ', out);
        report_put_padded(out, csw, CSW_W, 1);
        return;
    }
    case CELL_DNF:
        snprintf(text, sizeof text, "did not finish in %g s", run->timeout_s);
        break;
    case CELL_ERROR:
        snprintf(text, sizeof text, "error, see note %d", note_number(run, r, k));
        break;
    case CELL_NOT_APPLICABLE:
        snprintf(text, sizeof text, "-");
        break;
    default:
        snprintf(text, sizeof text, "not measured");
        break;
    }
    report_put_padded(out, text, CELL_W, 1);
}

static void put_block_header(FILE *out, const bench_run *run, size_t first, size_t n, size_t label_w,
                             size_t bytes_w)
{
    char title[32];
    fprintf(out, "%*s", (int)(label_w + 2 + bytes_w), "");
    for (size_t k = first; k < first + n; k++) {
        snprintf(title, sizeof title, "%u thread%s", run->threads[k], run->threads[k] == 1 ? "" : "s");
        fprintf(out, "%*s", GAP, "");
        put_centered(out, title, CELL_W, k + 1 == first + n);
    }
    fputc('\n', out);
    report_put_padded(out, "implementation", label_w + 2, 0);
    report_put_padded(out, "B/thr", bytes_w, 1);
    for (size_t k = first; k < first + n; k++) {
        fprintf(out, "%*s", GAP, "");
        report_put_stats_heads(out);
        fputc(' ', out);
        report_put_padded(out, "csw/b", CSW_W, 1);
    }
    fputc('\n', out);
    size_t width = label_w + 2 + bytes_w + n * GROUP_W;
    for (size_t i = 0; i < width; i++)
        fputc('-', out);
    fputc('\n', out);
}

static void put_block(FILE *out, const bench_run *run, size_t first, size_t n, size_t label_w)
{
    size_t bytes_w = bytes_width(run, first, n);
    char bytes[128];
    put_block_header(out, run, first, n, label_w, bytes_w);
    for (size_t r = 0; r < run->nrows; r++) {
        /* A blank line where the comparators begin. */
        if (r > 0 && run->rows[r].impl != run->rows[r - 1].impl && run->rows[r - 1].policy)
            fputc('\n', out);
        report_put_padded(out, run->rows[r].label, label_w + 2, 0);
        bytes_text(run, r, first, n, bytes, sizeof bytes);
        report_put_padded(out, bytes, bytes_w, 1);
        for (size_t k = first; k < first + n; k++)
            put_cell(out, run, r, k);
        fputc('\n', out);
    }
}

static void put_title(FILE *out, const bench_run *run)
{
    fprintf(out, "muster bench barrier: overhead per barrier episode (EPCC), µs: median and worst "
                 "of %u rep%s\n", run->reps, run->reps == 1 ? "" : "s");
    int pinned = strcmp(run->pin, "none") != 0;
    report_put_machine(out, &run->machine);
    fprintf(out, ", %s%s; delay %.3f µs; test loop %g ms; timeout %g s\n", pinned ? "pinned " : "not pinned",
            pinned ? run->pin : "", run->delay_ns / 1000.0, run->target_ms, run->timeout_s);
    fprintf(out, ">5×: reps above 5× the cell's median, marked ! (a bad mode the median hides);\n"
                 "csw/b: context switches per barrier (all threads); B/thr: bytes of barrier "
                 "state per participant\n\n");
}

/* What "auto" chose at each team size, and every error in full. */
static void put_notes(FILE *out, const bench_run *run)
{
    int lines = 0, note = 0;
    for (size_t r = 0; r < run->nrows; r++) {
        const bench_row *row = &run->rows[r];
        if (row->policy && row->choice.algorithm == MUSTER_ALG_AUTO) {
            fprintf(out, "%s%s chose:", lines++ ? "" : "\n", row->label);
            for (size_t k = 0; k < run->ncounts; k++) {
                const bench_cell *c = bench_cell_at(run, r, k);
                const char *a = muster_algorithm_name((muster_algorithm)c->resolved_algorithm);
                const char *p = muster_wait_policy_name((muster_wait_policy)c->resolved_policy);
                fprintf(out, " @%u %s/%s%s", run->threads[k], a ? a : "?", p ? p : "?",
                        k + 1 < run->ncounts ? "," : "\n");
            }
        }
    }
    for (size_t r = 0; r < run->nrows; r++)
        for (size_t k = 0; k < run->ncounts; k++) {
            const bench_cell *c = bench_cell_at(run, r, k);
            if (c->status == CELL_ERROR)
                fprintf(out, "%snote %d: %s @%u: %s\n", lines++ ? "" : "\n", ++note, run->rows[r].label,
                        run->threads[k], c->message);
        }
}

/* ---- ratios ------------------------------------------------------------- */

static int is_family(const bench_row *row, const char *family)
{
    return strcmp(row->impl->family, family) == 0;
}

static int is_hybrid(const bench_run *run, size_t r, size_t k)
{
    const bench_cell *c = bench_cell_at(run, r, k);
    int policy = c->resolved_policy >= 0 ? c->resolved_policy : run->rows[r].choice.policy;
    return is_family(&run->rows[r], "muster") && policy == MUSTER_WAIT_HYBRID;
}

/* The fastest finished row of a family at count k (hybrid muster only when
 * asked); -1 if none finished. */
static long best_row(const bench_run *run, size_t k, const char *family, int hybrid_only)
{
    long best = -1;
    for (size_t r = 0; r < run->nrows; r++) {
        const bench_cell *c = bench_cell_at(run, r, k);
        if (c->status != CELL_OK || !is_family(&run->rows[r], family))
            continue;
        if (hybrid_only && !is_hybrid(run, r, k))
            continue;
        if (best < 0 || median_of_cell(c) < median_of_cell(bench_cell_at(run, (size_t)best, k)))
            best = (long)r;
    }
    return best;
}

/* a ÷ b, or NAN when b is not above zero (a floor measured at or below its
 * reference loop, say) and the ratio would mean nothing. */
static double ratio_of(double a, double b) { return b > 0 ? a / b : NAN; }

/* "  what  label  time µs  ratio suffix"; ratio < 0 prints none. */
static void put_ratio_line(FILE *out, const char *what, const char *label, double us, double ratio,
                           const char *suffix)
{
    char value[24], text[40] = "";
    format_value(value, sizeof value, us);
    if (isnan(ratio))
        snprintf(text, sizeof text, "n/a");
    else if (ratio >= 0)
        report_format_ratio(text, sizeof text, ratio);
    fprintf(out, "  %-19s %-24s %8s µs%s%s%s\n", what, label, value, *text ? "   " : "", text, suffix);
}

static double median_at(const bench_run *run, long row, size_t k)
{
    return median_of_cell(bench_cell_at(run, (size_t)row, k));
}

static void put_ratios(FILE *out, const bench_run *run, size_t k)
{
    static const struct {
        const char *family, *what;
    } others[] = {{"ck", "vs best CK"}, {"floor", "vs the floor"}, {"pthread", "vs pthread"},
                  {"std", "vs std::barrier"}};
    long muster = best_row(run, k, "muster", 0);
    fprintf(out, "\nratios at %u thread%s (medians; muster ÷ other; below 1× muster is faster):\n",
            run->threads[k], run->threads[k] == 1 ? "" : "s");
    if (muster < 0) {
        fprintf(out, "  no muster barrier finished\n");
        return;
    }
    double m = median_at(run, muster, k);
    put_ratio_line(out, "best muster", run->rows[muster].label, m, -1, "");
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        long other = best_row(run, k, others[i].family, 0);
        if (other >= 0)
            put_ratio_line(out, others[i].what, run->rows[other].label, median_at(run, other, k),
                           ratio_of(m, median_at(run, other, k)), "");
    }
    long hybrid = best_row(run, k, "muster", 1);
    long pthread = best_row(run, k, "pthread", 0);
    if (hybrid >= 0 && pthread >= 0)
        put_ratio_line(out, "best hybrid muster", run->rows[hybrid].label, median_at(run, hybrid, k),
                       ratio_of(median_at(run, hybrid, k), median_at(run, pthread, k)), " vs pthread");
}

void bench_report_table(FILE *out, const bench_run *run)
{
    size_t label_w = label_width(run);
    put_title(out, run);
    for (size_t first = 0; first < run->ncounts;) {
        size_t n = block_size(run, first, label_w);
        if (first > 0)
            fputc('\n', out);
        put_block(out, run, first, n, label_w);
        first += n;
    }
    put_notes(out, run);
    for (size_t k = 0; k < run->ncounts; k++)
        put_ratios(out, run, k);
}

/* ---- JSON --------------------------------------------------------------- */

static void json_cell(FILE *out, const bench_run *run, size_t r, size_t k)
{
    const bench_row *row = &run->rows[r];
    const bench_cell *c = bench_cell_at(run, r, k);
    int ok = c->status == CELL_OK;
    fputs("    {\"impl\": ", out);
    muster_json_write_string(out, row->policy ? muster_algorithm_name((muster_algorithm)row->choice.algorithm)
                                 : row->impl->name);
    fprintf(out, ", \"family\": \"%s\", \"policy\": ", row->impl->family);
    if (row->policy)
        muster_json_write_string(out, row->policy);
    else
        fputs("null", out);
    sample_stats s = bench_cell_stats(c);
    fprintf(out, ", \"threads\": %u, \"status\": \"%s\"", run->threads[k], cell_status_name(c->status));
    const struct {
        const char *name;
        double value;
    } numbers[] = {{"mean_us", s.mean}, {"sd_us", s.sd}, {"median_us", s.median}, {"min_us", s.min},
                   {"worst_us", s.max}};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        report_json_field(out, numbers[i].name, ok ? numbers[i].value : NAN);
    fprintf(out, ", \"outliers\": %zu", ok ? s.outliers : 0);
    report_json_samples(out, "samples_us", c->us, ok ? c->samples : 0);
    fputs(", \"csw_per_barrier\": ", out);
    report_json_number(out, ok ? cell_csw(c) : NAN);
    fputs(", \"state_bytes\": ", out);
    report_json_number(out, c->state_bytes >= 0 ? c->state_bytes : NAN);
    fprintf(out, ", \"reps\": %u, \"inner\": %llu", c->samples, (unsigned long long)c->inner);
    const char *a = muster_algorithm_name((muster_algorithm)c->resolved_algorithm);
    const char *p = muster_wait_policy_name((muster_wait_policy)c->resolved_policy);
    if (row->policy && a && p)
        fprintf(out, ", \"resolved\": {\"algorithm\": \"%s\", \"policy\": \"%s\"}", a, p);
    report_json_end_cell(out, ok, c->message);
}

static void json_header(FILE *out, const bench_run *run)
{
    fputs("{\n  ", out);
    report_json_machine(out, &run->machine);
    fputs(",\n  \"settings\": {\"method\": \"epcc\"", out);
    report_json_epcc_settings(out, run->threads, run->ncounts, run->reps, run->target_ms, run->timeout_s,
                              run->delay_ns, run->delay_iters);
    fprintf(out, ", \"pin\": \"%s\"},\n", run->pin);
}

void bench_report_json(FILE *out, const bench_run *run)
{
    json_header(out, run);
    fputs("  \"cells\": [\n", out);
    int first = 1;
    for (size_t r = 0; r < run->nrows; r++)
        for (size_t k = 0; k < run->ncounts; k++) {
            if (bench_cell_at(run, r, k)->status == CELL_NOT_APPLICABLE)
                continue;
            if (!first)
                fputs(",\n", out);
            json_cell(out, run, r, k);
            first = 0;
        }
    fputs("\n  ]\n}\n", out);
}
