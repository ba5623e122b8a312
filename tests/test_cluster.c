/* The cluster size N_c that barriers use when given none, and the auto
 * selector that reads it (src/barrier/cluster.c), checked from outside:
 * tests/CMakeLists.txt runs this under different MUSTER_CLUSTER_SIZE and
 * MUSTER_MACHINE settings and matches what it prints:
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
#include "wait/wait.h"

#include "check.h"

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

int main(void)
{
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
