/* The flag arena: where every flag and private counter of a barrier lives. */
#include "internal.h"

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* Shared flags come first, one line each when padded.  Then, padded: one
 * page-aligned block per participant holding its private line and its flags,
 * a line each.  Packed: private lines, then all participants' flags 4 bytes
 * apart, so neighbours' flags share lines as in the original algorithms. */
int muster_layout(muster_barrier *b, unsigned shared_flags, unsigned flags_per_participant)
{
    bool padded = b->attr.padding != MUSTER_PAD_PACKED;
    size_t line = MUSTER_CACHE_LINE;
    unsigned p = b->participants;
    b->shared_flags = shared_flags;
    b->flags_per_participant = flags_per_participant;
    b->flag_stride = padded ? line : sizeof(muster_flag);
    size_t shared_bytes = round_up(shared_flags * b->flag_stride, line);

    if (padded) {
        size_t block_used = line * (1 + flags_per_participant);
        b->block_stride = p > 1 ? round_up(block_used, MUSTER_PAGE_SIZE) : block_used;
        b->private_offset = round_up(shared_bytes, MUSTER_PAGE_SIZE);
        b->private_stride = b->block_stride;
        b->block_offset = b->private_offset + line;
        b->arena_bytes = b->private_offset + p * b->block_stride;
        b->used_bytes = shared_bytes + p * block_used;
    } else {
        b->private_offset = shared_bytes;
        b->private_stride = line;
        b->block_offset = shared_bytes + p * line;
        b->block_stride = flags_per_participant * sizeof(muster_flag);
        b->arena_bytes = round_up(b->block_offset + p * b->block_stride, line);
        b->used_bytes = b->arena_bytes;
    }
    b->arena_bytes = round_up(b->arena_bytes, MUSTER_PAGE_SIZE);
    if (b->arena_bytes > UINT32_MAX)
        return muster_fail(MUSTER_E_INVAL, "barrier state of %zu bytes is too large", b->arena_bytes);
    b->arena = muster_map_zeroed(b->arena_bytes);
    if (b->arena == NULL)
        return muster_fail(MUSTER_E_NOMEM, "could not map %zu bytes of barrier state", b->arena_bytes);
    return MUSTER_OK;
}
