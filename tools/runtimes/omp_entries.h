/* The check `muster run` and `muster compare` make before they start a
 * program on a runtime: that every OpenMP entry point the program and its
 * libraries need is one the runtime defines, at the version they ask for.
 * Without it a program that needs an entry point the runtime lacks stops at
 * load with the loader's one line ("symbol lookup error: ./prog: undefined
 * symbol: omp_init_lock_, version OMP_3.0"), naming one symbol and nothing of
 * why.
 *
 * The program's own dynamic loader answers, in its listing mode (what ldd -r
 * does: LD_TRACE_LOADED_OBJECTS with every symbol bound at once): it maps the
 * program and its libraries as they would be mapped under the runtime
 * (LD_PRELOAD and the omp-shim, omp_use_runtime), binds every symbol, names
 * each one it cannot, and exits without running any of the program. */
#ifndef MUSTER_TOOLS_OMP_ENTRIES_H
#define MUSTER_TOOLS_OMP_ENTRIES_H

#include <stddef.h>
#include <stdio.h>

typedef enum omp_entries_status {
    OMP_ENTRIES_OK,          /* everything the program needs binds */
    OMP_ENTRIES_MISSING,     /* OpenMP entry points (or libraries) are missing: see `missing` */
    OMP_ENTRIES_STATIC,      /* a static executable: no runtime can be put under it */
    OMP_ENTRIES_NOT_CHECKED, /* not an ELF executable (a script?), or the loader did not answer: see `why` */
} omp_entries_status;

typedef struct omp_entries_report {
    omp_entries_status status;
    unsigned missing_entries;   /* OpenMP entry points that do not bind */
    unsigned missing_libraries; /* libraries the loader cannot find */
    unsigned other_symbols;     /* other symbols that do not bind (not the runtime's doing) */
    char missing[4096];         /* one "FILE\tNAME@VERSION\n" record each (a library the loader cannot
                                   find: "(the loader cannot find)\tLIBRARY\n") */
    int cut_short;              /* more than `missing` holds */
    unsigned runtimes_mapped;   /* OMP_MAPS_* of the libraries the loader maps (or cannot find) */
    char why[512];
} omp_entries_report;

/* The OpenMP runtimes among the libraries a program maps, directly or
 * through a library of its own (GROMACS's gmx needs libgromacs, which
 * needs libgomp). */
#define OMP_MAPS_LIBGOMP 1u /* libgomp.so */
#define OMP_MAPS_LIBOMP 2u  /* libomp.so or Intel's libiomp5.so */

/* Checks the executable at `path` (a path, not a name to look up) as it
 * would start under `library` (NULL: in this process's environment as it
 * is, for a caller that has already called omp_use_runtime).  Returns
 * r->status. */
omp_entries_status omp_check_entries(const char *path, const char *library, omp_entries_report *r);

/* Which OpenMP ABI a program needs, from the runtime its loader maps for it. */
typedef enum omp_abi {
    OMP_ABI_GOMP,  /* libgomp: gcc, g++, gfortran -fopenmp (every runtime runs it) */
    OMP_ABI_KMP,   /* libomp (or Intel's libiomp5): clang, flang -fopenmp */
    OMP_ABI_NONE,  /* a dynamic ELF program that maps neither; why says so */
    OMP_ABI_ERROR, /* not a dynamic ELF program we can list; why says what */
} omp_abi;
omp_abi omp_program_abi(const char *path, char *why, size_t why_len);

/* PROGRAM as execv needs it, into path: a name without '/' is looked up in
 * PATH as execvp does.  0 when it names an executable file; -1 otherwise,
 * with the name (or the path tried) in path. */
int omp_program_path(const char *name, char *path, size_t len);

/* Writes to `out`, for PROG starting `program` on `runtime` (a name for the
 * reader: "libmuster-omp"), what r says is missing, in a few lines. */
void omp_entries_explain(FILE *out, const char *prog, const char *program, const char *runtime,
                         const omp_entries_report *r);

#endif
