"""Checks the shape of `muster bench omp --json` read from stdin: strict JSON,
the settings asked for, one cell per construct x team size x runtime, and
numbers wherever a cell is ok.  Exits 0 when all is well, else 1 with why."""
import json
import sys
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_json_check import check_outliers, finish  # noqa: E402 (tests/, found above)


def main():
    doc = json.load(sys.stdin)
    problems = []
    settings = doc["settings"]
    if settings["threads"] != [2, 3] or settings["reps"] != 2 or settings["method"] != "epcc-syncbench":
        problems.append(f"settings: {settings}")
    if not doc["runtimes"]["libgomp"]["found"]:
        problems.append("libgomp not found")
    cells = {(c["construct"], c["threads"], c["runtime"]): c for c in doc["cells"]}
    want = {(c, t, "libgomp") for c in ("BARRIER", "ATOMIC") for t in (2, 3)}
    if set(cells) != want:
        problems.append(f"cells {sorted(cells)} instead of {sorted(want)}")
    for key, cell in cells.items():
        if cell["status"] != "ok" or cell["samples"] != 2 or cell["inner"] < 1:
            problems.append(f"{key}: {cell}")
        for field in ("mean_us", "median_us", "sd_us", "min_us", "max_us", "worst_us", "csw_per_op", "cpu_us_per_op"):
            if not isinstance(cell[field], (int, float)):
                problems.append(f"{key}: {field} is {cell[field]!r}")
        if not cell["min_us"] <= cell["median_us"] <= cell["max_us"] == cell["worst_us"]:
            problems.append(f"{key}: median outside [min, max], or worst is not the max")
        samples = cell["samples_us"]
        if len(samples) != 2 or min(samples) != cell["min_us"] or max(samples) != cell["max_us"]:
            problems.append(f"{key}: samples_us {samples} do not match min/max")
        check_outliers(key, cell["outliers"], samples, cell["median_us"], problems)
    return finish("check_bench_json", problems)


if __name__ == "__main__":
    sys.exit(main())
