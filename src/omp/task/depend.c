/* Task dependences between siblings (depend.h says how). */
#include "omp/task/depend.h"

#include "omp/task/task_memory.h"
#include "omp/warn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buckets of a new table (a power of two): small, since every task that
 * creates children with dependences owns one.  The table grows fourfold
 * whenever it holds more than DEP_LOAD entries per bucket, so a lookup
 * walks a short chain however many addresses are live (sparse LU with
 * 40x40 blocks has ~1,400: a fixed 256 buckets gave chains of 5-6, and
 * walking them was a third of the release). */
#define DEP_FIRST_BUCKETS 32
#define DEP_LOAD 2

/* A growable list of tasks. */
typedef struct dep_list {
    muster_omp_deps **items;
    uint32_t n, cap;
} dep_list;

/* The unfinished tasks that last named one address. */
typedef struct dep_entry {
    struct dep_entry *next; /* in its bucket */
    uintptr_t addr;
    const void *team;
    /* The last write group: one out/inout task, or the members of a
     * mutexinoutset set.  Finished tasks leave every list. */
    dep_list writers;
    dep_list readers;    /* in tasks registered since */
    bool set_open;       /* the last registration was mutexinoutset: the next one joins its set */
    dep_list set_before; /* what the open set's members wait for */
    muster_omp_deps *holder; /* the set member running now */
    dep_list parked;     /* members ready but for the holder */
} dep_entry;

struct muster_omp_dep_table {
    muster_omp_mutex lock;
    dep_entry **buckets;
    unsigned bits;  /* log2 of the bucket count */
    size_t entries; /* under the lock */
};

static _Noreturn void out_of_memory(void)
{
    muster_omp_fatal("out of memory for task dependences");
}

static void *checked_realloc(void *p, size_t bytes)
{
    p = realloc(p, bytes ? bytes : 1);
    if (p == NULL)
        out_of_memory();
    return p;
}

/* ---- a task's clauses ---- */

static muster_omp_dep dep_record(uintptr_t addr, muster_omp_dep_kind kind)
{
    return (muster_omp_dep){
        .addr = addr, .kind = kind, .list_slot = MUSTER_OMP_DEP_NO_SLOT, .before_slot = MUSTER_OMP_DEP_NO_SLOT};
}

long muster_omp_depend_count(const muster_omp_depend *depend)
{
    uintptr_t addr;
    muster_omp_dep_kind kind;
    for (size_t i = 0; i < depend->count; i++)
        if (!depend->nth(depend->list, i, &addr, &kind))
            return -1;
    return (long)depend->count;
}

muster_omp_deps *muster_omp_deps_new(const muster_omp_depend *depend, void *task, const void *team)
{
    long n = muster_omp_depend_count(depend);
    if (n < 0)
        return NULL;
    muster_omp_deps *d = muster_omp_task_alloc(sizeof *d + (size_t)n * sizeof d->dep[0]);
    if (d == NULL)
        out_of_memory();
    memset(d, 0, sizeof *d);
    d->successors = d->first_successors;
    d->successors_cap = MUSTER_OMP_DEPS_FIRST_SUCCESSORS;
    atomic_init(&d->unmet, 1);
    d->task = task;
    d->team = team;
    for (size_t i = 0; i < (size_t)n; i++) {
        uintptr_t addr;
        muster_omp_dep_kind kind;
        (void)depend->nth(depend->list, i, &addr, &kind); /* handled: muster_omp_depend_count */
        d->dep[d->count++] = dep_record(addr, kind);
        d->mutex |= kind == MUSTER_OMP_DEP_MUTEX;
    }
    return d;
}

void muster_omp_deps_free(muster_omp_deps *d)
{
    if (d != NULL && d->successors != d->first_successors)
        free(d->successors);
    muster_omp_task_free(d);
}

/* ---- the table ---- */

static void list_add(dep_list *l, muster_omp_deps *d)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4;
        l->items = checked_realloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->n++] = d;
}

/* Tasks collected by one release, to be handed out after the lock: a few
 * on the stack (a finishing set member hands its address to one other),
 * more on the heap. */
#define BATCH_ON_STACK 8

typedef struct task_batch {
    muster_omp_deps *first[BATCH_ON_STACK];
    uint32_t n;
    dep_list more;
} task_batch;

static void batch_add(task_batch *b, muster_omp_deps *d)
{
    if (b->n < BATCH_ON_STACK)
        b->first[b->n++] = d;
    else
        list_add(&b->more, d);
}

