/* What the programs that drive LLVM's __kmpc ABI by hand share
 * (test_kmp_abi.c, test_kmp_api.c): clang 14's ident_t, kmp_task_t and
 * microtask type, the team sizes (not powers of two), a random delay and a
 * fork.  Define KMP_TEST_NAME (the program's name, for its location)
 * before including. */
#ifndef MUSTER_TESTS_KMP_TEST_H
#define MUSTER_TESTS_KMP_TEST_H

#include <stdint.h>

#include "stress_common.h"

typedef struct ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} ident_t;
typedef void (*micro)(int32_t *, int32_t *, ...);
typedef struct kmp_task kmp_task_t;
typedef int32_t (*kmp_routine_entry_t)(int32_t, kmp_task_t *);
struct kmp_task {
    void *shareds;
    kmp_routine_entry_t routine;
    int32_t part_id;
    kmp_routine_entry_t destructors;
    int32_t priority;
};

int32_t __kmpc_global_thread_num(ident_t *);
void __kmpc_fork_call(ident_t *, int32_t, micro, ...);
void __kmpc_push_num_threads(ident_t *, int32_t, int32_t);
int omp_get_thread_num(void);

static ident_t loc = {0, 2, 0, 0, ";" KMP_TEST_NAME ";unknown;0;0;;"};
static const int teams[] = {1, 2, 3, 5, 7};
#define TEAMS (sizeof teams / sizeof teams[0])

static _Thread_local unsigned seed;

static inline void delay(void)
{
    if (seed == 0)
        seed = 0x9e3779b9u * (unsigned)(omp_get_thread_num() + 3);
    random_delay(&seed);
}

/* A parallel region of n threads running fn(arg), as clang forks one. */
static inline void fork_team(int n, micro fn, void *arg)
{
    __kmpc_push_num_threads(&loc, __kmpc_global_thread_num(&loc), n);
    __kmpc_fork_call(&loc, 1, fn, arg);
}

#endif
