/* Machine files and layers (src/model/):
 *  - the JSON reader: values, escapes, surrogate pairs, line:column errors,
 *    the depth limit, duplicate keys; the writer's shortest round-trip
 *    numbers;
 *  - derive_layers on the three machines of Gao et al. 2021 (Tables I-III,
 *    rebuilt here from their topologies): L0 and N_c as the paper gives
 *    them, Phytium's panel layers as our tolerance rule groups them; the
 *    nearest-layer assignment; merging beyond MAX_LAYERS; N_c on an
 *    asymmetric matrix where CPU 0's own cluster is the odd one out;
 *  - load(save(m)) == m, field by field and bit for bit;
 *  - every kind of bad file is refused with "PATH: field: problem" and
 *    leaves the machine empty; validate() catches NaN and infinity, which a
 *    file cannot hold; save() writes nothing for an invalid machine. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/json.h"
#include "machine/machine.h"

#include "check.h"

static char dir[256];

static char *path_in_dir(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "%s: %s", path, strerror(errno));
    CHECK(fputs(text, f) >= 0);
    CHECK(fclose(f) == 0);
}

static bool is_empty(const muster_machine *m)
{
    return m->cpus == 0 && m->cpu_ids == NULL && m->latency_ns == NULL && m->layer_of == NULL &&
           m->round_trip_min_ns == NULL && m->round_trip_median_ns == NULL && m->layer_count == 0;
}

/* ---- JSON --------------------------------------------------------------- */

static void expect_json_error(const char *text, const char *mention)
{
    json_value v;
    char err[256] = "";
    int rc = muster_json_parse(text, strlen(text), &v, err, sizeof err);
    if (rc == 0 || strstr(err, mention) == NULL)
        fprintf(stderr, "muster_json_parse(%s) = %d, \"%s\"; expected an error mentioning \"%s\"\n", text, rc, err, mention);
    CHECK(rc == -1);
    CHECK(strstr(err, mention) != NULL);
    CHECK(v.type == JSON_NULL);
}

static char *number_text(double x)
{
    static char text[64];
    FILE *f = fmemopen(text, sizeof text, "w");
    CHECK(f != NULL);
    muster_json_write_number(f, x);
    fclose(f);
    return text;
}

