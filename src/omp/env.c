/* OMP_* and MUSTER_* environment variables -> the global ICVs.
 *
 * Everything is read once (pthread_once), on the first call of
 * muster_omp_globals_get(); safe from a library constructor, which is where
 * libgomp reads (and displays) its environment.  The
 * syntax is libgomp's (gcc 12): names are case-insensitive and spaces are
 * allowed around every token.  A malformed value gets exactly one warning
 * line naming the variable, the value, what is wrong and what is used
 * instead, and the default is used; nothing here aborts.
 *
 * MUSTER_BARRIER is libmuster's own, and MUSTER_WAIT_POLICY, MUSTER_SPIN_NS
 * and OMP_WAIT_POLICY belong to its wait policy module (wait/policy.c): each
 * is parsed (and warned about) once, there. */
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "barrier/runtime.h"
#include "omp/env.h"
#include "omp/warn.h"
#include "platform/cpus.h"
#include "omp/task/settings.h" /* MUSTER_OMP_DELAY_DEPTH, MUSTER_OMP_QUEUE_AHEAD */
#include "wait/wait.h"          /* muster_wait_request_spin_ns: KMP_BLOCKTIME */

#define DEFAULT_AFFINITY_FORMAT "level %L thread %i affinity %A"
#define MIN_STACKSIZE (16u * 1024u) /* glibc's PTHREAD_STACK_MIN on x86-64 and AArch64 */

static muster_omp_globals globals;
static muster_omp_env_extras extras;
bool muster_omp_cancellation; /* internal.h: OMP_CANCELLATION, for cancel.c and the task wing */
bool muster_omp_general_tasks; /* team.h */
static pthread_once_t globals_once = PTHREAD_ONCE_INIT;
static _Atomic(muster_omp_env_display_fn) display_hook; /* muster_omp_env_set_display */

/* ---- the tokenizer: a cursor over the value ---- */

static void skip_spaces(const char **p)
{
    while (isspace((unsigned char)**p))
        (*p)++;
}

/* Consumes `word` (case-insensitive) and the spaces after it. */
static bool take_word(const char **p, const char *word)
{
    size_t n = strlen(word);
    if (strncasecmp(*p, word, n) != 0)
        return false;
    *p += n;
    skip_spaces(p);
    return true;
}

static bool take_char(const char **p, char c)
{
    if (**p != c)
        return false;
    (*p)++;
    skip_spaces(p);
    return true;
}

/* Consumes a whole number in [0, max] written with digits only (no sign:
 * strtoul would accept "-1" as a huge value) and the spaces after it. */
static bool take_number(const char **p, unsigned long max, unsigned long *out)
{
    if (!isdigit((unsigned char)**p))
        return false;
    unsigned long value = 0;
    bool overflow = false;
    while (isdigit((unsigned char)**p)) {
        unsigned digit = (unsigned)(**p - '0');
        if (value > (ULONG_MAX - digit) / 10)
            overflow = true;
        else
            value = value * 10 + digit;
        (*p)++;
    }
    skip_spaces(p);
    if (overflow || value > max)
        return false;
    *out = value;
    return true;
}

/* The value of a variable with leading spaces skipped, or NULL when unset. */
static const char *value_start(const char *raw)
{
    if (raw == NULL)
        return NULL;
    skip_spaces(&raw);
    return raw;
}

/* ---- one reader per kind of variable ---- */

bool muster_omp_parse_truth(const char *text, bool *out)
{
    const char *p = value_start(text);
    if (p == NULL)
        return false;
    bool value = take_word(&p, "true") ? true : take_word(&p, "false") ? false : (p = "x", false);
    if (*p != '\0')
        return false;
    *out = value;
    return true;
}

/* A boolean (true / false).  Returns false (and warns) when set but malformed. */
static bool read_boolean(const char *variable, bool *out, bool *was_set)
{
    const char *raw = getenv(variable);
    if (was_set)
        *was_set = false;
    if (raw == NULL)
        return true;
    bool value;
    if (!muster_omp_parse_truth(raw, &value)) {
        muster_omp_warn_env(variable, raw, "is not true or false", *out ? "true" : "false");
        return false;
    }
    *out = value;
    if (was_set)
        *was_set = true;
    return true;
}

/* A whole number >= min.  Above max it is malformed, or, with clamp, max
 * (libgomp takes any size there and caps it); `instead` names the default
 * in the warning. */
