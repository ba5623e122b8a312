/* A small JSON reader and writer for muster's own files (machine files).
 *
 * The reader builds a tree (null, bool, number, string, array, object) and
 * reports the first syntax error as "line L column C: problem".  It is strict
 * RFC 8259 JSON with two deliberate limits: nesting deeper than
 * JSON_MAX_DEPTH is refused (a hostile file must not overflow the stack), and
 * so are duplicate keys in one object and \u0000 in strings (keys are looked
 * up as C strings, and a key given twice is a mistake in a hand-edited file,
 * not a wish).  Numbers are doubles.  Not installed; no external library. */
#ifndef MUSTER_MACHINE_JSON_H
#define MUSTER_MACHINE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 64

typedef enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value json_value;
typedef struct json_member json_member;

struct json_value {
    json_type type;
    union {
        bool boolean;
        double number;
        char *string; /* NUL-terminated UTF-8 */
        struct {
            json_value *items;
            size_t count;
        } array;
        struct {
            json_member *members; /* in file order */
            size_t count;
        } object;
    } u;
};

struct json_member {
    char *key;
    json_value value;
};

/* Parses text[0..length) as one JSON value.  0, or -1 with "line L column C:
 * problem" in err and *out a JSON null (nothing to free). */
int muster_json_parse(const char *text, size_t length, json_value *out, char *err, size_t err_len);

/* Frees what json_parse allocated; *v becomes null. */
void muster_json_free(json_value *v);

/* The member named key, or NULL (also when v is not an object). */
const json_value *muster_json_get(const json_value *v, const char *key);

/* "null", "a boolean", "a number", "a string", "an array", "an object":
 * for messages like "expected a number, found a string". */
const char *muster_json_type_name(json_type type);

/* Writing: muster_json_write_string, muster_json_write_number. */
#include "json_write.h"

#endif
