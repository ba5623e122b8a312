/* The cluster size N_c that barriers use when given none, and the auto
 * selector that reads it (src/barrier/cluster.c), checked from outside: the
 * driver runs this program again as a child under each case's
 * MUSTER_CLUSTER_SIZE and MUSTER_MACHINE settings (the table at the end)
 * and matches what the child prints:
 *   stderr| <each line the library wrote to stderr>
 *   cluster_size=<N> source=<where it came from>
 *   auto(<P>)=<algorithm>        for P = 1 .. CPUs + 1
 *   test_cluster: ok
 * Inside, it checks what needs no environment: a tuned barrier created with
 * cluster_size 0 gets N_c; a cluster-aware wake-up on another algorithm does
 * too; with no variable set the topology's cluster size is used; the
 * selector gives dissemination up to N_c CPUs, tuned beyond, central-sense
 * when oversubscribed; and a tuned barrier with that N_c runs episodes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "muster/barrier.h"
#include "muster/topology.h"
#include "platform/cpus.h"

#include "check.h"
#include "env_driver.h"

static muster_algorithm auto_choice(unsigned participants)
{
    muster_barrier *b;
    CHECK(muster_barrier_create(&b, participants, NULL) == MUSTER_OK);
    muster_barrier_attr attr;
    CHECK(muster_barrier_get_attr(b, &attr) == MUSTER_OK);
    muster_barrier_destroy(b);
    return attr.algorithm;
}

static unsigned resolved_cluster(muster_algorithm algorithm, muster_wakeup wakeup, unsigned participants)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = algorithm;
    attr.wakeup = wakeup;
    muster_barrier *b;
    CHECK(muster_barrier_create(&b, participants, &attr) == MUSTER_OK);
    CHECK(muster_barrier_get_attr(b, &attr) == MUSTER_OK);
    muster_barrier_destroy(b);
    return attr.cluster_size;
}

typedef struct member {
    muster_barrier *barrier;
    unsigned id, episodes, participants;
    _Atomic unsigned long *entered;
    _Atomic int *failures;
} member;

static void *member_main(void *arg)
{
    member *m = arg;
    for (unsigned e = 0; e < m->episodes; e++) {
        atomic_fetch_add(m->entered, 1);
        if (muster_barrier_wait(m->barrier, m->id) < 0 ||
            atomic_load(m->entered) < (unsigned long)(e + 1) * m->participants)
            atomic_fetch_add(m->failures, 1);
    }
    return NULL;
}

/* 7 participants on a tuned barrier with the default cluster size. */
static void run_tuned_episodes(void)
{
    enum { P = 7 };
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = MUSTER_ALG_TUNED;
    muster_barrier *b;
    CHECK(muster_barrier_create(&b, P, &attr) == MUSTER_OK);
    _Atomic unsigned long entered = 0;
    _Atomic int failures = 0;
    pthread_t threads[P];
    member members[P];
    for (unsigned i = 0; i < P; i++) {
        members[i] = (member){b, i, 200, P, &entered, &failures};
        CHECK(pthread_create(&threads[i], NULL, member_main, &members[i]) == 0);
    }
    for (unsigned i = 0; i < P; i++)
        pthread_join(threads[i], NULL);
    CHECK(atomic_load(&failures) == 0);
    muster_barrier_destroy(b);
}

static int child_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    /* Capture fd 2 while the library looks for N_c. */
    fflush(stderr);
    FILE *capture = tmpfile();
    CHECK(capture != NULL);
    int saved_stderr = dup(STDERR_FILENO);
    CHECK(saved_stderr >= 0 && dup2(fileno(capture), STDERR_FILENO) == STDERR_FILENO);
    const char *source;
    unsigned nc = muster_default_cluster_size(&source);
    unsigned again = muster_default_cluster_size(NULL); /* found once: no second warning */
    fflush(stderr);
    CHECK(dup2(saved_stderr, STDERR_FILENO) == STDERR_FILENO);
    close(saved_stderr);
    char line[1024];
    rewind(capture);
    while (fgets(line, sizeof line, capture) != NULL)
        printf("stderr| %s", line);
    fclose(capture);

    CHECK(nc >= 1 && nc <= MUSTER_MAX_PARTICIPANTS && again == nc);
    printf("cluster_size=%u source=%s\n", nc, source);
    if (strncmp(source, "topology", 8) == 0) {
        muster_topology *t;
        CHECK(muster_topology_discover(&t) == MUSTER_OK);
        CHECK(muster_topology_cluster_size(t, NULL) == nc);
        muster_topology_free(t);
    }

    CHECK(resolved_cluster(MUSTER_ALG_TUNED, MUSTER_WAKE_DEFAULT, 5) == nc);
    CHECK(resolved_cluster(MUSTER_ALG_STATIC_FWAY, MUSTER_WAKE_CLUSTER, 5) == nc);

    unsigned cpus = muster_cpus_available();
    for (unsigned p = 1; p <= cpus + 1; p++) {
        muster_algorithm chosen = auto_choice(p);
        muster_algorithm expected = p > cpus ? MUSTER_ALG_CENTRAL_SENSE
                                    : p <= nc ? MUSTER_ALG_DISSEMINATION
                                              : MUSTER_ALG_TUNED;
        CHECK(chosen == expected, "auto chose %s for %u participants (N_c %u, %u CPUs)",
              muster_algorithm_name(chosen), p, nc, cpus);
        printf("auto(%u)=%s\n", p, muster_algorithm_name(chosen));
    }
    run_tuned_episodes();
    printf("test_cluster: ok\n");
    return 0;
}

