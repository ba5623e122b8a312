#!/usr/bin/env python3
"""Worst runs beside a busy neighbour: issue #10's outlier program, run as
many short processes under each runtime, interleaved, while another process
pinned to one CPU works in bursts (by default 30 ms busy, 70 ms idle), the
way a shared host's other jobs take a CPU now and then.

Each runtime's line gives the median and the worst run, the worst over the
median, and how many runs took more than 5x and 20x the median.  A runtime
whose team-mates wait badly for a thread that the neighbour pushed off its
CPU shows it here in the tail, not in the median.

usage: scripts/outliers-beside-load.py [--runs N] [--busy-ms B] [--idle-ms I]
                                        [--cpu C] [--no-load] [--build DIR]

Runs from the repository root after a build: build/tools/muster,
build/tests/omp_tools/outlier_prog and, where clang-14 was found,
outlier_prog_clang (its columns: LLVM libomp and muster on the clang binary).
"""
import argparse
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import time

TIME = re.compile(r"\bus=([0-9.]+)")


def neighbour(cpu, busy_s, idle_s):
    """Works busy_s, sleeps idle_s, for ever, on one CPU."""
    os.sched_setaffinity(0, {cpu})
    while True:
        end = time.monotonic() + busy_s
        while time.monotonic() < end:
            pass
        time.sleep(idle_s)


def commands(build):
    """Runtime name -> command line, for the programs this build has."""
    muster = os.path.join(build, "tools", "muster")
    prog = os.path.join(build, "tests", "omp_tools", "outlier_prog")
    found = {
        "libgomp": ["env", "OMP_NUM_THREADS=2", prog],
        "muster (gcc)": [muster, "run", "--threads", "2", "--", prog],
    }
    clang_prog = prog + "_clang"
    if os.path.exists(clang_prog):
        found["libomp"] = ["env", "OMP_NUM_THREADS=2", clang_prog]
        found["muster (clang)"] = [muster, "run", "--threads", "2", "--", clang_prog]
    return found


def run_once(command):
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    found = TIME.search(done.stdout)
    if done.returncode != 0 or found is None:
        sys.exit(f"outliers-beside-load: {' '.join(command)} failed "
                 f"(exit {done.returncode}): {done.stderr.strip()[-300:]}")
    return float(found.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=60, help="processes per runtime (60)")
    parser.add_argument("--busy-ms", type=float, default=30.0, help="neighbour's burst (30)")
    parser.add_argument("--idle-ms", type=float, default=70.0, help="neighbour's pause (70)")
    parser.add_argument("--cpu", type=int, default=None,
                        help="the neighbour's CPU (default: the highest this process may use)")
    parser.add_argument("--no-load", action="store_true", help="no neighbour: the quiet baseline")
    parser.add_argument("--build", default="build", help="the build directory (build)")
    args = parser.parse_args()
    if args.runs < 3 or args.busy_ms < 0 or args.idle_ms <= 0:
        parser.error("--runs must be at least 3, --busy-ms not negative, --idle-ms positive")
    usable = sorted(os.sched_getaffinity(0))
    cpu = usable[-1] if args.cpu is None else args.cpu
    if cpu not in usable:
        parser.error(f"--cpu {cpu} is not one this process may use ({usable})")
    progs = commands(args.build)
    for command in progs.values():
        if not os.path.exists(command[-1]) or not os.path.exists(command[0]) and command[0] != "env":
            parser.error(f"{command[-1]} is missing: build the project first (cmake --build {args.build})")

    load = None
    if not args.no_load:
        load = multiprocessing.Process(target=neighbour, daemon=True,
                                       args=(cpu, args.busy_ms / 1000, args.idle_ms / 1000))
        load.start()
        print(f"neighbour on CPU {cpu}: {args.busy_ms:g} ms busy, {args.idle_ms:g} ms idle")
    else:
        print("no neighbour")
    times = {name: [] for name in progs}
    try:
        for done in range(args.runs):
            for name, command in progs.items():
                times[name].append(run_once(command))
            print(f"\r{done + 1}/{args.runs} rounds", end="", file=sys.stderr, flush=True)
    finally:
        print(file=sys.stderr)
        if load is not None:
            load.terminate()
    print(f"{args.runs} runs each, interleaved; time of one run in us")
    print(f"{'runtime':16s} {'median':>8s} {'worst':>8s} {'worst/med':>9s} {'>5x':>4s} {'>20x':>5s}  next worst")
    for name, values in times.items():
        median = statistics.median(values)
        worst = max(values)
        print(f"{name:16s} {median:8.0f} {worst:8.0f} {worst / median:8.1f}x "
              f"{sum(v > 5 * median for v in values):4d} {sum(v > 20 * median for v in values):5d}  "
              + " ".join(f"{v:.0f}" for v in sorted(values)[-5:-1][::-1]))


if __name__ == "__main__":
    main()
