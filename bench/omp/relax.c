/* relax: a small OpenMP kernel of the kind fork/join runtimes are judged by,
 * shipped so that `muster compare` has a program to run on any machine.
 * Jacobi relaxation of a 1-D heat equation: each sweep is one short parallel
 * loop with a max-reduction (the change), then a little serial work (the
 * boundary), repeated until the change falls under a tolerance or the sweep
 * limit; thousands of short regions, as in many solvers.
 *
 *   relax [--points N] [--sweeps N] [--serial-us N] [--tail-ms N] [--say-runtime]
 *
 * --serial-us adds N us of serial computing after each sweep (a solver's
 * serial step between short regions), --tail-ms N ms after the last one (a
 * program that ends its parallel part and computes on alone): what the
 * runtime's waiting threads burn meanwhile shows in the CPU time.
 * Prints the answer (sweeps run, the final change, a checksum of the field),
 * which does not depend on the team size or the runtime, then the time.
 * --say-runtime adds the file that answered omp_get_thread_num: an output
 * that differs between runtimes, for the tests of `muster compare`. */
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long option(int argc, char **argv, const char *name, long fallback, long min, long max)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) {
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end != '\0' || v < min || v > max) {
                fprintf(stderr, "relax: %s '%s': a whole number from %ld to %ld; using %ld\n", name, argv[i + 1], min,
                        max, fallback);
                return fallback;
            }
            return v;
        }
    return fallback;
}

/* Computes on one thread for about us microseconds (the clock decides). */
static double serial_work(double us)
{
    double until = omp_get_wtime() + us * 1e-6, x = 1.0;
    while (omp_get_wtime() < until)
        for (int i = 0; i < 100; i++)
            x = sqrt(x + 1.0);
    return x;
}

/* --help, and words that are not relax's options: a program whose mistyped
 * option ran the default kernel would measure the wrong thing quietly. */
static int check_words(int argc, char **argv)
{
    static const char *const valued[] = {"--points", "--sweeps", "--serial-us", "--tail-ms"};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: relax [--points N (20000)] [--sweeps N (3000)] [--serial-us N (0)] [--tail-ms N (0)] "
                   "[--say-runtime]\n\nJacobi relaxation of a 1-D heat equation: one short parallel loop with a "
                   "max-reduction a sweep.\n--serial-us: serial work after each sweep; --tail-ms: after the last;\n"
                   "--say-runtime: print the library that answered omp_get_thread_num.\n");
            return 0;
        }
        if (strcmp(argv[i], "--say-runtime") == 0)
            continue;
        bool known = false;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
            known |= strcmp(argv[i], valued[k]) == 0;
        if (known && i + 1 < argc) {
            i++;
            continue;
        }
        fprintf(stderr, "relax: %s '%s' (try --help)\n", known ? "a value is missing after" : "unknown option",
                argv[i]);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    int words = check_words(argc, argv);
    if (words >= 0)
        return words;
    long n = option(argc, argv, "--points", 20000, 16, 100000000);
    long limit = option(argc, argv, "--sweeps", 3000, 1, 100000000);
    long serial_us = option(argc, argv, "--serial-us", 0, 0, 10000000);
    long tail_ms = option(argc, argv, "--tail-ms", 0, 0, 1000000);
    volatile double sink = 0.0; /* keeps the serial work from being optimised away */
    double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
    if (u == NULL || v == NULL) {
        fprintf(stderr, "relax: out of memory for %ld points\n", n);
        return 1;
    }
    double start = omp_get_wtime(), change = INFINITY;
    long sweep = 0;
    u[0] = v[0] = 1.0; /* a hot end, a cold end */
    while (sweep < limit && change > 1e-12) {
        change = 0.0;
#pragma omp parallel for reduction(max : change) schedule(static)
        for (long i = 1; i < n - 1; i++) {
            v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
            change = fmax(change, fabs(v[i] - u[i]));
        }
        v[n - 1] = v[n - 2]; /* an insulated end: the serial part */
        if (serial_us > 0)
            sink += serial_work((double)serial_us);
        double *t = u;
        u = v;
        v = t;
        sweep++;
    }
    if (tail_ms > 0)
        sink += serial_work(1e3 * (double)tail_ms);
    double checksum = 0.0;
    for (long i = 0; i < n; i++)
        checksum += u[i] * (double)(i % 7 + 1);
    printf("sweeps = %ld\nchange = %.9e\nchecksum = %.12e\n", sweep, change, checksum);
    printf("time = %.9f s\n", omp_get_wtime() - start); /* ns: two runs never print the same */
    if (argc > 1 && strcmp(argv[argc - 1], "--say-runtime") == 0) {
        Dl_info info;
        const char *file = dladdr((void *)omp_get_thread_num, &info) && info.dli_fname ? info.dli_fname : "?";
        printf("runtime = %s\n", strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
    }
    free(u);
    free(v);
    return 0;
}
