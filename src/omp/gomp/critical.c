/* GOMP_critical_start/end, GOMP_critical_name_start/end, GOMP_atomic_start/end.
 *
 * An unnamed critical section is one process-wide mutex.  For a named one
 * gcc emits a pointer-sized, zero-initialised common symbol per name
 * (.gomp_critical_user_<name>) and passes its address; the mutex word lives
 * in that slot itself, as libgomp does when its mutex fits in a pointer.
 * Zero is an unlocked mutex, so there is no first-use initialisation for
 * two threads to race on.  Atomics gcc cannot do lock-free take their own
 * mutex, so they never wait behind a critical section. */
#include <assert.h>

#include "omp/internal.h"
#include "omp/mutex.h"

static muster_omp_mutex unnamed_critical = MUSTER_OMP_MUTEX_INITIALIZER;
static muster_omp_mutex atomic_fallback = MUSTER_OMP_MUTEX_INITIALIZER;

static_assert(sizeof(void *) >= sizeof(muster_omp_mutex), "a named critical's slot holds the mutex word");
static_assert(_Alignof(void *) >= _Alignof(muster_omp_mutex), "and is aligned for it");

static muster_omp_mutex *named_mutex(void **slot)
{
    return (muster_omp_mutex *)(void *)slot;
}

MUSTER_OMP_EXPORT void GOMP_critical_start(void)
{
    muster_omp_program_lock(&unnamed_critical, MUSTER_OMPT_MUTEX_CRITICAL);
}

MUSTER_OMP_EXPORT void GOMP_critical_end(void)
{
    muster_omp_program_unlock(&unnamed_critical, MUSTER_OMPT_MUTEX_CRITICAL);
}

MUSTER_OMP_EXPORT void GOMP_critical_name_start(void **pptr)
{
    muster_omp_program_lock(named_mutex(pptr), MUSTER_OMPT_MUTEX_CRITICAL);
}

MUSTER_OMP_EXPORT void GOMP_critical_name_end(void **pptr)
{
    muster_omp_program_unlock(named_mutex(pptr), MUSTER_OMPT_MUTEX_CRITICAL);
}

MUSTER_OMP_EXPORT void GOMP_atomic_start(void)
{
    muster_omp_program_lock(&atomic_fallback, MUSTER_OMPT_MUTEX_ATOMIC);
}

MUSTER_OMP_EXPORT void GOMP_atomic_end(void)
{
    muster_omp_program_unlock(&atomic_fallback, MUSTER_OMPT_MUTEX_ATOMIC);
}
