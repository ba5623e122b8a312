/* The OpenMP ICVs and the process's settings (env.c reads them from the
 * environment), and a thread's place: the types the env layer offers the
 * layers above it.  It includes nothing of the runtime's. */
#ifndef MUSTER_OMP_ICVS_H
#define MUSTER_OMP_ICVS_H

#include <stdbool.h>
#include <stddef.h>

#include "muster/barrier.h" /* muster_algorithm */

/* ---- ICVs (OpenMP 5.1 §2.4) ---- */

/* omp_sched_t values, as omp.h defines them. */
enum {
    MUSTER_OMP_SCHED_STATIC = 1,
    MUSTER_OMP_SCHED_DYNAMIC = 2,
    MUSTER_OMP_SCHED_GUIDED = 3,
    MUSTER_OMP_SCHED_AUTO = 4,
};
#define MUSTER_OMP_SCHED_MONOTONIC 0x80000000u

/* omp_proc_bind_t values, as omp.h defines them. */
enum {
    MUSTER_OMP_BIND_FALSE = 0,
    MUSTER_OMP_BIND_TRUE = 1,
    MUSTER_OMP_BIND_PRIMARY = 2, /* "master" before OpenMP 5.1 */
    MUSTER_OMP_BIND_CLOSE = 3,
    MUSTER_OMP_BIND_SPREAD = 4,
};

#define MUSTER_OMP_MAX_LEVELS 16 /* entries kept of OMP_NUM_THREADS / OMP_PROC_BIND lists */
#define MUSTER_OMP_MAX_ACTIVE_LEVELS 8 /* omp_get_supported_active_levels() */

/* The data-environment ICVs: each implicit task has its own copy.  A team's
 * threads start with the primary thread's copy as it was at the fork, with
 * the per-level list entries (nthreads, bind) advanced by one level. */
typedef struct muster_omp_icvs {
    unsigned nthreads;                 /* nthreads-var for the next region */
    unsigned nthreads_next[MUSTER_OMP_MAX_LEVELS]; /* the list's later entries, 0-terminated */
    unsigned bind;                     /* bind-var for the next region: MUSTER_OMP_BIND_* */
    unsigned bind_next[MUSTER_OMP_MAX_LEVELS];     /* later entries, MUSTER_OMP_BIND_FALSE-terminated
                                          when the list is shorter; see env.c */
    unsigned run_sched;                /* run-sched-var kind: MUSTER_OMP_SCHED_*, maybe | MONOTONIC */
    long run_sched_chunk;              /* its chunk size; 0 = default */
    bool dynamic;                      /* dyn-var */
    unsigned max_active_levels;        /* max-active-levels-var */
    unsigned thread_limit;             /* thread-limit-var */
    int default_device;                /* default-device-var */
} muster_omp_icvs;

/* The process-wide settings, read from the environment once (env.c). */
typedef struct muster_omp_globals {
    muster_omp_icvs icvs;          /* the initial task's ICVs */
    size_t stacksize;              /* OMP_STACKSIZE in bytes; 0 = the system default */
    muster_algorithm algorithm;    /* MUSTER_BARRIER; AUTO = libmuster's selector */
    bool display_env, display_env_verbose;
    unsigned available_cpus;       /* affinity mask capped by the cgroup quota */
} muster_omp_globals;

/* The globals, initialised on first use (and by the library constructor). */
const muster_omp_globals *muster_omp_globals_get(void);

/* A thread's place (affinity.c owns this struct): the place it is bound
 * to and the place partition it forks teams within. */
typedef struct muster_omp_place_state {
    int place;                  /* the place this thread is bound to; -1: not bound */
    int partition_first;        /* its place partition: places [first, first + count) */
    int partition_count;        /* 0: all places */
} muster_omp_place_state;

#endif
