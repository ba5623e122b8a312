/* Offload on the host, host teams, omp_target_* and the allocators in
 * libmuster-omp (src/omp/target.c), plus cancellation (cancel.c): an OpenMP
 * program compiled with gcc -fopenmp and linked against libmuster-omp.
 *
 * omp_get_team_num, omp_get_num_teams and omp_get_thread_limit belong to
 * api.c; they are referenced weakly, and the checks that need them run once
 * they exist. */
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#pragma weak omp_get_team_num
#pragma weak omp_get_num_teams
#pragma weak omp_get_thread_limit
#pragma weak omp_get_initial_device

void GOMP_error(const char *msg, size_t msglen);
void GOMP_warning(const char *msg, size_t msglen);
void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator);
void GOMP_free(void *ptr, uintptr_t allocator);

static bool have_team_queries(void)
{
    return omp_get_team_num != NULL && omp_get_num_teams != NULL;
}

/* ---- target regions ---- */

static void test_target_runs_on_host(void)
{
    int x = 1, y = 5, out = 0;
    int array[4] = {1, 2, 3, 4};
#pragma omp target map(tofrom : x, array) firstprivate(y) map(from : out)
    {
        y += 1;
        x += y;
        out = y;
        for (int i = 0; i < 4; i++)
            array[i] *= 2;
    }
    CHECK(x == 7 && out == 6, "the region ran on host data: x %d, out %d", x, out);
    CHECK(y == 5, "a firstprivate is the region's own copy (y %d)", y);
    CHECK(array[0] == 2 && array[3] == 8);

#pragma omp target data map(tofrom : x)
    {
#pragma omp target update to(x)
#pragma omp target map(tofrom : x)
        x++;
#pragma omp target update from(x)
    }
#pragma omp target enter data map(to : x)
#pragma omp target exit data map(from : x)
    CHECK(x == 8, "the data constructs are the identity on the host");

    int nowait_ran = 0;
#pragma omp target map(tofrom : nowait_ran) nowait
    nowait_ran = 1;
#pragma omp taskwait
    CHECK(nowait_ran == 1);
}

/* Inside a parallel region, a target region runs as a new initial thread:
 * one thread, level 0; the region's state is back afterwards. */
static void test_target_is_an_initial_thread(void)
{
    int bad = 0;
#pragma omp parallel num_threads(3) reduction(+ : bad)
    {
        int me = omp_get_thread_num();
        int threads = -1, level = -1, in_parallel = -1, thread_num = -1;
#pragma omp target map(from : threads, level, in_parallel, thread_num)
        {
            threads = omp_get_num_threads();
            level = omp_get_level();
            in_parallel = omp_in_parallel();
            thread_num = omp_get_thread_num();
        }
        bad += threads != 1 || level != 0 || in_parallel != 0 || thread_num != 0;
        bad += omp_get_thread_num() != me || omp_get_num_threads() != 3 || omp_get_level() != 1;
    }
    CHECK(bad == 0, "%d threads saw a wrong state inside or after a target region", bad);

    /* A parallel region inside the target region forks its own team. */
    int inner = 0;
#pragma omp target map(tofrom : inner)
#pragma omp parallel num_threads(2) reduction(+ : inner)
    inner += 1;
    CHECK(inner == 2, "a parallel region inside a target region: %d threads", inner);
}

/* ---- teams ---- */

static void test_host_teams(void)
{
    int runs = 0, team_sum = 0, num_teams_seen = 0;
#pragma omp teams num_teams(4)
    {
#pragma omp parallel num_threads(1)
        {
#pragma omp atomic
            runs++;
            if (have_team_queries()) {
#pragma omp atomic
                team_sum += omp_get_team_num();
#pragma omp atomic write
                num_teams_seen = omp_get_num_teams();
            }
        }
    }
    CHECK(runs == 4, "teams num_teams(4): the body ran %d times", runs);
    if (have_team_queries()) {
        CHECK(team_sum == 0 + 1 + 2 + 3, "team numbers 0..3 (sum %d)", team_sum);
        CHECK(num_teams_seen == 4 && omp_get_num_teams() == 1 && omp_get_team_num() == 0);
    }

    runs = 0;
#pragma omp teams
    {
#pragma omp parallel num_threads(1)
#pragma omp atomic
        runs++;
    }
    CHECK(runs == 3, "teams without num_teams: libgomp's default of 3 (%d)", runs);
}

static void test_target_teams(void)
{
    int runs = 0, limit = -1;
#pragma omp target teams num_teams(3) thread_limit(2) map(tofrom : runs, limit)
    {
#pragma omp parallel num_threads(1)
        {
#pragma omp atomic
            runs++;
            if (omp_get_thread_limit != NULL)
                limit = omp_get_thread_limit();
        }
    }
    CHECK(runs == 3, "target teams num_teams(3): %d teams ran", runs);
    if (omp_get_thread_limit != NULL)
        CHECK(limit == 2, "thread_limit(2) inside the teams: %d", limit);

    int threads = 0;
#pragma omp target teams num_teams(1) thread_limit(2) map(tofrom : threads)
#pragma omp parallel num_threads(4) reduction(+ : threads)
    threads += 1;
    CHECK(threads == 2, "thread_limit(2) caps a parallel region inside the teams: %d threads", threads);
}

