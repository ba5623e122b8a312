/* Task dependences (depend clauses) between sibling tasks.
 *
 * Each task that creates children with dependences owns a table mapping an
 * address to the unfinished tasks that last named it: the last writer (out
 * or inout) and the readers (in) since.  A new task registers each of its
 * addresses: it becomes a successor of the last writer, and if it writes,
 * of the readers too; then it replaces them.  Its count of unfinished
 * predecessors starts at one (held while it registers) plus one per edge;
 * when the count reaches zero the task is ready.  A finishing task leaves
 * the table and counts down its successors, handing each that becomes
 * ready to the caller.
 *
 * One mutex per table: a table is written by the one thread running its
 * task (registration) and by whichever threads finish that task's
 * children, so contention is between siblings' ends, not team-wide (libgomp
 * takes one lock per team).
 *
 * Entries are keyed by address and team: a thread's implicit task serves
 * every nested region it runs, and tasks of different teams never depend
 * on each other.
 *
 * mutexinoutset: consecutive mutexinoutset tasks on one address form a
 * set.  Each member waits for what came before the set (like an out), and
 * what comes after waits for every member; the members are not ordered
 * among themselves but excluded from each other.  A member whose
 * predecessors have finished must also hold its sets' addresses, all at
 * once under the table's lock (so no two members, each holding one
 * address, can wait for each other): while another member of one of its
 * sets runs, it is parked on that address and retried when that member
 * finishes.  A depobj of another kind (none that gcc 12 emits) is not handled here: the
 * caller runs such a task at once after its creator's deferred children. */
#ifndef MUSTER_OMP_DEPEND_H
#define MUSTER_OMP_DEPEND_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "omp/mutex.h"

typedef enum muster_omp_dep_kind {
    MUSTER_OMP_DEP_READ,  /* in */
    MUSTER_OMP_DEP_WRITE, /* out, inout */
    MUSTER_OMP_DEP_MUTEX, /* mutexinoutset */
} muster_omp_dep_kind;

/* A task's depend clauses as an ABI layer hands them to the core: `count`
 * entries, the i-th read by nth(list, i, ...), which gives its address and
 * kind, or false for a kind the core does not handle (the task then waits
 * for all its creator's deferred children instead).  Each ABI layer reads
 * its own compiler's layout (gomp/depend.c, kmp/task.c). */
typedef struct muster_omp_depend {
    const void *list;
    size_t count;
    bool (*nth)(const void *list, size_t i, uintptr_t *addr, muster_omp_dep_kind *kind);
} muster_omp_depend;

typedef struct muster_omp_dep {
    uintptr_t addr;
    muster_omp_dep_kind kind;
    uint32_t list_slot; /* its index in its address's readers (READ) or writers while
                           there, else MUSTER_OMP_DEP_NO_SLOT (depend.c; under the lock) */
    uint32_t before_slot; /* the same in its address's set_before (depend.c) */
} muster_omp_dep;

#define MUSTER_OMP_DEP_NO_SLOT UINT32_MAX

#define MUSTER_OMP_DEPS_FIRST_SUCCESSORS 2

/* One task's dependences and its place in the graph (task memory, see
 * task_memory.h: the creator allocates it and any thread frees it). */
typedef struct muster_omp_deps {
    _Atomic uint32_t unmet;  /* predecessors not finished, +1 while registering */
    void *task;              /* the task record, handed back when it becomes ready */
    const void *team;
    /* Under the table's lock.  The first few live in first_successors:
     * most tasks have one or two (a reader, the next writer), and a malloc
     * and a free per task, freed by whichever thread finishes the task, cost
     * the creator more than the rest of the registration (docs/tuning.md). */
    struct muster_omp_deps **successors;
    uint32_t nsuccessors, successors_cap;
    struct muster_omp_deps *first_successors[MUSTER_OMP_DEPS_FIRST_SUCCESSORS];
    bool mutex;              /* names an address mutexinoutset */
    uint32_t count;
    muster_omp_dep dep[];
} muster_omp_deps;

typedef struct muster_omp_dep_table muster_omp_dep_table;

/* How many entries the clauses name; -1 when one of them is a kind this
 * module does not handle. */
long muster_omp_depend_count(const muster_omp_depend *depend);

/* A task's dependences from its clauses, or NULL when
 * muster_omp_depend_count says -1.  Free with muster_omp_deps_free.  (Out
 * of memory here and below ends the process with a message, as everywhere
 * in the task code: a task cannot be dropped.) */
muster_omp_deps *muster_omp_deps_new(const muster_omp_depend *depend, void *task, const void *team);
void muster_omp_deps_free(muster_omp_deps *d);

muster_omp_dep_table *muster_omp_dep_table_new(void);
/* Every task registered in it must have been released. */
void muster_omp_dep_table_free(muster_omp_dep_table *table);
/* Frees the table if no task is registered in it (true), else keeps it.
 * The caller must be the only thread that can register new tasks in it;
 * finishing tasks may still be leaving it. */
bool muster_omp_dep_table_free_if_empty(muster_omp_dep_table *table);

/* Registers a new task; true when it is ready at once (no unfinished
 * predecessor, and its mutexinoutset addresses held), else some
 * predecessor's release will hand it out. */
bool muster_omp_deps_register(muster_omp_dep_table *table, muster_omp_deps *d);

/* The task of d has finished: leaves the table (and its mutexinoutset
 * addresses), then calls ready(task, ctx) for every task that became ready:
 * successors whose last unfinished predecessor it was, and set members
 * that now hold their addresses.  Frees nothing of d (the caller frees it
 * after). */
void muster_omp_deps_release(muster_omp_dep_table *table, muster_omp_deps *d, void (*ready)(void *task, void *ctx),
                             void *ctx);

#endif
