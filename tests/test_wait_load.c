/* The load watch (wait/load.h): its evidence rule, a probe beside a busy
 * thread on the same CPU, yields beside a busy process that make yields
 * costly, yields to a busy thread of ours that do not, a
 * contended wait that sleeps without learning a longer budget, an
 * oversubscribed wait that stops yielding while yields are costly, and
 * barriers whose waiters change mode mid-flight. */
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "stress_common.h"
#include "platform/cpus.h"
#include "platform/platform.h"
#include "wait/load.h"
#include "wait/policy.h"
#include "wait/wait.h"

/* ---- the rule: two pieces of evidence within the hold time ---- */

static void test_evidence_rule(void)
{
    const uint64_t hold = MUSTER_LOAD_HOLD_NS;
    muster_load_reset();
    /* Evidence "seen" a second ahead keeps the spell on for a second of
     * real time, however long a loaded machine keeps this thread off its
     * CPU between the note and the look. */
    uint64_t now = muster_now_ns(), ahead = now + 1000000000u, spells = muster_load_counters().contended_spells;
    CHECK(!muster_load_contended(), "contended with no evidence");

    muster_load_note_evidence(ahead);
    CHECK(!muster_load_contended(), "one piece of evidence made the process contended");
    muster_load_note_evidence(ahead + 1000);
    CHECK(muster_load_contended(), "two pieces 1 us apart did not make it contended");
    CHECK(muster_load_counters().contended_spells == spells + 1, "the spell was not counted");
    muster_load_note_evidence(ahead + 2000);
    CHECK(muster_load_counters().contended_spells == spells + 1, "a third piece counted a second spell");

    /* Two pieces further apart than the hold: each is a lone switch. */
    muster_load_reset();
    muster_load_note_evidence(now - hold - 1000000);
    muster_load_note_evidence(now);
    CHECK(!muster_load_contended(), "pieces %llu ns apart made the process contended",
          (unsigned long long)(hold + 1000000));

    /* A spell ends the hold time after its last piece. */
    muster_load_reset();
    muster_load_note_evidence(now - hold - 2000000);
    muster_load_note_evidence(now - hold - 1000000);
    CHECK(!muster_load_contended(), "still contended %llu ns after the last evidence",
          (unsigned long long)(hold + 1000000));
    muster_load_reset();
}

/* ---- a probe beside a busy thread ---- */

typedef struct busy_thread {
    int cpu;
    _Atomic bool stop, running;
} busy_thread;

