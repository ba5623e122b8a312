# Unit tests of libmuster-omp's locks, critical sections, tasks, host
# offload and cancellation (src/omp/lock.c, critical.c, task/, target.c,
# cancel.c).
#
# The mutex, lock and critical tests drive the entry points from plain
# pthreads, so they are built from those sources directly (no parallel
# regions needed).  The task and target tests are OpenMP programs: compiled
# with gcc -fopenmp but linked against libmuster-omp instead of libgomp
# (-fopenmp only at compile time, so libgomp is never linked in).

set(MUSTER_OMP_UNIT_DIR ${CMAKE_CURRENT_SOURCE_DIR})

# muster_omp_lock_unit_test(name source): a pthread test linked with the
# runtime as an archive (muster_omp_static).
function(muster_omp_lock_unit_test name)
  muster_add_test(${name} ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE muster_omp_static)
endfunction()

muster_omp_lock_unit_test(test_omp_lock ${MUSTER_OMP_UNIT_DIR}/test_omp_lock.c)
muster_omp_lock_unit_test(test_omp_critical ${MUSTER_OMP_UNIT_DIR}/test_omp_critical.c)

# muster_omp_lock_program_test(name source...): an OpenMP program (gcc -fopenmp
# at compile time only) linked against libmuster-omp; muster_static only
# supplies check.h's muster_error_detail.
function(muster_omp_lock_program_test name)
  add_executable(${name} ${ARGN})
  target_compile_options(${name} PRIVATE -fopenmp)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PRIVATE muster-omp muster_static)
  add_test(NAME ${name} COMMAND ${name})
  muster_set_test_defaults(${name})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=3")
endfunction()

muster_omp_lock_program_test(test_omp_critical_program ${MUSTER_OMP_UNIT_DIR}/test_omp_critical_program.c)
muster_omp_lock_program_test(test_omp_task ${MUSTER_OMP_UNIT_DIR}/test_omp_task.c)
muster_omp_lock_program_test(test_omp_target ${MUSTER_OMP_UNIT_DIR}/test_omp_target.c)
# The task scheduler: deferred tasks on several threads, every wait sees them
# done (test_omp_task_sched.c).
muster_omp_lock_program_test(test_omp_task_sched ${MUSTER_OMP_UNIT_DIR}/test_omp_task_sched.c)
# Again with priorities on: the trees' tasks go through the priority queue.
add_test(NAME test_omp_task_sched_priorities COMMAND test_omp_task_sched)
muster_set_test_defaults(test_omp_task_sched_priorities)
set_tests_properties(test_omp_task_sched_priorities PROPERTIES
  ENVIRONMENT "OMP_NUM_THREADS=3;OMP_MAX_TASK_PRIORITY=10")

# The checking build's invariants, broken on purpose (only where they are
# built in: -DMUSTER_CHECKING=ON).
if(MUSTER_CHECKING)
  muster_omp_lock_unit_test(test_invariants ${MUSTER_OMP_UNIT_DIR}/test_invariants.c)
endif()
