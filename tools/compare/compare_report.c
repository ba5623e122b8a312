/* The report of `muster compare` (compare_run.h): per team size a table of
 * wall time (median, worst, rounds over 5x the median), CPU time, context
 * switches and peak memory; the outputs' agreement; the JSON and the plot. */
#include "compare_run.h"

#include "agreement.h"
#include "json_write.h"
#include "sample_stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double median_of(const comparison *c, size_t t, size_t slot, double (*field)(const run_result *),
                        sample_stats *stats)
{
    double x[MAX_ROUNDS];
    for (size_t r = 0; r < c->o->rounds; r++)
        x[r] = field(compare_run_at(c, t, slot, r));
    *stats = sample_stats_of(x, c->o->rounds);
    return stats->median;
}

static double wall_of(const run_result *r) { return r->wall_s; }
static double cpu_of(const run_result *r) { return r->cpu_s; }
static double vol_of(const run_result *r) { return (double)r->voluntary; }
static double invol_of(const run_result *r) { return (double)r->involuntary; }
static double peak_of(const run_result *r) { return (double)r->peak_kb; }

void compare_print_table(FILE *out, const comparison *c, size_t t)
{
    const compare_options *o = c->o;
    char title[32];
    snprintf(title, sizeof title, "%u thread%s", o->choice.threads[t], o->choice.threads[t] == 1 ? "" : "s");
    fprintf(out, "\n%-12s   wall s   wall s       CPU s  CPU ÷      csw     peak\n", title);
    fprintf(out, "               median    worst  >5×  median  wall  vol/invol     MB  runs\n");
    double best_other = INFINITY, mine = NAN;
    for (size_t s = 0; s < c->nruntimes; s++) {
        sample_stats wall, cpu, vol, invol, peak;
        median_of(c, t, s, wall_of, &wall);
        median_of(c, t, s, cpu_of, &cpu);
        median_of(c, t, s, vol_of, &vol);
        median_of(c, t, s, invol_of, &invol);
        median_of(c, t, s, peak_of, &peak);
        char ends[64] = "all exit 0";
        for (size_t r = 0; r < o->rounds; r++)
            if (!compare_run_ok(compare_run_at(c, t, s, r))) {
                char what[32];
                compare_describe_end(compare_run_at(c, t, s, r), what, sizeof what);
                snprintf(ends, sizeof ends, "round %zu: %s", r + 1, what);
                break;
            }
        char csw[32];
        snprintf(csw, sizeof csw, "%.0f/%.0f", vol.median, invol.median);
        fprintf(out, "  %-10s %8.4g %8.4g %4zu%s %7.3g %5.2f %10s %6.1f  %s\n", omp_runtime_name(c->order[s]),
                wall.median, wall.max, wall.outliers, wall.outliers ? "!" : " ", cpu.median,
                wall.median > 0 ? cpu.median / wall.median : 0.0, csw, peak.max / 1024.0, ends);
        if (c->order[s] == OMP_RUNTIME_MUSTER)
            mine = wall.median;
        else if (wall.median < best_other)
            best_other = wall.median;
    }
    if (!isnan(mine) && isfinite(best_other) && best_other > 0)
        fprintf(out, "  muster ÷ the better peer: %.2f× wall\n", mine / best_other);
}

/* --expect: every run's output matches; returns the runs that do not. */
static size_t check_expected(FILE *out, const comparison *c)
{
    const compare_options *o = c->o;
    regex_t re;
    if (o->expect == NULL || regcomp(&re, o->expect, REG_EXTENDED | REG_NEWLINE | REG_NOSUB) != 0)
        return 0;
    size_t missing = 0, runs = 0;
    for (size_t t = 0; t < o->choice.nthreads; t++)
        for (size_t s = 0; s < c->nruntimes; s++)
            for (size_t r = 0; r < o->rounds; r++, runs++)
                if (regexec(&re, compare_run_at(c, t, s, r)->out, 0, NULL, 0) != 0 && missing++ < 5)
                    fprintf(out, "output @%u: --expect '%s' not found in round %zu on %s\n", o->choice.threads[t],
                            o->expect, r + 1, omp_runtime_name(c->order[s]));
    if (missing == 0)
        fprintf(out, "output: --expect '%s' found in all %zu runs\n", o->expect, runs);
    else
        fprintf(out, "output: --expect '%s' missing from %zu of %zu runs\n", o->expect, missing, runs);
    regfree(&re);
    return missing;
}

