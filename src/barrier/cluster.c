/* The logical cluster size N_c (Gao et al., §III) that barriers use when the
 * caller gives none: it shapes the tuned barrier's arrival groups, every
 * cluster-aware wake-up, and the auto selector's choice.  Found once per
 * process, from the first of these that is set:
 *   MUSTER_CLUSTER_SIZE   a whole number of CPUs;
 *   MUSTER_MACHINE        a muster-machine/1 file (muster probe --output): the
 *                         N_c its latency layers give;
 *   topology discovery    CPUs sharing the lowest cache that cores share
 *                         (muster_topology_cluster_size).
 * A bad variable or file gets one warning line and the next source is used. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "machine/machine.h"
#include "muster/topology.h"

static unsigned cluster_size;
static char cluster_source[160];
static pthread_once_t cluster_once = PTHREAD_ONCE_INIT;

static bool from_variable(void)
{
    const char *value = getenv("MUSTER_CLUSTER_SIZE");
    if (value == NULL)
        return false;
    char *end;
    errno = 0;
    unsigned long size = strtoul(value, &end, 10);
    if (errno == 0 && end != value && *end == '\0' && value[0] != '-' && size >= 1 &&
        size <= MUSTER_MAX_PARTICIPANTS) {
        cluster_size = (unsigned)size;
        snprintf(cluster_source, sizeof cluster_source, "MUSTER_CLUSTER_SIZE");
        return true;
    }
    fprintf(stderr, "muster: MUSTER_CLUSTER_SIZE='%s' is not a whole number in [1, %u]; using the next source\n",
            value, MUSTER_MAX_PARTICIPANTS);
    return false;
}

static bool from_machine_file(void)
{
    const char *path = getenv("MUSTER_MACHINE");
    if (path == NULL)
        return false;
    muster_machine m;
    char err[256];
    if (muster_machine_load(path, &m, err, sizeof err) != 0) {
        fprintf(stderr, "muster: MUSTER_MACHINE: %s; using the topology's cluster size\n", err);
        return false;
    }
    cluster_size = m.cluster_size;
    snprintf(cluster_source, sizeof cluster_source, "machine file %s", path);
    muster_machine_free(&m);
    return true;
}

static void from_topology(void)
{
    muster_topology *t;
    cluster_size = 4; /* Gao et al.'s fan-in, if even discovery fails */
    snprintf(cluster_source, sizeof cluster_source, "default (topology discovery failed)");
    if (muster_topology_discover(&t) != MUSTER_OK)
        return;
    muster_topology_level level;
    cluster_size = muster_topology_cluster_size(t, &level);
    static const char *const level_names[MUSTER_TOPO_LEVEL_COUNT] = {
        [MUSTER_TOPO_L2] = "shared L2", [MUSTER_TOPO_L3] = "shared L3", [MUSTER_TOPO_PU] = "no shared cache: all CPUs"};
    snprintf(cluster_source, sizeof cluster_source, "topology (%s, %s)", muster_topology_source(t),
             level_names[level] ? level_names[level] : "?");
    muster_topology_free(t);
}

static void find_cluster_size(void)
{
    if (!from_variable() && !from_machine_file())
        from_topology();
}

void muster_cluster_reread(void)
{
    cluster_size = 0;
    cluster_source[0] = '\0';
    find_cluster_size();
}

unsigned muster_default_cluster_size(const char **source)
{
    pthread_once(&cluster_once, find_cluster_size);
    if (source != NULL)
        *source = cluster_source;
    return cluster_size;
}
