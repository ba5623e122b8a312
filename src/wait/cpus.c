/* How many CPUs this process can really use: the affinity mask and the cgroup
 * v2 cpu.max quota (containers), which libgomp and libomp both ignore. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wait.h"

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

int muster_parse_cpu_max(const char *text, double *cpus)
{
    char quota[32], period_text[32], tail;
    unsigned long long q, period;
    if (sscanf(text, "%31s %31s %c", quota, period_text, &tail) != 2 || parse_positive(period_text, &period) != 0)
        return -1;
    if (strcmp(quota, "max") == 0) {
        *cpus = 0.0;
        return 0;
    }
    if (parse_positive(quota, &q) != 0)
        return -1;
    *cpus = (double)q / (double)period;
    return 0;
}

static double read_cpu_max(const char *dir)
{
    char path[4200], text[128];
    snprintf(path, sizeof path, "%s/cpu.max", dir);
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return 0.0;
    double cpus = 0.0;
    if (fgets(text, sizeof text, file) == NULL || muster_parse_cpu_max(text, &cpus) != 0)
        cpus = 0.0;
    fclose(file);
    return cpus;
}

double muster_cgroup_cpu_quota(const char *root, const char *cgroup)
{
    char dir[4096];
    double tightest = 0.0;
    snprintf(dir, sizeof dir, "%s%s%s", root, cgroup[0] == '/' ? "" : "/", cgroup);
    /* A parent's quota bounds its children: take the smallest on the path. */
    for (;;) {
        double cpus = read_cpu_max(dir);
        if (cpus > 0.0 && (tightest == 0.0 || cpus < tightest))
            tightest = cpus;
        char *slash = strrchr(dir, '/');
        if (slash == NULL || (size_t)(slash - dir) < strlen(root))
            break;
        *slash = '\0';
    }
    return tightest;
}

/* This process's cgroup v2 path, from the "0::/path" line of /proc/self/cgroup. */
static int own_cgroup(char *path, size_t size)
{
    FILE *file = fopen("/proc/self/cgroup", "r");
    if (file == NULL)
        return -1;
    char line[4096];
    int found = -1;
    while (fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(path, size, "%s", line + 3);
            found = 0;
            break;
        }
    }
    fclose(file);
    return found;
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

__attribute__((constructor)) static void read_process_mask(void)
{
    process_cpus = read_mask(&process_mask);
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

double muster_process_cpu_quota(void)
{
    char cgroup[4096];
    if (own_cgroup(cgroup, sizeof cgroup) != 0)
        return 0.0;
    return muster_cgroup_cpu_quota("/sys/fs/cgroup", cgroup);
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
