#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_parsing_only;

static int wants_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0 || strcmp(arg, "help") == 0;
}

void cli_list_commands(FILE *out, const cli_command *table, size_t count)
{
    for (size_t i = 0; i < count; i++)
        fprintf(out, "  %-10s %s\n", table[i].name, table[i].summary);
}

int cli_dispatch(const char *prog, const cli_command *table, size_t count, int argc, char **argv,
                 void (*usage)(FILE *out))
{
    if (argc < 1) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (wants_help(argv[0])) {
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < count; i++)
        if (strcmp(argv[0], table[i].name) == 0)
            return table[i].run(argc, argv);
    return cli_usage_error(prog, "unknown command '%s' (try '%s --help')", argv[0], prog);
}

int cli_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_USAGE;
}

int cli_option_value(const char *prog, int argc, char **argv, int *i, const char *name,
                     const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0; /* a longer option that merely starts the same way */
    if (*i + 1 >= argc) {
        cli_usage_error(prog, "%s needs a value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_parse_ulong(const char *prog, const char *option, const char *text, unsigned long min,
                    unsigned long max, unsigned long *out)
{
    char *end = NULL;
    errno = 0;
    /* strtoul accepts "-1" and wraps it; a sign is never a count. */
    unsigned long v = strtoul(text, &end, 10);
    if (*text == '\0' || strchr(text, '-') || *end != '\0' || errno != 0 || v < min || v > max)
        return cli_usage_error(prog, "%s: '%s' is not a whole number from %lu to %lu", option, text,
                               min, max);
    *out = v;
    return 0;
}

int cli_parse_double(const char *prog, const char *option, const char *text, double above, double max,
                     double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (*text == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v <= above || v > max)
        return cli_usage_error(prog, "%s: '%s' is not a number above %g and at most %g", option, text,
                               above, max);
    *out = v;
    return 0;
}

static int set_value(const char *prog, const cli_option *o, const char *value, void *opts)
{
    char *field = (char *)opts + o->offset;
    switch (o->kind) {
    case CLI_VALUE_ULONG:
        return cli_parse_ulong(prog, o->name, value, (unsigned long)o->min, (unsigned long)o->max,
                               (unsigned long *)(void *)field);
    case CLI_VALUE_DOUBLE:
        return cli_parse_double(prog, o->name, value, o->min, o->max, (double *)(void *)field);
    default:
        return o->set(value, opts);
    }
}

int cli_parse_option(const char *prog, int argc, char **argv, int *i, const cli_option *table,
                     size_t count, void *opts)
{
    for (size_t k = 0; k < count; k++) {
        const char *value;
        if (table[k].kind == CLI_FLAG) {
            if (strcmp(argv[*i], table[k].name) != 0)
                continue;
            *(int *)(void *)((char *)opts + table[k].offset) = 1;
            return 1;
        }
        int m = cli_option_value(prog, argc, argv, i, table[k].name, &value);
        if (m != 0)
            return m < 0 || set_value(prog, &table[k], value, opts) != 0 ? -1 : 1;
    }
    return 0;
}

int cli_parse_args(const char *prog, int argc, char **argv, const cli_option *table, size_t count,
                   void *opts, void (*usage)(FILE *out))
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return CLI_OK;
        }
        int rc = cli_parse_option(prog, argc, argv, &i, table, count, opts);
        if (rc < 0)
            return CLI_USAGE;
        if (rc == 0)
            return cli_usage_error(prog, "%s '%s' (see --help)",
                                   arg[0] == '-' ? "unknown option" : "unexpected argument", arg);
    }
    return -1;
}

/* Calls one(item) for each comma-separated item of list; empty items are an
 * error, since "a,,b" is more likely a typo than a wish. */
int cli_for_each_item(const char *prog, const char *option, const char *list,
                      int (*one)(const char *item, void *ctx), void *ctx)
{
    char buf[1024];
    if (*list == '\0')
        return cli_usage_error(prog, "%s: empty list", option);
    if (strlen(list) >= sizeof buf)
        return cli_usage_error(prog, "%s: list too long", option);
    strcpy(buf, list);
    char *item = buf;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (*item == '\0')
            return cli_usage_error(prog, "%s: empty item in '%s'", option, list);
        int rc = one(item, ctx);
        if (rc != 0)
            return rc;
        if (!comma)
            return 0;
        item = comma + 1;
    }
}

typedef struct count_list {
    const char *prog, *option;
    unsigned long min, max;
    unsigned *counts;
    size_t *n, capacity;
} count_list;

/* One item: parsed, then inserted where it keeps the list ascending. */
static int add_count(const char *text, void *ctx)
{
    count_list *l = ctx;
    unsigned long value;
    if (cli_parse_ulong(l->prog, l->option, text, l->min, l->max, &value) != 0)
        return CLI_USAGE;
    for (size_t k = 0; k < *l->n; k++)
        if (l->counts[k] == value)
            return 0;
    if (*l->n == l->capacity)
        return cli_usage_error(l->prog, "%s: more than %zu values", l->option, l->capacity);
    size_t k = (*l->n)++;
    for (; k > 0 && l->counts[k - 1] > value; k--)
        l->counts[k] = l->counts[k - 1];
    l->counts[k] = (unsigned)value;
    return 0;
}

int cli_parse_count_list(const char *prog, const char *option, const char *list, unsigned long min,
                         unsigned long max, unsigned *counts, size_t *n, size_t capacity)
{
    *n = 0;
    count_list l = {prog, option, min, max, counts, n, capacity};
    return cli_for_each_item(prog, option, list, add_count, &l);
}

int cli_find_separator(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0)
            return i;
    return argc;
}