static bool read_number(const char *variable, unsigned long min, unsigned long max, bool clamp,
                        unsigned long *out, const char *instead)
{
    const char *raw = getenv(variable);
    const char *p = value_start(raw);
    if (p == NULL)
        return false;
    unsigned long value;
    bool number = take_number(&p, ULONG_MAX, &value) && *p == '\0' && value >= min;
    if (number && clamp && value > max)
        value = max;
    if (number && value <= max) {
        *out = value;
        return true;
    }
    char problem[96];
    if (clamp)
        snprintf(problem, sizeof problem, "is not a whole number >= %lu", min);
    else
        snprintf(problem, sizeof problem, "is not a whole number in [%lu, %lu]", min, max);
    muster_omp_warn_env(variable, raw, problem, instead);
    return false;
}

/* OMP_NUM_THREADS: "4" or a list "4,2,1" (one entry per nesting level). */
static unsigned read_num_threads(muster_omp_icvs *icvs, unsigned available)
{
    const char *raw = getenv("OMP_NUM_THREADS");
    const char *p = value_start(raw);
    if (p == NULL)
        return 0;
    unsigned long values[MUSTER_OMP_MAX_LEVELS + 1];
    unsigned count = 0;
    bool ok = true, too_long = false;
    for (;;) {
        unsigned long value;
        if (!take_number(&p, INT_MAX, &value) || value == 0) {
            ok = false;
            break;
        }
        if (count < MUSTER_OMP_MAX_LEVELS + 1)
            values[count++] = value;
        else
            too_long = true;
        if (*p == '\0')
            break;
        if (!take_char(&p, ',')) {
            ok = false;
            break;
        }
    }
    char instead[48];
    if (!ok) {
        snprintf(instead, sizeof instead, "%u", available);
        muster_omp_warn_env("OMP_NUM_THREADS", raw, "is not a list of whole numbers in [1, 2147483647]",
                            instead);
        return 0;
    }
    if (too_long) {
        snprintf(instead, sizeof instead, "the first %u", MUSTER_OMP_MAX_LEVELS + 1);
        muster_omp_warn_env("OMP_NUM_THREADS", raw, "has more nesting levels than libmuster-omp keeps",
                            instead);
    }
    icvs->nthreads = (unsigned)values[0];
    for (unsigned i = 1; i < count; i++)
        icvs->nthreads_next[i - 1] = (unsigned)values[i];
    return count;
}

/* OMP_SCHEDULE: [monotonic:|nonmonotonic:]kind[,chunk]. */
static bool parse_schedule(const char *p, unsigned *kind_out, long *chunk_out)
{
    int modifier = 0; /* 1 monotonic, -1 nonmonotonic, 0 none */
    if (take_word(&p, "monotonic"))
        modifier = 1;
    else if (take_word(&p, "nonmonotonic"))
        modifier = -1;
    if (modifier != 0 && !take_char(&p, ':'))
        return false;
    unsigned kind;
    if (take_word(&p, "static"))
        kind = MUSTER_OMP_SCHED_STATIC;
    else if (take_word(&p, "dynamic"))
        kind = MUSTER_OMP_SCHED_DYNAMIC;
    else if (take_word(&p, "guided"))
        kind = MUSTER_OMP_SCHED_GUIDED;
    else if (take_word(&p, "auto"))
        kind = MUSTER_OMP_SCHED_AUTO;
    else
        return false;
    /* As libgomp: static is monotonic unless asked otherwise; the others
     * are nonmonotonic unless asked otherwise. */
    if (modifier == 1 || (modifier == 0 && kind == MUSTER_OMP_SCHED_STATIC))
        kind |= MUSTER_OMP_SCHED_MONOTONIC;
    /* Default chunks as libgomp stores them: 0 (an even split) for static,
     * 1 for the others. */
    unsigned base = kind & ~MUSTER_OMP_SCHED_MONOTONIC;
    unsigned long chunk = base != MUSTER_OMP_SCHED_STATIC && base != MUSTER_OMP_SCHED_AUTO;
    if (*p != '\0') {
        if (!take_char(&p, ',') || !take_number(&p, INT_MAX, &chunk) || *p != '\0')
            return false;
        if (chunk == 0 && base != MUSTER_OMP_SCHED_STATIC)
            chunk = 1;
        if (base == MUSTER_OMP_SCHED_AUTO)
            chunk = 0; /* auto has no chunk; libgomp ignores it too */
    }
    *kind_out = kind;
    *chunk_out = (long)chunk;
    return true;
}

