/* Writing JSON (json_write.c).  Not installed. */
#ifndef MUSTER_JSON_WRITE_H
#define MUSTER_JSON_WRITE_H

#include <stdio.h>

/* A JSON string literal, quotes and escapes included. */
void muster_json_write_string(FILE *out, const char *s);

/* The shortest decimal that reads back as exactly v ("9.1", not
 * "9.0999999999999996").  JSON has no NaN or infinity: those are written as
 * null, so callers check values before saving them. */
void muster_json_write_number(FILE *out, double v);

#endif
