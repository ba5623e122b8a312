/* The names of the attributes' values (muster_algorithm_name, _parse and
 * the wake-up and padding ones): what the API, the environment (env.c) and
 * the plans' messages (plan.c) all print and read. */
#include "internal.h"
#include "names.h"

static const char *const algorithm_names[MUSTER_ALG_COUNT] = {
    "auto", "central-blocking", "central-sense", "dissemination", "combining-tree",
    "mcs-tree", "tournament", "static-fway", "dynamic-fway", "hyper", "tuned",
};
static const char *const wakeup_names[MUSTER_WAKE_COUNT] = {"default", "global", "binary", "cluster", "tree"};
static const char *const padding_names[MUSTER_PAD_COUNT] = {"default", "padded", "packed"};

const char *muster_algorithm_name(muster_algorithm a)
{
    return muster_name_of(algorithm_names, MUSTER_ALG_COUNT, (int)a);
}
const char *muster_wakeup_name(muster_wakeup w) { return muster_name_of(wakeup_names, MUSTER_WAKE_COUNT, (int)w); }
const char *muster_padding_name(muster_padding p) { return muster_name_of(padding_names, MUSTER_PAD_COUNT, (int)p); }

#define DEFINE_PARSE(fn, type, names, count)                       \
    int fn(const char *name, type *out)                            \
    {                                                              \
        int value = 0;                                             \
        int rc = muster_name_parse(names, count, name, &value);    \
        if (rc == MUSTER_OK && out != NULL)                        \
            *out = (type)value;                                    \
        return rc;                                                 \
    }
DEFINE_PARSE(muster_algorithm_parse, muster_algorithm, algorithm_names, MUSTER_ALG_COUNT)
DEFINE_PARSE(muster_wakeup_parse, muster_wakeup, wakeup_names, MUSTER_WAKE_COUNT)
DEFINE_PARSE(muster_padding_parse, muster_padding, padding_names, MUSTER_PAD_COUNT)
