/* The raw CPU sets a topology source (topology_hwloc.c, topology_flat.c)
 * reports, before topology.c makes levels of them. */
#include <stdlib.h>

#include "error.h"
#include "internal.h"
#include "muster/barrier.h" /* MUSTER_E_NOMEM */

int muster_topo_sets_add(muster_topo_sets *s, const cpu_set_t *set)
{
    if (s->count == s->capacity) {
        unsigned capacity = s->capacity ? 2 * s->capacity : 16;
        cpu_set_t *sets = realloc(s->sets, capacity * sizeof *sets);
        if (sets == NULL)
            return muster_fail(MUSTER_E_NOMEM, "no memory for %u CPU sets", capacity);
        s->sets = sets;
        s->capacity = capacity;
    }
    s->sets[s->count++] = *set;
    s->known = true;
    return 0;
}