static void pin_self_to(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

static void *busy_main(void *arg)
{
    busy_thread *b = arg;
    pin_self_to(b->cpu);
    atomic_store(&b->running, true);
    while (!atomic_load(&b->stop))
        for (volatile int i = 0; i < 1000; i++)
            ;
    return NULL;
}

/* Pins the calling thread to the first CPU of its mask and starts a busy
 * thread there; false (the test skipped, with a line saying why) where the
 * system does not report the current CPU. */
static bool start_busy_beside_me(busy_thread *b, pthread_t *thread, cpu_set_t *saved)
{
    int cpu;
    CHECK(muster_affinity_cpus(&cpu, 1) >= 1, "the affinity mask");
    pthread_getaffinity_np(pthread_self(), sizeof *saved, saved);
    pin_self_to(cpu);
    if (muster_current_cpu() != cpu) {
        pthread_setaffinity_np(pthread_self(), sizeof *saved, saved);
        printf("skipped: this system does not report the current CPU\n");
        return false;
    }
    *b = (busy_thread){.cpu = cpu};
    CHECK(pthread_create(thread, NULL, busy_main, b) == 0, "busy thread");
    while (!atomic_load(&b->running))
        sched_yield();
    return true;
}

static void stop_busy(busy_thread *b, pthread_t thread, const cpu_set_t *saved)
{
    atomic_store(&b->stop, true);
    pthread_join(thread, NULL);
    pthread_setaffinity_np(pthread_self(), sizeof *saved, saved);
}

static void test_probe_sees_busy_thread(void)
{
    busy_thread busy;
    pthread_t thread;
    cpu_set_t saved;
    if (!start_busy_beside_me(&busy, &thread, &saved))
        return;
    muster_load_reset();
    muster_load_counts before = muster_load_counters();
    int probes = 0, found = 0;
    /* A probe hands the CPU to the busy thread until its time slice ends:
     * most probes find it, a few may come back first. */
    for (; probes < 200 && !muster_load_contended(); probes++)
        found += muster_load_probe();
    stop_busy(&busy, thread, &saved);
    muster_load_counts after = muster_load_counters();
    CHECK(muster_load_contended(), "%d probes beside a busy thread found it %d times and left the process "
          "uncontended", probes, found);
    CHECK(after.probes - before.probes == (uint64_t)probes && after.evidence - before.evidence >= 2,
          "counters: %llu probes, %llu evidence", (unsigned long long)(after.probes - before.probes),
          (unsigned long long)(after.evidence - before.evidence));
    muster_load_reset();
}

/* ---- yields beside another process ---- */

/* A busy process: a child pinned to cpu, spinning until killed; `running`
 * is shared with it (MAP_SHARED), set once it spins there. */
typedef struct busy_process {
    pid_t pid;
    _Atomic bool *running;
} busy_process;

static bool start_busy_process_on(int cpu, busy_process *b)
{
    void *shared = mmap(NULL, sizeof(_Atomic bool), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(shared != MAP_FAILED, "shared page");
    b->running = shared;
    atomic_init(b->running, false);
    b->pid = fork();
    CHECK(b->pid >= 0, "fork");
    if (b->pid == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        sched_setaffinity(0, sizeof one, &one);
        atomic_store(b->running, true);
        for (;;)
            for (volatile int i = 0; i < 1000; i++)
                ;
    }
    while (!atomic_load(b->running))
        sched_yield();
    return true;
}

static void stop_busy_process(busy_process *b)
{
    kill(b->pid, SIGKILL);
    waitpid(b->pid, NULL, 0);
    munmap((void *)b->running, sizeof(_Atomic bool));
}

/* Yields beside another process that is busy on the same CPU are away for
 * its slice: they make yields costly.  The process then uses one of its
 * CPUs, under MUSTER_LOAD_OWN_SHARE_PERCENT of two or more (with one, it
 * has them all, and the check is skipped), and the CPU it lacks went to
 * someone else, which /proc/stat shows.  (Not checked: that yields alone
 * stay cheap; under a parallel test run another process may share the
 * CPU.) */
static void test_costly_yields(void)
{
    if (muster_cpus_available() < 2) {
        printf("test_wait_load: costly yields not checked: the process may use one CPU\n");
        return;
    }
    int cpu;
    cpu_set_t saved;
    CHECK(muster_affinity_cpus(&cpu, 1) >= 1, "the affinity mask");
    pthread_getaffinity_np(pthread_self(), sizeof saved, &saved);
    pin_self_to(cpu);
    muster_load_reset();
    busy_process busy;
    start_busy_process_on(cpu, &busy);
    muster_load_counts before = muster_load_counters();
    /* Past the machine's first window, so that its verdict counts too. */
    uint64_t until = muster_now_ns() + 2 * (uint64_t)MUSTER_LOAD_MACHINE_WINDOW_NS;
    int yields = 0;
    for (; yields < 2000 && (muster_now_ns() < until || !muster_load_yields_costly()); yields++)
        muster_load_yield();
    bool costly = muster_load_yields_costly();
    stop_busy_process(&busy);
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
    CHECK(costly, "%d yields beside a busy process left yields cheap", yields);
    CHECK(muster_load_counters().costly_yields - before.costly_yields >= 2, "costly yields not counted");
    muster_load_reset();
}

/* A process short of its CPUs while nobody else uses them (the host's
 * steal, or a serial phase: here a busy thread of ours shares this
 * thread's CPU and the others stand idle) yields long to its own threads:
 * once the machine's window has been judged, no long yield is evidence.
 * Judged only when other processes used under a tenth of a CPU over the
 * try (under a parallel test run they may not), up to three tries; it
 * fails when a judged try took a long yield as evidence, and says so when
 * none could be judged.  A try must have seen long yields too. */
typedef struct shortfall_try {
    double others;        /* other processes' CPUs, over the try */
    int long_yields;      /* after the first machine window */
    uint64_t evidence;    /* ... of them taken as evidence */
} shortfall_try;

static shortfall_try run_shortfall(void)
{
    shortfall_try t = {0};
    busy_thread busy;
    pthread_t thread;
    cpu_set_t saved;
    if (!start_busy_beside_me(&busy, &thread, &saved))
        return (shortfall_try){.others = -1};
    muster_load_reset();
    uint64_t busy0 = 0, busy1 = 0, wall0 = muster_now_ns(), own0 = muster_process_cpu_ns();
    bool readable = muster_cpus_busy_ns(&busy0);
    uint64_t judged_from = wall0 + MUSTER_LOAD_MACHINE_WINDOW_NS + MUSTER_LOAD_MACHINE_WINDOW_NS / 4;
    uint64_t until = judged_from + 2 * (uint64_t)MUSTER_LOAD_MACHINE_WINDOW_NS;
    muster_load_counts before = {0};
    bool counting = false;
    for (uint64_t now = wall0; now < until; now = muster_now_ns()) {
        if (!counting && now >= judged_from) {
            before = muster_load_counters();
            counting = true;
        }
        uint64_t start = muster_now_ns();
        muster_load_yield();
        if (counting && muster_now_ns() - start >= MUSTER_LOAD_LONG_YIELD_NS)
            t.long_yields++;
    }
    t.evidence = muster_load_counters().costly_yields - before.costly_yields;
    uint64_t own = muster_process_cpu_ns() - own0, wall = muster_now_ns() - wall0;
    stop_busy(&busy, thread, &saved);
    muster_load_reset();
    if (!readable || !muster_cpus_busy_ns(&busy1))
        return (shortfall_try){.others = -1};
    t.others = busy1 - busy0 > own ? (double)(busy1 - busy0 - own) / (double)wall : 0.0;
    return t;
}

static void test_shortfall_alone_yields_cheap(void)
{
    if (muster_cpus_available() < 2) {
        printf("test_wait_load: shortfall alone not checked: the process may use one CPU\n");
        return;
    }
    shortfall_try t = {0};
    int judged = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        t = run_shortfall();
        if (t.others < 0) {
            printf("test_wait_load: shortfall alone not checked: /proc/stat or the current CPU unreadable\n");
            return;
        }
        if (t.others >= 0.1)
            continue;
        judged++;
        CHECK(t.long_yields >= 10, "beside a busy thread of ours only %d yields were long", t.long_yields);
        if (t.evidence == 0)
            return;
    }
    if (judged == 0) {
        printf("test_wait_load: shortfall alone not judged: other processes used %.2f CPUs\n", t.others);
        return;
    }
    CHECK(false, "a process short of its CPUs with nobody else on them (others %.2f CPUs) took %llu of %d long "
          "yields to its own thread as evidence, in %d tries of %d", t.others, (unsigned long long)t.evidence,
          t.long_yields, judged, judged);
}

/* A team crowding its own CPUs (three threads and one per CPU, each
 * working 300 us between yields) yields long, to its own members: that
 * is progress, not a busy neighbour, so yields stay cheap.  Judged only
 * when the process had its CPUs to itself (97% of them: under a parallel
 * test run another process may take some for a while, and a long yield
 * then is evidence), up to three tries; it fails when every judged try
 * made yields costly, and says so when none could be judged.  A try must
 * also have seen long yields, or it proves nothing. */
typedef struct crowd {
    _Atomic uint64_t long_yields;
    uint64_t until_ns;
} crowd;

static void *crowd_member(void *arg)
{
    crowd *c = arg;
    while (muster_now_ns() < c->until_ns) {
        uint64_t work_end = muster_now_ns() + 300000;
        while (muster_now_ns() < work_end)
            ;
        uint64_t start = muster_now_ns();
        muster_load_yield();
        if (muster_now_ns() - start >= MUSTER_LOAD_LONG_YIELD_NS)
            atomic_fetch_add(&c->long_yields, 1);
    }
    return NULL;
}

typedef struct crowd_try {
    double share;          /* of the process's CPUs, over the try */
    uint64_t long_yields;  /* yields away MUSTER_LOAD_LONG_YIELD_NS or more */
    uint64_t evidence;     /* ... of them taken as evidence */
    uint64_t spells;       /* costly spells */
} crowd_try;

static crowd_try run_crowd(unsigned members, unsigned cpus)
{
    enum { MAX_CROWD = 64 };
    if (members > MAX_CROWD)
        members = MAX_CROWD;
    muster_load_reset();
    crowd c = {.until_ns = muster_now_ns() + 300000000u};
    atomic_init(&c.long_yields, 0);
    muster_load_counts before = muster_load_counters();
    uint64_t wall0 = muster_now_ns(), cpu0 = muster_process_cpu_ns();
    pthread_t threads[MAX_CROWD];
    for (unsigned i = 0; i < members; i++)
        CHECK(pthread_create(&threads[i], NULL, crowd_member, &c) == 0, "crowd member");
    for (unsigned i = 0; i < members; i++)
        pthread_join(threads[i], NULL);
    crowd_try t = {.share = (double)(muster_process_cpu_ns() - cpu0) / ((double)(muster_now_ns() - wall0) * cpus)};
    muster_load_counts after = muster_load_counters();
    muster_load_reset();
    t.long_yields = atomic_load(&c.long_yields);
    t.evidence = after.costly_yields - before.costly_yields;
    t.spells = after.costly_spells - before.costly_spells;
    return t;
}

static void test_crowded_team_yields_cheap(void)
{
    unsigned cpus = muster_cpus_available(), members = cpus + 3;
    crowd_try t = {0};
    int judged = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        t = run_crowd(members, cpus);
        if (t.share < 0.97)
            continue;
        judged++;
        CHECK(t.long_yields >= 10, "a crowded team of %u on %u CPUs yielded long only %llu times", members, cpus,
              (unsigned long long)t.long_yields);
        if (t.spells == 0)
            return;
    }
    if (judged == 0) {
        printf("test_wait_load: crowded team not judged: the process had %.0f%% of its CPUs\n", 100 * t.share);
        return;
    }
    CHECK(false, "a crowded team of %u on %u CPUs, alone (%.0f%% of its CPUs), made yields costly in %d tries "
          "of %d: %llu long yields, %llu taken as evidence", members, cpus, 100 * t.share, judged, judged,
          (unsigned long long)t.long_yields, (unsigned long long)t.evidence);
}

