/* `muster topology`: what muster/topology.h discovers, as a short table or
 * as the JSON object the probe stores in a machine file. */
#include "topology.h"

#include "cli.h"
#include "platform/affinity.h"

#include <muster/barrier.h>
#include <muster/topology.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "muster topology"
#define GROUPS_COLUMN 34     /* where the list of groups starts: after "%-10s %6u %9s       " */
#define LABEL_COLUMN 18      /* after "affinity mask:    " */
#define LINE_WIDTH 80
#define MAX_LINES_PER_LEVEL 3 /* a 1000-core machine's cores still fit a screen */

static void usage(FILE *out)
{
    fprintf(out,
"usage: muster topology [--json]\n"
"\n"
"The machine as libmuster sees it: packages, NUMA nodes, shared L3 and L2 caches,\n"
"cores and hardware threads (PUs), by OS CPU id, restricted to this process's\n"
"affinity mask; the cgroup CPU quota (v2 cpu.max or v1 cpu.cfs_quota_us); and\n"
"the cluster size for cluster-aware barriers (the CPUs sharing the smallest cache\n"
"that more than one of them shares).  From hwloc when muster was built with it, else a flat topology (one\n"
"package, one core per CPU, caches unknown).\n"
"\n"
"options:\n"
"  --json   print one JSON object (the \"topology\" member of a machine file)\n"
"  --help   this text\n");
}

/* Room for any list of count ids: each id and its separator fit in 12 bytes. */
static char *cpus_text(const int *cpus, unsigned count)
{
    size_t size = (size_t)count * 12 + 3;
    char *buf = malloc(size);
    if (buf != NULL)
        muster_format_cpu_list(buf, size, cpus, count);
    return buf;
}

/* "1" when every group has the same size, else "1-4". */
static void group_sizes(const muster_topology *t, muster_topology_level level, char *buf, size_t size)
{
    unsigned lo = ~0u, hi = 0, n = muster_topology_count(t, level);
    for (unsigned g = 0; g < n; g++) {
        unsigned c = muster_topology_group(t, level, g).count;
        lo = c < lo ? c : lo;
        hi = c > hi ? c : hi;
    }
    if (n == 0)
        snprintf(buf, size, "-");
    else if (lo == hi)
        snprintf(buf, size, "%u", lo);
    else
        snprintf(buf, size, "%u-%u", lo, hi);
}

/* Prints words after a label, wrapping at LINE_WIDTH with continuation lines
 * indented to `indent`.  After max_lines it ends the line with " ...": the
 * counts printed beside the list say how much it holds. */
typedef struct wrapper {
    int indent, column, lines, max_lines;
    bool cut;
} wrapper;

static wrapper wrapper_at(int indent, int max_lines)
{
    wrapper w = {indent, indent, 1, max_lines, false};
    return w;
}

/* glue: the word continues the previous one (no space between them). */
static void wrap_word(wrapper *w, const char *word, bool glue)
{
    if (w->cut)
        return;
    int len = (int)strlen(word);
    int space = w->column > w->indent && !glue ? 1 : 0;
    int room = LINE_WIDTH - (w->lines == w->max_lines ? 4 : 0); /* the last line keeps " ..." */
    if (w->column > w->indent && w->column + space + len > room) {
        if (w->lines == w->max_lines) {
            fputs(" ...", stdout);
            w->cut = true;
            return;
        }
        printf("\n%*s", w->indent, "");
        w->column = w->indent;
        w->lines++;
        space = 0;
    }
    printf("%s%s", space ? " " : "", word);
    w->column += space + len;
}

/* Prints open + cpus (compressed) + close as one word when it fits a line,
 * else range by range, each keeping its comma, so a long group wraps. */
static int wrap_cpus(wrapper *w, const int *cpus, unsigned count, const char *open, const char *close)
{
    char *text = cpus_text(cpus, count);
    if (text == NULL)
        return -1;
    size_t len = strlen(open) + strlen(text) + strlen(close);
    if (len <= (size_t)(LINE_WIDTH - w->indent - 4)) {
        char word[LINE_WIDTH + 1];
        snprintf(word, sizeof word, "%s%s%s", open, text, close);
        wrap_word(w, word, false);
        free(text);
        return 0;
    }
    bool first = true;
    for (char *range = text; *range != '\0'; first = false) {
        char *comma = strchr(range, ',');
        size_t n = comma ? (size_t)(comma - range) + 1 : strlen(range);
        char word[64]; /* a range is two ids and a dash */
        snprintf(word, sizeof word, "%s%.*s%s", first ? open : "", (int)n, range, comma ? "" : close);
        wrap_word(w, word, !first);
        range += n;
    }
    free(text);
    return 0;
}

