/* The calling thread's CPU mask (affinity.h says what it offers). */
#include "platform/affinity.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

unsigned muster_thread_cpu_count(void)
{
    cpu_set_t mask;
    return sched_getaffinity(0, sizeof mask, &mask) == 0 ? (unsigned)CPU_COUNT(&mask) : 0u;
}

int muster_thread_cpus(int **cpus, unsigned *count)
{
    /* sched_getaffinity fails with EINVAL when the set is smaller than the
     * kernel's CPU count, so grow it until it fits. */
    for (int possible = CPU_SETSIZE; possible <= (1 << 18); possible *= 2) {
        size_t size = CPU_ALLOC_SIZE(possible);
        cpu_set_t *set = CPU_ALLOC(possible);
        if (set == NULL)
            return -1;
        if (sched_getaffinity(0, size, set) != 0) {
            CPU_FREE(set);
            if (errno != EINVAL)
                return -1;
            continue;
        }
        unsigned n = (unsigned)CPU_COUNT_S(size, set), k = 0;
        int *ids = n > 0 ? malloc(n * sizeof *ids) : NULL;
        for (int c = 0; ids != NULL && c < possible && k < n; c++)
            if (CPU_ISSET_S(c, size, set))
                ids[k++] = c;
        CPU_FREE(set);
        if (ids == NULL)
            return -1;
        *cpus = ids;
        *count = k;
        return 0;
    }
    return -1;
}

int muster_thread_bind(const int *cpus, unsigned n)
{
    int max_cpu = 0;
    for (unsigned k = 0; k < n; k++)
        max_cpu = cpus[k] > max_cpu ? cpus[k] : max_cpu;
    size_t bytes = CPU_ALLOC_SIZE(max_cpu + 1);
    cpu_set_t *set = CPU_ALLOC(max_cpu + 1);
    if (set == NULL)
        return ENOMEM;
    CPU_ZERO_S(bytes, set);
    for (unsigned k = 0; k < n; k++)
        CPU_SET_S(cpus[k], bytes, set);
    int rc = pthread_setaffinity_np(pthread_self(), bytes, set);
    CPU_FREE(set);
    return rc;
}

int muster_thread_mask_get(cpu_set_t *mask)
{
    return pthread_getaffinity_np(pthread_self(), sizeof *mask, mask);
}

int muster_thread_mask_set(const cpu_set_t *mask)
{
    return pthread_setaffinity_np(pthread_self(), sizeof *mask, mask);
}

int muster_thread_attr_on_cpu(pthread_attr_t *attr, int cpu)
{
    size_t size = CPU_ALLOC_SIZE(cpu + 1);
    cpu_set_t *set = CPU_ALLOC(cpu + 1);
    if (set == NULL)
        return ENOMEM;
    CPU_ZERO_S(size, set);
    CPU_SET_S(cpu, size, set);
    int rc = pthread_attr_setaffinity_np(attr, size, set);
    CPU_FREE(set);
    return rc;
}

char *muster_format_cpu_list(char *out, size_t size, const int *cpus, unsigned n)
{
    if (size == 0)
        return out;
    out[0] = '\0';
    size_t used = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        const char *comma = used > 0 ? "," : "";
        int w = j > i ? snprintf(out + used, size - used, "%s%d-%d", comma, cpus[i], cpus[j])
                      : snprintf(out + used, size - used, "%s%d", comma, cpus[i]);
        if (w < 0 || (size_t)w >= size - used) {
            out[used] = '\0'; /* no half-written number */
            return out;
        }
        used += (size_t)w;
        i = j;
    }
    return out;
}
