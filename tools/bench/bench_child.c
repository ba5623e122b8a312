/* One benchmark process at a time (bench_child.h says what for). */
#include "bench_child.h"

#include "epcc_delay.h"
#include "omp_runtime.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Appends what fd has to buf; returns 0 at end of file. */
static int drain(int fd, char *buf, size_t *len, int *truncated)
{
    char scratch[4096];
    ssize_t n = read(fd, scratch, sizeof scratch);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    size_t keep = (size_t)n < BENCH_CHILD_OUTPUT_MAX - 1 - *len ? (size_t)n : BENCH_CHILD_OUTPUT_MAX - 1 - *len;
    memcpy(buf + *len, scratch, keep);
    *len += keep;
    buf[*len] = '\0';
    if (keep < (size_t)n)
        *truncated = 1;
    return n > 0;
}

/* Reads both pipes to their ends, or until the deadline. */
static void collect(int out_fd, int err_fd, bench_child_output *co, uint64_t deadline)
{
    struct pollfd p[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = err_fd, .events = POLLIN}};
    while (p[0].fd >= 0 || p[1].fd >= 0) {
        uint64_t now = epcc_now_ns();
        if (now >= deadline) {
            co->timed_out = 1;
            return;
        }
        uint64_t left_ms = (deadline - now) / 1000000 + 1;
        if (poll(p, 2, left_ms > 1000 ? 1000 : (int)left_ms) <= 0)
            continue; /* EINTR or a second gone: the loop re-checks the deadline */
        int err_truncated = 0; /* a flood on stderr is only ever shown in part */
        if (p[0].revents && !drain(out_fd, co->out, &co->out_len, &co->out_truncated))
            p[0].fd = -1;
        if (p[1].revents && !drain(err_fd, co->err, &co->err_len, &err_truncated))
            p[1].fd = -1;
    }
}

