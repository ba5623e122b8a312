#!/usr/bin/env python3
"""muster compare (tools/compare/compare.c) on the bundled kernel
bench/omp/relax: the runs agree and the JSON has every figure; a program
that prints its runtime's name is caught, loudly, with exit status 1; a
figure pulled out with --figure is compared; bad command lines, a program
that is not an OpenMP binary, a script, a missing program and runs that do
not finish each get a clear message and their exit status.

With "plot" (a Python with matplotlib is there): --plot draws a PNG and an
SVG, and refuses another kind of file.

usage: check_compare.py MUSTER RELAX [plot|noplot]"""
import json
import os
import subprocess
import sys
import tempfile
from expect import expect, report_and_exit

muster, relax = sys.argv[1], sys.argv[2]
can_plot = len(sys.argv) > 3 and sys.argv[3] == "plot"


def compare(*args):
    p = subprocess.run([muster, "compare", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr


SHORT = ["--sweeps", "300", "--points", "4000"]

with tempfile.TemporaryDirectory() as tmp:
    # Agreement, with every figure in the JSON.
    report = os.path.join(tmp, "c.json")
    rc, out, err = compare("--rounds", "2", "--threads", "1,3", "--json", report, "--", relax, *SHORT)
    expect(rc == 0, f"relax agrees with itself: exit {rc}\n{out}{err}")
    expect(out.count("agrees (3 lines compared; 0 measurements, their numbers not compared; 1 that change") == 2,
           f"both team sizes agree on 3 lines:\n{out}")
    expect("3 threads" in out and "1 thread " in out, f"a table per team size:\n{out}")
    data = json.load(open(report))
    names = [r["name"] for r in data["runtimes"]]
    expect("libgomp" in names and "muster" in names, f"runtimes {names}")
    expect(data["abi"] == "libgomp" and data["rounds"] == 2 and data["disagreements"] == 0, f"header {data}")
    expect(len(data["cells"]) == 2 * len(names), f"{len(data['cells'])} cells")
    for cell in data["cells"]:
        expect(cell["threads"] in (1, 3) and cell["runtime"] in names, f"cell {cell['threads']} {cell['runtime']}")
        expect(len(cell["runs"]) == 2, "two runs a cell")
        for run in cell["runs"]:
            expect(run["ok"] and run["end"] == "exit 0", f"run {run}")
            expect(run["wall_s"] > 0 and run["cpu_s"] > 0 and run["peak_rss_kb"] > 0, f"figures {run}")
            expect(run["voluntary_csw"] >= 0 and run["involuntary_csw"] >= 0, f"switches {run}")
        expect(cell["median_wall_s"] <= cell["worst_wall_s"], "median <= worst")

    # The plot, from the same kind of run.
    if can_plot:
        def temporaries():
            return {f for f in os.listdir("/tmp") if f.startswith("muster-compare-")}
        before = temporaries()
        for name, magic in (("c.png", b"\x89PNG"), ("c.svg", b"<?xml")):
            picture = os.path.join(tmp, name)
            rc, out, err = compare("--rounds", "2", "--threads", "1,2", "--plot", picture, "--", relax, *SHORT)
            expect(rc == 0 and f"plot: {picture}" in out, f"--plot {name}: exit {rc}\n{out}{err}")
            expect(os.path.exists(picture) and open(picture, "rb").read(5).startswith(magic),
                   f"{name} is a {name[-3:]} file")
        expect(temporaries() <= before, "the temporary JSON behind --plot is removed")

    # A program whose output names its runtime must be caught.
    rc, out, err = compare("--rounds", "2", "--threads", "2", "--", relax, *SHORT, "--say-runtime")
    expect(rc == 1, f"a runtime-dependent output makes the exit status 1, not {rc}")
    expect("DISAGREE" in out and "runtime = libgomp.so.1" in out, f"the differing line is shown:\n{out}")

    # A figure, and a figure that is not there.
    rc, out, err = compare("--rounds", "1", "--figure", r"checksum = (\S+)", "--", relax, *SHORT)
    expect(rc == 0 and "the figure agrees" in out, f"--figure: exit {rc}\n{out}{err}")
    rc, out, err = compare("--rounds", "1", "--figure", r"energy = (\S+)", "--", relax, *SHORT)
    expect(rc == 1 and "found no number" in out, f"--figure without a match: exit {rc}\n{out}")

    # A verdict every run must print, and one that no run prints.
    rc, out, err = compare("--rounds", "1", "--threads", "2", "--expect", r"^checksum = [0-9]", "--", relax, *SHORT)
    expect(rc == 0 and "--expect '^checksum = [0-9]' found in all" in out, f"--expect found: exit {rc}\n{out}{err}")
    rc, out, err = compare("--rounds", "1", "--threads", "2", "--expect", "Verification += +SUCCESSFUL", "--", relax,
                           *SHORT)
    expect(rc == 1 and "not found in round 1 on" in out and "missing from" in out,
           f"--expect missing makes the exit status 1: exit {rc}\n{out}")

    # Runs that do not finish.
    rc, out, err = compare("--rounds", "1", "--timeout", "0.001", "--", relax)
    expect(rc == 1 and "timed out" in out, f"timeouts: exit {rc}\n{out}")

    # Bad command lines and programs that cannot be compared.
    script = os.path.join(tmp, "script.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho hi\n")
    os.chmod(script, 0o755)
    for args, status, message in [
        ((), 2, "no program to run"),
        (("--rounds", "0", "--", relax), 2, "--rounds: '0' is not a whole number from 1 to 1000"),
        (("--figure", "(", "--", relax), 2, "is not a regular expression"),
        (("--figure", "x", "--ignore-output", "--", relax), 2, "contradict"),
        (("--expect", "(", "--", relax), 2, "--expect '(' is not a regular expression"),
        (("--expect", "x", "--ignore-output", "--", relax), 2, "contradict"),
        (("--threads", "0", "--", relax), 2, "--threads"),
        (("--runtimes", "gnu", "--", relax), 2, "gnu"),
        (("--colour", "--", relax), 2, "--colour"),
        # found by fuzz_cli: stacked quantifiers made regcomp take gigabytes
        (("--figure", "checksum = (\\S+)" + "+" * 40, "--", relax), 2, "a quantifier follows another"),
        (("--plot", "out.gif", "--", relax), 2, "ending in .png or .svg"),
        (("--", "/bin/true"), 1, "maps no OpenMP runtime"),
        (("--", script), 1, "not an ELF executable"),
        (("--", os.path.join(tmp, "nothing")), 1, "no such program"),
    ]:
        rc, out, err = compare(*args)
        expect(rc == status, f"{args}: exit {rc}, expected {status}")
        expect(message in err, f"{args}: the message names the problem ({message!r}):\n{err}")

    # A runtime that is missing is left out with a message; the others run.
    env = dict(os.environ, MUSTER_OMP_LIBRARY=os.path.join(tmp, "libnothing.so"))
    p = subprocess.run([muster, "compare", "--rounds", "2", "--", relax, *SHORT], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=600)
    expect(p.returncode == 0 and "left out" in p.stderr and "muster " not in p.stdout.split("output")[0].split(
        "threads")[-1], f"muster missing: exit {p.returncode}\n{p.stdout}{p.stderr}")

report_and_exit("check_compare")
