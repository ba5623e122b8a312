/* Parallel regions: GOMP_parallel and its GOMP 1.0 split form, process
 * events (load, exit, fork) and the team queries (omp_get_thread_num,
 * levels, ancestors).
 *
 * The team size follows OpenMP 5.1 §2.6.1: one thread once max-active-levels
 * regions are active (or for `if(false)`, which gcc passes as num_threads 1),
 * else the num_threads clause or nthreads-var, capped by thread-limit-var and,
 * with dyn-var, by the CPUs available.  A region of one thread still counts
 * as a level; it forks nothing. */
#include <dlfcn.h>
#include <link.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp/env.h"
#include "omp/internal.h"
#include "omp/task/scheduler.h"
#include "platform/affinity.h"

/* What a forking thread puts back after its region. */
typedef struct region {
    muster_omp_team *team;      /* the region's team */
    muster_omp_team solo;       /* the team when it has one thread */
    muster_omp_team *outer_team;
    unsigned outer_id;
    muster_omp_icvs outer_icvs;
    void *outer_ws_private;
    unsigned outer_ws_sequence;
    unsigned outer_barriers_passed;
    void *outer_region;
    muster_ompt_encountering outer_ompt; /* what a tool's view of the encountering task needs back */
} region;

/* ---- process events: load, exit and fork ---- */

/* With plain LD_PRELOAD the program's own libgomp is loaded too, and its
 * constructor, which runs before ours, binds the initial thread under
 * OMP_PROC_BIND or OMP_PLACES: the affinity mask we then read is its first
 * place, and teams would default to that many threads.  libgomp's
 * omp_get_num_procs still counts the mask it replaced.  When that count is
 * every CPU of the machine (all configured CPUs online), the mask was all
 * of them: it is put back, and we bind as the environment says, as under
 * `muster run`.  Otherwise the old mask cannot be known: said once, with
 * libgomp's count, rather than running on fewer CPUs in silence. */
/* The CPUs libgomp counted in the mask before it bound us; 0 when no
 * libgomp of its own is loaded beside us. */
static int libgomp_cpu_count(void)
{
    void *gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (gomp == NULL)
        return 0;
    int (*their_procs)(void) = (int (*)(void))dlsym(gomp, "omp_get_num_procs");
    dlclose(gomp); /* NOLOAD: only drops the reference we just took */
    if (their_procs == NULL || their_procs == omp_get_num_procs)
        return 0; /* not loaded, or the shim's libgomp.so.1, which is us */
    return their_procs();
}

static int mask_cpus(void)
{
    return (int)muster_thread_cpu_count();
}

/* Gives the initial thread every CPU back when `cpus` is all of them. */
static bool restore_whole_machine(int cpus)
{
    if (cpus < 2 || cpus > CPU_SETSIZE || sysconf(_SC_NPROCESSORS_CONF) != cpus ||
        sysconf(_SC_NPROCESSORS_ONLN) != cpus)
        return false;
    int all[CPU_SETSIZE];
    for (int cpu = 0; cpu < cpus; cpu++)
        all[cpu] = cpu;
    return muster_thread_bind(all, (unsigned)cpus) == 0 && mask_cpus() == cpus;
}

static void undo_libgomp_binding(void)
{
    int theirs = libgomp_cpu_count(), ours = mask_cpus();
    if (theirs <= ours)
        return;
    if (restore_whole_machine(theirs)) {
        muster_affinity_reread();
        return;
    }
    fprintf(stderr,
            "libmuster-omp: the program's own libgomp.so.1 is loaded too and bound the initial thread "
            "(OMP_PROC_BIND/OMP_PLACES) before libmuster-omp read the affinity mask: %d CPU(s) seen instead of "
            "%d; run the program with 'muster run', which keeps libgomp out\n",
            ours, theirs);
}

/* The OpenMP runtimes a program names in DT_NEEDED (the shim directory of
 * `muster run` answers each with libmuster-omp), and ourselves. */
static bool names_openmp_runtime(const char *needed)
{
    static const char *const runtimes[] = {"libgomp.so", "libomp.so", "libiomp5.so", "libmuster-omp.so"};
    for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; i++)
        if (strncmp(needed, runtimes[i], strlen(runtimes[i])) == 0)
            return true;
    return false;
}

