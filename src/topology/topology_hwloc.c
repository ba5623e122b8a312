/* The hwloc source: packages, NUMA nodes, L3 and L2 caches, cores and PUs as
 * hwloc 2 finds them.  hwloc's cpusets are indexed by OS CPU id, the same
 * numbering as cpu_set_t, so they convert one to one. */
#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include <stdbool.h>
#include <stdlib.h>

#include "internal.h"
#include "platform/platform.h"

#if HWLOC_API_VERSION < 0x00020000
#error "muster needs hwloc 2.0 or later (NUMA nodes as memory children, cache types by level)"
#endif

static const hwloc_obj_type_t level_types[MUSTER_TOPO_LEVEL_COUNT] = {
    [MUSTER_TOPO_PACKAGE] = HWLOC_OBJ_PACKAGE,  [MUSTER_TOPO_NUMA] = HWLOC_OBJ_NUMANODE,
    [MUSTER_TOPO_L3] = HWLOC_OBJ_L3CACHE,       [MUSTER_TOPO_L2] = HWLOC_OBJ_L2CACHE,
    [MUSTER_TOPO_CORE] = HWLOC_OBJ_CORE,        [MUSTER_TOPO_PU] = HWLOC_OBJ_PU,
};

static int add_objects(hwloc_topology_t topology, hwloc_obj_type_t type, muster_topo_sets *sets)
{
    /* hwloc knows every level it looked for, even one with no objects (a
     * machine without L3): that is "none", not "unknown". */
    sets->known = true;
    int n = hwloc_get_nbobjs_by_type(topology, type);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topology, type, (unsigned)i);
        cpu_set_t set;
        if (obj == NULL || obj->cpuset == NULL ||
            hwloc_cpuset_to_glibc_sched_affinity(topology, obj->cpuset, &set, sizeof set) != 0)
            continue;
        int rc = muster_topo_sets_add(sets, &set);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void name_source(muster_topo_raw *raw)
{
#ifdef HWLOC_VERSION
    snprintf(raw->source, sizeof raw->source, "hwloc %s", HWLOC_VERSION);
#else
    unsigned v = hwloc_get_api_version();
    snprintf(raw->source, sizeof raw->source, "hwloc API %u.%u", v >> 16, (v >> 8) & 0xffu);
#endif
}

/* hwloc_topology_init without the plugins muster never reads.  At its
 * first init hwloc dlopens every plugin it finds: I/O devices (PCI, and
 * OpenCL and OpenGL with X11), XML import (libxml2, ICU), about 7 ms of a
 * program's start (docs/tuning.md, "hwloc's plugins").  They are named in
 * HWLOC_PLUGINS_BLACKLIST for that init, unless the user set it, and only
 * while this is the process's only thread: setenv beside another thread's
 * getenv is not safe.  Components load once per process while any
 * topology lives, and ours is destroyed at once, so a program's own hwloc
 * use later gets every plugin again. */
#define UNUSED_PLUGINS "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_xml_libxml,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero"

static int init_without_unused_plugins(hwloc_topology_t *topology)
{
    bool blacklist = getenv("HWLOC_PLUGINS_BLACKLIST") == NULL && muster_process_single_threaded() &&
                     setenv("HWLOC_PLUGINS_BLACKLIST", UNUSED_PLUGINS, 0) == 0;
    int rc = hwloc_topology_init(topology);
    if (blacklist)
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
    return rc;
}

int muster_topo_hwloc(muster_topo_raw *raw)
{
    hwloc_topology_t topology;
    if (init_without_unused_plugins(&topology) != 0)
        return -1;
    if (hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        return -1;
    }
    name_source(raw);
    int rc = 0;
    for (int level = 0; rc == 0 && level < MUSTER_TOPO_LEVEL_COUNT; level++)
        rc = add_objects(topology, level_types[level], &raw->levels[level]);
    hwloc_topology_destroy(topology);
    return rc;
}
