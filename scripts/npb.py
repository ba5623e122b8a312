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
  --corun  runs copies of one binary side by side, as a loaded machine runs
           programs: --corun-benchmark (default bt.W, bt at class W, the
           gfortran build) at --perf-threads threads.  Per runtime and per
           --copies N: "sequential", the N copies one after another (the sum
           of their wall seconds, and their CPU seconds), and "together",
           the N started at the same moment (wall seconds until the last
           ends, and their CPU seconds).  The floor, per N and runtime-
           independent: the N copies at one thread each under libgomp,
           started together, so that no runtime waits at all and what they
           cost over one copy is cache and memory sharing only.  Each round
           measures, per N, the floor, then every runtime (the order rotated
           from round to round), sequential then together; every copy must
           verify, and one that does not is an error, named.  It prints, per
           N, together / sequential and together / floor (median and worst),
           the CPU seconds together, muster's together / floor over the
           better peer's, and the floor / libgomp's sequential.  The targets
           it reminds of: together <= 1.15 x floor, and <= the better peer's
           together, at 2 and 4 copies.  The binary is built when the work
           folder lacks it, and reused when not.

Not run by CI (it needs the NPB sources); a development tool.
"""
import argparse
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
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


def build(source, work, compiler, benchmarks, classes, fresh=True):
    """Builds every benchmark at every class; returns (bindir, [binary names]).  Not fresh: in the tree a
    previous build left, if there is one, keeping what it built."""
    tree = os.path.join(work, compiler)
    if fresh or not os.path.isdir(os.path.join(tree, "config")):
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(source, tree)
    fc, f_lib = ("gfortran", "") if compiler == "gfortran" else ("flang-new-19", f"-L{LIBOMP19_DIR}")
    make_def = os.path.join(tree, "config", "make.def")
    current = None  # NASA's release has no make.def, only make.def.template
    if os.path.exists(make_def):
        with open(make_def) as f:
            current = f.read()
    if current != MAKE_DEF.format(fc=fc, f_lib=f_lib):  # a rewrite would remake what is built
        with open(make_def, "w") as f:
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


def clean_env(env_extra):
    """This process's environment less every runtime's settings, plus env_extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_", "MUSTER_"))}
    env.pop("LD_PRELOAD", None)
    env.update(env_extra)
    return env


def run(cmd, env_extra, timeout):
    """(exit status or None, verified, NPB's seconds, CPU seconds, last line)."""
    env = clean_env(env_extra)
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


class CopyFailed(Exception):
    """A copy that did not exit 0 saying NPB's "Verification = SUCCESSFUL"."""


def reap(procs, timeout):
    """Waits for every process, killing the process group of any left once timeout seconds have passed; sets each
    one's returncode and returns (their CPU seconds, user + system, [whether each was killed])."""
    lock = threading.Lock()
    killed = [False] * len(procs)

    def kill():
        with lock:
            for i, p in enumerate(procs):
                if p.returncode is None:
                    killed[i] = True
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    cpu = 0.0
    try:
        for p in procs:
            _, status, usage = os.wait4(p.pid, 0)  # the child's rusage, with what it waited for
            with lock:
                p.returncode = os.waitstatus_to_exitcode(status)
            cpu += usage.ru_utime + usage.ru_stime
    except BaseException:  # ^C too: copies in their own sessions would run on
        kill()
        raise
    finally:
        timer.cancel()
    return cpu, killed


def verdict(name, i, n, what, p, killed, out, timeout):
    """Raises CopyFailed unless copy i of n exited 0 and verified."""
    out.seek(0)
    text = out.read().decode(errors="replace")
    if killed:
        why = f"timed out after {timeout} s"
    elif p.returncode != 0:
        why = f"exit {p.returncode}"
    elif not re.search(r"Verification\s*=\s*SUCCESSFUL", text):
        got = re.search(r"Verification\s*=\s*(\w*)", text)
        why = f"verification '{got.group(1)}'" if got else "no verification line"
    else:
        return
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    raise CopyFailed(f"{name}, copy {i + 1} of {n} ({what}): {why} ({lines[-1] if lines else 'no output'})")