/* ---- omp_target_* on the host ---- */

static int src_of_nothing[1];

static void test_target_memory_routines(void)
{
    /* No devices: the host is device 0 (omp_get_num_devices()). */
    int host = 0;
    if (omp_get_initial_device != NULL)
        CHECK(omp_get_initial_device() == host, "the initial device");
    CHECK(omp_target_is_present(src_of_nothing, 1) == 0, "there is no device 1");
    int *p = omp_target_alloc(16 * sizeof(int), host);
    CHECK(p != NULL);
    CHECK(omp_target_is_present(p, host) == 1);
    int src[16];
    for (int i = 0; i < 16; i++)
        src[i] = i;
    CHECK(omp_target_memcpy(p, src, 8 * sizeof(int), 2 * sizeof(int), 4 * sizeof(int), host, host) == 0);
    CHECK(p[2] == 4 && p[9] == 11, "memcpy honours both offsets");
    CHECK(omp_target_memcpy(p, src, 4, 0, 0, 5, host) != 0, "no device 5");
    CHECK(omp_target_alloc(16, 5) == NULL);

    /* A 2x3 block from a 4x5 source at (1,2) to a 3x4 destination at (0,1). */
    int s2[4][5], d2[3][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            s2[i][j] = 10 * i + j;
    memset(d2, 0, sizeof d2);
    size_t volume[2] = {2, 3}, dst_off[2] = {0, 1}, src_off[2] = {1, 2}, dst_dim[2] = {3, 4}, src_dim[2] = {4, 5};
    CHECK(omp_target_memcpy_rect(d2, s2, sizeof(int), 2, volume, dst_off, src_off, dst_dim, src_dim, host, host) ==
          0);
    CHECK(d2[0][0] == 0 && d2[0][1] == 12 && d2[0][3] == 14 && d2[1][1] == 22 && d2[1][3] == 24 && d2[2][1] == 0,
          "memcpy_rect copied the right block");
    CHECK(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, host, host) > 2,
          "NULL, NULL asks how many dimensions are supported");
    CHECK(omp_target_associate_ptr(src, p, 4, 0, host) != 0, "association needs a device");
    omp_target_free(p, host);
}

/* ---- allocators ---- */

