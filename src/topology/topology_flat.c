/* The flat topology: what can be said without hwloc.  The affinity mask is
 * all we know, so every allowed CPU is taken to be a core of its own in one
 * package and one NUMA node; which CPUs share a cache is unknown, and that
 * is reported as unknown rather than guessed. */
#include <stdio.h>

#include "internal.h"

int muster_topo_flat(const cpu_set_t *affinity, const char *source, muster_topo_raw *raw)
{
    snprintf(raw->source, sizeof raw->source, "%s", source);
    int rc = muster_topo_sets_add(&raw->levels[MUSTER_TOPO_PACKAGE], affinity);
    if (rc == 0)
        rc = muster_topo_sets_add(&raw->levels[MUSTER_TOPO_NUMA], affinity);
    for (int cpu = 0; rc == 0 && cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, affinity))
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        rc = muster_topo_sets_add(&raw->levels[MUSTER_TOPO_CORE], &one);
        if (rc == 0)
            rc = muster_topo_sets_add(&raw->levels[MUSTER_TOPO_PU], &one);
    }
    /* L3 and L2 stay as they are: no sets, not known. */
    return rc;
}
