/* The work-share machinery shared by loop.c and the worksharing entry
 * points of both ABIs (gomp/loop*.c, sections.c, single.c; kmp/loop.c,
 * sync.c).  Not installed.
 *
 * Every worksharing construct a team meets is one work share, entered by
 * every member in the same order.  A team keeps a ring of MUSTER_WS_RING
 * slots; the member entering its k-th work share uses slot k % RING.  The
 * first member to claim a slot for its lap initialises it and publishes
 * `ready`; the others wait for that.  The last member to leave publishes
 * `reusable` for the next lap, and a member that would lap the ring (nowait
 * chains running ahead) waits for it.  All waits go through the wait layer.
 *
 * Loops are kept in iteration-index space: iteration i (0 <= i < n) has the
 * value start + i * incr, computed modulo 2^64, so one machinery serves long
 * and unsigned long long loops of either direction.  Static loops that need
 * nothing shared (no ordered, no doacross, no team memory) never touch a
 * slot: each member computes its chunks from the arguments alone.
 *
 * A team of one (team->ws == NULL, or no team at all) runs every construct
 * serially on a private record taken from a per-thread free list. */
#ifndef MUSTER_OMP_WORKSHARE_H
#define MUSTER_OMP_WORKSHARE_H

#include <stdalign.h>
#include <stddef.h>

#include "omp/internal.h"

/* Slots in a team's ring: how many work shares with nowait a member may run
 * ahead of the slowest one.  A power of two. */
#define MUSTER_WS_RING 8u

/* A loop in index space (see above).  Packed so that it and the slot's
 * claim and ready flags share one cache line: a member entering a work share
 * then fetches one line for all three. */
typedef struct muster_ws_loop {
    uint64_t n;        /* iterations */
    uint64_t start;    /* value of iteration 0 */
    uint64_t incr;     /* value step, two's complement when descending */
    uint64_t end;      /* the end argument: iend of the chunk holding the last iteration */
    uint64_t chunk;    /* iterations per chunk; 0 for static means one block per thread */
    uint64_t nchunks;  /* chunks of `chunk` iterations (0 when chunk is 0) */
    uint32_t nthreads; /* team size when the loop was opened */
    uint8_t sched;     /* MUSTER_OMP_SCHED_STATIC, _DYNAMIC or _GUIDED (resolved) */
    bool ordered;      /* has an ordered clause: chunks pass a turn in iteration order */
    bool doacross;     /* the slot's doacross state belongs to this loop */
    bool simd;         /* guided: every chunk but the last a multiple of chunk (libomp's guided_simd) */
} muster_ws_loop;

/* One doacross progress stream: the iterations one thread executes, in
 * lexicographic order.  progress is 1 + the flattened index of the latest
 * iteration it posted; posts counts posts, so waiters can sleep on it. */
typedef struct muster_ws_stream {
    alignas(MUSTER_CACHE_LINE) _Atomic uint64_t progress;
    muster_flag posts;
} muster_ws_stream;

typedef struct muster_ws_doacross {
    unsigned ncounts;       /* dimensions */
    uint64_t *counts;       /* iterations per dimension (the flattening radices) */
    muster_ws_stream *streams; /* one per team member */
} muster_ws_doacross;

typedef struct muster_ws_slot {
    /* Entering: the initialiser writes the loop before it publishes `ready`;
     * claim elects the initialiser. */
    alignas(MUSTER_CACHE_LINE) muster_ws_loop loop;
    _Atomic uint32_t claim;   /* lap + 1 once claimed for lap */
    muster_flag ready;        /* lap + 1 once initialised */

    /* Progress: dynamic's next chunk index, guided's next iteration index;
     * then leaving: the last of nthreads departures publishes `reusable`,
     * the lap the slot may next be claimed for. */
    alignas(MUSTER_CACHE_LINE) _Atomic uint64_t next;
    _Atomic unsigned departed;
    muster_flag reusable;

    /* Ordered: the chunk sequence number whose turn it is, and for guided
     * ordered loops a ticket lock that hands out chunks and numbers together.
     * Only ordered loops touch this line. */
    alignas(MUSTER_CACHE_LINE) muster_flag ordered_turn;
    _Atomic uint32_t lock_next;
    muster_flag lock_serving;
    uint64_t chunks_issued;   /* guarded by the ticket lock */
    _Atomic unsigned turn_sleepers; /* members asleep on their doorbells for a turn */

    /* Rarely used, so kept off the lines above. */
    alignas(MUSTER_CACHE_LINE) void *copy_data; /* single copyprivate: the winner's data; kmp doacross: its flags */
    void *task_reductions; /* reduction(task, ...): the opening member's data (the ABI layer's) */
    void *mem;                /* GOMP_loop_start's `mem`: zeroed team memory */
    size_t mem_capacity;
    muster_ws_doacross *doacross; /* valid while loop.doacross */
    void *doacross_block;     /* storage behind doacross, kept for reuse */
    size_t doacross_capacity;
    /* Ordered: who sleeps for which turn, at the turn's chunk number modulo
     * the ring's size (a power of two at least the team's size, so two
     * members never wait for turns that share an entry); NULL entries:
     * nobody.  Kept across loops, grown for bigger teams. */
    _Atomic(struct muster_ws_member *) *turn_ring;
    uint32_t turn_ring_size;
} muster_ws_slot;

