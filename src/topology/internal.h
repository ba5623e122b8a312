/* What the topology sources share.  A source (hwloc, or the flat fallback)
 * reports, for each level, the CPU sets of the objects it found, as they are;
 * muster_topology_assemble() restricts them to the affinity mask and builds
 * the public muster_topology.  Not installed. */
#ifndef MUSTER_TOPOLOGY_INTERNAL_H
#define MUSTER_TOPOLOGY_INTERNAL_H

#include <sched.h>
#include <stdbool.h>

#include "muster/topology.h"

/* The raw objects of one level, in any order, possibly overlapping. */
typedef struct muster_topo_sets {
    bool known;
    unsigned count, capacity;
    cpu_set_t *sets;
} muster_topo_sets;

typedef struct muster_topo_raw {
    char source[48];
    muster_topo_sets levels[MUSTER_TOPO_LEVEL_COUNT];
} muster_topo_raw;

/* Appends a copy of set to s (and marks the level known).  0 or MUSTER_E_NOMEM. */
int muster_topo_sets_add(muster_topo_sets *s, const cpu_set_t *set);
void muster_topo_raw_free(muster_topo_raw *raw);

/* The process's affinity mask (muster_affinity_cpus) as a cpu_set_t.
 * Returns the number of CPUs in it; 0 when it cannot be read. */
unsigned muster_topo_affinity(cpu_set_t *mask);

/* Builds the topology from raw: every set is cut down to the affinity mask,
 * empty sets are dropped, and so is any set that overlaps one already kept,
 * smallest first (NUMA nodes of memory-only kinds, such as HBM beside DRAM,
 * repeat the CPUs of others).  Groups come out ordered by their first CPU.
 * 0, or a MUSTER_E_* code with the error detail set. */
int muster_topology_assemble(const muster_topo_raw *raw, const cpu_set_t *affinity,
                             muster_topology **out);

/* The flat source: one package and one NUMA node holding every CPU in the
 * mask, one core and one PU per CPU, caches unknown.  0 or MUSTER_E_NOMEM. */
int muster_topo_flat(const cpu_set_t *affinity, const char *source, muster_topo_raw *raw);

#ifdef MUSTER_HAVE_HWLOC
/* The hwloc source.  0, or -1 when hwloc cannot load the topology (the
 * caller then falls back to flat), or MUSTER_E_NOMEM. */
int muster_topo_hwloc(muster_topo_raw *raw);
#endif

/* muster_topology_discover() without hwloc, whatever the build: for tests of
 * the fallback on a machine that has hwloc. */
int muster_topology_discover_flat(muster_topology **out);

#endif
