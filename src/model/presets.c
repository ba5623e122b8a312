/* The built-in machines: the three ARMv8 many-cores of Gao et al. (CLUSTER
 * 2021), from the paper's own description (§II-A) and latency tables
 * (Tables I-III), and the replication that builds bigger machines from them.
 *
 * The paper gives neither the invalidation weight alpha nor the reader
 * contention c.  We take both from one figure, the time a coherence agent
 * spends per message, about 1 ns (2-3 cycles at 2.2-2.6 GHz): invalidations
 * of n copies travel in parallel, so each copy adds that time rather than a
 * whole transfer, alpha_i = 1 ns / L_i; and each reader queued on one line
 * waits that long behind the one before it, c = 1 ns.  docs/model.md's "Model
 * parameters" section shows which findings depend on these values. */
#include <stdio.h>
#include <string.h>

#include "machine/machine.h"

#define PRESET_MESSAGE_NS 1.0 /* alpha_i = PRESET_MESSAGE_NS / L_i */
#define PRESET_CONTENTION_NS 1.0

typedef struct preset_layer {
    const char *name;
    double latency_ns;
} preset_layer;

/* Which paper layer (an index into the preset's table) joins CPUs i and j. */
typedef unsigned preset_layer_fn(unsigned i, unsigned j);

typedef struct preset {
    const char *key, *name, *source;
    unsigned cpus, cluster_size;
    double epsilon_ns;
    const preset_layer *layers;
    unsigned layer_count;
    preset_layer_fn *layer_between;
} preset;

/* Phytium 2000+: 8 panels of 2 core groups of 4 cores.  Table I gives the
 * latency from panel 0 to panels 1..7; we take it to depend only on the
 * distance between the two panels' numbers. */
static const preset_layer phytium_layers[] = {
    {"L0 (within a core group)", 9.1}, {"L1 (within a panel)", 42.3}, {"L2 (panel 0-1)", 54.1},
    {"L3 (panel 0-2)", 76.3},          {"L4 (panel 0-3)", 65.6},      {"L5 (panel 0-4)", 61.4},
    {"L6 (panel 0-5)", 72.7},          {"L7 (panel 0-6)", 95.5},      {"L8 (panel 0-7)", 84.5},
};

static unsigned phytium_layer(unsigned i, unsigned j)
{
    unsigned pi = i / 8, pj = j / 8;
    if (pi != pj)
        return 1 + (pi > pj ? pi - pj : pj - pi);
    return i / 4 == j / 4 ? 0 : 1;
}

/* ThunderX2: two sockets of 32 cores. */
static const preset_layer thunderx2_layers[] = {
    {"L0 (within a socket)", 24.0}, {"L1 (across sockets)", 140.7},
};

static unsigned thunderx2_layer(unsigned i, unsigned j)
{
    return i / 32 == j / 32 ? 0 : 1;
}

/* Kunpeng 920: two super clusters (SCCL) of 8 clusters (CCL) of 4 cores. */
static const preset_layer kunpeng_layers[] = {
    {"L0 (within a CCL)", 14.2}, {"L1 (within an SCCL)", 44.2}, {"L2 (across SCCLs)", 75.0},
};

