/* Every way a caller can get the arguments wrong, and the answer it gets:
 *  - participant counts 0, MUSTER_MAX_PARTICIPANTS+1, UINT_MAX: INVAL;
 *  - algorithm, wait policy, wake-up, padding out of range: INVAL;
 *  - spin budgets above MUSTER_MAX_SPIN_NS: INVAL;
 *  - fan-in out of range for algorithms that have one: INVAL, and every
 *    fan-in in range works (dynamic-fway: 2..30; hyper: powers of two only);
 *    a fan-in given to an algorithm without one: UNSUPPORTED;
 *  - participant ids out of range: RANGE, and the barrier is not broken;
 *  - NULL barriers and NULL output pointers: INVAL, no crash;
 *  - every failure leaves a one-line muster_error_detail() naming the
 *    offending value; the detail is per thread;
 *  - muster_strerror() has a distinct string for every code and a sensible
 *    one for codes it does not know. */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "muster/barrier.h"

#include "check.h"

/* A failed call's detail: non-empty, one line, and naming `mention`. */
#define CHECK_DETAIL(mention)                                                          \
    do {                                                                               \
        const char *detail_ = muster_error_detail();                                   \
        CHECK(detail_ != NULL);                                                        \
        CHECK(detail_[0] != '\0');                                                     \
        CHECK(strchr(detail_, '\n') == NULL);                                          \
        if (strstr(detail_, (mention)) == NULL)                                        \
            fprintf(stderr, "detail \"%s\" does not mention \"%s\"\n", detail_, (mention)); \
        CHECK(strstr(detail_, (mention)) != NULL);                                     \
    } while (0)

