/* Concurrency Kit's five barriers, set up the way CK's own regression
 * programs set them up: the shared structures allocated once, each thread's
 * state on that thread's stack (in its bench_slot), subscribed by the thread
 * itself, and nothing padded beyond what CK's types declare.  All five spin
 * (ck_pr_stall) and never sleep. */
#include "bench_impl.h"

#ifdef MUSTER_BENCH_HAVE_CK

#include <ck_barrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Threads per combining group: CK leaves the grouping to the user; four
 * neighbouring threads per leaf matches muster's default fan-in. */
enum { CK_COMBINING_GROUP = 4 };

static int out_of_memory(char err[BENCH_ERR_LEN])
{
    snprintf(err, BENCH_ERR_LEN, "out of memory");
    return -1;
}

/* CK's group type is cache-line aligned; honour its declared alignment. */
static void *alloc_aligned(size_t align, size_t size)
{
    size_t rounded = (size + align - 1) / align * align;
    return aligned_alloc(align, rounded);
}

/* ---- centralized -------------------------------------------------------- */

/* CK's call takes the team size on every wait; it travels with the barrier. */
struct central_shared {
    ck_barrier_centralized_t barrier;
    unsigned n;
};
struct central_slot {
    ck_barrier_centralized_t *barrier;
    unsigned n;
    ck_barrier_centralized_state_t state;
};
_Static_assert(sizeof(struct central_slot) <= BENCH_SLOT_BYTES, "slot too small");

static int central_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    struct central_shared *c = malloc(sizeof *c);
    if (c == NULL)
        return out_of_memory(err);
    c->barrier = (ck_barrier_centralized_t)CK_BARRIER_CENTRALIZED_INITIALIZER;
    c->n = n;
    *shared = c;
    return 0;
}

static int central_attach(void *shared, unsigned id, bench_slot *slot, char err[BENCH_ERR_LEN])
{
    struct central_shared *c = shared;
    struct central_slot *s = (struct central_slot *)slot->bytes;
    s->barrier = &c->barrier;
    s->n = c->n;
    s->state = (ck_barrier_centralized_state_t)CK_BARRIER_CENTRALIZED_STATE_INITIALIZER;
    return 0;
}

static int central_wait(bench_slot *slot)
{
    struct central_slot *s = (struct central_slot *)slot->bytes;
    ck_barrier_centralized(s->barrier, &s->state, s->n);
    return 0;
}

static void free_shared(void *shared, unsigned n) { free(shared); }

static double central_bytes(void *shared, unsigned n)
{
    return (double)sizeof(struct central_shared) / n + sizeof(ck_barrier_centralized_state_t);
}

/* ---- combining tree ----------------------------------------------------- */

struct combining_shared {
    ck_barrier_combining_t barrier;
    ck_barrier_combining_group_t *root;
    ck_barrier_combining_group_t *groups;
    unsigned ngroups;
};
struct combining_slot {
    ck_barrier_combining_t *barrier;
    ck_barrier_combining_group_t *group;
    ck_barrier_combining_state_t state;
};
_Static_assert(sizeof(struct combining_slot) <= BENCH_SLOT_BYTES, "slot too small");

static void combining_destroy(void *shared, unsigned n)
{
    struct combining_shared *c = shared;
    free(c->groups);
    free(c->root);
    free(c);
}

static int combining_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    size_t align = _Alignof(ck_barrier_combining_group_t);
    unsigned ngroups = (n + CK_COMBINING_GROUP - 1) / CK_COMBINING_GROUP;
    struct combining_shared *c = calloc(1, sizeof *c);
    if (c == NULL)
        return out_of_memory(err);
    c->ngroups = ngroups;
    c->root = alloc_aligned(align, sizeof *c->root);
    c->groups = alloc_aligned(align, ngroups * sizeof *c->groups);
    if (c->root == NULL || c->groups == NULL) {
        combining_destroy(c, n);
        return out_of_memory(err);
    }
    ck_barrier_combining_init(&c->barrier, c->root);
    for (unsigned g = 0; g < ngroups; g++) {
        unsigned members = n - g * CK_COMBINING_GROUP;
        if (members > CK_COMBINING_GROUP)
            members = CK_COMBINING_GROUP;
        ck_barrier_combining_group_init(&c->barrier, &c->groups[g], members);
    }
    *shared = c;
    return 0;
}

