/* The work-share ring that every worksharing construct enters (see workshare.h). */
#include "omp/workshare.h"
#include "omp/warn.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct muster_omp_workshares {
    unsigned size;          /* members */
    unsigned capacity;      /* member records allocated */
    muster_census *census;  /* the team barrier's, as given to prepare */
    bool may_sleep;         /* publishers must use the sleep handshake */
    /* singles met by the team so far: one CAS per member per single. */
    alignas(MUSTER_CACHE_LINE) _Atomic uint64_t singles;
    muster_ws_slot slots[MUSTER_WS_RING];
    muster_ws_member members[]; /* size of them, indexed by thread number */
};

/* ---- team state ---- */

static void reset_workshares(muster_omp_workshares *ws)
{
    atomic_init(&ws->singles, 0);
    for (unsigned k = 0; k < MUSTER_WS_RING; k++) {
        muster_ws_slot *slot = &ws->slots[k];
        atomic_init(&slot->claim, 0);
        atomic_init(&slot->ready, 0);
        atomic_init(&slot->next, 0);
        atomic_init(&slot->ordered_turn, 0);
        atomic_init(&slot->lock_next, 0);
        atomic_init(&slot->lock_serving, 0);
        atomic_init(&slot->turn_sleepers, 0);
        atomic_init(&slot->departed, 0);
        atomic_init(&slot->reusable, 0);
    }
    for (unsigned i = 0; i < ws->size; i++) {
        muster_ws_member *m = &ws->members[i];
        m->slot = NULL;
        m->loop = NULL;
        m->next_slot = 0;
        m->lap = 0;
        m->singles = 0;
        m->holds_turn = false;
        m->serial = false;
        atomic_init(&m->turn_bell, 0);
        atomic_init(&m->turn_asleep_for, UINT64_MAX);
    }
}

/* The team's waiter (with the team barrier's census for the co-location
 * guard, waiter.c), each member's with its own census id. */
static void choose_waiters(muster_omp_workshares *ws, muster_census *census)
{
    muster_waiter waiter = muster_omp_waiter_for(ws->size, census);
    for (unsigned i = 0; i < ws->size; i++) {
        ws->members[i].waiter = waiter;
        ws->members[i].waiter.census_id = i;
    }
    ws->census = census;
    ws->may_sleep = waiter.policy != MUSTER_WAIT_ACTIVE;
}

static void free_slot_storage(muster_ws_slot *slot)
{
    free(slot->mem);
    free(slot->doacross_block);
    free((void *)slot->turn_ring);
    slot->mem = slot->doacross_block = NULL;
    slot->turn_ring = NULL;
    slot->turn_ring_size = 0;
    slot->mem_capacity = slot->doacross_capacity = 0;
    slot->doacross = NULL;
}

/* The state of a team that ran to its end is consistent as it stands (every
 * member left every slot at the same ring position), so a team of the same
 * size keeps it: the fork path touches nothing.  Another size resets it, in
 * place when the records fit, so a pool whose team size changes allocates
 * nothing once it has seen its largest team. */
int muster_omp_workshares_prepare(muster_omp_workshares **wsp, unsigned size, muster_census *census)
{
    muster_omp_workshares *ws = *wsp;
    if (ws != NULL && ws->size == size && ws->census == census)
        return 0;
    if (ws == NULL || ws->capacity < size) {
        size_t bytes = sizeof *ws + (size_t)size * sizeof ws->members[0];
        bytes = (bytes + MUSTER_CACHE_LINE - 1) / MUSTER_CACHE_LINE * MUSTER_CACHE_LINE;
        muster_omp_workshares *bigger = aligned_alloc(MUSTER_CACHE_LINE, bytes);
        if (bigger == NULL)
            return -1;
        memset(bigger, 0, bytes);
        bigger->capacity = size;
        muster_omp_workshares_free(ws);
        *wsp = ws = bigger;
    }
    ws->size = size;
    reset_workshares(ws);
    choose_waiters(ws, census);
    return 0;
}

