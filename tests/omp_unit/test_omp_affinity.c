/* test_omp_affinity: place lists and team places (affinity.c), as pure
 * functions: OMP_PLACES syntax against a made-up affinity mask, the
 * abstract names against the flat view and against this machine's
 * topology, libgomp's spelling of a place list, and the OpenMP 5.1 §2.6.2
 * arithmetic of primary, close and spread for more and fewer threads than
 * places, inside and outside sub-partitions; the CPUs a bound team's
 * places hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "omp/env.h"
#include "omp/internal.h" /* a team, for muster_omp_current_partition */
#include "platform/cpus.h"

static const int mask16[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* Parses text against CPUs 0-15 and returns libgomp's spelling of the
 * places, or "error: <problem>". */
static const char *parse16(const char *text, unsigned *dropped)
{
    static char out[512];
    muster_omp_places places;
    char problem[200];
    unsigned none;
    if (muster_omp_places_parse(text, NULL, mask16, 16, &places, dropped ? dropped : &none, problem,
                                sizeof problem) != 0) {
        snprintf(out, sizeof out, "error: %s", problem);
        return out;
    }
    muster_omp_places_format(&places, out, sizeof out);
    muster_omp_places_free(&places);
    return out;
}

static void expect_places(const char *text, const char *expected, unsigned expected_dropped)
{
    unsigned dropped = 99;
    const char *got = parse16(text, &dropped);
    CHECK(strcmp(got, expected) == 0, "OMP_PLACES='%s': got %s, expected %s", text, got, expected);
    CHECK(dropped == expected_dropped, "OMP_PLACES='%s': %u places dropped, expected %u", text, dropped,
          expected_dropped);
}

static void expect_error(const char *text)
{
    const char *got = parse16(text, NULL);
    CHECK(strncmp(got, "error: ", 7) == 0 && strlen(got) > 8, "OMP_PLACES='%s' should be malformed, got %s", text,
          got);
    printf("malformed %-14s %s\n", text, got + 7);
}

static void test_explicit_lists(void)
{
    expect_places("{0,1},{2,3}", "{0:2},{2:2}", 0);
    expect_places("{0:4}", "{0:4}", 0);
    expect_places("{0:4:2}", "{0,2,4,6}", 0);
    expect_places("{0:2}:4:2", "{0:2},{2:2},{4:2},{6:2}", 0);
    expect_places("{4}:3:-2", "{4},{2},{0}", 0);
    expect_places("{0},{1},!{0}", "{1}", 0);
    expect_places("{0:4,!2}", "{0:2,3}", 0);
    expect_places("{!2,0:4}", "{0:2,3}", 0);
    expect_places(" { 0 , 1 } , { 2 } ", "{0:2},{2}", 0);
    expect_places("{3,1,1}", "{1,3}", 0);
    expect_places("{0:2}:2,{8}", "{0:2},{1:2},{8}", 0);
    expect_places("{0,1},{2,3},!{3,2}", "{0:2}", 0);
    /* CPUs outside the mask leave the place; empty places leave the list. */
    expect_places("{14:4}", "{14:2}", 0);
    expect_places("{0},{20},{21}", "{0}", 2);
    expect_places("{15}:3", "{15}", 2);

    const char *malformed[] = {"", "   ", "bogus", "{0", "{0,}", "{a}", "{0}:0", "{0}:2:", "{0}x", "!{5}",
                               "{0},!{0}", "{!0}", "{0:0}", "{!0:2}", "{99999}", "{0}:3:-1", "{20}", "{0},",
                               "!{0}:2", "{0}::2", "{-1}", "{0}{1}", "{0};{1}"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++)
        expect_error(malformed[i]);
    /* Found by fuzz_places: 367 million CPUs listed took seconds and
     * gigabytes before being refused; now refused at once, with the why. */
    const char *huge = parse16("{4:43334}:8484", NULL);
    CHECK(strstr(huge, "error: ") == huge && strstr(huge, "1048576 CPUs"), "huge list: %s", huge);
    huge = parse16("{0:65536,0:65536,0:65536,0:65536,0:65536,0:65536,0:65536,0:65536,0:65536,0:65536,0:65536,"
                   "0:65536,0:65536,0:65536,0:65536,0:65536,0:65536}", NULL);
    CHECK(strstr(huge, "error: ") == huge && strstr(huge, "1048576 CPUs in one place"), "huge place: %s", huge);
    expect_places("{0:16}:4096:16", "{0:16}", 4095); /* 65 536 CPUs listed: within the bound */
}

/* The flat view (no topology): each allowed CPU a thread and a core; all of
 * them one socket, NUMA domain and cache. */
static void test_flat_names(void)
{
    static const int mask[] = {0, 1, 2, 3, 8, 9};
    const struct {
        const char *text, *expected;
    } cases[] = {
        {"threads", "{0},{1},{2},{3},{8},{9}"}, {"cores", "{0},{1},{2},{3},{8},{9}"},
        {"CORES", "{0},{1},{2},{3},{8},{9}"},   {"threads(2)", "{0},{1}"},
        {" threads ( 3 ) ", "{0},{1},{2}"},     {"threads(100)", "{0},{1},{2},{3},{8},{9}"},
        {"sockets", "{0:4,8:2}"},               {"sockets(3)", "{0:4,8:2}"},
        {"ll_caches", "{0:4,8:2}"},             {"numa_domains", "{0:4,8:2}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        muster_omp_places places;
        char text[256], problem[200];
        CHECK(muster_omp_places_parse(cases[i].text, NULL, mask, 6, &places, NULL, problem, sizeof problem) == 0,
              "%s: %s", cases[i].text, problem);
        muster_omp_places_format(&places, text, sizeof text);
        CHECK(strcmp(text, cases[i].expected) == 0, "%s: got %s, expected %s", cases[i].text, text,
              cases[i].expected);
        muster_omp_places_free(&places);
    }
    const char *malformed[] = {"threads(0)", "threads(", "cores x", "sockets()", "threads(2", "numa_domain",
                               "ll_caches(-1)"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        muster_omp_places places;
        char problem[200];
        CHECK(muster_omp_places_parse(malformed[i], NULL, mask, 6, &places, NULL, problem, sizeof problem) != 0,
              "%s should be malformed", malformed[i]);
        printf("malformed %-14s %s\n", malformed[i], problem);
    }
}

/* Against this machine's topology: every abstract name gives the groups of
 * its level, restricted to the affinity mask. */
static void test_topology_names(void)
{
    muster_topology *topo;
    CHECK(muster_topology_discover(&topo) == 0);
    int allowed[1024];
    unsigned n = muster_affinity_cpus(allowed, 1024);
    const struct {
        const char *name;
        muster_topology_level level;
    } kinds[] = {{"threads", MUSTER_TOPO_PU}, {"cores", MUSTER_TOPO_CORE}, {"sockets", MUSTER_TOPO_PACKAGE},
                 {"numa_domains", MUSTER_TOPO_NUMA}, {"ll_caches", MUSTER_TOPO_L3}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        muster_topology_level level = kinds[k].level;
        if (level == MUSTER_TOPO_L3 && muster_topology_count(topo, level) == 0)
            level = muster_topology_count(topo, MUSTER_TOPO_L2) > 0 ? MUSTER_TOPO_L2 : MUSTER_TOPO_PACKAGE;
        muster_omp_places places;
        CHECK(muster_omp_places_parse(kinds[k].name, topo, allowed, n, &places, NULL, NULL, 0) == 0);
        CHECK(places.count == muster_topology_count(topo, level), "%s", kinds[k].name);
        for (unsigned i = 0; i < places.count; i++) {
            muster_cpu_group g = muster_topology_group(topo, level, i);
            CHECK(places.start[i + 1] - places.start[i] == g.count, "%s place %u", kinds[k].name, i);
            CHECK(memcmp(&places.cpus[places.start[i]], g.cpus, g.count * sizeof(int)) == 0);
        }
        char text[4096];
        muster_omp_places_format(&places, text, sizeof text);
        printf("%-12s %s\n", kinds[k].name, text);
        muster_omp_places_free(&places);
    }
    muster_topology_free(topo);
}

static void test_format(void)
{
    int cpus[] = {0, 1, 2, 5, 7, 8};
    unsigned start[] = {0, 3, 4, 6};
    muster_omp_places places = {3, start, cpus};
    char text[64];
    size_t n = muster_omp_places_format(&places, text, sizeof text);
    CHECK(strcmp(text, "{0:3},{5},{7:2}") == 0, "%s", text);
    CHECK(n == strlen(text));
    char small[5];
    CHECK(muster_omp_places_format(&places, small, sizeof small) == n);
    CHECK(strcmp(small, "{0:3") == 0, "%s", small);
    CHECK(muster_omp_places_format(&places, NULL, 0) == n);
}

/* ---- team places ---- */

/* "place/first+count" for each member, space-separated. */
static const char *team(unsigned bind, int primary, int first, int count, unsigned num_places, unsigned size)
{
    static char out[1024];
    muster_omp_place_state members[64];
    muster_omp_assign_places(bind, primary, first, count, num_places, size, members);
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < size; i++)
        used += (size_t)snprintf(out + used, sizeof out - used, "%s%d/%d+%d", i ? " " : "", members[i].place,
                                 members[i].partition_first, members[i].partition_count);
    return out;
}

#define EXPECT_TEAM(expected, ...)                                                              \
    do {                                                                                        \
        const char *got_ = team(__VA_ARGS__);                                                   \
        CHECK(strcmp(got_, expected) == 0, "team(%s): got '%s', expected '%s'", #__VA_ARGS__, got_, expected); \
    } while (0)

enum { F = MUSTER_OMP_BIND_FALSE, T = MUSTER_OMP_BIND_TRUE, M = MUSTER_OMP_BIND_PRIMARY,
       C = MUSTER_OMP_BIND_CLOSE, S = MUSTER_OMP_BIND_SPREAD };

static void test_team_places(void)
{
    /* No binding, or no places: nobody is bound; partitions are inherited. */
    EXPECT_TEAM("-1/0+4 -1/0+4 -1/0+4", F, 1, 0, 0, 4, 3);
    EXPECT_TEAM("-1/0+0 -1/0+0", C, -1, 0, 0, 0, 2);
    /* primary: everyone on the primary's place. */
    EXPECT_TEAM("1/0+4 1/0+4 1/0+4", M, 1, 0, 0, 4, 3);
    EXPECT_TEAM("0/0+4 0/0+4", M, -1, 0, 0, 4, 2); /* unbound primary: the partition's first place */
    /* close, T <= P: consecutive places from the primary's, wrapping. */
    EXPECT_TEAM("0/0+4 1/0+4", C, -1, 0, 0, 4, 2);
    EXPECT_TEAM("2/0+4 3/0+4 0/0+4 1/0+4", C, 2, 0, 4, 4, 4);
    EXPECT_TEAM("2/0+4 3/0+4 0/0+4 1/0+4", T, 2, 0, 4, 4, 4); /* true acts as close */
    /* close, T > P: s or s+1 consecutive threads per place, the first T mod P places one more. */
    EXPECT_TEAM("0/0+4 0/0+4 1/0+4 1/0+4 2/0+4 3/0+4", C, 0, 0, 4, 4, 6);
    EXPECT_TEAM("0/0+4 0/0+4 1/0+4 1/0+4 2/0+4 2/0+4 3/0+4 3/0+4", C, 0, 0, 4, 4, 8);
    EXPECT_TEAM("3/0+4 3/0+4 0/0+4 1/0+4 2/0+4", C, 3, 0, 4, 4, 5);
    EXPECT_TEAM("0/0+1 0/0+1 0/0+1", C, 0, 0, 1, 1, 3);
    /* close inside a sub-partition [4, 8) of 8 places: wraps within it. */
    EXPECT_TEAM("5/4+4 6/4+4 7/4+4", C, 5, 4, 4, 8, 3);
    EXPECT_TEAM("6/4+4 7/4+4 4/4+4 5/4+4", C, 6, 4, 4, 8, 4);
    /* spread, T <= P: T sub-partitions of s or s+1 places; each thread on
     * its sub-partition's first place, the primary on its own. */
    EXPECT_TEAM("0/0+2 2/2+2", S, 0, 0, 4, 4, 2);
    EXPECT_TEAM("3/2+2 0/0+2", S, 3, 0, 4, 4, 2);
    EXPECT_TEAM("0/0+3 3/3+3 6/6+2", S, 0, 0, 8, 8, 3);
    EXPECT_TEAM("4/3+3 6/6+2 0/0+3", S, 4, 0, 8, 8, 3);
    EXPECT_TEAM("7/6+2 0/0+3 3/3+3", S, 7, 0, 8, 8, 3);
    EXPECT_TEAM("0/0+1 1/1+1 2/2+1 3/3+1", S, 0, 0, 4, 4, 4);
    EXPECT_TEAM("0/0+4", S, 0, 0, 4, 4, 1);
    /* spread, T > P: one-place partitions, s or s+1 threads on each. */
    EXPECT_TEAM("0/0+1 0/0+1 1/1+1 1/1+1 2/2+1 3/3+1", S, 0, 0, 4, 4, 6);
    EXPECT_TEAM("2/2+1 2/2+1 3/3+1 0/0+1 1/1+1", S, 2, 0, 4, 4, 5);
    /* Nested: spread within the primary's sub-partition [2, 4). */
    EXPECT_TEAM("2/2+1 3/3+1", S, 2, 2, 2, 4, 2);
    EXPECT_TEAM("2/2+1 2/2+1 3/3+1", S, 2, 2, 2, 4, 3);
    /* Then close inside a one-place partition: everyone shares it. */
    EXPECT_TEAM("3/3+1 3/3+1", C, 3, 3, 1, 4, 2);
    /* A partition that does not fit the place list is taken as all places. */
    EXPECT_TEAM("0/0+2 1/0+2", C, 0, 1, 5, 2, 2);

    /* Every case of up to 9 places and 12 threads keeps the invariants:
     * places inside their partitions, partitions inside the primary's,
     * member 0 on the primary's place, and with spread, T <= P, the
     * sub-partitions tile the primary's partition. */
    muster_omp_place_state m[16];
    for (unsigned p = 1; p <= 9; p++)
        for (unsigned size = 1; size <= 12; size++)
            for (int primary = 0; primary < (int)p; primary++)
                for (unsigned bind = M; bind <= S; bind++) {
                    muster_omp_assign_places(bind, primary, 0, (int)p, p, size, m);
                    CHECK(m[0].place == primary);
                    unsigned covered = 0;
                    for (unsigned i = 0; i < size; i++) {
                        CHECK(m[i].place >= m[i].partition_first &&
                              m[i].place < m[i].partition_first + m[i].partition_count);
                        CHECK(m[i].partition_first >= 0 && m[i].partition_first + m[i].partition_count <= (int)p);
                        covered += (unsigned)m[i].partition_count;
                    }
                    if (bind == S && size <= p)
                        CHECK(covered == p, "spread p=%u size=%u: partitions cover %u places", p, size, covered);
                }
}

/* A bound team can run as many members at once as its places hold CPUs:
 * the union, counted once where places overlap or members share one. */
static void test_bound_cpus(void)
{
    /* places {0}, {1}, {0,1}, {2,3}, {1030} */
    unsigned start[] = {0, 1, 2, 4, 6, 7};
    int cpus[] = {0, 1, 0, 1, 2, 3, 1030};
    muster_omp_places list = {.count = 5, .start = start, .cpus = cpus};
#define BOUND(...)                                                                                           \
    muster_omp_bound_cpus(&list, (muster_omp_place_state[]){__VA_ARGS__},                                   \
                          sizeof((muster_omp_place_state[]){__VA_ARGS__}) / sizeof(muster_omp_place_state))
    CHECK(BOUND({0, 0, 0}, {0, 0, 0}) == 1, "two members on place {0}: one CPU");
    CHECK(BOUND({0, 0, 0}, {1, 0, 0}) == 2, "{0} and {1}: two");
    CHECK(BOUND({0, 0, 0}, {2, 0, 0}, {1, 0, 0}) == 2, "{0}, {0,1}, {1}: two");
    CHECK(BOUND({2, 0, 0}, {3, 0, 0}, {3, 0, 0}) == 4, "{0,1}, {2,3}, {2,3}: four");
    CHECK(BOUND({0, 0, 0}, {-1, 0, 0}) == 0, "an unbound member: the process's CPUs (0)");
    CHECK(BOUND({0, 0, 0}, {5, 0, 0}) == 0, "a place beyond the list: 0");
    CHECK(BOUND({0, 0, 0}, {4, 0, 0}) == 0, "CPU 1030, beyond the bitmap: 0");
#undef BOUND
    muster_omp_places none = {.count = 0, .start = start, .cpus = cpus};
    CHECK(muster_omp_bound_cpus(&none, (muster_omp_place_state[]){{0, 0, 0}}, 1) == 0, "no places: 0");
}

/* The place partition comes from the teams a thread is in; a team of one
 * (no places array) passes on its forker's. */
static void test_current_partition(void)
{
    muster_omp_place_state outer_places[2] = {{0, 0, 2}, {2, 2, 2}};
    muster_omp_team outer = {.size = 2, .level = 1, .places = outer_places};
    muster_omp_team solo = {.size = 1, .level = 2, .parent = &outer, .parent_id = 1};
    muster_omp_thread self = {.team = &solo, .id = 0, .place = {3, 0, 1}};
    int first, count;
    muster_omp_current_partition(&self, &first, &count);
    CHECK(first == 2 && count == 2, "%d+%d", first, count);
    self.team = &outer;
    muster_omp_current_partition(&self, &first, &count);
    CHECK(first == 0 && count == 2, "%d+%d", first, count);
    self.team = NULL; /* outside any region: all places (none in this test's environment) */
    muster_omp_current_partition(&self, &first, &count);
    CHECK(first == 0 && count == (int)muster_omp_places_get()->count, "%d+%d", first, count);
}

int main(void)
{
    test_explicit_lists();
    test_bound_cpus();
    test_flat_names();
    test_topology_names();
    test_format();
    test_team_places();
    test_current_partition();
    printf("test_omp_affinity: ok\n");
    return 0;
}
