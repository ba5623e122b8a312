/* The nest lock functions a clang-built program calls (at version VERSION):
 * LLVM's omp.h gives omp_nest_lock_t 8 bytes, too few for muster's nest
 * lock (mutex word, count, owner), so the program's lock holds a pointer to
 * one, made by init and freed by destroy, as libomp keeps its nest locks
 * indirect.  Simple locks need nothing of this: muster's is 4 bytes, which
 * LLVM's 8-byte omp_lock_t holds in place (version_names.S forwards them). */
#include <omp.h>
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
    MUSTER_OMPT_NOTE_CALLER();
    nest_init(lock);
}

KMP_VERSIONED(omp_init_nest_lock_with_hint) void muster_kmp_init_nest_lock_with_hint(kmp_nest_lock *lock, int hint)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)hint;
    nest_init(lock);
}

KMP_VERSIONED(omp_destroy_nest_lock) void muster_kmp_destroy_nest_lock(kmp_nest_lock *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    void *impl = impl_of(lock, "omp_destroy_nest_lock");
    muster_omp_nest_lock_destroy(impl);
    free(impl);
    lock->impl = NULL;
}

KMP_VERSIONED(omp_set_nest_lock) void muster_kmp_set_nest_lock(kmp_nest_lock *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_nest_lock_set(impl_of(lock, "omp_set_nest_lock"));
}

KMP_VERSIONED(omp_unset_nest_lock) void muster_kmp_unset_nest_lock(kmp_nest_lock *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    muster_omp_nest_lock_unset(impl_of(lock, "omp_unset_nest_lock"));
}

KMP_VERSIONED(omp_test_nest_lock) int muster_kmp_test_nest_lock(kmp_nest_lock *lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    return muster_omp_nest_lock_test(impl_of(lock, "omp_test_nest_lock"));
}

/* ---- the same locks by __kmpc_* names (Intel's compilers, and clang's
 * code for critical with hints in some versions): user_lock is the
 * program's omp_lock_t or omp_nest_lock_t, LLVM's 8 bytes. ---- */

MUSTER_OMP_EXPORT void __kmpc_init_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    omp_init_lock((omp_lock_t *)(void *)user_lock);
}

MUSTER_OMP_EXPORT void __kmpc_init_lock_with_hint(ident_t *loc, kmp_int32 gtid, void **user_lock, uintptr_t hint)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    omp_init_lock_with_hint((omp_lock_t *)(void *)user_lock, (omp_sync_hint_t)hint);
}

MUSTER_OMP_EXPORT void __kmpc_destroy_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    omp_destroy_lock((omp_lock_t *)(void *)user_lock);
}

MUSTER_OMP_EXPORT void __kmpc_set_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    omp_set_lock((omp_lock_t *)(void *)user_lock);
}

MUSTER_OMP_EXPORT void __kmpc_unset_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    omp_unset_lock((omp_lock_t *)(void *)user_lock);
}

MUSTER_OMP_EXPORT int __kmpc_test_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    return omp_test_lock((omp_lock_t *)(void *)user_lock);
}

MUSTER_OMP_EXPORT void __kmpc_init_nest_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    nest_init((kmp_nest_lock *)(void *)user_lock);
}

MUSTER_OMP_EXPORT void __kmpc_init_nest_lock_with_hint(ident_t *loc, kmp_int32 gtid, void **user_lock,
                                                       uintptr_t hint)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid, (void)hint;
    nest_init((kmp_nest_lock *)(void *)user_lock);
}

MUSTER_OMP_EXPORT void __kmpc_destroy_nest_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    muster_kmp_destroy_nest_lock((kmp_nest_lock *)(void *)user_lock);
}

MUSTER_OMP_EXPORT void __kmpc_set_nest_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    muster_kmp_set_nest_lock((kmp_nest_lock *)(void *)user_lock);
}

MUSTER_OMP_EXPORT void __kmpc_unset_nest_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    muster_kmp_unset_nest_lock((kmp_nest_lock *)(void *)user_lock);
}

MUSTER_OMP_EXPORT int __kmpc_test_nest_lock(ident_t *loc, kmp_int32 gtid, void **user_lock)
{
    MUSTER_OMPT_NOTE_CALLER();
    (void)loc, (void)gtid;
    return muster_kmp_test_nest_lock((kmp_nest_lock *)(void *)user_lock);
}
