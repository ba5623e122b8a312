"""Checks the shape of `muster bench barrier --json` read from stdin, run with
--threads 2,3 --reps 3 and one muster algorithm: strict JSON, one cell per row
and team size, and in each finished cell every sample and a tail that agrees
with them (median, worst, and the count above 5x the median).  Exits 0 when
all is well, else 1 with why."""
import json
import statistics
import sys

from bench_json_check import check_outliers, finish


def main():
    doc = json.load(sys.stdin)
    problems = []
    settings = doc["settings"]
    if settings["threads"] != [2, 3] or settings["reps"] != 3:
        problems.append(f"settings: {settings}")
    cells = doc["cells"]
    if not any(c["family"] == "muster" and c["status"] == "ok" for c in cells):
        problems.append("no muster cell finished")
    for c in cells:
        key = (c["impl"], c["policy"], c["threads"])
        if c["status"] != "ok":
            continue
        samples = c["samples_us"]
        if len(samples) != 3 or c["reps"] != 3:
            problems.append(f"{key}: {len(samples)} samples, reps {c['reps']}")
            continue
        expected = {"median_us": statistics.median(samples), "worst_us": max(samples),
                    "min_us": min(samples), "mean_us": statistics.mean(samples)}
        for field, value in expected.items():
            # the JSON carries 6 significant digits
            if abs(c[field] - value) > 1e-5 * max(1e-3, abs(value)):
                problems.append(f"{key}: {field} {c[field]} but the samples give {value}")
        median = statistics.median(samples)
        check_outliers(key, c["outliers"], samples, median, problems)
    return finish("check_bench_barrier_json", problems)


if __name__ == "__main__":
    sys.exit(main())
