/* A program that asks for more threads than a team can have
 * (num_threads(10000), as a conformance suite's num_threads test does)
 * must get a warning and a capped team at once,
 * never minutes of failed attempts: muster's barriers take at most
 * MUSTER_MAX_PARTICIPANTS members, so a team has at most that many.  Each
 * region's members all run and agree on the team size; a small region
 * after the big one still works.  The same inside host teams, asked for by
 * num_threads(10000) and by thread_limit(10000) with nthreads-var 10000
 * (once a hang after "cannot allocate a team's barriers").  An alarm turns
 * a hang into a failure. */
#include <omp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit, unsigned flags);

static atomic_uint members;
static atomic_int disagreements;
static int team_size_seen;

static void body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&members, 1);
    if (omp_get_thread_num() == 0)
        team_size_seen = omp_get_num_threads();
}

static void check_size(void *arg)
{
    int want = *(const int *)arg;
    if (omp_get_num_threads() != want)
        atomic_fetch_add(&disagreements, 1);
}

/* Runs one region of `num_threads` (0: nthreads-var's); returns its size. */
static int region(unsigned num_threads)
{
    atomic_store(&members, 0);
    GOMP_parallel(body, NULL, num_threads, 0);
    int size = team_size_seen;
    CHECK((unsigned)size == atomic_load(&members), "%u members ran in a team of %d", atomic_load(&members), size);
    atomic_store(&disagreements, 0);
    GOMP_parallel(check_size, &size, (unsigned)size, 0);
    CHECK(atomic_load(&disagreements) == 0, "members disagree on a team of %d", size);
    return size;
}

static void check_big(int size, const char *how)
{
    CHECK(size >= 2 && (unsigned)size <= MUSTER_MAX_PARTICIPANTS, "%s gave a team of %d", how, size);
}

/* A team's body of `teams distribute parallel for num_threads(10000)`. */
static void team_asking_num_threads(void *arg)
{
    (void)arg;
    check_big(region(10000), "num_threads(10000) in host teams");
}

/* ... and of thread_limit(10000): the region asks for nthreads-var. */
static void team_asking_nthreads_var(void *arg)
{
    (void)arg;
    check_big(region(0), "thread_limit(10000) and nthreads-var 10000 in host teams");
}

int main(void)
{
    alarm(120);
    int size = region(10000);
    check_big(size, "num_threads(10000)");
    GOMP_teams_reg(team_asking_num_threads, NULL, 2, 0, 0);
    omp_set_num_threads(10000);
    GOMP_teams_reg(team_asking_nthreads_var, NULL, 2, 10000, 0);
    omp_set_num_threads(3);
    CHECK(region(0) == 3, "a team of 3 after the big ones");
    CHECK(region(5) == 5, "a team of 5 after the big ones");
    printf("test_omp_big_team: num_threads(10000) ran a team of %d\n", size);
    return 0;
}
