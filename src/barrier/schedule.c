/* The schedule builder and the dispatch to each algorithm's emitter. */
#include <stdlib.h>

#include "internal.h"
#include "schedule.h"

unsigned muster_schedule_add(muster_schedule *s, muster_step_kind kind, uint32_t flag, uint32_t count)
{
    if (s->count == s->capacity) {
        unsigned capacity = s->capacity ? 2 * s->capacity : 16;
        muster_step *grown = realloc(s->steps, capacity * sizeof *grown);
        if (grown == NULL) {
            s->out_of_memory = true;
            return s->count ? s->count - 1 : 0;
        }
        s->steps = grown;
        s->capacity = capacity;
    }
    s->steps[s->count] = (muster_step){.kind = kind, .flag = flag, .count = count, .next = 0};
    return s->count++;
}

void muster_schedule_clear(muster_schedule *s)
{
    s->count = 0;
    s->out_of_memory = false;
}

void muster_schedule_free(muster_schedule *s)
{
    free(s->steps);
    *s = (muster_schedule){0};
}

int muster_barrier_schedule(const muster_barrier *b, unsigned id, muster_schedule *s)
{
    if (b == NULL || s == NULL)
        return muster_fail(MUSTER_E_INVAL, "barrier or schedule is NULL");
    if (id >= b->participants)
        return muster_fail(MUSTER_E_RANGE, "participant id %u is out of range [0, %u)", id, b->participants);
    muster_schedule_clear(s);
    b->ops->schedule(b, id, s);
    if (s->out_of_memory)
        return muster_fail(MUSTER_E_NOMEM, "no memory for the schedule");
    return MUSTER_OK;
}

size_t muster_barrier_flag_span(const muster_barrier *b)
{
    /* The blocking barrier keeps its state outside the arena. */
    return b->arena_bytes ? b->arena_bytes : b->used_bytes;
}
