/* The environment variables libmuster reads (MUSTER_BARRIER,
 * MUSTER_WAIT_POLICY, OMP_WAIT_POLICY, MUSTER_SPIN_NS): every case below runs
 * this program again as a child under its own environment and checks what
 * the child reports against the case's expectations.
 *
 *   test_env --driver COMMAND...   runs every case; COMMAND runs this
 *                                  program (under an emulator in a cross
 *                                  build), with --child appended
 *   test_env --child [--algorithm NAME] [--policy NAME]
 *
 * The child creates two default barriers for 3 participants (the environment
 * is read once, so any warning must appear once), capturing what the library
 * writes to stderr meanwhile, then prints on stdout:
 *   stderr| <each captured line>     (also copied to the real stderr)
 *   stderr_lines=<count>
 *   algorithm=<name> policy=<name> spin_ns=<n> spin_ns_is_default=<0|1>
 * runs some episodes with 3 threads, and finally prints "test_env: ok".
 * Capturing makes the output order deterministic and proves the warnings go
 * to stderr.  --algorithm/--policy: explicit attributes, which must win over
 * the environment.  Each warning is one line:
 *   muster: NAME='VALUE' <problem>; using <instead> */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "muster/barrier.h"
#include "platform/cpus.h"
#include "wait/policy.h"

#include "env_driver.h"
#include "stress_common.h"

#define PARTICIPANTS 3u

typedef struct team {
    muster_barrier *barrier;
    unsigned episodes;
    _Atomic unsigned long entered;
    _Atomic unsigned serials[1000];
    _Atomic int failures;
} team;

static void *member_main(void *arg)
{
    team_member *m = arg;
    team *t = m->shared;
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

static int child_main(int argc, char **argv)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--algorithm") == 0 && i + 1 < argc) {
            CHECK(muster_algorithm_parse(argv[++i], &attr.algorithm) == MUSTER_OK);
        } else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
            CHECK(muster_wait_policy_parse(argv[++i], &attr.wait_policy) == MUSTER_OK);
        } else {
            fprintf(stderr, "usage: %s --child [--algorithm NAME] [--policy NAME]\n", argv[0]);
            return 2;
        }
    }

    /* Capture fd 2 while the library reads the environment. */
    env_capture capture = env_capture_begin();

    muster_barrier *barrier = NULL, *second = NULL;
    int rc = muster_barrier_create(&barrier, PARTICIPANTS, &attr);
    int rc2 = muster_barrier_create(&second, PARTICIPANTS, &attr);

    env_capture_end(&capture, true);

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
    test_threads members = test_threads_start(PARTICIPANTS, member_main, &t);
    test_threads_join(&members);
    CHECK(atomic_load(&t.failures) == 0);
    for (unsigned e = 0; e < t.episodes; e++)
        CHECK(atomic_load(&t.serials[e]) == 1);
    CHECK(!muster_barrier_is_broken(barrier));
    muster_barrier_destroy(barrier);

    printf("episodes=%u\ntest_env: ok\n", t.episodes);
    return 0;
}

/* ---- the driver: each case, a child under its own environment ---- */

enum { ANY_SPIN = -2, DEFAULT_SPIN = -1 };

typedef struct env_case {
    const char *name;
    const char *env[4];  /* NAME=VALUE, set on top of a clean environment (env_driver.h) */
    const char *args[3]; /* the child's explicit attributes */
    unsigned warnings;   /* stderr lines the library prints */
    const char *warning; /* each starts "muster: " + this; NULL: any variable */
    const char *algorithm, *policy; /* NULL: any valid one (the child checks validity) */
    long long spin_ns;   /* ANY_SPIN, DEFAULT_SPIN (the team size's budget), or exact */
} env_case;

