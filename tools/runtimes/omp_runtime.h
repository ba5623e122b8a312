/* The OpenMP runtimes the muster command puts under unchanged `gcc -fopenmp`
 * programs: where their files are, and the environment that makes one of
 * them the only runtime a program loads.  `muster run` and `muster bench omp`
 * both find things here, so they always agree on which file is meant. */
#ifndef MUSTER_TOOLS_OMP_RUNTIME_H
#define MUSTER_TOOLS_OMP_RUNTIME_H

#include <stddef.h>

typedef enum omp_runtime {
    OMP_RUNTIME_LIBGOMP, /* GCC's, which the program links: nothing to preload */
    OMP_RUNTIME_LIBOMP,  /* LLVM's libomp.so.5 (Debian libomp-dev), which exports the GOMP ABI */
    OMP_RUNTIME_MUSTER,  /* libmuster-omp.so */
    OMP_RUNTIME_COUNT
} omp_runtime;

/* "libgomp", "libomp", "muster"; NULL out of range. */
const char *omp_runtime_name(omp_runtime rt);
/* The runtime with that name, or -1. */
int omp_runtime_parse(const char *name);

/* A found file, or why none was: `looked` lists where it was sought. */
typedef struct omp_found {
    char path[4096];
    char looked[2048];
} omp_found;

/* The library to preload for rt: for muster, env MUSTER_OMP_LIBRARY, else the
 * build tree's (compiled in by CMake), else one installed next to the muster
 * executable (../lib or the same directory); for libomp, env MUSTER_LIBOMP,
 * else the usual Debian/LLVM places.  Returns 0, or -1 with f->looked filled.
 * For libgomp there is nothing to preload: 0 and an empty path. */
int omp_find_runtime(omp_runtime rt, omp_found *f);

/* libmuster-profile.so, the OMPT tool of `muster profile`: env
 * MUSTER_PROFILE_LIBRARY, else the build tree's, else installed beside
 * libmuster-omp.so.  0, or -1 with f->looked filled. */
int omp_find_profile_tool(omp_found *f);

/* For each runtime with wanted[rt] set: its library into library[rt] (""
 * for libgomp), or, when it is not found, why into missing[rt] (with the
 * remedy), one line on stderr ("PROG: ...: left out") and wanted[rt]
 * cleared.  Returns how many remain. */
int omp_find_runtimes(const char *prog, int wanted[OMP_RUNTIME_COUNT], char library[OMP_RUNTIME_COUNT][4096],
                      char missing[OMP_RUNTIME_COUNT][2300]);

/* The compilers whose build of a benchmark program can be run: gcc's
 * (libgomp's ABI: every runtime runs it) and clang's (LLVM's __kmpc ABI:
 * libomp and muster). */
typedef enum omp_compiler { OMP_COMPILER_GCC, OMP_COMPILER_CLANG, OMP_COMPILER_COUNT } omp_compiler;
extern const char *const omp_compiler_names[OMP_COMPILER_COUNT];

/* Compiler k's build of syncbench (bench/omp/syncbench.c; clang's speaks
 * LLVM's __kmpc ABI): env MUSTER_SYNCBENCH (MUSTER_SYNCBENCH_CLANG), else the
 * build tree's, else installed next to the muster executable. */
int omp_find_syncbench(omp_compiler k, omp_found *f);
/* The same for taskbench (bench/omp/taskbench.c): env MUSTER_TASKBENCH
 * (MUSTER_TASKBENCH_CLANG), else the build tree's, else installed. */
int omp_find_taskbench(omp_compiler k, omp_found *f);
/* Index of "gcc" or "clang"; -1 for anything else. */
int omp_compiler_parse(const char *name);

/* Which builds of a benchmark program to run.  compiler[k] is 1 (asked
 * for), 0 (not) or -1 everywhere (nothing asked: gcc's, and clang's when
 * it is built and libomp or muster is wanted).  find(k, &found[k]) looks
 * for build k; program[k] names it in messages, hint[k] says how to get
 * it.  Leaves compiler[k] 1 for each to run; returns how many, or -1 with
 * a message on stderr when one asked for is missing. */
