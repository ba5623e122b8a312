/* test_omp_api: the omp_* functions of api.c on the calling thread's ICVs,
 * with gcc 12's libgomp's answers at the edges (negative and oversized
 * arguments, unknown schedule kinds), and the affinity format.
 *
 *   test_omp_api           the ICV functions in a clean environment
 *   test_omp_api places    the places API with OMP_PLACES set (see env.cmake):
 *                          the first query binds the thread to place 0
 * Prints "test_omp_api: ok" last when every check passed. */
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "omp/env.h"
#include "platform/cpus.h"

static void test_threads_and_nesting(void)
{
    CHECK(omp_get_max_threads() == (int)muster_cpus_available());
    CHECK(omp_get_num_procs() == (int)muster_affinity_cpus(NULL, 0));
    omp_set_num_threads(3);
    CHECK(omp_get_max_threads() == 3);
    omp_set_num_threads(0);
    CHECK(omp_get_max_threads() == 1);
    omp_set_num_threads(-4);
    CHECK(omp_get_max_threads() == 1);

    CHECK(omp_get_dynamic() == 0);
    omp_set_dynamic(5);
    CHECK(omp_get_dynamic() == 1);
    omp_set_dynamic(0);
    CHECK(omp_get_dynamic() == 0);

    CHECK(omp_get_supported_active_levels() == MUSTER_OMP_MAX_ACTIVE_LEVELS);
    CHECK(omp_get_max_active_levels() == 1);
    CHECK(omp_get_nested() == 0);
    omp_set_max_active_levels(1000);
    CHECK(omp_get_max_active_levels() == MUSTER_OMP_MAX_ACTIVE_LEVELS);
    omp_set_max_active_levels(-1);
    CHECK(omp_get_max_active_levels() == MUSTER_OMP_MAX_ACTIVE_LEVELS);
    omp_set_max_active_levels(3);
    CHECK(omp_get_max_active_levels() == 3);
    CHECK(omp_get_nested() == 1);
    omp_set_max_active_levels(0);
    CHECK(omp_get_nested() == 0);
    omp_set_nested(1);
    CHECK(omp_get_max_active_levels() == MUSTER_OMP_MAX_ACTIVE_LEVELS && omp_get_nested() == 1);
    omp_set_nested(0);
    CHECK(omp_get_max_active_levels() == 1 && omp_get_nested() == 0);

    CHECK(omp_get_thread_limit() == 2147483647);
    CHECK(omp_get_max_task_priority() == 0);
}

static void expect_schedule(omp_sched_t kind, int chunk)
{
    omp_sched_t got;
    int got_chunk;
    omp_get_schedule(&got, &got_chunk);
    CHECK(got == kind && got_chunk == chunk, "schedule %#x,%d; expected %#x,%d", (unsigned)got, got_chunk,
          (unsigned)kind, chunk);
}

static void test_schedule(void)
{
    expect_schedule(omp_sched_static | omp_sched_monotonic, 0); /* libmuster-omp's default */
    omp_set_schedule(omp_sched_dynamic, 0);
    expect_schedule(omp_sched_dynamic, 1);
    omp_set_schedule(omp_sched_guided, 7);
    expect_schedule(omp_sched_guided, 7);
    omp_set_schedule(omp_sched_static, -3);
    expect_schedule(omp_sched_static, 0);
    omp_set_schedule(omp_sched_auto, 7);
    expect_schedule(omp_sched_auto, 0);
    omp_set_schedule(omp_sched_dynamic | omp_sched_monotonic, 5);
    expect_schedule(omp_sched_dynamic | omp_sched_monotonic, 5);
    omp_set_schedule((omp_sched_t)17, 9); /* not a kind: ignored */
    expect_schedule(omp_sched_dynamic | omp_sched_monotonic, 5);
}

