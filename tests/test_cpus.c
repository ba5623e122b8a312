/* How many CPUs muster thinks it may use:
 *  - muster_parse_cpu_max() on well-formed and malformed cgroup v2 cpu.max
 *    texts;
 *  - muster_cgroup_cpu_quota() on a fake cgroup tree under a temporary
 *    directory: the tightest quota on the path wins, "max" and missing or
 *    malformed files mean no limit;
 *  - cgroup v1: muster_parse_cfs_quota() and muster_cgroup_v1_cpu_quota()
 *    the same way (cpu.cfs_quota_us / cpu.cfs_period_us);
 *  - muster_cpu_quota_from() on fake /proc/self/cgroup and mountinfo files:
 *    v1 and v2 hierarchies found by their mounts, a container's view (the
 *    mount's root is its own cgroup), escaped mount points, the tighter of
 *    v1 and v2, controllers that are not cpu ignored;
 *  - muster_cpus_available() lies in [1, the affinity mask's count];
 *  - platform/affinity.h: the thread's mask read as ids agrees with its
 *    count, binding to one CPU and setting the saved mask back, and the
 *    CPU-list text ("0-3,8,10-11"), cut short without half a number. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "muster/barrier.h"
#include "platform/affinity.h"
#include "platform/cpus.h"

#include "check.h"

static int near(double a, double b) { return fabs(a - b) < 1e-9; }

static void check_parse_ok(const char *text, double expected)
{
    double cpus = -42.0;
    int rc = muster_parse_cpu_max(text, &cpus);
    if (rc != 0 || !near(cpus, expected))
        fprintf(stderr, "muster_parse_cpu_max(\"%s\") = %d, cpus %g; expected 0, cpus %g\n", text, rc, cpus,
                expected);
    CHECK(rc == 0);
    CHECK(near(cpus, expected));
}

static void check_parse_bad(const char *text)
{
    double cpus = -42.0;
    int rc = muster_parse_cpu_max(text, &cpus);
    if (rc != -1)
        fprintf(stderr, "muster_parse_cpu_max(\"%s\") = %d (cpus %g); expected -1\n", text, rc, cpus);
    CHECK(rc == -1);
}

static void test_parse(void)
{
    check_parse_ok("max 100000\n", 0.0);
    check_parse_ok("max 100000", 0.0);
    check_parse_ok("150000 100000", 1.5);
    check_parse_ok("150000 100000\n", 1.5);
    check_parse_ok("200000 100000\n", 2.0);
    check_parse_ok("50000 100000\n", 0.5);
    check_parse_ok("100000 100000\n", 1.0);
    check_parse_ok("1000 1000\n", 1.0);
    check_parse_ok("6400000 100000\n", 64.0);

    check_parse_bad("");
    check_parse_bad("\n");
    check_parse_bad("abc");
    check_parse_bad("abc 100000");
    check_parse_bad("max");
    check_parse_bad("max abc");
    check_parse_bad("-5 100000");
    check_parse_bad("100 0");
    check_parse_bad("max 0");
    check_parse_bad("100000");
    check_parse_bad("100000\n");
    check_parse_bad("1 2 3");
    check_parse_bad("150000 100000 extra");
    check_parse_bad("12x 100000");
    check_parse_bad("150000 -100000");
}

static char root[128];

/* A fresh directory $TMPDIR/muster-<name>-XXXXXX (/tmp when TMPDIR is unset
 * or too long for root) becomes root. */
static void make_root(const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/muster-%s-XXXXXX", tmp && strlen(tmp) < 64 ? tmp : "/tmp", name);
    CHECK(mkdtemp(root) != NULL);
}

static void write_file(const char *relative, const char *text)
{
    char path[sizeof root + 64];
    snprintf(path, sizeof path, "%s/%s", root, relative);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    CHECK(fputs(text, f) >= 0);
    CHECK(fclose(f) == 0);
}

