/* Topology discovery (muster/topology.h):
 *  - on this machine: discovery succeeds, the affinity mask is the process's,
 *    every PU is in it, each known level's groups partition the PUs, and
 *    cores sit inside L2 groups, L2 inside L3, L3 inside packages;
 *  - the flat fallback: one package and one NUMA node holding every CPU, one
 *    core per CPU, caches unknown, cluster size = all CPUs;
 *  - assembly from synthetic sources: restriction to the mask, overlapping
 *    and empty sets dropped, groups in order, the cluster-size rule;
 *  - the JSON has every member, with unknown levels as null.
 *
 * With an argument it prints JSON for tests/check_topology.py to parse:
 *   test_topology json        the discovered topology
 *   test_topology json-flat   the flat fallback */
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muster/barrier.h"
#include "muster/topology.h"
#include "topology/internal.h"
#include "platform/cpus.h"

#include "check.h"

static const char *const level_names[MUSTER_TOPO_LEVEL_COUNT] = {"package", "NUMA", "L3", "L2", "core", "PU"};

static bool group_has(muster_cpu_group g, int cpu)
{
    for (unsigned i = 0; i < g.count; i++)
        if (g.cpus[i] == cpu)
            return true;
    return false;
}

static bool group_within(muster_cpu_group inner, muster_cpu_group outer)
{
    for (unsigned i = 0; i < inner.count; i++)
        if (!group_has(outer, inner.cpus[i]))
            return false;
    return true;
}

/* Ascending ids in each group, groups ordered by first CPU, no CPU twice,
 * and together exactly the PUs. */
static void check_partition(const muster_topology *t, muster_topology_level level)
{
    muster_cpu_group pus = muster_topology_pus(t);
    unsigned n = muster_topology_count(t, level), total = 0;
    int previous_first = -1;
    for (unsigned g = 0; g < n; g++) {
        muster_cpu_group group = muster_topology_group(t, level, g);
        CHECK(group.count >= 1, "%s group %u is empty", level_names[level], g);
        CHECK(group.cpus[0] > previous_first, "%s groups out of order at %u", level_names[level], g);
        previous_first = group.cpus[0];
        for (unsigned i = 0; i < group.count; i++) {
            int cpu = group.cpus[i];
            CHECK(i == 0 || cpu > group.cpus[i - 1], "%s group %u not ascending", level_names[level], g);
            CHECK(group_has(pus, cpu), "%s group %u has CPU %d, not a PU", level_names[level], g, cpu);
            for (unsigned h = g + 1; h < n; h++)
                CHECK(!group_has(muster_topology_group(t, level, h), cpu), "CPU %d is in %s groups %u and %u",
                      cpu, level_names[level], g, h);
        }
        total += group.count;
    }
    /* Disjoint groups of PUs whose sizes add up to the PU count cover them all. */
    CHECK(total == pus.count, "%s groups hold %u CPUs, there are %u PUs", level_names[level], total, pus.count);
}

/* Every group of inner lies within one group of outer (when both exist). */
static void check_nesting(const muster_topology *t, muster_topology_level inner, muster_topology_level outer)
{
    unsigned n_outer = muster_topology_count(t, outer);
    if (muster_topology_count(t, inner) == 0 || n_outer == 0)
        return;
    for (unsigned g = 0; g < muster_topology_count(t, inner); g++) {
        muster_cpu_group group = muster_topology_group(t, inner, g);
        bool inside = false;
        for (unsigned h = 0; h < n_outer && !inside; h++)
            inside = group_within(group, muster_topology_group(t, outer, h));
        CHECK(inside, "%s group %u (first CPU %d) is in no single %s group", level_names[inner], g, group.cpus[0],
              level_names[outer]);
    }
}

static unsigned largest_group(const muster_topology *t, muster_topology_level level)
{
    unsigned largest = 0;
    for (unsigned g = 0; g < muster_topology_count(t, level); g++) {
        unsigned c = muster_topology_group(t, level, g).count;
        largest = c > largest ? c : largest;
    }
    return largest;
}

