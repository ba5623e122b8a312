/* test_omp_env: libmuster-omp's environment parsing, seen from outside.
 *
 *   test_omp_env --driver COMMAND...   runs every case of the table below:
 *                                      COMMAND --child [KIND] under the
 *                                      case's environment (env_driver.h)
 *   test_omp_env --child [KIND]
 *
 * The child is linked with the whole runtime, which reads the environment
 * when it loads (as libgomp does), so whatever the child writes to stderr
 * is what that read wrote (warnings, OMP_DISPLAY_ENV).  The child reads the
 * globals once more (nothing is read or written again), then prints on
 * stdout:
 *   nthreads=4,2,1 bind=spread,close sched=dynamic,4 monotonic=0 dynamic=0 ...
 *       (one line: every setting, see print_globals)
 *   available=N nthreads_is_available=0|1    (checked against the cgroup quota)
 *   test_omp_env: ok                        (last, when every check passed)
 * With KIND (threads, cores, ...) it also checks that the place list is that
 * level of libmuster's topology, restricted to the affinity mask.  Warnings
 * are one line: libmuster-omp: VAR='VALUE' <problem>; using <instead>.
 * The driver reads the child's stderr lines as "stderr| LINE" before its
 * stdout (all of stderr was written at load, before main). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "env_driver.h"
#include "omp/env.h"
#include "platform/cpus.h"
#include "wait/policy.h" /* muster_wait_requested_spin_ns */

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
    static const char *const reductions[] = {"auto", "critical", "atomic", "tree"};
    printf(" places=%s display=%d,%d num_teams=%u teams_thread_limit=%u max_task_priority=%u"
           " display_affinity=%d affinity_format='%s' force_reduction=%s kmp_library=%u kmp_blocktime=%d"
           " spin_request_ns=%lld\n",
           places, g->display_env, g->display_env_verbose, x->num_teams, x->teams_thread_limit,
           x->max_task_priority, x->display_affinity, x->affinity_format, reductions[x->force_reduction],
           x->kmp_library, x->kmp_blocktime_ms, (long long)muster_wait_requested_spin_ns());
}

/* The default team size is the affinity mask capped by the cgroup quota,
 * rounded up: computed here from the parts, independently of platform/cpus.c's
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

static int child_main(int argc, char **argv)
{
    /* The runtime read them at load; this call reads nothing again, and so
     * warns about nothing again (the driver counts the lines on stderr). */
    const muster_omp_globals *g = muster_omp_globals_get();
    CHECK(muster_omp_globals_get() == g);

    print_globals(g);
    check_available(g);
    if (argc > 2)
        check_kind(argv[2]);
    printf("test_omp_env: ok\n");
    return 0;
}

/* ---- the driver: each case, a child under its own environment ---- */

#define W_NUM_THREADS(v) "OMP_NUM_THREADS='" v "' is not a list of whole numbers in [1, 2147483647]; using #"
#define W_SCHEDULE(v)                                                                                     \
    "OMP_SCHEDULE='" v "' is not a schedule ([monotonic: or nonmonotonic:] static, dynamic, guided or auto*; " \
    "using static"
#define W_DYNAMIC(v) "OMP_DYNAMIC='" v "' is not true or false; using false"
#define W_BIND(v) "OMP_PROC_BIND='" v "' is not a binding *; using false"
#define W_STACKSIZE(v)                                                                                \
    "OMP_STACKSIZE='" v "' is not a size (a whole number with an optional B, K, M or G suffix); using " \
    "the system's default stack size"
#define W_LEVELS(v) "OMP_MAX_ACTIVE_LEVELS='" v "' is not a whole number >= 0; using the default"
#define W_LIMIT(v) "OMP_THREAD_LIMIT='" v "' is not a whole number >= 1; using no limit"
#define DEFAULT_SETTINGS                                                                                     \
    "nthreads=# bind=false sched=static,0 monotonic=1 dynamic=0 max_active_levels=1 "                         \
    "thread_limit=2147483647 default_device=0 stacksize=0 places= display=0,0 num_teams=0 teams_thread_limit=0 " \
    "max_task_priority=0 display_affinity=0 affinity_format='level %L thread %i affinity %A'"
#define D(line) "stderr| " line

