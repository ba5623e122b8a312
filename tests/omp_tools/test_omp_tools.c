/* `muster run`, `muster bench omp|tasks`, syncbench and taskbench from the
 * outside: the cases are the table below.  Each runs a command (stderr
 * merged into stdout, in the order written) under a clean environment plus
 * the case's settings, and checks its exit status and that the case's line
 * patterns (env_glob: '*' any run, '#' digits, '~' a number above 0) each
 * match a whole line, in order; no line may match a `never` pattern.  They
 * test behaviour, never speed: the benchmark runs are tiny and only their
 * shape is checked.
 *
 *   test_omp_tools GROUP NAME=PATH...
 *
 * GROUP: cli (command lines only: every build), programs (cases that run
 * OpenMP programs), serial (those that run benchmarks: alone, so that two
 * do not make each other time out on a small machine).  NAME=PATH gives the
 * files the cases name as @NAME in their words, settings and patterns
 * (muster, syncbench, taskbench, whoami, broken, ...); a case that names one
 * not given is skipped, and says so (a build without clang has no
 * whoami_clang). */
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "env_driver.h"
#include "platform/cpus.h"

/* The table leaves a case's trailing fields out when it has none of them
 * (no forbidden lines, no count, no setup). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

enum group { CLI, PROGRAMS, SERIAL };

typedef struct tool_case {
    const char *name;
    enum group group;
    const char *settings[4]; /* NAME=VALUE */
    const char *words[16];   /* the command */
    int exit_status;         /* a signal N counts as 128 + N, as a shell says */
    const char *lines[20];   /* patterns, each a whole line, in this order */
    const char *never[2];    /* patterns no line may match */
    int count;               /* > 0: exactly this many lines start with count_prefix */
    const char *count_prefix;
    void (*setup)(void);     /* run before the command */
    const char *requires;    /* a file the case needs without naming it: whoami_clang, for a clang build */
} tool_case;

static void make_private_shim_dir(void);

/* ---- the cases ---- */

#define RUN_WHOAMI "@muster", "run"
#define TINY "--threads", "2", "--reps", "2", "--target-ms", "0.2", "--constructs", "barrier,parallel-for", "--compilers", "gcc"
#define TASK_TINY "--threads", "1,3", "--reps", "2", "--scale", "0.01", "--workloads", "fib,uts", "--compilers", "gcc"
#define TASK_OK " status=ok ms=* csw=# maxrss_kb=# tasks=~ check=*"
#define CONSTRUCT_OK(name) "construct=" name " threads=3 status=ok inner=# samples=2 executions=# mean_us=* median_us=* csw_per_op=*"

/* taskbench's workload w: right on libgomp (the workload itself), on
 * libmuster-omp at team sizes that are not powers of two, one above the
 * CPUs; a runtime that drops tasks gets a wrong answer, an error. */
#define WORKLOAD_CASES(w)                                                                                    \
    {"taskbench_" w, PROGRAMS, {0}, {"@taskbench", "--workload", w, "--threads", "3", "--scale", "0.01"}, 0,  \
     {"* taskbench runtime=*libgomp* threads=3 workload=" w " scale=0.01 params=*",                           \
      "workload=" w " threads=3" TASK_OK}},                                                                  \
    {"taskbench_muster_" w "_3", PROGRAMS, {0},                                                              \
     {"@muster", "run", "--threads", "3", "--", "@taskbench", "--workload", w, "--scale", "0.02"}, 0,         \
     {"* taskbench runtime=*libmuster-omp* threads=3 workload=" w " *", "workload=" w " threads=3" TASK_OK}}, \
    {"taskbench_muster_" w "_5", PROGRAMS, {0},                                                              \
     {"@muster", "run", "--threads", "5", "--", "@taskbench", "--workload", w, "--scale", "0.02"}, 0,         \
     {"* taskbench runtime=*libmuster-omp* threads=5 workload=" w " *", "workload=" w " threads=5" TASK_OK}}, \
    {"taskbench_refuses_dropped_tasks_" w, PROGRAMS, {"LD_PRELOAD=@broken", "BROKEN_GOMP=task"},              \
     {"@taskbench", "--workload", w, "--threads", "3", "--scale", "0.01"}, 1,                                \
     {"workload=" w " threads=3 status=error message=*"}}

/* syncbench refuses a runtime whose construct c is wrong (the shim's mode
 * m: c, or late-c for exclusion whose first entries come late). */
#define BROKEN_CONSTRUCT_MODE(m, c, C)                                                                       \
    {"syncbench_refuses_broken_" m, PROGRAMS, {"LD_PRELOAD=@broken", "BROKEN_GOMP=" m},                       \
     {"@syncbench", "--threads", "2", "--samples", "1", "--target-ms", "0.2", "--constructs", C ",atomic"}, 1, \
     {"construct=" C " threads=2 status=error message=" C ": *"}, {"construct=" C " threads=2 status=ok*"}}
#define BROKEN_CONSTRUCT(c, C) BROKEN_CONSTRUCT_MODE(c, c, C)

/* task_order_prog's lines when its parts hold (each part's line when it
 * fails differs). */
#define TASK_ORDER_BUSY_AND_HUNGRY                                                                                     \
    "everyone busy: 0 of # tasks out of creation order, 0 ran on another member",                                      \
        "others hungry: ~ of 64 slow tasks ran on another member"
#define TASK_ORDER_DELAYED                                                                                             \
    "top of a recursion: the two children ran side by side",                              \
        "long tasks in a loop: the last two ran side by side (the earlier ones ran on member 0)"
#define TASK_ORDER_DEPENDENCES "dependence tasks ready when made: the two ran side by side"
#define TASK_ORDER_ALL_HOLD TASK_ORDER_BUSY_AND_HUNGRY, TASK_ORDER_DELAYED, TASK_ORDER_DEPENDENCES

/* solo_order_prog's lines on libgomp (a lone thread's tasks queued, run
 * newest first) and on libomp (run at once, in creation order). */
#define SOLO_ORDER_LIBGOMP                                                                                             \
    "loop: 7 6 5 4 3 2 1 0", "recursion: r r1 r11 r111 r110 r10 r101 r100 r0 r01 r011 r010 r00 r001 r000",              \
        "nested: r r1 r11 r111 r110 r10 r101 r100 r0 r01 r011 r010 r00 r001 r000", "undeferred: b d c c0 c1 a"
