"""What the checkers of the benchmarks' --json output share (imported by
check_bench_barrier_json.py and omp_tools/check_bench_*.py)."""


def check_outliers(key, outliers, samples, median, problems):
    """The tail count a cell reports must be its samples above 5x its median
    (none when the median is not above 0)."""
    above = sum(x > 5 * median for x in samples) if median > 0 else 0
    if outliers != above:
        problems.append(f"{key}: outliers {outliers}, but {above} samples are above 5x the median")


def finish(name, problems):
    """Prints each problem and the verdict; the exit status."""
    for p in problems:
        print(f"{name}:", p)
    print(f"{name}:", "FAILED" if problems else "ok")
    return 1 if problems else 0
