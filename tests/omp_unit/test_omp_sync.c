/* The worksharing constructs that synchronise, under contention: ordered
 * regions observed in iteration order, sections each run once, single run
 * by exactly one thread per encounter, copyprivate's value seen by all,
 * nowait chains that lap the ring of work shares, doacross dependences
 * honoured.  Many episodes, random delays, team sizes 2, 3, 5, 7, 8 (more
 * threads than CPUs).  Data the runtime is supposed to order is plain
 * memory, so a ThreadSanitizer build also checks the runtime's happens-before.
 *
 * ordered_wakes: a pass of the ordered turn wakes only the member whose turn
 * it is (run under the passive policy).
 *
 * Usage: test_omp_sync ordered|ordered_wakes|sections|single|copyprivate|nowait|doacross */
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gomp_abi.h"
#include "stress_common.h"

static const unsigned team_sizes[] = {2, 3, 5, 7, 8};
#define TEAM_SIZES (sizeof team_sizes / sizeof team_sizes[0])

static _Thread_local unsigned delay_seed;

static void delay(void)
{
    if (delay_seed == 0)
        delay_seed = 0x2545f491u * (unsigned)(omp_get_thread_num() + 7);
    random_delay(&delay_seed);
}

static bool coin(unsigned one_in)
{
    if (delay_seed == 0)
        delay_seed = 0x2545f491u * (unsigned)(omp_get_thread_num() + 7);
    return next_random(&delay_seed) % one_in == 0;
}

/* ---- ordered ---- */

#define ORDERED_N 300

typedef struct ordered_job {
    long n;               /* iterations: ORDERED_N, or fewer than the team */
    int kind;             /* 0 static, 1 dynamic, 2 guided, 3 runtime, 4 GOMP_loop_ordered_start guided, 5 ull dynamic */
    long chunk;
    long last;            /* last iteration seen in an ordered region: plain, ordered orders it */
    long regions;         /* ordered regions run */
    _Atomic long expected_regions;
} ordered_job;

static bool ordered_start(ordered_job *j, long *s, long *e)
{
    switch (j->kind) {
    case 0: return GOMP_loop_ordered_static_start(0, j->n, 1, j->chunk, s, e);
    case 1: return GOMP_loop_ordered_dynamic_start(0, j->n, 1, j->chunk, s, e);
    case 2: return GOMP_loop_ordered_guided_start(0, j->n, 1, j->chunk, s, e);
    case 3: return GOMP_loop_ordered_runtime_start(0, j->n, 1, s, e);
    default: return GOMP_loop_ordered_start(0, j->n, 1, 3, j->chunk, s, e, NULL, NULL);
    }
}

static bool ordered_next(ordered_job *j, long *s, long *e)
{
    switch (j->kind) {
    case 0: return GOMP_loop_ordered_static_next(s, e);
    case 1: return GOMP_loop_ordered_dynamic_next(s, e);
    case 2: return GOMP_loop_ordered_guided_next(s, e);
    default: return GOMP_loop_ordered_runtime_next(s, e);
    }
}

static void ordered_iteration(ordered_job *j, long v)
{
    if (coin(4))
        delay();
    if (coin(5))
        return; /* an iteration may skip its ordered region */
    atomic_fetch_add(&j->expected_regions, 1);
    GOMP_ordered_start();
    CHECK(v > j->last, "ordered region of iteration %ld ran after that of %ld", v, j->last);
    j->last = v;
    j->regions++;
    if (coin(8))
        delay();
    GOMP_ordered_end();
}

static void ordered_body(void *arg)
{
    ordered_job *j = arg;
    if (j->kind == 5) {
        ull s, e;
        for (bool more = GOMP_loop_ull_ordered_dynamic_start(false, (ull)j->n, 0, -1ull, j->chunk, &s, &e); more;
             more = GOMP_loop_ull_ordered_dynamic_next(&s, &e))
            for (ull v = s; v > e; v--)
                ordered_iteration(j, j->n - (long)v); /* descending values, ascending order */
    } else {
        long s, e;
        for (bool more = ordered_start(j, &s, &e); more; more = ordered_next(j, &s, &e))
            for (long v = s; v < e; v++)
                ordered_iteration(j, v);
    }
    GOMP_loop_end();
}

