/* Pinned ping-pong on one cache line: the measurement behind `muster probe`.
 *
 * Thread A (the initiator, on CPU i) writes an odd value into one atomic
 * word; thread B (the responder, on CPU j) waits for it and writes the next,
 * even, value; A waits for that.  One round trip moves the line i -> j -> i.
 * A times R round trips at a time, because one round trip (~50-300 ns) is
 * too short for the clock: clock_gettime costs ~20 ns and ticks at 1-40 ns
 * on the machines we target.  K such samples give the minimum and the
 * median; the median is what we keep, since a sample the scheduler
 * interrupted is an outlier on one side only. */
#include "model/probe.h"
#include "error.h"
#include "sorted.h"

#include "platform/affinity.h"
#include "platform/platform.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DONE UINT64_MAX             /* A's last word: B leaves */
#define WARMUP_ROUND_TRIPS 64u      /* both threads running and the line warm before timing */
#define SPINS_PER_CLOCK_READ 4096u  /* a wait reads the clock only once it is long already */
#define LOCAL_ITERATIONS (1u << 18) /* ~0.3 ms a sample at ~1 ns per access */
#define CALIBRATION_ROUND_TRIPS 200u
#define CALIBRATION_REPETITIONS 3u

/* To the picosecond: finer digits are noise, and would fill the machine file. */
static double picoseconds(double ns) { return round(ns * 1000) / 1000; }


/* ---- the affinity mask and pinned threads ------------------------------- */

/* Starts fn(arg) on a thread that runs only on cpu: pinned before it runs,
 * so its first access already comes from the right cache. */
static int start_pinned(pthread_t *thread, int cpu, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) {
        rc = muster_thread_attr_on_cpu(&attr, cpu);
        if (rc == 0)
            rc = pthread_create(thread, &attr, fn, arg);
        pthread_attr_destroy(&attr);
    }
    return rc;
}

/* ---- ping-pong ------------------------------------------------------------ */

typedef struct pingpong {
    /* The bounced word, alone on its line: a neighbour would add its own
     * coherence traffic to what we time. */
    _Alignas(MUSTER_CACHE_LINE) _Atomic uint64_t word;
    /* Set before the threads start and only read after: its own line, so
     * reading it costs the word nothing. */
    _Alignas(MUSTER_CACHE_LINE) unsigned round_trips, repetitions, silent_after;
    uint64_t silence_ns;
    double *samples; /* K per-round-trip times, written by A, read after join */
    int failed[2];   /* each thread's own: 1 when its partner fell silent */
} pingpong;

/* Spins until *word differs from old and returns the new value in *seen; -1
 * when it has not changed for silence_ns.
 *
 * A plain acquire load, no muster_cpu_relax(): `pause` takes ~140 cycles on
 * recent x86 and would be added to every hand-off we time, and the probe
 * spins for milliseconds, so the power it would save does not matter.
 * Acquire loads and release stores are the orderings muster's barrier flags
 * use, so the probe times the hand-off a barrier pays (ldar/stlr on AArch64,
 * not plain ldr/str); the word publishes nothing else, so nothing stronger
 * is needed.  The clock is read only every SPINS_PER_CLOCK_READ spins, so a
 * prompt answer (every one we time) never reads it. */
static int wait_change(_Atomic uint64_t *word, uint64_t old, uint64_t silence_ns, uint64_t *seen)
{
    uint64_t v, since = 0;
    unsigned spins = 0;
    /* acquire: pairs with the partner thread's release store of the word (round_trip(),
     * responder(), initiator() or bounce()), see above */
    while ((v = atomic_load_explicit(word, memory_order_acquire)) == old) {
        if (++spins % SPINS_PER_CLOCK_READ != 0)
            continue;
        uint64_t now = muster_now_ns();
        if (since == 0)
            since = now;
        else if (now - since > silence_ns)
            return -1;
    }
    *seen = v;
    return 0;
}

/* A: one odd value out, B's even answer back. */
static int round_trip(pingpong *p, uint64_t *v)
{
    atomic_store_explicit(&p->word, ++*v, memory_order_release); /* release: see wait_change */
    return wait_change(&p->word, *v, p->silence_ns, v);
}

static int run_initiator(pingpong *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < WARMUP_ROUND_TRIPS; i++)
        if (round_trip(p, &v) != 0)
            return -1;
    for (unsigned k = 0; k < p->repetitions; k++) {
        uint64_t start = muster_now_ns();
        for (unsigned r = 0; r < p->round_trips; r++)
            if (round_trip(p, &v) != 0)
                return -1;
        p->samples[k] = (double)(muster_now_ns() - start) / p->round_trips;
    }
    return 0;
}

