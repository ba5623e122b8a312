/* The omp_* query and control functions: thread numbers, team sizes,
 * levels and ancestors outside and inside regions, omp_get_max_threads and
 * omp_set_num_threads, omp_get_num_procs (against the affinity mask),
 * omp_in_parallel, omp_get/set_dynamic, omp_get/set_schedule,
 * omp_get/set_max_active_levels, omp_get_thread_limit, omp_get_wtime and
 * omp_get_wtick, omp_in_final, omp_get_proc_bind.  Run without arguments
 * it also runs itself with OMP_DYNAMIC, OMP_MAX_ACTIVE_LEVELS,
 * OMP_THREAD_LIMIT, an OMP_NUM_THREADS list, and OMP_PROC_BIND/OMP_PLACES
 * lists set, and checks that the queries report them. */
#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <sys/sysinfo.h>

#include "corpus.h"

static int own_libgomp_beside(void);

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* The size of the team that a parallel region with num_threads(asked) gets. */
static int team_size_for(int asked)
{
    int n = 0;
#pragma omp parallel num_threads(asked)
#pragma omp atomic write
    n = omp_get_num_threads();
    return n;
}

/* Children: one per environment. */
static int child(const char *which)
{
    if (strcmp(which, "dynamic") == 0) {
        CHECK_EQ(omp_get_dynamic(), 1, "omp_get_dynamic with OMP_DYNAMIC=true");
        int n = team_size_for(3);
        CHECK(n >= 1 && n <= 3, "team of %d for num_threads(3) with dynamic adjustment", n);
    } else if (strcmp(which, "levels") == 0) {
        CHECK_EQ(omp_get_max_active_levels(), 3, "omp_get_max_active_levels with OMP_MAX_ACTIVE_LEVELS=3");
        CHECK_EQ(omp_get_max_threads(), 3, "omp_get_max_threads with OMP_NUM_THREADS=3,2");
        int inner = 0, outer = 0, bad = 0;
#pragma omp parallel reduction(+ : bad)
        {
#pragma omp atomic write
            outer = omp_get_num_threads();
            bad += omp_get_max_threads() != 2;
#pragma omp parallel
            {
#pragma omp atomic write
                inner = omp_get_num_threads();
            }
        }
        CHECK_EQ(outer, 3, "outer team with OMP_NUM_THREADS=3,2");
        CHECK_EQ(inner, 2, "inner team with OMP_NUM_THREADS=3,2 and OMP_MAX_ACTIVE_LEVELS=3");
        CHECK_EQ(bad, 0, "threads of the outer team whose omp_get_max_threads is not 2");
    } else if (strcmp(which, "display") == 0) {
        /* Each member of a new team shows its line at the region's start. */
        const char *want = getenv("CORPUS_DISPLAY_STREAM");
        corpus_capture capture;
        int members = 0;
        corpus_capture_begin(&capture);
#pragma omp parallel num_threads(2) reduction(+ : members)
        members++;
        int shown = corpus_capture_end(&capture, "shown 0 of");
        CHECK(members >= 1, "a region of %d members", members);
        CHECK(want != NULL && strcmp(corpus_stream_name(shown), want) == 0,
              "OMP_DISPLAY_AFFINITY's lines went to %s, omp_display_affinity's to %s", corpus_stream_name(shown),
              want ? want : "(unset)");
    } else if (strcmp(which, "limit") == 0) {
        CHECK_EQ(omp_get_thread_limit(), 3, "omp_get_thread_limit with OMP_THREAD_LIMIT=3");
        int n = team_size_for(5);
        CHECK(n >= 1 && n <= 3, "team of %d for num_threads(5) under OMP_THREAD_LIMIT=3", n);
    } else if (strcmp(which, "bind") == 0) {
        CHECK_EQ(omp_get_proc_bind(), omp_proc_bind_spread, "omp_get_proc_bind with OMP_PROC_BIND=spread,close");
        /* (The initial thread may be bound to its place already: its
         * affinity mask says nothing of the places' number.) */
        int places = omp_get_num_places();
        /* Binding the initial thread at load does not shrink the process's
         * CPUs (libmuster-omp once read its mask after binding: 1).  Except
         * under plain LD_PRELOAD, where the program's own libgomp binds it
         * first (docs/openmp.md; libmuster-omp warns). */
        const char *parent_procs = getenv("CORPUS_PARENT_PROCS");
        if (!own_libgomp_beside())
            CHECK(parent_procs != NULL && omp_get_num_procs() == atoi(parent_procs),
                  "omp_get_num_procs() = %d under OMP_PROC_BIND, %s unbound", omp_get_num_procs(),
                  parent_procs ? parent_procs : "?");
        CHECK(places >= 1 && places <= get_nprocs_conf(),
              "omp_get_num_places() = %d with OMP_PLACES=threads and %d CPUs configured", places, get_nprocs_conf());
        int bad = 0;
#pragma omp parallel num_threads(3) reduction(+ : bad)
        {
            bad += omp_get_proc_bind() != omp_proc_bind_close;
            int place = omp_get_place_num();
            bad += place < 0 || place >= places;
        }
        CHECK_EQ(bad, 0, "threads whose bind-var is not close (the list's second entry) or whose place is not in "
                         "[0, %d)", places);
    } else {
        FAIL("unknown child case '%s'", which);
    }
    return 0;
}

