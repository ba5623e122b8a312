/* muster — barrier synchronization for many-core CPUs.
 *
 * One API over every published barrier algorithm.  A barrier is created for a
 * fixed number of participants; participant `id` (0 <= id < participants)
 * calls muster_barrier_wait() once per episode.  Each participant id must be
 * used by one thread at a time.
 *
 * Return values: every call that can fail returns a negative MUSTER_E_* code;
 * muster_strerror() names it and muster_error_detail() says, for the calling
 * thread's last failure, what exactly was wrong.  No user error aborts the
 * process.
 */
#ifndef MUSTER_BARRIER_H
#define MUSTER_BARRIER_H

#include <stddef.h>
#include <stdint.h>

#include "muster/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returned by a successful wait to exactly one participant per episode, as
 * PTHREAD_BARRIER_SERIAL_THREAD is; the others get 0. */
#define MUSTER_BARRIER_SERIAL 1

enum muster_error {
    MUSTER_OK = 0,
    MUSTER_E_INVAL = -1,        /* an argument or attribute is out of range */
    MUSTER_E_UNSUPPORTED = -2,  /* the attribute does not apply to the algorithm */
    MUSTER_E_NOMEM = -3,        /* memory could not be allocated */
    MUSTER_E_RANGE = -4,        /* participant id out of range */
    MUSTER_E_BROKEN = -5,       /* the barrier was aborted or a participant timed out */
    MUSTER_E_TIMEDOUT = -6,     /* this participant's deadline passed; the barrier is now broken */
    MUSTER_E_UNKNOWN_NAME = -7, /* no algorithm, policy or wake-up shape has that name */
    MUSTER_E_SYSTEM = -8,       /* the operating system refused (see errno in the detail) */
};

typedef enum muster_algorithm {
    MUSTER_ALG_AUTO = 0,          /* chosen for the team size and the machine */
    MUSTER_ALG_CENTRAL_BLOCKING,  /* counter under a mutex, condition-variable broadcast */
    MUSTER_ALG_CENTRAL_SENSE,     /* one shared counter, one global release flag */
    MUSTER_ALG_DISSEMINATION,     /* ceil(log2 P) rounds of pairwise flags */
    MUSTER_ALG_COMBINING_TREE,    /* counters per group, last arriver climbs */
    MUSTER_ALG_MCS_TREE,          /* 4-ary arrival tree, binary wake-up tree */
    MUSTER_ALG_TOURNAMENT,        /* static pairwise rounds, global release */
    MUSTER_ALG_STATIC_FWAY,       /* static f-way tournament, winner fixed */
    MUSTER_ALG_DYNAMIC_FWAY,      /* dynamic f-way tournament, last arriver wins */
    MUSTER_ALG_HYPER,             /* hypercube-embedded tree (LLVM libomp's default) */
    MUSTER_ALG_TUNED,             /* Gao et al.: padded 4-way tournament, cluster-aware */
    MUSTER_ALG_COUNT
} muster_algorithm;

typedef enum muster_wait_policy {
    MUSTER_WAIT_DEFAULT = 0, /* environment, else hybrid */
    MUSTER_WAIT_ACTIVE,      /* spin with the CPU's relax hint, never sleep */
    MUSTER_WAIT_PASSIVE,     /* sleep on a futex at once */
    MUSTER_WAIT_HYBRID,      /* spin for a budget in ns, then sleep */
    MUSTER_WAIT_COUNT
} muster_wait_policy;

typedef enum muster_wakeup {
    MUSTER_WAKE_DEFAULT = 0, /* the algorithm's own */
    MUSTER_WAKE_GLOBAL,      /* the winner flips one flag everyone watches */
    MUSTER_WAKE_BINARY,      /* a binary tree of per-participant flags */
    MUSTER_WAKE_CLUSTER,     /* Gao et al. eq. 5: cluster masters fan out to masters and members */
    MUSTER_WAKE_TREE,        /* the arrival tree reversed, farthest subtree first (hyper's release) */
    MUSTER_WAKE_COUNT
} muster_wakeup;

typedef enum muster_padding {
    MUSTER_PAD_DEFAULT = 0, /* the algorithm's own */
    MUSTER_PAD_PADDED,      /* one cache line per flag */
    MUSTER_PAD_PACKED,      /* flags 4 bytes apart */
    MUSTER_PAD_COUNT
} muster_padding;

/* Creation attributes.  Zero means "default" for every field, so a zeroed
 * struct (or muster_barrier_attr_init) asks for all defaults. */
typedef struct muster_barrier_attr {
    muster_algorithm algorithm;
    muster_wait_policy wait_policy;
    int64_t spin_ns;       /* hybrid spin budget; < 0 = default (200 us, grown per thread after short sleeps) */
    unsigned fan_in;       /* 0 = the algorithm's default; else 2..MUSTER_MAX_FAN_IN
                              (dynamic-fway: 2..30, hyper: powers of two) */
    muster_wakeup wakeup;
    unsigned cluster_size; /* cores per cluster for arrival groups and wake-up; 0 = default */
    muster_padding padding;
} muster_barrier_attr;

#define MUSTER_MAX_PARTICIPANTS 4096u
#define MUSTER_MAX_FAN_IN 64u
#define MUSTER_MAX_SPIN_NS 10000000000LL /* 10 s */

typedef struct muster_barrier muster_barrier;

MUSTER_API void muster_barrier_attr_init(muster_barrier_attr *attr);

/* Creates a barrier for `participants` threads.  attr may be NULL. */
MUSTER_API int muster_barrier_create(muster_barrier **out, unsigned participants,
                                     const muster_barrier_attr *attr);
MUSTER_API void muster_barrier_destroy(muster_barrier *barrier);