static void test_ordered(void)
{
    static const long chunks[] = {0, 1, 2, 5, 64};
    unsigned episodes = scaled(6);
    unsigned rounds = 0;
    for (unsigned ep = 0; ep < episodes; ep++)
        for (unsigned t = 0; t < TEAM_SIZES; t++)
            for (int kind = 0; kind < 6; kind++)
                for (unsigned c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
                    static const long sizes[] = {ORDERED_N, 5, 1, 0};
                    ordered_job j = {.n = sizes[(ep + c) % 4], .kind = kind, .chunk = chunks[c], .last = -1};
                    if (kind == 5 && chunks[c] == 0)
                        j.chunk = 1;
                    GOMP_parallel(ordered_body, &j, team_sizes[t], 0);
                    CHECK(j.regions == atomic_load(&j.expected_regions), "ordered regions lost: %ld of %ld",
                          j.regions, atomic_load(&j.expected_regions));
                    rounds++;
                }
    printf("ordered: %u loops, regions in iteration order\n", rounds);
}

/* ---- ordered: a pass wakes the next chunk's member, not every sleeper ---- */

/* Under the passive policy every member waiting for its turn sleeps.  Each
 * ordered region sleeps 2 ms, so by the time the turn passes all the
 * waiting members are asleep; the pass must wake the one whose turn it is.
 * Woken all at once (the turn's futex), the 4 others would each wake and
 * sleep again at every pass: about 6 voluntary context switches a pass,
 * where a targeted wake makes 2 to 3 (the region's sleep, the next
 * member's wake-up and its sleep for its next turn). */
#define WAKES_N 60
#define WAKES_TEAM 6

static void ordered_wakes_body(void *arg)
{
    long *last = arg;
    long s, e;
    for (bool more = GOMP_loop_ordered_static_start(0, WAKES_N, 1, 1, &s, &e); more;
         more = GOMP_loop_ordered_static_next(&s, &e))
        for (long v = s; v < e; v++) {
            GOMP_ordered_start();
            CHECK(v == *last + 1, "ordered region of iteration %ld after that of %ld", v, *last);
            *last = v;
            usleep(2000);
            GOMP_ordered_end();
        }
    GOMP_loop_end();
}

static void test_ordered_wakes(void)
{
    long last = -1;
    GOMP_parallel(ordered_wakes_body, &last, WAKES_TEAM, 0); /* the team, its threads started */
    last = -1;
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    GOMP_parallel(ordered_wakes_body, &last, WAKES_TEAM, 0);
    getrusage(RUSAGE_SELF, &after);
    CHECK(last == WAKES_N - 1, "the loop ran to %ld", last);
    double per_pass = (double)(after.ru_nvcsw - before.ru_nvcsw) / WAKES_N;
    CHECK(per_pass < 4.0, "%.1f voluntary context switches a pass of the turn: its sleepers are woken all at once",
          per_pass);
}

/* ---- sections ---- */

#define MAX_SECTIONS 40

typedef struct sections_job {
    unsigned count, rounds;
    int form;             /* 0 start/next/end, 1 nowait, 2 sections2 with mem, 3 combined, 4 combined split */
    _Atomic unsigned runs[64][MAX_SECTIONS + 1];
} sections_job;

static void run_sections(sections_job *j, unsigned round, unsigned first)
{
    for (unsigned s = first; s != 0; s = GOMP_sections_next()) {
        CHECK(s >= 1 && s <= j->count, "section %u out of 1..%u", s, j->count);
        atomic_fetch_add(&j->runs[round][s], 1);
        if (coin(3))
            delay();
    }
}

static void sections_body(void *arg)
{
    sections_job *j = arg;
    for (unsigned round = 0; round < j->rounds; round++) {
        unsigned first;
        if (j->form == 2) {
            void *mem = (void *)(uintptr_t)16;
            first = GOMP_sections2_start(j->count, NULL, &mem);
            CHECK(mem != NULL && mem != (void *)(uintptr_t)16);
        } else {
            first = GOMP_sections_start(j->count);
        }
        run_sections(j, round, first);
        if (j->form == 1)
            GOMP_sections_end_nowait();
        else if (round % 2)
            CHECK(!GOMP_sections_end_cancel());
        else
            GOMP_sections_end();
    }
}

static void combined_sections_body(void *arg)
{
    sections_job *j = arg;
    run_sections(j, 0, GOMP_sections_next());
    GOMP_sections_end_nowait();
}

