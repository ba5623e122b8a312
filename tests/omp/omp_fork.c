/* fork() after parallel regions: the child (which has only the forking
 * thread) must be able to use OpenMP at full team size — regions,
 * barriers, a dynamic loop, a reduction, locks — and exit normally; the
 * parent keeps running regions while the child runs, forks again, and a
 * child forks a grandchild.  Each process checks its own results; the
 * parent checks the children's exit statuses.
 *
 * libgomp is not fork-safe: its child reuses the parent's thread pool,
 * whose threads do not exist there, and the first region of more than one
 * thread hangs.  So when the runtime answering is libgomp (found with
 * dladdr, not from the environment) the children use teams of one; on any
 * other runtime, muster included, they use teams one and two threads
 * bigger than the parent's (a pool that must grow in the child).
 *
 * And from inside a region: a member forks a child that execs a shell
 * (the one thing a child of a multithreaded process may do at once), every
 * member runs posix_spawn and waits for its child, one runs system();
 * each child's exit status must come back.  libgomp passes these too. */
#include <spawn.h>
#include <sys/wait.h>

#include "corpus.h"

/* Set in children on libgomp: every team is a team of one. */
static int teams_of_one;

/* A piece of OpenMP work; returns 0 when its results are right. */
static int work(int round)
{
    int T = corpus_threads();
    int three = teams_of_one ? 1 : 3;
    long sum = 0;
    int members = 0;
    static int slot[64];
#pragma omp parallel reduction(+ : sum, members)
    {
        int id = omp_get_thread_num();
        members++;
        slot[id % 64] = round;
#pragma omp barrier
        for (int k = 0; k < omp_get_num_threads() && k < 64; k++)
            if (slot[k] != round)
                FAIL("round %d: slot %d stale after a barrier", round, k);
#pragma omp for schedule(dynamic, 3)
        for (int i = 0; i < 300; i++)
            sum += i + round;
    }
    CHECK_EQ(members, T, "round %d: team size", round);
    CHECK_EQ(sum, 300L * 299 / 2 + 300L * round, "round %d: dynamic loop sum", round);
    omp_lock_t lock;
    omp_init_lock(&lock);
    long locked = 0;
#pragma omp parallel num_threads(three)
    for (int i = 0; i < 50; i++) {
        omp_set_lock(&lock);
        locked++;
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
    CHECK_EQ(locked, 50L * three, "round %d: lock-protected increments", round);
    return 0;
}

static pid_t spawn(int round, int grandchild)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        FAIL("fork: %s", strerror(errno));
    if (pid == 0) {
        if (corpus_is_runtime(corpus_object_of(dlsym(RTLD_DEFAULT, "GOMP_parallel")), "libgomp")) {
            teams_of_one = 1;
            omp_set_num_threads(1);
        } else {
            omp_set_num_threads(omp_get_max_threads() + 1 + round % 2);
        }
        for (int r = 0; r < 3; r++)
            work(round * 10 + r);
        if (grandchild) {
            pid_t g = spawn(round * 10 + 5, 0);
            work(round * 10 + 6);
            int status;
            while (waitpid(g, &status, 0) < 0)
                if (errno != EINTR)
                    FAIL("waitpid: %s", strerror(errno));
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                FAIL("grandchild failed: status %#x", status);
        }
        exit(0); /* a normal exit, atexit handlers and runtime destructors included */
    }
    return pid;
}

/* The exit status of pid, waited for. */
static int exit_status_of(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            FAIL("waitpid: %s", strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

extern char **environ;

/* fork, posix_spawn and system() from inside a region: every child's exit
 * status comes back, and the team goes on. */
static void spawn_inside_regions(void)
{
    int T = corpus_threads(), wrong = 0, members = 0;
#pragma omp parallel reduction(+ : wrong, members)
    {
        int id = omp_get_thread_num();
        members++;
        if (id == 0) {
            fflush(stdout);
            pid_t pid = fork();
            if (pid < 0)
                FAIL("fork inside a region: %s", strerror(errno));
            if (pid == 0) {
                execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
                _exit(99);
            }
            wrong += exit_status_of(pid) != 7;
        }
#pragma omp barrier
        char code[16];
        snprintf(code, sizeof code, "exit %d", 10 + id % 50);
        char *args[] = {"sh", "-c", code, NULL};
        pid_t pid;
        int rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, args, environ);
        if (rc != 0)
            FAIL("posix_spawn inside a region: %s", strerror(rc));
        wrong += exit_status_of(pid) != 10 + id % 50;
#pragma omp barrier
#pragma omp single
        {
            int status = system("exit 3");
            wrong += !(WIFEXITED(status) && WEXITSTATUS(status) == 3);
        }
    }
    CHECK_EQ(members, T, "the team that spawned");
    CHECK_EQ(wrong, 0, "children whose exit status did not come back");
}

static void reap(pid_t pid, const char *what)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            FAIL("waitpid: %s", strerror(errno));
    if (WIFSIGNALED(status))
        FAIL("%s died of signal %d", what, WTERMSIG(status));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        FAIL("%s failed: exit status %d (its message is above)", what, WEXITSTATUS(status));
}

int main(void)
{
    corpus_begin("omp_fork");
    work(1);
    work(2);
    pid_t a = spawn(3, 1);
    work(4); /* the parent's pool keeps working while the child runs */
    pid_t b = spawn(5, 0);
    work(6);
    reap(a, "the first child");
    reap(b, "the second child");
    /* A fork from inside a region's serial part is not supported by OpenMP;
     * forking between regions after a nested region is. */
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
    {
    }
    omp_set_max_active_levels(1);
    pid_t c = spawn(7, 0);
    reap(c, "the child forked after nested regions");
    work(8);
    for (int r = 0; r < 3; r++)
        spawn_inside_regions();
    work(9);
    corpus_summary("children=4 rounds_per_child=3 spawned_inside_regions=3 ok");
    return 0;
}
