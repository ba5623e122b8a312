/* The simulator: a discrete-event run of every participant's schedule on a
 * modelled machine.  See sim.h for the cost rules. */
#include "model/sim.h"
#include "error.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barrier/schedule.h"

#define NONE UINT32_MAX

typedef struct sim_thread {
    unsigned cpu;
    muster_schedule schedule;
    unsigned pc;
    unsigned episode;        /* 1-based, as the flags count them */
    uint32_t waiting_on;     /* flag offset while blocked, else NONE */
    uint32_t next_waiter;    /* next thread blocked on the same line */
    uint32_t next_in_lock;   /* next thread queued for the same lock */
} sim_thread;

typedef struct sim_line {
    uint32_t owner;          /* CPU of the last writer; NONE before any write */
    uint64_t *sharers;       /* CPUs holding a copy; allocated at first use */
    double busy_until;       /* writes to the line are serialised */
    unsigned readers;        /* fetches of the current version so far */
    uint32_t waiters;        /* head of the blocked-thread list */
} sim_line;

typedef struct sim_flag {
    uint32_t value;          /* episode published, or the counter */
    double visible_at;       /* when the last write lands */
    uint32_t holder;         /* LOCK: the thread holding it, else NONE */
    uint32_t queue_head, queue_tail;
} sim_flag;

typedef struct sim_event {
    double time;
    uint64_t order;          /* ties go first come, first served */
    uint32_t thread;
} sim_event;

typedef struct sim {
    const muster_machine *m;
    unsigned threads_count, words, line_shift_bytes;
    sim_thread *threads;
    sim_line *lines;
    size_t line_count;
    sim_flag *flags;         /* one per 4-byte word of the flag span */
    size_t flag_count;
    sim_event *heap;
    size_t heap_size, heap_capacity;
    uint64_t order;
    unsigned total_episodes;
    double *entered_last;    /* per episode: the last participant's entry */
    double *left_last;       /* per episode: the last participant's exit */
    double *all_arrived;     /* per episode: first ALL_ARRIVED */
    unsigned *entered;       /* per episode: participants that have entered */
    unsigned long early_exits;
    double transfers;
    bool out_of_memory;
} sim;

/* ---- the event queue: a binary heap on (time, order) ---- */

static bool earlier(const sim_event *a, const sim_event *b)
{
    return a->time < b->time || (a->time == b->time && a->order < b->order);
}

static void push(sim *s, uint32_t thread, double time)
{
    if (s->heap_size == s->heap_capacity) {
        size_t capacity = s->heap_capacity ? 2 * s->heap_capacity : 64;
        sim_event *grown = realloc(s->heap, capacity * sizeof *grown);
        if (grown == NULL) {
            s->out_of_memory = true;
            return;
        }
        s->heap = grown;
        s->heap_capacity = capacity;
    }
    size_t at = s->heap_size++;
    sim_event e = {time, s->order++, thread};
    while (at > 0 && earlier(&e, &s->heap[(at - 1) / 2])) {
        s->heap[at] = s->heap[(at - 1) / 2];
        at = (at - 1) / 2;
    }
    s->heap[at] = e;
}

static sim_event pop(sim *s)
{
    sim_event top = s->heap[0], last = s->heap[--s->heap_size];
    size_t at = 0;
    for (;;) {
        size_t child = 2 * at + 1;
        if (child >= s->heap_size)
            break;
        if (child + 1 < s->heap_size && earlier(&s->heap[child + 1], &s->heap[child]))
            child++;
        if (!earlier(&s->heap[child], &last))
            break;
        s->heap[at] = s->heap[child];
        at = child;
    }
    if (s->heap_size > 0)
        s->heap[at] = last;
    return top;
}

/* ---- cache lines ---- */

static sim_line *line_of(sim *s, uint32_t flag)
{
    return &s->lines[flag / s->m->cache_line_bytes];
}

static uint64_t *sharers_of(sim *s, sim_line *line)
{
    if (line->sharers == NULL) {
        line->sharers = calloc(s->words, sizeof(uint64_t));
        if (line->sharers == NULL)
            s->out_of_memory = true;
    }
    return line->sharers;
}

static bool holds(sim *s, sim_line *line, unsigned cpu)
{
    uint64_t *set = sharers_of(s, line);
    return set != NULL && (set[cpu / 64] >> (cpu % 64)) & 1u;
}

