/* libmuster-omp: what env.c, places.c, affinity.c and api.c offer the rest of the
 * runtime beyond internal.h, and the pure functions their tests call.
 * Not installed. */
#ifndef MUSTER_OMP_ENV_H
#define MUSTER_OMP_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "muster/topology.h"
#include "omp/icvs.h"

struct muster_omp_thread; /* thread.h, a layer above */

/* omp_get_supported_active_levels(), and the most max-active-levels-var
 * can be set to: the pools parallel.c keeps, one per active level (gcc
 * 12's libgomp reports 255). */
#define MUSTER_OMP_SUPPORTED_ACTIVE_LEVELS ((unsigned)MUSTER_OMP_MAX_ACTIVE_LEVELS)

/* The run-sched-var used when OMP_SCHEDULE is unset or malformed.  (libgomp
 * uses dynamic,1; static is the cheaper choice, and the kind is
 * implementation-defined.) */
#define MUSTER_OMP_DEFAULT_SCHED (MUSTER_OMP_SCHED_STATIC | MUSTER_OMP_SCHED_MONOTONIC)

/* ---- ICVs at a fork (parallel.c calls this) ---- */

/* Turns the primary's ICVs into a new team's starting ICVs: the next entry
 * of the OMP_NUM_THREADS and OMP_PROC_BIND lists, when the lists go that
 * deep, becomes nthreads / bind and the remaining entries move up a level;
 * past the end of a list the value is inherited unchanged (as libgomp
 * does).  Call it on the copy stored in team->icvs, once per fork. */
void muster_omp_icvs_advance(muster_omp_icvs *icvs);

/* ---- settings internal.h's globals do not hold (env.c) ---- */

/* How clang-built code's reductions fold (kmp/sync.c): KMP_FORCE_REDUCTION
 * as libomp reads it, or the runtime's choice (AUTO). */
typedef enum muster_omp_reduction_method {
    MUSTER_OMP_REDUCE_AUTO,
    MUSTER_OMP_REDUCE_CRITICAL, /* each member under the construct's lock */
    MUSTER_OMP_REDUCE_ATOMIC,   /* with atomics where the call site allows, else the lock */
    MUSTER_OMP_REDUCE_TREE      /* member 0 folds everyone's copies (reduce.c) */
} muster_omp_reduction_method;

typedef struct muster_omp_env_extras {
    unsigned num_teams;          /* OMP_NUM_TEAMS: nteams-var, 0 = unset */
    unsigned teams_thread_limit; /* OMP_TEAMS_THREAD_LIMIT: 0 = unset */
    unsigned max_task_priority;  /* OMP_MAX_TASK_PRIORITY */
    bool display_affinity;       /* OMP_DISPLAY_AFFINITY */
    const char *affinity_format; /* OMP_AFFINITY_FORMAT, or libgomp's default */
    bool bind_from_env;          /* OMP_PROC_BIND was set and valid */
    muster_omp_reduction_method force_reduction; /* KMP_FORCE_REDUCTION */
    unsigned delay_depth;        /* MUSTER_OMP_DELAY_DEPTH (scheduler.h) */
    unsigned queue_ahead;        /* MUSTER_OMP_QUEUE_AHEAD (scheduler.h) */
    unsigned help_first_depth;   /* MUSTER_OMP_HELP_FIRST_DEPTH (task/settings.h) */
    bool defer_ahead;            /* MUSTER_OMP_DEFER=ahead: queue whether or not anyone is hungry */
    /* libomp's KMP_BLOCKTIME (ms; INT_MAX: infinite; -1: unset) and
     * KMP_LIBRARY (1 serial, 2 turnaround, 3 throughput; 0: unset), which
     * programs written for libomp set: the wait layer's request, as
     * kmp_set_blocktime and kmp_set_library make it (kmp/api.c). */
    int kmp_blocktime_ms;
    unsigned kmp_library;
} muster_omp_env_extras;

const muster_omp_env_extras *muster_omp_env_extras_get(void);
/* Reads the environment again, as at load, freeing what the last reading
 * made: for the fuzzing harness (fuzz/fuzz_env.c) only, with no other
 * thread of the runtime running. */
void muster_omp_env_reread(void);

/* What runs once the environment is read, inside its initialisation:
 * the start-up OMP_DISPLAY_ENV block, which display.c (above this file)
 * installs at load.  Unset: nothing is shown. */
typedef void (*muster_omp_env_display_fn)(const muster_omp_globals *globals, const muster_omp_env_extras *extras);
void muster_omp_env_set_display(muster_omp_env_display_fn display);

/* ---- places (places.c; team places and binding: affinity.c) ---- */

/* A place list: place i holds cpus[start[i] .. start[i+1]), ascending. */
typedef struct muster_omp_places {
    unsigned count;
    unsigned *start; /* count + 1 entries */
    int *cpus;
} muster_omp_places;

void muster_omp_places_free(muster_omp_places *places);

/* The abstract names OMP_PLACES accepts and the topology level each uses. */
typedef enum muster_omp_place_kind {
    MUSTER_OMP_PLACES_THREADS,
    MUSTER_OMP_PLACES_CORES,
    MUSTER_OMP_PLACES_LL_CACHES,
    MUSTER_OMP_PLACES_NUMA_DOMAINS,
    MUSTER_OMP_PLACES_SOCKETS,
} muster_omp_place_kind;

