/* OMP_PLACES: the process's place list, its syntax and libgomp's spelling.
 *
 * The list is built once, from env.c's initialisation: an explicit
 * OMP_PLACES list, an abstract name expanded against libmuster's topology
 * (hwloc, or the flat fallback), or, when binding is on without OMP_PLACES,
 * one place per hardware thread as libgomp does.  Every place is restricted
 * to the CPUs of the process's affinity mask; places left empty are dropped.
 * Below env.c: it needs only the warning line (warn.c) and the topology;
 * team places and pinning are affinity.c's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

#include "omp/env.h"
#include "omp/warn.h"
#include "platform/cpus.h"

#define MAX_CPU_ID 65535  /* as libgomp: larger ids in OMP_PLACES are an error */
#define MAX_PLACES 65536u
/* CPUs listed over all places, counting repeats: far above any machine's
 * (65 536 places of 16), far below what would take seconds and gigabytes
 * to build ({0:43334}:8484 lists 367 million; fuzz/corpus/places). */
#define MAX_LISTED 1048576ul
#define MAX_ALLOWED 1024u /* muster_affinity_cpus sees CPU_SETSIZE CPUs */

/* ---- building a place list ---- */

typedef struct cpu_set_list {
    int *cpus;
    unsigned count, capacity;
} cpu_set_list;

typedef struct place_builder {
    cpu_set_list *places;
    unsigned count, capacity;
    unsigned long listed; /* CPUs in all places so far, for MAX_LISTED */
} place_builder;

/* The array, moved or not, with room for one more item: it doubles when
 * full (first items to start with).  NULL, with the array and *capacity
 * as they were, when memory runs out. */
static void *room_for_one_more(void *items, unsigned count, unsigned *capacity, size_t item_size, unsigned first)
{
    if (count < *capacity)
        return items;
    unsigned grown = *capacity ? 2 * *capacity : first;
    void *moved = realloc(items, grown * item_size);
    if (moved != NULL)
        *capacity = grown;
    return moved;
}