static void check_json(void)
{
    const char *text = "{\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\\\"\"],\n \"b\": {}}";
    json_value v;
    char err[256];
    CHECK(muster_json_parse(text, strlen(text), &v, err, sizeof err) == 0, "%s", err);
    const json_value *a = muster_json_get(&v, "a");
    CHECK(a != NULL && a->type == JSON_ARRAY && a->u.array.count == 6);
    CHECK(a->u.array.items[0].u.number == 1 && a->u.array.items[1].u.number == -2500);
    CHECK(a->u.array.items[2].type == JSON_BOOL && a->u.array.items[2].u.boolean);
    CHECK(a->u.array.items[3].type == JSON_BOOL && !a->u.array.items[3].u.boolean);
    CHECK(a->u.array.items[4].type == JSON_NULL);
    CHECK(strcmp(a->u.array.items[5].u.string, "x\xc3\xa9\xf0\x9f\x98\x80\n\"") == 0);
    CHECK(muster_json_get(&v, "b")->type == JSON_OBJECT && muster_json_get(&v, "missing") == NULL);
    muster_json_free(&v);

    expect_json_error("", "line 1 column 1: unexpected end of input");
    expect_json_error("[1,]", "line 1 column 4: expected a value, found ']'");
    expect_json_error("{\n\"a\": 1,\n  \"b\": 2x}", "line 3 column 9: expected ',' or '}', found 'x'");
    expect_json_error("{\"a\": 1, \"a\": 2}", "line 1 column 10: duplicate key \"a\"");
    expect_json_error("[01]", "expected ',' or ']'");
    expect_json_error("[1.]", "invalid number");
    expect_json_error("[+1]", "expected a value");
    expect_json_error("[1e999]", "out of range");
    expect_json_error("[\"\\x\"]", "invalid escape");
    expect_json_error("[\"\\udc00\"]", "lone low surrogate");
    expect_json_error("[\"\\u0000\"]", "\\u0000 is not supported");
    expect_json_error("[\"a\tb\"]", "control character");
    expect_json_error("[\"abc", "unterminated string");
    expect_json_error("[tru]", "expected a value");
    expect_json_error("{} {}", "unexpected text after the JSON value");
    expect_json_error("{\"a\" 1}", "expected ':'");
    expect_json_error("{1: 2}", "expected a string key");
    char deep[2 * JSON_MAX_DEPTH + 8];
    memset(deep, '[', JSON_MAX_DEPTH + 1);
    memset(deep + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
    deep[2 * JSON_MAX_DEPTH + 2] = '\0';
    expect_json_error(deep, "nested deeper than 64 levels");
    deep[JSON_MAX_DEPTH] = ']'; /* exactly the limit: fine */
    deep[2 * JSON_MAX_DEPTH] = '\0';
    CHECK(muster_json_parse(deep + 1, strlen(deep + 1) - 1, &v, err, sizeof err) == 0, "%s", err);
    muster_json_free(&v);

    CHECK(strcmp(number_text(9.1), "9.1") == 0, "%s", number_text(9.1));
    CHECK(strcmp(number_text(0.1 + 0.2), "0.30000000000000004") == 0, "%s", number_text(0.1 + 0.2));
    CHECK(strcmp(number_text(64), "64") == 0);
    CHECK(strcmp(number_text(NAN), "null") == 0);
    CHECK(strtod(number_text(1.0 / 3), NULL) == 1.0 / 3);
}

/* ---- the paper's machines ------------------------------------------------ */

typedef double (*latency_fn)(unsigned i, unsigned j);

static void build(muster_machine *m, unsigned n, double eps, latency_fn f)
{
    CHECK(muster_machine_init(m, n) == 0);
    m->epsilon_ns = eps;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++)
            m->latency_ns[i * n + j] = i == j ? eps : f(i, j);
}

/* Phytium 2000+: 8 panels x 2 groups x 4 cores. */
static double phytium(unsigned i, unsigned j)
{
    static const double by_panel_distance[] = {54.1, 76.3, 65.6, 61.4, 72.7, 95.5, 84.5};
    unsigned pi = i / 8, pj = j / 8;
    if (pi != pj)
        return by_panel_distance[(pi > pj ? pi - pj : pj - pi) - 1];
    return i / 4 == j / 4 ? 9.1 : 42.3;
}

/* ThunderX2: 2 sockets x 32 cores. */
static double thunderx2(unsigned i, unsigned j) { return i / 32 == j / 32 ? 24 : 140.7; }

/* Kunpeng 920: 2 SCCLs x 8 CCLs x 4 cores. */
static double kunpeng920(unsigned i, unsigned j) { return i / 4 == j / 4 ? 14.2 : i / 32 == j / 32 ? 44.2 : 75; }

static void check_layers(const muster_machine *m, const double *expected, unsigned count, unsigned cluster_size)
{
    char err[256];
    CHECK(muster_machine_validate(m, err, sizeof err) == 0, "%s", err);
    CHECK(m->layer_count == count, "%u layers, expected %u", m->layer_count, count);
    for (unsigned k = 0; k < count; k++) {
        char name[8];
        snprintf(name, sizeof name, "L%u", k);
        CHECK(fabs(m->layers[k].latency_ns - expected[k]) < 1e-9, "L%u = %g, expected %g", k, m->layers[k].latency_ns,
              expected[k]);
        CHECK(strcmp(m->layers[k].name, name) == 0 && m->layers[k].alpha == MUSTER_MACHINE_DEFAULT_ALPHA);
    }
    CHECK(m->cluster_size == cluster_size, "N_c %u, expected %u", m->cluster_size, cluster_size);
}