static int object_needs_openmp(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
            continue;
        const ElfW(Dyn) *dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        ElfW(Addr) strtab = 0;
        for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++)
            if (d->d_tag == DT_STRTAB)
                strtab = d->d_un.d_ptr;
        /* glibc relocates the dynamic section in place on most targets;
         * where it does not (the vDSO; RISC-V), the address is unrelocated. */
        if (strtab != 0 && strtab < info->dlpi_addr)
            strtab += info->dlpi_addr;
        for (const ElfW(Dyn) *d = dynamic; strtab != 0 && d->d_tag != DT_NULL; d++)
            if (d->d_tag == DT_NEEDED && names_openmp_runtime((const char *)strtab + d->d_un.d_val)) {
                *(bool *)found = true;
                return 1;
            }
    }
    return 0;
}

/* Whether an object loaded now needs an OpenMP runtime: false in a shell,
 * `time` or script interpreter that `muster run` or LD_PRELOAD made load
 * us on the way to the program. */
static bool process_uses_openmp(void)
{
    bool found = false;
    dl_iterate_phdr(object_needs_openmp, &found);
    return found;
}

/* At load, as libgomp does: read the environment (OMP_DISPLAY_ENV prints
 * now) -- in a process that uses OpenMP.  Any other process that loads us
 * stays silent: under `muster run -- sh -c 'exec prog'` the shell would
 * print the display and every warning about the environment a second
 * time; should it later dlopen() OpenMP code, the first OpenMP call reads
 * (and prints) then.  The initial thread is bound later, when binding is on: at its
 * first parallel region of two or more threads, or the first query of its
 * place (OpenMP binds it "prior to the first active parallel region").
 * libgomp binds it here, at load; but under LD_PRELOAD every process
 * loads us, also a shell or `time` that only starts the program, and a
 * mask narrowed here would pass to the program, which then ran on one
 * CPU. */
__attribute__((constructor)) static void at_load(void)
{
    undo_libgomp_binding();
    if (process_uses_openmp())
        muster_omp_globals_get();
}

static void at_exit(void)
{
    muster_omp_pool_exit(muster_omp_self());
}

static void in_forked_child(void)
{
    muster_omp_pool_forget(muster_omp_self());
}

static void register_process_hooks(void)
{
    atexit(at_exit);
    pthread_atfork(NULL, NULL, in_forked_child);
}

/* ---- forming a team ---- */

/* A team is at most a barrier's MUSTER_MAX_PARTICIPANTS: asked for more
 * (num_threads(10000), a conformance suite's case), the program is told
 * once and gets that many. */
static unsigned capped_team(unsigned asked)
{
    static atomic_bool told;
    if (muster_omp_warnings_wanted() &&
        !atomic_exchange_explicit(&told, true, memory_order_relaxed)) /* relaxed: a flag read by itself only */
        fprintf(stderr, "libmuster-omp: a team of %u threads was asked for; a team has at most %u, so it has %u\n",
                asked, MUSTER_MAX_PARTICIPANTS, MUSTER_MAX_PARTICIPANTS);
    return MUSTER_MAX_PARTICIPANTS;
}

static unsigned team_size(const muster_omp_thread *self, unsigned requested)
{
    const muster_omp_icvs *icvs = &self->icvs;
    unsigned active = self->team ? self->team->active_level : 0;
    if (active >= icvs->max_active_levels)
        return 1;
    unsigned size = requested ? requested : icvs->nthreads;
    if (icvs->dynamic) {
        unsigned cpus = muster_omp_globals_get()->available_cpus;
        if (size > cpus)
            size = cpus;
    }
    if (icvs->thread_limit != 0 && size > icvs->thread_limit)
        size = icvs->thread_limit;
    if (size > MUSTER_MAX_PARTICIPANTS)
        size = capped_team(size);
    return size ? size : 1;
}

/* The proc_bind clause (0: none) overrides bind-var, unless binding is off. */
static unsigned team_bind(const muster_omp_thread *self, unsigned clause)
{
    if (self->icvs.bind == MUSTER_OMP_BIND_FALSE)
        return MUSTER_OMP_BIND_FALSE;
    return clause != 0 ? clause : self->icvs.bind;
}

/* Unbound teams (the default) keep their places array untouched.  A bound
 * team tells its scheduler how many CPUs its places hold: members that
 * share one are spare (muster_omp_tasks_set_cpus). */
