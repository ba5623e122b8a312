/* Layers (Gao et al. 2021, Tables I-III): the core-to-core latencies of a
 * machine fall into a few levels, L0 within a core cluster up to Ln across
 * sockets.  Here a latency matrix is grouped into such layers, each CPU pair
 * is given its layer, and the logical cluster size N_c is read off layer 0.
 *
 * Two rules, kept apart on purpose:
 *  - how many layers and at what latency: derive_layers walks the sorted
 *    off-diagonal latencies and opens a new layer whenever a value exceeds
 *    the current layer's smallest member by more than
 *    MUSTER_MACHINE_LAYER_TOLERANCE; a layer's latency is the median of its
 *    members (pairs, not distinct values, so a common latency outweighs a
 *    rare one).  Beyond MUSTER_MACHINE_MAX_LAYERS groups, the two adjacent
 *    groups whose medians are closest (by ratio) merge until it fits.
 *  - which layer a pair is in: always the one whose latency is nearest its
 *    own (assign_layers), as the file format says.  The model charges a pair
 *    its layer's latency, so nearest is the smallest error; and since a
 *    loaded file is assigned this way too, a derived machine saved and loaded
 *    again comes back unchanged.  The two rules can disagree at a group's
 *    edge: on the Phytium 2000+ of Table I the tolerance groups {54.1, 61.4}
 *    but 61.4 is nearer 65.6, and there it goes. */
#include "machine/machine.h"
#include "sorted.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run [start, end) of the sorted latencies. */
typedef struct group {
    size_t start, end;
} group;

/* Every off-diagonal latency, ascending; NULL when memory runs out or a
 * value is not a positive finite number (sorting NaN is meaningless). */
static double *sorted_off_diagonal(const muster_machine *m, size_t *count)
{
    size_t n = m->cpus, k = 0;
    double *v = malloc(n * (n - 1) * sizeof *v);
    if (v == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double x = m->latency_ns[i * n + j];
            if (i == j)
                continue;
            if (!(isfinite(x) && x > 0)) {
                free(v);
                return NULL;
            }
            v[k++] = x;
        }
    muster_sort_doubles(v, k);
    *count = k;
    return v;
}

static double group_median(const double *v, group g)
{
    return muster_median_of_sorted(v + g.start, g.end - g.start);
}

/* Cuts the sorted values into groups by the tolerance rule; with groups ==
 * NULL only counts them. */
static size_t group_by_tolerance(const double *v, size_t n, group *groups)
{
    size_t count = 0, start = 0;
    for (size_t i = 1; i <= n; i++)
        if (i == n || v[i] > v[start] * (1.0 + MUSTER_MACHINE_LAYER_TOLERANCE)) {
            if (groups != NULL)
                groups[count] = (group){start, i};
            count++;
            start = i;
        }
    return count;
}

/* Joins the adjacent pair with the smallest ratio of medians until at most
 * MUSTER_MACHINE_MAX_LAYERS groups remain. */
static void merge_closest(const double *v, group *g, size_t *count)
{
    while (*count > MUSTER_MACHINE_MAX_LAYERS) {
        size_t best = 0;
        double best_ratio = INFINITY;
        for (size_t k = 0; k + 1 < *count; k++) {
            double ratio = group_median(v, g[k + 1]) / group_median(v, g[k]);
            if (ratio < best_ratio) {
                best_ratio = ratio;
                best = k;
            }
        }
        g[best].end = g[best + 1].end;
        memmove(&g[best + 1], &g[best + 2], (*count - best - 2) * sizeof *g);
        (*count)--;
    }
}

static void set_layers(muster_machine *m, const double *v, const group *g, size_t count)
{
    m->layer_count = (unsigned)count;
    for (size_t k = 0; k < count; k++) {
        muster_layer *layer = &m->layers[k];
        snprintf(layer->name, sizeof layer->name, "L%zu", k);
        layer->latency_ns = group_median(v, g[k]);
        layer->alpha = MUSTER_MACHINE_DEFAULT_ALPHA;
    }
}

int muster_machine_derive_layers(muster_machine *m)
{
    if (m->cpus == 0 || m->latency_ns == NULL || m->layer_of == NULL)
        return -1;
    m->layer_count = 0;
    m->cluster_size = 0;
    if (m->cpus == 1)
        return muster_machine_assign_layers(m);
    size_t n;
    double *v = sorted_off_diagonal(m, &n);
    if (v == NULL)
        return -1;
    size_t count = group_by_tolerance(v, n, NULL);
    group *g = malloc(count * sizeof *g);
    if (g == NULL) {
        free(v);
        return -1;
    }
    group_by_tolerance(v, n, g);
    merge_closest(v, g, &count);
    set_layers(m, v, g, count);
    free(g);
    free(v);
    return muster_machine_assign_layers(m);
}

/* The layer whose latency is nearest x; the lower one on a tie. */
static unsigned char nearest_layer(const muster_machine *m, double x)
{
    unsigned best = 0;
    for (unsigned k = 1; k < m->layer_count; k++)
        if (fabs(x - m->layers[k].latency_ns) < fabs(x - m->layers[best].latency_ns))
            best = k;
    return (unsigned char)best;
}

/* Each CPU's cluster is itself plus the CPUs it shares layer 0 with in both
 * directions (measured matrices are asymmetric: i->j may be L0 when j->i is
 * not, and then they are not one cluster).  N_c is the most common size, the
 * smaller on a tie: one CPU that measured oddly (CPU 0 takes most
 * interrupts) does not decide it, and a cluster too small costs a barrier
 * one more level while one too big puts remote traffic inside a group.
 * 0 when memory runs out. */
static unsigned derive_cluster_size(const muster_machine *m)
{
    size_t n = m->cpus;
    unsigned *how_many = calloc(n + 1, sizeof *how_many);
    if (how_many == NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned size = 1;
        for (size_t j = 0; j < n; j++)
            size += j != i && m->layer_of[i * n + j] == 0 && m->layer_of[j * n + i] == 0;
        how_many[size]++;
    }
    unsigned best = 1;
    for (unsigned size = 2; size <= n; size++)
        if (how_many[size] > how_many[best])
            best = size;
    free(how_many);
    return best;
}

int muster_machine_assign_layers(muster_machine *m)
{
    if (m->cpus == 0 || m->latency_ns == NULL || m->layer_of == NULL ||
        m->layer_count > MUSTER_MACHINE_MAX_LAYERS || (m->cpus > 1 && m->layer_count == 0))
        return -1;
    size_t n = m->cpus;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            m->layer_of[i * n + j] = i == j ? MUSTER_MACHINE_NO_LAYER : nearest_layer(m, m->latency_ns[i * n + j]);
    if (m->cluster_size == 0)
        m->cluster_size = derive_cluster_size(m);
    return m->cluster_size == 0 ? -1 : 0;
}
