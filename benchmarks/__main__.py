"""``python -m benchmarks``: time adcore's derivatives against hand-written ones and the peer
libraries installed, on fixed workloads; print a table, write JSON (and a plot, and README's table).

Every contender's derivative is checked against the hand-written one before
it is timed; the run exits with status 1 if any differs (or fails), and then
writes no files.
"""

import argparse
import json
import sys
from datetime import datetime, timezone
from time import perf_counter

import numpy
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

import backends

from . import batching, curvature, digits, elementwise, mlp, norms, overhead, report
from .peers import PEER_NAMES, load_peers
from .suite import FULL, QUICK, Context
from .threads import ThreadPins

#: Letter -> (name, run(ctx, done) returning a list of workload results); ``done`` holds
#: the results so far by id (workload g compares its cost per primitive with a's).
WORKLOADS = {
    "a": ("scalar-chain", lambda ctx, done: [overhead.scalar_chain(ctx)]),
    "b": ("array-chain", lambda ctx, done: [overhead.array_chain(ctx)]),
    "c": ("mlp", lambda ctx, done: [mlp.mlp_gradient(ctx, "float64"), mlp.mlp_gradient(ctx, "float32")]),
    "d": ("elementwise", lambda ctx, done: [elementwise.large_elementwise(ctx)]),
    "e": ("hvp", lambda ctx, done: [curvature.hessian_vector_product(ctx)]),
    "f": ("jacobian", lambda ctx, done: [curvature.full_jacobian(ctx)]),
    "g": ("recurrence", lambda ctx, done: [overhead.long_recurrence(ctx, done.get("a"))]),
    "h": ("digits", lambda ctx, done: [digits.digits_classifier(ctx)]),
    "i": ("hessian", lambda ctx, done: [curvature.full_hessian(ctx)]),
    "k": ("deep-network", lambda ctx, done: [mlp.deep_network(ctx)]),
    "n": ("norm", lambda ctx, done: [norms.norms(ctx)]),
    "v": ("vmap", lambda ctx, done: [batching.per_example_gradients(ctx), batching.per_example_hvps(ctx)]),
}
BY_NAME = {name: letter for letter, (name, _) in WORKLOADS.items()}


def workload_letters(values):
    """The letters of the workloads named in ``--only`` values (letters or names, repeated or comma-separated).

    Raises
    ------
    argparse.ArgumentTypeError
        Naming the unknown workload and listing the known ones.
    """
    letters = []
    for value in values:
        for item in filter(None, (part.strip() for part in value.split(","))):
            letter = item if item in WORKLOADS else BY_NAME.get(item)
            if letter is None:
                known = ", ".join(f"{letter} ({name})" for letter, (name, _) in WORKLOADS.items())
                raise argparse.ArgumentTypeError(f"--only: unknown workload {item!r}; the workloads are {known}")
            letters.append(letter)
    return [letter for letter in WORKLOADS if letter in letters]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="numpy", choices=backends.NAMES, help="adcore's array backend (default: numpy)")
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (a few minutes)")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="WORKLOAD",
        help="run only these workloads: letters or names, repeated or comma-separated ("
        + ", ".join(f"{letter}={name}" for letter, (name, _) in WORKLOADS.items())
        + ")",
    )
    parser.add_argument(
        "--peers",
        default=",".join(PEER_NAMES),
        metavar="NAMES",
        help=f"comma-separated peers to time beside adcore, if installed (default: {','.join(PEER_NAMES)}; '' for none)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help="threads per numerical library's pool, the same for every contender (default: 1; 0 for the libraries' defaults)",
    )
    parser.add_argument("--json", default="benchmark-results.json", metavar="PATH", help="where to write the figures")
    parser.add_argument("--plot", metavar="PATH", help="also draw the ratios as a PNG bar chart")
    parser.add_argument("--readme", nargs="?", const="README.md", metavar="PATH", help="also rewrite README.md's results table")
    args = parser.parse_args(argv)
    try:
        args.only = workload_letters(args.only) if args.only else list(WORKLOADS)
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    if args.threads < 0:
        parser.error(f"--threads: {args.threads} is not a number of threads (0 for the libraries' defaults)")
    args.peers = [name.strip() for name in args.peers.split(",") if name.strip()]
    unknown = sorted(set(args.peers) - set(PEER_NAMES))
    if unknown:
        parser.error(f"--peers: unknown peer {', '.join(unknown)}; the peers are {', '.join(PEER_NAMES)}")
    reason = backends.unavailable_reason(args.backend)
    if reason is not None:
        parser.error(f"backend {args.backend} cannot run here: {reason}")
    return args


def run(args, command, console):
    """Every workload in ``args.only``, with a progress bar each; returns the results (see ``suite``) and the errors found."""
    pins = ThreadPins(args.threads or None)  # before the peers load: JAX reads its thread flags when it starts
    backend = backends.get_backend(args.backend)
    device = str(backend.device(backend.from_numpy(numpy.zeros(1))))
    peers, skipped = load_peers(backend, device, args.peers)
    ctx = Context(backend, peers, skipped, QUICK if args.quick else FULL)
    results = {
        "command": command,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "quick": args.quick,
        "machine": report.machine_info(backend, device),
        "peers": {peer.name: {"version": peer.version, "device": peer.device} for peer in peers},
        "skipped_peers": skipped,
        "workloads": [],
    }
    done = {}
    columns = (TextColumn("{task.description}"), BarColumn(bar_width=20), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with Progress(*columns, console=console) as progress:
            for letter in args.only:
                name, workload = WORKLOADS[letter]
                task = progress.add_task(f"{letter} {name}", total=None)

                def show(text, completed, total, task=task):
                    progress.update(task, description=text, completed=completed, total=total)

                ctx.progress = show
                pins.apply()
                start = perf_counter()
                for result in workload(ctx, done):
                    done[result["id"]] = result
                    results["workloads"].append(result)
                progress.update(task, description=f"{letter} {name}: {perf_counter() - start:.1f} s", total=1, completed=1)
                if not console.is_terminal:  # a log (gpu_check.sh's): a line per workload, as it finishes
                    progress.console.print(f"{letter} {name}: {perf_counter() - start:.1f} s", markup=False)
        results["machine"]["threads"] = pins.describe()
    finally:
        pins.restore()
    return results, ctx.errors


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    console = Console()  # the terminal's width: the table fits 80 columns
    start = perf_counter()
    results, errors = run(args, " ".join(["python -m benchmarks", *argv]), console)
    results["total_seconds"] = perf_counter() - start
    console.print(report.results_table(results))
    if errors:
        stderr = Console(stderr=True)
        stderr.print("[bold red]wrong or failing derivatives (no files written):[/]")
        for line in errors:
            stderr.print(f"  {line}", markup=False)
        return 1
    with open(args.json, "w") as file:
        json.dump(results, file, indent=2)
    written = [args.json]
    for path, write in ((args.plot, report.plot), (args.readme, report.update_readme)):
        if path:
            write(results, path)
            written.append(path)
    console.print(f"total {results['total_seconds']:.1f} s; written: {', '.join(written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
