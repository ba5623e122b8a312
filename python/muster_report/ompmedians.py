"""The median table of a `muster bench omp --json` run: per team size, each
construct's median overhead on each runtime, muster's median ÷ the better of
libgomp's and libomp's, and context switches per construct; then the tails:
each runtime's worst round and how many rounds took over 5× the median.
Medians, because on a shared VM a few samples of every cell carry outliers
of tens of µs that move the mean more than the differences being measured;
tails, because a median hides a bad mode that some runs fall into."""
from . import ReportError, is_number, load_json

RUNTIMES = ("libgomp", "libomp", "muster")


def _cells(doc, path):
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        raise ReportError(path, "cells", "missing or not a list (not a muster bench omp --json file?)")
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise ReportError(path, f"cells[{i}]", "not an object")
        for key in ("construct", "runtime", "status"):
            if not isinstance(cell.get(key), str):
                raise ReportError(path, f"cells[{i}].{key}", "missing or not a string")
        if not isinstance(cell.get("threads"), int) or cell["threads"] < 1:
            raise ReportError(path, f"cells[{i}].threads", "missing or not a positive integer")
        if cell["status"] == "ok":
            for key in ("median_us", "csw_per_op"):
                if not is_number(cell.get(key)):
                    raise ReportError(path, f"cells[{i}].{key}", "missing or not a number")
    return cells


def _fmt(value, width, digits=3):
    return f"{value:{width}.{digits}f}" if value is not None else f"{'-':>{width}}"


def _row(threads, construct, by_key):
    """One construct's line, or None when no runtime has a cell for it."""
    cells = {r: by_key.get((threads, construct, r)) for r in RUNTIMES}
    if all(cell is None for cell in cells.values()):
        return None
    ok = {r: cell for r, cell in cells.items() if cell is not None and cell["status"] == "ok"}
    medians = {r: ok[r]["median_us"] if r in ok else None for r in RUNTIMES}
    others = [medians[r] for r in ("libgomp", "libomp") if medians[r] is not None]
    best = min(others) if others else None
    ratio = f"{medians['muster'] / best:9.2f}×" if medians["muster"] is not None and best else f"{'-':>10}"
    csw = " ".join(_fmt(ok[r]["csw_per_op"] if r in ok else None, 5, 2) for r in RUNTIMES)
    return construct.ljust(14) + "".join(_fmt(medians[r], 10) for r in RUNTIMES) + ratio + "   " + csw


def _tail(cell):
    """'worst (n)' for a finished cell: n rounds above 5x the median, marked !."""
    if cell is None or cell["status"] != "ok" or not is_number(cell.get("worst_us")):
        return f"{'-':>16}"
    outliers = cell.get("outliers")
    mark = f"({outliers}{'!' if outliers else ''})" if isinstance(outliers, int) else "(?)"
    return f"{cell['worst_us']:10.3f} {mark:<5}"


def _tail_row(threads, construct, by_key):
    cells = {r: by_key.get((threads, construct, r)) for r in RUNTIMES}
    if all(cell is None for cell in cells.values()):
        return None
    return construct.ljust(14) + "".join(_tail(cells[r]) for r in RUNTIMES)


def table(doc, path="input"):
    """The table as a list of lines; a cell that erred or did not finish shows '-'."""
    cells = _cells(doc, path)
    settings = doc.get("settings")
    reps = settings.get("reps", "?") if isinstance(settings, dict) else "?"
    by_key = {(c["threads"], c["construct"], c["runtime"]): c for c in cells}
    constructs = list(dict.fromkeys(c["construct"] for c in cells))
    lines = [f"median µs of {reps} interleaved rounds; ÷ best: muster ÷ the better of libgomp and libomp"]
    for threads in sorted({c["threads"] for c in cells}):
        lines += ["", f"{threads} threads".ljust(14) + "".join(f"{r:>10}" for r in RUNTIMES)
                  + "     ÷ best   csw/op: gomp   omp muster"]
        lines += [row for row in (_row(threads, c, by_key) for c in constructs) if row is not None]
    lines += ["", f"tails: worst µs of the {reps} rounds (rounds above 5× the median, ! when any)"]
    for threads in sorted({c["threads"] for c in cells}):
        lines += ["", f"{threads} threads".ljust(14) + "".join(f"{r:>10}      " for r in RUNTIMES).rstrip()]
        lines += [row.rstrip() for row in (_tail_row(threads, c, by_key) for c in constructs)
                  if row is not None]
    return lines


def run(path):
    for line in table(load_json(path), path):
        print(line)
