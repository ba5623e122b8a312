#include "bench_epcc.h"
#include "platform/affinity.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A test loop longer than this is never needed; it bounds the arithmetic. */
#define MAX_INNER (UINT64_C(1) << 32)
/* Even when one episode outlasts the target (spinning threads outnumbering
 * CPUs take milliseconds each), one lucky episode must not be the sample. */
#define MIN_INNER 4

/* ---- the child ---------------------------------------------------------- */

/* What the threads of one child share.  `command` carries the inner count of
 * the next phase (0: leave); it is written by thread 0 before a control
 * episode of the barrier under test and read after it, so the barrier itself
 * orders it, as a barrier must. */
struct team {
    const epcc_request *rq;
    void *shared;
    int fd;
    _Atomic uint64_t command;
    _Atomic uint64_t serial;
    atomic_flag failing;
};

/* Sends an error result and ends the child.  Only the first failing thread
 * writes; a second must not _exit before the first has finished writing. */
static _Noreturn void child_fail(struct team *t, const char *fmt, ...)
{
    if (atomic_flag_test_and_set(&t->failing))
        for (;;)
            pause();
    epcc_result res = {.status = EPCC_ERROR, .state_bytes = -1, .resolved_algorithm = -1,
                       .resolved_policy = -1};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res.message, sizeof res.message, fmt, ap);
    va_end(ap);
    ssize_t ignored = write(t->fd, &res, sizeof res);
    (void)ignored;
    _exit(0);
}

static inline uint64_t checked_wait(struct team *t, bench_slot *slot)
{
    int rc = t->rq->impl->wait(slot);
    if (__builtin_expect(rc < 0, 0)) {
        char detail[BENCH_ERR_LEN] = "";
        if (t->rq->impl->describe_error)
            t->rq->impl->describe_error(rc, detail);
        child_fail(t, "wait failed (%d)%s%s", rc, *detail ? ": " : "", detail);
    }
    return (uint64_t)rc;
}

static void attach(struct team *t, unsigned id, bench_slot *slot)
{
    char err[BENCH_ERR_LEN] = "";
    memset(slot, 0, sizeof *slot);
    if (t->rq->impl->attach(t->shared, id, slot, err) < 0)
        child_fail(t, "thread %u could not attach: %s", id, err);
}

/* The EPCC test loop: inner x {delay; barrier}.  Returns the serial count. */
static uint64_t test_loop(struct team *t, bench_slot *slot, uint64_t inner)
{
    uint64_t serial = 0;
    unsigned iters = t->rq->delay_iters;
    for (uint64_t j = 0; j < inner; j++) {
        epcc_delay(iters);
        serial += checked_wait(t, slot);
    }
    return serial;
}

struct worker {
    struct team *team;
    unsigned id;
    pthread_t thread;
};

static void *worker_main(void *p)
{
    struct worker *w = p;
    struct team *t = w->team;
    bench_slot slot;
    attach(t, w->id, &slot);
    uint64_t serial = 0;
    for (;;) {
        serial += checked_wait(t, &slot); /* the control episode */
        uint64_t inner = atomic_load_explicit(&t->command, memory_order_relaxed);
        if (inner == 0)
            break;
        serial += test_loop(t, &slot, inner);
    }
    atomic_fetch_add(&t->serial, serial);
    return NULL;
}

/* Thread 0's side of the protocol: what it counts as it drives the phases. */
struct driver {
    struct team *team;
    bench_slot slot;
    uint64_t episodes;
    uint64_t serial;
};

static uint64_t context_switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru); /* every thread of the child */
    return (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw);
}

/* Runs one phase of `inner` episodes on every thread; returns its time as
 * thread 0 saw it and, in *csw, the context switches it cost. */
static uint64_t run_phase(struct driver *d, uint64_t inner, uint64_t *csw)
{
    struct team *t = d->team;
    atomic_store_explicit(&t->command, inner, memory_order_relaxed);
    d->serial += checked_wait(t, &d->slot);
    uint64_t csw0 = context_switches();
    uint64_t t0 = epcc_now_ns();
    d->serial += test_loop(t, &d->slot, inner);
    uint64_t elapsed = epcc_now_ns() - t0;
    if (csw)
        *csw = context_switches() - csw0;
    d->episodes += 1 + inner;
    return elapsed;
}

/* Grows the inner count until the loop is long enough to time well, then
 * scales it to the target, as EPCC's innerreps calibration does.  A loop that
 * looks long enough is timed twice and the faster kept: one preemption on a
 * busy machine must not settle the count at a handful of episodes. */
