/* Whether the outputs of one program under several runtimes agree
 * (`muster compare`'s check, agreement.c): answers must be the same,
 * measurements may differ.  No flags needed for the usual programs. */
#ifndef MUSTER_TOOLS_AGREEMENT_H
#define MUSTER_TOOLS_AGREEMENT_H

#include <stdbool.h>
#include <stddef.h>

/* What the check found. */
typedef struct agreement {
    size_t differ;    /* lines that disagree (0: the outputs agree) */
    size_t compared;  /* lines compared as answers */
    size_t measured;  /* lines that name a time or rate: their text compared, their numbers not */
    size_t ignored;   /* lines that change from round to round under every runtime */
    size_t lines[8];  /* the first (up to 8) disagreeing lines, numbered from 1 */
} agreement;

/* outputs[k * nrounds + r] is the output of round r under runtime k (named
 * names[k]).  Line by line (by place):
 *   - a line that changes from round to round under every runtime is
 *     ignored (with two rounds or more: a timing);
 *   - a line that names a time or a rate (a word such as time, seconds,
 *     elapsed, rate, or a unit such as ms, us, Mop/s, GB/s; line_names_measure)
 *     and is the same in every run once its numbers are masked, is a
 *     measurement: its words must agree, its numbers need not;
 *   - every other line must be the same in every run of every runtime.
 * A missing or extra line is a difference.  The first difference goes to
 * first_diff. */
agreement compare_outputs(const char *const *outputs, const char *const *names, size_t nruntimes, size_t nrounds,
                          char *first_diff, size_t diff_len);

/* Whether a line names a time or a rate (the words and units above). */
bool line_names_measure(const char *line, size_t len);

/* The line with each number (digits, with sign, point, exponent and
 * thousands commas) replaced by '#' and each run of blanks by one blank,
 * into buf (NUL-terminated, cut to size). */
void mask_numbers(const char *line, size_t len, char *buf, size_t size);

#endif
