/* Reading what libmuster-profile.so wrote (profile_format.h) into regions
 * with their threads and constructs, and the figures derived from them:
 * work, idle and load imbalance. */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

static void *grow_array(void *items, size_t *capacity, size_t used, size_t size)
{
    if (used < *capacity)
        return items;
    size_t n = *capacity ? *capacity * 2 : 16;
    void *more = realloc(items, n * size);
    if (more == NULL)
        return NULL;
    *capacity = n;
    return more;
}

typedef struct raw_cell {
    unsigned region, kind, index;
    uintptr_t ra;
    uint64_t count, ns;
} raw_cell;

typedef struct reader {
    profile *p;
    size_t region_capacity, where_capacity, cell_capacity, ncells;
    raw_cell *cells;
} reader;

static profile_region *region_by_id(profile *p, unsigned id)
{
    for (size_t i = 0; i < p->nregions; i++)
        if (p->regions[i].id == id)
            return &p->regions[i];
    return NULL;
}

static int add_region(reader *r, unsigned id, uintptr_t ra, uint64_t runs, double time_s, unsigned team)
{
    profile *p = r->p;
    profile_region *more = grow_array(p->regions, &r->region_capacity, p->nregions, sizeof *more);
    if (more == NULL)
        return -1;
    p->regions = more;
    p->regions[p->nregions++] = (profile_region){.id = id, .ra = ra, .runs = runs, .time_s = time_s, .team = team};
    return 0;
}

static int read_line(reader *r, char *line)
{
    profile *p = r->p;
    unsigned id, team, index;
    unsigned long long runs, ns, count;
    void *ra;
    char kind[64];
    int at = 0;
    if (sscanf(line, "region %u %p %llu %llu %u", &id, &ra, &runs, &ns, &team) == 5)
        return add_region(r, id, (uintptr_t)ra, runs, (double)ns * 1e-9, team);
    if (sscanf(line, "cell %u %63s %p %u %llu %llu", &id, kind, &ra, &index, &count, &ns) == 6) {
        int k = profile_kind_parse(kind);
        if (k < 0)
            return 0; /* a kind of a later tool: passed over */
        raw_cell *more = grow_array(r->cells, &r->cell_capacity, r->ncells, sizeof *more);
        if (more == NULL)
            return -1;
        r->cells = more;
        r->cells[r->ncells++] = (raw_cell){id, (unsigned)k, index, (uintptr_t)ra, count, ns};
        return 0;
    }
    unsigned long offset = 0;
    if (sscanf(line, "where %p %lx %n", &ra, &offset, &at) >= 2 && at > 0) {
        profile_where *more = grow_array(p->wheres, &r->where_capacity, p->nwheres, sizeof *more);
        if (more == NULL)
            return -1;
        p->wheres = more;
        profile_where *w = &p->wheres[p->nwheres++];
        *w = (profile_where){.ra = (uintptr_t)ra, .offset = offset};
        line[strcspn(line, "\n")] = '\0';
        if (strcmp(line + at, "?") != 0)
            snprintf(w->object, sizeof w->object, "%.1023s", line + at);
        return 0;
    }
    if (strncmp(line, "runtime ", 8) == 0) {
        line[strcspn(line, "\n")] = '\0';
        snprintf(p->runtime, sizeof p->runtime, "%.255s", line + 8);
        return 0;
    }
    unsigned long long events;
    if (sscanf(line, "threads %u", &p->threads) == 1 || sscanf(line, "event_ns %lf", &p->event_ns) == 1)
        return 0;
    if (sscanf(line, "events %llu", &events) == 1)
        p->events = events;
    return 0;
}

static profile_construct *construct_of(profile_region *g, unsigned kind, uintptr_t ra)
{
    for (size_t i = 0; i < g->nconstructs; i++)
        if (g->constructs[i].kind == kind && g->constructs[i].ra == ra)
            return &g->constructs[i];
    profile_construct *more = realloc(g->constructs, (g->nconstructs + 1) * sizeof *more);
    if (more == NULL)
        return NULL;
    g->constructs = more;
    g->constructs[g->nconstructs] = (profile_construct){.kind = kind, .ra = ra};
    return &g->constructs[g->nconstructs++];
}

