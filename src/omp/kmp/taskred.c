/* Task reductions for clang-built code: task_reduction / in_reduction on a
 * taskgroup (and taskloop's reduction, which clang turns into one), and
 * the reduction(task, ...) modifier on parallel and worksharing loops.
 *
 * A reduction group holds, per item, one private copy per team member,
 * initialised at once with the compiler's init(priv, orig).  A task asks
 * for its thread's copy with __kmpc_task_reduction_get_th_data, naming the
 * item by the shared variable's address (any member's, for the modifier)
 * or by a private copy's.  Groups of a taskgroup are folded by the thread
 * that ends the group, after every task of it has finished: comb(shared,
 * copy) for each member's copy, then fini(copy).  A modifier's group is
 * shared by the team through a work share (the first member builds it,
 * every member adds its own shared variable, which is its private copy of
 * the construct's ordinary reduction); at its end each member, after a
 * team barrier (so every task of the group has run), folds its own copy
 * into its own variable, and clang's ordinary reduction that follows
 * combines the members.  The last member out frees the group. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "omp/kmp/kmp.h"
#include "omp/task/task.h"
#include "omp/workshare.h"

/* clang 14's kmp_taskred_input_t (56 bytes on LP64). */
typedef struct kmp_taskred_input {
    void *shar;
    void *orig;
    size_t size;
    void (*init)(void *priv, void *orig);
    void (*fini)(void *priv);
    void (*comb)(void *shar, void *priv);
    kmp_uint32 flags; /* bit 0: lazy private copies (allowed, not required) */
} kmp_taskred_input_t;

/* Ours, in flags: init is the older API's init(priv), one argument. */
#define RED_INIT_OF_PRIVATE_ONLY 0x80000000u

/* The older API's record (__kmpc_task_reduction_init, Intel's compilers):
 * no original, and an init of the private copy alone. */
typedef struct kmp_task_red_input {
    void *shar;
    size_t size;
    void (*init)(void *priv);
    void (*fini)(void *priv);
    void (*comb)(void *shar, void *priv);
    kmp_uint32 flags;
} kmp_task_red_input_t;

typedef struct red_item {
    kmp_taskred_input_t in;
    size_t stride;       /* bytes between members' copies */
    char *copies;        /* nthreads copies */
    void **shar_of;      /* modifier: each member's shared variable */
} red_item;

typedef struct red_group {
    struct red_group *outer; /* the thread's enclosing group, for get_th_data(NULL) */
    int depth;               /* taskgroup nesting depth it belongs to (taskgroup groups) */
    bool modifier;
    unsigned nthreads;
    _Atomic unsigned left;   /* modifier: members still to leave it */
    int nitems;
    red_item items[];
} red_group;

/* The calling thread's taskgroup depth and its innermost taskgroup reduction group. */
static _Thread_local int taskgroup_depth;
static _Thread_local red_group *innermost;

static unsigned team_size_now(void)
{
    return muster_ws_team_size(muster_omp_self());
}

static red_group *new_group(int num, const kmp_taskred_input_t *data, unsigned nthreads, bool modifier)
{
    if (num <= 0)
        muster_omp_fatal("a task reduction of %d items", num);
    red_group *g = calloc(1, sizeof *g + (size_t)num * sizeof(red_item));
    if (g == NULL)
        muster_omp_fatal("out of memory for a task reduction");
    g->nthreads = nthreads;
    g->nitems = num;
    g->modifier = modifier;
    atomic_init(&g->left, nthreads);
    for (int i = 0; i < num; i++) {
        red_item *it = &g->items[i];
        it->in = data[i];
        it->stride = (data[i].size + MUSTER_CACHE_LINE - 1) & ~(size_t)(MUSTER_CACHE_LINE - 1);
        if (it->stride == 0)
            it->stride = MUSTER_CACHE_LINE;
        it->copies = aligned_alloc(MUSTER_CACHE_LINE, it->stride * nthreads);
        it->shar_of = modifier ? calloc(nthreads, sizeof(void *)) : NULL;
        if (it->copies == NULL || (modifier && it->shar_of == NULL))
            muster_omp_fatal("out of memory for %u copies of a %zu-byte task reduction", nthreads, data[i].size);
        for (unsigned t = 0; t < nthreads; t++) {
            void *copy = it->copies + t * it->stride;
            if (it->in.init && (it->in.flags & RED_INIT_OF_PRIVATE_ONLY))
                ((void (*)(void *))(void (*)(void))it->in.init)(copy); /* stored by newer_records */
            else if (it->in.init)
                it->in.init(copy, it->in.orig ? it->in.orig : it->in.shar);
            else
                memset(copy, 0, it->in.size);
        }
    }
    return g;
}

static void free_group(red_group *g)
{
    for (int i = 0; i < g->nitems; i++) {
        free(g->items[i].copies);
        free(g->items[i].shar_of);
    }
    free(g);
}

static void *copy_of(red_item *it, unsigned t)
{
    return it->copies + (size_t)t * it->stride;
}

/* Whether `item` names this reduction item: a shared variable or a copy. */
static bool names_item(const red_group *g, const red_item *it, const void *item)
{
    const char *p = item;
    if (item == it->in.shar || item == it->in.orig)
        return true;
    if (p >= it->copies && p < it->copies + (size_t)g->nthreads * it->stride)
        return true;
    if (it->shar_of != NULL)
        for (unsigned t = 0; t < g->nthreads; t++)
            if (it->shar_of[t] == item)
                return true;
    return false;
}

