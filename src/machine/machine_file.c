/* Checking and reading machine files ("muster-machine/1", described in
 * machine.h; machine_save.c writes them).  Every complaint is one line,
 * "field: problem", with the field spelt as in the file (latency_ns[3][7],
 * layers[2].alpha); loading prefixes the path. */
#include "machine/machine.h"
#include "error.h"

#include "machine/json.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE_BYTES (1024u * 1024u * 1024u)

/* ---- validation --------------------------------------------------------- */

static int check_positive(const char *field, double x, char *err, size_t len)
{
    if (!isfinite(x))
        return muster_say(err, len, "%s: not a finite number (%g)", field, x);
    if (x < 0)
        return muster_say(err, len, "%s: negative (%g)", field, x);
    if (x == 0)
        return muster_say(err, len, "%s: zero (must be above 0)", field);
    return 0;
}

/* Off-diagonal entries of an n x n matrix: positive and finite. */
static int check_matrix(const char *name, const double *a, unsigned n, char *err, size_t len)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            double x = a[(size_t)i * n + j];
            if (i != j && !(isfinite(x) && x > 0)) {
                char field[96];
                snprintf(field, sizeof field, "%s[%u][%u]", name, i, j);
                return check_positive(field, x, err, len);
            }
        }
    return 0;
}

typedef struct id_entry {
    int id;
    unsigned index;
} id_entry;

static int compare_ids(const void *a, const void *b)
{
    const id_entry *x = a, *y = b;
    return x->id != y->id ? (x->id > y->id) - (x->id < y->id) : (x->index > y->index) - (x->index < y->index);
}

static int check_cpu_ids(const muster_machine *m, char *err, size_t len)
{
    for (unsigned i = 0; i < m->cpus; i++)
        if (m->cpu_ids[i] < 0)
            return muster_say(err, len, "cpus[%u]: negative (%d)", i, m->cpu_ids[i]);
    id_entry *sorted = malloc(m->cpus * sizeof *sorted);
    if (sorted == NULL)
        return muster_say(err, len, "cpus: out of memory");
    for (unsigned i = 0; i < m->cpus; i++)
        sorted[i] = (id_entry){m->cpu_ids[i], i};
    qsort(sorted, m->cpus, sizeof *sorted, compare_ids);
    int rc = 0;
    for (unsigned i = 1; i < m->cpus && rc == 0; i++)
        if (sorted[i].id == sorted[i - 1].id)
            rc = muster_say(err, len, "cpus: CPU %d appears twice (entries %u and %u)", sorted[i].id, sorted[i - 1].index,
                     sorted[i].index);
    free(sorted);
    return rc;
}

static bool terminated(const char *s, size_t size) { return memchr(s, '\0', size) != NULL; }

static int check_probe(const muster_machine *m, char *err, size_t len)
{
    const double *lo = m->round_trip_min_ns, *mid = m->round_trip_median_ns;
    if (lo != NULL && check_matrix("probe.round_trip_min_ns", lo, m->cpus, err, len) != 0)
        return -1;
    if (mid != NULL && check_matrix("probe.round_trip_median_ns", mid, m->cpus, err, len) != 0)
        return -1;
    for (size_t k = 0; lo != NULL && mid != NULL && k < (size_t)m->cpus * m->cpus; k++)
        if (lo[k] > mid[k])
            return muster_say(err, len, "probe.round_trip_min_ns[%zu][%zu]: %g is above the median (%g)", k / m->cpus,
                       k % m->cpus, lo[k], mid[k]);
    return 0;
}