static muster_omp_deps *batch_item(const task_batch *b, uint32_t i)
{
    return i < b->n ? b->first[i] : b->more.items[i - b->n];
}

static uint32_t batch_size(const task_batch *b)
{
    return b->n + b->more.n;
}

/* Each record keeps its index in the lists that hold it: its own list
 * (list_slot: readers for READ records, writers for WRITE and MUTEX ones)
 * and set_before (before_slot: the predecessors of the open mutexinoutset
 * set, copied from the other two), so a finishing task leaves in O(1):
 * a scan per leaver made the releases quadratic under the table's lock
 * (docs/tuning.md: O(1) leave). */

static dep_list *own_list(dep_entry *e, muster_omp_dep_kind kind)
{
    return kind == MUSTER_OMP_DEP_READ ? &e->readers : &e->writers;
}

/* Where record r keeps its index in `list` of e; NULL when r never goes
 * there (a READ record and the writers, say). */
static uint32_t *slot_in(dep_entry *e, const dep_list *list, muster_omp_dep *r)
{
    if (list == &e->set_before)
        return &r->before_slot;
    return own_list(e, r->kind) == list ? &r->list_slot : NULL;
}

/* d's record on e's address that sits at index slot of `list`. */
static muster_omp_dep *record_at(dep_entry *e, const dep_list *list, muster_omp_deps *d, uint32_t slot)
{
    for (uint32_t j = 0; j < d->count; j++) {
        uint32_t *at = d->dep[j].addr == e->addr ? slot_in(e, list, &d->dep[j]) : NULL;
        if (at != NULL && *at == slot)
            return &d->dep[j];
    }
    return NULL;
}

/* d, through its record r, joins `list` of e. */
static void add_at(dep_entry *e, dep_list *list, muster_omp_deps *d, muster_omp_dep *r)
{
    *slot_in(e, list, r) = list->n;
    list_add(list, d);
}

/* Empties `list` of e (a later write or mutexinoutset set stands for its
 * tasks now), marking their records as out of it. */
static void forget_list(dep_entry *e, dep_list *list)
{
    for (uint32_t i = 0; i < list->n; i++) {
        muster_omp_dep *r = record_at(e, list, list->items[i], i);
        if (r != NULL)
            *slot_in(e, list, r) = MUSTER_OMP_DEP_NO_SLOT;
    }
    list->n = 0;
}

/* Record r leaves `list` of e, if it is there: the list's last task moves
 * into its place. */
static void remove_from(dep_entry *e, dep_list *list, muster_omp_dep *r)
{
    uint32_t *at = slot_in(e, list, r), slot = *at;
    if (slot == MUSTER_OMP_DEP_NO_SLOT)
        return;
    *at = MUSTER_OMP_DEP_NO_SLOT;
    uint32_t last = --list->n;
    if (slot == last)
        return;
    muster_omp_deps *moved = list->items[last];
    list->items[slot] = moved;
    *slot_in(e, list, record_at(e, list, moved, last)) = slot;
}

/* Copies `list` (readers or writers) into e's set_before. */
static void add_list_to_before(dep_entry *e, dep_list *list)
{
    for (uint32_t i = 0; i < list->n; i++) {
        muster_omp_dep *r = record_at(e, list, list->items[i], i);
        if (r == NULL) {
            muster_omp_fatal("task dependences: a list entry without its record");
        }
        add_at(e, &e->set_before, list->items[i], r);
    }
}

static void free_entry(dep_entry *e)
{
    free(e->writers.items);
    free(e->readers.items);
    free(e->set_before.items);
    free(e->parked.items);
    free(e);
}

static size_t bucket_count(const muster_omp_dep_table *table)
{
    return (size_t)1 << table->bits;
}

static dep_entry **new_buckets(size_t n)
{
    dep_entry **buckets = checked_realloc(NULL, n * sizeof *buckets);
    memset(buckets, 0, n * sizeof *buckets);
    return buckets;
}

muster_omp_dep_table *muster_omp_dep_table_new(void)
{
    muster_omp_dep_table *t = checked_realloc(NULL, sizeof *t);
    memset(t, 0, sizeof *t);
    muster_omp_mutex_init(&t->lock);
    t->bits = __builtin_ctz(DEP_FIRST_BUCKETS);
    t->buckets = new_buckets(DEP_FIRST_BUCKETS);
    return t;
}

