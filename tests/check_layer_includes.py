#!/usr/bin/env python3
"""The include check: no file of a layer includes a header of a layer above
it.  The link checks (CMakeLists.txt: muster_layer_check_*) catch a call to a
layer above; this catches the header that would let one in, and shows the
layers in the includes.

usage: check_layer_includes.py ROOT LAYERS_FILE

LAYERS_FILE (written by CMake into the build folder) lists "layer source"
lines, lowest layer first.  A header belongs to the layer of the source
beside it with the same name (wait/policy.h: wait/policy.c's layer), or,
for a header without one, to the layer HEADER_LAYERS gives; a header that
has neither is an error, so that every new header is placed.  Only
#include "..." lines are read, in each layer's sources and headers.

KNOWN lists includes that are let go upward for now, each with its reason
(none since omp/internal.h was split along the layers, issue #39): the
check fails on any other, and on a KNOWN one that is gone.
"""
import os
import re
import sys

# Headers with no source of the same name beside them.
HEADER_LAYERS = {
    "src/names.h": "platform",
    "src/platform/platform.h": "platform",
    "src/platform/check.h": "platform",
    "src/platform/second_names.inc": "platform",
    "src/wait/tuning.h": "wait",
    "src/topology/internal.h": "topology",
    "src/barrier/internal.h": "barrier",
    "src/barrier/runtime.h": "barrier",
    "src/omp/icvs.h": "omp_env",
    # the task wing's defaults and limits, which env.c reads: constants only
    "src/omp/task/settings.h": "omp_env",
    "src/omp/task/core.h": "omp_task",
    "src/omp/task/task.h": "omp_task",
    "src/omp/team.h": "omp_thread",
    "src/omp/export.h": "omp_base",
    # OMPT's ABI, types and constants only: the hooks (ompt.h) and muster's tool
    "src/omp/ompt_abi.h": "omp_base",
    "src/omp/internal.h": "omp_core",
    "src/omp/gomp/gomp.h": "omp_abi",
    "src/omp/gomp/taskloop.inc": "omp_abi",
    "src/omp/kmp/kmp.h": "omp_abi",
    "src/omp/kmp/kmp_api.h": "omp_abi",
    "src/omp/fortran/fortran.h": "omp_abi",
}

# (includer, included): upward includes let through, each with its reason.
KNOWN = set()

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers(path):
    order, layer_of = [], {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 2:
                continue
            layer, source = parts
            if layer not in order:
                order.append(layer)
            if source.startswith("src/"):
                layer_of[source] = layer
    return order, layer_of


def resolve(root, includer, name):
    """The repository path of an #include "name" in includer: beside it, or under src/ (as the
    build's -Isrc finds it); None for a header outside src/ (include/muster/, a test's)."""
    for candidate in (os.path.join(os.path.dirname(includer), name), os.path.join("src", name)):
        candidate = os.path.normpath(candidate)
        if os.path.exists(os.path.join(root, candidate)):
            return candidate if candidate.startswith("src/") else None
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, layers_file = sys.argv[1], sys.argv[2]
    order, layer_of = read_layers(layers_file)
    rank = {layer: i for i, layer in enumerate(order)}
    errors = []

    def header_layer(header):
        source = header[:-2] + ".c"
        if source in layer_of:
            return layer_of[source]
        return HEADER_LAYERS.get(header)

    files = dict(layer_of)
    pending = list(layer_of)
    seen_upward = set()
    while pending:
        path = pending.pop()
        with open(os.path.join(root, path), errors="replace") as f:
            text = f.read()
        for name in INCLUDE.findall(text):
            header = resolve(root, path, name)
            if header is None:
                continue
            layer = header_layer(header)
            if layer is None:
                message = (f"{header} belongs to no layer: give it a source beside it or a line in "
                           f"HEADER_LAYERS (included by {path}, among others)")
                if not any(e.startswith(f"{header} belongs") for e in errors):
                    errors.append(message)
                continue
            if header not in files:
                files[header] = layer
                pending.append(header)
            if rank[layer] > rank[files[path]]:
                pair = (path, header)
                seen_upward.add(pair)
                if pair not in KNOWN:
                    errors.append(f"{path} ({files[path]}) includes {header} ({layer}), a layer above it")
    for pair in sorted(KNOWN - seen_upward):
        errors.append(f"{pair[0]} no longer includes {pair[1]} upward: take it off KNOWN")
    for pair in sorted(KNOWN & seen_upward):
        print(f"known, awaiting the split of omp/internal.h: {pair[0]} includes {pair[1]}")
    for e in errors:
        print("error: " + e)
    print(f"include check: {len(files)} files in {len(order)} layers, {len(seen_upward)} upward includes "
          f"({len(KNOWN & seen_upward)} known), {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
