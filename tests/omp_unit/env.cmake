# libmuster-omp's environment, places and ICV functions (src/omp/env.c,
# affinity.c, api.c), tested on their own: each program is linked with those
# three files, libmuster and omp_self_stub.h (a stand-in for parallel.c's
# muster_omp_self), so it needs nothing else of the runtime.
#
#   test_omp_env       reads the environment and prints every setting; run
#                      below under many environments, output matched by regex
#   test_omp_affinity  OMP_PLACES syntax, abstract names, team places (pure)
#   test_omp_api       the omp_* ICV functions at their edges (as libgomp)
#
# Warnings are one stderr line: libmuster-omp: VAR='VALUE' <problem>; using <instead>

set(MUSTER_OMP_ENV_SOURCES
  ${PROJECT_SOURCE_DIR}/src/omp/env.c
  ${PROJECT_SOURCE_DIR}/src/omp/affinity.c
  ${PROJECT_SOURCE_DIR}/src/omp/api.c)

# Every variable these files read, cleared for each test (with libmuster's).
set(MUSTER_OMP_TEST_CLEAN_ENV ${MUSTER_TEST_CLEAN_ENV})
foreach(variable IN ITEMS OMP_NUM_THREADS OMP_SCHEDULE OMP_DYNAMIC OMP_PROC_BIND OMP_PLACES
        OMP_STACKSIZE GOMP_STACKSIZE OMP_MAX_ACTIVE_LEVELS OMP_NESTED OMP_THREAD_LIMIT OMP_DISPLAY_ENV
        OMP_DEFAULT_DEVICE OMP_MAX_TASK_PRIORITY OMP_NUM_TEAMS OMP_TEAMS_THREAD_LIMIT OMP_CANCELLATION
        OMP_DISPLAY_AFFINITY OMP_AFFINITY_FORMAT)
  list(APPEND MUSTER_OMP_TEST_CLEAN_ENV ${variable}=unset:)
endforeach()

function(muster_omp_env_executable name)
  muster_add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c ${MUSTER_OMP_ENV_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(${name} PRIVATE m)
endfunction()

# muster_omp_env_case(test program ENV var=value... PASS regex [FAIL regex] [ARGS arg...])
function(muster_omp_env_case test program)
  cmake_parse_arguments(PARSE_ARGV 2 T "" "PASS;FAIL" "ENV;ARGS")
  add_test(NAME ${test} COMMAND ${program} ${T_ARGS})
  muster_env_test_properties(${test} PASS "${T_PASS}.*${program}: ok" FAIL "${T_FAIL}"
                             CLEAN ${MUSTER_OMP_TEST_CLEAN_ENV} ENV ${T_ENV})
endfunction()

muster_omp_env_executable(test_omp_env)
muster_omp_env_executable(test_omp_affinity)
muster_omp_env_executable(test_omp_api)

# ---- test_omp_env: one case per form, good and bad ----
#
# Its line of settings, in order:
#   nthreads=L bind=L sched=K,C monotonic=B dynamic=B max_active_levels=N
#   thread_limit=N default_device=N stacksize=N places=P display=B,B num_teams=N
#   teams_thread_limit=N max_task_priority=N display_affinity=B affinity_format='F'
set(OK "stderr_lines=0\n")
set(WARNED "stderr_lines=1\n")
set(W "stderr\\| libmuster-omp: ")
function(env_ok name)
  muster_omp_env_case(test_omp_env/${name} test_omp_env ${ARGN})
endfunction()

env_ok(defaults PASS "^${OK}nthreads=[0-9]+ bind=false sched=static,0 monotonic=1 dynamic=0 max_active_levels=1 thread_limit=2147483647 default_device=0 stacksize=0 places= display=0,0 num_teams=0 teams_thread_limit=0 max_task_priority=0 display_affinity=0 affinity_format='level %L thread %i affinity %A'\navailable=[0-9]+ nthreads_is_available=1\n")

# OMP_NUM_THREADS, and the list's effect on max-active-levels (gcc 12's rule)
env_ok(num_threads_4 ENV OMP_NUM_THREADS=4 PASS "^${OK}nthreads=4 bind=false [^\n]* max_active_levels=1 ")
env_ok(num_threads_list ENV OMP_NUM_THREADS=4,2,1 PASS "^${OK}nthreads=4,2,1 bind=false [^\n]* max_active_levels=8 ")
env_ok(num_threads_spaces ENV "OMP_NUM_THREADS= 4 , 3 " PASS "^${OK}nthreads=4,3 ")
env_ok(num_threads_long ENV OMP_NUM_THREADS=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18
  PASS "^${W}OMP_NUM_THREADS='1,2,[0-9,]+18' has more nesting levels than libmuster-omp keeps; using the first 17\n${WARNED}nthreads=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17 ")
set(bad_num_threads 0 -1 abc 4, 4,,2 4,0 2x "" 99999999999 "4 2" +3)
set(i 0)
foreach(bad IN LISTS bad_num_threads)
  env_ok(num_threads_bad_${i} ENV "OMP_NUM_THREADS=${bad}"
    PASS "^${W}OMP_NUM_THREADS='[^\n]*' is not a list of whole numbers in \\[1, 2147483647\\]; using [0-9]+\n${WARNED}nthreads=[0-9]+ bind[^\n]*\navailable=[0-9]+ nthreads_is_available=1\n")
  math(EXPR i "${i} + 1")
endforeach()

# OMP_SCHEDULE
foreach(case IN ITEMS "static|static,0 monotonic=1" "dynamic,4|dynamic,4 monotonic=0" "guided|guided,1 monotonic=0"
        "auto|auto,0 monotonic=0" "monotonic:dynamic,2|dynamic,2 monotonic=1" "nonmonotonic:guided|guided,1 monotonic=0"
        " Monotonic : Guided , 7 |guided,7 monotonic=1" "nonmonotonic:static|static,0 monotonic=0"
        "dynamic,0|dynamic,1 monotonic=0" "STATIC,3|static,3 monotonic=1" "auto,5|auto,0 monotonic=0"
        "monotonic:static|static,0 monotonic=1")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 value)
  list(GET parts 1 expected)
  string(MAKE_C_IDENTIFIER "${value}" id)
  env_ok(schedule_${id} ENV "OMP_SCHEDULE=${value}" PASS "^${OK}nthreads=[0-9,]+ bind=false sched=${expected} ")
