/* The omp_* functions that read or set ICVs; omp_get_wtime, omp_get_wtick;
 * places, devices, host teams, pause and the affinity format.
 *
 * Data-environment ICVs live in the calling thread's muster_omp_self()->icvs;
 * the device-wide ones (nteams-var, teams-thread-limit-var, the affinity
 * format) are process globals here.  Behaviour at the edges (negative
 * arguments, values past the supported range) follows gcc 12's libgomp. */
#include <limits.h>
#include <omp.h> /* gcc's: our definitions must match its prototypes exactly */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "omp/env.h"

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

MUSTER_OMP_EXPORT void omp_display_env(int verbose)
{
    muster_omp_globals_get();
    muster_omp_display_env_to(stderr, my_icvs(), verbose != 0);
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

/* ---- the affinity format (OpenMP 5.1 §3.13, §6.14) ---- */

static pthread_mutex_t format_lock = PTHREAD_MUTEX_INITIALIZER;
static char *format_set; /* omp_set_affinity_format's copy; NULL: the environment's */

size_t muster_omp_affinity_format_current(char *buf, size_t size, const char *env_format)
{
    pthread_mutex_lock(&format_lock);
    const char *format = format_set ? format_set : env_format;
    size_t length = strlen(format);
    if (buf != NULL && size > 0)
        snprintf(buf, size, "%s", format);
    pthread_mutex_unlock(&format_lock);
    return length;
}

MUSTER_OMP_EXPORT void omp_set_affinity_format(const char *format)
{
    char *copy = strdup(format ? format : "");
    if (copy == NULL)
        return; /* out of memory: the old format stays */
    pthread_mutex_lock(&format_lock);
    free(format_set);
    format_set = copy;
    pthread_mutex_unlock(&format_lock);
}

MUSTER_OMP_EXPORT size_t omp_get_affinity_format(char *buffer, size_t size)
{
    return muster_omp_affinity_format_current(buffer, size, muster_omp_env_extras_get()->affinity_format);
}

/* The calling thread's CPUs as a list with ranges: "0-3,8". */
static void format_own_cpus(char *out, size_t size)
{
    cpu_set_t mask;
    out[0] = '\0';
    if (sched_getaffinity(0, sizeof mask, &mask) != 0)
        return;
    size_t used = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &mask))
            continue;
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &mask))
            last++;
        int n = last > cpu ? snprintf(out + used, size - used, "%s%d-%d", used ? "," : "", cpu, last)
                           : snprintf(out + used, size - used, "%s%d", used ? "," : "", cpu);
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
        cpu = last;
    }
}

/* The value of one field type into value[]; false when the type is unknown. */
static bool field_value(char type, char *value, size_t size)
{
    muster_omp_thread *self = muster_omp_self();
    const muster_omp_team *team = self->team;
    switch (type) {
    case 't': snprintf(value, size, "%d", omp_get_team_num()); return true;
    case 'T': snprintf(value, size, "%d", omp_get_num_teams()); return true;
    case 'L': snprintf(value, size, "%u", team ? team->level : 0u); return true;
    case 'n': snprintf(value, size, "%u", team ? self->id : 0u); return true;
    case 'N': snprintf(value, size, "%u", team ? team->size : 1u); return true;
    case 'a': snprintf(value, size, "%d", team ? (int)team->parent_id : -1); return true;
    case 'H':
        if (gethostname(value, size) != 0)
            snprintf(value, size, "unknown");
        value[size - 1] = '\0';
        return true;
    case 'P': snprintf(value, size, "%ld", (long)getpid()); return true;
    case 'i': snprintf(value, size, "%ld", (long)syscall(SYS_gettid)); return true;
    case 'A': format_own_cpus(value, size); return true;
    default: return false;
    }
}

static const struct {
    const char *name;
    char type;
} long_names[] = {
    {"team_num", 't'},      {"num_teams", 'T'}, {"nesting_level", 'L'},    {"thread_num", 'n'},
    {"num_threads", 'N'},   {"ancestor_tnum", 'a'}, {"host", 'H'},         {"process_id", 'P'},
    {"native_thread_id", 'i'}, {"thread_affinity", 'A'},
};

