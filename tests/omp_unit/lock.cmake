# Unit tests of libmuster-omp's locks, critical sections, tasks, host
# offload and cancellation (src/omp/lock.c, critical.c, task.c, target.c,
# cancel.c).
#
# The mutex, lock and critical tests drive the entry points from plain
# pthreads, so they are built from those sources directly (no parallel
# regions needed).  The task and target tests are OpenMP programs: compiled
# with gcc -fopenmp but linked against libmuster-omp instead of libgomp
# (-fopenmp only at compile time, so libgomp is never linked in).

set(MUSTER_OMP_UNIT_DIR ${CMAKE_CURRENT_SOURCE_DIR})

# muster_omp_unit_test(name source...): a pthread test linked with the
# static library and the runtime sources it names.
function(muster_omp_unit_test name)
  muster_add_test(${name} ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
endfunction()

muster_omp_unit_test(test_omp_lock ${MUSTER_OMP_UNIT_DIR}/test_omp_lock.c
  ${PROJECT_SOURCE_DIR}/src/omp/lock.c)
muster_omp_unit_test(test_omp_critical ${MUSTER_OMP_UNIT_DIR}/test_omp_critical.c
  ${PROJECT_SOURCE_DIR}/src/omp/critical.c ${PROJECT_SOURCE_DIR}/src/omp/lock.c)