static void test_sections(void)
{
    static sections_job j;
    static const unsigned counts[] = {0, 1, 2, 3, 7, MAX_SECTIONS};
    unsigned episodes = scaled(4);
    for (unsigned ep = 0; ep < episodes; ep++)
        for (unsigned t = 0; t < TEAM_SIZES; t++)
            for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int form = 0; form < 5; form++) {
                    memset(&j, 0, sizeof j);
                    j.count = counts[c];
                    j.form = form;
                    j.rounds = form >= 3 ? 1 : 30;
                    if (form == 3) {
                        GOMP_parallel_sections(combined_sections_body, &j, team_sizes[t], j.count, 0);
                    } else if (form == 4) {
                        GOMP_parallel_sections_start(combined_sections_body, &j, team_sizes[t], j.count);
                        combined_sections_body(&j);
                        GOMP_parallel_end();
                    } else {
                        GOMP_parallel(sections_body, &j, team_sizes[t], 0);
                    }
                    for (unsigned r = 0; r < j.rounds; r++)
                        for (unsigned s = 1; s <= j.count; s++)
                            CHECK(atomic_load(&j.runs[r][s]) == 1, "form %d round %u: section %u ran %u times", form,
                                  r, s, atomic_load(&j.runs[r][s]));
                }
    printf("sections: each section once\n");
}

/* ---- single ---- */

#define SINGLES 2000

/* How many threads won each encounter of a construct that exactly one
 * thread must run (single, the copyprivate single). */
typedef struct winners_job {
    _Atomic unsigned winners[SINGLES];
} winners_job;

/* Runs body (which counts its winners in a winners_job) for each team size,
 * episodes times, and checks that each of the first `encounters` had
 * exactly one winner; construct names it in the message. */
static void check_one_winner_each(void (*body)(void *), unsigned encounters, unsigned episodes,
                                  const char *construct)
{
    static winners_job j;
    for (unsigned ep = 0; ep < episodes; ep++)
        for (unsigned t = 0; t < TEAM_SIZES; t++) {
            memset(&j, 0, sizeof j);
            GOMP_parallel(body, &j, team_sizes[t], 0);
            for (unsigned i = 0; i < encounters; i++)
                CHECK(atomic_load(&j.winners[i]) == 1, "%s %u ran %u times", construct, i,
                      atomic_load(&j.winners[i]));
        }
}

static void single_body(void *arg)
{
    winners_job *j = arg;
    for (unsigned i = 0; i < SINGLES; i++) {
        if (GOMP_single_start())
            atomic_fetch_add(&j->winners[i], 1);
        if (coin(64))
            delay();
        if (i % 100 == 99)
            GOMP_barrier(); /* mostly nowait; now and then the implicit barrier */
    }
}

static void test_single(void)
{
    check_one_winner_each(single_body, SINGLES, scaled(5), "single");
    /* Outside any region, every single is ours. */
    for (int i = 0; i < 10; i++)
        CHECK(GOMP_single_start());
    CHECK(GOMP_single_copy_start() == NULL);
    printf("single: exactly one thread per encounter\n");
}

/* ---- copyprivate ---- */

#define COPIES 500
_Static_assert(COPIES <= SINGLES, "copy_body counts its winners in a winners_job");

typedef struct payload {
    unsigned episode;
    long value;
} payload;

static void copy_body(void *arg)
{
    winners_job *j = arg;
    for (unsigned i = 0; i < COPIES; i++) {
        payload mine;
        payload *from = GOMP_single_copy_start();
        if (from == NULL) {
            atomic_fetch_add(&j->winners[i], 1);
            if (coin(4))
                delay();
            mine = (payload){.episode = i, .value = (long)i * 7919 + omp_get_thread_num()};
            GOMP_single_copy_end(&mine);
        } else {
            mine = *from; /* plain read of the winner's stack: copy_end orders it */
        }
        CHECK(mine.episode == i, "copyprivate of single %u delivered episode %u", i, mine.episode);
        CHECK(mine.value / 7919 == (long)i);
        GOMP_barrier(); /* gcc's barrier after the copies keeps the winner's data alive */
    }
}

static void test_copyprivate(void)
{
    check_one_winner_each(copy_body, COPIES, scaled(4), "copy single");
    printf("copyprivate: one winner, value seen by all\n");
}

/* ---- nowait chains that lap the ring ---- */