/* Everything but the layers. */
static int validate_basics(const muster_machine *m, char *err, size_t len)
{
    if (m->cpus == 0)
        return muster_say(err, len, "cpus: empty (a machine has at least one CPU)");
    if (m->cpus > MUSTER_MACHINE_MAX_CPUS)
        return muster_say(err, len, "cpus: %u entries, at most %u", m->cpus, MUSTER_MACHINE_MAX_CPUS);
    if (m->cpu_ids == NULL || m->latency_ns == NULL || m->layer_of == NULL)
        return muster_say(err, len, "%s: missing", m->cpu_ids == NULL ? "cpus" : m->latency_ns == NULL ? "latency_ns" : "layer_of");
    if (!terminated(m->name, sizeof m->name) || !terminated(m->source, sizeof m->source))
        return muster_say(err, len, "%s: not a terminated string", terminated(m->name, sizeof m->name) ? "source" : "name");
    if (check_cpu_ids(m, err, len) != 0)
        return -1;
    if (m->cache_line_bytes == 0)
        return muster_say(err, len, "cache_line_bytes: zero (must be a positive whole number)");
    if (check_positive("epsilon_ns", m->epsilon_ns, err, len) != 0)
        return -1;
    if (!isfinite(m->contention_ns) || m->contention_ns < 0)
        return muster_say(err, len, "contention_ns: %g is not a finite number >= 0", m->contention_ns);
    if (check_matrix("latency_ns", m->latency_ns, m->cpus, err, len) != 0)
        return -1;
    for (unsigned i = 0; i < m->cpus; i++)
        if (muster_machine_latency(m, i, i) != m->epsilon_ns)
            return muster_say(err, len, "latency_ns[%u][%u]: the diagonal must equal epsilon_ns (%g), is %g", i, i,
                       m->epsilon_ns, muster_machine_latency(m, i, i));
    return check_probe(m, err, len);
}

/* The layer list itself: count, names, ascending latencies, alphas. */
static int validate_layer_list(const muster_machine *m, char *err, size_t len)
{
    if (m->layer_count > MUSTER_MACHINE_MAX_LAYERS)
        return muster_say(err, len, "layers: %u entries, at most %u", m->layer_count, MUSTER_MACHINE_MAX_LAYERS);
    if (m->cpus > 1 && m->layer_count == 0)
        return muster_say(err, len, "layers: none, but %u CPUs need at least one", m->cpus);
    for (unsigned k = 0; k < m->layer_count; k++) {
        const muster_layer *l = &m->layers[k];
        char field[64];
        if (!terminated(l->name, sizeof l->name) || l->name[0] == '\0')
            return muster_say(err, len, "layers[%u].name: empty", k);
        snprintf(field, sizeof field, "layers[%u].latency_ns", k);
        if (check_positive(field, l->latency_ns, err, len) != 0)
            return -1;
        if (k > 0 && !(l->latency_ns > m->layers[k - 1].latency_ns))
            return muster_say(err, len, "layers[%u].latency_ns: %g is not above layers[%u]'s %g (layers must ascend)", k,
                       l->latency_ns, k - 1, m->layers[k - 1].latency_ns);
        if (!(l->alpha >= 0 && l->alpha <= 1))
            return muster_say(err, len, "layers[%u].alpha: %g is outside [0, 1]", k, l->alpha);
    }
    return 0;
}

static int validate_cluster_size(unsigned cluster_size, unsigned cpus, char *err, size_t len)
{
    if (cluster_size == 0)
        return muster_say(err, len, "cluster_size: zero (must be at least 1)");
    if (cluster_size > cpus)
        return muster_say(err, len, "cluster_size: %u is larger than the machine (%u CPU%s)", cluster_size, cpus,
                   cpus == 1 ? "" : "s");
    return 0;
}

int muster_machine_validate(const muster_machine *m, char *err, size_t len)
{
    if (validate_basics(m, err, len) != 0 || validate_layer_list(m, err, len) != 0)
        return -1;
    size_t n = m->cpus;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            unsigned k = m->layer_of[i * n + j];
            if (i == j && k != MUSTER_MACHINE_NO_LAYER)
                return muster_say(err, len, "layer_of[%zu][%zu]: the diagonal belongs to no layer, is %u", i, j, k);
            if (i != j && k >= m->layer_count)
                return muster_say(err, len, "layer_of[%zu][%zu]: %u is not a layer (there are %u)", i, j, k, m->layer_count);
        }
    return validate_cluster_size(m->cluster_size, m->cpus, err, len);
}

/* ---- reading ------------------------------------------------------------ */

/* object[key] into *out (NULL when absent and optional); -1 with a message
 * when required and absent or of another type.  field names it in messages. */
static int get(const json_value *object, const char *field, const char *key, json_type type, bool required,
               const json_value **out, char *err, size_t len)
{
    *out = muster_json_get(object, key);
    if (*out == NULL)
        return required ? muster_say(err, len, "%s: missing", field) : 0;
    if ((*out)->type != type)
        return muster_say(err, len, "%s: expected %s, found %s", field, muster_json_type_name(type), muster_json_type_name((*out)->type));
    return 0;
}