static void check_paper_machines(void)
{
    muster_machine m;
    build(&m, 64, 1.8, phytium);
    CHECK(muster_machine_derive_layers(&m) == 0);
    /* The 15% rule groups {54.1, 61.4}, {65.6, 72.7}, {76.3, 84.5}: six
     * layers, not the paper's nine; each layer's latency is its median
     * member (the commoner, nearer panels). */
    check_layers(&m, (const double[]){9.1, 42.3, 54.1, 65.6, 76.3, 95.5}, 6, 4);
    /* Pairs go to the nearest layer, which moves a group's upper member up. */
    CHECK(muster_machine_layer(&m, 0, 1)->latency_ns == 9.1);
    CHECK(muster_machine_layer(&m, 0, 4)->latency_ns == 42.3);
    CHECK(muster_machine_layer(&m, 0, 8)->latency_ns == 54.1);      /* 54.1 */
    CHECK(muster_machine_layer(&m, 0, 4 * 8)->latency_ns == 65.6);  /* 61.4 */
    CHECK(muster_machine_layer(&m, 0, 5 * 8)->latency_ns == 76.3);  /* 72.7 */
    CHECK(muster_machine_layer(&m, 0, 7 * 8)->latency_ns == 76.3);  /* 84.5 */
    CHECK(muster_machine_layer(&m, 0, 6 * 8)->latency_ns == 95.5);  /* 95.5 */
    CHECK(muster_machine_layer(&m, 3, 3) == NULL);
    muster_machine_free(&m);

    build(&m, 64, 1.2, thunderx2);
    CHECK(muster_machine_derive_layers(&m) == 0);
    check_layers(&m, (const double[]){24, 140.7}, 2, 32);
    muster_machine_free(&m);

    build(&m, 64, 1.15, kunpeng920);
    CHECK(muster_machine_derive_layers(&m) == 0);
    check_layers(&m, (const double[]){14.2, 44.2, 75}, 3, 4);
    CHECK(muster_machine_layer(&m, 5, 40)->latency_ns == 75 && muster_machine_layer(&m, 5, 9)->latency_ns == 44.2);
    muster_machine_free(&m);
}

/* Two clusters of four (10 ns inside, 50 across), but CPU 0 -> CPU 1
 * measured 50: CPU 0's and CPU 1's clusters are {0,2,3} and {1,2,3}, everyone
 * else's has four members.  Taking CPU 0's cluster would say 3. */
static double noisy_cpu0(unsigned i, unsigned j) { return (i == 0 && j == 1) || i / 4 != j / 4 ? 50 : 10; }

/* 56 ordered pairs over 20 latency levels 30% apart: 20 tolerance groups. */
static double many_levels(unsigned i, unsigned j) { return 10 * pow(1.3, (double)((i * 8 + j) % 20)); }

static double tolerance_probe_value;
static double two_values(unsigned i, unsigned j) { return i == 0 && j == 1 ? tolerance_probe_value : 10; }

static void check_layer_rules(void)
{
    muster_machine m;
    char err[256];
    build(&m, 8, 1, noisy_cpu0);
    CHECK(muster_machine_derive_layers(&m) == 0);
    CHECK(m.layer_count == 2 && m.cluster_size == 4, "%u layers, N_c %u", m.layer_count, m.cluster_size);
    muster_machine_free(&m);

    build(&m, 8, 1, many_levels);
    CHECK(muster_machine_derive_layers(&m) == 0);
    CHECK(m.layer_count == MUSTER_MACHINE_MAX_LAYERS, "%u layers", m.layer_count);
    CHECK(muster_machine_validate(&m, err, sizeof err) == 0, "%s", err);
    /* Merging joins neighbours only, so no pair is charged more than one
     * level (x1.3) away from its own latency, and the extremes survive. */
    for (unsigned i = 0; i < 8; i++)
        for (unsigned j = 0; j < 8; j++) {
            if (i == j)
                continue;
            double own = muster_machine_latency(&m, i, j), charged = muster_machine_layer(&m, i, j)->latency_ns;
            CHECK(charged <= own * 1.3 * (1 + 1e-12) && own <= charged * 1.3 * (1 + 1e-12), "%g charged %g", own, charged);
        }
    CHECK(m.layers[0].latency_ns == 10);
    muster_machine_free(&m);

    tolerance_probe_value = 11.4; /* within 15% of 10: one layer */
    build(&m, 3, 1, two_values);
    CHECK(muster_machine_derive_layers(&m) == 0 && m.layer_count == 1 && m.cluster_size == 3);
    muster_machine_free(&m);
    tolerance_probe_value = 11.6; /* beyond: its own layer */
    build(&m, 3, 1, two_values);
    CHECK(muster_machine_derive_layers(&m) == 0 && m.layer_count == 2 && m.layers[1].latency_ns == 11.6);
    /* 0->1 is L1, so 0 and 1 are not one cluster; 2 is with both. */
    CHECK(m.cluster_size == 2, "N_c %u", m.cluster_size);
    muster_machine_free(&m);

    CHECK(muster_machine_init(&m, 1) == 0);
    m.epsilon_ns = 1;
    m.latency_ns[0] = 1;
    CHECK(muster_machine_derive_layers(&m) == 0 && m.layer_count == 0 && m.cluster_size == 1);
    CHECK(muster_machine_validate(&m, err, sizeof err) == 0, "%s", err);
    muster_machine_free(&m);
}