static void read_schedule(muster_omp_icvs *icvs)
{
    const char *raw = getenv("OMP_SCHEDULE");
    const char *p = value_start(raw);
    if (p == NULL)
        return;
    if (!parse_schedule(p, &icvs->run_sched, &icvs->run_sched_chunk))
        muster_omp_warn_env("OMP_SCHEDULE", raw,
                            "is not a schedule ([monotonic: or nonmonotonic:] static, dynamic, guided "
                            "or auto, then optionally a comma and a chunk size)",
                            "static");
}

/* OMP_PROC_BIND: false, true, primary (master), close, spread, or a list of
 * primary, close and spread, one per nesting level. */
static bool take_bind(const char **p, bool in_list, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bind;
    } kinds[] = {
        {"false", MUSTER_OMP_BIND_FALSE},     {"true", MUSTER_OMP_BIND_TRUE},
        {"master", MUSTER_OMP_BIND_PRIMARY},  {"primary", MUSTER_OMP_BIND_PRIMARY},
        {"close", MUSTER_OMP_BIND_CLOSE},     {"spread", MUSTER_OMP_BIND_SPREAD},
    };
    for (size_t i = in_list ? 2 : 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (take_word(p, kinds[i].name)) {
            *out = kinds[i].bind;
            return true;
        }
    return false;
}

static unsigned read_proc_bind(muster_omp_icvs *icvs)
{
    const char *raw = getenv("OMP_PROC_BIND");
    const char *p = value_start(raw);
    if (p == NULL)
        return 0;
    unsigned values[MUSTER_OMP_MAX_LEVELS + 1];
    unsigned count = 0;
    bool ok = take_bind(&p, false, &values[0]);
    if (ok)
        count = 1;
    /* true and false apply to every level: they cannot start a list. */
    bool may_list = ok && values[0] != MUSTER_OMP_BIND_FALSE && values[0] != MUSTER_OMP_BIND_TRUE;
    while (ok && *p != '\0') {
        unsigned next;
        if (!may_list || !take_char(&p, ',') || !take_bind(&p, true, &next))
            ok = false;
        else if (count < MUSTER_OMP_MAX_LEVELS + 1)
            values[count++] = next;
    }
    if (!ok) {
        muster_omp_warn_env("OMP_PROC_BIND", raw,
                            "is not a binding (false, true, primary, master, close, spread, or a "
                            "list of primary, master, close and spread)",
                            "false");
        return 0;
    }
    icvs->bind = values[0];
    for (unsigned i = 1; i < count; i++)
        icvs->bind_next[i - 1] = values[i];
    return count;
}

/* OMP_STACKSIZE (or libgomp's GOMP_STACKSIZE): a number with an optional
 * B, K, M or G suffix; the unit is K without one. */
static bool parse_size(const char *p, size_t *out)
{
    unsigned long value;
    if (!take_number(&p, ULONG_MAX, &value))
        return false;
    unsigned shift = 10;
    if (*p != '\0') {
        switch (tolower((unsigned char)*p)) {
        case 'b': shift = 0; break;
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        default: return false;
        }
        p++;
        skip_spaces(&p);
        if (*p != '\0')
            return false;
    }
    if (value > (SIZE_MAX >> shift))
        return false;
    *out = (size_t)value << shift;
    return true;
}

static void read_stacksize(size_t *out)
{
    const char *variable = getenv("OMP_STACKSIZE") ? "OMP_STACKSIZE" : "GOMP_STACKSIZE";
    const char *raw = getenv(variable);
    const char *p = value_start(raw);
    if (p == NULL)
        return;
    size_t size;
    if (!parse_size(p, &size)) {
        muster_omp_warn_env(variable, raw, "is not a size (a whole number with an optional B, K, M or G suffix)",
                            "the system's default stack size");
        return;
    }
    if (size < MIN_STACKSIZE) {
        muster_omp_warn_env(variable, raw, "is below the smallest stack a thread can have", "16K");
        size = MIN_STACKSIZE;
    }
    *out = size;
}

/* OMP_DISPLAY_ENV: true, false or verbose. */
static void read_display_env(void)
{
    const char *raw = getenv("OMP_DISPLAY_ENV");
    const char *p = value_start(raw);
    if (p == NULL)
        return;
    bool display = false, verbose = false;
    if (take_word(&p, "true"))
        display = true;
    else if (take_word(&p, "verbose"))
        display = verbose = true;
    else if (!take_word(&p, "false"))
        p = "x";
    if (*p != '\0') {
        muster_omp_warn_env("OMP_DISPLAY_ENV", raw, "is not true, false or verbose", "false");
        return;
    }
    globals.display_env = display;
    globals.display_env_verbose = verbose;
}

