/* Thread pools: workers that persist between regions and park in the wait
 * layer, so a fork costs a release and a join an arrival (as LLVM's fork and
 * join barriers do), not thread creation or two full barriers.
 *
 * A worker is in one of two places between regions:
 *   docked: held inside the fork/join barrier's episode that the primary
 *           gathered at the last join (split mode).  The next fork releases
 *           the barrier; docked_assignment says what to run (NULL: not a
 *           member this time; go and park).
 *   parked: waiting on its own `go` flag, after a region it was not in, or
 *           after every region when the algorithm cannot split.  The
 *           primary writes go_assignment, then publishes go.
 * Each assignment field has one channel and is written only while its
 * worker waits on that channel, so no write can race with the worker's read.
 * The pool stays hot when the team size changes: a bigger team wakes parked
 * workers, a smaller one sends the extra docked workers to park. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/env.h" /* muster_omp_worker_stacksize */
#include "omp/internal.h"
#include "omp/task/scheduler.h"
#include "barrier/runtime.h" /* muster_env(): MUSTER_BARRIER; the wait policy */

/* Workers started and not yet ended, all pools together. */
static _Atomic unsigned live_workers;

typedef struct pool_worker {
    /* Alone on its line: the worker spins here while parked. */
    _Alignas(MUSTER_CACHE_LINE) muster_flag go;
    _Alignas(MUSTER_CACHE_LINE) muster_omp_team *go_assignment;
    muster_omp_team *docked_assignment;
    uint32_t go_published; /* primary only */
    uint32_t go_seen;      /* worker only */
    muster_waiter park_waiter; /* set before the worker starts */
    bool spread;               /* started on a CPU of its own: restore... */
    cpu_set_t inherited;       /* ...the creator's mask, first thing */
    unsigned id;
    pthread_t thread;
} pool_worker;

/* The barriers of teams of one size. */
typedef struct team_barriers {
    muster_barrier *team;  /* GOMP_barrier and the implicit barriers */
    muster_barrier *fork;  /* fork and join; == team when one algorithm does both */
    bool split;
    muster_omp_team_tasks *tasks; /* the deques and counts of deferred tasks */
    muster_omp_reduction *reduction; /* tree reductions (reduce.c) */
} team_barriers;

struct muster_omp_pool {
    muster_omp_team team;     /* the one team this pool runs at a time */
    muster_omp_cancel_barrier cancel_barrier; /* that team's (cancel.c) */
    /* The primary's bookkeeping, off the lines members read. */
    _Alignas(MUSTER_CACHE_LINE) pool_worker **workers;    /* [1, worker_count) are live; [0] unused */
    unsigned worker_count, worker_capacity;
    team_barriers *barriers;  /* indexed by team size; [0], [1] unused */
    unsigned barrier_capacity;
    muster_omp_place_state *places;
    unsigned place_capacity;
    unsigned docked;          /* workers [1, docked) are docked in docked_barrier */
    muster_barrier *docked_barrier;
    muster_omp_workshares *ws;
};

/* Marks "leave the pool": never a real team. */
static muster_omp_team exit_order;

/* ---- waiting while parked ---- */

static muster_omp_team *park(pool_worker *w)
{
    w->go_seen = muster_episode_next(w->go_seen);
    /* Never broken or timed out: the go flag has no deadline and no abort. */
    muster_wait_reach(&w->go, w->go_seen, &w->park_waiter);
    return w->go_assignment;
}

static void send(pool_worker *w, muster_omp_team *assignment)
{
    w->go_assignment = assignment;
    w->go_published = muster_episode_next(w->go_published);
    muster_flag_publish(&w->go, w->go_published, true);
}

/* ---- the worker ---- */

static void shut_down(muster_omp_pool *pool);

/* A worker's join as a tool sees it: the region's implicit barrier as a
 * sync region (with its wait), then the end of the member's implicit task.
 * After the join the team may be the next region's already: what the tool
 * is given of it was read before (parallel_data NULL at the ends). */
