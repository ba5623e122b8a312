#!/usr/bin/env python3
"""Before and after a change: `muster bench omp` or `bench tasks` on two builds of muster, interleaved.

Each round runs `muster bench omp` (or `bench tasks`, --bench tasks) with `--runtimes
muster --reps 1 --json` once per build, MUSTER_OMP_LIBRARY pointing at that build's
libmuster-omp.so, the order alternating from round to round so that drift hits both
alike.  Then, for each construct (workload) and team size: the median and worst of
each build (us per construct; ms a run for tasks), after / before, and the median CPU
time (us per construct, all threads; ms a run).

Example, a checkout of the old tree built in /tmp/head/build:
  python3 scripts/bench-before-after.py --before /tmp/head/build --rounds 8 \\
      -- --compilers gcc --threads 3,4,8 --constructs barrier,parallel
Arguments after `--` go to `muster bench omp` or `bench tasks` (not --runtimes, --reps
or --json).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def library(build):
    path = os.path.join(build, "libmuster-omp.so")
    if not os.path.exists(path):
        sys.exit(f"bench-before-after: no libmuster-omp.so in {build} (build it there first)")
    return path


# Per bench: the cell's name field, its figure and its CPU time.
FIELDS = {"omp": ("construct", "median_us", "cpu_us_per_op"), "tasks": ("workload", "median_ms", "cpu_ms_median")}


def one_run(muster, bench, lib, bench_args):
    env = dict(os.environ, MUSTER_OMP_LIBRARY=lib)
    cmd = [muster, "bench", bench, "--runtimes", "muster", "--reps", "1", "--json"] + bench_args
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if run.returncode != 0 or not run.stdout.strip():
        sys.exit(f"bench-before-after: {' '.join(cmd)} failed ({run.returncode}):\n{run.stderr[-2000:]}")
    doc = json.loads(run.stdout)
    return doc["runs"] if "runs" in doc else [doc]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--before", required=True, metavar="BUILD", help="build folder of the tree before the change")
    ap.add_argument("--after", default=os.path.join(HERE, "..", "build"), metavar="BUILD",
                    help="build folder of the tree after it (default: this checkout's build/)")
    ap.add_argument("--rounds", type=int, default=6, help="interleaved rounds (default 6)")
    ap.add_argument("--bench", choices=sorted(FIELDS), default="omp", help="which of muster bench (default omp)")
    ap.add_argument("bench_args", nargs="*", help="arguments for `muster bench omp`, after --")
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error(f"--rounds must be at least 1, not {a.rounds}")
    builds = {"before": library(a.before), "after": library(a.after)}
    muster = os.path.join(a.after, "tools", "muster")
    what, figure, cpu = FIELDS[a.bench]
    cells = {}  # (compiler, construct, threads) -> build -> [(figure, cpu)]
    for r in range(a.rounds):
        for name in (("before", "after") if r % 2 == 0 else ("after", "before")):
            for doc in one_run(muster, a.bench, builds[name], a.bench_args):
                for c in doc["cells"]:
                    if c["status"] == "ok":
                        key = (doc["settings"]["compiler"], c[what], c["threads"])
                        cells.setdefault(key, {}).setdefault(name, []).append((c[figure], c[cpu]))
        print(f"bench-before-after: round {r + 1}/{a.rounds} done", file=sys.stderr, flush=True)
    unit = "us per construct" if a.bench == "omp" else "ms a run"
    print(f"{a.rounds} rounds; {unit}, median (worst); CPU: median {unit}, all threads")
    print(f"{'compiler':8} {'construct':22} {'thr':>3}  {'before':>16}  {'after':>16}  after/before  CPU before / after")
    for (compiler, construct, threads), d in sorted(cells.items()):
        if "before" not in d or "after" not in d:
            print(f"{compiler:8} {construct:22} {threads:3}  (failed under one build)")
            continue
        b = [x[0] for x in d["before"]]
        n = [x[0] for x in d["after"]]
        bc = statistics.median(x[1] for x in d["before"])
        nc = statistics.median(x[1] for x in d["after"])
        print(f"{compiler:8} {construct:22} {threads:3}  {statistics.median(b):7.3f} ({max(b):7.3f})  "
              f"{statistics.median(n):7.3f} ({max(n):7.3f})  {statistics.median(n) / statistics.median(b):11.2f}  "
              f"{bc:8.2f} / {nc:.2f}")


if __name__ == "__main__":
    main()