void muster_omp_workshares_free(muster_omp_workshares *ws)
{
    if (ws == NULL)
        return;
    for (unsigned k = 0; k < MUSTER_WS_RING; k++)
        free_slot_storage(&ws->slots[k]);
    free(ws);
}

/* ---- serial records (teams of one) ---- */

typedef struct serial_record {
    muster_ws_member member; /* first: ws_private points at both */
    muster_ws_slot slot;
    struct serial_record *next_free;
} serial_record;

/* Records are reused: a construct in a team of one allocates nothing once
 * the thread has run one.  Nested teams of one inside a construct take a
 * second record, hence a list rather than one. */
static _Thread_local serial_record *free_records;

/* A thread's kept records are freed when it exits: a key whose destructor
 * runs in every thread that ever allocated one (pool workers and the
 * program's own threads alike). */
static pthread_key_t records_key;
static pthread_once_t records_key_once = PTHREAD_ONCE_INIT;

static void free_thread_records(void *unused)
{
    (void)unused;
    while (free_records != NULL) {
        serial_record *r = free_records;
        free_records = r->next_free;
        free(r);
    }
}

static void create_records_key(void)
{
    if (pthread_key_create(&records_key, free_thread_records) != 0)
        muster_omp_fatal("cannot create the key that frees work-share records");
}

static serial_record *serial_fresh(serial_record *r)
{
    r->member.slot = NULL;
    r->member.loop = NULL;
    r->member.holds_turn = false;
    r->member.serial = true;
    return r;
}

static serial_record *serial_take(void)
{
    serial_record *r = free_records;
    if (r != NULL) {
        free_records = r->next_free;
    } else {
        pthread_once(&records_key_once, create_records_key);
        /* Any non-NULL value makes the destructor run at this thread's exit. */
        pthread_setspecific(records_key, &free_records);
        r = aligned_alloc(MUSTER_CACHE_LINE, (sizeof *r + MUSTER_CACHE_LINE - 1) / MUSTER_CACHE_LINE * MUSTER_CACHE_LINE);
        if (r == NULL)
            muster_omp_fatal("out of memory for a work share");
        memset(r, 0, sizeof *r);
    }
    return serial_fresh(r);
}

static void serial_give_back(serial_record *r)
{
    r->next_free = free_records;
    free_records = r;
}

/* A combined construct's work share opened for a team of one, waiting for
 * its only member to join. */
static _Thread_local struct {
    muster_omp_team *team;
    serial_record *record;
} opened_serial;

/* ---- queries ---- */

static muster_omp_workshares *team_workshares(const muster_omp_thread *self)
{
    return self->team != NULL ? self->team->ws : NULL;
}

unsigned muster_ws_team_size(const muster_omp_thread *self)
{
    return self->team != NULL ? self->team->size : 1u;
}

unsigned muster_ws_thread_id(const muster_omp_thread *self)
{
    return self->team != NULL ? self->id : 0u;
}

static const muster_waiter serial_waiter = {.policy = MUSTER_WAIT_PASSIVE};

const muster_waiter *muster_ws_waiter(const muster_omp_thread *self)
{
    muster_omp_workshares *ws = team_workshares(self);
    return ws != NULL ? &ws->members[self->id].waiter : &serial_waiter;
}

bool muster_ws_may_sleep(const muster_omp_thread *self)
{
    muster_omp_workshares *ws = team_workshares(self);
    return ws != NULL ? ws->may_sleep : true;
}

/* ---- entering and leaving ---- */

muster_ws_member *muster_ws_member_begin(muster_omp_thread *self)
{
    muster_omp_workshares *ws = team_workshares(self);
    if (ws == NULL) {
        serial_record *r = serial_take();
        self->ws_private = &r->member;
        return &r->member;
    }
    /* NULL at a region's start: the record kept in the team takes over. */
    if (self->ws_private == NULL)
        self->ws_private = &ws->members[self->id];
    return (muster_ws_member *)self->ws_private;
}

