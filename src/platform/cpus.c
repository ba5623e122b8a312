/* How many CPUs this process can really use: the affinity mask and the CPU
 * quota of its cgroup (containers), v2's cpu.max or v1's cpu.cfs_quota_us /
 * cpu.cfs_period_us, which libgomp and libomp both ignore. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/cpus.h"
#include "platform/platform.h"

/* A whole number > 0, all digits (strtoull alone would take "-5" or " 5"). */
static int parse_positive(const char *text, unsigned long long *out)
{
    if (*text < '0' || *text > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || value == 0)
        return -1;
    *out = value;
    return 0;
}

/* The CPUs a quota per period allows, 0 when quota_text is `unlimited`
 * (v2's "max", v1's "-1"); -1 when either number is malformed. */
static int quota_cpus(const char *quota_text, const char *unlimited, const char *period_text, double *cpus)
{
    unsigned long long quota, period;
    if (parse_positive(period_text, &period) != 0)
        return -1;
    if (strcmp(quota_text, unlimited) == 0) {
        *cpus = 0.0;
        return 0;
    }
    if (parse_positive(quota_text, &quota) != 0)
        return -1;
    *cpus = (double)quota / (double)period;
    return 0;
}

int muster_parse_cpu_max(const char *text, double *cpus)
{
    char quota[32], period[32], tail;
    if (sscanf(text, "%31s %31s %c", quota, period, &tail) != 2)
        return -1;
    return quota_cpus(quota, "max", period, cpus);
}

/* The first line of dir/name, without its newline; false when unreadable. */
static bool read_line(const char *dir, const char *name, char *text, size_t size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return false;
    bool ok = fgets(text, (int)size, file) != NULL;
    fclose(file);
    if (ok)
        text[strcspn(text, "\n")] = '\0';
    return ok;
}

/* A cgroup directory's own quota in CPUs; 0: none, unreadable or malformed. */
typedef double (*quota_reader)(const char *dir);

static double read_cpu_max(const char *dir)
{
    char text[128];
    double cpus = 0.0;
    if (!read_line(dir, "cpu.max", text, sizeof text) || muster_parse_cpu_max(text, &cpus) != 0)
        return 0.0;
    return cpus;
}

int muster_parse_cfs_quota(const char *quota_text, const char *period_text, double *cpus)
{
    return quota_cpus(quota_text, "-1", period_text, cpus);
}

static double read_cfs_quota(const char *dir)
{
    char quota[64], period[64];
    double cpus = 0.0;
    if (!read_line(dir, "cpu.cfs_quota_us", quota, sizeof quota) ||
        !read_line(dir, "cpu.cfs_period_us", period, sizeof period) ||
        muster_parse_cfs_quota(quota, period, &cpus) != 0)
        return 0.0;
    return cpus;
}

/* The tightest quota on the path from root/cgroup up to root. */
static double tightest_on_path(const char *root, const char *cgroup, quota_reader read_quota)
{
    char dir[4096];
    double tightest = 0.0;
    int length = snprintf(dir, sizeof dir, "%s%s%s", root, cgroup[0] == '/' ? "" : "/", cgroup);
    if (length < 0 || (size_t)length >= sizeof dir)
        return 0.0; /* a path this long is none we can read */
    /* A parent's quota bounds its children: take the smallest on the path. */
    for (;;) {
        double cpus = read_quota(dir);
        if (cpus > 0.0 && (tightest == 0.0 || cpus < tightest))
            tightest = cpus;
        char *slash = strrchr(dir, '/');
        if (slash == NULL || (size_t)(slash - dir) < strlen(root))
            break;
        *slash = '\0';
    }
    return tightest;
}

double muster_cgroup_cpu_quota(const char *root, const char *cgroup)
{
    return tightest_on_path(root, cgroup, read_cpu_max);
}

double muster_cgroup_v1_cpu_quota(const char *root, const char *cgroup)
{
    return tightest_on_path(root, cgroup, read_cfs_quota);
}

