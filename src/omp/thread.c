/* The calling thread's state (thread.h): the thread-local itself, and
 * its set-up on a thread's first call, which gives the thread the
 * environment's ICVs. */
#include "omp/thread.h"

#include <pthread.h>

/* initial-exec: every GOMP_* call starts here, and the general TLS model
 * would make each a call to __tls_get_addr.  Fine for a library loaded at
 * startup (LD_PRELOAD, or linked); a dlopen()ed copy still fits in glibc's
 * surplus static TLS, as libgomp's own thread state does.  Not static:
 * muster_omp_self() is inline (thread.h). */
_Thread_local muster_omp_thread muster_omp_thread_state __attribute__((tls_model("initial-exec")));

static void discover_tool(void)
{
    if (muster_ompt_discover != NULL)
        muster_ompt_discover();
}

muster_omp_thread *muster_omp_self_first(void)
{
    muster_omp_thread *self = &muster_omp_thread_state;
    self->icvs = muster_omp_globals_get()->icvs;
    self->place.place = -1;
    self->icvs_ready = true;
    /* The first OpenMP activity of the process: its tool, if any, is found
     * and initialized now (ompt.h).  After icvs_ready, so that a tool's
     * initialize may call the API. */
    static pthread_once_t tool_once = PTHREAD_ONCE_INIT;
    pthread_once(&tool_once, discover_tool);
    return self;
}