/* ---- round trip ------------------------------------------------------------ */

static void check_same(const muster_machine *a, const muster_machine *b)
{
    size_t pairs = (size_t)a->cpus * a->cpus;
    CHECK(strcmp(a->name, b->name) == 0 && strcmp(a->source, b->source) == 0);
    CHECK(a->cpus == b->cpus && memcmp(a->cpu_ids, b->cpu_ids, a->cpus * sizeof(int)) == 0);
    CHECK(a->cache_line_bytes == b->cache_line_bytes);
    CHECK(a->epsilon_ns == b->epsilon_ns && a->contention_ns == b->contention_ns);
    CHECK(memcmp(a->latency_ns, b->latency_ns, pairs * sizeof(double)) == 0);
    CHECK(memcmp(a->layer_of, b->layer_of, pairs) == 0);
    CHECK(a->layer_count == b->layer_count && a->cluster_size == b->cluster_size);
    for (unsigned k = 0; k < a->layer_count; k++)
        CHECK(strcmp(a->layers[k].name, b->layers[k].name) == 0 && a->layers[k].latency_ns == b->layers[k].latency_ns &&
              a->layers[k].alpha == b->layers[k].alpha);
    CHECK((a->round_trip_min_ns == NULL) == (b->round_trip_min_ns == NULL));
    CHECK((a->round_trip_median_ns == NULL) == (b->round_trip_median_ns == NULL));
    if (a->round_trip_min_ns != NULL)
        CHECK(memcmp(a->round_trip_min_ns, b->round_trip_min_ns, pairs * sizeof(double)) == 0);
    if (a->round_trip_median_ns != NULL)
        CHECK(memcmp(a->round_trip_median_ns, b->round_trip_median_ns, pairs * sizeof(double)) == 0);
    CHECK(a->probe_repetitions == b->probe_repetitions && a->probe_round_trips == b->probe_round_trips);
}

/* An asymmetric, awkward-valued machine with probe data. */
static double awkward(unsigned i, unsigned j) { return (i / 4 == j / 4 ? 10 : 60) + 1.0 / (3 + i * 7 + j); }