/* ---- waits ---- */

typedef struct one_wait {
    muster_flag flag;
    muster_waiter waiter;
    bool contend_first;        /* note two pieces of evidence right before the wait */
    unsigned doublings;        /* the waiting thread's adaptive doublings after it */
    uint64_t probes;           /* probes the wait made */
} one_wait;

static void *one_wait_main(void *arg)
{
    one_wait *w = arg;
    if (w->contend_first) { /* a second ahead: contended however late the wait starts */
        uint64_t ahead = muster_now_ns() + 1000000000u;
        muster_load_note_evidence(ahead);
        muster_load_note_evidence(ahead + 1);
    }
    uint64_t probes = muster_load_counters().probes;
    CHECK(muster_wait_reach(&w->flag, 1, &w->waiter) == 0, "the wait");
    w->probes = muster_load_counters().probes - probes;
    w->doublings = muster_wait_spin_doublings();
    return NULL;
}

/* One wait on a fresh thread, released 200 us after it announces its
 * sleep: a sleep that short quadruples an adaptive budget. */
static void run_one_wait(one_wait *w)
{
    pthread_t thread;
    atomic_store(&w->flag, 0);
    CHECK(pthread_create(&thread, NULL, one_wait_main, w) == 0, "waiting thread");
    for (int i = 0; i < 250000 && !(atomic_load(&w->flag) & MUSTER_FLAG_SLEEPING); i++)
        usleep(20);
    CHECK(atomic_load(&w->flag) & MUSTER_FLAG_SLEEPING, "the waiter never slept");
    usleep(200);
    muster_flag_publish(&w->flag, 1, true);
    pthread_join(thread, NULL);
}

