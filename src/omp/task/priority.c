/* The team's queue of prioritized tasks (priority.h). */
#include "omp/task/priority.h"

#include <stdlib.h>

void muster_omp_prio_init(muster_omp_prio_queue *q)
{
    *q = (muster_omp_prio_queue){0};
    muster_omp_mutex_init(&q->lock);
}

void muster_omp_prio_destroy(muster_omp_prio_queue *q)
{
    free(q->heap);
    q->heap = NULL;
    q->size = q->capacity = 0;
}

/* a comes before b. */
static bool more_urgent(const muster_omp_prio_entry *a, const muster_omp_prio_entry *b)
{
    return a->priority > b->priority || (a->priority == b->priority && a->seq < b->seq);
}

static void swap(muster_omp_prio_entry *a, muster_omp_prio_entry *b)
{
    muster_omp_prio_entry t = *a;
    *a = *b;
    *b = t;
}

static void sift_up(muster_omp_prio_entry *heap, size_t i)
{
    while (i > 0 && more_urgent(&heap[i], &heap[(i - 1) / 2])) {
        swap(&heap[i], &heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
}

static void sift_down(muster_omp_prio_entry *heap, size_t size, size_t i)
{
    for (;;) {
        size_t best = i, left = 2 * i + 1, right = left + 1;
        if (left < size && more_urgent(&heap[left], &heap[best]))
            best = left;
        if (right < size && more_urgent(&heap[right], &heap[best]))
            best = right;
        if (best == i)
            return;
        swap(&heap[i], &heap[best]);
        i = best;
    }
}

bool muster_omp_prio_push(muster_omp_prio_queue *q, void *task, int priority)
{
    muster_omp_mutex_lock(&q->lock);
    if (q->size == q->capacity) {
        size_t capacity = q->capacity ? 2 * q->capacity : 64;
        muster_omp_prio_entry *heap = realloc(q->heap, capacity * sizeof *heap);
        if (heap == NULL) {
            muster_omp_mutex_unlock(&q->lock);
            return false;
        }
        q->heap = heap;
        q->capacity = capacity;
    }
    q->heap[q->size] = (muster_omp_prio_entry){.priority = priority, .seq = q->next_seq++, .task = task};
    sift_up(q->heap, q->size++);
    muster_omp_mutex_unlock(&q->lock);
    return true;
}

/* Removes entry i and returns its task. */
static void *remove_at(muster_omp_prio_queue *q, size_t i)
{
    void *task = q->heap[i].task;
    q->heap[i] = q->heap[--q->size];
    if (i < q->size) {
        sift_down(q->heap, q->size, i);
        sift_up(q->heap, i);
    }
    return task;
}

void *muster_omp_prio_take(muster_omp_prio_queue *q, bool (*eligible)(void *task, const void *arg),
                           const void *arg)
{
    void *task = NULL;
    muster_omp_mutex_lock(&q->lock);
    if (eligible == NULL) {
        if (q->size > 0)
            task = remove_at(q, 0);
    } else {
        /* A waiter restricted to some tasks scans: such waits are rare,
         * and the heap holds only the prioritized tasks. */
        size_t best = q->size;
        for (size_t i = 0; i < q->size; i++)
            if ((best == q->size || more_urgent(&q->heap[i], &q->heap[best])) && eligible(q->heap[i].task, arg))
                best = i;
        if (best < q->size)
            task = remove_at(q, best);
    }
    muster_omp_mutex_unlock(&q->lock);
    return task;
}
