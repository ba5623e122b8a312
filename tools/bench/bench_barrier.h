#ifndef MUSTER_TOOLS_BENCH_BARRIER_H
#define MUSTER_TOOLS_BENCH_BARRIER_H

/* `muster bench barrier`: argv[0] is "barrier". */
int bench_barrier_main(int argc, char **argv);

#endif
