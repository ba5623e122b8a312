/* The calling thread's state (thread.h): the thread-local itself, and
 * its set-up on a thread's first call, which gives the thread the
 * environment's ICVs. */
#include "omp/thread.h"

/* initial-exec: every GOMP_* call starts here, and the general TLS model
 * would make each a call to __tls_get_addr.  Fine for a library loaded at
 * startup (LD_PRELOAD, or linked); a dlopen()ed copy still fits in glibc's
 * surplus static TLS, as libgomp's own thread state does.  Not static:
 * muster_omp_self() is inline (thread.h). */
_Thread_local muster_omp_thread muster_omp_thread_state __attribute__((tls_model("initial-exec")));

muster_omp_thread *muster_omp_self_first(void)
{
    muster_omp_thread *self = &muster_omp_thread_state;
    self->icvs = muster_omp_globals_get()->icvs;
    self->place.place = -1;
    self->icvs_ready = true;
    return self;
}
