/* Random task dependence graphs, checked against the serial order.
 *
 * Each graph is GRAPH_TASKS tasks over SLOTS addresses; each task has one
 * of several shapes of depend clauses (in, out, inout, several at once, a
 * depobj, mutexinoutset on one address or two, an undeferred if(0) task,
 * one address named four times), chosen at random, and a random short busy
 * delay.  Writers fold their task number into the slot's value; readers
 * record the value they saw.  Two oracles:
 *   - when a task starts, every earlier task it conflicts with (shares a
 *     slot with, one of them writing; two mutexinoutset tasks do not
 *     conflict, they exclude each other) has finished;
 *   - the slots' final values and every value a reader saw equal those of
 *     running the tasks one after another in creation order.
 * and mutexinoutset tasks on one slot never overlap.  Graphs are made by
 * one thread (single) and, in the last round, by every thread at once
 * (each its own graph: the implicit tasks as parents).
 *
 * One single-creator round is wide: a head task holds address 0 for
 * HEAD_HOLD_MS, then one task per other address reads address 0 and
 * writes its own (WIDE_SLOTS in all), then random tasks over those.  While
 * the head runs, hundreds of addresses wait in the runtime's dependence
 * table, which grows meanwhile; a task whose edge got lost on the way
 * would start before its predecessor ended (an order error) -- where a
 * second thread is free to run it. */
#include "corpus.h"

#include <stdatomic.h>
#include <stdbool.h>

#define SLOTS 7
#define GRAPH_TASKS 300
#define WIDE_SLOTS 400
#define WIDE_TASKS 2000
#define HEAD_HOLD_MS 20
#define GRAPHS 12
#define MAX_THREADS 64

enum shape {
    IN_OUT,     /* in(x) out(y) */
    INOUT,      /* inout(x) */
    TWO_IN_ONE_INOUT, /* in(x, y) inout(z) */
    IN,         /* in(x) */
    DEPOBJ,     /* depobj(o) holding inout(x) */
    MUTEX,      /* mutexinoutset(x) */
    MUTEX_TWO,  /* mutexinoutset(x, y): a member of two sets at once */
    UNDEFERRED, /* if(0) inout(x) */
    REPEATED,   /* in(x) inout(x) in(x, x): one address named four times */
    SHAPES
};

typedef struct task_spec {
    enum shape shape;
    int x, y, z;
    unsigned delay; /* busy loop steps */
} task_spec;

typedef struct graph {
    int tasks, slots;
    task_spec spec[WIDE_TASKS];
    /* what the run saw */
    long slot[WIDE_SLOTS];
    long seen[WIDE_TASKS]; /* value of slot x when a reader (or writer) started */
    atomic_int done[WIDE_TASKS];
    atomic_int mutex_running[WIDE_SLOTS];
    bool wide; /* task 0 is the head */
    atomic_int order_errors, overlap_errors;
} graph;

static graph graphs[MAX_THREADS];

static long fold(long value, int task)
{
    return (value * 31 + task + 1) % 1000000007L;
}

static bool is_mutex(const task_spec *s)
{
    return s->shape == MUTEX || s->shape == MUTEX_TWO;
}

/* What a writer leaves in its slot.  mutexinoutset tasks of one set may
 * run in any order, so theirs is an addition (they commute); everyone
 * else's depends on the order. */
static long update(const task_spec *s, long value, int task)
{
    return is_mutex(s) ? (value + task + 1) % 1000000007L : fold(value, task);
}

static int reads(const task_spec *s, int slot)
{
    switch (s->shape) {
    case IN_OUT: return s->x == slot;
    case TWO_IN_ONE_INOUT: return s->x == slot || s->y == slot;
    case IN: return s->x == slot;
    default: return 0;
    }
}

static int writes(const task_spec *s, int slot)
{
    switch (s->shape) {
    case IN_OUT: return s->y == slot;
    case TWO_IN_ONE_INOUT: return s->z == slot;
    case INOUT: case DEPOBJ: case MUTEX: case UNDEFERRED: case REPEATED: return s->x == slot;
    case MUTEX_TWO: return s->x == slot || s->y == slot;
    default: return 0;
    }
}

/* Whether task j (earlier) must finish before task i starts: only the
 * slots j names (x, y, z) can be shared. */
