/* Task dependences between siblings (depend.h says how). */
#include "omp/depend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEP_BUCKETS 256 /* a power of two */

/* The unfinished tasks that last named one address. */
typedef struct dep_entry {
    struct dep_entry *next; /* in its bucket */
    uintptr_t addr;
    const void *team;
    muster_omp_deps *writer;   /* the last out/inout task; NULL once it finished */
    muster_omp_deps **readers; /* in tasks registered since the writer */
    uint32_t nreaders, readers_cap;
} dep_entry;

struct muster_omp_dep_table {
    muster_omp_mutex lock;
    dep_entry *buckets[DEP_BUCKETS];
};

static void *checked_realloc(void *p, size_t bytes)
{
    p = realloc(p, bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "libmuster-omp: out of memory for task dependences\n");
        abort();
    }
    return p;
}

/* ---- gcc's depend array ---- */

/* depend[0] != 0: {n, nout, addresses...}: the first nout write.
 * depend[0] == 0: {0, n, nout, nmutexinoutset, nin, addresses..., depobjs...}:
 * then n - nout - nmutexinoutset - nin depobj pointers, each {addr, kind}. */
typedef struct depend_form {
    size_t total, nout, nmutex, nin, first; /* first: index of the first address */
} depend_form;

static depend_form read_form(void *const *depend)
{
    if ((uintptr_t)depend[0] != 0)
        return (depend_form){.total = (uintptr_t)depend[0], .nout = (uintptr_t)depend[1],
                             .nin = (uintptr_t)depend[0] - (uintptr_t)depend[1], .first = 2};
    return (depend_form){.total = (uintptr_t)depend[1], .nout = (uintptr_t)depend[2],
                         .nmutex = (uintptr_t)depend[3], .nin = (uintptr_t)depend[4], .first = 5};
}

/* The i-th dependence; false for a kind not handled here. */
static bool nth_dep(void *const *depend, const depend_form *f, size_t i, muster_omp_dep *out)
{
    void *entry = depend[f->first + i];
    if (i < f->nout) {
        *out = (muster_omp_dep){(uintptr_t)entry, true};
        return true;
    }
    if (i < f->nout + f->nmutex)
        return false;
    if (i < f->nout + f->nmutex + f->nin) {
        *out = (muster_omp_dep){(uintptr_t)entry, false};
        return true;
    }
    void *const *depobj = entry; /* omp_depend_t: {address, kind} */
    uintptr_t kind = (uintptr_t)depobj[1];
    if (kind != MUSTER_OMP_DEPEND_IN && kind != MUSTER_OMP_DEPEND_OUT && kind != MUSTER_OMP_DEPEND_INOUT)
        return false;
    *out = (muster_omp_dep){(uintptr_t)depobj[0], kind != MUSTER_OMP_DEPEND_IN};
    return true;
}

long muster_omp_depend_count(void *const *depend)
{
    depend_form f = read_form(depend);
    muster_omp_dep d;
    for (size_t i = 0; i < f.total; i++)
        if (!nth_dep(depend, &f, i, &d))
            return -1;
    return (long)f.total;
}

muster_omp_deps *muster_omp_deps_new(void *const *depend, void *task, const void *team)
{
    long n = muster_omp_depend_count(depend);
    if (n < 0)
        return NULL;
    muster_omp_deps *d = checked_realloc(NULL, sizeof *d + (size_t)n * sizeof d->dep[0]);
    memset(d, 0, sizeof *d);
    atomic_init(&d->unmet, 1);
    d->task = task;
    d->team = team;
    depend_form f = read_form(depend);
    for (size_t i = 0; i < (size_t)n; i++)
        nth_dep(depend, &f, i, &d->dep[d->count++]);
    return d;
}

void muster_omp_deps_free(muster_omp_deps *d)
{
    if (d != NULL)
        free(d->successors);
    free(d);
}

/* ---- the table ---- */

muster_omp_dep_table *muster_omp_dep_table_new(void)
{
    muster_omp_dep_table *t = checked_realloc(NULL, sizeof *t);
    memset(t, 0, sizeof *t);
    muster_omp_mutex_init(&t->lock);
    return t;
}

void muster_omp_dep_table_free(muster_omp_dep_table *table)
{
    if (table == NULL)
        return;
    for (size_t b = 0; b < DEP_BUCKETS; b++)
        while (table->buckets[b] != NULL) {
            dep_entry *e = table->buckets[b];
            table->buckets[b] = e->next;
            free(e->readers);
            free(e);
        }
    free(table);
}