static const muster_algorithm with_fan_in[] = {
    MUSTER_ALG_COMBINING_TREE, MUSTER_ALG_MCS_TREE, MUSTER_ALG_STATIC_FWAY,
    MUSTER_ALG_DYNAMIC_FWAY,   MUSTER_ALG_HYPER,    MUSTER_ALG_TUNED,
};
static const muster_algorithm without_fan_in[] = {
    MUSTER_ALG_CENTRAL_SENSE,
    MUSTER_ALG_DISSEMINATION,
    MUSTER_ALG_TOURNAMENT,
    MUSTER_ALG_CENTRAL_BLOCKING,
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static char number[64];
static const char *u(unsigned long long v)
{
    snprintf(number, sizeof number, "%llu", v);
    return number;
}
static const char *s(long long v)
{
    snprintf(number, sizeof number, "%lld", v);
    return number;
}

static muster_barrier_attr attr_for(muster_algorithm algorithm)
{
    muster_barrier_attr attr;
    muster_barrier_attr_init(&attr);
    attr.algorithm = algorithm;
    return attr;
}

/* create must fail with `expected`, leave *out NULL and a detail naming `mention`. */
static void expect_create_fails(unsigned participants, const muster_barrier_attr *attr, int expected,
                                const char *mention)
{
    muster_barrier *b = (muster_barrier *)&b; /* not NULL: create must clear it */
    int rc = muster_barrier_create(&b, participants, attr);
    if (rc != expected)
        fprintf(stderr, "create(%u participants, algorithm %d) = %d (%s), expected %d; detail: %s\n",
                participants, attr ? (int)attr->algorithm : -1, rc, muster_strerror(rc), expected,
                muster_error_detail());
    CHECK(rc == expected);
    CHECK(b == NULL);
    CHECK_DETAIL(mention);
}

static muster_barrier *expect_create_works(unsigned participants, const muster_barrier_attr *attr)
{
    muster_barrier *b = NULL;
    int rc = muster_barrier_create(&b, participants, attr);
    if (rc != MUSTER_OK)
        fprintf(stderr, "create(%u participants, algorithm %s, fan-in %u) = %d (%s); detail: %s\n", participants,
                attr ? muster_algorithm_name(attr->algorithm) : "(default)", attr ? attr->fan_in : 0, rc,
                muster_strerror(rc), muster_error_detail());
    CHECK(rc == MUSTER_OK);
    CHECK(b != NULL);
    CHECK(muster_barrier_participants(b) == participants);
    return b;
}

static void test_participants(void)
{
    const unsigned bad[] = {0, MUSTER_MAX_PARTICIPANTS + 1, MUSTER_MAX_PARTICIPANTS * 2, UINT_MAX};
    for (size_t i = 0; i < COUNT(bad); i++) {
        expect_create_fails(bad[i], NULL, MUSTER_E_INVAL, u(bad[i]));
        for (int a = MUSTER_ALG_AUTO; a < MUSTER_ALG_COUNT; a++) {
            muster_barrier_attr attr = attr_for((muster_algorithm)a);
            expect_create_fails(bad[i], &attr, MUSTER_E_INVAL, u(bad[i]));
        }
    }
    /* The bounds themselves work, for every algorithm. */
    for (int a = MUSTER_ALG_AUTO; a < MUSTER_ALG_COUNT; a++) {
        muster_barrier_attr attr = attr_for((muster_algorithm)a);
        muster_barrier_destroy(expect_create_works(1, &attr));
        muster_barrier_destroy(expect_create_works(MUSTER_MAX_PARTICIPANTS, &attr));
    }
    muster_barrier_destroy(expect_create_works(1, NULL));
}

static void test_algorithm_out_of_range(void)
{
    const int bad[] = {MUSTER_ALG_COUNT, MUSTER_ALG_COUNT + 1, 999, -1, INT_MAX, INT_MIN};
    for (size_t i = 0; i < COUNT(bad); i++) {
        muster_barrier_attr attr = attr_for((muster_algorithm)bad[i]);
        expect_create_fails(4, &attr, MUSTER_E_INVAL, s(bad[i]));
    }
}

static void test_enums_out_of_range(void)
{
    const int bad_policy[] = {MUSTER_WAIT_COUNT, 999, -1};
    const int bad_wakeup[] = {MUSTER_WAKE_COUNT, 999, -1};
    const int bad_padding[] = {MUSTER_PAD_COUNT, 999, -1};
    for (int a = MUSTER_ALG_AUTO; a < MUSTER_ALG_COUNT; a++) {
        for (size_t i = 0; i < COUNT(bad_policy); i++) {
            muster_barrier_attr attr = attr_for((muster_algorithm)a);
            attr.wait_policy = (muster_wait_policy)bad_policy[i];
            expect_create_fails(4, &attr, MUSTER_E_INVAL, s(bad_policy[i]));
        }
        for (size_t i = 0; i < COUNT(bad_wakeup); i++) {
            muster_barrier_attr attr = attr_for((muster_algorithm)a);
            attr.wakeup = (muster_wakeup)bad_wakeup[i];
            expect_create_fails(4, &attr, MUSTER_E_INVAL, s(bad_wakeup[i]));
        }
        for (size_t i = 0; i < COUNT(bad_padding); i++) {
            muster_barrier_attr attr = attr_for((muster_algorithm)a);
            attr.padding = (muster_padding)bad_padding[i];
            expect_create_fails(4, &attr, MUSTER_E_INVAL, s(bad_padding[i]));
        }
        /* Every wait policy in range works, for every algorithm. */
        for (int p = MUSTER_WAIT_DEFAULT; p < MUSTER_WAIT_COUNT; p++) {
            muster_barrier_attr attr = attr_for((muster_algorithm)a);
            attr.wait_policy = (muster_wait_policy)p;
            muster_barrier *b = expect_create_works(4, &attr);
            muster_barrier_attr resolved;
            CHECK(muster_barrier_get_attr(b, &resolved) == MUSTER_OK);
            CHECK(resolved.wait_policy != MUSTER_WAIT_DEFAULT);
            if (p != MUSTER_WAIT_DEFAULT)
                CHECK(resolved.wait_policy == (muster_wait_policy)p);
            muster_barrier_destroy(b);
        }
    }
}

static void test_spin_ns(void)
{
    const long long bad[] = {MUSTER_MAX_SPIN_NS + 1, MUSTER_MAX_SPIN_NS * 10, INT64_MAX};
    for (size_t i = 0; i < COUNT(bad); i++) {
        muster_barrier_attr attr = attr_for(MUSTER_ALG_CENTRAL_SENSE);
        attr.wait_policy = MUSTER_WAIT_HYBRID;
        attr.spin_ns = bad[i];
        expect_create_fails(4, &attr, MUSTER_E_INVAL, s(bad[i]));
        attr = attr_for(MUSTER_ALG_AUTO);
        attr.spin_ns = bad[i];
        expect_create_fails(4, &attr, MUSTER_E_INVAL, s(bad[i]));
    }
    /* In range: 0, the maximum, and a negative value ("default") work. */
    const long long good[] = {0, 1, 5000, MUSTER_MAX_SPIN_NS};
    for (size_t i = 0; i < COUNT(good); i++) {
        muster_barrier_attr attr = attr_for(MUSTER_ALG_CENTRAL_SENSE);
        attr.wait_policy = MUSTER_WAIT_HYBRID;
        attr.spin_ns = good[i];
        muster_barrier *b = expect_create_works(4, &attr);
        muster_barrier_attr resolved;
        CHECK(muster_barrier_get_attr(b, &resolved) == MUSTER_OK);
        CHECK(resolved.spin_ns == good[i]);
        muster_barrier_destroy(b);
    }
    const long long defaults[] = {-1, -1000, INT64_MIN};
    for (size_t i = 0; i < COUNT(defaults); i++) {
        muster_barrier_attr attr = attr_for(MUSTER_ALG_CENTRAL_SENSE);
        attr.spin_ns = defaults[i];
        muster_barrier *b = expect_create_works(4, &attr);
        muster_barrier_attr resolved;
        CHECK(muster_barrier_get_attr(b, &resolved) == MUSTER_OK);
        CHECK(resolved.spin_ns >= 0 && resolved.spin_ns <= MUSTER_MAX_SPIN_NS);
        muster_barrier_destroy(b);
    }
}

static unsigned max_fan_in(muster_algorithm a)
{
    return a == MUSTER_ALG_DYNAMIC_FWAY ? 30u : MUSTER_MAX_FAN_IN; /* barrier.h */
}

/* A barrier for one participant never blocks: each wait is a whole episode. */
static void run_alone(muster_barrier *b)
{
    for (int e = 0; e < 3; e++)
        CHECK(muster_barrier_wait(b, 0) == MUSTER_BARRIER_SERIAL);
}

static void test_fan_in(void)
{
    for (size_t i = 0; i < COUNT(with_fan_in); i++) {
        muster_algorithm a = with_fan_in[i];
        const char *name = muster_algorithm_name(a);
        unsigned hi = max_fan_in(a);
        const unsigned bad[] = {1, hi + 1, MUSTER_MAX_FAN_IN + 1, 100000, UINT_MAX};
        for (size_t k = 0; k < COUNT(bad); k++) {
            muster_barrier_attr attr = attr_for(a);
            attr.fan_in = bad[k];
            expect_create_fails(8, &attr, MUSTER_E_INVAL, u(bad[k]));
        }

        /* The default resolves to a fan-in in range. */
        muster_barrier_attr attr = attr_for(a);
        muster_barrier *b = expect_create_works(8, &attr);
        muster_barrier_attr resolved;
        CHECK(muster_barrier_get_attr(b, &resolved) == MUSTER_OK);
        CHECK(resolved.algorithm == a);
        CHECK(resolved.fan_in >= 2 && resolved.fan_in <= hi);
        muster_barrier_destroy(b);

        for (unsigned f = 2; f <= hi; f++) {
            int power_of_two = (f & (f - 1)) == 0;
            attr = attr_for(a);
            attr.fan_in = f;
            if (a == MUSTER_ALG_HYPER && !power_of_two) {
                expect_create_fails(8, &attr, MUSTER_E_INVAL, u(f));
                continue;
            }
            /* Team sizes around the fan-in: one group, one more, several levels. */
            const unsigned sizes[] = {1, 2, f - 1, f, f + 1, 2 * f + 1, f * f + 3};
            for (size_t k = 0; k < COUNT(sizes); k++) {
                if (sizes[k] == 0 || sizes[k] > MUSTER_MAX_PARTICIPANTS)
                    continue;
                b = expect_create_works(sizes[k], &attr);
                CHECK(muster_barrier_get_attr(b, &resolved) == MUSTER_OK);
                if (resolved.fan_in != f)
                    fprintf(stderr, "%s: fan-in %u resolved to %u\n", name, f, resolved.fan_in);
                CHECK(resolved.fan_in == f);
                if (sizes[k] == 1)
                    run_alone(b);
                muster_barrier_destroy(b);
            }
        }
    }
    /* hyper: the spot checks of the brief. */
    muster_barrier_attr attr = attr_for(MUSTER_ALG_HYPER);
    attr.fan_in = 3;
    expect_create_fails(8, &attr, MUSTER_E_INVAL, "3");
    attr.fan_in = 4;
    muster_barrier_destroy(expect_create_works(8, &attr));

    for (size_t i = 0; i < COUNT(without_fan_in); i++) {
        const unsigned given[] = {1, 2, 4, MUSTER_MAX_FAN_IN, 100000};
        for (size_t k = 0; k < COUNT(given); k++) {
            attr = attr_for(without_fan_in[i]);
            attr.fan_in = given[k];
            expect_create_fails(8, &attr, MUSTER_E_UNSUPPORTED, u(given[k]));
        }
        attr = attr_for(without_fan_in[i]);
        muster_barrier *b = expect_create_works(8, &attr);
        muster_barrier_attr resolved;
        CHECK(muster_barrier_get_attr(b, &resolved) == MUSTER_OK);
        CHECK(resolved.algorithm == without_fan_in[i]);
        muster_barrier_destroy(b);
    }
}

static void test_ids(void)
{
    for (int a = MUSTER_ALG_AUTO; a < MUSTER_ALG_COUNT; a++) {
        const unsigned participants[] = {1, 3};
        for (size_t k = 0; k < COUNT(participants); k++) {
            unsigned n = participants[k];
            muster_barrier_attr attr = attr_for((muster_algorithm)a);
            muster_barrier *b = expect_create_works(n, &attr);
            const unsigned bad[] = {n, n + 1, MUSTER_MAX_PARTICIPANTS, UINT_MAX};
            for (size_t i = 0; i < COUNT(bad); i++) {
                CHECK(muster_barrier_wait(b, bad[i]) == MUSTER_E_RANGE);
                CHECK_DETAIL(u(bad[i]));
                CHECK(muster_barrier_wait_timeout(b, bad[i], 1000000) == MUSTER_E_RANGE);
                CHECK_DETAIL(u(bad[i]));
                CHECK(muster_barrier_wait_timeout(b, bad[i], 0) == MUSTER_E_RANGE);
                CHECK_DETAIL(u(bad[i]));
            }
            /* A bad id is the caller's mistake: it must not break the barrier. */
            CHECK(muster_barrier_is_broken(b) == 0);
            if (n == 1)
                run_alone(b);
            muster_barrier_destroy(b);
        }
    }
}

static void test_null(void)
{
    CHECK(muster_barrier_create(NULL, 4, NULL) == MUSTER_E_INVAL);
    CHECK_DETAIL("NULL");
    muster_barrier_attr attr = attr_for(MUSTER_ALG_TUNED);
    CHECK(muster_barrier_create(NULL, 4, &attr) == MUSTER_E_INVAL);
    CHECK_DETAIL("NULL");

    CHECK(muster_barrier_wait(NULL, 0) == MUSTER_E_INVAL);
    CHECK_DETAIL("NULL");
    CHECK(muster_barrier_wait_timeout(NULL, 0, 1000) == MUSTER_E_INVAL);
    CHECK_DETAIL("NULL");
    CHECK(muster_barrier_abort(NULL) == MUSTER_E_INVAL);
    CHECK_DETAIL("NULL");
    CHECK(muster_barrier_reset(NULL) == MUSTER_E_INVAL);
    CHECK_DETAIL("NULL");
    muster_barrier_attr out;
    CHECK(muster_barrier_get_attr(NULL, &out) == MUSTER_E_INVAL);
    CHECK_DETAIL("NULL");
    CHECK(muster_barrier_is_broken(NULL) == 0);
    CHECK(muster_barrier_participants(NULL) == 0);
    CHECK(muster_barrier_state_bytes(NULL) == 0);
    muster_barrier_destroy(NULL);
    muster_barrier_attr_init(NULL);

    muster_barrier *b = expect_create_works(2, NULL);
    CHECK(muster_barrier_get_attr(b, NULL) == MUSTER_E_INVAL);
    CHECK_DETAIL("NULL");
    muster_barrier_destroy(b);
}

static void test_attr_init(void)
{
    muster_barrier_attr attr;
    memset(&attr, 0xa5, sizeof attr);
    muster_barrier_attr_init(&attr);
    CHECK(attr.algorithm == MUSTER_ALG_AUTO);
    CHECK(attr.wait_policy == MUSTER_WAIT_DEFAULT);
    CHECK(attr.spin_ns < 0);
    CHECK(attr.fan_in == 0);
    CHECK(attr.wakeup == MUSTER_WAKE_DEFAULT);
    CHECK(attr.cluster_size == 0);
    CHECK(attr.padding == MUSTER_PAD_DEFAULT);

    /* A zeroed struct asks for all defaults too (barrier.h). */
    muster_barrier_attr zero;
    memset(&zero, 0, sizeof zero);
    muster_barrier_destroy(expect_create_works(4, &zero));
}

static void test_strerror(void)
{
    const int codes[] = {MUSTER_OK,      MUSTER_E_INVAL,    MUSTER_E_UNSUPPORTED,  MUSTER_E_NOMEM, MUSTER_E_RANGE,
                         MUSTER_E_BROKEN, MUSTER_E_TIMEDOUT, MUSTER_E_UNKNOWN_NAME, MUSTER_E_SYSTEM};
    CHECK(COUNT(codes) == (size_t)(-MUSTER_E_SYSTEM + 1));
    for (int code = 0; code >= MUSTER_E_SYSTEM; code--) {
        const char *text = muster_strerror(code);
        CHECK(text != NULL);
        CHECK(text[0] != '\0');
        for (int other = 0; other > code; other--)
            CHECK(strcmp(text, muster_strerror(other)) != 0);
    }
    const int unknown[] = {MUSTER_E_SYSTEM - 1, -100, 1, MUSTER_BARRIER_SERIAL + 1, 42, INT_MIN, INT_MAX};
    for (size_t i = 0; i < COUNT(unknown); i++) {
        const char *text = muster_strerror(unknown[i]);
        CHECK(text != NULL);
        CHECK(text[0] != '\0');
        for (int code = 0; code >= MUSTER_E_SYSTEM; code--)
            CHECK(strcmp(text, muster_strerror(code)) != 0);
    }
}

/* The detail belongs to the thread that failed. */
static void *fresh_thread(void *arg)
{
    char *copy = arg;
    snprintf(copy, 256, "%s", muster_error_detail());
    return NULL;
}

static void test_detail_per_thread(void)
{
    CHECK(muster_barrier_create(NULL, 4, NULL) == MUSTER_E_INVAL);
    CHECK(muster_error_detail()[0] != '\0');
    char seen[256] = "(not run)";
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, fresh_thread, seen) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(seen[0] == '\0'); /* a fresh thread has no failure yet */
    CHECK(muster_error_detail()[0] != '\0'); /* and ours is still there */
}

int main(void)
{
    test_attr_init();
    test_participants();
    test_algorithm_out_of_range();
    test_enums_out_of_range();
    test_spin_ns();
    test_fan_in();
    test_ids();
    test_null();
    test_strerror();
    test_detail_per_thread();
    printf("test_bad_input: ok\n");
    return 0;
}
