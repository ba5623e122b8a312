/* What `muster profile` prints: a table of parallel regions by their
 * threads' time, each with a bar of where that time went and its
 * constructs by wait; or the same as JSON. */
#include "profile.h"

#include "json_write.h"

#include <string.h>

static const char *const class_names[4] = {"", "barrier", "tasks", "lock"};

static double share(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

/* A bar `width` wide: # work, = barrier, ~ task wait, L lock, . idle. */
static void bar(FILE *out, double work, const double wait[4], double idle, int width)
{
    double whole = work + wait[1] + wait[2] + wait[3] + idle;
    const double parts[5] = {work, wait[PROFILE_WAIT_BARRIER], wait[PROFILE_WAIT_TASKS], wait[PROFILE_WAIT_LOCK],
                             idle};
    const char marks[5] = {'#', '=', '~', 'L', '.'};
    double done = 0;
    int drawn = 0;
    fputc('[', out);
    for (int k = 0; k < 5 && whole > 0; k++) {
        done += parts[k];
        int upto = (int)(done / whole * width + 0.5);
        for (; drawn < upto; drawn++)
            fputc(marks[k], out);
    }
    for (; drawn < width; drawn++)
        fputc(' ', out);
    fputc(']', out);
}

static void seconds(char *buf, size_t len, double s)
{
    if (s >= 1)
        snprintf(buf, len, "%.2f s", s);
    else if (s >= 1e-3)
        snprintf(buf, len, "%.1f ms", s * 1e3);
    else
        snprintf(buf, len, "%.0f us", s * 1e6);
}

static const char *construct_name(unsigned kind)
{
    switch (kind) {
    case PROFILE_BARRIER_END:
        return "end barrier";
    case PROFILE_BARRIER_WORKSHARE:
        return "loop barrier";
    default:
        return profile_kind_name(kind);
    }
}

static void region_name(const profile *p, const profile_region *g, char *buf, size_t len)
{
    if (g->id == 0) {
        snprintf(buf, len, "outside parallel regions");
        return;
    }
    const profile_where *w = profile_where_of(p, g->ra);
    char where[300];
    profile_where_text(w, where, sizeof where);
    if (w->function[0] != '\0')
        snprintf(buf, len, "%.299s %.255s", where, w->function);
    else
        snprintf(buf, len, "%s", where);
}

static void print_constructs(FILE *out, const profile *p, const profile_region *g)
{
    size_t shown = 0;
    for (size_t k = 0; k < g->nconstructs && shown < 6; k++) {
        const profile_construct *c = &g->constructs[k];
        char where[600], wait[32], worst[32], name[80];
        if (c->ra == 0 && c->kind == PROFILE_BARRIER_END)
            snprintf(where, sizeof where, "(the region's end)");
        else if (c->ra == 0)
            snprintf(where, sizeof where, "(caller unknown)");
        else
            profile_where_text(profile_where_of(p, c->ra), where, sizeof where);
        seconds(wait, sizeof wait, c->wait_s);
        seconds(worst, sizeof worst, c->worst_thread_s);
        snprintf(name, sizeof name, "%s %.40s", construct_name(c->kind), where);
        fprintf(out, "      %-44s %9llu x  wait %9s, most on one thread %9s\n", name, (unsigned long long)c->count,
                wait, worst);
        shown++;
    }
    if (g->nconstructs > shown)
        fprintf(out, "      (%zu more constructs: --json lists them all)\n", g->nconstructs - shown);
}

static void print_region(FILE *out, const profile *p, const profile_region *g, const profile_report_options *o)
{
    char name[700], time[32], tasks[64];
    region_name(p, g, name, sizeof name);
    if (g->id == 0) {
        fprintf(out, " %s\n", name);
        print_constructs(out, p, g);
        return;
    }
    seconds(time, sizeof time, g->time_s);
    snprintf(tasks, sizeof tasks, "%llu/%llu/%llu", (unsigned long long)g->tasks_made,
             (unsigned long long)g->tasks_run, (unsigned long long)g->tasks_stolen);
    double whole = g->thread_time_s;
    fprintf(out, " %-28.28s %7llu %9s %4u %5.0f%% %6.0f%% %5.0f%% %5.0f%% %5.0f%% %5.0f%%  %s\n", name,
            (unsigned long long)g->runs, time, g->team, share(g->work_s, whole),
            share(g->wait_s[PROFILE_WAIT_BARRIER], whole), share(g->wait_s[PROFILE_WAIT_TASKS], whole),
            share(g->wait_s[PROFILE_WAIT_LOCK], whole), share(g->idle_s, whole), 100 * g->imbalance, tasks);
    fprintf(out, "      ");
    bar(out, g->work_s, g->wait_s, g->idle_s, o->width);
    fputc('\n', out);
    for (unsigned t = 0; o->per_thread && t < g->team; t++) {
        const profile_thread *th = &g->threads[t];
        fprintf(out, "      thread %-3u", t);
        bar(out, th->work_s, th->wait_s, th->idle_s, o->width - 11);
        fputc('\n', out);
    }
    print_constructs(out, p, g);
}

void profile_report_text(FILE *out, const profile *p, const profile_run *run, const profile_report_options *o)
{
    char wall[32], cpu[32], tool[32];
    seconds(wall, sizeof wall, run->wall_s);
    seconds(cpu, sizeof cpu, run->cpu_s);
    fprintf(out, "muster profile: %s on %s (%s), %u threads: %s wall, %s CPU, exit %d\n", run->program,
            run->runtime, p->runtime[0] ? p->runtime : "?", p->threads, wall, cpu, run->exit_status);
    double tool_s = (double)p->events * p->event_ns * 1e-9;
    seconds(tool, sizeof tool, tool_s);
    fprintf(out, "the tool: %llu events at about %.0f ns each: about %s, %.1f%% of the CPU time\n",
            (unsigned long long)p->events, p->event_ns, tool, share(tool_s, run->cpu_s));
    if (run->bare_wall_s >= 0) {
        char bare_wall[32], bare_cpu[32];
        seconds(bare_wall, sizeof bare_wall, run->bare_wall_s);
        seconds(bare_cpu, sizeof bare_cpu, run->bare_cpu_s);
        fprintf(out, "without the tool: %s wall, %s CPU (with it: %.2fx the wall time, %.2fx the CPU)\n", bare_wall,
                bare_cpu, run->bare_wall_s > 0 ? run->wall_s / run->bare_wall_s : 0,
                run->bare_cpu_s > 0 ? run->cpu_s / run->bare_cpu_s : 0);
    }
    size_t regions = 0;
    for (size_t i = 0; i < p->nregions; i++)
        regions += p->regions[i].id != 0;
    if (regions == 0) {
        fprintf(out, "\nno parallel region ran.\n");
    } else {
        fprintf(out, "\nparallel regions by their threads' time (shares of it; imbal: 1 - mean/most work per "
                     "thread)\n");
        fprintf(out, " %-28s %7s %9s %4s %6s %7s %6s %6s %6s %6s  %s\n", "region", "runs", "time", "team", "work",
                "barrier", "tasks", "locks", "idle", "imbal", "tasks made/run/stolen");
    }
    size_t shown = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        const profile_region *g = &p->regions[i];
        if (g->id != 0 && shown++ >= o->top)
            continue;
        if (g->id == 0 && g->nconstructs == 0)
            continue;
        print_region(out, p, g, o);
    }
    if (regions > o->top)
        fprintf(out, " (%zu more regions: --top N shows more, --json all)\n", regions - o->top);
    if (regions > 0)
        fprintf(out, "bars: # work  = barrier  ~ taskwait/taskgroup  L lock/critical  . idle (not in the team)\n");
}

