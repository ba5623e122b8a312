/* libomp's own API, which clang- and Intel-compiled programs call: the
 * kmp_* routines of LLVM's omp.h and their kmpc_* twins.  Each maps onto a
 * setting muster already has:
 *   - blocktime (how long a thread spins before it sleeps, milliseconds)
 *     onto the wait layer's program request (wait/wait.h): it replaces
 *     the default spin budget where the team fits the CPUs;
 *   - library modes: throughput is muster's default (spin, then sleep),
 *     turnaround spins as long as it waits (the longest request), serial
 *     also sets nthreads-var to 1, as libomp runs regions serially then;
 *   - stack size onto the worker stack size (OMP_STACKSIZE), for workers
 *     started afterwards;
 *   - affinity masks are CPU sets: a thread is bound to one with
 *     platform/affinity.h's muster_thread_mask_set, as libomp binds it;
 *   - kmp_malloc and the rest are the C library's;
 *   - warnings on and off switch the runtime's warnings.
 * C names take their arguments by value; the Fortran names (fortran/kmp.c)
 * by reference.  All are at LLVM's node VERSION (libmuster-omp.map). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "omp/display.h"
#include "omp/env.h"
#include "omp/internal.h"
#include "omp/kmp/kmp_api.h"
#include "platform/affinity.h"
#include "platform/cpus.h"
#include "wait/policy.h"

/* libomp's library modes (kmp_get_library). */
enum { KMP_LIBRARY_SERIAL = 1, KMP_LIBRARY_TURNAROUND = 2, KMP_LIBRARY_THROUGHPUT = 3 };
/* libomp's "infinite" blocktime, milliseconds. */
#define KMP_MAX_BLOCKTIME INT_MAX
/* libomp's cancellation kinds (kmp_get_cancellation_status). */
enum { KMP_CANCEL_PARALLEL = 1, KMP_CANCEL_LOOP = 2, KMP_CANCEL_SECTIONS = 3, KMP_CANCEL_TASKGROUP = 4 };

/* Set by kmp_set_library; 0: none, KMP_LIBRARY's (env.c) or throughput. */
static _Atomic int library_mode;

/* ---- stack size ---- */

MUSTER_OMP_EXPORT void kmp_set_stacksize_s(size_t size)
{
    muster_omp_set_worker_stacksize(size);
}

MUSTER_OMP_EXPORT void kmp_set_stacksize(int size)
{
    if (size <= 0) {
        fprintf(stderr, "libmuster-omp: kmp_set_stacksize(%d): not a size in bytes; the stack size is unchanged\n",
                size);
        return;
    }
    kmp_set_stacksize_s((size_t)size);
}

/* The stack a worker started now gets: the set size, else the system's. */
MUSTER_OMP_EXPORT size_t kmp_get_stacksize_s(void)
{
    size_t size = muster_omp_worker_stacksize();
    if (size != 0)
        return size;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return 0;
    pthread_attr_getstacksize(&attr, &size);
    pthread_attr_destroy(&attr);
    return size;
}

MUSTER_OMP_EXPORT int kmp_get_stacksize(void)
{
    size_t size = kmp_get_stacksize_s();
    return size > (size_t)INT_MAX ? INT_MAX : (int)size;
}

/* ---- blocktime and library modes ---- */

MUSTER_OMP_EXPORT void kmp_set_blocktime(int ms)
{
    if (ms < 0) {
        fprintf(stderr, "libmuster-omp: kmp_set_blocktime(%d): not a number of milliseconds; using 0\n", ms);
        ms = 0;
    }
    muster_wait_request_spin_ns(muster_omp_kmp_blocktime_spin_ns(ms)); /* KMP_MAX_BLOCKTIME is INT_MAX */
}

/* The request in force, else the default budget, in whole milliseconds
 * rounded up (muster's default spin is 0.2 ms: 1). */
