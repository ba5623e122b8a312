/* libFuzzer target: the cgroup files muster reads for CPU quotas: v2
 * cpu.max, v1 cpu.cfs_quota_us with cpu.cfs_period_us, and the two files
 * that say where the process's cgroups are (/proc/self/cgroup and
 * /proc/self/mountinfo).  The input is split at its first three NUL bytes
 * into four texts: the quota (cpu.max's line, or cfs_quota_us), the period,
 * /proc/self/cgroup, mountinfo; the last two are written to files, which
 * is how muster_cpu_quota_from takes them.  A quota read is never
 * negative, NaN or infinite. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/cpus.h"

static void check_quota(int rc, double cpus)
{
    if (rc == 0 && (!isfinite(cpus) || cpus < 0))
        abort();
}

static char proc_cgroup_file[64], mountinfo_file[64];

static void remove_files(void)
{
    unlink(proc_cgroup_file);
    unlink(mountinfo_file);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    atexit(remove_files);
    snprintf(proc_cgroup_file, sizeof proc_cgroup_file, "/tmp/muster-fuzz-cgroup-%d", (int)getpid());
    snprintf(mountinfo_file, sizeof mountinfo_file, "/tmp/muster-fuzz-mountinfo-%d", (int)getpid());
    return 0;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        abort(); /* the harness's own failure, not muster's: say so loudly */
    fputs(text, f);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 4);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    memset(copy + size, 0, 4);
    const char *quota = copy;
    const char *period = quota + strlen(quota) + 1;
    const char *proc_cgroup = period + strlen(period) + 1;
    const char *mountinfo = proc_cgroup + strlen(proc_cgroup) + 1;

    double cpus = -1;
    check_quota(muster_parse_cpu_max(quota, &cpus), cpus);
    cpus = -1;
    check_quota(muster_parse_cfs_quota(quota, period, &cpus), cpus);
    /* Where the cgroups are: only reads files below the mount points the
     * text names, as the process would (none exist for most inputs). */
    write_file(proc_cgroup_file, proc_cgroup);
    write_file(mountinfo_file, mountinfo);
    double found = muster_cpu_quota_from(proc_cgroup_file, mountinfo_file);
    if (!isfinite(found) || found < 0)
        abort();
    free(copy);
    return 0;
}
