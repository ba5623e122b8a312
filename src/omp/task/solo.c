/* A team of one's task scheduler.
 *
 * A team of one runs its tasks at once and has no scheduler, until its
 * first detachable task (if(true), not inside a final task), or its first
 * task whose ABI asks a team of one to queue (task.h: queue_alone, the gcc
 * ABI's tasks).  A detachable task's successors must wait for its event,
 * which a task made later may fulfil; a program written for libgomp may
 * rely on its order (a lone thread's tasks queued, newest first).  From
 * then on the team's tasks are planned as in a bigger team (defer.h; with
 * nobody to steal, help first from the implicit task down gives libgomp's
 * order), and run by the one member at its next taskwait, taskgroup end,
 * barrier or the region's end.
 *
 * The thread keeps the scheduler for its next region of one: making one
 * costs ~170 us (the wait plan reads the cgroup files, to count the CPUs),
 * which a loop of regions of one with a task each paid every time. */
#include <pthread.h>
#include <sched.h>

#include "omp/task/core.h"

/* The scheduler this thread's last region of one left: NULL, or one with
 * no task queued or running. */
static _Thread_local muster_omp_team_tasks *spare;
static pthread_key_t spare_key;
static pthread_once_t spare_key_once = PTHREAD_ONCE_INIT;
static bool have_spare_key;

/* A thread that ends frees its spare (the key's destructor). */
static void free_spare(void *tt)
{
    muster_omp_team_tasks_destroy(tt);
}

static void create_spare_key(void)
{
    have_spare_key = pthread_key_create(&spare_key, free_spare) == 0;
}

/* Keeps an idle scheduler for the thread's next region of one; frees it
 * when the thread keeps one already (a region of one nested in a task of
 * another) or could not be told to free it at its end. */
static void keep_spare(muster_omp_team_tasks *tt)
{
    pthread_once(&spare_key_once, create_spare_key);
    if (spare != NULL || !have_spare_key || pthread_setspecific(spare_key, tt) != 0) {
        muster_omp_team_tasks_destroy(tt);
        return;
    }
    /* As a new one: the first task of the next region is counted afresh,
     * and no throttle carries over.  relaxed: nobody else holds it. */
    atomic_store_explicit(&tt->tasks_seen, false, memory_order_relaxed);
    atomic_store_explicit(&tt->counts_private, true, memory_order_relaxed);
    tt->counts[0].credit = 0;
    spare = tt;
}

void muster_omp_tasks_solo_scheduler(muster_omp_team *team)
{
    if (team->size != 1)
        return;
    muster_omp_team_tasks *tt = spare;
    if (tt != NULL) {
        spare = NULL;
        pthread_setspecific(spare_key, NULL);
    } else {
        tt = muster_omp_team_tasks_create(1);
        if (tt == NULL)
            muster_omp_fatal("out of memory for a team of one's task scheduler");
    }
    team->tasks = tt;
}

void muster_omp_tasks_end_solo(muster_omp_team *team)
{
    if (team->size != 1 || team->tasks == NULL)
        return;
    /* The drain's acquire load saw the last task's count reach zero: its
     * fulfiller's increment, before that, is seen here. */
    while (atomic_load(&team->tasks->fulfillers) != 0)
        sched_yield(); /* it is a few instructions from done */
    keep_spare(team->tasks);
    team->tasks = NULL;
    muster_omp_implicit_table_release();
}
