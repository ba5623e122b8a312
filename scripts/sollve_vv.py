#!/usr/bin/env python3
"""Runs the OpenMP Validation & Verification suite (SOLLVE V&V) on
libmuster-omp beside the runtimes its binaries were built for: another
project's conformance tests, not ours.

SOLLVE V&V is not part of muster: point this at a checkout of it
(https://github.com/SOLLVE/sollve_vv).  Every test of the languages asked for
is built alone (gcc, g++ and gfortran with -fopenmp -foffload=disable, so
target regions run on the host; clang-14 and clang++-14 with -fopenmp), one
process per test, and run under each runtime that can run it: gcc builds under
libgomp, LLVM libomp (preloaded) and muster (`muster run`), clang builds under
libomp and muster.  A test passes when it exits 0 within --timeout.  Prints
how many pass per build and runtime, then every test whose result on muster
differs from a peer's, with how it ended.

Not run by CI (it needs the suite); a development tool.
"""
import argparse
import concurrent.futures
import os
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBOMP = "/usr/lib/llvm-14/lib/libomp.so.5"
BUILDS = {
    # name: (compiler, flags, source suffixes)
    "gcc": ("gcc", ["-fopenmp", "-foffload=disable", "-O2", "-lm"], (".c",)),
    "g++": ("g++", ["-fopenmp", "-foffload=disable", "-O2", "-lm"], (".cpp",)),
    "gfortran": ("gfortran", ["-fopenmp", "-foffload=disable", "-cpp", "-O2", "-ffree-line-length-none"],
                 (".F90",)),
    "clang": ("clang-14", ["-fopenmp", "-O2", "-lm"], (".c",)),
    "clang++": ("clang++-14", ["-fopenmp", "-O2", "-lm"], (".cpp",)),
}


def note(msg):
    print(msg, file=sys.stderr, flush=True)


def sources(suite, suffixes):
    found = []
    for dirpath, _, files in os.walk(os.path.join(suite, "tests")):
        for f in files:
            if f.endswith(suffixes):
                found.append(os.path.join(dirpath, f))
    return sorted(found)


def test_name(suite, path):
    return os.path.relpath(path, os.path.join(suite, "tests")).rsplit(".", 1)[0]


def compile_one(suite, work, build, path):
    compiler, flags, _ = BUILDS[build]
    name = test_name(suite, path)
    out = os.path.join(work, build, name.replace("/", "__"))
    mods = out + ".mod.d"
    os.makedirs(mods, exist_ok=True)
    include = ["-I", os.path.join(suite, "ompvv")]
    extra = ["-J", mods] if build == "gfortran" else []
    cmd = [compiler] + include + extra + [path, "-o", out] + flags
    try:
        ok = run_group(cmd, 300, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except subprocess.TimeoutExpired:
        ok = False
    return name, out if ok else None


def run_group(cmd, timeout, **kwargs):
    """subprocess.run in a process group of its own, the whole group killed
    on timeout: a compiler driver killed alone leaves its cc1 running (a
    clang 14 compile of test_metadirective_arch_is_nvidia.c spun for an hour
    after its driver's timeout)."""
    with subprocess.Popen(cmd, start_new_session=True, **kwargs) as p:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            raise
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def runtimes_for(build):
    return ["libgomp", "libomp", "muster"] if build in ("gcc", "g++", "gfortran") else ["libomp", "muster"]


def run_one(build, binary, runtime, muster, threads, timeout):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_", "MUSTER_"))}
    env.pop("LD_PRELOAD", None)
    cmd = [binary]
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    if runtime == "libomp" and not build.startswith("clang"):
        env["LD_PRELOAD"] = LIBOMP  # a clang build's own runtime is libomp already
    if runtime == "muster":
        cmd = [muster, "run", "--"] + cmd
    try:
        p = run_group(cmd, timeout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                      errors="replace")
    except subprocess.TimeoutExpired:
        return "timed out"
    if p.returncode == 0:
        return "pass"
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    how = f"signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
    return how + (f": {lines[-1].strip()[:100]}" if lines else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("suite", help="a SOLLVE V&V checkout (tests/ and ompvv/)")
    ap.add_argument("--work", default="/tmp/muster-sollve", help="where to build (default /tmp/muster-sollve)")
    ap.add_argument("--builds", default="gfortran", help=f"comma-separated, of {', '.join(BUILDS)} (default gfortran)")
    ap.add_argument("--threads", type=int, default=0, help="OMP_NUM_THREADS for the runs (default: unset)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds a run may take (default 60)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel compilations (default: CPUs)")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.suite, "tests")) or not os.path.isdir(os.path.join(a.suite, "ompvv")):
        ap.error(f"{a.suite} does not look like a SOLLVE V&V checkout (no tests/ and ompvv/)")
    builds = [b for b in a.builds.split(",") if b]
    bad = [b for b in builds if b not in BUILDS]
    if bad or not builds:
        ap.error(f"--builds {a.builds!r}: of {', '.join(BUILDS)}")
    muster = os.path.join(ROOT, "build", "tools", "muster")
    if not os.access(muster, os.X_OK):
        ap.error(f"{muster} not found: build muster first (README)")
    differing = []
    for build in builds:
        os.makedirs(os.path.join(a.work, build), exist_ok=True)
        paths = sources(a.suite, BUILDS[build][2])
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            built = [r for r in pool.map(lambda p: compile_one(a.suite, a.work, build, p), paths)]
        binaries = [(name, out) for name, out in built if out]
        note(f"sollve_vv: {build}: {len(binaries)} of {len(paths)} tests compile")
        # Runs one at a time: a test's threads should have the machine.
        results = {rt: {} for rt in runtimes_for(build)}
        for name, binary in binaries:
            for rt in runtimes_for(build):
                results[rt][name] = run_one(build, binary, rt, muster, a.threads, a.timeout)
        counts = ", ".join(f"{rt} {sum(r == 'pass' for r in results[rt].values())}" for rt in results)
        print(f"{build}: {len(binaries)} of {len(paths)} compile; pass: {counts}")
        for name, _ in binaries:
            ours = results["muster"][name]
            peers = {rt: results[rt][name] for rt in results if rt != "muster"}
            if any((v == "pass") != (ours == "pass") for v in peers.values()):
                differing.append((build, name, ours, peers))
    if differing:
        print("\ntests whose result on muster differs from a peer's:")
        for build, name, ours, peers in differing:
            print(f"  {build:9s} {name}: muster {ours}; " + ", ".join(f"{rt} {v}" for rt, v in peers.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
