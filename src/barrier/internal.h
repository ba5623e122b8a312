/* What the algorithm files share: the barrier object, the per-algorithm
 * operations, the flag arena and the tree plan.  Not installed. */
#ifndef MUSTER_BARRIER_INTERNAL_H
#define MUSTER_BARRIER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "muster/barrier.h"
#include "barrier/runtime.h"
#include "platform/platform.h"
#include "schedule.h"
#include "wait/wait.h"

/* Every release shape the tree engine (plan.c) can run. */
#define MUSTER_WAKEUPS_TREE                                                                \
    ((1u << MUSTER_WAKE_GLOBAL) | (1u << MUSTER_WAKE_BINARY) | (1u << MUSTER_WAKE_CLUSTER) | \
     (1u << MUSTER_WAKE_TREE))

typedef struct muster_barrier_ops {
    muster_algorithm algorithm;
    unsigned default_fan_in;     /* 0: the algorithm has no fan-in */
    unsigned max_fan_in;         /* largest fan-in it accepts; 0 = MUSTER_MAX_FAN_IN */
    bool fan_in_power_of_two;    /* hyper: fan-in comes from branch bits */
    muster_wakeup default_wakeup;
    unsigned wakeups;            /* bit set of muster_wakeup values accepted */
    muster_padding default_padding; /* DEFAULT: the algorithm has no flag layout choice */
    bool uses_cluster_size;
    /* A participant that waits has published all it will this episode: it
     * waits only for the release.  Only then can an oversubscribed barrier
     * keep a CPU whose threads have all arrived (the census, wait/census.h); in
     * trees and dissemination an arrived waiter may still have flags to
     * publish, and holding its CPU would stall them. */
    bool waits_only_for_release;
    /* Sizes the arena (muster_layout) and builds the plan; b->attr is resolved. */
    int (*init)(muster_barrier *b);
    /* A tree on the plan (plan.c): fills parent[] (muster_plan_build) for
     * b's participants, which muster_plan_init then builds into flags
     * (MUSTER_PLAN_TREE_OPS); scratch has room for one unsigned each. */
    void (*fill_parents)(const muster_barrier *b, unsigned *parent, unsigned *scratch);
    /* One episode for participant id; returns SERIAL, 0 or a MUSTER_E_*. */
    int (*wait)(muster_barrier *b, unsigned id, const muster_waiter *waiter);
    /* Emits one episode of participant id as steps (schedule.h): the same
     * flags, in the same order, as wait. */
    void (*schedule)(const muster_barrier *b, unsigned id, muster_schedule *s);
    /* Optional, both or neither: the split episode of participant 0
     * (muster_barrier_gather / muster_barrier_release).  Only algorithms
     * whose episode ends at participant 0 can offer it. */
    int (*gather)(muster_barrier *b, const muster_waiter *waiter);
    void (*release)(muster_barrier *b);
    /* Optional, both or neither: split-phase episodes
     * (muster_barrier_arrive / muster_barrier_await).  arrive counts
     * participant id in without waiting and stores in *token what await
     * waits for; SERIAL to the arrival that completed the episode, which
     * first calls on_complete(arg) when not NULL, before any await of the
     * episode returns; else 0 or a MUSTER_E_*.  Only algorithms whose arrival publishes everything
     * a participant owes the episode at once can offer it. */
    int (*arrive)(muster_barrier *b, unsigned id, uint64_t *token, void (*on_complete)(void *), void *arg);
    int (*await)(muster_barrier *b, unsigned id, uint64_t token, const muster_waiter *waiter);
    /* Optional: extra work to break / reset / free algorithm state. */
    void (*abort)(muster_barrier *b);
    void (*reset)(muster_barrier *b);
    void (*destroy)(muster_barrier *b);
} muster_barrier_ops;

/* A plan for tree-shaped barriers: who polls which arrival flags, who waits on
 * which release flag, who publishes which.  Flags are named by byte offsets
 * into the arena.  Lists are in CSR form: entries of participant i are
 * [start[i], start[i+1]). */
#define MUSTER_NO_FLAG UINT32_MAX
typedef struct muster_tree_plan {
    uint32_t *arrive_start, *arrive_poll; /* children's arrival flags to poll */
    uint32_t *arrive_post;                /* own arrival flag; NO_FLAG for the root */
    uint32_t *release_wait;               /* flag to wait on for release; NO_FLAG for the root */
    uint32_t *release_start, *release_post; /* release flags to publish, in order */
} muster_tree_plan;

struct muster_barrier {
    const muster_barrier_ops *ops;
    unsigned participants;
    muster_barrier_attr attr;  /* every default resolved */
    muster_waiter waiter;      /* policy and spin budget; deadline filled per call */
    muster_census *census;     /* when waiters spin or share CPUs (wait/census.h); NULL otherwise */
    bool may_sleep;            /* false only for ACTIVE: publishers may skip the exchange */
    /* seq_cst: written once by abort, read at each wait's entry. */
    _Atomic uint32_t broken;