static void make_dir(const char *relative)
{
    char path[sizeof root + 64];
    snprintf(path, sizeof path, "%s/%s", root, relative);
    CHECK(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void remove_file(const char *relative)
{
    char path[sizeof root + 64];
    snprintf(path, sizeof path, "%s/%s", root, relative);
    unlink(path);
}

/* One fake tree walker's answer: v2's (cpu.max) or v1's (cpu.cfs_*). */
#define check_quota(cgroup, expected) check_walk(muster_cgroup_cpu_quota, "muster_cgroup_cpu_quota", cgroup, expected)
#define check_v1_quota(cgroup, expected) \
    check_walk(muster_cgroup_v1_cpu_quota, "muster_cgroup_v1_cpu_quota", cgroup, expected)

static void check_walk(double (*walk)(const char *, const char *), const char *name, const char *cgroup,
                       double expected)
{
    double quota = walk(root, cgroup);
    if (!near(quota, expected))
        fprintf(stderr, "%s(root, \"%s\") = %g, expected %g\n", name, cgroup, quota, expected);
    CHECK(near(quota, expected));
}

static void test_cgroup_tree(void)
{
    make_root("cgroup");
    make_dir("a");
    make_dir("a/b");
    make_dir("a/b/c");
    make_dir("z");

    /* No files at all: no limit. */
    check_quota("/a/b", 0.0);
    check_quota("/", 0.0);
    check_quota("/does/not/exist", 0.0);

    write_file("cpu.max", "150000 100000\n");
    write_file("a/cpu.max", "max 100000\n");
    write_file("a/b/cpu.max", "300000 100000\n");

    check_quota("/a/b", 1.5);      /* the root's quota is the tightest */
    check_quota("a/b", 1.5);       /* with or without the leading slash */
    check_quota("/a/b/c", 1.5);    /* c has no file of its own */
    check_quota("/a", 1.5);
    check_quota("/", 1.5);
    check_quota("/z", 1.5);

    /* The tightest is deepest. */
    write_file("a/b/cpu.max", "50000 100000\n");
    check_quota("/a/b", 0.5);
    check_quota("/a/b/c", 0.5);
    check_quota("/a", 1.5);

    /* The tightest is in the middle. */
    write_file("a/b/cpu.max", "max 100000\n");
    write_file("a/cpu.max", "120000 100000\n");
    write_file("a/b/c/cpu.max", "max 100000\n");
    check_quota("/a/b/c", 1.2);

    /* Malformed files are no limit, not an error. */
    write_file("cpu.max", "garbage\n");
    write_file("a/cpu.max", "\n");
    check_quota("/a/b/c", 0.0);

    /* Only the path's ancestors count, not siblings. */
    write_file("z/cpu.max", "10000 100000\n");
    check_quota("/a/b/c", 0.0);
    check_quota("/z", 0.1);

    /* All "max": no limit. */
    write_file("cpu.max", "max 100000\n");
    write_file("a/cpu.max", "max 100000\n");
    check_quota("/a/b/c", 0.0);

    /* Nothing above the root is read: a parent of root with a quota must not
     * count, so make root/a the root and put a quota in its parent. */
    write_file("cpu.max", "100000 100000\n");
    char saved[sizeof root];
    memcpy(saved, root, sizeof root);
    CHECK(strlen(root) + 2 < sizeof root);
    strcat(root, "/a");
    check_quota("/b/c", 0.0);
    memcpy(root, saved, sizeof root);
    check_quota("/a/b/c", 1.0);

    remove_file("a/b/c/cpu.max");
    remove_file("a/b/cpu.max");
    remove_file("a/cpu.max");
    remove_file("z/cpu.max");
    remove_file("cpu.max");
    char path[sizeof root + 64];
    const char *dirs[] = {"a/b/c", "a/b", "a", "z", ""};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        CHECK(rmdir(path) == 0);
    }
}

static void check_cfs_ok(const char *quota, const char *period, double expected)
{
    double cpus = -42.0;
    int rc = muster_parse_cfs_quota(quota, period, &cpus);
    if (rc != 0 || !near(cpus, expected))
        fprintf(stderr, "muster_parse_cfs_quota(\"%s\", \"%s\") = %d, cpus %g; expected 0, cpus %g\n", quota, period,
                rc, cpus, expected);
    CHECK(rc == 0 && near(cpus, expected));
}

static void check_cfs_bad(const char *quota, const char *period)
{
    double cpus = -42.0;
    int rc = muster_parse_cfs_quota(quota, period, &cpus);
    if (rc != -1)
        fprintf(stderr, "muster_parse_cfs_quota(\"%s\", \"%s\") = %d (cpus %g); expected -1\n", quota, period, rc,
                cpus);
    CHECK(rc == -1);
}

static void test_parse_cfs(void)
{
    check_cfs_ok("-1", "100000", 0.0);
    check_cfs_ok("150000", "100000", 1.5);
    check_cfs_ok("50000", "100000", 0.5);
    check_cfs_ok("400000", "100000", 4.0);
    check_cfs_ok("-1", "1000", 0.0);

    check_cfs_bad("", "100000");
    check_cfs_bad("abc", "100000");
    check_cfs_bad("-5", "100000");
    check_cfs_bad("-1", "0");
    check_cfs_bad("100000", "0");
    check_cfs_bad("100000", "-1");
    check_cfs_bad("100000", "");
    check_cfs_bad("1 2", "100000");
    check_cfs_bad("150000", "100000 ");
    check_cfs_bad("0", "100000");
}

/* A v1 directory's two files. */
static void write_cfs(const char *dir, const char *quota, const char *period)
{
    char path[96];
    snprintf(path, sizeof path, "%s%scpu.cfs_quota_us", dir, *dir ? "/" : "");
    write_file(path, quota);
    snprintf(path, sizeof path, "%s%scpu.cfs_period_us", dir, *dir ? "/" : "");
    write_file(path, period);
}

static void remove_tree(const char *top);

static void test_v1_tree(void)
{
    make_root("cgroup1");
    make_dir("a");
    make_dir("a/b");
    make_dir("z");

    check_v1_quota("/a/b", 0.0); /* no files: no limit */

    write_cfs("", "-1\n", "100000\n"); /* the root: unlimited, as on every host */
    write_cfs("a", "250000\n", "100000\n");
    write_cfs("a/b", "-1\n", "100000\n");
    check_v1_quota("/a/b", 2.5);
    check_v1_quota("a/b", 2.5);
    check_v1_quota("/", 0.0);

    write_cfs("a/b", "50000\n", "100000\n"); /* deepest is tightest */
    check_v1_quota("/a/b", 0.5);
    check_v1_quota("/a", 2.5);

    write_cfs("a/b", "50000\n", "garbage\n"); /* malformed: that level does not count */
    check_v1_quota("/a/b", 2.5);
    remove_file("a/b/cpu.cfs_period_us"); /* a quota without a period does not count */
    check_v1_quota("/a/b", 2.5);

    write_cfs("z", "10000\n", "100000\n"); /* a sibling does not count */
    check_v1_quota("/a/b", 2.5);
    check_v1_quota("/z", 0.1);

    remove_tree(root);
}

static void check_quota_from(const char *what, double expected)
{
    char cgroup[sizeof root + 32], mountinfo[sizeof root + 32];
    snprintf(cgroup, sizeof cgroup, "%s/proc-cgroup", root);
    snprintf(mountinfo, sizeof mountinfo, "%s/mountinfo", root);
    double quota = muster_cpu_quota_from(cgroup, mountinfo);
    if (!near(quota, expected))
        fprintf(stderr, "muster_cpu_quota_from, %s: %g, expected %g\n", what, quota, expected);
    CHECK(near(quota, expected));
}

/* mountinfo lines for a v1 cpu hierarchy and a v2 one, mounted under the
 * fake root at v1/ and v2/ (mount_root: the hierarchy's part mounted). */
static void write_mountinfo(const char *v1_root, const char *v1_dir, const char *v1_options, const char *v2_dir)
{
    char text[2048];
    int n = snprintf(text, sizeof text, "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n");
    n += snprintf(text + n, sizeof text - (size_t)n, "34 31 0:31 / %s/cpuset rw,relatime - cgroup cgroup rw,cpuset\n",
                  root);
    if (v1_dir != NULL)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "32 31 0:29 %s %s/%s rw,nosuid,nodev shared:9 - cgroup cgroup %s\n", v1_root, root, v1_dir,
                      v1_options);
    if (v2_dir != NULL)
        snprintf(text + n, sizeof text - (size_t)n, "41 31 0:38 / %s/%s rw,relatime - cgroup2 cgroup2 rw\n", root,
                 v2_dir);
    write_file("mountinfo", text);
}