static __attribute__((noinline)) int join_for_tool(muster_omp_thread *self, muster_omp_team *team, unsigned id)
{
    unsigned size = team->size;
    muster_ompt_work_close_single();
    muster_ompt_body_returned(__builtin_dwarf_cfa());
    muster_ompt_sync_region(MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL, MUSTER_OMPT_SCOPE_BEGIN,
                            &team->ompt_parallel, muster_omp_implicit_task_data(self), NULL);
    int rc = muster_omp_wait_running_tasks(self, team, team->fork_barrier, id);
    muster_ompt_sync_region(MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL, MUSTER_OMPT_SCOPE_END, NULL,
                            muster_omp_implicit_task_data(self), NULL);
    muster_ompt_implicit_task(MUSTER_OMPT_SCOPE_END, NULL, muster_omp_implicit_task_data(self), size, id, MUSTER_OMPT_TASK_IMPLICIT,
                              NULL);
    return rc;
}

static void *worker_main(void *arg)
{
    pool_worker *w = arg;
    if (w->spread)
        muster_omp_spread_done(&w->inherited);
    muster_omp_thread *self = muster_omp_self();
    if (muster_ompt_on())
        muster_ompt_thread_begin(MUSTER_OMPT_THREAD_WORKER);
    muster_omp_team *team = park(w);
    while (team != &exit_order) {
        muster_omp_run_member(self, team, w->id);
        bool split = team->split;
        /* The join (split: also the next fork), running the team's tasks
         * while it waits: they may appear after this member has finished. */
        int rc = muster_ompt_on() ? join_for_tool(self, team, w->id)
                                  : muster_omp_wait_running_tasks(self, team, team->fork_barrier, w->id);
        if (rc < 0) {
            muster_omp_fatal("join failed: %s", muster_strerror(rc));
        }
        self->team = NULL;
        self->id = 0;
        team = split ? w->docked_assignment : NULL;
        if (team == NULL)
            team = park(w);
    }
    muster_omp_pool_exit(self); /* the nested teams this worker forked */
    if (muster_ompt_on())
        muster_ompt_thread_end();
    atomic_fetch_sub_explicit(&live_workers, 1, memory_order_relaxed); /* relaxed: a count for kmp_get_num_known_threads */
    return NULL;
}

/* ---- growing the pool ---- */

static int reserve(void **array, unsigned *capacity, unsigned needed, size_t item)
{
    if (needed <= *capacity)
        return 0;
    unsigned grown = *capacity ? *capacity : 8;
    while (grown < needed)
        grown *= 2;
    void *bigger = realloc(*array, grown * item);
    if (bigger == NULL)
        return -1;
    memset((char *)bigger + *capacity * item, 0, (grown - *capacity) * item);
    *array = bigger;
    *capacity = grown;
    return 0;
}

static void warn_once(const char *message, int error)
{
    static _Atomic int warned;
    if (!atomic_exchange(&warned, 1))
        if (muster_omp_warnings_wanted())
            fprintf(stderr, "libmuster-omp: %s (%s); teams will be smaller\n", message, strerror(error));
}

/* Starts worker `id`, which parks until a fork sends it a team.  0 or an
 * errno. */
unsigned muster_omp_pool_live_workers(void)
{
    return atomic_load_explicit(&live_workers, memory_order_relaxed); /* relaxed: a count, as above */
}

static int start_worker(muster_omp_pool *pool, unsigned id)
{
    pool_worker *w = aligned_alloc(MUSTER_CACHE_LINE, sizeof *w);
    if (w == NULL)
        return ENOMEM;
    memset(w, 0, sizeof *w);
    w->id = id;
    /* Parked between teams: wait as a member of a team of id + 1 would,
     * the least this worker's presence implies. */
    w->park_waiter = muster_omp_waiter_for(id + 1, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    size_t stack = muster_omp_worker_stacksize();
    if (stack != 0)
        pthread_attr_setstacksize(&attr, stack);
    w->spread = muster_omp_spread_start(&attr, id, &w->inherited);
    atomic_fetch_add_explicit(&live_workers, 1, memory_order_relaxed); /* relaxed: a count, as above */
    int rc = pthread_create(&w->thread, &attr, worker_main, w);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        atomic_fetch_sub_explicit(&live_workers, 1, memory_order_relaxed); /* relaxed: a count, as above */
        free(w);
        return rc;
    }
    pool->workers[id] = w;
    pool->worker_count = id + 1;
    return 0;
}

