/* The Fortran names of the lock routines.
 *
 * A simple lock (omp_lock_kind 4; 8 in libomp's omp_lib, which flang and
 * Intel's compilers use) holds the C omp_lock_t, 4 bytes, in place.  A
 * nest lock (omp_nest_lock_kind 8 in both) holds a pointer to a C
 * omp_nest_lock_t, which at 16 bytes does not fit: init makes one and
 * destroy frees it and clears the handle, as libgomp does.  Both forms of
 * handle therefore work with every name here, at every version node. */
#include <assert.h>
#include <omp.h>
#include <stdlib.h>

#include "omp/fortran/fortran.h"
#include "omp/internal.h" /* muster_omp_fatal */

static_assert(sizeof(omp_lock_t) <= sizeof(int32_t) && _Alignof(omp_lock_t) <= _Alignof(int32_t),
              "a Fortran simple lock holds omp_lock_t in place");
static_assert(sizeof(omp_nest_lock_t *) <= sizeof(int64_t), "a Fortran nest lock holds a pointer");

/* ---- simple locks ---- */

static omp_lock_t *simple(int32_t *handle)
{
    return (omp_lock_t *)(void *)handle;
}

FORTRAN_ENTRY void omp_init_lock_(int32_t *lock);
FORTRAN_ENTRY void omp_init_lock_(int32_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_init_lock(simple(lock));
}

FORTRAN_ENTRY void omp_init_lock_with_hint_(int32_t *lock, const int32_t *hint);
FORTRAN_ENTRY void omp_init_lock_with_hint_(int32_t *lock, const int32_t *hint)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_init_lock_with_hint(simple(lock), (omp_sync_hint_t)*hint);
}

FORTRAN_ENTRY void omp_destroy_lock_(int32_t *lock);
FORTRAN_ENTRY void omp_destroy_lock_(int32_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_destroy_lock(simple(lock));
}

FORTRAN_ENTRY void omp_set_lock_(int32_t *lock);
FORTRAN_ENTRY void omp_set_lock_(int32_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_set_lock(simple(lock));
}

FORTRAN_ENTRY void omp_unset_lock_(int32_t *lock);
FORTRAN_ENTRY void omp_unset_lock_(int32_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_unset_lock(simple(lock));
}

FORTRAN_ENTRY int32_t omp_test_lock_(int32_t *lock);
FORTRAN_ENTRY int32_t omp_test_lock_(int32_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    return fortran_logical(omp_test_lock(simple(lock)));
}

/* ---- nest locks ---- */

/* The C lock a handle points to.  A handle that is 0 was never initialized
 * (or was destroyed): stop, naming the routine, rather than crash in it. */
static omp_nest_lock_t *nested(int64_t *handle, const char *routine)
{
    omp_nest_lock_t *lock = (omp_nest_lock_t *)(intptr_t)*handle;
    if (lock == NULL)
        muster_omp_fatal("%s: the nest lock is not initialized (call omp_init_nest_lock first)", routine);
    return lock;
}

static omp_nest_lock_t *made_nest_lock(int64_t *handle)
{
    omp_nest_lock_t *lock = malloc(sizeof *lock);
    if (lock == NULL)
        muster_omp_fatal("omp_init_nest_lock: out of memory for a nest lock (%zu bytes)", sizeof *lock);
    *handle = (int64_t)(intptr_t)lock;
    return lock;
}

FORTRAN_ENTRY void omp_init_nest_lock_(int64_t *lock);
FORTRAN_ENTRY void omp_init_nest_lock_(int64_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_init_nest_lock(made_nest_lock(lock));
}

FORTRAN_ENTRY void omp_init_nest_lock_with_hint_(int64_t *lock, const int32_t *hint);
FORTRAN_ENTRY void omp_init_nest_lock_with_hint_(int64_t *lock, const int32_t *hint)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_init_nest_lock_with_hint(made_nest_lock(lock), (omp_sync_hint_t)*hint);
}

FORTRAN_ENTRY void omp_destroy_nest_lock_(int64_t *lock);
FORTRAN_ENTRY void omp_destroy_nest_lock_(int64_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_nest_lock_t *c_lock = nested(lock, "omp_destroy_nest_lock");
    omp_destroy_nest_lock(c_lock);
    free(c_lock);
    *lock = 0;
}

FORTRAN_ENTRY void omp_set_nest_lock_(int64_t *lock);
FORTRAN_ENTRY void omp_set_nest_lock_(int64_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_set_nest_lock(nested(lock, "omp_set_nest_lock"));
}

FORTRAN_ENTRY void omp_unset_nest_lock_(int64_t *lock);
FORTRAN_ENTRY void omp_unset_nest_lock_(int64_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    omp_unset_nest_lock(nested(lock, "omp_unset_nest_lock"));
}

/* The nesting depth after the call, 0 when another task holds it. */
FORTRAN_ENTRY int32_t omp_test_nest_lock_(int64_t *lock);
FORTRAN_ENTRY int32_t omp_test_nest_lock_(int64_t *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    return omp_test_nest_lock(nested(lock, "omp_test_nest_lock"));
}