static void *initiator(void *arg)
{
    pingpong *p = arg;
    p->failed[0] = run_initiator(p) != 0;
    /* release: pairs with the acquire load in wait_change().  Finished or given up, B may leave. */
    atomic_store_explicit(&p->word, DONE, memory_order_release);
    return NULL;
}

static void *responder(void *arg)
{
    pingpong *p = arg;
    uint64_t mine = 0, v;
    for (;;) {
        if (wait_change(&p->word, mine, p->silence_ns, &v) != 0) {
            p->failed[1] = 1;
            return NULL;
        }
        if (v == DONE)
            return NULL;
        if (p->silent_after != 0 && v / 2 >= p->silent_after) {
            mine = v; /* the test's dead partner: wait for DONE without answering */
            continue;
        }
        mine = v + 1;
        atomic_store_explicit(&p->word, mine, memory_order_release); /* release: see wait_change */
    }
}

/* Joins thread, but gives up when the word has not moved for a whole
 * interval: a thread that is never scheduled (its CPU held by a real-time
 * task, say) would otherwise hang the probe.  Threads that run always end
 * within silence_ns of their partner's last word. */
static int join_watchfully(pthread_t thread, pingpong *p)
{
    for (;;) {
        /* relaxed: compared only to see whether anything moved; orders nothing. */
        uint64_t before = atomic_load_explicit(&p->word, memory_order_relaxed);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until); /* pthread_timedjoin_np's clock */
        uint64_t ns = (uint64_t)until.tv_nsec + p->silence_ns + 1000000000u;
        until.tv_sec += (time_t)(ns / 1000000000u);
        until.tv_nsec = (long)(ns % 1000000000u);
        int rc = pthread_timedjoin_np(thread, NULL, &until);
        if (rc == 0)
            return 0;
        /* relaxed: as the load above, only compared with it. */
        if (rc != ETIMEDOUT || atomic_load_explicit(&p->word, memory_order_relaxed) == before)
            return -1;
    }
}

static pingpong *new_pingpong(unsigned round_trips, const muster_probe_options *o)
{
    pingpong *p = aligned_alloc(MUSTER_CACHE_LINE, sizeof *p);
    if (p == NULL)
        return NULL;
    memset(p, 0, sizeof *p);
    atomic_init(&p->word, 0);
    p->round_trips = round_trips;
    p->repetitions = o->repetitions;
    p->silent_after = o->partner_silent_after;
    p->silence_ns = (uint64_t)((o->silence_s > 0 ? o->silence_s : MUSTER_PROBE_DEFAULT_SILENCE_S) * 1e9);
    p->samples = calloc(o->repetitions, sizeof *p->samples);
    if (p->samples == NULL) {
        free(p);
        return NULL;
    }
    return p;
}

static void free_pingpong(pingpong *p)
{
    free(p->samples);
    free(p);
}

#define STUCK (-2)

/* Runs both threads to the end: 0, -1 with a message, or STUCK with a
 * message when a thread never finished and still holds p (which must then
 * not be freed).  B starts first, so A's first word finds it (or soon will). */
static int bounce(pingpong *p, int cpu_a, int cpu_b, char *err, size_t len)
{
    pthread_t a, b;
    int rc = start_pinned(&b, cpu_b, responder, p);
    if (rc != 0)
        return muster_say(err, len, "cannot start a thread on CPU %d: %s", cpu_b, strerror(rc));
    rc = start_pinned(&a, cpu_a, initiator, p);
    if (rc != 0) {
        atomic_store_explicit(&p->word, DONE, memory_order_release); /* release: see wait_change */
        pthread_join(b, NULL);
        return muster_say(err, len, "cannot start a thread on CPU %d: %s", cpu_a, strerror(rc));
    }
    int stuck_a = join_watchfully(a, p) != 0, stuck_b = !stuck_a && join_watchfully(b, p) != 0;
    if (stuck_a || stuck_b) {
        /* The stuck thread still holds p: leave both running and p allocated. */
        pthread_detach(a);
        pthread_detach(b);
        muster_say(err, len, "the thread pinned to CPU %d never finished (is the CPU offline, or held by a real-time "
                      "task?)", stuck_a ? cpu_a : cpu_b);
        return STUCK;
    }
    if (p->failed[0] || p->failed[1])
        return muster_say(err, len, "CPU %d and CPU %d: %s for %.1f s; giving up on the pair", cpu_a, cpu_b,
                   p->failed[0] ? "the answering CPU stopped answering" : "the initiating CPU fell silent",
                   (double)p->silence_ns / 1e9);
    return 0;
}

