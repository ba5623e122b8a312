/* CHECK(cond) or CHECK(cond, "format", args...): on failure prints file:line,
 * the condition, the message and the library's last error detail, then exits
 * 1, which fails the ctest case.  Shared by every test program. */
#ifndef MUSTER_TEST_CHECK_H
#define MUSTER_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "muster/barrier.h"

static inline _Noreturn void check_failed(const char *file, int line, const char *cond, const char *format, ...)
{
    fprintf(stderr, "%s:%d: CHECK(%s) failed", file, line, cond);
    if (format[0] != '\0') {
        va_list args;
        va_start(args, format);
        fprintf(stderr, ": ");
        vfprintf(stderr, format, args);
        va_end(args);
    }
    fprintf(stderr, "\n  muster_error_detail: %s\n", muster_error_detail());
    exit(1);
}

/* "" __VA_ARGS__ turns a missing message into "" and glues "" to a given one. */
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond))                                                        \
            check_failed(__FILE__, __LINE__, #cond, "" __VA_ARGS__);       \
    } while (0)

#endif