static team_barriers *barriers_for(muster_omp_pool *pool, unsigned size)
{
    if (reserve((void **)&pool->barriers, &pool->barrier_capacity, size + 1, sizeof *pool->barriers) != 0)
        return NULL;
    team_barriers *tb = &pool->barriers[size];
    if (tb->team != NULL)
        return tb;
    const muster_env_config *env = muster_env();
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.wait_policy = muster_omp_team_policy(size);
    if (muster_barrier_create(&tb->team, size, &attr) != MUSTER_OK)
        return NULL;
    muster_barrier_attr resolved;
    muster_barrier_get_attr(tb->team, &resolved);
    if (env->has_algorithm || muster_barrier_can_split(tb->team)) {
        /* One algorithm for everything: MUSTER_BARRIER's, or one that splits. */
        tb->fork = tb->team;
    } else {
        /* The selector chose for barriers; fork/join needs a split.  One
         * counter and one release flag when threads outnumber CPUs (one
         * futex wake for all), the tuned tree otherwise. */
        attr.algorithm = size > muster_cpus_available() ? MUSTER_ALG_CENTRAL_SENSE : MUSTER_ALG_TUNED;
        if (muster_barrier_create(&tb->fork, size, &attr) != MUSTER_OK) {
            muster_barrier_destroy(tb->team);
            tb->team = NULL;
            return NULL;
        }
    }
    tb->split = muster_barrier_can_split(tb->fork);
    tb->tasks = muster_omp_team_tasks_create(size);
    tb->reduction = muster_omp_reduction_create(size);
    if (tb->tasks != NULL && tb->reduction != NULL) {
        tb->tasks->barriers[0] = tb->team;
        tb->tasks->barriers[1] = tb->fork;
    } else {
        muster_omp_team_tasks_destroy(tb->tasks);
        muster_omp_reduction_destroy(tb->reduction);
        if (tb->fork != tb->team)
            muster_barrier_destroy(tb->fork);
        muster_barrier_destroy(tb->team);
        *tb = (team_barriers){0};
        return NULL;
    }
    return tb;
}

static muster_omp_pool *pool_of(muster_omp_thread *self, unsigned active_level)
{
    if (active_level > MUSTER_OMP_MAX_ACTIVE_LEVELS)
        return NULL;
    if (self->pools[active_level] == NULL)
        self->pools[active_level] = calloc(1, sizeof(muster_omp_pool));
    return self->pools[active_level];
}

/* ---- the primary's side ---- */

/* Starts parked workers up to id size - 1; returns the team size they allow. */
static unsigned add_workers(muster_omp_pool *pool, unsigned size)
{
    if (reserve((void **)&pool->workers, &pool->worker_capacity, size, sizeof *pool->workers) != 0) {
        warn_once("cannot allocate the pool", ENOMEM);
        return pool->worker_count ? pool->worker_count : 1;
    }
    for (unsigned id = pool->worker_count ? pool->worker_count : 1; id < size; id++) {
        int rc = start_worker(pool, id);
        if (rc != 0) {
            warn_once("cannot create a thread", rc);
            return id;
        }
    }
    return size;
}

static bool size_places(muster_omp_pool *pool, unsigned size)
{
    return reserve((void **)&pool->places, &pool->place_capacity, size, sizeof *pool->places) == 0;
}

muster_omp_team *muster_omp_pool_team(muster_omp_thread *self, unsigned active_level, unsigned size)
{
    muster_omp_pool *pool = pool_of(self, active_level);
    if (pool == NULL)
        return NULL;
    if (size > 1) {
        /* The team's barriers and work shares first (mmap, first touch:
         * hundreds of microseconds for a new size), then the workers: a
         * worker that starts earlier outwaits its spin and sleeps, and on
         * Linux the wake-up puts it on its waker's CPU, beside the primary
         * (muster_omp_spread_start says why that costs). */
        team_barriers *tb = barriers_for(pool, size);
        (void)muster_omp_workshares_prepare(&pool->ws, size, tb != NULL ? muster_barrier_census(tb->team) : NULL);
        size = add_workers(pool, size);
    }
    /* Out of memory for this size: a smaller team, an eighth smaller each
     * try (one smaller each, 4 000 failed tries took minutes). */
    for (; size > 1; size -= size > 16 ? size / 8 : 1) {
        team_barriers *tb = barriers_for(pool, size);
        if (tb != NULL && muster_omp_workshares_prepare(&pool->ws, size, muster_barrier_census(tb->team)) == 0 &&
            size_places(pool, size)) {
            muster_omp_team *team = &pool->team;
            MUSTER_OMP_SET(team->size, size);
            MUSTER_OMP_SET(team->barrier, tb->team);
            MUSTER_OMP_SET(team->fork_barrier, tb->fork);
            MUSTER_OMP_SET(team->split, tb->split);
            MUSTER_OMP_SET(team->tasks, tb->tasks);
            MUSTER_OMP_SET(team->reduction, tb->reduction);
            MUSTER_OMP_SET(team->ws, pool->ws);
            if (team->places != pool->places) {
                team->places = pool->places;
                team->unbound_places = 0;
            }
            MUSTER_OMP_SET(team->pool, pool);
            MUSTER_OMP_SET(team->cancel_barrier, &pool->cancel_barrier);
            return team;
        }
        warn_once("cannot allocate a team's barriers", ENOMEM);
    }
    return NULL;
}

