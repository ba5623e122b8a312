/* The calling thread's CPU mask: read it, bind to CPUs, save and restore
 * it, start a thread on one CPU, and write a CPU list as text.  Every
 * sched_getaffinity / pthread_setaffinity_np of muster's lives in
 * affinity.c; the process's mask as read at load is cpus.h's. */
#ifndef MUSTER_PLATFORM_AFFINITY_H
#define MUSTER_PLATFORM_AFFINITY_H

#include <pthread.h> /* cpu_set_t needs _GNU_SOURCE: the build defines it */
#include <sched.h>
#include <stddef.h>

/* How many CPUs the calling thread's mask holds now; 0 when unreadable. */
unsigned muster_thread_cpu_count(void);

/* The calling thread's mask now, as ascending OS CPU ids, however many CPUs
 * the kernel has (the set grows until it fits): a malloc'd array in *cpus,
 * its length in *count.  0, or -1 (nothing allocated) when it cannot be
 * read or is empty. */
int muster_thread_cpus(int **cpus, unsigned *count);

/* Binds the calling thread to the n CPUs given: 0 or an errno. */
int muster_thread_bind(const int *cpus, unsigned n);

/* The calling thread's whole mask, read and set (CPU_SETSIZE CPUs,
 * the masks a running thread can hold here): 0 or an errno. */
int muster_thread_mask_get(cpu_set_t *mask);
int muster_thread_mask_set(const cpu_set_t *mask);

/* A thread created with attr starts on `cpu` alone: 0 or an errno. */
int muster_thread_attr_on_cpu(pthread_attr_t *attr, int cpu);

/* Writes ascending CPU ids as a list with ranges, "0-3,8", into out
 * (always terminated; cut short when it does not fit).  Returns out. */
char *muster_format_cpu_list(char *out, size_t size, const int *cpus, unsigned n);

#endif
