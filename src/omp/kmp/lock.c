/* The nest lock functions a clang-built program calls (at version VERSION):
 * LLVM's omp.h gives omp_nest_lock_t 8 bytes, too few for muster's nest
 * lock (mutex word, count, owner), so the program's lock holds a pointer to
 * one, made by init and freed by destroy, as libomp keeps its nest locks
 * indirect.  Simple locks need nothing of this: muster's is 4 bytes, which
 * LLVM's 8-byte omp_lock_t holds in place (version_names.S forwards them). */
#include <stdlib.h>

#include "omp/kmp/kmp.h"
#include "omp/mutex.h"

/* LLVM's omp_nest_lock_t: struct omp_nest_lock_t { void *_lk; }. */
typedef struct kmp_nest_lock {
    void *impl;
} kmp_nest_lock;

#define KMP_VERSIONED(name) __attribute__((symver(#name "@VERSION"))) MUSTER_OMP_EXPORT

static void *impl_of(kmp_nest_lock *lock, const char *what)
{
    if (lock == NULL || lock->impl == NULL)
        muster_omp_fatal("%s on a nest lock that omp_init_nest_lock did not initialise", what);
    return lock->impl;
}

static void nest_init(kmp_nest_lock *lock)
{
    void *impl = aligned_alloc(sizeof(void *) * 2, MUSTER_OMP_NEST_LOCK_SIZE);
    if (impl == NULL)
        muster_omp_fatal("out of memory for a nest lock");
    muster_omp_nest_lock_init(impl);
    lock->impl = impl;
}

KMP_VERSIONED(omp_init_nest_lock) void muster_kmp_init_nest_lock(kmp_nest_lock *lock)
{
    nest_init(lock);
}

KMP_VERSIONED(omp_init_nest_lock_with_hint) void muster_kmp_init_nest_lock_with_hint(kmp_nest_lock *lock, int hint)
{
    (void)hint;
    nest_init(lock);
}

KMP_VERSIONED(omp_destroy_nest_lock) void muster_kmp_destroy_nest_lock(kmp_nest_lock *lock)
{
    free(impl_of(lock, "omp_destroy_nest_lock"));
    lock->impl = NULL;
}

KMP_VERSIONED(omp_set_nest_lock) void muster_kmp_set_nest_lock(kmp_nest_lock *lock)
{
    muster_omp_nest_lock_set(impl_of(lock, "omp_set_nest_lock"));
}

KMP_VERSIONED(omp_unset_nest_lock) void muster_kmp_unset_nest_lock(kmp_nest_lock *lock)
{
    muster_omp_nest_lock_unset(impl_of(lock, "omp_unset_nest_lock"));
}

KMP_VERSIONED(omp_test_nest_lock) int muster_kmp_test_nest_lock(kmp_nest_lock *lock)
{
    return muster_omp_nest_lock_test(impl_of(lock, "omp_test_nest_lock"));
}
