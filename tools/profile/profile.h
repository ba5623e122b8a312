/* `muster profile -- PROGRAM`: where an OpenMP program's threads wait.
 * profile.c runs the program under libmuster-profile.so (profile_tool.c,
 * an OMPT tool) and reads what it wrote (profile_format.h);
 * profile_symbols.c names each caller by source line; profile_report.c
 * prints the table, the bars and the JSON. */
#ifndef MUSTER_TOOLS_PROFILE_H
#define MUSTER_TOOLS_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile_format.h"

/* A caller (codeptr_ra), named. */
typedef struct profile_where {
    uintptr_t ra;
    unsigned long offset;
    char object[1024]; /* "" when unknown */
    char function[256];
    char file[512];    /* "" when the object has no line information */
    unsigned line;
} profile_where;

/* One thread index's figures in a region, summed over its runs. */
typedef struct profile_thread {
    unsigned index;
    double in_team_s;
    double wait_s[4]; /* by profile_wait_class: [BARRIER], [TASKS], [LOCK] */
    double work_s;    /* in the team, not waiting */
    double idle_s;    /* the region's time, not in the team */
    uint64_t tasks_made, tasks_run, tasks_stolen;
} profile_thread;

/* A construct inside a region: a barrier, a taskwait, a lock by caller. */
typedef struct profile_construct {
    unsigned kind;
    uintptr_t ra;
    uint64_t count;
    double wait_s, worst_thread_s;
} profile_construct;

typedef struct profile_region {
    unsigned id; /* 0: outside any parallel region */
    uintptr_t ra;
    uint64_t runs;
    double time_s;
    unsigned team;
    profile_thread *threads; /* [team] */
    profile_construct *constructs;
    size_t nconstructs;
    /* summed over the threads: */
    double thread_time_s, work_s, idle_s, wait_s[4];
    double imbalance; /* 1 - mean work / most work, over the team */
    uint64_t tasks_made, tasks_run, tasks_stolen;
} profile_region;

typedef struct profile {
    char runtime[256];
    unsigned threads;
    uint64_t events;
    double event_ns;
    profile_region *regions; /* by time, longest first; the outside one last */
    size_t nregions;
    profile_where *wheres;
    size_t nwheres;
} profile;

/* Reads the tool's file into p: callers named (profile_symbolize), the
 * addresses of one source line merged, regions sorted, figures derived.
 * 0, or -1 with why in err. */
int profile_read(const char *path, profile *p, char *err, size_t errlen);
void profile_free(profile *p);
/* The caller's entry (never NULL: a blank one for an unknown address). */
const profile_where *profile_where_of(const profile *p, uintptr_t ra);

/* Names every caller by function and source line (addr2line, one run per
 * object); what it cannot name keeps its object and offset. */
void profile_symbolize(profile *p);
/* "file.c:42", else "object+0x1f3e", else "?" (no caller known). */
void profile_where_text(const profile_where *w, char *buf, size_t len);

/* The run, as the command measured it. */
typedef struct profile_run {
    const char *program;
    const char *runtime; /* muster, libomp or own */
    double wall_s, cpu_s;
    int exit_status;
    double bare_wall_s, bare_cpu_s; /* --overhead: the run without the tool; < 0 when not run */
} profile_run;

typedef struct profile_report_options {
    size_t top;     /* regions shown */
    int per_thread; /* a bar per thread under each region */
    int width;      /* of a bar */
} profile_report_options;

void profile_report_text(FILE *out, const profile *p, const profile_run *run, const profile_report_options *o);
void profile_report_json(FILE *out, const profile *p, const profile_run *run);

int profile_main(int argc, char **argv);

#endif