static int whole_number(const char *field, const json_value *v, double min, double max, double *out, char *err,
                        size_t len)
{
    if (v->type != JSON_NUMBER)
        return muster_say(err, len, "%s: expected a whole number, found %s", field, muster_json_type_name(v->type));
    double x = v->u.number;
    if (x != floor(x))
        return muster_say(err, len, "%s: %g is not a whole number", field, x);
    if (x < 0 && min >= 0)
        return muster_say(err, len, "%s: negative (%g)", field, x);
    if (x < min || x > max)
        return muster_say(err, len, "%s: %.15g is outside [%.0f, %.0f]", field, x, min, max);
    *out = x;
    return 0;
}

/* An optional whole number in [min, max]; *out unchanged when absent. */
static int optional_whole(const json_value *object, const char *field, const char *key, double min, double max,
                          unsigned *out, char *err, size_t len)
{
    const json_value *v = muster_json_get(object, key);
    double x;
    if (v == NULL)
        return 0;
    if (whole_number(field, v, min, max, &x, err, len) != 0)
        return -1;
    *out = (unsigned)x;
    return 0;
}

static int optional_number(const json_value *object, const char *field, double *out, char *err, size_t len)
{
    const json_value *v;
    if (get(object, field, field, JSON_NUMBER, false, &v, err, len) != 0)
        return -1;
    if (v != NULL)
        *out = v->u.number;
    return 0;
}

static int optional_string(const json_value *object, const char *field, const char *key, char *dst, size_t size,
                           char *err, size_t len)
{
    const json_value *v;
    if (get(object, field, key, JSON_STRING, false, &v, err, len) != 0)
        return -1;
    if (v == NULL)
        return 0;
    if (strlen(v->u.string) >= size)
        return muster_say(err, len, "%s: longer than %zu bytes", field, size - 1);
    strcpy(dst, v->u.string);
    return 0;
}

static int read_format(const json_value *root, char *err, size_t len)
{
    const json_value *v;
    if (get(root, "format", "format", JSON_STRING, true, &v, err, len) != 0)
        return -1;
    if (strcmp(v->u.string, MUSTER_MACHINE_FORMAT) != 0)
        return muster_say(err, len, "format: expected \"%s\", found \"%.60s\"", MUSTER_MACHINE_FORMAT, v->u.string);
    return 0;
}

/* The cpus list decides N, so it allocates the machine. */
static int read_cpus(const json_value *root, muster_machine *m, char *err, size_t len)
{
    const json_value *v;
    if (get(root, "cpus", "cpus", JSON_ARRAY, true, &v, err, len) != 0)
        return -1;
    size_t n = v->u.array.count;
    if (n == 0)
        return muster_say(err, len, "cpus: empty (a machine has at least one CPU)");
    if (n > MUSTER_MACHINE_MAX_CPUS)
        return muster_say(err, len, "cpus: %zu entries, at most %u", n, MUSTER_MACHINE_MAX_CPUS);
    if (muster_machine_init(m, (unsigned)n) != 0)
        return muster_say(err, len, "cpus: out of memory for %zu CPUs", n);
    for (size_t i = 0; i < n; i++) {
        char field[32];
        double id;
        snprintf(field, sizeof field, "cpus[%zu]", i);
        if (whole_number(field, &v->u.array.items[i], 0, INT_MAX, &id, err, len) != 0)
            return -1;
        m->cpu_ids[i] = (int)id;
    }
    return 0;
}

/* An n x n matrix of numbers; the diagonal may also be null (it is ignored
 * or replaced), which reads as 0. */
static int read_matrix(const char *field, const json_value *v, unsigned n, double *out, char *err, size_t len)
{
    if (v->type != JSON_ARRAY)
        return muster_say(err, len, "%s: expected an array, found %s", field, muster_json_type_name(v->type));
    if (v->u.array.count != n)
        return muster_say(err, len, "%s: %zu rows, expected %u (one per cpus entry)", field, v->u.array.count, n);
    for (unsigned i = 0; i < n; i++) {
        const json_value *row = &v->u.array.items[i];
        if (row->type != JSON_ARRAY)
            return muster_say(err, len, "%s[%u]: expected an array, found %s", field, i, muster_json_type_name(row->type));
        if (row->u.array.count != n)
            return muster_say(err, len, "%s: row %u has %zu entries, expected %u (one per cpus entry)", field, i,
                       row->u.array.count, n);
        for (unsigned j = 0; j < n; j++) {
            const json_value *x = &row->u.array.items[j];
            if (x->type != JSON_NUMBER && !(i == j && x->type == JSON_NULL))
                return muster_say(err, len, "%s[%u][%u]: expected a number, found %s", field, i, j, muster_json_type_name(x->type));
            out[(size_t)i * n + j] = x->type == JSON_NUMBER ? x->u.number : 0.0;
        }
    }
    return 0;
}