static const env_case cases[] = {
    {"defaults", {0}, {0}, 0, NULL, NULL, "hybrid", DEFAULT_SPIN},
    /* MUSTER_BARRIER */
    {"barrier_tournament", {"MUSTER_BARRIER=tournament"}, {0}, 0, NULL, "tournament", "hybrid", DEFAULT_SPIN},
    {"barrier_case", {"MUSTER_BARRIER=Static-FWay"}, {0}, 0, NULL, "static-fway", "hybrid", DEFAULT_SPIN},
    {"barrier_explicit_attr_wins", {"MUSTER_BARRIER=tournament"}, {"--algorithm", "central-sense"}, 0, NULL,
     "central-sense", "hybrid", DEFAULT_SPIN},
    {"barrier_bogus", {"MUSTER_BARRIER=bogus"}, {0}, 1, "MUSTER_BARRIER='bogus' is not one of ", NULL, "hybrid",
     DEFAULT_SPIN},
    {"barrier_empty", {"MUSTER_BARRIER="}, {0}, 1, "MUSTER_BARRIER='' is not one of ", NULL, "hybrid",
     DEFAULT_SPIN},
    /* MUSTER_WAIT_POLICY and OMP_WAIT_POLICY */
    {"policy_passive", {"MUSTER_WAIT_POLICY=passive"}, {0}, 0, NULL, NULL, "passive", DEFAULT_SPIN},
    {"policy_active", {"MUSTER_WAIT_POLICY=active"}, {0}, 0, NULL, NULL, "active", DEFAULT_SPIN},
    {"policy_hybrid", {"MUSTER_WAIT_POLICY=hybrid"}, {0}, 0, NULL, NULL, "hybrid", DEFAULT_SPIN},
    {"policy_garbage", {"MUSTER_WAIT_POLICY=garbage"}, {0}, 1,
     "MUSTER_WAIT_POLICY='garbage' is not one of active, passive, hybrid; using hybrid", NULL, "hybrid",
     DEFAULT_SPIN},
    {"policy_explicit_attr_wins", {"MUSTER_WAIT_POLICY=passive"}, {"--policy", "active"}, 0, NULL, NULL, "active",
     DEFAULT_SPIN},
    {"omp_active", {"OMP_WAIT_POLICY=active"}, {0}, 0, NULL, NULL, "active", DEFAULT_SPIN},
    {"omp_passive_uppercase", {"OMP_WAIT_POLICY=PASSIVE"}, {0}, 0, NULL, NULL, "passive", DEFAULT_SPIN},
    {"omp_garbage", {"OMP_WAIT_POLICY=garbage"}, {0}, 1,
     "OMP_WAIT_POLICY='garbage' is not one of active, passive; using hybrid", NULL, "hybrid", DEFAULT_SPIN},
    {"omp_hybrid_is_not_omp", {"OMP_WAIT_POLICY=hybrid"}, {0}, 1, "OMP_WAIT_POLICY='hybrid' is not one of ", NULL,
     "hybrid", DEFAULT_SPIN},
    {"muster_policy_beats_omp", {"MUSTER_WAIT_POLICY=passive", "OMP_WAIT_POLICY=active"}, {0}, 0, NULL, NULL,
     "passive", DEFAULT_SPIN},
    {"muster_policy_beats_omp_2", {"MUSTER_WAIT_POLICY=active", "OMP_WAIT_POLICY=passive"}, {0}, 0, NULL, NULL,
     "active", DEFAULT_SPIN},
    /* MUSTER_SPIN_NS */
    {"spin_5000", {"MUSTER_SPIN_NS=5000"}, {0}, 0, NULL, NULL, "hybrid", 5000},
    {"spin_0", {"MUSTER_SPIN_NS=0"}, {0}, 0, NULL, NULL, "hybrid", 0},
    {"spin_max", {"MUSTER_SPIN_NS=10000000000"}, {0}, 0, NULL, NULL, "hybrid", 10000000000LL},
    {"spin_bad_negative", {"MUSTER_SPIN_NS=-3"}, {0}, 1, "MUSTER_SPIN_NS='-3' is not a whole number", NULL, "hybrid",
     DEFAULT_SPIN},
    {"spin_bad_word", {"MUSTER_SPIN_NS=abc"}, {0}, 1, "MUSTER_SPIN_NS='abc' ", NULL, "hybrid", DEFAULT_SPIN},
    {"spin_bad_float", {"MUSTER_SPIN_NS=1e99"}, {0}, 1, "MUSTER_SPIN_NS='1e99' ", NULL, "hybrid", DEFAULT_SPIN},
    {"spin_bad_huge", {"MUSTER_SPIN_NS=99999999999999"}, {0}, 1, "MUSTER_SPIN_NS='99999999999999' ", NULL,
     "hybrid", DEFAULT_SPIN},
    {"spin_bad_above_max", {"MUSTER_SPIN_NS=10000000001"}, {0}, 1, "MUSTER_SPIN_NS='10000000001' ", NULL,
     "hybrid", DEFAULT_SPIN},
    {"spin_bad_suffix", {"MUSTER_SPIN_NS=12abc"}, {0}, 1, "MUSTER_SPIN_NS='12abc' ", NULL, "hybrid",
     DEFAULT_SPIN},
    {"spin_empty", {"MUSTER_SPIN_NS="}, {0}, 1, "MUSTER_SPIN_NS='' ", NULL, "hybrid", DEFAULT_SPIN},
    /* Everything wrong at once: one warning per variable, each printed once. */
    {"all_bad", {"MUSTER_BARRIER=nope", "MUSTER_WAIT_POLICY=sometimes", "MUSTER_SPIN_NS=lots"}, {0}, 3, NULL, NULL,
     "hybrid", DEFAULT_SPIN},
};

