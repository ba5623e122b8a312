"""The core-to-core latency heat map of a machine file ("muster-machine/1",
the format described at the top of src/machine/machine.h)."""
import math
import os

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from . import ReportError, is_int, is_number, load_json, optional_string, require_format, \
    require_member, require_object, require_whole_numbers, type_name, write_png

FORMAT = "muster-machine/1"
FIELDS = ("latency_ns", "round_trip_min_ns", "round_trip_median_ns")
PROBE_FIELDS = FIELDS[1:]  # these live in the "probe" member
FIELD_LABELS = {
    "latency_ns": "one-way latency (ns)",
    "round_trip_min_ns": "round trip, minimum (ns)",
    "round_trip_median_ns": "round trip, median (ns)",
}
FIGSIZE = (7.0, 6.0)    # inches; at muster_report.DPI the PNG is 700 x 600
ANNOTATE_MAX_CPUS = 16  # beyond this the numbers no longer fit in the cells
MAX_TICK_LABELS = 32    # beyond this, label every k-th CPU only


class Machine:
    """What the heat map needs from a machine file, checked."""

    def __init__(self, name, cpus, matrix, field, cluster_size, layers):
        self.name, self.cpus, self.matrix, self.field = name, cpus, matrix, field
        self.cluster_size, self.layers = cluster_size, layers


def _cpus(path, doc):
    cpus = require_whole_numbers(path, doc, "cpus", "CPU id", 0)
    if len(set(cpus)) != len(cpus):
        raise ReportError(path, "cpus", "a CPU id appears twice")
    return cpus


def _matrix(path, value, field, n):
    """An n x n matrix of numbers; off-diagonal ones > 0.  The diagonal is
    not a latency (a CPU to itself) and may hold anything numeric or null."""
    if not isinstance(value, list):
        raise ReportError(path, field, f"expected an array of {n} rows, found {type_name(value)}")
    if len(value) != n:
        raise ReportError(path, field, f"has {len(value)} rows, expected {n} (one per CPU): not N x N")
    matrix = np.full((n, n), np.nan)
    for i, row in enumerate(value):
        if not isinstance(row, list) or len(row) != n:
            found = f"{len(row)} values" if isinstance(row, list) else type_name(row)
            raise ReportError(path, f"{field}[{i}]", f"has {found}, expected {n}: not N x N")
        for j, v in enumerate(row):
            if i == j and v is None:
                continue
            if not is_number(v) or (i != j and v <= 0):
                raise ReportError(path, f"{field}[{i}][{j}]", f"{v!r} is not a latency > 0 ns")
            matrix[i, j] = v
    return matrix


def _layers(path, doc):
    layers = doc.get("layers")
    if layers is None:
        return []
    if not isinstance(layers, list):
        raise ReportError(path, "layers", f"expected an array, found {type_name(layers)}")
    latencies = []
    for i, layer in enumerate(layers):
        require_object(path, layer, f"layers[{i}]")
        latency = require_member(path, layer, "latency_ns", f"layers[{i}].latency_ns")
        if not is_number(latency) or latency <= 0:
            raise ReportError(path, f"layers[{i}].latency_ns", f"{latency!r} is not a latency > 0 ns")
        latencies.append(latency)
    return latencies


def load(path, field="latency_ns"):
    """Reads and checks a machine file; ReportError names the first problem."""
    doc = load_json(path)
    require_format(path, doc, FORMAT)
    name = optional_string(path, doc, "name")
    cpus = _cpus(path, doc)
    n = len(cpus)
    epsilon = require_member(path, doc, "epsilon_ns")
    if not is_number(epsilon) or epsilon <= 0:
        raise ReportError(path, "epsilon_ns", f"{epsilon!r} is not a number > 0")
    latency = _matrix(path, require_member(path, doc, "latency_ns"), "latency_ns", n)
    if field == "latency_ns":
        matrix = latency
        np.fill_diagonal(matrix, epsilon)  # the format: the diagonal is epsilon_ns
    else:
        probe = require_object(path, require_member(path, doc, "probe"), "probe")
        matrix = _matrix(path, require_member(path, probe, field, f"probe.{field}"), f"probe.{field}", n)
        np.fill_diagonal(matrix, np.nan)  # no round trip from a CPU to itself: left blank
    cluster_size = doc.get("cluster_size")
    if cluster_size is not None and (not is_int(cluster_size) or not 1 <= cluster_size <= n):
        raise ReportError(path, "cluster_size", f"{cluster_size!r} is not a whole number from 1 to {n}")
    return Machine(name, cpus, matrix, field, cluster_size, _layers(path, doc))


def subtitle(machine):
    """"N_c = 4; L0 9.1 ns, L1 42.3 ns", or as much of it as the file gives."""
    parts = []
    if machine.cluster_size is not None:
        parts.append(f"N_c = {machine.cluster_size}")
    if machine.layers:
        parts.append(", ".join(f"L{i} {lat:.1f} ns" for i, lat in enumerate(machine.layers)))
    return "; ".join(parts)


def _cell_text(v):
    return f"{v:.1f}" if v < 100 else f"{v:.0f}"


def _annotate(ax, image, matrix):
    n = matrix.shape[0]
    size = 8 if n <= 8 else 6
    for i in range(n):
        for j in range(n):
            v = matrix[i, j]
            if np.isnan(v):
                continue
            r, g, b, _ = image.cmap(image.norm(v))
            # dark text on light cells, light on dark
            color = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
            ax.text(j, i, _cell_text(v), ha="center", va="center", fontsize=size, color=color)


def _ticks(ax, cpus):
    n = len(cpus)
    step = max(1, math.ceil(n / MAX_TICK_LABELS))
    positions = list(range(0, n, step))
    labels = [str(cpus[p]) for p in positions]
    ax.set_xticks(positions, labels, rotation=90 if n > 16 else 0, fontsize=8 if n <= 32 else 7)
    ax.set_yticks(positions, labels, fontsize=8 if n <= 32 else 7)


def figure(machine, title=None):
    fig = Figure(figsize=FIGSIZE, layout="constrained")
    ax = fig.add_subplot()
    values = np.ma.masked_invalid(machine.matrix)
    cmap = matplotlib.colormaps["viridis"].copy()
    cmap.set_bad("lightgrey")  # masked cells: a probe's diagonal
    image = ax.imshow(values, cmap=cmap, interpolation="nearest")
    fig.colorbar(image, ax=ax, label=FIELD_LABELS[machine.field])
    _ticks(ax, machine.cpus)
    ax.set_xlabel("CPU")
    ax.set_ylabel("CPU")
    if len(machine.cpus) <= ANNOTATE_MAX_CPUS:
        _annotate(ax, image, machine.matrix)
    heading = title or machine.name or "machine"
    detail = subtitle(machine)
    fig.suptitle(heading + ("\n" + detail if detail else ""), fontsize=11)
    return fig


def run(in_path, out_path, title=None, field="latency_ns"):
    machine = load(in_path, field)
    if os.path.isdir(out_path):
        raise ReportError(out_path, "output", "is a directory")
    write_png(figure(machine, title), out_path)
