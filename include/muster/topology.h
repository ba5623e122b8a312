/* muster — the machine's topology, as this process sees it.
 *
 * Packages, NUMA nodes, shared L3 and L2 caches, cores and hardware threads
 * (PUs), each given as groups of OS CPU ids (the numbers sched_setaffinity
 * and /sys/devices/system/cpu use), plus the process's affinity mask and its
 * cgroup CPU quota (v2 or v1).
 *
 * Everything is restricted to the CPUs in the process's affinity mask as it
 * was when libmuster loaded: a CPU outside the mask appears nowhere, and a
 * group with no allowed CPU is left out.  Within a level the groups are
 * disjoint and each lists its CPUs in ascending order.
 *
 * The source is hwloc when libmuster was built with it.  Otherwise (or when
 * hwloc fails at run time) the topology is flat: one package, one NUMA node,
 * one core per allowed CPU, and the shared caches unknown.
 *
 * Functions that can fail return a negative MUSTER_E_* code (see barrier.h);
 * muster_error_detail() then says what went wrong.
 */
#ifndef MUSTER_TOPOLOGY_H
#define MUSTER_TOPOLOGY_H

#include <stdbool.h>
#include <stdio.h>

#include "muster/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum muster_topology_level {
    MUSTER_TOPO_PACKAGE = 0, /* a processor package (socket) */
    MUSTER_TOPO_NUMA,        /* a NUMA node: the CPUs closest to one memory */
    MUSTER_TOPO_L3,          /* the CPUs sharing one L3 (data or unified) cache */
    MUSTER_TOPO_L2,          /* the CPUs sharing one L2 (data or unified) cache */
    MUSTER_TOPO_CORE,        /* the hardware threads of one core */
    MUSTER_TOPO_PU,          /* one hardware thread: a group of one CPU */
    MUSTER_TOPO_LEVEL_COUNT
} muster_topology_level;

/* A set of OS CPU ids, ascending.  The ids belong to the topology and live
 * as long as it does. */
typedef struct muster_cpu_group {
    unsigned count;
    const int *cpus;
} muster_cpu_group;

typedef struct muster_topology muster_topology; /* opaque */

/* Discovers this machine's topology.  0 and *out set, or MUSTER_E_INVAL
 * (out is NULL), MUSTER_E_NOMEM, MUSTER_E_SYSTEM (the affinity mask cannot
 * be read). */
MUSTER_API int muster_topology_discover(muster_topology **out);
MUSTER_API void muster_topology_free(muster_topology *t);

/* Where the topology came from: "hwloc 2.9.0", "flat (no hwloc)" or
 * "flat (hwloc failed)". */
MUSTER_API const char *muster_topology_source(const muster_topology *t);

/* Whether the level is known.  In a flat topology L3 and L2 are not; with
 * hwloc every level is, and a count of 0 means the machine has none. */
MUSTER_API bool muster_topology_level_known(const muster_topology *t, muster_topology_level level);

/* The number of groups at a level (0 when unknown or absent, or when level
 * is out of range), and group i of it ({0, NULL} when i is out of range). */
MUSTER_API unsigned muster_topology_count(const muster_topology *t, muster_topology_level level);
MUSTER_API muster_cpu_group muster_topology_group(const muster_topology *t, muster_topology_level level, unsigned i);

/* Every PU (allowed CPU the topology knows), ascending. */
MUSTER_API muster_cpu_group muster_topology_pus(const muster_topology *t);

/* The process's affinity mask as captured when libmuster loaded. */
MUSTER_API muster_cpu_group muster_topology_affinity(const muster_topology *t);

/* The cgroup CPU quota in CPUs (v2 cpu.max, v1 cpu.cfs_quota_us), the
 * tightest along the process's cgroup path; 0 when there is none. */
MUSTER_API double muster_topology_cpu_quota(const muster_topology *t);

/* CPUs per cluster (the barrier attribute cluster_size): the lowest shared
 * cache level (L2, then L3) at which some group holds allowed CPUs of more
 * than one core gives the size (in CPUs) of its largest group; hardware
 * threads sharing only their own core's caches do not make a cluster.
 * When no cache is shared by cores (or the caches are unknown), the number
 * of PUs.  Always >= 1.  *level, when not NULL, is set to the cache level
 * used, or MUSTER_TOPO_PU for the fallback. */
MUSTER_API unsigned muster_topology_cluster_size(const muster_topology *t, muster_topology_level *level);

/* Writes the topology as one JSON object, no trailing newline:
 *   {"source":"hwloc 2.9.0","packages":[[0,1]],"numa_nodes":[[0,1]],
 *    "l3":[[0,1]],"l2":[[0],[1]],"cores":[[0],[1]],"pus":[0,1],
 *    "affinity":[0,1],"cgroup_cpu_quota":null,"cluster_size":2}
 * An unknown level is null; the quota is a number when there is one.
 * 0, or MUSTER_E_SYSTEM when writing fails. */
MUSTER_API int muster_topology_write_json(const muster_topology *t, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