static int conflict(const task_spec *j, const task_spec *i)
{
    if (is_mutex(j) && is_mutex(i))
        return 0; /* a mutexinoutset set: exclusion, no order */
    const int named[3] = {j->x, j->y, j->z};
    for (int k = 0; k < 3; k++) {
        int s = named[k];
        if ((writes(j, s) && (reads(i, s) || writes(i, s))) || (reads(j, s) && writes(i, s)))
            return 1;
    }
    return 0;
}

/* Random tasks from `first` on, over slots [low, low + n). */
static void random_tasks(graph *g, uint64_t seed, int first, int low, unsigned n)
{
    for (int i = first; i < g->tasks; i++) {
        task_spec *s = &g->spec[i];
        s->shape = (enum shape)(corpus_rand(&seed) % SHAPES);
        int x = (int)(corpus_rand(&seed) % n);
        int y = (int)((x + 1 + corpus_rand(&seed) % (n - 1)) % n);
        int z = (int)((y + 1 + corpus_rand(&seed) % (n - 1)) % n);
        if (z == x)
            z = (z + 1) % (int)n == y ? (z + 2) % (int)n : (z + 1) % (int)n;
        s->x = low + x, s->y = low + y, s->z = low + z;
        s->delay = (unsigned)(corpus_rand(&seed) % 2000);
    }
}

static void make_graph(graph *g, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->tasks = GRAPH_TASKS;
    g->slots = SLOTS;
    random_tasks(g, seed, 0, 0, SLOTS);
}

/* The wide round's graph: the head, the openers, then random tasks. */
static void make_wide_graph(graph *g, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->tasks = WIDE_TASKS;
    g->slots = WIDE_SLOTS;
    g->wide = true;
    g->spec[0] = (task_spec){INOUT, 0, 1, 2, 0};
    for (int k = 1; k < WIDE_SLOTS; k++)
        g->spec[k] = (task_spec){IN_OUT, 0, k, k == 1 ? 2 : 1, 0};
    random_tasks(g, seed, WIDE_SLOTS, 1, WIDE_SLOTS - 1);
}

static void hold_head(void)
{
    double end = omp_get_wtime() + HEAD_HOLD_MS * 1e-3;
    while (omp_get_wtime() < end)
        ;
}

/* The body every task runs, whatever its clauses. */
static void body(graph *g, int i)
{
    const task_spec *s = &g->spec[i];
    for (int j = 0; j < i; j++)
        if (conflict(&g->spec[j], s) && !atomic_load(&g->done[j]))
            atomic_fetch_add(&g->order_errors, 1);
    for (int k = 0; k < 2 && is_mutex(s); k++)
        if ((k == 0 || s->shape == MUTEX_TWO) && atomic_exchange(&g->mutex_running[k == 0 ? s->x : s->y], 1) != 0)
            atomic_fetch_add(&g->overlap_errors, 1);
    for (volatile unsigned k = 0; k < s->delay; k++)
        ;
    if (g->wide && i == 0)
        hold_head();
    int first = s->shape == IN_OUT || s->shape == TWO_IN_ONE_INOUT || s->shape == IN ? s->x : -1;
    if (first >= 0)
        g->seen[i] = g->slot[first];
    const int named[3] = {s->x, s->y, s->z}; /* distinct */
    for (int k = 0; k < 3; k++)
        if (writes(s, named[k]))
            g->slot[named[k]] = update(s, g->slot[named[k]], i);
    if (is_mutex(s))
        atomic_store(&g->mutex_running[s->x], 0);
    if (s->shape == MUTEX_TWO)
        atomic_store(&g->mutex_running[s->y], 0);
    atomic_store(&g->done[i], 1);
}

