/* One benchmark process at a time, for `muster bench omp` and `muster bench
 * tasks`: fork, run a program with its output captured, kill it at a
 * deadline, and read the JSON lines it printed.  A sample per
 * process keeps one runtime's or one run's state out of the next. */
#ifndef MUSTER_TOOLS_BENCH_CHILD_H
#define MUSTER_TOOLS_BENCH_CHILD_H

#include <stddef.h>

#include "machine/json.h"

#define BENCH_CHILD_OUTPUT_MAX 16384 /* of a child's stdout or stderr: far more than ours write */

/* What a child process said, and how it ended. */
typedef struct bench_child_output {
    char out[BENCH_CHILD_OUTPUT_MAX], err[BENCH_CHILD_OUTPUT_MAX];
    size_t out_len, err_len;
    int status, timed_out;
} bench_child_output;

/* Forks a child whose stdout and stderr go to co, and which calls
 * start(ctx): that sets up its environment and execs, or _exits.  Reads
 * both until they end or timeout_s passes (then kills the child: timed_out).
 * Returns 0, or -1 when no process could be made. */
int bench_child_run(void (*start)(const void *ctx), const void *ctx, double timeout_s, bench_child_output *co);

/* The program's result lines are JSON objects (its --json output).  The
 * first line of text that is an object with a member `key`, a string equal
 * to `value` (any value when NULL), parsed into *out: 0, or -1 when no line
 * is (*out then a JSON null).  Free it with muster_json_free.  Lines that
 * are not JSON (a runtime's warning) are passed over. */
int bench_find_record(const char *text, const char *key, const char *value, json_value *out);
/* A record's member `key`: a string (NULL when absent or not a string), a
 * number (NaN when absent or not a number). */
const char *bench_record_string(const json_value *record, const char *key);
double bench_record_number(const json_value *record, const char *key);

/* Why a child that printed no result ended as it did, as one line in buf
 * ("did not finish in 5 s", "NAME died of signal 11 (...): last stderr
 * line", "NAME exited with status 1: ...").  Returns 1 when it timed out. */
int bench_child_explain(const bench_child_output *co, const char *name, double timeout_s, char *buf, size_t len);

/* True when `answered` (the runtime file a program reports) is `library`,
 * or libgomp when library is NULL: a preload that did not take would
 * otherwise be measured as libgomp under another name. */
int bench_runtime_matches(const char *library, const char *answered);

#endif
