/* The machine description's storage.  Reading, writing and checking files
 * live in machine_file.c; the built-in machines in presets.c. */
#include "machine/machine.h"

#include <stdlib.h>
#include <string.h>

int muster_machine_init(muster_machine *m, unsigned cpus)
{
    memset(m, 0, sizeof *m);
    if (cpus == 0 || cpus > MUSTER_MACHINE_MAX_CPUS)
        return -1;
    size_t pairs = (size_t)cpus * cpus;
    m->cpus = cpus;
    m->cpu_ids = calloc(cpus, sizeof *m->cpu_ids);
    m->latency_ns = calloc(pairs, sizeof *m->latency_ns);
    m->layer_of = malloc(pairs);
    if (m->cpu_ids == NULL || m->latency_ns == NULL || m->layer_of == NULL) {
        muster_machine_free(m);
        return -1;
    }
    memset(m->layer_of, MUSTER_MACHINE_NO_LAYER, pairs);
    for (unsigned i = 0; i < cpus; i++)
        m->cpu_ids[i] = (int)i;
    m->cache_line_bytes = 64;
    m->contention_ns = MUSTER_MACHINE_DEFAULT_CONTENTION_NS;
    return 0;
}

void muster_machine_free(muster_machine *m)
{
    free(m->cpu_ids);
    free(m->latency_ns);
    free(m->layer_of);
    free(m->round_trip_min_ns);
    free(m->round_trip_median_ns);
    memset(m, 0, sizeof *m);
}
