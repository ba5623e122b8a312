/* Writing machine files (muster_machine_save, for `muster probe --output`).
 * Not in libmuster, which only reads them (MUSTER_MACHINE's N_c): built into
 * muster_model, for the command and the tests. */
#include "machine/machine.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "json_write.h"
#include "machine/json.h"

static void write_matrix(FILE *out, const char *indent, const double *a, unsigned n)
{
    fputs("[\n", out);
    for (unsigned i = 0; i < n; i++) {
        fprintf(out, "%s  [", indent);
        for (unsigned j = 0; j < n; j++) {
            if (j > 0)
                fputs(", ", out);
            muster_json_write_number(out, a[(size_t)i * n + j]);
        }
        fprintf(out, "]%s\n", i + 1 < n ? "," : "");
    }
    fprintf(out, "%s]", indent);
}

static void write_layers(FILE *out, const muster_machine *m)
{
    fputs("  \"layers\": [", out);
    for (unsigned k = 0; k < m->layer_count; k++) {
        fputs(k ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
        muster_json_write_string(out, m->layers[k].name);
        fputs(", \"latency_ns\": ", out);
        muster_json_write_number(out, m->layers[k].latency_ns);
        fputs(", \"alpha\": ", out);
        muster_json_write_number(out, m->layers[k].alpha);
        fputc('}', out);
    }
    fputs(m->layer_count ? "\n  ],\n" : "],\n", out);
}

static void write_probe(FILE *out, const muster_machine *m)
{
    fprintf(out, ",\n  \"probe\": {\n    \"repetitions\": %u,\n    \"round_trips\": %u", m->probe_repetitions,
            m->probe_round_trips);
    if (m->round_trip_min_ns != NULL) {
        fputs(",\n    \"round_trip_min_ns\": ", out);
        write_matrix(out, "    ", m->round_trip_min_ns, m->cpus);
    }
    if (m->round_trip_median_ns != NULL) {
        fputs(",\n    \"round_trip_median_ns\": ", out);
        write_matrix(out, "    ", m->round_trip_median_ns, m->cpus);
    }
    fputs("\n  }", out);
}

static bool is_json_object(const char *text)
{
    char err[128];
    json_value v;
    if (muster_json_parse(text, strlen(text), &v, err, sizeof err) != 0)
        return false;
    bool object = v.type == JSON_OBJECT;
    muster_json_free(&v);
    return object;
}

int muster_machine_save(const muster_machine *m, FILE *out, const char *topology_json)
{
    char err[256];
    /* Checked before the first byte, so a bad machine writes nothing. */
    if (muster_machine_validate(m, err, sizeof err) != 0 || (topology_json != NULL && !is_json_object(topology_json))) {
        errno = EINVAL;
        return -1;
    }
    fprintf(out, "{\n  \"format\": \"%s\",\n  \"name\": ", MUSTER_MACHINE_FORMAT);
    muster_json_write_string(out, m->name);
    fputs(",\n  \"source\": ", out);
    muster_json_write_string(out, m->source);
    fprintf(out, ",\n  \"cache_line_bytes\": %u,\n  \"epsilon_ns\": ", m->cache_line_bytes);
    muster_json_write_number(out, m->epsilon_ns);
    fputs(",\n  \"contention_ns\": ", out);
    muster_json_write_number(out, m->contention_ns);
    fprintf(out, ",\n  \"cluster_size\": %u,\n  \"cpus\": [", m->cluster_size);
    for (unsigned i = 0; i < m->cpus; i++)
        fprintf(out, "%s%d", i ? ", " : "", m->cpu_ids[i]);
    fputs("],\n", out);
    write_layers(out, m);
    fputs("  \"latency_ns\": ", out);
    write_matrix(out, "  ", m->latency_ns, m->cpus);
    if (m->round_trip_min_ns != NULL || m->round_trip_median_ns != NULL || m->probe_repetitions != 0)
        write_probe(out, m);
    if (topology_json != NULL)
        fprintf(out, ",\n  \"topology\": %s", topology_json);
    fputs("\n}\n", out);
    if (fflush(out) != 0 || ferror(out)) {
        if (errno == 0)
            errno = EIO;
        return -1;
    }
    return 0;
}
