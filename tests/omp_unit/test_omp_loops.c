/* Worksharing loops through the libgomp ABI, driven as gcc lowers them:
 * every iteration runs exactly once across the team, for every schedule,
 * chunk size, direction, empty loops, unsigned long long ranges near 2^64,
 * the combined forms, loops in teams of one and outside any region; the
 * chunk holding the last iteration ends exactly at `end` (lastprivate);
 * GOMP_loop_start's mem is one zeroed block for the team.
 *
 * Usage: test_omp_loops [long|ull|combined|serial|mem]  (no argument: all).
 * Thread counts 1, 2, 3, 5, 7, 8: odd sizes, and more threads than CPUs. */
#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include "gomp_abi.h"
#include "stress_common.h"

static const unsigned team_sizes[] = {1, 2, 3, 5, 7, 8};
#define TEAM_SIZES (sizeof team_sizes / sizeof team_sizes[0])

#define MAX_ITERATIONS 4096

/* ---- long loops ---- */

enum kind {
    KIND_STATIC, KIND_DYNAMIC, KIND_GUIDED, KIND_NONMONOTONIC_DYNAMIC, KIND_NONMONOTONIC_GUIDED,
    KIND_RUNTIME, KIND_MAYBE_NONMONOTONIC_RUNTIME,
    KIND_GENERIC_STATIC, KIND_GENERIC_DYNAMIC, KIND_GENERIC_GUIDED, KIND_GENERIC_MONOTONIC_DYNAMIC,
    KIND_GENERIC_RUNTIME, KIND_COUNT
};

typedef struct loop_job {
    long start, end, incr, chunk;
    long count;                /* iterations the loop has */
    enum kind kind;
    bool nowait, delays;
    _Atomic unsigned hits[MAX_ITERATIONS];
    _Atomic int last_chunks;   /* chunks that held the last iteration */
} loop_job;

static long iterations(long start, long end, long incr)
{
    unsigned long a = (unsigned long)start, b = (unsigned long)end;
    if (incr > 0)
        return start < end ? (long)((b - a - 1) / (unsigned long)incr + 1) : 0;
    return start > end ? (long)((a - b - 1) / -(unsigned long)incr + 1) : 0;
}

static _Thread_local unsigned delay_seed;

static void maybe_delay(bool delays)
{
    if (!delays)
        return;
    if (delay_seed == 0)
        delay_seed = 0x9e3779b9u * (unsigned)(omp_get_thread_num() + 1);
    random_delay(&delay_seed);
}

static void run_chunk(loop_job *j, long s, long e)
{
    CHECK(j->incr > 0 ? s < e : s > e, "empty chunk [%ld, %ld) returned", s, e);
    unsigned long step = j->incr > 0 ? (unsigned long)j->incr : -(unsigned long)j->incr;
    for (long v = s;;) {
        /* unsigned: ranges near LONG_MIN/LONG_MAX would overflow long */
        unsigned long offset = j->incr > 0 ? (unsigned long)v - (unsigned long)j->start
                                           : (unsigned long)j->start - (unsigned long)v;
        long idx = (long)(offset / step);
        CHECK(offset % step == 0 && idx >= 0 && idx < j->count,
              "value %ld is not an iteration of (%ld, %ld, %ld)", v, j->start, j->end, j->incr);
        atomic_fetch_add_explicit(&j->hits[idx], 1, memory_order_relaxed);
        if (idx == j->count - 1) {
            CHECK(e == j->end, "the last chunk ends at %ld, not at end %ld", e, j->end);
            atomic_fetch_add(&j->last_chunks, 1);
        }
        long next = (long)((unsigned long)v + (unsigned long)j->incr);
        if (j->incr > 0 ? (next < v || next >= e) : (next > v || next <= e))
            break; /* past iend, or past the end of long's range */
        v = next;
    }
    maybe_delay(j->delays);
}