endforeach()
set(bad_schedules dynamc runtime dynamic, dynamic,x dynamic,-1 static,4x "monotonic dynamic" "" "dynamic 4"
    dynamic,99999999999 monotonic: :static)
set(i 0)
foreach(bad IN LISTS bad_schedules)
  env_ok(schedule_bad_${i} ENV "OMP_SCHEDULE=${bad}"
    PASS "^${W}OMP_SCHEDULE='[^\n]*' is not a schedule \\(\\[monotonic: or nonmonotonic:\\] static, dynamic, guided or auto[^\n]*; using static\n${WARNED}nthreads=[0-9]+ bind=false sched=static,0 monotonic=1 ")
  math(EXPR i "${i} + 1")
endforeach()

# Booleans: OMP_DYNAMIC (and OMP_NESTED, OMP_DISPLAY_AFFINITY below)
env_ok(dynamic_true ENV OMP_DYNAMIC=true PASS "^${OK}[^\n]* dynamic=1 ")
env_ok(dynamic_spaces_case ENV "OMP_DYNAMIC= TRUE " PASS "^${OK}[^\n]* dynamic=1 ")
env_ok(dynamic_false ENV OMP_DYNAMIC=false PASS "^${OK}[^\n]* dynamic=0 ")
foreach(bad IN ITEMS yes 1 truex "")
  string(MAKE_C_IDENTIFIER "bad_${bad}" id)
  env_ok(dynamic_${id} ENV "OMP_DYNAMIC=${bad}"
    PASS "^${W}OMP_DYNAMIC='${bad}' is not true or false; using false\n${WARNED}[^\n]* dynamic=0 ")
endforeach()

# OMP_PROC_BIND; binding without OMP_PLACES uses one place per hardware thread
foreach(case IN ITEMS "false|false" "true|true" "master|primary" "primary|primary" "close|close" "spread|spread"
        "spread,close|spread,close" " Spread , Close , master |spread,close,primary")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 value)
  list(GET parts 1 expected)
  string(MAKE_C_IDENTIFIER "${value}" id)
  if(value STREQUAL "false")
    set(places "places= ")
  else()
    set(places "places=\\{[0-9]+\\}")
  endif()
  env_ok(proc_bind_${id} ENV "OMP_PROC_BIND=${value}" PASS "^${OK}nthreads=[0-9]+ bind=${expected} [^\n]* ${places}")