void muster_omp_dep_table_free(muster_omp_dep_table *table)
{
    if (table == NULL)
        return;
    for (size_t b = 0; b < bucket_count(table); b++)
        while (table->buckets[b] != NULL) {
            dep_entry *e = table->buckets[b];
            table->buckets[b] = e->next;
            free_entry(e);
        }
    free(table->buckets);
    free(table);
}

bool muster_omp_dep_table_free_if_empty(muster_omp_dep_table *table)
{
    /* Under the lock: a finishing task leaves the table under it and never
     * touches it again after unlocking, so an empty table is ours alone. */
    muster_omp_mutex_lock(&table->lock);
    bool empty = table->entries == 0;
    muster_omp_mutex_unlock(&table->lock);
    if (empty)
        muster_omp_dep_table_free(table);
    return empty;
}

/* Fibonacci hashing: the product's top bits mix all of the address's. */
static size_t bucket_index(uintptr_t addr, unsigned bits)
{
    return (size_t)(((uint64_t)addr * 0x9e3779b97f4a7c15u) >> (64 - bits));
}

static dep_entry **bucket_of(muster_omp_dep_table *table, uintptr_t addr)
{
    return &table->buckets[bucket_index(addr, table->bits)];
}

/* Under the lock: four times the buckets, every entry moved over. */
static void grow(muster_omp_dep_table *table)
{
    unsigned bits = table->bits + 2;
    dep_entry **buckets = new_buckets((size_t)1 << bits);
    for (size_t b = 0; b < bucket_count(table); b++)
        while (table->buckets[b] != NULL) {
            dep_entry *e = table->buckets[b];
            table->buckets[b] = e->next;
            dep_entry **head = &buckets[bucket_index(e->addr, bits)];
            e->next = *head;
            *head = e;
        }
    free(table->buckets);
    table->buckets = buckets;
    table->bits = bits;
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
        muster_omp_deps **grown = checked_realloc(p->successors == p->first_successors ? NULL : p->successors,
                                                  2 * p->successors_cap * sizeof *p->successors);
        if (p->successors == p->first_successors)
            memcpy(grown, p->first_successors, sizeof p->first_successors);
        p->successors = grown;
        p->successors_cap *= 2;
    }
    p->successors[p->nsuccessors++] = d;
    /* relaxed: counted under the lock, before d can be released (its
     * registration hold is still on); the count-downs are acq_rel. */
    atomic_fetch_add_explicit(&d->unmet, 1, memory_order_relaxed);
}

static void add_edges(const dep_list *from, muster_omp_deps *d)
{
    for (uint32_t i = 0; i < from->n; i++)
        add_edge(from->items[i], d);
}

static void register_one(muster_omp_dep_table *table, muster_omp_deps *d, muster_omp_dep *dep)
{
    dep_entry **link = find(table, dep->addr, d->team);
    dep_entry *e = *link;
    if (e == NULL) {
        e = checked_realloc(NULL, sizeof *e);
        *e = (dep_entry){.addr = dep->addr, .team = d->team};
        *link = e;
        if (++table->entries > DEP_LOAD * bucket_count(table))
            grow(table);
    }
    switch (dep->kind) {
    case MUSTER_OMP_DEP_READ:
        add_edges(&e->writers, d);
        add_at(e, own_list(e, dep->kind), d, dep);
        e->set_open = false;
        break;
    case MUSTER_OMP_DEP_WRITE:
        add_edges(&e->writers, d);
        add_edges(&e->readers, d);
        forget_list(e, &e->readers);
        forget_list(e, &e->writers);
        forget_list(e, &e->set_before);
        add_at(e, own_list(e, dep->kind), d, dep);
        e->set_open = false;
        break;
    case MUSTER_OMP_DEP_MUTEX:
        if (!e->set_open) {
            /* A new set: its members wait for the last write group and
             * the readers since, and then stand for them. */
            forget_list(e, &e->set_before);
            add_list_to_before(e, &e->writers);
            add_list_to_before(e, &e->readers);
            forget_list(e, &e->readers);
            forget_list(e, &e->writers);
            e->set_open = true;
        }
        add_edges(&e->set_before, d);
        add_at(e, own_list(e, dep->kind), d, dep);
        break;
    }
}
/* acq_rel: pairs with the other predecessors' count_down() decrements of unmet: the
 * count-down that reaches zero must see every predecessor's writes (each count-down releases
 * its finisher's, and the RMWs chain), and hands them on with the task. */
static bool count_down(muster_omp_deps *d)
{
    return atomic_fetch_sub_explicit(&d->unmet, 1, memory_order_acq_rel) == 1;
}