static void set_places(const muster_omp_thread *self, muster_omp_team *team)
{
    if (team->bind == MUSTER_OMP_BIND_FALSE) {
        for (unsigned i = team->unbound_places; i < team->size; i++)
            team->places[i] = (muster_omp_place_state){.place = -1};
        if (team->unbound_places < team->size)
            team->unbound_places = team->size;
        muster_omp_tasks_set_cpus(team->tasks, 0);
        return;
    }
    muster_omp_team_places(self, team->size, team->bind, team->places);
    team->unbound_places = 0;
    muster_omp_tasks_set_cpus(team->tasks,
                              muster_omp_bound_cpus(muster_omp_places_get(), team->places, team->size));
}

static void begin_region(muster_omp_thread *self, region *r, void (*fn)(void *), void *data, unsigned num_threads,
                         unsigned proc_bind)
{
    static pthread_once_t hooks = PTHREAD_ONCE_INIT;
    pthread_once(&hooks, register_process_hooks);
    unsigned size = team_size(self, num_threads);
    unsigned active_level = (self->team ? self->team->active_level : 0) + 1;
    muster_omp_team *team = size > 1 ? muster_omp_pool_team(self, active_level, size) : NULL;
    if (team == NULL) {
        memset(&r->solo, 0, sizeof r->solo);
        team = &r->solo;
        team->size = 1;
    }
    muster_omp_team *outer = self->team;
    MUSTER_OMP_SET(team->level, (outer ? outer->level : 0) + 1);
    MUSTER_OMP_SET(team->active_level, (outer ? outer->active_level : 0) + (team->size > 1));
    MUSTER_OMP_SET(team->parent, outer);
    MUSTER_OMP_SET(team->parent_id, self->id);
    MUSTER_OMP_SET(team->fn, fn);
    MUSTER_OMP_SET(team->data, data);
    muster_omp_icvs icvs = self->icvs;
    muster_omp_icvs_advance(&icvs);
    if (memcmp(&team->icvs, &icvs, sizeof icvs) != 0)
        team->icvs = icvs;
    MUSTER_OMP_SET(team->bind, team_bind(self, proc_bind));
    MUSTER_OMP_SET(team->league_size, muster_omp_league_size());
    MUSTER_OMP_SET(team->league_rank, muster_omp_league_rank());
    if (team->places != NULL)
        set_places(self, team);
    r->team = team;
    r->outer_team = outer;
    r->outer_id = self->id;
    r->outer_icvs = self->icvs;
    r->outer_ws_private = self->ws_private;
    r->outer_ws_sequence = self->ws_sequence;
    r->outer_barriers_passed = self->barriers_passed;
    r->outer_region = self->region;
    self->region = r;
    if (muster_ompt_on()) /* end_region_for_tool puts back what it keeps */
        muster_ompt_parallel_begin(&r->outer_ompt, &team->ompt_parallel,
                                   num_threads != 0 ? num_threads : self->icvs.nthreads);
}

/* body_frame: the CFA of the function that will call the body (NULL:
 * the program calls it), for a tool. */
static void start_members(muster_omp_thread *self, region *r, muster_omp_setup_fn setup, void *setup_arg,
                          void *body_frame)
{
    if (setup != NULL)
        setup(r->team, setup_arg);
    if (r->team->size > 1)
        muster_omp_pool_fork(r->team);
    /* The forking thread is member 0; it runs the body itself. */
    muster_omp_become_member(self, r->team, 0, body_frame);
}

/* The region's end: the implicit barrier (the tasks drained, the join). */
static inline void join_region(muster_omp_thread *self, region *r)
{
    muster_omp_tasks_drain(self);
    muster_omp_tasks_settle_events(r->team);
    if (r->team->size > 1)
        muster_omp_pool_join(r->team);
    else
        muster_omp_tasks_end_solo(r->team);
    if (muster_omp_cancellation)
        muster_omp_cancel_region_end(r->team);
}

/* Then the forking thread is itself again. */
static inline void leave_region(muster_omp_thread *self, region *r)
{
    self->team = r->outer_team;
    self->id = r->outer_id;
    self->icvs = r->outer_icvs;
    self->ws_private = r->outer_ws_private;
    self->ws_sequence = r->outer_ws_sequence;
    self->barriers_passed = r->outer_barriers_passed;
    self->region = r->outer_region;
}

/* end_region as a tool sees it: the implicit barrier as a sync region
 * (with its wait), member 0's implicit task ending after it, then the
 * region's end on the encountering task.  Out of line: without a tool the
 * region's end pays one branch. */
