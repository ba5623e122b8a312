/* A tiny gcc -fopenmp (or clang -fopenmp) program for the `muster run`
 * tests: prints the
 * variables `muster run` sets, which file answers the OpenMP calls (dladdr),
 * every OpenMP runtime mapped into the process (/proc/self/maps), and the
 * team size of one parallel region; then exits with the status given as its
 * first argument (default 0), so the tests can see it pass through. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_variable(const char *name)
{
    const char *v = getenv(name);
    printf("%s=%s\n", name, v ? v : "(unset)");
}

static void print_answering(const char *symbol)
{
    Dl_info info;
    void *entry = dlsym(RTLD_DEFAULT, symbol);
    printf("answers %s: %s\n", symbol, entry && dladdr(entry, &info) && info.dli_fname ? info.dli_fname : "?");
}

/* Each mapped file whose name says it is an OpenMP runtime, once. */
static void print_mapped_runtimes(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096], last[4096] = "";
    while (maps && fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (path == NULL)
            continue;
        path[strcspn(path, "\n")] = '\0';
        const char *base = strrchr(path, '/') + 1;
        int runtime = strstr(base, "gomp") || strstr(base, "libomp") || strstr(base, "muster-omp");
        if (runtime && strcmp(path, last) != 0) {
            printf("mapped: %s\n", path);
            snprintf(last, sizeof last, "%s", path);
        }
    }
    if (maps)
        fclose(maps);
}

int main(int argc, char **argv)
{
    static const char *const variables[] = {"LD_PRELOAD", "LD_LIBRARY_PATH", "OMP_NUM_THREADS",
                                            "MUSTER_BARRIER", "MUSTER_WAIT_POLICY"};
    for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++)
        print_variable(variables[i]);
#ifdef __clang__
    print_answering("__kmpc_fork_call"); /* clang's fork; the rest of LLVM's ABI follows it */
#else
    print_answering("GOMP_parallel");
#endif
    print_answering("omp_get_num_threads");
    print_mapped_runtimes();
    int team = 0;
    /* Only the calls the first libmuster-omp has (no single): thread 0 reports. */
#pragma omp parallel
    if (omp_get_thread_num() == 0)
        team = omp_get_num_threads();
    printf("team=%d\n", team);
    for (int i = 2; i < argc; i++)
        printf("arg: %s\n", argv[i]);
    return argc > 1 ? atoi(argv[1]) : 0;
}