/* How many core groups have a CPU in group g of a level. */
static unsigned cores_touching(const muster_topology *t, muster_topology_level level, unsigned g)
{
    muster_cpu_group group = muster_topology_group(t, level, g);
    unsigned touching = 0;
    for (unsigned c = 0; c < muster_topology_count(t, MUSTER_TOPO_CORE); c++) {
        muster_cpu_group core = muster_topology_group(t, MUSTER_TOPO_CORE, c);
        bool touches = false;
        for (unsigned i = 0; i < core.count && !touches; i++)
            for (unsigned j = 0; j < group.count && !touches; j++)
                touches = core.cpus[i] == group.cpus[j];
        touching += touches;
    }
    return touching;
}

/* The largest group of a cache level when some group of it holds more than
 * one core, else 0. */
static unsigned shared_cache_size(const muster_topology *t, muster_topology_level level)
{
    bool shared = false;
    for (unsigned g = 0; g < muster_topology_count(t, level); g++)
        shared = shared || cores_touching(t, level, g) > 1;
    return shared ? largest_group(t, level) : 0;
}

static void check_cluster_size(const muster_topology *t)
{
    muster_topology_level level = MUSTER_TOPO_LEVEL_COUNT;
    unsigned size = muster_topology_cluster_size(t, &level), pus = muster_topology_pus(t).count;
    CHECK(size >= 1 && size <= pus, "cluster size %u, %u PUs", size, pus);
    unsigned l2 = shared_cache_size(t, MUSTER_TOPO_L2), l3 = shared_cache_size(t, MUSTER_TOPO_L3);
    if (l2 > 0)
        CHECK(level == MUSTER_TOPO_L2 && size == l2, "L2 groups of up to %u, cluster %u from level %d", l2, size,
              (int)level);
    else if (l3 > 0)
        CHECK(level == MUSTER_TOPO_L3 && size == l3, "L3 groups of up to %u, cluster %u from level %d", l3, size,
              (int)level);
    else
        CHECK(level == MUSTER_TOPO_PU && size == pus, "no shared cache, cluster %u from level %d", size, (int)level);
}

/* The invariants every topology has, whatever its source. */
static void check_sound(const muster_topology *t)
{
    muster_cpu_group pus = muster_topology_pus(t), affinity = muster_topology_affinity(t);
    CHECK(pus.count >= 1);
    for (unsigned i = 0; i < pus.count; i++)
        CHECK(group_has(affinity, pus.cpus[i]), "PU %d is not in the affinity mask", pus.cpus[i]);
    for (int level = 0; level < MUSTER_TOPO_LEVEL_COUNT; level++) {
        if (!muster_topology_level_known(t, level)) {
            CHECK(muster_topology_count(t, level) == 0);
            continue;
        }
        check_partition(t, level);
    }
    CHECK(muster_topology_level_known(t, MUSTER_TOPO_PU));
    CHECK(muster_topology_count(t, MUSTER_TOPO_PU) == pus.count);
    CHECK(muster_topology_count(t, MUSTER_TOPO_PACKAGE) >= 1);
    CHECK(muster_topology_count(t, MUSTER_TOPO_CORE) >= 1);
    check_nesting(t, MUSTER_TOPO_PU, MUSTER_TOPO_CORE);
    check_nesting(t, MUSTER_TOPO_CORE, MUSTER_TOPO_L2);
    check_nesting(t, MUSTER_TOPO_CORE, MUSTER_TOPO_L3);
    check_nesting(t, MUSTER_TOPO_L2, MUSTER_TOPO_L3);
    check_nesting(t, MUSTER_TOPO_L3, MUSTER_TOPO_PACKAGE);
    check_nesting(t, MUSTER_TOPO_CORE, MUSTER_TOPO_PACKAGE);
    check_cluster_size(t);

    /* Out of range asks get nothing rather than garbage. */
    muster_cpu_group none = muster_topology_group(t, MUSTER_TOPO_CORE, muster_topology_count(t, MUSTER_TOPO_CORE));
    CHECK(none.count == 0 && none.cpus == NULL);
    CHECK(muster_topology_count(t, MUSTER_TOPO_LEVEL_COUNT) == 0);
    CHECK(!muster_topology_level_known(t, (muster_topology_level)-1));
}

/* The affinity mask the topology reports is this process's (the test never
 * changes its mask, so the main thread's mask now is the mask at load). */
