/* The output agreement rule of `muster compare` (tools/compare/agreement.c):
 * a line, by its place, that is the same in every round of some runtime is
 * compared and must then be the same in every run of every runtime; a line
 * that changes from round to round under every runtime (a timing) is
 * ignored; a line that names a time or a rate and differs only in its
 * numbers is a measurement; a missing or extra line is a difference.  And
 * the ABI a program needs, from its dynamic section. */
#include <stdbool.h>
#include <string.h>

#include "agreement.h"
#include "check.h"
#include "omp_entries.h"

static const char *const names[] = {"libgomp", "muster", "libomp"};

/* outputs[k * rounds + r] */
static size_t differ(const char *const *outputs, size_t runtimes, size_t rounds, size_t *compared, size_t *ignored,
                     char *diff)
{
    agreement a = compare_outputs(outputs, names, runtimes, rounds, diff, 512);
    *compared = a.compared;
    *ignored = a.ignored;
    return a.differ;
}

static size_t measured(const char *const *outputs, size_t runtimes, size_t rounds)
{
    char diff[512];
    return compare_outputs(outputs, names, runtimes, rounds, diff, sizeof diff).measured;
}

static bool names_measure(const char *line)
{
    return line_names_measure(line, strlen(line));
}

static void check_measure_words(void)
{
    static const char *const yes[] = {" Time in seconds =                     0.05",
                                      " Mop/s total     =                  1234.56",
                                      "Runtime:     0.321 seconds",
                                      "Lookups/s:   1,234,567",
                                      "Elapsed time         =       0.12 (s)",
                                      "Grind time (us/z/c)  =  0.4 (per dom)",
                                      "FOM                  =   12345.6 (z/s)",
                                      "PARALLEL time =    1.234 microseconds +/-   0.1",
                                      "Performance:   43.3 ns/day",
                                      "took 12 ms",
                                      "copy rate: 12.5 GB/s",
                                      "overhead 3 \xc2\xb5s"};
    static const char *const no[] = {"sum = 3", " Verification    =               SUCCESSFUL", " Class           =                        W",
                                     " Iterations      =                       15", "status = 0", "Threads: 2",
                                     " Zeta is   0.1071531449733E+02", "Size            =             7000",
                                     "ratio a/b = 2, a/sum = 1"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK(names_measure(yes[i]), "'%s' names a time or rate", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK(!names_measure(no[i]), "'%s' names no time or rate", no[i]);
    char masked[128];
    const char *line = "x = -1.5e+03, 1,234  y2 0.1D-05 (v1.2)";
    mask_numbers(line, strlen(line), masked, sizeof masked);
    CHECK(strcmp(masked, "x = #, # y2 # (v1.2)") == 0, "masked: '%s'", masked);
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

    /* One round: a timing named as such is a measurement; an unnamed number counts. */
    const char *once[] = {"sum = 3\ntime = 0.1\n", "sum = 3\ntime = 0.2\n", "sum = 3\ntime = 0.3\n"};
    CHECK(differ(once, 3, 1, &compared, &ignored, diff) == 0 && compared == 1 && measured(once, 3, 1) == 1,
          "one round: the timing is a measurement (%zu compared): %s", compared, diff);
    const char *once_wrong[] = {"sum = 3\n", "sum = 3\n", "sum = 4\n"};
    CHECK(differ(once_wrong, 3, 1, &compared, &ignored, diff) == 1 && strstr(diff, "on libomp"),
          "one round: a wrong answer is caught: %s", diff);

    /* A timing so coarse it repeats in every round of one runtime (NPB CG
     * class W): a measurement, not a disagreement. */
    const char *coarse[] = {" Time in seconds =    0.06\n Verification    =   SUCCESSFUL\n",
                            " Time in seconds =    0.05\n Verification    =   SUCCESSFUL\n",
                            " Time in seconds =    0.05\n Verification    =   SUCCESSFUL\n",
                            " Time in seconds =    0.05\n Verification    =   SUCCESSFUL\n"};
    CHECK(differ(coarse, 2, 2, &compared, &ignored, diff) == 0 && measured(coarse, 2, 2) == 1,
          "a coarse timing is a measurement: %s", diff);
    /* ... but its words still count, and a verdict beside it. */
    const char *verdict[] = {" Time in seconds =    0.06\n Verification    =   SUCCESSFUL\n",
                             " Time in seconds =    0.05\n Verification    =   SUCCESSFUL\n",
                             " Time in seconds =    0.05\n Verification    = UNSUCCESSFUL\n",
                             " Time in seconds =    0.05\n Verification    = UNSUCCESSFUL\n"};
    CHECK(differ(verdict, 2, 2, &compared, &ignored, diff) == 1 && strstr(diff, "UNSUCCESSFUL"),
          "a wrong verdict beside a timing is caught: %s", diff);
    const char *words[] = {"Time in seconds = 0.06\n", "Time in seconds = 0.06\n", "Time in minutes = 0.05\n",
                           "Time in minutes = 0.05\n"};
    CHECK(differ(words, 2, 2, &compared, &ignored, diff) == 1, "a measurement's words must agree");
    /* A number in an answer (no time or rate named): stable and different. */
    const char *zeta[] = {" Zeta is   0.1071531449733E+02\n", " Zeta is   0.1071531449733E+02\n",
                          " Zeta is   0.1071531449734E+02\n", " Zeta is   0.1071531449734E+02\n"};
    CHECK(differ(zeta, 2, 2, &compared, &ignored, diff) == 1, "a changed answer is caught");
    check_measure_words();

    /* Empty outputs agree; a trailing newline or none is the same. */
    const char *empty[] = {"", "", "x", "x\n"};
    CHECK(differ(empty, 1, 2, &compared, &ignored, diff) == 0 && compared == 0, "empty outputs");
    CHECK(differ(empty + 2, 1, 2, &compared, &ignored, diff) == 0 && compared == 1, "with and without newline");

    /* The ABI: this test program maps no OpenMP runtime; a text file is
     * no ELF program; each "--gomp PATH" (relax; a program that needs
     * libgomp only through a library of its own) and "--kmp PATH" (clang's
     * taskbench) given needs that runtime's. */
    char why[512];
    /* "--emulated" (a cross build, run under qemu-user): the target's
     * loader is not on this machine to list anything, and must say so. */
    bool emulated = argc > 1 && strcmp(argv[1], "--emulated") == 0;
    if (emulated)
        CHECK(omp_program_abi(argv[0], why, sizeof why) == OMP_ABI_ERROR && strstr(why, "loader"),
              "under emulation the loader cannot list this test, and says so: %s", why);
    else
        CHECK(omp_program_abi(argv[0], why, sizeof why) == OMP_ABI_NONE && strstr(why, "maps no OpenMP"),
              "this test maps no OpenMP runtime: %s", why);
    CHECK(omp_program_abi(__FILE__, why, sizeof why) == OMP_ABI_ERROR && strstr(why, "not an ELF"),
          "a source file: %s", why);
    CHECK(omp_program_abi("/nonexistent/program", why, sizeof why) == OMP_ABI_ERROR && strstr(why, "No such file"),
          "a missing file: %s", why);
    for (int i = emulated ? 2 : 1; i + 1 < argc; i += 2) {
        omp_abi want = strcmp(argv[i], "--kmp") == 0 ? OMP_ABI_KMP : OMP_ABI_GOMP;
        omp_abi got = omp_program_abi(argv[i + 1], why, sizeof why);
        CHECK(got == want, "%s needs %s's ABI, not %d (%s)", argv[i + 1], want == OMP_ABI_KMP ? "libomp" : "libgomp",
              (int)got, got == OMP_ABI_NONE || got == OMP_ABI_ERROR ? why : "");
    }
    printf("test_compare_outputs: ok\n");
    return 0;
}
