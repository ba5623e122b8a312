/* libFuzzer target: the cgroup files muster reads for CPU quotas: v2
 * cpu.max, v1 cpu.cfs_quota_us with cpu.cfs_period_us, and the two files
 * that say where the process's cgroups are (/proc/self/cgroup and
 * /proc/self/mountinfo).  The input is split at its first two NUL bytes
 * into three texts.  A quota read is never negative, NaN or infinite. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/cpus.h"

static void check_quota(int rc, double cpus)
{
    if (rc == 0 && (!isfinite(cpus) || cpus < 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 3);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    copy[size] = copy[size + 1] = copy[size + 2] = '\0';
    const char *first = copy;
    const char *second = first + strlen(first) + 1;
    const char *third = second + strlen(second) + 1;

    double cpus = -1;
    check_quota(muster_parse_cpu_max(first, &cpus), cpus);
    cpus = -1;
    check_quota(muster_parse_cfs_quota(first, second, &cpus), cpus);
    /* Where the cgroups are: only reads files below the mount points the
     * text names, as the process would (none exist for most inputs). */
    double quota = muster_cpu_quota_from(second, third);
    if (!isfinite(quota) || quota < 0)
        abort();
    free(copy);
    return 0;
}