int muster_probe_pair(int cpu_a, int cpu_b, unsigned round_trips, const muster_probe_options *o, double *min_ns,
                      double *median_ns, char *err, size_t err_len)
{
    if (cpu_a == cpu_b || round_trips == 0 || o->repetitions == 0)
        return muster_say(err, err_len, "a pair needs two CPUs (%d, %d), round trips and repetitions", cpu_a, cpu_b);
    pingpong *p = new_pingpong(round_trips, o);
    if (p == NULL)
        return muster_say(err, err_len, "out of memory");
    int rc = bounce(p, cpu_a, cpu_b, err, err_len);
    if (rc != 0) {
        if (rc != STUCK)
            free_pingpong(p);
        return -1;
    }
    *median_ns = picoseconds(muster_median_sorting(p->samples, o->repetitions));
    *min_ns = picoseconds(p->samples[0]); /* sorted by muster_median_sorting() */
    free_pingpong(p);
    if (!(*min_ns > 0))
        return muster_say(err, err_len, "CPU %d and CPU %d: the clock did not advance over %u round trips; use more round "
                                 "trips", cpu_a, cpu_b, round_trips);
    return 0;
}

/* ---- the local cost, epsilon -------------------------------------------- */

typedef struct local_job {
    unsigned repetitions;
    double *samples;
} local_job;

static void *local_worker(void *arg)
{
    local_job *job = arg;
    _Alignas(MUSTER_CACHE_LINE) _Atomic uint64_t cell;
    atomic_init(&cell, 0);
    for (unsigned k = 0; k < job->repetitions; k++) {
        uint64_t start = muster_now_ns();
        for (unsigned i = 0; i < LOCAL_ITERATIONS; i++) {
            /* relaxed: one thread, nothing to order; atomics only so that the
             * compiler keeps every load and store.  Each load depends on the
             * previous store (store-to-load forwarding through the L1), so
             * the loop runs at the latency of one local access. */
            uint64_t x = atomic_load_explicit(&cell, memory_order_relaxed);
            atomic_store_explicit(&cell, x + 1, memory_order_relaxed);
        }
        job->samples[k] = (double)(muster_now_ns() - start) / LOCAL_ITERATIONS;
    }
    return NULL;
}

int muster_probe_local(int cpu, unsigned repetitions, double *ns, char *err, size_t err_len)
{
    local_job job = {.repetitions = repetitions ? repetitions : 1};
    job.samples = calloc(job.repetitions, sizeof *job.samples);
    if (job.samples == NULL)
        return muster_say(err, err_len, "out of memory");
    pthread_t thread;
    int rc = start_pinned(&thread, cpu, local_worker, &job);
    if (rc != 0) {
        free(job.samples);
        return muster_say(err, err_len, "cannot start a thread on CPU %d: %s", cpu, strerror(rc));
    }
    pthread_join(thread, NULL);
    *ns = picoseconds(muster_median_sorting(job.samples, job.repetitions));
    free(job.samples);
    if (!(*ns > 0))
        return muster_say(err, err_len, "CPU %d: the clock did not advance over %u local accesses", cpu, LOCAL_ITERATIONS);
    return 0;
}

/* ---- the whole machine ---------------------------------------------------- */

static int check_options(const muster_probe_options *o, char *err, size_t len)
{
    if (o->cpus == NULL || o->cpu_count == 0)
        return muster_say(err, len, "no CPUs to probe");
    if (o->cpu_count > MUSTER_MACHINE_MAX_CPUS)
        return muster_say(err, len, "%u CPUs, at most %u", o->cpu_count, MUSTER_MACHINE_MAX_CPUS);
    if (o->repetitions == 0)
        return muster_say(err, len, "repetitions: 0 (at least 1)");
    for (unsigned i = 0; i < o->cpu_count; i++)
        if (o->cpus[i] < 0 || (i > 0 && o->cpus[i] <= o->cpus[i - 1]))
            return muster_say(err, len, "CPU list: %d is negative or out of order (ascending, distinct)", o->cpus[i]);
    return 0;
}