#define SOLO_ORDER_LIBOMP                                                                                              \
    "loop: 0 1 2 3 4 5 6 7", "recursion: r r0 r00 r000 r001 r01 r010 r011 r1 r10 r100 r101 r11 r110 r111",              \
        "nested: r r0 r00 r000 r001 r01 r010 r011 r1 r10 r100 r101 r11 r110 r111", "undeferred: a b c c0 c1 d"

static const tool_case cases[] = {
    /* ---- muster run: the command line ---- */
    {"run_help", CLI, {0}, {"@muster", "run", "--help"}, 0,
     {"usage: muster run *--barrier ALG*", "*tournament*", "*--wait POLICY*"}},
    {"run_threads_zero", CLI, {0}, {RUN_WHOAMI, "--threads", "0", "--", "@whoami"}, 2,
     {"*--threads: '0' is not a whole number from 1 to 4096"}},
    {"run_threads_text", CLI, {0}, {RUN_WHOAMI, "--threads", "many", "--", "@whoami"}, 2,
     {"*--threads: 'many' is not a whole number*"}},
    {"run_threads_missing", CLI, {0}, {"@muster", "run", "--threads"}, 2, {"*--threads needs a value"}},
    {"run_bad_barrier", CLI, {0}, {RUN_WHOAMI, "--barrier", "bogus", "--", "@whoami"}, 2,
     {"*--barrier: unknown algorithm 'bogus' (one of auto, central-blocking, *tournament*tuned)"}},
    {"run_bad_policy", CLI, {0}, {RUN_WHOAMI, "--wait", "sometimes", "--", "@whoami"}, 2,
     {"*--wait: unknown policy 'sometimes' (one of active, passive, hybrid)"}},
    {"run_policy_default_refused", CLI, {0}, {RUN_WHOAMI, "--wait", "default", "--", "@whoami"}, 2,
     {"*--wait: unknown policy 'default' *"}},
    {"run_unknown_option", CLI, {0}, {RUN_WHOAMI, "--fast", "--", "@whoami"}, 2, {"*unknown option '--fast'*"}},
    {"run_no_program", CLI, {0}, {RUN_WHOAMI, "--threads", "2"}, 2, {"*no program to run*"}},
    {"run_nothing_after_dashes", CLI, {0}, {RUN_WHOAMI, "--threads", "2", "--"}, 2, {"*no program after '--'*"}},
    {"run_missing_dashes", CLI, {0}, {RUN_WHOAMI, "--threads", "2", "@whoami"}, 2,
     {"*put '--' before the program*"}},
    {"run_program_not_found", CLI, {0}, {RUN_WHOAMI, "--", "/nonexistent/prog"}, 127,
     {"muster run: cannot run /nonexistent/prog: No such file or directory"}},
    {"run_library_missing", CLI, {"MUSTER_OMP_LIBRARY=/nonexistent/libmuster-omp.so"},
     {RUN_WHOAMI, "--", "@whoami"}, 1,
     {"*libmuster-omp.so not found (looked at MUSTER_OMP_LIBRARY=/nonexistent/libmuster-omp.so)*MUSTER_OMP_LIBRARY"}},

    /* ---- syncbench and taskbench: the command line ---- */
    {"syncbench_bad_construct", CLI, {0}, {"@syncbench", "--constructs", "barrier,fork"}, 2,
     {"syncbench: --constructs: unknown construct 'fork'*"}},
    {"syncbench_bad_threads", CLI, {0}, {"@syncbench", "--threads", "0"}, 2, {"syncbench: --threads: '0' is not*"}},
    {"taskbench_help", CLI, {0}, {"@taskbench", "--help"}, 0,
     {"usage: taskbench --workload NAME*", "*fib, fib-nocut, nqueens*", "*--scale S*", "*--json*"}},
    {"taskbench_no_workload", CLI, {0}, {"@taskbench"}, 2, {"taskbench: --workload is required*"}},
    {"taskbench_bad_workload", CLI, {0}, {"@taskbench", "--workload", "fibonacci"}, 2,
     {"taskbench: --workload: unknown workload 'fibonacci'*"}},
    {"taskbench_bad_scale", CLI, {0}, {"@taskbench", "--workload", "fib", "--scale", "1000"}, 2,
     {"taskbench: --scale: '1000' is not a number above 0.001*"}},

    /* ---- muster bench tasks and bench omp: the command line ---- */
    {"bench_tasks_help", CLI, {0}, {"@muster", "bench", "tasks", "--help"}, 0,
     {"usage: muster bench tasks *", "*knapsack*", "*--threads LIST*", "*--workloads LIST*", "*--scale S*",
      "*--json*"}},
    {"bench_tasks_bad_workload", CLI, {0}, {"@muster", "bench", "tasks", "--workloads", "fib,lu"}, 2,
     {"muster bench tasks: --workloads: unknown workload 'lu'*"}},
    {"bench_tasks_bad_runtime", CLI, {0}, {"@muster", "bench", "tasks", "--runtimes", "icc"}, 2,
     {"muster bench tasks: --runtimes: unknown runtime 'icc'*"}},
    {"bench_tasks_bad_threads", CLI, {0}, {"@muster", "bench", "tasks", "--threads", "1,0"}, 2,
     {"muster bench tasks: --threads: '0' is not*"}},
    {"bench_tasks_bad_scale", CLI, {0}, {"@muster", "bench", "tasks", "--scale", "0"}, 2,
     {"muster bench tasks: --scale: '0' is not a number above 0.001*"}},
    {"bench_tasks_unknown_compiler", CLI, {0}, {"@muster", "bench", "tasks", "--compilers", "xlc"}, 2,
     {"*--compilers: unknown compiler 'xlc' (gcc, clang)"}},
    {"bench_tasks_no_taskbench", CLI, {"MUSTER_TASKBENCH=/nonexistent"},
     {"@muster", "bench", "tasks", "--threads", "2", "--workloads", "fib"}, 1,
     {"*taskbench not found (looked at MUSTER_TASKBENCH=/nonexistent)*"}},
    {"bench_help", CLI, {0}, {"@muster", "bench", "omp", "--help"}, 0,
     {"usage: muster bench omp *", "*--threads LIST*", "*--constructs LIST*", "*--runtimes LIST*", "*--json*"}},
    {"bench_bad_threads", CLI, {0}, {"@muster", "bench", "omp", "--threads", "2,0"}, 2,
     {"muster bench omp: --threads: '0' is not*"}},
    {"bench_empty_item", CLI, {0}, {"@muster", "bench", "omp", "--threads", "2,,4"}, 2,
     {"muster bench omp: --threads: empty item in '2,,4'"}},
    {"bench_bad_construct", CLI, {0}, {"@muster", "bench", "omp", "--constructs", "barrier,fork"}, 2,
     {"*unknown construct 'fork'*"}},
    {"bench_bad_runtime", CLI, {0}, {"@muster", "bench", "omp", "--runtimes", "libgomp,icc"}, 2,
     {"*unknown runtime 'icc' (libgomp, libomp, muster)"}},
    {"bench_bad_reps", CLI, {0}, {"@muster", "bench", "omp", "--reps", "0"}, 2, {"*--reps: '0' is not*"}},
    {"bench_bad_target", CLI, {0}, {"@muster", "bench", "omp", "--target-ms", "-1"}, 2,
     {"*--target-ms: '-1' is not a number above 0*"}},
    {"bench_unexpected_argument", CLI, {0}, {"@muster", "bench", "omp", "barrier"}, 2,
     {"*unexpected argument 'barrier'*"}},
    {"bench_unknown_compiler", CLI, {0}, {"@muster", "bench", "omp", "--compilers", "icc"}, 2,
     {"*--compilers: unknown compiler 'icc' (gcc, clang)"}},
    {"bench_no_syncbench", CLI, {"MUSTER_SYNCBENCH=/nonexistent"},
     {"@muster", "bench", "omp", "--threads", "2", "--constructs", "barrier"}, 1,
     {"*syncbench not found (looked at MUSTER_SYNCBENCH=/nonexistent)*"}},
    {"bench_nothing_found", CLI, {"MUSTER_LIBOMP=/nonexistent/libomp.so.5"},
     {"@muster", "bench", "omp", "--runtimes", "libomp"}, 1,
     {"*libomp.so.5 not found*", "*none of the runtimes asked for was found"}},

    /* ---- muster run: what the program sees ---- */
    /* The variables, prepended to what was there; libmuster-omp answers; it
     * is the only OpenMP runtime mapped (the omp-shim link keeps libgomp
     * out); the program's arguments and exit status pass through. */
    {"run_environment", PROGRAMS, {"LD_PRELOAD=libm.so.6", "LD_LIBRARY_PATH=/nonexistent/dir"},
     {RUN_WHOAMI, "--threads", "3", "--barrier", "tournament", "--wait", "passive", "--", "@whoami", "7",
      "two words"},
     7,
     {"LD_PRELOAD=*libmuster-omp*:libm.so.6", "LD_LIBRARY_PATH=*omp-shim:/nonexistent/dir", "OMP_NUM_THREADS=3",
      "MUSTER_BARRIER=tournament", "MUSTER_WAIT_POLICY=passive", "answers GOMP_parallel: *libmuster-omp*",
      "answers omp_get_num_threads: *libmuster-omp*", "mapped: *libmuster-omp*", "team=3", "arg: two words"},
     {"mapped: *libgomp*"}},
    /* A clang-built program: libmuster-omp answers LLVM's entry points, and
     * libomp.so.5, its DT_NEEDED runtime, is never mapped. */
    {"run_clang_program", PROGRAMS, {0}, {RUN_WHOAMI, "--threads", "3", "--", "@whoami_clang", "5"}, 5,
     {"LD_LIBRARY_PATH=*omp-shim", "OMP_NUM_THREADS=3", "answers __kmpc_fork_call: *libmuster-omp*",
      "answers omp_get_num_threads: *libmuster-omp*", "mapped: *libmuster-omp*", "team=3"},
     {"mapped: *libomp*", "mapped: *libgomp*"}},
    /* An entry point libmuster-omp lacks: muster run names it, and the
     * program that needs it, before the start, and main never runs; with
     * --unchecked (lazy binding) it runs as far as it never calls it; on
     * libomp itself the same program runs. */
    {"run_missing_entry_named", PROGRAMS, {0}, {RUN_WHOAMI, "--", "@missing_entry"}, 127,
     {"muster run: *missing_entry_prog needs 1 OpenMP entry point that libmuster-omp does not define:",
      "  *missing_entry_prog:", "    __kmpc_invoke_task_func@VERSION", "muster run: not started*"},
     {"main ran", "*symbol lookup error*"}},
    {"run_static_refused", PROGRAMS, {0}, {RUN_WHOAMI, "--", "@static"}, 126,
     {"muster run: *static_prog is statically linked: no OpenMP runtime can be put under it",
      "muster run: not started; run it directly"}, {"main ran"}},
    {"run_missing_entry_unchecked", PROGRAMS, {0}, {RUN_WHOAMI, "--unchecked", "--", "@missing_entry"}, 0,
     {"main ran"}, {"*needs 1 OpenMP entry point*"}},
    {"missing_entry_runs_on_libomp", PROGRAMS, {0}, {"@missing_entry"}, 0, {"main ran"}},
    /* muster compare leaves out a runtime that lacks an entry point the
     * program needs, naming it, and compares the others. */
    {"compare_leaves_out_missing_entry", PROGRAMS, {0},
     {"@muster", "compare", "--rounds", "1", "--threads", "1", "--", "@missing_entry"}, 0,
     {"muster compare: *missing_entry_prog needs 1 OpenMP entry point that *libmuster-omp* does not define:",
      "    __kmpc_invoke_task_func@VERSION", "muster compare: muster left out", "  libomp  *all exit 0"},
     {"  muster  *"}},
    /* Without muster run, the clang program maps LLVM's libomp (the cases
     * above could not pass by accident). */
    {"clang_program_plain", PROGRAMS, {"OMP_NUM_THREADS=2"}, {"@whoami_clang"}, 0,
     {"answers __kmpc_fork_call: *libomp.so.5", "mapped: *libomp.so.5", "team=2"}},
    /* Plain LD_PRELOAD with binding: the program's own libgomp binds the
     * initial thread in its constructor, before libmuster-omp's; when that
     * mask was the whole machine, libmuster-omp gives it back and teams
     * fill the machine, as under muster run (@cpus: the machine's CPUs,
     * known only when this process may use all of them). */
    {"preload_with_binding", PROGRAMS, {"LD_PRELOAD=@omp_lib", "OMP_PROC_BIND=true", "OMP_PLACES=cores"},
     {"@whoami"}, 0,
     {"answers GOMP_parallel: *libmuster-omp*", "mapped: *libgomp*", "team=@cpus"}, {"*bound the initial thread*"}},
    /* The same through a shell that muster run starts (a wrapper script):
     * the shell loads libmuster-omp too, and must not bind itself and pass
     * a one-CPU mask to the program. */
    {"run_binding_through_a_shell", PROGRAMS, {"OMP_PROC_BIND=true"},
     {RUN_WHOAMI, "--", "sh", "-c", "exec \"$0\"", "@whoami"}, 0, {"team=@cpus"}},
    /* ... and does not print the environment (OMP_DISPLAY_ENV) or warn
     * about it twice: once for the program, nothing for the shell. */
    {"run_display_env_once_through_a_shell", PROGRAMS, {"OMP_DISPLAY_ENV=true"},
     {RUN_WHOAMI, "--", "sh", "-c", "exec \"$0\"", "@whoami"}, 0, {"OPENMP DISPLAY ENVIRONMENT BEGIN", "team=#"}, {0},
     1, "OPENMP DISPLAY ENVIRONMENT BEGIN"},
    {"run_env_warning_once_through_a_shell", PROGRAMS, {"OMP_SCHEDULE=sometimes"},
     {RUN_WHOAMI, "--", "sh", "-c", "exec \"$0\"", "@whoami"}, 0,
     {"libmuster-omp: OMP_SCHEDULE='sometimes' is not a schedule *; using static", "team=#"}, {0}, 1,
     "libmuster-omp: OMP_SCHEDULE="},
    /* A process that names no OpenMP runtime but dlopen()s one (Python
     * loading an extension) reads the environment at its first call. */
    {"run_dlopen_reads_environment_at_first_call", PROGRAMS, {"OMP_CANCELLATION=true", "OMP_DISPLAY_ENV=true"},
     {RUN_WHOAMI, "--", "@python", "-c",
      "import ctypes; g = ctypes.CDLL('libgomp.so.1'); print('cancellation=%d' % g.omp_get_cancellation())"},
     0, {"OPENMP DISPLAY ENVIRONMENT BEGIN", "*OMP_CANCELLATION = 'TRUE'", "cancellation=1"}, {0}, 1,
     "OPENMP DISPLAY ENVIRONMENT BEGIN"},
    {"run_leaves_unset_alone", PROGRAMS, {0}, {RUN_WHOAMI, "--", "@whoami"}, 0,
     {"OMP_NUM_THREADS=(unset)", "MUSTER_BARRIER=(unset)", "MUSTER_WAIT_POLICY=(unset)"}},
    {"run_keeps_given_variables", PROGRAMS, {"OMP_NUM_THREADS=2", "MUSTER_BARRIER=hyper"},
     {RUN_WHOAMI, "--", "@whoami"}, 0, {"OMP_NUM_THREADS=2", "MUSTER_BARRIER=hyper", "team=2"}},
    /* A library named by MUSTER_OMP_LIBRARY with no omp-shim beside it:
     * muster run makes a private link directory (under XDG_RUNTIME_DIR) and
     * still keeps libgomp out. */
    {"run_private_shim", PROGRAMS, {"MUSTER_OMP_LIBRARY=@scratch/libmuster-omp.so", "XDG_RUNTIME_DIR=@scratch/runtime"},
     {RUN_WHOAMI, "--threads", "2", "--", "@whoami"}, 0,
     {"LD_PRELOAD=@scratch/libmuster-omp.so", "LD_LIBRARY_PATH=@scratch/runtime/muster-omp-shims-#/*-*",
      "answers GOMP_parallel: @scratch/libmuster-omp.so", "team=2"},
     {"mapped: *libgomp*"}, .setup = make_private_shim_dir},

    /* ---- syncbench: broken runtimes are refused ---- */
    BROKEN_CONSTRUCT("barrier", "BARRIER"),
    BROKEN_CONSTRUCT("critical", "CRITICAL"),
    BROKEN_CONSTRUCT("lock", "LOCK"),
    BROKEN_CONSTRUCT_MODE("late-critical", "critical", "CRITICAL"),
    BROKEN_CONSTRUCT_MODE("late-lock", "lock", "LOCK"),
    /* ORDERED's schedule: a block per thread is not schedule(static, 1). */
    BROKEN_CONSTRUCT("ordered", "ORDERED"),
    /* Tasks dropped, or a taskwait that does not wait: every task construct
     * that relies on it is an error, never a number. */
    {"syncbench_refuses_dropped_tasks", PROGRAMS, {"LD_PRELOAD=@broken", "BROKEN_GOMP=task"},
     {"@syncbench", "--threads", "2", "--samples", "1", "--target-ms", "0.2", "--constructs",
      "parallel-task,nested-master-task"},
     1,
     {"construct=PARALLEL_TASK threads=2 status=error message=PARALLEL_TASK: 0 task bodies ran, # tasks were made",
      "construct=NESTED_MASTER_TASK threads=2 status=error message=NESTED_MASTER_TASK: *"}},
    {"syncbench_refuses_broken_taskwait", PROGRAMS, {"LD_PRELOAD=@broken", "BROKEN_GOMP=taskwait"},
     {"@syncbench", "--threads", "2", "--samples", "1", "--target-ms", "0.2", "--constructs", "task-wait"}, 1,
     {"construct=TASK_WAIT threads=2 status=error message=TASK_WAIT: ~ waits returned before the tasks they wait "
      "for had run"}},
    {"syncbench_refuses_small_team", PROGRAMS, {"LD_PRELOAD=@broken", "BROKEN_GOMP=team"},
     {"@syncbench", "--threads", "2", "--samples", "1", "--target-ms", "0.2", "--constructs", "parallel"}, 1,
     {"construct=PARALLEL threads=2 status=error message=the team has 1 threads, not the 2 asked for"}},

    /* ---- taskbench: every workload checks its answer ---- */
    WORKLOAD_CASES("fib"),
    WORKLOAD_CASES("fib-nocut"),
    WORKLOAD_CASES("nqueens"),
    WORKLOAD_CASES("mergesort"),
    WORKLOAD_CASES("sparselu"),
    WORKLOAD_CASES("uts"),
    WORKLOAD_CASES("knapsack"),
    WORKLOAD_CASES("knapsack-last"),
    WORKLOAD_CASES("depfan"),

    /* A detach event fulfilled twice stops the program with a message, in a
     * team with a scheduler (a task record) and in a team of one (an event
     * run at once). */
    {"double_fulfil_1", PROGRAMS, {0}, {RUN_WHOAMI, "--threads", "1", "--", "@double_fulfil"}, 128 + 6,
     {"libmuster-omp: omp_fulfill_event: event already fulfilled"}, {"both fulfilments returned"}},
    {"double_fulfil_3", PROGRAMS, {0}, {RUN_WHOAMI, "--threads", "3", "--", "@double_fulfil"}, 128 + 6,
     {"libmuster-omp: omp_fulfill_event: event already fulfilled"}, {"both fulfilments returned"}},

    /* ---- run alone: benchmarks, and a program that needs its CPUs ---- */
    /* Ten syncbench constructs, then eight of EPCC taskbench's, all right. */
    {"syncbench_all_constructs", SERIAL, {0}, {"@syncbench", "--threads", "3", "--samples", "2", "--target-ms", "0.2"},
     0,
     {"* syncbench runtime=*libgomp*", CONSTRUCT_OK("PARALLEL"), CONSTRUCT_OK("FOR"), CONSTRUCT_OK("PARALLEL_FOR"),
      CONSTRUCT_OK("BARRIER"), CONSTRUCT_OK("SINGLE"), CONSTRUCT_OK("CRITICAL"), CONSTRUCT_OK("LOCK"),
      CONSTRUCT_OK("ORDERED"), CONSTRUCT_OK("ATOMIC"), CONSTRUCT_OK("REDUCTION"), CONSTRUCT_OK("PARALLEL_TASK"),
      CONSTRUCT_OK("MASTER_TASK"), CONSTRUCT_OK("MASTER_TASK_BUSY_SLAVES"), CONSTRUCT_OK("CONDITIONAL_TASK"),
      CONSTRUCT_OK("TASK_WAIT"), CONSTRUCT_OK("TASK_BARRIER"), CONSTRUCT_OK("NESTED_TASK"),
      CONSTRUCT_OK("NESTED_MASTER_TASK")},
     {"*status=error*"}, 18, "construct="},
    /* median, worst, rounds above 5x the median; no cell an error. */
    {"bench_smoke_libgomp", SERIAL, {0}, {"@muster", "bench", "omp", TINY, "--runtimes", "libgomp"}, 0,
     {"*overhead per OpenMP construct*median and worst of 2 rounds", "*delay * µs; test loop 0.2 ms*",
      "  libgomp  *libgomp*", "2 threads *libgomp µs", " *median *worst *>5× *csw g *CPU µs g", "PARALLEL FOR * * # *",
      "BARRIER * * # *"},
     {"note #:*"}},
    /* Missing runtimes are named and left out; the rest still runs. */
    {"bench_smoke_missing_runtimes", SERIAL,
     {"MUSTER_LIBOMP=/nonexistent/libomp.so.5", "MUSTER_OMP_LIBRARY=/nonexistent/lib.so"},
     {"@muster", "bench", "omp", TINY}, 0,
     {"*libomp.so.5 not found (looked at MUSTER_LIBOMP=/nonexistent/libomp.so.5); install libomp-dev or set "
      "MUSTER_LIBOMP: left out",
      "*libmuster-omp.so not found (looked at MUSTER_OMP_LIBRARY=/nonexistent/lib.so); build it*: left out",
      "  libomp   libomp.so.5 not found*", "2 threads *libgomp µs", " *median *worst *>5× *csw g *CPU µs g",
      "PARALLEL FOR * * # *", "BARRIER * * # *"}},
    /* Every runtime this machine has, with muster's column and the ratio. */
    {"bench_smoke_all_runtimes", SERIAL, {0}, {"@muster", "bench", "omp", TINY}, 0,
     {"2 threads *libgomp µs*muster µs", "*median*÷ best *csw g*/m", "PARALLEL FOR * * # *", "BARRIER * * # *"}},
    /* The clang-built syncbench: libomp and muster under LLVM's ABI,
     * libgomp named and left out. */
    {"bench_smoke_clang", SERIAL, {0},
     {"@muster", "bench", "omp", "--threads", "2", "--reps", "2", "--target-ms", "0.2", "--constructs",
      "barrier,parallel-for", "--compilers", "clang"},
     0,
     {"*EPCC syncbench, built by clang)*", "  libgomp  cannot run a clang-built program*", "  libomp   *libomp.so.5",
      "  muster   *libmuster-omp*", "2 threads *libomp µs *muster µs", "*÷ best *csw o/m *CPU µs o/m", "PARALLEL FOR * * # *",
      "BARRIER * * # *"},
     .requires = "whoami_clang"},
    /* By default both programs run, gcc's table first. */
    {"bench_both_compilers", SERIAL, {0},
     {"@muster", "bench", "omp", "--threads", "2", "--reps", "1", "--target-ms", "0.2", "--constructs", "barrier",
      "--runtimes", "libomp,muster"},
     0, {"*built by gcc)*", "BARRIER *", "muster bench omp: *built by clang)*", "BARRIER *"},
     .requires = "whoami_clang"},
    /* The taskbench constructs, selected as a group, on every runtime here. */
    {"bench_smoke_task_constructs", SERIAL, {0},
     {"@muster", "bench", "omp", "--threads", "2", "--reps", "1", "--target-ms", "0.2", "--constructs", "tasks",
      "--compilers", "gcc"},
     0,
     {"2 threads *libgomp µs*muster µs", "*÷ best *csw g*/m", "PARALLEL TASK *", "MASTER TASK *",
      "MASTER TASK BUSY *", "CONDITIONAL TASK *", "TASK WAIT *", "TASK BARRIER *", "NESTED TASK *",
      "NESTED MASTER TASK *"},
     {"note #:*", "PARALLEL FOR*"}},
    /* A runtime that gets a construct wrong is an error with syncbench's
     * reason. */
    {"bench_reports_broken_runtime", SERIAL, {"LD_PRELOAD=@broken", "BROKEN_GOMP=barrier"},
     {"@muster", "bench", "omp", TINY, "--runtimes", "libgomp"}, 0,
     {"BARRIER *error, note 1*",
      "note 1: BARRIER @2 on libgomp: BARRIER: ~ threads left a barrier before everyone arrived"}},
    {"bench_tasks_smoke_libgomp", SERIAL, {0}, {"@muster", "bench", "tasks", TASK_TINY, "--runtimes", "libgomp"}, 0,
     {"muster bench tasks: task workloads (taskbench, built by gcc), wall time in ms: median and worst of 2 "
      "rounds, scale 0.01",
      "  libgomp  *libgomp*", "fib *1 * * # *1.0", " *3 * * # *", "uts *1 * * # *1.0", " *3 * * # *", "",
      "CPU seconds (all threads, during the run), context switches per run and peak memory (MB), medians"},
     {"note #:*"}},
    /* Every runtime this machine has, with muster's ratio to the better peer. */
    {"bench_tasks_smoke_all_runtimes", SERIAL, {0}, {"@muster", "bench", "tasks", TASK_TINY}, 0,
     {"fib *1 *× *1.0/*1.0", "uts *1 *"}, {"note #:*"}},
    /* A runtime that drops tasks: every cell is an error, with taskbench's
     * reason. */
    {"bench_tasks_reports_broken_runtime", SERIAL, {"LD_PRELOAD=@broken", "BROKEN_GOMP=task"},
     {"@muster", "bench", "tasks", TASK_TINY, "--runtimes", "libgomp"}, 0,
     {"fib *1 *error, note 1*", "note 1: fib @1 on libgomp: wrong Fibonacci number*"}},
    {"bench_tasks_smoke_clang", SERIAL, {0},
     {"@muster", "bench", "tasks", "--threads", "1,3", "--reps", "2", "--scale", "0.01", "--workloads", "fib,uts",
      "--compilers", "clang"},
     0,
     {"*taskbench, built by clang)*", "  libgomp  cannot run a clang-built program*", "fib *1 *× *1.0/1.0",
      "uts *1 *"},
     {"note #:*"}, .requires = "whoami_clang"},
    /* muster bench barrier: the table's tail columns (median, worst, reps
     * above 5x the median, context switches) and the ratios under it. */
    {"bench_barrier_table", SERIAL, {0},
     {"@muster", "bench", "barrier", "--threads", "2,3", "--reps", "3", "--target-ms", "1", "--alg",
      "central-sense", "--policy", "hybrid"},
     0,
     {"*median and worst of 3 reps", ">5×: reps above 5× the cell's median, marked !*",
      "implementation *B/thr *median *worst *>5× *csw/b *median *worst *>5× *csw/b", "----*",
      /* #* for the count of reps above 5x the median (it may end in !), and
       * for median and worst: three significant digits, so a rep of a 1 ms
       * loop that the VM stalled prints as "297", no point (the case failed
       * 2 of 3 runs in a row once, while the host stole CPU time).  And
       * csw/b the same: three significant digits, "317" once at 3 threads
       * on 2 CPUs when the barrier's waiters slept every episode (CI,
       * 2026-12-03). */
      "central-sense/hybrid *#/# *#* *#* *#* *#* *#* *#* *#* *#*", "*ratios at 3 threads (medians*"}},
    /* Issue #11: a task is queued only when another member is hungry.
     * While all are busy, tasks run at once in creation order on their
     * creator (a branch-and-bound search depends on that order), but for a
     * member's first size - 1 of a region (early tasks, task/defer.h); while the
     * others wait, tasks are queued for them.  At 2 threads, and at 3 on 2
     * CPUs. */
    /* Issue #29: a branch-and-bound search stays pruned (within 40 times
     * the serial search's nodes in every episode) whether its promising
     * branch is the last task of a node or the first, at team sizes that
     * are not powers of two; without help first (MUSTER_OMP_HELP_FIRST_DEPTH=0)
     * the last form explores 150-250 times the nodes. */
#define SEARCH_PRUNED                                                                                                  \
    "promising branch last, taskwait: pruned *", "promising branch first, creator goes on: pruned *"
    {"search_order_2", SERIAL, {0}, {RUN_WHOAMI, "--threads", "2", "--", "@search_order"}, 0, {SEARCH_PRUNED}},
    {"search_order_3", SERIAL, {0}, {RUN_WHOAMI, "--threads", "3", "--", "@search_order"}, 0, {SEARCH_PRUNED}},
    {"search_order_5", SERIAL, {0}, {RUN_WHOAMI, "--threads", "5", "--", "@search_order"}, 0, {SEARCH_PRUNED}},
    {"search_order_help_first_off", SERIAL, {"MUSTER_OMP_HELP_FIRST_DEPTH=0"},
     {RUN_WHOAMI, "--threads", "2", "--", "@search_order"}, 1,
     {"promising branch last, taskwait: NOT PRUNED *", "promising branch first, creator goes on: pruned *"}},
    {"search_order_help_first_bad_value", SERIAL, {"MUSTER_OMP_HELP_FIRST_DEPTH=-3"},
     {RUN_WHOAMI, "--threads", "3", "--", "@search_order"}, 0,
     {"libmuster-omp: MUSTER_OMP_HELP_FIRST_DEPTH='-3' is not a whole number in [0, 64]; using 24", SEARCH_PRUNED},
     {0}, 1, "libmuster-omp: MUSTER_OMP_HELP_FIRST_DEPTH="},
    /* A team of one keeps the order of the runtime the program was built
     * for (solo_order_prog.c): libgomp's, newest first, for a gcc build
     * (before: muster ran them at once, and the BOTS knapsack took 4.7 s
     * against libgomp's 0.02); libomp's, at once in creation order, for a
     * clang build.  Each on its own runtime first: the lines are theirs. */
    {"solo_order_libgomp", PROGRAMS, {0}, {"@solo_order"}, 0, {SOLO_ORDER_LIBGOMP}},
    {"solo_order_gcc", PROGRAMS, {0}, {RUN_WHOAMI, "--", "@solo_order"}, 0, {SOLO_ORDER_LIBGOMP}},
    {"solo_order_gcc_at_4", PROGRAMS, {0}, {RUN_WHOAMI, "--threads", "4", "--", "@solo_order"}, 0,
     {SOLO_ORDER_LIBGOMP}},
    /* with cancellation on, tasks take the described path: the same order */
    {"solo_order_libgomp_cancellation", PROGRAMS, {"OMP_CANCELLATION=true"}, {"@solo_order"}, 0,
     {SOLO_ORDER_LIBGOMP}},
    {"solo_order_gcc_cancellation", PROGRAMS, {"OMP_CANCELLATION=true"}, {RUN_WHOAMI, "--", "@solo_order"}, 0,
     {SOLO_ORDER_LIBGOMP}},
    {"solo_order_libomp", PROGRAMS, {0}, {"@solo_order_clang"}, 0, {SOLO_ORDER_LIBOMP}},
    {"solo_order_clang", PROGRAMS, {0}, {RUN_WHOAMI, "--", "@solo_order_clang"}, 0, {SOLO_ORDER_LIBOMP}},
    {"task_order_2", SERIAL, {0}, {RUN_WHOAMI, "--threads", "2", "--", "@task_order"}, 0,
     {TASK_ORDER_ALL_HOLD}},
    {"task_order_3", SERIAL, {0}, {RUN_WHOAMI, "--threads", "3", "--", "@task_order"}, 0,
     {TASK_ORDER_ALL_HOLD}},
    /* With cancellation on, every task takes the general path: it must
     * count as its creator's child there too (part 3's warm-up). */
    {"task_order_cancellation", SERIAL, {"OMP_CANCELLATION=true"},
     {RUN_WHOAMI, "--threads", "2", "--", "@task_order"}, 0,
     {TASK_ORDER_ALL_HOLD}},
    /* MUSTER_OMP_DELAY_DEPTH=0 turns delayed siblings off and
     * MUSTER_OMP_HELP_FIRST_DEPTH=0 help first (parts 3 and 4 fail; part
     * 3's parent usually runs at once, where only delayed siblings queue a
     * child, but under load its level may count as long and the parent be
     * queued, where help first does); a bad value is reported once and the
     * default used. */
    {"task_order_delay_off", SERIAL, {"MUSTER_OMP_DELAY_DEPTH=0", "MUSTER_OMP_HELP_FIRST_DEPTH=0"},
     {RUN_WHOAMI, "--threads", "2", "--", "@task_order"}, 1,
     {TASK_ORDER_BUSY_AND_HUNGRY,
      "top of a recursion: the two children did not run side by side",
      "long tasks in a loop: the last two did not (the earlier ones ran on member 0)", TASK_ORDER_DEPENDENCES}},
    {"task_order_delay_bad_value", SERIAL, {"MUSTER_OMP_DELAY_DEPTH=9"},
     {RUN_WHOAMI, "--threads", "2", "--", "@task_order"}, 0,
     {"libmuster-omp: MUSTER_OMP_DELAY_DEPTH='9' is not a whole number in [0, 7]; using 3", TASK_ORDER_ALL_HOLD},
     {0}, 1, "libmuster-omp: MUSTER_OMP_DELAY_DEPTH="},
    /* The scheduler's other settings.  MUSTER_OMP_DEFER=ahead queues tasks
     * while everyone is busy, so member 0 runs them out of creation order
     * (part 1 fails; the last few, still queued when the other member
     * reaches the region's end, may run there: under load one did, so how
     * many is not checked); bad values are reported once and the default
     * used (atoi once took them silently: 0 and garbage as the default, "2x"
     * as 2). */
    {"task_order_defer_ahead", SERIAL, {"MUSTER_OMP_DEFER=ahead"}, {RUN_WHOAMI, "--threads", "2", "--", "@task_order"},
     1, {"everyone busy: ~ of # tasks out of creation order, # ran on another member"}},
    {"task_order_defer_bad_value", SERIAL, {"MUSTER_OMP_DEFER=always"},
     {RUN_WHOAMI, "--threads", "2", "--", "@task_order"}, 0,
     {"libmuster-omp: MUSTER_OMP_DEFER='always' is not hungry or ahead; using hungry", TASK_ORDER_ALL_HOLD},
     {0}, 1, "libmuster-omp: MUSTER_OMP_DEFER="},
    {"task_order_queue_ahead_bad_value", SERIAL, {"MUSTER_OMP_QUEUE_AHEAD=2x"},
     {RUN_WHOAMI, "--threads", "2", "--", "@task_order"}, 0,
     {"libmuster-omp: MUSTER_OMP_QUEUE_AHEAD='2x' is not a whole number in [1, 256]; using 4", TASK_ORDER_ALL_HOLD},
     {0}, 1, "libmuster-omp: MUSTER_OMP_QUEUE_AHEAD="},
    {"task_stats_bad_value", SERIAL, {"MUSTER_OMP_TASK_STATS=yes"},
     {RUN_WHOAMI, "--threads", "2", "--", "@task_order"}, 0,
     {"libmuster-omp: MUSTER_OMP_TASK_STATS='yes' is not 0 or 1; using 0 (no statistics)", TASK_ORDER_ALL_HOLD},
     {"libmuster-omp: tasks:*"}, 1, "libmuster-omp: MUSTER_OMP_TASK_STATS="},
};

