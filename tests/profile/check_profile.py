#!/usr/bin/env python3
"""`muster profile` on waits.c, whose waits are known (see its header).

usage: check_profile.py --muster MUSTER --program PROG --runtime muster|libomp [--threads 3]

Runs `muster profile --json - --runtime RT -- PROG` and checks, against the
lines and counts the program prints:
  - the three regions are found, each named by its source line (gcc names
    the line before the pragma: one line either way is allowed), run RUNS
    times by a team of the program's size;
  - the imbalanced region: its explicit barrier is its largest wait, thread
    0 waits there longest and the last thread least, and the load
    imbalance is at least 20% (thread i sleeps (i+1) steps: 1 - 2/3 at 3);
  - the locked region: its critical section at CRITICAL_LINE, entered
    critical_count times, holds at least a fifth of its threads' time;
  - the tasks region: tasks made and run are tasks_made, and its taskwait
    is named by its line;
  - the table (stderr) names the regions by file:line and draws bars.
Then the command's errors: --runtime libgomp refused with the reason, no
program, an unknown option, a program that does not exist (127).
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from expect import expect, report_and_exit  # noqa: E402


def near(where, line):
    return where["line"] in (line - 1, line) and where["file"].endswith("waits.c")


def region_at(regions, line):
    for r in regions:
        if r["id"] != 0 and near(r["site"], line):
            return r
    return None


def check_run(a):
    cmd = [a.muster, "profile", "--json", "-", "--runtime", a.runtime, "--threads", str(a.threads), "--", a.program]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    where = f"{a.runtime}: {os.path.basename(a.program)}"
    expect(p.returncode == 0, f"{where}: exit {p.returncode}\n{p.stderr}")
    m = re.search(r"profile-expect: (.*)", p.stdout)
    expect(m is not None, f"{where}: the program printed no expectations:\n{p.stdout}")
    if p.returncode != 0 or m is None:
        return
    want = {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}
    doc = json.loads(p.stdout[: m.start()] + p.stdout[m.end():])
    regions = doc["regions"]
    expect(doc["tool"]["events"] > 0 and doc["tool"]["event_ns"] > 0, f"{where}: no events or no cost measured")
    named = {}
    for key in ("imbalanced", "locked", "tasks"):
        r = region_at(regions, want[key])
        expect(r is not None, f"{where}: no region named by waits.c:{want[key]} ({key}); regions at "
               f"{[(x['site']['file'], x['site']['line']) for x in regions]}")
        if r is None:
            return
        expect(r["runs"] == want["runs"], f"{where}: {key} ran {r['runs']} times, expected {want['runs']}")
        expect(r["team"] == want["threads"], f"{where}: {key}'s team {r['team']}, expected {want['threads']}")
        named[key] = r
    t = want["threads"]
    imb = named["imbalanced"]
    # A body ending in its barrier tail-calls it: the runtime may then name
    # no caller, or one inside itself, so the barriers are counted by kind.
    barriers = sum(c["count"] for c in imb["constructs"] if c["kind"] == "barrier")
    expect(imb["constructs"][0]["kind"] == "barrier" and barriers == want["runs"] * t,
           f"{where}: the imbalanced region's largest wait is {imb['constructs'][0]['kind']}, its barriers "
           f"x{barriers}, expected its barrier x{want['runs'] * t}")
    waits = [th["barrier_s"] for th in imb["threads"]]
    if t > 1:
        # Thread i waits (t - 1 - i) steps of STEP_US x RUNS (20 ms): each less than the one before.
        expect(all(waits[i] > waits[i + 1] for i in range(t - 1)),
               f"{where}: barrier waits by thread {waits}: each thread should wait less than the one before")
        expect(imb["imbalance"] >= 0.2, f"{where}: imbalance {imb['imbalance']:.2f}, expected >= 0.2")
    lock = named["locked"]
    crit = [c for c in lock["constructs"] if c["kind"] == "critical"]
    expect(len(crit) == 1 and crit[0]["site"]["line"] == want["critical"] and crit[0]["count"] == want["critical_count"],
           f"{where}: critical sections {[(c['site']['line'], c['count']) for c in crit]}, expected one at "
           f"line {want['critical']} entered {want['critical_count']} times")
    if t > 1:
        # Each thread holds the critical section LOCK_ROUNDS ms of the region's time; the others
        # wait for it there or, done, at the region's end: however the lock hands over (even if
        # one thread took it every time), at least a third of the threads' time is spent
        # waiting for it at 3 threads or more (the tests run 3 and 4).
        team_time = sum(th["in_team_s"] for th in lock["threads"])
        expect(lock["lock_s"] >= 0.2 * team_time,
               f"{where}: the locked region's threads waited {lock['lock_s']:.3f} s for its critical section "
               f"of {team_time:.3f} s in the team, expected at least a fifth")
    tasks = named["tasks"]
    expect(tasks["tasks"]["made"] == want["tasks_made"] and tasks["tasks"]["run"] == want["tasks_made"],
           f"{where}: tasks made/run {tasks['tasks']['made']}/{tasks['tasks']['run']}, expected {want['tasks_made']}")
    tw = [c for c in tasks["constructs"] if c["kind"] == "taskwait"]
    expect(len(tw) == 1 and tw[0]["site"]["line"] == want["taskwait"] and tw[0]["count"] == want["runs"],
           f"{where}: taskwaits {[(c['site']['line'], c['count']) for c in tw]}, expected line {want['taskwait']}")
    expect(re.search(r"waits\.c:\d+ ", p.stderr) and "[###" in p.stderr and "bars: #" in p.stderr,
           f"{where}: the table names no region by line or draws no bar:\n{p.stderr}")
    print(f"check_profile: {where}: regions at lines "
          f"{[named[k]['site']['line'] for k in ('imbalanced', 'locked', 'tasks')]}, "
          f"imbalance {imb['imbalance']:.2f}, barrier waits by thread {['%.3f' % w for w in waits]}")


def check_errors(a):
    def run(*args):
        return subprocess.run([a.muster, "profile", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    p = run("--runtime", "libgomp", "--", a.program)
    expect(p.returncode == 2 and "libgomp has no OMPT" in p.stderr, f"--runtime libgomp: {p.returncode} {p.stderr}")
    p = run()
    expect(p.returncode == 2 and "no program" in p.stderr, f"no program: {p.returncode} {p.stderr}")
    p = run("--frobnicate", "--", a.program)
    expect(p.returncode == 2 and "--frobnicate" in p.stderr, f"unknown option: {p.returncode} {p.stderr}")
    p = run("--", "/nonexistent/program")
    expect(p.returncode == 127 and "/nonexistent/program" in p.stderr, f"missing program: {p.returncode} {p.stderr}")
    p = run("--help")
    expect(p.returncode == 0 and "usage: muster profile" in p.stdout, "--help")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--muster", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--runtime", choices=("muster", "libomp"), required=True)
    ap.add_argument("--threads", type=int, default=3)
    a = ap.parse_args()
    check_run(a)
    if a.runtime == "muster":
        check_errors(a)
    report_and_exit("check_profile")


if __name__ == "__main__":
    main()