static void test_time(void)
{
    double t0 = omp_get_wtime();
    usleep(2000);
    double t1 = omp_get_wtime();
    CHECK(t1 - t0 >= 0.0019 && t1 - t0 < 1.0, "%f", t1 - t0);
    CHECK(omp_get_wtick() > 0.0 && omp_get_wtick() <= 1e-6);
}

static void test_devices_and_teams(void)
{
    CHECK(omp_get_num_devices() == 0);
    CHECK(omp_get_initial_device() == 0);
    CHECK(omp_is_initial_device() == 1);
    CHECK(omp_get_device_num() == 0);
    CHECK(omp_get_default_device() == 0);
    omp_set_default_device(2);
    CHECK(omp_get_default_device() == 2);
    omp_set_default_device(-3);
    CHECK(omp_get_default_device() == 0);

    CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0);
    muster_omp_set_league(4, 2);
    CHECK(omp_get_num_teams() == 4 && omp_get_team_num() == 2);
    muster_omp_set_league(1, 0);
    CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0);

    CHECK(omp_get_max_teams() == 0 && omp_get_teams_thread_limit() == 0);
    omp_set_num_teams(3);
    omp_set_teams_thread_limit(4);
    CHECK(omp_get_max_teams() == 3 && omp_get_teams_thread_limit() == 4);
    omp_set_num_teams(-3);
    omp_set_teams_thread_limit(0);
    CHECK(omp_get_max_teams() == 3 && omp_get_teams_thread_limit() == 4);

    CHECK(omp_pause_resource(omp_pause_soft, omp_get_initial_device()) == 0);
    CHECK(omp_pause_resource(omp_pause_hard, 5) == -1);
    CHECK(omp_pause_resource_all(omp_pause_hard) == 0);
    CHECK(omp_pause_resource_all((omp_pause_resource_t)9) == -1);
}

static void expect_capture(const char *format, const char *expected)
{
    char buf[256];
    size_t n = omp_capture_affinity(buf, sizeof buf, format);
    CHECK(strcmp(buf, expected) == 0 && n == strlen(expected), "'%s' -> '%s' (%zu), expected '%s'", format, buf, n,
          expected);
}

static void test_affinity_format(void)
{
    static const char libgomp_default[] = "level %L thread %i affinity %A";
    char buf[64];
    CHECK(omp_get_affinity_format(buf, sizeof buf) == strlen(libgomp_default));
    CHECK(strcmp(buf, libgomp_default) == 0);
    char small[8];
    CHECK(omp_get_affinity_format(small, sizeof small) == strlen(libgomp_default));
    CHECK(strcmp(small, "level %") == 0);

    /* Outside any region: level 0, thread 0 of 1, no ancestor. */
    expect_capture("%n|%N|%L|%a|%t|%T", "0|1|0|-1|0|1");
    expect_capture("[%5n]|[%.3L]|[%0.4N]|[%04N]|%%", "[0    ]|[  0]|[0001]|[0001]|%");
    expect_capture("%{thread_num}/%{num_threads}/%{nesting_level}/%{ancestor_tnum}/%{team_num}/%{num_teams}",
                   "0/1/0/-1/0/1");
    expect_capture("%q|%{bogus}|end%", "%q|%{bogus}|end%"); /* copied as written */
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    expect_capture("%P", pid);
    expect_capture("%{process_id}", pid);

    /* %A: the thread's CPUs as a list with ranges. */
    CHECK(omp_capture_affinity(buf, sizeof buf, "%A") > 0);
    CHECK(strspn(buf, "0123456789,-") == strlen(buf), "%s", buf);

    /* snprintf-style truncation, and the length with no buffer. */
    CHECK(omp_capture_affinity(NULL, 0, "%n-%N") == 3);
    CHECK(omp_capture_affinity(small, 3, "abcdef") == 6 && strcmp(small, "ab") == 0);

    omp_set_affinity_format("T%n of %N");
    CHECK(omp_get_affinity_format(buf, sizeof buf) == 9 && strcmp(buf, "T%n of %N") == 0);
    expect_capture(NULL, "T0 of 1");
    expect_capture("", "T0 of 1");
}

