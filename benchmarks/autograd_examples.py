"""Run autograd's example programs under autograd and under adcore's alias, and compare what they print.

Usage, from the repository root, given a folder of autograd's examples (the ``examples/`` folder
of https://github.com/HIPS/autograd; they are not part of this repository)::

    python -m benchmarks.autograd_examples PATH/TO/examples [--iterations 20] [--only gmm,rkhs]

Each example runs twice in a subprocess, from a copy of the folder: with the ``autograd``
installed (``pip install autograd``) and with ``adcore.compat.autograd`` installed in its place.
Both runs see the same program:

- iterations shortened identically: optimisers (``autograd.misc.optimizers.adam``, ``sgd``,
  ``rmsprop``) and ``scipy.optimize.minimize`` are capped at ``--iterations`` steps, and in the
  copied sources a literal ``N`` above that in ``range(N)`` or ``*steps = N`` / ``*iters = N`` is
  ``--iterations``, and ``*epochs = N`` is ``1``;
- plots off: matplotlib's Agg backend, ``plt.show`` and ``plt.pause`` do nothing;
- NumPy's and Python's global random generators seeded with 0, and so NumPy's generators made
  without a seed (``npr.RandomState()``);
- MNIST, when it cannot be downloaded, replaced by a small synthetic set of the same format in
  the copy's ``data/`` folder (``--no-fake-mnist`` to leave the examples that need it failing).

Three examples run with other settings, the same under both (``SETTINGS``, with the reasons).

The table gives, per example: whether it ran (autograd / adcore), whether the numbers printed
agree (all of them, to ``--rtol`` or ``--atol``; with the largest relative difference), and adcore's time over
autograd's (the script's own run, the libraries imported beforehand). The exit status is 1 if an
example that runs under autograd fails or prints other numbers under adcore.
"""

import argparse
import gzip
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
NOT_EXAMPLES = {"__init__.py", "data.py", "data_mnist.py"}  # helpers the examples import
#: a number printed on its own (not the digits of a name such as ``node_1402`` or an address ``0x7f3a``)
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])|(?<!\w)[-+]?(?:nan|inf)\b")
TIME_MARK = "__example_seconds__"

EM_LOOP_CAPPED = "for _ in range(1000):\n            if not different(x0, x1):\n                break"
#: Examples run with settings other than the command line's (the same under autograd and adcore), and why;
#: ``edits`` are replacements in the copied source, made before it is shortened.
SETTINGS = {
    "hmm_em.py": (
        {"edits": [("while different(x0, x1):", EM_LOOP_CAPPED)]},
        "its EM loop, which runs until the parameters converge, capped as the optimisers are",
    ),
    "bayesian_optimization.py": (
        {"minimize": False},
        "scipy.optimize.minimize not capped: its Gaussian process fit, stopped early, leaves a singular covariance"
        " and the example fails under autograd too",
    ),
    "fluidsim/wing.py": ({"iterations": 5}, "5 iterations: at 20 it takes over 15 minutes under autograd"),
}

#: What both runs execute: plots off, iterations capped, then the example as ``__main__``.
PRELUDE = """
import inspect, os, runpy, sys, time

mode, script = sys.argv[1], sys.argv[2]
cap = int(os.environ["EXAMPLE_ITERATIONS"])
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

plt.show = plt.pause = lambda *args, **kwargs: None
import numpy.random
import random

numpy.random.seed(0)  # the global generators, and the ones made without a seed, draw the same numbers in both runs
random.seed(0)


class RandomState(numpy.random.RandomState):
    def __init__(self, seed=None):
        super().__init__(0 if seed is None else seed)


numpy.random.RandomState = RandomState
default_rng = numpy.random.default_rng
numpy.random.default_rng = lambda seed=None: default_rng(0 if seed is None else seed)
if mode == "adcore":
    from adcore.compat import autograd as alias

    alias.install()
import autograd.numpy
import autograd.misc.optimizers as optimizers
import scipy.optimize


def capped(optimizer):
    signature = inspect.signature(optimizer)

    def run(*args, **kwargs):
        if "num_iters" not in signature.parameters:  # a wrapper taking **kwargs (autograd's unflatten_optimizer)
            return optimizer(*args, **dict(kwargs, num_iters=min(kwargs.get("num_iters", cap), cap)))
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        bound.arguments["num_iters"] = min(bound.arguments["num_iters"], cap)
        return optimizer(*bound.args, **bound.kwargs)

    return run


for name in ("adam", "sgd", "rmsprop"):
    setattr(optimizers, name, capped(getattr(optimizers, name)))
minimize = scipy.optimize.minimize


def capped_minimize(*args, **kwargs):
    options = dict(kwargs.get("options") or {})
    options["maxiter"] = min(options.get("maxiter", cap), cap)
    return minimize(*args, **dict(kwargs, options=options))


if os.environ["EXAMPLE_CAP_MINIMIZE"] == "1":
    scipy.optimize.minimize = capped_minimize
sys.argv = [script]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
start = time.perf_counter()
try:
    runpy.run_path(script, run_name="__main__")
finally:
    print("__example_seconds__", time.perf_counter() - start, file=sys.stderr)
"""


