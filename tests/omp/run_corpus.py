#!/usr/bin/env python3
"""Runs the OpenMP corpus (tests/omp/omp_*.c) on libgomp and on libmuster-omp.

    run_corpus.py run PROGRAM --runtime libgomp|libomp|muster|linked [--library LIB]
                  [--reference libgomp|libomp] [--shim DIR] [--setting NAME=VALUE]...
                  [--env NAME=VALUE]... [--reference-path DIR] [--emulator COMMAND]
                  [--threads 1,2,3,4,8] [--timeout SECONDS] [--no-reference]
    run_corpus.py symbols --library LIB PROGRAM...
    run_corpus.py detects-libgomp PROGRAM

`run` runs PROGRAM once per thread count (OMP_NUM_THREADS) and wait policy:
  libgomp  plain (the binary's own libgomp): OMP_WAIT_POLICY=active, passive
  libomp   plain, for a clang-built binary (its own LLVM libomp): the same
  muster   LD_PRELOAD=LIB: OMP_WAIT_POLICY=active, passive and
           MUSTER_WAIT_POLICY=hybrid; each thread count's summary line must
           equal the reference runtime's (--reference: libgomp, or libomp for
           a clang-built binary; a run with OMP_WAIT_POLICY=passive); and one
           run with LD_BIND_NOW=1 LD_DEBUG=bindings must show every
           GOMP_*/__kmpc_*/omp_*/ompc_* reference of the program bound to
           LIB.  --shim DIR goes first on LD_LIBRARY_PATH (muster run's
           omp-shim: the program's own runtime is then never loaded, and an
           entry point LIB lacks fails the run instead of reaching it)
  linked   the program is linked against LIB itself (sanitizer builds): the
           muster policies; summaries must agree across policies
Every run gets a clean environment (no OMP_*, GOMP_*, KMP_*, MUSTER_*,
LD_PRELOAD, LD_DEBUG* from the caller; --setting adds NAME=VALUE to the runs
of the runtime under test, not the reference's; --env to every run),
MUSTER_EXPECT_RUNTIME naming the runtime that must answer, and a time limit.
--reference-path DIR goes first on LD_LIBRARY_PATH of the reference's runs
(a libomp unpacked into the build, for flang-built programs).  --emulator
COMMAND (qemu-aarch64 -L SYSROOT) runs every run under it; the program's
LD_* variables then reach it through QEMU_SET_ENV (LD_PRELOAD in qemu's own
environment would be tried on qemu first), and the bindings check, whose
loader log would mix qemu's bindings with the program's, is left out.  A run passes when it exits 0
within the limit and prints exactly one stdout line, "summary <name>: ...".
After two runs time out, the rest are skipped (reported as such).  Exit
status: 0 when everything passed, 1 otherwise; the failures are listed last,
each with runtime, thread count and policy.

`symbols` checks that every GOMP_*/__kmpc_*/omp_*/ompc_* symbol (with its version) that the
programs import (nm -D --undefined-only) is defined by LIB (nm -D
--defined-only), so that nothing silently falls through to libgomp.

`detects-libgomp` runs PROGRAM (omp_identity) on plain libgomp with
MUSTER_EXPECT_RUNTIME=muster and passes only if it fails saying so.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CLEAN_PREFIXES = ("OMP_", "GOMP_", "KMP_", "MUSTER_", "LD_DEBUG", "GOMP")
CLEAN_NAMES = ("LD_PRELOAD", "LD_BIND_NOW")

POLICIES = {
    "libgomp": [("OMP_WAIT_POLICY", "active"), ("OMP_WAIT_POLICY", "passive")],
    "libomp": [("OMP_WAIT_POLICY", "active"), ("OMP_WAIT_POLICY", "passive")],
    "muster": [("OMP_WAIT_POLICY", "active"), ("OMP_WAIT_POLICY", "passive"), ("MUSTER_WAIT_POLICY", "hybrid")],
}
POLICIES["linked"] = POLICIES["muster"]

MAX_TIMEOUTS = 2

# The runtime entry points a program imports: gcc's and LLVM's.
ENTRY_PREFIXES = ("GOMP_", "__kmpc_", "omp_", "ompc_")
PLAIN_RUNTIMES = ("libgomp", "libomp")


def clean_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(CLEAN_PREFIXES) and k not in CLEAN_NAMES}
    env["LC_ALL"] = "C"
    return env


class Result:
    def __init__(self, label, ok, summary, detail, seconds, last_words=""):
        self.label, self.ok, self.summary, self.detail, self.seconds = label, ok, summary, detail, seconds
        self.last_words = last_words  # the last line on stderr, for the closing list


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1].strip() if lines else ""


def tail(text, lines=15):
    parts = text.rstrip("\n").split("\n")
    return "\n".join("    | " + p for p in parts[-lines:]) if text.strip() else "    | (nothing)"


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_once(program, runtime, library, threads, policy, timeout, extra_env=None, shim=None, options=None):
    """Runs the program once; returns a Result.  options: the parsed command
    line, for --env, --reference-path and --emulator."""
    env = clean_env()
    if options is not None:
        env.update(options.env_all)
    env["OMP_NUM_THREADS"] = str(threads)
    env["MUSTER_EXPECT_RUNTIME"] = runtime if runtime in PLAIN_RUNTIMES else "muster"
    if policy is not None:
        env[policy[0]] = policy[1]
    if runtime == "muster":
        env["LD_PRELOAD"] = library
        if shim:
            old = env.get("LD_LIBRARY_PATH")
            env["LD_LIBRARY_PATH"] = shim + (":" + old if old else "")
    if runtime in PLAIN_RUNTIMES and options is not None and options.reference_path:
        old = env.get("LD_LIBRARY_PATH")
        env["LD_LIBRARY_PATH"] = options.reference_path + (":" + old if old else "")
    if extra_env:
        env.update(extra_env)
    command = [program]
    if options is not None and options.emulator:
        command = options.emulator.split() + [program]
        guest = ["%s=%s" % (k, env.pop(k)) for k in sorted(env) if k.startswith("LD_")]
        if guest:
            env["QEMU_SET_ENV"] = ",".join(guest)
    label = "%s threads=%d %s" % (runtime, threads, "%s=%s" % policy if policy else "")
    start = time.monotonic()
    # Its own process group, so that a timeout kills the children it forked too.
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        stdout, stderr = proc.communicate()
        err = stderr.decode(errors="replace")
        return Result(label, False, None, "timed out after %gs (hung?); stderr so far:\n%s" % (timeout, tail(err)),
                      timeout, last_line(err))
    kill_group(proc)  # leftovers of a program that exited early
    seconds = time.monotonic() - start
    out = stdout.decode(errors="replace")
    err = stderr.decode(errors="replace")
    if proc.returncode != 0:
        how = ("killed by signal %d" % -proc.returncode if proc.returncode < 0
               else "exit status %d" % proc.returncode)
        if proc.returncode == 127 and "while loading shared libraries" in err:
            how += " (the program could not be loaded: does the library lack entry points it uses? see omp/symbols)"
        return Result(label, False, None, "%s; stderr:\n%s" % (how, tail(err)), seconds, last_line(err))
    lines = out.splitlines()
    name = os.path.basename(program)
    if len(lines) != 1 or not lines[0].startswith("summary %s:" % name):
        return Result(label, False, None,
                      "exit 0 but stdout is not one line 'summary %s: ...':\n%s" % (name, tail(out)), seconds)
    return Result(label, True, lines[0], "", seconds)


BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `([^']+)'")


def check_bindings(program, library, timeout, shim, options=None):
    """One muster run with LD_DEBUG=bindings: every runtime symbol the
    program itself references must be bound to the library.  Returns a list
    of problems."""
    tmp = tempfile.mkdtemp(prefix="omp-bindings-")
    try:
        extra = {"LD_BIND_NOW": "1", "LD_DEBUG": "bindings", "LD_DEBUG_OUTPUT": os.path.join(tmp, "ld")}
        # LD_BIND_NOW binds everything at start-up, so the log is complete
        # even when the run itself fails or hangs (the other runs report
        # that): a short limit will do.
        res = run_once(program, "muster", library, 2, ("OMP_WAIT_POLICY", "passive"), min(timeout, 10.0), extra,
                       shim, options)
        wrong, seen = set(), set()
        exe_names = {os.path.basename(program), "exe"}
        for f in os.listdir(tmp):
            with open(os.path.join(tmp, f), errors="replace") as fh:
                for line in fh:
                    m = BINDING.search(line)
                    if not m or os.path.basename(m.group(1)) not in exe_names:
                        continue
                    sym = m.group(3)
                    if not sym.startswith(ENTRY_PREFIXES):
                        continue
                    seen.add(sym)
                    if not os.path.basename(m.group(2)).startswith("libmuster-omp.so"):
                        wrong.add("%s -> %s" % (sym, m.group(2)))
        problems = ["bound outside libmuster-omp: %s" % w for w in sorted(wrong)]
        if not seen:
            problems.append("LD_DEBUG=bindings showed no runtime binding of the program at all (%s)" % (
                "run passed" if res.ok else res.detail.split("\n")[0]))
        return problems
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cmd_run(args):
    program = os.path.abspath(args.program)
    name = os.path.basename(program)
    if args.library:
        args.library = os.path.abspath(args.library)  # LD_PRELOAD of a bare name would search the library path
    threads = [int(t) for t in args.threads.split(",") if t]
    if args.runtime in ("muster", "linked") and not args.library:
        sys.exit("run_corpus.py: --runtime %s needs --library" % args.runtime)
    if args.runtime == "muster" and not os.path.exists(args.library):
        sys.exit("run_corpus.py: %s does not exist (build the muster-omp target)" % args.library)
    settings = name_values("--setting", args.setting)
    args.env_all = name_values("--env", args.env)
    failures, timeouts, runs = [], 0, 0
    reference = {}
    started = time.monotonic()

    def record(res):
        nonlocal timeouts, runs
        runs += 1
        print("%-4s %-48s %6.2fs%s" % ("ok" if res.ok else "FAIL", res.label, res.seconds,
                                       "" if res.ok else "\n" + res.detail), flush=True)
        if not res.ok:
            what = res.detail.split("\n")[0].rstrip(":").replace("; stderr", "")
            failures.append("%s: %s%s" % (res.label, what, " -- " + res.last_words if res.last_words else ""))
            if "timed out" in res.detail:
                timeouts += 1

    for t in threads:
        if args.runtime == "muster" and args.reference:
            ref = run_once(program, args.reference, None, t, ("OMP_WAIT_POLICY", "passive"), args.timeout,
                           options=args)
            if not ref.ok:
                print("FAIL reference run on %s, threads=%d: %s" % (args.reference, t, ref.detail), flush=True)
                failures.append("reference %s threads=%d: %s (a corpus bug)" % (args.reference, t,
                                                                             ref.detail.split("\n")[0]))
                continue
            reference[t] = ref.summary
        for policy in POLICIES[args.runtime]:
            if timeouts >= MAX_TIMEOUTS:
                failures.append("%s threads=%d %s=%s: skipped after %d timeouts" % (args.runtime, t, policy[0],
                                                                                  policy[1], timeouts))
                continue
            res = run_once(program, args.runtime, args.library, t, policy, args.timeout, extra_env=settings,
                           shim=args.shim, options=args)
            if res.ok and t in reference and res.summary != reference[t]:
                res.ok = False
                res.detail = "summary differs from %s's:\n    | %s\n    | %s (%s)" % (
                    args.reference, res.summary, reference[t], args.reference)
            if res.ok:
                first = reference.setdefault(t, res.summary)
                if res.summary != first:
                    res.ok = False
                    res.detail = "summary differs between policies:\n    | %s\n    | %s" % (res.summary, first)
            record(res)
    if args.runtime == "muster" and timeouts < MAX_TIMEOUTS and not args.emulator:
        problems = check_bindings(program, args.library, args.timeout, args.shim, args)
        print("%-4s %-48s" % ("ok" if not problems else "FAIL", "muster symbol bindings (LD_DEBUG=bindings)"),
              flush=True)
        for p in problems:
            print("    | " + p, flush=True)
            failures.append("bindings: " + p)
    if args.runtime in ("muster", "linked"):
        missing = sorted(dynamic_symbols(program, False) - dynamic_symbols(args.library, True))
        if missing:
            failures.append("%d imported entry point(s) not defined by %s (they %s): %s" % (
                len(missing), os.path.basename(args.library),
                ("fall through to " + args.reference) if args.runtime == "muster" else "cannot be resolved",
                " ".join(missing)))
    elapsed = time.monotonic() - started
    if failures:
        print("\n%s on %s: %d failure(s) in %d runs (%.1fs):" % (name, args.runtime, len(failures), runs, elapsed))
        for f in failures:
            print("  " + f)
        sys.stdout.flush()
        return 1
    print("\n%s on %s: all %d runs passed (%.1fs)" % (name, args.runtime, runs, elapsed))
    return 0


def name_values(option, items):
    """{NAME: VALUE} of the NAME=VALUE items of a repeatable option."""
    pairs = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name:
            sys.exit("run_corpus.py: %s %r is not NAME=VALUE" % (option, item))
        pairs[name] = value
    return pairs


def dynamic_symbols(path, defined):
    flag = "--defined-only" if defined else "--undefined-only"
    proc = subprocess.run(["nm", "-D", flag, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        sys.exit("nm -D %s %s failed: %s" % (flag, path, proc.stderr.decode(errors="replace")))
    syms = set()
    for line in proc.stdout.decode().splitlines():
        parts = line.split()
        if not parts:
            continue
        sym = parts[-1]
        base = sym.split("@")[0]
        if base.startswith(ENTRY_PREFIXES):
            # name@VERSION (imported) or name@@VERSION (default definition)
            syms.add(sym.replace("@@", "@"))
    return syms


def cmd_symbols(args):
    defined = dynamic_symbols(args.library, True)
    defined_names = {s.split("@")[0] for s in defined}
    missing = {}
    total = set()
    for prog in args.programs:
        for sym in dynamic_symbols(prog, False):
            total.add(sym)
            if sym not in defined:
                why = "wrong version" if sym.split("@")[0] in defined_names else "not defined"
                missing.setdefault("%s (%s)" % (sym, why), []).append(os.path.basename(prog))
    if missing:
        print("%d of the %d runtime symbols the corpus imports are missing from %s:" % (len(missing), len(total),
                                                                                       args.library))
        for sym in sorted(missing):
            print("  %-60s used by %s" % (sym, ", ".join(sorted(missing[sym]))))
        return 1
    print("all %d runtime symbols the %d corpus programs import are defined by %s" % (
        len(total), len(args.programs), args.library))
    return 0


def cmd_detects_libgomp(args):
    env = clean_env()
    env["MUSTER_EXPECT_RUNTIME"] = "muster"
    env["OMP_NUM_THREADS"] = "2"
    proc = subprocess.run([os.path.abspath(args.program)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=60)
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0 and "not to the muster runtime" in err and "libgomp" in err:
        print("ok: on plain libgomp with MUSTER_EXPECT_RUNTIME=muster it fails as it must:\n" + tail(err))
        return 0
    print("FAIL: on plain libgomp with MUSTER_EXPECT_RUNTIME=muster it %s:\n%s" % (
        "passed" if proc.returncode == 0 else "failed without naming libgomp (exit %d)" % proc.returncode, tail(err)))
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("program")
    run.add_argument("--runtime", choices=("libgomp", "libomp", "muster", "linked"), required=True)
    run.add_argument("--library", help="libmuster-omp.so")
    run.add_argument("--reference", choices=PLAIN_RUNTIMES, default="libgomp",
                     help="muster: the runtime whose summaries must be matched (libomp for clang-built programs)")
    run.add_argument("--shim", help="muster: a directory put first on LD_LIBRARY_PATH (omp-shim)")
    run.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE",
                     help="an environment variable for the runs under test (repeatable)")
    run.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                     help="an environment variable for every run, the reference's too (repeatable)")
    run.add_argument("--reference-path", help="a directory put first on LD_LIBRARY_PATH of the reference's runs")
    run.add_argument("--emulator", help="a command every run goes under (qemu-aarch64 -L SYSROOT)")
    run.add_argument("--threads", default="1,2,3,4,8")
    run.add_argument("--timeout", type=float, default=30.0, help="seconds per run")
    run.add_argument("--no-reference", dest="reference", action="store_false",
                     help="muster: do not compare summaries with libgomp's")
    sym = sub.add_parser("symbols")
    sym.add_argument("--library", required=True)
    sym.add_argument("programs", nargs="+")
    det = sub.add_parser("detects-libgomp")
    det.add_argument("program")
    args = parser.parse_args()
    if args.command == "run":
        return cmd_run(args)
    if args.command == "symbols":
        return cmd_symbols(args)
    return cmd_detects_libgomp(args)


if __name__ == "__main__":
    sys.exit(main())
