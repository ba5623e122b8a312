#!/usr/bin/env python3
"""scripts/manycore.sh without a lent machine: pack refuses bad arguments
and a build folder that lacks the programs, with a message naming what was
wrong; a bundle packed from this build holds the command, libmuster-omp,
the benchmarks and both peers' runtimes with the libraries they need (not
the C library), and its run.sh, with a budget of 0 seconds, skips every
section with a line saying so and writes a report.json that parses and
names this machine's CPUs.  The timed sections need a lent machine and
minutes: docs/benchmarks.md.

usage: check_manycore_script.py BUILD_DIR"""
import json
import os
import subprocess
import sys
import tempfile
from expect import expect, report_and_exit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "manycore.sh")
build = os.path.abspath(sys.argv[1])


def run(*args, cwd=None):
    p = subprocess.run(["bash", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as tmp:
    for args, message in [
        (("frobnicate",), "say pack or run"),
        (("pack", "--colour"), "unknown argument '--colour'"),
        (("pack", "--build", tmp, "--out", f"{tmp}/b"), f"{tmp}/tools/muster is missing"),
        (("pack", "--build", build, "--bots", tmp, "--out", f"{tmp}/b"), "not a BOTS checkout"),
    ]:
        rc, _, err = run(SCRIPT, *args)
        expect(rc == 1 and message in err, f"manycore.sh {' '.join(args)}: exit {rc}, stderr {err!r}, "
                                           f"expected 1 and {message!r}")

    bundle = os.path.join(tmp, "bundle")
    rc, out, err = run(SCRIPT, "pack", "--build", build, "--out", bundle)
    expect(rc == 0 and "packed" in out, f"pack: exit {rc}, stdout {out!r}, stderr {err!r}")
    for f in ["run.sh", "bin/muster", "bin/syncbench", "bin/taskbench", "bin/relax", "lib/libmuster-omp.so.0.1.0",
              "lib/libgomp.so.1", "lib/libomp.so.5", "lib/libhwloc.so.15"]:
        expect(os.path.exists(os.path.join(bundle, f)), f"the bundle lacks {f}")
    libs = os.listdir(os.path.join(bundle, "lib")) if os.path.isdir(os.path.join(bundle, "lib")) else []
    expect(not any(n.startswith(("libc.so", "ld-linux")) for n in libs), f"the C library was packed: {libs}")

    rc, _, err = run(os.path.join(bundle, "run.sh"), "--budget", "soon")
    expect(rc == 1 and "--budget soon: not a whole number" in err, f"run --budget soon: exit {rc}, {err!r}")

    report = os.path.join(tmp, "report")
    rc, out, err = run(os.path.join(bundle, "run.sh"), "--budget", "0", "--out", report, cwd=tmp)
    expect(rc == 0, f"run --budget 0: exit {rc}, stderr {err!r}")
    text = open(os.path.join(report, "report.txt")).read() if os.path.exists(os.path.join(report, "report.txt")) else ""
    expect(text.count("skipped: the budget of 0 s is spent") == 7,
           f"report.txt: probe, constructs, waiting CPU, co-running, busy neighbours, tasks and task statistics "
           f"should each be skipped:\n{text}")
    expect(text.count("not packed (pack --bots DIR)") == 2, f"report.txt: the BOTS sections should say not packed:\n{text}")
    try:
        data = json.load(open(os.path.join(report, "report.json")))
        expect(data["machine"]["cpus"] == len(os.sched_getaffinity(0)), f"report.json machine: {data['machine']}")
        expect(data["program_runs"] == [], f"report.json program_runs: {data['program_runs']}")
    except (OSError, ValueError, KeyError) as e:
        expect(False, f"report.json: {e}")

report_and_exit("manycore.sh", "bad arguments refused, a bundle packed, its run skips past the budget and reports")