static void create_tasks(graph *g)
{
    long *a = g->slot;
    (void)a; /* gcc 12 does not count a use in depend clauses */
    for (int i = 0; i < g->tasks; i++) {
        const task_spec *s = &g->spec[i];
        switch (s->shape) {
        case IN_OUT:
#pragma omp task depend(in : a[s->x]) depend(out : a[s->y]) firstprivate(i)
            body(g, i);
            break;
        case INOUT:
#pragma omp task depend(inout : a[s->x]) firstprivate(i)
            body(g, i);
            break;
        case TWO_IN_ONE_INOUT:
#pragma omp task depend(in : a[s->x], a[s->y]) depend(inout : a[s->z]) firstprivate(i)
            body(g, i);
            break;
        case IN:
#pragma omp task depend(in : a[s->x]) firstprivate(i)
            body(g, i);
            break;
        case DEPOBJ: {
            omp_depend_t o;
#pragma omp depobj(o) depend(inout : a[s->x])
#pragma omp task depend(depobj : o) firstprivate(i)
            body(g, i);
#pragma omp depobj(o) destroy
            break;
        }
        case MUTEX:
#pragma omp task depend(mutexinoutset : a[s->x]) firstprivate(i)
            body(g, i);
            break;
        case MUTEX_TWO:
#pragma omp task depend(mutexinoutset : a[s->x], a[s->y]) firstprivate(i)
            body(g, i);
            break;
        case UNDEFERRED:
#pragma omp task if (0) depend(inout : a[s->x]) firstprivate(i)
            body(g, i);
            break;
        case REPEATED:
#pragma omp task depend(in : a[s->x]) depend(inout : a[s->x]) depend(in : a[s->x], a[s->x]) firstprivate(i)
            body(g, i);
            break;
        default:
            break;
        }
    }
}

/* The serial run's results, for comparison. */
static void serial_results(const graph *g, long slot[WIDE_SLOTS], long seen[WIDE_TASKS])
{
    memset(slot, 0, WIDE_SLOTS * sizeof slot[0]);
    for (int i = 0; i < g->tasks; i++) {
        const task_spec *s = &g->spec[i];
        seen[i] = s->shape == IN_OUT || s->shape == TWO_IN_ONE_INOUT || s->shape == IN ? slot[s->x] : 0;
        const int named[3] = {s->x, s->y, s->z};
        for (int k = 0; k < 3; k++)
            if (writes(s, named[k]))
                slot[named[k]] = update(s, slot[named[k]], i);
    }
}

/* Checks one graph's run; returns its final values' hash. */
static long check_graph(graph *g, int round, int which)
{
    static long slot[WIDE_SLOTS], seen[WIDE_TASKS]; /* main's thread only */
    serial_results(g, slot, seen);
    CHECK_EQ(atomic_load(&g->order_errors), 0, "round %d graph %d: tasks that started before a predecessor ended",
             round, which);
    CHECK_EQ(atomic_load(&g->overlap_errors), 0, "round %d graph %d: overlapping mutexinoutset tasks", round,
             which);
    long hash = 0;
    for (int i = 0; i < g->tasks; i++) {
        CHECK_EQ(atomic_load(&g->done[i]), 1, "round %d graph %d: task %d ran", round, which, i);
        CHECK_EQ(g->seen[i], seen[i], "round %d graph %d: value task %d read", round, which, i);
    }
    for (int k = 0; k < g->slots; k++) {
        CHECK_EQ(g->slot[k], slot[k], "round %d graph %d: slot %d", round, which, k);
        hash = fold(hash, (int)(slot[k] % 1000));
    }
    return hash;
}

int main(void)
{
    corpus_begin("omp_task_depend");
    int threads = corpus_threads();
    CHECK(threads <= MAX_THREADS, "at most %d threads", MAX_THREADS);
    long hash = 0;
    int tasks = 0;
    /* One creator. */
    for (int round = 0; round <= GRAPHS; round++) {
        bool wide = round == GRAPHS; /* the last */
        if (wide)
            make_wide_graph(&graphs[0], corpus_seed((unsigned)round, 1));
        else
            make_graph(&graphs[0], corpus_seed((unsigned)round, 1));
#pragma omp parallel
#pragma omp single
        create_tasks(&graphs[0]);
        hash = fold(hash, (int)check_graph(&graphs[0], round, 0));
        tasks += graphs[0].tasks;
    }
    /* Every thread its own graph, and a taskwait inside the region. */
    for (int t = 0; t < threads; t++)
        make_graph(&graphs[t], corpus_seed(1000u + (unsigned)t, 2));
#pragma omp parallel
    {
        create_tasks(&graphs[omp_get_thread_num()]);
#pragma omp taskwait
        graph *g = &graphs[omp_get_thread_num()];
        for (int i = 0; i < g->tasks; i++)
            CHECK_EQ(atomic_load(&g->done[i]), 1, "task %d of thread %d done at its taskwait", i,
                     omp_get_thread_num());
    }
    for (int t = 0; t < threads; t++)
        check_graph(&graphs[t], GRAPHS + 1, t);
    corpus_summary("graphs=%d tasks=%d hash=%ld ok", GRAPHS, tasks, hash);
    return 0;
}