static uint64_t calibrate(struct driver *d, uint64_t target_ns)
{
    const uint64_t enough = target_ns / 8;
    uint64_t inner = 1, ns = 0;
    for (;;) {
        ns = run_phase(d, inner, NULL);
        if (ns >= enough) {
            uint64_t again = run_phase(d, inner, NULL);
            ns = again < ns ? again : ns;
        }
        if (ns >= enough || inner >= MAX_INNER / 16)
            break;
        uint64_t grow = ns > 0 ? enough / ns + 1 : 16;
        inner *= grow < 2 ? 2 : grow > 16 ? 16 : grow;
    }
    double scaled = (double)inner * (double)target_ns / (double)(ns ? ns : 1);
    return scaled < MIN_INNER ? MIN_INNER : scaled > (double)MAX_INNER ? MAX_INNER : (uint64_t)scaled;
}

static void pin_self(struct team *t, int cpu)
{
    if (cpu < 0)
        return;
    int rc = muster_thread_bind(&cpu, 1);
    if (rc != 0)
        child_fail(t, "cannot pin thread 0 to CPU %d: %s", cpu, strerror(rc));
}

static void start_worker(struct team *t, struct worker *w, int cpu)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (cpu >= 0)
        (void)muster_thread_attr_on_cpu(&attr, cpu); /* pinned from its first instruction */
    int rc = pthread_create(&w->thread, &attr, worker_main, w);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        child_fail(t, "cannot start thread %u: %s", w->id, strerror(rc));
}

/* The reference loop, alone on thread 0's CPU once the team has left. */
static uint64_t reference_loop(uint64_t inner, unsigned iters)
{
    uint64_t t0 = epcc_now_ns();
    for (uint64_t j = 0; j < inner; j++)
        epcc_delay(iters);
    return epcc_now_ns() - t0;
}

static void describe_barrier(struct team *t, epcc_result *res)
{
    const bench_impl *impl = t->rq->impl;
    res->state_bytes = impl->state_bytes ? impl->state_bytes(t->shared, t->rq->threads) : -1;
    if (impl->resolved)
        impl->resolved(t->shared, &res->resolved_algorithm, &res->resolved_policy);
}

/* Calibrates (when asked), warms up, then times the test loop. */
static void drive(struct driver *d, epcc_result *res)
{
    const epcc_request *rq = d->team->rq;
    uint64_t inner = rq->inner ? rq->inner : calibrate(d, rq->target_ns);
    run_phase(d, inner / 8 ? inner / 8 : 1, NULL); /* every thread running and warm */
    res->inner = inner;
    res->test_ns = run_phase(d, inner, &res->csw);
}

static void check_serial(struct team *t, const struct driver *d)
{
    uint64_t serial = d->serial + atomic_load(&t->serial);
    if (t->rq->impl->counts_serial && serial != d->episodes)
        child_fail(t, "the serial return was given %llu times in %llu episodes",
                   (unsigned long long)serial, (unsigned long long)d->episodes);
}

/* Creates the barrier and tells the parent what it is, before anything can
 * hang: a measurement that never finishes still reports its barrier. */
static void create_barrier(struct team *t, int fd)
{
    char err[BENCH_ERR_LEN] = "";
    if (t->rq->impl->create(&t->shared, t->rq->threads, t->rq->arg, err) < 0)
        child_fail(t, "%s", err);
    epcc_result info = {.status = EPCC_INFO, .resolved_algorithm = -1, .resolved_policy = -1};
    describe_barrier(t, &info);
    ssize_t ignored = write(fd, &info, sizeof info);
    (void)ignored;
}

static struct worker *start_team(struct team *t)
{
    struct worker *workers = calloc(t->rq->threads, sizeof *workers);
    if (workers == NULL)
        child_fail(t, "out of memory");
    for (unsigned i = 1; i < t->rq->threads; i++) {
        workers[i] = (struct worker){.team = t, .id = i};
        start_worker(t, &workers[i], t->rq->cpus[i]);
    }
    return workers;
}

/* One last control episode with command 0 sends every worker home. */
static void stop_team(struct team *t, struct driver *d, struct worker *workers)
{
    atomic_store_explicit(&t->command, 0, memory_order_relaxed);
    d->serial += checked_wait(t, &d->slot);
    d->episodes++;
    for (unsigned i = 1; i < t->rq->threads; i++)
        pthread_join(workers[i].thread, NULL);
    free(workers);
}

