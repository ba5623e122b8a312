#!/usr/bin/env python3
"""Checks libmuster-omp.so's dynamic symbols against its version script.

    check_exports.py LIBRARY MAP [--libgomp LIBGOMP] [--libomp LIBOMP]

- every name the map lists is defined, at the node that lists it (the
  linker silently drops a listed name that nothing defines);
- nothing else is exported but the @VERSION second names of omp_* and the
  @OMP_1.0 second names of the lock routines, C and Fortran;
- every omp_* function at one of gcc's OMP_x nodes has a second name at
  VERSION (what clang-built binaries ask for), except omp_target_*, which
  LLVM keeps in libomptarget; so has every GOMP_* (libomp exports them at
  VERSION too: gcc code linked against libomp asks for those);
- the @VERSION nest-lock functions are not gcc's (LLVM's omp_nest_lock_t is
  8 bytes, gcc's 16): their addresses differ from the OMP_3.0 ones;
- with --libgomp: every name that libgomp.so.1 exports, at each of its
  versions (default or not), is exported by LIBRARY at the same version,
  but those LEFT_OUT_OF_LIBGOMP names, each with its reason;
- with --libomp: every name LLVM's libomp.so.5 exports is exported by
  LIBRARY at VERSION, where libomp exports it, but those LEFT_OUT_OF_LIBOMP
  names, each with its reason.
The names left out are printed, grouped by reason, so the diff is on
record in every run.
Exit status 0 when all hold; otherwise each problem is printed.
"""
import re
import subprocess
import sys

FORTRAN_LOCK = {"omp_%s_%slock_" % (op, kind) for op in ("init", "destroy", "set", "unset", "test")
                for kind in ("", "nest_")}

C_LOCK = {"omp_%s_%slock" % (op, kind) for op in ("init", "destroy", "set", "unset", "test") for kind in ("", "nest_")}

NEST_LOCK = ("omp_init_nest_lock", "omp_init_nest_lock_with_hint", "omp_destroy_nest_lock", "omp_set_nest_lock",
             "omp_unset_nest_lock", "omp_test_nest_lock")


def read_map(path):
    """{name: node} for every global name the version script lists."""
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    listed = {}
    for node, body in re.findall(r"([A-Za-z0-9_.]+)\s*\{(.*?)\}", text, flags=re.S):
        globals_part = body.split("local:")[0].replace("global:", "")
        for name in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*;", globals_part):
            listed[name] = node
    return listed


