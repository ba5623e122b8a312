/* The one place that decides whether a new task is queued (deferred, for
 * any member to run) or run at once by its creator.  Every creation path of
 * the wing (submit.c, detach.c) asks here; nothing else decides.
 *
 * The inputs, each named once:
 *   hungry members   members looking for work (scheduler.h: tt->hungry);
 *   spare members    members beyond the CPUs the team can run on, whose
 *                    hunger cannot help (tt->spare_members: the wait plan's
 *                    count, or the bound team's, muster_omp_tasks_set_cpus);
 *   queue ahead      tasks a member keeps queued before it runs new ones at
 *                    once (MUSTER_OMP_QUEUE_AHEAD);
 *   level statistics what this thread saw of the tasks one level down: do
 *                    they create tasks, are they long (sampled lengths);
 *   delayed siblings near the top of a recursion, queue the new task and
 *                    run the one queued before (MUSTER_OMP_DELAY_DEPTH);
 *   early tasks      a member's first size - 1 tasks of a region;
 *   throttle         unfinished tasks per member (MUSTER_OMP_TASKS_PER_MEMBER);
 *   the clauses      if, final, priority, depend, and whether the team has
 *                    a scheduler at all.
 * docs/tuning.md ("Task deferral") gives the measurements behind each rule
 * and default. */
#ifndef MUSTER_OMP_TASK_DEFER_H
#define MUSTER_OMP_TASK_DEFER_H

#include <stdbool.h>
#include <stdint.h>

#include "omp/team.h"
#include "omp/task/scheduler.h"
#include "omp/task/settings.h"

/* The defaults: settings.h (MUSTER_OMP_QUEUE_AHEAD, MUSTER_OMP_DELAY_DEPTH,
 * MUSTER_OMP_TASKS_PER_MEMBER). */

/* ---- the answer ---- */

typedef enum muster_omp_defer_plan {
    MUSTER_OMP_RUN_NOW,       /* the creator runs it at once */
    MUSTER_OMP_QUEUE_DELAYED, /* queued; the sibling queued before it runs now */
    MUSTER_OMP_QUEUE,         /* queued for any member */
} muster_omp_defer_plan;

/* ---- level statistics ---- */

/* Depths whose statistics the plan reads: the children of tasks above the
 * deepest delay depth. */
enum { MUSTER_OMP_STAT_DEPTHS = MUSTER_OMP_DELAY_DEPTH_MAX + 1 };
/* A sampled task at least this long is long (docs/tuning.md: LONG_TASK_NS). */
enum { LONG_TASK_NS = 20000 };
/* The clock is read around one task in SHORT_SAMPLE_EVERY after a short
 * one, one in LONG_SAMPLE_EVERY after a long one (two reads, ~60 ns). */
enum { SHORT_SAMPLE_EVERY = 64, LONG_SAMPLE_EVERY = 2 };
/* A level's tasks count as long from this score up: two long samples more
 * than short ones (one preempted tiny task must not make a level long). */
enum { LONG_EVIDENCE = 2 };

/* What this thread saw of the tasks at one depth. */
typedef struct muster_omp_level_stats {
    int8_t spawn;  /* up when a task there created tasks, down when it did not */
    int8_t length; /* up when a sampled task there was long, down when short */
} muster_omp_level_stats;
extern _Thread_local muster_omp_level_stats muster_omp_levels[MUSTER_OMP_STAT_DEPTHS];
/* Tasks to run before the next sampled one. */
extern _Thread_local uint32_t muster_omp_until_sample;

/* Moves a score one step, saturating at +-4. */
static inline void muster_omp_defer_bump(int8_t *score, bool up)
{
    if (up ? *score < 4 : *score > -4)
        *score += up ? 1 : -1;
}

/* True when the next task, at `depth`, is to have its length sampled
 * (muster_omp_defer_sample_end after it).  Only the depths whose stats the
 * plan reads: deeper tasks neither take a sample nor count towards one. */
static inline bool muster_omp_defer_sample_start(unsigned depth)
{
    if (depth >= MUSTER_OMP_STAT_DEPTHS)
        return false;
    if (__builtin_expect(muster_omp_until_sample != 0, 1)) {
        muster_omp_until_sample--;
        return false;
    }
    return true;
}
void muster_omp_defer_sample_end(unsigned depth, uint64_t start);