_Static_assert(offsetof(muster_ws_slot, ready) + sizeof(muster_flag) <= MUSTER_CACHE_LINE,
               "a slot's loop, claim and ready share one cache line");

/* A member's state in the current team (self->ws_private points here). */
typedef struct muster_ws_member {
    alignas(MUSTER_CACHE_LINE) muster_ws_slot *slot; /* work share it is in; NULL: none or private */
    const muster_ws_loop *loop; /* current loop; NULL when none */
    muster_ws_loop private_loop;/* a static loop that needs no slot */
    uint64_t trip;              /* static: chunks this member has taken */
    uint64_t seq;               /* ordered: sequence number of the chunk held */
    muster_flag turn_bell;      /* ordered: rung by the member that passes the turn it sleeps for */
    _Atomic uint64_t turn_asleep_for; /* ordered: that chunk's number, UINT64_MAX when none */
    bool holds_turn;            /* ordered: holds chunk seq, turn not yet passed on */
    bool turn_reached;          /* ordered: already waited for the turn of seq */
    bool serial;                /* a team-of-one record from the free list */
    bool ompt_work_told;        /* a tool was told the current loop began: its end is owed */
    uint32_t slot_lap;          /* lap of `slot` */
    unsigned next_slot;         /* ring position of the next work share */
    uint32_t lap;               /* its lap */
    uint64_t singles;           /* single constructs met */
    muster_waiter waiter;       /* how this member waits on slots (workshare.c) */
} muster_ws_member;

/* ---- work shares (workshare.c) ---- */

/* The team size and the caller's number in it (1 and 0 outside a team). */
unsigned muster_ws_team_size(const muster_omp_thread *self);
unsigned muster_ws_thread_id(const muster_omp_thread *self);

/* The caller's member record for a new work share: its team record, or a
 * fresh serial record in a team of one (released by muster_ws_leave). */
muster_ws_member *muster_ws_member_begin(muster_omp_thread *self);

/* The caller's record for the construct it is in; NULL when none. */
static inline muster_ws_member *muster_ws_member_current(muster_omp_thread *self)
{
    return (muster_ws_member *)self->ws_private;
}

/* Enters the next slot of the ring (m from muster_ws_member_begin).  Returns
 * true when the caller must initialise m->slot and then call
 * muster_ws_publish; otherwise returns once the initialiser has published. */
bool muster_ws_enter(muster_omp_thread *self, muster_ws_member *m);
void muster_ws_publish(muster_omp_thread *self, muster_ws_member *m);

/* Leaves the current work share (slot, private loop or serial record). */
void muster_ws_leave(muster_omp_thread *self, muster_ws_member *m);

/* Joins a work share that a combined construct's setup opened before the
 * team started (muster_ws_open_for_team).  Returns m, or NULL when nothing
 * was opened. */
muster_ws_member *muster_ws_join_opened(muster_omp_thread *self);

/* For a combined construct's setup callback: the slot to initialise for the
 * team's first work share, then muster_ws_open_done.  Works for a team of
 * one too (the slot is then handed over to the forking thread's first
 * construct). */
muster_ws_slot *muster_ws_open_for_team(muster_omp_team *team);
void muster_ws_open_done(muster_omp_team *team, muster_ws_slot *slot);

/* The wait settings of the caller's team. */
const muster_waiter *muster_ws_waiter(const muster_omp_thread *self);
bool muster_ws_may_sleep(const muster_omp_thread *self);

/* Initialiser only: `bytes` of zeroed memory the whole team shares for this
 * work share (GOMP_loop_start's mem).  NULL when out of memory. */
void *muster_ws_slot_memory(muster_ws_slot *slot, size_t bytes);

/* Initialiser only: doacross storage for `ncounts` dimensions and `nthreads`
 * streams.  NULL when out of memory. */
muster_ws_doacross *muster_ws_slot_doacross(muster_ws_slot *slot, unsigned ncounts, unsigned nthreads);