bool muster_omp_dep_table_free_if_empty(muster_omp_dep_table *table)
{
    /* Under the lock: a finishing task leaves the table under it and never
     * touches it again after unlocking, so an empty table is ours alone. */
    muster_omp_mutex_lock(&table->lock);
    bool empty = true;
    for (size_t b = 0; b < DEP_BUCKETS && empty; b++)
        empty = table->buckets[b] == NULL;
    muster_omp_mutex_unlock(&table->lock);
    if (empty)
        muster_omp_dep_table_free(table);
    return empty;
}

static dep_entry **bucket_of(muster_omp_dep_table *table, uintptr_t addr)
{
    uint64_t h = (uint64_t)addr * 0x9e3779b97f4a7c15u;
    return &table->buckets[h >> 56 & (DEP_BUCKETS - 1)];
}

/* The entry's link in its bucket, or where a new one goes (*link NULL). */
static dep_entry **find(muster_omp_dep_table *table, uintptr_t addr, const void *team)
{
    dep_entry **link = bucket_of(table, addr);
    while (*link != NULL && ((*link)->addr != addr || (*link)->team != team))
        link = &(*link)->next;
    return link;
}

/* d waits for p (listed in the table, so unfinished: a finished task has
 * left it). */
static void add_edge(muster_omp_deps *p, muster_omp_deps *d)
{
    if (p == NULL || p == d)
        return;
    if (p->nsuccessors == p->successors_cap) {
        p->successors_cap = p->successors_cap ? 2 * p->successors_cap : 4;
        p->successors = checked_realloc(p->successors, p->successors_cap * sizeof *p->successors);
    }
    p->successors[p->nsuccessors++] = d;
    /* relaxed: counted under the lock, before d can be released (its
     * registration hold is still on); the count-downs are acq_rel. */
    atomic_fetch_add_explicit(&d->unmet, 1, memory_order_relaxed);
}

static void register_one(muster_omp_dep_table *table, muster_omp_deps *d, const muster_omp_dep *dep)
{
    dep_entry **link = find(table, dep->addr, d->team);
    dep_entry *e = *link;
    if (e == NULL) {
        e = checked_realloc(NULL, sizeof *e);
        *e = (dep_entry){.addr = dep->addr, .team = d->team};
        *link = e;
    }
    add_edge(e->writer, d);
    if (!dep->writes) {
        if (e->nreaders == e->readers_cap) {
            e->readers_cap = e->readers_cap ? 2 * e->readers_cap : 4;
            e->readers = checked_realloc(e->readers, e->readers_cap * sizeof *e->readers);
        }
        e->readers[e->nreaders++] = d;
        return;
    }
    for (uint32_t r = 0; r < e->nreaders; r++)
        add_edge(e->readers[r], d);
    e->nreaders = 0;
    e->writer = d;
}

/* acq_rel: the count-down that reaches zero must see every predecessor's
 * writes (each count-down releases its finisher's, and the RMWs chain), and
 * hands them on with the task. */
static bool count_down(muster_omp_deps *d)
{
    return atomic_fetch_sub_explicit(&d->unmet, 1, memory_order_acq_rel) == 1;
}

bool muster_omp_deps_register(muster_omp_dep_table *table, muster_omp_deps *d)
{
    muster_omp_mutex_lock(&table->lock);
    for (uint32_t i = 0; i < d->count; i++)
        register_one(table, d, &d->dep[i]);
    muster_omp_mutex_unlock(&table->lock);
    return count_down(d); /* the registration hold */
}

static void unregister_one(muster_omp_dep_table *table, muster_omp_deps *d, uintptr_t addr)
{
    dep_entry **link = find(table, addr, d->team);
    dep_entry *e = *link;
    if (e == NULL)
        return; /* named twice: already left */
    if (e->writer == d)
        e->writer = NULL;
    for (uint32_t r = 0; r < e->nreaders; r++)
        if (e->readers[r] == d)
            e->readers[r--] = e->readers[--e->nreaders];
    if (e->writer == NULL && e->nreaders == 0) {
        *link = e->next;
        free(e->readers);
        free(e);
    }
}

void muster_omp_deps_release(muster_omp_dep_table *table, muster_omp_deps *d, void (*ready)(void *task, void *ctx),
                             void *ctx)
{
    muster_omp_mutex_lock(&table->lock);
    for (uint32_t i = 0; i < d->count; i++)
        unregister_one(table, d, d->dep[i].addr);
    muster_omp_deps **successors = d->successors;
    uint32_t n = d->nsuccessors;
    d->successors = NULL;
    d->nsuccessors = d->successors_cap = 0;
    muster_omp_mutex_unlock(&table->lock);
    for (uint32_t s = 0; s < n; s++)
        if (count_down(successors[s]))
            ready(successors[s]->task, ctx);
    free(successors);
}