static int combining_attach(void *shared, unsigned id, bench_slot *slot, char err[BENCH_ERR_LEN])
{
    struct combining_shared *c = shared;
    struct combining_slot *s = (struct combining_slot *)slot->bytes;
    s->barrier = &c->barrier;
    s->group = &c->groups[id / CK_COMBINING_GROUP];
    s->state = (ck_barrier_combining_state_t)CK_BARRIER_COMBINING_STATE_INITIALIZER;
    return 0;
}

static int combining_wait(bench_slot *slot)
{
    struct combining_slot *s = (struct combining_slot *)slot->bytes;
    ck_barrier_combining(s->barrier, s->group, &s->state);
    return 0;
}

static double combining_bytes(void *shared, unsigned n)
{
    const struct combining_shared *c = shared;
    double groups = (c->ngroups + 1.0) * sizeof(ck_barrier_combining_group_t);
    return (sizeof(ck_barrier_combining_t) + groups) / n + sizeof(ck_barrier_combining_state_t);
}

/* ---- dissemination ------------------------------------------------------ */

struct dissemination_shared {
    ck_barrier_dissemination_t *barrier; /* one per thread, as CK requires */
    ck_barrier_dissemination_flag_t **flags;
    unsigned n;
};
struct dissemination_slot {
    ck_barrier_dissemination_t *barrier;
    ck_barrier_dissemination_state_t state;
};
_Static_assert(sizeof(struct dissemination_slot) <= BENCH_SLOT_BYTES, "slot too small");

static void dissemination_destroy(void *shared, unsigned n)
{
    struct dissemination_shared *d = shared;
    for (unsigned i = 0; d->flags != NULL && i < n; i++)
        free(d->flags[i]);
    free(d->flags);
    free(d->barrier);
    free(d);
}

static int dissemination_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    unsigned size = ck_barrier_dissemination_size(n);
    struct dissemination_shared *d = calloc(1, sizeof *d);
    if (d == NULL)
        return out_of_memory(err);
    d->n = n;
    d->barrier = malloc(n * sizeof *d->barrier);
    d->flags = calloc(n, sizeof *d->flags);
    int ok = d->barrier != NULL && d->flags != NULL;
    for (unsigned i = 0; ok && i < n; i++)
        ok = (d->flags[i] = malloc(size * sizeof **d->flags)) != NULL;
    if (!ok) {
        dissemination_destroy(d, n);
        return out_of_memory(err);
    }
    ck_barrier_dissemination_init(d->barrier, d->flags, n);
    *shared = d;
    return 0;
}

static int dissemination_attach(void *shared, unsigned id, bench_slot *slot, char err[BENCH_ERR_LEN])
{
    struct dissemination_shared *d = shared;
    struct dissemination_slot *s = (struct dissemination_slot *)slot->bytes;
    s->barrier = d->barrier;
    ck_barrier_dissemination_subscribe(d->barrier, &s->state);
    return 0;
}

static int dissemination_wait(bench_slot *slot)
{
    struct dissemination_slot *s = (struct dissemination_slot *)slot->bytes;
    ck_barrier_dissemination(s->barrier, &s->state);
    return 0;
}

static double dissemination_bytes(void *shared, unsigned n)
{
    double flags = (double)ck_barrier_dissemination_size(n) * sizeof(ck_barrier_dissemination_flag_t);
    return sizeof(ck_barrier_dissemination_t) + sizeof(ck_barrier_dissemination_flag_t *) + flags +
           sizeof(ck_barrier_dissemination_state_t);
}

/* ---- MCS tree ----------------------------------------------------------- */

struct mcs_slot {
    ck_barrier_mcs_t *barrier;
    ck_barrier_mcs_state_t state;
};
_Static_assert(sizeof(struct mcs_slot) <= BENCH_SLOT_BYTES, "slot too small");

static int mcs_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    ck_barrier_mcs_t *b = malloc(n * sizeof *b); /* one node per thread */
    if (b == NULL)
        return out_of_memory(err);
    ck_barrier_mcs_init(b, n);
    *shared = b;
    return 0;
}

