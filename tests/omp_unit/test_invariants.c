/* The checking build's invariants (src/platform/check.h): each case breaks
 * one in a child process (unlocking a lock nobody holds, unsetting a nest
 * lock the thread does not hold, a member number outside its team), which
 * must stop with the invariant's line on stderr and SIGABRT; a case that
 * runs on unchecked is the failure.  Registered only in a build with
 * -DMUSTER_CHECKING=ON. */
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "omp/internal.h"

static void unlock_free_lock(void)
{
    omp_lock_t lock;
    omp_init_lock(&lock);
    omp_unset_lock(&lock);
}

static void unset_free_nest_lock(void)
{
    omp_nest_lock_t lock;
    omp_init_nest_lock(&lock);
    omp_unset_nest_lock(&lock);
}

static omp_nest_lock_t held_elsewhere;

static void *unset_from_other_thread(void *arg)
{
    (void)arg;
    omp_unset_nest_lock(&held_elsewhere);
    return NULL;
}

static void unset_nest_lock_of_another_thread(void)
{
    omp_init_nest_lock(&held_elsewhere);
    omp_set_nest_lock(&held_elsewhere);
    pthread_t t;
    pthread_create(&t, NULL, unset_from_other_thread, NULL);
    pthread_join(t, NULL);
}

static void member_outside_team(void)
{
    static muster_omp_team team = {.size = 2};
    muster_omp_become_member(muster_omp_self(), &team, 2, NULL);
}

typedef struct invariant_case {
    const char *name;
    void (*breaks_it)(void);
    const char *message; /* what the invariant's line must say */
} invariant_case;

static const invariant_case cases[] = {
    {"unlock a free lock", unlock_free_lock, "unlocking a lock that nobody holds"},
    {"unset a free nest lock", unset_free_nest_lock, "unsetting a nest lock the thread does not hold"},
    {"unset another thread's nest lock", unset_nest_lock_of_another_thread,
     "unsetting a nest lock the thread does not hold"},
    {"member 2 of a team of 2", member_outside_team, "member 2 of a team of 2"},
};

/* Runs c->breaks_it in a child; true when it aborted saying c->message. */
static void check_case(const invariant_case *c)
{
    int err[2];
    CHECK(pipe(err) == 0, "pipe");
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        dup2(err[1], 2);
        c->breaks_it();
        _exit(0);
    }
    close(err[1]);
    char text[2048];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof text - 1 && (got = read(err[0], text + n, sizeof text - 1 - n)) > 0)
        n += (size_t)got;
    text[n] = '\0';
    close(err[0]);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "%s: the child was not stopped (status %#x): %s",
          c->name, (unsigned)status, text);
    CHECK(strstr(text, "muster: invariant broken at ") != NULL && strstr(text, c->message) != NULL,
          "%s: stderr does not say '%s':\n%s", c->name, c->message, text);
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);
    printf("test_invariants: %zu broken invariants stopped the program\n", sizeof cases / sizeof cases[0]);
    return 0;
}
