/* A stand-in for parallel.c's muster_omp_self(), so the unit tests can link
 * env.c, affinity.c and api.c alone: the calling thread outside any region
 * (team NULL), its ICVs copied from the globals on first use.  Include it
 * in exactly one file of a test program. */
#ifndef MUSTER_TEST_OMP_SELF_STUB_H
#define MUSTER_TEST_OMP_SELF_STUB_H

#include "omp/internal.h"

static _Thread_local muster_omp_thread stub_self;

muster_omp_thread *muster_omp_self(void)
{
    if (!stub_self.icvs_ready) {
        stub_self.icvs = muster_omp_globals_get()->icvs;
        stub_self.place = (muster_omp_place_state){-1, 0, 0};
        stub_self.icvs_ready = true;
    }
    return &stub_self;
}

#endif