endforeach()
env_ok(proc_bind_list_nests ENV OMP_PROC_BIND=spread,close PASS "^${OK}[^\n]* max_active_levels=8 ")
set(bad_binds true,close close,false sideways "" close, "close close" ",close" spread,true)
set(i 0)
foreach(bad IN LISTS bad_binds)
  env_ok(proc_bind_bad_${i} ENV "OMP_PROC_BIND=${bad}"
    PASS "^${W}OMP_PROC_BIND='[^\n]*' is not a binding [^\n]*; using false\n${WARNED}nthreads=[0-9]+ bind=false [^\n]* places= ")
  math(EXPR i "${i} + 1")
endforeach()

# OMP_PLACES: the abstract names match the topology (the program checks, given
# the name); places alone turn binding on (bind=true), as in libgomp
foreach(kind IN ITEMS threads cores sockets ll_caches numa_domains)
  env_ok(places_${kind} ENV OMP_PLACES=${kind} ARGS ${kind}
    PASS "^${OK}nthreads=[0-9]+ bind=true [^\n]* places=\\{[^\n]*\\} [^\n]*\n[^\n]*\nplaces match the topology's ${kind}")
endforeach()
env_ok(places_threads_1 ENV "OMP_PLACES=threads(1)" PASS "^${OK}[^\n]* places=\\{[0-9]+\\} ")
env_ok(places_cores_case ENV "OMP_PLACES= CORES " ARGS cores PASS "^${OK}[^\n]*\n[^\n]*\nplaces match the topology's cores")
env_ok(places_explicit ENV "OMP_PLACES={0}" PASS "^${OK}nthreads=[0-9]+ bind=true [^\n]* places=\\{0\\} ")
env_ok(places_explicit_close ENV "OMP_PLACES={0}" OMP_PROC_BIND=close PASS "^${OK}nthreads=[0-9]+ bind=close [^\n]* places=\\{0\\} ")
env_ok(places_with_bind_false ENV OMP_PLACES=cores OMP_PROC_BIND=false PASS "^${OK}nthreads=[0-9]+ bind=false [^\n]* places= ")
env_ok(places_bad ENV OMP_PLACES=bogus
  PASS "^${W}OMP_PLACES='bogus' is not a list of places such as \\{0,1\\},\\{2:2\\} or an abstract name \\(threads, cores, ll_caches, numa_domains, sockets\\); using no places\n${WARNED}nthreads=[0-9]+ bind=false [^\n]* places= ")
env_ok(places_bad_with_bind ENV "OMP_PLACES=cores(0)" OMP_PROC_BIND=close
  PASS "^${W}OMP_PLACES='cores\\(0\\)' has a count in parentheses [^\n]*; using one place per hardware thread\n${WARNED}nthreads=[0-9]+ bind=close [^\n]* places=\\{[0-9]+\\}")
env_ok(places_unusable_dropped ENV "OMP_PLACES={0},{4000}"
  PASS "^${W}OMP_PLACES='\\{0\\},\\{4000\\}' has 1 place with no CPU this process may run on; using the other 1\n${WARNED}nthreads=[0-9]+ bind=true [^\n]* places=\\{0\\} ")
env_ok(places_none_usable ENV "OMP_PLACES={4000}"
  PASS "^${W}OMP_PLACES='\\{4000\\}' has no place with a CPU this process may run on; using no places\n${WARNED}nthreads=[0-9]+ bind=false [^\n]* places= ")
env_ok(places_bad_interval ENV "OMP_PLACES={0}:0"
  PASS "^${W}OMP_PLACES='\\{0\\}:0' has an interval whose length is not a whole number >= 1; using no places\n${WARNED}")