static void save_load_compare(const muster_machine *m, const char *name, const char *topology)
{
    char err[512];
    const char *path = path_in_dir(name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    CHECK(muster_machine_save(m, f, topology) == 0, "%s", strerror(errno));
    CHECK(fclose(f) == 0);
    muster_machine back;
    CHECK(muster_machine_load(path, &back, err, sizeof err) == 0, "%s", err);
    check_same(m, &back);
    muster_machine_free(&back);
}

static void check_round_trip(void)
{
    muster_machine m;
    build(&m, 12, 0.7, awkward);
    for (unsigned i = 0; i < 12; i++)
        m.cpu_ids[i] = (int)(100 - 3 * i); /* ids need not be 0..N-1 nor ascending */
    CHECK(muster_machine_derive_layers(&m) == 0);
    m.layers[1].alpha = 0.375;
    snprintf(m.layers[0].name, sizeof m.layers[0].name, "in a \"cluster\"\\");
    snprintf(m.name, sizeof m.name, "a name with \"quotes\", a tab\t and é");
    snprintf(m.source, sizeof m.source, "test_machine_file");
    m.contention_ns = 2.5;
    m.cache_line_bytes = 128;
    m.round_trip_min_ns = calloc(144, sizeof(double));
    m.round_trip_median_ns = calloc(144, sizeof(double));
    CHECK(m.round_trip_min_ns && m.round_trip_median_ns);
    for (unsigned k = 0; k < 144; k++)
        if (k / 12 != k % 12) {
            m.round_trip_median_ns[k] = 2 * m.latency_ns[k];
            m.round_trip_min_ns[k] = 2 * m.latency_ns[k] * 0.9;
        }
    m.probe_repetitions = 15;
    m.probe_round_trips = 4321;
    save_load_compare(&m, "awkward.json", "{\"packages\": 1, \"note\": [\"verbatim\"]}");
    muster_machine_free(&m);

    build(&m, 64, 1.8, phytium);
    CHECK(muster_machine_derive_layers(&m) == 0);
    save_load_compare(&m, "phytium.json", NULL);
    muster_machine_free(&m);

    CHECK(muster_machine_init(&m, 1) == 0);
    m.epsilon_ns = m.latency_ns[0] = 1.25;
    CHECK(muster_machine_derive_layers(&m) == 0);
    save_load_compare(&m, "one.json", NULL);
    muster_machine_free(&m);
}

/* A file that gives layers and cluster_size: pairs go to the nearest layer,
 * and the given N_c wins over the derived one. */
static void check_given_layers(void)
{
    const char *path = path_in_dir("given.json");
    write_text(path, "{\"format\": \"muster-machine/1\", \"epsilon_ns\": 1, \"cpus\": [4, 5, 6],\n"
                     " \"latency_ns\": [[null, 10, 40], [12, 0, 33], [41, 29, 7]],\n"
                     " \"layers\": [{\"name\": \"near\", \"latency_ns\": 11, \"alpha\": 0.5}, {\"latency_ns\": 40}],\n"
                     " \"cluster_size\": 3, \"topology\": \"ignored\", \"unknown\": 1}");
    muster_machine m;
    char err[512];
    CHECK(muster_machine_load(path, &m, err, sizeof err) == 0, "%s", err);
    CHECK(m.cpus == 3 && m.cpu_ids[2] == 6 && m.epsilon_ns == 1 && muster_machine_latency(&m, 0, 0) == 1);
    CHECK(m.layer_count == 2 && strcmp(m.layers[0].name, "near") == 0 && strcmp(m.layers[1].name, "L1") == 0);
    CHECK(m.layers[0].alpha == 0.5 && m.layers[1].alpha == MUSTER_MACHINE_DEFAULT_ALPHA);
    CHECK(m.layer_of[0 * 3 + 1] == 0 && m.layer_of[1 * 3 + 2] == 1 && m.layer_of[2 * 3 + 1] == 1); /* 29 -> 40 */
    CHECK(m.cluster_size == 3 && m.cache_line_bytes == 64 && m.round_trip_min_ns == NULL);
    muster_machine_free(&m);
}

/* ---- bad input ----------------------------------------------------------- */

/* A machine file of n CPUs, every off-diagonal latency 10, then `extra`
 * (",\"key\": value..."); cell (bi, bj) is written as `cell`, and row
 * short_row (when < n) lacks its last entry. */
static char *file_text(unsigned n, const char *extra, unsigned bi, unsigned bj, const char *cell, unsigned short_row)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    CHECK(f != NULL);
    fprintf(f, "{\"format\": \"muster-machine/1\", \"epsilon_ns\": 1.5%s,\n \"cpus\": [", extra);
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "%s%u", i ? ", " : "", i);
    fputs("],\n \"latency_ns\": [", f);
    for (unsigned i = 0; i < n; i++) {
        fputs(i ? ",\n  [" : "\n  [", f);
        for (unsigned j = 0; j < n - (i == short_row); j++)
            fprintf(f, "%s%s", j ? ", " : "", i == bi && j == bj ? cell : i == j ? "0" : "10");
        fputc(']', f);
    }
    fputs("]}\n", f);
    CHECK(fclose(f) == 0);
    return text;
}

