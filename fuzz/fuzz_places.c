/* libFuzzer target: OMP_PLACES (muster_omp_places_parse).  The first byte
 * picks the view (the machine's discovered topology, or the flat view of
 * the CPUs allowed) and how many CPUs are allowed (1 to 64, some ids
 * skipped); the rest is the value.  Checks that a parsed list is sane:
 * every place non-empty, every CPU one of those allowed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muster/topology.h"
#include "omp/env.h"

static muster_topology *machine;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (muster_topology_discover(&machine) != 0)
        machine = NULL;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned allowed_count = 1u + (data[0] & 63u);
    const muster_topology *topo = (data[0] & 64u) && machine != NULL ? machine : NULL;
    int allowed[64];
    for (unsigned i = 0; i < allowed_count; i++)
        allowed[i] = (int)(i * ((data[0] & 128u) ? 2u : 1u)); /* every CPU, or every other */
    char *text = malloc(size);
    if (text == NULL)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';

    muster_omp_places places;
    unsigned dropped = 0;
    char problem[200];
    if (muster_omp_places_parse(text, topo, allowed, allowed_count, &places, &dropped, problem, sizeof problem) == 0) {
        if (places.count == 0)
            abort(); /* "no places left counts as wrong" */
        for (unsigned p = 0; p < places.count; p++) {
            unsigned first = places.start[p], end = places.start[p + 1];
            if (end <= first)
                abort(); /* an empty place was kept */
            for (unsigned k = first; k < end; k++) {
                int cpu = places.cpus[k], found = 0;
                for (unsigned a = 0; a < allowed_count; a++)
                    found |= allowed[a] == cpu;
                if (!found)
                    abort(); /* a CPU the process may not run on */
            }
        }
        muster_omp_places_free(&places);
    } else if (problem[0] == '\0') {
        abort(); /* a refusal must say why */
    }
    free(text);
    return 0;
}
