/* How many CPUs this process may use: its affinity mask, and the CPU quota
 * of its cgroup (containers). */
#ifndef MUSTER_PLATFORM_CPUS_H
#define MUSTER_PLATFORM_CPUS_H

#include <stdbool.h>
#include <stdint.h>

/* CPUs this process may really use: the affinity mask, capped by its
 * cgroup's CPU quota, v2 or v1 (rounded up).  Always >= 1. */
unsigned muster_cpus_available(void);

/* The CPUs in the process's affinity mask as read when the library loaded
 * (or, if that failed, the calling thread's mask now), ascending OS ids.
 * Stores at most max ids in cpus and returns how many the mask holds (0 when
 * it cannot be read).  Masks beyond CPU_SETSIZE (1024) CPUs are not seen. */
unsigned muster_affinity_cpus(int *cpus, unsigned max);

/* Reads the process's mask again, now.  Only from a library constructor,
 * before any thread of ours reads it: libmuster-omp's, after undoing a
 * binding another runtime's constructor made before ours ran. */
void muster_affinity_reread(void);

/* The CPU quota of this process's own cgroup, in CPUs, the tightest along
 * its path; 0 = none or unknown.  muster_cpu_quota_from on
 * /proc/self/cgroup and /proc/self/mountinfo. */
double muster_process_cpu_quota(void);

/* The same from the given /proc/<pid>/cgroup and mountinfo files: the v2
 * hierarchy ("0::/path", the cgroup2 mount; /sys/fs/cgroup when mountinfo
 * has none) and the v1 hierarchy with the cpu controller ("N:cpu,...:/path",
 * the cgroup mount whose options hold cpu), each path taken relative to its
 * mount's root; the tighter of the two that are set. */
double muster_cpu_quota_from(const char *proc_cgroup, const char *mountinfo);

/* Parses the text of a cgroup v2 cpu.max file ("max 100000" or "150000
 * 100000") into a CPU count (0 = unlimited).  Returns -1 when malformed. */
int muster_parse_cpu_max(const char *text, double *cpus);

/* Parses cgroup v1's cpu.cfs_quota_us ("-1": unlimited, or microseconds)
 * and cpu.cfs_period_us texts, without newlines, into a CPU count (0 =
 * unlimited).  Returns -1 when malformed. */
int muster_parse_cfs_quota(const char *quota_text, const char *period_text, double *cpus);

/* The quota in CPUs for the cgroup at relative path `cgroup` under the
 * hierarchy mounted at `root`, the tightest over the path's ancestors up
 * to root (0 = none): v2's cpu.max files, v1's cpu.cfs_quota_us and
 * cpu.cfs_period_us. */
double muster_cgroup_cpu_quota(const char *root, const char *cgroup);
double muster_cgroup_v1_cpu_quota(const char *root, const char *cgroup);

/* The time this process's CPUs (its mask at load) spent running anything,
 * any process's threads or the kernel's, since boot: user, nice, system,
 * irq and softirq of /proc/stat, not idle, iowait or the hypervisor's
 * steal.  In ns, counted at the kernel's ticks (10 ms steps as read).
 * False when it cannot be read. */
bool muster_cpus_busy_ns(uint64_t *busy_ns);

/* The same from /proc/stat's text: the busy ticks of the "cpuN" lines whose
 * N is among the n ascending ids in cpus (all of them when n is 0), read up
 * to the first line that is not a cpu line.  Returns -1 when no such line
 * could be read. */
int muster_parse_stat_busy(const char *text, const int *cpus, unsigned n, unsigned long long *ticks);

#endif