/* ---- where the process's cgroups are ---- */

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape_mount_path(char *path)
{
    char *out = path;
    for (const char *in = path; *in != '\0'; out++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' && in[3] >= '0' &&
            in[3] <= '7') {
            *out = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 4;
        } else {
            *out = *in++;
        }
    }
    *out = '\0';
}

/* Whether the comma-separated list holds `word`. */
static bool list_has(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p != NULL; p = strchr(p, ',')) {
        if (*p == ',')
            p++;
        if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    }
    return false;
}

/* Where one hierarchy (v2, or v1's with the cpu controller) puts this
 * process: its path in the hierarchy, and where the hierarchy is mounted
 * (the part of it mounted, mount_root, at mount_point). */
typedef struct cgroup_place {
    bool in_hierarchy, mounted;
    char path[4096], mount_root[4096], mount_point[4096];
} cgroup_place;

/* One pass over a mountinfo file: the v2 mount (cgroup2) and the v1 mount
 * with the cpu controller (cgroup, super options holding "cpu"), the first
 * of each. */
static void find_cgroup_mounts(const char *mountinfo, cgroup_place *v2, cgroup_place *v1)
{
    FILE *file = fopen(mountinfo, "r");
    if (file == NULL)
        return;
    char line[8192];
    while ((!v2->mounted || !v1->mounted) && fgets(line, sizeof line, file) != NULL) {
        /* id parent major:minor root mount-point options [optional...] - fstype source super-options */
        char root[4096], point[4096], fstype[64], super[1024];
        const char *dash = strstr(line, " - ");
        if (dash == NULL || sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", fstype, super) != 2)
            continue;
        cgroup_place *place = strcmp(fstype, "cgroup2") == 0                               ? v2
                              : strcmp(fstype, "cgroup") == 0 && list_has(super, "cpu") ? v1
                                                                                         : NULL;
        if (place == NULL || place->mounted)
            continue;
        unescape_mount_path(root);
        unescape_mount_path(point);
        snprintf(place->mount_root, sizeof place->mount_root, "%s", root);
        snprintf(place->mount_point, sizeof place->mount_point, "%s", point);
        place->mounted = true;
    }
    fclose(file);
}

/* One pass over a /proc/<pid>/cgroup file: the "0::/path" line (v2) and
 * the line whose controllers include cpu (v1, "4:cpu,cpuacct:/path"). */
static void own_cgroup_paths(const char *proc_cgroup, cgroup_place *v2, cgroup_place *v1)
{
    FILE *file = fopen(proc_cgroup, "r");
    if (file == NULL)
        return;
    char line[4096];
    while ((!v2->in_hierarchy || !v1->in_hierarchy) && fgets(line, sizeof line, file) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *controllers = strchr(line, ':');
        char *cgroup = controllers != NULL ? strchr(controllers + 1, ':') : NULL;
        if (cgroup == NULL)
            continue;
        *cgroup++ = '\0';
        *controllers++ = '\0'; /* line: the hierarchy's number */
        cgroup_place *place = strcmp(line, "0") == 0 && *controllers == '\0' ? v2
                              : list_has(controllers, "cpu")                  ? v1
                                                                              : NULL;
        if (place == NULL || place->in_hierarchy)
            continue;
        snprintf(place->path, sizeof place->path, "%s", cgroup);
        place->in_hierarchy = true;
    }
    fclose(file);
}

/* The quota of one hierarchy: the process's path there made relative to
 * the mount's root (a container sees its own cgroup as the root), then the
 * tightest on the way up to the mount point. */
static double hierarchy_quota(const cgroup_place *place, double (*quota)(const char *root, const char *cgroup))
{
    if (!place->in_hierarchy || !place->mounted)
        return 0.0;
    const char *relative = place->path;
    size_t root_length = strlen(place->mount_root);
    if (strcmp(place->mount_root, "/") != 0 && strncmp(place->path, place->mount_root, root_length) == 0 &&
        (place->path[root_length] == '/' || place->path[root_length] == '\0'))
        relative = place->path + root_length;
    return quota(place->mount_point, relative);
}

double muster_cpu_quota_from(const char *proc_cgroup, const char *mountinfo)
{
    cgroup_place v2 = {0}, v1 = {0};
    own_cgroup_paths(proc_cgroup, &v2, &v1);
    if (!v2.in_hierarchy && !v1.in_hierarchy)
        return 0.0;
    find_cgroup_mounts(mountinfo, &v2, &v1);
    if (v2.in_hierarchy && !v2.mounted) {
        /* Without a mountinfo entry a v2 hierarchy is taken to be at /sys/fs/cgroup. */
        snprintf(v2.mount_root, sizeof v2.mount_root, "/");
        snprintf(v2.mount_point, sizeof v2.mount_point, "/sys/fs/cgroup");
        v2.mounted = true;
    }
    /* A hybrid host has both: the tighter one that is set counts. */
    double v2_quota = hierarchy_quota(&v2, muster_cgroup_cpu_quota);
    double v1_quota = hierarchy_quota(&v1, muster_cgroup_v1_cpu_quota);
    if (v2_quota > 0.0 && (v1_quota == 0.0 || v2_quota < v1_quota))
        return v2_quota;
    return v1_quota;
}

/* The process's mask, read when the library loads: later, the thread that
 * creates a barrier is often pinned to one CPU (an OpenMP primary thread is),
 * and its own mask would make every team look oversubscribed.  Written only
 * by the constructor, before any thread of ours can read it. */
static cpu_set_t process_mask;
static unsigned process_cpus; /* 0: the mask could not be read at load */

static unsigned read_mask(cpu_set_t *mask)
{
    if (sched_getaffinity(0, sizeof *mask, mask) == 0 && CPU_COUNT(mask) > 0)
        return (unsigned)CPU_COUNT(mask);
    CPU_ZERO(mask);
    return 0;
}

/* Priority 101, the first an application may use: before every constructor
 * of default priority in the same library, among them libmuster-omp's
 * at_load, which binds the initial thread to its place under
 * OMP_PROC_BIND.  Run after it (the link order put it there), this read the
 * bound thread's mask: one CPU, and every team looked oversubscribed. */
__attribute__((constructor(101))) static void read_process_mask(void)
{
    process_cpus = read_mask(&process_mask);
}

void muster_affinity_reread(void)
{
    read_process_mask();
}

/* The load-time mask, or, when it could not be read then, the calling
 * thread's mask now (into *mask, leaving the shared copy alone). */
static unsigned process_mask_or_own(cpu_set_t *mask)
{
    if (process_cpus > 0) {
        *mask = process_mask;
        return process_cpus;
    }
    return read_mask(mask);
}

unsigned muster_affinity_cpus(int *cpus, unsigned max)
{
    cpu_set_t mask;
    unsigned count = process_mask_or_own(&mask), stored = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && stored < count; cpu++) {
        if (!CPU_ISSET(cpu, &mask))
            continue;
        if (stored < max)
            cpus[stored] = cpu;
        stored++;
    }
    return count;
}

