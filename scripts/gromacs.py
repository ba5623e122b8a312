#!/usr/bin/env python3
"""Times GROMACS, Debian's build (gcc, linked against libgomp), on
libmuster-omp beside libgomp and LLVM libomp: a real molecular-dynamics
program, not ours.

GROMACS is not part of muster: this needs Debian's `gmx` (apt-get install
gromacs; Debian 12 has GROMACS 2022.5).  Once, into --work, the script
prepares its input: a box of SPC/E water (gmx solvate of spc216.gro, a cube
of --box nm: 4.5 nm holds about 2,970 waters, about 8,900 atoms), OPLS-AA's
water model, a short steepest-descent minimisation, then an .mdp with PME
electrostatics (rcoulomb = rvdw = 1.0 nm, Verlet lists, md at dt 2 fs,
SETTLE for the water, v-rescale at 300 K, output so rare that I/O does not
count) and gmx grompp to topol.tpr.  A folder that already holds topol.tpr
is reused: delete it to prepare again (or to change --box).

Then every round runs `gmx mdrun -ntmpi 1 -ntomp T -pin off -nb cpu -nsteps
N -noconfout` once per runtime at each of --threads, the runtimes' order
rotated from round to round: libgomp (as built), libomp
(LD_PRELOAD=/usr/lib/llvm-14/lib/libomp.so.5, which defines libgomp's
GOMP_* entry points) and muster (`muster run --threads T --`).  Each run
has its own files under --work/runs.  Read: ns/day from mdrun's log
("Performance:"), the process's CPU seconds (user + sys, from wait4) and
its wall seconds (muster's include `muster run`'s entry-point check, some
20 ms; ns/day does not).  Printed per thread count: the median,
worst and best ns/day, the median wall and CPU seconds, how many rounds
strayed more than 10% from the median, and muster's median ns/day / the
better peer's (above 1: muster is faster).  A run that fails (nonzero
exit, or no Performance line) is named with the tail of its output.

--baseline BUILD adds a fourth runtime, "baseline": another build folder of
muster (BUILD/tools/muster), a checkout before a change, run in the same
rotation, with muster's ns/day over the baseline's in the same round.  Runs
of muster and the baseline set MUSTER_OMP_WAIT_STATS=1: their rows give the
median futex sleeps and costly-yield spells of a run, from that line.

Not run by CI (it needs Debian's gromacs); a development tool.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBOMP = "/usr/lib/llvm-14/lib/libomp.so.5"
RUNTIMES = ("libgomp", "libomp", "muster")
MUSTERS = ("muster", "baseline")  # runtimes that are builds of muster
WAIT_STATS = re.compile(r"^libmuster-omp: waits: sleeps=(\d+) .*costly_spells=(\d+)", re.M)
STRAY = 0.10  # a round "strays" when its ns/day is this far from the runtime's median


def steal_seconds():
    """CPU time the hypervisor gave to others so far, all CPUs (/proc/stat's steal), in seconds:
    on a shared VM a run with much of it measured the host, not the runtime."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0

TOPOLOGY = """; written by muster's scripts/gromacs.py
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spce.itp"

[ system ]
SPC/E water, {waters} molecules

[ molecules ]
SOL {waters}
"""
EM_MDP = """; written by muster's scripts/gromacs.py: a short minimisation, so md starts calm
; flexible water here (SETTLE and steepest descent's large steps do not mix)
define = -DFLEXIBLE
integrator = steep
nsteps = 500
emtol = 1000
emstep = 0.01
cutoff-scheme = Verlet
coulombtype = PME
rcoulomb = 1.0
rvdw = 1.0
"""
MD_MDP = """; written by muster's scripts/gromacs.py (mdrun -nsteps overrides nsteps)
integrator = md
dt = 0.002
nsteps = 3000
cutoff-scheme = Verlet
nstlist = 10
coulombtype = PME
rcoulomb = 1.0
rvdw = 1.0
DispCorr = EnerPres
fourierspacing = 0.12
pme-order = 4
; SPC/E's own SETTLE holds the water rigid
constraints = h-bonds
tcoupl = v-rescale
tc-grps = System
tau-t = 0.1
ref-t = 300
gen-vel = yes
gen-temp = 300
gen-seed = 1
; so rare that I/O does not count
nstcalcenergy = 100
nstenergy = 1000000
nstlog = 1000000
nstxout = 0
nstvout = 0
nstfout = 0
nstxout-compressed = 0
"""


def note(msg):
    print(msg, file=sys.stderr, flush=True)


def clean_env(extra):
    """The environment without any runtime's settings, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_", "MUSTER_"))}
    env.pop("LD_PRELOAD", None)
    env["GMX_MAXBACKUP"] = "-1"  # no #file.1# backups
    env.update(extra)
    return env


def gmx_step(gmx, work, log, args):
    """Runs one `gmx` preparation step in `work`, its output appended to `log`; exits on failure."""
    with open(log, "a") as f:
        f.write(f"\n$ gmx {' '.join(args)}\n")
        f.flush()
        rc = subprocess.call([gmx] + args, cwd=work, stdout=f, stderr=subprocess.STDOUT,
                             env=clean_env({"OMP_NUM_THREADS": "1"}))
    if rc != 0:
        sys.exit(f"gromacs: `gmx {' '.join(args)}` failed (exit {rc}): see {log}")


def atoms_in(gro):
    with open(gro) as f:
        f.readline()
        return int(f.readline())


def prepare(gmx, work, box):
    """Makes work/topol.tpr unless it is there; returns the number of atoms."""
    tpr = os.path.join(work, "topol.tpr")
    gro = os.path.join(work, "conf.gro")
    if os.path.exists(tpr) and os.path.exists(gro):
        note(f"gromacs: reusing {tpr}")
        return atoms_in(gro)
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "prepare.log")
    open(log, "w").close()
    note(f"gromacs: preparing a {box} nm water box in {work} (log: {log})")
    gmx_step(gmx, work, log, ["solvate", "-cs", "spc216.gro", "-box", str(box), str(box), str(box),
                              "-o", "conf.gro"])
    atoms = atoms_in(gro)
    if atoms % 3:
        sys.exit(f"gromacs: {gro} has {atoms} atoms, not whole 3-site waters")
    with open(os.path.join(work, "topol.top"), "w") as f:
        f.write(TOPOLOGY.format(waters=atoms // 3))
    with open(os.path.join(work, "em.mdp"), "w") as f:
        f.write(EM_MDP)
    with open(os.path.join(work, "md.mdp"), "w") as f:
        f.write(MD_MDP)
    gmx_step(gmx, work, log, ["grompp", "-f", "em.mdp", "-c", "conf.gro", "-p", "topol.top", "-o", "em.tpr",
                              "-po", "em-out.mdp"])
    gmx_step(gmx, work, log, ["mdrun", "-s", "em.tpr", "-deffnm", "em", "-ntmpi", "1", "-ntomp", "1", "-nb", "cpu",
                              "-pin", "off"])
    gmx_step(gmx, work, log, ["grompp", "-f", "md.mdp", "-c", "em.gro", "-p", "topol.top", "-o", "md.tpr",
                              "-po", "md-out.mdp"])
    os.rename(os.path.join(work, "md.tpr"), tpr)  # last: a half-prepared folder is not reused
    return atoms


def under(runtime, threads, musters):
    """The command prefix and environment that run gmx on `runtime` (as scripts/npb.py does)."""
    if runtime in MUSTERS:
        return [musters[runtime], "run", "--threads", str(threads), "--"], {"MUSTER_OMP_WAIT_STATS": "1"}
    env = {"OMP_NUM_THREADS": str(threads)}
    if runtime == "libomp":
        env["LD_PRELOAD"] = LIBOMP
    return [], env


def mdrun(gmx, work, name, runtime, threads, nsteps, musters, timeout):
    """One timed run: (ns/day or None, wall s, CPU s, steal s, (sleeps, costly spells) or None, why it
    failed or None)."""
    runs = os.path.join(work, "runs")
    os.makedirs(runs, exist_ok=True)
    base = os.path.join(runs, name)
    for ext in (".log", ".edr", ".cpt", ".out"):
        if os.path.exists(base + ext):
            os.remove(base + ext)
    prefix, env = under(runtime, threads, musters)
    cmd = prefix + [gmx, "mdrun", "-s", os.path.join(work, "topol.tpr"), "-deffnm", base, "-g", base + ".log",
                    "-ntmpi", "1", "-ntomp", str(threads), "-pin", "off", "-nb", "cpu", "-nsteps", str(nsteps),
                    "-noconfout", "-cpt", "-1"]
    out = base + ".out"
    stolen = steal_seconds()
    with open(out, "w") as f:
        start = time.monotonic()
        p = subprocess.Popen(cmd, cwd=runs, env=clean_env(env), stdout=f, stderr=subprocess.STDOUT)
        killed = []
        timer = threading.Timer(timeout, lambda: (killed.append(1), p.kill()))
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        wall = time.monotonic() - start
    stolen = steal_seconds() - stolen
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here: tell Popen
    cpu = ru.ru_utime + ru.ru_stime
    perf = None
    if os.path.exists(base + ".log"):
        with open(base + ".log", errors="replace") as f:
            m = re.search(r"^Performance:\s+([0-9.]+)", f.read(), re.M)
        perf = float(m.group(1)) if m else None
    waits = None
    with open(out, errors="replace") as f:
        m = WAIT_STATS.search(f.read())
    if m:
        waits = (int(m.group(1)), int(m.group(2)))
    why = None
    if killed:
        why = f"timed out after {timeout} s"
    elif p.returncode != 0:
        why = f"exit {p.returncode}" if p.returncode > 0 else f"killed by signal {-p.returncode}"
    elif perf is None:
        why = "exit 0 but no Performance line in its log"
    if why:
        with open(out, errors="replace") as f:
            tail = [l.rstrip() for l in f.read().splitlines() if l.strip()][-12:]
        why += (f" (output: {out}); its last lines:\n" + "\n".join("    " + l[:96] for l in tail) if tail
                else f" (output: {out}, empty)")
        perf = None
    return perf, wall, cpu, stolen, waits, why


def round_ratios(results, threads, rounds, against):
    """muster's ns/day over the best of `against` in the same round, for every round that has them:
    the machine's drift between rounds cancels."""
    ratios = []
    for k in range(rounds):
        def perf(runtime):
            runs = results.get((runtime, threads), [])
            return runs[k][0] if k < len(runs) else None
        others = [perf(r) for r in against if perf(r) is not None]
        if perf("muster") is not None and others:
            ratios.append(perf("muster") / max(others))
    return ratios


def median_of(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def report(results, failures, runtimes, threads_list, rounds, nsteps, atoms):
    print(f"GROMACS: {atoms} atoms of SPC/E water, PME; {nsteps} steps a run, {rounds} interleaved "
          f"round{'s' if rounds > 1 else ''}")
    print("ns/day: median, worst, best (higher is better); wall, CPU and steal seconds: medians (steal:")
    print("  the hypervisor's, all CPUs, during the run)")
    print(f"strays: rounds more than {STRAY:.0%} from the runtime's median ns/day; failed: runs without one")
    for threads in threads_list:
        print()
        print(f"{threads} threads  {'ns/day':>8s} {'worst':>8s} {'best':>8s} {'wall s':>8s} {'CPU s':>8s} "
              f"{'steal s':>8s} {'strays':>7s} {'failed':>7s} {'sleeps':>7s} {'costly':>7s}")
        medians = {}
        for runtime in runtimes:
            runs = results.get((runtime, threads), [])
            good = [r for r in runs if r[0] is not None]
            failed = len(runs) - len(good)
            if not good:
                print(f"{runtime:10s} {'-':>8s} {'-':>8s} {'-':>8s} {'-':>8s} {'-':>8s} {'-':>8s} {'-':>7s} "
                      f"{failed:7d}")
                continue
            perf = [r[0] for r in good]
            med = medians[runtime] = statistics.median(perf)
            strays = sum(abs(x - med) > STRAY * med for x in perf)
            sleeps = median_of(r[4][0] if r[4] else None for r in good)
            costly = median_of(r[4][1] if r[4] else None for r in good)
            waits = f" {sleeps:7.0f} {costly:7.0f}" if sleeps is not None else f" {'-':>7s} {'-':>7s}"
            print(f"{runtime:10s} {med:8.3f} {min(perf):8.3f} {max(perf):8.3f} "
                  f"{statistics.median(r[1] for r in good):8.2f} {statistics.median(r[2] for r in good):8.2f} "
                  f"{statistics.median(r[3] for r in good):8.2f} {strays:7d} {failed:7d}{waits}")
        peers = {r: m for r, m in medians.items() if r not in MUSTERS}
        if "muster" in medians and peers:
            best = max(peers, key=peers.get)
            line = f"muster / better peer ({best}): {medians['muster'] / peers[best]:.3f}"
            if "libomp" in peers and best != "libomp":
                line += f"; muster / libomp: {medians['muster'] / peers['libomp']:.3f}"
            print(line)
            ratios = round_ratios(results, threads, rounds, [r for r in RUNTIMES if r not in MUSTERS])
            if ratios:
                print(f"muster / the better peer of the same round: median {statistics.median(ratios):.3f}, "
                      f"worst {min(ratios):.3f}, over {len(ratios)} rounds")
        if "muster" in medians and "baseline" in medians:
            ratios = round_ratios(results, threads, rounds, ["baseline"])
            print(f"muster / baseline of the same round: median {statistics.median(ratios):.3f}, "
                  f"worst {min(ratios):.3f}, best {max(ratios):.3f}, over {len(ratios)} rounds")
    print()
    print("target (2 CPUs): at 4 threads, muster >= libomp's ns/day; at 2 threads, not below its "
          "2-thread lead")
    if failures:
        print()
        print(f"{len(failures)} runs failed:")
        for f in failures:
            print(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--work", default="/tmp/muster-gromacs",
                    help="where the input is prepared (once) and the runs' files go (default %(default)s)")
    ap.add_argument("--threads", default="2,4", help="comma-separated OpenMP thread counts (default %(default)s)")
    ap.add_argument("--nsteps", type=int, default=3000, help="md steps per run, 2 fs each (default %(default)s)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default %(default)s)")
    ap.add_argument("--runtimes", default=",".join(RUNTIMES),
                    help="comma-separated, among libgomp, libomp, muster (default %(default)s)")
    ap.add_argument("--box", type=float, default=4.5,
                    help="edge of the water cube in nm, used only when preparing (default %(default)s: "
                         "about 8,900 atoms)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds allowed one run (default %(default)s)")
    ap.add_argument("--baseline", metavar="BUILD",
                    help="another build folder of muster (a checkout before a change) to run as 'baseline'")
    a = ap.parse_args()
    try:
        threads_list = [int(t) for t in a.threads.split(",") if t]
    except ValueError:
        ap.error(f"--threads {a.threads!r} is not a list of whole numbers")
    if not threads_list or any(t < 1 for t in threads_list):
        ap.error("--threads: counts must be at least 1")
    if a.nsteps < 1 or a.rounds < 1 or a.timeout < 1 or a.box <= 0:
        ap.error("--nsteps, --rounds, --timeout and --box must be positive")
    runtimes = [r for r in a.runtimes.split(",") if r]
    bad = [r for r in runtimes if r not in RUNTIMES]
    if not runtimes or bad or len(set(runtimes)) < len(runtimes):
        ap.error(f"--runtimes {a.runtimes!r}: some of {', '.join(RUNTIMES)}, each once")
    gmx = shutil.which("gmx")
    if gmx is None:
        ap.error("gmx not found: this needs Debian's GROMACS; run `apt-get install gromacs` (as root)")
    if "libomp" in runtimes and not os.path.exists(LIBOMP):
        ap.error(f"{LIBOMP} not found: run `apt-get install libomp5-14`, or leave libomp out of --runtimes")
    musters = {"muster": os.path.join(ROOT, "build", "tools", "muster")}
    if a.baseline:
        musters["baseline"] = os.path.join(os.path.abspath(a.baseline), "tools", "muster")
        if not os.access(musters["baseline"], os.X_OK):
            ap.error(f"--baseline {a.baseline!r}: {musters['baseline']} not found: give a build folder of muster "
                     "(the folder cmake built, holding tools/muster)")
        runtimes.append("baseline")
    if "muster" in runtimes and not os.access(musters["muster"], os.X_OK):
        ap.error(f"{musters['muster']} not found: build muster first (README)")
    atoms = prepare(gmx, os.path.abspath(a.work), a.box)
    work = os.path.abspath(a.work)

    results, failures = {}, []
    start = time.time()
    for r in range(a.rounds):
        order = runtimes[r % len(runtimes):] + runtimes[:r % len(runtimes)]
        for threads in threads_list:
            for runtime in order:
                note(f"gromacs: round {r + 1}/{a.rounds}: {runtime}, {threads} threads ...")
                perf, wall, cpu, stolen, waits, why = mdrun(gmx, work, f"r{r + 1}-{runtime}-t{threads}", runtime,
                                                            threads, a.nsteps, musters, a.timeout)
                results.setdefault((runtime, threads), []).append((perf, wall, cpu, stolen, waits))
                if why:
                    failures.append(f"FAILED round {r + 1}, {runtime}, {threads} threads: {why}")
                    note(f"gromacs:   {runtime} FAILED: {why.splitlines()[0]}")
                else:
                    note(f"gromacs:   {perf:.3f} ns/day, {wall:.1f} s wall, {cpu:.1f} s CPU, {stolen:.1f} s stolen")
    note(f"gromacs: {a.rounds} rounds in {time.time() - start:.0f} s")
    report(results, failures, runtimes, threads_list, a.rounds, a.nsteps, atoms)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
