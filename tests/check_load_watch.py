#!/usr/bin/env python3
"""The load watch (src/wait/load.h) end to end, under libmuster-omp: two
copies of bench/omp/relax started together, each thread bound so that every
CPU runs one thread of each process (OMP_PROC_BIND, OMP_PLACES), see each
other (MUSTER_OMP_WAIT_STATS=1 reports a contended spell) and give the
same answer as alone; MUSTER_LOAD_WATCH=0 makes no probe; a
bad MUSTER_LOAD_WATCH or MUSTER_OMP_WAIT_STATS gets its warning line.

usage: check_load_watch.py LIBMUSTER_OMP RELAX"""
import os
import re
import subprocess
import sys
from expect import expect, report_and_exit

library, relax = sys.argv[1], sys.argv[2]
STATS = re.compile(r"libmuster-omp: waits: sleeps=(\d+) wakes=(\d+) yields=(\d+) woken=\d+ slow_wakes=\d+ "
                   r"mean_wake_us=[0-9.]+ load_probes=(\d+) load_evidence=(\d+) contended_spells=(\d+) "
                   r"costly_yields=\d+ costly_spells=\d+")


def start(threads, places, sweeps, **extra):
    env = dict(os.environ, LD_PRELOAD=library, OMP_NUM_THREADS=str(threads), MUSTER_OMP_WAIT_STATS="1",
               OMP_PROC_BIND="true", OMP_PLACES=places, **extra)
    return subprocess.Popen([relax, "--sweeps", str(sweeps)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(p):
    out, err = p.communicate(timeout=300)
    m = STATS.search(err)
    answer = [line for line in out.splitlines() if not line.startswith("time")]
    return p.returncode, answer, (dict(zip(["sleeps", "wakes", "yields", "probes", "evidence", "spells"],
                                           map(int, m.groups()))) if m else None), err


cpus = sorted(os.sched_getaffinity(0))
if len(cpus) < 2:
    print("skipped: one CPU, where a team of two is oversubscribed and never watches the load")
    sys.exit(0)
places = "{%d},{%d}" % (cpus[0], cpus[1])

# Alone: the answer to compare with.
rc, alone_answer, stats, err = finish(start(2, places, 20000))
expect(rc == 0 and stats is not None, f"relax alone: exit {rc}, stats line {stats}, stderr {err!r}")

# Together, each CPU shared by one thread of each: a few tries, since a
# quiet moment may let a short run finish before its probes find the other.
seen = False
for attempt in range(5):
    runs = [finish(p) for p in [start(2, places, 20000) for _ in range(2)]]
    for rc, answer, stats, err in runs:
        expect(rc == 0 and stats is not None and answer == alone_answer,
               f"relax together: exit {rc}, answer {answer}, stats {stats}, stderr {err!r}")
    if any(stats and stats["spells"] >= 1 and stats["probes"] >= 1 for _, _, stats, _ in runs):
        seen = True
        break
expect(seen, "two processes sharing both CPUs never saw each other: " + repr([s for _, _, s, _ in runs]))

# The answer does not depend on the load.
rc, answer, stats, err = finish(start(2, places, 20000))
rc2, answer2, stats2, err2 = finish(start(2, places, 20000, MUSTER_LOAD_WATCH="0"))
expect(answer == alone_answer == answer2, f"answers differ: {alone_answer} {answer} {answer2}")
expect(rc2 == 0 and stats2 is not None and stats2["probes"] == 0,
       f"MUSTER_LOAD_WATCH=0 still probed: {stats2}")

# Bad settings: a warning naming the variable, the value and what is used.
rc, _, stats, err = finish(start(2, places, 300, MUSTER_LOAD_WATCH="sometimes"))
expect(rc == 0 and "MUSTER_LOAD_WATCH" in err and "sometimes" in err and "watch the load" in err,
       f"MUSTER_LOAD_WATCH=sometimes: exit {rc}, stderr {err!r}")
env = dict(os.environ, LD_PRELOAD=library, OMP_NUM_THREADS="2", MUSTER_OMP_WAIT_STATS="yes")
p = subprocess.run([relax, "--sweeps", "300"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                   timeout=120)
expect(p.returncode == 0 and "MUSTER_OMP_WAIT_STATS" in p.stderr and "'yes'" in p.stderr.replace('"', "'")
       and not STATS.search(p.stderr), f"MUSTER_OMP_WAIT_STATS=yes: exit {p.returncode}, stderr {p.stderr!r}")

report_and_exit("check_load_watch")