static bool enter_team_slot(muster_omp_workshares *ws, muster_ws_member *m)
{
    unsigned k = m->next_slot;
    uint32_t lap = m->lap;
    m->next_slot = (k + 1u) & (MUSTER_WS_RING - 1u);
    if (m->next_slot == 0)
        m->lap = muster_episode_next(lap);
    muster_ws_slot *slot = &ws->slots[k];
    m->slot = slot;
    m->slot_lap = lap;
    /* Lapping the ring: wait until everyone has left the slot's previous use. */
    muster_wait_reach(&slot->reusable, lap, &m->waiter);
    uint32_t claimed = muster_episode_next(lap);
    /* relaxed: only a hint to skip the CAS; the CAS and `ready` order things. */
    uint32_t seen = atomic_load_explicit(&slot->claim, memory_order_relaxed);
    if (seen != claimed) {
        uint32_t expected = lap;
        /* relaxed: the claim only elects the initialiser; what it writes is published by `ready`
         * (the release in muster_ws_publish()) and read after it (muster_wait_reach() below). */
        if (atomic_compare_exchange_strong_explicit(&slot->claim, &expected, claimed, memory_order_relaxed,
                                                    memory_order_relaxed))
            return true;
    }
    muster_wait_reach(&slot->ready, claimed, &m->waiter);
    return false;
}

bool muster_ws_enter(muster_omp_thread *self, muster_ws_member *m)
{
    self->ws_sequence++;
    if (m->serial) {
        m->slot = &((serial_record *)m)->slot;
        return true;
    }
    return enter_team_slot(team_workshares(self), m);
}

void muster_ws_publish(muster_omp_thread *self, muster_ws_member *m)
{
    if (m->serial)
        return;
    muster_omp_workshares *ws = team_workshares(self);
    muster_flag_publish(&m->slot->ready, muster_episode_next(m->slot_lap), ws->may_sleep);
}

static void leave_team_slot(muster_omp_workshares *ws, muster_ws_member *m)
{
    muster_ws_slot *slot = m->slot;
    m->slot = NULL;
    /* acq_rel: pairs with the other members' acq_rel increments of departed here: each member's
     * use of the slot happens before the last departure (release), and the last departer sees all
     * of them (acquire) before it hands the slot to the next lap through `reusable` below. */
    unsigned before = atomic_fetch_add_explicit(&slot->departed, 1, memory_order_acq_rel);
    if (before + 1u < ws->size)
        return;
    /* relaxed: published to the next lap's members by `reusable` below. */
    atomic_store_explicit(&slot->departed, 0, memory_order_relaxed);
    muster_flag_publish(&slot->reusable, muster_episode_next(m->slot_lap), ws->may_sleep);
}

void muster_ws_leave(muster_omp_thread *self, muster_ws_member *m)
{
    m->loop = NULL;
    m->holds_turn = false;
    if (m->serial) {
        m->slot = NULL;
        self->ws_private = NULL;
        serial_give_back((serial_record *)m);
        return;
    }
    if (m->slot != NULL)
        leave_team_slot(team_workshares(self), m);
}

/* ---- work shares opened by combined constructs ---- */

muster_ws_slot *muster_ws_open_for_team(muster_omp_team *team)
{
    if (team->ws == NULL) {
        /* A record still here was opened for a construct whose only member
         * never joined it: gfortran's GOMP_parallel_loop_static for a loop
         * over 8-byte integers whose schedule it computes inline.  Taking a
         * new one would lose it. */
        serial_record *r = opened_serial.record != NULL ? serial_fresh(opened_serial.record) : serial_take();
        opened_serial.team = team;
        opened_serial.record = r;
        return &r->slot;
    }
    /* Every member sits at the same ring position at a region's start, and
     * nobody runs yet: the slot there is free and unclaimed. */
    muster_omp_workshares *ws = team->ws;
    muster_ws_member *first = &ws->members[0];
    muster_ws_slot *slot = &ws->slots[first->next_slot];
    /* relaxed: the members start after the fork, which orders this. */
    atomic_store_explicit(&slot->claim, muster_episode_next(first->lap), memory_order_relaxed);
    return slot;
}