int omp_choose_compilers(const char *prog, int compiler[OMP_COMPILER_COUNT], const int runtime[OMP_RUNTIME_COUNT],
                         int (*find)(omp_compiler k, omp_found *f), omp_found found[OMP_COMPILER_COUNT],
                         const char *const program[OMP_COMPILER_COUNT], const char *const hint[OMP_COMPILER_COUNT]);

/* --compilers LIST for `prog`: compiler[] becomes 1 for each named, 0 for
 * the rest.  CLI_OK, or CLI_USAGE with a message naming a bad item. */
int omp_parse_compilers(const char *prog, const char *list, int compiler[OMP_COMPILER_COUNT]);
/* --runtimes LIST: libgomp, libomp, muster or all, comma-separated, into
 * runtime[] (1 for each named; the rest 0); a usage error otherwise. */
int omp_parse_runtimes(const char *prog, const char *list, int runtime[OMP_RUNTIME_COUNT]);

/* What `muster bench omp` and `muster bench tasks` both choose: team sizes
 * (--threads), runtimes (--runtimes) and builds (--compilers).  The first
 * member of each command's options, so that the setters below, given the
 * options as a whole (cli_option's set), find it. */
#define OMP_BENCH_MAX_COUNTS 16
typedef struct omp_bench_choice {
    const char *prog; /* for messages */
    unsigned threads[OMP_BENCH_MAX_COUNTS];
    size_t nthreads;
    int runtime[OMP_RUNTIME_COUNT];   /* 1: measure it */
    int compiler[OMP_COMPILER_COUNT]; /* as omp_choose_compilers takes it */
} omp_bench_choice;

/* Every runtime, the builds decided by what is built (-1), and the team
 * sizes in `threads` (a --threads list). */
omp_bench_choice omp_bench_choice_defaults(const char *prog, const char *threads);
int omp_bench_set_threads(const char *list, void *options);
int omp_bench_set_runtimes(const char *list, void *options);
int omp_bench_set_compilers(const char *list, void *options);
/* Their entries in a cli_option table. */
#define OMP_BENCH_CHOICE_OPTIONS                                                                                \
    {"--threads", CLI_VALUE_CUSTOM, 0, 0, 0, omp_bench_set_threads},                                          \
        {"--runtimes", CLI_VALUE_CUSTOM, 0, 0, 0, omp_bench_set_runtimes},                                    \
        {"--compilers", CLI_VALUE_CUSTOM, 0, 0, 0, omp_bench_set_compilers}

/* Runs run(k, ctx) for each compiler left 1 by omp_choose_compilers, gcc's
 * first; the tables one blank line apart, and with json and two programs,
 * the objects wrapped as {"runs": [...]}.  Stops at the first status that
 * is not CLI_OK and returns it. */
int omp_run_each_compiler(const int compiler[OMP_COMPILER_COUNT], int json, int (*run)(omp_compiler k, void *ctx),
                          void *ctx);

/* For a clang-built program: libgomp cannot run it (no __kmpc entry
 * points); it is left out with that reason. */
void omp_leave_out_libgomp(int runtime[OMP_RUNTIME_COUNT], char missing[OMP_RUNTIME_COUNT][2300]);

/* Makes `library` the program's OpenMP runtime in this process's
 * environment, for an exec that follows: prepends it to LD_PRELOAD, and
 * prepends to LD_LIBRARY_PATH a directory whose libgomp.so.1, libomp.so.5,
 * libomp.so and libiomp5.so are links to it, so that the program's own
 * DT_NEEDED runtime resolves to the same file and the real one is never
 * mapped beside it.  The links are the build's (omp-shim/ beside the
 * library) when there are, else made in a private directory of this
 * user's.  Sets LD_BIND_NOW=1 (unless set): an entry point the library
 * lacks then stops the program at load, naming it, not midway through.
 * Returns 0, or -1 with a message in err. */
int omp_use_runtime(const char *library, char *err, size_t errlen);

#endif