typedef struct omp_env_case {
    const char *name;
    const char *env[12];      /* NAME=VALUE on a clean environment */
    const char *kind;         /* the child's KIND: its places must be that topology level */
    const char *warnings[12]; /* each warning, in order (env_glob patterns after "libmuster-omp: ") */
    const char *settings;     /* key=pattern words the settings line must hold */
    const char *available;    /* key=pattern words of the available= line (NULL: any) */
    int stderr_lines;         /* every line written while reading; -1: the warnings' count, -2: any */
    const char *display[28];  /* lines (patterns) that follow in this order among the child's output */
} omp_env_case;

static const omp_env_case cases[] = {
    {"defaults", {0}, NULL, {0}, DEFAULT_SETTINGS, "available=# nthreads_is_available=1", -1, {0}},
    /* OMP_NUM_THREADS, and the list's effect on max-active-levels (gcc 12's rule) */
    {"num_threads_4", {"OMP_NUM_THREADS=4"}, NULL, {0}, "nthreads=4 bind=false max_active_levels=1", NULL, -1, {0}},
    {"num_threads_list", {"OMP_NUM_THREADS=4,2,1"}, NULL, {0}, "nthreads=4,2,1 bind=false max_active_levels=8", NULL,
     -1, {0}},
    {"num_threads_spaces", {"OMP_NUM_THREADS= 4 , 3 "}, NULL, {0}, "nthreads=4,3", NULL, -1, {0}},
    {"num_threads_long", {"OMP_NUM_THREADS=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18"}, NULL,
     {"OMP_NUM_THREADS='1,2,*18' has more nesting levels than libmuster-omp keeps; using the first 17"},
     "nthreads=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", NULL, -1, {0}},
#define BAD_NUM_THREADS(id, v)                                                                                    \
    {"num_threads_bad_" id, {"OMP_NUM_THREADS=" v}, NULL, {W_NUM_THREADS(v)}, "nthreads=#",                      \
     "nthreads_is_available=1", -1, {0}}
    BAD_NUM_THREADS("0", "0"), BAD_NUM_THREADS("minus", "-1"), BAD_NUM_THREADS("word", "abc"),
    BAD_NUM_THREADS("trailing_comma", "4,"), BAD_NUM_THREADS("empty_item", "4,,2"), BAD_NUM_THREADS("zero_item", "4,0"),
    BAD_NUM_THREADS("suffix", "2x"), BAD_NUM_THREADS("empty", ""), BAD_NUM_THREADS("huge", "99999999999"),
    BAD_NUM_THREADS("space", "4 2"), BAD_NUM_THREADS("plus", "+3"),
    /* OMP_SCHEDULE */
#define SCHEDULE(id, v, expected) {"schedule_" id, {"OMP_SCHEDULE=" v}, NULL, {0}, "bind=false sched=" expected, NULL, -1, {0}}
    SCHEDULE("static", "static", "static,0 monotonic=1"), SCHEDULE("dynamic_4", "dynamic,4", "dynamic,4 monotonic=0"),
    SCHEDULE("guided", "guided", "guided,1 monotonic=0"), SCHEDULE("auto", "auto", "auto,0 monotonic=0"),
    SCHEDULE("monotonic_dynamic", "monotonic:dynamic,2", "dynamic,2 monotonic=1"),
    SCHEDULE("nonmonotonic_guided", "nonmonotonic:guided", "guided,1 monotonic=0"),
    SCHEDULE("spaces_case", " Monotonic : Guided , 7 ", "guided,7 monotonic=1"),
    SCHEDULE("nonmonotonic_static", "nonmonotonic:static", "static,0 monotonic=0"),
    SCHEDULE("dynamic_0", "dynamic,0", "dynamic,1 monotonic=0"), SCHEDULE("upper", "STATIC,3", "static,3 monotonic=1"),
    SCHEDULE("auto_chunk", "auto,5", "auto,0 monotonic=0"),
    SCHEDULE("monotonic_static", "monotonic:static", "static,0 monotonic=1"),
#define BAD_SCHEDULE(id, v)                                                                                      \
    {"schedule_bad_" id, {"OMP_SCHEDULE=" v}, NULL, {W_SCHEDULE(v)}, "bind=false sched=static,0 monotonic=1", NULL, \
     -1, {0}}
    BAD_SCHEDULE("typo", "dynamc"), BAD_SCHEDULE("runtime", "runtime"), BAD_SCHEDULE("comma", "dynamic,"),
    BAD_SCHEDULE("chunk_word", "dynamic,x"), BAD_SCHEDULE("chunk_minus", "dynamic,-1"),
    BAD_SCHEDULE("chunk_suffix", "static,4x"), BAD_SCHEDULE("no_colon", "monotonic dynamic"), BAD_SCHEDULE("empty", ""),
    BAD_SCHEDULE("space_chunk", "dynamic 4"), BAD_SCHEDULE("chunk_huge", "dynamic,99999999999"),
    BAD_SCHEDULE("modifier_only", "monotonic:"), BAD_SCHEDULE("colon_first", ":static"),
    /* Booleans: OMP_DYNAMIC (OMP_NESTED, OMP_DISPLAY_AFFINITY below) */
    {"dynamic_true", {"OMP_DYNAMIC=true"}, NULL, {0}, "dynamic=1", NULL, -1, {0}},
    {"dynamic_spaces_case", {"OMP_DYNAMIC= TRUE "}, NULL, {0}, "dynamic=1", NULL, -1, {0}},
    {"dynamic_false", {"OMP_DYNAMIC=false"}, NULL, {0}, "dynamic=0", NULL, -1, {0}},
#define BAD_DYNAMIC(id, v) {"dynamic_bad_" id, {"OMP_DYNAMIC=" v}, NULL, {W_DYNAMIC(v)}, "dynamic=0", NULL, -1, {0}}
    BAD_DYNAMIC("yes", "yes"), BAD_DYNAMIC("1", "1"), BAD_DYNAMIC("truex", "truex"), BAD_DYNAMIC("empty", ""),
    /* OMP_PROC_BIND; binding without OMP_PLACES uses one place per hardware thread */
    {"proc_bind_false", {"OMP_PROC_BIND=false"}, NULL, {0}, "bind=false places=", NULL, -1, {0}},
#define BIND(id, v, expected) {"proc_bind_" id, {"OMP_PROC_BIND=" v}, NULL, {0}, "bind=" expected " places={#}*", NULL, -1, {0}}
    BIND("true", "true", "true"), BIND("master", "master", "primary"), BIND("primary", "primary", "primary"),
    BIND("close", "close", "close"), BIND("spread", "spread", "spread"), BIND("list", "spread,close", "spread,close"),
    BIND("list_spaces_case", " Spread , Close , master ", "spread,close,primary"),
    {"proc_bind_list_nests", {"OMP_PROC_BIND=spread,close"}, NULL, {0}, "max_active_levels=8", NULL, -1, {0}},
#define BAD_BIND(id, v) {"proc_bind_bad_" id, {"OMP_PROC_BIND=" v}, NULL, {W_BIND(v)}, "bind=false places=", NULL, -1, {0}}
    BAD_BIND("true_close", "true,close"), BAD_BIND("close_false", "close,false"), BAD_BIND("word", "sideways"),
    BAD_BIND("empty", ""), BAD_BIND("trailing_comma", "close,"), BAD_BIND("space", "close close"),
    BAD_BIND("leading_comma", ",close"), BAD_BIND("spread_true", "spread,true"),
    /* OMP_PLACES: the abstract names are the topology's levels (the child
     * checks, given the kind); places alone turn binding on, as in libgomp */
#define PLACES_KIND(k) {"places_" k, {"OMP_PLACES=" k}, k, {0}, "bind=true places={*}", NULL, -1, {"places match the topology's " k " *"}}
    PLACES_KIND("threads"), PLACES_KIND("cores"), PLACES_KIND("sockets"), PLACES_KIND("ll_caches"),
    PLACES_KIND("numa_domains"),
    {"places_threads_1", {"OMP_PLACES=threads(1)"}, NULL, {0}, "places={#}", NULL, -1, {0}},
    {"places_cores_case", {"OMP_PLACES= CORES "}, "cores", {0}, "bind=true", NULL, -1,
     {"places match the topology's cores *"}},
    {"places_explicit", {"OMP_PLACES={0}"}, NULL, {0}, "bind=true places={0}", NULL, -1, {0}},
    {"places_explicit_close", {"OMP_PLACES={0}", "OMP_PROC_BIND=close"}, NULL, {0}, "bind=close places={0}", NULL, -1,
     {0}},
    {"places_with_bind_false", {"OMP_PLACES=cores", "OMP_PROC_BIND=false"}, NULL, {0}, "bind=false places=", NULL, -1,
     {0}},
    {"places_bad", {"OMP_PLACES=bogus"}, NULL,
     {"OMP_PLACES='bogus' is not a list of places such as {0,1},{2:2} or an abstract name (threads, cores, ll_caches, "
      "numa_domains, sockets); using no places"},
     "bind=false places=", NULL, -1, {0}},
    {"places_bad_with_bind", {"OMP_PLACES=cores(0)", "OMP_PROC_BIND=close"}, NULL,
     {"OMP_PLACES='cores(0)' has a count in parentheses *; using one place per hardware thread"},
     "bind=close places={#}*", NULL, -1, {0}},
    {"places_unusable_dropped", {"OMP_PLACES={0},{4000}"}, NULL,
     {"OMP_PLACES='{0},{4000}' has 1 place with no CPU this process may run on; using the other 1"},
     "bind=true places={0}", NULL, -1, {0}},
    {"places_none_usable", {"OMP_PLACES={4000}"}, NULL,
     {"OMP_PLACES='{4000}' has no place with a CPU this process may run on; using no places"}, "bind=false places=",
     NULL, -1, {0}},
    {"places_bad_interval", {"OMP_PLACES={0}:0"}, NULL,
     {"OMP_PLACES='{0}:0' has an interval whose length is not a whole number >= 1; using no places"}, "", NULL, -1,
     {0}},
    /* OMP_STACKSIZE (unit K by default) and GOMP_STACKSIZE */
#define STACK(id, v, bytes) {"stacksize_" id, {"OMP_STACKSIZE=" v}, NULL, {0}, "stacksize=" bytes, NULL, -1, {0}}
    STACK("2m", "2m", "2097152"), STACK("16", "16", "16384"), STACK("bytes", "100000b", "100000"),
    STACK("spaces_G", " 1 G ", "1073741824"), STACK("512K", "512K", "524288"),
    {"stacksize_below", {"OMP_STACKSIZE=12"}, NULL,
     {"OMP_STACKSIZE='12' is below the smallest stack a thread can have; using 16K"}, "stacksize=16384", NULL, -1, {0}},
    {"stacksize_gomp", {"GOMP_STACKSIZE=64"}, NULL, {0}, "stacksize=65536", NULL, -1, {0}},
    {"stacksize_omp_beats_gomp", {"GOMP_STACKSIZE=64", "OMP_STACKSIZE=32"}, NULL, {0}, "stacksize=32768", NULL, -1,
     {0}},
#define BAD_STACK(id, v) {"stacksize_bad_" id, {"OMP_STACKSIZE=" v}, NULL, {W_STACKSIZE(v)}, "stacksize=0", NULL, -1, {0}}
    BAD_STACK("unit", "2x"), BAD_STACK("minus", "-1"), BAD_STACK("empty", ""), BAD_STACK("fraction", "1.5M"),
    BAD_STACK("huge", "99999999999999999999"), BAD_STACK("spaces", "4 K B"), BAD_STACK("overflow", "17179869184G"),
    /* OMP_MAX_ACTIVE_LEVELS and OMP_NESTED */
    {"max_active_levels_3", {"OMP_MAX_ACTIVE_LEVELS=3"}, NULL, {0}, "max_active_levels=3", NULL, -1, {0}},
    {"max_active_levels_0", {"OMP_MAX_ACTIVE_LEVELS=0"}, NULL, {0}, "max_active_levels=0", NULL, -1, {0}},
    {"max_active_levels_clamped", {"OMP_MAX_ACTIVE_LEVELS=1000"}, NULL, {0}, "max_active_levels=8", NULL, -1, {0}},
    {"max_active_levels_beats_list", {"OMP_MAX_ACTIVE_LEVELS=2", "OMP_NUM_THREADS=2,2,2"}, NULL, {0},
     "max_active_levels=2", NULL, -1, {0}},
#define BAD_LEVELS(id, v) {"max_active_levels_bad_" id, {"OMP_MAX_ACTIVE_LEVELS=" v}, NULL, {W_LEVELS(v)}, "max_active_levels=1", NULL, -1, {0}}
    BAD_LEVELS("minus", "-1"), BAD_LEVELS("word", "x"), BAD_LEVELS("empty", ""),
    {"nested_true", {"OMP_NESTED=true"}, NULL, {0}, "max_active_levels=8", NULL, -1, {0}},
    {"nested_false_beats_list", {"OMP_NESTED=false", "OMP_NUM_THREADS=2,2"}, NULL, {0}, "max_active_levels=1", NULL,
     -1, {0}},
    {"nested_true_levels_win", {"OMP_NESTED=true", "OMP_MAX_ACTIVE_LEVELS=2"}, NULL, {0}, "max_active_levels=2", NULL,
     -1, {0}},
    {"nested_bad", {"OMP_NESTED=yes"}, NULL, {"OMP_NESTED='yes' is not true or false; using false"},
     "max_active_levels=1", NULL, -1, {0}},
    /* The other numbers */
    {"thread_limit_8", {"OMP_THREAD_LIMIT=8"}, NULL, {0}, "thread_limit=8", NULL, -1, {0}},
    {"thread_limit_huge", {"OMP_THREAD_LIMIT=99999999999"}, NULL, {0}, "thread_limit=2147483647", NULL, -1, {0}},
#define BAD_LIMIT(id, v) {"thread_limit_bad_" id, {"OMP_THREAD_LIMIT=" v}, NULL, {W_LIMIT(v)}, "thread_limit=2147483647", NULL, -1, {0}}
    BAD_LIMIT("0", "0"), BAD_LIMIT("minus", "-2"), BAD_LIMIT("word", "abc"),
    {"default_device_2", {"OMP_DEFAULT_DEVICE=2"}, NULL, {0}, "default_device=2", NULL, -1, {0}},
    {"default_device_bad", {"OMP_DEFAULT_DEVICE=-1"}, NULL,
     {"OMP_DEFAULT_DEVICE='-1' is not a whole number in [0, 2147483647]; using 0"}, "default_device=0", NULL, -1, {0}},
    {"teams", {"OMP_NUM_TEAMS=4", "OMP_TEAMS_THREAD_LIMIT=3", "OMP_MAX_TASK_PRIORITY=5"}, NULL, {0},
     "num_teams=4 teams_thread_limit=3 max_task_priority=5", NULL, -1, {0}},
    {"teams_bad", {"OMP_NUM_TEAMS=0"}, NULL, {"OMP_NUM_TEAMS='0' is not a whole number *"}, "num_teams=0", NULL, -1,
     {0}},
    {"affinity", {"OMP_DISPLAY_AFFINITY=true", "OMP_AFFINITY_FORMAT=x %n y"}, NULL, {0},
     "display_affinity=1 affinity_format='x %n y'", NULL, -1, {0}},
    /* Everything wrong at once: exactly one line per variable. */
    {"all_bad",
     {"OMP_NUM_THREADS=x", "OMP_SCHEDULE=x", "OMP_DYNAMIC=x", "OMP_PROC_BIND=x", "OMP_PLACES=x", "OMP_STACKSIZE=x",
      "OMP_MAX_ACTIVE_LEVELS=x", "OMP_NESTED=x", "OMP_THREAD_LIMIT=x", "OMP_DISPLAY_ENV=x", "OMP_DEFAULT_DEVICE=x"},
     NULL,
     {"OMP_*='x' *; using *", "OMP_*='x' *; using *", "OMP_*='x' *; using *", "OMP_*='x' *; using *",
      "OMP_*='x' *; using *", "OMP_*='x' *; using *", "OMP_*='x' *; using *", "OMP_*='x' *; using *",
      "OMP_*='x' *; using *", "OMP_*='x' *; using *", "OMP_*='x' *; using *"},
     "nthreads=# bind=false sched=static,0 monotonic=1 dynamic=0 max_active_levels=1 thread_limit=2147483647 "
     "default_device=0 stacksize=0 places= display=0,0",
     NULL, -1, {0}},
    /* OMP_DISPLAY_ENV: libgomp's block (gcc 12's lines and order) plus libmuster-omp's */
    {"display_env",
     {"OMP_DISPLAY_ENV=true", "OMP_NUM_THREADS=4,2", "OMP_SCHEDULE=dynamic,3", "OMP_PROC_BIND=spread,close",
      "OMP_PLACES={0}"},
     NULL, {0}, "display=1,0", NULL, 26,
     {D(""), D("OPENMP DISPLAY ENVIRONMENT BEGIN"), D("  _OPENMP = '201511'"), D("  OMP_DYNAMIC = 'FALSE'"),
      D("  OMP_NESTED = 'TRUE'"), D("  OMP_NUM_THREADS = '4,2'"), D("  OMP_SCHEDULE = 'DYNAMIC,3'"),
      D("  OMP_PROC_BIND = 'SPREAD,CLOSE'"), D("  OMP_PLACES = '{0}'"), D("  OMP_STACKSIZE = '0'"),
      D("  OMP_WAIT_POLICY = 'PASSIVE'"), D("  OMP_THREAD_LIMIT = '2147483647'"), D("  OMP_MAX_ACTIVE_LEVELS = '8'"),
      D("  OMP_NUM_TEAMS = '0'"), D("  OMP_TEAMS_THREAD_LIMIT = '0'"), D("  OMP_CANCELLATION = 'FALSE'"),
      D("  OMP_DEFAULT_DEVICE = '0'"), D("  OMP_MAX_TASK_PRIORITY = '0'"), D("  OMP_DISPLAY_AFFINITY = 'FALSE'"),
      D("  OMP_AFFINITY_FORMAT = 'level %L thread %i affinity %A'"), D("  OMP_ALLOCATOR = 'omp_default_mem_alloc'"),
      D("  OMP_TARGET_OFFLOAD = 'DEFAULT'"), D("  MUSTER_RUNTIME = 'libmuster-omp'"), D("  MUSTER_BARRIER = 'auto'"),
      D("  MUSTER_WAIT_POLICY = 'hybrid'"), D("OPENMP DISPLAY ENVIRONMENT END")}},
    {"display_env_defaults", {"OMP_DISPLAY_ENV=TRUE"}, NULL, {0}, "display=1,0", NULL, -2,
     {D("  OMP_NESTED = 'FALSE'"), D("  OMP_NUM_THREADS = '#'"), D("  OMP_SCHEDULE = 'STATIC'"),
      D("  OMP_PROC_BIND = 'FALSE'"), D("  OMP_PLACES = ''")}},
    {"display_env_verbose", {"OMP_DISPLAY_ENV=verbose", "MUSTER_SPIN_NS=5000"}, NULL, {0}, "display=1,1", NULL, -2,
     {D("  MUSTER_WAIT_POLICY = 'hybrid'"), D("  MUSTER_SPIN_NS = '5000'"), D("  MUSTER_CPUS_AVAILABLE = '#'"),
      D("OPENMP DISPLAY ENVIRONMENT END")}},
    {"display_env_muster", {"OMP_DISPLAY_ENV=true", "MUSTER_BARRIER=tournament", "MUSTER_WAIT_POLICY=active"}, NULL,
     {0}, "display=1,0", NULL, -2,
     {D("  OMP_WAIT_POLICY = 'ACTIVE'"), D("  MUSTER_BARRIER = 'tournament'"), D("  MUSTER_WAIT_POLICY = 'active'")}},
    {"display_env_omp_wait", {"OMP_DISPLAY_ENV=true", "OMP_WAIT_POLICY=passive"}, NULL, {0}, "display=1,0", NULL, -2,
     {D("  MUSTER_WAIT_POLICY = 'passive'")}},
    {"display_env_monotonic", {"OMP_DISPLAY_ENV=true", "OMP_SCHEDULE=monotonic:guided,4"}, NULL, {0}, "display=1,0",
     NULL, -2, {D("  OMP_SCHEDULE = 'MONOTONIC:GUIDED,4'")}},
    {"display_env_nonmonotonic_static", {"OMP_DISPLAY_ENV=true", "OMP_SCHEDULE=nonmonotonic:static,2"}, NULL, {0},
     "display=1,0", NULL, -2, {D("  OMP_SCHEDULE = 'NONMONOTONIC:STATIC,2'")}},
    {"display_env_stacksize_primary", {"OMP_DISPLAY_ENV=true", "OMP_STACKSIZE=1M", "OMP_PROC_BIND=primary"}, NULL, {0},
     "display=1,0", NULL, -2, {D("  OMP_PROC_BIND = 'MASTER'"), D("  OMP_STACKSIZE = '1048576'")}},
    {"display_env_false", {"OMP_DISPLAY_ENV=false"}, NULL, {0}, "display=0,0", NULL, -1, {0}},
    /* KMP_FORCE_REDUCTION, as libomp (clang-built reductions, kmp/sync.c) */
    {"force_reduction_unset", {0}, NULL, {0}, "force_reduction=auto", NULL, -1, {0}},
    /* libomp's waiting: KMP_LIBRARY, KMP_BLOCKTIME, into the wait layer's request */
    {"kmp_unset", {0}, NULL, {0}, "kmp_library=0 kmp_blocktime=-1 spin_request_ns=-1", NULL, -1, {0}},
    {"kmp_blocktime_0", {"KMP_BLOCKTIME=0"}, NULL, {0}, "kmp_blocktime=0 spin_request_ns=0", NULL, -1, {0}},
    {"kmp_blocktime_7", {"KMP_BLOCKTIME= 7 "}, NULL, {0}, "kmp_blocktime=7 spin_request_ns=7000000", NULL, -1, {0}},
    {"kmp_blocktime_infinite", {"KMP_BLOCKTIME=infinite"}, NULL, {0},
     "kmp_blocktime=2147483647 spin_request_ns=10000000000", NULL, -1, {0}},
    {"kmp_blocktime_bad", {"KMP_BLOCKTIME=5ms"}, NULL,
     {"KMP_BLOCKTIME='5ms' is not a whole number of milliseconds or infinite; using muster's default spin"},
     "kmp_blocktime=-1 spin_request_ns=-1", NULL, -1, {0}},
    {"kmp_library_turnaround", {"KMP_LIBRARY=turnaround"}, NULL, {0},
     "kmp_library=2 kmp_blocktime=-1 spin_request_ns=10000000000", NULL, -1, {0}},
    {"kmp_library_serial", {"KMP_LIBRARY=serial", "OMP_NUM_THREADS=4"}, NULL, {0}, "kmp_library=1", NULL, -1, {0}},
    {"kmp_library_then_blocktime", {"KMP_LIBRARY=turnaround", "KMP_BLOCKTIME=3"}, NULL, {0},
     "kmp_library=2 kmp_blocktime=3 spin_request_ns=3000000", NULL, -1, {0}},
    {"kmp_library_bad", {"KMP_LIBRARY=fast"}, NULL,
     {"KMP_LIBRARY='fast' is not serial, turnaround or throughput; using throughput"}, "kmp_library=0", NULL, -1,
     {0}},
    {"force_reduction_tree", {"KMP_FORCE_REDUCTION=tree"}, NULL, {0}, "force_reduction=tree", NULL, -1, {0}},
    {"force_reduction_critical", {"KMP_FORCE_REDUCTION= Critical "}, NULL, {0}, "force_reduction=critical", NULL,
     -1, {0}},
    {"force_reduction_atomic", {"KMP_FORCE_REDUCTION=atomic"}, NULL, {0}, "force_reduction=atomic", NULL, -1, {0}},
    {"force_reduction_bad", {"KMP_FORCE_REDUCTION=fast"}, NULL,
     {"KMP_FORCE_REDUCTION='fast' is not critical, atomic or tree; using the runtime's choice"},
     "force_reduction=auto", NULL, -1, {0}},
    {"force_reduction_trailing", {"KMP_FORCE_REDUCTION=tree,atomic"}, NULL,
     {"KMP_FORCE_REDUCTION='tree,atomic' is not critical, atomic or tree; using the runtime's choice"},
     "force_reduction=auto", NULL, -1, {0}},
    {"display_env_bad", {"OMP_DISPLAY_ENV=yes"}, NULL,
     {"OMP_DISPLAY_ENV='yes' is not true, false or verbose; using false"}, "display=0,0", NULL, -1, {0}},
};

