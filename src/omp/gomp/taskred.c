/* gcc's task reductions: task_reduction on taskgroup and taskloop,
 * in_reduction, and reduction(task, ...) on parallel and worksharing
 * constructs, on the task wing's taskgroups (task/taskgroup.c keeps one slot per
 * taskgroup for the innermost registration, inherited by nested groups).
 *
 * The descriptor gcc builds (libgomp's task.c documents it):
 *   d[0] number of reduction entries
 *   d[1] bytes of one thread's private block
 *   d[2] alignment of the blocks; on return: the blocks' address
 *   d[3] allocator (-1: malloc)
 *   d[4] next descriptor registered together; on return: the link to the
 *        taskgroup's earlier registration
 *   d[5] ours: 1 on the first descriptor of a registration, else 0
 *   d[6] ours: the end of the blocks
 *   then per entry: [0] address of the original, [1] offset in a block,
 *   [2] ours: the descriptor the entry belongs to
 * One zero-filled block per team member; the emitted code combines them
 * after the taskgroup (reading d[2]) and then unregisters. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "omp/internal.h"
#include "omp/gomp/gomp.h"
#include "omp/task/task.h"

enum { D_COUNT, D_BLOCK_SIZE, D_ARRAY, D_ALLOCATOR, D_NEXT, D_FIRST, D_END, D_ENTRIES };

static void *zeroed_blocks(size_t align, size_t bytes)
{
    if (align < sizeof(void *))
        align = sizeof(void *);
    void *p = NULL;
    if (posix_memalign(&p, align, bytes ? bytes : 1) != 0)
        muster_omp_fatal("out of memory for task reductions");
    memset(p, 0, bytes);
    return p;
}

/* The innermost taskgroup's registration: its slot, which must exist. */
static uintptr_t **innermost_registration(const char *what)
{
    void **slot = muster_omp_taskgroup_reduction_slot();
    if (slot == NULL)
        muster_omp_fatal("%s outside a taskgroup", what);
    return (uintptr_t **)slot;
}

/* Fills in the descriptors of one registration and links it in front of
 * `older`; orig: share the blocks of another thread's registration. */
static void register_reductions(uintptr_t *data, uintptr_t *older, const uintptr_t *orig, unsigned nthreads)
{
    for (uintptr_t *d = data;; d = (uintptr_t *)d[D_NEXT]) {
        if (orig != NULL) {
            d[D_ARRAY] = orig[D_ARRAY];
            d[D_END] = orig[D_END];
            orig = (const uintptr_t *)orig[D_NEXT];
        } else {
            size_t bytes = d[D_BLOCK_SIZE] * nthreads;
            d[D_ARRAY] = (uintptr_t)zeroed_blocks(d[D_ARRAY], bytes);
            d[D_END] = d[D_ARRAY] + bytes;
        }
        d[D_FIRST] = d == data;
        for (uintptr_t j = 0; j < d[D_COUNT]; j++)
            d[D_ENTRIES + 3 * j + 2] = (uintptr_t)d;
        if (d[D_NEXT] == 0) {
            d[D_NEXT] = (uintptr_t)older;
            return;
        }
    }
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    muster_gomp_taskgroup_reductions(data);
}

void muster_gomp_taskgroup_reductions(uintptr_t *data)
{
    uintptr_t **registered = innermost_registration("GOMP_taskgroup_reduction_register");
    register_reductions(data, *registered, NULL, muster_gomp_team_size());
    *registered = data;
}

/* Frees the blocks of the registration that starts at `data`. */
static void free_blocks(uintptr_t *data)
{
    uintptr_t *d = data;
    do {
        free((void *)d[D_ARRAY]);
        d = (uintptr_t *)d[D_NEXT];
    } while (d != NULL && !d[D_FIRST]);
}

MUSTER_OMP_EXPORT void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
    free_blocks(data);
}

/* The original list item at block offset `offset` of descriptor d. */
static void *original_at(const uintptr_t *d, uintptr_t offset)
{
    for (uintptr_t j = 0; j < d[D_COUNT]; j++)
        if (d[D_ENTRIES + 3 * j + 1] == offset)
            return (void *)d[D_ENTRIES + 3 * j];
    muster_omp_fatal("couldn't find matching task_reduction or reduction with task modifier");
}

