/* The library's error detail: what muster_error_detail() reports for the
 * calling thread's last failure.  Shared by every part of libmuster (the
 * barriers, the topology); defined in barrier/barrier.c.  Not installed. */
#ifndef MUSTER_ERROR_H
#define MUSTER_ERROR_H

/* Records a one-line detail for muster_error_detail() and returns code. */
int muster_fail(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif
