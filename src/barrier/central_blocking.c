/* Central blocking barrier (Nanjegowda §3.1): a counter under a mutex and a
 * condition-variable broadcast.  It always sleeps, whatever the wait policy:
 * it is the baseline that wins only when threads outnumber CPUs. */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

typedef struct blocking_state {
    pthread_mutex_t lock;
    pthread_cond_t released;
    unsigned arrived;      /* under lock */
    unsigned long episode; /* under lock */
    bool broken;           /* under lock */
} blocking_state;

static int init(muster_barrier *b)
{
    blocking_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the blocking barrier");
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->released, &attr);
    pthread_condattr_destroy(&attr);
    b->state = s;
    b->used_bytes = sizeof *s;
    return MUSTER_OK;
}

static int sleep_for_release(blocking_state *s, unsigned long episode, const muster_waiter *waiter)
{
    struct timespec deadline = {
        .tv_sec = (time_t)(waiter->deadline_ns / 1000000000u),
        .tv_nsec = (long)(waiter->deadline_ns % 1000000000u),
    };
    while (s->episode == episode && !s->broken) {
        if (waiter->deadline_ns == 0)
            pthread_cond_wait(&s->released, &s->lock);
        else if (pthread_cond_timedwait(&s->released, &s->lock, &deadline) == ETIMEDOUT &&
                 s->episode == episode && !s->broken)
            return MUSTER_E_TIMEDOUT;
    }
    return s->episode == episode ? MUSTER_E_BROKEN : 0;
}

/* Counts one arrival under the lock; the last one runs on_complete (when
 * not NULL), starts the next episode and wakes everyone.  *episode: the
 * episode arrived at. */
static int count_arrival(muster_barrier *b, blocking_state *s, unsigned long *episode, void (*on_complete)(void *),
                         void *arg)
{
    *episode = s->episode;
    if (s->broken)
        return MUSTER_E_BROKEN;
    if (++s->arrived < b->participants)
        return 0;
    if (on_complete != NULL)
        on_complete(arg);
    s->arrived = 0;
    s->episode++;
    pthread_cond_broadcast(&s->released);
    return MUSTER_BARRIER_SERIAL;
}

static int wait(muster_barrier *b, unsigned id, const muster_waiter *waiter)
{
    (void)id;
    blocking_state *s = b->state;
    unsigned long episode;
    pthread_mutex_lock(&s->lock);
    int rc = count_arrival(b, s, &episode, NULL, NULL);
    if (rc == 0)
        rc = sleep_for_release(s, episode, waiter);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static int arrive(muster_barrier *b, unsigned id, uint64_t *token, void (*on_complete)(void *), void *arg)
{
    (void)id;
    blocking_state *s = b->state;
    unsigned long episode;
    pthread_mutex_lock(&s->lock);
    int rc = count_arrival(b, s, &episode, on_complete, arg);
    pthread_mutex_unlock(&s->lock);
    *token = episode;
    return rc;
}

static int await(muster_barrier *b, unsigned id, uint64_t token, const muster_waiter *waiter)
{
    (void)id;
    blocking_state *s = b->state;
    pthread_mutex_lock(&s->lock);
    int rc = sleep_for_release(s, (unsigned long)token, waiter);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static void abort_blocking(muster_barrier *b)
{
    blocking_state *s = b->state;
    pthread_mutex_lock(&s->lock);
    s->broken = true;
    pthread_cond_broadcast(&s->released);
    pthread_mutex_unlock(&s->lock);
}

static void reset(muster_barrier *b)
{
    blocking_state *s = b->state;
    pthread_mutex_lock(&s->lock);
    s->arrived = 0;
    s->broken = false;
    pthread_mutex_unlock(&s->lock);
}

static void destroy(muster_barrier *b)
{
    blocking_state *s = b->state;
    if (s == NULL)
        return;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->released);
    free(s);
}

/* The lock's and the condition variable's cache traffic; the simulator does
 * not model the kernel's sleeps and wake-ups, which cost far more. */
static void schedule(const muster_barrier *b, unsigned id, muster_schedule *s)
{
    uint32_t lock = offsetof(blocking_state, lock), arrived = offsetof(blocking_state, arrived);
    uint32_t released = offsetof(blocking_state, released);
    muster_schedule_add(s, MUSTER_STEP_LOCK, lock, 0);
    unsigned arrive = muster_schedule_add(s, MUSTER_STEP_ARRIVE, arrived, b->participants);
    muster_schedule_add(s, MUSTER_STEP_CLEAR, arrived, 0);
    muster_schedule_add(s, MUSTER_STEP_ALL_ARRIVED, 0, 0);
    muster_schedule_add(s, MUSTER_STEP_PUBLISH, released, 0);
    muster_schedule_add(s, MUSTER_STEP_UNLOCK, lock, 0);
    muster_schedule_add(s, MUSTER_STEP_DONE, 0, 0);
    unsigned unlock = muster_schedule_add(s, MUSTER_STEP_UNLOCK, lock, 0);
    muster_schedule_add(s, MUSTER_STEP_WAIT, released, 0);
    muster_schedule_add(s, MUSTER_STEP_DONE, 0, 0);
    if (!s->out_of_memory)
        s->steps[arrive].next = unlock;
}

const muster_barrier_ops muster_central_blocking_ops = {
    .algorithm = MUSTER_ALG_CENTRAL_BLOCKING,
    .default_wakeup = MUSTER_WAKE_GLOBAL,
    .wakeups = 1u << MUSTER_WAKE_GLOBAL,
    .default_padding = MUSTER_PAD_DEFAULT,
    .init = init,
    .wait = wait,
    .arrive = arrive,
    .await = await,
    .schedule = schedule,
    .abort = abort_blocking,
    .reset = reset,
    .destroy = destroy,
};
