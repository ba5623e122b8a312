#!/usr/bin/env python3
"""scripts/bots.py without BOTS: its command line refuses what it cannot
run, with a message naming what was wrong, and each program gets the inputs
meant for it (the cut-off variants a bigger problem than the ones that make
a task per node).  Running BOTS itself needs its sources; see docs/benchmarks.md."""
import importlib.util
import os
import subprocess
import sys
import tempfile
from expect import expect, report_and_exit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "bots.py")


def run(*args):
    p = subprocess.run([sys.executable, SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stderr


with tempfile.TemporaryDirectory() as fake:
    os.makedirs(os.path.join(fake, "inputs"))
    os.makedirs(os.path.join(fake, "omp-tasks"))
    cases = [
        ((fake,), "say --check, --perf or both"),
        (("/nonexistent/bots", "--check"), "does not look like a BOTS checkout"),
        ((fake, "--check", "--compilers", "fortran"), "--compilers 'fortran'"),
        ((fake, "--check", "--threads", "2,x"), "--threads '2,x' is not a list of whole numbers"),
        ((fake, "--perf", "--rounds", "0"), "must be at least 1"),
    ]
    for args, message in cases:
        rc, err = run(*args)
        expect(rc == 2, f"{args}: exit {rc}, wanted 2")
        expect(message in err, f"{args}: stderr {err!r} lacks {message!r}")

spec = importlib.util.spec_from_file_location("bots", SCRIPT)
bots = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bots)
inputs = "/in"
for name, table, wanted in [
    ("fib.gcc.omp-tasks", bots.CHECK_ARGS, ["-n", "27"]),
    ("fib.clang.omp-tasks-tied", bots.CHECK_ARGS, ["-n", "27"]),
    ("fib.gcc.omp-tasks-manual", bots.CHECK_ARGS, ["-n", "36"]),
    ("fib.gcc.omp-tasks-manual", bots.PERF_ARGS, ["-n", "44"]),
    ("fib.gcc.omp-tasks-final", bots.PERF_ARGS, ["-n", "32"]),
    ("health.clang.omp-tasks-if_clause", bots.PERF_ARGS, ["-f", "/in/health/small.input"]),
    ("uts.gcc.omp-tasks", bots.CHECK_ARGS, ["-f", "/in/uts/test.input"]),
    ("concom.gcc.omp-tasks", bots.CHECK_ARGS, None),
]:
    got = bots.args_for(name, table, inputs)
    expect(got == wanted, f"args_for({name}) = {got}, wanted {wanted}")

report_and_exit("check_bots_script")
