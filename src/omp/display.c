/* What the runtime prints about itself: the OMP_DISPLAY_ENV block
 * (omp_display_env, and at start-up), and the affinity format
 * (omp_set/get_affinity_format, omp_capture_affinity, omp_display_affinity,
 * OMP_DISPLAY_AFFINITY).  Above env.c, places.c and api.c, which it reads
 * and which never call it (env.c's start-up display is installed here,
 * muster_omp_env_set_display). */
#include <omp.h> /* gcc's: our definitions must match its prototypes exactly */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "barrier/runtime.h" /* muster_algorithm_name */
#include "omp/display.h"
#include "omp/env.h"
#include "omp/internal.h"
#include "platform/affinity.h"
#include "platform/platform.h"

/* ---- OMP_DISPLAY_ENV (OpenMP 5.1 §6.12) ---- */

static const char *bind_display_name(unsigned bind)
{
    switch (bind) {
    case MUSTER_OMP_BIND_TRUE: return "TRUE";
    case MUSTER_OMP_BIND_PRIMARY: return "MASTER"; /* gcc 12 prints MASTER */
    case MUSTER_OMP_BIND_CLOSE: return "CLOSE";
    case MUSTER_OMP_BIND_SPREAD: return "SPREAD";
    default: return "FALSE";
    }
}

static void display_schedule(FILE *out, unsigned sched, long chunk)
{
    unsigned kind = sched & ~MUSTER_OMP_SCHED_MONOTONIC;
    bool monotonic = (sched & MUSTER_OMP_SCHED_MONOTONIC) != 0;
    fputs("  OMP_SCHEDULE = '", out);
    /* libgomp's spelling: the modifier only where it differs from the kind's default. */
    if (monotonic && kind != MUSTER_OMP_SCHED_STATIC)
        fputs("MONOTONIC:", out);
    else if (!monotonic && kind == MUSTER_OMP_SCHED_STATIC)
        fputs("NONMONOTONIC:", out);
    static const char *const names[] = {"STATIC", "DYNAMIC", "GUIDED", "AUTO"};
    fputs(kind >= 1 && kind <= 4 ? names[kind - 1] : "STATIC", out);
    long default_chunk = kind == MUSTER_OMP_SCHED_STATIC ? 0 : 1;
    if (kind != MUSTER_OMP_SCHED_AUTO && chunk != default_chunk)
        fprintf(out, ",%ld", chunk);
    fputs("'\n", out);
}

static void display_lists(FILE *out, const muster_omp_icvs *icvs)
{
    fprintf(out, "  OMP_NUM_THREADS = '%u", icvs->nthreads);
    for (unsigned i = 0; i < MUSTER_OMP_MAX_LEVELS && icvs->nthreads_next[i] != 0; i++)
        fprintf(out, ",%u", icvs->nthreads_next[i]);
    fputs("'\n", out);
    display_schedule(out, icvs->run_sched, icvs->run_sched_chunk);
    fprintf(out, "  OMP_PROC_BIND = '%s", bind_display_name(icvs->bind));
    for (unsigned i = 0; i < MUSTER_OMP_MAX_LEVELS && icvs->bind_next[i] != MUSTER_OMP_BIND_FALSE; i++)
        fprintf(out, ",%s", bind_display_name(icvs->bind_next[i]));
    fputs("'\n", out);
    const muster_omp_places *places = muster_omp_places_peek();
    size_t need = muster_omp_places_format(places, NULL, 0) + 1;
    char *text = malloc(need);
    if (text != NULL) {
        muster_omp_places_format(places, text, need);
        fprintf(out, "  OMP_PLACES = '%s'\n", text);
        free(text);
    }
}

static void display_muster(FILE *out, const muster_omp_globals *globals, bool verbose)
{
    const muster_wait_settings *wait = muster_wait_settings_get();
    muster_wait_policy policy = wait->policy == MUSTER_WAIT_DEFAULT ? MUSTER_WAIT_HYBRID : wait->policy;
    fputs("  MUSTER_RUNTIME = 'libmuster-omp'\n", out);
    fprintf(out, "  MUSTER_BARRIER = '%s'\n", muster_algorithm_name(globals->algorithm));
    fprintf(out, "  MUSTER_WAIT_POLICY = '%s'\n", muster_wait_policy_name(policy));
    if (!verbose)
        return;
    if (wait->has_spin_ns)
        fprintf(out, "  MUSTER_SPIN_NS = '%lld'\n", (long long)wait->spin_ns);
    else
        fputs("  MUSTER_SPIN_NS = 'default'\n", out);
    fprintf(out, "  MUSTER_CPUS_AVAILABLE = '%u'\n", globals->available_cpus);
}

