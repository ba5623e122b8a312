/* The muster command: one small table of subcommands, each in its own file.
 * tune will join the table when it is written. */
#include "bench_barrier.h"
#include "bench_omp.h"
#include "bench_tasks.h"
#include "cli.h"
#include "compare.h"
#include "model_cli.h"
#include "muster_main.h"
#include "topology.h"
#include "probe.h"
#include "profile.h"
#include "report_python.h"
#include "run.h"

#include <stdio.h>
#include <string.h>

#ifndef MUSTER_VERSION
#define MUSTER_VERSION "unknown"
#endif

static const cli_command bench_commands[] = {
    {"barrier", bench_barrier_main,
     "barrier overhead per algorithm and policy, beside CK, pthreads, std::barrier"},
    {"omp", bench_omp_main,
     "OpenMP construct overheads (EPCC) on libgomp, LLVM libomp and libmuster-omp"},
    {"tasks", bench_tasks_main,
     "task-parallel workloads (self-verifying) on libgomp, LLVM libomp and libmuster-omp"},
};
#define BENCH_COUNT (sizeof bench_commands / sizeof bench_commands[0])

static void bench_usage(FILE *out)
{
    fprintf(out, "usage: muster bench WHAT [options]\n\n"
                 "Measures synchronization overheads by the EPCC method; 'muster bench WHAT --help'\n"
                 "describes each.\n\n");
    cli_list_commands(out, bench_commands, BENCH_COUNT);
}

static int bench_main(int argc, char **argv)
{
    return cli_dispatch("muster bench", bench_commands, BENCH_COUNT, argc - 1, argv + 1, bench_usage);
}

static const cli_command commands[] = {
    {"bench", bench_main, "measure barrier and OpenMP overheads, side by side with other runtimes"},
    {"compare", compare_main, "run an OpenMP program under libgomp, libomp and muster: time, CPU, same answer"},
    {"model", model_main, "cost model and many-core simulator, on presets or probed machines"},
    {"topology", topology_main, "packages, caches, cores and CPUs this process may use"},
    {"probe", probe_main, "measure core-to-core latency (pinned ping-pong) and write a machine file"},
    {"profile", profile_main, "where an OpenMP program's threads wait, per region and construct (OMPT)"},
    {"run", run_main, "run an unchanged gcc -fopenmp program on libmuster-omp"},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: muster COMMAND [options]\n\n"
                 "Barrier synchronization for many-core CPUs: tools around libmuster.\n\n"
                 "commands:\n");
    cli_list_commands(out, commands, COMMAND_COUNT);
    fprintf(out, "\n'muster COMMAND --help' describes a command; 'muster --version' prints %s.\n",
            MUSTER_VERSION);
}

/* `muster compare --plot` draws with the Python reports, as probe --png does. */
static int plot_comparison(const char *json_path, const char *out_path)
{
    return report_python_run("muster compare", "compare", json_path, out_path);
}

int muster_main(int argc, char **argv)
{
    compare_set_plotter(plot_comparison);
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("muster %s\n", MUSTER_VERSION);
        return CLI_OK;
    }
    return cli_dispatch("muster", commands, COMMAND_COUNT, argc - 1, argv + 1, usage);
}