static int read_layer(const json_value *v, unsigned k, muster_layer *layer, char *err, size_t len)
{
    char field[64];
    const json_value *x;
    if (v->type != JSON_OBJECT)
        return muster_say(err, len, "layers[%u]: expected an object, found %s", k, muster_json_type_name(v->type));
    snprintf(layer->name, sizeof layer->name, "L%u", k);
    snprintf(field, sizeof field, "layers[%u].name", k);
    if (optional_string(v, field, "name", layer->name, sizeof layer->name, err, len) != 0)
        return -1;
    snprintf(field, sizeof field, "layers[%u].latency_ns", k);
    if (get(v, field, "latency_ns", JSON_NUMBER, true, &x, err, len) != 0)
        return -1;
    layer->latency_ns = x->u.number;
    layer->alpha = MUSTER_MACHINE_DEFAULT_ALPHA;
    snprintf(field, sizeof field, "layers[%u].alpha", k);
    if (get(v, field, "alpha", JSON_NUMBER, false, &x, err, len) != 0)
        return -1;
    if (x != NULL)
        layer->alpha = x->u.number;
    return 0;
}

/* 1 when the file lists layers, 0 when it leaves them to be derived. */
static int read_layers(const json_value *root, muster_machine *m, char *err, size_t len)
{
    const json_value *v;
    if (get(root, "layers", "layers", JSON_ARRAY, false, &v, err, len) != 0)
        return -1;
    if (v == NULL)
        return 0;
    if (v->u.array.count > MUSTER_MACHINE_MAX_LAYERS)
        return muster_say(err, len, "layers: %zu entries, at most %u", v->u.array.count, MUSTER_MACHINE_MAX_LAYERS);
    m->layer_count = (unsigned)v->u.array.count;
    for (unsigned k = 0; k < m->layer_count; k++)
        if (read_layer(&v->u.array.items[k], k, &m->layers[k], err, len) != 0)
            return -1;
    return 1;
}

static int read_probe_matrix(const json_value *probe, const char *key, unsigned n, double **out, char *err,
                             size_t len)
{
    char field[64];
    const json_value *v = muster_json_get(probe, key);
    if (v == NULL)
        return 0;
    snprintf(field, sizeof field, "probe.%s", key);
    *out = malloc((size_t)n * n * sizeof **out);
    if (*out == NULL)
        return muster_say(err, len, "%s: out of memory", field);
    return read_matrix(field, v, n, *out, err, len);
}

static int read_probe(const json_value *root, muster_machine *m, char *err, size_t len)
{
    const json_value *probe;
    if (get(root, "probe", "probe", JSON_OBJECT, false, &probe, err, len) != 0)
        return -1;
    if (probe == NULL)
        return 0;
    if (optional_whole(probe, "probe.repetitions", "repetitions", 0, UINT_MAX, &m->probe_repetitions, err, len) != 0 ||
        optional_whole(probe, "probe.round_trips", "round_trips", 0, UINT_MAX, &m->probe_round_trips, err, len) != 0)
        return -1;
    if (read_probe_matrix(probe, "round_trip_min_ns", m->cpus, &m->round_trip_min_ns, err, len) != 0)
        return -1;
    return read_probe_matrix(probe, "round_trip_median_ns", m->cpus, &m->round_trip_median_ns, err, len);
}

static int read_scalars(const json_value *root, muster_machine *m, char *err, size_t len)
{
    const json_value *eps;
    if (optional_string(root, "name", "name", m->name, sizeof m->name, err, len) != 0 ||
        optional_string(root, "source", "source", m->source, sizeof m->source, err, len) != 0 ||
        optional_whole(root, "cache_line_bytes", "cache_line_bytes", 1, 1u << 20, &m->cache_line_bytes, err, len) != 0 ||
        get(root, "epsilon_ns", "epsilon_ns", JSON_NUMBER, true, &eps, err, len) != 0 ||
        optional_number(root, "contention_ns", &m->contention_ns, err, len) != 0)
        return -1;
    m->epsilon_ns = eps->u.number;
    return 0;
}