static void test_icvs_advance(void)
{
    muster_omp_icvs icvs = {.nthreads = 4, .nthreads_next = {2, 1}, .bind = MUSTER_OMP_BIND_SPREAD,
                            .bind_next = {MUSTER_OMP_BIND_CLOSE}};
    muster_omp_icvs_advance(&icvs);
    CHECK(icvs.nthreads == 2 && icvs.nthreads_next[0] == 1 && icvs.nthreads_next[1] == 0);
    CHECK(icvs.bind == MUSTER_OMP_BIND_CLOSE && icvs.bind_next[0] == MUSTER_OMP_BIND_FALSE);
    muster_omp_icvs_advance(&icvs);
    CHECK(icvs.nthreads == 1 && icvs.nthreads_next[0] == 0 && icvs.bind == MUSTER_OMP_BIND_CLOSE);
    muster_omp_icvs_advance(&icvs); /* past the lists: inherited */
    CHECK(icvs.nthreads == 1 && icvs.bind == MUSTER_OMP_BIND_CLOSE);

    muster_omp_icvs full = {.nthreads = 1};
    for (unsigned i = 0; i < MUSTER_OMP_MAX_LEVELS; i++)
        full.nthreads_next[i] = i + 2;
    for (unsigned level = 0; level < MUSTER_OMP_MAX_LEVELS; level++) {
        muster_omp_icvs_advance(&full);
        CHECK(full.nthreads == level + 2, "level %u: %u", level, full.nthreads);
    }
    muster_omp_icvs_advance(&full);
    CHECK(full.nthreads == MUSTER_OMP_MAX_LEVELS + 1);
}

static void test_places_off(void)
{
    CHECK(omp_get_proc_bind() == omp_proc_bind_false);
    CHECK(omp_get_num_places() == 0);
    CHECK(omp_get_place_num_procs(0) == 0);
    CHECK(omp_get_place_num() == -1);
    CHECK(omp_get_partition_num_places() == 0);
}

/* With OMP_PLACES set (threads or cores): the places API, and the first
 * query binds the initial thread to place 0. */
static void test_places_on(void)
{
    CHECK(omp_get_proc_bind() == omp_proc_bind_true);
    int n = omp_get_num_places();
    CHECK(n >= 1 && n <= omp_get_num_procs(), "%d places", n);
    int total = 0;
    for (int p = 0; p < n; p++) {
        int count = omp_get_place_num_procs(p);
        CHECK(count >= 1);
        int ids[1024];
        omp_get_place_proc_ids(p, ids);
        for (int k = 1; k < count; k++)
            CHECK(ids[k] > ids[k - 1]);
        total += count;
    }
    CHECK(total == omp_get_num_procs());
    CHECK(omp_get_place_num_procs(n) == 0 && omp_get_place_num_procs(-1) == 0);

    CHECK(omp_get_place_num() == 0);
    CHECK(omp_get_partition_num_places() == n);
    int nums[1024];
    omp_get_partition_place_nums(nums);
    for (int p = 0; p < n; p++)
        CHECK(nums[p] == p);

    int ids[1024];
    omp_get_place_proc_ids(0, ids);
    cpu_set_t mask;
    CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
    CHECK(CPU_COUNT(&mask) == omp_get_place_num_procs(0), "bound to %d CPUs", CPU_COUNT(&mask));
    for (int k = 0; k < omp_get_place_num_procs(0); k++)
        CHECK(CPU_ISSET(ids[k], &mask));
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "places") == 0) {
        test_places_on();
    } else {
        test_threads_and_nesting();
        test_schedule();
        test_time();
        test_devices_and_teams();
        test_affinity_format();
        test_icvs_advance();
        test_places_off();
    }
    printf("test_omp_api: ok\n");
    return 0;
}