static int mcs_attach(void *shared, unsigned id, bench_slot *slot, char err[BENCH_ERR_LEN])
{
    struct mcs_slot *s = (struct mcs_slot *)slot->bytes;
    s->barrier = shared;
    ck_barrier_mcs_subscribe(shared, &s->state);
    return 0;
}

static int mcs_wait(bench_slot *slot)
{
    struct mcs_slot *s = (struct mcs_slot *)slot->bytes;
    ck_barrier_mcs(s->barrier, &s->state);
    return 0;
}

static double mcs_bytes(void *shared, unsigned n)
{
    return (double)sizeof(ck_barrier_mcs_t) + sizeof(ck_barrier_mcs_state_t);
}

/* ---- tournament --------------------------------------------------------- */

struct tournament_shared {
    ck_barrier_tournament_t barrier;
    ck_barrier_tournament_round_t **rounds; /* one array of rounds per thread */
};
struct tournament_slot {
    ck_barrier_tournament_t *barrier;
    ck_barrier_tournament_state_t state;
};
_Static_assert(sizeof(struct tournament_slot) <= BENCH_SLOT_BYTES, "slot too small");

static void tournament_destroy(void *shared, unsigned n)
{
    struct tournament_shared *t = shared;
    for (unsigned i = 0; t->rounds != NULL && i < n; i++)
        free(t->rounds[i]);
    free(t->rounds);
    free(t);
}

static int tournament_create(void **shared, unsigned n, const void *arg, char err[BENCH_ERR_LEN])
{
    unsigned size = ck_barrier_tournament_size(n);
    struct tournament_shared *t = calloc(1, sizeof *t);
    if (t == NULL)
        return out_of_memory(err);
    t->rounds = calloc(n, sizeof *t->rounds);
    int ok = t->rounds != NULL;
    for (unsigned i = 0; ok && i < n; i++)
        ok = (t->rounds[i] = malloc(size * sizeof **t->rounds)) != NULL;
    if (!ok) {
        tournament_destroy(t, n);
        return out_of_memory(err);
    }
    ck_barrier_tournament_init(&t->barrier, t->rounds, n);
    *shared = t;
    return 0;
}

static int tournament_attach(void *shared, unsigned id, bench_slot *slot, char err[BENCH_ERR_LEN])
{
    struct tournament_shared *t = shared;
    struct tournament_slot *s = (struct tournament_slot *)slot->bytes;
    s->barrier = &t->barrier;
    ck_barrier_tournament_subscribe(&t->barrier, &s->state);
    return 0;
}

static int tournament_wait(bench_slot *slot)
{
    struct tournament_slot *s = (struct tournament_slot *)slot->bytes;
    ck_barrier_tournament(s->barrier, &s->state);
    return 0;
}

static double tournament_bytes(void *shared, unsigned n)
{
    double rounds = (double)ck_barrier_tournament_size(n) * sizeof(ck_barrier_tournament_round_t);
    return (double)sizeof(ck_barrier_tournament_t) / n + sizeof(ck_barrier_tournament_round_t *) +
           rounds + sizeof(ck_barrier_tournament_state_t);
}

/* ---- the table ---------------------------------------------------------- */

#define CK_IMPL(label_, create_, attach_, wait_, destroy_, bytes_) \
    {                                                             \
        .name = label_, .family = "ck", .create = create_,        \
        .attach = attach_, .wait = wait_, .destroy = destroy_,    \
        .state_bytes = bytes_,                                    \
    }

const bench_impl bench_ck[] = {
    CK_IMPL("ck-centralized", central_create, central_attach, central_wait, free_shared, central_bytes),
    CK_IMPL("ck-combining", combining_create, combining_attach, combining_wait, combining_destroy,
            combining_bytes),
    CK_IMPL("ck-dissemination", dissemination_create, dissemination_attach, dissemination_wait,
            dissemination_destroy, dissemination_bytes),
    CK_IMPL("ck-mcs", mcs_create, mcs_attach, mcs_wait, free_shared, mcs_bytes),
    CK_IMPL("ck-tournament", tournament_create, tournament_attach, tournament_wait, tournament_destroy,
            tournament_bytes),
};
const size_t bench_ck_count = sizeof bench_ck / sizeof bench_ck[0];

#else

const bench_impl bench_ck[1];
const size_t bench_ck_count = 0;

#endif
