/* Names of algorithms, wait policies, wake-up shapes and paddings:
 *  - every value has the documented name, and the name parses back to it;
 *  - names are distinct, and parsing ignores case ("Tuned" is tuned);
 *  - *_name() of an out-of-range value is NULL;
 *  - unknown names and "" give MUSTER_E_UNKNOWN_NAME, leave *out alone and
 *    leave a detail naming the string; NULL gives MUSTER_E_INVAL (an invalid
 *    argument, not a name: barrier.h keeps UNKNOWN_NAME for names). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muster/barrier.h"

#include "check.h"

/* One table per enum, so the same checks run over all four. */
typedef const char *(*name_fn)(int value);
typedef int (*parse_fn)(const char *name, int *out);

/* prefix_name and prefix_parse: muster_<type>_name and muster_<type>_parse
 * with int in place of the enum muster_<type>, to fit name_fn and parse_fn. */
#define INT_ADAPTERS(prefix, type)                                                             \
    static const char *prefix##_name(int v) { return muster_##type##_name((muster_##type)v); } \
    static int prefix##_parse(const char *s, int *out)                                         \
    {                                                                                          \
        muster_##type v = (muster_##type)*out;                                                 \
        int rc = muster_##type##_parse(s, &v);                                                 \
        *out = (int)v;                                                                         \
        return rc;                                                                             \
    }
INT_ADAPTERS(alg, algorithm)
INT_ADAPTERS(policy, wait_policy)
INT_ADAPTERS(wakeup, wakeup)
INT_ADAPTERS(padding, padding)
#undef INT_ADAPTERS

typedef struct kind {
    const char *what;
    name_fn name;
    parse_fn parse;
    int count;
    const char *const *expected; /* expected[v] for v in [0, count); NULL: not fixed */
} kind;

static const char *const algorithm_names[MUSTER_ALG_COUNT] = {
    [MUSTER_ALG_AUTO] = "auto",
    [MUSTER_ALG_CENTRAL_BLOCKING] = "central-blocking",
    [MUSTER_ALG_CENTRAL_SENSE] = "central-sense",
    [MUSTER_ALG_DISSEMINATION] = "dissemination",
    [MUSTER_ALG_COMBINING_TREE] = "combining-tree",
    [MUSTER_ALG_MCS_TREE] = "mcs-tree",
    [MUSTER_ALG_TOURNAMENT] = "tournament",
    [MUSTER_ALG_STATIC_FWAY] = "static-fway",
    [MUSTER_ALG_DYNAMIC_FWAY] = "dynamic-fway",
    [MUSTER_ALG_HYPER] = "hyper",
    [MUSTER_ALG_TUNED] = "tuned",
};
static const char *const policy_names[MUSTER_WAIT_COUNT] = {
    [MUSTER_WAIT_ACTIVE] = "active",
    [MUSTER_WAIT_PASSIVE] = "passive",
    [MUSTER_WAIT_HYBRID] = "hybrid",
};
static const char *const wakeup_names[MUSTER_WAKE_COUNT] = {
    [MUSTER_WAKE_GLOBAL] = "global",
    [MUSTER_WAKE_BINARY] = "binary",
    [MUSTER_WAKE_CLUSTER] = "cluster",
    [MUSTER_WAKE_TREE] = "tree",
};
static const char *const padding_names[MUSTER_PAD_COUNT] = {
    [MUSTER_PAD_PADDED] = "padded",
    [MUSTER_PAD_PACKED] = "packed",
};

static const kind kinds[] = {
    {"algorithm", alg_name, alg_parse, MUSTER_ALG_COUNT, algorithm_names},
    {"wait policy", policy_name, policy_parse, MUSTER_WAIT_COUNT, policy_names},
    {"wake-up", wakeup_name, wakeup_parse, MUSTER_WAKE_COUNT, wakeup_names},
    {"padding", padding_name, padding_parse, MUSTER_PAD_COUNT, padding_names},
};

/* "central-sense" -> "Central-Sense"; "tuned" -> "TUNED" when all is set. */
static void recase(const char *in, char *out, size_t size, int all)
{
    size_t i = 0;
    int start = 1;
    for (; in[i] != '\0' && i + 1 < size; i++) {
        char c = in[i];
        if (c >= 'a' && c <= 'z' && (all || start))
            c = (char)(c - 'a' + 'A');
        start = c == '-';
        out[i] = c;
    }
    out[i] = '\0';
}

static void check_unknown(const kind *k, const char *text)
{
    const int sentinel = 12345;
    int value = sentinel;
    int rc = k->parse(text, &value);
    if (rc != MUSTER_E_UNKNOWN_NAME)
        fprintf(stderr, "%s '%s' parsed with %d\n", k->what, text, rc);
    CHECK(rc == MUSTER_E_UNKNOWN_NAME);
    CHECK(value == sentinel);                       /* *out untouched on failure */
    CHECK(muster_error_detail()[0] != '\0');
    if (text[0] != '\0')
        CHECK(strstr(muster_error_detail(), text) != NULL); /* the detail names it */
}