MUSTER_OMP_EXPORT int kmp_get_blocktime(void)
{
    int64_t ns = muster_wait_requested_spin_ns();
    if (ns < 0) {
        const muster_wait_settings *s = muster_wait_settings_get();
        ns = s->has_spin_ns ? s->spin_ns : MUSTER_SPIN_NS_DEFAULT;
    }
    if (ns >= MUSTER_MAX_SPIN_NS)
        return KMP_MAX_BLOCKTIME;
    return (int)((ns + 999999) / 1000000);
}

MUSTER_OMP_EXPORT void kmp_set_library(int mode)
{
    switch (mode) {
    case KMP_LIBRARY_SERIAL:
        omp_set_num_threads(1);
        muster_wait_request_spin_ns(-1);
        break;
    case KMP_LIBRARY_TURNAROUND:
        muster_wait_request_spin_ns(MUSTER_MAX_SPIN_NS);
        break;
    case KMP_LIBRARY_THROUGHPUT:
        muster_wait_request_spin_ns(-1);
        break;
    default:
        fprintf(stderr,
                "libmuster-omp: kmp_set_library(%d): not 1 (serial), 2 (turnaround) or 3 (throughput); "
                "the library mode is unchanged\n",
                mode);
        return;
    }
    library_mode = mode;
}

MUSTER_OMP_EXPORT void kmp_set_library_serial(void)
{
    kmp_set_library(KMP_LIBRARY_SERIAL);
}

MUSTER_OMP_EXPORT void kmp_set_library_turnaround(void)
{
    kmp_set_library(KMP_LIBRARY_TURNAROUND);
}

MUSTER_OMP_EXPORT void kmp_set_library_throughput(void)
{
    kmp_set_library(KMP_LIBRARY_THROUGHPUT);
}

MUSTER_OMP_EXPORT int kmp_get_library(void)
{
    int mode = library_mode;
    unsigned from_env = muster_omp_env_extras_get()->kmp_library;
    return mode != 0 ? mode : from_env != 0 ? (int)from_env : KMP_LIBRARY_THROUGHPUT;
}

/* libomp's dispatch buffers per team: muster's work shares are its own
 * (workshare.c), so a valid count is taken and changes nothing. */
MUSTER_OMP_EXPORT void kmp_set_disp_num_buffers(int buffers)
{
    if (buffers <= 0)
        fprintf(stderr, "libmuster-omp: kmp_set_disp_num_buffers(%d): not a positive count; ignored\n", buffers);
}

/* ---- kmp_set_defaults: "NAME=VALUE|NAME=VALUE", as libomp reads it ---- */

static bool parse_int(const char *value, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || n < 0 || n > INT_MAX)
        return false;
    *out = (int)n;
    return true;
}

static void bad_default(const char *name, const char *value, const char *want)
{
    fprintf(stderr, "libmuster-omp: kmp_set_defaults: %s='%s' is not %s; %s is unchanged\n", name, value, want, name);
}

