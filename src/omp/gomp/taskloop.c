/* GOMP_taskloop and GOMP_taskloop_ull: the iteration space split into
 * tasks as libgomp's taskloop.c splits it (grainsize, num_tasks, strict),
 * each task made by the task core (muster_omp_taskloop_task) with its
 * [start, end) in the first two fields of its copy of the argument block. */
#include <stdbool.h>
#include <stdint.h>

#include "omp/gomp/gomp.h"
#include "omp/internal.h"
#include "omp/task/task.h"

#define TYPE long
#define UTYPE unsigned long
#define TASKLOOP_NAME GOMP_taskloop
#define TYPE_IS_LONG 1
#include "omp/gomp/taskloop.inc"
#undef TYPE
#undef UTYPE
#undef TASKLOOP_NAME
#undef TYPE_IS_LONG

#define TYPE unsigned long long
#define UTYPE unsigned long long
#define TASKLOOP_NAME GOMP_taskloop_ull
#define TYPE_IS_LONG 0
#include "omp/gomp/taskloop.inc"
#undef TYPE
#undef UTYPE
#undef TASKLOOP_NAME
#undef TYPE_IS_LONG
