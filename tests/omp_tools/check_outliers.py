#!/usr/bin/env python3
"""The outlier check of issue #10: runs one short OpenMP program as many
separate processes, with default settings, and fails when any run is an
outlier against the others (more than --ratio times the median).

A median of many processes hides a bad mode that some processes fall into
and stay in for their whole run (a team whose threads share a CPU while
each barrier spins its budget): this check looks at every run.

usage: check_outliers.py [--runs N] [--ratio R] [--allow K] -- COMMAND [ARGS...]

--allow K tolerates up to K outliers: a shared virtual machine now and then
stalls a whole process for tens of milliseconds (the host takes the
virtual CPU), which no runtime can help; a bad mode shows in many runs.
--retry N runs a failed set again, up to N times, after a pause of
--pause seconds: stalls of the host come in bursts that can outlast a set
(seen: 13 outliers over two sets in 2.5 s), a bad mode is in every set.

COMMAND must print 'us=T' (the run's time in microseconds); it runs with
the environment given, so `muster run --threads 2 -- outlier_prog` or a
plain program under OMP_NUM_THREADS.  Exit status: 0 when no run is an
outlier, 1 when one is (or a run failed), 2 for a bad command line.
"""
import argparse
import re
import statistics
import subprocess
import sys
import time

TIME = re.compile(r"\bus=([0-9.]+)")


def run_once(command, timeout):
    """The run's time in us, or raises RuntimeError saying what went wrong."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"did not finish within {timeout} s")
    except OSError as error:
        raise RuntimeError(f"cannot run {command[0]}: {error.strerror}")
    if done.returncode != 0:
        raise RuntimeError(f"exit status {done.returncode}: {done.stderr.strip()[-300:]}")
    found = TIME.search(done.stdout)
    if found is None:
        raise RuntimeError(f"no 'us=' in its output: {done.stdout.strip()[-200:]!r}")
    return float(found.group(1))


def main(argv):
    parser = argparse.ArgumentParser(prog="check_outliers.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60, help="processes to run (default 60, at least 10)")
    parser.add_argument("--ratio", type=float, default=20.0,
                        help="a run above this many times the median fails the check (default 20)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds one run may take (default 20)")
    parser.add_argument("--allow", type=int, default=0,
                        help="outliers tolerated, for stalls of the host (default 0)")
    parser.add_argument("--retry", type=int, default=0,
                        help="sets run again after a failed one (default 0)")
    parser.add_argument("--pause", type=float, default=5.0,
                        help="seconds between a failed set and the next (default 5)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run (put it after --)")
    if args.runs < 10:
        parser.error(f"--runs {args.runs}: at least 10 runs are needed for a median to judge by")
    if args.allow < 0 or args.allow >= args.runs // 10:
        parser.error(f"--allow {args.allow}: must be from 0 to a tenth of the runs")
    if args.ratio <= 1:
        parser.error(f"--ratio {args.ratio}: must be above 1")
    if args.retry < 0 or args.retry > 3:
        parser.error(f"--retry {args.retry}: must be from 0 to 3")
    for attempt in range(args.retry + 1):
        if attempt > 0:
            print(f"set {attempt} failed; running set {attempt + 1} of at most {args.retry + 1} "
                  f"after {args.pause:g} s")
            time.sleep(args.pause)
        status = one_set(args, command)
        if status == 0:
            break
    print(f"{1 if status == 0 else 0} passed, {0 if status == 0 else 1} failed")
    return status


def one_set(args, command):
    """Runs one set of args.runs processes and judges it: 0 or 1."""
    times = []
    started = time.monotonic()
    for k in range(args.runs):
        try:
            times.append(run_once(command, args.timeout))
        except RuntimeError as error:
            print(f"run {k + 1}: {error}")
            return 1
    median = statistics.median(times)
    limit = args.ratio * median
    outliers = [(k + 1, t) for k, t in enumerate(times) if t > limit]
    worst = max(times)
    print(f"{args.runs} runs in {time.monotonic() - started:.1f} s: median {median:.0f} us, "
          f"best {min(times):.0f} us, worst {worst:.0f} us ({worst / median:.1f}x the median)")
    print("runs in order (us): " + " ".join(f"{t:.0f}" for t in times))
    print(f"above 5x the median: {sum(t > 5 * median for t in times)}; "
          f"above {args.ratio:g}x (the limit, {limit:.0f} us): {len(outliers)}")
    for k, t in outliers:
        print(f"  outlier: run {k} took {t:.0f} us, {t / median:.1f}x the median")
    failed = len(outliers) > args.allow
    if outliers and not failed:
        print(f"{len(outliers)} outlier(s), within the {args.allow} allowed for stalls of the host")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