/* Under the table's lock: whether d, whose predecessors have all
 * finished, may run now.  With mutexinoutset addresses it must hold them
 * all: it takes them only if every one is free (or already its own), else
 * parks on a busy one, to be retried when its holder finishes. */
static bool take_sets(muster_omp_dep_table *table, muster_omp_deps *d)
{
    if (!d->mutex)
        return true;
    for (uint32_t i = 0; i < d->count; i++) {
        if (d->dep[i].kind != MUSTER_OMP_DEP_MUTEX)
            continue;
        dep_entry *e = *find(table, d->dep[i].addr, d->team);
        if (e->holder != NULL && e->holder != d) {
            list_add(&e->parked, d);
            return false;
        }
    }
    for (uint32_t i = 0; i < d->count; i++)
        if (d->dep[i].kind == MUSTER_OMP_DEP_MUTEX)
            (*find(table, d->dep[i].addr, d->team))->holder = d;
    return true;
}

bool muster_omp_deps_register(muster_omp_dep_table *table, muster_omp_deps *d)
{
    muster_omp_mutex_lock(&table->lock);
    for (uint32_t i = 0; i < d->count; i++)
        register_one(table, d, &d->dep[i]);
    if (d->mutex) {
        /* The registration hold goes under the lock, so a set member ready
         * at once takes its addresses without locking again. */
        bool ready = count_down(d) && take_sets(table, d);
        muster_omp_mutex_unlock(&table->lock);
        return ready;
    }
    muster_omp_mutex_unlock(&table->lock);
    return count_down(d); /* the registration hold */
}

/* The set member holding e's address has finished: parked members try to
 * take their addresses, one after another, until one holds this one (the
 * others could not run yet anyway; retrying them all at every hand-over
 * made a set of n members cost n^2 tries).  A member that fails on another
 * busy address parks there.  The winners go to *runnable. */
static void hand_over(muster_omp_dep_table *table, dep_entry *e, task_batch *runnable)
{
    while (e->holder == NULL && e->parked.n > 0) {
        muster_omp_deps *m = e->parked.items[--e->parked.n];
        if (take_sets(table, m))
            batch_add(runnable, m);
    }
}

/* d's record `dep` leaves its address's entry; a set address d held goes
 * to a parked member, which then goes to *runnable. */
static void unregister_one(muster_omp_dep_table *table, muster_omp_deps *d, muster_omp_dep *dep,
                           task_batch *runnable)
{
    dep_entry **link = find(table, dep->addr, d->team);
    dep_entry *e = *link;
    if (e == NULL)
        return; /* named twice: already left */
    remove_from(e, own_list(e, dep->kind), dep);
    remove_from(e, &e->set_before, dep);
    if (e->holder == d) {
        e->holder = NULL;
        hand_over(table, e, runnable);
    }
    if (e->writers.n == 0 && e->readers.n == 0 && e->set_before.n == 0 && e->holder == NULL && e->parked.n == 0) {
        *link = e->next;
        free_entry(e);
        table->entries--;
    }
}

void muster_omp_deps_release(muster_omp_dep_table *table, muster_omp_deps *d, void (*ready)(void *task, void *ctx),
                             void *ctx)
{
    task_batch runnable = {.n = 0}, retry = {.n = 0};
    muster_omp_mutex_lock(&table->lock);
    for (uint32_t i = 0; i < d->count; i++)
        unregister_one(table, d, &d->dep[i], &runnable);
    muster_omp_deps **successors = d->successors;
    uint32_t n = d->nsuccessors;
    d->successors = NULL;
    d->nsuccessors = d->successors_cap = 0;
    muster_omp_mutex_unlock(&table->lock);
    for (uint32_t s = 0; s < n; s++) {
        if (!count_down(successors[s]))
            continue;
        if (successors[s]->mutex)
            batch_add(&retry, successors[s]);
        else
            ready(successors[s]->task, ctx);
    }
    if (successors != d->first_successors)
        free(successors);
    if (batch_size(&retry) > 0) {
        /* Set members now free of predecessors: each holds its addresses,
         * or parks on a busy one. */
        muster_omp_mutex_lock(&table->lock);
        for (uint32_t i = 0; i < batch_size(&retry); i++)
            if (take_sets(table, batch_item(&retry, i)))
                batch_add(&runnable, batch_item(&retry, i));
        muster_omp_mutex_unlock(&table->lock);
        free(retry.more.items);
    }
    for (uint32_t i = 0; i < batch_size(&runnable); i++)
        ready(batch_item(&runnable, i)->task, ctx);
    free(runnable.more.items);
}
