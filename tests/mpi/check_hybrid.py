#!/usr/bin/env python3
"""A hybrid MPI + OpenMP program (tests/mpi/hybrid.c, or the Fortran
hybrid.f90) under Open MPI, 2 ranks x 2 threads, ranks bound to a core each
and unbound: on libmuster-omp it must finish and print the answer it prints
on libgomp (the runtime it was built for), each run within the timeout.
Prints each run's time; the figures that compare the runtimes are a
benchmark's (docs/testing.md).

usage: check_hybrid.py MPIRUN HYBRID LIBMUSTER_OMP [PROGRAM ARGS...]
(default arguments: hybrid.c's --sweeps 300 --points 20000)"""
import os
import subprocess
import sys

mpirun, hybrid, library = sys.argv[1], sys.argv[2], sys.argv[3]
program_args = sys.argv[4:] or ["--sweeps", "300", "--points", "20000"]
failures = 0


def run(bind, preload):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")  # containers often forbid CMA
    cmd = [mpirun, "--oversubscribe", "--bind-to", bind, "-np", "2", "-x", "OMP_NUM_THREADS=2"]
    if preload:
        cmd += ["-x", f"LD_PRELOAD={preload}"]
    cmd += [hybrid] + program_args
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        return None, "timed out after 240 s", ""
    answer = [line for line in p.stdout.splitlines() if line.split(" = ")[0] in ("sweeps", "change", "checksum")]
    timing = [line for line in p.stdout.splitlines() if line.startswith("ranks")]
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[-500:]}", ""
    return answer, "", timing[0] if timing else ""


for bind in ("core", "none"):
    reference, why, timing = run(bind, None)
    if reference is None or len(reference) != 3:
        print(f"FAIL: libgomp, --bind-to {bind}: {why or reference}")
        failures += 1
        continue
    print(f"libgomp --bind-to {bind}: {timing}")
    answer, why, timing = run(bind, library)
    if answer != reference:
        print(f"FAIL: muster, --bind-to {bind}: {why or answer} (libgomp: {reference})")
        failures += 1
    else:
        print(f"muster  --bind-to {bind}: {timing}")

print("check_hybrid: " + ("ok" if failures == 0 else f"{failures} failures"))
sys.exit(1 if failures else 0)