/* Parses an OMP_PLACES value: an abstract name with an optional "(n)", or
 * an explicit list ({0,1},{2:2}, {0:4:2}, {0:2}:4:2, !{...}, {0:4,!2}).
 * Places are expanded against `topo` (abstract names; NULL: a flat view of
 * `allowed`) and restricted to the CPUs in allowed[0..n_allowed); places
 * left empty are dropped and *dropped says how many.  0 and *out filled
 * (free with muster_omp_places_free), or -1 with a description of what is
 * wrong in problem[] (no places left counts as wrong). */
int muster_omp_places_parse(const char *text, const muster_topology *topo, const int *allowed,
                            unsigned n_allowed, muster_omp_places *out, unsigned *dropped,
                            char *problem, size_t problem_size);

/* The places of an abstract kind, at most `limit` of them (0: all). */
int muster_omp_places_of_kind(muster_omp_place_kind kind, unsigned limit, const muster_topology *topo,
                              const int *allowed, unsigned n_allowed, muster_omp_places *out);

/* libgomp's spelling of a place list: "{0:2},{4},{6,8}".  Returns the
 * length the text needs (snprintf-style). */
size_t muster_omp_places_format(const muster_omp_places *places, char *buf, size_t size);

/* ---- the place list (places.c) ---- */

/* Called once from env.c's initialisation: sets up the process's place
 * list from the OMP_PLACES value (NULL: unset), warning about a malformed
 * one.  `wanted` is false when OMP_PROC_BIND is false (places are then
 * parsed for the warning but not kept, as libgomp does); with binding on
 * and no usable OMP_PLACES, the default place list (threads) is used.
 * Returns true when OMP_PLACES itself gave the places. */
bool muster_omp_places_setup(const char *omp_places, bool wanted, bool binding);

/* The process's place list (empty, count 0, when there is none). */
const muster_omp_places *muster_omp_places_get(void);

/* The same without initialising the globals first: for env.c's display
 * during that initialisation (pthread_once must not be re-entered). */
const muster_omp_places *muster_omp_places_peek(void);
/* Frees the process's place list (muster_omp_env_reread). */
void muster_omp_places_forget(void);

/* The arithmetic of OpenMP 5.1 §2.6.2: places for a team of `size`
 * threads forked by a primary at place `primary_place` (an index into the
 * place list; -1: not bound, taken as the first place of its partition)
 * whose partition is [part_first, part_first + part_count) (part_count 0:
 * all num_places).  bind is MUSTER_OMP_BIND_* (TRUE acts as CLOSE).  Fills
 * members[0 .. size).  Pure; affinity.c's muster_omp_team_places uses it. */
void muster_omp_assign_places(unsigned bind, int primary_place, int part_first, int part_count,
                              unsigned num_places, unsigned size, muster_omp_place_state *members);

/* The number of distinct CPUs in the places (of list `places`) of
 * members[0, size): what a bound team can run on at once.  0 when a member
 * is unbound (its CPUs are the process's) or a place names a CPU beyond 1023. */
unsigned muster_omp_bound_cpus(const muster_omp_places *places, const muster_omp_place_state *members,
                               unsigned size);

/* The calling thread's place partition (place-partition-var): places
 * [*first, *first + *count), all places outside any team.  Derived from the
 * teams it is in, so it needs no restoring when a region ends. */
void muster_omp_current_partition(const struct muster_omp_thread *self, int *first, int *count);

/* Binds the calling thread, when binding is on and it is not yet bound, to
 * the first place of its partition, as libgomp binds the initial thread at
 * start-up.  The library constructor may call it on the initial thread;
 * omp_get_place_num and friends call it lazily. */
void muster_omp_bind_initial_thread(struct muster_omp_thread *self);

/* ---- host teams (target.c sets, api.c reads) ---- */

/* The calling thread's league of host teams: target.c calls this around
 * each team it runs on the host (num_teams 1, team_num 0 restores "no
 * teams region").  omp_get_num_teams / omp_get_team_num read it. */
void muster_omp_set_league(unsigned num_teams, unsigned team_num);
/* That league: its size (1 outside any teams region) and the calling
 * thread's team in it. */
unsigned muster_omp_league_size(void);
unsigned muster_omp_league_rank(void);
/* nteams-var (omp_get_max_teams; 0: the default) and
 * teams-thread-limit-var (omp_get_teams_thread_limit; 0: none). */
unsigned muster_omp_nteams_var(void);
unsigned muster_omp_teams_thread_limit_var(void);

/* The stack size of workers started from now on: OMP_STACKSIZE's, unless
 * the program set another (kmp_set_stacksize_s); 0 = the system's.  A
 * size below the minimum becomes the minimum. */
void muster_omp_set_worker_stacksize(size_t size);

/* Values as the environment's readers take them (spaces around allowed),
 * for kmp_set_defaults (kmp/api.c), which takes the same settings from a
 * string: false when malformed.  A size: OMP_STACKSIZE's syntax; a truth:
 * true or false; KMP_BLOCKTIME: whole milliseconds or infinite (INT_MAX);
 * KMP_LIBRARY: 1 serial, 2 turnaround, 3 throughput, 0 when malformed. */
bool muster_omp_parse_size(const char *text, size_t *out);
bool muster_omp_parse_truth(const char *text, bool *out);
bool muster_omp_parse_kmp_blocktime(const char *text, int *ms);
unsigned muster_omp_parse_kmp_library(const char *text);
/* A blocktime's spin, for the wait layer's request: infinite is its longest. */
int64_t muster_omp_kmp_blocktime_spin_ns(int ms);
size_t muster_omp_worker_stacksize(void);

#endif
