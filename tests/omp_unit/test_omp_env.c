/* test_omp_env: libmuster-omp's environment parsing, seen from outside.
 *
 * Reads the globals (env.c, affinity.c) with fd 2 captured, then prints on
 * stdout:
 *   stderr| <each line written to stderr while reading>
 *   stderr_lines=<count>
 *   nthreads=4,2,1 bind=spread,close sched=dynamic,4 monotonic=0 dynamic=0 ...
 *       (one line: every setting, in the order env.cmake describes)
 *   available=N nthreads_is_available=0|1    (checked against the cgroup quota)
 *   test_omp_env: ok                        (last, when every check passed)
 * env.cmake runs it under many environments and matches the output.  With
 * an argument KIND (threads, cores, ...) it also checks that the place list
 * is that level of libmuster's topology, restricted to the affinity mask. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "omp/env.h"
#include "omp_self_stub.h"

static const char *bind_name(unsigned bind)
{
    static const char *const names[] = {"false", "true", "primary", "close", "spread"};
    return bind < 5 ? names[bind] : "?";
}

static const char *sched_name(unsigned sched)
{
    static const char *const names[] = {"?", "static", "dynamic", "guided", "auto"};
    unsigned kind = sched & ~MUSTER_OMP_SCHED_MONOTONIC;
    return kind < 5 ? names[kind] : "?";
}

static void print_globals(const muster_omp_globals *g)
{
    const muster_omp_icvs *icvs = &g->icvs;
    printf("nthreads=%u", icvs->nthreads);
    for (unsigned i = 0; i < MUSTER_OMP_MAX_LEVELS && icvs->nthreads_next[i]; i++)
        printf(",%u", icvs->nthreads_next[i]);
    printf(" bind=%s", bind_name(icvs->bind));
    for (unsigned i = 0; i < MUSTER_OMP_MAX_LEVELS && icvs->bind_next[i]; i++)
        printf(",%s", bind_name(icvs->bind_next[i]));
    printf(" sched=%s,%ld monotonic=%d dynamic=%d max_active_levels=%u thread_limit=%u default_device=%d",
           sched_name(icvs->run_sched), icvs->run_sched_chunk, (icvs->run_sched & MUSTER_OMP_SCHED_MONOTONIC) != 0,
           icvs->dynamic, icvs->max_active_levels, icvs->thread_limit, icvs->default_device);
    printf(" stacksize=%zu", g->stacksize);
    char places[4096];
    muster_omp_places_format(muster_omp_places_get(), places, sizeof places);
    const muster_omp_env_extras *x = muster_omp_env_extras_get();
    printf(" places=%s display=%d,%d num_teams=%u teams_thread_limit=%u max_task_priority=%u"
           " display_affinity=%d affinity_format='%s'\n",
           places, g->display_env, g->display_env_verbose, x->num_teams, x->teams_thread_limit,
           x->max_task_priority, x->display_affinity, x->affinity_format);
}

/* The default team size is the affinity mask capped by the cgroup quota,
 * rounded up: computed here from the parts, independently of wait/cpus.c's
 * muster_cpus_available. */
static void check_available(const muster_omp_globals *g)
{
    unsigned mask = muster_affinity_cpus(NULL, 0);
    double quota = muster_process_cpu_quota();
    unsigned expected = mask > 0 ? mask : 1;
    if (quota > 0 && ceil(quota) < expected)
        expected = (unsigned)ceil(quota);
    CHECK(g->available_cpus == expected, "available %u, mask %u, quota %.2f", g->available_cpus, mask, quota);
    CHECK(g->available_cpus == muster_cpus_available());
    if (getenv("OMP_NUM_THREADS") == NULL)
        CHECK(g->icvs.nthreads == g->available_cpus);
    printf("available=%u nthreads_is_available=%d\n", g->available_cpus, g->icvs.nthreads == g->available_cpus);
}

/* The places of an abstract name are the topology's groups at that level,
 * each restricted to the affinity mask, empty ones left out. */
static void check_kind(const char *kind)
{
    static const struct {
        const char *name;
        muster_topology_level level;
    } kinds[] = {{"threads", MUSTER_TOPO_PU}, {"cores", MUSTER_TOPO_CORE}, {"sockets", MUSTER_TOPO_PACKAGE},
                 {"numa_domains", MUSTER_TOPO_NUMA}, {"ll_caches", MUSTER_TOPO_L3}};
    muster_topology *topo;
    CHECK(muster_topology_discover(&topo) == 0);
    muster_topology_level level = MUSTER_TOPO_PU;
    bool found = false;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(kind, kinds[k].name) == 0) {
            level = kinds[k].level;
            found = true;
        }
    CHECK(found, "unknown kind %s", kind);
    if (level == MUSTER_TOPO_L3 && muster_topology_count(topo, MUSTER_TOPO_L3) == 0)
        level = muster_topology_count(topo, MUSTER_TOPO_L2) > 0 ? MUSTER_TOPO_L2 : MUSTER_TOPO_PACKAGE;
    const muster_omp_places *places = muster_omp_places_get();
    CHECK(places->count == muster_topology_count(topo, level), "%u places, %u groups", places->count,
          muster_topology_count(topo, level));
    for (unsigned i = 0; i < places->count; i++) {
        muster_cpu_group group = muster_topology_group(topo, level, i);
        CHECK(places->start[i + 1] - places->start[i] == group.count, "place %u", i);
        for (unsigned k = 0; k < group.count; k++)
            CHECK(places->cpus[places->start[i] + k] == group.cpus[k], "place %u cpu %u", i, k);
    }
    printf("places match the topology's %s (%s)\n", kind, muster_topology_source(topo));
    muster_topology_free(topo);
}

int main(int argc, char **argv)
{
    fflush(stderr);
    FILE *capture = tmpfile();
    CHECK(capture != NULL);
    int saved_stderr = dup(STDERR_FILENO);
    CHECK(saved_stderr >= 0);
    CHECK(dup2(fileno(capture), STDERR_FILENO) == STDERR_FILENO);

    const muster_omp_globals *g = muster_omp_globals_get();
    /* A second call reads nothing again and warns about nothing again. */
    CHECK(muster_omp_globals_get() == g);

    fflush(stderr);
    CHECK(dup2(saved_stderr, STDERR_FILENO) == STDERR_FILENO);
    close(saved_stderr);
    unsigned lines = 0;
    char line[4096];
    rewind(capture);
    while (fgets(line, sizeof line, capture) != NULL) {
        size_t n = strlen(line);
        printf("stderr| %s%s", line, n > 0 && line[n - 1] == '\n' ? "" : "\n");
        lines++;
    }
    fclose(capture);
    printf("stderr_lines=%u\n", lines);

    print_globals(g);
    check_available(g);
    if (argc > 1)
        check_kind(argv[1]);
    printf("test_omp_env: ok\n");
    return 0;
}
