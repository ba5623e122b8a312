"""The compare plot: wall time (median, with the range of the rounds) and CPU
time (median) per runtime, from the JSON of `muster compare --json`:

    {"program": "...", "abi": "libgomp", "rounds": 5,
     "runtimes": [{"name": "libgomp", "library": ""}, ...],
     "cells": [{"threads": 2, "runtime": "muster", "median_wall_s": 0.12,
                "median_cpu_s": 0.10, "runs": [{"wall_s": 0.12, ...}, ...]}, ...]}

Against threads when the file has several team sizes, else one group of
bars per runtime."""
import os

from matplotlib.figure import Figure

from . import ReportError, is_int, is_number, load_json, require_member, require_object, write_figure

FIGSIZE = (10.0, 4.5)  # inches: two panels side by side
COLORS = {"libgomp": "C0", "libomp": "C1", "muster": "C2"}


class Comparison:
    def __init__(self, program, runtimes, threads, wall, low, high, cpu):
        # wall/low/high/cpu: {runtime: [value per team size]}
        self.program, self.runtimes, self.threads = program, runtimes, threads
        self.wall, self.low, self.high, self.cpu = wall, low, high, cpu


def _number(path, obj, key, field):
    value = require_member(path, obj, key, field)
    if not is_number(value) or value < 0:
        raise ReportError(path, field, f"{value!r} is not a time in seconds")
    return value


def load(path):
    doc = require_object(path, load_json(path), "top level")
    program = require_member(path, doc, "program")
    if not isinstance(program, str):
        raise ReportError(path, "program", "expected a string")
    runtimes = require_member(path, doc, "runtimes")
    if not isinstance(runtimes, list) or not runtimes:
        raise ReportError(path, "runtimes", "expected a non-empty array")
    names = [require_member(path, require_object(path, r, f"runtimes[{i}]"), "name", f"runtimes[{i}].name")
             for i, r in enumerate(runtimes)]
    cells = require_member(path, doc, "cells")
    if not isinstance(cells, list) or not cells:
        raise ReportError(path, "cells", "expected a non-empty array")
    found = {}
    for i, cell in enumerate(cells):
        require_object(path, cell, f"cells[{i}]")
        threads = require_member(path, cell, "threads", f"cells[{i}].threads")
        if not is_int(threads) or threads < 1:
            raise ReportError(path, f"cells[{i}].threads", f"{threads!r} is not a team size")
        runtime = require_member(path, cell, "runtime", f"cells[{i}].runtime")
        if runtime not in names:
            raise ReportError(path, f"cells[{i}].runtime", f"{runtime!r} is not in runtimes")
        runs = require_member(path, cell, "runs", f"cells[{i}].runs")
        if not isinstance(runs, list) or not runs:
            raise ReportError(path, f"cells[{i}].runs", "expected a non-empty array")
        walls = [_number(path, run, "wall_s", f"cells[{i}].runs[{j}].wall_s") for j, run in enumerate(runs)]
        found[(threads, runtime)] = (_number(path, cell, "median_wall_s", f"cells[{i}].median_wall_s"),
                                     min(walls), max(walls),
                                     _number(path, cell, "median_cpu_s", f"cells[{i}].median_cpu_s"))
    threads = sorted({t for t, _ in found})
    wall, low, high, cpu = ({n: [] for n in names} for _ in range(4))
    for n in names:
        for t in threads:
            if (t, n) not in found:
                raise ReportError(path, "cells", f"no cell for {n} at {t} threads")
            w, lo, hi, c = found[(t, n)]
            wall[n].append(w)
            low[n].append(lo)
            high[n].append(hi)
            cpu[n].append(c)
    return Comparison(program, names, threads, wall, low, high, cpu)


def figure(data, title=None):
    fig = Figure(figsize=FIGSIZE)
    ax_wall, ax_cpu = fig.subplots(1, 2)
    several = len(data.threads) > 1
    width = 0.8 / len(data.runtimes)
    for k, name in enumerate(data.runtimes):
        color = COLORS.get(name, f"C{k + 3}")
        below = [w - lo for w, lo in zip(data.wall[name], data.low[name])]
        above = [hi - w for w, hi in zip(data.wall[name], data.high[name])]
        if several:
            ax_wall.errorbar(data.threads, data.wall[name], yerr=[below, above], marker="o", capsize=3,
                             color=color, label=name)
            ax_cpu.plot(data.threads, data.cpu[name], marker="o", color=color, label=name)
        else:
            ax_wall.bar([k], data.wall[name], yerr=[below, above], capsize=4, color=color, label=name)
            ax_cpu.bar([k], data.cpu[name], color=color, label=name)
    for ax, what in ((ax_wall, "wall time (s): median, range of the rounds"), (ax_cpu, "CPU time (s): median")):
        ax.set_ylabel(what)
        ax.set_ylim(bottom=0)
        if several:
            ax.set_xlabel("threads")
            ax.set_xticks(data.threads)
        else:
            ax.set_xticks(range(len(data.runtimes)))
            ax.set_xticklabels(data.runtimes)
            ax.set_xlabel(f"{data.threads[0]} threads")
        ax.legend(loc="best", fontsize="small")
    fig.suptitle(title or f"muster compare: {os.path.basename(data.program)}")
    fig.tight_layout()
    return fig


def run(path, output, title=None):
    write_figure(figure(load(path), title), output)
