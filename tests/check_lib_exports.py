#!/usr/bin/env python3
"""libmuster.so exports exactly its public API.

The names declared with MUSTER_API in include/muster/*.h, the globals of the
version script src/libmuster.map, and the functions `nm -D --defined-only`
finds in the built library must be one and the same set, each at the version
node MUSTER_0.1.  Anything else exported (an internal muster_* helper, an
unprefixed json_* that could collide with a program's own) fails.

usage: check_lib_exports.py LIBMUSTER_SO SOURCE_DIR [NM]
"""
import pathlib
import re
import subprocess
import sys


def header_api(source):
    names = set()
    for header in sorted((source / "include" / "muster").glob("*.h")):
        text = header.read_text()
        names |= set(re.findall(r"(?m)^MUSTER_API [^(;]*?\b([A-Za-z_][A-Za-z0-9_]*)\(", text))
    return names


def map_globals(source):
    text = (source / "src" / "libmuster.map").read_text()
    body = re.search(r"global:(.*?)local:", text, re.S)
    if body is None:
        sys.exit("src/libmuster.map: no 'global:' ... 'local:' section")
    return set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*;", body.group(1)))


def exported(library, nm):
    out = subprocess.run([nm, "-D", "--defined-only", library], check=True, capture_output=True, text=True).stdout
    names, versions = set(), {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) != 3:
            continue
        name, _, version = fields[2].partition("@@")
        if fields[1] == "A":  # the version node itself
            continue
        names.add(name)
        versions[name] = version
    return names, versions


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    library, source = sys.argv[1], pathlib.Path(sys.argv[2])
    nm = sys.argv[3] if len(sys.argv) == 4 else "nm"
    api, script = header_api(source), map_globals(source)
    names, versions = exported(library, nm)
    problems = []
    for what, have in (("the version script", script), ("the library", names)):
        for name in sorted(api - have):
            problems.append(f"{name}: declared with MUSTER_API but not in {what}")
        for name in sorted(have - api):
            problems.append(f"{name}: in {what} but not declared with MUSTER_API in include/muster/")
    for name in sorted(names):
        if versions.get(name) != "MUSTER_0.1":
            problems.append(f"{name}: exported at version '{versions.get(name)}', not MUSTER_0.1")
    if len(api) < 30:
        problems.append(f"only {len(api)} MUSTER_API names found in the headers: the parser is broken")
    for p in problems:
        print(p)
    print(f"{len(api)} API functions, {len(names)} exported, {len(problems)} problems")
    sys.exit(1 if problems else 0)


main()