/* Each key=pattern word of `expected` against the same key in the line. */
static void check_words(const char *name, const char *what, const char *line, size_t len, const char *expected)
{
    char want[512];
    snprintf(want, sizeof want, "%s", expected);
    for (char *save = NULL, *word = strtok_r(want, " ", &save); word != NULL; word = strtok_r(NULL, " ", &save)) {
        /* A quoted value holds spaces: glue its words back together. */
        char pattern[512];
        snprintf(pattern, sizeof pattern, "%s", word);
        char *eq = strchr(pattern, '=');
        CHECK(eq != NULL, "%s: bad expectation '%s'", name, word);
        while (eq[1] == '\'' && (strlen(eq + 1) < 2 || pattern[strlen(pattern) - 1] != '\'')) {
            char *more = strtok_r(NULL, " ", &save);
            CHECK(more != NULL, "%s: unclosed quote in '%s'", name, expected);
            strncat(pattern, " ", sizeof pattern - strlen(pattern) - 1);
            strncat(pattern, more, sizeof pattern - strlen(pattern) - 1);
        }
        *eq = '\0';
        char got[512];
        CHECK(env_word(line, len, pattern, got, sizeof got), "%s: no %s in the %s line: %.*s", name, pattern, what,
              (int)len, line);
        CHECK(env_glob(eq + 1, got), "%s: %s=%s, expected %s", name, pattern, got, eq + 1);
    }
}