int bench_child_run(void (*start)(const void *ctx), const void *ctx, double timeout_s, bench_child_output *co)
{
    int out[2], err[2];
    memset(co, 0, sizeof *co);
    if (pipe(out) != 0)
        return -1;
    if (pipe(err) != 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    fflush(NULL);
    uint64_t started = epcc_now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        close(err[0]);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        start(ctx);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    if (pid > 0)
        collect(out[0], err[0], co, epcc_now_ns() + (uint64_t)(timeout_s * 1e9));
    close(out[0]);
    close(err[0]);
    if (pid < 0)
        return -1;
    if (co->timed_out)
        kill(pid, SIGKILL);
    while (wait4(pid, &co->status, 0, &co->usage) < 0 && errno == EINTR)
        ;
    co->wall_s = (double)(epcc_now_ns() - started) / 1e9;
    return 0;
}

int bench_find_record(const char *text, const char *key, const char *value, json_value *out)
{
    char err[128];
    for (const char *line = text; *line != '\0';) {
        size_t len = strcspn(line, "\n");
        if (line[0] == '{' && muster_json_parse(line, len, out, err, sizeof err) == 0) {
            const json_value *member = muster_json_get(out, key);
            if (member != NULL &&
                (value == NULL || (member->type == JSON_STRING && strcmp(member->u.string, value) == 0)))
                return 0;
            muster_json_free(out);
        }
        line += len;
        if (*line == '\n')
            line++;
    }
    *out = (json_value){.type = JSON_NULL};
    return -1;
}

const char *bench_record_string(const json_value *record, const char *key)
{
    const json_value *member = muster_json_get(record, key);
    return member != NULL && member->type == JSON_STRING ? member->u.string : NULL;
}

double bench_record_number(const json_value *record, const char *key)
{
    const json_value *member = muster_json_get(record, key);
    return member != NULL && member->type == JSON_NUMBER ? member->u.number : NAN;
}

_Noreturn void bench_child_exec(const char *library, unsigned threads, char *const argv[])
{
    char err[512], count[16];
    if (library != NULL && omp_use_runtime(library, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        _exit(126);
    }
    snprintf(count, sizeof count, "%u", threads);
    setenv("OMP_NUM_THREADS", count, 1);
    execv(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

bool bench_check_answer(const char *output, const char *library, char *answered, size_t len, char *why,
                        size_t why_len)
{
    json_value header;
    const char *runtime =
        bench_find_record(output, "runtime", NULL, &header) == 0 ? bench_record_string(&header, "runtime") : NULL;
    bool ok = runtime == NULL || bench_runtime_matches(library, runtime);
    if (runtime != NULL)
        snprintf(answered, len, "%s", runtime);
    if (!ok)
        snprintf(why, why_len, "%s answered the OpenMP calls, not %s", runtime, library ? library : "libgomp");
    muster_json_free(&header);
    return ok;
}

#define PROGRESS_EVERY_NS (15 * UINT64_C(1000000000)) /* when stderr is not a terminal */
#define ESTIMATE_FROM_S 5.0 /* a shorter run is not worth a line */

bench_progress bench_progress_start(const char *prog, const char *unit, unsigned total)
{
    uint64_t now = epcc_now_ns();
    return (bench_progress){
        .prog = prog, .unit = unit, .tty = isatty(STDERR_FILENO), .total = total, .start = now, .last = now};
}

void bench_progress_step(bench_progress *p, const char *what, unsigned threads, const char *runtime)
{
    uint64_t now = epcc_now_ns();
    double elapsed = (double)(now - p->start) / 1e9;
    /* What is left, at the pace so far (the steps begun before this one). */
    char left[48] = "";
    if (p->done > 0 && p->total > p->done)
        snprintf(left, sizeof left, ", ~%.0f s left", elapsed / p->done * (p->total - p->done));
    unsigned warmed_up = p->total / 20 > 2 ? p->total / 20 : 2;
    if (!p->estimated && p->done >= warmed_up && p->done < p->total) {
        double whole = elapsed / p->done * p->total;
        p->estimated = true;
        if (whole >= ESTIMATE_FROM_S)
            fprintf(stderr, "%s%s: %u %s, about %.0f s in all (at the pace of the first %u)\n",
                    p->tty ? "\r\033[K" : "", p->prog, p->total, p->unit, whole, p->done);
    }
    p->done++;
    if (p->tty) {
        fprintf(stderr, "\r\033[K[%u/%u] %s @%u on %s ...%s", p->done, p->total, what, threads, runtime,
                left[0] ? left + 1 : "");
    } else if (now - p->last >= PROGRESS_EVERY_NS) {
        fprintf(stderr, "%s: %u of %u %s, %.0f s%s\n", p->prog, p->done, p->total, p->unit, elapsed, left);
        p->last = now;
    }
}

void bench_progress_end(const bench_progress *p)
{
    if (p->tty)
        fprintf(stderr, "\r\033[K");
}

void bench_last_line(const char *text, char *buf, size_t len)
{
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
        n--;
    size_t start = n;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    snprintf(buf, len, "%.*s", (int)(n - start), text + start);
}

int bench_child_explain(const bench_child_output *co, const char *name, double timeout_s, char *buf, size_t len)
{
    char tail[512];
    bench_last_line(co->err, tail, sizeof tail);
    if (co->timed_out) {
        snprintf(buf, len, "did not finish in %g s", timeout_s);
        return 1;
    }
    if (WIFSIGNALED(co->status))
        snprintf(buf, len, "%s died of signal %d (%s)%s%s", name, WTERMSIG(co->status),
                 strsignal(WTERMSIG(co->status)), *tail ? ": " : "", tail);
    else
        snprintf(buf, len, "%s exited with status %d%s%s", name,
                 WIFEXITED(co->status) ? WEXITSTATUS(co->status) : -1, *tail ? ": " : "", tail);
    return 0;
}

int bench_runtime_matches(const char *library, const char *answered)
{
    char want[PATH_MAX], got[PATH_MAX];
    const char *base = strrchr(answered, '/') ? strrchr(answered, '/') + 1 : answered;
    if (realpath(answered, got) == NULL)
        snprintf(got, sizeof got, "%s", answered);
    if (library != NULL)
        return realpath(library, want) != NULL && strcmp(want, got) == 0;
    return strncmp(base, "libgomp", 7) == 0;
}
