/* Memory for task records: per-thread caches of blocks in a few size
 * classes, so that a deferred task costs no malloc on the hot path, and a
 * block freed by another thread (the thief that ran the task) goes back to
 * the thread that allocated it.
 *
 * Each thread owns a cache (task_memory.c): a private free list per class,
 * which only it touches, and a return list per class, onto which other
 * threads push the blocks they free (a lock-free push; the owner takes the
 * whole list at once with an exchange, so there is no ABA).  A block
 * carries its owner and class in a 16-byte header before the memory it
 * hands out.  Requests above the largest class go to malloc.  Of the blocks
 * a thread frees itself it keeps at most MUSTER_OMP_TASK_MEMORY_KEEP per
 * class; the rest go back to malloc.  Blocks returned by others are kept
 * whatever their number: they are the thread's own allocations, so its
 * cache never holds more than its peak use plus that limit.  When a thread exits its cached blocks are freed and its cache,
 * emptied, is kept for the next thread that needs one, so a late return to
 * it is never lost. */
#ifndef MUSTER_OMP_TASK_MEMORY_H
#define MUSTER_OMP_TASK_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Blocks a thread keeps per class of those it frees itself. */
#define MUSTER_OMP_TASK_MEMORY_KEEP 256

/* At least `bytes`, aligned to 16; NULL when out of memory. */
void *muster_omp_task_alloc(size_t bytes);
/* From any thread. */
void muster_omp_task_free(void *p);
/* A tool is being attached: from now on blocks go back to free. */
void muster_omp_task_memory_told(void);

/* Statistics for tests: blocks handed out from a cache (not malloc), and
 * blocks freed by a thread other than their owner, back on their owner's
 * return list (counted when pushed there). */
typedef struct muster_omp_task_memory_counts {
    uint64_t reused, returned;
} muster_omp_task_memory_counts;
muster_omp_task_memory_counts muster_omp_task_memory_counters(void);

#endif