def copies(cmd, env_extra, n, together, timeout, what):
    """Runs n copies of cmd, started at the same moment or one after another; returns (wall seconds until the
    last ends, or their sum; the copies' CPU seconds).  Raises CopyFailed, naming the copy and what it ran."""
    env = clean_env(env_extra)
    name = os.path.basename(cmd[-1])
    outs = [tempfile.TemporaryFile() for _ in range(n)]

    def start(out):
        return subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    try:
        if together:
            begin = time.perf_counter()
            procs = [start(out) for out in outs]
            cpu, killed = reap(procs, timeout)
            wall = time.perf_counter() - begin
            for i in range(n):
                verdict(name, i, n, what, procs[i], killed[i], outs[i], timeout)
            return wall, cpu
        wall = cpu = 0.0
        for i in range(n):
            begin = time.perf_counter()
            p = start(outs[i])
            c, (killed,) = reap([p], timeout)
            wall += time.perf_counter() - begin
            cpu += c
            verdict(name, i, n, what, p, killed, outs[i], timeout)
        return wall, cpu
    finally:
        for out in outs:
            out.close()


def corun(binary, copies_list, threads, rounds, muster, timeout):
    """The --corun measurement (module docstring); returns 1 if a copy failed, else 0."""
    runtimes = runtimes_for("gfortran")
    name = os.path.basename(binary)
    floor = {n: [] for n in copies_list}  # per round: wall seconds
    runs = {(n, r): [] for n in copies_list for r in runtimes}  # per round: (sequential s, together s, CPU s)
    try:
        for k in range(rounds):
            order = runtimes[k % len(runtimes):] + runtimes[:k % len(runtimes)]
            for n in copies_list:
                note(f"npb: corun round {k + 1}/{rounds}, {n} copies of {name}; runtimes {', '.join(order)}")
                prefix, env = under("libgomp", "gfortran", 1, muster)
                what = f"floor, {n} x 1 thread on libgomp together, round {k + 1}"
                f, _ = copies(prefix + [binary], env, n, True, timeout, what)
                floor[n].append(f)
                note(f"npb:   floor ({n} x 1 thread, libgomp, together): {f:.2f} s")
                for runtime in order:
                    prefix, env = under(runtime, "gfortran", threads, muster)
                    what = f"{runtime}, {n} x {threads} threads sequential, round {k + 1}"
                    s, _ = copies(prefix + [binary], env, n, False, timeout, what)
                    what = f"{runtime}, {n} x {threads} threads together, round {k + 1}"
                    t, cpu = copies(prefix + [binary], env, n, True, timeout, what)
                    runs[(n, runtime)].append((s, t, cpu))
                    note(f"npb:   {runtime:8s} {n} x {threads} threads: sequential {s:.2f} s, together {t:.2f} s "
                         f"({cpu:.2f} CPU s)")
    except CopyFailed as e:
        note(f"npb: corun: {e}")
        return 1
    print(f"NPB 3.4 OpenMP, {name}, copies at {threads} threads, {rounds} round{'s' if rounds > 1 else ''}: medians, and the worst (largest).")
    print("sequential: the copies one after another (wall s, summed); together: all started at once (wall s")
    print("until the last ends); floor: the copies at 1 thread on libgomp, together; ÷ best: muster's")
    print("together/floor ÷ the better peer's.")
    for n in copies_list:
        f = floor[n]
        print()
        print(f"{n} copies: floor {statistics.median(f):.2f} s", end="")
        gomp = runs[(n, "libgomp")]
        ratio = [fr / s for fr, (s, _, _) in zip(f, gomp)]
        print(f"; floor / libgomp's sequential {statistics.median(ratio):.3f} (range {min(ratio):.3f}-"
              f"{max(ratio):.3f})")
        print(f"{'runtime':9s}{'sequential':>11s}{'together':>10s}{'together/sequential':>21s}"
              f"{'together/floor':>18s}{'CPU s':>10s}{'÷ best':>9s}")
        print(f"{'':9s}{'s':>11s}{'s':>10s}{'median':>11s}{'worst':>10s}{'median':>10s}{'worst':>8s}"
              f"{'together':>10s}")
        tf_median = {}
        rows = []
        for runtime in runtimes:
            v = runs[(n, runtime)]
            ts = [t / s for s, t, _ in v]
            tf = [t / fr for (_, t, _), fr in zip(v, f)]
            tf_median[runtime] = statistics.median(tf)
            rows.append((runtime, statistics.median(s for s, _, _ in v), statistics.median(t for _, t, _ in v),
                         statistics.median(ts), max(ts), tf_median[runtime], max(tf),
                         statistics.median(c for _, _, c in v)))
        best = min(tf_median[r] for r in runtimes if r != "muster")
        for runtime, s, t, ts, ts_worst, tf, tf_worst, cpu in rows:
            ratio = f"{tf / best:8.2f}×" if runtime == "muster" else ""
            print(f"{runtime:9s}{s:11.2f}{t:10.2f}{ts:11.3f}{ts_worst:10.3f}{tf:10.3f}{tf_worst:8.3f}{cpu:10.2f}"
                  f"{ratio:>9s}".rstrip())
    print()
    print("The targets (a reminder, not a verdict): at 2 and 4 copies, muster's together <= 1.15 x the floor")
    print("(together/floor <= 1.15), and <= the better peer's together time (÷ best <= 1.00).")
    return 0


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
    ap.add_argument("--corun", action="store_true", help="time copies of one binary run side by side")
    ap.add_argument("--corun-benchmark", default="bt.W",
                    help="for --corun: benchmark.class, the gfortran build (default bt.W)")
    ap.add_argument("--copies", default="2,4", help="copy counts for --corun (default 2,4)")
    ap.add_argument("--threads", default="1,2,3", help="thread counts for --check (default 1,2,3)")
    ap.add_argument("--perf-threads", type=int, default=2, help="thread count for --perf and --corun (default 2)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds for --perf and --corun (default 3)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds allowed a run (default 600)")
    a = ap.parse_args()
    if not a.check and not a.perf and not a.corun:
        ap.error("say --check, --perf, --corun or more than one")
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
    try:
        copies_list = [int(n) for n in a.copies.split(",")]
    except ValueError:
        ap.error(f"--copies {a.copies!r} is not a list of whole numbers")
    if any(t < 1 for t in threads_list + copies_list) or a.perf_threads < 1 or a.rounds < 1:
        ap.error("thread and copy counts and --rounds must be at least 1")
    corun_bench, _, corun_class = a.corun_benchmark.partition(".")
    if a.corun and (corun_bench not in FORTRAN_BENCHMARKS or corun_class not in ("S", "W", "A", "B", "C")):
        ap.error(f"--corun-benchmark {a.corun_benchmark!r}: benchmark.class, as bt.W")
    muster = os.path.join(ROOT, "build", "tools", "muster")
    if not os.access(muster, os.X_OK):
        ap.error(f"{muster} not found: build muster first (README)")
    os.makedirs(a.work, exist_ok=True)
    builds = []
    for compiler in compilers if a.check or a.perf else []:
        bindir, names = build(a.source, a.work, compiler, benchmarks, classes)
        builds.append((compiler, bindir, names))
    if a.corun:
        corun_binary = os.path.join(a.work, "gfortran", "bin", f"{corun_bench}.{corun_class}.x")
        if not os.access(corun_binary, os.X_OK):
            build(a.source, a.work, "gfortran", [corun_bench], [corun_class], fresh=False)
        if not os.access(corun_binary, os.X_OK):
            ap.error(f"--corun: {corun_binary} did not build (see {a.work}/build-gfortran.log)")
        note(f"npb: corun: {corun_binary}")
    failed = 0  # runs that fail under muster only, and a --corun that failed
    if a.check:
        start = time.time()
        failed = check(builds, threads_list, muster, a.timeout)
        note(f"npb: checked in {time.time() - start:.0f} s")
    if a.perf:
        perf(builds, a.perf_threads, a.rounds, muster, a.timeout)
    if a.corun:
        failed += corun(corun_binary, copies_list, a.perf_threads, a.rounds, muster, a.timeout)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