/* ---- JSON ---- */

static void json_where(FILE *out, const profile *p, uintptr_t ra)
{
    const profile_where *w = profile_where_of(p, ra);
    char text[32];
    snprintf(text, sizeof text, "%#lx", (unsigned long)ra);
    fputs("{\"address\": ", out);
    muster_json_write_string(out, ra ? text : "");
    fputs(", \"object\": ", out);
    muster_json_write_string(out, w->object);
    fprintf(out, ", \"offset\": %lu, \"function\": ", w->offset);
    muster_json_write_string(out, w->function);
    fputs(", \"file\": ", out);
    muster_json_write_string(out, w->file);
    fprintf(out, ", \"line\": %u}", w->line);
}

static void json_number(FILE *out, const char *key, double v)
{
    fprintf(out, "\"%s\": ", key);
    muster_json_write_number(out, v);
}

static void json_waits(FILE *out, const double wait[4])
{
    for (int c = 1; c < 4; c++) {
        char key[32];
        snprintf(key, sizeof key, "%s_s", class_names[c]);
        fputs(", ", out);
        json_number(out, key, wait[c]);
    }
}

static void json_region(FILE *out, const profile *p, const profile_region *g)
{
    fprintf(out, "    {\"id\": %u, \"site\": ", g->id);
    json_where(out, p, g->ra);
    fprintf(out, ", \"runs\": %llu, ", (unsigned long long)g->runs);
    json_number(out, "time_s", g->time_s);
    fprintf(out, ", \"team\": %u, ", g->team);
    json_number(out, "work_s", g->work_s);
    json_waits(out, g->wait_s);
    fputs(", ", out);
    json_number(out, "idle_s", g->idle_s);
    fputs(", ", out);
    json_number(out, "imbalance", g->imbalance);
    fprintf(out, ", \"tasks\": {\"made\": %llu, \"run\": %llu, \"stolen\": %llu},\n     \"threads\": [",
            (unsigned long long)g->tasks_made, (unsigned long long)g->tasks_run,
            (unsigned long long)g->tasks_stolen);
    for (unsigned t = 0; t < g->team; t++) {
        const profile_thread *th = &g->threads[t];
        fprintf(out, "%s\n      {\"index\": %u, ", t ? "," : "", t);
        json_number(out, "in_team_s", th->in_team_s);
        fputs(", ", out);
        json_number(out, "work_s", th->work_s);
        json_waits(out, th->wait_s);
        fputs(", ", out);
        json_number(out, "idle_s", th->idle_s);
        fprintf(out, ", \"tasks_made\": %llu, \"tasks_run\": %llu, \"tasks_stolen\": %llu}",
                (unsigned long long)th->tasks_made, (unsigned long long)th->tasks_run,
                (unsigned long long)th->tasks_stolen);
    }
    fputs("],\n     \"constructs\": [", out);
    for (size_t k = 0; k < g->nconstructs; k++) {
        const profile_construct *c = &g->constructs[k];
        fprintf(out, "%s\n      {\"kind\": \"%s\", \"site\": ", k ? "," : "", profile_kind_name(c->kind));
        json_where(out, p, c->ra);
        fprintf(out, ", \"count\": %llu, ", (unsigned long long)c->count);
        json_number(out, "wait_s", c->wait_s);
        fputs(", ", out);
        json_number(out, "worst_thread_wait_s", c->worst_thread_s);
        fputc('}', out);
    }
    fputs("]}", out);
}

