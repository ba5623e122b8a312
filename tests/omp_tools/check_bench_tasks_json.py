"""Checks the shape of `muster bench tasks --json` read from stdin: strict
JSON, the settings asked for, one cell per workload x team size x runtime,
and in every ok cell numbers that agree with each other and a checked
answer.  Exits 0 when all is well, else 1 with why."""
import json
import sys
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_json_check import check_outliers, finish  # noqa: E402 (tests/, found above)

WORKLOADS = ("fib", "uts")
THREADS = (1, 3)
REPS = 2


def check_cell(key, cell, problems):
    if cell["status"] != "ok" or cell["samples"] != REPS:
        problems.append(f"{key}: {cell}")
        return
    for field in ("median_ms", "worst_ms", "min_ms", "speedup", "csw_median", "cpu_ms_median", "maxrss_kb_median",
                  "tasks"):
        if not isinstance(cell[field], (int, float)):
            problems.append(f"{key}: {field} is {cell[field]!r}")
            return
    samples = cell["samples_ms"]
    if len(samples) != REPS or min(samples) != cell["min_ms"] or max(samples) != cell["worst_ms"]:
        problems.append(f"{key}: samples_ms {samples} do not match min/worst")
    if not cell["cpu_ms_median"] > 0:
        problems.append(f"{key}: no CPU time ({cell['cpu_ms_median']})")
    if not cell["min_ms"] <= cell["median_ms"] <= cell["worst_ms"]:
        problems.append(f"{key}: median outside [min, worst]")
    check_outliers(key, cell["outliers"], samples, cell["median_ms"], problems)
    if cell["tasks"] < 1 or cell["maxrss_kb_median"] < 100:
        problems.append(f"{key}: tasks {cell['tasks']}, peak {cell['maxrss_kb_median']} kB")
    if cell["threads"] == 1 and cell["speedup"] != 1:
        problems.append(f"{key}: the speed-up over itself at 1 thread is {cell['speedup']}, not 1")
    want_check = {"fib": "fib(", "uts": "nodes="}[cell["workload"]]
    if not cell["check"].startswith(want_check):
        problems.append(f"{key}: check {cell['check']!r}")


def main():
    doc = json.load(sys.stdin)
    problems = []
    settings = doc["settings"]
    if settings["threads"] != list(THREADS) or settings["reps"] != REPS or settings["method"] != "taskbench":
        problems.append(f"settings: {settings}")
    if not doc["runtimes"]["libgomp"]["found"]:
        problems.append("libgomp not found")
    cells = {(c["workload"], c["threads"], c["runtime"]): c for c in doc["cells"]}
    want = {(w, t, "libgomp") for w in WORKLOADS for t in THREADS}
    if set(cells) != want:
        problems.append(f"cells {sorted(cells)} instead of {sorted(want)}")
    for key, cell in cells.items():
        check_cell(key, cell, problems)
    # Every run of a workload computes the same thing, at every team size.
    for w in WORKLOADS:
        answers = {cells[(w, t, "libgomp")]["check"] for t in THREADS if (w, t, "libgomp") in cells}
        if len(answers) != 1:
            problems.append(f"{w}: different answers {answers}")
    return finish("check_bench_tasks_json", problems)


if __name__ == "__main__":
    sys.exit(main())