/* ---- the files the cases name ---- */

typedef struct named_file {
    char name[32];
    const char *path;
} named_file;

static named_file files[16];
static size_t file_count;

static const char *file_path(const char *name, size_t len)
{
    for (size_t i = 0; i < file_count; i++)
        if (strlen(files[i].name) == len && strncmp(files[i].name, name, len) == 0)
            return files[i].path;
    return NULL;
}

/* text with every @name (a lower-case letter after '@') replaced by its
 * file, into out; false (and the missing name in *missing) when a name was
 * not given. */
static bool expand(const char *text, char *out, size_t len, char *missing, size_t missing_len)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = text; *p;) {
        if (*p != '@' || p[1] < 'a' || p[1] > 'z') { /* "@2 on libgomp" is text */
            if (n + 1 < len)
                out[n++] = *p;
            p++;
            continue;
        }
        size_t name_len = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_");
        const char *path = file_path(p + 1, name_len);
        if (path == NULL) {
            snprintf(missing, missing_len, "%.*s", (int)name_len, p + 1);
            return false;
        }
        n += (size_t)snprintf(out + n, len > n ? len - n : 0, "%s", path);
        p += 1 + name_len;
    }
    out[n < len ? n : len - 1] = '\0';
    return true;
}

/* The machine's CPU count as text, when this process may run on all of
 * them (every configured CPU online and in its mask) and there are two or
 * more; false otherwise. */
