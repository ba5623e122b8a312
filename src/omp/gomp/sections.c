/* GOMP_sections*, GOMP_parallel_sections*.
 *
 * A sections construct of `count` sections is a dynamic loop with chunk 1
 * over the section numbers 1..count; 0 means "no more sections". */
#include "omp/gomp/gomp.h"
#include "omp/workshare.h"

static muster_ws_loop sections_loop(unsigned count)
{
    return (muster_ws_loop){.n = count, .start = 1, .incr = 1, .end = (uint64_t)count + 1u, .chunk = 1,
                            .sched = MUSTER_OMP_SCHED_DYNAMIC};
}

static unsigned next_section(muster_omp_thread *self)
{
    uint64_t first, last;
    if (!muster_ws_loop_next(self, &first, &last))
        return 0;
    return (unsigned)(first + 1u);
}

static unsigned sections_start(unsigned count, void **mem, uintptr_t *reductions)
{
    muster_omp_thread *self = muster_omp_self();
    muster_ws_loop_extras extras = {.mem = mem,
                                    .reductions = reductions,
                                    .register_reductions = muster_gomp_workshare_reductions,
                                    .ompt_work = MUSTER_OMPT_WORK_SECTIONS};
    muster_ws_loop_open(self, sections_loop(count), &extras);
    return next_section(self);
}

MUSTER_OMP_EXPORT unsigned GOMP_sections_start(unsigned count)
{
    MUSTER_OMPT_NOTE_CALLER();
    return sections_start(count, NULL, NULL);
}

MUSTER_OMP_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    MUSTER_OMPT_NOTE_CALLER();
    return sections_start(count, mem, reductions);
}

MUSTER_OMP_EXPORT unsigned GOMP_sections_next(void)
{
    return next_section(muster_omp_self());
}

MUSTER_OMP_EXPORT void GOMP_sections_end(void)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_ws_loop_close(muster_omp_self(), true);
}

MUSTER_OMP_EXPORT void GOMP_sections_end_nowait(void)
{
    muster_ws_loop_close(muster_omp_self(), false);
}

MUSTER_OMP_EXPORT bool GOMP_sections_end_cancel(void)
{
    return muster_ws_loop_close_cancellable(muster_omp_self());
}

MUSTER_OMP_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads, unsigned count,
                                              unsigned flags)
{
    MUSTER_OMPT_NOTE_REGION_CALLER();
    muster_ws_loop proto = sections_loop(count);
    muster_ws_parallel_loop(fn, data, num_threads, GOMP_PARALLEL_PROC_BIND(flags), &proto, false);
}

MUSTER_OMP_EXPORT void GOMP_parallel_sections_start(void (*fn)(void *), void *data, unsigned num_threads,
                                                    unsigned count)
{
    MUSTER_OMPT_NOTE_REGION_CALLER();
    muster_ws_loop proto = sections_loop(count);
    muster_ws_parallel_loop(fn, data, num_threads, 0, &proto, true);
}
