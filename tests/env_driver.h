/* For tests of environment variables, whose expectations are tables in the
 * test source: run the test program again as a child under each case's
 * environment and read what it printed.  Header-only; include it in one
 * file of a test program (test_env.c, test_omp_env.c).
 *
 *   env_run         runs a command under a clean environment plus the
 *                   case's NAME=VALUE settings; returns stdout and stderr
 *   env_child       the same for COMMAND... --child ARGS (the command is the
 *                   emulator's in a cross build)
 *   env_glob        matches text against a pattern: '*' any run of
 *                   characters, '#' one or more digits, '~' a whole number
 *                   above zero (digits, the first not 0), all else literal
 *   env_line        the line of text that starts with a prefix
 *   env_word        the value of key= in a line of space-separated words
 *   env_count_lines lines of text that start with a prefix
 *   env_lines_in_order  every pattern matches a line of text, in order
 *   env_expand      '@' in a case's string stands for a directory
 *   env_capture_begin/_end  in a child: fd 2 captured, then printed as
 *                   "stderr| LINE" lines and "stderr_lines=N"
 *   env_drive       a driver's main: --driver COMMAND..., each case */
#ifndef MUSTER_TEST_ENV_DRIVER_H
#define MUSTER_TEST_ENV_DRIVER_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

extern char **environ;

/* Every variable a runtime or libmuster could read is dropped from the
 * child's environment, so a developer's shell cannot change a case; only
 * the test's own scale is kept. */
static inline bool env_is_cleared(const char *assignment)
{
    static const char *const prefixes[] = {"MUSTER_", "OMP_", "GOMP_", "KMP_"};
    if (strncmp(assignment, "MUSTER_TEST_SCALE=", 18) == 0)
        return false;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(assignment, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

static inline char *env_read_all(int fd)
{
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    for (ssize_t got; (got = read(fd, text + len, cap - len - 1)) != 0;) {
        if (got < 0) {
            CHECK(errno == EINTR, "read: %s", strerror(errno));
            continue;
        }
        len += (size_t)got;
        if (cap - len < 2) {
            cap *= 2;
            text = realloc(text, cap);
            CHECK(text != NULL);
        }
    }
    text[len] = '\0';
    return text;
}

typedef struct env_child_result {
    char *out, *err;
    int status;
} env_child_result;

/* Runs argv (NULL-terminated) with the settings (NULL-terminated
 * NAME=VALUE, at most 16) added to a clean environment. */
static inline env_child_result env_run(char *const *argv, const char *const *settings)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 17, sizeof *env);
    CHECK(env != NULL);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!env_is_cleared(environ[i]))
            env[k++] = environ[i];
    for (size_t i = 0; i < 16 && settings[i] != NULL; i++)
        env[k++] = (char *)settings[i];
    int out[2], err[2];
    CHECK(pipe(out) == 0 && pipe(err) == 0, "pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        close(out[0]);
        close(err[0]);
        execvpe(argv[0], argv, env);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    free(env);
    close(out[1]);
    close(err[1]);
    env_child_result r;
    /* A child writes a few kilobytes to each, far below a pipe's buffer:
     * reading one and then the other cannot deadlock. */
    r.out = env_read_all(out[0]);
    r.err = env_read_all(err[0]);
    close(out[0]);
    close(err[0]);
    while (waitpid(pid, &r.status, 0) < 0)
        CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
    return r;
}

/* Runs command[0..command_len) --child args... (NULL-terminated, at most 8)
 * under the settings (env_run). */
static inline env_child_result env_child(char **command, int command_len, const char *const *args,
                                         const char *const *settings)
{
    char *argv[40];
    int argc = 0;
    for (int i = 0; i < command_len && argc < 28; i++)
        argv[argc++] = command[i];
    argv[argc++] = "--child";
    for (int i = 0; i < 8 && args[i] != NULL; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    return env_run(argv, settings);
}

static inline void env_child_free(env_child_result *r)
{
    free(r->out);
    free(r->err);
}

/* pattern against text[0..len): '*' any run, '#' one or more digits, '~'
 * digits whose first is not 0. */
static inline bool env_glob_n(const char *pattern, const char *text, size_t len)
{
    if (*pattern == '\0')
        return len == 0;
    if (*pattern == '*') {
        for (size_t skip = 0; skip <= len; skip++)
            if (env_glob_n(pattern + 1, text + skip, len - skip))
                return true;
        return false;
    }
    if (*pattern == '#' || *pattern == '~') {
        if (*pattern == '~' && (len == 0 || text[0] == '0'))
            return false;
        size_t digits = 0;
        while (digits < len && text[digits] >= '0' && text[digits] <= '9')
            digits++;
        for (size_t take = digits; take >= 1; take--)
            if (env_glob_n(pattern + 1, text + take, len - take))
                return true;
        return false;
    }
    return len > 0 && *pattern == *text && env_glob_n(pattern + 1, text + 1, len - 1);
}

static inline bool env_glob(const char *pattern, const char *text)
{
    return env_glob_n(pattern, text, strlen(text));
}

static inline const char *env_next_line(const char *line)
{
    const char *newline = strchr(line, '\n');
    return newline != NULL ? newline + 1 : NULL;
}

/* The first line of text that starts with prefix (NULL: none), its length
 * without the newline in *len. */
static inline const char *env_line(const char *text, const char *prefix, size_t *len)
{
    size_t plen = strlen(prefix);
    for (const char *line = text; line != NULL && *line; line = env_next_line(line))
        if (strncmp(line, prefix, plen) == 0) {
            *len = strcspn(line, "\n");
            return line;
        }
    return NULL;
}

static inline unsigned env_count_lines(const char *text, const char *prefix)
{
    unsigned n = 0;
    size_t plen = strlen(prefix);
    for (const char *line = text; line != NULL && *line; line = env_next_line(line))
        n += strncmp(line, prefix, plen) == 0;
    return n;
}

/* The value of key= in line[0..len) (words separated by spaces), into out;
 * false when the line has no such word.  A value that starts with a quote
 * runs to the closing quote. */
static inline bool env_word(const char *line, size_t len, const char *key, char *out, size_t out_len)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i + klen < len; i++) {
        if ((i > 0 && line[i - 1] != ' ') || strncmp(line + i, key, klen) != 0 || line[i + klen] != '=')
            continue;
        const char *v = line + i + klen + 1;
        size_t left = len - i - klen - 1, n = 0;
        if (left > 0 && *v == '\'') {
            const char *close = memchr(v + 1, '\'', left - 1);
            n = close != NULL ? (size_t)(close - v) + 1 : left;
        } else {
            while (n < left && v[n] != ' ')
                n++;
        }
        snprintf(out, out_len, "%.*s", (int)n, v);
        return true;
    }
    return false;
}

