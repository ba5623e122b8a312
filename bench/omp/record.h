/* One line of a benchmark program's output (syncbench, taskbench): words
 * "key=value" for a person, or with --json one JSON object for the harness,
 * which reads it with a JSON parser instead of scraping words.  The fields
 * and their order are the same either way. */
#ifndef MUSTER_BENCH_RECORD_H
#define MUSTER_BENCH_RECORD_H

#include <stdbool.h>
#include <stdio.h>

typedef struct record {
    FILE *out;
    bool json;
    bool first; /* no field written yet */
} record;

/* Starts a line; `comment` ("# syncbench"), when not NULL, goes before the
 * words of a text line (a JSON line has no comments). */
record record_begin(FILE *out, bool json, const char *comment);
void record_string(record *r, const char *key, const char *value);
void record_uint(record *r, const char *key, unsigned long long value);
/* %.6g in text; in JSON the shortest decimal that reads back exactly (NaN
 * and infinities as null). */
void record_number(record *r, const char *key, double value);
/* A whole error line: KIND=NAME threads=N status=error message=WHY (kind
 * "construct" or "workload"; the message last: as words, it runs to the
 * line's end). */
void record_error(FILE *out, bool json, const char *kind, const char *name, unsigned threads, const char *why);
/* runtime=FILE: the file the compiler's entry points come from (gcc's
 * GOMP_*, or LLVM's __kmpc_* when built by clang), the runtime really
 * measured, whatever was asked for; "unknown" when none answers. */
void record_answering_runtime(record *r);
/* Ends the line and flushes it: a harness that kills the program later
 * keeps every line written so far. */
void record_end(record *r);

#endif