/* A task at `depth` has ended; `spawned`: it created tasks. */
static inline void muster_omp_defer_note_spawned(unsigned depth, bool spawned)
{
    if (depth < MUSTER_OMP_STAT_DEPTHS)
        muster_omp_defer_bump(&muster_omp_levels[depth].spawn, spawned);
}

/* ---- the rules ---- */

/* Whether a new task may be deferred at all: if(true), not included in a
 * final task, in a team with a scheduler (every team of more than one; a
 * team of one once it queues: muster_omp_tasks_solo_scheduler).  A
 * function, not a variable: named once and used twice, the value cost the
 * if(0) path instructions (gcc then evaluates it whole before testing the
 * team's scheduler). */
static inline bool muster_omp_defer_possible(bool if_clause, bool included, const muster_omp_team *team)
{
    return if_clause && !included && team != NULL && team->tasks != NULL;
}

/* Hungry members: whether member id should queue a new task rather than
 * run it at once because another member is looking for work with a CPU to
 * do it on (more members hungry than spare ones) and id's deque holds
 * fewer than the queue-ahead.  While every member is busy a task runs at
 * once: it costs a call, and the order is the serial one (which decides
 * the work of a branch-and-bound search).  The team's first task is
 * queued: the others have had no chance yet to say they are hungry. */
bool muster_omp_defer_hungry_slow(muster_omp_team_tasks *tt, unsigned id);
static inline bool muster_omp_defer_hungry(muster_omp_team_tasks *tt, unsigned id)
{
    /* relaxed (all): hints.  A stale hungry count defers one task too many
     * or too few; a member that stays hungry is seen at the next creation,
     * and a queued task is found by the members' own look.  The common
     * case, everyone busy in a team that has had tasks, is two loads. */
    bool hungry = tt->defer_always ||
                  atomic_load_explicit(&tt->hungry, memory_order_relaxed) >
                      atomic_load_explicit(&tt->spare_members, memory_order_relaxed);
    /* relaxed: a hint, as above. */
    if (!hungry && atomic_load_explicit(&tt->tasks_seen, memory_order_relaxed))
        return false;
    return muster_omp_defer_hungry_slow(tt, id);
}

/* Level statistics and delayed siblings: what a task at `depth` (0: the
 * implicit task) does with a new child while nobody is hungry.  Below the
 * delay depth, where the children's level mostly creates tasks (below the
 * implicit task's children: loops of small tasks there would pay), it
 * queues the child and runs the one queued before; where the children are
 * long, the same if they create tasks, else it just queues it.  Else it
 * runs the child at once.  The implicit task's usual answer first, in one
 * load: it is the common creator. */
static inline muster_omp_defer_plan muster_omp_defer_by_level(unsigned depth, unsigned delay_depth)
{
    if ((depth == 0 && muster_omp_levels[1].length < LONG_EVIDENCE) || depth >= delay_depth)
        return MUSTER_OMP_RUN_NOW;
    const muster_omp_level_stats *children = &muster_omp_levels[depth + 1];
    if (children->length >= LONG_EVIDENCE)
        return children->spawn < 0 ? MUSTER_OMP_QUEUE : MUSTER_OMP_QUEUE_DELAYED;
    return depth > 0 && children->spawn >= 0 ? MUSTER_OMP_QUEUE_DELAYED : MUSTER_OMP_RUN_NOW;
}

/* Help first near the root: an explicit task at depth 1 to
 * help_first_depth - 1 queues its children whoever is busy, and its
 * taskwait then runs them newest first (the owner takes its deque's
 * newest), as libgomp and libomp order a recursion's top; deeper, they
 * run at once, in creation order (the serial one).  But a thief explores
 * the subtree it took in the other order (task_frame's work_first, flipped
 * at every steal): a branch-and-bound search finds its bound by following
 * its promising branch first, and the runtime cannot tell which branch
 * that is, the last task (a recursion written for the peers) or the first
 * (one written serially, the rest of the node left to the creator).  The
 * root's owner dives newest first, the thieves, who take the oldest tasks
 * (the top), in creation order; the first bound found prunes both.  A
 * subtree keeps the order its root was given: a task the implicit task
 * queued is a root that helps first, one it ran at once (its serial
 * order) one that runs its children at once too.
 * docs/tuning.md ("Help first") has the measurements. */
