/* The output agreement rule of `muster compare` (bench/harness/compare.c):
 * a line, by its place, that is the same in every round of some runtime is
 * compared and must then be the same in every run of every runtime; a line
 * that changes from round to round under every runtime (a timing) is
 * ignored; with one round every line counts; a missing or extra line is a
 * difference.  And the ABI a program needs, from its dynamic section. */
#include <string.h>

#include "check.h"
#include "compare.h"

static const char *const names[] = {"libgomp", "muster", "libomp"};

/* outputs[k * rounds + r] */
static size_t differ(const char *const *outputs, size_t runtimes, size_t rounds, size_t *compared, size_t *ignored,
                     char *diff)
{
    return compare_outputs(outputs, names, runtimes, rounds, compared, ignored, diff, 512);
}

int main(int argc, char **argv)
{
    size_t compared, ignored;
    char diff[512];

    /* Same answers, different timings: they agree, the timing is ignored. */
    const char *agree[] = {"sum = 3\ntime = 0.1\n", "sum = 3\ntime = 0.2\n",  /* libgomp */
                           "sum = 3\ntime = 0.3\n", "sum = 3\ntime = 0.4\n"}; /* muster */
    CHECK(differ(agree, 2, 2, &compared, &ignored, diff) == 0, "agree: %s", diff);
    CHECK(compared == 1 && ignored == 1, "1 compared, 1 ignored (%zu, %zu)", compared, ignored);

    /* A line each runtime prints the same in every round, but differently. */
    const char *named[] = {"sum = 3\nrt = gomp\n", "sum = 3\nrt = gomp\n", "sum = 3\nrt = muster\n",
                           "sum = 3\nrt = muster\n"};
    CHECK(differ(named, 2, 2, &compared, &ignored, diff) == 1, "the runtime's name is caught");
    CHECK(strstr(diff, "line 2") && strstr(diff, "rt = gomp") && strstr(diff, "rt = muster") &&
              strstr(diff, "on muster"),
          "the difference says where: %s", diff);

    /* Stable under one runtime, varying under the other: a nondeterministic
     * answer is a difference, not noise. */
    const char *wobbly[] = {"sum = 3\n", "sum = 3\n", "sum = 3\n", "sum = 4\n"};
    CHECK(differ(wobbly, 2, 2, &compared, &ignored, diff) == 1, "a wobbling answer is caught");
    CHECK(strstr(diff, "round 2 on muster"), "in its round: %s", diff);

    /* A line missing under one runtime. */
    const char *missing[] = {"a\nb\n", "a\nb\n", "a\n", "a\n"};
    CHECK(differ(missing, 2, 2, &compared, &ignored, diff) == 1 && strstr(diff, "<no line>"), "a missing line: %s",
          diff);

    /* One round: every line counts, timings too. */
    const char *once[] = {"sum = 3\ntime = 0.1\n", "sum = 3\ntime = 0.2\n", "sum = 3\ntime = 0.3\n"};
    CHECK(differ(once, 3, 1, &compared, &ignored, diff) == 1 && compared == 2 && ignored == 0,
          "one round: the timing differs (%zu compared)", compared);

    /* Empty outputs agree; a trailing newline or none is the same. */
    const char *empty[] = {"", "", "x", "x\n"};
    CHECK(differ(empty, 1, 2, &compared, &ignored, diff) == 0 && compared == 0, "empty outputs");
    CHECK(differ(empty + 2, 1, 2, &compared, &ignored, diff) == 0 && compared == 1, "with and without newline");

    /* The ABI: this test program links no OpenMP runtime; relax (argv[1],
     * when given) links libgomp; a text file is no ELF program. */
    char why[512];
    CHECK(compare_program_abi(argv[0], why, sizeof why) == COMPARE_ABI_NONE && strstr(why, "links no OpenMP"),
          "this test links no OpenMP runtime: %s", why);
    CHECK(compare_program_abi(__FILE__, why, sizeof why) == COMPARE_ABI_ERROR && strstr(why, "not an ELF"),
          "a source file: %s", why);
    CHECK(compare_program_abi("/nonexistent/program", why, sizeof why) == COMPARE_ABI_ERROR &&
              strstr(why, "No such file"),
          "a missing file: %s", why);
    if (argc > 1)
        CHECK(compare_program_abi(argv[1], why, sizeof why) == COMPARE_ABI_GOMP, "%s links libgomp", argv[1]);
    if (argc > 2)
        CHECK(compare_program_abi(argv[2], why, sizeof why) == COMPARE_ABI_KMP, "%s links libomp", argv[2]);
    printf("test_compare_outputs: ok\n");
    return 0;
}