static bool set_add(cpu_set_list *set, int cpu)
{
    int *cpus = room_for_one_more(set->cpus, set->count, &set->capacity, sizeof *cpus, 8);
    if (cpus == NULL)
        return false;
    set->cpus = cpus;
    set->cpus[set->count++] = cpu;
    return true;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorts and removes duplicates, so two places compare as sets. */
static void set_normalize(cpu_set_list *set)
{
    if (set->count == 0)
        return;
    qsort(set->cpus, set->count, sizeof set->cpus[0], compare_ints);
    unsigned kept = 1;
    for (unsigned i = 1; i < set->count; i++)
        if (set->cpus[i] != set->cpus[kept - 1])
            set->cpus[kept++] = set->cpus[i];
    set->count = kept;
}

static bool set_contains(const cpu_set_list *set, int cpu)
{
    for (unsigned i = 0; i < set->count; i++)
        if (set->cpus[i] == cpu)
            return true;
    return false;
}

static bool set_equal(const cpu_set_list *a, const cpu_set_list *b)
{
    return a->count == b->count && memcmp(a->cpus, b->cpus, a->count * sizeof a->cpus[0]) == 0;
}

/* Takes ownership of *place (emptied). */
static bool builder_push(place_builder *b, cpu_set_list *place)
{
    cpu_set_list *places = room_for_one_more(b->places, b->count, &b->capacity, sizeof *places, 16);
    if (places == NULL)
        return false;
    b->places = places;
    b->places[b->count++] = *place;
    *place = (cpu_set_list){0};
    return true;
}

static void builder_free(place_builder *b)
{
    for (unsigned i = 0; i < b->count; i++)
        free(b->places[i].cpus);
    free(b->places);
    *b = (place_builder){0};
}

/* Keeps only allowed CPUs, drops places left empty and packs the rest into
 * *out.  -1 when out of memory. */
static int builder_finish(place_builder *b, const int *allowed, unsigned n_allowed, muster_omp_places *out,
                          unsigned *dropped)
{
    size_t total = 0;
    for (unsigned i = 0; i < b->count; i++)
        total += b->places[i].count;
    out->count = 0;
    out->start = malloc((b->count + 1) * sizeof *out->start);
    out->cpus = malloc((total ? total : 1) * sizeof *out->cpus);
    if (out->start == NULL || out->cpus == NULL) {
        muster_omp_places_free(out);
        return -1;
    }
    unsigned used = 0, empty = 0;
    out->start[0] = 0;
    for (unsigned i = 0; i < b->count; i++) {
        unsigned before = used;
        for (unsigned k = 0; k < b->places[i].count; k++) {
            int cpu = b->places[i].cpus[k];
            if (bsearch(&cpu, allowed, n_allowed, sizeof *allowed, compare_ints) != NULL)
                out->cpus[used++] = cpu;
        }
        if (used == before) {
            empty++;
            continue;
        }
        out->start[++out->count] = used;
    }
    if (dropped != NULL)
        *dropped = empty;
    return 0;
}

void muster_omp_places_free(muster_omp_places *places)
{
    free(places->start);
    free(places->cpus);
    *places = (muster_omp_places){0};
}

/* ---- the explicit syntax: {0,1},{2:2},{0:4:2},{0:2}:4:2,!{...},{0:4,!2} ---- */

typedef struct cursor {
    const char *p;
    char *problem;
    size_t problem_size;
} cursor;

static void skip(cursor *c)
{
    while (isspace((unsigned char)*c->p))
        c->p++;
}

static bool fail(cursor *c, const char *what)
{
    if (c->problem[0] == '\0')
        snprintf(c->problem, c->problem_size, "%s", what);
    return false;
}

static bool take(cursor *c, char ch)
{
    if (*c->p != ch)
        return false;
    c->p++;
    skip(c);
    return true;
}

/* A signed whole number with |value| <= limit. */
static bool take_int(cursor *c, bool allow_sign, long limit, long *out)
{
    bool negative = false;
    if (allow_sign && (*c->p == '-' || *c->p == '+')) {
        negative = *c->p == '-';
        c->p++;
        skip(c);
    }
    if (!isdigit((unsigned char)*c->p))
        return false;
    long value = 0;
    while (isdigit((unsigned char)*c->p)) {
        value = value * 10 + (*c->p - '0');
        if (value > limit)
            return false;
        c->p++;
    }
    skip(c);
    *out = negative ? -value : value;
    return true;
}

/* ":len[:stride]" after a number or a place; len >= 1. */
static bool take_interval(cursor *c, long max_len, long *len, long *stride)
{
    *len = 1;
    *stride = 1;
    if (!take(c, ':'))
        return true;
    if (!take_int(c, false, max_len, len) || *len < 1)
        return fail(c, "has an interval whose length is not a whole number >= 1");
    if (take(c, ':') && !take_int(c, true, MAX_CPU_ID, stride))
        return fail(c, "has an interval whose stride is not a whole number");
    return true;
}

/* One resource in a place: n, n:len[:stride] or !n. */
static bool parse_resource(cursor *c, cpu_set_list *include, cpu_set_list *exclude)
{
    bool negated = take(c, '!');
    long first, len, stride;
    if (!take_int(c, false, MAX_CPU_ID, &first))
        return fail(c, "has a place with something other than CPU numbers (0 to 65535) in it");
    if (!take_interval(c, MAX_CPU_ID + 1, &len, &stride))
        return false;
    if (negated && len != 1)
        return fail(c, "excludes an interval (only single CPUs can be excluded with !)");
    if ((negated ? exclude : include)->count + (unsigned long)len > MAX_LISTED)
        return fail(c, "lists more than 1048576 CPUs in one place");
    for (long i = 0; i < len; i++) {
        long cpu = first + i * stride;
        if (cpu < 0 || cpu > MAX_CPU_ID)
            return fail(c, "has an interval that runs outside CPU numbers 0 to 65535");
        if (!set_add(negated ? exclude : include, (int)cpu))
            return fail(c, "cannot be stored (out of memory)");
    }
    return true;
}

/* {res,res,...}, its exclusions applied. */
static bool parse_place(cursor *c, cpu_set_list *place)
{
    if (!take(c, '{'))
        return fail(c, "is not a list of places such as {0,1},{2:2} or an abstract name "
                       "(threads, cores, ll_caches, numa_domains, sockets)");
    cpu_set_list exclude = {0};
    bool ok = true;
    do {
        ok = parse_resource(c, place, &exclude);
    } while (ok && take(c, ','));
    if (ok && !take(c, '}'))
        ok = fail(c, "has a place that is not closed by }");
    unsigned kept = 0;
    for (unsigned i = 0; ok && i < place->count; i++)
        if (!set_contains(&exclude, place->cpus[i]))
            place->cpus[kept++] = place->cpus[i];
    place->count = kept;
    free(exclude.cpus);
    if (ok && place->count == 0)
        ok = fail(c, "has a place with no CPU in it");
    set_normalize(place);
    return ok;
}

/* Removes the place equal to `place` from the list built so far. */
static bool remove_place(cursor *c, place_builder *b, const cpu_set_list *place)
{
    for (unsigned i = 0; i < b->count; i++)
        if (set_equal(&b->places[i], place)) {
            free(b->places[i].cpus);
            memmove(&b->places[i], &b->places[i + 1], (b->count - i - 1) * sizeof b->places[0]);
            b->count--;
            return true;
        }
    return fail(c, "excludes a place (!{...}) that is not in the list before it");
}

/* place[:len[:stride]]: the place, then len - 1 copies, each shifted by
 * stride CPUs from the one before.  Takes ownership of *place. */
static bool add_place_interval(cursor *c, place_builder *b, cpu_set_list *place, long len, long stride)
{
    if (!builder_push(b, place))
        return fail(c, "cannot be stored (out of memory)");
    unsigned base = b->count - 1;
    for (long k = 1; k < len; k++) {
        const cpu_set_list *original = &b->places[base]; /* re-read: builder_push may move it */
        cpu_set_list copy = {0};
        bool ok = true;
        for (unsigned i = 0; ok && i < original->count; i++) {
            long cpu = original->cpus[i] + k * stride;
            if (cpu < 0 || cpu > MAX_CPU_ID)
                ok = fail(c, "has a place interval that runs outside CPU numbers 0 to 65535");
            else if (!set_add(&copy, (int)cpu))
                ok = fail(c, "cannot be stored (out of memory)");
        }
        if (ok && !builder_push(b, &copy))
            ok = fail(c, "cannot be stored (out of memory)");
        free(copy.cpus);
        if (!ok)
            return false;
    }
    return true;
}

static bool parse_explicit(cursor *c, place_builder *b)
{
    do {
        bool negated = take(c, '!');
        cpu_set_list place = {0};
        long len, stride;
        bool ok = parse_place(c, &place) && take_interval(c, MAX_PLACES, &len, &stride);
        if (ok && negated && len != 1)
            ok = fail(c, "excludes a place interval (only single places can be excluded with !)");
        if (ok && !negated && b->count + (unsigned long)len > MAX_PLACES)
            ok = fail(c, "has more than 65536 places");
        if (ok && !negated && b->listed + (unsigned long)place.count * (unsigned long)len > MAX_LISTED)
            ok = fail(c, "lists more than 1048576 CPUs over all its places");
        if (ok && !negated)
            b->listed += (unsigned long)place.count * (unsigned long)len;
        if (ok)
            ok = negated ? remove_place(c, b, &place) : add_place_interval(c, b, &place, len, stride);
        free(place.cpus);
        if (!ok)
            return false;
    } while (take(c, ','));
    if (*c->p != '\0')
        return fail(c, "has something after the places that is not a comma and a place");
    if (b->count == 0)
        return fail(c, "excludes every place it lists");
    return true;
}

/* ---- the abstract names ---- */

static const struct {
    const char *name;
    muster_omp_place_kind kind;
} kind_names[] = {
    {"threads", MUSTER_OMP_PLACES_THREADS},         {"cores", MUSTER_OMP_PLACES_CORES},
    {"ll_caches", MUSTER_OMP_PLACES_LL_CACHES},     {"numa_domains", MUSTER_OMP_PLACES_NUMA_DOMAINS},
    {"sockets", MUSTER_OMP_PLACES_SOCKETS},
};

/* The topology level that holds places of this kind; the last-level cache
 * is L3, else L2; when neither is known, one place per socket. */
static muster_topology_level kind_level(muster_omp_place_kind kind, const muster_topology *topo)
{
    switch (kind) {
    case MUSTER_OMP_PLACES_THREADS: return MUSTER_TOPO_PU;
    case MUSTER_OMP_PLACES_CORES: return MUSTER_TOPO_CORE;
    case MUSTER_OMP_PLACES_NUMA_DOMAINS: return MUSTER_TOPO_NUMA;
    case MUSTER_OMP_PLACES_SOCKETS: return MUSTER_TOPO_PACKAGE;
    case MUSTER_OMP_PLACES_LL_CACHES:
        if (muster_topology_count(topo, MUSTER_TOPO_L3) > 0)
            return MUSTER_TOPO_L3;
        if (muster_topology_count(topo, MUSTER_TOPO_L2) > 0)
            return MUSTER_TOPO_L2;
        return MUSTER_TOPO_PACKAGE;
    }
    return MUSTER_TOPO_PU;
}

/* With no topology: every allowed CPU is a thread and a core, and the whole
 * set is one cache, NUMA domain and socket (libmuster's flat view). */
static bool flat_places(muster_omp_place_kind kind, const int *allowed, unsigned n_allowed, place_builder *b)
{
    bool one_each = kind == MUSTER_OMP_PLACES_THREADS || kind == MUSTER_OMP_PLACES_CORES;
    cpu_set_list place = {0};
    for (unsigned i = 0; i < n_allowed; i++) {
        if (!set_add(&place, allowed[i]))
            return false;
        if (one_each && !builder_push(b, &place))
            return false;
    }
    return one_each || n_allowed == 0 || builder_push(b, &place);
}

static bool topology_places(muster_omp_place_kind kind, const muster_topology *topo, place_builder *b)
{
    muster_topology_level level = kind_level(kind, topo);
    unsigned groups = muster_topology_count(topo, level);
    for (unsigned g = 0; g < groups; g++) {
        muster_cpu_group group = muster_topology_group(topo, level, g);
        cpu_set_list place = {0};
        for (unsigned i = 0; i < group.count; i++)
            if (!set_add(&place, group.cpus[i]))
                return false;
        if (place.count > 0 && !builder_push(b, &place))
            return false;
        free(place.cpus);
    }
    return true;
}

int muster_omp_places_of_kind(muster_omp_place_kind kind, unsigned limit, const muster_topology *topo,
                              const int *allowed, unsigned n_allowed, muster_omp_places *out)
{
    place_builder b = {0};
    bool ok = topo ? topology_places(kind, topo, &b) : flat_places(kind, allowed, n_allowed, &b);
    int rc = ok ? builder_finish(&b, allowed, n_allowed, out, NULL) : -1;
    builder_free(&b);
    if (rc == 0 && limit != 0 && out->count > limit)
        out->count = limit; /* start[] and cpus[] keep the rest unused */
    return rc;
}

/* "name" or "name(n)".  1: parsed into *out; 0: not an abstract name; -1: malformed. */
static int parse_abstract(cursor *c, const muster_topology *topo, const int *allowed, unsigned n_allowed,
                          muster_omp_places *out)
{
    for (size_t k = 0; k < sizeof kind_names / sizeof kind_names[0]; k++) {
        size_t n = strlen(kind_names[k].name);
        if (strncasecmp(c->p, kind_names[k].name, n) != 0)
            continue;
        c->p += n;
        skip(c);
        long limit = 0;
        if (take(c, '(')) {
            if (!take_int(c, false, MAX_PLACES, &limit) || limit < 1 || !take(c, ')'))
                return fail(c, "has a count in parentheses that is not a whole number in [1, 65536]"), -1;
        }
        if (*c->p != '\0')
            return fail(c, "has something after the abstract name that is not (count)"), -1;
        if (muster_omp_places_of_kind(kind_names[k].kind, (unsigned)limit, topo, allowed, n_allowed, out) != 0)
            return fail(c, "cannot be stored (out of memory)"), -1;
        return 1;
    }
    return 0;
}

int muster_omp_places_parse(const char *text, const muster_topology *topo, const int *allowed,
                            unsigned n_allowed, muster_omp_places *out, unsigned *dropped,
                            char *problem, size_t problem_size)
{
    char scratch[8];
    if (problem == NULL || problem_size == 0) {
        problem = scratch;
        problem_size = sizeof scratch;
    }
    problem[0] = '\0';
    *out = (muster_omp_places){0};
    if (dropped != NULL)
        *dropped = 0;
    cursor c = {text, problem, problem_size};
    skip(&c);
    if (*c.p == '\0')
        return fail(&c, "is empty"), -1;
    int abstract = parse_abstract(&c, topo, allowed, n_allowed, out);
    if (abstract < 0)
        return -1;
    if (abstract == 0) {
        place_builder b = {0};
        bool ok = parse_explicit(&c, &b) && builder_finish(&b, allowed, n_allowed, out, dropped) == 0;
        builder_free(&b);
        if (!ok)
            return fail(&c, "cannot be stored (out of memory)"), -1;
    }
    if (out->count == 0) {
        muster_omp_places_free(out);
        return fail(&c, "has no place with a CPU this process may run on"), -1;
    }
    return 0;
}

/* ---- printing a place list as libgomp does ---- */

/* Appends to buf like snprintf at offset *used; *used counts the full length. */
static void append(char *buf, size_t size, size_t *used, const char *format, unsigned a, unsigned b, int two)
{
    char piece[32];
    int n = two ? snprintf(piece, sizeof piece, format, a, b) : snprintf(piece, sizeof piece, format, a);
    if (*used < size)
        snprintf(buf + *used, size - *used, "%s", piece);
    *used += (size_t)n;
}

size_t muster_omp_places_format(const muster_omp_places *places, char *buf, size_t size)
{
    size_t used = 0;
    if (buf != NULL && size > 0)
        buf[0] = '\0';
    for (unsigned i = 0; i < places->count; i++) {
        append(buf, buf ? size : 0, &used, i ? ",{" : "{", 0, 0, 0);
        unsigned k = places->start[i], end = places->start[i + 1];
        bool first = true;
        while (k < end) {
            /* A run of consecutive CPUs prints as first:length. */
            unsigned run = 1;
            while (k + run < end && places->cpus[k + run] == places->cpus[k] + (int)run)
                run++;
            append(buf, buf ? size : 0, &used, first ? "" : ",", 0, 0, 0);
            if (run > 1)
                append(buf, buf ? size : 0, &used, "%u:%u", (unsigned)places->cpus[k], run, 1);
            else
                append(buf, buf ? size : 0, &used, "%u", (unsigned)places->cpus[k], 0, 0);
            k += run;
            first = false;
        }
        append(buf, buf ? size : 0, &used, "}", 0, 0, 0);
    }
    return used;
}

/* ---- the process's place list ---- */

static muster_omp_places process_places;

static unsigned read_allowed(int *allowed)
{
    unsigned n = muster_affinity_cpus(allowed, MAX_ALLOWED);
    return n > MAX_ALLOWED ? MAX_ALLOWED : n;
}

static void warn_dropped(const char *value, unsigned dropped, unsigned kept)
{
    char problem[160], instead[64];
    snprintf(problem, sizeof problem, "has %u place%s with no CPU this process may run on", dropped,
             dropped == 1 ? "" : "s");
    snprintf(instead, sizeof instead, "the other %u", kept);
    muster_omp_warn_env("OMP_PLACES", value, problem, instead);
}

bool muster_omp_places_setup(const char *omp_places, bool wanted, bool binding)
{
    static int allowed[MAX_ALLOWED];
    unsigned n_allowed = read_allowed(allowed);
    muster_topology *topo = NULL;
    if ((omp_places != NULL || binding) && muster_topology_discover(&topo) != 0)
        topo = NULL; /* the flat view of the affinity mask */
    bool from_env = false;
    if (omp_places != NULL) {
        char problem[200];
        unsigned dropped = 0;
        muster_omp_places parsed;
        if (muster_omp_places_parse(omp_places, topo, allowed, n_allowed, &parsed, &dropped, problem,
                                    sizeof problem) != 0) {
            muster_omp_warn_env("OMP_PLACES", omp_places, problem,
                                binding && wanted ? "one place per hardware thread" : "no places");
        } else {
            if (dropped > 0)
                warn_dropped(omp_places, dropped, parsed.count);
            if (wanted) {
                process_places = parsed;
                from_env = true;
            } else {
                muster_omp_places_free(&parsed);
            }
        }
    }
    if (!from_env && binding && wanted)
        muster_omp_places_of_kind(MUSTER_OMP_PLACES_THREADS, 0, topo, allowed, n_allowed, &process_places);
    muster_topology_free(topo);
    return from_env;
}

void muster_omp_places_forget(void)
{
    muster_omp_places_free(&process_places);
}

const muster_omp_places *muster_omp_places_peek(void)
{
    return &process_places;
}