static void check_warnings(const env_case *c, const char *out, const char *err)
{
    size_t len;
    const char *line = env_line(out, "stderr_lines=", &len);
    CHECK(line != NULL && (unsigned)atoi(line + 13) == c->warnings, "%s: %.*s, expected %u warning lines\n%s",
          c->name, line ? (int)len : 0, line ? line : "", c->warnings, out);
    /* Every line the library printed is a warning in the one format, on
     * stderr (the child copies the captured lines there), and nothing else
     * of the library's reached stderr. */
    CHECK(env_count_lines(out, "stderr| muster: ") == c->warnings, "%s: lines not in the warning format\n%s",
          c->name, out);
    CHECK(env_count_lines(err, "muster: ") == c->warnings, "%s: %u library lines on stderr, expected %u\n%s",
          c->name, env_count_lines(err, "muster: "), c->warnings, err);
    for (line = out; line != NULL && *line; line = env_next_line(line)) {
        if (strncmp(line, "stderr| muster: ", 16) != 0)
            continue;
        len = strcspn(line, "\n");
        CHECK(env_glob_n("*; using *", line, len), "%s: a warning without what is used instead: %.*s", c->name,
              (int)len, line);
        if (c->warning != NULL)
            CHECK(strncmp(line + 16, c->warning, strlen(c->warning)) == 0, "%s: warning '%.*s', expected '%s...'",
                  c->name, (int)len, line, c->warning);
    }
}

/* Case i (env_drive's check). */
static void check_case(size_t i, char **leading, char **command, int command_len)
{
    (void)leading;
    const env_case *c = &cases[i];
    env_child_result r = env_child(command, command_len, c->args, c->env);
    CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: the child failed (status %#x)\n%s%s", c->name,
          r.status, r.out, r.err);
    CHECK(strstr(r.out, "\ntest_env: ok\n") != NULL, "%s: the child did not finish\n%s", c->name, r.out);
    check_warnings(c, r.out, r.err);
    size_t len;
    const char *line = env_line(r.out, "algorithm=", &len);
    char algorithm[64], policy[64], spin[32], is_default[8];
    CHECK(line != NULL && env_word(line, len, "algorithm", algorithm, sizeof algorithm) &&
              env_word(line, len, "policy", policy, sizeof policy) && env_word(line, len, "spin_ns", spin, sizeof spin) &&
              env_word(line, len, "spin_ns_is_default", is_default, sizeof is_default),
          "%s: no settings line\n%s", c->name, r.out);
    if (c->algorithm != NULL)
        CHECK(strcmp(algorithm, c->algorithm) == 0, "%s: algorithm %s, expected %s", c->name, algorithm,
              c->algorithm);
    CHECK(strcmp(policy, c->policy) == 0, "%s: policy %s, expected %s", c->name, policy, c->policy);
    if (c->spin_ns == DEFAULT_SPIN)
        CHECK(strcmp(is_default, "1") == 0, "%s: spin_ns %s is not the default budget", c->name, spin);
    else if (c->spin_ns != ANY_SPIN)
        CHECK(atoll(spin) == c->spin_ns, "%s: spin_ns %s, expected %lld", c->name, spin, c->spin_ns);
    printf("%-28s ok: %u warning(s), algorithm=%s policy=%s spin_ns=%s\n", c->name, c->warnings, algorithm, policy,
           spin);
    env_child_free(&r);
}

int main(int argc, char **argv)
{
    return env_drive(argc, argv, child_main, 0, sizeof cases / sizeof cases[0], check_case);
}