void muster_omp_pool_fork(muster_omp_team *team)
{
    muster_omp_pool *pool = team->pool;
    unsigned wanted = team->size;
    for (unsigned id = 1; id < pool->worker_count; id++) {
        pool_worker *w = pool->workers[id];
        muster_omp_team *assignment = id < wanted ? team : NULL;
        if (id < pool->docked) {
            /* Only changes when the team does: skip the write otherwise. */
            if (w->docked_assignment != assignment)
                w->docked_assignment = assignment;
        } else if (assignment != NULL) {
            send(w, assignment);
        }
    }
    if (pool->docked_barrier != NULL)
        muster_barrier_release(pool->docked_barrier);
    pool->docked = 0;
    pool->docked_barrier = NULL;
}

void muster_omp_pool_join(muster_omp_team *team)
{
    muster_omp_pool *pool = team->pool;
    muster_omp_task_work storage;
    const muster_wait_work *work = muster_omp_tasks_work(muster_omp_self(), team, 0, &storage);
    int rc = team->split ? muster_barrier_gather_working(team->fork_barrier, work)
                         : muster_barrier_wait_working(team->fork_barrier, 0, work);
    muster_omp_tasks_work_done(work);
    if (rc < 0) {
        muster_omp_fatal("join failed: %s", muster_strerror(rc));
    }
    if (team->split) {
        pool->docked = team->size;
        pool->docked_barrier = team->fork_barrier;
    }
}

/* ---- shutting down ---- */

static void shut_down(muster_omp_pool *pool)
{
    for (unsigned id = 1; id < pool->worker_count; id++) {
        pool_worker *w = pool->workers[id];
        if (id < pool->docked)
            w->docked_assignment = &exit_order;
        else
            send(w, &exit_order);
    }
    if (pool->docked_barrier != NULL)
        muster_barrier_release(pool->docked_barrier);
    for (unsigned id = 1; id < pool->worker_count; id++) {
        pthread_join(pool->workers[id]->thread, NULL);
        free(pool->workers[id]);
    }
    for (unsigned size = 0; size < pool->barrier_capacity; size++) {
        team_barriers *tb = &pool->barriers[size];
        if (tb->fork != tb->team)
            muster_barrier_destroy(tb->fork);
        muster_barrier_destroy(tb->team);
        muster_omp_team_tasks_destroy(tb->tasks);
        muster_omp_reduction_destroy(tb->reduction);
    }
    muster_omp_workshares_free(pool->ws);
    free(pool->barriers);
    free(pool->workers);
    free(pool->places);
    free(pool);
}

/* At exit, outside any region, workers are joined cleanly; from inside a
 * region the process is going down around them and waiting could deadlock. */
void muster_omp_pool_exit(muster_omp_thread *self)
{
    if (self->team != NULL)
        return;
    for (unsigned level = 0; level <= MUSTER_OMP_MAX_ACTIVE_LEVELS; level++)
        if (self->pools[level] != NULL) {
            shut_down(self->pools[level]);
            self->pools[level] = NULL;
        }
}

/* In a child of fork() only the forking thread exists: its pool's workers
 * are gone, so it forgets the pool (leaked: freeing would touch barriers
 * whose waiters no longer exist) and the next region builds a new one. */
void muster_omp_pool_forget(muster_omp_thread *self)
{
    for (unsigned level = 0; level <= MUSTER_OMP_MAX_ACTIVE_LEVELS; level++)
        self->pools[level] = NULL;
}
