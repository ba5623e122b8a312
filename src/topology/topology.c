/* Topology discovery: the public API of muster/topology.h.  The sources
 * (topology_hwloc.c, topology_flat.c) only report raw CPU sets; this file
 * restricts them to the affinity mask, stores them, and answers queries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "json_write.h"
#include "internal.h"
#include "muster/barrier.h"
#include "platform/cpus.h"

/* One level: group g holds cpus[start[g]] .. cpus[start[g + 1] - 1]. */
typedef struct topo_level {
    bool known;
    unsigned count;
    unsigned *start; /* count + 1 entries */
    int *cpus;
} topo_level;

struct muster_topology {
    char source[48];
    topo_level levels[MUSTER_TOPO_LEVEL_COUNT];
    int *affinity;
    unsigned affinity_count;
    double cpu_quota;
    unsigned cluster_size;
    muster_topology_level cluster_level;
};

/* ---- raw sets, as the sources report them ---- */

void muster_topo_raw_free(muster_topo_raw *raw)
{
    for (int level = 0; level < MUSTER_TOPO_LEVEL_COUNT; level++)
        free(raw->levels[level].sets);
    memset(raw, 0, sizeof *raw);
}

unsigned muster_topo_affinity(cpu_set_t *mask)
{
    int cpus[CPU_SETSIZE];
    unsigned count = muster_affinity_cpus(cpus, CPU_SETSIZE);
    CPU_ZERO(mask);
    for (unsigned i = 0; i < count && i < CPU_SETSIZE; i++)
        CPU_SET(cpus[i], mask);
    return count;
}

/* ---- assembly ---- */

static void level_free(topo_level *level)
{
    free(level->start);
    free(level->cpus);
    memset(level, 0, sizeof *level);
}

/* Candidates for one level: the raw sets cut to the mask, empty ones gone. */
typedef struct candidate {
    cpu_set_t set;
    int weight, first;
} candidate;

static int first_cpu(const cpu_set_t *set)
{
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, set))
            return cpu;
    return -1;
}

