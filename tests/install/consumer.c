/* A program built against the installed libmuster, as a user builds one:
 * only <muster/barrier.h>, linked by find_package(muster) or pkg-config.
 * 5 threads x 2000 episodes on the selector's barrier and on tuned; exactly
 * one SERIAL per episode; the library's internals are not visible to it. */
#include <dlfcn.h>
#include <muster/barrier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define THREADS 5
#define EPISODES 2000

static muster_barrier *barrier;
static atomic_int serial;
static atomic_int failures;

static void *member(void *arg)
{
    unsigned id = (unsigned)(size_t)arg;
    for (int e = 0; e < EPISODES; e++) {
        int rc = muster_barrier_wait(barrier, id);
        if (rc < 0)
            atomic_fetch_add(&failures, 1);
        else if (rc == MUSTER_BARRIER_SERIAL)
            atomic_fetch_add(&serial, 1);
    }
    return NULL;
}

static int run(const char *algorithm)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    if (muster_algorithm_parse(algorithm, &attr.algorithm) != MUSTER_OK ||
        muster_barrier_create(&barrier, THREADS, &attr) != MUSTER_OK) {
        fprintf(stderr, "consumer: %s: %s\n", algorithm, muster_error_detail());
        return 1;
    }
    atomic_store(&serial, 0);
    pthread_t threads[THREADS];
    for (size_t i = 0; i < THREADS; i++)
        pthread_create(&threads[i], NULL, member, (void *)i);
    for (size_t i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    muster_barrier_get_attr(barrier, &attr);
    printf("consumer: %s -> %s: %d serial of %d episodes\n", algorithm, muster_algorithm_name(attr.algorithm),
           atomic_load(&serial), EPISODES);
    muster_barrier_destroy(barrier);
    return atomic_load(&serial) == EPISODES && atomic_load(&failures) == 0 ? 0 : 1;
}

int main(void)
{
    int rc = run("auto") | run("tuned");
    /* The shared library exports the API only: an internal name is not there. */
    if (dlsym(RTLD_DEFAULT, "muster_barrier_wait") == NULL || dlsym(RTLD_DEFAULT, "muster_json_parse") != NULL) {
#ifdef CONSUMER_STATIC
        /* linked statically: nothing is looked up dynamically */
#else
        fprintf(stderr, "consumer: the library's dynamic symbols are not its API alone\n");
        rc = 1;
#endif
    }
    return rc;
}
