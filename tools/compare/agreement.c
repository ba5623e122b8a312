/* The outputs' agreement (agreement.h): answers against measurements.
 * Timings are told apart two ways: a line that changes in every runtime's
 * rounds, and a line that says it is one (it names a time or a rate) and
 * differs only in its numbers.  The second catches what the first cannot:
 * a timing so coarse that it repeats within a runtime ("Time in seconds =
 * 0.05" in every round on one runtime, 0.06 on another), and runs of a
 * single round. */
#include "agreement.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- lines ---- */

/* One output split into its lines (without their newlines), once. */
typedef struct lines {
    const char **start;
    size_t *len;
    size_t n;
} lines;

static bool split_lines(const char *text, lines *l)
{
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == '\n';
    l->start = malloc(cap * sizeof *l->start);
    l->len = malloc(cap * sizeof *l->len);
    l->n = 0;
    if (l->start == NULL || l->len == NULL)
        return false;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        l->start[l->n] = p;
        l->len[l->n++] = end ? (size_t)(end - p) : strlen(p);
        p = end ? end + 1 : p + strlen(p);
    }
    return true;
}

/* Line i of an output: false past its last line. */
static bool nth_line(const lines *l, size_t i, const char **start, size_t *len)
{
    if (i >= l->n)
        return false;
    *start = l->start[i];
    *len = l->len[i];
    return true;
}

static bool same_line(const char *a, size_t alen, bool ahas, const char *b, size_t blen, bool bhas)
{
    return ahas == bhas && (!ahas || (alen == blen && memcmp(a, b, alen) == 0));
}

/* ---- measurements ---- */

/* Words that say a line holds a time or a rate (whole words, any case). */
static const char *const measure_words[] = {
    "time", "times", "timing", "timings", "timer", "elapsed", "wall", "walltime", "cpu", "clock", "duration",
    "overhead", "rate", "throughput", "bandwidth", "speed", "speedup", "runtime", "took", "seconds", "second",
    "sec", "secs", "s", "ms", "us", "ns", "msec", "usec", "nsec", "milliseconds", "microseconds", "nanoseconds",
    "minutes", "mops", "mflops", "gflops", "tflops", "flops", "fom", "grind"};

static bool is_measure_word(const char *w, size_t n)
{
    for (size_t i = 0; i < sizeof measure_words / sizeof measure_words[0]; i++)
        if (strlen(measure_words[i]) == n && strncasecmp(w, measure_words[i], n) == 0)
            return true;
    return false;
}

bool line_names_measure(const char *line, size_t len)
{
    for (size_t i = 0; i < len;) {
        if (!isalpha((unsigned char)line[i])) {
            /* A rate: a unit over seconds (Mop/s, GB/s, z/s, ns/day...). */
            if (line[i] == '/' && i > 0 && isalpha((unsigned char)line[i - 1]) && i + 1 < len &&
                (line[i + 1] == 's' || line[i + 1] == 'S' || strncasecmp(line + i + 1, "day", 3) == 0) &&
                (i + 2 >= len || !isalpha((unsigned char)line[i + 2]) ||
                 strncasecmp(line + i + 1, "day", 3) == 0 || strncasecmp(line + i + 1, "sec", 3) == 0))
                return true;
            /* µs: the micro sign, two bytes in UTF-8, then s. */
            if ((unsigned char)line[i] == 0xc2 && i + 2 < len && (unsigned char)line[i + 1] == 0xb5 &&
                line[i + 2] == 's')
                return true;
            i++;
            continue;
        }
        size_t start = i;
        while (i < len && isalpha((unsigned char)line[i]))
            i++;
        if (is_measure_word(line + start, i - start))
            return true;
    }
    return false;
}

/* A number at p (len bytes left): its length, 0 when none starts there. */
static size_t number_at(const char *p, size_t len)
{
    size_t i = 0;
    if (i < len && (p[i] == '-' || p[i] == '+'))
        i++;
    size_t digits_at = i;
    while (i < len && (isdigit((unsigned char)p[i]) ||
                       (p[i] == ',' && i + 1 < len && isdigit((unsigned char)p[i + 1]) && i > digits_at)))
        i++;
    if (i < len && p[i] == '.')
        for (i++; i < len && isdigit((unsigned char)p[i]);)
            i++;
    bool any_digit = false;
    for (size_t k = digits_at; k < i; k++)
        any_digit |= isdigit((unsigned char)p[k]) != 0;
    if (!any_digit)
        return 0;
    if (i < len && (p[i] == 'e' || p[i] == 'E' || p[i] == 'd' || p[i] == 'D')) {
        size_t j = i + 1;
        if (j < len && (p[j] == '-' || p[j] == '+'))
            j++;
        if (j < len && isdigit((unsigned char)p[j])) {
            while (j < len && isdigit((unsigned char)p[j]))
                j++;
            i = j;
        }
    }
    return i;
}