# OMP_STACKSIZE (unit K by default) and GOMP_STACKSIZE
foreach(case IN ITEMS "2m|2097152" "12|16384|below" "16|16384" "100000b|100000" " 1 G |1073741824" "512K|524288")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 value)
  list(GET parts 1 expected)
  list(LENGTH parts n)
  string(MAKE_C_IDENTIFIER "${value}" id)
  if(n EQUAL 3)
    env_ok(stacksize_${id} ENV "OMP_STACKSIZE=${value}"
      PASS "^${W}OMP_STACKSIZE='${value}' is below the smallest stack a thread can have; using 16K\n${WARNED}[^\n]* stacksize=${expected} ")
  else()
    env_ok(stacksize_${id} ENV "OMP_STACKSIZE=${value}" PASS "^${OK}[^\n]* stacksize=${expected} ")
  endif()
endforeach()
env_ok(stacksize_gomp ENV GOMP_STACKSIZE=64 PASS "^${OK}[^\n]* stacksize=65536 ")
env_ok(stacksize_omp_beats_gomp ENV GOMP_STACKSIZE=64 OMP_STACKSIZE=32 PASS "^${OK}[^\n]* stacksize=32768 ")
set(bad_sizes 2x -1 "" 1.5M 99999999999999999999 "4 K B" 17179869184G)
set(i 0)
foreach(bad IN LISTS bad_sizes)
  env_ok(stacksize_bad_${i} ENV "OMP_STACKSIZE=${bad}"
    PASS "^${W}OMP_STACKSIZE='[^\n]*' is not a size \\(a whole number with an optional B, K, M or G suffix\\); using the system's default stack size\n${WARNED}[^\n]* stacksize=0 ")
  math(EXPR i "${i} + 1")
endforeach()

# OMP_MAX_ACTIVE_LEVELS and OMP_NESTED
env_ok(max_active_levels_3 ENV OMP_MAX_ACTIVE_LEVELS=3 PASS "^${OK}[^\n]* max_active_levels=3 ")
env_ok(max_active_levels_0 ENV OMP_MAX_ACTIVE_LEVELS=0 PASS "^${OK}[^\n]* max_active_levels=0 ")
env_ok(max_active_levels_clamped ENV OMP_MAX_ACTIVE_LEVELS=1000 PASS "^${OK}[^\n]* max_active_levels=8 ")
env_ok(max_active_levels_beats_list ENV OMP_MAX_ACTIVE_LEVELS=2 OMP_NUM_THREADS=2,2,2 PASS "^${OK}[^\n]* max_active_levels=2 ")
foreach(bad IN ITEMS -1 x "")
  string(MAKE_C_IDENTIFIER "bad_${bad}" id)
  env_ok(max_active_levels_${id} ENV "OMP_MAX_ACTIVE_LEVELS=${bad}"
    PASS "^${W}OMP_MAX_ACTIVE_LEVELS='${bad}' is not a whole number >= 0; using the default\n${WARNED}[^\n]* max_active_levels=1 ")
endforeach()
env_ok(nested_true ENV OMP_NESTED=true PASS "^${OK}[^\n]* max_active_levels=8 ")
env_ok(nested_false_beats_list ENV OMP_NESTED=false OMP_NUM_THREADS=2,2 PASS "^${OK}[^\n]* max_active_levels=1 ")
env_ok(nested_true_levels_win ENV OMP_NESTED=true OMP_MAX_ACTIVE_LEVELS=2 PASS "^${OK}[^\n]* max_active_levels=2 ")
env_ok(nested_bad ENV OMP_NESTED=yes
  PASS "^${W}OMP_NESTED='yes' is not true or false; using false\n${WARNED}[^\n]* max_active_levels=1 ")

# The other numbers
env_ok(thread_limit_8 ENV OMP_THREAD_LIMIT=8 PASS "^${OK}[^\n]* thread_limit=8 ")
env_ok(thread_limit_huge ENV OMP_THREAD_LIMIT=99999999999 PASS "^${OK}[^\n]* thread_limit=2147483647 ")
foreach(bad IN ITEMS 0 -2 abc)
  string(MAKE_C_IDENTIFIER "bad_${bad}" id)
  env_ok(thread_limit_${id} ENV "OMP_THREAD_LIMIT=${bad}"
    PASS "^${W}OMP_THREAD_LIMIT='${bad}' is not a whole number >= 1; using no limit\n${WARNED}[^\n]* thread_limit=2147483647 ")