static __attribute__((noinline)) void end_region_for_tool(muster_omp_thread *self, region *r)
{
    muster_omp_team *team = r->team;
    muster_ompt_work_close_single();
    muster_ompt_body_returned(__builtin_dwarf_cfa());
    muster_ompt_sync_region(MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL, MUSTER_OMPT_SCOPE_BEGIN,
                            &team->ompt_parallel, muster_omp_implicit_task_data(self), NULL);
    join_region(self, r);
    muster_ompt_sync_region(MUSTER_OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL, MUSTER_OMPT_SCOPE_END, NULL,
                            muster_omp_implicit_task_data(self), NULL);
    muster_ompt_implicit_task(MUSTER_OMPT_SCOPE_END, NULL, muster_omp_implicit_task_data(self), team->size, 0,
                              MUSTER_OMPT_TASK_IMPLICIT, NULL);
    leave_region(self, r);
    muster_ompt_parallel_end(&r->outer_ompt, &team->ompt_parallel);
}

static void end_region(muster_omp_thread *self, region *r)
{
    if (muster_ompt_on()) {
        end_region_for_tool(self, r);
        return;
    }
    join_region(self, r);
    leave_region(self, r);
}

void muster_omp_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned proc_bind,
                         muster_omp_setup_fn setup, void *setup_arg)
{
    muster_omp_thread *self = muster_omp_self();
    region r;
    begin_region(self, &r, fn, data, num_threads, proc_bind);
    start_members(self, &r, setup, setup_arg, __builtin_dwarf_cfa());
    fn(data);
    end_region(self, &r);
}

void muster_omp_parallel_start(void (*fn)(void *), void *data, unsigned num_threads, unsigned proc_bind,
                               muster_omp_setup_fn setup, void *setup_arg)
{
    muster_omp_thread *self = muster_omp_self();
    region *r = malloc(sizeof *r);
    if (r == NULL) {
        muster_omp_fatal("out of memory starting a parallel region");
    }
    begin_region(self, r, fn, data, num_threads, proc_bind);
    start_members(self, r, setup, setup_arg, NULL);
}

void muster_omp_parallel_end(void)
{
    muster_omp_thread *self = muster_omp_self();
    region *r = self->region;
    if (r == NULL) {
        muster_omp_fatal("GOMP_parallel_end without GOMP_parallel_start");
    }
    end_region(self, r);
    free(r);
}

/* ---- team queries ---- */

MUSTER_OMP_EXPORT int omp_get_thread_num(void)
{
    return (int)muster_omp_self()->id;
}

MUSTER_OMP_EXPORT int omp_get_num_threads(void)
{
    muster_omp_team *team = muster_omp_self()->team;
    return team ? (int)team->size : 1;
}

MUSTER_OMP_EXPORT int omp_in_parallel(void)
{
    muster_omp_team *team = muster_omp_self()->team;
    return team != NULL && team->active_level > 0;
}

MUSTER_OMP_EXPORT int omp_get_level(void)
{
    muster_omp_team *team = muster_omp_self()->team;
    return team ? (int)team->level : 0;
}

MUSTER_OMP_EXPORT int omp_get_active_level(void)
{
    muster_omp_team *team = muster_omp_self()->team;
    return team ? (int)team->active_level : 0;
}

/* The team at nesting level `level` (0: none, the initial task) and the
 * number of the calling thread's ancestor in it.  False when level is not
 * between 0 and the current level. */
static bool team_at_level(int level, muster_omp_team **team, unsigned *id)
{
    muster_omp_thread *self = muster_omp_self();
    muster_omp_team *t = self->team;
    unsigned current = t ? t->level : 0, my_id = self->id;
    if (level < 0 || (unsigned)level > current)
        return false;
    while (t != NULL && t->level > (unsigned)level) {
        my_id = t->parent_id;
        t = t->parent;
    }
    *team = t;
    *id = t ? my_id : 0;
    return true;
}

MUSTER_OMP_EXPORT int omp_get_ancestor_thread_num(int level)
{
    muster_omp_team *team;
    unsigned id;
    return team_at_level(level, &team, &id) ? (int)id : -1;
}

MUSTER_OMP_EXPORT int omp_get_team_size(int level)
{
    muster_omp_team *team;
    unsigned id;
    if (!team_at_level(level, &team, &id))
        return -1;
    return team ? (int)team->size : 1;
}