MUSTER_OMP_EXPORT void *__kmpc_taskred_init(int gtid, int num, void *data)
{
    (void)gtid;
    red_group *g = new_group(num, data, team_size_now(), false);
    g->depth = taskgroup_depth;
    g->outer = innermost;
    innermost = g;
    return g;
}

MUSTER_OMP_EXPORT void *__kmpc_task_reduction_get_th_data(int gtid, void *tg, void *item)
{
    (void)gtid;
    unsigned t = muster_omp_self()->id;
    for (red_group *g = tg != NULL ? tg : innermost; g != NULL; g = g->outer) {
        for (int i = 0; i < g->nitems; i++)
            if (names_item(g, &g->items[i], item)) {
                if (t >= g->nthreads)
                    muster_omp_fatal("a task reduction's copy asked for by thread %u of a group made for %u", t,
                                     g->nthreads);
                return copy_of(&g->items[i], t);
            }
        if (tg != NULL && g->modifier)
            break;
    }
    muster_omp_fatal("in_reduction on %p, which no enclosing task reduction names", item);
}

/* ---- taskgroups: the group's end folds its reductions ---- */

MUSTER_OMP_EXPORT void __kmpc_taskgroup(ident_t *loc, kmp_int32 gtid)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    muster_omp_taskgroup_start();
    taskgroup_depth++;
}

MUSTER_OMP_EXPORT void __kmpc_end_taskgroup(ident_t *loc, kmp_int32 gtid)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    muster_omp_taskgroup_end();
    taskgroup_depth--;
    while (innermost != NULL && !innermost->modifier && innermost->depth > taskgroup_depth) {
        red_group *g = innermost;
        innermost = g->outer;
        for (int i = 0; i < g->nitems; i++) {
            red_item *it = &g->items[i];
            for (unsigned t = 0; t < g->nthreads; t++) {
                it->in.comb(it->in.shar, copy_of(it, t));
                if (it->in.fini)
                    it->in.fini(copy_of(it, t));
            }
        }
        free_group(g);
    }
}

/* ---- the reduction(task, ...) modifier ---- */

MUSTER_OMP_EXPORT void *__kmpc_taskred_modifier_init(ident_t *loc, int gtid, int is_ws, int num, void *data)
{
    (void)loc, (void)gtid, (void)is_ws;
    muster_omp_thread *self = muster_omp_self();
    muster_ws_member *m = muster_ws_member_begin(self);
    red_group *g;
    if (muster_ws_enter(self, m)) {
        g = new_group(num, data, muster_ws_team_size(self), true);
        m->slot->task_reductions = g;
        muster_ws_publish(self, m);
    } else {
        g = m->slot->task_reductions;
    }
    muster_ws_leave(self, m);
    const kmp_taskred_input_t *in = data;
    for (int i = 0; i < g->nitems && i < num; i++)
        g->items[i].shar_of[self->id] = in[i].shar;
    muster_omp_taskgroup_start();
    g->outer = innermost;
    innermost = g;
    return g;
}

MUSTER_OMP_EXPORT void __kmpc_task_reduction_modifier_fini(ident_t *loc, int gtid, int is_ws)
{
    (void)loc, (void)gtid, (void)is_ws;
    muster_omp_thread *self = muster_omp_self();
    red_group *g = innermost;
    if (g == NULL || !g->modifier)
        muster_omp_fatal("the end of a reduction(task) construct that did not begin");
    innermost = g->outer;
    muster_omp_taskgroup_end();
    muster_omp_team_barrier(self); /* every member's tasks of the group have run */
    for (int i = 0; i < g->nitems; i++) {
        red_item *it = &g->items[i];
        it->in.comb(it->shar_of[self->id], copy_of(it, self->id));
        if (it->in.fini)
            it->in.fini(copy_of(it, self->id));
    }
    /* acq_rel: pairs with the other members' acq_rel decrements of left here: each releases its
     * reads, and the last member out acquires them before it frees what the others read. */
    if (atomic_fetch_sub_explicit(&g->left, 1, memory_order_acq_rel) == 1)
        free_group(g);
}

/* ---- the older API: its records turned into the newer ones ---- */

static kmp_taskred_input_t *newer_records(int num, const kmp_task_red_input_t *old)
{
    if (num <= 0)
        muster_omp_fatal("a task reduction of %d items", num);
    kmp_taskred_input_t *in = calloc((size_t)num, sizeof *in);
    if (in == NULL)
        muster_omp_fatal("out of memory for a task reduction");
    for (int i = 0; i < num; i++)
        in[i] = (kmp_taskred_input_t){.shar = old[i].shar,
                                      .size = old[i].size,
                                      .init = (void (*)(void *, void *))(void (*)(void))old[i].init, /* called as it is */
                                      .fini = old[i].fini,
                                      .comb = old[i].comb,
                                      .flags = old[i].flags | RED_INIT_OF_PRIVATE_ONLY};
    return in;
}

MUSTER_OMP_EXPORT void *__kmpc_task_reduction_init(int gtid, int num, void *data)
{
    kmp_taskred_input_t *in = newer_records(num, data);
    void *g = __kmpc_taskred_init(gtid, num, in);
    free(in);
    return g;
}

MUSTER_OMP_EXPORT void *__kmpc_task_reduction_modifier_init(ident_t *loc, int gtid, int is_ws, int num, void *data)
{
    kmp_taskred_input_t *in = newer_records(num, data);
    void *g = __kmpc_taskred_modifier_init(loc, gtid, is_ws, num, in);
    free(in);
    return g;
}