@dataclass
class Run:
    ok: bool
    numbers: list
    seconds: float
    error: str


def shorten(source, iterations):
    """The source with literal loop lengths and counts of steps, iterations and epochs cut (see the module notes)."""
    source = re.sub(r"\brange\((\d+)\)", lambda m: f"range({min(int(m.group(1)), iterations)})", source)
    source = re.sub(r"\b(\w*epochs) = \d+\b", r"\1 = 1", source)
    return re.sub(r"\b(\w*(?:steps|iters)) = (\d+)\b", lambda m: f"{m.group(1)} = {min(int(m.group(2)), iterations)}", source)


def copy_examples(folder, destination, iterations):
    """The examples folder copied to ``destination``, every Python source shortened."""
    shutil.copytree(folder, destination)
    for path in destination.rglob("*.py"):
        path.write_text(shorten(path.read_text(), iterations))


def write_fake_mnist(folder, n_train=600, n_test=100, seed=0):
    """A small synthetic MNIST (random 28 x 28 images, labels 0-9) in MNIST's gzip format, in ``folder/data``."""
    import numpy

    rng = numpy.random.default_rng(seed)
    data = folder / "data"
    data.mkdir(exist_ok=True)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, n).astype(numpy.uint8)
        images = (rng.random((n, 28, 28)) * 255 * (rng.random((n, 28, 28)) < 0.2)).astype(numpy.uint8)
        with gzip.open(data / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        with gzip.open(data / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())


def run_example(folder, script, mode, iterations, timeout, minimize=True):
    """Run ``script`` (relative to ``folder``) under ``mode`` (``"autograd"`` or ``"adcore"``).

    ``iterations`` caps the optimisers (and ``scipy.optimize.minimize`` if ``minimize``).
    """
    prelude = folder / "_examples_prelude.py"
    env = dict(
        os.environ,
        EXAMPLE_ITERATIONS=str(iterations),
        EXAMPLE_CAP_MINIMIZE="1" if minimize else "0",
        MPLBACKEND="Agg",
        PYTHONPATH=os.pathsep.join([str(REPOSITORY), os.environ.get("PYTHONPATH", "")]),
    )
    command = [sys.executable, str(prelude), mode, str(folder / script)]
    try:
        result = subprocess.run(
            command, cwd=folder / Path(script).parent, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return Run(False, [], math.nan, f"timed out after {timeout} s")
    seconds = [float(line.split()[1]) for line in result.stderr.splitlines() if line.startswith(TIME_MARK)]
    error = "" if result.returncode == 0 else (result.stderr.strip().splitlines() or ["(no message)"])[-1]
    return Run(result.returncode == 0, NUMBER.findall(result.stdout), seconds[0] if seconds else math.nan, error)


def compare(expected, actual, rtol, atol=0.0):
    """``(whether the printed numbers agree, largest relative difference)``: numbers within ``atol``
    of each other (round-off around zero, such as a gradient at an optimum) agree whatever their ratio."""
    if len(expected) != len(actual):
        return False, math.inf
    largest = 0.0
    for a, b in zip(map(float, expected), map(float, actual)):
        if math.isnan(a) and math.isnan(b) or abs(a - b) <= atol:
            continue
        largest = max(largest, abs(a - b) / max(abs(a), abs(b), 1e-300))
    return largest <= rtol, largest


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("examples", type=Path, help="autograd's examples/ folder")
    parser.add_argument("--iterations", type=int, default=20, help="iterations of optimisers and long loops (default 20)")
    parser.add_argument("--only", default="", help="comma-separated example names (default: all)")
    parser.add_argument("--rtol", type=float, default=1e-6, help="relative tolerance on printed numbers (default 1e-6)")
    parser.add_argument("--atol", type=float, default=1e-9, help="absolute tolerance on printed numbers (default 1e-9)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per run (default 600)")
    parser.add_argument("--no-fake-mnist", action="store_true", help="do not write a synthetic MNIST when none is there")
    args = parser.parse_args(argv)
    only = {name.removesuffix(".py") for name in args.only.split(",") if name}
    scripts = sorted(
        str(path.relative_to(args.examples))
        for path in args.examples.rglob("*.py")
        if path.name not in NOT_EXAMPLES and (not only or path.stem in only)
    )
    rows, failures = [], 0
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "examples"
        copy_examples(args.examples, folder, args.iterations)
        (folder / "_examples_prelude.py").write_text(PRELUDE)
        if not args.no_fake_mnist and not (args.examples / "data").exists():
            write_fake_mnist(folder)
        for script in scripts:
            settings = dict({"iterations": args.iterations}, **SETTINGS.get(script, ({}, ""))[0])
            source = (args.examples / script).read_text()
            for old, new in settings.pop("edits", ()):
                if old not in source:
                    raise ValueError(f"{script} has no {old!r} to replace: SETTINGS is for autograd 1.9.1's examples")
                source = source.replace(old, new)
            (folder / script).write_text(shorten(source, settings["iterations"]))
            reference = run_example(folder, script, "autograd", timeout=args.timeout, **settings)
            ours = run_example(folder, script, "adcore", timeout=args.timeout, **settings)
            agree, largest = (
                compare(reference.numbers, ours.numbers, args.rtol, args.atol) if reference.ok and ours.ok else (False, math.nan)
            )
            failures += reference.ok and not (ours.ok and agree)
            rows.append((script, reference, ours, agree, largest))
            print(format_row(*rows[-1]), flush=True)
    print()
    print(table(rows))
    return 1 if failures else 0


def format_row(script, reference, ours, agree, largest):
    status = f"{script}: autograd {'ok' if reference.ok else 'FAILS (' + reference.error + ')'}"
    status += f", adcore {'ok' if ours.ok else 'FAILS (' + ours.error + ')'}"
    if reference.ok and ours.ok:
        status += f", {len(reference.numbers)} numbers {'agree' if agree else 'DIFFER'} (max rel. diff {largest:.1e})"
        status += f", time ratio {ours.seconds / reference.seconds:.2f}"
    return status


def table(rows):
    """A Markdown table: example, runs (autograd / adcore), numbers match, time ratio adcore / autograd."""
    lines = ["| example | runs (autograd / adcore) | numbers match | time ratio |", "|---|---|---|---|"]
    ran = [row for row in rows if row[1].ok]
    for script, reference, ours, agree, largest in rows:
        runs = f"{'yes' if reference.ok else 'no'} / {'yes' if ours.ok else 'no'}"
        if reference.ok and ours.ok:
            match = f"{'yes' if agree else 'NO'} ({len(reference.numbers)} numbers, max rel. diff {largest:.0e})"
            ratio = f"{ours.seconds / reference.seconds:.2f}"
        else:
            match, ratio = "—", "—"
        lines.append(f"| {script} | {runs} | {match} | {ratio} |")
    good = [row for row in ran if row[2].ok and row[3]]
    ratios = [row[2].seconds / row[1].seconds for row in good if row[1].seconds > 0]
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else math.nan
    lines.append(f"\n{len(good)}/{len(ran)} of the examples that run under autograd run under adcore with the same numbers; ")
    lines[-1] += f"time ratio (geometric mean) {geomean:.2f}"
    lines += [f"- {script}: {SETTINGS[script][1]}" for script, *_ in rows if script in SETTINGS]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