/* Epsilon: the median over the CPUs, so one busy CPU does not decide it. */
static int measure_epsilon(const muster_probe_options *o, double *eps, char *err, size_t len)
{
    double *per_cpu = malloc(o->cpu_count * sizeof *per_cpu);
    if (per_cpu == NULL)
        return muster_say(err, len, "out of memory");
    int rc = 0;
    for (unsigned i = 0; i < o->cpu_count && rc == 0; i++)
        rc = muster_probe_local(o->cpus[i], o->repetitions, &per_cpu[i], err, len);
    if (rc == 0)
        *eps = muster_median_sorting(per_cpu, o->cpu_count);
    free(per_cpu);
    return rc;
}

/* R for ~MUSTER_PROBE_SAMPLE_NS a sample, from a short run on the first pair. */
static int calibrate(const muster_probe_options *o, unsigned *round_trips, char *err, size_t len)
{
    muster_probe_options quick = *o;
    double lo, mid;
    quick.repetitions = CALIBRATION_REPETITIONS;
    if (muster_probe_pair(o->cpus[0], o->cpus[1], CALIBRATION_ROUND_TRIPS, &quick, &lo, &mid, err, len) != 0)
        return -1;
    double r = MUSTER_PROBE_SAMPLE_NS / mid;
    *round_trips = r < MUSTER_PROBE_MIN_ROUND_TRIPS ? MUSTER_PROBE_MIN_ROUND_TRIPS
                   : r > MUSTER_PROBE_MAX_ROUND_TRIPS ? MUSTER_PROBE_MAX_ROUND_TRIPS
                                                      : (unsigned)r;
    return 0;
}

static int measure_pairs(const muster_probe_options *o, unsigned round_trips, muster_machine *m, char *err,
                         size_t len)
{
    unsigned n = o->cpu_count, done = 0, total = n * (n - 1);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            size_t at = (size_t)i * n + j;
            if (i == j)
                continue;
            if (muster_probe_pair(o->cpus[i], o->cpus[j], round_trips, o, &m->round_trip_min_ns[at],
                                  &m->round_trip_median_ns[at], err, len) != 0)
                return -1;
            m->latency_ns[at] = m->round_trip_median_ns[at] / 2;
            if (o->progress != NULL)
                o->progress(++done, total, o->progress_ctx);
        }
    return 0;
}

static void describe(muster_machine *m)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        strcpy(host, "this machine");
    snprintf(m->name, sizeof m->name, "%.*s", (int)sizeof m->name - 1, host); /* a long host name is cut */
    time_t now = time(NULL);
    struct tm utc;
    char when[32] = "unknown time";
    if (gmtime_r(&now, &utc) != NULL)
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
    snprintf(m->source, sizeof m->source, "muster probe %s", when);
    long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    m->cache_line_bytes = line > 0 ? (unsigned)line : MUSTER_CACHE_LINE; /* AArch64 glibc says 0 */
}

static int probe_into(const muster_probe_options *o, muster_machine *m, char *err, size_t len)
{
    unsigned n = o->cpu_count, round_trips = o->round_trips;
    if (muster_machine_init(m, n) != 0 || (m->round_trip_min_ns = calloc((size_t)n * n, sizeof(double))) == NULL ||
        (m->round_trip_median_ns = calloc((size_t)n * n, sizeof(double))) == NULL)
        return muster_say(err, len, "out of memory");
    memcpy(m->cpu_ids, o->cpus, n * sizeof *o->cpus);
    describe(m);
    if (measure_epsilon(o, &m->epsilon_ns, err, len) != 0)
        return -1;
    if (n > 1 && round_trips == 0 && calibrate(o, &round_trips, err, len) != 0)
        return -1;
    if (measure_pairs(o, round_trips, m, err, len) != 0)
        return -1;
    for (unsigned i = 0; i < n; i++)
        m->latency_ns[(size_t)i * n + i] = m->epsilon_ns;
    m->probe_repetitions = o->repetitions;
    m->probe_round_trips = n > 1 ? round_trips : 0; /* one CPU: no round trips were made */
    if (muster_machine_derive_layers(m) != 0)
        return muster_say(err, len, "cannot derive layers (out of memory)");
    char why[256];
    if (muster_machine_validate(m, why, sizeof why) != 0)
        return muster_say(err, len, "the measured machine is not valid: %s", why);
    return 0;
}

int muster_probe_machine(const muster_probe_options *o, muster_machine *m, char *err, size_t err_len)
{
    memset(m, 0, sizeof *m);
    if (check_options(o, err, err_len) != 0 || probe_into(o, m, err, err_len) != 0) {
        muster_machine_free(m);
        return -1;
    }
    return 0;
}
