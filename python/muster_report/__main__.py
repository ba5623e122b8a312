"""python3 -m muster_report {heatmap,scaling,compare} IN.json OUT.png [options]
python3 -m muster_report ompmedians BENCH.json

Exit status: 0 written; 1 a bad input or an unwritable output (one line on
stderr, no output file); 2 a wrong command line."""
import argparse
import sys

from . import ReportError

PROG = "muster_report"


def _figure_command(commands, name, schema, **texts):
    """A subcommand that plots one JSON file of the given schema to a PNG:
    the arguments every figure takes (IN.json OUT.png [--title])."""
    figure = commands.add_parser(name, **texts)
    figure.add_argument("input", metavar="IN.json", help=f"a {schema} file")
    figure.add_argument("output", metavar="OUT.png")
    figure.add_argument("--title", help="title instead of the machine's name")
    return figure


def _parser():
    parser = argparse.ArgumentParser(
        prog=f"python3 -m {PROG}",
        description="PNG figures from muster's JSON files (matplotlib, Agg).")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    heat = _figure_command(
        commands, "heatmap", "muster-machine/1", help="core-to-core latency matrix of a machine file",
        description="The N x N latency matrix of a machine file (muster-machine/1) as a heat map: "
                    "CPU ids on both axes, a colour bar in ns, the values in the cells when N <= 16, "
                    "and the cluster size and layers in the title when the file has them.")
    heat.add_argument("--field", default="latency_ns",
                      choices=["latency_ns", "round_trip_min_ns", "round_trip_median_ns"],
                      help="the matrix to plot: latency_ns (default), or a probe's round_trip_min_ns "
                           "or round_trip_median_ns")

    scale = _figure_command(
        commands, "scaling", "muster-scaling/1", help="per-barrier time against thread count",
        description="One line per series of a muster-scaling/1 file: time per barrier against "
                    "threads (log2 axis from 64 threads; µs when times exceed 10000 ns).")
    scale.add_argument("--log", action="store_true", help="logarithmic time axis")
    _figure_command(
        commands, "compare", "muster compare --json", help="wall and CPU time per runtime",
        description="Wall time (median, with the range of the rounds) and CPU time (median) per runtime "
                    "from the JSON of `muster compare --json`, against threads when it has several team "
                    "sizes; OUT ending in .svg is written as SVG, anything else as PNG.")
    medians = commands.add_parser(
        "ompmedians", help="median table of a muster bench omp --json run",
        description="Prints, per team size, each construct's median overhead on libgomp, libomp and "
                    "libmuster-omp, muster ÷ the better of the other two, and context switches per "
                    "construct, from the JSON of `muster bench omp --json`.")
    medians.add_argument("input", metavar="BENCH.json", help="the output of muster bench omp --json")
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command == "heatmap":
            from . import heatmap
            heatmap.run(args.input, args.output, title=args.title, field=args.field)
        elif args.command == "compare":
            from . import compare
            compare.run(args.input, args.output, title=args.title)
        elif args.command == "ompmedians":
            from . import ompmedians
            ompmedians.run(args.input)
        else:
            from . import scaling
            scaling.run(args.input, args.output, title=args.title, log_y=args.log)
    except ReportError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
