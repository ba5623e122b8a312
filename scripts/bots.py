#!/usr/bin/env python3
"""Runs the Barcelona OpenMP Tasks Suite (BOTS) on libmuster-omp, beside the
runtimes its binaries were built for: real task programs, not ours.

BOTS is not part of muster (GPL, and not on Debian's package servers): point
this at a checkout of it (https://github.com/bsc-pm/bots).  The checkout is
copied to a work folder and built there twice, by gcc -fopenmp and by
clang-14 -fopenmp, every variant its Makefiles make (cut-offs: none, manual,
if clause, final; tied and untied).  Then:

  --check  runs every binary with its own verification (-c) under muster
           (`muster run`) at each of --threads; a binary that fails is run
           again on its own runtime (libgomp for gcc, libomp for clang) to
           tell muster's failures from the program's.
  --perf   times every binary (untied variants) at --perf-threads, rounds
           interleaved: gcc builds under libgomp, LLVM libomp and muster,
           clang builds under libomp and muster; prints the median and worst
           of each and muster's median / the better peer's.

BOTS's own "Time Program" is the time reported.  These programs are
sensitive to memory layout: on the 2-CPU development VM, padding the
environment moves alignment's time by +-15% on every runtime alike, and
health is multi-modal on every runtime (0.17-1.0 s per run), so compare
medians of several rounds and read single ratios with care.

Not run by CI (it needs the BOTS sources); a development tool.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBGOMP = "/lib/x86_64-linux-gnu/libgomp.so.1"
LIBOMP = "/usr/lib/llvm-14/lib/libomp.so.5"

# Input sizes: small ones for --check (every variant, several thread
# counts), ~0.1-1 s at 2 threads for --perf.  Variants without a cut-off
# make a task per node: smaller fib there.
CHECK_ARGS = [
    (r"^fib\..*\.omp-tasks(-tied)?$", "-n 27"),
    (r"^fib\.", "-n 36"),
    (r"^nqueens\.", "-n 11"),
    (r"^sort\.", "-n 1000000"),
    (r"^sparselu\.", "-n 40 -m 40"),
    (r"^strassen\.", "-n 512"),
    (r"^fft\.", "-n 1048576"),
    (r"^health\.", "-f {inputs}/health/test.input"),
    (r"^floorplan\.", "-f {inputs}/floorplan/input.5"),
    (r"^alignment\.", "-f {inputs}/alignment/prot.20.aa"),
    (r"^uts\.", "-f {inputs}/uts/test.input"),
]
PERF_ARGS = [
    (r"^fib\..*\.omp-tasks(-tied)?$", "-n 30"),
    (r"^fib\..*-manual", "-n 44"),
    (r"^fib\.", "-n 32"),  # if clause, final: every call is still a task construct
    (r"^nqueens\.", "-n 12"),
    (r"^sort\.", "-n 8000000"),
    (r"^sparselu\.", "-n 50 -m 50"),
    (r"^strassen\.", "-n 2048"),
    (r"^fft\.", "-n 4194304"),
    (r"^health\.", "-f {inputs}/health/small.input"),
    (r"^floorplan\.", "-f {inputs}/floorplan/input.15"),
    (r"^alignment\.", "-f {inputs}/alignment/prot.20.aa"),
    (r"^uts\.", "-f {inputs}/uts/test.input"),
]
COMPILERS = {"gcc": "gcc", "clang": "clang-14"}
NATIVE = {"gcc": LIBGOMP, "clang": LIBOMP}


def note(msg):
    print(msg, file=sys.stderr, flush=True)


def args_for(name, table, inputs):
    for pattern, args in table:
        if re.search(pattern, name):
            return args.format(inputs=inputs).split()
    return None


def build(source, work, compiler):
    """Copies BOTS to work/compiler and builds it; returns its bin folder."""
    tree = os.path.join(work, compiler)
    bindir = os.path.join(tree, "bin")
    if os.path.isdir(bindir) and os.listdir(bindir):
        note(f"bots: using the {compiler} build in {tree} (delete it to rebuild)")
        return bindir
    note(f"bots: building BOTS with {COMPILERS[compiler]} in {tree} (a few minutes)")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".git"))
    cc = COMPILERS[compiler]
    with open(os.path.join(tree, "config", "make.config"), "w") as f:
        f.write(f"LABEL={compiler}\nENABLE_OMPSS=\nOMPC={cc} -fopenmp\nCC={cc}\nOMPLINK={cc} -fopenmp\n"
                f"CLINK={cc}\nOPT_FLAGS=-O2\nCC_FLAGS=\nOMPC_FLAGS=-w\nOMPC_FINAL_FLAGS=\nCLINK_FLAGS=\n"
                "OMPLINK_FLAGS=\nLIBS=-lm\nUSE_FINAL_CLAUSE=yes\n")
    os.makedirs(bindir, exist_ok=True)
    # One job: the Makefiles write one tied-*.c per program for two targets.
    log = os.path.join(tree, "make.log")
    with open(log, "w") as f:
        rc = subprocess.call(["make", "-k"], cwd=tree, stdout=f, stderr=subprocess.STDOUT)
    if rc != 0:
        note(f"bots: make exited {rc} for {compiler}; see {log} (continuing with what was built)")
    return bindir


def binaries(bindir, only):
    names = sorted(n for n in os.listdir(bindir) if ".serial" not in n)
    return [n for n in names if only is None or re.search(only, n)]


def run(cmd, env_extra, timeout):
    env = dict(os.environ)
    env.update(env_extra)
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                           text=True, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timed out", ""
    out = p.stdout
    verified = re.search(r"Verification\s*=\s*(\w+)", out)
    seconds = re.search(r"Time Program\s*=\s*([0-9.]+)", out)
    return p.returncode, verified.group(1) if verified else "", float(seconds.group(1)) if seconds else None


def under(runtime, threads, muster):
    """The command prefix and environment that run a binary on `runtime`."""
    if runtime == "muster":
        return [muster, "run", "--threads", str(threads), "--"], {}
    return [], {"LD_PRELOAD": {"libgomp": LIBGOMP, "libomp": LIBOMP}[runtime], "OMP_NUM_THREADS": str(threads)}


def check(builds, threads_list, inputs, muster, timeout):
    total = failed = ours = 0
    for compiler, bindir, names in builds:
        for threads in threads_list:
            for name in names:
                args = args_for(name, CHECK_ARGS, inputs)
                if args is None:
                    continue
                total += 1
                prefix, env = under("muster", threads, muster)
                rc, verified, _ = run(prefix + [os.path.join(bindir, name)] + args + ["-c", "-o", "3"], env, timeout)
                if rc == 0 and verified == "successful":
                    continue
                failed += 1
                nrc, nverified, _ = run([os.path.join(bindir, name)] + args + ["-c", "-o", "3"],
                                        {"OMP_NUM_THREADS": str(threads)}, timeout)
                native_ok = nrc == 0 and nverified == "successful"
                ours += native_ok
                native = "passes" if native_ok else f"fails too (exit {nrc})"
                print(f"FAIL {name} at {threads} threads: exit {rc}, verification '{verified}'; "
                      f"on its own runtime it {native}", flush=True)
            note(f"bots: {compiler} builds checked at {threads} threads")
    print(f"{total - failed} of {total} runs verified under muster; of the {failed} others, {ours} pass on the "
          "program's own runtime")
    return ours


def perf(builds, threads, rounds, inputs, muster, timeout):
    times = {}
    order = []
    for r in range(rounds):
        for compiler, bindir, names in builds:
            runtimes = ["libgomp", "libomp", "muster"] if compiler == "gcc" else ["libomp", "muster"]
            for name in names:
                if "tied" in name:
                    continue
                args = args_for(name, PERF_ARGS, inputs)
                if args is None:
                    continue
                for runtime in runtimes:
                    prefix, env = under(runtime, threads, muster)
                    rc, _, seconds = run(prefix + [os.path.join(bindir, name)] + args + ["-o", "3"], env, timeout)
                    key = (name, runtime)
                    if key not in times:
                        times[key] = []
                        order.append(key)
                    times[key].append(seconds if rc == 0 and seconds is not None else float("nan"))
        note(f"bots: round {r + 1} of {rounds} done")
    print(f"BOTS at {threads} threads, seconds (its Time Program): median and worst of {rounds} rounds; "
          "÷ best: muster's median ÷ the better peer's")
    print(f"{'program':34s} {'libgomp':>15s} {'libomp':>15s} {'muster':>15s}  ÷ best")
    for name in dict.fromkeys(k[0] for k in order):
        cells, medians = [], {}
        for runtime in ("libgomp", "libomp", "muster"):
            v = times.get((name, runtime))
            if not v:
                cells.append(" " * 15)
                continue
            ok = [x for x in v if x == x]
            if len(ok) < len(v):
                cells.append(f"{'failed':>15s}")
                continue
            medians[runtime] = statistics.median(ok)
            cells.append(f"{medians[runtime]:7.3f} {max(ok):7.3f}")
        peers = [medians[r] for r in ("libgomp", "libomp") if r in medians]
        ratio = f"{medians['muster'] / min(peers):5.2f}×" if peers and "muster" in medians else "    -"
        print(f"{name:34s} {cells[0]} {cells[1]} {cells[2]}  {ratio}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("source", help="a BOTS checkout")
    ap.add_argument("--work", default="/tmp/muster-bots", help="where to build (default /tmp/muster-bots)")
    ap.add_argument("--compilers", default="gcc,clang", help="gcc, clang or both (default both)")
    ap.add_argument("--check", action="store_true", help="verify every binary under muster")
    ap.add_argument("--perf", action="store_true", help="time the untied variants beside the peers")
    ap.add_argument("--threads", default="1,2,5,8", help="thread counts for --check (default 1,2,5,8)")
    ap.add_argument("--perf-threads", type=int, default=2, help="thread count for --perf (default 2)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds for --perf (default 3)")
    ap.add_argument("--only", help="a regular expression: only the binaries whose names match")
    ap.add_argument("--timeout", type=int, default=300, help="seconds allowed a run (default 300)")
    a = ap.parse_args()
    if not a.check and not a.perf:
        ap.error("say --check, --perf or both")
    inputs = os.path.join(a.source, "inputs")
    if not os.path.isdir(inputs) or not os.path.isdir(os.path.join(a.source, "omp-tasks")):
        ap.error(f"{a.source} does not look like a BOTS checkout (no inputs/ and omp-tasks/)")
    compilers = [c for c in a.compilers.split(",") if c]
    bad = [c for c in compilers if c not in COMPILERS]
    if bad or not compilers:
        ap.error(f"--compilers {a.compilers!r}: use gcc, clang or gcc,clang")
    try:
        threads_list = [int(t) for t in a.threads.split(",")]
    except ValueError:
        ap.error(f"--threads {a.threads!r} is not a list of whole numbers")
    if any(t < 1 for t in threads_list) or a.perf_threads < 1 or a.rounds < 1:
        ap.error("thread counts and --rounds must be at least 1")
    muster = os.path.join(ROOT, "build", "tools", "muster")
    if not os.access(muster, os.X_OK):
        ap.error(f"{muster} not found: build muster first (README)")
    builds = []
    for compiler in compilers:
        bindir = build(a.source, a.work, compiler)
        builds.append((compiler, bindir, binaries(bindir, a.only)))
    failed = 0  # runs that fail under muster only
    if a.check:
        start = time.time()
        failed = check(builds, threads_list, inputs, muster, a.timeout)
        note(f"bots: checked in {time.time() - start:.0f} s")
    if a.perf:
        perf(builds, a.perf_threads, a.rounds, inputs, muster, a.timeout)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