/* A contended waiter spins briefly, probes once and sleeps, and a short
 * sleep teaches it nothing: the thread it waited for was queued behind
 * someone else's.  The same wait uncontended learns a longer budget. */
static void check_contended_wait(const muster_wait_work *work)
{
    one_wait w = {.waiter = muster_team_waiter(1, MUSTER_WAIT_HYBRID, -1, NULL)};
    w.waiter.work = work;
    CHECK(w.waiter.adaptive && w.waiter.watch_load, "the default budget watches the load");

    /* The control learns when its sleep is short, which a neighbour under
     * a parallel test run (or qemu, or TSan) can spoil for a while: up to
     * 5 tries, and then more, 10 ms apart, for 3 s. */
    bool learnt = false;
    int attempt = 0;
    uint64_t give_up = muster_now_ns() + 3000000000u;
    for (; !learnt && (attempt < 5 || muster_now_ns() < give_up); attempt++) {
        if (attempt >= 5)
            usleep(10000);
        muster_load_reset();
        w.waiter.watch_load = false; /* a busy machine must not stop the control */
        run_one_wait(&w);
        learnt = w.doublings == 2;
    }
    CHECK(learnt, "the uncontended control did not learn in %d tries over 3 s (%u doublings)", attempt,
          w.doublings);

    w.waiter.watch_load = true;
    w.contend_first = true;
    muster_load_reset();
    uint64_t sleeps = muster_wait_counters().sleeps;
    run_one_wait(&w);
    CHECK(w.doublings == 0, "a contended %s wait learnt %u doublings", work ? "working" : "plain", w.doublings);
    CHECK(w.probes >= 1, "a contended %s wait slept without a probe", work ? "working" : "plain");
    CHECK(muster_wait_counters().sleeps > sleeps, "the contended wait never slept");

    /* Watching off: the same evidence changes nothing. */
    w.waiter.watch_load = false;
    muster_load_reset();
    run_one_wait(&w);
    CHECK(w.probes == 0, "a wait that does not watch made %llu probes", (unsigned long long)w.probes);
    muster_load_reset();
}