static int by_weight(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int by_first(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Keeps, smallest first, each candidate that overlaps none kept before; then
 * orders the kept ones by first CPU.  Returns how many are kept (at the
 * front of c). */
static unsigned keep_disjoint(candidate *c, unsigned n)
{
    cpu_set_t taken;
    CPU_ZERO(&taken);
    unsigned kept = 0;
    qsort(c, n, sizeof *c, by_weight);
    for (unsigned i = 0; i < n; i++) {
        cpu_set_t overlap;
        CPU_AND(&overlap, &c[i].set, &taken);
        if (CPU_COUNT(&overlap) > 0)
            continue;
        CPU_OR(&taken, &taken, &c[i].set);
        c[kept++] = c[i];
    }
    qsort(c, kept, sizeof *c, by_first);
    return kept;
}

static int level_store(topo_level *level, const candidate *c, unsigned n)
{
    unsigned total = 0;
    for (unsigned g = 0; g < n; g++)
        total += (unsigned)c[g].weight;
    level->start = malloc((n + 1) * sizeof *level->start);
    level->cpus = malloc((total ? total : 1) * sizeof *level->cpus);
    if (level->start == NULL || level->cpus == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for %u CPU groups", n);
    unsigned at = 0;
    for (unsigned g = 0; g < n; g++) {
        level->start[g] = at;
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, &c[g].set))
                level->cpus[at++] = cpu;
    }
    level->start[n] = at;
    level->count = n;
    return 0;
}

static int level_build(topo_level *level, const muster_topo_sets *raw, const cpu_set_t *affinity)
{
    level->known = raw->known;
    candidate *c = malloc((raw->count ? raw->count : 1) * sizeof *c);
    if (c == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for %u CPU sets", raw->count);
    unsigned n = 0;
    for (unsigned i = 0; i < raw->count; i++) {
        CPU_AND(&c[n].set, &raw->sets[i], affinity);
        c[n].weight = CPU_COUNT(&c[n].set);
        c[n].first = first_cpu(&c[n].set);
        if (c[n].weight > 0)
            n++;
    }
    int rc = level_store(level, c, keep_disjoint(c, n));
    free(c);
    return rc;
}

/* The core group holding cpu, or NULL when no core holds it. */
static const int *core_holding(const topo_level *cores, int cpu, const int **end)
{
    for (unsigned c = 0; c < cores->count; c++)
        for (unsigned i = cores->start[c]; i < cores->start[c + 1]; i++)
            if (cores->cpus[i] == cpu) {
                *end = cores->cpus + cores->start[c + 1];
                return cores->cpus + cores->start[c];
            }
    return NULL;
}

/* Whether group g of a level holds CPUs of more than one core: hardware
 * threads of one core share its caches, but they are not a cluster of cores
 * in the sense of Gao et al. (cores that talk through a shared cache). */
static bool spans_cores(const topo_level *level, unsigned g, const topo_level *cores)
{
    unsigned first = level->start[g], end = level->start[g + 1];
    if (end - first < 2)
        return false;
    const int *core_end, *core = core_holding(cores, level->cpus[first], &core_end);
    if (core == NULL)
        return true;
    for (unsigned i = first + 1; i < end; i++) {
        const int *p = core;
        while (p < core_end && *p != level->cpus[i])
            p++;
        if (p == core_end)
            return true;
    }
    return false;
}

/* See muster_topology_cluster_size() in the header for the rule. */
static void find_cluster(muster_topology *t)
{
    static const muster_topology_level caches[] = {MUSTER_TOPO_L2, MUSTER_TOPO_L3};
    for (size_t k = 0; k < sizeof caches / sizeof caches[0]; k++) {
        const topo_level *level = &t->levels[caches[k]];
        unsigned largest = 0;
        bool shared = false;
        for (unsigned g = 0; g < level->count; g++) {
            unsigned size = level->start[g + 1] - level->start[g];
            if (size > largest)
                largest = size;
            shared = shared || spans_cores(level, g, &t->levels[MUSTER_TOPO_CORE]);
        }
        if (shared) {
            t->cluster_size = largest;
            t->cluster_level = caches[k];
            return;
        }
    }
    unsigned pus = t->levels[MUSTER_TOPO_PU].count;
    t->cluster_size = pus ? pus : 1;
    t->cluster_level = MUSTER_TOPO_PU;
}

static int copy_affinity(muster_topology *t, const cpu_set_t *affinity)
{
    t->affinity = malloc((size_t)(CPU_COUNT(affinity) ? CPU_COUNT(affinity) : 1) * sizeof *t->affinity);
    if (t->affinity == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the affinity mask");
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, affinity))
            t->affinity[t->affinity_count++] = cpu;
    return 0;
}

int muster_topology_assemble(const muster_topo_raw *raw, const cpu_set_t *affinity, muster_topology **out)
{
    muster_topology *t = calloc(1, sizeof *t);
    if (t == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the topology");
    snprintf(t->source, sizeof t->source, "%s", raw->source);
    int rc = copy_affinity(t, affinity);
    for (int level = 0; rc == 0 && level < MUSTER_TOPO_LEVEL_COUNT; level++)
        rc = level_build(&t->levels[level], &raw->levels[level], affinity);
    if (rc != 0) {
        muster_topology_free(t);
        return rc;
    }
    t->cpu_quota = muster_process_cpu_quota();
    find_cluster(t);
    *out = t;
    return 0;
}

/* ---- discovery ---- */

static int read_affinity(cpu_set_t *affinity)
{
    if (muster_topo_affinity(affinity) == 0)
        return muster_fail(MUSTER_E_SYSTEM, "the process's CPU affinity mask could not be read");
    return 0;
}

int muster_topology_discover_flat(muster_topology **out)
{
    if (out == NULL)
        return muster_fail(MUSTER_E_INVAL, "muster_topology_discover: out is NULL");
    cpu_set_t affinity;
    muster_topo_raw raw = {0};
    int rc = read_affinity(&affinity);
    if (rc == 0)
        rc = muster_topo_flat(&affinity, "flat (no hwloc)", &raw);
    if (rc == 0)
        rc = muster_topology_assemble(&raw, &affinity, out);
    muster_topo_raw_free(&raw);
    return rc;
}

#ifdef MUSTER_HAVE_HWLOC
/* hwloc's PUs within the mask: none means hwloc saw a different machine
 * (or none at all), and the flat topology is the honest answer. */
static bool sees_allowed_pus(const muster_topo_raw *raw, const cpu_set_t *affinity)
{
    const muster_topo_sets *pus = &raw->levels[MUSTER_TOPO_PU];
    for (unsigned i = 0; i < pus->count; i++) {
        cpu_set_t both;
        CPU_AND(&both, &pus->sets[i], affinity);
        if (CPU_COUNT(&both) > 0)
            return true;
    }
    return false;
}

int muster_topology_discover(muster_topology **out)
{
    if (out == NULL)
        return muster_fail(MUSTER_E_INVAL, "muster_topology_discover: out is NULL");
    cpu_set_t affinity;
    int rc = read_affinity(&affinity);
    if (rc != 0)
        return rc;
    muster_topo_raw raw = {0};
    rc = muster_topo_hwloc(&raw);
    if (rc == -1 || (rc == 0 && !sees_allowed_pus(&raw, &affinity))) {
        muster_topo_raw_free(&raw);
        rc = muster_topo_flat(&affinity, "flat (hwloc failed)", &raw);
    }
    if (rc == 0)
        rc = muster_topology_assemble(&raw, &affinity, out);
    muster_topo_raw_free(&raw);
    return rc;
}
#else
int muster_topology_discover(muster_topology **out)
{
    return muster_topology_discover_flat(out);
}
#endif

void muster_topology_free(muster_topology *t)
{
    if (t == NULL)
        return;
    for (int level = 0; level < MUSTER_TOPO_LEVEL_COUNT; level++)
        level_free(&t->levels[level]);
    free(t->affinity);
    free(t);
}

/* ---- queries ---- */

static bool level_valid(muster_topology_level level)
{
    return (unsigned)level < MUSTER_TOPO_LEVEL_COUNT;
}

const char *muster_topology_source(const muster_topology *t) { return t->source; }

bool muster_topology_level_known(const muster_topology *t, muster_topology_level level)
{
    return level_valid(level) && t->levels[level].known;
}

unsigned muster_topology_count(const muster_topology *t, muster_topology_level level)
{
    return level_valid(level) ? t->levels[level].count : 0;
}

muster_cpu_group muster_topology_group(const muster_topology *t, muster_topology_level level, unsigned i)
{
    muster_cpu_group group = {0, NULL};
    if (!level_valid(level) || i >= t->levels[level].count)
        return group;
    const topo_level *l = &t->levels[level];
    group.count = l->start[i + 1] - l->start[i];
    group.cpus = l->cpus + l->start[i];
    return group;
}

muster_cpu_group muster_topology_pus(const muster_topology *t)
{
    const topo_level *pus = &t->levels[MUSTER_TOPO_PU];
    muster_cpu_group group = {pus->count, pus->cpus};
    return group;
}

muster_cpu_group muster_topology_affinity(const muster_topology *t)
{
    muster_cpu_group group = {t->affinity_count, t->affinity};
    return group;
}

double muster_topology_cpu_quota(const muster_topology *t) { return t->cpu_quota; }

unsigned muster_topology_cluster_size(const muster_topology *t, muster_topology_level *level)
{
    if (level != NULL)
        *level = t->cluster_level;
    return t->cluster_size;
}

/* ---- JSON ---- */

static void write_cpu_list(const int *cpus, unsigned count, FILE *out)
{
    fputc('[', out);
    for (unsigned i = 0; i < count; i++)
        fprintf(out, "%s%d", i ? "," : "", cpus[i]);
    fputc(']', out);
}

static void write_level(const muster_topology *t, muster_topology_level level, const char *key, FILE *out)
{
    fprintf(out, ",\"%s\":", key);
    if (!t->levels[level].known) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (unsigned g = 0; g < t->levels[level].count; g++) {
        muster_cpu_group group = muster_topology_group(t, level, g);
        if (g)
            fputc(',', out);
        write_cpu_list(group.cpus, group.count, out);
    }
    fputc(']', out);
}

int muster_topology_write_json(const muster_topology *t, FILE *out)
{
    fputs("{\"source\":", out);
    muster_json_write_string(out, t->source); /* a library's name and version, still text to escape */
    write_level(t, MUSTER_TOPO_PACKAGE, "packages", out);
    write_level(t, MUSTER_TOPO_NUMA, "numa_nodes", out);
    write_level(t, MUSTER_TOPO_L3, "l3", out);
    write_level(t, MUSTER_TOPO_L2, "l2", out);
    write_level(t, MUSTER_TOPO_CORE, "cores", out);
    fputs(",\"pus\":", out);
    write_cpu_list(t->levels[MUSTER_TOPO_PU].cpus, t->levels[MUSTER_TOPO_PU].count, out);
    fputs(",\"affinity\":", out);
    write_cpu_list(t->affinity, t->affinity_count, out);
    if (t->cpu_quota > 0.0)
        fprintf(out, ",\"cgroup_cpu_quota\":%.6g", t->cpu_quota);
    else
        fputs(",\"cgroup_cpu_quota\":null", out);
    fprintf(out, ",\"cluster_size\":%u}", t->cluster_size);
    if (ferror(out))
        return muster_fail(MUSTER_E_SYSTEM, "writing the topology as JSON failed: %s", strerror(errno));
    return 0;
}
