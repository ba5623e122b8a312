/* One run of the program under `muster compare` (compare_run.h): a child
 * process, timed, with its rusage and the first 32 KiB of its output. */
#include "compare_run.h"

#include "bench_child.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

typedef struct child_ctx {
    const char *library; /* NULL: the program's own runtime */
    unsigned threads;
    char **argv;
} child_ctx;

static void start_child(const void *p)
{
    const child_ctx *c = p;
    bench_child_exec(c->library, c->threads, c->argv);
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static bool pull_figure(const char *text, const regex_t *re, double *value)
{
    regmatch_t m[2];
    if (regexec(re, text, 2, m, 0) != 0)
        return false;
    regmatch_t g = m[1].rm_so >= 0 ? m[1] : m[0];
    char number[64];
    snprintf(number, sizeof number, "%.*s", (int)(g.rm_eo - g.rm_so), text + g.rm_so);
    char *end;
    *value = strtod(number, &end);
    return end != number;
}

void compare_run_once(const compare_options *o, const char *library, unsigned threads, const regex_t *figure,
                     run_result *r)
{
    static bench_child_output co; /* 32 KiB: not on the stack */
    child_ctx ctx = {library, threads, o->program};
    memset(r, 0, sizeof *r);
    if (bench_child_run(start_child, &ctx, o->timeout_s, &co) != 0) {
        r->failed_to_start = 1;
        snprintf(r->err_line, sizeof r->err_line, "could not start a process: %s", strerror(errno));
        r->out = strdup("");
        return;
    }
    r->wall_s = co.wall_s;
    r->cpu_s = seconds(co.usage.ru_utime) + seconds(co.usage.ru_stime);
    r->voluntary = co.usage.ru_nvcsw;
    r->involuntary = co.usage.ru_nivcsw;
    r->peak_kb = co.usage.ru_maxrss;
    r->timed_out = co.timed_out;
    r->status = co.status;
    r->out = strdup(co.out);
    bench_last_line(co.err, r->err_line, sizeof r->err_line);
    if (figure != NULL)
        r->has_figure = pull_figure(co.out, figure, &r->figure);
}

bool compare_run_ok(const run_result *r)
{
    return !r->failed_to_start && !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

void compare_describe_end(const run_result *r, char *buf, size_t len)
{
    if (r->failed_to_start)
        snprintf(buf, len, "not started");
    else if (r->timed_out)
        snprintf(buf, len, "timed out");
    else if (WIFSIGNALED(r->status))
        snprintf(buf, len, "signal %d", WTERMSIG(r->status));
    else
        snprintf(buf, len, "exit %d", WEXITSTATUS(r->status));
}