/* One source line, one entry: a compiler that inlines or unrolls calls one
 * construct from several addresses; each address is mapped to the first
 * with the same object, function, file and line. */
static uintptr_t canonical(const profile *p, uintptr_t ra)
{
    const profile_where *w = profile_where_of(p, ra);
    if (w->file[0] == '\0')
        return ra;
    for (size_t i = 0; i < p->nwheres; i++) {
        const profile_where *v = &p->wheres[i];
        if (v->line == w->line && strcmp(v->file, w->file) == 0 && strcmp(v->function, w->function) == 0 &&
            strcmp(v->object, w->object) == 0)
            return v->ra;
    }
    return ra;
}

static void merge_by_line(reader *r)
{
    profile *p = r->p;
    for (size_t i = 0; i < r->ncells; i++)
        r->cells[i].ra = canonical(p, r->cells[i].ra);
    for (size_t i = 0; i < p->nregions; i++)
        p->regions[i].ra = canonical(p, p->regions[i].ra);
    for (size_t i = 0; i < p->nregions; i++) {
        profile_region *g = &p->regions[i];
        if (g->id == 0)
            continue;
        size_t first = 0;
        while (p->regions[first].ra != g->ra || p->regions[first].id == 0)
            first++;
        if (first == i)
            continue;
        profile_region *kept = &p->regions[first];
        kept->runs += g->runs;
        kept->time_s += g->time_s;
        if (g->team > kept->team)
            kept->team = g->team;
        for (size_t c = 0; c < r->ncells; c++)
            if (r->cells[c].region == g->id)
                r->cells[c].region = kept->id;
        p->regions[i--] = p->regions[--p->nregions];
    }
}

/* The cells into their regions' threads and constructs. */
static int place_cells(reader *r)
{
    profile *p = r->p;
    for (size_t i = 0; i < r->ncells; i++) {
        const raw_cell *c = &r->cells[i];
        profile_region *g = region_by_id(p, c->region);
        if (g == NULL) {
            if (c->region != 0 || add_region(r, 0, 0, 1, 0, 1) != 0)
                continue;
            g = region_by_id(p, 0);
        }
        if (c->index >= g->team)
            g->team = c->index + 1;
    }
    for (size_t i = 0; i < p->nregions; i++) {
        profile_region *g = &p->regions[i];
        g->threads = calloc(g->team ? g->team : 1, sizeof *g->threads);
        if (g->threads == NULL)
            return -1;
        for (unsigned t = 0; t < g->team; t++)
            g->threads[t].index = t;
    }
    for (size_t i = 0; i < r->ncells; i++) {
        const raw_cell *c = &r->cells[i];
        profile_region *g = region_by_id(p, c->region);
        if (g == NULL)
            continue;
        profile_thread *t = &g->threads[c->index];
        double s = (double)c->ns * 1e-9;
        enum profile_wait_class w = profile_wait_class_of(c->kind);
        if (c->kind == PROFILE_IN_TEAM)
            t->in_team_s += s;
        else if (c->kind == PROFILE_TASKS_MADE)
            t->tasks_made += c->count;
        else if (c->kind == PROFILE_TASKS_RUN)
            t->tasks_run += c->count;
        else if (c->kind == PROFILE_TASKS_STOLEN)
            t->tasks_stolen += c->count;
        if (w == PROFILE_NOT_A_WAIT)
            continue;
        t->wait_s[w] += s;
        profile_construct *k = construct_of(g, c->kind, c->ra);
        if (k == NULL)
            return -1;
        k->count += c->count;
        k->wait_s += s;
    }
    return 0;
}

/* A construct's worst thread: the most any one index waited there. */
static void worst_threads(reader *r)
{
    for (size_t i = 0; i < r->p->nregions; i++) {
        profile_region *g = &r->p->regions[i];
        for (size_t k = 0; k < g->nconstructs; k++) {
            profile_construct *c = &g->constructs[k];
            for (unsigned t = 0; t < g->team; t++) {
                double s = 0;
                for (size_t j = 0; j < r->ncells; j++)
                    if (r->cells[j].region == g->id && r->cells[j].index == t && r->cells[j].kind == c->kind &&
                        r->cells[j].ra == c->ra)
                        s += (double)r->cells[j].ns * 1e-9;
                if (s > c->worst_thread_s)
                    c->worst_thread_s = s;
            }
        }
    }
}