static void check_affinity_is_ours(const muster_topology *t)
{
    cpu_set_t mask;
    CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
    muster_cpu_group affinity = muster_topology_affinity(t);
    CHECK(affinity.count == (unsigned)CPU_COUNT(&mask), "%u CPUs reported, mask has %d", affinity.count,
          CPU_COUNT(&mask));
    for (unsigned i = 0; i < affinity.count; i++)
        CHECK(CPU_ISSET(affinity.cpus[i], &mask), "CPU %d reported, not in the mask", affinity.cpus[i]);
}

static char *json_of(const muster_topology *t)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    CHECK(out != NULL);
    CHECK(muster_topology_write_json(t, out) == 0);
    CHECK(fclose(out) == 0);
    return text;
}

static void test_discover(void)
{
    muster_topology *t = NULL;
    CHECK(muster_topology_discover(&t) == MUSTER_OK);
    const char *source = muster_topology_source(t);
    printf("source: %s, %u PUs, %u cores, cluster size %u\n", source, muster_topology_pus(t).count,
           muster_topology_count(t, MUSTER_TOPO_CORE), muster_topology_cluster_size(t, NULL));
    CHECK(strncmp(source, "hwloc ", 6) == 0 || strncmp(source, "flat (", 6) == 0, "source '%s'", source);
    check_affinity_is_ours(t);
    check_sound(t);
    if (strncmp(source, "hwloc ", 6) == 0) {
        for (int level = 0; level < MUSTER_TOPO_LEVEL_COUNT; level++)
            CHECK(muster_topology_level_known(t, level), "hwloc leaves level %s unknown", level_names[level]);
        /* hwloc sees every CPU the process may use. */
        CHECK(muster_topology_pus(t).count == muster_topology_affinity(t).count);
    }
    double quota = muster_topology_cpu_quota(t);
    CHECK(quota >= 0.0 && quota == muster_process_cpu_quota(), "quota %g", quota);

    char *json = json_of(t);
    CHECK(json[0] == '{' && json[strlen(json) - 1] == '}', "%s", json);
    const char *keys[] = {"\"source\":", "\"packages\":[[", "\"numa_nodes\":[[", "\"l3\":", "\"l2\":",
                          "\"cores\":[[", "\"pus\":[", "\"affinity\":[", "\"cgroup_cpu_quota\":", "\"cluster_size\":"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        CHECK(strstr(json, keys[k]) != NULL, "%s missing from %s", keys[k], json);
    free(json);
    muster_topology_free(t);
}

static void test_flat(void)
{
    muster_topology *t = NULL;
    CHECK(muster_topology_discover_flat(&t) == MUSTER_OK);
    CHECK(strcmp(muster_topology_source(t), "flat (no hwloc)") == 0, "%s", muster_topology_source(t));
    check_affinity_is_ours(t);
    check_sound(t);
    muster_cpu_group affinity = muster_topology_affinity(t), pus = muster_topology_pus(t);
    CHECK(pus.count == affinity.count);
    CHECK(muster_topology_count(t, MUSTER_TOPO_PACKAGE) == 1);
    CHECK(muster_topology_count(t, MUSTER_TOPO_NUMA) == 1);
    CHECK(muster_topology_group(t, MUSTER_TOPO_PACKAGE, 0).count == affinity.count);
    CHECK(muster_topology_count(t, MUSTER_TOPO_CORE) == affinity.count);
    for (unsigned i = 0; i < affinity.count; i++) {
        muster_cpu_group core = muster_topology_group(t, MUSTER_TOPO_CORE, i);
        CHECK(core.count == 1 && core.cpus[0] == affinity.cpus[i], "core %u", i);
        CHECK(pus.cpus[i] == affinity.cpus[i]);
    }
    CHECK(!muster_topology_level_known(t, MUSTER_TOPO_L3) && !muster_topology_level_known(t, MUSTER_TOPO_L2));
    CHECK(muster_topology_count(t, MUSTER_TOPO_L3) == 0 && muster_topology_count(t, MUSTER_TOPO_L2) == 0);
    muster_topology_level level;
    CHECK(muster_topology_cluster_size(t, &level) == affinity.count && level == MUSTER_TOPO_PU);

    char *json = json_of(t);
    CHECK(strstr(json, "{\"source\":\"flat (no hwloc)\",") == json, "%s", json);
    CHECK(strstr(json, ",\"l3\":null,\"l2\":null,") != NULL, "%s", json);
    free(json);
    muster_topology_free(t);
}

static void test_bad_arguments(void)
{
    CHECK(muster_topology_discover(NULL) == MUSTER_E_INVAL);
    CHECK(strstr(muster_error_detail(), "out is NULL") != NULL, "%s", muster_error_detail());
    CHECK(muster_topology_discover_flat(NULL) == MUSTER_E_INVAL);
    muster_topology_free(NULL); /* allowed, as free(NULL) is */
}

/* ---- synthetic sources ---- */

static cpu_set_t set_of(const int *cpus, unsigned n)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (unsigned i = 0; i < n; i++)
        CPU_SET(cpus[i], &set);
    return set;
}