#define CHAIN 100   /* constructs in a row, many times the ring's 8 slots */
#define CHAIN_N 40

typedef struct chain_job {
    _Atomic unsigned hits[CHAIN][CHAIN_N];
    _Atomic unsigned singles[CHAIN];
    unsigned slow;        /* the member that lags behind */
} chain_job;

static void chain_body(void *arg)
{
    chain_job *j = arg;
    bool slow = (unsigned)omp_get_thread_num() == j->slow;
    if (slow)
        usleep(2000); /* everyone else runs ahead and must wait at the ring's end */
    for (unsigned k = 0; k < CHAIN; k++) {
        long s, e;
        switch (k % 4) {
        case 0:
            for (bool more = GOMP_loop_dynamic_start(0, CHAIN_N, 1, 3, &s, &e); more;
                 more = GOMP_loop_dynamic_next(&s, &e))
                for (long v = s; v < e; v++)
                    atomic_fetch_add(&j->hits[k][v], 1);
            GOMP_loop_end_nowait();
            break;
        case 1:
            for (unsigned sec = GOMP_sections_start(CHAIN_N); sec != 0; sec = GOMP_sections_next())
                atomic_fetch_add(&j->hits[k][sec - 1], 1);
            GOMP_sections_end_nowait();
            break;
        case 2:
            for (bool more = GOMP_loop_guided_start(CHAIN_N, 0, -1, 2, &s, &e); more;
                 more = GOMP_loop_guided_next(&s, &e))
                for (long v = s; v > e; v--)
                    atomic_fetch_add(&j->hits[k][v - 1], 1);
            GOMP_loop_end_nowait();
            break;
        default:
            if (GOMP_single_start())
                atomic_fetch_add(&j->singles[k], 1);
            for (bool more = GOMP_loop_static_start(0, CHAIN_N, 1, 4, &s, &e); more;
                 more = GOMP_loop_static_next(&s, &e))
                for (long v = s; v < e; v++)
                    atomic_fetch_add(&j->hits[k][v], 1);
            GOMP_loop_end_nowait();
        }
        if (slow && coin(8))
            delay();
    }
}

static void test_nowait(void)
{
    static chain_job j;
    unsigned episodes = scaled(20);
    for (unsigned ep = 0; ep < episodes; ep++)
        for (unsigned t = 0; t < TEAM_SIZES; t++) {
            memset(&j, 0, sizeof j);
            j.slow = ep % team_sizes[t];
            GOMP_parallel(chain_body, &j, team_sizes[t], 0);
            for (unsigned k = 0; k < CHAIN; k++) {
                for (unsigned v = 0; v < CHAIN_N; v++)
                    CHECK(atomic_load(&j.hits[k][v]) == 1, "construct %u iteration %u ran %u times", k, v,
                          atomic_load(&j.hits[k][v]));
                if (k % 4 == 3)
                    CHECK(atomic_load(&j.singles[k]) == 1);
            }
        }
    printf("nowait chains: %u constructs per region, all exactly once\n", CHAIN);
}

/* ---- doacross ---- */

#define DA_N 60
#define DA_M 25

typedef struct doacross_job {
    int kind;      /* 0 static, 1 dynamic, 2 guided, 3 runtime, 4 GOMP_loop_doacross_start, 5 ull static, 6 ull dynamic */
    long chunk;
    uint64_t a[DA_N][DA_M]; /* plain: only the dependences order it */
} doacross_job;

/* a[i][j] depends on a[i-1][j] and a[i][j-1] (and a[i-1][j-1] via both). */
static uint64_t cell(uint64_t up, uint64_t left, long i, long j)
{
    return up * 31u + left * 17u + (uint64_t)(i * DA_M + j);
}

static void doacross_iteration(doacross_job *d, long i)
{
    for (long j = 0; j < DA_M; j++) {
        bool ull_form = d->kind >= 5;
        if (i > 0) {
            if (ull_form)
                GOMP_doacross_ull_wait((ull)(i - 1), (ull)j);
            else
                GOMP_doacross_wait(i - 1, j);
        }
        if (j > 0) {
            if (ull_form)
                GOMP_doacross_ull_wait((ull)i, (ull)(j - 1));
            else
                GOMP_doacross_wait(i, j - 1);
        }
        if (coin(16))
            delay();
        d->a[i][j] = cell(i > 0 ? d->a[i - 1][j] : 1, j > 0 ? d->a[i][j - 1] : 1, i, j);
        if (ull_form) {
            ull it[2] = {(ull)i, (ull)j};
            GOMP_doacross_ull_post(it);
        } else {
            long it[2] = {i, j};
            GOMP_doacross_post(it);
        }
    }
}

