/* How many CPUs muster thinks it may use:
 *  - muster_parse_cpu_max() on well-formed and malformed cgroup v2 cpu.max
 *    texts;
 *  - muster_cgroup_cpu_quota() on a fake cgroup tree under a temporary
 *    directory: the tightest quota on the path wins, "max" and missing or
 *    malformed files mean no limit;
 *  - muster_cpus_available() lies in [1, the affinity mask's count]. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "muster/barrier.h"
#include "wait/wait.h"

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

static void check_quota(const char *cgroup, double expected)
{
    double quota = muster_cgroup_cpu_quota(root, cgroup);
    if (!near(quota, expected))
        fprintf(stderr, "muster_cgroup_cpu_quota(root, \"%s\") = %g, expected %g\n", cgroup, quota, expected);
    CHECK(near(quota, expected));
}

static void test_cgroup_tree(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/muster-cgroup-XXXXXX", tmp && strlen(tmp) < 64 ? tmp : "/tmp");
    CHECK(mkdtemp(root) != NULL);
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

int main(void)
{
    test_parse();
    test_cgroup_tree();
    test_cpus_available();
    printf("test_cpus: ok\n");
    return 0;
}