def read_exports(path):
    """[(name, version, is_default, address)] of the defined dynamic symbols."""
    out = subprocess.run(["readelf", "--dyn-syms", "-W", path], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 8 or parts[6] == "UND" or parts[4] not in ("GLOBAL", "WEAK"):
            continue
        m = re.match(r"([^@]+)(@@?)(.+)$", parts[7])
        if not m:
            continue  # unversioned: not ours (the version script versions everything)
        syms.append((m.group(1), m.group(3), m.group(2) == "@@", parts[1]))
    return syms


# (pattern, reason): a peer's names muster does not export, and why.
LEFT_OUT_OF_LIBGOMP = [
    (r"^(acc_|GOACC_)", "OpenACC: muster is an OpenMP runtime"),
    (r"^GOMP_PLUGIN_", "libgomp's interface for its offload plugins: muster has no devices"),
]
LEFT_OUT_OF_LIBOMP = [
    (r"^___?kmp_(?!.*_debug$)", "libomp's internals its build leaves visible: no compiler emits them"),
    (r"^__kmpc_invoke_task_func$", "libomp's own thread start (runs a thread's microtask): no compiler emits it"),
    (r"^kmp_threadprivate_insert", "libomp's internals of __kmpc_threadprivate: no compiler emits them"),
    (r"^kmp_[a-f]_debug$|^kmp_diag$", "libomp's debugging variables (KMP_A_DEBUG...): no program reads them"),
    (r"^(ompt_start_tool|kmp_mutex_impl_info)$", "the OMPT tools interface: not in muster yet (issue #40)"),
    (r"^omp_get_(num_)?interop.*_$", "Fortran names of the interop queries: muster makes no interop object, and "
                                     "libomp's omp_lib calls the C names"),
]


def left_out_reason(name, rules):
    for pattern, reason in rules:
        if re.search(pattern, name):
            return reason
    return None


def against_peer(peer, exports, rules, version_of):
    """Problems: names the peer exports that LIBRARY lacks (at
    version_of(peer's version)), not left out by rules; and the lines that
    say what was compared and what was left out, by reason."""
    ours = {(n, v) for n, v, _, _ in exports}
    theirs = sorted({(n, v) for n, v, _, _ in read_exports(peer)})
    left_out, problems, wanted = {}, [], 0
    for name, version in theirs:
        reason = left_out_reason(name, rules)
        if reason is not None:
            left_out.setdefault(reason, set()).add(name)
            continue
        wanted += 1
        if (name, version_of(version)) not in ours:
            problems.append("%s@%s: exported by %s, not by muster" % (name, version_of(version), peer))
    lines = ["%s: %d of its %d versioned names exported at the same version; %d names left out:" % (
        peer, wanted - len(problems), len(theirs), sum(len(v) for v in left_out.values()))]
    for reason, names in sorted(left_out.items()):
        names = sorted(names)
        lines.append("  %d: %s (%s%s)" % (len(names), reason, ", ".join(names[:4]), ", ..." if len(names) > 4 else ""))
    return problems, "\n".join(lines)


def main():
    args = sys.argv[1:]
    peers = {}
    while len(args) > 2 and args[-2] in ("--libgomp", "--libomp"):
        peers[args[-2]] = args[-1]
        args = args[:-2]
    if len(args) != 2:
        sys.exit(__doc__)
    library, map_path = args
    listed = read_map(map_path)
    exports = read_exports(library)
    problems = []
    defaults = {(n, v) for n, v, d, _ in exports if d}
    for name, node in sorted(listed.items()):
        if (name, node) not in defaults:
            problems.append("%s is listed at %s but not defined there" % (name, node))
    by_version = {}
    for name, version, is_default, address in exports:
        if version.startswith(("libmuster", "GLIBC")):
            continue
        if is_default and listed.get(name) != version:
            problems.append("%s@@%s is exported but not listed at that node" % (name, version))
        if not is_default and not (version == "VERSION" and name.startswith(("omp_", "GOMP_"))) and not (
                version == "OMP_1.0" and (name in FORTRAN_LOCK or name in C_LOCK)):
            problems.append("%s@%s: an unexpected second name" % (name, version))
        by_version.setdefault(name, {})[version] = address
    gomp_omp = sorted(n for n, node in listed.items() if n.startswith("omp_") and node.startswith("OMP_"))
    for name in gomp_omp:
        if name.startswith("omp_target_"):
            continue
        if "VERSION" not in by_version.get(name, {}):
            problems.append("%s has no second name at VERSION (a clang-built binary cannot bind to it)" % name)
    for name in sorted(n for n, node in listed.items() if n.startswith("GOMP_")):
        if "VERSION" not in by_version.get(name, {}):
            problems.append("%s has no second name at VERSION (gcc code linked against libomp asks for it)" % name)
    for name in NEST_LOCK:
        versions = by_version.get(name, {})
        gcc_node = [a for v, a in versions.items() if v.startswith("OMP_")]
        if "VERSION" in versions and gcc_node and versions["VERSION"] in gcc_node:
            problems.append("%s@VERSION is gcc's 16-byte nest lock (same address): it overruns LLVM's" % name)
    fortran = [n for n, node in listed.items() if n.endswith("_") and n.startswith("omp_")]
    for name in sorted(fortran):
        if "VERSION" not in by_version.get(name, {}):
            problems.append("%s has no second name at VERSION (where libomp exports it: flang-built binaries "
                            "bind there)" % name)
    for name in sorted(FORTRAN_LOCK | C_LOCK):
        if "OMP_1.0" not in by_version.get(name, {}):
            problems.append("%s has no second name at OMP_1.0 (binaries of gcc before 4.4 bind there)" % name)
    summaries = []
    if "--libgomp" in peers:
        missing, summary = against_peer(peers["--libgomp"], exports, LEFT_OUT_OF_LIBGOMP, lambda v: v)
        problems += missing
        summaries.append(summary)
    if "--libomp" in peers:
        # libomp exports gcc's names at gcc's nodes too: muster's twins at VERSION are what clang binaries use.
        missing, summary = against_peer(peers["--libomp"], exports, LEFT_OUT_OF_LIBOMP,
                                        lambda v: v if v.startswith(("OMP_", "GOMP_")) else "VERSION")
        problems += missing
        summaries.append(summary)
    if problems:
        print("%d problem(s) in %s's exports:" % (len(problems), library))
        for p in problems:
            print("  " + p)
        for summary in summaries:
            print(summary)
        return 1
    print("exports ok: %d names listed, %d omp_* with a VERSION twin, %d symbols exported" % (
        len(listed), len([n for n in gomp_omp if not n.startswith("omp_target_")]), len(exports)))
    for summary in summaries:
        print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