/* Whether each of the patterns (up to max, NULL-terminated) matches a whole
 * line of text, in this order; the first that does not into *missing. */
static inline bool env_lines_in_order(const char *text, const char *const *patterns, size_t max, const char **missing)
{
    const char *from = text;
    for (size_t i = 0; i < max && patterns[i] != NULL; i++) {
        bool found = false;
        for (; from != NULL && *from && !found; from = env_next_line(from))
            found = env_glob_n(patterns[i], from, strcspn(from, "\n"));
        if (!found) {
            *missing = patterns[i];
            return false;
        }
    }
    return true;
}

/* text with its first '@' replaced by dir, into out. */
static inline const char *env_expand(char *out, size_t len, const char *text, const char *dir)
{
    const char *at = strchr(text, '@');
    if (at != NULL)
        snprintf(out, len, "%.*s%s%s", (int)(at - text), text, dir, at + 1);
    else
        snprintf(out, len, "%s", text);
    return out;
}

/* In a child: fd 2 goes to a temporary file from env_capture_begin to
 * env_capture_end, which prints each captured line on stdout as
 * "stderr| LINE", then "stderr_lines=N", and copies the lines to the real
 * stderr too when echo is set.  Returns N. */
typedef struct env_capture {
    FILE *file;
    int saved_stderr;
} env_capture;

static inline env_capture env_capture_begin(void)
{
    fflush(stderr);
    env_capture c = {.file = tmpfile(), .saved_stderr = dup(STDERR_FILENO)};
    CHECK(c.file != NULL && c.saved_stderr >= 0);
    CHECK(dup2(fileno(c.file), STDERR_FILENO) == STDERR_FILENO);
    return c;
}

static inline unsigned env_capture_end(env_capture *c, bool echo)
{
    fflush(stderr);
    CHECK(dup2(c->saved_stderr, STDERR_FILENO) == STDERR_FILENO);
    close(c->saved_stderr);
    unsigned lines = 0;
    char line[4096];
    rewind(c->file);
    while (fgets(line, sizeof line, c->file) != NULL) {
        if (echo)
            fputs(line, stderr);
        size_t n = strlen(line);
        printf("stderr| %s%s", line, n > 0 && line[n - 1] == '\n' ? "" : "\n");
        lines++;
    }
    fclose(c->file);
    printf("stderr_lines=%u\n", lines);
    fflush(stdout);
    return lines;
}

/* A driver's main: PROG --child ... is child(argc, argv); PROG --driver
 * [LEADING...] COMMAND... runs check(i, leading, command, command_len) for
 * each of the n cases, where `leading` is the `leading_args` words after
 * --driver (a data directory), and prints "PROG: N cases ok".  2 for a bad
 * command line. */
static inline int env_drive(int argc, char **argv, int (*child)(int argc, char **argv), int leading_args, size_t n,
                            void (*check)(size_t i, char **leading, char **command, int command_len))
{
    if (argc >= 2 && strcmp(argv[1], "--child") == 0)
        return child(argc, argv);
    if (argc < 3 + leading_args || strcmp(argv[1], "--driver") != 0) {
        fprintf(stderr, "usage: %s --driver%s COMMAND... | --child ...\n", argv[0], leading_args ? " DIR" : "");
        return 2;
    }
    for (size_t i = 0; i < n; i++)
        check(i, argv + 2, argv + 2 + leading_args, argc - 2 - leading_args);
    const char *name = strrchr(argv[0], '/');
    printf("%s: %zu cases ok\n", name != NULL ? name + 1 : argv[0], n);
    return 0;
}

#endif