static _Noreturn void child_main(const epcc_request *rq, int fd)
{
    static struct team team; /* static: its address outlives every thread */
    struct team *t = &team;
    t->rq = rq;
    t->fd = fd;
    atomic_flag_clear(&t->failing);
    epcc_result res = {.status = EPCC_OK, .resolved_algorithm = -1, .resolved_policy = -1};

    pin_self(t, rq->cpus[0]);
    create_barrier(t, fd);
    describe_barrier(t, &res);
    struct worker *workers = start_team(t);
    struct driver d = {.team = t};
    attach(t, 0, &d.slot);
    drive(&d, &res);
    stop_team(t, &d, workers);
    check_serial(t, &d);

    res.ref_ns = reference_loop(res.inner, rq->delay_iters);
    rq->impl->destroy(t->shared, rq->threads);
    ssize_t ignored = write(fd, &res, sizeof res);
    (void)ignored;
    _exit(0);
}

/* ---- the parent --------------------------------------------------------- */

static void set_error(epcc_result *out, const char *fmt, ...)
{
    out->status = EPCC_ERROR;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof out->message, fmt, ap);
    va_end(ap);
}

/* Reads one result, or stops at the deadline.  Returns the bytes read. */
static size_t read_until(int fd, void *buf, size_t size, uint64_t deadline_ns)
{
    size_t got = 0;
    while (got < size) {
        uint64_t now = epcc_now_ns();
        if (now >= deadline_ns)
            break;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        uint64_t left_ms = (deadline_ns - now + 999999) / 1000000;
        int rc = poll(&p, 1, left_ms > 60000 ? 60000 : (int)left_ms);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            continue; /* the loop re-checks the deadline */
        ssize_t n = read(fd, (char *)buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the child is gone */
        got += (size_t)n;
    }
    return got;
}

/* Reaps the child, killing it if it lingers after its answer. */
static int reap(pid_t pid, int kill_now)
{
    int status = 0;
    if (kill_now)
        kill(pid, SIGKILL);
    for (int tries = 0; tries < 1000; tries++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return status;
        if (tries == 200)
            kill(pid, SIGKILL);
        usleep(1000);
    }
    waitpid(pid, &status, 0);
    return status;
}

static void explain_silence(epcc_result *out, int status)
{
    if (WIFSIGNALED(status))
        set_error(out, "the measuring process died of signal %d (%s)", WTERMSIG(status),
                  strsignal(WTERMSIG(status)));
    else
        set_error(out, "the measuring process exited (status %d) without a result",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Reads the child's records until the final one or the deadline.  Returns 1
 * when *out holds the final record; the INFO record's facts are kept in *out
 * either way. */
static int read_records(int fd, epcc_result *out, uint64_t deadline)
{
    epcc_result rec;
    for (;;) {
        if (read_until(fd, &rec, sizeof rec, deadline) < sizeof rec)
            return 0;
        if (rec.status != EPCC_INFO) {
            /* An error record made in haste knows less than the INFO record. */
            if (rec.state_bytes < 0)
                rec.state_bytes = out->state_bytes;
            if (rec.resolved_algorithm < 0) {
                rec.resolved_algorithm = out->resolved_algorithm;
                rec.resolved_policy = out->resolved_policy;
            }
            *out = rec;
            return 1;
        }
        out->state_bytes = rec.state_bytes;
        out->resolved_algorithm = rec.resolved_algorithm;
        out->resolved_policy = rec.resolved_policy;
    }
}

void epcc_measure(const epcc_request *rq, epcc_result *out)
{
    int fds[2];
    memset(out, 0, sizeof *out);
    out->state_bytes = -1;
    out->resolved_algorithm = out->resolved_policy = -1;
    if (pipe(fds) != 0) {
        set_error(out, "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL); /* the child must not flush the parent's buffers again */
    uint64_t deadline = epcc_now_ns() + (uint64_t)(rq->timeout_s * 1e9);
    pid_t pid = fork();
    if (pid < 0) {
        set_error(out, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(rq, fds[1]);
    }
    close(fds[1]);
    int complete = read_records(fds[0], out, deadline);
    close(fds[0]);
    int timed_out = !complete && epcc_now_ns() >= deadline;
    int status = reap(pid, timed_out);
    if (timed_out) {
        out->status = EPCC_DNF;
        snprintf(out->message, sizeof out->message, "did not finish in %g s", rq->timeout_s);
    } else if (!complete) {
        explain_silence(out, status);
    }
}