/* The quota changes when someone changes the container, rarely, and every
 * team, barrier and wait policy made asks for it: a dozen readings of six
 * files at a program's start.  So it is read at most once per
 * QUOTA_REREAD_NS (docs/tuning.md, "the CPU quota's reading"). */
#define QUOTA_REREAD_NS (100 * UINT64_C(1000000))

static pthread_mutex_t quota_lock = PTHREAD_MUTEX_INITIALIZER;
static double quota_seen;
static uint64_t quota_read_at;
static bool quota_read;

double muster_process_cpu_quota(void)
{
    uint64_t now = muster_now_ns();
    pthread_mutex_lock(&quota_lock);
    if (!quota_read || now - quota_read_at >= QUOTA_REREAD_NS) {
        quota_seen = muster_cpu_quota_from("/proc/self/cgroup", "/proc/self/mountinfo");
        quota_read_at = now;
        quota_read = true;
    }
    double quota = quota_seen;
    pthread_mutex_unlock(&quota_lock);
    return quota;
}

unsigned muster_cpus_available(void)
{
    cpu_set_t mask;
    unsigned cpus = process_mask_or_own(&mask);
    if (cpus == 0)
        cpus = 1;
    double quota = muster_process_cpu_quota();
    if (quota > 0.0 && ceil(quota) < cpus)
        cpus = (unsigned)ceil(quota);
    return cpus;
}

