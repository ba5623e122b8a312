/* One benchmark process at a time, for `muster bench omp` and `muster bench
 * tasks`: fork, run a program with its output captured, kill it at a
 * deadline, and read the JSON lines it printed.  A sample per
 * process keeps one runtime's or one run's state out of the next. */
#ifndef MUSTER_TOOLS_BENCH_CHILD_H
#define MUSTER_TOOLS_BENCH_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "machine/json.h"

#define BENCH_CHILD_OUTPUT_MAX 16384 /* of a child's stdout or stderr: far more than ours write */

/* What a child process said, and how it ended. */
typedef struct bench_child_output {
    char out[BENCH_CHILD_OUTPUT_MAX], err[BENCH_CHILD_OUTPUT_MAX];
    size_t out_len, err_len;
    int out_truncated;    /* stdout went on past what out holds (read and dropped) */
    int status, timed_out;
    double wall_s;        /* from fork to the child's end */
    struct rusage usage;  /* the child's own (wait4): CPU time, context switches, peak memory */
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

/* In the child: becomes program (argv[0]) on the OpenMP runtime `library`
 * (NULL: the program's own libgomp) with OMP_NUM_THREADS=threads.  Never
 * returns: on failure it says why on stderr and exits 126 or 127. */
_Noreturn void bench_child_exec(const char *library, unsigned threads, char *const argv[]);

/* The runtime a program's first line says answered its OpenMP calls, copied
 * into answered[0..len): true when it is `library` (or libgomp for NULL),
 * or when the program said nothing (its exit then tells why).  False with
 * "FILE answered the OpenMP calls, not LIBRARY" in why. */
bool bench_check_answer(const char *output, const char *library, char *answered, size_t len, char *why,
                        size_t why_len);

/* Progress of a long run on stderr: on a terminal one line rewritten per
 * child ("[3/40] BARRIER @2 on muster ... ~12 s left"), else a line every
 * 15 s; once the first twentieth of the children (at least two) are done,
 * one line with the whole run's expected length, when it is more than a
 * few seconds; bench_progress_end clears the terminal's line. */
typedef struct bench_progress {
    const char *prog, *unit; /* "muster bench omp", "samples" */
    bool tty, estimated;
    unsigned done, total;
    uint64_t start, last;
} bench_progress;
bench_progress bench_progress_start(const char *prog, const char *unit, unsigned total);
void bench_progress_step(bench_progress *p, const char *what, unsigned threads, const char *runtime);
void bench_progress_end(const bench_progress *p);

/* The last non-empty line of text into buf (always terminated): of what a
 * process wrote on stderr, the loader's "symbol lookup error" or a
 * runtime's abort message. */
void bench_last_line(const char *text, char *buf, size_t len);

/* Why a child that printed no result ended as it did, as one line in buf
 * ("did not finish in 5 s", "NAME died of signal 11 (...): last stderr
 * line", "NAME exited with status 1: ...").  Returns 1 when it timed out. */
int bench_child_explain(const bench_child_output *co, const char *name, double timeout_s, char *buf, size_t len);

/* True when `answered` (the runtime file a program reports) is `library`,
 * or libgomp when library is NULL: a preload that did not take would
 * otherwise be measured as libgomp under another name. */
int bench_runtime_matches(const char *library, const char *answered);

#endif
