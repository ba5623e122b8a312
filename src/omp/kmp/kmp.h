/* The __kmpc ABI layer: the entry points clang (and every LLVM-based
 * compiler) emits, calling into LLVM's libomp.so.5.  Each one is a thin
 * adapter over the runtime core that the GOMP_* entry points use too
 * (teams and pools, work shares, locks), so gcc- and clang-built code in
 * one process share one team, one set of locks and one work-share ring.
 * The contracts, as observed with clang 14, are in the project's research
 * notes (kmpc-abi.md).
 *
 *   parallel.c  identity (gtid), fork_call, push_*, serialized parallel,
 *               barrier, flush, master, masked
 *   sync.c      single, copyprivate, critical, the reduce protocol, ordered
 *   loop.c      for_static_init_*, dispatch_init/next/fini_*, doacross
 *   task.c      tasks, dependences, taskloop, detach, __kmpc_alloc
 *   taskred.c   taskgroups and task reductions
 *   threadprivate.c  threadprivate without thread-local storage
 *   lock.c      LLVM's 8-byte omp_nest_lock_t for the @VERSION nest locks
 *   version_names.S  second names at version VERSION (omp_*, GOMP_*, ompc_*)
 *
 * Everything the compiler passes as `ident_t *loc` is read-only and, but
 * for its flags, unused; `gtid` comes back from __kmpc_global_thread_num
 * or the microtask's first argument and is not trusted: the calling
 * thread's state is found through muster_omp_self() as on the GOMP side. */
#ifndef MUSTER_OMP_KMP_H
#define MUSTER_OMP_KMP_H

#include <stdint.h>

#include "omp/internal.h"

typedef int32_t kmp_int32;
typedef uint32_t kmp_uint32;
typedef int64_t kmp_int64;
typedef uint64_t kmp_uint64;

/* A call site's source location, as clang 14 lays it out. */
typedef struct ident {
    kmp_int32 reserved_1;
    kmp_int32 flags;   /* KMP_IDENT_* */
    kmp_int32 reserved_2;
    kmp_int32 reserved_3;
    const char *psource; /* ";file;function;line;col;;" */
} ident_t;

/* flags: the reduction may use the atomic method (return 2). */
#define KMP_IDENT_ATOMIC_REDUCE 0x10
/* flags: the barrier is an explicit one (else a construct's implicit barrier). */
#define KMP_IDENT_BARRIER_EXPL 0x20

/* A critical or reduction lock: 32 zero-initialised bytes the runtime
 * owns, one common symbol per name (.gomp_critical_user_<name>.var). */
typedef kmp_int32 kmp_critical_name[8];

/* The outlined body of a parallel region: fn(&gtid, &tid, args...), each
 * argument pointer-sized. */
typedef void (*kmpc_micro)(kmp_int32 *gtid, kmp_int32 *tid, ...);

/* The calling thread's global id: small, unique among live and past
 * threads of the process, 0 for the first thread that asks. */
kmp_int32 muster_kmp_gtid(void);

#endif