static long generic_sched(enum kind k)
{
    switch (k) {
    case KIND_GENERIC_STATIC: return 1;
    case KIND_GENERIC_DYNAMIC: return 2;
    case KIND_GENERIC_GUIDED: return 3;
    case KIND_GENERIC_MONOTONIC_DYNAMIC: return (long)(2 | 0x80000000u);
    default: return 0; /* runtime */
    }
}

static bool loop_start(loop_job *j, long *s, long *e)
{
    switch (j->kind) {
    case KIND_STATIC: return GOMP_loop_static_start(j->start, j->end, j->incr, j->chunk, s, e);
    case KIND_DYNAMIC: return GOMP_loop_dynamic_start(j->start, j->end, j->incr, j->chunk, s, e);
    case KIND_GUIDED: return GOMP_loop_guided_start(j->start, j->end, j->incr, j->chunk, s, e);
    case KIND_NONMONOTONIC_DYNAMIC:
        return GOMP_loop_nonmonotonic_dynamic_start(j->start, j->end, j->incr, j->chunk, s, e);
    case KIND_NONMONOTONIC_GUIDED:
        return GOMP_loop_nonmonotonic_guided_start(j->start, j->end, j->incr, j->chunk, s, e);
    case KIND_RUNTIME: return GOMP_loop_runtime_start(j->start, j->end, j->incr, s, e);
    case KIND_MAYBE_NONMONOTONIC_RUNTIME:
        return GOMP_loop_maybe_nonmonotonic_runtime_start(j->start, j->end, j->incr, s, e);
    default:
        return GOMP_loop_start(j->start, j->end, j->incr, generic_sched(j->kind), j->chunk, s, e, NULL, NULL);
    }
}

static bool loop_next(enum kind k, long *s, long *e)
{
    switch (k) {
    case KIND_STATIC: return GOMP_loop_static_next(s, e);
    case KIND_DYNAMIC: return GOMP_loop_dynamic_next(s, e);
    case KIND_GUIDED: return GOMP_loop_guided_next(s, e);
    case KIND_NONMONOTONIC_DYNAMIC: return GOMP_loop_nonmonotonic_dynamic_next(s, e);
    case KIND_NONMONOTONIC_GUIDED: return GOMP_loop_nonmonotonic_guided_next(s, e);
    case KIND_MAYBE_NONMONOTONIC_RUNTIME: return GOMP_loop_maybe_nonmonotonic_runtime_next(s, e);
    default: return GOMP_loop_runtime_next(s, e); /* serves every schedule */
    }
}

static void loop_body(void *arg)
{
    loop_job *j = arg;
    long s, e;
    for (bool more = loop_start(j, &s, &e); more; more = loop_next(j->kind, &s, &e))
        run_chunk(j, s, e);
    if (j->nowait)
        GOMP_loop_end_nowait();
    else
        GOMP_loop_end();
}

static void check_all_once(loop_job *j, const char *what)
{
    for (long i = 0; i < j->count; i++)
        CHECK(atomic_load(&j->hits[i]) == 1, "%s: iteration %ld of (%ld, %ld, %ld) chunk %ld kind %d ran %u times",
              what, i, j->start, j->end, j->incr, j->chunk, (int)j->kind, atomic_load(&j->hits[i]));
    CHECK(atomic_load(&j->last_chunks) == (j->count > 0 ? 1 : 0), "%s: last chunk seen %d times", what,
          atomic_load(&j->last_chunks));
}

static void reset_job(loop_job *j, long start, long end, long incr, long chunk, enum kind kind)
{
    memset(j, 0, sizeof *j);
    j->start = start;
    j->end = end;
    j->incr = incr;
    j->chunk = chunk;
    j->kind = kind;
    j->count = iterations(start, end, incr);
    CHECK(j->count <= MAX_ITERATIONS);
}

typedef struct { long start, end, incr; } range;