static void read_affinity_format(void)
{
    const char *raw = getenv("OMP_AFFINITY_FORMAT");
    extras.affinity_format = DEFAULT_AFFINITY_FORMAT;
    if (raw == NULL)
        return;
    /* A copy: a later setenv() may free the environment's string. */
    char *copy = strdup(raw);
    if (copy != NULL)
        extras.affinity_format = copy;
}

/* max-active-levels-var: OMP_MAX_ACTIVE_LEVELS; else OMP_NESTED; else, as
 * gcc 12's libgomp, nesting is on when OMP_NUM_THREADS or OMP_PROC_BIND
 * lists more than one level. */
static unsigned max_active_levels(unsigned nthreads_levels, unsigned bind_levels)
{
    unsigned long levels;
    if (read_number("OMP_MAX_ACTIVE_LEVELS", 0, MUSTER_OMP_SUPPORTED_ACTIVE_LEVELS, true, &levels,
                    "the default"))
        return (unsigned)levels;
    bool nested = false, nested_set = false;
    read_boolean("OMP_NESTED", &nested, &nested_set);
    if (nested_set)
        return nested ? MUSTER_OMP_SUPPORTED_ACTIVE_LEVELS : 1;
    return nthreads_levels > 1 || bind_levels > 1 ? MUSTER_OMP_SUPPORTED_ACTIVE_LEVELS : 1;
}

static void read_ints(void)
{
    unsigned long value;
    if (read_number("OMP_THREAD_LIMIT", 1, INT_MAX, true, &value, "no limit"))
        globals.icvs.thread_limit = (unsigned)value;
    if (read_number("OMP_DEFAULT_DEVICE", 0, INT_MAX, false, &value, "0"))
        globals.icvs.default_device = (int)value;
    if (read_number("OMP_MAX_TASK_PRIORITY", 0, INT_MAX, false, &value, "0"))
        extras.max_task_priority = (unsigned)value;
    if (read_number("OMP_NUM_TEAMS", 1, INT_MAX, false, &value, "the default"))
        extras.num_teams = (unsigned)value;
    if (read_number("OMP_TEAMS_THREAD_LIMIT", 1, INT_MAX, false, &value, "the default"))
        extras.teams_thread_limit = (unsigned)value;
    extras.delay_depth = MUSTER_OMP_DELAY_DEPTH;
    char default_depth[8];
    snprintf(default_depth, sizeof default_depth, "%d", MUSTER_OMP_DELAY_DEPTH);
    if (read_number("MUSTER_OMP_DELAY_DEPTH", 0, MUSTER_OMP_DELAY_DEPTH_MAX, false, &value, default_depth))
        extras.delay_depth = (unsigned)value;
    extras.queue_ahead = MUSTER_OMP_QUEUE_AHEAD;
    char default_ahead[8];
    snprintf(default_ahead, sizeof default_ahead, "%d", MUSTER_OMP_QUEUE_AHEAD);
    if (read_number("MUSTER_OMP_QUEUE_AHEAD", 1, MUSTER_OMP_DEQUE_CAPACITY, false, &value, default_ahead))
        extras.queue_ahead = (unsigned)value;
    extras.help_first_depth = MUSTER_OMP_HELP_FIRST_DEPTH;
    char default_help[8];
    snprintf(default_help, sizeof default_help, "%d", MUSTER_OMP_HELP_FIRST_DEPTH);
    if (read_number("MUSTER_OMP_HELP_FIRST_DEPTH", 0, MUSTER_OMP_HELP_FIRST_DEPTH_MAX, false, &value, default_help))
        extras.help_first_depth = (unsigned)value;
}

/* MUSTER_OMP_DEFER: when a task that could run at once is queued instead.
 * `hungry` (the default): while another member looks for work; `ahead`:
 * always, up to MUSTER_OMP_QUEUE_AHEAD (the earlier policy, kept for
 * measurements, docs/tasks.md). */
static void read_defer(void)
{
    const char *raw = getenv("MUSTER_OMP_DEFER");
    const char *p = value_start(raw);
    if (p == NULL)
        return;
    const char *q = p;
    if (take_word(&q, "ahead") && *q == '\0') {
        extras.defer_ahead = true;
        return;
    }
    q = p;
    if (take_word(&q, "hungry") && *q == '\0')
        return;
    muster_omp_warn_env("MUSTER_OMP_DEFER", raw, "is not hungry or ahead", "hungry");
}