    /* The arena: shared flags, then one block per participant holding its
     * private line and the flags it (and only it) writes.  Mapped zeroed and
     * never written by the creator, so each block is first touched by its
     * owner; with padded flags each block starts on its own page. */
    unsigned char *arena;
    size_t arena_bytes;
    unsigned shared_flags, flags_per_participant;
    size_t flag_stride;        /* 64 padded, 4 packed */
    size_t private_offset, private_stride;
    size_t block_offset, block_stride; /* participant flags */
    size_t used_bytes;         /* arena bytes the layout really uses */

    muster_tree_plan plan;     /* tree algorithms only */
    size_t plan_bytes;
    void *state;               /* algorithm-specific, freed by ops->destroy */
};

/* ---- the arena ---- */

int muster_layout(muster_barrier *b, unsigned shared_flags, unsigned flags_per_participant);

static inline uint32_t muster_shared_flag(const muster_barrier *b, unsigned k)
{
    return (uint32_t)(k * b->flag_stride);
}

static inline uint32_t muster_participant_flag(const muster_barrier *b, unsigned id, unsigned k)
{
    return (uint32_t)(b->block_offset + id * b->block_stride + k * b->flag_stride);
}

static inline muster_flag *muster_flag_at(const muster_barrier *b, uint32_t offset)
{
    return (muster_flag *)(b->arena + offset);
}

/* The participant's private episode counter: read and written only by it. */
/* Participant id's episode counter as it stands (the episode it is in, or
 * last finished). */
static inline uint32_t muster_current_episode(const muster_barrier *b, unsigned id)
{
    return *(const uint32_t *)(b->arena + b->private_offset + id * b->private_stride);
}

static inline uint32_t muster_next_episode(muster_barrier *b, unsigned id)
{
    uint32_t *episode = (uint32_t *)(b->arena + b->private_offset + id * b->private_stride);
    *episode = muster_episode_next(*episode);
    return *episode;
}

/* ---- tree plans ---- */

/* Builds the plan from a parent array: parent[i] is i's arrival parent (the
 * root, participant 0, has parent[0] == 0; parents have smaller ids than their
 * children).  The arrival flag of i is its flag 0.  The release follows
 * b->attr.wakeup: GLOBAL uses shared flag 0; BINARY and CLUSTER build wake
 * trees; TREE wakes along the arrival tree. */
int muster_plan_build(muster_barrier *b, const unsigned *parent);

/* The init of a tree on the plan: b->ops->fill_parents, then the plan. */
int muster_plan_init(muster_barrier *b);

/* The operations every tree on the plan shares, for its ops table after
 * what is its own (name, fan-in, wake-ups, padding): fill_fn fills its
 * arrival tree; the plan does the rest. */
#define MUSTER_PLAN_TREE_OPS(fill_fn)                                                                       \
    .fill_parents = (fill_fn), .init = muster_plan_init, .wait = muster_plan_wait,                          \
    .gather = muster_plan_gather, .release = muster_plan_release, .schedule = muster_plan_schedule

/* Static tournament trees: participants [first, first+count) of `members`
 * play in groups of fan_in consecutive players, the first of each group
 * winning; winners play on until one is left, which is returned.  With
 * balanced set, the groups of each round are as even as possible (STOUR). */
unsigned muster_tournament_rounds(unsigned *members, unsigned count, unsigned fan_in, bool balanced,
                                  unsigned *parent);

/* Dynamic trees (combining tree, dynamic f-way tournament): groups of fan_in
 * participants, then of fan_in groups, ...; the last to arrive at a group
 * climbs.  Arrival is counted (fetch_add) or marked in a bit mask (fetch_or). */
int muster_node_tree_init(muster_barrier *b);
int muster_node_tree_wait(muster_barrier *b, unsigned id, const muster_waiter *waiter, bool bit_mask);
void muster_node_tree_destroy(muster_barrier *b);
void muster_plan_free(muster_barrier *b);

/* Runs one episode of a tree plan. */
int muster_plan_wait(muster_barrier *b, unsigned id, const muster_waiter *waiter);
/* The root's episode in two halves: gather the arrivals; later, release. */
int muster_plan_gather(muster_barrier *b, const muster_waiter *waiter);
void muster_plan_release(muster_barrier *b);
/* The steps of muster_plan_wait, and of muster_node_tree_wait. */
void muster_plan_schedule(const muster_barrier *b, unsigned id, muster_schedule *s);
void muster_node_tree_schedule(const muster_barrier *b, unsigned id, muster_schedule *s);


/* ---- the algorithms ---- */

extern const muster_barrier_ops muster_central_blocking_ops;
extern const muster_barrier_ops muster_central_sense_ops;
extern const muster_barrier_ops muster_dissemination_ops;
extern const muster_barrier_ops muster_combining_tree_ops;
extern const muster_barrier_ops muster_mcs_tree_ops;
extern const muster_barrier_ops muster_tournament_ops;
extern const muster_barrier_ops muster_static_fway_ops;
extern const muster_barrier_ops muster_dynamic_fway_ops;
extern const muster_barrier_ops muster_hyper_ops;
extern const muster_barrier_ops muster_tuned_ops;

#endif
