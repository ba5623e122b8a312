#!/usr/bin/env python3
"""Checks the topology JSON and the `muster topology` command from outside.

usage:
  check_topology.py json COMMAND...       COMMAND prints one topology JSON object
                                          (test_topology json)
  check_topology.py json-flat COMMAND...  the same, and it must be the flat
                                          topology (test_topology json-flat)
  check_topology.py cli MUSTER...         runs `MUSTER topology` with --json, with
                                          no option, --help, --bogus and extra

COMMAND and MUSTER may start with an emulator (qemu-aarch64 -L ...).  The JSON
must parse (json.loads is strict), have every member with the right type, and
its levels must partition the PUs, all inside the affinity mask.  Exit status 0
when everything holds; otherwise 1 and the reasons on stderr.
"""
import json
import subprocess
import sys

LEVELS = ("packages", "numa_nodes", "l3", "l2", "cores")
failures = []


def fail(message):
    failures.append(message)
    print("check_topology: " + message, file=sys.stderr)


def run(command):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)


def is_cpu_list(value):
    return isinstance(value, list) and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0
                                           for c in value)


def check_level(topology, name, pus):
    groups = topology[name]
    if groups is None:  # unknown: only the caches may be
        if name not in ("l3", "l2"):
            fail(f"{name} is null; only l3 and l2 may be unknown")
        return
    if not isinstance(groups, list) or not all(is_cpu_list(g) and g for g in groups):
        fail(f"{name} is not a list of non-empty CPU lists: {groups!r}")
        return
    seen = [c for g in groups for c in g]
    if len(seen) != len(set(seen)):
        fail(f"{name}: a CPU is in two groups: {groups}")
    if sorted(seen) != pus:
        fail(f"{name}: the groups hold {sorted(seen)}, the PUs are {pus}")
    for g in groups:
        if g != sorted(g):
            fail(f"{name}: group {g} is not ascending")


def check_topology_json(text):
    try:
        topology = json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"not valid JSON ({e}): {text[:200]!r}")
        return None
    if not isinstance(topology, dict):
        fail(f"not a JSON object: {text[:200]!r}")
        return None
    expected = {"source", "pus", "affinity", "cgroup_cpu_quota", "cluster_size", *LEVELS}
    if set(topology) != expected:
        fail(f"members {sorted(topology)}, expected {sorted(expected)}")
        return None
    if not isinstance(topology["source"], str) or not topology["source"].startswith(("hwloc ", "flat (")):
        fail(f"source {topology['source']!r}")
    pus, affinity = topology["pus"], topology["affinity"]
    if not is_cpu_list(pus) or not pus or pus != sorted(set(pus)):
        fail(f"pus {pus!r} is not an ascending, non-empty list of CPU ids")
        return None
    if not is_cpu_list(affinity) or not set(pus) <= set(affinity):
        fail(f"pus {pus} not all in the affinity mask {affinity!r}")
    for name in LEVELS:
        check_level(topology, name, pus)
    quota = topology["cgroup_cpu_quota"]
    if quota is not None and not (isinstance(quota, (int, float)) and quota > 0):
        fail(f"cgroup_cpu_quota {quota!r} is neither null nor a positive number")
    size = topology["cluster_size"]
    if not isinstance(size, int) or not 1 <= size <= len(pus):
        fail(f"cluster_size {size!r} is not in [1, {len(pus)}]")
    return topology


def check_json_command(command, flat):
    result = run(command)
    if result.returncode != 0:
        fail(f"{' '.join(command)} exited {result.returncode}: {result.stderr.strip()}")
        return
    topology = check_topology_json(result.stdout)
    if topology is not None and flat:
        if topology["source"] != "flat (no hwloc)" or len(topology["packages"]) != 1 \
                or topology["cores"] != [[c] for c in topology["pus"]] or topology["l3"] is not None:
            fail(f"not the flat topology: {result.stdout.strip()}")


def check_cli(muster):
    result = run(muster + ["topology", "--json"])
    if result.returncode != 0:
        fail(f"topology --json exited {result.returncode}: {result.stderr.strip()}")
    else:
        check_topology_json(result.stdout)
        if result.stdout.count("\n") != 1:
            fail("topology --json should print exactly one line")

    result = run(muster + ["topology"])
    if result.returncode != 0:
        fail(f"topology exited {result.returncode}: {result.stderr.strip()}")
    lines = result.stdout.splitlines()
    if not lines or not lines[0].startswith("muster topology: "):
        fail(f"topology table starts {lines[:1]}")
    for line in lines:
        if len(line) > 80:
            fail(f"table line wider than 80 columns: {line!r}")
    for label in ("affinity mask:", "cluster size:", "package", "L3 cache", "core", "PU"):
        if not any(line.startswith(label) for line in lines):
            fail(f"no line starting {label!r} in the table")

    result = run(muster + ["topology", "--help"])
    if result.returncode != 0 or "usage: muster topology" not in result.stdout:
        fail(f"topology --help exited {result.returncode} with {result.stdout[:80]!r}")

    for bad in ("--bogus", "extra"):
        result = run(muster + ["topology", bad])
        if result.returncode != 2:
            fail(f"topology {bad} exited {result.returncode}, expected 2")
        if bad not in result.stderr or result.stdout:
            fail(f"topology {bad}: stderr {result.stderr.strip()!r} should name it, stdout empty")


def main(argv):
    if len(argv) < 3 or argv[1] not in ("json", "json-flat", "cli"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] in ("json", "json-flat"):
        check_json_command(argv[2:], flat=argv[1] == "json-flat")
    else:
        check_cli(argv[2:])
    if failures:
        return 1
    print(f"check_topology {argv[1]}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
