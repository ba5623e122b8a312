/* OMP_PLACES and OMP_PROC_BIND: places, and pinning team threads to them.
 *
 * The place list is built once, from env.c's initialisation: an explicit
 * OMP_PLACES list, an abstract name expanded against libmuster's topology
 * (hwloc, or the flat fallback), or, when binding is on without OMP_PLACES,
 * one place per hardware thread as libgomp does.  Every place is restricted
 * to the CPUs of the process's affinity mask; places left empty are dropped.
 *
 * Team places follow OpenMP 5.1 §2.6.2: primary, close and spread, with
 * spread splitting the primary's place partition into sub-partitions.  The
 * arithmetic is a pure function (muster_omp_assign_places) so the tests can
 * check it for any number of places. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

#include "omp/env.h"

#define MAX_CPU_ID 65535  /* as libgomp: larger ids in OMP_PLACES are an error */
#define MAX_PLACES 65536u
#define MAX_ALLOWED 1024u /* muster_affinity_cpus sees CPU_SETSIZE CPUs */

/* ---- building a place list ---- */

typedef struct cpu_set_list {
    int *cpus;
    unsigned count, capacity;
} cpu_set_list;

typedef struct place_builder {
    cpu_set_list *places;
    unsigned count, capacity;
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

const muster_omp_places *muster_omp_places_get(void)
{
    muster_omp_globals_get(); /* the list is built by the globals' initialisation */
    return &process_places;
}

const muster_omp_places *muster_omp_places_peek(void)
{
    return &process_places;
}

/* ---- team places: OpenMP 5.1 §2.6.2 ---- */

/* Threads [*next, ...) get place `place` and partition [first, first+count). */
static void give(muster_omp_place_state *members, unsigned *next, unsigned n, int place, int first, int count)
{
    for (unsigned k = 0; k < n; k++, (*next)++)
        members[*next] = (muster_omp_place_state){place, first, count};
}

/* More threads than places: places from the primary's on get s or s+1
 * consecutive threads (the first T mod P places one more).  With
 * own_partition (spread), each thread's partition is its one place. */
static void fill_places(muster_omp_place_state *members, unsigned size, int first, unsigned count, unsigned i0,
                        bool own_partition)
{
    unsigned s = size / count, rest = size % count, next = 0;
    for (unsigned j = 0; j < count && next < size; j++) {
        int place = first + (int)((i0 + j) % count);
        give(members, &next, s + (j < rest), place, own_partition ? place : first,
             own_partition ? 1 : (int)count);
    }
}

/* spread with T <= P: T sub-partitions of s or s+1 consecutive places (the
 * first P mod T one longer), fixed relative to the partition's start; the
 * primary keeps its place and takes the sub-partition holding it, thread i
 * the first place of the i-th sub-partition after that one. */
static void spread_partitions(muster_omp_place_state *members, unsigned size, int first, unsigned count,
                              unsigned i0)
{
    unsigned s = count / size, rest = count % size;
    unsigned k0 = i0 < rest * (s + 1) ? i0 / (s + 1) : rest + (i0 - rest * (s + 1)) / s;
    for (unsigned i = 0; i < size; i++) {
        unsigned k = (k0 + i) % size;
        unsigned start = k * s + (k < rest ? k : rest), len = s + (k < rest);
        int place = i == 0 ? first + (int)i0 : first + (int)start;
        members[i] = (muster_omp_place_state){place, first + (int)start, (int)len};
    }
}

void muster_omp_assign_places(unsigned bind, int primary_place, int part_first, int part_count,
                              unsigned num_places, unsigned size, muster_omp_place_state *members)
{
    if (part_count <= 0 || part_first < 0 || (unsigned)(part_first + part_count) > num_places) {
        part_first = 0;
        part_count = (int)num_places;
    }
    unsigned count = (unsigned)part_count;
    bool inside = primary_place >= part_first && primary_place < part_first + part_count;
    unsigned i0 = inside ? (unsigned)(primary_place - part_first) : 0;
    unsigned next = 0;
    if (num_places == 0 || bind == MUSTER_OMP_BIND_FALSE) {
        give(members, &next, size, -1, part_first, part_count);
        return;
    }
    switch (bind) {
    case MUSTER_OMP_BIND_PRIMARY:
        give(members, &next, size, part_first + (int)i0, part_first, part_count);
        break;
    case MUSTER_OMP_BIND_SPREAD:
        if (size <= count)
            spread_partitions(members, size, part_first, count, i0);
        else
            fill_places(members, size, part_first, count, i0, true);
        break;
    default: /* close, and true: the implementation's choice is close, as libgomp's */
        if (size <= count)
            for (unsigned i = 0; i < size; i++)
                members[i] = (muster_omp_place_state){part_first + (int)((i0 + i) % count), part_first,
                                                     part_count};
        else
            fill_places(members, size, part_first, count, i0, false);
        break;
    }
}

void muster_omp_current_partition(const muster_omp_thread *self, int *first, int *count)
{
    /* The partition this thread's implicit task was given when its team
     * formed; teams of one (no places array) inherit their forker's.  Read
     * from the teams rather than from self->place, which a region's primary
     * may still hold from the sub-partition of a region it has left. */
    const muster_omp_team *team = self->team;
    unsigned id = self->id;
    while (team != NULL && team->places == NULL) {
        id = team->parent_id;
        team = team->parent;
    }
    *first = 0;
    *count = (int)muster_omp_places_get()->count;
    if (team != NULL && team->places[id].partition_count > 0) {
        *first = team->places[id].partition_first;
        *count = team->places[id].partition_count;
    }
}

void muster_omp_team_places(const muster_omp_thread *primary, unsigned size, unsigned bind,
                            muster_omp_place_state *members)
{
    const muster_omp_places *places = muster_omp_places_get();
    int first, count;
    muster_omp_current_partition(primary, &first, &count);
    muster_omp_assign_places(bind, primary->place.place, first, count, places->count, size, members);
}

/* Bound teams can share CPUs by construction (OMP_PLACES='{0}' with two
 * threads, proc_bind(primary), more members than places): the scheduler
 * must then count the CPUs the places give, not the process's.  A bitmap
 * of the first 1024 CPUs on the stack: no allocation at a fork. */
enum { PLACE_CPU_BITS = 1024 };

unsigned muster_omp_bound_cpus(const muster_omp_places *places, const muster_omp_place_state *members,
                               unsigned size)
{
    if (places->count == 0 || size == 0)
        return 0;
    uint64_t seen[PLACE_CPU_BITS / 64] = {0};
    unsigned cpus = 0;
    for (unsigned i = 0; i < size; i++) {
        int place = members[i].place;
        if (place < 0 || (unsigned)place >= places->count)
            return 0;
        for (unsigned k = places->start[place]; k < places->start[place + 1]; k++) {
            int cpu = places->cpus[k];
            if (cpu < 0 || cpu >= PLACE_CPU_BITS)
                return 0;
            uint64_t bit = UINT64_C(1) << (cpu % 64);
            cpus += (seen[cpu / 64] & bit) == 0;
            seen[cpu / 64] |= bit;
        }
    }
    return cpus;
}

/* ---- pinning ---- */

static atomic_bool pin_warned;

static void warn_pin_failed(int place, int error)
{
    /* relaxed: only decides who prints the one warning; orders nothing else. */
    if (atomic_exchange_explicit(&pin_warned, true, memory_order_relaxed))
        return;
    fprintf(stderr, "libmuster-omp: cannot bind a thread to place %d: %s; threads that cannot be bound run unbound\n",
            place, strerror(error));
}

static void pin_to_place(int place)
{
    const muster_omp_places *places = muster_omp_places_get();
    if (place < 0 || (unsigned)place >= places->count)
        return;
    unsigned first = places->start[place], end = places->start[place + 1];
    int max_cpu = places->cpus[end - 1];
    size_t bytes = CPU_ALLOC_SIZE(max_cpu + 1);
    cpu_set_t *set = CPU_ALLOC(max_cpu + 1);
    if (set == NULL) {
        warn_pin_failed(place, ENOMEM);
        return;
    }
    CPU_ZERO_S(bytes, set);
    for (unsigned k = first; k < end; k++)
        CPU_SET_S(places->cpus[k], bytes, set);
    int rc = pthread_setaffinity_np(pthread_self(), bytes, set);
    CPU_FREE(set);
    if (rc != 0)
        warn_pin_failed(place, rc);
}

void muster_omp_bind_self(muster_omp_thread *self, const muster_omp_place_state *state)
{
    if (state->place >= 0 && state->place != self->place.place)
        pin_to_place(state->place);
    self->place = *state;
}

void muster_omp_bind_initial_thread(muster_omp_thread *self)
{
    const muster_omp_places *places = muster_omp_places_get();
    if (self->place.place >= 0 || places->count == 0 || self->icvs.bind == MUSTER_OMP_BIND_FALSE)
        return;
    muster_omp_place_state state;
    muster_omp_current_partition(self, &state.partition_first, &state.partition_count);
    state.place = state.partition_first;
    muster_omp_bind_self(self, &state);
}

/* ---- where a new worker starts ---- */

/* The CPU `steps` places after `cpu` in `mask`, cyclically; -1 if `cpu` is
 * not in it. */
static int cpu_after(const cpu_set_t *mask, int cpu, unsigned steps)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, mask))
        return -1;
    while (steps > 0) {
        cpu = (cpu + 1) % CPU_SETSIZE;
        if (CPU_ISSET(cpu, mask))
            steps--;
    }
    return cpu;
}

bool muster_omp_spread_start(pthread_attr_t *attr, unsigned id, cpu_set_t *inherited)
{
    if (pthread_getaffinity_np(pthread_self(), sizeof *inherited, inherited) != 0)
        return false;
    unsigned cpus = (unsigned)CPU_COUNT(inherited);
    if (cpus < 2 || id % cpus == 0)
        return false;
    int start = cpu_after(inherited, muster_current_cpu(), id % cpus);
    if (start < 0)
        return false;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(start, &one);
    return pthread_attr_setaffinity_np(attr, sizeof one, &one) == 0;
}

void muster_omp_spread_done(const cpu_set_t *inherited)
{
    /* Cannot fail with a mask the creator held a moment ago, unless its
     * CPUs went offline; the worker then keeps its start CPU, which the
     * kernel would move it off anyway. */
    (void)pthread_setaffinity_np(pthread_self(), sizeof *inherited, inherited);
}