/* Whether libgomp.so.1 is loaded but is not the runtime answering omp_*
 * (a preloaded libmuster-omp without muster run's shim). */
static int own_libgomp_beside(void)
{
    void *gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (gomp == NULL)
        return 0;
    void *theirs = dlsym(gomp, "omp_get_num_procs");
    dlclose(gomp);
    return theirs != NULL && theirs != dlsym(RTLD_DEFAULT, "omp_get_num_procs");
}

int main(int argc, char **argv)
{
    corpus_begin("omp_api");
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(argv[2]);
    int T = corpus_threads();
    const char *env_threads = getenv("OMP_NUM_THREADS");
    if (env_threads && atoi(env_threads) > 0)
        CHECK_EQ(T, atoi(env_threads), "omp_get_max_threads with OMP_NUM_THREADS=%s", env_threads);

    /* Outside any region. */
    CHECK_EQ(omp_get_thread_num(), 0, "omp_get_thread_num outside");
    CHECK_EQ(omp_get_num_threads(), 1, "omp_get_num_threads outside");
    CHECK_EQ(omp_get_level(), 0, "omp_get_level outside");
    CHECK_EQ(omp_get_active_level(), 0, "omp_get_active_level outside");
    CHECK_EQ(omp_get_ancestor_thread_num(0), 0, "omp_get_ancestor_thread_num(0) outside");
    CHECK_EQ(omp_get_ancestor_thread_num(1), -1, "omp_get_ancestor_thread_num(1) outside");
    CHECK_EQ(omp_get_team_size(0), 1, "omp_get_team_size(0) outside");
    CHECK_EQ(omp_get_team_size(1), -1, "omp_get_team_size(1) outside");
    CHECK_EQ(omp_in_parallel(), 0, "omp_in_parallel outside");
    CHECK_EQ(omp_in_final(), 0, "omp_in_final outside tasks");

    /* omp_get_num_procs: between 1 and the CPUs in the affinity mask. */
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity: %s", strerror(errno));
    int procs = omp_get_num_procs();
    CHECK(procs >= 1 && procs <= CPU_COUNT(&set), "omp_get_num_procs() = %d with %d CPUs in the affinity mask",
          procs, CPU_COUNT(&set));

    /* Inside. */
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        int n = omp_get_num_threads();
        bad += n != T;
        bad += omp_get_thread_num() >= n;
        bad += omp_in_parallel() != (n > 1);
        bad += omp_get_level() != 1;
        bad += omp_get_max_threads() != T; /* the nthreads-var list has one entry */
        bad += omp_get_num_procs() != procs;
        bad += omp_get_thread_limit() < n;
    }
    CHECK_EQ(bad, 0, "wrong answers to the queries inside a region of %d", T);

    /* omp_set_num_threads. */
    omp_set_num_threads(5);
    CHECK_EQ(omp_get_max_threads(), 5, "omp_get_max_threads after omp_set_num_threads(5)");
    int n5 = 0;
#pragma omp parallel
#pragma omp atomic write
    n5 = omp_get_num_threads();
    CHECK_EQ(n5, 5, "team after omp_set_num_threads(5)");
    /* A thread's setting applies to regions it starts, not to its team mates. */
    omp_set_max_active_levels(2);
    int inner[2] = {0, 0};
#pragma omp parallel num_threads(2)
    {
        int id = omp_get_thread_num();
        if (id == 1)
            omp_set_num_threads(3);
#pragma omp barrier
#pragma omp parallel
        {
#pragma omp atomic write
            inner[id] = omp_get_num_threads();
        }
    }
    CHECK(inner[0] == 5 && inner[1] == 3, "inner teams %d and %d, expected 5 (inherited) and 3 (set by thread 1)",
          inner[0], inner[1]);
    omp_set_max_active_levels(1);
    omp_set_num_threads(T);

    /* Dynamic adjustment. */
    CHECK_EQ(omp_get_dynamic(), 0, "omp_get_dynamic default (OMP_DYNAMIC unset)");
    omp_set_dynamic(1);
    CHECK_EQ(omp_get_dynamic(), 1, "omp_get_dynamic after omp_set_dynamic(1)");
    int nd = 0;