static void add_sharer(sim *s, sim_line *line, unsigned cpu)
{
    uint64_t *set = sharers_of(s, line);
    if (set != NULL)
        set[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

static double latency(const sim *s, unsigned from, unsigned to)
{
    return muster_machine_latency(s->m, from, to);
}

static double alpha(const sim *s, unsigned from, unsigned to)
{
    const muster_layer *layer = muster_machine_layer(s->m, from, to);
    return layer != NULL ? layer->alpha : 0.0;
}

/* A read of the line by cpu: free if it holds a copy, else a fetch from
 * the last writer that contends with the other readers of this version. */
static double read_cost(sim *s, sim_line *line, unsigned cpu)
{
    if (line->owner == NONE || holds(s, line, cpu))
        return s->m->epsilon_ns;
    double cost = latency(s, cpu, line->owner) + s->m->contention_ns * line->readers;
    line->readers++;
    s->transfers += 1;
    add_sharer(s, line, cpu);
    return cost;
}

/* A write by cpu.  With no other copy it is local (epsilon).  Otherwise
 * every other copy must be invalidated and acknowledged: the farthest copy's
 * latency bounds that round trip (the invalidations travel in parallel, and
 * a line cpu does not hold comes from its owner, which is one of the
 * copies), and each copy adds alpha of its latency at the sender.  For n
 * copies at one layer this is the paper's W_R = (1 + n alpha) L. */
static double write_cost(sim *s, sim_line *line, unsigned cpu)
{
    double farthest = 0, invalidations = 0;
    const uint64_t *set = line->owner == NONE ? NULL : sharers_of(s, line);
    for (unsigned w = 0; set != NULL && w < s->words; w++)
        for (uint64_t bits = set[w]; bits != 0; bits &= bits - 1) {
            unsigned other = w * 64 + (unsigned)__builtin_ctzll(bits);
            if (other == cpu)
                continue;
            double l = latency(s, cpu, other);
            invalidations += alpha(s, cpu, other) * l;
            if (l > farthest)
                farthest = l;
        }
    if (farthest == 0)
        return s->m->epsilon_ns;
    s->transfers += 1;
    return farthest + invalidations;
}

static bool satisfied(const sim *s, const sim_thread *t)
{
    return s->flags[t->waiting_on / 4].value >= t->episode;
}

/* The line changed hands at time `at`: its copies are gone, and every
 * participant spinning on it fetches it again; those whose flag is now
 * published go on. */
static void wake_waiters(sim *s, sim_line *line, unsigned writer, double at)
{
    uint64_t *set = sharers_of(s, line);
    if (set != NULL)
        memset(set, 0, s->words * sizeof *set);
    add_sharer(s, line, writer);
    line->owner = writer;
    line->readers = 0;
    uint32_t still = NONE;
    for (uint32_t id = line->waiters; id != NONE;) {
        sim_thread *t = &s->threads[id];
        uint32_t next = t->next_waiter;
        double fetched = at + read_cost(s, line, t->cpu);
        if (satisfied(s, t)) {
            t->waiting_on = NONE;
            t->pc++;
            push(s, id, fetched);
        } else {
            t->next_waiter = still;
            still = id;
        }
        id = next;
    }
    line->waiters = still;
}

/* A write to flag by thread id at `now`; returns when it lands. */
static double write_flag(sim *s, uint32_t id, uint32_t flag, double now)
{
    sim_line *line = line_of(s, flag);
    double start = now > line->busy_until ? now : line->busy_until;
    double done = start + write_cost(s, line, s->threads[id].cpu);
    line->busy_until = done;
    s->flags[flag / 4].visible_at = done;
    return done;
}

static void commit(sim *s, uint32_t id, uint32_t flag, double done)
{
    wake_waiters(s, line_of(s, flag), s->threads[id].cpu, done);
}

/* ---- the steps ---- */

static void step_wait(sim *s, uint32_t id, const muster_step *step, double now)
{
    sim_thread *t = &s->threads[id];
    sim_flag *flag = &s->flags[step->flag / 4];
    sim_line *line = line_of(s, step->flag);
    t->waiting_on = step->flag;
    if (satisfied(s, t)) {
        double from = now > flag->visible_at ? now : flag->visible_at;
        t->waiting_on = NONE;
        t->pc++;
        push(s, id, from + read_cost(s, line, t->cpu));
        return;
    }
    /* Spin: hold a copy of the line until a write takes it away. */
    read_cost(s, line, t->cpu);
    t->next_waiter = line->waiters;
    line->waiters = id;
}

static void step_publish(sim *s, uint32_t id, const muster_step *step, double now)
{
    sim_thread *t = &s->threads[id];
    double done = write_flag(s, id, step->flag, now);
    s->flags[step->flag / 4].value = t->episode;
    commit(s, id, step->flag, done);
    t->pc++;
    push(s, id, done);
}

static void step_arrive(sim *s, uint32_t id, const muster_step *step, double now)
{
    sim_thread *t = &s->threads[id];
    double done = write_flag(s, id, step->flag, now);
    uint32_t arrived = ++s->flags[step->flag / 4].value;
    commit(s, id, step->flag, done);
    t->pc = arrived == step->count ? t->pc + 1 : step->next;
    push(s, id, done);
}

static void step_clear(sim *s, uint32_t id, const muster_step *step, double now)
{
    double done = write_flag(s, id, step->flag, now);
    s->flags[step->flag / 4].value = 0;
    commit(s, id, step->flag, done);
    s->threads[id].pc++;
    push(s, id, done);
}

static void grant_lock(sim *s, uint32_t id, uint32_t flag, double now)
{
    s->flags[flag / 4].holder = id;
    double done = write_flag(s, id, flag, now);
    commit(s, id, flag, done);
    s->threads[id].pc++;
    push(s, id, done);
}

static void step_lock(sim *s, uint32_t id, const muster_step *step, double now)
{
    sim_flag *lock = &s->flags[step->flag / 4];
    if (lock->holder == NONE) {
        grant_lock(s, id, step->flag, now);
        return;
    }
    s->threads[id].next_in_lock = NONE;
    if (lock->queue_head == NONE)
        lock->queue_head = id;
    else
        s->threads[lock->queue_tail].next_in_lock = id;
    lock->queue_tail = id;
}

static void step_unlock(sim *s, uint32_t id, const muster_step *step, double now)
{
    sim_flag *lock = &s->flags[step->flag / 4];
    double done = write_flag(s, id, step->flag, now);
    commit(s, id, step->flag, done);
    lock->holder = NONE;
    s->threads[id].pc++;
    push(s, id, done);
    uint32_t next = lock->queue_head;
    if (next != NONE) {
        lock->queue_head = s->threads[next].next_in_lock;
        grant_lock(s, next, step->flag, done);
    }
}

static void step_done(sim *s, uint32_t id, double now)
{
    sim_thread *t = &s->threads[id];
    unsigned e = t->episode - 1;
    if (s->entered[e] < s->threads_count)
        s->early_exits++; /* left before everyone entered: not a barrier */
    if (now > s->left_last[e])
        s->left_last[e] = now;
    if (t->episode == s->total_episodes)
        return; /* finished: no more events */
    t->episode++;
    t->pc = 0;
    push(s, id, now);
}

static void run_step(sim *s, uint32_t id, double now)
{
    sim_thread *t = &s->threads[id];
    if (t->pc == 0) {
        s->entered[t->episode - 1]++;
        if (now > s->entered_last[t->episode - 1])
            s->entered_last[t->episode - 1] = now;
    }
    const muster_step *step = &t->schedule.steps[t->pc];
    switch (step->kind) {
    case MUSTER_STEP_WAIT: step_wait(s, id, step, now); break;
    case MUSTER_STEP_PUBLISH: step_publish(s, id, step, now); break;
    case MUSTER_STEP_ARRIVE: step_arrive(s, id, step, now); break;
    case MUSTER_STEP_CLEAR: step_clear(s, id, step, now); break;
    case MUSTER_STEP_LOCK: step_lock(s, id, step, now); break;
    case MUSTER_STEP_UNLOCK: step_unlock(s, id, step, now); break;
    case MUSTER_STEP_ALL_ARRIVED: {
        double *first = &s->all_arrived[t->episode - 1];
        if (*first < 0 || now < *first)
            *first = now;
        t->pc++;
        push(s, id, now);
        break;
    }
    case MUSTER_STEP_DONE: step_done(s, id, now); break;
    }
}

/* ---- set-up and the run ---- */

static const char *algorithm_of(const muster_barrier *b)
{
    muster_barrier_attr attr;
    muster_barrier_get_attr(b, &attr);
    return muster_algorithm_name(attr.algorithm);
}

static void sim_free(sim *s)
{
    for (unsigned i = 0; s->threads != NULL && i < s->threads_count; i++)
        muster_schedule_free(&s->threads[i].schedule);
    for (size_t l = 0; s->lines != NULL && l < s->line_count; l++)
        free(s->lines[l].sharers);
    free(s->threads), free(s->lines), free(s->flags), free(s->heap);
    free(s->entered_last), free(s->left_last), free(s->all_arrived), free(s->entered);
}

static int sim_init(sim *s, const muster_machine *m, const muster_barrier *b, const muster_sim_options *o,
                    char *err, size_t len)
{
    unsigned n = muster_barrier_participants(b);
    memset(s, 0, sizeof *s);
    s->m = m;
    s->threads_count = n;
    s->words = (m->cpus + 63) / 64;
    s->total_episodes = (o->warmup ? o->warmup : 2) + (o->episodes ? o->episodes : 8);
    size_t span = muster_barrier_flag_span(b) + 4;
    s->flag_count = span / 4 + 1;
    s->line_count = span / m->cache_line_bytes + 1;
    s->threads = calloc(n, sizeof *s->threads);
    s->lines = calloc(s->line_count, sizeof *s->lines);
    s->flags = calloc(s->flag_count, sizeof *s->flags);
    s->entered_last = calloc(s->total_episodes, sizeof(double));
    s->left_last = calloc(s->total_episodes, sizeof(double));
    s->all_arrived = malloc(s->total_episodes * sizeof(double));
    s->entered = calloc(s->total_episodes, sizeof(unsigned));
    if (!s->entered || !s->threads || !s->lines || !s->flags || !s->entered_last || !s->left_last || !s->all_arrived)
        return muster_say(err, len, "no memory to simulate %u participants", n);
    for (unsigned e = 0; e < s->total_episodes; e++)
        s->all_arrived[e] = -1;
    for (size_t l = 0; l < s->line_count; l++)
        s->lines[l] = (sim_line){.owner = NONE, .waiters = NONE};
    for (size_t f = 0; f < s->flag_count; f++)
        s->flags[f] = (sim_flag){.holder = NONE, .queue_head = NONE, .queue_tail = NONE};
    for (unsigned i = 0; i < n; i++) {
        sim_thread *t = &s->threads[i];
        t->cpu = o->cpu_of ? o->cpu_of[i] : i;
        if (t->cpu >= m->cpus)
            return muster_say(err, len, "participant %u is placed on CPU index %u; the machine has %u", i, t->cpu,
                        m->cpus);
        t->episode = 1;
        t->waiting_on = NONE;
        if (muster_barrier_schedule(b, i, &t->schedule) != MUSTER_OK)
            return muster_say(err, len, "no schedule for participant %u: %s", i, muster_error_detail());
        for (unsigned k = 0; k < t->schedule.count; k++)
            if (t->schedule.steps[k].flag >= span - 4)
                return muster_say(err, len, "participant %u's step %u names flag offset %u, outside the %zu-byte arena",
                            i, k, t->schedule.steps[k].flag, span - 4);
    }
    return 0;
}

static void summarise(const sim *s, unsigned warmup, muster_sim_result *r)
{
    unsigned first = warmup, last = s->total_episodes - 1;
    double measured = last - first + 1;
    double arrival = 0, release = 0;
    for (unsigned e = first; e <= last; e++) {
        arrival += s->all_arrived[e] - s->entered_last[e];
        release += s->left_last[e] - s->all_arrived[e];
    }
    r->barrier_ns = (s->left_last[last] - s->left_last[first - 1]) / measured;
    r->arrival_ns = arrival / measured;
    r->release_ns = release / measured;
    r->transfers = s->transfers / s->total_episodes;
    r->early_exits = s->early_exits;
}

int muster_simulate(const muster_machine *m, const muster_barrier *b, const muster_sim_options *options,
                    muster_sim_result *result, char *err, size_t err_len)
{
    muster_sim_options defaults = {0};
    const muster_sim_options *o = options ? options : &defaults;
    unsigned n = muster_barrier_participants(b);
    if (o->cpu_of == NULL && n > m->cpus)
        return muster_say(err, err_len, "%u participants do not fit on %s's %u CPUs (one per CPU)", n, m->name, m->cpus);
    sim s;
    int rc = sim_init(&s, m, b, o, err, err_len);
    for (unsigned i = 0; rc == 0 && i < n; i++)
        push(&s, i, 0.0);
    while (rc == 0 && s.heap_size > 0 && !s.out_of_memory) {
        sim_event e = pop(&s);
        run_step(&s, e.thread, e.time);
    }
    if (rc == 0 && s.out_of_memory)
        rc = muster_say(err, err_len, "no memory while simulating %u participants", n);
    for (unsigned i = 0; rc == 0 && i < n; i++) {
        const sim_thread *t = &s.threads[i];
        if (t->episode != s.total_episodes || t->schedule.steps[t->pc].kind != MUSTER_STEP_DONE)
            rc = muster_say(err, err_len, "the %s schedule deadlocked: participant %u stuck at step %u of episode %u",
                      algorithm_of(b), i, t->pc, t->episode);
    }
    for (unsigned e = 0; rc == 0 && e < s.total_episodes; e++)
        if (s.all_arrived[e] < 0)
            rc = muster_say(err, err_len, "the %s schedule never marks all arrived in episode %u",
                      algorithm_of(b), e + 1);
    if (rc == 0)
        summarise(&s, o->warmup ? o->warmup : 2, result);
    sim_free(&s);
    return rc;
}