void muster_ws_open_done(muster_omp_team *team, muster_ws_slot *slot)
{
    if (team->ws == NULL)
        return;
    muster_omp_workshares *ws = team->ws;
    muster_flag_publish(&slot->ready, muster_episode_next(ws->members[0].lap), ws->may_sleep);
}

muster_ws_member *muster_ws_join_opened(muster_omp_thread *self)
{
    muster_omp_workshares *ws = team_workshares(self);
    if (ws == NULL) {
        if (opened_serial.team == NULL || opened_serial.team != self->team)
            return NULL;
        serial_record *r = opened_serial.record;
        opened_serial.team = NULL;
        opened_serial.record = NULL;
        self->ws_private = &r->member;
        self->ws_sequence++;
        r->member.slot = &r->slot;
        return &r->member;
    }
    muster_ws_member *m = muster_ws_member_begin(self);
    if (muster_ws_enter(self, m))
        muster_omp_fatal("a combined construct's work share was not opened before the team started");
    return m;
}

/* ---- storage an initialiser hands to the team ---- */

void *muster_ws_slot_memory(muster_ws_slot *slot, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (bytes > slot->mem_capacity) {
        free(slot->mem);
        slot->mem_capacity = 0;
        slot->mem = malloc(bytes);
        if (slot->mem == NULL)
            return NULL;
        slot->mem_capacity = bytes;
    }
    memset(slot->mem, 0, bytes);
    return slot->mem;
}

muster_ws_doacross *muster_ws_slot_doacross(muster_ws_slot *slot, unsigned ncounts, unsigned nthreads)
{
    size_t streams_bytes = (size_t)nthreads * sizeof(muster_ws_stream);
    size_t header = (sizeof(muster_ws_doacross) + (size_t)ncounts * sizeof(uint64_t) + MUSTER_CACHE_LINE - 1) /
                    MUSTER_CACHE_LINE * MUSTER_CACHE_LINE;
    size_t bytes = header + streams_bytes;
    if (bytes > slot->doacross_capacity) {
        free(slot->doacross_block);
        slot->doacross_capacity = 0;
        slot->doacross_block = aligned_alloc(MUSTER_CACHE_LINE, bytes);
        if (slot->doacross_block == NULL)
            return NULL;
        slot->doacross_capacity = bytes;
    }
    memset(slot->doacross_block, 0, bytes);
    muster_ws_doacross *d = slot->doacross_block;
    d->ncounts = ncounts;
    d->counts = (uint64_t *)(d + 1);
    d->streams = (muster_ws_stream *)((char *)slot->doacross_block + header);
    return d;
}

/* ---- single ---- */

bool muster_ws_single_claim(muster_omp_thread *self)
{
    muster_omp_workshares *ws = team_workshares(self);
    if (ws == NULL)
        return true;
    muster_ws_member *m = muster_ws_member_begin(self);
    uint64_t mine = m->singles++;
    /* A member that is behind finds the counter already past `mine`. */
    uint64_t expected = mine;
    /* relaxed: electing the winner orders no data; copyprivate, the only
     * data a single hands on, goes through a slot's `ready` instead. */
    if (atomic_load_explicit(&ws->singles, memory_order_relaxed) != mine)
        return false;
    /* relaxed: as the load above; the CAS's atomicity elects one winner. */
    return atomic_compare_exchange_strong_explicit(&ws->singles, &expected, mine + 1u, memory_order_relaxed,
                                                   memory_order_relaxed);
}
