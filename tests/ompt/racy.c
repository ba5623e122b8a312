/* Programs with one data race each, for Archer (LLVM's race detector, an
 * OMPT tool): check_archer.py runs each mode under libomp and muster and
 * wants a race reported by both.  usage: racy MODE, MODE one of
 *   increment   x++ in every member, unsynchronized
 *   tasks       a task member 0 creates and member 1 write one variable,
 *               each after the other has started (so on two threads:
 *               Archer sees a race of a task only with another thread)
 *   nowait      one member writes in a single nowait, the others read
 *               with no barrier between
 *   lock        one member writes under a lock, the others without it */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long shared_value;
static int tasks_started;

/* The task and member 1 wait until both have started, for up to a
 * second (member 1 runs no task while it waits here). */
static void meet_the_other_task(void)
{
    __atomic_add_fetch(&tasks_started, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 1000 && __atomic_load_n(&tasks_started, __ATOMIC_SEQ_CST) < 2; i++)
        usleep(1000);
}

/* A little time, so that the members overlap (TSan reports a race whether
 * or not they do; this only keeps the runs alike). */
static void pause_briefly(void)
{
    usleep(1000);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "increment") == 0) {
#pragma omp parallel
        shared_value++;
    } else if (strcmp(mode, "tasks") == 0) {
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0) {
#pragma omp task
                {
                    meet_the_other_task();
                    shared_value = 1;
                }
            } else if (omp_get_thread_num() == 1) {
                meet_the_other_task();
                usleep(10000); /* the second write: TSan may miss two at the same instant */
                shared_value = 2;
            }
        }
    } else if (strcmp(mode, "nowait") == 0) {
        long seen = 0;
#pragma omp parallel reduction(+ : seen)
        {
#pragma omp single nowait
            shared_value = 7;
            pause_briefly();
            seen += shared_value;
        }
        printf("seen %ld\n", seen);
    } else if (strcmp(mode, "lock") == 0) {
        omp_lock_t lock;
        omp_init_lock(&lock);
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0) {
                omp_set_lock(&lock);
                shared_value += 1;
                omp_unset_lock(&lock);
            } else {
                pause_briefly();
                shared_value += 2;
            }
        }
        omp_destroy_lock(&lock);
    } else {
        fprintf(stderr, "usage: racy increment|tasks|nowait|lock\n");
        return 2;
    }
    printf("racy %s: %ld\n", mode, shared_value);
    return 0;
}
