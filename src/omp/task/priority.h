/* The team's queue of prioritized tasks (the priority clause, up to
 * OMP_MAX_TASK_PRIORITY): a binary heap under the runtime mutex, highest
 * priority first, first come first served within a priority.
 *
 * Tasks of priority 0, nearly all tasks, never come here: they live in the
 * members' lock-free deques (scheduler.h).  A prioritized task is queued
 * here instead, for every member to see, so that whoever looks for work
 * takes the most urgent one first.  The lock is taken only when the queue
 * is not empty (the scheduler counts its tasks), so programs without
 * priorities pay one load per look. */
#ifndef MUSTER_OMP_PRIORITY_H
#define MUSTER_OMP_PRIORITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "omp/mutex.h"

typedef struct muster_omp_prio_entry {
    int priority;
    uint64_t seq; /* arrival order: ties go to the oldest */
    void *task;
} muster_omp_prio_entry;

typedef struct muster_omp_prio_queue {
    muster_omp_mutex lock;
    muster_omp_prio_entry *heap; /* [0] the most urgent */
    size_t size, capacity;
    uint64_t next_seq;
} muster_omp_prio_queue;

void muster_omp_prio_init(muster_omp_prio_queue *q);
void muster_omp_prio_destroy(muster_omp_prio_queue *q);
/* False when out of memory (the caller runs the task at once). */
bool muster_omp_prio_push(muster_omp_prio_queue *q, void *task, int priority);
/* The most urgent task for which eligible(task, arg) holds (every task when
 * eligible is NULL), taken out of the queue; NULL when there is none.  A
 * task that is not eligible stays where it is: a waiter that may run only
 * some tasks skips the others without taking and putting back, so two such
 * waiters cannot live-lock on one task. */
void *muster_omp_prio_take(muster_omp_prio_queue *q, bool (*eligible)(void *task, const void *arg),
                           const void *arg);

#endif