static void test_quota_from_proc_files(void)
{
    make_root("cgproc");
    const char *dirs[] = {"v1", "v1/docker", "v1/docker/abc", "v1/docker/abc/docker", "v1/docker/abc/docker/abc", "v2", "v2/user.slice", "v2/user.slice/x", "cpuset",
                          "cpuset/other", "my cg", "my cg/job"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        make_dir(dirs[i]);
    write_cfs("v1/docker/abc", "250000\n", "100000\n");
    write_file("v2/user.slice/cpu.max", "150000 100000\n");
    /* A quota where only a cpuset line points: must never be read. */
    write_cfs("cpuset/other", "10000\n", "100000\n");

    /* No files at all: no quota. */
    check_quota_from("no /proc files", 0.0);

    /* A v1 host: the cpu controller shares a hierarchy with cpuacct. */
    write_file("proc-cgroup", "5:cpuset:/other\n4:cpuacct,cpu:/docker/abc\n1:name=systemd:/\n");
    write_mountinfo("/", "v1", "rw,cpu,cpuacct", NULL);
    check_quota_from("v1 host", 2.5);

    /* No mountinfo: v1 cannot be found, and the v2 default is not read. */
    remove_file("mountinfo");
    check_quota_from("v1 without mountinfo", 0.0);

    /* A v1 container: its own cgroup is the mount's root, mounted at
     * v1/docker/abc, so its path is that directory itself (a quota below
     * it, where the unstripped path would lead, must not be read). */
    write_cfs("v1/docker/abc/docker/abc", "20000\n", "100000\n");
    write_mountinfo("/docker/abc", "v1/docker/abc", "rw,cpuacct,cpu", NULL);
    check_quota_from("v1 container", 2.5);

    /* A mount whose options name cpuacct but not cpu is not the cpu hierarchy. */
    write_mountinfo("/", "v1", "rw,cpuacct", NULL);
    check_quota_from("cpuacct-only mount", 0.0);

    /* A hybrid host: v1 (2.5) and v2 (1.5): the tighter counts. */
    write_file("proc-cgroup", "4:cpu,cpuacct:/docker/abc\n0::/user.slice/x\n");
    write_mountinfo("/", "v1", "rw,cpu,cpuacct", "v2");
    check_quota_from("hybrid, v2 tighter", 1.5);
    write_file("v2/user.slice/cpu.max", "max 100000\n");
    check_quota_from("hybrid, v2 unlimited", 2.5);
    write_file("v2/user.slice/cpu.max", "300000 100000\n");
    check_quota_from("hybrid, v1 tighter", 2.5);

    /* A v2-only host whose mount point has a space (mountinfo writes \040). */
    write_file("proc-cgroup", "0::/job\n");
    char text[512];
    snprintf(text, sizeof text, "41 31 0:38 / %s/my\\040cg rw,relatime - cgroup2 cgroup2 rw\n", root);
    write_file("mountinfo", text);
    write_file("my cg/job/cpu.max", "75000 100000\n");
    check_quota_from("v2, escaped mount point", 0.75);

    remove_tree(root);
}

/* Removes every file and directory below `top`, and top. */
static void remove_tree(const char *top)
{
    char command[sizeof root + 16];
    CHECK(strncmp(top, "/", 1) == 0 && strstr(top, "muster-cg") != NULL);
    snprintf(command, sizeof command, "rm -rf '%s'", top);
    CHECK(system(command) == 0);
}

static void test_cpus_available(void)
{
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    unsigned affinity = (unsigned)CPU_COUNT(&set);
    unsigned cpus = muster_cpus_available();
    printf("affinity %u CPUs, muster_cpus_available() = %u\n", affinity, cpus);
    CHECK(cpus >= 1);
    CHECK(cpus <= affinity);
    CHECK(muster_cpus_available() == cpus); /* stable */
}

static void check_cpu_list(const int *cpus, unsigned n, size_t size, const char *expected)
{
    char out[64];
    memset(out, 'x', sizeof out);
    muster_format_cpu_list(out, size, cpus, n);
    CHECK(strcmp(out, expected) == 0, "cpu list of %u ids in %zu bytes: \"%s\", not \"%s\"", n, size, out,
          expected);
}

static void test_cpu_list_text(void)
{
    static const int ids[] = {0, 1, 2, 3, 8, 10, 11, 14};
    check_cpu_list(ids, 8, 64, "0-3,8,10-11,14");
    check_cpu_list(ids, 1, 64, "0");
    check_cpu_list(ids + 4, 1, 64, "8");
    check_cpu_list(ids, 0, 64, "");
    check_cpu_list(ids, 8, 6, "0-3,8"); /* exactly fits */
    check_cpu_list(ids, 8, 5, "0-3"); /* ",8" does not: no half-written entry */
    check_cpu_list(ids, 8, 1, "");
}

static void test_thread_mask(void)
{
    int *cpus = NULL;
    unsigned count = 0;
    CHECK(muster_thread_cpus(&cpus, &count) == 0 && count >= 1, "the thread's mask could not be read");
    CHECK(count == muster_thread_cpu_count(), "mask as ids: %u CPUs, as a count: %u", count,
          muster_thread_cpu_count());
    for (unsigned k = 1; k < count; k++)
        CHECK(cpus[k] > cpus[k - 1], "mask ids not ascending at %u", k);
    cpu_set_t saved;
    CHECK(muster_thread_mask_get(&saved) == 0, "mask get");
    int last = cpus[count - 1];
    CHECK(muster_thread_bind(&last, 1) == 0, "bind to CPU %d", last);
    CHECK(muster_thread_cpu_count() == 1, "bound to one CPU, the mask holds %u", muster_thread_cpu_count());
    sched_yield(); /* let the kernel move us there */
    CHECK(sched_getcpu() == last, "bound to CPU %d, running on %d", last, sched_getcpu());
    CHECK(muster_thread_mask_set(&saved) == 0, "mask set back");
    CHECK(muster_thread_cpu_count() == count, "mask set back: %u CPUs, not %u", muster_thread_cpu_count(), count);
    free(cpus);
}

/* /proc/stat's busy ticks: user, nice, system, irq and softirq of the
 * chosen cpuN lines; the total line, idle, iowait and steal left out. */
static void test_stat_busy(void)
{
    const char *text = "cpu  600 6 300 9000 90 30 3 700 0 0\n"
                       "cpu0 100 1 50 4000 40 10 1 300 0 0\n"
                       "cpu1 200 2 100 3000 30 10 1 200 0 0\n"
                       "cpu3 300 3 150 2000 20 10 1 200 0 0\n"
                       "intr 12345 0 0\n"
                       "ctxt 999\n";
    unsigned long long ticks = 0;
    CHECK(muster_parse_stat_busy(text, NULL, 0, &ticks) == 0 && ticks == 162 + 313 + 464,
          "all CPUs: %llu busy ticks", ticks);
    int some[] = {1, 3};
    CHECK(muster_parse_stat_busy(text, some, 2, &ticks) == 0 && ticks == 313 + 464, "cpus 1 and 3: %llu", ticks);
    int absent[] = {2};
    CHECK(muster_parse_stat_busy(text, absent, 1, &ticks) == -1, "cpu 2 is not in the text");
    CHECK(muster_parse_stat_busy("cpu0 1 2\n", NULL, 0, &ticks) == -1, "a short cpu line was read");
    CHECK(muster_parse_stat_busy("", NULL, 0, &ticks) == -1, "empty text was read");
    uint64_t busy_ns = 0;
    CHECK(muster_cpus_busy_ns(&busy_ns) && busy_ns > 0, "this machine's /proc/stat");
}

int main(void)
{
    test_parse();
    test_cgroup_tree();
    test_parse_cfs();
    test_v1_tree();
    test_quota_from_proc_files();
    test_cpus_available();
    test_cpu_list_text();
    test_thread_mask();
    test_stat_busy();
    printf("test_cpus: ok\n");
    return 0;
}