static cpu_set_t range_set(int first, int last)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = first; cpu <= last; cpu++)
        CPU_SET(cpu, &set);
    return set;
}

static void add(muster_topo_raw *raw, muster_topology_level level, cpu_set_t set)
{
    CHECK(muster_topo_sets_add(&raw->levels[level], &set) == 0);
}

/* `groups` groups of `size` consecutive CPUs from 0 at level. */
static void add_blocks(muster_topo_raw *raw, muster_topology_level level, int groups, int size)
{
    for (int g = 0; g < groups; g++)
        add(raw, level, range_set(g * size, g * size + size - 1));
}

static void check_group(const muster_topology *t, muster_topology_level level, unsigned g, const int *cpus,
                        unsigned n)
{
    muster_cpu_group group = muster_topology_group(t, level, g);
    CHECK(group.count == n, "%s group %u has %u CPUs, expected %u", level_names[level], g, group.count, n);
    for (unsigned i = 0; i < n; i++)
        CHECK(group.cpus[i] == cpus[i], "%s group %u CPU %u is %d, expected %d", level_names[level], g, i,
              group.cpus[i], cpus[i]);
}

/* 8 CPUs, one package; cores of core_size threads; L2 shared by pairs or
 * private; L3 by fours or private; returns the cluster size and level for
 * the given mask. */
static unsigned cluster_of(int core_size, int l2_size, int l3_size, const cpu_set_t *mask,
                           muster_topology_level *level)
{
    muster_topo_raw raw = {0};
    add(&raw, MUSTER_TOPO_PACKAGE, range_set(0, 7));
    add(&raw, MUSTER_TOPO_NUMA, range_set(0, 7));
    add_blocks(&raw, MUSTER_TOPO_L3, 8 / l3_size, l3_size);
    add_blocks(&raw, MUSTER_TOPO_L2, 8 / l2_size, l2_size);
    add_blocks(&raw, MUSTER_TOPO_CORE, 8 / core_size, core_size);
    add_blocks(&raw, MUSTER_TOPO_PU, 8, 1);
    muster_topology *t;
    CHECK(muster_topology_assemble(&raw, mask, &t) == 0);
    check_sound(t);
    unsigned size = muster_topology_cluster_size(t, level);
    muster_topology_free(t);
    muster_topo_raw_free(&raw);
    return size;
}

static void test_cluster_rule(void)
{
    cpu_set_t all = range_set(0, 7);
    int even_ids[] = {0, 2, 4, 6};
    cpu_set_t even = set_of(even_ids, 4);
    muster_topology_level level;
    CHECK(cluster_of(1, 2, 4, &all, &level) == 2 && level == MUSTER_TOPO_L2);
    CHECK(cluster_of(1, 1, 4, &all, &level) == 4 && level == MUSTER_TOPO_L3);
    CHECK(cluster_of(1, 1, 1, &all, &level) == 8 && level == MUSTER_TOPO_PU);
    /* An L2 shared only by one core's two threads is not a cluster. */
    CHECK(cluster_of(2, 2, 4, &all, &level) == 4 && level == MUSTER_TOPO_L3);
    CHECK(cluster_of(2, 2, 2, &all, &level) == 8 && level == MUSTER_TOPO_PU);
    /* Only the allowed CPUs count: with every other CPU, no L2 pair is
     * shared, so the L3 (two allowed CPUs each) gives the cluster. */
    CHECK(cluster_of(1, 2, 4, &even, &level) == 2 && level == MUSTER_TOPO_L3);
    CHECK(cluster_of(1, 2, 8, &even, &level) == 4 && level == MUSTER_TOPO_L3);
    CHECK(cluster_of(1, 1, 1, &even, &level) == 4 && level == MUSTER_TOPO_PU);
}

