/* The library's error detail: what muster_error_detail() reports for the
 * calling thread's last failure.  Shared by every part of libmuster (the
 * barriers, the topology, machine files); defined in error.c, at the bottom
 * of the layers.  Not installed. */
#ifndef MUSTER_ERROR_H
#define MUSTER_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Records a one-line detail for muster_error_detail() and returns code. */
int muster_fail(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The one stderr line for a bad environment variable:
 *   muster: NAME='VALUE' <problem>; using <instead> */
void muster_warn_env(const char *variable, const char *value, const char *problem, const char *instead);

/* Formats a one-line message into err (when err_len > 0) and returns -1:
 * the error style of the model and probe code, which reports through a
 * caller's buffer rather than the thread's error detail. */
static inline int muster_say(char *err, size_t err_len, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static inline int muster_say(char *err, size_t err_len, const char *format, ...)
{
    if (err != NULL && err_len > 0) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(err, err_len, format, ap);
        va_end(ap);
    }
    return -1;
}

#endif
