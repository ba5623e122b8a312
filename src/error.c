/* The library's errors: the calling thread's error detail
 * (muster_error_detail) and the names of the codes (muster_strerror).  At
 * the bottom of the layers: every part of libmuster reports through it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "muster/barrier.h"
#include "platform/check.h"

static _Thread_local char error_detail[256];

int muster_fail(int code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(error_detail, sizeof error_detail, format, args);
    va_end(args);
    return code;
}

void muster_warn_env(const char *variable, const char *value, const char *problem, const char *instead)
{
    fprintf(stderr, "muster: %s='%s' %s; using %s\n", variable, value, problem, instead);
}

_Noreturn void muster_invariant_failed(const char *file, int line, const char *cond, const char *format, ...)
{
    char text[1024];
    int n = snprintf(text, sizeof text, "muster: invariant broken at %s:%d: %s: ", file, line, cond);
    if (n < 0 || (size_t)n >= sizeof text - 2)
        n = 0;
    va_list args;
    va_start(args, format);
    vsnprintf(text + n, sizeof text - (size_t)n - 1, format, args);
    va_end(args);
    fprintf(stderr, "%s\n", text); /* one write: lines of threads that fail together stay whole */
    abort();
}

const char *muster_error_detail(void) { return error_detail; }

const char *muster_strerror(int error)
{
    switch (error) {
    case MUSTER_OK: return "success";
    case MUSTER_E_INVAL: return "invalid argument";
    case MUSTER_E_UNSUPPORTED: return "attribute not supported by this algorithm";
    case MUSTER_E_NOMEM: return "out of memory";
    case MUSTER_E_RANGE: return "participant id out of range";
    case MUSTER_E_BROKEN: return "barrier is broken (aborted or a participant timed out)";
    case MUSTER_E_TIMEDOUT: return "timed out; the barrier is now broken";
    case MUSTER_E_UNKNOWN_NAME: return "unknown name";
    case MUSTER_E_SYSTEM: return "system call failed";
    default: return "unknown muster error code";
    }
}