static void test_allocators(void)
{
    CHECK(omp_get_default_allocator() == omp_default_mem_alloc);
    char *p = omp_alloc(100, omp_null_allocator);
    CHECK(p != NULL);
    memset(p, 7, 100);
    p = omp_realloc(p, 1000, omp_null_allocator, omp_null_allocator);
    CHECK(p != NULL && p[0] == 7 && p[99] == 7, "realloc keeps the contents");
    omp_free(p, omp_null_allocator);

    double *aligned = omp_aligned_alloc(256, 24, omp_default_mem_alloc);
    CHECK(aligned != NULL && (uintptr_t)aligned % 256 == 0, "aligned_alloc(256)");
    omp_free(aligned, omp_default_mem_alloc);
    int *zeroes = omp_aligned_calloc(64, 50, sizeof(int), omp_large_cap_mem_alloc);
    CHECK(zeroes != NULL && (uintptr_t)zeroes % 64 == 0);
    for (int i = 0; i < 50; i++)
        CHECK(zeroes[i] == 0, "calloc zeroes");
    omp_free(zeroes, omp_null_allocator);
    volatile size_t huge = SIZE_MAX / 2; /* volatile: keeps gcc from flagging the overflow we test */
    CHECK(omp_calloc(huge, 4, omp_default_mem_alloc) == NULL, "calloc overflow");

    omp_alloctrait_t traits[] = {{omp_atk_alignment, 128}, {omp_atk_pool_size, 1000}, {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t pool = omp_init_allocator(omp_default_mem_space, 3, traits);
    CHECK(pool != omp_null_allocator);
    void *a = omp_alloc(600, pool);
    CHECK(a != NULL && (uintptr_t)a % 128 == 0, "the alignment trait applies");
    CHECK(omp_alloc(600, pool) == NULL, "past pool_size, null_fb gives NULL");
    omp_free(a, pool);
    a = omp_alloc(600, pool);
    CHECK(a != NULL, "freeing returns the bytes to the pool");

    omp_alloctrait_t fb_traits[] = {{omp_atk_pool_size, 100}, {omp_atk_fallback, omp_atv_default_mem_fb}};
    omp_allocator_handle_t small = omp_init_allocator(omp_default_mem_space, 2, fb_traits);
    void *big = omp_alloc(5000, small);
    CHECK(big != NULL, "default_mem_fb falls back to the default allocator");
    omp_free(big, small);

    omp_alloctrait_t chain_traits[] = {{omp_atk_pool_size, 10}, {omp_atk_fallback, omp_atv_allocator_fb},
                                       {omp_atk_fb_data, pool}};
    omp_allocator_handle_t chained = omp_init_allocator(omp_default_mem_space, 3, chain_traits);
    CHECK(chained != omp_null_allocator);
    CHECK(omp_alloc(600, chained) == NULL, "allocator_fb: the fallback pool is full too");
    omp_free(a, pool);
    void *via_fb = omp_alloc(600, chained);
    CHECK(via_fb != NULL && (uintptr_t)via_fb % 128 == 0, "allocator_fb used the fallback allocator's traits");
    omp_free(via_fb, chained);

    omp_alloctrait_t bad_align[] = {{omp_atk_alignment, 48}};
    CHECK(omp_init_allocator(omp_default_mem_space, 1, bad_align) == omp_null_allocator, "alignment 48 is invalid");
    omp_alloctrait_t no_fb_data[] = {{omp_atk_pool_size, 10}, {omp_atk_fallback, omp_atv_allocator_fb}};
    omp_allocator_handle_t to_default = omp_init_allocator(omp_default_mem_space, 2, no_fb_data);
    CHECK(to_default != omp_null_allocator, "allocator_fb without fb_data is accepted, as libgomp does");
    void *via_default = omp_alloc(100, to_default);
    CHECK(via_default != NULL, "and falls back to the default allocator");
    omp_free(via_default, to_default);
    omp_destroy_allocator(to_default);

    omp_set_default_allocator(pool);
    CHECK(omp_get_default_allocator() == pool);
    void *d = omp_alloc(10, omp_null_allocator);
    CHECK(d != NULL && (uintptr_t)d % 128 == 0, "omp_null_allocator means the default allocator");
    omp_free(d, omp_null_allocator);
    omp_set_default_allocator(omp_default_mem_alloc);

    void *g = GOMP_alloc(4096, 10, omp_default_mem_alloc);
    CHECK(g != NULL && (uintptr_t)g % 4096 == 0, "GOMP_alloc alignment");
    GOMP_free(g, omp_default_mem_alloc);

    omp_destroy_allocator(chained);
    omp_destroy_allocator(small);
    omp_destroy_allocator(pool);
}

/* ---- cancellation is disabled ---- */

static void test_cancellation_disabled(void)
{
    CHECK(omp_get_cancellation() == 0);
    int after_cancel = 0, barrier_ok = 1;
    int slots[4] = {0};
#pragma omp parallel num_threads(4) shared(after_cancel, barrier_ok, slots)
    {
        int me = omp_get_thread_num();
#pragma omp cancel parallel if (me >= 0)
#pragma omp atomic
        after_cancel++;
#pragma omp cancellation point parallel
        slots[me] = 1;
        /* In a cancellable region gcc emits GOMP_barrier_cancel here: it
         * must still be a full barrier. */
#pragma omp barrier
        for (int i = 0; i < omp_get_num_threads(); i++)
            if (!slots[i]) {
#pragma omp atomic write
                barrier_ok = 0;
            }
    }
    CHECK(after_cancel == 4, "cancel does not cancel: %d threads went on", after_cancel);
    CHECK(barrier_ok, "the cancellable barrier waited for every thread");
}

/* ---- the error directive ---- */

/* Runs fn in a child with stderr into a pipe; returns what it wrote and
 * its exit status. */
static int run_capturing_stderr(void (*fn)(void), char *text, size_t size)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], text + got, size - 1 - got)) > 0)
        got += (size_t)n;
    text[got] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void warn_with_length(void) { GOMP_warning("careful there", 7); }
static void error_terminated(void) { GOMP_error("stop", (size_t)-1); }
static void warn_without_message(void) { GOMP_warning(NULL, 0); }
static void warn_from_directive(void)
{
#pragma omp error at(execution) severity(warning) message("from a directive")
}

static void test_error_directive(void)
{
    char text[512];
    CHECK(run_capturing_stderr(warn_with_length, text, sizeof text) == 0, "a warning does not end the program");
    CHECK(strstr(text, "error directive encountered: careful\n") != NULL, "warning text: [%s]", text);
    CHECK(run_capturing_stderr(error_terminated, text, sizeof text) == 1, "an error exits with status 1");
    CHECK(strstr(text, "fatal error: error directive encountered: stop\n") != NULL, "error text: [%s]", text);
    CHECK(run_capturing_stderr(warn_without_message, text, sizeof text) == 0);
    CHECK(strstr(text, "error directive encountered\n") != NULL, "no message: [%s]", text);
    CHECK(run_capturing_stderr(warn_from_directive, text, sizeof text) == 0);
    CHECK(strstr(text, "error directive encountered: from a directive\n") != NULL, "directive: [%s]", text);
}

int main(void)
{
    test_target_runs_on_host();
    test_target_is_an_initial_thread();
    test_host_teams();
    test_target_teams();
    test_target_memory_routines();
    test_allocators();
    test_cancellation_disabled();
    test_error_directive();
    printf("test_omp_target: ok\n");
    return 0;
}