size_t compare_check_outputs(FILE *out, const comparison *c, const regex_t *figure)
{
    const compare_options *o = c->o;
    if (o->ignore_output) {
        fprintf(out, "\noutput: not compared (--ignore-output)\n");
        return 0;
    }
    size_t total = check_expected(out, c);
    for (size_t t = 0; t < o->choice.nthreads; t++) {
        unsigned threads = o->choice.threads[t];
        if (figure != NULL) {
            const run_result *ref = NULL;
            size_t bad = 0;
            for (size_t s = 0; s < c->nruntimes; s++)
                for (size_t r = 0; r < o->rounds; r++) {
                    const run_result *x = compare_run_at(c, t, s, r);
                    if (!x->has_figure) {
                        if (bad++ == 0)
                            fprintf(out, "output @%u: --figure found no number in round %zu on %s\n", threads,
                                    r + 1, omp_runtime_name(c->order[s]));
                        continue;
                    }
                    if (ref == NULL) {
                        ref = x;
                        continue;
                    }
                    double scale = fmax(fabs(ref->figure), fabs(x->figure));
                    if (fabs(ref->figure - x->figure) > o->tolerance * scale) {
                        if (bad++ == 0)
                            fprintf(out, "output @%u: DISAGREE: the figure is %.12g in round %zu on %s, %.12g first\n",
                                    threads, x->figure, r + 1, omp_runtime_name(c->order[s]), ref->figure);
                    }
                }
            if (bad == 0)
                fprintf(out, "output @%u: the figure agrees: %.12g in every run (tolerance %g)\n", threads,
                        ref ? ref->figure : NAN, o->tolerance);
            total += bad;
            continue;
        }
        const char *outputs[OMP_RUNTIME_COUNT * MAX_ROUNDS];
        for (size_t s = 0; s < c->nruntimes; s++)
            for (size_t r = 0; r < o->rounds; r++)
                outputs[s * o->rounds + r] = compare_run_at(c, t, s, r)->out;
        const char *names[OMP_RUNTIME_COUNT];
        for (size_t s = 0; s < c->nruntimes; s++)
            names[s] = omp_runtime_name(c->order[s]);
        char diff[1024];
        agreement a = compare_outputs(outputs, names, c->nruntimes, o->rounds, diff, sizeof diff);
        if (a.differ == 0)
            fprintf(out,
                    "output @%u: agrees (%zu line%s compared; %zu measurement%s, their numbers not compared; %zu "
                    "that change from round to round ignored)\n",
                    threads, a.compared, a.compared == 1 ? "" : "s", a.measured, a.measured == 1 ? "" : "s",
                    a.ignored);
        else
            fprintf(out, "output @%u: DISAGREE on %zu of %zu lines compared; the first, %s%s\n", threads, a.differ,
                    a.compared, diff,
                    o->rounds == 1 ? " (with one round, an unnamed timing counts: try --rounds 3)" : "");
        total += a.differ;
    }
    return total;
}

static void write_json(FILE *f, const comparison *c, size_t disagreements, int failed)
{
    const compare_options *o = c->o;
    fprintf(f, "{\"program\": ");
    muster_json_write_string(f, o->program[0]);
    fprintf(f, ", \"args\": [");
    for (char **a = o->program + 1; *a != NULL; a++) {
        fprintf(f, a == o->program + 1 ? "" : ", ");
        muster_json_write_string(f, *a);
    }
    fprintf(f, "], \"abi\": \"%s\", \"rounds\": %lu, \"runtimes\": [", c->abi == OMP_ABI_GOMP ? "libgomp" : "libomp",
            o->rounds);
    for (size_t s = 0; s < c->nruntimes; s++) {
        fprintf(f, "%s{\"name\": \"%s\", \"library\": ", s ? ", " : "", omp_runtime_name(c->order[s]));
        muster_json_write_string(f, c->library[c->order[s]]);
        fprintf(f, "}");
    }
    fprintf(f, "], \"cells\": [");
    bool first = true;
    for (size_t t = 0; t < o->choice.nthreads; t++)
        for (size_t s = 0; s < c->nruntimes; s++) {
            sample_stats wall, cpu;
            median_of(c, t, s, wall_of, &wall);
            median_of(c, t, s, cpu_of, &cpu);
            fprintf(f, "%s{\"threads\": %u, \"runtime\": \"%s\", \"median_wall_s\": ", first ? "" : ", ",
                    o->choice.threads[t], omp_runtime_name(c->order[s]));
            first = false;
            muster_json_write_number(f, wall.median);
            fprintf(f, ", \"worst_wall_s\": ");
            muster_json_write_number(f, wall.max);
            fprintf(f, ", \"over_5x_median\": %zu, \"median_cpu_s\": ", wall.outliers);
            muster_json_write_number(f, cpu.median);
            fprintf(f, ", \"runs\": [");
            for (size_t r = 0; r < o->rounds; r++) {
                const run_result *x = compare_run_at(c, t, s, r);
                char ends[32];
                compare_describe_end(x, ends, sizeof ends);
                fprintf(f, "%s{\"wall_s\": ", r ? ", " : "");
                muster_json_write_number(f, x->wall_s);
                fprintf(f, ", \"cpu_s\": ");
                muster_json_write_number(f, x->cpu_s);
                fprintf(f, ", \"voluntary_csw\": %ld, \"involuntary_csw\": %ld, \"peak_rss_kb\": %ld, \"ok\": %s, "
                           "\"end\": \"%s\"",
                        x->voluntary, x->involuntary, x->peak_kb, compare_run_ok(x) ? "true" : "false", ends);
                if (x->has_figure) {
                    fprintf(f, ", \"figure\": ");
                    muster_json_write_number(f, x->figure);
                }
                fprintf(f, "}");
            }
            fprintf(f, "]}");
        }
    fprintf(f, "], \"outputs_compared\": %s, \"disagreements\": %zu, \"failed_runs\": %d}\n",
            o->ignore_output ? "false" : "true", disagreements, failed);
}

int compare_save_json(const char *path, const comparison *c, size_t disagreements, int failed)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
        return -1;
    }
    write_json(f, c, disagreements, failed);
    if (fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The JSON is --json's file, else a temporary one. */
int compare_draw_plot(const comparison *c, compare_plotter plotter, size_t disagreements, int failed)
{
    const compare_options *o = c->o;
    char tmp[64] = "";
    const char *json = o->json;
    if (json == NULL) {
        snprintf(tmp, sizeof tmp, "/tmp/muster-compare-XXXXXX");
        int fd = mkstemp(tmp);
        if (fd < 0) {
            fprintf(stderr, "%s: --plot: cannot make a temporary file: %s\n", PROG, strerror(errno));
            return -1;
        }
        close(fd);
        json = tmp;
        if (compare_save_json(json, c, disagreements, failed) != 0) {
            unlink(tmp);
            return -1;
        }
    }
    int rc = plotter(json, o->plot);
    if (tmp[0])
        unlink(tmp);
    if (rc == 0)
        printf("plot: %s\n", o->plot);
    return rc == 0 ? 0 : -1;
}

