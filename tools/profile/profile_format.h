/* What libmuster-profile.so (profile_tool.c) writes and `muster profile`
 * (profile.c) reads: lines of text, one record each.
 *
 *   muster-profile 1
 *   runtime TEXT                 the runtime's own name for itself
 *   threads N                    threads that had events
 *   events N                     events the tool handled
 *   event_ns X                   what one costs the tool, timed at finalize
 *   region ID RA RUNS NS TEAM    a parallel region by caller: runs, their
 *                                time on the encountering thread, widest team
 *   cell ID KIND RA INDEX COUNT NS
 *                                thread INDEX of region ID (0: outside any):
 *                                COUNT times KIND at caller RA, NS in all
 *   where RA OFFSET OBJECT       RA is OFFSET in the file OBJECT (rest of
 *                                the line; "-" and "?" when unknown)
 *   end
 *
 * Addresses are %p; a line the reader does not know is passed over. */
#ifndef MUSTER_TOOLS_PROFILE_FORMAT_H
#define MUSTER_TOOLS_PROFILE_FORMAT_H

#include <string.h>

#define PROFILE_FORMAT_LINE "muster-profile 1"
#define PROFILE_OUTPUT_ENV "MUSTER_PROFILE_OUTPUT"

/* The kinds of a cell: time in the team, the waits, the task counts. */
enum profile_kind {
    PROFILE_IN_TEAM,           /* implicit task begin to end */
    PROFILE_BARRIER_END,       /* the region's closing barrier */
    PROFILE_BARRIER,           /* an explicit barrier */
    PROFILE_BARRIER_WORKSHARE, /* a loop's, single's or sections' closing barrier */
    PROFILE_TASKWAIT,
    PROFILE_TASKGROUP,
    PROFILE_REDUCTION,
    PROFILE_LOCK,
    PROFILE_CRITICAL,
    PROFILE_ATOMIC,
    PROFILE_ORDERED,
    PROFILE_TASKS_MADE,
    PROFILE_TASKS_RUN,
    PROFILE_TASKS_STOLEN,
    PROFILE_KIND_COUNT
};

static const char *const profile_kind_names[PROFILE_KIND_COUNT] = {
    "in_team", "end_barrier", "barrier", "workshare_barrier", "taskwait", "taskgroup", "reduction",
    "lock",    "critical",    "atomic",  "ordered",           "tasks_made", "tasks_run", "tasks_stolen",
};

static inline const char *profile_kind_name(unsigned kind)
{
    return kind < PROFILE_KIND_COUNT ? profile_kind_names[kind] : "?";
}

/* The kind a name is, or -1. */
static inline int profile_kind_parse(const char *name)
{
    for (int k = 0; k < PROFILE_KIND_COUNT; k++)
        if (strcmp(profile_kind_names[k], name) == 0)
            return k;
    return -1;
}

/* What a wait of that kind is, for the table: barrier, task wait or lock. */
enum profile_wait_class { PROFILE_NOT_A_WAIT, PROFILE_WAIT_BARRIER, PROFILE_WAIT_TASKS, PROFILE_WAIT_LOCK };

static inline enum profile_wait_class profile_wait_class_of(unsigned kind)
{
    switch (kind) {
    case PROFILE_BARRIER_END:
    case PROFILE_BARRIER:
    case PROFILE_BARRIER_WORKSHARE:
    case PROFILE_REDUCTION:
        return PROFILE_WAIT_BARRIER;
    case PROFILE_TASKWAIT:
    case PROFILE_TASKGROUP:
        return PROFILE_WAIT_TASKS;
    case PROFILE_LOCK:
    case PROFILE_CRITICAL:
    case PROFILE_ATOMIC:
    case PROFILE_ORDERED:
        return PROFILE_WAIT_LOCK;
    default:
        return PROFILE_NOT_A_WAIT;
    }
}

#endif