/* The child's stderr lines as "stderr| LINE", then its stdout. */
static char *stderr_then_stdout(const env_child_result *r)
{
    size_t size = strlen(r->out) + 1;
    for (const char *line = r->err; line != NULL && *line; line = env_next_line(line))
        size += strcspn(line, "\n") + 9;
    char *text = malloc(size), *end = text;
    CHECK(text != NULL);
    for (const char *line = r->err; line != NULL && *line; line = env_next_line(line)) {
        size_t len = strcspn(line, "\n");
        end += sprintf(end, "stderr| %.*s\n", (int)len, line);
    }
    strcpy(end, r->out);
    return text;
}

/* Case i (env_drive's check). */
static void check_case(size_t i, char **leading, char **command, int command_len)
{
    (void)leading;
    const omp_env_case *c = &cases[i];
    const char *args[2] = {c->kind, NULL};
    env_child_result r = env_child(command, command_len, args, c->env);
    char *output = stderr_then_stdout(&r);
    CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: the child failed (status %#x)\n%s%s", c->name,
          r.status, r.out, r.err);
    CHECK(strstr(r.out, "\ntest_omp_env: ok\n") != NULL, "%s: the child did not finish\n%s", c->name, r.out);
    unsigned warnings = 0;
    while (warnings < 12 && c->warnings[warnings] != NULL)
        warnings++;
    /* The warnings, in order: every "libmuster-omp: " line, each matching its pattern. */
    CHECK(env_count_lines(output, "stderr| libmuster-omp: ") == warnings, "%s: %u warnings, expected %u\n%s", c->name,
          env_count_lines(output, "stderr| libmuster-omp: "), warnings, output);
    unsigned k = 0;
    for (const char *line = output; line != NULL && *line; line = env_next_line(line)) {
        if (strncmp(line, "stderr| libmuster-omp: ", 23) != 0)
            continue;
        size_t len = strcspn(line, "\n");
        CHECK(env_glob_n(c->warnings[k], line + 23, len - 23), "%s: warning %u is '%.*s', expected '%s'", c->name,
              k + 1, (int)(len - 23), line + 23, c->warnings[k]);
        k++;
    }
    int expected_lines = c->stderr_lines == -1 ? (int)warnings : c->stderr_lines;
    unsigned written = env_count_lines(r.err, "");
    CHECK(expected_lines == -2 || written == (unsigned)expected_lines,
          "%s: %u lines on stderr, expected %d written while reading\n%s", c->name, written, expected_lines, r.err);
    size_t len;
    const char *line = env_line(r.out, "nthreads=", &len);
    CHECK(line != NULL, "%s: no settings line\n%s", c->name, r.out);
    check_words(c->name, "settings", line, len, c->settings);
    if (c->available != NULL) {
        line = env_line(r.out, "available=", &len);
        CHECK(line != NULL, "%s: no available= line", c->name);
        check_words(c->name, "available", line, len, c->available);
    }
    /* The displayed lines, in this order. */
    const char *missing = NULL;
    CHECK(env_lines_in_order(output, c->display, 28, &missing), "%s: no line '%s' (in this order)\n%s", c->name,
          missing, output);
    printf("%-34s ok (%u warning(s))\n", c->name, warnings);
    free(output);
    env_child_free(&r);
}

int main(int argc, char **argv)
{
    return env_drive(argc, argv, child_main, 0, sizeof cases / sizeof cases[0], check_case);
}