static void check_kind(const kind *k)
{
    printf("%s:", k->what);
    for (int v = 0; v < k->count; v++) {
        const char *name = k->name(v);
        if (v > 0 || k->expected[0] != NULL)
            CHECK(name != NULL);
        if (name == NULL)
            continue;
        printf(" %s", name);
        CHECK(name[0] != '\0');
        if (k->expected[v] != NULL) {
            if (strcmp(name, k->expected[v]) != 0)
                fprintf(stderr, "%s %d is named '%s', expected '%s'\n", k->what, v, name, k->expected[v]);
            CHECK(strcmp(name, k->expected[v]) == 0);
        }
        /* Round trip, exact and in other cases. */
        int parsed = -1;
        CHECK(k->parse(name, &parsed) == MUSTER_OK);
        CHECK(parsed == v);
        char other[64];
        recase(name, other, sizeof other, 0);
        parsed = -1;
        CHECK(k->parse(other, &parsed) == MUSTER_OK);
        CHECK(parsed == v);
        recase(name, other, sizeof other, 1);
        parsed = -1;
        CHECK(k->parse(other, &parsed) == MUSTER_OK);
        CHECK(parsed == v);
        /* Distinct names. */
        for (int w = 0; w < v; w++)
            CHECK(k->name(w) == NULL || strcmp(k->name(w), name) != 0);
        /* Near misses are unknown: a prefix, an extension, padding. */
        char near[80];
        snprintf(near, sizeof near, "%.*s", (int)strlen(name) - 1, name);
        check_unknown(k, near);
        snprintf(near, sizeof near, "%sx", name);
        check_unknown(k, near);
        snprintf(near, sizeof near, " %s", name);
        check_unknown(k, near);
    }
    printf("\n");

    CHECK(k->name(k->count) == NULL);
    CHECK(k->name(k->count + 1) == NULL);
    CHECK(k->name(999) == NULL);
    CHECK(k->name(-1) == NULL);

    check_unknown(k, "bogus");
    check_unknown(k, "");
    check_unknown(k, "-");
    check_unknown(k, "0");
    check_unknown(k, "1");

    const int sentinel = 777;
    int value = sentinel;
    CHECK(k->parse(NULL, &value) == MUSTER_E_INVAL);
    CHECK(value == sentinel);
    CHECK(muster_error_detail()[0] != '\0');
}

int main(void)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        check_kind(&kinds[i]);

    /* The spot checks the brief and the README use. */
    muster_algorithm a = MUSTER_ALG_COUNT;
    CHECK(muster_algorithm_parse("auto", &a) == MUSTER_OK && a == MUSTER_ALG_AUTO);
    CHECK(muster_algorithm_parse("AUTO", &a) == MUSTER_OK && a == MUSTER_ALG_AUTO);
    CHECK(muster_algorithm_parse("Tuned", &a) == MUSTER_OK && a == MUSTER_ALG_TUNED);
    CHECK(muster_algorithm_parse("HYPER", &a) == MUSTER_OK && a == MUSTER_ALG_HYPER);
    CHECK(muster_algorithm_parse("Dynamic-FWay", &a) == MUSTER_OK && a == MUSTER_ALG_DYNAMIC_FWAY);
    muster_wait_policy p = MUSTER_WAIT_COUNT;
    CHECK(muster_wait_policy_parse("Passive", &p) == MUSTER_OK && p == MUSTER_WAIT_PASSIVE);
    CHECK(muster_wait_policy_parse("ACTIVE", &p) == MUSTER_OK && p == MUSTER_WAIT_ACTIVE);
    muster_wakeup w = MUSTER_WAKE_COUNT;
    CHECK(muster_wakeup_parse("Cluster", &w) == MUSTER_OK && w == MUSTER_WAKE_CLUSTER);
    muster_padding d = MUSTER_PAD_COUNT;
    CHECK(muster_padding_parse("PACKED", &d) == MUSTER_OK && d == MUSTER_PAD_PACKED);

    /* A name of one kind is not a name of another. */
    CHECK(muster_algorithm_parse("passive", &a) == MUSTER_E_UNKNOWN_NAME);
    CHECK(muster_wait_policy_parse("tuned", &p) == MUSTER_E_UNKNOWN_NAME);
    CHECK(muster_wakeup_parse("padded", &w) == MUSTER_E_UNKNOWN_NAME);
    CHECK(muster_padding_parse("global", &d) == MUSTER_E_UNKNOWN_NAME);

    printf("test_names: ok\n");
    return 0;
}