#define NONE 100000u

static void expect_load_fails(const char *name, const char *text, const char *mention)
{
    const char *path = path_in_dir(name);
    if (text != NULL)
        write_text(path, text);
    muster_machine m;
    memset(&m, 0x5a, sizeof m); /* garbage: load must clear it */
    char err[512] = "", prefix[600];
    int rc = muster_machine_load(path, &m, err, sizeof err);
    snprintf(prefix, sizeof prefix, "%s: ", path);
    if (rc == 0 || strstr(err, mention) == NULL)
        fprintf(stderr, "%s: load = %d, \"%s\"; expected a message mentioning \"%s\"\n", name, rc, err, mention);
    CHECK(rc == -1);
    CHECK(strncmp(err, prefix, strlen(prefix)) == 0, "%s", err);
    CHECK(strstr(err, mention) != NULL);
    CHECK(strchr(err, '\n') == NULL);
    CHECK(is_empty(&m), "%s left the machine half-made", name);
}

static void expect_bad_extra(const char *name, unsigned n, const char *extra, const char *mention)
{
    char *text = file_text(n, extra, NONE, NONE, "", NONE);
    expect_load_fails(name, text, mention);
    free(text);
}

static void check_bad_files(void)
{
    char *text = file_text(8, "", 3, 7, "-2.5", NONE);
    expect_load_fails("negative.json", text, "latency_ns[3][7]: negative (-2.5)");
    free(text);
    text = file_text(4, "", 0, 1, "0", NONE);
    expect_load_fails("zero.json", text, "latency_ns[0][1]: zero");
    free(text);
    text = file_text(4, "", 1, 2, "\"10\"", NONE);
    expect_load_fails("string_cell.json", text, "latency_ns[1][2]: expected a number, found a string");
    free(text);
    text = file_text(4, "", NONE, NONE, "", 2);
    expect_load_fails("short_row.json", text, "latency_ns: row 2 has 3 entries, expected 4 (one per cpus entry)");
    /* A truncated file: cut in the middle of the matrix. */
    strstr(text, "[10, 10")[4] = '\0';
    expect_load_fails("truncated.json", text, "unexpected end of input");
    free(text);

    expect_bad_extra("cluster_size.json", 64, ", \"cluster_size\": 70", "cluster_size: 70 is larger than the machine (64 CPUs)");
    expect_bad_extra("cluster_zero.json", 4, ", \"cluster_size\": 0", "cluster_size: zero");
    expect_bad_extra("cluster_half.json", 4, ", \"cluster_size\": 1.5", "cluster_size: 1.5 is not a whole number");
    expect_bad_extra("format.json", 2, ", \"format\": \"muster-machine/2\"", "duplicate key \"format\"");
    expect_load_fails("format2.json", "{\"format\": \"muster-machine/2\", \"epsilon_ns\": 1}",
                      "format: expected \"muster-machine/1\", found \"muster-machine/2\"");
    expect_load_fails("no_format.json", "{\"epsilon_ns\": 1}", "format: missing");
    expect_load_fails("no_epsilon.json",
                      "{\"format\": \"muster-machine/1\", \"cpus\": [0], \"latency_ns\": [[1]]}", "epsilon_ns: missing");
    expect_load_fails("eps_string.json",
                      "{\"format\": \"muster-machine/1\", \"epsilon_ns\": \"1\", \"cpus\": [0], \"latency_ns\": [[1]]}",
                      "epsilon_ns: expected a number, found a string");
    expect_load_fails("eps_negative.json",
                      "{\"format\": \"muster-machine/1\", \"epsilon_ns\": -1, \"cpus\": [0], \"latency_ns\": [[1]]}",
                      "epsilon_ns: negative (-1)");
    expect_load_fails("no_latency.json", "{\"format\": \"muster-machine/1\", \"epsilon_ns\": 1, \"cpus\": [0]}",
                      "latency_ns: missing");
    expect_load_fails("rows.json",
                      "{\"format\": \"muster-machine/1\", \"epsilon_ns\": 1, \"cpus\": [0, 1], \"latency_ns\": [[1, 2]]}",
                      "latency_ns: 1 rows, expected 2 (one per cpus entry)");
    expect_load_fails("syntax.json", "{\n  \"format\": \"muster-machine/1\",\n  \"a\": 1x\n}",
                      "line 3 column 9: expected ',' or '}'");
    expect_load_fails("empty.json", "", "line 1 column 1: unexpected end of input");
    expect_load_fails("array.json", "[1, 2, 3]", "expected a JSON object (a muster-machine/1 file), found an array");
    expect_load_fails("missing.json", NULL, "cannot open: No such file or directory");
    expect_load_fails("no_cpus.json", "{\"format\": \"muster-machine/1\", \"epsilon_ns\": 1, \"cpus\": []}",
                      "cpus: empty");
    expect_load_fails("dup_cpus.json",
                      "{\"format\": \"muster-machine/1\", \"epsilon_ns\": 1, \"cpus\": [0, 7, 7],"
                      " \"latency_ns\": [[0, 1, 1], [1, 0, 1], [1, 1, 0]]}",
                      "cpus: CPU 7 appears twice (entries 1 and 2)");
    expect_load_fails("neg_cpu.json", "{\"format\": \"muster-machine/1\", \"epsilon_ns\": 1, \"cpus\": [-1]}",
                      "cpus[0]: negative (-1)");
    expect_load_fails("frac_cpu.json", "{\"format\": \"muster-machine/1\", \"epsilon_ns\": 1, \"cpus\": [0, 1.5]}",
                      "cpus[1]: 1.5 is not a whole number");

    expect_bad_extra("descending.json", 2, ", \"layers\": [{\"latency_ns\": 10}, {\"latency_ns\": 5}]",
                     "layers[1].latency_ns: 5 is not above layers[0]'s 10 (layers must ascend)");
    expect_bad_extra("equal_layers.json", 2, ", \"layers\": [{\"latency_ns\": 10}, {\"latency_ns\": 10}]",
                     "layers[1].latency_ns: 10 is not above");
    expect_bad_extra("alpha.json", 2, ", \"layers\": [{\"latency_ns\": 10, \"alpha\": 1.5}]",
                     "layers[0].alpha: 1.5 is outside [0, 1]");
    expect_bad_extra("alpha_neg.json", 2, ", \"layers\": [{\"latency_ns\": 10, \"alpha\": -0.1}]",
                     "layers[0].alpha: -0.1 is outside [0, 1]");
    expect_bad_extra("no_layer_latency.json", 2, ", \"layers\": [{\"name\": \"L0\"}]", "layers[0].latency_ns: missing");
    expect_bad_extra("layer_not_object.json", 2, ", \"layers\": [10]", "layers[0]: expected an object, found a number");
    expect_bad_extra("no_layers.json", 2, ", \"layers\": []", "layers: none, but 2 CPUs need at least one");
    expect_bad_extra("layer_name.json", 2, ", \"layers\": [{\"name\": \"\", \"latency_ns\": 10}]", "layers[0].name: empty");
    {
        char extra[2048] = ", \"layers\": [";
        for (unsigned k = 0; k <= MUSTER_MACHINE_MAX_LAYERS; k++)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "%s{\"latency_ns\": %u}", k ? ", " : "", 10 + k);
        strcat(extra, "]");
        expect_bad_extra("many_layers.json", 2, extra, "layers: 17 entries, at most 16");
    }
    expect_bad_extra("probe_shape.json", 2, ", \"probe\": {\"round_trip_min_ns\": [[0, 1], [1]]}",
                     "probe.round_trip_min_ns: row 1 has 1 entries, expected 2");
    expect_bad_extra("probe_order.json", 2,
                     ", \"probe\": {\"round_trip_min_ns\": [[0, 30], [20, 0]], \"round_trip_median_ns\": [[0, 20], [20, 0]]}",
                     "probe.round_trip_min_ns[0][1]: 30 is above the median (20)");
    expect_bad_extra("probe_reps.json", 2, ", \"probe\": {\"repetitions\": -3}", "probe.repetitions: negative (-3)");
    expect_bad_extra("probe_type.json", 2, ", \"probe\": [1]", "probe: expected an object, found an array");
    expect_bad_extra("name_type.json", 2, ", \"name\": 5", "name: expected a string, found a number");
    expect_bad_extra("line_zero.json", 2, ", \"cache_line_bytes\": 0", "cache_line_bytes: 0 is outside [1, 1048576]");
    expect_bad_extra("contention.json", 2, ", \"contention_ns\": -1", "contention_ns: -1 is not a finite number >= 0");

    /* More CPUs than MUSTER_MACHINE_MAX_CPUS: refused before any matrix is read. */
    char *big = malloc(8 * (MUSTER_MACHINE_MAX_CPUS + 1) + 128);
    CHECK(big != NULL);
    strcpy(big, "{\"format\": \"muster-machine/1\", \"epsilon_ns\": 1, \"cpus\": [0");
    for (unsigned i = 1; i <= MUSTER_MACHINE_MAX_CPUS; i++)
        sprintf(big + strlen(big), ",%u", i);
    strcat(big, "]}");
    expect_load_fails("too_many.json", big, "cpus: 4097 entries, at most 4096");
    free(big);
}