/* ---- the driver: each case, a child under its own environment ---- */

typedef struct cluster_case {
    const char *name;
    const char *env[3];      /* NAME=VALUE; '@' stands for the test data directory */
    const char *warning;     /* the one library line (a pattern after "muster: "); NULL: none */
    const char *lines[3];    /* lines (patterns) the child prints, in this order */
} cluster_case;

#define BAD_SIZE(v)                                                                                            \
    {"variable_bad_" v, {"MUSTER_CLUSTER_SIZE=" v}, "MUSTER_CLUSTER_SIZE='" v "' is not a whole number in [1, 4096]; using *", \
     {"cluster_size=# source=topology*"}}

static const cluster_case cases[] = {
    {"topology", {0}, NULL, {"cluster_size=# source=topology (*"}},
    {"variable_one", {"MUSTER_CLUSTER_SIZE=1"}, NULL, {"cluster_size=1 source=MUSTER_CLUSTER_SIZE", "auto(2)=tuned"}},
    {"variable_two", {"MUSTER_CLUSTER_SIZE=2"}, NULL,
     {"cluster_size=2 source=MUSTER_CLUSTER_SIZE", "auto(1)=dissemination", "auto(2)=dissemination"}},
    {"machine_file", {"MUSTER_MACHINE=@/cluster_one.json"}, NULL, {"cluster_size=1 source=machine file *cluster_one.json"}},
    {"variable_beats_file", {"MUSTER_CLUSTER_SIZE=3", "MUSTER_MACHINE=@/cluster_one.json"}, NULL,
     {"cluster_size=3 source=MUSTER_CLUSTER_SIZE"}},
    BAD_SIZE("0"), BAD_SIZE("-2"), BAD_SIZE("abc"), BAD_SIZE("4097"), BAD_SIZE("2x"),
    {"variable_bad_then_file", {"MUSTER_CLUSTER_SIZE=many", "MUSTER_MACHINE=@/cluster_one.json"},
     "MUSTER_CLUSTER_SIZE='many' *; using *", {"cluster_size=1 source=machine file*"}},
    {"machine_missing", {"MUSTER_MACHINE=/nonexistent/probe.json"},
     "MUSTER_MACHINE: /nonexistent/probe.json: cannot open*; using the topology's cluster size",
     {"cluster_size=# source=topology*"}},
    {"machine_malformed", {"MUSTER_MACHINE=@/negative_latency.json"},
     "MUSTER_MACHINE: *negative_latency.json: latency_ns*; using the topology's cluster size",
     {"cluster_size=# source=topology*"}},
};

static void check_case(const cluster_case *c, const char *data_dir, char **command, int command_len)
{
    char storage[3][1024];
    const char *env[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 3 && c->env[i] != NULL; i++)
        env[i] = env_expand(storage[i], sizeof storage[i], c->env[i], data_dir);
    const char *no_args[1] = {NULL};
    env_child_result r = env_child(command, command_len, no_args, env);
    CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: the child failed (status %#x)\n%s%s", c->name,
          r.status, r.out, r.err);
    CHECK(strstr(r.out, "\ntest_cluster: ok\n") != NULL, "%s: the child did not finish\n%s", c->name, r.out);
    /* The library wrote exactly the expected warning, once, or nothing. */
    unsigned expected_warnings = c->warning != NULL;
    CHECK(env_count_lines(r.out, "stderr| ") == expected_warnings, "%s: %u lines on stderr, expected %u\n%s",
          c->name, env_count_lines(r.out, "stderr| "), expected_warnings, r.out);
    size_t len;
    if (c->warning != NULL) {
        const char *line = env_line(r.out, "stderr| muster: ", &len);
        CHECK(line != NULL && env_glob_n(c->warning, line + 16, len - 16), "%s: warning '%.*s', expected '%s'",
              c->name, line ? (int)len : 0, line ? line : "", c->warning);
    }
    /* A case's auto(P) lines are for P CPUs or fewer: beyond the CPUs
     * available (a 1-CPU mask or cgroup quota) the selector picks the
     * oversubscribed algorithm, which is not what these cases test. */
    const char *lines[3] = {NULL, NULL, NULL};
    int kept = 0;
    for (int i = 0; i < 3 && c->lines[i] != NULL; i++) {
        unsigned p;
        if (sscanf(c->lines[i], "auto(%u)", &p) == 1 && p > muster_cpus_available())
            continue;
        lines[kept++] = c->lines[i];
    }
    const char *missing = NULL;
    CHECK(env_lines_in_order(r.out, lines, kept, &missing), "%s: no line '%s' (in this order)\n%s", c->name, missing,
          r.out);
    printf("%-24s ok\n", c->name);
    env_child_free(&r);
}

static void check_one(size_t i, char **leading, char **command, int command_len)
{
    check_case(&cases[i], leading[0], command, command_len);
}

/* usage: test_cluster --child
 *        test_cluster --driver DATA_DIR COMMAND...   (every case) */
int main(int argc, char **argv)
{
    return env_drive(argc, argv, child_main, 1, sizeof cases / sizeof cases[0], check_one);
}