void profile_report_json(FILE *out, const profile *p, const profile_run *run)
{
    fputs("{\"program\": ", out);
    muster_json_write_string(out, run->program);
    fputs(", \"runtime\": ", out);
    muster_json_write_string(out, run->runtime);
    fputs(", \"runtime_version\": ", out);
    muster_json_write_string(out, p->runtime);
    fprintf(out, ", \"threads\": %u, \"exit_status\": %d,\n ", p->threads, run->exit_status);
    json_number(out, "wall_s", run->wall_s);
    fputs(", ", out);
    json_number(out, "cpu_s", run->cpu_s);
    if (run->bare_wall_s >= 0) {
        fputs(", ", out);
        json_number(out, "bare_wall_s", run->bare_wall_s);
        fputs(", ", out);
        json_number(out, "bare_cpu_s", run->bare_cpu_s);
    }
    fprintf(out, ",\n \"tool\": {\"events\": %llu, ", (unsigned long long)p->events);
    json_number(out, "event_ns", p->event_ns);
    fputs("},\n \"regions\": [\n", out);
    for (size_t i = 0; i < p->nregions; i++) {
        json_region(out, p, &p->regions[i]);
        fputs(i + 1 < p->nregions ? ",\n" : "\n", out);
    }
    fputs(" ]}\n", out);
}
