/* A team, as every layer from the thread's up sees it (the core forms,
 * forks and joins it: internal.h; the task wing reads its size, its task
 * state and whether it is cancelled), and the switch of cancellation
 * (OMP_CANCELLATION, env.c), which the task wing reads too. */
#ifndef MUSTER_OMP_TEAM_H
#define MUSTER_OMP_TEAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "muster/barrier.h"
#include "platform/platform.h"
#include "wait/wait.h"
#include "omp/icvs.h"
#include "omp/thread.h"

/* A team: the threads running one parallel region. */
/* The barrier of regions that can be cancelled (GOMP_barrier_cancel and
 * the ends of cancellable loops and sections, cancel.c): a counter and a
 * release flag, which `cancel parallel` breaks so its waiters leave.  The
 * team's own barrier cannot be broken that way: its algorithm may be the
 * fork/join's too.  One per pool (one team at a time uses it). */
typedef struct muster_omp_cancel_barrier {
    _Alignas(MUSTER_CACHE_LINE) _Atomic uint32_t arrived;
    _Alignas(MUSTER_CACHE_LINE) muster_flag release;
} muster_omp_cancel_barrier;

struct muster_omp_team {
    unsigned size;              /* threads in the team */
    unsigned level;             /* nesting level of the region: 1 = outermost */
    unsigned active_level;      /* enclosing regions with more than one thread, this one included */
    muster_omp_team *parent;    /* the team of the thread that forked this one; NULL at level 1 */
    unsigned parent_id;         /* that thread's number in the parent team */
    muster_barrier *barrier;    /* size participants; NULL when size is 1 */
    muster_omp_workshares *ws;  /* worksharing state (workshare.c); NULL when size is 1 */
    void (*fn)(void *);         /* the region's outlined body */
    void *data;
    muster_omp_icvs icvs;       /* the implicit tasks' starting ICVs */
    unsigned bind;              /* the proc-bind policy the team was formed with */
    /* The forking thread's league of host teams (api.c): a parallel region
     * inside teams answers omp_get_team_num with its team's number. */
    unsigned league_size, league_rank;
    muster_omp_place_state *places; /* each member's place; NULL in a team of one */
    unsigned unbound_places;    /* places[0, n) hold place -1 (0 after places move or bind) */
    /* Fork and join (pool.c): split when the fork/join barrier's algorithm
     * can gather and release separately; otherwise a full barrier, then each
     * worker parks on its own flag. */
    muster_barrier *fork_barrier;
    bool split;
    muster_omp_pool *pool;      /* the pool it came from; NULL in a team of one */
    struct muster_omp_team_tasks *tasks; /* deferred tasks (scheduler.h); NULL in a team of one */
    /* Cancellation (cancel.c): written only when OMP_CANCELLATION is on,
     * cleared when a cancelled region ends. */
    _Atomic bool cancelled;     /* cancel parallel */
    /* cancel for / sections: 1 + the canceller's barriers_passed, so it
     * lapses at the construct's end barrier; 0: none. */
    _Atomic unsigned ws_cancelled;
    muster_omp_cancel_barrier *cancel_barrier; /* NULL in a team of one */
    void *copyprivate_data;     /* __kmpc_copyprivate: the single's data, between its two barriers */
    struct muster_omp_reduction *reduction; /* tree reductions (reduce.c); NULL in a team of one */
    muster_ompt_data ompt_parallel; /* the tool's data of the region (ompt.h) */
};

/* OMP_CANCELLATION, read once at load: when false every cancel is a no-op
 * and nothing below costs more than this load. */
extern bool muster_omp_cancellation;
/* Every task takes the task wing's general path (submit.c): cancellation
 * is on, or a tool is attached (ompt_tool.c).  Set once, never cleared:
 * the general path is right for every task, only longer. */
extern bool muster_omp_general_tasks;
/* Whether the team's region is cancelled. */
static inline bool muster_omp_team_cancelled(const muster_omp_team *team)
{
    /* relaxed: a hint to skip work; what the cancelling thread wrote before
     * cancelling is not read by whoever sees it. */
    return team != NULL && atomic_load_explicit(&team->cancelled, memory_order_relaxed);
}

#endif
