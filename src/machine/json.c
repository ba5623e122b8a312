/* The JSON reader and writer of json.h: a recursive-descent parser over a
 * byte range that tracks line and column for its one error message. */
#include "machine/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *at, *end;
    const char *line_start; /* for the column of an error */
    unsigned line;
    char *err;
    size_t err_len;
} parser;

/* Records "line L column C: problem" at the current position; returns -1. */
static int fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *p, const char *fmt, ...)
{
    int n = snprintf(p->err, p->err_len, "line %u column %zu: ", p->line, (size_t)(p->at - p->line_start) + 1);
    if (n >= 0 && (size_t)n < p->err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->err_len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void skip_space(parser *p)
{
    for (; p->at < p->end; p->at++) {
        char c = *p->at;
        if (c == '\n') {
            p->line++;
            p->line_start = p->at + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
    }
}

/* What stands at the current position, for "expected X, found Y". */
static int fail_expected(parser *p, const char *what)
{
    if (p->at >= p->end)
        return fail(p, "unexpected end of input (expected %s)", what);
    unsigned char c = (unsigned char)*p->at;
    if (c >= 0x21 && c < 0x7f)
        return fail(p, "expected %s, found '%c'", what, c);
    return fail(p, "expected %s, found byte 0x%02x", what, c);
}

/* ---- strings ------------------------------------------------------------ */

typedef struct buffer {
    char *data;
    size_t len, cap;
} buffer;

static int buffer_push(buffer *b, const char *bytes, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 16;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (grown == NULL)
            return -1;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

static int push_utf8(buffer *b, uint32_t cp)
{
    char out[4];
    size_t n;
    if (cp < 0x80) {
        out[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buffer_push(b, out, n);
}

/* Four hex digits after "\u" (p->at is on the 'u'). */
static int read_hex4(parser *p, uint32_t *cp)
{
    *cp = 0;
    for (int i = 1; i <= 4; i++) {
        char c = p->at + i < p->end ? p->at[i] : '\0';
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return fail(p, "\\u needs four hex digits");
        *cp = *cp * 16 + (uint32_t)d;
    }
    p->at += 5;
    return 0;
}

/* \uXXXX, with a surrogate pair joined into one code point. */
static int read_unicode_escape(parser *p, buffer *b)
{
    uint32_t cp, low;
    if (read_hex4(p, &cp) != 0)
        return -1;
    if (cp == 0)
        return fail(p, "\\u0000 is not supported");
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return fail(p, "\\u%04X is a lone low surrogate", (unsigned)cp);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (p->end - p->at < 2 || p->at[0] != '\\' || p->at[1] != 'u')
            return fail(p, "high surrogate \\u%04X is not followed by a low one", (unsigned)cp);
        p->at++;
        if (read_hex4(p, &low) != 0)
            return -1;
        if (low < 0xDC00 || low > 0xDFFF)
            return fail(p, "high surrogate \\u%04X is not followed by a low one", (unsigned)cp);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    return push_utf8(b, cp) == 0 ? 0 : fail(p, "out of memory");
}

static int read_escape(parser *p, buffer *b)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    p->at++; /* the backslash */
    if (p->at >= p->end)
        return fail(p, "unterminated string");
    if (*p->at == 'u')
        return read_unicode_escape(p, b);
    const char *hit = *p->at ? strchr(from, *p->at) : NULL;
    if (hit == NULL)
        return fail(p, "invalid escape '\\%c'", *p->at);
    p->at++;
    return buffer_push(b, &to[hit - from], 1) == 0 ? 0 : fail(p, "out of memory");
}

/* A string literal (p->at on the opening quote) into a new C string. */
static int parse_string(parser *p, char **out)
{
    buffer b = {0};
    p->at++;
    if (buffer_push(&b, "", 0) != 0)
        return fail(p, "out of memory");
    for (;;) {
        const char *run = p->at;
        while (p->at < p->end && *p->at != '"' && *p->at != '\\' && (unsigned char)*p->at >= 0x20)
            p->at++;
        if (buffer_push(&b, run, (size_t)(p->at - run)) != 0) {
            free(b.data);
            return fail(p, "out of memory");
        }
        int rc = 0;
        if (p->at >= p->end)
            rc = fail(p, "unterminated string");
        else if (*p->at == '"')
            break;
        else if (*p->at == '\\')
            rc = read_escape(p, &b);
        else
            rc = fail(p, "control character 0x%02x in a string (escape it)", (unsigned)*p->at);
        if (rc != 0) {
            free(b.data);
            return -1;
        }
    }
    p->at++;
    *out = b.data;
    return 0;
}

/* ---- numbers and literals ----------------------------------------------- */

static const char *skip_digits(const char *s, const char *end)
{
    while (s < end && *s >= '0' && *s <= '9')
        s++;
    return s;
}

/* The RFC 8259 grammar, checked first, because strtod also takes "0x1p3",
 * "inf", " 5" and "+5". */
static const char *number_end(const char *s, const char *end)
{
    if (s < end && *s == '-')
        s++;
    if (s >= end || *s < '0' || *s > '9')
        return NULL;
    s = *s == '0' ? s + 1 : skip_digits(s, end);
    if (s < end && *s == '.') {
        const char *frac = s + 1;
        s = skip_digits(frac, end);
        if (s == frac)
            return NULL;
    }
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < end && (*s == '+' || *s == '-'))
            s++;
        const char *exp = s;
        s = skip_digits(exp, end);
        if (s == exp)
            return NULL;
    }
    return s;
}

static int parse_number(parser *p, json_value *v)
{
    const char *end = number_end(p->at, p->end);
    char text[128];
    if (end == NULL)
        return fail(p, "invalid number");
    size_t len = (size_t)(end - p->at);
    if (len >= sizeof text)
        return fail(p, "number longer than %zu characters", sizeof text - 1);
    memcpy(text, p->at, len);
    text[len] = '\0';
    /* strtod follows LC_NUMERIC; muster's tools never call setlocale, so it
     * is "C" and the decimal point is '.'. */
    double x = strtod(text, NULL);
    if (!isfinite(x))
        return fail(p, "number %s is out of range", text);
    v->type = JSON_NUMBER;
    v->u.number = x;
    p->at = end;
    return 0;
}

static int parse_literal(parser *p, json_value *v)
{
    static const struct {
        const char *word;
        json_type type;
        bool value;
    } words[] = {{"true", JSON_BOOL, true}, {"false", JSON_BOOL, false}, {"null", JSON_NULL, false}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].word);
        if ((size_t)(p->end - p->at) >= n && memcmp(p->at, words[i].word, n) == 0) {
            v->type = words[i].type;
            v->u.boolean = words[i].value;
            p->at += n;
            return 0;
        }
    }
    return fail_expected(p, "a value");
}

/* ---- arrays and objects ------------------------------------------------- */

static int parse_value(parser *p, json_value *v, unsigned depth);

/* Room for one more element of size `size` in *items (count used, *cap
 * allocated). */
static int grow(void **items, size_t count, size_t *cap, size_t size)
{
    if (count < *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 4;
    void *bigger = realloc(*items, n * size);
    if (bigger == NULL)
        return -1;
    *items = bigger;
    *cap = n;
    return 0;
}

/* If the next character is c, steps past it. */
static bool take(parser *p, char c)
{
    if (p->at >= p->end || *p->at != c)
        return false;
    p->at++;
    return true;
}

typedef int parse_element_fn(parser *p, json_value *v, size_t *cap, unsigned depth);

/* What arrays and objects share: from the opening bracket, elements (array
 * items, object members) that `element` parses into v, separated by ',' and
 * ended by `close`; `expected` names what may follow an element. */
static int parse_elements(parser *p, json_value *v, unsigned depth, char close, const char *expected,
                          parse_element_fn *element)
{
    size_t cap = 0;
    p->at++; /* the opening bracket */
    skip_space(p);
    if (take(p, close))
        return 0;
    for (;;) {
        if (element(p, v, &cap, depth) != 0)
            return -1;
        skip_space(p);
        if (take(p, close))
            return 0;
        if (!take(p, ','))
            return fail_expected(p, expected);
    }
}

static int parse_item(parser *p, json_value *v, size_t *cap, unsigned depth)
{
    if (grow((void **)&v->u.array.items, v->u.array.count, cap, sizeof(json_value)) != 0)
        return fail(p, "out of memory");
    /* Counted before it is parsed, so that json_free reaches a half-made
     * element when the caller frees the tree after an error. */
    json_value *item = &v->u.array.items[v->u.array.count++];
    return parse_value(p, item, depth + 1);
}

static int parse_array(parser *p, json_value *v, unsigned depth)
{
    v->type = JSON_ARRAY;
    v->u.array.items = NULL;
    v->u.array.count = 0;
    return parse_elements(p, v, depth, ']', "',' or ']'", parse_item);
}

static bool has_key(const json_value *object, const char *key)
{
    for (size_t i = 0; i < object->u.object.count; i++)
        if (strcmp(object->u.object.members[i].key, key) == 0)
            return true;
    return false;
}

/* One "key": value pair, appended to v's members (which owns it at once, so
 * an error anywhere frees everything through json_free). */
static int parse_member(parser *p, json_value *v, size_t *cap, unsigned depth)
{
    skip_space(p);
    if (p->at >= p->end || *p->at != '"')
        return fail_expected(p, "a string key");
    if (grow((void **)&v->u.object.members, v->u.object.count, cap, sizeof(json_member)) != 0)
        return fail(p, "out of memory");
    json_member *m = &v->u.object.members[v->u.object.count];
    const char *key_at = p->at;
    char *key;
    if (parse_string(p, &key) != 0)
        return -1;
    if (has_key(v, key)) {
        p->at = key_at;
        fail(p, "duplicate key \"%s\"", key);
        free(key);
        return -1;
    }
    m->key = key;
    m->value.type = JSON_NULL;
    v->u.object.count++;
    skip_space(p);
    if (!take(p, ':'))
        return fail_expected(p, "':'");
    return parse_value(p, &m->value, depth + 1);
}

static int parse_object(parser *p, json_value *v, unsigned depth)
{
    v->type = JSON_OBJECT;
    v->u.object.members = NULL;
    v->u.object.count = 0;
    return parse_elements(p, v, depth, '}', "',' or '}'", parse_member);
}

/* On failure *v still holds what was parsed, for the caller to free. */
static int parse_value(parser *p, json_value *v, unsigned depth)
{
    v->type = JSON_NULL;
    skip_space(p);
    if (p->at >= p->end)
        return fail_expected(p, "a value");
    char c = *p->at;
    if ((c == '[' || c == '{') && depth >= JSON_MAX_DEPTH)
        return fail(p, "nested deeper than %d levels", JSON_MAX_DEPTH);
    if (c == '[')
        return parse_array(p, v, depth);
    if (c == '{')
        return parse_object(p, v, depth);
    if (c == '"') {
        v->type = JSON_STRING;
        v->u.string = NULL;
        return parse_string(p, &v->u.string);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return parse_number(p, v);
    return parse_literal(p, v);
}

int muster_json_parse(const char *text, size_t length, json_value *out, char *err, size_t err_len)
{
    parser p = {.at = text, .end = text + length, .line_start = text, .line = 1, .err = err, .err_len = err_len};
    int rc = parse_value(&p, out, 0);
    if (rc == 0) {
        skip_space(&p);
        if (p.at < p.end)
            rc = fail(&p, "unexpected text after the JSON value");
    }
    if (rc != 0)
        muster_json_free(out);
    return rc;
}

void muster_json_free(json_value *v)
{
    if (v->type == JSON_STRING) {
        free(v->u.string);
    } else if (v->type == JSON_ARRAY) {
        for (size_t i = 0; i < v->u.array.count; i++)
            muster_json_free(&v->u.array.items[i]);
        free(v->u.array.items);
    } else if (v->type == JSON_OBJECT) {
        for (size_t i = 0; i < v->u.object.count; i++) {
            free(v->u.object.members[i].key);
            muster_json_free(&v->u.object.members[i].value);
        }
        free(v->u.object.members);
    }
    v->type = JSON_NULL;
}

const json_value *muster_json_get(const json_value *v, const char *key)
{
    if (v == NULL || v->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->u.object.count; i++)
        if (strcmp(v->u.object.members[i].key, key) == 0)
            return &v->u.object.members[i].value;
    return NULL;
}

const char *muster_json_type_name(json_type type)
{
    static const char *const names[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
    return (unsigned)type < sizeof names / sizeof names[0] ? names[type] : "an unknown type";
}
