# The fork/join core (pool.c, parallel.c): test_omp_pool is gcc -fopenmp code
# linked against libmuster-omp instead of libgomp; it runs under barrier
# algorithms that split episodes and ones that do not, and each wait policy.
add_executable(test_omp_pool test_omp_pool.c)
target_compile_options(test_omp_pool PRIVATE -fopenmp)
target_link_libraries(test_omp_pool PRIVATE muster-omp Threads::Threads)
if(CMAKE_CROSSCOMPILING)  # run under qemu-user, which cannot fork a threaded process
  target_compile_definitions(test_omp_pool PRIVATE MUSTER_TEST_NO_FORK=1)
endif()
foreach(config IN ITEMS auto tuned central-sense dissemination dynamic-fway passive active omp-active)
  add_test(NAME test_omp_pool/${config} COMMAND test_omp_pool)
  set(modifications ${MUSTER_TEST_CLEAN_ENV} OMP_NUM_THREADS=unset: OMP_WAIT_POLICY=unset:)
  if(config STREQUAL "passive" OR config STREQUAL "active")
    list(APPEND modifications MUSTER_WAIT_POLICY=set:${config})
  elseif(config STREQUAL "omp-active")
    list(APPEND modifications OMP_WAIT_POLICY=set:active)
  elseif(NOT config STREQUAL "auto")
    list(APPEND modifications MUSTER_BARRIER=set:${config})
  endif()
  set_tests_properties(test_omp_pool/${config} PROPERTIES TIMEOUT ${MUSTER_TEST_TIMEOUT}
    ENVIRONMENT_MODIFICATION "${modifications}")
endforeach()