static void derive(profile_region *g)
{
    double most_work = 0, all_work = 0;
    for (unsigned i = 0; i < g->team; i++) {
        profile_thread *t = &g->threads[i];
        double waits = t->wait_s[PROFILE_WAIT_BARRIER] + t->wait_s[PROFILE_WAIT_TASKS] + t->wait_s[PROFILE_WAIT_LOCK];
        t->work_s = t->in_team_s > waits ? t->in_team_s - waits : 0;
        t->idle_s = g->id != 0 && g->time_s > t->in_team_s ? g->time_s - t->in_team_s : 0;
        g->work_s += t->work_s;
        g->idle_s += t->idle_s;
        for (int w = 1; w < 4; w++)
            g->wait_s[w] += t->wait_s[w];
        g->tasks_made += t->tasks_made;
        g->tasks_run += t->tasks_run;
        g->tasks_stolen += t->tasks_stolen;
        if (t->work_s > most_work)
            most_work = t->work_s;
        all_work += t->work_s;
    }
    g->thread_time_s = g->work_s + g->idle_s + g->wait_s[1] + g->wait_s[2] + g->wait_s[3];
    g->imbalance = most_work > 0 && g->team > 0 ? 1 - all_work / g->team / most_work : 0;
}

static int by_time(const void *a, const void *b)
{
    const profile_region *x = a, *y = b;
    if ((x->id == 0) != (y->id == 0))
        return x->id == 0 ? 1 : -1; /* outside any region: last */
    if (x->thread_time_s != y->thread_time_s)
        return x->thread_time_s < y->thread_time_s ? 1 : -1;
    return x->id < y->id ? -1 : 1;
}

static int by_wait(const void *a, const void *b)
{
    const profile_construct *x = a, *y = b;
    return x->wait_s < y->wait_s ? 1 : x->wait_s > y->wait_s ? -1 : 0;
}

int profile_read(const char *path, profile *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        snprintf(err, errlen, "the tool wrote no profile (%s is missing)", path);
        return -1;
    }
    char line[8192];
    reader r = {.p = p};
    int rc = 0, ended = 0;
    if (fgets(line, sizeof line, in) == NULL || strncmp(line, PROFILE_FORMAT_LINE, strlen(PROFILE_FORMAT_LINE)) != 0) {
        snprintf(err, errlen, "%s is not a profile this command reads (first line not '%s')", path,
                 PROFILE_FORMAT_LINE);
        rc = -1;
    }
    while (rc == 0 && fgets(line, sizeof line, in) != NULL) {
        if (strcmp(line, "end\n") == 0) {
            ended = 1;
            break;
        }
        if (read_line(&r, line) != 0) {
            snprintf(err, errlen, "out of memory reading %s", path);
            rc = -1;
        }
    }
    fclose(in);
    if (rc == 0 && !ended) {
        snprintf(err, errlen, "the profile in %s stops short (the program ended before the tool's finalize?)",
                 path);
        rc = -1;
    }
    if (rc == 0) {
        profile_symbolize(p);
        merge_by_line(&r);
    }
    if (rc == 0 && place_cells(&r) != 0) {
        snprintf(err, errlen, "out of memory reading %s", path);
        rc = -1;
    }
    if (rc == 0) {
        worst_threads(&r);
        for (size_t i = 0; i < p->nregions; i++) {
            derive(&p->regions[i]);
            qsort(p->regions[i].constructs, p->regions[i].nconstructs, sizeof *p->regions[i].constructs, by_wait);
        }
        qsort(p->regions, p->nregions, sizeof *p->regions, by_time);
    }
    free(r.cells);
    if (rc != 0)
        profile_free(p);
    return rc;
}

void profile_free(profile *p)
{
    for (size_t i = 0; i < p->nregions; i++) {
        free(p->regions[i].threads);
        free(p->regions[i].constructs);
    }
    free(p->regions);
    free(p->wheres);
    memset(p, 0, sizeof *p);
}

const profile_where *profile_where_of(const profile *p, uintptr_t ra)
{
    static const profile_where unknown;
    for (size_t i = 0; i < p->nwheres; i++)
        if (p->wheres[i].ra == ra)
            return &p->wheres[i];
    return &unknown;
}