static int print_level(const muster_topology *t, muster_topology_level level, const char *name)
{
    unsigned n = muster_topology_count(t, level);
    char sizes[32];
    group_sizes(t, level, sizes, sizeof sizes);
    printf("%-10s %6u %9s       ", name, n, sizes);
    if (!muster_topology_level_known(t, level)) {
        printf("unknown\n");
        return 0;
    }
    if (n == 0) {
        printf("none\n");
        return 0;
    }
    wrapper w = wrapper_at(GROUPS_COLUMN, MAX_LINES_PER_LEVEL);
    int rc = 0;
    if (level == MUSTER_TOPO_PU) {
        /* PUs are groups of one: one compressed list says it all. */
        muster_cpu_group pus = muster_topology_pus(t);
        rc = wrap_cpus(&w, pus.cpus, pus.count, "", "");
    }
    for (unsigned g = 0; level != MUSTER_TOPO_PU && rc == 0 && g < n && !w.cut; g++) {
        muster_cpu_group group = muster_topology_group(t, level, g);
        rc = wrap_cpus(&w, group.cpus, group.count, "[", "]");
    }
    putchar('\n');
    return rc;
}

static const char *cluster_reason(muster_topology_level level)
{
    switch (level) {
    case MUSTER_TOPO_L2: return "the largest group sharing an L2 cache";
    case MUSTER_TOPO_L3: return "the largest group sharing an L3 cache";
    default: return "no shared cache known: all PUs";
    }
}

static int print_table(const muster_topology *t)
{
    muster_cpu_group affinity = muster_topology_affinity(t);
    printf("muster topology: %s\n", muster_topology_source(t));
    int printed = printf("affinity mask:    %u CPU%s:", affinity.count, affinity.count == 1 ? "" : "s");
    wrapper w = wrapper_at(LABEL_COLUMN, MAX_LINES_PER_LEVEL);
    w.column = printed; /* the list follows the count on the same line */
    if (wrap_cpus(&w, affinity.cpus, affinity.count, "", "") != 0)
        return -1;
    putchar('\n');
    double quota = muster_topology_cpu_quota(t);
    if (quota > 0.0)
        printf("cgroup CPU quota: %.3g CPUs\n", quota);
    else
        printf("cgroup CPU quota: none\n");
    muster_topology_level level;
    unsigned cluster = muster_topology_cluster_size(t, &level);
    printf("cluster size:     %u (%s)\n", cluster, cluster_reason(level));
    const char *source;
    unsigned used = muster_default_cluster_size(&source);
    printf("barriers use N_c: %u (from %s)\n\n", used, source);

    static const struct {
        muster_topology_level level;
        const char *name;
    } rows[] = {
        {MUSTER_TOPO_PACKAGE, "package"}, {MUSTER_TOPO_NUMA, "NUMA node"}, {MUSTER_TOPO_L3, "L3 cache"},
        {MUSTER_TOPO_L2, "L2 cache"},     {MUSTER_TOPO_CORE, "core"},      {MUSTER_TOPO_PU, "PU"},
    };
    printf("%-10s %6s %9s       %s\n", "level", "groups", "CPUs each", "CPUs of each group");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        if (print_level(t, rows[r].level, rows[r].name) != 0)
            return -1;
    return 0;
}

static int parse_args(int argc, char **argv, int *json)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return -1;
        }
        if (strcmp(arg, "--json") == 0) {
            *json = 1;
            continue;
        }
        return cli_usage_error(PROG, "%s '%s' (see --help)",
                               arg[0] == '-' ? "unknown option" : "unexpected argument", arg);
    }
    return 0;
}

int topology_main(int argc, char **argv)
{
    int json = 0;
    int rc = parse_args(argc, argv, &json);
    if (rc != 0)
        return rc < 0 ? CLI_OK : rc;
    muster_topology *t;
    rc = muster_topology_discover(&t);
    if (rc != MUSTER_OK) {
        fprintf(stderr, "%s: %s: %s\n", PROG, muster_strerror(rc), muster_error_detail());
        return CLI_FAILED;
    }
    if (json) {
        rc = muster_topology_write_json(t, stdout);
        if (rc == 0)
            putchar('\n');
    } else {
        rc = print_table(t);
    }
    muster_topology_free(t);
    if (rc != 0 || fflush(stdout) != 0) {
        fprintf(stderr, "%s: could not write the topology: %s\n", PROG,
                rc < 0 && muster_error_detail()[0] ? muster_error_detail() : "write error or no memory");
        return CLI_FAILED;
    }
    return CLI_OK;
}
