"""Tests of muster_report: both figures from small synthetic inputs, and every
kind of bad input refused with one line naming the field, exit status 1 and
no output file.  Run with python/ on PYTHONPATH (ctest's python_report does)."""
import copy
import json
import os
import subprocess
import sys

import matplotlib.image
import pytest

from muster_report import DPI, compare, heatmap, scaling
from muster_report.__main__ import main

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def machine_doc(n=4):
    """n CPUs in clusters of two: 9.1 ns inside a cluster, 42.3 ns across; 0 on the
    diagonal, which the format says to replace by epsilon_ns."""
    lat = [[0.0 if i == j else 9.1 if i // 2 == j // 2 else 42.3 for j in range(n)] for i in range(n)]
    return {
        "format": "muster-machine/1", "name": "toy", "epsilon_ns": 1.5, "cpus": list(range(0, 2 * n, 2)),
        "latency_ns": lat,
        "layers": [{"name": "cluster", "latency_ns": 9.1, "alpha": 0.1},
                   {"name": "chip", "latency_ns": 42.3, "alpha": 0.1}],
        "cluster_size": 2,
        "probe": {"round_trip_min_ns": [[2 * v for v in row] for row in lat],
                  "round_trip_median_ns": [[2.2 * v for v in row] for row in lat], "repetitions": 10},
        "topology": {"source": "flat (no hwloc)"},
    }


def scaling_doc(series=3, threads=(2, 3, 4, 8, 16)):
    return {
        "format": "muster-scaling/1", "machine": "Phytium 2000+", "source": "muster model --simulate",
        "unit": "ns", "threads": list(threads),
        "series": [{"label": f"alg-{k}", "ns": [None if (k == 0 and i == 2) else 40.0 * p + 10 * k
                                                 for i, p in enumerate(threads)]} for k in range(series)],
    }


def write_json(path, doc):
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return str(path)


def check_png(path, size):
    with open(path, "rb") as f:
        assert f.read(8) == PNG_SIGNATURE
    pixels = matplotlib.image.imread(path)
    height, width = pixels.shape[:2]
    assert width > 0 and height > 0
    assert (width, height) == (round(size[0] * DPI), round(size[1] * DPI))


# ---- good inputs ----

@pytest.mark.parametrize("field", ["latency_ns", "round_trip_min_ns", "round_trip_median_ns"])
def test_heatmap_writes_png(tmp_path, field):
    source = write_json(tmp_path / "m.json", machine_doc())
    out = tmp_path / "m.png"
    assert main(["heatmap", source, str(out), "--field", field]) == 0
    check_png(out, heatmap.FIGSIZE)
    assert sorted(os.listdir(tmp_path)) == ["m.json", "m.png"]  # no temporary file left


def test_heatmap_figure_contents(tmp_path):
    machine = heatmap.load(write_json(tmp_path / "m.json", machine_doc()))
    assert machine.matrix[0][0] == 1.5 and machine.matrix[0][1] == 9.1  # diagonal = epsilon_ns
    fig = heatmap.figure(machine)
    assert fig._suptitle.get_text() == "toy\nN_c = 2; L0 9.1 ns, L1 42.3 ns"
    ax = fig.axes[0]
    assert len(ax.texts) == 16  # every cell annotated
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "2", "4", "6"]  # CPU ids, not indices
    assert heatmap.figure(machine, title="mine")._suptitle.get_text().startswith("mine\n")


def test_heatmap_large_is_thinned_and_unannotated(tmp_path):
    doc = machine_doc(n=100)
    del doc["layers"], doc["cluster_size"]
    machine = heatmap.load(write_json(tmp_path / "m.json", doc))
    fig = heatmap.figure(machine)
    ax = fig.axes[0]
    assert len(ax.texts) == 0
    assert 0 < len(ax.get_xticks()) <= heatmap.MAX_TICK_LABELS
    assert fig._suptitle.get_text() == "toy"
    out = tmp_path / "big.png"
    assert main(["heatmap", str(tmp_path / "m.json"), str(out)]) == 0
    check_png(out, heatmap.FIGSIZE)


def test_scaling_writes_png(tmp_path):
    source = write_json(tmp_path / "s.json", scaling_doc())
    out = tmp_path / "s.png"
    assert main(["scaling", source, str(out)]) == 0
    check_png(out, scaling.FIGSIZE)
    assert sorted(os.listdir(tmp_path)) == ["s.json", "s.png"]


def test_scaling_many_series_log(tmp_path):
    source = write_json(tmp_path / "s.json", scaling_doc(series=12, threads=(2, 4, 8, 64, 256)))
    out = tmp_path / "s.png"
    assert main(["scaling", source, str(out), "--log", "--title", "many"]) == 0
    check_png(out, scaling.FIGSIZE_WIDE)  # room for the legend outside


def test_scaling_figure_contents(tmp_path):
    data = scaling.load(write_json(tmp_path / "s.json", scaling_doc()))
    ax = scaling.figure(data).axes[0]
    assert ax.get_title() == "Phytium 2000+"
    assert len(ax.get_lines()) == 3
    first = ax.get_lines()[0]
    assert list(first.get_xdata()) == [2, 3, 8, 16]  # the null at 4 threads is skipped
    assert ax.get_xscale() == "linear" and ax.get_yscale() == "linear"
    assert "(ns)" in ax.get_ylabel()
    styles = {(line.get_color(), line.get_marker(), line.get_linestyle())
              for line in scaling.figure(scaling.load(write_json(
                  tmp_path / "m.json", scaling_doc(series=14)))).axes[0].get_lines()}
    assert len(styles) == 14  # every line looks different


def test_scaling_microseconds_and_log2_axis(tmp_path):
    doc = scaling_doc(series=1, threads=(2, 64, 128))
    doc["series"][0]["ns"] = [500.0, 20000.0, 45000.0]
    ax = scaling.figure(scaling.load(write_json(tmp_path / "s.json", doc)), log_y=True).axes[0]
    assert "(µs)" in ax.get_ylabel()
    assert list(ax.get_lines()[0].get_ydata()) == [0.5, 20.0, 45.0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


# ---- bad inputs: exit 1, one line naming the field, no file written ----

def mutate(doc, change):
    doc = copy.deepcopy(doc)
    change(doc)
    return doc


def _pop(key):
    return lambda d: d.pop(key)


def _set(key, value):
    return lambda d: d.__setitem__(key, value)


BAD_MACHINES = [
    ("not JSON", "{\"format\": ", "file"),
    ("NaN", "{\"format\": \"muster-machine/1\", \"epsilon_ns\": NaN}", "file"),
    ("top level array", [1, 2], "top level"),
    ("format missing", mutate(machine_doc(), _pop("format")), "format"),
    ("wrong format", mutate(machine_doc(), _set("format", "muster-scaling/1")), "format"),
    ("cpus missing", mutate(machine_doc(), _pop("cpus")), "cpus"),
    ("cpu id", mutate(machine_doc(), _set("cpus", [0, 1, -2, 3])), "cpus[2]"),
    ("cpus twice", mutate(machine_doc(), _set("cpus", [0, 1, 1, 3])), "cpus"),
    ("epsilon missing", mutate(machine_doc(), _pop("epsilon_ns")), "epsilon_ns"),
    ("latency missing", mutate(machine_doc(), _pop("latency_ns")), "latency_ns"),
    ("too few rows", mutate(machine_doc(), lambda d: d["latency_ns"].pop()), "latency_ns"),
    ("short row", mutate(machine_doc(), lambda d: d["latency_ns"][1].pop()), "latency_ns[1]"),
    ("negative latency", mutate(machine_doc(), lambda d: d["latency_ns"][2].__setitem__(0, -4)),
     "latency_ns[2][0]"),
    ("string latency", mutate(machine_doc(), lambda d: d["latency_ns"][0].__setitem__(3, "9")),
     "latency_ns[0][3]"),
    ("cluster size", mutate(machine_doc(), _set("cluster_size", 5)), "cluster_size"),
    ("layer latency", mutate(machine_doc(), lambda d: d["layers"][1].pop("latency_ns")), "layers[1].latency_ns"),
]


def check_refused(tmp_path, capsys, argv, source_name, field):
    out = tmp_path / "out.png"
    before = sorted(os.listdir(tmp_path))
    assert main(argv + [str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"muster_report: {tmp_path / source_name}: {field}: "), err
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == before  # no temporary file either


@pytest.mark.parametrize("case,doc,field", BAD_MACHINES, ids=[c[0] for c in BAD_MACHINES])
def test_heatmap_bad_input(tmp_path, capsys, case, doc, field):
    source = write_json(tmp_path / "bad.json", doc)
    check_refused(tmp_path, capsys, ["heatmap", source], "bad.json", field)


def test_heatmap_probe_field_missing(tmp_path, capsys):
    source = write_json(tmp_path / "bad.json", mutate(machine_doc(), lambda d: d["probe"].pop("round_trip_min_ns")))
    check_refused(tmp_path, capsys, ["heatmap", source, "--field", "round_trip_min_ns"], "bad.json",
                  "probe.round_trip_min_ns")
    source = write_json(tmp_path / "bad.json", mutate(machine_doc(), _pop("probe")))
    check_refused(tmp_path, capsys, ["heatmap", source, "--field", "round_trip_median_ns"], "bad.json", "probe")


BAD_SCALINGS = [
    ("wrong format", mutate(scaling_doc(), _set("format", "muster-machine/1")), "format"),
    ("threads missing", mutate(scaling_doc(), _pop("threads")), "threads"),
    ("threads not increasing", mutate(scaling_doc(), _set("threads", [2, 4, 3, 8, 16])), "threads[2]"),
    ("series missing", mutate(scaling_doc(), _pop("series")), "series"),
    ("series empty", mutate(scaling_doc(), _set("series", [])), "series"),
    ("series too short", mutate(scaling_doc(), lambda d: d["series"][1]["ns"].pop()), "series[1].ns"),
    ("series too long", mutate(scaling_doc(), lambda d: d["series"][2]["ns"].append(1.0)), "series[2].ns"),
    ("label missing", mutate(scaling_doc(), lambda d: d["series"][0].pop("label")), "series[0].label"),
    ("bad time", mutate(scaling_doc(), lambda d: d["series"][0]["ns"].__setitem__(1, "fast")), "series[0].ns[1]"),
    ("unit", mutate(scaling_doc(), _set("unit", "us")), "unit"),
]


@pytest.mark.parametrize("case,doc,field", BAD_SCALINGS, ids=[c[0] for c in BAD_SCALINGS])
def test_scaling_bad_input(tmp_path, capsys, case, doc, field):
    source = write_json(tmp_path / "bad.json", doc)
    check_refused(tmp_path, capsys, ["scaling", source], "bad.json", field)


@pytest.mark.parametrize("command", ["heatmap", "scaling"])
def test_missing_file(tmp_path, capsys, command):
    check_refused(tmp_path, capsys, [command, str(tmp_path / "absent.json")], "absent.json", "file")


def test_bad_input_keeps_existing_output(tmp_path, capsys):
    out = tmp_path / "out.png"
    out.write_bytes(b"previous figure")
    source = write_json(tmp_path / "bad.json", mutate(scaling_doc(), _pop("series")))
    assert main(["scaling", source, str(out)]) == 1
    assert out.read_bytes() == b"previous figure"


def test_unwritable_output(tmp_path, capsys):
    source = write_json(tmp_path / "s.json", scaling_doc())
    out = tmp_path / "no-such-dir" / "s.png"
    assert main(["scaling", source, str(out)]) == 1
    assert capsys.readouterr().err.startswith(f"muster_report: {out}: output: cannot write")
    assert sorted(os.listdir(tmp_path)) == ["s.json"]


# ---- the command as users run it ----

def run_module(*args):
    return subprocess.run([sys.executable, "-m", "muster_report", *args], capture_output=True, text=True,
                          timeout=120)


def test_module_entry_point(tmp_path):
    source = write_json(tmp_path / "m.json", machine_doc())
    result = run_module("heatmap", source, str(tmp_path / "m.png"), "--title", "from the shell")
    assert result.returncode == 0, result.stderr
    check_png(tmp_path / "m.png", heatmap.FIGSIZE)
    result = run_module("scaling", source, str(tmp_path / "s.png"))
    assert result.returncode == 1
    assert "format:" in result.stderr and not (tmp_path / "s.png").exists()
    result = run_module("heatmap", source, str(tmp_path / "x.png"), "--field", "bogus")
    assert result.returncode == 2 and "--field" in result.stderr


# ---- ompmedians: the median table of muster bench omp --json ----

def bench_doc():
    def cell(construct, threads, runtime, median, csw=0.0, status="ok", worst=None, outliers=0):
        c = {"construct": construct, "threads": threads, "runtime": runtime, "status": status}
        if status == "ok":
            c.update(median_us=median, mean_us=median * 1.5, csw_per_op=csw,
                     worst_us=worst if worst is not None else median * 2, outliers=outliers)
        return c
    return {"settings": {"reps": 15}, "cells": [
        cell("BARRIER", 2, "libgomp", 0.5), cell("BARRIER", 2, "libomp", 0.4),
        cell("BARRIER", 2, "muster", 0.2, worst=150.0, outliers=3),
        cell("LOCK", 2, "libgomp", 0.1), cell("LOCK", 2, "libomp", 0.3), cell("LOCK", 2, "muster", 0.11),
        cell("BARRIER", 8, "libgomp", 50.0, 7.5), cell("BARRIER", 8, "libomp", 0, status="error"),
        cell("BARRIER", 8, "muster", 10.0, 6.0),
    ]}


def test_ompmedians_ratios_use_the_better_other_runtime():
    from muster_report import ompmedians
    lines = ompmedians.table(bench_doc())
    assert lines[0].startswith("median µs of 15 interleaved rounds")
    barrier2 = next(line for line in lines if line.startswith("BARRIER") and "0.500" in line)
    assert "0.50×" in barrier2  # 0.2 / min(0.5, 0.4)
    lock2 = next(line for line in lines if line.startswith("LOCK"))
    assert "1.10×" in lock2  # 0.11 / min(0.1, 0.3)
    barrier8 = [line for line in lines if line.startswith("BARRIER")][1]
    assert "0.20×" in barrier8  # libomp erred: the better of the rest is libgomp's 50
    assert barrier8.split()[2] == "-" and barrier8.split()[-1] == "6.00"
    assert sum(1 for line in lines if "threads" in line) == 4  # two blocks each: medians, tails


def test_ompmedians_shows_the_tails():
    from muster_report import ompmedians
    lines = ompmedians.table(bench_doc())
    start = next(i for i, line in enumerate(lines) if line.startswith("tails: worst µs of the 15 rounds"))
    tails = lines[start:]
    barrier2 = next(line for line in tails if line.startswith("BARRIER"))
    assert barrier2.split() == ["BARRIER", "1.000", "(0)", "0.800", "(0)", "150.000", "(3!)"]
    barrier8 = [line for line in tails if line.startswith("BARRIER")][1]
    assert barrier8.split()[1:] == ["100.000", "(0)", "-", "20.000", "(0)"]  # libomp erred


def test_ompmedians_tails_of_an_older_file_show_dashes():
    from muster_report import ompmedians
    doc = bench_doc()
    for c in doc["cells"]:
        c.pop("worst_us", None)
        c.pop("outliers", None)
    tails = ompmedians.table(doc)
    lock = [line for line in tails if line.startswith("LOCK")][1]
    assert lock.split() == ["LOCK", "-", "-", "-"]


def test_ompmedians_command_prints_the_table(tmp_path, capsys):
    assert main(["ompmedians", write_json(tmp_path / "bench.json", bench_doc())]) == 0
    out = capsys.readouterr().out
    assert "2 threads" in out and "8 threads" in out and "0.50×" in out


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("cells"), "cells"),
    (lambda d: d["cells"][0].pop("runtime"), "cells[0].runtime"),
    (lambda d: d["cells"][1].update(threads=0), "cells[1].threads"),
    (lambda d: d["cells"][2].update(median_us="fast"), "cells[2].median_us"),
])
def test_ompmedians_bad_input_names_the_field(tmp_path, capsys, mutate, field):
    doc = bench_doc()
    mutate(doc)
    assert main(["ompmedians", write_json(tmp_path / "bench.json", doc)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f": {field}: " in err


# ---- muster compare's plot ----

def compare_doc(threads=(1, 2)):
    runtimes = ["libgomp", "libomp", "muster"]
    return {
        "program": "/x/relax", "args": [], "abi": "libgomp", "rounds": 2,
        "runtimes": [{"name": n, "library": ""} for n in runtimes],
        "cells": [{"threads": t, "runtime": n, "median_wall_s": 0.1 * t + k, "worst_wall_s": 0.2 * t + k,
                   "over_5x_median": 0, "median_cpu_s": 0.05 * t + k,
                   "runs": [{"wall_s": 0.1 * t + k}, {"wall_s": 0.2 * t + k}]}
                  for t in threads for k, n in enumerate(runtimes)],
        "outputs_compared": True, "disagreements": 0, "failed_runs": 0,
    }


@pytest.mark.parametrize("threads", [(1, 2, 4), (2,)])
def test_compare_writes_png_and_svg(tmp_path, threads):
    source = write_json(tmp_path / "c.json", compare_doc(threads))
    assert main(["compare", source, str(tmp_path / "c.png")]) == 0
    check_png(tmp_path / "c.png", compare.FIGSIZE)
    assert main(["compare", source, str(tmp_path / "c.svg")]) == 0
    assert (tmp_path / "c.svg").read_bytes().startswith(b"<?xml")


def test_compare_figure_contents(tmp_path):
    data = compare.load(write_json(tmp_path / "c.json", compare_doc((1, 2, 4))))
    assert data.threads == [1, 2, 4] and data.runtimes == ["libgomp", "libomp", "muster"]
    assert data.low["muster"] == [2.1, 2.2, 2.4] and data.high["muster"] == [2.2, 2.4, 2.8]
    wall, cpu = compare.figure(data).axes
    assert len(cpu.get_lines()) == 3 and list(cpu.get_lines()[2].get_ydata()) == [2.05, 2.1, 2.2]
    assert "wall" in wall.get_ylabel() and "CPU" in cpu.get_ylabel()


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("cells"), "cells"),
    (lambda d: d["cells"][0].update(runtime="gnu"), "cells[0].runtime"),
    (lambda d: d["cells"][1].update(median_cpu_s=-1), "cells[1].median_cpu_s"),
    (lambda d: d["cells"].pop(), "cells"),
])
def test_compare_bad_input_names_the_field(tmp_path, capsys, mutate, field):
    doc = compare_doc()
    mutate(doc)
    out = tmp_path / "c.png"
    assert main(["compare", write_json(tmp_path / "c.json", doc), str(out)]) == 1
    assert f": {field}: " in capsys.readouterr().err
    assert not out.exists()