/* One "cpuN user nice system idle iowait irq softirq steal ..." line of
 * /proc/stat: N (-1 for the "cpu" total) and the busy ticks.  False for any
 * other line. */
static bool parse_stat_line(const char *line, int *cpu, unsigned long long *busy)
{
    if (strncmp(line, "cpu", 3) != 0)
        return false;
    char *end;
    *cpu = -1;
    if (line[3] >= '0' && line[3] <= '9')
        *cpu = (int)strtol(line + 3, &end, 10);
    else if (line[3] == ' ')
        end = (char *)line + 3;
    else
        return false;
    unsigned long long field[7];
    for (int f = 0; f < 7; f++) {
        const char *start = end;
        field[f] = strtoull(start, &end, 10);
        if (end == start)
            return false;
    }
    /* user, nice, system, (idle, iowait,) irq, softirq */
    *busy = field[0] + field[1] + field[2] + field[5] + field[6];
    return true;
}

/* Whether cpu is among the n ascending ids (any cpu when n is 0). */
static bool among(int cpu, const int *cpus, unsigned n)
{
    if (n == 0)
        return true;
    for (unsigned i = 0; i < n && cpus[i] <= cpu; i++)
        if (cpus[i] == cpu)
            return true;
    return false;
}

/* Adds the busy ticks of one /proc/stat line to *sum when it is a "cpuN"
 * line of one of the cpus (the "cpu" total never counts; *found says one
 * did).  False once the cpu lines are over: they come first. */
static bool add_stat_line(const char *line, const int *cpus, unsigned n, unsigned long long *sum, bool *found)
{
    int cpu;
    unsigned long long busy;
    if (!parse_stat_line(line, &cpu, &busy))
        return false;
    if (cpu >= 0 && among(cpu, cpus, n)) {
        *sum += busy;
        *found = true;
    }
    return true;
}

int muster_parse_stat_busy(const char *text, const int *cpus, unsigned n, unsigned long long *ticks)
{
    unsigned long long sum = 0;
    bool found = false;
    for (const char *line = text; *line && add_stat_line(line, cpus, n, &sum, &found);) {
        const char *next = strchr(line, '\n');
        if (next == NULL)
            break;
        line = next + 1;
    }
    *ticks = sum;
    return found ? 0 : -1;
}

/* The process's CPU ids, read once (the load-time mask does not change);
 * none (all CPUs) when the mask holds more than fit. */
#define STAT_CPUS_MAX 1024
static int stat_cpus[STAT_CPUS_MAX];
static unsigned stat_cpu_count;
static pthread_once_t stat_cpus_once = PTHREAD_ONCE_INIT;

static void read_stat_cpus(void)
{
    unsigned count = muster_affinity_cpus(stat_cpus, STAT_CPUS_MAX);
    stat_cpu_count = count <= STAT_CPUS_MAX ? count : 0;
}

bool muster_cpus_busy_ns(uint64_t *busy_ns)
{
    pthread_once(&stat_cpus_once, read_stat_cpus);
    FILE *file = fopen("/proc/stat", "r");
    if (!file)
        return false;
    /* The cpu lines come first; the long "intr" line after them is not read. */
    char line[512];
    unsigned long long sum = 0;
    bool found = false;
    while (fgets(line, sizeof line, file) && add_stat_line(line, stat_cpus, stat_cpu_count, &sum, &found))
        ;
    fclose(file);
    long hz = sysconf(_SC_CLK_TCK);
    if (!found || hz <= 0)
        return false;
    *busy_ns = (uint64_t)(sum * (1000000000ull / (unsigned long long)hz));
    return true;
}
