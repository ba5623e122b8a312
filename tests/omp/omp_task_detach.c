/* detach and omp_fulfill_event over random episodes:
 *   - detached tasks fulfilled by tasks made later, in a random order with
 *     random delays: every body runs once, and taskwait returns only after
 *     every event was fulfilled;
 *   - the same inside a taskgroup, whose end waits likewise;
 *   - a chain x -> y where the detached producer's successor must see the
 *     fulfiller's write, in teams of one too;
 * Not here: a fulfiller outside the team, with the team waiting at the
 * region's end for the event.  libgomp 12 hangs there (the end barrier is
 * never woken); test_omp_task covers it on muster. */
#include <stdatomic.h>

#include "corpus.h"

#define EPISODES 20
#define TASKS 24

static void shuffle(int *order, int n, uint64_t *rng)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(corpus_rand(rng) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* Detached tasks and their fulfillers, made in `single`; the wait is a
 * taskwait, or (group) the end of a taskgroup around them. */
static void fulfilled_by_later_tasks(int e, int group)
{
    omp_event_handle_t events[TASKS];
    atomic_int bodies = 0, fulfilled = 0;
    int after = -1;
    uint64_t rng = corpus_seed((unsigned)e, 31 + (unsigned)group);
#pragma omp parallel shared(events, bodies, fulfilled, after)
#pragma omp single
    {
        int order[TASKS];
        shuffle(order, TASKS, &rng);
#pragma omp taskgroup
        {
            for (int i = 0; i < TASKS; i++) {
                omp_event_handle_t ev;
#pragma omp task detach(ev) shared(bodies)
                atomic_fetch_add(&bodies, 1);
                events[i] = ev;
            }
            for (int i = 0; i < TASKS; i++) {
                int k = order[i];
                uint64_t delay = corpus_rand(&rng);
#pragma omp task firstprivate(k, delay) shared(events, fulfilled)
                {
                    corpus_delay(&delay, 100);
                    atomic_fetch_add(&fulfilled, 1);
                    omp_fulfill_event(events[k]);
                }
            }
            if (!group) {
#pragma omp taskwait
                after = atomic_load(&fulfilled);
            }
        }
        if (group)
            after = atomic_load(&fulfilled);
    }
    CHECK_EQ(atomic_load(&bodies), TASKS, "episode %d: detached bodies run", e);
    CHECK_EQ(after, TASKS, "episode %d: fulfilments seen after the %s", e, group ? "taskgroup" : "taskwait");
}

/* x's producer is detached; the event is fulfilled by a task made after
 * the consumer, which must still wait for it. */
static void successor_waits(int e)
{
    int x = 0, seen = -1;
    atomic_int fulfilled = 0;
    uint64_t rng = corpus_seed((unsigned)e, 33);
#pragma omp parallel shared(x, seen, fulfilled)
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(x)
        x = 1;
#pragma omp task depend(in : x) shared(x, seen, fulfilled)
        seen = atomic_load(&fulfilled) * 10 + x;
        uint64_t delay = corpus_rand(&rng);
#pragma omp task firstprivate(ev, delay) shared(fulfilled)
        {
            corpus_delay(&delay, 300);
            atomic_store(&fulfilled, 1);
            omp_fulfill_event(ev);
        }
    }
    CHECK_EQ(seen, 11, "episode %d: the successor's view (10 x fulfilled + x)", e);
}

int main(void)
{
    corpus_begin("omp_task_detach");
    for (int e = 0; e < EPISODES; e++) {
        fulfilled_by_later_tasks(e, 0);
        fulfilled_by_later_tasks(e, 1);
        successor_waits(e);
    }
    corpus_summary("episodes=%d tasks=%d ok", EPISODES, TASKS);
    return 0;
}
