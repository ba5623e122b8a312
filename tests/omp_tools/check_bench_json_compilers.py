"""Checks `muster bench omp --json` with both compilers, read from stdin:
{"runs": [gcc's object, clang's object]}, in that order, each with ok cells
for libomp and muster.  Exits 0 when all is well, else 1 with why."""
import json
import sys


def main():
    doc = json.load(sys.stdin)
    seen = [(run["settings"]["compiler"], sorted({c["runtime"] for c in run["cells"] if c["status"] == "ok"}))
            for run in doc["runs"]]
    want = [("gcc", ["libomp", "muster"]), ("clang", ["libomp", "muster"])]
    if seen != want:
        print(f"check_bench_json_compilers: runs {seen}, expected {want}")
        return 1
    print("check_bench_json_compilers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