/* KMP_FORCE_REDUCTION: libomp's critical, atomic or tree. */
static void read_force_reduction(void)
{
    const char *raw = getenv("KMP_FORCE_REDUCTION");
    const char *p = value_start(raw);
    if (p == NULL)
        return;
    static const struct {
        const char *name;
        muster_omp_reduction_method method;
    } methods[] = {{"critical", MUSTER_OMP_REDUCE_CRITICAL},
                   {"atomic", MUSTER_OMP_REDUCE_ATOMIC},
                   {"tree", MUSTER_OMP_REDUCE_TREE}};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        const char *q = p;
        if (take_word(&q, methods[i].name) && *q == '\0') {
            extras.force_reduction = methods[i].method;
            return;
        }
    }
    muster_omp_warn_env("KMP_FORCE_REDUCTION", raw, "is not critical, atomic or tree", "the runtime's choice");
}

/* ---- values other modules parse as the environment does (env.h) ---- */

bool muster_omp_parse_size(const char *text, size_t *out)
{
    const char *p = value_start(text);
    return p != NULL && parse_size(p, out);
}

bool muster_omp_parse_kmp_blocktime(const char *text, int *ms)
{
    const char *p = value_start(text);
    if (p == NULL)
        return false;
    const char *q = p;
    if (take_word(&q, "infinite") && *q == '\0') {
        *ms = INT_MAX;
        return true;
    }
    unsigned long value;
    if (!take_number(&p, INT_MAX - 1ul, &value) || *p != '\0')
        return false;
    *ms = (int)value;
    return true;
}

unsigned muster_omp_parse_kmp_library(const char *text)
{
    const char *p = value_start(text);
    static const char *const modes[] = {"serial", "turnaround", "throughput"};
    for (unsigned i = 0; p != NULL && i < 3; i++) {
        const char *q = p;
        if (take_word(&q, modes[i]) && *q == '\0')
            return i + 1;
    }
    return 0;
}

int64_t muster_omp_kmp_blocktime_spin_ns(int ms)
{
    return ms == INT_MAX ? MUSTER_MAX_SPIN_NS : (int64_t)ms * 1000000;
}

/* KMP_LIBRARY and KMP_BLOCKTIME, libomp's, turned into the wait layer's
 * request (wait/wait.h), a blocktime after the library mode (which sets
 * a spin of its own).  Serial also makes nthreads-var 1, as libomp runs
 * every region serially then. */
static void read_kmp_waiting(muster_omp_icvs *icvs)
{
    extras.kmp_library = 0;
    extras.kmp_blocktime_ms = -1;
    const char *raw = getenv("KMP_LIBRARY");
    if (raw != NULL) {
        extras.kmp_library = muster_omp_parse_kmp_library(raw);
        if (extras.kmp_library == 0)
            muster_omp_warn_env("KMP_LIBRARY", raw, "is not serial, turnaround or throughput", "throughput");
        if (extras.kmp_library == 1)
            icvs->nthreads = 1;
        muster_wait_request_spin_ns(extras.kmp_library == 2 ? MUSTER_MAX_SPIN_NS : -1);
    }
    raw = getenv("KMP_BLOCKTIME");
    if (raw == NULL)
        return;
    int ms;
    if (muster_omp_parse_kmp_blocktime(raw, &ms)) {
        extras.kmp_blocktime_ms = ms;
        muster_wait_request_spin_ns(muster_omp_kmp_blocktime_spin_ns(ms));
    } else {
        muster_omp_warn_env("KMP_BLOCKTIME", raw, "is not a whole number of milliseconds or infinite",
                            "muster's default spin");
    }
}