void mask_numbers(const char *line, size_t len, char *buf, size_t size)
{
    size_t out = 0;
    bool blank = false;
    for (size_t i = 0; i < len && out + 1 < size;) {
        if (line[i] == ' ' || line[i] == '\t') {
            if (!blank)
                buf[out++] = ' ';
            blank = true;
            i++;
            continue;
        }
        blank = false;
        if (isalpha((unsigned char)line[i]) || line[i] == '_') {
            /* A word, kept whole with the digits in it (x2, v1.2, a-1). */
            while (i < len && out + 1 < size &&
                   (isalnum((unsigned char)line[i]) || line[i] == '_' || line[i] == '.' || line[i] == '-'))
                buf[out++] = line[i++];
            continue;
        }
        size_t n = number_at(line + i, len - i);
        if (n > 0) {
            buf[out++] = '#';
            i += n;
        } else {
            buf[out++] = line[i++];
        }
    }
    buf[out] = '\0';
}

/* ---- the rule ---- */

/* Whether line i is the same in all nrounds outputs of runtime k. */
static bool stable_in(const lines *outputs, size_t k, size_t nrounds, size_t i, const char **line, size_t *len,
                      bool *has)
{
    *has = nth_line(&outputs[k * nrounds], i, line, len);
    for (size_t r = 1; r < nrounds; r++) {
        const char *s;
        size_t l;
        bool h = nth_line(&outputs[k * nrounds + r], i, &s, &l);
        if (!same_line(*line, *len, *has, s, l, h))
            return false;
    }
    return true;
}

/* Whether line i names a measurement in every run and is the same in
 * every run once its numbers are masked. */
static bool a_measurement(const lines *outputs, size_t n, size_t i)
{
    char first[1024], other[1024];
    const char *s;
    size_t l;
    if (!nth_line(&outputs[0], i, &s, &l) || !line_names_measure(s, l))
        return false;
    mask_numbers(s, l, first, sizeof first);
    for (size_t j = 1; j < n; j++) {
        if (!nth_line(&outputs[j], i, &s, &l))
            return false;
        mask_numbers(s, l, other, sizeof other);
        if (strcmp(first, other) != 0)
            return false;
    }
    return true;
}

static void describe(char *first_diff, size_t diff_len, size_t i, const char *ref, size_t ref_len, bool ref_has,
                     const char *ref_name, const char *s, size_t l, bool h, size_t round, const char *name)
{
    snprintf(first_diff, diff_len, "line %zu: \"%.*s\" in every run on %s, \"%.*s\" in round %zu on %s", i + 1,
             ref_has ? (int)ref_len : 9, ref_has ? ref : "<no line>", ref_name, h ? (int)l : 9,
             h ? s : "<no line>", round, name);
}

static agreement compare_lines(const lines *outputs, const char *const *names, size_t nruntimes, size_t nrounds,
                               char *first_diff, size_t diff_len)
{
    agreement a = {0, 0, 0, 0, {0}};
    size_t most = 0, n = nruntimes * nrounds;
    for (size_t j = 0; j < n; j++)
        most = outputs[j].n > most ? outputs[j].n : most;
    for (size_t i = 0; i < most; i++) {
        /* The reference: the line of the first runtime in which it never varies. */
        const char *ref = NULL;
        size_t ref_len = 0, ref_k = 0;
        bool ref_has = false, any_stable = false;
        for (size_t k = 0; k < nruntimes && !any_stable; k++)
            if (stable_in(outputs, k, nrounds, i, &ref, &ref_len, &ref_has)) {
                any_stable = true;
                ref_k = k;
            }
        if (!any_stable) { /* (with one round every line is stable) */
            a.ignored++;
            continue;
        }
        size_t bad = n;
        for (size_t j = 0; j < n && bad == n; j++) {
            const char *s;
            size_t l;
            bool h = nth_line(&outputs[j], i, &s, &l);
            if (!same_line(ref, ref_len, ref_has, s, l, h))
                bad = j;
        }
        if (bad == n) {
            a.compared++;
            continue;
        }
        if (a_measurement(outputs, n, i)) {
            a.measured++;
            continue;
        }
        a.compared++;
        if (a.differ < sizeof a.lines / sizeof a.lines[0])
            a.lines[a.differ] = i + 1;
        if (a.differ++ == 0 && diff_len > 0) {
            const char *s;
            size_t l;
            bool h = nth_line(&outputs[bad], i, &s, &l);
            describe(first_diff, diff_len, i, ref, ref_len, ref_has, names[ref_k], s, l, h, bad % nrounds + 1,
                     names[bad / nrounds]);
        }
    }
    return a;
}

agreement compare_outputs(const char *const *outputs, const char *const *names, size_t nruntimes, size_t nrounds,
                          char *first_diff, size_t diff_len)
{
    if (diff_len > 0)
        first_diff[0] = '\0';
    size_t n = nruntimes * nrounds;
    agreement a = {1, 0, 0, 0, {0}};
    lines *split = calloc(n, sizeof *split);
    bool ok = split != NULL;
    for (size_t j = 0; ok && j < n; j++)
        ok = split_lines(outputs[j], &split[j]);
    if (ok)
        a = compare_lines(split, names, nruntimes, nrounds, first_diff, diff_len);
    else
        snprintf(first_diff, diff_len, "out of memory comparing the outputs");
    for (size_t j = 0; split != NULL && j < n; j++) {
        free(split[j].start);
        free(split[j].len);
    }
    free(split);
    return a;
}
