/* The environment variables (MUSTER_BARRIER, MUSTER_WAIT_POLICY,
 * OMP_WAIT_POLICY, MUSTER_SPIN_NS), checked from outside: tests/CMakeLists.txt
 * runs this program under different environments and matches its output.
 *
 * It creates two default barriers for 3 participants (the environment is read
 * once, so any warning must appear once), capturing what the library writes
 * to stderr meanwhile, then prints on stdout:
 *   stderr| <each captured line>     (also copied to the real stderr)
 *   stderr_lines=<count>
 *   algorithm=<name> policy=<name> spin_ns=<n> spin_ns_is_default=<0|1>
 * runs some episodes with 3 threads, and finally prints "test_env: ok".
 * Capturing makes the output order deterministic (ctest reads stdout and
 * stderr from separate pipes) and proves the warnings go to stderr.
 *
 * usage: test_env [--algorithm NAME] [--policy NAME]
 *   explicit attributes, to check that they win over the environment. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "muster/barrier.h"
#include "wait/policy.h"

#include "check.h"

#define PARTICIPANTS 3u

static double test_scale(void)
{
    const char *s = getenv("MUSTER_TEST_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0.0 ? v : 1.0;
}

typedef struct team {
    muster_barrier *barrier;
    unsigned episodes;
    _Atomic unsigned long entered;
    _Atomic unsigned serials[1000];
    _Atomic int failures;
} team;

typedef struct member {
    team *team;
    unsigned id;
} member;

static void *member_main(void *arg)
{
    member *m = arg;
    team *t = m->team;
    for (unsigned e = 0; e < t->episodes; e++) {
        atomic_fetch_add(&t->entered, 1);
        int rc = muster_barrier_wait(t->barrier, m->id);
        if (rc < 0) {
            fprintf(stderr, "participant %u, episode %u: %s (%s)\n", m->id, e, muster_strerror(rc),
                    muster_error_detail());
            atomic_fetch_add(&t->failures, 1);
            return NULL;
        }
        if (atomic_load(&t->entered) < (unsigned long)(e + 1) * PARTICIPANTS) {
            fprintf(stderr, "participant %u left episode %u early\n", m->id, e);
            atomic_fetch_add(&t->failures, 1);
        }
        if (rc == MUSTER_BARRIER_SERIAL)
            atomic_fetch_add(&t->serials[e], 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--algorithm") == 0 && i + 1 < argc) {
            CHECK(muster_algorithm_parse(argv[++i], &attr.algorithm) == MUSTER_OK);
        } else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
            CHECK(muster_wait_policy_parse(argv[++i], &attr.wait_policy) == MUSTER_OK);
        } else {
            fprintf(stderr, "usage: %s [--algorithm NAME] [--policy NAME]\n", argv[0]);
            return 2;
        }
    }

    /* Capture fd 2 while the library reads the environment. */
    fflush(stderr);
    FILE *capture = tmpfile();
    CHECK(capture != NULL);
    int saved_stderr = dup(STDERR_FILENO);
    CHECK(saved_stderr >= 0);
    CHECK(dup2(fileno(capture), STDERR_FILENO) == STDERR_FILENO);

    muster_barrier *barrier = NULL, *second = NULL;
    int rc = muster_barrier_create(&barrier, PARTICIPANTS, &attr);
    int rc2 = muster_barrier_create(&second, PARTICIPANTS, &attr);

    fflush(stderr);
    CHECK(dup2(saved_stderr, STDERR_FILENO) == STDERR_FILENO);
    close(saved_stderr);

    unsigned lines = 0;
    char line[1024];
    rewind(capture);
    while (fgets(line, sizeof line, capture) != NULL) {
        fputs(line, stderr);
        size_t n = strlen(line);
        printf("stderr| %s%s", line, n > 0 && line[n - 1] == '\n' ? "" : "\n");
        lines++;
    }
    fclose(capture);
    printf("stderr_lines=%u\n", lines);
    fflush(stdout);

    /* Garbage in the environment never fails a call. */
    CHECK(rc == MUSTER_OK);
    CHECK(rc2 == MUSTER_OK);
    CHECK(barrier != NULL && second != NULL);

    muster_barrier_attr resolved, resolved2;
    CHECK(muster_barrier_get_attr(barrier, &resolved) == MUSTER_OK);
    CHECK(muster_barrier_get_attr(second, &resolved2) == MUSTER_OK);
    CHECK(memcmp(&resolved, &resolved2, sizeof resolved) == 0);
    muster_barrier_destroy(second);

    /* Every default resolved. */
    CHECK(resolved.algorithm > MUSTER_ALG_AUTO && resolved.algorithm < MUSTER_ALG_COUNT);
    CHECK(resolved.wait_policy > MUSTER_WAIT_DEFAULT && resolved.wait_policy < MUSTER_WAIT_COUNT);
    CHECK(resolved.spin_ns >= 0 && resolved.spin_ns <= MUSTER_MAX_SPIN_NS);
    CHECK(resolved.wakeup > MUSTER_WAKE_DEFAULT && resolved.wakeup < MUSTER_WAKE_COUNT);
    CHECK(muster_barrier_participants(barrier) == PARTICIPANTS);

    int64_t default_spin = PARTICIPANTS > muster_cpus_available() ? MUSTER_SPIN_NS_OVERSUBSCRIBED
                                                                   : MUSTER_SPIN_NS_DEFAULT;
    const char *algorithm = muster_algorithm_name(resolved.algorithm);
    const char *policy = muster_wait_policy_name(resolved.wait_policy);
    CHECK(algorithm != NULL && policy != NULL);
    printf("algorithm=%s policy=%s spin_ns=%lld spin_ns_is_default=%d\n", algorithm, policy,
           (long long)resolved.spin_ns, resolved.spin_ns == default_spin);
    fflush(stdout);

    /* A few episodes with 3 threads. */
    static team t;
    unsigned episodes = (unsigned)(100 * test_scale());
    t.barrier = barrier;
    t.episodes = episodes < 5 ? 5 : episodes > 1000 ? 1000 : episodes;
    pthread_t threads[PARTICIPANTS];
    member members[PARTICIPANTS];
    for (unsigned i = 0; i < PARTICIPANTS; i++) {
        members[i] = (member){&t, i};
        CHECK(pthread_create(&threads[i], NULL, member_main, &members[i]) == 0);
    }
    for (unsigned i = 0; i < PARTICIPANTS; i++)
        pthread_join(threads[i], NULL);
    CHECK(atomic_load(&t.failures) == 0);
    for (unsigned e = 0; e < t.episodes; e++)
        CHECK(atomic_load(&t.serials[e]) == 1);
    CHECK(!muster_barrier_is_broken(barrier));
    muster_barrier_destroy(barrier);

    printf("episodes=%u\ntest_env: ok\n", t.episodes);
    return 0;
}
