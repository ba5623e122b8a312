/* test_omp_api_lib: the ICV and places API through the real library, from
 * a program built with `gcc -fopenmp` and linked with libmuster-omp.so
 * (not libgomp), so regions are forked by parallel.c and the places come
 * from affinity.c through the exported symbols only.
 *
 *   test_omp_api_lib icvs     OMP_NUM_THREADS=3,2 OMP_PROC_BIND=spread,close:
 *                             the lists advance one level per region
 *   test_omp_api_lib places   OMP_PLACES=threads OMP_PROC_BIND=spread: each
 *                             member is pinned to its place and partition,
 *                             and the primary's partition is whole again after
 * Prints "test_omp_api_lib: ok" last when every check passed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#endif
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

static void check_icvs(void)
{
    CHECK(omp_get_max_threads() == 3);
    CHECK(omp_get_proc_bind() == omp_proc_bind_spread);
    CHECK(omp_get_max_active_levels() == omp_get_supported_active_levels());
    int inner_threads[8] = {0}, inner_bind[8] = {0};
#pragma omp parallel num_threads(2)
    {
        inner_threads[omp_get_thread_num()] = omp_get_max_threads();
        inner_bind[omp_get_thread_num()] = omp_get_proc_bind();
        omp_set_num_threads(5); /* the implicit task's own copy */
    }
    for (int i = 0; i < 2; i++)
        CHECK(inner_threads[i] == 2 && inner_bind[i] == omp_proc_bind_close);
    CHECK(omp_get_max_threads() == 3); /* untouched by the members' calls */
    omp_set_schedule(omp_sched_guided, 4);
    int ok = 1;
#pragma omp parallel num_threads(2) reduction(&& : ok)
    {
        omp_sched_t kind;
        int chunk;
        omp_get_schedule(&kind, &chunk);
        ok = kind == omp_sched_guided && chunk == 4; /* inherited from the primary */
    }
    CHECK(ok);
}

/* The calling thread is pinned to exactly the CPUs of its place. */
static int pinned_to_own_place(void)
{
    int place = omp_get_place_num(), n = omp_get_place_num_procs(place), ids[1024];
    omp_get_place_proc_ids(place, ids);
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0 || CPU_COUNT(&mask) != n)
        return 0;
    for (int k = 0; k < n; k++)
        if (!CPU_ISSET(ids[k], &mask))
            return 0;
    return 1;
}

static void check_places(void)
{
    int places = omp_get_num_places();
    CHECK(places >= 1);
    CHECK(omp_get_place_num() == 0 && omp_get_partition_num_places() == places);
    for (int round = 0; round < 2; round++) {
        int team = places >= 2 ? 2 : 1, place[2] = {-1, -1}, part[2] = {0, 0}, pinned = 1;
#pragma omp parallel num_threads(team) reduction(&& : pinned)
        {
            place[omp_get_thread_num()] = omp_get_place_num();
            part[omp_get_thread_num()] = omp_get_partition_num_places();
            pinned = pinned_to_own_place();
        }
        CHECK(pinned);
        /* spread over P places with 2 threads: sub-partitions of P/2 places. */
        CHECK(place[0] == 0 && part[0] == (team == 2 ? places / 2 : places));
        if (team == 2)
            CHECK(place[1] == places / 2 && part[1] == places - places / 2);
        /* Back in the initial thread: the whole list again. */
        CHECK(omp_get_partition_num_places() == places);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "icvs") == 0)
        check_icvs();
    else if (argc > 1 && strcmp(argv[1], "places") == 0)
        check_places();
    else
        return 2;
    printf("test_omp_api_lib: ok\n");
    return 0;
}