/* One NAME=VALUE: the settings that can change while the program runs. */
static void apply_default(const char *name, const char *value)
{
    int n;
    size_t size;
    bool truth;
    if (strcasecmp(name, "KMP_BLOCKTIME") == 0) {
        if (muster_omp_parse_kmp_blocktime(value, &n))
            kmp_set_blocktime(n);
        else
            bad_default(name, value, "a number of milliseconds or 'infinite'");
    } else if (strcasecmp(name, "KMP_LIBRARY") == 0) {
        unsigned mode = muster_omp_parse_kmp_library(value);
        if (mode != 0)
            kmp_set_library((int)mode);
        else
            bad_default(name, value, "serial, turnaround or throughput");
    } else if (strcasecmp(name, "KMP_STACKSIZE") == 0 || strcasecmp(name, "OMP_STACKSIZE") == 0) {
        if (muster_omp_parse_size(value, &size))
            kmp_set_stacksize_s(size);
        else
            bad_default(name, value, "a size (a number with an optional B, K, M or G)");
    } else if (strcasecmp(name, "OMP_NUM_THREADS") == 0) {
        if (parse_int(value, &n) && n > 0)
            omp_set_num_threads(n);
        else
            bad_default(name, value, "a positive number");
    } else if (strcasecmp(name, "OMP_DYNAMIC") == 0) {
        if (muster_omp_parse_truth(value, &truth))
            omp_set_dynamic(truth);
        else
            bad_default(name, value, "true or false");
    } else if (strcasecmp(name, "OMP_MAX_ACTIVE_LEVELS") == 0) {
        if (parse_int(value, &n))
            omp_set_max_active_levels(n);
        else
            bad_default(name, value, "a number");
    } else if (strcasecmp(name, "KMP_WARNINGS") == 0) {
        if (muster_omp_parse_truth(value, &truth))
            muster_omp_set_warnings(truth);
        else
            bad_default(name, value, "true or false");
    } else {
        fprintf(stderr,
                "libmuster-omp: kmp_set_defaults: %s is not a setting muster changes while the program runs "
                "(it takes KMP_BLOCKTIME, KMP_LIBRARY, KMP_STACKSIZE, OMP_STACKSIZE, OMP_NUM_THREADS, "
                "OMP_DYNAMIC, OMP_MAX_ACTIVE_LEVELS and KMP_WARNINGS); ignored\n",
                name);
    }
}

