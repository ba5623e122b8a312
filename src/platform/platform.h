/* Platform details, in one place: cache-line size, the CPU's relax hint,
 * futex calls and the monotonic clock.  Nothing else in muster includes
 * <linux/futex.h> or writes inline assembly. */
#ifndef MUSTER_PLATFORM_H
#define MUSTER_PLATFORM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "platform/check.h" /* MUSTER_INVARIANT, for every layer */

/* Coherence granule we pad flags to.  64 bytes on x86-64 and on the AArch64
 * cores we target (Neoverse, ThunderX2, Kunpeng 920 use 64; Phytium uses 64). */
#define MUSTER_CACHE_LINE 64u
#define MUSTER_PAGE_SIZE 4096u

/* Tells the core we are spinning: frees pipeline resources for the sibling
 * hyper-thread and saves power.  Never a system call. */
static inline void muster_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* The store half of a store-then-load handshake (Dekker's: I write X then
 * read Y, you write Y then read X, and at least one of us must see the
 * other's write; our wake-up handshakes and the deque's take are of this
 * shape).  C11 promises it for a seq_cst store followed by a seq_cst load,
 * and hardware keeps the promise (x86: xchg; ARMv8: stlr is ordered before
 * a later ldar).  qemu-user, which runs our AArch64 tests, does not: it
 * lets the ldar pass the stlr (see docs/tuning.md,
 * muster_store_before_load).  An exchange is a read-modify-write, which
 * qemu orders fully; on x86 it is the very instruction gcc emits for a
 * seq_cst store, and on ARMv8 a swpal instead of an stlr. */
#define muster_store_before_load(object, value) ((void)atomic_exchange((object), (value)))

/* Lets another runnable thread have this CPU (sched_yield).  Only the wait
 * layer's bounded oversubscribed phase calls it. */
void muster_cpu_yield(void);

/* How many times the calling thread lost its CPU while it could still run
 * (the kernel's involuntary context switches; a sched_yield that handed the
 * CPU to another thread counts as one).  One system call; the load watch
 * (wait/load.h) calls it around its probing yields only. */
uint64_t muster_thread_preemptions(void);

/* CPU time the whole process has used, in nanoseconds (its threads' user
 * and system time; 0 when unknown).  One system call whose cost grows with
 * the thread count: the load watch reads it at long yields only. */
uint64_t muster_process_cpu_ns(void);

/* The CPU the calling thread runs on now (sched_getcpu: no system call
 * where glibc reads it from rseq), or -1 when unknown. */
int muster_current_cpu(void);

static inline uint64_t muster_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleeps while *word == expected, until woken or until deadline_ns on the
 * monotonic clock (0 = no deadline).  Returns 0 when woken or when the word
 * had already changed, and -1 with errno ETIMEDOUT or EINTR otherwise. */
int muster_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t deadline_ns);

/* Wakes up to `count` threads sleeping on word; returns how many it woke
 * (0 on error). */
int muster_futex_wake(_Atomic uint32_t *word, int count);

/* The same with a tag: a sleeper names the bits it answers to (never 0),
 * and a wake with `bits` wakes only sleepers sharing one of them, so one
 * word can serve "any of you" and "you alone".  muster_futex_wait's
 * sleepers answer to every bit, and muster_futex_wake wakes every tag. */
int muster_futex_wait_tagged(_Atomic uint32_t *word, uint32_t expected, uint64_t deadline_ns, uint32_t bits);
int muster_futex_wake_tagged(_Atomic uint32_t *word, int count, uint32_t bits);

/* Whether the calling process has exactly one thread now (the kernel's
 * count, /proc/self/stat); false when unknown.  For what is safe only then,
 * as setenv beside another thread's getenv. */
bool muster_process_single_threaded(void);

/* The calling thread's id as the kernel numbers it (gettid): the process
 * id for the initial thread. */
long muster_thread_os_id(void);

/* Anonymous zero-filled memory that no thread has touched yet, so each page
 * lands on the NUMA node of the first thread that writes it. */
void *muster_map_zeroed(size_t bytes);
/* Gives pages back to the kernel: they read as zeros again when touched
 * next (MADV_DONTNEED).  0, or -1 with errno set. */
int muster_release_pages(void *memory, size_t bytes);
void muster_unmap(void *memory, size_t bytes);

#endif