/* Layers given: checked, then each pair goes to the nearest.  Not given:
 * derived.  A cluster_size in the file wins over the derived one. */
static int settle_layers(const json_value *root, muster_machine *m, bool listed, char *err, size_t len)
{
    unsigned cluster_size = 0;
    if (optional_whole(root, "cluster_size", "cluster_size", 0, UINT_MAX, &cluster_size, err, len) != 0)
        return -1;
    if (muster_json_get(root, "cluster_size") != NULL && validate_cluster_size(cluster_size, m->cpus, err, len) != 0)
        return -1;
    if (listed) {
        if (validate_layer_list(m, err, len) != 0)
            return -1;
        m->cluster_size = cluster_size;
        if (muster_machine_assign_layers(m) != 0)
            return muster_say(err, len, "layers: cannot assign CPU pairs (out of memory)");
    } else {
        if (muster_machine_derive_layers(m) != 0)
            return muster_say(err, len, "layers: cannot derive them from latency_ns (out of memory)");
        if (cluster_size != 0)
            m->cluster_size = cluster_size;
    }
    return 0;
}

static int machine_from_json(const json_value *root, muster_machine *m, char *err, size_t len)
{
    const json_value *latency;
    if (root->type != JSON_OBJECT)
        return muster_say(err, len, "expected a JSON object (a %s file), found %s", MUSTER_MACHINE_FORMAT,
                   muster_json_type_name(root->type));
    if (read_format(root, err, len) != 0 || read_cpus(root, m, err, len) != 0 ||
        read_scalars(root, m, err, len) != 0 ||
        get(root, "latency_ns", "latency_ns", JSON_ARRAY, true, &latency, err, len) != 0 ||
        read_matrix("latency_ns", latency, m->cpus, m->latency_ns, err, len) != 0)
        return -1;
    for (unsigned i = 0; i < m->cpus; i++)
        m->latency_ns[(size_t)i * m->cpus + i] = m->epsilon_ns;
    int listed = read_layers(root, m, err, len);
    if (listed < 0 || read_probe(root, m, err, len) != 0 || validate_basics(m, err, len) != 0 ||
        settle_layers(root, m, listed, err, len) != 0)
        return -1;
    return muster_machine_validate(m, err, len); /* a last guard: nothing unchecked gets out */
}

static int read_whole_file(const char *path, char **text, size_t *size, char *err, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return muster_say(err, len, "cannot open: %s", strerror(errno));
    size_t cap = 0, used = 0;
    char *buf = NULL;
    int rc = 0;
    for (;;) {
        if (used == cap) {
            size_t bigger = cap ? cap * 2 : 65536;
            char *grown = cap >= MAX_FILE_BYTES ? NULL : realloc(buf, bigger);
            if (grown == NULL) {
                rc = muster_say(err, len, cap >= MAX_FILE_BYTES ? "larger than 1 GiB" : "out of memory");
                break;
            }
            buf = grown;
            cap = bigger;
        }
        size_t got = fread(buf + used, 1, cap - used, f);
        used += got;
        if (got == 0) {
            if (ferror(f))
                rc = muster_say(err, len, "cannot read: %s", strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc != 0) {
        free(buf);
        return -1;
    }
    *text = buf;
    *size = used;
    return 0;
}

int muster_machine_parse(const char *text, size_t size, muster_machine *m, char *err, size_t err_len)
{
    json_value root = {.type = JSON_NULL};
    memset(m, 0, sizeof *m);
    int rc = muster_json_parse(text, size, &root, err, err_len);
    if (rc == 0)
        rc = machine_from_json(&root, m, err, err_len);
    muster_json_free(&root);
    if (rc != 0)
        muster_machine_free(m);
    return rc;
}

int muster_machine_load(const char *path, muster_machine *m, char *err, size_t err_len)
{
    char msg[512] = "";
    char *text = NULL;
    size_t size = 0;
    memset(m, 0, sizeof *m);
    int rc = read_whole_file(path, &text, &size, msg, sizeof msg);
    if (rc == 0) {
        rc = muster_machine_parse(text, size, m, msg, sizeof msg);
        free(text);
    }
    if (rc != 0)
        muster_say(err, err_len, "%s: %s", path, msg);
    return rc;
}
