/* `muster compare`: a user's OpenMP program under libgomp, LLVM libomp and
 * libmuster-omp, interleaved, side by side: wall time, CPU time, context
 * switches, peak memory, exit status, and whether the outputs agree. */
#ifndef MUSTER_BENCH_COMPARE_H
#define MUSTER_BENCH_COMPARE_H

#include <stddef.h>

/* argv[0] is "compare". */
int compare_main(int argc, char **argv);

/* What draws --plot FILE (.png or .svg) from a `muster compare --json` file:
 * 0, or non-zero after a message.  The muster command installs its Python
 * reports' (python/muster_report); without one --plot is refused. */
typedef int (*compare_plotter)(const char *json_path, const char *out_path);
void compare_set_plotter(compare_plotter plotter);

/* Which OpenMP ABI an ELF program needs, from its dynamic section's
 * DT_NEEDED entries. */
typedef enum compare_abi {
    COMPARE_ABI_GOMP,   /* links libgomp: gcc -fopenmp (every runtime runs it) */
    COMPARE_ABI_KMP,    /* links libomp (or Intel's libiomp5): clang -fopenmp */
    COMPARE_ABI_NONE,   /* an ELF program that links neither */
    COMPARE_ABI_ERROR,  /* not an ELF file we can read; why says what */
} compare_abi;
compare_abi compare_program_abi(const char *path, char *why, size_t why_len);

/* The output agreement check is agreement.h's. */

#endif
