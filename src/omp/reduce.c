/* Reductions folded by member 0 inside a split barrier episode
 * (internal.h says what they are for).
 *
 * Every member runs the team's queued tasks (a reduction's end is a
 * barrier, which completes only when no task is left), leaves a pointer to
 * its private copies in its slot and arrives at a barrier of the team
 * whose episodes can be split: the team's own, else the fork/join one.
 * Member 0 gathers the arrivals (the barrier's own arrival tree, census
 * and wait policy), folds each member's copies into its own, and releases
 * the others when their copies are no longer read: at once (nowait), or
 * after it has folded the result into the originals (blocking, a barrier).
 * It costs one barrier episode, plus a context switch when oversubscribed
 * (kmp/sync.c chooses it only where that pays); a tree of waits cost more
 * (docs/tuning.md, member 0's fold). */
#include <stdlib.h>

#include "omp/internal.h"

typedef struct reduce_slot {
    _Alignas(MUSTER_CACHE_LINE) void *data; /* plain: written before the arrival, read after the gather */
} reduce_slot;

struct muster_omp_reduction {
    unsigned size;
    reduce_slot slots[]; /* [size], each on its own cache line */
};

muster_omp_reduction *muster_omp_reduction_create(unsigned size)
{
    /* aligned_alloc wants a multiple of the alignment: the struct's size is one. */
    muster_omp_reduction *r = aligned_alloc(MUSTER_CACHE_LINE, sizeof *r + size * sizeof r->slots[0]);
    if (r == NULL)
        return NULL;
    r->size = size;
    for (unsigned i = 0; i < size; i++)
        r->slots[i].data = NULL;
    return r;
}

void muster_omp_reduction_destroy(muster_omp_reduction *r)
{
    free(r);
}

static void check(int rc, const char *what)
{
    if (rc < 0)
        muster_omp_fatal("%s failed: %s (%s)", what, muster_strerror(rc), muster_error_detail());
}

/* The team's barrier when its episodes split, else the fork/join's when
 * they do; NULL when neither. */
static muster_barrier *reduce_barrier(const muster_omp_team *team)
{
    if (muster_barrier_can_split(team->barrier))
        return team->barrier;
    return team->split ? team->fork_barrier : NULL;
}

bool muster_omp_team_can_reduce(const muster_omp_team *team)
{
    return team->reduction != NULL && reduce_barrier(team) != NULL;
}

bool muster_omp_team_reduce(muster_omp_thread *self, void *data, void (*combine)(void *into, void *from),
                            bool blocking)
{
    muster_omp_team *team = self->team;
    muster_omp_reduction *r = team->reduction;
    muster_barrier *b = reduce_barrier(team);
    muster_omp_tasks_drain(self);
    muster_omp_tasks_settle_events(team);
    if (blocking)
        self->barriers_passed++;
    unsigned id = self->id;
    r->slots[id].data = data;
    if (id != 0) {
        /* The arrival publishes our slot (release); the wait ends at
         * member 0's release, after its last read of our copies. */
        check(muster_barrier_wait(b, id), "a reduction's barrier");
        return false;
    }
    check(muster_barrier_gather(b), "a reduction's gather");
    for (unsigned member = 1; member < r->size; member++)
        combine(data, r->slots[member].data);
    if (!blocking)
        muster_omp_team_reduce_release(self);
    return true;
}

void muster_omp_team_reduce_release(muster_omp_thread *self)
{
    check(muster_barrier_release(reduce_barrier(self->team)), "a reduction's release");
}