static const range long_ranges[] = {
    {0, 100, 1}, {0, 1000, 3}, {100, 0, -1}, {97, -5, -4}, {-50, 50, 7},
    {5, 5, 1}, {5, 0, 1}, {0, 5, -1}, {0, 1, 1}, {10, 9, -1},
    {LONG_MAX - 300, LONG_MAX, 10}, {LONG_MIN + 300, LONG_MIN, -9},
    {LONG_MIN, LONG_MAX, LONG_MAX / 8}, {LONG_MAX, LONG_MIN, -(LONG_MAX / 8)},
};
static const long chunks[] = {0, 1, 2, 3, 7, 64, 5000};

static void test_long_loops(void)
{
    static loop_job job;
    unsigned rounds = 0;
    for (unsigned t = 0; t < TEAM_SIZES; t++)
        for (unsigned r = 0; r < sizeof long_ranges / sizeof long_ranges[0]; r++)
            for (unsigned c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
                for (int k = 0; k < KIND_COUNT; k++) {
                    const range *rg = &long_ranges[r];
                    reset_job(&job, rg->start, rg->end, rg->incr, chunks[c], (enum kind)k);
                    job.nowait = (rounds & 1) != 0;
                    job.delays = rounds % 7 == 0;
                    GOMP_parallel(loop_body, &job, team_sizes[t], 0);
                    check_all_once(&job, "long loop");
                    rounds++;
                }
    printf("long loops: %u loops checked\n", rounds);
}

/* ---- unsigned long long loops ---- */

typedef struct ull_job {
    bool up;
    ull start, end, incr, chunk;
    ull count;
    int kind; /* 0 static, 1 dynamic, 2 guided, 3 runtime, 4 GOMP_loop_ull_start dynamic */
    _Atomic unsigned hits[MAX_ITERATIONS];
    _Atomic int last_chunks;
} ull_job;

static ull ull_iterations(bool up, ull start, ull end, ull incr)
{
    if (up)
        return start < end ? (end - start - 1) / incr + 1 : 0;
    return start > end ? (start - end - 1) / -incr + 1 : 0;
}

static void ull_chunk(ull_job *j, ull s, ull e)
{
    CHECK(j->up ? s < e : s > e, "empty ull chunk [%llu, %llu)", s, e);
    for (ull v = s;;) {
        ull offset = j->up ? v - j->start : j->start - v;
        ull step = j->up ? j->incr : -j->incr;
        CHECK(offset % step == 0 && offset / step < j->count, "value %llu is not an iteration", v);
        ull idx = offset / step;
        atomic_fetch_add_explicit(&j->hits[idx], 1, memory_order_relaxed);
        if (idx == j->count - 1) {
            CHECK(e == j->end, "the last ull chunk ends at %llu, not %llu", e, j->end);
            atomic_fetch_add(&j->last_chunks, 1);
        }
        /* As gcc's lowering: stop when the next value passes iend, watching
         * for wrap-around past 2^64 (gcc's loops cannot wrap: end bounds them). */
        ull next = v + j->incr;
        if (j->up ? (next < v || next >= e) : (next > v || next <= e))
            break;
        v = next;
    }
}

static bool ull_start(ull_job *j, ull *s, ull *e)
{
    switch (j->kind) {
    case 0: return GOMP_loop_ull_static_start(j->up, j->start, j->end, j->incr, j->chunk, s, e);
    case 1: return GOMP_loop_ull_dynamic_start(j->up, j->start, j->end, j->incr, j->chunk, s, e);
    case 2: return GOMP_loop_ull_guided_start(j->up, j->start, j->end, j->incr, j->chunk, s, e);
    case 3: return GOMP_loop_ull_runtime_start(j->up, j->start, j->end, j->incr, s, e);
    default: return GOMP_loop_ull_start(j->up, j->start, j->end, j->incr, 2, j->chunk, s, e, NULL, NULL);
    }
}

static bool ull_next(int kind, ull *s, ull *e)
{
    switch (kind) {
    case 0: return GOMP_loop_ull_static_next(s, e);
    case 1: return GOMP_loop_ull_dynamic_next(s, e);
    case 2: return GOMP_loop_ull_guided_next(s, e);
    default: return GOMP_loop_ull_runtime_next(s, e);
    }
}

static void ull_body(void *arg)
{
    ull_job *j = arg;
    ull s, e;
    for (bool more = ull_start(j, &s, &e); more; more = ull_next(j->kind, &s, &e))
        ull_chunk(j, s, e);
    GOMP_loop_end();
}

typedef struct { bool up; ull start, end, incr; } ull_range;

static const ull_range ull_ranges[] = {
    {true, 0, 1000, 1}, {true, ~0ull - 1000, ~0ull, 7}, {true, ~0ull - 3, ~0ull, 1},
    {false, ~0ull, ~0ull - 3000, -5ull}, {false, 1000, 0, -1ull}, {false, 2, 0, -1ull},
    {true, 0, ~0ull, 1ull << 61}, {false, ~0ull, 0, -(1ull << 61)},
    {true, (1ull << 63) - 100, (1ull << 63) + 100, 3},
    {true, 5, 5, 1}, {true, 6, 5, 1}, {false, 5, 6, -1ull},
};

static void test_ull_loops(void)
{
    static ull_job job;
    static const ull ull_chunks[] = {0, 1, 3, 100};
    unsigned rounds = 0;
    for (unsigned t = 0; t < TEAM_SIZES; t++)
        for (unsigned r = 0; r < sizeof ull_ranges / sizeof ull_ranges[0]; r++)
            for (unsigned c = 0; c < sizeof ull_chunks / sizeof ull_chunks[0]; c++)
                for (int k = 0; k < 5; k++) {
                    const ull_range *rg = &ull_ranges[r];
                    memset(&job, 0, sizeof job);
                    job.up = rg->up;
                    job.start = rg->start;
                    job.end = rg->end;
                    job.incr = rg->incr;
                    job.chunk = ull_chunks[c];
                    job.kind = k;
                    job.count = ull_iterations(rg->up, rg->start, rg->end, rg->incr);
                    CHECK(job.count <= MAX_ITERATIONS);
                    GOMP_parallel(ull_body, &job, team_sizes[t], 0);
                    for (ull i = 0; i < job.count; i++)
                        CHECK(atomic_load(&job.hits[i]) == 1, "ull range %u chunk %llu kind %d T=%u: iteration %llu ran %u times",
                              r, job.chunk, k, team_sizes[t], i, atomic_load(&job.hits[i]));
                    CHECK(atomic_load(&job.last_chunks) == (job.count > 0));
                    rounds++;
                }
    printf("ull loops: %u loops checked\n", rounds);
}

/* ---- combined parallel loops: the body starts with *_next ---- */

enum combined { C_STATIC, C_DYNAMIC, C_GUIDED, C_RUNTIME, C_NM_DYNAMIC, C_NM_GUIDED, C_NM_RUNTIME,
                C_MAYBE_NM_RUNTIME, C_SPLIT_STATIC, C_SPLIT_DYNAMIC, C_SPLIT_GUIDED, C_SPLIT_RUNTIME, C_COUNT };

static void combined_body(void *arg)
{
    loop_job *j = arg;
    long s, e;
    while (loop_next(j->kind, &s, &e))
        run_chunk(j, s, e);
    GOMP_loop_end_nowait();
}

static void run_combined(loop_job *j, enum combined c, unsigned T)
{
    long a = j->start, b = j->end, i = j->incr, ch = j->chunk;
    switch (c) {
    case C_STATIC: GOMP_parallel_loop_static(combined_body, j, T, a, b, i, ch, 0); return;
    case C_DYNAMIC: GOMP_parallel_loop_dynamic(combined_body, j, T, a, b, i, ch, 0); return;
    case C_GUIDED: GOMP_parallel_loop_guided(combined_body, j, T, a, b, i, ch, 0); return;
    case C_RUNTIME: GOMP_parallel_loop_runtime(combined_body, j, T, a, b, i, 0); return;
    case C_NM_DYNAMIC: GOMP_parallel_loop_nonmonotonic_dynamic(combined_body, j, T, a, b, i, ch, 0); return;
    case C_NM_GUIDED: GOMP_parallel_loop_nonmonotonic_guided(combined_body, j, T, a, b, i, ch, 0); return;
    case C_NM_RUNTIME: GOMP_parallel_loop_nonmonotonic_runtime(combined_body, j, T, a, b, i, 0); return;
    case C_MAYBE_NM_RUNTIME: GOMP_parallel_loop_maybe_nonmonotonic_runtime(combined_body, j, T, a, b, i, 0); return;
    case C_SPLIT_STATIC: GOMP_parallel_loop_static_start(combined_body, j, T, a, b, i, ch); break;
    case C_SPLIT_DYNAMIC: GOMP_parallel_loop_dynamic_start(combined_body, j, T, a, b, i, ch); break;
    case C_SPLIT_GUIDED: GOMP_parallel_loop_guided_start(combined_body, j, T, a, b, i, ch); break;
    default: GOMP_parallel_loop_runtime_start(combined_body, j, T, a, b, i); break;
    }
    combined_body(j); /* the GOMP 1.0 form: thread 0 runs the body, then joins */
    GOMP_parallel_end();
}

static void test_combined(void)
{
    static loop_job job;
    unsigned rounds = 0;
    for (unsigned t = 0; t < TEAM_SIZES; t++)
        for (unsigned r = 0; r < sizeof long_ranges / sizeof long_ranges[0]; r++)
            for (unsigned c = 1; c < 5; c++)
                for (int k = 0; k < C_COUNT; k++) {
                    const range *rg = &long_ranges[r];
                    reset_job(&job, rg->start, rg->end, rg->incr, chunks[c], KIND_RUNTIME);
                    job.delays = rounds % 5 == 0;
                    run_combined(&job, (enum combined)k, team_sizes[t]);
                    check_all_once(&job, "combined loop");
                    rounds++;
                }
    printf("combined loops: %u loops checked\n", rounds);
}

/* ---- teams of one: outside any region, and nested inside a loop ---- */

static loop_job inner_jobs[1];

/* A team of one when the outer team is active (nesting is off by default),
 * else a real team of two nested in a team of one: the loop works in both. */
static void nested_inner(void *arg)
{
    (void)arg;
    loop_body(&inner_jobs[0]);
}

typedef struct nested_job {
    loop_job outer;
    _Atomic int inner_runs;
} nested_job;

static void nested_outer(void *arg)
{
    nested_job *n = arg;
    loop_job *j = &n->outer;
    long s, e;
    for (bool more = GOMP_loop_dynamic_start(j->start, j->end, j->incr, j->chunk, &s, &e); more;
         more = GOMP_loop_dynamic_next(&s, &e)) {
        run_chunk(j, s, e);
        /* A region inside the chunk: its loop must not disturb ours. */
        if (atomic_fetch_add(&n->inner_runs, 1) == 0) {
            loop_job *inner = &inner_jobs[0];
            reset_job(inner, 0, 300, 1, 4, KIND_DYNAMIC);
            GOMP_parallel(nested_inner, NULL, 2, 0);
            check_all_once(inner, "nested inner loop");
        }
    }
    GOMP_loop_end();
}

static void test_serial(void)
{
    static loop_job job;
    /* No region at all. */
    for (int k = 0; k < KIND_COUNT; k++)
        for (unsigned r = 0; r < sizeof long_ranges / sizeof long_ranges[0]; r++) {
            const range *rg = &long_ranges[r];
            reset_job(&job, rg->start, rg->end, rg->incr, 3, (enum kind)k);
            loop_body(&job);
            check_all_once(&job, "loop outside any region");
        }
    /* Ordered outside any region: in order, trivially, but must not block. */
    long s, e, expect = 0;
    for (bool more = GOMP_loop_ordered_dynamic_start(0, 50, 1, 4, &s, &e); more;
         more = GOMP_loop_ordered_dynamic_next(&s, &e))
        for (long v = s; v < e; v++) {
            GOMP_ordered_start();
            CHECK(v == expect++);
            GOMP_ordered_end();
        }
    GOMP_loop_end();
    CHECK(expect == 50);
    /* Nested: a region of one inside a dynamic loop's chunk. */
    static nested_job nested;
    for (unsigned t = 0; t < TEAM_SIZES; t++) {
        memset(&nested, 0, sizeof nested);
        reset_job(&nested.outer, 0, 500, 1, 3, KIND_DYNAMIC);
        GOMP_parallel(nested_outer, &nested, team_sizes[t], 0);
        check_all_once(&nested.outer, "outer loop around a nested region");
        CHECK(atomic_load(&nested.inner_runs) >= 1);
    }
    /* Combined forms in a team of one: the loop opened before the team ran. */
    for (int k = 0; k < C_COUNT; k++) {
        reset_job(&job, 0, 77, 2, 5, KIND_RUNTIME);
        run_combined(&job, (enum combined)k, 1);
        check_all_once(&job, "combined loop, team of one");
    }
    printf("teams of one: checked\n");
}

/* ---- GOMP_loop_start's mem: one zeroed block for the whole team ---- */

#define MEM_BYTES 200

typedef struct mem_job {
    unsigned char *seen[8];
    bool ordered;
    _Atomic unsigned hits[64];
} mem_job;

static void mem_body(void *arg)
{
    mem_job *j = arg;
    int id = omp_get_thread_num();
    void *mem = (void *)(uintptr_t)MEM_BYTES;
    long s, e;
    bool more = j->ordered ? GOMP_loop_ordered_start(0, 64, 1, 2, 3, &s, &e, NULL, &mem)
                           : GOMP_loop_start(0, 64, 1, 2, 3, &s, &e, NULL, &mem);
    unsigned char *block = mem;
    CHECK(block != NULL && block != (void *)(uintptr_t)MEM_BYTES, "mem was not replaced by team memory");
    CHECK(block[id] == 0, "team memory not zeroed");
    block[id] = 1; /* each thread its own byte: no race */
    j->seen[id] = block;
    for (; more; more = GOMP_loop_runtime_next(&s, &e))
        for (long v = s; v < e; v++) {
            if (j->ordered) {
                GOMP_ordered_start();
                GOMP_ordered_end();
            }
            atomic_fetch_add(&j->hits[v], 1);
        }
    GOMP_loop_end();
    if (id == 0)
        for (int i = 0; i < omp_get_num_threads(); i++)
            CHECK(block[i] == 1);
    GOMP_barrier(); /* nobody reuses the slot's memory until thread 0 has looked */
}

static void test_mem(void)
{
    static mem_job job;
    for (unsigned t = 0; t < TEAM_SIZES; t++)
        for (unsigned round = 0; round < 20; round++) { /* reuses slots and their memory */
            memset(&job, 0, sizeof job);
            job.ordered = round & 1;
            GOMP_parallel(mem_body, &job, team_sizes[t], 0);
            for (unsigned i = 1; i < team_sizes[t]; i++)
                CHECK(job.seen[i] == job.seen[0], "threads got different team memory");
            for (int i = 0; i < 64; i++)
                CHECK(atomic_load(&job.hits[i]) == 1);
        }
    printf("GOMP_loop_start mem: checked\n");
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    bool all = strcmp(which, "all") == 0;
    if (all || strcmp(which, "long") == 0)
        test_long_loops();
    if (all || strcmp(which, "ull") == 0)
        test_ull_loops();
    if (all || strcmp(which, "combined") == 0)
        test_combined();
    if (all || strcmp(which, "serial") == 0)
        test_serial();
    if (all || strcmp(which, "mem") == 0)
        test_mem();
    return 0;
}