endforeach()
env_ok(default_device_2 ENV OMP_DEFAULT_DEVICE=2 PASS "^${OK}[^\n]* default_device=2 ")
env_ok(default_device_bad ENV OMP_DEFAULT_DEVICE=-1
  PASS "^${W}OMP_DEFAULT_DEVICE='-1' is not a whole number in \\[0, 2147483647\\]; using 0\n${WARNED}[^\n]* default_device=0 ")
env_ok(teams ENV OMP_NUM_TEAMS=4 OMP_TEAMS_THREAD_LIMIT=3 OMP_MAX_TASK_PRIORITY=5
  PASS "^${OK}[^\n]* num_teams=4 teams_thread_limit=3 max_task_priority=5 ")
env_ok(teams_bad ENV OMP_NUM_TEAMS=0 PASS "^${W}OMP_NUM_TEAMS='0' is not a whole number [^\n]*\n${WARNED}[^\n]* num_teams=0 ")
env_ok(affinity ENV OMP_DISPLAY_AFFINITY=true "OMP_AFFINITY_FORMAT=x %n y"
  PASS "^${OK}[^\n]* display_affinity=1 affinity_format='x %n y'\n")

# Everything wrong at once: exactly one line per variable.
string(REPEAT "${W}[A-Z_]+='x' [^\n]*; using [^\n]*\n" 11 ELEVEN_WARNINGS)
env_ok(all_bad ENV OMP_NUM_THREADS=x OMP_SCHEDULE=x OMP_DYNAMIC=x OMP_PROC_BIND=x OMP_PLACES=x OMP_STACKSIZE=x
  OMP_MAX_ACTIVE_LEVELS=x OMP_NESTED=x OMP_THREAD_LIMIT=x OMP_DISPLAY_ENV=x OMP_DEFAULT_DEVICE=x
  PASS "^${ELEVEN_WARNINGS}stderr_lines=11\nnthreads=[0-9]+ bind=false sched=static,0 monotonic=1 dynamic=0 max_active_levels=1 thread_limit=2147483647 default_device=0 stacksize=0 places= display=0,0 ")

# OMP_DISPLAY_ENV: libgomp's block (gcc 12's lines and order) plus libmuster-omp's
set(D "stderr\\| ")
env_ok(display_env ENV OMP_DISPLAY_ENV=true OMP_NUM_THREADS=4,2 OMP_SCHEDULE=dynamic,3 OMP_PROC_BIND=spread,close "OMP_PLACES={0}"
  PASS "^${D}\n${D}OPENMP DISPLAY ENVIRONMENT BEGIN\n${D}  _OPENMP = '201511'\n${D}  OMP_DYNAMIC = 'FALSE'\n${D}  OMP_NESTED = 'TRUE'\n${D}  OMP_NUM_THREADS = '4,2'\n${D}  OMP_SCHEDULE = 'DYNAMIC,3'\n${D}  OMP_PROC_BIND = 'SPREAD,CLOSE'\n${D}  OMP_PLACES = '\\{0\\}'\n${D}  OMP_STACKSIZE = '0'\n${D}  OMP_WAIT_POLICY = 'PASSIVE'\n${D}  OMP_THREAD_LIMIT = '2147483647'\n${D}  OMP_MAX_ACTIVE_LEVELS = '8'\n${D}  OMP_NUM_TEAMS = '0'\n${D}  OMP_TEAMS_THREAD_LIMIT = '0'\n${D}  OMP_CANCELLATION = 'FALSE'\n${D}  OMP_DEFAULT_DEVICE = '0'\n${D}  OMP_MAX_TASK_PRIORITY = '0'\n${D}  OMP_DISPLAY_AFFINITY = 'FALSE'\n${D}  OMP_AFFINITY_FORMAT = 'level %L thread %i affinity %A'\n${D}  OMP_ALLOCATOR = 'omp_default_mem_alloc'\n${D}  OMP_TARGET_OFFLOAD = 'DEFAULT'\n${D}  MUSTER_RUNTIME = 'libmuster-omp'\n${D}  MUSTER_BARRIER = 'auto'\n${D}  MUSTER_WAIT_POLICY = 'hybrid'\n${D}OPENMP DISPLAY ENVIRONMENT END\nstderr_lines=26\n")