/* Reads "{long_name}" at *p into *type; false when it is not one. */
static bool take_long_name(const char **p, char *type)
{
    const char *close = strchr(*p, '}');
    if (close == NULL)
        return false;
    size_t n = (size_t)(close - (*p + 1));
    for (size_t k = 0; k < sizeof long_names / sizeof long_names[0]; k++)
        if (strlen(long_names[k].name) == n && strncmp(*p + 1, long_names[k].name, n) == 0) {
            *type = long_names[k].type;
            *p = close + 1;
            return true;
        }
    return false;
}

typedef struct text_out {
    char *buf;
    size_t size, length; /* length: the full length, even past size */
} text_out;

static void put(text_out *out, const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++, out->length++)
        if (out->buf != NULL && out->length + 1 < out->size)
            out->buf[out->length] = text[i];
}

static void put_padded(text_out *out, const char *value, bool zeros, bool right, size_t width)
{
    size_t n = strlen(value), pad = width > n ? width - n : 0;
    if (right || zeros)
        for (size_t i = 0; i < pad; i++)
            put(out, zeros ? "0" : " ", 1);
    put(out, value, n);
    if (!right && !zeros)
        for (size_t i = 0; i < pad; i++)
            put(out, " ", 1);
}

/* One %-field starting at *p (just after the %). */
static void expand_field(text_out *out, const char **p)
{
    const char *start = *p - 1;
    if (**p == '%') {
        put(out, "%", 1);
        (*p)++;
        return;
    }
    bool zeros = false, right = false;
    if (**p == '0') {
        zeros = true;
        (*p)++;
    }
    if (**p == '.') {
        right = true;
        (*p)++;
    }
    size_t width = 0;
    while (**p >= '0' && **p <= '9' && width < 1000)
        width = width * 10 + (size_t)(*(*p)++ - '0');
    char type = **p, value[512];
    bool known;
    if (type == '{')
        known = take_long_name(p, &type) && field_value(type, value, sizeof value);
    else
        known = type != '\0' && field_value(type, value, sizeof value) && ((*p)++, true);
    if (!known) {
        /* An unknown field is copied as written rather than failing the program. */
        if (**p != '\0')
            (*p)++;
        put(out, start, (size_t)(*p - start));
        return;
    }
    put_padded(out, value, zeros, right, width);
}

size_t muster_omp_capture_affinity(char *buf, size_t size, const char *format)
{
    char *owned = NULL;
    if (format == NULL || format[0] == '\0') {
        size_t n = omp_get_affinity_format(NULL, 0);
        owned = malloc(n + 1);
        if (owned == NULL)
            return 0;
        omp_get_affinity_format(owned, n + 1);
        format = owned;
    }
    text_out out = {buf, size, 0};
    for (const char *p = format; *p != '\0';) {
        const char *percent = strchr(p, '%');
        size_t plain = percent ? (size_t)(percent - p) : strlen(p);
        put(&out, p, plain);
        p += plain;
        if (*p == '%') {
            p++;
            expand_field(&out, &p);
        }
    }
    if (buf != NULL && size > 0)
        buf[out.length < size ? out.length : size - 1] = '\0';
    free(owned);
    return out.length;
}

MUSTER_OMP_EXPORT size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
    return muster_omp_capture_affinity(buffer, size, format);
}

MUSTER_OMP_EXPORT void omp_display_affinity(const char *format)
{
    char line[1024];
    size_t n = muster_omp_capture_affinity(line, sizeof line, format);
    char *text = line;
    if (n >= sizeof line && (text = malloc(n + 1)) != NULL)
        muster_omp_capture_affinity(text, n + 1, format);
    if (text == NULL)
        text = line; /* out of memory: the truncated line */
    fprintf(stderr, "%s\n", text);
    if (text != line)
        free(text);
}

/* OMP_DISPLAY_AFFINITY: what the calling thread last displayed, so a line
 * is printed only when something the format can show has changed. */
static _Thread_local struct {
    bool shown;
    unsigned level, id, size;
    int place;
} last_shown;

void muster_omp_affinity_display_on_start(muster_omp_thread *self)
{
    if (!muster_omp_env_extras_get()->display_affinity)
        return;
    unsigned level = self->team ? self->team->level : 0, id = self->team ? self->id : 0;
    unsigned size = self->team ? self->team->size : 1;
    if (last_shown.shown && last_shown.level == level && last_shown.id == id && last_shown.size == size &&
        last_shown.place == self->place.place)
        return;
    last_shown.shown = true;
    last_shown.level = level;
    last_shown.id = id;
    last_shown.size = size;
    last_shown.place = self->place.place;
    omp_display_affinity(NULL);
}
