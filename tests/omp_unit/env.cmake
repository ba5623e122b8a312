# libmuster-omp's environment, places and ICV functions (src/omp/env.c,
# affinity.c, api.c), tested from outside: each program links the whole
# runtime (muster_omp_static), which reads the environment when it loads.
#
#   test_omp_env       what that read makes of the environment and writes on
#                      stderr, under each case of its own table
#   test_omp_affinity  OMP_PLACES syntax, abstract names, team places (pure)
#   test_omp_api       the omp_* ICV functions at their edges (as libgomp)
#
# Warnings are one stderr line: libmuster-omp: VAR='VALUE' <problem>; using <instead>

# Every variable these files read, cleared for each test (with libmuster's).
set(MUSTER_OMP_TEST_CLEAN_ENV ${MUSTER_TEST_CLEAN_ENV})
foreach(variable IN ITEMS OMP_NUM_THREADS OMP_SCHEDULE OMP_DYNAMIC OMP_PROC_BIND OMP_PLACES
        OMP_STACKSIZE GOMP_STACKSIZE OMP_MAX_ACTIVE_LEVELS OMP_NESTED OMP_THREAD_LIMIT OMP_DISPLAY_ENV
        OMP_DEFAULT_DEVICE OMP_MAX_TASK_PRIORITY OMP_NUM_TEAMS OMP_TEAMS_THREAD_LIMIT OMP_CANCELLATION
        OMP_DISPLAY_AFFINITY OMP_AFFINITY_FORMAT)
  list(APPEND MUSTER_OMP_TEST_CLEAN_ENV ${variable}=unset:)
endforeach()

function(muster_omp_env_executable name)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(${name} PRIVATE muster_omp_static Threads::Threads m)
endfunction()

# muster_omp_env_case(test program [ENV var=value...] [ARGS arg...]): the)
# program under a clean environment plus the settings; it checks itself and
# exits non-zero on a failed check.
function(muster_omp_env_case test program)
  cmake_parse_arguments(PARSE_ARGV 2 T "" "" "ENV;ARGS")
  add_test(NAME ${test} COMMAND ${program} ${T_ARGS})
  set(modifications ${MUSTER_OMP_TEST_CLEAN_ENV})
  foreach(assignment IN LISTS T_ENV)
    string(REGEX REPLACE "=.*" "" variable "${assignment}")
    string(REGEX REPLACE "^[^=]*=" "" value "${assignment}")
    list(APPEND modifications "${variable}=set:${value}")
  endforeach()
  set_tests_properties(${test} PROPERTIES TIMEOUT ${MUSTER_TEST_TIMEOUT} ENVIRONMENT_MODIFICATION "${modifications}")
endfunction()

muster_omp_env_executable(test_omp_env)
muster_omp_env_executable(test_omp_affinity)
muster_omp_env_executable(test_omp_api)

# ---- test_omp_env: one case per form, good and bad ----
#
# The cases (variables, expected warnings, settings and displayed lines) are
# a table in test_omp_env.c; it runs itself as a child per case.  The
# command after --driver starts the child: the emulator's in a cross build.
add_test(NAME test_omp_env COMMAND test_omp_env --driver ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:test_omp_env>)
muster_set_test_defaults(test_omp_env)

# ---- test_omp_affinity: pure functions ----
muster_omp_env_case(test_omp_affinity test_omp_affinity)

# ---- test_omp_api: the ICV functions; the places API with places on ----
muster_omp_env_case(test_omp_api test_omp_api)
muster_omp_env_case(test_omp_api/places_threads test_omp_api ARGS places ENV OMP_PLACES=threads)
muster_omp_env_case(test_omp_api/places_cores test_omp_api ARGS places ENV OMP_PLACES=cores)
muster_omp_env_case(test_omp_api/places_default test_omp_api ARGS places ENV OMP_PROC_BIND=true)

# ---- test_omp_api_lib: the same through the real library ----
#
# Compiled with gcc -fopenmp but linked with libmuster-omp.so instead of
# libgomp (only the compile step gets -fopenmp), so the regions are forked by
# parallel.c and everything goes through the exported symbols.
add_executable(test_omp_api_lib ${CMAKE_CURRENT_LIST_DIR}/test_omp_api_lib.c)
target_compile_options(test_omp_api_lib PRIVATE -fopenmp)
target_link_libraries(test_omp_api_lib PRIVATE muster-omp)
muster_omp_env_case(test_omp_api_lib/icvs test_omp_api_lib ARGS icvs
  ENV OMP_NUM_THREADS=3,2 OMP_PROC_BIND=spread,close)
muster_omp_env_case(test_omp_api_lib/places test_omp_api_lib ARGS places
  ENV OMP_PLACES=threads OMP_PROC_BIND=spread)

# ---- test_omp_bound_team: a bound team's scheduler counts its places' CPUs ----
add_executable(test_omp_bound_team ${CMAKE_CURRENT_LIST_DIR}/test_omp_bound_team.c)
target_compile_options(test_omp_bound_team PRIVATE -fopenmp)
target_include_directories(test_omp_bound_team PRIVATE ${PROJECT_SOURCE_DIR}/tests ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_omp_bound_team PRIVATE muster_omp_static Threads::Threads m)
muster_omp_env_case(test_omp_bound_team/bound test_omp_bound_team ARGS bound
  ENV "OMP_PLACES={0}" OMP_PROC_BIND=true)
muster_omp_env_case(test_omp_bound_team/unbound test_omp_bound_team ARGS unbound
  ENV "OMP_PLACES={0}" OMP_PROC_BIND=false)