/* An oversubscribed waiter (the default's yields before it sleeps) yields
 * while yields are cheap, and sleeps without a yield while they are
 * costly: under EEVDF each would hand a busy process its whole slice. */
static void check_costly_oversubscribed_wait(const muster_wait_work *work)
{
    one_wait w = {.waiter = {.policy = MUSTER_WAIT_HYBRID, .yields = MUSTER_YIELDS_OVERSUBSCRIBED, .watch_yields = true}};
    w.waiter.work = work;
    muster_load_reset();
    uint64_t yields = muster_wait_counters().yields;
    run_one_wait(&w);
    CHECK(muster_wait_counters().yields - yields >= MUSTER_YIELDS_OVERSUBSCRIBED,
          "a %s oversubscribed wait slept after %llu yields, expected %d", work ? "working" : "plain",
          (unsigned long long)(muster_wait_counters().yields - yields), MUSTER_YIELDS_OVERSUBSCRIBED);
    uint64_t ahead = muster_now_ns() + 1000000000u; /* a second ahead: costly however late the wait */
    muster_load_note_costly(ahead);
    muster_load_note_costly(ahead + 1);
    CHECK(!muster_load_yields_costly(), "two pieces made yields costly");
    muster_load_note_costly(ahead + 2);
    CHECK(muster_load_yields_costly(), "three pieces did not make yields costly");
    yields = muster_wait_counters().yields;
    uint64_t sleeps = muster_wait_counters().sleeps;
    run_one_wait(&w);
    CHECK(muster_wait_counters().yields == yields, "a %s oversubscribed wait yielded %llu times while yields "
          "were costly", work ? "working" : "plain", (unsigned long long)(muster_wait_counters().yields - yields));
    CHECK(muster_wait_counters().sleeps > sleeps, "it never slept");
    muster_load_reset();
}

static bool no_work(void *arg)
{
    (void)arg;
    return false;
}

static void test_contended_waits(void)
{
    check_contended_wait(NULL);
    _Atomic uint32_t sleepers = 0;
    muster_wait_work work = {.run = no_work, .sleepers = &sleepers};
    check_contended_wait(&work);
    check_costly_oversubscribed_wait(NULL);
    check_costly_oversubscribed_wait(&work);
}

/* Waiters spinning the default budget beside a busy thread on their CPU
 * find it with their probes (a 200 us budget makes one probe a wait), and
 * once contended they sleep after the short spin. */
