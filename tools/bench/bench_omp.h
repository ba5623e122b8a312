#ifndef MUSTER_TOOLS_BENCH_OMP_H
#define MUSTER_TOOLS_BENCH_OMP_H

/* `muster bench omp`: argv[0] is "omp". */
int bench_omp_main(int argc, char **argv);

#endif
