"""The scaling plot: per-barrier time against thread count, one line per
series, from a "muster-scaling/1" file:

    {"format": "muster-scaling/1", "machine": "Phytium 2000+", "source": "...",
     "unit": "ns", "threads": [2, 4, 8],
     "series": [{"label": "central-sense", "ns": [40.1, null, 100.0]}, ...]}

null means "not measured (or simulated) at that thread count": the point is
skipped and the line joins its neighbours."""
import itertools
import os

from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from . import ReportError, is_number, load_json, optional_string, require_format, require_member, \
    require_object, require_whole_numbers, type_name, write_png

FORMAT = "muster-scaling/1"
FIGSIZE = (8.0, 5.0)          # inches; at muster_report.DPI the PNG is 800 x 500
FIGSIZE_WIDE = (10.0, 5.5)    # with the legend outside the axes: 1000 x 550
LEGEND_INSIDE_MAX = 6         # more series than this: the legend goes outside
LOG2_X_FROM = 64              # a log2 thread axis once the counts reach this
MICROSECONDS_ABOVE_NS = 10000  # plot in µs when the largest time exceeds this
COLORS = [f"C{i}" for i in range(10)]
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">"]
LINESTYLES = ["-", "--", ":", "-."]


class Scaling:
    def __init__(self, machine, threads, series):
        self.machine, self.threads, self.series = machine, threads, series  # series: [(label, [ns|None])]


def _one_series(path, i, entry, n):
    require_object(path, entry, f"series[{i}]")
    label = require_member(path, entry, "label", f"series[{i}].label")
    if not isinstance(label, str):
        raise ReportError(path, f"series[{i}].label", f"expected a string, found {type_name(label)}")
    values = require_member(path, entry, "ns", f"series[{i}].ns")
    if not isinstance(values, list):
        raise ReportError(path, f"series[{i}].ns", f"expected an array, found {type_name(values)}")
    if len(values) != n:
        raise ReportError(path, f"series[{i}].ns", f"has {len(values)} values, threads has {n}")
    for j, v in enumerate(values):
        if v is not None and (not is_number(v) or v < 0):
            raise ReportError(path, f"series[{i}].ns[{j}]", f"{v!r} is neither a time >= 0 ns nor null")
    return label, values


def load(path):
    """Reads and checks a scaling file; ReportError names the first problem."""
    doc = load_json(path)
    require_format(path, doc, FORMAT)
    unit = doc.get("unit", "ns")
    if unit != "ns":
        raise ReportError(path, "unit", f"{unit!r} is not \"ns\"")
    machine = optional_string(path, doc, "machine")
    optional_string(path, doc, "source")
    threads = require_whole_numbers(path, doc, "threads", "thread count", 1, increasing=True)
    series = require_member(path, doc, "series")
    if not isinstance(series, list) or not series:
        raise ReportError(path, "series", "expected a non-empty array of {label, ns}")
    return Scaling(machine, threads, [_one_series(path, i, s, len(threads)) for i, s in enumerate(series)])


def _styles():
    """Colour, marker and line style per series: ten colours, then the same
    colours dashed, and so on, so that 11+ lines stay distinguishable."""
    for i in itertools.count():
        yield COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)], LINESTYLES[(i // len(COLORS)) % len(LINESTYLES)]


def _largest(scaling):
    return max((v for _, values in scaling.series for v in values if v is not None), default=0.0)


def _x_axis(ax, threads):
    if max(threads) >= LOG2_X_FROM:
        ax.set_xscale("log", base=2)
    if len(threads) <= 16:
        ax.set_xticks(threads)
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("threads")


def figure(scaling, title=None, log_y=False):
    outside = len(scaling.series) > LEGEND_INSIDE_MAX
    fig = Figure(figsize=FIGSIZE_WIDE if outside else FIGSIZE, layout="constrained")
    ax = fig.add_subplot()
    in_us = _largest(scaling) > MICROSECONDS_ABOVE_NS
    scale = 1e-3 if in_us else 1.0
    for (label, values), (color, marker, style) in zip(scaling.series, _styles()):
        points = [(p, v * scale) for p, v in zip(scaling.threads, values) if v is not None]
        ax.plot([p for p, _ in points], [v for _, v in points], label=label, color=color, marker=marker,
                linestyle=style, markersize=4, linewidth=1.3)
    _x_axis(ax, scaling.threads)
    if log_y:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_ylabel("time per barrier (µs)" if in_us else "time per barrier (ns)")
    ax.grid(True, which="major", alpha=0.3)
    if outside:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False,
                  ncol=2 if len(scaling.series) > 20 else 1)
    else:
        ax.legend(fontsize=8)
    ax.set_title(title or scaling.machine or "barrier scaling")
    return fig


def run(in_path, out_path, title=None, log_y=False):
    scaling = load(in_path)
    if os.path.isdir(out_path):
        raise ReportError(out_path, "output", "is a directory")
    write_png(figure(scaling, title, log_y), out_path)
