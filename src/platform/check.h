/* Assertions on invariants: what must hold whatever the program does with
 * the API (team sizes, task counts, lock owners, barrier arrivals).  Built
 * in only by a checking build, -DMUSTER_CHECKING=ON (scripts/test-all.sh's
 * sanitizer builds), where a broken one prints where and what, and aborts;
 * elsewhere the condition is type-checked and never evaluated. */
#ifndef MUSTER_PLATFORM_CHECK_H
#define MUSTER_PLATFORM_CHECK_H

#if defined(MUSTER_CHECKING) && MUSTER_CHECKING
#define MUSTER_INVARIANT(cond, ...)                                                    \
    do {                                                                               \
        if (__builtin_expect(!(cond), 0))                                              \
            muster_invariant_failed(__FILE__, __LINE__, #cond, __VA_ARGS__);           \
    } while (0)
#else
#define MUSTER_INVARIANT(cond, ...) ((void)sizeof(!(cond)))
#endif

/* "muster: invariant broken at FILE:LINE: COND: what" on stderr, in one
 * write, then abort(). */
_Noreturn void muster_invariant_failed(const char *file, int line, const char *cond, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

#endif