/* True for exactly one member per single construct. */
bool muster_ws_single_claim(muster_omp_thread *self);


/* ---- loops (loop.c) ---- */

/* Loop kinds as GOMP_loop_start encodes them. */
#define MUSTER_WS_SCHED_RUNTIME 0u

/* Resolves a schedule kind (MUSTER_OMP_SCHED_*, or RUNTIME: the caller's
 * run-sched-var) and chunk to what the loop runs with. */
void muster_ws_resolve_schedule(muster_omp_thread *self, unsigned *sched, uint64_t *chunk);

/* Extra requests of a loop start. */
typedef struct muster_ws_loop_extras {
    void **mem;                 /* GOMP_loop_start's mem, or NULL */
    /* reduction(task, ...): the ABI layer's data (gcc's descriptor), or
     * NULL, and how a member registers it in the construct's taskgroup:
     * first NULL for the member that opens the work share (it allocates),
     * else that member's data (the others share its blocks). */
    void *reductions;
    void (*register_reductions)(void *own, void *first);
    unsigned ncounts;           /* doacross dimensions; 0: not doacross */
    const uint64_t *counts;     /* their iteration counts */
    int ompt_work;              /* what a tool is told: 0 a loop, else an ompt_work_t; -1 nothing */
} muster_ws_loop_extras;

/* Opens the loop described by proto (nthreads filled in here) as the
 * caller's next work share. */
void muster_ws_loop_open(muster_omp_thread *self, muster_ws_loop proto, const muster_ws_loop_extras *extras);

/* The caller's next chunk [*first, *last) in index space; false when none. */
bool muster_ws_loop_next(muster_omp_thread *self, uint64_t *first, uint64_t *last);

/* The caller's current loop (NULL when none). */
const muster_ws_loop *muster_ws_loop_current(muster_omp_thread *self);

/* The block [*first, *last) of n iterations that an unchunked static
 * schedule gives thread id of nthreads: the first n % nthreads threads get
 * one iteration more (gcc's own inline split, so a loop gcc schedules
 * inline, one scheduled here and one clang's static_init asks for agree). */
void muster_ws_static_block(uint64_t n, unsigned nthreads, unsigned id, uint64_t *first, uint64_t *last);

/* ordered: waits until the caller's chunk has the turn (a no-op outside an
 * ordered loop, or once reached). */
void muster_ws_ordered_start(muster_omp_thread *self);
/* The end of an ordered region (the turn itself passes at the chunk's end). */
void muster_ws_ordered_end(muster_omp_thread *self);

/* Leaves the current loop; with barrier, then waits for the team. */
void muster_ws_loop_close(muster_omp_thread *self, bool barrier);
/* The end of a loop or sections in a cancellable region (gcc's *_end_cancel):
 * as muster_ws_loop_close with the barrier, which is the cancellable one when
 * cancellation is on; true when the region is cancelled. */
bool muster_ws_loop_close_cancellable(muster_omp_thread *self);

/* Initialises a slot's loop state for proto (setup callbacks, initialisers). */
void muster_ws_slot_init_loop(muster_ws_slot *slot, const muster_ws_loop *proto);

/* Doacross on the caller's current loop: post the iteration vector `iter`,
 * or wait until the iteration `iter` has been posted. */
void muster_ws_doacross_post(muster_omp_thread *self, const uint64_t *iter);
void muster_ws_doacross_wait(muster_omp_thread *self, const uint64_t *iter);
unsigned muster_ws_doacross_dimensions(muster_omp_thread *self);

/* Index space helpers. */
static inline uint64_t muster_ws_value(const muster_ws_loop *l, uint64_t i)
{
    return l->start + i * l->incr;
}

/* iend for a chunk ending before index `last`. */
static inline uint64_t muster_ws_end_value(const muster_ws_loop *l, uint64_t last)
{
    return last == l->n ? l->end : muster_ws_value(l, last);
}

/* Iterations of an ascending loop start < end stepping by incr > 0 (unsigned). */
static inline uint64_t muster_ws_count_up(uint64_t start, uint64_t end, uint64_t incr)
{
    return start < end ? (end - start - 1u) / incr + 1u : 0u;
}

/* GOMP_parallel_loop_* helper: forks a team whose first work share is the
 * loop proto (num_threads, proc_bind as muster_omp_parallel's).  split: the GOMP 1.0
 * form that returns on thread 0 instead of running fn and joining. */
void muster_ws_parallel_loop(void (*fn)(void *), void *data, unsigned num_threads, unsigned proc_bind,
                             const muster_ws_loop *proto, bool split);

#endif