env_ok(display_env_defaults ENV OMP_DISPLAY_ENV=TRUE
  PASS "${D}  OMP_NESTED = 'FALSE'\n${D}  OMP_NUM_THREADS = '[0-9]+'\n${D}  OMP_SCHEDULE = 'STATIC'\n${D}  OMP_PROC_BIND = 'FALSE'\n${D}  OMP_PLACES = ''\n")
env_ok(display_env_verbose ENV OMP_DISPLAY_ENV=verbose MUSTER_SPIN_NS=5000
  PASS "${D}  MUSTER_WAIT_POLICY = 'hybrid'\n${D}  MUSTER_SPIN_NS = '5000'\n${D}  MUSTER_CPUS_AVAILABLE = '[0-9]+'\n${D}OPENMP DISPLAY ENVIRONMENT END\n[^\n]*\n[^\n]* display=1,1 ")
env_ok(display_env_muster ENV OMP_DISPLAY_ENV=true MUSTER_BARRIER=tournament MUSTER_WAIT_POLICY=active
  PASS "${D}  OMP_WAIT_POLICY = 'ACTIVE'\n.*${D}  MUSTER_BARRIER = 'tournament'\n${D}  MUSTER_WAIT_POLICY = 'active'\n")
env_ok(display_env_omp_wait ENV OMP_DISPLAY_ENV=true OMP_WAIT_POLICY=passive
  PASS "${D}  MUSTER_WAIT_POLICY = 'passive'\n")
env_ok(display_env_monotonic ENV OMP_DISPLAY_ENV=true OMP_SCHEDULE=monotonic:guided,4 PASS "${D}  OMP_SCHEDULE = 'MONOTONIC:GUIDED,4'\n")
env_ok(display_env_nonmonotonic_static ENV OMP_DISPLAY_ENV=true OMP_SCHEDULE=nonmonotonic:static,2
  PASS "${D}  OMP_SCHEDULE = 'NONMONOTONIC:STATIC,2'\n")
env_ok(display_env_stacksize_primary ENV OMP_DISPLAY_ENV=true OMP_STACKSIZE=1M OMP_PROC_BIND=primary
  PASS "${D}  OMP_PROC_BIND = 'MASTER'\n.*${D}  OMP_STACKSIZE = '1048576'\n")
env_ok(display_env_false ENV OMP_DISPLAY_ENV=false PASS "^${OK}[^\n]* display=0,0 ")
env_ok(display_env_bad ENV OMP_DISPLAY_ENV=yes
  PASS "^${W}OMP_DISPLAY_ENV='yes' is not true, false or verbose; using false\n${WARNED}")

# ---- test_omp_affinity: pure functions ----
muster_omp_env_case(test_omp_affinity test_omp_affinity PASS "")

# ---- test_omp_api: the ICV functions; the places API with places on ----
muster_omp_env_case(test_omp_api test_omp_api PASS "")
muster_omp_env_case(test_omp_api/places_threads test_omp_api ARGS places ENV OMP_PLACES=threads PASS "")
muster_omp_env_case(test_omp_api/places_cores test_omp_api ARGS places ENV OMP_PLACES=cores PASS "")
muster_omp_env_case(test_omp_api/places_default test_omp_api ARGS places ENV OMP_PROC_BIND=true PASS "")

# ---- test_omp_api_lib: the same through the real library ----
#
# Compiled with gcc -fopenmp but linked with libmuster-omp.so instead of
# libgomp (only the compile step gets -fopenmp), so the regions are forked by
# parallel.c and everything goes through the exported symbols.
add_executable(test_omp_api_lib ${CMAKE_CURRENT_LIST_DIR}/test_omp_api_lib.c)
target_compile_options(test_omp_api_lib PRIVATE -fopenmp)
target_link_libraries(test_omp_api_lib PRIVATE muster-omp)
muster_omp_env_case(test_omp_api_lib/icvs test_omp_api_lib ARGS icvs
  ENV OMP_NUM_THREADS=3,2 OMP_PROC_BIND=spread,close PASS "")
muster_omp_env_case(test_omp_api_lib/places test_omp_api_lib ARGS places
  ENV OMP_PLACES=threads OMP_PROC_BIND=spread PASS "")
