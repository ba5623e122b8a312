#include "report_text.h"
#include "cli.h"
#include "json_write.h"
#include "platform/affinity.h"

#include <math.h>
#include <string.h>

/* Columns a UTF-8 string takes ("±" and "µ" are two bytes, one column). */
size_t report_display_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

void report_put_padded(FILE *out, const char *s, size_t width, int right)
{
    size_t w = report_display_width(s);
    for (; right && w < width; w++)
        fputc(' ', out);
    fputs(s, out);
    for (; !right && w < width; w++)
        fputc(' ', out);
}

/* Decimals for a value of this size: overheads span 0.05 µs to tens of
 * milliseconds, and four significant digits are more than the noise allows. */
int report_decimals_for(double x)
{
    double a = fabs(x);
    return a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0;
}

void report_put_stats(FILE *out, const char *median, const char *worst, size_t outliers)
{
    char count[24];
    snprintf(count, sizeof count, outliers ? "%zu!" : "%zu", outliers);
    report_put_padded(out, median, REPORT_TIME_W, 1);
    fputc(' ', out);
    report_put_padded(out, worst, REPORT_TIME_W, 1);
    fputc(' ', out);
    report_put_padded(out, count, REPORT_OUTLIER_W, 1);
}

void report_put_stats_heads(FILE *out)
{
    report_put_padded(out, "median", REPORT_TIME_W, 1);
    fputc(' ', out);
    report_put_padded(out, "worst", REPORT_TIME_W, 1);
    fputc(' ', out);
    report_put_padded(out, ">5×", REPORT_OUTLIER_W, 1);
}

void report_format_csw(char *buf, size_t len, double x)
{
    snprintf(buf, len, "%.*f", x < 10 ? 2 : x < 100 ? 1 : 0, x);
}

void report_format_ratio(char *buf, size_t len, double r)
{
    if (r < 0.1)
        snprintf(buf, len, "%.2g×", r); /* 0.0047×, not 0.00× */
    else
        snprintf(buf, len, "%.*f×", r < 10 ? 2 : r < 100 ? 1 : 0, r);
}

void report_put_ratio(FILE *out, double r, size_t width)
{
    char text[32] = "-";
    if (!isnan(r))
        report_format_ratio(text, sizeof text, r);
    report_put_padded(out, text, width, 1);
}

void report_json_number(FILE *out, double x)
{
    if (isfinite(x))
        fprintf(out, "%.6g", x);
    else
        fputs("null", out);
}

void report_json_machine(FILE *out, const report_machine *m)
{
    fprintf(out, "\"machine\": {\"cpus\": %ld, \"cpus_available\": %u, \"cpu_list\": [", m->cpus_online,
            m->cpus_available);
    for (unsigned i = 0; i < m->cpus_available; i++)
        fprintf(out, "%s%d", i ? ", " : "", m->cpu_list[i]);
    fputs("]}", out);
}

void report_put_machine(FILE *out, const report_machine *m)
{
    char cpus[256];
    muster_format_cpu_list(cpus, sizeof cpus, m->cpu_list, m->cpus_available);
    fprintf(out, "%u of %ld CPUs available (%s)", m->cpus_available, m->cpus_online, cpus);
}

void report_json_field(FILE *out, const char *name, double x)
{
    fprintf(out, ", \"%s\": ", name);
    report_json_number(out, x);
}

void report_json_samples(FILE *out, const char *name, const double *x, unsigned n)
{
    fprintf(out, ", \"%s\": [", name);
    for (unsigned i = 0; i < n; i++) {
        fputs(i ? ", " : "", out);
        report_json_number(out, x[i]);
    }
    fputc(']', out);
}

void report_json_end_cell(FILE *out, int ok, const char *message)
{
    if (!ok) {
        fputs(", \"message\": ", out);
        muster_json_write_string(out, message);
    }
    fputc('}', out);
}

void report_json_threads(FILE *out, const unsigned *threads, size_t ncounts)
{
    fputs(", \"threads\": [", out);
    for (size_t k = 0; k < ncounts; k++)
        fprintf(out, "%s%u", k ? ", " : "", threads[k]);
    fputc(']', out);
}

void report_json_epcc_settings(FILE *out, const unsigned *threads, size_t ncounts, unsigned reps, double target_ms,
                               double timeout_s, double delay_ns, unsigned delay_iters)
{
    report_json_threads(out, threads, ncounts);
    fprintf(out, ", \"reps\": %u", reps);
    report_json_field(out, "target_ms", target_ms);
    report_json_field(out, "timeout_s", timeout_s);
    report_json_field(out, "delay_ns", delay_ns);
    fprintf(out, ", \"delay_iters\": %u", delay_iters);
}