/* Waits until all participants have arrived.  Returns MUSTER_BARRIER_SERIAL
 * to one participant per episode, 0 to the others, or MUSTER_E_BROKEN. */
MUSTER_API int muster_barrier_wait(muster_barrier *barrier, unsigned id);

/* As muster_barrier_wait, but gives up after timeout_ns: the barrier is then
 * broken, this call returns MUSTER_E_TIMEDOUT and every other participant's
 * wait returns MUSTER_E_BROKEN. */
MUSTER_API int muster_barrier_wait_timeout(muster_barrier *barrier, unsigned id, uint64_t timeout_ns);

/* Split episodes, for fork/join: participant 0 calls muster_barrier_gather,
 * which returns once every other participant has arrived (0) without
 * releasing them; it may then run serial code, and muster_barrier_release
 * lets them go.  The others call muster_barrier_wait as usual and return at
 * the release.  Any episode may be split or not.  Offered by the algorithms
 * whose episode ends at participant 0: the tree family (tournament,
 * static-fway, mcs-tree, hyper, tuned) and central-sense; the others return
 * MUSTER_E_UNSUPPORTED.  Gather returns MUSTER_E_BROKEN as wait does;
 * release needs a successful gather before it. */
MUSTER_API int muster_barrier_gather(muster_barrier *barrier);
MUSTER_API int muster_barrier_release(muster_barrier *barrier);
/* 1 when the barrier's algorithm offers split episodes, else 0. */
MUSTER_API int muster_barrier_can_split(const muster_barrier *barrier);

/* Split-phase episodes (a "fuzzy" barrier, std::barrier's arrive and
 * wait): participant id arrives without waiting, may do other work, and
 * later waits for the episode it arrived at to complete.  arrive returns
 * MUSTER_BARRIER_SERIAL to the arrival that completed the episode (its
 * await then returns at once), 0 to the others, or MUSTER_E_BROKEN; await
 * returns 0, MUSTER_E_BROKEN, or (timed) MUSTER_E_TIMEDOUT, which breaks
 * the barrier as muster_barrier_wait_timeout does.  Each arrive must be
 * followed by its await before that participant arrives again.  Offered by
 * central-sense and central-blocking, whose arrival publishes all a
 * participant owes the episode at once (a tree's or dissemination's
 * arrival waits for partners); the others return MUSTER_E_UNSUPPORTED. */
typedef struct muster_arrival {
    uint64_t episode;
} muster_arrival;
MUSTER_API int muster_barrier_arrive(muster_barrier *barrier, unsigned id, muster_arrival *token);
/* As muster_barrier_arrive; the arrival that completes the episode first
 * calls on_complete(arg) (when not NULL), before any participant's await of
 * the episode returns: std::barrier's completion step. */
MUSTER_API int muster_barrier_arrive_then(muster_barrier *barrier, unsigned id, muster_arrival *token,
                                          void (*on_complete)(void *), void *arg);
MUSTER_API int muster_barrier_await(muster_barrier *barrier, unsigned id, muster_arrival token);
MUSTER_API int muster_barrier_await_timeout(muster_barrier *barrier, unsigned id, muster_arrival token, uint64_t timeout_ns);
/* 1 when the barrier's algorithm offers split-phase episodes, else 0. */
MUSTER_API int muster_barrier_can_arrive(const muster_barrier *barrier);

/* Breaks the barrier: current and future waits return MUSTER_E_BROKEN until
 * muster_barrier_reset().  Safe to call from any thread, at any time. */
MUSTER_API int muster_barrier_abort(muster_barrier *barrier);

/* Makes a broken (or unused) barrier usable again.  No participant may be
 * inside a wait while it runs. */
MUSTER_API int muster_barrier_reset(muster_barrier *barrier);

/* 1 if broken, 0 if not. */
MUSTER_API int muster_barrier_is_broken(const muster_barrier *barrier);

/* The settings the barrier actually uses, with every default resolved. */
MUSTER_API int muster_barrier_get_attr(const muster_barrier *barrier, muster_barrier_attr *out);
MUSTER_API unsigned muster_barrier_participants(const muster_barrier *barrier);

/* Bytes of barrier state per participant (flags, counters, private lines and
 * the plan), averaged over participants. */
MUSTER_API size_t muster_barrier_state_bytes(const muster_barrier *barrier);

/* The cluster size N_c used when cluster_size is 0, found once per process:
 * MUSTER_CLUSTER_SIZE, else the N_c of the muster-machine/1 file named by
 * MUSTER_MACHINE (`muster probe --output`), else the CPUs sharing the lowest
 * cache that several cores share.  *source, when not NULL, says which. */
MUSTER_API unsigned muster_default_cluster_size(const char **source);

/* Names.  The *_name functions return NULL for values out of range; the
 * parse functions return MUSTER_E_UNKNOWN_NAME for names they don't know. */
MUSTER_API const char *muster_algorithm_name(muster_algorithm algorithm);
MUSTER_API int muster_algorithm_parse(const char *name, muster_algorithm *out);
MUSTER_API const char *muster_wait_policy_name(muster_wait_policy policy);
MUSTER_API int muster_wait_policy_parse(const char *name, muster_wait_policy *out);
MUSTER_API const char *muster_wakeup_name(muster_wakeup wakeup);
MUSTER_API int muster_wakeup_parse(const char *name, muster_wakeup *out);
MUSTER_API const char *muster_padding_name(muster_padding padding);
MUSTER_API int muster_padding_parse(const char *name, muster_padding *out);

MUSTER_API const char *muster_strerror(int error);
/* The calling thread's last failure, in one line ("" if none). */
MUSTER_API const char *muster_error_detail(void);

#ifdef __cplusplus
}
#endif
#endif
