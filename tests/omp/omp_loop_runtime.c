/* schedule(runtime), driven by OMP_SCHEDULE and by omp_set_schedule.
 *
 * Run without arguments, the program runs itself once per OMP_SCHEDULE
 * value below (the variable is read at start-up), and each child checks
 * that omp_get_schedule reports the kind and chunk, and that
 * schedule(runtime) loops (plain, monotonic: and nonmonotonic:, each as a
 * worksharing loop in a region and as a combined parallel for) follow it:
 * every iteration once; for static,c iteration i on thread (i/c) mod T;
 * for static, blocks in thread order; for dynamic,c runs starting on chunk
 * boundaries.  Then omp_set_schedule changes the
 * schedule, per implicit task. */
#include <strings.h>

#include "corpus.h"

#define N 500
#define MAXT 64

static int hits[N], owner[N];

/* Thread `thread` ran iteration i. */
static void record(int i, int thread)
{
    owner[i] = thread;
#pragma omp atomic
    hits[i]++;
}

static void run_loop(int variant)
{
    memset(hits, 0, sizeof hits);
    if (variant == 0) {
#pragma omp parallel
        {
            uint64_t seed = corpus_seed(omp_get_thread_num(), 5);
#pragma omp for schedule(runtime)
            for (int i = 0; i < N; i++) {
                corpus_delay(&seed, 0);
                record(i, omp_get_thread_num());
            }
        }
    } else if (variant == 1) {
#pragma omp parallel
        {
            int id = omp_get_thread_num(); /* not directly nested: GOMP_loop_runtime_start */
#pragma omp for schedule(monotonic: runtime)
            for (int i = 0; i < N; i++)
                record(i, id);
        }
    } else if (variant == 2) {
#pragma omp parallel
        {
            int id = omp_get_thread_num();
#pragma omp for schedule(nonmonotonic: runtime)
            for (int i = 0; i < N; i++)
                record(i, id);
        }
    } else if (variant == 3) {
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < N; i++)
            record(i, omp_get_thread_num());
    } else if (variant == 4) {
#pragma omp parallel for schedule(monotonic: runtime)
        for (int i = 0; i < N; i++)
            record(i, omp_get_thread_num());
    } else {
#pragma omp parallel for schedule(nonmonotonic: runtime)
        for (int i = 0; i < N; i++)
            record(i, omp_get_thread_num());
    }
}

static const char *kind_name(omp_sched_t kind)
{
    switch ((unsigned)kind & ~(unsigned)omp_sched_monotonic) {
    case omp_sched_static: return "static";
    case omp_sched_dynamic: return "dynamic";
    case omp_sched_guided: return "guided";
    case omp_sched_auto: return "auto";
    default: return "?";
    }
}

/* Checks the loops under schedule kind (without modifier) and chunk (0: unspecified). */
static void check_loops(omp_sched_t kind, int chunk, const char *what)
{
    int T = corpus_threads();
    for (int variant = 0; variant < 6; variant++) {
        run_loop(variant);
        for (int i = 0; i < N; i++)
            CHECK_EQ(hits[i], 1, "%s, loop variant %d: runs of iteration %d", what, variant, i);
        if (kind == omp_sched_static && chunk > 0) {
            for (int i = 0; i < N; i++)
                CHECK_EQ(owner[i], (i / chunk) % T, "%s, loop variant %d: thread of iteration %d", what, variant, i);
        } else if (kind == omp_sched_static) {
            for (int i = 1; i < N; i++)
                CHECK(owner[i] >= owner[i - 1], "%s, variant %d: iteration %d on thread %d after %d on thread %d",
                      what, variant, i, owner[i], i - 1, owner[i - 1]);
        } else if (kind == omp_sched_dynamic && chunk > 1) {
            for (int i = 1; i < N; i++)
                if (i % chunk != 0)
                    CHECK_EQ(owner[i], owner[i - 1], "%s, variant %d: thread of iteration %d inside a chunk of %d",
                             what, variant, i, chunk);
        }
    }
}