/* Two packages of 4 cores x 2 threads (CPU c and c + 8 are siblings, as
 * Linux numbers them); each package one DRAM and one HBM NUMA node with the
 * same CPUs; a machine-wide "node" overlapping both; each core its own L2;
 * the mask leaves out CPUs 1, 9 (a whole core) and 12. */
static void test_assembly(void)
{
    muster_topo_raw raw = {0};
    snprintf(raw.source, sizeof raw.source, "synthetic");
    for (int p = 0; p < 2; p++) {
        cpu_set_t package = range_set(4 * p, 4 * p + 3), upper = range_set(8 + 4 * p, 8 + 4 * p + 3);
        CPU_OR(&package, &package, &upper);
        add(&raw, MUSTER_TOPO_PACKAGE, package);
        add(&raw, MUSTER_TOPO_L3, package);
        add(&raw, MUSTER_TOPO_NUMA, package); /* DRAM */
        add(&raw, MUSTER_TOPO_NUMA, package); /* HBM: the same CPUs again */
    }
    add(&raw, MUSTER_TOPO_NUMA, range_set(0, 15)); /* overlaps both: dropped */
    add(&raw, MUSTER_TOPO_NUMA, range_set(100, 101)); /* CPUs not in the mask: dropped */
    for (int c = 7; c >= 0; c--) { /* reported backwards: the order must not matter */
        int pair[] = {c, c + 8};
        add(&raw, MUSTER_TOPO_CORE, set_of(pair, 2));
        add(&raw, MUSTER_TOPO_L2, set_of(pair, 2));
    }
    add_blocks(&raw, MUSTER_TOPO_PU, 16, 1);
    cpu_set_t mask = range_set(0, 15);
    CPU_CLR(1, &mask);
    CPU_CLR(9, &mask);
    CPU_CLR(12, &mask);

    muster_topology *t;
    CHECK(muster_topology_assemble(&raw, &mask, &t) == 0);
    check_sound(t);
    CHECK(strcmp(muster_topology_source(t), "synthetic") == 0);
    CHECK(muster_topology_pus(t).count == 13);
    CHECK(muster_topology_count(t, MUSTER_TOPO_PACKAGE) == 2);
    int package0[] = {0, 2, 3, 8, 10, 11}, package1[] = {4, 5, 6, 7, 13, 14, 15};
    check_group(t, MUSTER_TOPO_PACKAGE, 0, package0, 6);
    check_group(t, MUSTER_TOPO_PACKAGE, 1, package1, 7);
    CHECK(muster_topology_count(t, MUSTER_TOPO_NUMA) == 2);
    check_group(t, MUSTER_TOPO_NUMA, 1, package1, 7);
    CHECK(muster_topology_count(t, MUSTER_TOPO_CORE) == 7); /* core {1, 9} is gone */
    int core0[] = {0, 8}, core1[] = {2, 10}, core5[] = {6, 14}, core3[] = {4};
    check_group(t, MUSTER_TOPO_CORE, 0, core0, 2);
    check_group(t, MUSTER_TOPO_CORE, 1, core1, 2);
    check_group(t, MUSTER_TOPO_CORE, 3, core3, 1); /* 12 left out */
    check_group(t, MUSTER_TOPO_CORE, 5, core5, 2);
    /* Each L2 holds one core's two threads: no cluster there.  The L3s do
     * hold several cores; the larger (package 1) gives the size. */
    muster_topology_level level;
    CHECK(muster_topology_cluster_size(t, &level) == 7 && level == MUSTER_TOPO_L3);
    muster_topology_free(t);
    muster_topo_raw_free(&raw);
}

static int print_json(int (*discover)(muster_topology **))
{
    muster_topology *t;
    CHECK(discover(&t) == MUSTER_OK);
    CHECK(muster_topology_write_json(t, stdout) == 0);
    putchar('\n');
    muster_topology_free(t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "json") == 0)
        return print_json(muster_topology_discover);
    if (argc == 2 && strcmp(argv[1], "json-flat") == 0)
        return print_json(muster_topology_discover_flat);
    CHECK(argc == 1, "usage: test_topology [json|json-flat]");
    test_bad_arguments();
    test_discover();
    test_flat();
    test_cluster_rule();
    test_assembly();
    printf("test_topology: ok\n");
    return 0;
}
