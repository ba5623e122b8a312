/* Looking names up in a table indexed by an enum's values: the API's
 * muster_*_name and muster_*_parse functions (the algorithms' in barrier.c,
 * the wait policies' in wait/policy.c).  Not installed. */
#ifndef MUSTER_NAMES_H
#define MUSTER_NAMES_H

#include <stddef.h>
#include <strings.h>

#include "error.h"
#include "muster/barrier.h"

static inline const char *muster_name_of(const char *const *names, int count, int value)
{
    return value >= 0 && value < count ? names[value] : NULL;
}

/* MUSTER_OK and *out = the index of name (any case), else an error code
 * with the error detail set. */
static inline int muster_name_parse(const char *const *names, int count, const char *name, int *out)
{
    if (name == NULL)
        return muster_fail(MUSTER_E_INVAL, "name is NULL");
    for (int i = 0; i < count; i++) {
        if (strcasecmp(name, names[i]) == 0) {
            *out = i;
            return MUSTER_OK;
        }
    }
    return muster_fail(MUSTER_E_UNKNOWN_NAME, "unknown name '%s'", name);
}

#endif
