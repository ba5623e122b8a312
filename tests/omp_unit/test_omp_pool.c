/* The fork/join core of libmuster-omp (pool.c, parallel.c), driven by real
 * `gcc -fopenmp` code linked against libmuster-omp instead of libgomp:
 *   - many regions whose team size changes at random between 1 and 7 (the
 *     pool must grow, shrink and regrow while staying hot), each member
 *     checking its number, the team size and that every member arrived at
 *     a barrier, with random delays;
 *   - nested regions with nesting off (teams of one, levels still counted)
 *     and on (real inner teams forked by pool workers), checking levels,
 *     active levels, ancestors and team sizes;
 *   - the GOMP 1.0 split form GOMP_parallel_start / GOMP_parallel_end;
 *   - fork() after regions: the child runs regions of its own;
 *   - exit with workers docked or parked: the process ends cleanly.
 * tests/omp_unit/pool.cmake runs it under several barrier algorithms (with
 * and without split episodes) and wait policies. */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, " " __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                              \
            abort();                                                            \
        }                                                                       \
    } while (0)

static unsigned scaled(unsigned n)
{
    const char *s = getenv("MUSTER_TEST_SCALE");
    double v = s ? atof(s) : 1.0;
    unsigned r = (unsigned)(n * (v > 0 ? v : 1.0));
    return r ? r : 1;
}

static unsigned next_random(unsigned *state)
{
    unsigned x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x ? x : 0x9e3779b9u;
}

static void random_delay(unsigned *state)
{
    unsigned r = next_random(state) % 64;
    if (r == 0)
        usleep(50);
    else
        for (volatile unsigned i = 0; i < r * 20; i++)
            ;
}

/* MUSTER_WAIT_POLICY=active spins without end: teams bigger than the CPUs
 * would only measure the scheduler's time slice. */
static int largest_team(void)
{
    const char *policy = getenv("MUSTER_WAIT_POLICY");
    if (policy != NULL && strcmp(policy, "active") == 0)
        return omp_get_num_procs() < 7 ? omp_get_num_procs() : 7;
    return 7;
}

/* Regions of changing size: every member present, numbered, counted. */
static void changing_teams(unsigned regions)
{
    unsigned seed = 12345;
    for (unsigned r = 0; r < regions; r++) {
        int size = 1 + (int)(next_random(&seed) % (unsigned)largest_team());
        _Atomic unsigned present = 0, after = 0;
        unsigned base = seed;
#pragma omp parallel num_threads(size)
        {
            unsigned mine = base + (unsigned)omp_get_thread_num() * 7919u;
            CHECK(omp_get_num_threads() == size, "team of %d, asked for %d", omp_get_num_threads(), size);
            CHECK(omp_get_thread_num() < size);
            CHECK(omp_get_level() == 1 && omp_in_parallel() == (size > 1));
            random_delay(&mine);
            atomic_fetch_or(&present, 1u << omp_get_thread_num());
#pragma omp barrier
            CHECK(atomic_load(&present) == (1u << size) - 1, "barrier passed with members %#x of %d",
                  atomic_load(&present), size);
            random_delay(&mine);
            atomic_fetch_add(&after, 1);
        }
        /* The join: every member finished its body. */
        CHECK(atomic_load(&after) == (unsigned)size, "join after %u of %d members", atomic_load(&after), size);
        CHECK(omp_get_level() == 0 && !omp_in_parallel());
    }
}

static void check_nesting(int inner_size, int outer_size, int outer_id)
{
    CHECK(omp_get_level() == 2, "level %d, thread %d of %d, outer %d of %d", omp_get_level(), omp_get_thread_num(), omp_get_num_threads(), outer_id, outer_size);
    CHECK(omp_get_ancestor_thread_num(0) == 0 && omp_get_ancestor_thread_num(1) == outer_id);
    CHECK(omp_get_ancestor_thread_num(2) == omp_get_thread_num());
    CHECK(omp_get_ancestor_thread_num(3) == -1 && omp_get_ancestor_thread_num(-1) == -1);
    CHECK(omp_get_team_size(0) == 1 && omp_get_team_size(1) == outer_size);
    CHECK(omp_get_team_size(2) == inner_size && omp_get_num_threads() == inner_size);
    CHECK(omp_get_team_size(3) == -1);
}

static void nested(unsigned regions, int max_levels)
{
    omp_set_max_active_levels(max_levels);
    for (unsigned r = 0; r < regions; r++) {
        int outer_size = largest_team() < 4 ? 2 : 2 + (int)(r % 3);
        _Atomic unsigned inner_members = 0;
#pragma omp parallel num_threads(outer_size)
        {
            int outer_id = omp_get_thread_num();
            int inner_size = max_levels >= 2 ? 2 + (outer_id + (int)r) % 2 : 1;
#pragma omp parallel num_threads(2 + (outer_id + (int)r) % 2)
            {
                check_nesting(inner_size, outer_size, outer_id);
                CHECK(omp_get_active_level() == (max_levels >= 2 ? 2 : 1));
                atomic_fetch_add(&inner_members, 1);
#pragma omp barrier
            }
            CHECK(omp_get_level() == 1 && omp_get_thread_num() == outer_id);
        }
        unsigned expected = 0;
        for (int id = 0; id < outer_size; id++)
            expected += max_levels >= 2 ? 2 + (unsigned)(id + (int)r) % 2 : 1;
        CHECK(atomic_load(&inner_members) == expected, "%u inner members, expected %u",
              atomic_load(&inner_members), expected);
    }
    omp_set_max_active_levels(1);
}

static _Atomic unsigned split_form_members;

static void split_form_body(void *data)
{
    CHECK(*(int *)data == 42);
    atomic_fetch_add(&split_form_members, 1);
}

static void split_form(void)
{
    int data = 42;
    for (unsigned n = 1; n <= 5; n++) {
        atomic_store(&split_form_members, 0);
        GOMP_parallel_start(split_form_body, &data, n);
        split_form_body(&data);
        GOMP_parallel_end();
        CHECK(atomic_load(&split_form_members) == n);
    }
}

static __attribute__((unused)) void fork_child(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        changing_teams(scaled(200));
        _exit(0);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
}

int main(void)
{
    changing_teams(scaled(3000));
    nested(scaled(200), 1);
    if (largest_team() >= 4) /* inner teams would oversubscribe spinners */
        nested(scaled(200), 2);
    split_form();
    /* ThreadSanitizer cannot start threads in a child of a threaded parent,
     * nor can qemu-user (cross builds): the plain and ASan builds cover it. */
#if !defined(__SANITIZE_THREAD__) && !defined(MUSTER_TEST_NO_FORK)
    fork_child();
#endif
    changing_teams(scaled(200));
    /* Leave workers docked (the last region had several threads). */
#pragma omp parallel num_threads(3)
    {
    }
    printf("test_omp_pool: ok\n");
    return 0;
}