static unsigned kunpeng_layer(unsigned i, unsigned j)
{
    if (i / 32 != j / 32)
        return 2;
    return i / 4 == j / 4 ? 0 : 1;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const preset presets[] = {
    {"phytium2000", "Phytium 2000+", "Gao et al. 2021, Table I (64 cores, 2.2 GHz)", 64, 4, 1.8,
     phytium_layers, COUNT(phytium_layers), phytium_layer},
    {"thunderx2", "ThunderX2 (2 sockets)", "Gao et al. 2021, Table II (2 x 32 cores, 2.5 GHz)", 64, 32, 1.2,
     thunderx2_layers, COUNT(thunderx2_layers), thunderx2_layer},
    {"kunpeng920", "Kunpeng 920", "Gao et al. 2021, Table III (64 cores, 2.6 GHz)", 64, 4, 1.15,
     kunpeng_layers, COUNT(kunpeng_layers), kunpeng_layer},
};

static const char *const preset_names[] = {"phytium2000", "thunderx2", "kunpeng920", NULL};

const char *const *muster_machine_preset_names(void)
{
    return preset_names;
}

/* The machine keeps its layers in ascending latency (the file format's
 * rule); rank[k] is where the paper's layer k lands. */
static void sort_layers(const preset *p, muster_machine *m, unsigned *rank)
{
    for (unsigned k = 0; k < p->layer_count; k++) {
        unsigned below = 0;
        for (unsigned o = 0; o < p->layer_count; o++)
            if (p->layers[o].latency_ns < p->layers[k].latency_ns ||
                (p->layers[o].latency_ns == p->layers[k].latency_ns && o < k))
                below++;
        rank[k] = below;
        muster_layer *layer = &m->layers[below];
        snprintf(layer->name, sizeof layer->name, "%s", p->layers[k].name);
        layer->latency_ns = p->layers[k].latency_ns;
        layer->alpha = PRESET_MESSAGE_NS / p->layers[k].latency_ns;
    }
    m->layer_count = p->layer_count;
}

static void build_preset(const preset *p, muster_machine *m)
{
    unsigned rank[MUSTER_MACHINE_MAX_LAYERS];
    snprintf(m->name, sizeof m->name, "%s", p->name);
    snprintf(m->source, sizeof m->source, "%s", p->source);
    m->epsilon_ns = p->epsilon_ns;
    m->contention_ns = PRESET_CONTENTION_NS;
    m->cluster_size = p->cluster_size;
    sort_layers(p, m, rank);
    for (unsigned i = 0; i < p->cpus; i++)
        for (unsigned j = 0; j < p->cpus; j++) {
            size_t at = (size_t)i * p->cpus + j;
            if (i == j) {
                m->latency_ns[at] = p->epsilon_ns;
                continue;
            }
            unsigned k = rank[p->layer_between(i, j)];
            m->layer_of[at] = (unsigned char)k;
            m->latency_ns[at] = m->layers[k].latency_ns;
        }
}

int muster_machine_preset(const char *name, muster_machine *m, char *err, size_t err_len)
{
    for (size_t k = 0; k < COUNT(presets); k++) {
        if (strcmp(name, presets[k].key) != 0)
            continue;
        if (muster_machine_init(m, presets[k].cpus) != 0) {
            snprintf(err, err_len, "preset %s: no memory", name);
            return -1;
        }
        build_preset(&presets[k], m);
        return 0;
    }
    snprintf(err, err_len, "unknown preset '%s' (known: phytium2000, thunderx2, kunpeng920)", name);
    memset(m, 0, sizeof *m);
    return -1;
}

int muster_machine_replicate(const muster_machine *m, unsigned copies, double latency_ns,
                             muster_machine *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    const muster_layer *outer = m->layer_count ? &m->layers[m->layer_count - 1] : NULL;
    if (copies < 1 || (size_t)copies * m->cpus > MUSTER_MACHINE_MAX_CPUS) {
        snprintf(err, err_len, "replicate: %u copies of %u CPUs is outside [1, %u] CPUs", copies, m->cpus,
                 MUSTER_MACHINE_MAX_CPUS);
        return -1;
    }
    if (m->layer_count >= MUSTER_MACHINE_MAX_LAYERS) {
        snprintf(err, err_len, "replicate: %s already has the most layers (%u)", m->name, m->layer_count);
        return -1;
    }
    if (copies > 1 && outer != NULL && !(latency_ns >= outer->latency_ns)) {
        snprintf(err, err_len, "replicate: latency between copies %.1f ns is below the outermost layer's %.1f ns",
                 latency_ns, outer->latency_ns);
        return -1;
    }
    unsigned n = m->cpus, total = copies * n;
    if (muster_machine_init(out, total) != 0) {
        snprintf(err, err_len, "replicate: no memory for %u CPUs", total);
        return -1;
    }
    snprintf(out->name, sizeof out->name, "%u x %.80s", copies, m->name);
    snprintf(out->source, sizeof out->source, "%.150s; copies joined at %.1f ns", m->source, latency_ns);
    out->cache_line_bytes = m->cache_line_bytes;
    out->epsilon_ns = m->epsilon_ns;
    out->contention_ns = m->contention_ns;
    out->cluster_size = m->cluster_size;
    out->layer_count = m->layer_count;
    memcpy(out->layers, m->layers, sizeof m->layers);
    unsigned across = m->layer_count;
    if (copies > 1) {
        muster_layer *layer = &out->layers[out->layer_count++];
        snprintf(layer->name, sizeof layer->name, "L%u (across copies)", across);
        layer->latency_ns = latency_ns;
        layer->alpha = outer ? outer->alpha : MUSTER_MACHINE_DEFAULT_ALPHA;
    }
    for (unsigned i = 0; i < total; i++)
        for (unsigned j = 0; j < total; j++) {
            size_t at = (size_t)i * total + j;
            if (i / n == j / n) {
                size_t inside = (size_t)(i % n) * n + j % n;
                out->latency_ns[at] = m->latency_ns[inside];
                out->layer_of[at] = m->layer_of[inside];
            } else {
                out->latency_ns[at] = latency_ns;
                out->layer_of[at] = (unsigned char)across;
            }
        }
    return 0;
}
