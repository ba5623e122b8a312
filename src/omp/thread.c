/* The calling thread's state (internal.h: muster_omp_thread): the
 * thread-local itself, and its set-up on a thread's first call, which
 * gives the thread the environment's ICVs. */
#include "omp/internal.h"
#include "omp/mutex.h"

/* initial-exec: every GOMP_* call starts here, and the general TLS model
 * would make each a call to __tls_get_addr.  Fine for a library loaded at
 * startup (LD_PRELOAD, or linked); a dlopen()ed copy still fits in glibc's
 * surplus static TLS, as libgomp's own thread state does.  Not static:
 * muster_omp_self() is inline (internal.h). */
_Thread_local muster_omp_thread muster_omp_thread_state __attribute__((tls_model("initial-exec")));

muster_omp_thread *muster_omp_self_first(void)
{
    muster_omp_thread *self = &muster_omp_thread_state;
    self->icvs = muster_omp_globals_get()->icvs;
    self->place.place = -1;
    self->icvs_ready = true;
    return self;
}

/* The size of the calling thread's innermost team (1 outside any): what
 * the runtime mutex asks to choose its spin (mutex.h). */
static unsigned caller_team_size(void)
{
    const muster_omp_team *team = muster_omp_self()->team;
    return team != NULL ? team->size : 1;
}

__attribute__((constructor)) static void tell_the_mutex(void)
{
    muster_omp_mutex_set_team_size_query(caller_team_size);
}
