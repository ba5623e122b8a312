/* Linux implementation of the platform layer: futex and mmap. */
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int muster_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t deadline_ns)
{
    return muster_futex_wait_tagged(word, expected, deadline_ns, FUTEX_BITSET_MATCH_ANY);
}

int muster_futex_wait_tagged(_Atomic uint32_t *word, uint32_t expected, uint64_t deadline_ns, uint32_t bits)
{
    struct timespec deadline, *timeout = NULL;
    if (deadline_ns != 0) {
        deadline.tv_sec = (time_t)(deadline_ns / 1000000000u);
        deadline.tv_nsec = (long)(deadline_ns % 1000000000u);
        timeout = &deadline;
    }
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline, so
     * retrying after EINTR does not stretch the wait. */
    long rc = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG,
                      expected, timeout, NULL, bits);
    if (rc == 0 || errno == EAGAIN)
        return 0;
    return -1;
}

int muster_futex_wake(_Atomic uint32_t *word, int count)
{
    long woken = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, count, NULL, NULL, 0);
    return woken > 0 ? (int)woken : 0;
}

int muster_futex_wake_tagged(_Atomic uint32_t *word, int count, uint32_t bits)
{
    long woken =
        syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG, count, NULL, NULL, bits);
    return woken > 0 ? (int)woken : 0;
}

void muster_cpu_yield(void)
{
    sched_yield();
}

uint64_t muster_thread_preemptions(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0)
        return 0;
    return (uint64_t)usage.ru_nivcsw;
}

uint64_t muster_process_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int muster_current_cpu(void)
{
    return sched_getcpu();
}

void *muster_map_zeroed(size_t bytes)
{
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

int muster_release_pages(void *memory, size_t bytes)
{
    return madvise(memory, bytes, MADV_DONTNEED);
}

long muster_thread_os_id(void)
{
    return (long)syscall(SYS_gettid);
}

void muster_unmap(void *memory, size_t bytes)
{
    if (memory != NULL)
        munmap(memory, bytes);
}

bool muster_process_single_threaded(void)
{
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char text[1024];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    /* "pid (comm) state ppid ... num_threads": the 20th field, the 18th
     * after comm, whose parentheses may hold anything. */
    const char *p = strrchr(text, ')');
    long threads = 0;
    for (int field = 3; p != NULL && field <= 20; field++) {
        p = strchr(p + 1, ' ');
        if (p != NULL && field == 20)
            threads = strtol(p + 1, NULL, 10);
    }
    return threads == 1;
}
