/* record.h: a result line as words or as one JSON object. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "record.h"

#include <dlfcn.h>

#include "json_write.h"

record record_begin(FILE *out, bool json, const char *comment)
{
    if (json)
        fputc('{', out);
    else if (comment != NULL)
        fprintf(out, "%s ", comment);
    return (record){.out = out, .json = json, .first = true};
}

/* The separator and the key, either way. */
static void key(record *r, const char *name)
{
    if (r->json) {
        if (!r->first)
            fputc(',', r->out);
        muster_json_write_string(r->out, name);
        fputc(':', r->out);
    } else {
        fprintf(r->out, "%s%s=", r->first ? "" : " ", name);
    }
    r->first = false;
}

void record_string(record *r, const char *name, const char *value)
{
    key(r, name);
    if (r->json)
        muster_json_write_string(r->out, value);
    else
        fputs(value, r->out);
}

void record_uint(record *r, const char *name, unsigned long long value)
{
    key(r, name);
    fprintf(r->out, "%llu", value);
}

void record_number(record *r, const char *name, double value)
{
    key(r, name);
    if (r->json)
        muster_json_write_number(r->out, value);
    else
        fprintf(r->out, "%.6g", value);
}

void record_error(FILE *out, bool json, const char *kind, const char *name, unsigned threads, const char *why)
{
    record r = record_begin(out, json, NULL);
    record_string(&r, kind, name);
    record_uint(&r, "threads", threads);
    record_string(&r, "status", "error");
    record_string(&r, "message", why);
    record_end(&r);
}

void record_answering_runtime(record *r)
{
    Dl_info info;
#ifdef __clang__
    void *entry = dlsym(RTLD_DEFAULT, "__kmpc_fork_call");
#else
    void *entry = dlsym(RTLD_DEFAULT, "GOMP_parallel");
#endif
    bool known = entry != NULL && dladdr(entry, &info) && info.dli_fname != NULL;
    record_string(r, "runtime", known ? info.dli_fname : "unknown");
}

void record_end(record *r)
{
    fputs(r->json ? "}\n" : "\n", r->out);
    fflush(r->out);
}
