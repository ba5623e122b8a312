/* The omp_* functions that read or set ICVs; omp_get_wtime, omp_get_wtick;
 * places, devices, host teams and pause (the affinity format: display.c).
 *
 * Data-environment ICVs live in the calling thread's muster_omp_self()->icvs;
 * the device-wide ones (nteams-var, teams-thread-limit-var) are process
 * globals here.  Behaviour at the edges (negative
 * arguments, values past the supported range) follows gcc 12's libgomp. */
#include <limits.h>
#include <omp.h> /* gcc's: our definitions must match its prototypes exactly */
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "omp/env.h"
#include "omp/internal.h"

static muster_omp_icvs *my_icvs(void)
{
    return &muster_omp_self()->icvs;
}

/* ---- threads, nesting, schedule ---- */

MUSTER_OMP_EXPORT void omp_set_num_threads(int n)
{
    my_icvs()->nthreads = n > 0 ? (unsigned)n : 1u;
}

MUSTER_OMP_EXPORT int omp_get_max_threads(void)
{
    unsigned n = my_icvs()->nthreads;
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* The CPUs of the affinity mask the process started with: the same answer
 * in every thread, however threads are later pinned. */
MUSTER_OMP_EXPORT int omp_get_num_procs(void)
{
    unsigned n = muster_affinity_cpus(NULL, 0);
    return n > 0 ? (int)n : 1;
}

MUSTER_OMP_EXPORT void omp_set_dynamic(int dynamic)
{
    my_icvs()->dynamic = dynamic != 0;
}

MUSTER_OMP_EXPORT int omp_get_dynamic(void)
{
    return my_icvs()->dynamic;
}

/* Deprecated in OpenMP 5.0: nesting is max-active-levels-var > 1. */
MUSTER_OMP_EXPORT void omp_set_nested(int nested)
{
    muster_omp_icvs *icvs = my_icvs();
    if (nested && icvs->max_active_levels < 2)
        icvs->max_active_levels = MUSTER_OMP_SUPPORTED_ACTIVE_LEVELS;
    else if (!nested && icvs->max_active_levels > 1)
        icvs->max_active_levels = 1;
}

MUSTER_OMP_EXPORT int omp_get_nested(void)
{
    muster_omp_thread *self = muster_omp_self();
    unsigned active = self->team ? self->team->active_level : 0;
    return self->icvs.max_active_levels > 1 && self->icvs.max_active_levels > active;
}

MUSTER_OMP_EXPORT void omp_set_schedule(omp_sched_t kind, int chunk_size)
{
    muster_omp_icvs *icvs = my_icvs();
    switch ((unsigned)kind & ~MUSTER_OMP_SCHED_MONOTONIC) {
    case MUSTER_OMP_SCHED_STATIC:
        icvs->run_sched_chunk = chunk_size < 1 ? 0 : chunk_size; /* 0: an even split */
        break;
    case MUSTER_OMP_SCHED_DYNAMIC:
    case MUSTER_OMP_SCHED_GUIDED:
        icvs->run_sched_chunk = chunk_size < 1 ? 1 : chunk_size;
        break;
    case MUSTER_OMP_SCHED_AUTO:
        icvs->run_sched_chunk = 0;
        break;
    default:
        return; /* not a schedule: ignored, as libgomp does */
    }
    icvs->run_sched = (unsigned)kind;
}

MUSTER_OMP_EXPORT void omp_get_schedule(omp_sched_t *kind, int *chunk_size)
{
    const muster_omp_icvs *icvs = my_icvs();
    *kind = (omp_sched_t)icvs->run_sched;
    *chunk_size = (int)icvs->run_sched_chunk;
}

MUSTER_OMP_EXPORT int omp_get_thread_limit(void)
{
    unsigned limit = my_icvs()->thread_limit;
    return limit > INT_MAX ? INT_MAX : (int)limit;
}

MUSTER_OMP_EXPORT void omp_set_max_active_levels(int levels)
{
    if (levels < 0)
        return;
    my_icvs()->max_active_levels =
        (unsigned)levels > MUSTER_OMP_SUPPORTED_ACTIVE_LEVELS ? MUSTER_OMP_SUPPORTED_ACTIVE_LEVELS : (unsigned)levels;
}

MUSTER_OMP_EXPORT int omp_get_max_active_levels(void)
{
    return (int)my_icvs()->max_active_levels;
}

MUSTER_OMP_EXPORT int omp_get_supported_active_levels(void)
{
    return (int)MUSTER_OMP_SUPPORTED_ACTIVE_LEVELS;
}

MUSTER_OMP_EXPORT int omp_get_max_task_priority(void)
{
    return (int)muster_omp_env_extras_get()->max_task_priority;
}

/* ---- time ---- */

MUSTER_OMP_EXPORT double omp_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

MUSTER_OMP_EXPORT double omp_get_wtick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
        return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- binding and places ---- */

MUSTER_OMP_EXPORT omp_proc_bind_t omp_get_proc_bind(void)
{
    return (omp_proc_bind_t)my_icvs()->bind;
}

MUSTER_OMP_EXPORT int omp_get_num_places(void)
{
    return (int)muster_omp_places_get()->count;
}

MUSTER_OMP_EXPORT int omp_get_place_num_procs(int place)
{
    const muster_omp_places *places = muster_omp_places_get();
    if (place < 0 || (unsigned)place >= places->count)
        return 0;
    return (int)(places->start[place + 1] - places->start[place]);
}

MUSTER_OMP_EXPORT void omp_get_place_proc_ids(int place, int *ids)
{
    const muster_omp_places *places = muster_omp_places_get();
    if (place < 0 || (unsigned)place >= places->count || ids == NULL)
        return;
    for (unsigned k = places->start[place]; k < places->start[place + 1]; k++)
        *ids++ = places->cpus[k];
}

/* The calling thread, bound as libgomp binds a thread on the first query
 * when binding is on (the initial thread before its first region). */
static muster_omp_thread *bound_self(void)
{
    muster_omp_thread *self = muster_omp_self();
    muster_omp_bind_initial_thread(self);
    return self;
}

MUSTER_OMP_EXPORT int omp_get_place_num(void)
{
    if (muster_omp_places_get()->count == 0)
        return -1;
    return bound_self()->place.place;
}

MUSTER_OMP_EXPORT int omp_get_partition_num_places(void)
{
    unsigned count = muster_omp_places_get()->count;
    if (count == 0)
        return 0;
    int first, n;
    muster_omp_current_partition(bound_self(), &first, &n);
    return n;
}

MUSTER_OMP_EXPORT void omp_get_partition_place_nums(int *place_nums)
{
    unsigned count = muster_omp_places_get()->count;
    if (count == 0 || place_nums == NULL)
        return;
    int first, n;
    muster_omp_current_partition(bound_self(), &first, &n);
    for (int i = 0; i < n; i++)
        place_nums[i] = first + i;
}

/* ---- devices: only the host, as libgomp without offload plugins ---- */

MUSTER_OMP_EXPORT void omp_set_default_device(int device)
{
    my_icvs()->default_device = device < 0 ? 0 : device;
}

MUSTER_OMP_EXPORT int omp_get_default_device(void)
{
    return my_icvs()->default_device;
}

MUSTER_OMP_EXPORT int omp_get_num_devices(void)
{
    return 0;
}

/* The host's device number is the number of devices: 0. */
MUSTER_OMP_EXPORT int omp_get_initial_device(void)
{
    return 0;
}

MUSTER_OMP_EXPORT int omp_is_initial_device(void)
{
    return 1;
}

MUSTER_OMP_EXPORT int omp_get_device_num(void)
{
    return omp_get_initial_device();
}

/* ---- host teams ---- */

static _Thread_local unsigned league_size = 1, league_rank = 0;

void muster_omp_set_league(unsigned num_teams, unsigned team_num)
{
    league_size = num_teams ? num_teams : 1;
    league_rank = team_num < league_size ? team_num : 0;
}

unsigned muster_omp_league_size(void)
{
    return league_size;
}

unsigned muster_omp_league_rank(void)
{
    return league_rank;
}

MUSTER_OMP_EXPORT int omp_get_num_teams(void)
{
    return (int)league_size;
}

MUSTER_OMP_EXPORT int omp_get_team_num(void)
{
    return (int)league_rank;
}

/* nteams-var and teams-thread-limit-var are device-wide; -1: not set by a
 * call yet, so the environment's value holds. */
static atomic_int num_teams_var = -1, teams_thread_limit_var = -1;

/* A call sets a device-wide variable only to a positive value. */
static void set_device_var(atomic_int *var, int value)
{
    /* relaxed: a lone value with no data published through it. */
    if (value > 0)
        atomic_store_explicit(var, value, memory_order_relaxed);
}

/* The value a call set, else the environment's. */
static unsigned device_var(atomic_int *var, unsigned from_env)
{
    /* relaxed: see set_device_var. */
    int n = atomic_load_explicit(var, memory_order_relaxed);
    return n >= 0 ? (unsigned)n : from_env;
}

MUSTER_OMP_EXPORT void omp_set_num_teams(int num_teams)
{
    set_device_var(&num_teams_var, num_teams);
}

unsigned muster_omp_nteams_var(void)
{
    return device_var(&num_teams_var, muster_omp_env_extras_get()->num_teams);
}

MUSTER_OMP_EXPORT int omp_get_max_teams(void)
{
    return (int)muster_omp_nteams_var();
}

MUSTER_OMP_EXPORT void omp_set_teams_thread_limit(int limit)
{
    set_device_var(&teams_thread_limit_var, limit);
}

unsigned muster_omp_teams_thread_limit_var(void)
{
    return device_var(&teams_thread_limit_var, muster_omp_env_extras_get()->teams_thread_limit);
}

MUSTER_OMP_EXPORT int omp_get_teams_thread_limit(void)
{
    return (int)muster_omp_teams_thread_limit_var();
}

/* ---- pause: the pool stays hot; nothing to give back yet ---- */

static int pause_valid(omp_pause_resource_t kind)
{
    return kind == omp_pause_soft || kind == omp_pause_hard;
}

MUSTER_OMP_EXPORT int omp_pause_resource(omp_pause_resource_t kind, int device)
{
    return pause_valid(kind) && device == omp_get_initial_device() ? 0 : -1;
}

MUSTER_OMP_EXPORT int omp_pause_resource_all(omp_pause_resource_t kind)
{
    return pause_valid(kind) ? 0 : -1;
}