/* Spaces around names and values are allowed, as in the environment. */
static char *trimmed(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

MUSTER_OMP_EXPORT void kmp_set_defaults(const char *settings)
{
    if (settings == NULL)
        return;
    char *copy = strdup(settings);
    if (copy == NULL)
        return;
    char *saved = NULL;
    for (char *item = strtok_r(copy, "|", &saved); item != NULL; item = strtok_r(NULL, "|", &saved)) {
        char *eq = strchr(item, '=');
        if (eq == NULL) {
            if (*trimmed(item) != '\0')
                fprintf(stderr, "libmuster-omp: kmp_set_defaults: '%s' is not NAME=VALUE; ignored\n", trimmed(item));
            continue;
        }
        *eq = '\0';
        apply_default(trimmed(item), trimmed(eq + 1));
    }
    free(copy);
}

/* ---- affinity masks: CPU sets ---- */

static cpu_set_t *mask_of(void **mask, const char *routine)
{
    if (mask == NULL || *mask == NULL)
        muster_omp_fatal("%s: the affinity mask was not made by kmp_create_affinity_mask", routine);
    return *mask;
}

/* The CPUs of the process's mask as it was at load: the CPUs a mask may
 * name (libomp's full mask). */
static bool in_process_mask(int proc)
{
    int cpus[CPU_SETSIZE];
    unsigned n = muster_affinity_cpus(cpus, CPU_SETSIZE);
    for (unsigned i = 0; i < n && i < CPU_SETSIZE; i++)
        if (cpus[i] == proc)
            return true;
    return false;
}

MUSTER_OMP_EXPORT int kmp_get_affinity_max_proc(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    return n < 1 ? 1 : n > CPU_SETSIZE ? CPU_SETSIZE : (int)n;
}

MUSTER_OMP_EXPORT void kmp_create_affinity_mask(void **mask)
{
    cpu_set_t *set = malloc(sizeof *set);
    if (set == NULL)
        muster_omp_fatal("out of memory for an affinity mask");
    CPU_ZERO(set);
    *mask = set;
}

MUSTER_OMP_EXPORT void kmp_destroy_affinity_mask(void **mask)
{
    free(mask_of(mask, "kmp_destroy_affinity_mask"));
    *mask = NULL;
}

/* 0, or -1 for a CPU number out of range, -2 for one outside the process's
 * mask, as libomp answers. */
static int check_proc(int proc)
{
    if (proc < 0 || proc >= kmp_get_affinity_max_proc())
        return -1;
    return in_process_mask(proc) ? 0 : -2;
}

MUSTER_OMP_EXPORT int kmp_set_affinity_mask_proc(int proc, void **mask)
{
    cpu_set_t *set = mask_of(mask, "kmp_set_affinity_mask_proc");
    int rc = check_proc(proc);
    if (rc == 0)
        CPU_SET(proc, set);
    return rc;
}

MUSTER_OMP_EXPORT int kmp_unset_affinity_mask_proc(int proc, void **mask)
{
    cpu_set_t *set = mask_of(mask, "kmp_unset_affinity_mask_proc");
    int rc = check_proc(proc);
    if (rc == 0)
        CPU_CLR(proc, set);
    return rc;
}

/* 1 when proc is in the mask, 0 when not (or outside the process's
 * mask), -1 when out of range. */
MUSTER_OMP_EXPORT int kmp_get_affinity_mask_proc(int proc, void **mask)
{
    cpu_set_t *set = mask_of(mask, "kmp_get_affinity_mask_proc");
    int rc = check_proc(proc);
    if (rc == -1)
        return -1;
    return rc == 0 && CPU_ISSET(proc, set);
}

/* Binds the calling thread: 0, or an errno (an empty mask: EINVAL). */
MUSTER_OMP_EXPORT int kmp_set_affinity(void **mask)
{
    cpu_set_t *set = mask_of(mask, "kmp_set_affinity");
    return muster_thread_mask_set(set);
}

MUSTER_OMP_EXPORT int kmp_get_affinity(void **mask)
{
    cpu_set_t *set = mask_of(mask, "kmp_get_affinity");
    return muster_thread_mask_get(set);
}

/* The calling thread back on the process's whole mask. */
MUSTER_OMP_EXPORT int kmp_set_thread_affinity_mask_initial(void)
{
    int cpus[CPU_SETSIZE];
    unsigned n = muster_affinity_cpus(cpus, CPU_SETSIZE);
    if (n == 0)
        return -1;
    return muster_thread_bind(cpus, n < CPU_SETSIZE ? n : CPU_SETSIZE);
}

/* ---- memory ---- */

MUSTER_OMP_EXPORT void *kmp_malloc(size_t size)
{
    return malloc(size);
}

/* Any alignment: a power of two of at least a pointer's size is asked of
 * the C library; others are rounded up to one. */
MUSTER_OMP_EXPORT void *kmp_aligned_malloc(size_t size, size_t alignment)
{
    size_t align = sizeof(void *);
    while (align < alignment && align < ((size_t)1 << 30))
        align <<= 1;
    void *p = NULL;
    return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

MUSTER_OMP_EXPORT void *kmp_calloc(size_t count, size_t size)
{
    return calloc(count, size);
}

MUSTER_OMP_EXPORT void *kmp_realloc(void *p, size_t size)
{
    return realloc(p, size);
}

MUSTER_OMP_EXPORT void kmp_free(void *p)
{
    free(p);
}

/* ---- the rest ---- */

MUSTER_OMP_EXPORT void kmp_set_warnings_on(void)
{
    muster_omp_set_warnings(true);
}

MUSTER_OMP_EXPORT void kmp_set_warnings_off(void)
{
    muster_omp_set_warnings(false);
}

/* Whether cancellation of that kind is requested in the current region
 * or taskgroup (libomp's kinds). */
MUSTER_OMP_EXPORT int kmp_get_cancellation_status(int kind)
{
    static const int gomp_bits[] = {[KMP_CANCEL_PARALLEL] = 1, [KMP_CANCEL_LOOP] = 2, [KMP_CANCEL_SECTIONS] = 4,
                                    [KMP_CANCEL_TASKGROUP] = 8};
    if (kind < KMP_CANCEL_PARALLEL || kind > KMP_CANCEL_TASKGROUP)
        return 0;
    return muster_omp_cancellation_point(gomp_bits[kind]);
}

/* The runtime's threads now: the initial thread and the pools' workers. */
MUSTER_OMP_EXPORT int kmp_get_num_known_threads(void)
{
    return 1 + (int)muster_omp_pool_live_workers();
}

/* ---- affinity lines: on stdout, as libomp writes them (libgomp and gcc's
 * name: stderr) ---- */

__attribute__((symver("omp_display_affinity@VERSION"))) MUSTER_OMP_EXPORT void
muster_kmp_display_affinity(const char *format)
{
    muster_omp_display_affinity_to(stdout, format);
}

/* ---- ompc_*: by-value names of the OpenMP setters (LLVM's omp.h and
 * Intel's compilers) ---- */

MUSTER_OMP_EXPORT void ompc_set_num_threads(int n)
{
    omp_set_num_threads(n);
}

MUSTER_OMP_EXPORT void ompc_set_dynamic(int on)
{
    omp_set_dynamic(on);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* still called */
MUSTER_OMP_EXPORT void ompc_set_nested(int on)
{
    omp_set_nested(on);
}
#pragma GCC diagnostic pop

MUSTER_OMP_EXPORT void ompc_set_max_active_levels(int levels)
{
    omp_set_max_active_levels(levels);
}

MUSTER_OMP_EXPORT void ompc_set_schedule(omp_sched_t kind, int chunk)
{
    omp_set_schedule(kind, chunk);
}

MUSTER_OMP_EXPORT int ompc_get_ancestor_thread_num(int level)
{
    return omp_get_ancestor_thread_num(level);
}

MUSTER_OMP_EXPORT int ompc_get_team_size(int level)
{
    return omp_get_team_size(level);
}

/* ---- offload, pause and tools, as a runtime without devices or OMPT ---- */

/* OMP_TARGET_OFFLOAD as libomp reports it: 0 disabled, 1 default, 2
 * mandatory.  muster runs every target region on the host. */
MUSTER_OMP_EXPORT int __kmpc_get_target_offload(void)
{
    const char *v = getenv("OMP_TARGET_OFFLOAD");
    if (v == NULL)
        return 1;
    if (strcasecmp(v, "disabled") == 0)
        return 0;
    return strcasecmp(v, "mandatory") == 0 ? 2 : 1;
}

MUSTER_OMP_EXPORT int __kmpc_pause_resource(int kind)
{
    return omp_pause_resource_all((omp_pause_resource_t)kind);
}

/* No tool is attached (muster does not offer OMPT yet): OpenMP's
 * omp_control_tool_notool. */
MUSTER_OMP_EXPORT int omp_control_tool(int command, int modifier, void *arg)
{
    (void)command, (void)modifier, (void)arg;
    return -2;
}

MUSTER_OMP_EXPORT int omp_control_tool_(const int *command, const int *modifier, void *arg);
MUSTER_OMP_EXPORT int omp_control_tool_(const int *command, const int *modifier, void *arg)
{
    return omp_control_tool(*command, *modifier, arg);
}

/* ---- interop objects (OpenMP 5.1): muster makes none ----
 * Every interop a program holds is omp_interop_none, so there are no
 * properties to read: each query answers "empty" (omp_irc_empty) with no
 * value, and names the properties OpenMP defines. */

typedef void *omp_interop_t;
enum { OMP_IRC_EMPTY = -1, OMP_IPR_FIRST = -9, OMP_IPR_LAST = -1 };

static bool no_value(int *ret_code)
{
    if (ret_code != NULL)
        *ret_code = OMP_IRC_EMPTY;
    return false;
}

MUSTER_OMP_EXPORT int omp_get_num_interop_properties(const omp_interop_t interop)
{
    (void)interop;
    return 0;
}

MUSTER_OMP_EXPORT intptr_t omp_get_interop_int(const omp_interop_t interop, int property, int *ret_code)
{
    (void)interop, (void)property;
    return no_value(ret_code);
}

MUSTER_OMP_EXPORT void *omp_get_interop_ptr(const omp_interop_t interop, int property, int *ret_code)
{
    (void)interop, (void)property;
    no_value(ret_code);
    return NULL;
}

MUSTER_OMP_EXPORT const char *omp_get_interop_str(const omp_interop_t interop, int property, int *ret_code)
{
    (void)interop, (void)property;
    no_value(ret_code);
    return NULL;
}

/* OpenMP's properties, omp_ipr_fr_id (-1) down to omp_ipr_targetsync (-9). */
static const char *const property_names[] = {"fr_id",    "fr_name", "vendor",         "vendor_name", "device_num",
                                             "platform", "device",  "device_context", "targetsync"};
static const char *const property_types[] = {"intptr_t",    "const char *", "intptr_t", "const char *", "int",
                                             "void *",      "void *",       "void *",   "void *"};

MUSTER_OMP_EXPORT const char *omp_get_interop_name(const omp_interop_t interop, int property)
{
    (void)interop;
    return property >= OMP_IPR_FIRST && property <= OMP_IPR_LAST ? property_names[-property - 1] : NULL;
}

MUSTER_OMP_EXPORT const char *omp_get_interop_type_desc(const omp_interop_t interop, int property)
{
    (void)interop;
    return property >= OMP_IPR_FIRST && property <= OMP_IPR_LAST ? property_types[-property - 1] : NULL;
}

MUSTER_OMP_EXPORT const char *omp_get_interop_rc_desc(const omp_interop_t interop, int ret_code)
{
    (void)interop;
    switch (ret_code) {
    case 1: return "no value";
    case 0: return "success";
    case -1: return "empty: the interop object is omp_interop_none";
    case -2: return "the property is out of range";
    case -3: return "the property is not an integer";
    case -4: return "the property is not a pointer";
    case -5: return "the property is not a string";
    default: return "other error";
    }
}

/* ---- kmpc_*: the same, under the names Intel's compilers call ---- */

MUSTER_OMP_EXPORT void kmpc_set_stacksize(int size)
{
    kmp_set_stacksize(size);
}

MUSTER_OMP_EXPORT void kmpc_set_stacksize_s(size_t size)
{
    kmp_set_stacksize_s(size);
}

MUSTER_OMP_EXPORT void kmpc_set_blocktime(int ms)
{
    kmp_set_blocktime(ms);
}

MUSTER_OMP_EXPORT void kmpc_set_library(int mode)
{
    kmp_set_library(mode);
}

MUSTER_OMP_EXPORT void kmpc_set_defaults(const char *settings)
{
    kmp_set_defaults(settings);
}

MUSTER_OMP_EXPORT void kmpc_set_disp_num_buffers(int buffers)
{
    kmp_set_disp_num_buffers(buffers);
}

MUSTER_OMP_EXPORT int kmpc_set_affinity_mask_proc(int proc, void **mask)
{
    return kmp_set_affinity_mask_proc(proc, mask);
}

MUSTER_OMP_EXPORT int kmpc_unset_affinity_mask_proc(int proc, void **mask)
{
    return kmp_unset_affinity_mask_proc(proc, mask);
}

MUSTER_OMP_EXPORT int kmpc_get_affinity_mask_proc(int proc, void **mask)
{
    return kmp_get_affinity_mask_proc(proc, mask);
}

MUSTER_OMP_EXPORT void *kmpc_malloc(size_t size)
{
    return kmp_malloc(size);
}

MUSTER_OMP_EXPORT void *kmpc_aligned_malloc(size_t size, size_t alignment)
{
    return kmp_aligned_malloc(size, alignment);
}

MUSTER_OMP_EXPORT void *kmpc_calloc(size_t count, size_t size)
{
    return kmp_calloc(count, size);
}

MUSTER_OMP_EXPORT void *kmpc_realloc(void *p, size_t size)
{
    return kmp_realloc(p, size);
}

MUSTER_OMP_EXPORT void kmpc_free(void *p)
{
    kmp_free(p);
}
