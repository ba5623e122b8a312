/* What makes a function one of libmuster-omp's entry points, for every
 * layer that defines one. */
#ifndef MUSTER_OMP_EXPORT_H
#define MUSTER_OMP_EXPORT_H

/* Exported with default visibility; everything else in the .so is hidden
 * (-fvisibility=hidden), so the program cannot bind to our internals. */
#define MUSTER_OMP_EXPORT __attribute__((visibility("default")))


#endif
