/* Small pieces every muster subcommand shares: a dispatch table and option
 * parsing that names the bad value in a one-line message. */
#ifndef MUSTER_TOOLS_CLI_H
#define MUSTER_TOOLS_CLI_H

#include <stddef.h>
#include <stdio.h>

/* Exit statuses: 0 done, 1 the work failed, 2 the command line was wrong. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* Set by the command-line fuzzer (fuzz/fuzz_cli.c): a command that would
 * measure, run a program or simulate returns CLI_OK once its options have
 * parsed; what only reads and prints (topology, model presets and cost)
 * runs whole. */
extern int cli_parsing_only;

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command's own name */
    const char *summary;
} cli_command;

/* Runs the command argv[0] names.  prog ("muster", "muster bench") prefixes
 * messages; usage prints the help that lists the table. */
int cli_dispatch(const char *prog, const cli_command *table, size_t count, int argc, char **argv,
                 void (*usage)(FILE *out));
void cli_list_commands(FILE *out, const cli_command *table, size_t count);

/* Prints "prog: message" and returns CLI_USAGE, for `return cli_usage_error(...)`. */
int cli_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Matches argv[*i] against an option that takes a value, given as
 * "--name VALUE" or "--name=VALUE".  Returns 1 and sets *value (moving *i to
 * the value's word) on a match, 0 when argv[*i] is something else, -1 after
 * a message when the value is missing. */
int cli_option_value(const char *prog, int argc, char **argv, int *i, const char *name,
                     const char **value);

/* Whole numbers in [min, max] and reals in (above, max]; 0 on success, else
 * a message naming the option and the text, and CLI_USAGE. */
int cli_parse_ulong(const char *prog, const char *option, const char *text, unsigned long min,
                    unsigned long max, unsigned long *out);
int cli_parse_double(const char *prog, const char *option, const char *text, double above, double max,
                     double *out);

/* A table of options, for cli_parse_option: numbers are parsed and
 * range-checked into the field at `offset` of the command's options struct
 * (an unsigned long, or a double in (min, max]); a flag (no value) sets the
 * int there to 1; anything else goes to set(value, opts), which prints its
 * own message. */
typedef enum cli_value_kind { CLI_VALUE_ULONG, CLI_VALUE_DOUBLE, CLI_VALUE_CUSTOM, CLI_FLAG } cli_value_kind;
typedef struct cli_option {
    const char *name; /* "--reps" */
    cli_value_kind kind;
    size_t offset;    /* offsetof(struct options, field), for the numbers */
    double min, max;
    int (*set)(const char *value, void *opts); /* CLI_VALUE_CUSTOM: 0, or non-zero after a message */
} cli_option;

/* Handles argv[*i] if it is one of the table's options (moving *i past its
 * value): 1 done, 0 not one of them, -1 bad (a message has been printed). */
int cli_parse_option(const char *prog, int argc, char **argv, int *i, const cli_option *table,
                     size_t count, void *opts);

/* The whole command line argv[1..) by the table: --help or -h prints usage
 * on stdout; anything not in the table is a usage error.  Returns -1 to go
 * on, else the exit status (CLI_OK after --help, CLI_USAGE). */
int cli_parse_args(const char *prog, int argc, char **argv, const cli_option *table, size_t count,
                   void *opts, void (*usage)(FILE *out));

/* The index of the first "--" in argv[1..argc), or argc: where a command
 * that runs a program (compare, profile) ends its own options. */
int cli_find_separator(int argc, char **argv);

/* Calls one(item, ctx) for each comma-separated item of list, stopping at
 * the first non-zero return; an empty list or item ("a,,b", more likely a
 * typo than a wish) is a usage error naming the option. */
int cli_for_each_item(const char *prog, const char *option, const char *list,
                      int (*one)(const char *item, void *ctx), void *ctx);

/* A comma-separated list of whole numbers in [min, max] ("2,4,8", a
 * --threads list) into counts[0..*n), ascending and without repeats, at
 * most capacity of them; a usage error naming the option otherwise. */
int cli_parse_count_list(const char *prog, const char *option, const char *list, unsigned long min,
                         unsigned long max, unsigned *counts, size_t *n, size_t capacity);


#endif