static void read_environment(void)
{
    muster_omp_icvs *icvs = &globals.icvs;
    globals.available_cpus = muster_cpus_available();
    icvs->nthreads = globals.available_cpus;
    icvs->bind = MUSTER_OMP_BIND_FALSE;
    icvs->run_sched = MUSTER_OMP_DEFAULT_SCHED;
    icvs->run_sched_chunk = 0;
    icvs->thread_limit = INT_MAX;

    unsigned nthreads_levels = read_num_threads(icvs, globals.available_cpus);
    read_schedule(icvs);
    read_boolean("OMP_DYNAMIC", &icvs->dynamic, NULL);
    unsigned bind_levels = read_proc_bind(icvs);
    extras.bind_from_env = bind_levels > 0;
    icvs->max_active_levels = max_active_levels(nthreads_levels, bind_levels);
    read_ints();
    read_stacksize(&globals.stacksize);
    read_boolean("OMP_CANCELLATION", &muster_omp_cancellation, NULL);
    /* A tool attached (ompt_tool.c, after the first read) keeps it set. */
    muster_omp_general_tasks = muster_omp_general_tasks || muster_omp_cancellation;
    read_boolean("OMP_DISPLAY_AFFINITY", &extras.display_affinity, NULL);
    read_affinity_format();
    read_force_reduction();
    read_defer();
    read_kmp_waiting(icvs);

    /* As libgomp: OMP_PLACES alone turns binding on (bind-var true); with
     * OMP_PROC_BIND=false the places are not used. */
    bool bind_off = extras.bind_from_env && icvs->bind == MUSTER_OMP_BIND_FALSE;
    if (muster_omp_places_setup(getenv("OMP_PLACES"), !bind_off, icvs->bind != MUSTER_OMP_BIND_FALSE) &&
        icvs->bind == MUSTER_OMP_BIND_FALSE)
        icvs->bind = MUSTER_OMP_BIND_TRUE;

    const muster_env_config *muster = muster_env();
    globals.algorithm = muster->has_algorithm ? muster->algorithm : MUSTER_ALG_AUTO;

    read_display_env();
    /* acquire: pairs with the release store in muster_omp_env_set_display() (below), called by
     * install_display() in display.c at load. */
    muster_omp_env_display_fn display = atomic_load_explicit(&display_hook, memory_order_acquire);
    if (display != NULL)
        display(&globals, &extras);
}

void muster_omp_env_set_display(muster_omp_env_display_fn display)
{
    /* release: pairs with the acquire load of display_hook in read_environment(), so the hook's
     * own data is seen with it. */
    atomic_store_explicit(&display_hook, display, memory_order_release);
}

void muster_omp_env_reread(void)
{
    muster_omp_places_forget();
    if (extras.affinity_format != NULL && strcmp(extras.affinity_format, DEFAULT_AFFINITY_FORMAT) != 0)
        free((char *)extras.affinity_format);
    globals = (muster_omp_globals){0};
    extras = (muster_omp_env_extras){0};
    muster_omp_cancellation = false; /* muster_omp_general_tasks stays: it only grows (team.h) */
    read_environment();
}

const muster_omp_globals *muster_omp_globals_get(void)
{
    pthread_once(&globals_once, read_environment);
    return &globals;
}

const muster_omp_env_extras *muster_omp_env_extras_get(void)
{
    pthread_once(&globals_once, read_environment);
    return &extras;
}

void muster_omp_icvs_advance(muster_omp_icvs *icvs)
{
    if (icvs->nthreads_next[0] != 0) {
        icvs->nthreads = icvs->nthreads_next[0];
        memmove(icvs->nthreads_next, icvs->nthreads_next + 1,
                sizeof icvs->nthreads_next - sizeof icvs->nthreads_next[0]);
        icvs->nthreads_next[MUSTER_OMP_MAX_LEVELS - 1] = 0;
    }
    if (icvs->bind_next[0] != MUSTER_OMP_BIND_FALSE) {
        icvs->bind = icvs->bind_next[0];
        memmove(icvs->bind_next, icvs->bind_next + 1, sizeof icvs->bind_next - sizeof icvs->bind_next[0]);
        icvs->bind_next[MUSTER_OMP_MAX_LEVELS - 1] = MUSTER_OMP_BIND_FALSE;
    }
}

/* ---- the worker stack size, which the program may change (kmp/api.c) ---- */

static _Atomic size_t worker_stacksize_request; /* 0: none, OMP_STACKSIZE's */

void muster_omp_set_worker_stacksize(size_t size)
{
    if (size != 0 && size < MIN_STACKSIZE)
        size = MIN_STACKSIZE;
    /* relaxed: a setting read when a worker starts; none is ordered by it. */
    atomic_store_explicit(&worker_stacksize_request, size, memory_order_relaxed);
}

size_t muster_omp_worker_stacksize(void)
{
    size_t requested = atomic_load_explicit(&worker_stacksize_request, memory_order_relaxed); /* relaxed: as above */
    return requested != 0 ? requested : muster_omp_globals_get()->stacksize;
}