static bool whole_machine_cpus(char *text, size_t len)
{
    cpu_set_t mask;
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    /* ... and no cgroup quota short of them (the default team is the
     * quota's CPUs then). */
    if (sched_getaffinity(0, sizeof mask, &mask) != 0 || conf < 2 || CPU_COUNT(&mask) != conf ||
        sysconf(_SC_NPROCESSORS_ONLN) != conf || muster_cpus_available() != (unsigned)conf)
        return false;
    snprintf(text, len, "%ld", conf);
    return true;
}

static void make_private_shim_dir(void)
{
    const char *dir = file_path("scratch", 7), *lib = file_path("omp_lib", 7);
    char command[2048];
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s/runtime' && chmod 700 '%s/runtime' && cp '%s' '%s/libmuster-omp.so'",
             dir, dir, dir, lib, dir);
    CHECK(system(command) == 0, "%s", command);
}

/* ---- running a case ---- */

#define MAX_WORD 1024

typedef struct expanded {
    char words[20][MAX_WORD], settings[4][MAX_WORD], lines[20][MAX_WORD], never[2][MAX_WORD], count_prefix[MAX_WORD];
} expanded;

/* Every string of the case with its files; false when one is missing. */
static bool expand_case(const tool_case *c, expanded *e, char *missing, size_t missing_len)
{
    bool ok = true;
    for (int i = 0; i < 16 && c->words[i]; i++)
        ok = ok && expand(c->words[i], e->words[i], MAX_WORD, missing, missing_len);
    for (int i = 0; i < 4 && c->settings[i]; i++)
        ok = ok && expand(c->settings[i], e->settings[i], MAX_WORD, missing, missing_len);
    for (int i = 0; i < 20 && c->lines[i]; i++)
        ok = ok && expand(c->lines[i], e->lines[i], MAX_WORD, missing, missing_len);
    for (int i = 0; i < 2 && c->never[i]; i++)
        ok = ok && expand(c->never[i], e->never[i], MAX_WORD, missing, missing_len);
    if (c->count_prefix)
        ok = ok && expand(c->count_prefix, e->count_prefix, MAX_WORD, missing, missing_len);
    return ok;
}