static void doacross_body(void *arg)
{
    doacross_job *d = arg;
    if (d->kind >= 5) {
        ull counts[2] = {DA_N, DA_M}, s, e;
        bool more = d->kind == 5 ? GOMP_loop_ull_doacross_static_start(2, counts, (ull)d->chunk, &s, &e)
                                 : GOMP_loop_ull_doacross_dynamic_start(2, counts, (ull)d->chunk, &s, &e);
        for (; more; more = d->kind == 5 ? GOMP_loop_ull_static_next(&s, &e) : GOMP_loop_ull_dynamic_next(&s, &e))
            for (ull i = s; i < e; i++)
                doacross_iteration(d, (long)i);
    } else {
        long counts[2] = {DA_N, DA_M}, s, e;
        bool more;
        switch (d->kind) {
        case 0: more = GOMP_loop_doacross_static_start(2, counts, d->chunk, &s, &e); break;
        case 1: more = GOMP_loop_doacross_dynamic_start(2, counts, d->chunk, &s, &e); break;
        case 2: more = GOMP_loop_doacross_guided_start(2, counts, d->chunk, &s, &e); break;
        case 3: more = GOMP_loop_doacross_runtime_start(2, counts, &s, &e); break;
        default: more = GOMP_loop_doacross_start(2, counts, 2, d->chunk, &s, &e, NULL, NULL); break;
        }
        /* gcc pairs each start with its own kind's next; any next serves. */
        for (; more; more = d->kind == 1 ? GOMP_loop_dynamic_next(&s, &e)
                          : d->kind == 2 ? GOMP_loop_guided_next(&s, &e)
                          : d->kind == 0 ? GOMP_loop_static_next(&s, &e)
                                         : GOMP_loop_runtime_next(&s, &e))
            for (long i = s; i < e; i++)
                doacross_iteration(d, i);
    }
    GOMP_loop_end_nowait();
}

static void test_doacross(void)
{
    static doacross_job d;
    static uint64_t expected[DA_N][DA_M];
    for (long i = 0; i < DA_N; i++)
        for (long j = 0; j < DA_M; j++)
            expected[i][j] = cell(i > 0 ? expected[i - 1][j] : 1, j > 0 ? expected[i][j - 1] : 1, i, j);
    static const long chunks[] = {0, 1, 3, 16};
    unsigned episodes = scaled(4);
    unsigned sizes[TEAM_SIZES + 1];
    memcpy(sizes, team_sizes, sizeof team_sizes);
    sizes[TEAM_SIZES] = 1;
    for (unsigned ep = 0; ep < episodes; ep++)
        for (unsigned t = 0; t <= TEAM_SIZES; t++)
            for (int kind = 0; kind < 7; kind++)
                for (unsigned c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
                    memset(&d, 0, sizeof d);
                    d.kind = kind;
                    d.chunk = chunks[c];
                    GOMP_parallel(doacross_body, &d, sizes[t], 0);
                    for (long i = 0; i < DA_N; i++)
                        for (long j = 0; j < DA_M; j++)
                            CHECK(d.a[i][j] == expected[i][j], "kind %d chunk %ld T=%u: a[%ld][%ld] wrong: a "
                                  "dependence was not honoured", kind, d.chunk, sizes[t], i, j);
                }
    printf("doacross: dependences honoured\n");
}

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: test_omp_sync ordered|ordered_wakes|sections|single|copyprivate|nowait|doacross");
    const char *which = argv[1];
    if (strcmp(which, "ordered") == 0)
        test_ordered();
    else if (strcmp(which, "ordered_wakes") == 0)
        test_ordered_wakes();
    else if (strcmp(which, "sections") == 0)
        test_sections();
    else if (strcmp(which, "single") == 0)
        test_single();
    else if (strcmp(which, "copyprivate") == 0)
        test_copyprivate();
    else if (strcmp(which, "nowait") == 0)
        test_nowait();
    else if (strcmp(which, "doacross") == 0)
        test_doacross();
    else
        CHECK(false, "unknown case %s", which);
    return 0;
}