#pragma omp parallel num_threads(4)
#pragma omp atomic write
    nd = omp_get_num_threads();
    CHECK(nd >= 1 && nd <= 4, "team of %d for num_threads(4) with dynamic adjustment on", nd);
    omp_set_dynamic(0);
    CHECK_EQ(omp_get_dynamic(), 0, "omp_get_dynamic after omp_set_dynamic(0)");

    /* Schedule. */
    omp_set_schedule(omp_sched_guided, 6);
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    CHECK(kind == omp_sched_guided && chunk == 6, "omp_get_schedule: kind %d chunk %d, expected guided 6", kind,
          chunk);

    /* bind-var: some policy, whatever the default. */
    int bind = omp_get_proc_bind();
    CHECK(bind >= omp_proc_bind_false && bind <= omp_proc_bind_spread, "omp_get_proc_bind() = %d", bind);

    /* Max active levels. */
    CHECK_EQ(omp_get_max_active_levels(), 1, "omp_get_max_active_levels default");
    omp_set_max_active_levels(4);
    CHECK_EQ(omp_get_max_active_levels(), 4, "omp_get_max_active_levels after setting 4");
    omp_set_max_active_levels(1);

    /* Thread limit: unlimited by default, at least the team size. */
    CHECK(omp_get_thread_limit() >= T, "omp_get_thread_limit() = %d < %d", omp_get_thread_limit(), T);

    /* wtime and wtick. */
    double tick = omp_get_wtick();
    CHECK(tick > 0 && tick < 0.01, "omp_get_wtick() = %g", tick);
    double t0 = omp_get_wtime();
    sleep_ms(30);
    double t1 = omp_get_wtime();
    CHECK(t1 - t0 >= 0.029 && t1 - t0 < 10, "omp_get_wtime advanced %g s over a 30 ms sleep", t1 - t0);
    int backwards = 0;
#pragma omp parallel reduction(+ : backwards)
    {
        double prev = omp_get_wtime();
        for (int i = 0; i < 1000; i++) {
            double now = omp_get_wtime();
            backwards += now < prev;
            prev = now;
        }
        /* Every thread's clock agrees with the initial thread's, roughly. */
        backwards += prev < t1 || prev > t1 + 60;
    }
    CHECK_EQ(backwards, 0, "omp_get_wtime readings that went backwards or disagree between threads");

    /* The environment, in children. */
    static const char *const env_dynamic[] = {"OMP_DYNAMIC", "true", NULL};
    static const char *const env_levels[] = {"OMP_NUM_THREADS", "3,2", "OMP_MAX_ACTIVE_LEVELS", "3", NULL};
    static const char *const env_limit[] = {"OMP_THREAD_LIMIT", "3", NULL};
    corpus_run_child(argv[0], "dynamic", env_dynamic);
    corpus_run_child(argv[0], "levels", env_levels);
    corpus_run_child(argv[0], "limit", env_limit);
    char procs_text[16];
    snprintf(procs_text, sizeof procs_text, "%d", procs);
    const char *const env_bind[] = {"OMP_PROC_BIND", "spread,close", "OMP_PLACES", "threads",
                                    "CORPUS_PARENT_PROCS", procs_text, NULL};
    corpus_run_child(argv[0], "bind", env_bind);
    /* Where affinity lines go: libgomp writes them on stderr, libomp on
     * stdout (clang users' checks read them there); the runtime the
     * program was built for decides, and the summary says which.  The
     * OMP_DISPLAY_AFFINITY lines of a child go to the same stream. */
    corpus_capture capture;
    corpus_capture_begin(&capture);
    omp_display_affinity("display %n");
    int display = corpus_capture_end(&capture, "display 0");
    CHECK(display == CORPUS_STDOUT || display == CORPUS_STDERR, "omp_display_affinity's line went to %s",
          corpus_stream_name(display));
    /* (libgomp shows the lines only where it binds threads: OMP_PROC_BIND.) */
    const char *const env_display[] = {"OMP_DISPLAY_AFFINITY", "true", "OMP_AFFINITY_FORMAT", "shown %n of %N",
                                       "OMP_PROC_BIND", "true", "CORPUS_DISPLAY_STREAM", corpus_stream_name(display),
                                       NULL};
    corpus_run_child(argv[0], "display", env_display);
    corpus_summary("max_threads=%d env_cases=5 display=%s ok", T, corpus_stream_name(display));
    return 0;
}