static int child(const char *spec)
{
    /* What OMP_SCHEDULE says: [modifier:]kind[,chunk]. */
    const char *p = spec;
    int monotonic = 0;
    if (strncasecmp(p, "monotonic:", 10) == 0)
        monotonic = 1, p += 10;
    else if (strncasecmp(p, "nonmonotonic:", 13) == 0)
        p += 13;
    omp_sched_t want = strncasecmp(p, "static", 6) == 0    ? omp_sched_static
                       : strncasecmp(p, "dynamic", 7) == 0 ? omp_sched_dynamic
                       : strncasecmp(p, "guided", 6) == 0  ? omp_sched_guided
                                                       : omp_sched_auto;
    const char *comma = strchr(p, ',');
    int want_chunk = comma ? atoi(comma + 1) : 0;

    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    unsigned base = (unsigned)kind & ~(unsigned)omp_sched_monotonic;
    CHECK(base == (unsigned)want, "OMP_SCHEDULE=%s: omp_get_schedule kind %#x, expected %s", spec, (unsigned)kind,
          kind_name(want));
    if (monotonic)
        CHECK((unsigned)kind & (unsigned)omp_sched_monotonic,
              "OMP_SCHEDULE=%s: omp_get_schedule kind %#x lacks omp_sched_monotonic", spec, (unsigned)kind);
    if (want_chunk > 0)
        CHECK_EQ(chunk, want_chunk, "OMP_SCHEDULE=%s: omp_get_schedule chunk", spec);
    else if (want != omp_sched_auto)
        CHECK(chunk <= 1, "OMP_SCHEDULE=%s: omp_get_schedule chunk %d for an unspecified chunk", spec, chunk);
    check_loops(want, want_chunk, spec);
    return 0;
}

int main(int argc, char **argv)
{
    corpus_begin("omp_loop_runtime");
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(argv[2]);

    static const char *specs[] = {"static",  "static,4",  "dynamic",          "dynamic,3",
                                  "guided",  "guided,7",  "auto",             "monotonic:dynamic,2",
                                  "nonmonotonic:dynamic,6", "STATIC,5"};
    for (unsigned k = 0; k < sizeof specs / sizeof *specs; k++) {
        const char *env[] = {"OMP_SCHEDULE", specs[k], NULL};
        corpus_run_child(argv[0], specs[k], env);
    }

    /* omp_set_schedule: round trips, and schedule(runtime) follows. */
    static const struct {
        omp_sched_t kind;
        int chunk;
    } sets[] = {{omp_sched_static, 7}, {omp_sched_dynamic, 4}, {omp_sched_guided, 2}, {omp_sched_static, 1},
                {omp_sched_auto, 0}};
    for (unsigned k = 0; k < sizeof sets / sizeof *sets; k++) {
        omp_set_schedule(sets[k].kind, sets[k].chunk);
        omp_sched_t kind;
        int chunk;
        omp_get_schedule(&kind, &chunk);
        CHECK_EQ(kind, sets[k].kind, "omp_get_schedule kind after omp_set_schedule(%s, %d)", kind_name(sets[k].kind),
                 sets[k].chunk);
        if (sets[k].kind != omp_sched_auto)
            CHECK_EQ(chunk, sets[k].chunk, "omp_get_schedule chunk after omp_set_schedule(%s, %d)",
                     kind_name(sets[k].kind), sets[k].chunk);
        check_loops(sets[k].kind, sets[k].chunk, kind_name(sets[k].kind));
    }
    omp_set_schedule(omp_sched_dynamic | omp_sched_monotonic, 3);
    omp_sched_t mk;
    int mc;
    omp_get_schedule(&mk, &mc);
    CHECK((unsigned)mk == ((unsigned)omp_sched_dynamic | (unsigned)omp_sched_monotonic) && mc == 3,
          "omp_get_schedule after omp_set_schedule(monotonic dynamic, 3): kind %#x chunk %d", (unsigned)mk, mc);

    /* run-sched-var belongs to each implicit task: a thread's setting is its own. */
    omp_set_schedule(omp_sched_static, 9);
    int wrong = 0;
#pragma omp parallel reduction(+ : wrong)
    {
        int id = omp_get_thread_num();
        omp_sched_t k0;
        int c0;
        omp_get_schedule(&k0, &c0);
        wrong += k0 != omp_sched_static || c0 != 9;
#pragma omp barrier
        omp_set_schedule(id % 2 ? omp_sched_guided : omp_sched_dynamic, id + 1);
#pragma omp barrier
        omp_get_schedule(&k0, &c0);
        wrong += k0 != (id % 2 ? omp_sched_guided : omp_sched_dynamic) || c0 != id + 1;
    }
    CHECK_EQ(wrong, 0, "threads whose omp_get_schedule did not show their own (or the inherited) setting");
    omp_sched_t k1;
    int c1;
    omp_get_schedule(&k1, &c1);
    CHECK(k1 == omp_sched_static && c1 == 9, "the initial thread's schedule after the region: kind %#x chunk %d",
          (unsigned)k1, c1);
    check_loops(omp_sched_static, 9, "static,9 after a region");

    corpus_summary("omp_schedule_values=%u set_schedule_values=%u ok", (unsigned)(sizeof specs / sizeof *specs),
                   (unsigned)(sizeof sets / sizeof *sets));
    return 0;
}