static int exit_status_of(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

static void check_case(const tool_case *c, const expanded *e)
{
    /* sh -c 'exec "$0" "$@" 2>&1': both streams in one, in write order. */
    char *argv[24] = {"sh", "-c", "exec \"$0\" \"$@\" 2>&1"};
    int argc = 3;
    for (int i = 0; i < 16 && c->words[i]; i++)
        argv[argc++] = (char *)e->words[i];
    argv[argc] = NULL;
    const char *settings[5] = {0};
    for (int i = 0; i < 4 && c->settings[i]; i++)
        settings[i] = e->settings[i];
    if (c->setup)
        c->setup();
    env_child_result r = env_run(argv, settings);
    int status = exit_status_of(r.status);
    CHECK(status == c->exit_status, "%s: exit status %d, expected %d\n%s", c->name, status, c->exit_status, r.out);
    const char *patterns[21] = {0}, *missing = NULL;
    for (int i = 0; i < 20 && c->lines[i]; i++)
        patterns[i] = e->lines[i];
    CHECK(env_lines_in_order(r.out, patterns, 20, &missing), "%s: no line matches '%s' (in order)\n%s", c->name,
          missing, r.out);
    for (const char *line = r.out; line != NULL && *line; line = env_next_line(line))
        for (int i = 0; i < 2 && c->never[i]; i++)
            CHECK(!env_glob_n(e->never[i], line, strcspn(line, "\n")), "%s: a line matches '%s'\n%s", c->name,
                  e->never[i], r.out);
    if (c->count > 0)
        CHECK(env_count_lines(r.out, e->count_prefix) == (unsigned)c->count, "%s: %u lines start with '%s', not %d\n%s",
              c->name, env_count_lines(r.out, e->count_prefix), e->count_prefix, c->count, r.out);
    env_child_free(&r);
}

int main(int argc, char **argv)
{
    static const char *const group_names[] = {"cli", "programs", "serial"};
    int group = -1;
    for (int g = 0; argc >= 2 && g < 3; g++)
        if (strcmp(argv[1], group_names[g]) == 0)
            group = g;
    if (group < 0) {
        fprintf(stderr, "usage: %s cli|programs|serial NAME=PATH...\n", argv[0]);
        return 2;
    }
    for (int i = 2; i < argc && file_count < sizeof files / sizeof files[0]; i++) {
        const char *eq = strchr(argv[i], '=');
        CHECK(eq != NULL && (size_t)(eq - argv[i]) < sizeof files[0].name, "not NAME=PATH: %s", argv[i]);
        snprintf(files[file_count].name, sizeof files[0].name, "%.*s", (int)(eq - argv[i]), argv[i]);
        files[file_count++].path = eq + 1;
    }
    static char machine_cpus[16];
    if (whole_machine_cpus(machine_cpus, sizeof machine_cpus) && file_count < sizeof files / sizeof files[0]) {
        snprintf(files[file_count].name, sizeof files[0].name, "cpus");
        files[file_count++].path = machine_cpus;
    }
    /* What env_run does not clear (it drops MUSTER_*, OMP_*, GOMP_*, KMP_*)
     * but a case reads or sets. */
    static const char *const cleared[] = {"LD_PRELOAD", "LD_LIBRARY_PATH", "BROKEN_GOMP", "XDG_RUNTIME_DIR"};
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++)
        unsetenv(cleared[i]);
    static expanded e; /* ~100 KB: not on the stack */
    size_t ran = 0, skipped = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tool_case *c = &cases[i];
        if ((int)c->group != group)
            continue;
        char missing[64] = "";
        if (c->requires != NULL && file_path(c->requires, strlen(c->requires)) == NULL)
            snprintf(missing, sizeof missing, "%s", c->requires);
        if (missing[0] != '\0' || !expand_case(c, &e, missing, sizeof missing)) {
            printf("%-40s skipped (no %s here)\n", c->name, missing);
            skipped++;
            continue;
        }
        check_case(c, &e);
        printf("%-40s ok (exit %d)\n", c->name, c->exit_status);
        ran++;
    }
    printf("test_omp_tools %s: %zu cases ok, %zu skipped\n", group_names[group], ran, skipped);
    return 0;
}