/* What a file cannot hold, and what save() does with a bad machine. */
static void check_validate_and_save(void)
{
    muster_machine m;
    char err[256];
    build(&m, 4, 1, thunderx2);
    CHECK(muster_machine_derive_layers(&m) == 0);
    CHECK(muster_machine_validate(&m, err, sizeof err) == 0, "%s", err);
    m.latency_ns[1 * 4 + 3] = NAN;
    CHECK(muster_machine_validate(&m, err, sizeof err) == -1 && strstr(err, "latency_ns[1][3]: not a finite number (nan)"),
          "%s", err);
    m.latency_ns[1 * 4 + 3] = INFINITY;
    CHECK(muster_machine_validate(&m, err, sizeof err) == -1 && strstr(err, "latency_ns[1][3]: not a finite number (inf)"),
          "%s", err);

    /* Nothing written for an invalid machine or a topology that is not an object. */
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    CHECK(f != NULL);
    errno = 0;
    CHECK(muster_machine_save(&m, f, NULL) == -1 && errno == EINVAL);
    m.latency_ns[1 * 4 + 3] = 24;
    CHECK(muster_machine_save(&m, f, "[1, 2]") == -1 && errno == EINVAL);
    CHECK(muster_machine_save(&m, f, "{\"unterminated\": ") == -1 && errno == EINVAL);
    fflush(f);
    CHECK(size == 0, "save wrote %zu bytes for an invalid machine", size);

    m.latency_ns[2] = m.epsilon_ns + 1; /* [0][2] off-diagonal: fine */
    m.latency_ns[1 * 4 + 1] = 5;        /* the diagonal must be epsilon */
    CHECK(muster_machine_validate(&m, err, sizeof err) == -1 && strstr(err, "latency_ns[1][1]: the diagonal must equal"),
          "%s", err);
    m.latency_ns[1 * 4 + 1] = m.epsilon_ns;
    m.layer_of[2] = 7;
    CHECK(muster_machine_validate(&m, err, sizeof err) == -1 && strstr(err, "layer_of[0][2]: 7 is not a layer"), "%s", err);
    m.layer_of[2] = 0;
    m.cluster_size = 5;
    CHECK(muster_machine_validate(&m, err, sizeof err) == -1 &&
              strstr(err, "cluster_size: 5 is larger than the machine (4 CPUs)"),
          "%s", err);
    fclose(f);
    free(text);
    muster_machine_free(&m);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_machine_file.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));

    check_json();
    check_paper_machines();
    check_layer_rules();
    check_round_trip();
    check_given_layers();
    check_bad_files();
    check_validate_and_save();

    char command[300];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    CHECK(system(command) == 0);
    printf("test_machine_file: ok\n");
    return 0;
}