static inline bool muster_omp_defer_help_first(const muster_omp_team_tasks *tt, unsigned depth, bool work_first)
{
    return !work_first && depth != 0 && depth < tt->help_first_depth;
}

/* Early tasks: a member's first size - 1 deferrable tasks of a region made
 * by its implicit task are queued whoever is hungry, so that a task that
 * waits for one made after it (not conforming, but common) does not hang
 * its creator.  Not those that tasks make (a search's first branches would
 * leave their serial order).  Set when the member joins a team. */
static inline void muster_omp_defer_join(muster_omp_thread *self, unsigned team_size)
{
    self->early_tasks = team_size - 1;
}

/* A team of one (it has a scheduler only for the gcc ABI, or after a
 * detachable task: solo.c) helps first from the implicit task down, and
 * runs at once what it does not queue: nobody is hungry or steals there,
 * and that is libgomp's order for a lone thread (its tasks queued, a
 * taskwait's children run newest first, a barrier's oldest first; past
 * about 64 unfinished, both run new ones at once), which a search written
 * for libgomp relies on (tests/omp_tools/solo_order_prog.c). */
static inline muster_omp_defer_plan muster_omp_defer_solo(const muster_omp_team_tasks *tt, unsigned depth,
                                                          bool work_first)
{
    return !work_first && depth < tt->help_first_depth ? MUSTER_OMP_QUEUE : MUSTER_OMP_RUN_NOW;
}

/* The plan for a deferrable task without depend, detach or a priority
 * above 0 (muster_omp_defer_possible held, the team has a scheduler),
 * made by the task at `depth` (0: member `self`'s implicit task), whose
 * frame's work_first is `work_first`. */
static inline muster_omp_defer_plan muster_omp_defer_plain(muster_omp_thread *self, muster_omp_team_tasks *tt,
                                                           unsigned depth, bool work_first)
{
    if (tt->size == 1)
        return muster_omp_defer_solo(tt, depth, work_first);
    muster_omp_defer_plan plan =
        muster_omp_defer_hungry(tt, self->id) || muster_omp_defer_help_first(tt, depth, work_first)
            ? MUSTER_OMP_QUEUE
            : muster_omp_defer_by_level(depth, tt->delay_depth);
    if (depth == 0 && __builtin_expect(self->early_tasks != 0, 0)) {
        self->early_tasks--;
        plan = MUSTER_OMP_QUEUE;
    }
    return plan;
}

/* A counted task that is ready (its predecessors done, or none): queued
 * whoever is busy when it has a priority above 0 or had dependences (a
 * long one run by its creator starved the members waiting on its
 * successors), else when a member is hungry. */
static inline bool muster_omp_defer_ready(muster_omp_team_tasks *tt, unsigned id, bool had_depend, int priority)
{
    return priority > 0 || had_depend || muster_omp_defer_hungry(tt, id);
}

/* Taskloop's tasks, prioritized tasks, detachable ones and those with
 * dependences become queued records whenever this holds: if(true), not
 * included in a final task, and the team has a scheduler (a team of one
 * has one after its first detachable task).  Few and coarse, urgent,
 * completed later, or waiting for predecessors: none is worth running at
 * once to keep the serial order. */
static inline bool muster_omp_defer_record(bool if_clause, bool included, const muster_omp_team *team)
{
    return muster_omp_defer_possible(if_clause, included, team); /* the same conditions, for another reason */
}

/* The throttle: true when member id must run its next task at once because
 * the team has MUSTER_OMP_TASKS_PER_MEMBER unfinished tasks per member. */
bool muster_omp_defer_throttled(muster_omp_team_tasks *tt, unsigned id);
/* Member id's throttle starts afresh: called once the team's tasks have all
 * finished, so that a throttle hit in one region does not run the next
 * region's first tasks at once. */
void muster_omp_defer_reset_throttle(muster_omp_team_tasks *tt, unsigned id);

#endif
