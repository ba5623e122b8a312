"""muster_report: PNG figures from muster's JSON files.

    python3 -m muster_report heatmap MACHINE.json OUT.png   core-to-core latency matrix
    python3 -m muster_report scaling SCALING.json OUT.png   per-barrier time against threads
    python3 -m muster_report ompmedians BENCH.json          median table of muster bench omp --json
    python3 -m muster_report compare COMPARE.json OUT.png   wall and CPU time of muster compare --json
                                                            (OUT.svg: an SVG)

Inputs are checked before anything is drawn: a bad one gives one line,
"muster_report: PATH: field: problem", exit status 1, and no output file (a
figure is written to a temporary file beside OUT.png and renamed into place
only when complete).

What the modules share lives here: the error type, strict JSON reading, field
checks that name the field, and the atomic PNG writer.
"""
import json
import math
import os
import tempfile

import matplotlib

matplotlib.use("Agg")  # no display: figures are only ever written to files

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402  (after use())

__all__ = ["ReportError", "load_json", "write_png", "write_figure"]

DPI = 100


class ReportError(Exception):
    """A problem with one file: str() is "PATH: field: problem"."""

    def __init__(self, path, field, problem):
        super().__init__(f"{path}: {field}: {problem}")
        self.path, self.field, self.problem = path, field, problem


def _reject_constant(name):
    # json.loads accepts NaN and Infinity, which are not JSON.
    raise ValueError(f"{name} is not a JSON number")


def load_json(path):
    """The JSON value in path; ReportError when unreadable or not strict JSON."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReportError(path, "file", f"cannot read: {e.strerror or e}") from None
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as e:
        raise ReportError(path, "file", f"not JSON: {e}") from None


def is_number(value):
    """A finite JSON number (bool is not one, though Python says it is an int)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def require_object(path, value, field):
    if not isinstance(value, dict):
        raise ReportError(path, field, f"expected a JSON object, found {type_name(value)}")
    return value


def require_member(path, obj, key, field=None):
    field = field or key
    if key not in obj:
        raise ReportError(path, field, "missing (required)")
    return obj[key]


def require_whole_numbers(path, doc, key, noun, minimum, increasing=False):
    """doc[key]: a non-empty array of whole numbers >= minimum (each one
    larger than the last when increasing), each a `noun` ("CPU id", "thread
    count") in the messages; the first bad element is the one named."""
    values = require_member(path, doc, key)
    if not isinstance(values, list) or not values:
        raise ReportError(path, key, f"expected a non-empty array of {noun}s")
    for i, value in enumerate(values):
        if not is_int(value) or value < minimum:
            raise ReportError(path, f"{key}[{i}]", f"{value!r} is not a {noun} (a whole number >= {minimum})")
        if increasing and i > 0 and value <= values[i - 1]:
            raise ReportError(path, f"{key}[{i}]", f"{value} after {values[i - 1]}: not increasing")
    return values


def require_format(path, doc, expected):
    fmt = require_member(path, require_object(path, doc, "top level"), "format")
    if fmt != expected:
        raise ReportError(path, "format", f"{json.dumps(fmt)} is not {json.dumps(expected)}")


def optional_string(path, obj, key):
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ReportError(path, key, f"expected a string, found {type_name(value)}")
    return value


def type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def write_png(figure, out_path):
    """Renders figure with Agg into out_path as a PNG (see write_figure)."""
    write_figure(figure, out_path, "png")


def write_figure(figure, out_path, fmt=None):
    """Renders figure with Agg into out_path, atomically: a temporary file in
    the same directory (so the rename stays on one file system) becomes
    out_path only once it is complete.  The format: fmt, else SVG for a
    name ending in .svg and PNG for any other."""
    fmt = fmt or ("svg" if out_path.lower().endswith(".svg") else "png")
    directory = os.path.dirname(os.path.abspath(out_path))
    FigureCanvasAgg(figure)
    fd, tmp = None, None
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(out_path) + ".",
                                   suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            fd = None
            figure.savefig(f, format=fmt, dpi=DPI)
        # mkstemp makes the file 0600; give it the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out_path)
        tmp = None
    except OSError as e:
        raise ReportError(out_path, "output", f"cannot write: {e.strerror or e}") from None
    finally:
        if fd is not None:
            os.close(fd)
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
