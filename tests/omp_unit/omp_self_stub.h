/* A stand-in for parallel.c's thread state, so the unit tests can link
 * env.c, affinity.c and api.c alone: the calling thread outside any region
 * (team NULL), its ICVs copied from the globals on first use (the inline
 * muster_omp_self() calls muster_omp_self_first then).  Include it in
 * exactly one file of a test program. */
#ifndef MUSTER_TEST_OMP_SELF_STUB_H
#define MUSTER_TEST_OMP_SELF_STUB_H

#include "omp/internal.h"

_Thread_local muster_omp_thread muster_omp_thread_state;

muster_omp_thread *muster_omp_self_first(void)
{
    muster_omp_thread *self = &muster_omp_thread_state;
    self->icvs = muster_omp_globals_get()->icvs;
    self->place = (muster_omp_place_state){-1, 0, 0};
    self->icvs_ready = true;
    return self;
}

#endif
