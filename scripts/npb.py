#!/usr/bin/env python3
"""Runs the NAS Parallel Benchmarks' OpenMP version (NPB 3.4, Fortran) on
libmuster-omp, beside the runtimes its binaries were built for: a standard
Fortran suite, not ours.

NPB is not part of muster (not on Debian's package servers): point this at an
NPB3.4-OMP folder (NASA's NPB 3.4 release, or a copy of it).  The folder is
copied to a work folder and built there, by gfortran -O3 -fopenmp (and, with
--compilers gfortran,flang, by flang-new-19, linked against the libomp 19 the
build unpacked: tests/omp_fortran/flang/), every Fortran benchmark (bt cg ep
ft lu mg sp ua) at each of --classes.  Then:

  --check  runs every binary at each of --threads under every runtime that
           can run it and reads its own verification ("Verification =
           SUCCESSFUL"): gfortran builds under libgomp, LLVM libomp
           (LD_PRELOAD) and muster (`muster run`), flang builds under libomp
           19 and muster.  A binary that fails under muster is named with
           what its own runtime did.
  --perf   times every binary at --perf-threads, rounds interleaved: the
           benchmark's own "Time in seconds" and the process's CPU seconds;
           prints the median and worst of each, and muster's median / the
           better peer's.

Not run by CI (it needs the NPB sources); a development tool.
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBOMP = "/usr/lib/llvm-14/lib/libomp.so.5"
LIBOMP19_DIR = os.path.join(ROOT, "build", "tests", "omp_fortran", "flang", "libomp-19", "usr", "lib", "llvm-19",
                            "lib")
FORTRAN_BENCHMARKS = ("bt", "cg", "ep", "ft", "lu", "mg", "sp", "ua")
MAKE_DEF = """# written by muster's scripts/npb.py
FC = {fc}
FLINK = $(FC)
F_LIB = {f_lib}
F_INC =
FFLAGS = -O3 -fopenmp -cpp
FLINKFLAGS = $(FFLAGS)
CC = gcc
CLINK = $(CC)
C_LIB = -lm
C_INC =
CFLAGS = -O3 -fopenmp
CLINKFLAGS = $(CFLAGS)
UCC = gcc
BINDIR = ../bin
RAND = randi8
WTIME = wtime.c
"""


def note(msg):
    print(msg, file=sys.stderr, flush=True)


def build(source, work, compiler, benchmarks, classes):
    """Builds every benchmark at every class; returns (bindir, [binary names])."""
    tree = os.path.join(work, compiler)
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(source, tree)
    fc, f_lib = ("gfortran", "") if compiler == "gfortran" else ("flang-new-19", f"-L{LIBOMP19_DIR}")
    with open(os.path.join(tree, "config", "make.def"), "w") as f:
        f.write(MAKE_DEF.format(fc=fc, f_lib=f_lib))
    os.makedirs(os.path.join(tree, "bin"), exist_ok=True)  # a copy without it fails at the link
    log = os.path.join(work, f"build-{compiler}.log")
    with open(log, "w") as f:
        for bench in benchmarks:
            for cls in classes:
                subprocess.call(["make", bench, f"CLASS={cls}"], cwd=tree, stdout=f, stderr=subprocess.STDOUT)
    bindir = os.path.join(tree, "bin")
    built = sorted(os.listdir(bindir)) if os.path.isdir(bindir) else []
    wanted = [f"{b}.{c}.x" for b in benchmarks for c in classes]
    missing = [w for w in wanted if w not in built]
    note(f"npb: {compiler}: built {len(wanted) - len(missing)} of {len(wanted)}"
         + (f" (not built: {' '.join(missing)}; see {log})" if missing else ""))
    return bindir, [w for w in wanted if w in built]


def runtimes_for(compiler):
    return ["libgomp", "libomp", "muster"] if compiler == "gfortran" else ["libomp", "muster"]


def under(runtime, compiler, threads, muster):
    """The command prefix and environment that run a binary on `runtime`."""
    if runtime == "muster":
        return [muster, "run", "--threads", str(threads), "--"], {}
    env = {"OMP_NUM_THREADS": str(threads)}
    if runtime == "libomp" and compiler == "gfortran":
        env["LD_PRELOAD"] = LIBOMP
    if runtime == "libomp" and compiler == "flang":
        env["LD_LIBRARY_PATH"] = LIBOMP19_DIR
    return [], env


def run(cmd, env_extra, timeout):
    """(exit status or None, verified, NPB's seconds, CPU seconds, last line)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_", "MUSTER_"))}
    env.pop("LD_PRELOAD", None)
    env.update(env_extra)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                           text=True, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "", None, None, "timed out"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = p.stdout
    verified = re.search(r"Verification\s*=\s*(\w+)", out)
    seconds = re.search(r"Time in seconds\s*=\s*([0-9.]+)", out)
    lines = [l for l in out.splitlines() if l.strip()]
    return (p.returncode, verified.group(1) if verified else "", float(seconds.group(1)) if seconds else None, cpu,
            lines[-1].strip() if lines else "")


def check(builds, threads_list, muster, timeout):
    total = failed = ours = 0
    for compiler, bindir, names in builds:
        for threads in threads_list:
            for name in names:
                results = {}
                for runtime in runtimes_for(compiler):
                    prefix, env = under(runtime, compiler, threads, muster)
                    rc, verified, _, _, last = run(prefix + [os.path.join(bindir, name)], env, timeout)
                    results[runtime] = (rc == 0 and verified == "SUCCESSFUL", rc, verified, last)
                total += 1
                ok, rc, verified, last = results["muster"]
                peers = ", ".join(f"{r} {'verified' if v[0] else 'FAILED'}" for r, v in results.items()
                                  if r != "muster")
                if ok:
                    print(f"ok   {compiler:8s} {name:10s} {threads} threads: verified on muster ({peers})", flush=True)
                    continue
                failed += 1
                own = results[runtimes_for(compiler)[0]][0]
                ours += own
                print(f"FAIL {compiler:8s} {name:10s} {threads} threads on muster: exit {rc}, verification "
                      f"'{verified}' ({last}); {peers}", flush=True)
    print(f"{total - failed} of {total} runs verified under muster; of the {failed} others, {ours} verify on the "
          "program's own runtime")
    return ours


def perf(builds, threads, rounds, muster, timeout):
    times, order = {}, []
    for r in range(rounds):
        for compiler, bindir, names in builds:
            for name in names:
                for runtime in runtimes_for(compiler):
                    prefix, env = under(runtime, compiler, threads, muster)
                    rc, verified, seconds, cpu, _ = run(prefix + [os.path.join(bindir, name)], env, timeout)
                    key = (compiler, name, runtime)
                    if key not in times:
                        times[key] = []
                        order.append(key)
                    good = rc == 0 and verified == "SUCCESSFUL" and seconds is not None
                    times[key].append((seconds, cpu) if good else (float("nan"), float("nan")))
        note(f"npb: round {r + 1} of {rounds} done")
    print(f"NPB 3.4 OpenMP at {threads} threads: its 'Time in seconds' (median, worst) and CPU seconds (median) of "
          f"{rounds} rounds; ÷ best: muster's median ÷ the better peer's")
    print(f"{'compiler':9s}{'program':10s} {'libgomp':>22s} {'libomp':>22s} {'muster':>22s}  ÷ best")
    for compiler, name in dict.fromkeys((k[0], k[1]) for k in order):
        cells, medians = [], {}
        for runtime in ("libgomp", "libomp", "muster"):
            v = times.get((compiler, name, runtime))
            if not v:
                cells.append(" " * 22)
                continue
            wall = [x for x, _ in v if x == x]
            if len(wall) < len(v):
                cells.append(f"{'failed':>22s}")
                continue
            medians[runtime] = statistics.median(wall)
            cpu = statistics.median(c for _, c in v)
            cells.append(f"{medians[runtime]:7.3f} {max(wall):7.3f} {cpu:6.2f}")
        peers = [medians[r] for r in ("libgomp", "libomp") if r in medians]
        ratio = f"{medians['muster'] / min(peers):5.2f}×" if peers and "muster" in medians else "    -"
        print(f"{compiler:9s}{name:10s} {cells[0]} {cells[1]} {cells[2]}  {ratio}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("source", help="an NPB3.4-OMP folder")
    ap.add_argument("--work", default="/tmp/muster-npb", help="where to build (default /tmp/muster-npb)")
    ap.add_argument("--compilers", default="gfortran", help="gfortran, flang or both (default gfortran)")
    ap.add_argument("--benchmarks", default=",".join(FORTRAN_BENCHMARKS),
                    help="comma-separated (default: the Fortran ones, %(default)s)")
    ap.add_argument("--classes", default="S,W", help="problem classes (default S,W)")
    ap.add_argument("--check", action="store_true", help="verify every binary under every runtime")
    ap.add_argument("--perf", action="store_true", help="time every binary beside the peers")
    ap.add_argument("--threads", default="1,2,3", help="thread counts for --check (default 1,2,3)")
    ap.add_argument("--perf-threads", type=int, default=2, help="thread count for --perf (default 2)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds for --perf (default 3)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds allowed a run (default 600)")
    a = ap.parse_args()
    if not a.check and not a.perf:
        ap.error("say --check, --perf or both")
    if not os.path.isdir(os.path.join(a.source, "config")) or not os.path.isdir(os.path.join(a.source, "CG")):
        ap.error(f"{a.source} does not look like an NPB3.4-OMP folder (no config/ and CG/)")
    compilers = [c for c in a.compilers.split(",") if c]
    if not compilers or any(c not in ("gfortran", "flang") for c in compilers):
        ap.error(f"--compilers {a.compilers!r}: use gfortran, flang or gfortran,flang")
    if "flang" in compilers and not os.path.exists(os.path.join(LIBOMP19_DIR, "libomp.so.5")):
        ap.error(f"--compilers flang needs libomp 19 at {LIBOMP19_DIR} (the build unpacks it: README)")
    benchmarks = [b for b in a.benchmarks.split(",") if b]
    bad = [b for b in benchmarks if b not in FORTRAN_BENCHMARKS]
    if bad:
        ap.error(f"--benchmarks: {', '.join(bad)} not among {', '.join(FORTRAN_BENCHMARKS)}")
    classes = [c for c in a.classes.split(",") if c]
    if any(c not in ("S", "W", "A", "B", "C") for c in classes):
        ap.error(f"--classes {a.classes!r}: S, W, A, B or C")
    try:
        threads_list = [int(t) for t in a.threads.split(",")]
    except ValueError:
        ap.error(f"--threads {a.threads!r} is not a list of whole numbers")
    if any(t < 1 for t in threads_list) or a.perf_threads < 1 or a.rounds < 1:
        ap.error("thread counts and --rounds must be at least 1")
    muster = os.path.join(ROOT, "build", "tools", "muster")
    if not os.access(muster, os.X_OK):
        ap.error(f"{muster} not found: build muster first (README)")
    os.makedirs(a.work, exist_ok=True)
    builds = []
    for compiler in compilers:
        bindir, names = build(a.source, a.work, compiler, benchmarks, classes)
        builds.append((compiler, bindir, names))
    failed = 0  # runs that fail under muster only
    if a.check:
        start = time.time()
        failed = check(builds, threads_list, muster, a.timeout)
        note(f"npb: checked in {time.time() - start:.0f} s")
    if a.perf:
        perf(builds, a.perf_threads, a.rounds, muster, a.timeout)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
