#!/usr/bin/env python3
"""The OMPT tests: the recording tool (recorder.c) watching regions.c.

usage: check_ompt.py --program PROG --tool LIBRECORDER --runtime muster|linked|libomp
                     [--library LIBMUSTER_OMP] [--shim DIR] [--threads 1,2,3,4]

At each thread count the program runs once with the tool
(OMP_TOOL_LIBRARIES); the recorder's line must say "ok" (its own checks of
every thread's sequence), and its counts must be the program's: parallel
regions begun and ended, implicit tasks, barriers (sync regions) and their
waits, one thread_begin per team member.  libomp does not report the
implicit barrier of a region of one thread (and elides more at one
thread), so against it only the regions and implicit tasks are compared.
Then, on muster: OMP_TOOL=disabled runs the program without the tool, and
OMP_TOOL_VERBOSE_INIT=stderr says what the discovery did; a library named
in OMP_TOOL_LIBRARIES that does not exist is passed over.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from expect import expect, report_and_exit  # noqa: E402


def run(a, threads, extra_env):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("OMP_TOOL_LIBRARIES", None)
    if a.runtime == "muster":
        env["LD_PRELOAD"] = a.library
        if a.shim:
            env["LD_LIBRARY_PATH"] = a.shim + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    if a.runtime == "libomp":
        env["OMPT_RECORDER_REFERENCE"] = "1"
    env.update(extra_env)
    p = subprocess.run([a.program], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    return p


def figures(line, keys):
    return {k: re.search(rf"\b{k}=(\d+)(?:/(\d+))?", line) for k in keys}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--program", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--runtime", choices=("muster", "linked", "libomp"), required=True)
    ap.add_argument("--library")
    ap.add_argument("--shim")
    ap.add_argument("--threads", default="1,2,3,4")
    a = ap.parse_args()
    tool = {"OMP_TOOL_LIBRARIES": a.tool}
    for t in (int(x) for x in a.threads.split(",")):
        p = run(a, t, tool)
        where = f"{a.runtime} at {t} thread{'s' if t > 1 else ''}"
        expect(p.returncode == 0, f"{where}: exit {p.returncode}\n{p.stderr}")
        want = re.search(r"regions: parallel=(\d+) implicit=(\d+) barriers=(\d+) tasks=(\d+) deps=(\d+) "
                         r"taskwaits=(\d+) taskgroups=(\d+) mutexes=(\d+) nested=(\d+)", p.stdout)
        got = re.search(r"ompt-recorder: threads=(\d+) parallel=(\d+)/(\d+) implicit=(\d+)/(\d+) "
                        r"barriers=(\d+)/(\d+) waits=(\d+)/(\d+) initial=(\d+) (\w+)", p.stdout)
        expect(want is not None and got is not None, f"{where}: no program or recorder line:\n{p.stdout}{p.stderr}")
        if want is None or got is None:
            continue
        regions, implicit, barriers, tasks, deps, taskwaits, taskgroups, mutexes, nested = (int(x) for x in want.groups())
        g = [int(x) for x in got.groups()[:10]] + [got.group(11)]
        expect(g[10] == "ok", f"{where}: the recorder's checks failed:\n{p.stderr}")
        expect(g[0] == t, f"{where}: {g[0]} thread_begin events, not one per thread ({t})")
        expect(g[1] == g[2] == regions, f"{where}: parallel regions begun/ended {g[1]}/{g[2]}, expected {regions}")
        expect(g[3] == g[4] == implicit, f"{where}: implicit tasks begun/ended {g[3]}/{g[4]}, expected {implicit}")
        expect(g[9] == 1, f"{where}: {g[9]} initial tasks")
        if a.runtime != "libomp":
            expect(g[5] == g[6] == barriers, f"{where}: barriers begun/ended {g[5]}/{g[6]}, expected {barriers}")
            waits = barriers + taskwaits + taskgroups
            expect(g[7] == g[8] == waits, f"{where}: sync waits begun/ended {g[7]}/{g[8]}, expected {waits}")
        print(f"check_ompt: {where}: {got.group(0)}")
        more = re.search(r"ompt-recorder: tasks=(\d+)/(\d+) deps=(\d+) taskwaits=(\d+)/(\d+) taskgroups=(\d+)/(\d+) "
                         r"mutexes=(\d+)/(\d+) nested=(\d+)/(\d+) reductions=(\d+)/(\d+) codeptrs=(\d+)/(\d+) (\w+)",
                         p.stdout)
        expect(more is not None, f"{where}: no recorder line of tasks and mutexes:\n{p.stdout}")
        if more is None:
            continue
        m = [int(x) for x in more.groups()[:15]]
        expect(m[0] == m[1] == tasks, f"{where}: tasks created/finished {m[0]}/{m[1]}, expected {tasks}")
        expect(m[2] == deps, f"{where}: {m[2]} dependences, expected {deps}")
        expect(m[3] == m[4] == taskwaits, f"{where}: taskwaits begun/ended {m[3]}/{m[4]}, expected {taskwaits}")
        expect(m[5] == m[6] == taskgroups, f"{where}: taskgroups begun/ended {m[5]}/{m[6]}, expected {taskgroups}")
        expect(m[7] == m[8] == mutexes, f"{where}: mutexes acquired/released {m[7]}/{m[8]}, expected {mutexes}")
        expect(m[9] == m[10] == nested, f"{where}: nested nest-lock sets begun/ended {m[9]}/{m[10]}, expected {nested}")
        expect(m[11] == m[12], f"{where}: reductions begun/ended {m[11]}/{m[12]}")
        # libomp 14 names no caller for some critical sections' releases.
        expect(m[14] > 0 and (m[13] == m[14] or a.runtime == "libomp"),
               f"{where}: {m[14] - m[13]} of {m[14]} codeptr_ra do not point into the program\n{p.stderr}")
        print(f"check_ompt: {where}: {more.group(0)}")
        wk = re.search(r"regions: loops=(\d+) singles=(\d+) executors=(\d+) masked=(\d+)", p.stdout)
        got_wk = re.search(r"ompt-recorder: loops=(\d+)/(\d+) singles=(\d+)/(\d+) executors=(\d+) "
                           r"masked=(\d+)/(\d+) (\w+)", p.stdout)
        expect(wk is not None and got_wk is not None, f"{where}: no work-share lines:\n{p.stdout}")
        if wk is None or got_wk is None:
            continue
        loops, singles, executors, masked = (int(x) for x in wk.groups())
        w = [int(x) for x in got_wk.groups()[:7]]
        # libomp 14 tells these exactly so too.
        expect(w[0] == w[1] == loops, f"{where}: loops begun/ended {w[0]}/{w[1]}, expected {loops}")
        expect(w[2] == w[3] == singles, f"{where}: singles begun/ended {w[2]}/{w[3]}, expected {singles}")
        expect(w[4] == executors, f"{where}: {w[4]} single executors, expected {executors}")
        expect(w[5] == w[6] == masked, f"{where}: masked begun/ended {w[5]}/{w[6]}, expected {masked}")
        print(f"check_ompt: {where}: {got_wk.group(0)}")
        tl = re.search(r"regions: taskloops=(\d+)", p.stdout)
        got_tl = re.search(r"ompt-recorder: taskloops=(\d+)/(\d+) distributes=(\d+)/(\d+) frames=(\d+)/(\d+) (\w+)",
                           p.stdout)
        expect(tl is not None and got_tl is not None, f"{where}: no taskloop lines:\n{p.stdout}")
        if tl is None or got_tl is None:
            continue
        f = [int(x) for x in got_tl.groups()[:6]]
        expect(f[0] == f[1] == int(tl.group(1)), f"{where}: taskloops begun/ended {f[0]}/{f[1]}, expected {tl.group(1)}")
        expect(f[4] > 0, f"{where}: no frame was checked")
        print(f"check_ompt: {where}: {got_tl.group(0)}")
    if a.runtime != "libomp":
        p = run(a, 2, dict(tool, OMP_TOOL="disabled"))
        expect(p.returncode == 0 and "ompt-recorder" not in p.stdout, f"OMP_TOOL=disabled still ran the tool:\n{p.stdout}")
        p = run(a, 2, dict(tool, OMP_TOOL_VERBOSE_INIT="stderr"))
        expect("tool initialized" in p.stderr and "ompt_start_tool in" in p.stderr,
               f"OMP_TOOL_VERBOSE_INIT=stderr says nothing of the discovery:\n{p.stderr}")
        p = run(a, 2, {"OMP_TOOL_LIBRARIES": "/nonexistent/libnothing.so:" + a.tool, "OMP_TOOL_VERBOSE_INIT": "stderr"})
        expect("ompt-recorder:" in p.stdout and "cannot load /nonexistent/libnothing.so" in p.stderr,
               f"a missing library in OMP_TOOL_LIBRARIES was not passed over:\n{p.stdout}{p.stderr}")
        p = run(a, 2, {"OMP_TOOL": "sometimes"})
        expect("OMP_TOOL='sometimes' is not enabled or disabled" in p.stderr,
               f"a bad OMP_TOOL is not named:\n{p.stderr}")
    report_and_exit("check_ompt")


if __name__ == "__main__":
    main()