void muster_omp_display_env_to(FILE *out, const muster_omp_icvs *icvs, const muster_omp_globals *globals,
                               const muster_omp_env_extras *extras, bool verbose)
{
    flockfile(out);
    fputs("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n", out);
    fputs("  _OPENMP = '201511'\n", out);
    fprintf(out, "  OMP_DYNAMIC = '%s'\n", icvs->dynamic ? "TRUE" : "FALSE");
    fprintf(out, "  OMP_NESTED = '%s'\n", icvs->max_active_levels > 1 ? "TRUE" : "FALSE");
    display_lists(out, icvs);
    fprintf(out, "  OMP_STACKSIZE = '%zu'\n", globals->stacksize);
    fprintf(out, "  OMP_WAIT_POLICY = '%s'\n",
            muster_wait_settings_get()->policy == MUSTER_WAIT_ACTIVE ? "ACTIVE" : "PASSIVE");
    fprintf(out, "  OMP_THREAD_LIMIT = '%u'\n", icvs->thread_limit);
    fprintf(out, "  OMP_MAX_ACTIVE_LEVELS = '%u'\n", icvs->max_active_levels);
    fprintf(out, "  OMP_NUM_TEAMS = '%u'\n", extras->num_teams);
    fprintf(out, "  OMP_TEAMS_THREAD_LIMIT = '%u'\n", extras->teams_thread_limit);
    fprintf(out, "  OMP_CANCELLATION = '%s'\n", muster_omp_cancellation ? "TRUE" : "FALSE");
    fprintf(out, "  OMP_DEFAULT_DEVICE = '%d'\n", icvs->default_device);
    fprintf(out, "  OMP_MAX_TASK_PRIORITY = '%u'\n", extras->max_task_priority);
    fprintf(out, "  OMP_DISPLAY_AFFINITY = '%s'\n", extras->display_affinity ? "TRUE" : "FALSE");
    char format[512];
    muster_omp_affinity_format_current(format, sizeof format, extras->affinity_format);
    fprintf(out, "  OMP_AFFINITY_FORMAT = '%s'\n", format);
    fputs("  OMP_ALLOCATOR = 'omp_default_mem_alloc'\n", out);
    fputs("  OMP_TARGET_OFFLOAD = 'DEFAULT'\n", out);
    display_muster(out, globals, verbose);
    fputs("OPENMP DISPLAY ENVIRONMENT END\n", out);
    funlockfile(out);
}

MUSTER_OMP_EXPORT void omp_display_env(int verbose)
{
    const muster_omp_globals *globals = muster_omp_globals_get();
    muster_omp_display_env_to(stderr, &muster_omp_self()->icvs, globals, muster_omp_env_extras_get(), verbose != 0);
}

/* The block at start-up, when OMP_DISPLAY_ENV asks for it: env.c calls
 * this once the environment is read, inside its initialisation (so it gets
 * what it shows as arguments, not through muster_omp_globals_get()). */
static void display_at_start(const muster_omp_globals *globals, const muster_omp_env_extras *extras)
{
    if (globals->display_env)
        muster_omp_display_env_to(stderr, &globals->icvs, globals, extras, globals->display_env_verbose);
}

/* Before any default-priority constructor (parallel.c reads the environment
 * in one), so the start-up block is never missed. */
__attribute__((constructor(101))) static void install_display(void)
{
    muster_omp_env_set_display(display_at_start);
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
    int *cpus;
    unsigned count;
    out[0] = '\0';
    if (muster_thread_cpus(&cpus, &count) != 0)
        return;
    muster_format_cpu_list(out, size, cpus, count);
    free(cpus);
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
    case 'i': snprintf(value, size, "%ld", muster_thread_os_id()); return true;
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

/* Set once (read-mostly: a fork loads it before it would store). */
static _Atomic bool display_on_stdout;

void muster_omp_display_as_libomp(void)
{
    /* relaxed (both): a choice of stream, ordering nothing. */
    if (!atomic_load_explicit(&display_on_stdout, memory_order_relaxed))
        atomic_store_explicit(&display_on_stdout, true, memory_order_relaxed);
}

/* gcc's name (OMP_5.0), as libgomp: stderr.  LLVM's (VERSION) is kmp/api.c's. */
MUSTER_OMP_EXPORT void omp_display_affinity(const char *format)
{
    muster_omp_display_affinity_to(stderr, format);
}

void muster_omp_display_affinity_to(FILE *out, const char *format)
{
    char line[1024];
    size_t n = muster_omp_capture_affinity(line, sizeof line, format);
    char *text = line;
    if (n >= sizeof line && (text = malloc(n + 1)) != NULL)
        muster_omp_capture_affinity(text, n + 1, format);
    if (text == NULL)
        text = line; /* out of memory: the truncated line */
    fprintf(out, "%s\n", text);
    fflush(out);
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
    /* relaxed: as in muster_omp_display_as_libomp. */
    muster_omp_display_affinity_to(atomic_load_explicit(&display_on_stdout, memory_order_relaxed) ? stdout : stderr,
                                   NULL);
}
