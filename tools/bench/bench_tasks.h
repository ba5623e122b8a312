/* `muster bench tasks`: task-parallel workloads (bench/omp/taskbench.c) on
 * libgomp, LLVM libomp and libmuster-omp, and the report of them. */
#ifndef MUSTER_TOOLS_BENCH_TASKS_H
#define MUSTER_TOOLS_BENCH_TASKS_H

int bench_tasks_main(int argc, char **argv);

#endif