static void test_waiter_finds_busy_thread(void)
{
    busy_thread busy;
    pthread_t thread;
    cpu_set_t saved;
    if (!start_busy_beside_me(&busy, &thread, &saved))
        return;
    muster_load_reset();
    muster_load_counts before = muster_load_counters();
    muster_waiter waiter = muster_team_waiter(1, MUSTER_WAIT_HYBRID, -1, NULL);
    int waits = 0;
    muster_flag flag = 0;
    for (; waits < 50 && !muster_load_contended(); waits++) {
        waiter.deadline_ns = muster_now_ns() + 2000000u; /* nobody publishes: each ends in a timeout */
        CHECK(muster_wait_reach(&flag, 1, &waiter) == MUSTER_E_TIMEDOUT, "wait %d", waits);
    }
    bool contended = muster_load_contended();
    muster_load_counts found = muster_load_counters();
    /* Now a contended wait: a short spin, a probe, then the sleep (the
     * probe may be away for a while on a busy machine: a deadline well
     * beyond it). */
    uint64_t sleeps = muster_wait_counters().sleeps;
    atomic_store(&flag, 0);
    waiter.deadline_ns = muster_now_ns() + 200000000u;
    CHECK(muster_wait_reach(&flag, 1, &waiter) == MUSTER_E_TIMEDOUT, "the contended wait");
    stop_busy(&busy, thread, &saved);
    CHECK(contended, "%d waits beside a busy thread made %llu probes, found %llu switches, and never called it "
          "contention", waits, (unsigned long long)(found.probes - before.probes),
          (unsigned long long)(found.evidence - before.evidence));
    CHECK(found.contended_spells > before.contended_spells, "the spell was not counted");
    CHECK(muster_wait_counters().sleeps > sleeps && (atomic_load(&flag) & MUSTER_FLAG_SLEEPING),
          "the contended waiter never slept");
    muster_load_reset();
}

/* ---- barriers whose waiters change mode mid-flight ---- */

enum { MAX_EPISODES = 4000 };

typedef struct flipping_team {
    muster_barrier *barrier;
    unsigned size, episodes;
    _Atomic unsigned arrived[MAX_EPISODES];
    _Atomic bool done;
} flipping_team;

static void *flipping_member(void *arg)
{
    team_member *m = arg;
    flipping_team *t = m->shared;
    unsigned seed = 0x2545f491u * (m->id + 1);
    for (unsigned e = 0; e < t->episodes; e++) {
        random_delay(&seed);
        if (next_random(&seed) % 64 == 0)
            usleep(300); /* a late arrival: the others spin past a probe */
        atomic_fetch_add(&t->arrived[e], 1);
        int rc = muster_barrier_wait(t->barrier, m->id);
        CHECK(rc == MUSTER_OK || rc == MUSTER_BARRIER_SERIAL, "episode %u: %d", e, rc);
        unsigned seen = atomic_load(&t->arrived[e]);
        CHECK(seen == t->size, "member %u left episode %u with %u of %u arrived", m->id, e, seen, t->size);
    }
    return NULL;
}

/* Makes the process contended and not, at random, while the team runs. */
static void *flipper(void *arg)
{
    flipping_team *t = arg;
    unsigned seed = 0x9e3779b9u;
    while (!atomic_load(&t->done)) {
        if (next_random(&seed) % 2) {
            uint64_t now = muster_now_ns();
            muster_load_note_evidence(now);
            muster_load_note_evidence(now + 1);
        } else {
            muster_load_reset();
        }
        usleep(next_random(&seed) % 500);
    }
    return NULL;
}

static void test_barriers_under_flipping_load(void)
{
    static const unsigned sizes[] = {3, 5, 7};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        flipping_team *t = calloc(1, sizeof *t);
        CHECK(t != NULL, "out of memory");
        t->size = sizes[k];
        t->episodes = scaled(MAX_EPISODES / 2);
        if (t->episodes > MAX_EPISODES)
            t->episodes = MAX_EPISODES;
        muster_barrier_attr attr;
        muster_barrier_attr_init(&attr); /* default algorithm and policy: the watching waiters */
        CHECK(muster_barrier_create(&t->barrier, t->size, &attr) == MUSTER_OK, "create");
        pthread_t flip;
        CHECK(pthread_create(&flip, NULL, flipper, t) == 0, "flipper");
        test_threads team = test_threads_start(t->size, flipping_member, t);
        test_threads_join(&team);
        atomic_store(&t->done, true);
        pthread_join(flip, NULL);
        muster_barrier_destroy(t->barrier);
        free(t);
    }
    muster_load_reset();
}

int main(void)
{
    test_evidence_rule();
    test_probe_sees_busy_thread();
    test_costly_yields();
    test_shortfall_alone_yields_cheap();
    test_crowded_team_yields_cheap();
    test_contended_waits();
    test_waiter_finds_busy_thread();
    test_barriers_under_flipping_load();
    printf("test_wait_load: ok\n");
    return 0;
}
