/* GOMP_task (runs the task at once), taskwait, taskgroup, taskloop. */
#include "omp/internal.h"