/* ptrs[i] is an original list item or an address in some thread's private
 * block; it becomes the calling thread's private copy.  For i < cntorig,
 * ptrs[cnt + i] receives the original's address. */
static void remap_one(uintptr_t *chain, unsigned id, void **ptrs, size_t i, size_t cnt, size_t cntorig)
{
    uintptr_t address = (uintptr_t)ptrs[i];
    for (uintptr_t *d = chain; d != NULL; d = (uintptr_t *)d[D_NEXT]) {
        for (uintptr_t j = 0; j < d[D_COUNT]; j++) {
            if (d[D_ENTRIES + 3 * j] != address)
                continue;
            ptrs[i] = (void *)(d[D_ARRAY] + id * d[D_BLOCK_SIZE] + d[D_ENTRIES + 3 * j + 1]);
            if (i < cntorig)
                ptrs[cnt + i] = (void *)address;
            return;
        }
        if (address >= d[D_ARRAY] && address < d[D_END]) {
            uintptr_t offset = (address - d[D_ARRAY]) % d[D_BLOCK_SIZE];
            ptrs[i] = (void *)(d[D_ARRAY] + id * d[D_BLOCK_SIZE] + offset);
            if (i < cntorig)
                ptrs[cnt + i] = original_at(d, offset);
            return;
        }
    }
    muster_omp_fatal("couldn't find matching task_reduction or reduction with task modifier");
}

MUSTER_OMP_EXPORT void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
    void **slot = muster_omp_taskgroup_reduction_slot();
    if (slot == NULL || *slot == NULL)
        muster_omp_fatal("in_reduction without an enclosing task reduction");
    unsigned id = muster_omp_self()->id;
    for (size_t i = 0; i < cnt; i++)
        remap_one(*slot, id, ptrs, i, cnt, cntorig);
}

void muster_gomp_workshare_reductions(void *own, void *first)
{
    uintptr_t **registered = innermost_registration("a worksharing construct's task reductions");
    register_reductions(own, *registered, first, muster_gomp_team_size());
    *registered = own;
}

MUSTER_OMP_EXPORT void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    muster_omp_thread *self = muster_omp_self();
    uintptr_t *data = *innermost_registration("GOMP_workshare_task_reduction_unregister");
    muster_omp_taskgroup_end();
    /* Every thread's descriptor shares thread 0's blocks: freed once. */
    if (self->id == 0)
        free_blocks(data);
    if (!cancelled)
        muster_omp_team_barrier(self);
}

/* parallel reduction(task, ...): the blocks are registered once the team
 * size is known, before any member starts; each member's implicit task
 * runs inside a taskgroup that holds them. */
typedef struct parallel_reductions {
    void (*fn)(void *);
    void *data;
    uintptr_t *descriptor;
    unsigned nthreads;
} parallel_reductions;

static void register_for_team(muster_omp_team *team, void *arg)
{
    parallel_reductions *pr = arg;
    pr->nthreads = team->size;
    register_reductions(pr->descriptor, NULL, NULL, team->size);
}

static void member_with_reductions(void *arg)
{
    parallel_reductions *pr = arg;
    muster_omp_taskgroup_start();
    *muster_omp_taskgroup_reduction_slot() = pr->descriptor;
    pr->fn(pr->data);
    /* The group's tasks hold pointers to the blocks: they finish first. */
    muster_omp_taskgroup_end();
}

MUSTER_OMP_EXPORT unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                                     unsigned flags)
{
    MUSTER_OMPT_NOTE_REGION_CALLER();
    /* gcc passes the descriptor as the first field of the data block. */
    parallel_reductions pr = {.fn = fn, .data = data, .descriptor = *(uintptr_t **)data};
    muster_omp_parallel(member_with_reductions, &pr, num_threads, GOMP_PARALLEL_PROC_BIND(flags), register_for_team,
                        &pr);
    return pr.nthreads;
}
