/* The calling thread's state (thread.c): what the thread layer offers the
 * layers above it.  The team, pool and work-share types it points to are
 * the core's (internal.h). */
#ifndef MUSTER_OMP_THREAD_H
#define MUSTER_OMP_THREAD_H

#include <stdbool.h>

#include "omp/icvs.h"
#include "omp/ompt.h"

typedef struct muster_omp_team muster_omp_team;
typedef struct muster_omp_pool muster_omp_pool;
typedef struct muster_omp_workshares muster_omp_workshares;

/* Per OS thread (thread-local).  A thread outside any region is the sole
 * member of an implicit team of one (team == NULL means exactly that). */
typedef struct muster_omp_thread {
    muster_omp_team *team;     /* the innermost team this thread is in; NULL: none */
    unsigned id;               /* its thread number in that team */
    muster_omp_icvs icvs;      /* the current implicit task's data-environment ICVs */
    bool icvs_ready;           /* icvs initialised from the globals */
    /* Workers for the active regions this thread forks, one pool per active
     * level (the primary of a level-1 team forking inside it needs a second
     * pool while the first is busy); NULL until needed. */
    muster_omp_pool *pools[MUSTER_OMP_MAX_ACTIVE_LEVELS + 1];
    void *ws_private;          /* the current work share's per-thread state (workshare.c) */
    unsigned ws_sequence;      /* work shares entered in the current team */
    unsigned barriers_passed;  /* team barriers passed in the current region (cancel.c) */
    /* Deferrable tasks this member still queues whoever is hungry, at the
     * start of its implicit task (task/defer.h, early tasks): team size - 1. */
    unsigned early_tasks;
    muster_omp_place_state place; /* affinity.c */
    void *region;              /* the innermost region this thread forked (parallel.c) */
    /* The tool's data of the current implicit task (ompt.h): the thread's
     * own (ompt_task NULL), or the region's it forked and is member 0 of,
     * so that the encountering task's stays where the tool was given it. */
    muster_ompt_data *ompt_task;
    muster_ompt_data ompt_own_task;
} muster_omp_thread;

/* The calling thread's state; initialises it (ICVs from the globals) on the
 * first call in a thread.  Never NULL. */
extern _Thread_local muster_omp_thread muster_omp_thread_state __attribute__((tls_model("initial-exec")));
muster_omp_thread *muster_omp_self_first(void); /* sets up a thread's state on its first call */
/* Inline: one TLS address and a predictable branch, on every entry point
 * (a task created per tree node calls it several times). */
static inline muster_omp_thread *muster_omp_self(void)
{
    muster_omp_thread *self = &muster_omp_thread_state;
    return __builtin_expect(self->icvs_ready, 1) ? self : muster_omp_self_first();
}

/* The tool's data of the calling thread's current implicit task. */
static inline muster_ompt_data *muster_omp_implicit_task_data(muster_omp_thread *self)
{
    return self->ompt_task != NULL ? self->ompt_task : &self->ompt_own_task;
}

#endif
