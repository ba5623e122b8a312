/* `muster compare`: a user's OpenMP program under libgomp, LLVM libomp and
 * libmuster-omp, interleaved, side by side: wall time, CPU time, context
 * switches, peak memory, exit status, and whether the outputs agree. */
#ifndef MUSTER_TOOLS_COMPARE_H
#define MUSTER_TOOLS_COMPARE_H

#include <stddef.h>

/* argv[0] is "compare". */
int compare_main(int argc, char **argv);

/* What draws --plot FILE (.png or .svg) from a `muster compare --json` file:
 * 0, or non-zero after a message.  The muster command installs its Python
 * reports' (python/muster_report); without one --plot is refused. */
typedef int (*compare_plotter)(const char *json_path, const char *out_path);
void compare_set_plotter(compare_plotter plotter);

/* The ABI a program needs is omp_entries.h's omp_program_abi. */

/* The output agreement check is agreement.h's. */

#endif
