"""``python -m benchmarks``: train the digits MLP with adcore's gradients, check that gradient
against a hand-written one, time both (and HIPS/autograd) side by side, print a table, write JSON.

Exits with status 1 if adcore's gradient differs from the hand-written one.
"""

import argparse
import json
import platform
import sys
from dataclasses import dataclass
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from time import perf_counter

import numpy
from rich.console import Console
from rich.table import Table

import adcore
import adcore.numpy as anp
import backends

from . import digits, overhead
from .timing import median_times

#: The hidden layer: wide enough that the gradient is mostly array work, as in practice
#: (the fixed cost per primitive is measured apart, by the scalar chain).
HIDDEN = 256


@dataclass(frozen=True)
class Settings:
    """How long a run is: Adam steps, and timed repetitions of each gradient."""

    steps: int
    mlp_repeats: int
    chain_repeats: int
    warmup: int


FULL = Settings(steps=200, mlp_repeats=41, chain_repeats=21, warmup=3)
QUICK = Settings(steps=20, mlp_repeats=5, chain_repeats=3, warmup=1)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="numpy", choices=backends.NAMES, help="array backend (default: numpy)")
    parser.add_argument("--hidden", type=int, default=HIDDEN, help=f"hidden units of the MLP (default: {HIDDEN})")
    parser.add_argument("--json", default="benchmark-results.json", help="where to write the figures")
    parser.add_argument("--quick", action="store_true", help="a short run, for tests (accuracy not meaningful)")
    args = parser.parse_args(argv)
    reason = backends.unavailable_reason(args.backend)
    if reason is not None:
        parser.error(f"backend {args.backend} cannot run here: {reason}")
    return args


def peer_libraries(backend):
    """The automatic-differentiation libraries to time, as name -> (grad operator, NumPy namespace):
    adcore, and HIPS/autograd when it is installed and the backend is NumPy (autograd's only one)."""
    peers = {"adcore": (adcore.grad, anp)}
    if backend.name == "numpy":
        try:
            import autograd
            import autograd.numpy
        except ImportError:
            return peers
        peers["autograd"] = (autograd.grad, autograd.numpy)
    return peers


def time_gradients(function, hand_written, args, peers, backend, repeats, warmup):
    """Median seconds of each peer's gradient of ``function(*args, np)`` with respect to
    ``args[0]``, and of ``hand_written(*args, xp)``, the same gradient by hand (see ``median_times``)."""
    contenders = {name: partial(grad(function), *args, np) for name, (grad, np) in peers.items()}
    contenders["hand-written"] = partial(hand_written, *args, backend.xp)
    return median_times(contenders, backend.synchronize, repeats, warmup)


def ratios(seconds):
    """adcore's time over the hand-written and autograd times (None for one not timed)."""
    return {
        f"adcore/{name}": seconds["adcore"] / seconds[name] if name in seconds else None for name in ("hand-written", "autograd")
    }


def run(backend, hidden, settings):
    """Every workload on ``backend``; returns the figures for the JSON file.

    Raises
    ------
    digits.GradientMismatch
        If adcore's gradient of the MLP loss differs from the hand-written one.
    """
    peers = peer_libraries(backend)
    put = partial(backend.from_numpy, dtype="float64")
    x_train, labels_train, x_test, labels_test = digits.load()
    x, y = put(x_train), put(digits.one_hot(labels_train))
    params = tuple(map(put, digits.init_params(hidden, seed=0)))
    check_error = digits.check_gradient(params, x, y, backend)

    start = perf_counter()
    trained = digits.train(params, x, y, settings.steps, backend.xp)
    backend.synchronize()
    training_seconds = perf_counter() - start

    mlp = time_gradients(digits.loss, digits.hand_grad, (params, x, y), peers, backend, settings.mlp_repeats, settings.warmup)
    chain_args = (overhead.start(backend),)
    chain = time_gradients(
        overhead.chain, overhead.chain_derivative, chain_args, peers, backend, settings.chain_repeats, settings.warmup
    )
    primitives = overhead.STEPS * overhead.PRIMITIVES_PER_STEP
    autograd_version = _version("autograd")
    return {
        "backend": backend.name,
        "device": str(backend.device(x)),
        "quick": settings is QUICK,
        "python_version": platform.python_version(),
        "numpy_version": numpy.__version__,
        "autograd_present": autograd_version is not None,
        "autograd_version": autograd_version,
        "hidden": hidden,
        "training_steps": settings.steps,
        "training_seconds": training_seconds,
        "train_accuracy": digits.accuracy(trained, x, labels_train, backend),
        "test_accuracy": digits.accuracy(trained, put(x_test), labels_test, backend),
        "gradient_check_max_relative_error": check_error,
        "mlp_batch_size": x_train.shape[0],
        "mlp_gradient_seconds": mlp,
        "mlp_gradient_ratios": ratios(mlp),
        "chain_steps": overhead.STEPS,
        "chain_primitives": primitives,
        "chain_seconds": chain,
        "chain_us_per_primitive": {name: seconds / primitives * 1e6 for name, seconds in chain.items()},
        "chain_ratios": ratios(chain),
    }


def _version(distribution):
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def results_table(results):
    """The timings as a ``rich`` table: one row per workload, one column per contender and ratio."""
    table = Table(
        title=(
            f"adcore on {results['backend']} ({results['device']}): digits MLP 64-{results['hidden']}-10, "
            f"{results['training_steps']} Adam steps, train accuracy {results['train_accuracy']:.4f}, "
            f"test accuracy {results['test_accuracy']:.4f}"
        ),
        caption=(
            f"gradient check: largest relative difference {results['gradient_check_max_relative_error']:.1e}; "
            f"medians of interleaved runs; Python {results['python_version']}, NumPy {results['numpy_version']}, "
            f"autograd {results['autograd_version'] or 'not installed'}"
        ),
    )
    table.add_column("workload")
    for name in ("adcore", "hand-written", "autograd", "adcore / hand", "adcore / autograd"):
        table.add_column(name, justify="right")
    rows = [
        ("MLP gradient (ms)", results["mlp_gradient_seconds"], 1e3, results["mlp_gradient_ratios"]),
        ("scalar chain (µs per primitive)", results["chain_us_per_primitive"], 1, results["chain_ratios"]),
    ]
    for label, figures, scale, workload_ratios in rows:
        times = [f"{figures[name] * scale:.2f}" if name in figures else "—" for name in ("adcore", "hand-written", "autograd")]
        shown = [f"{r:.2f}" if r is not None else "—" for r in workload_ratios.values()]
        table.add_row(label, *times, *shown)
    return table


def main(argv=None):
    args = parse_args(argv)
    console = Console(width=120)
    start = perf_counter()
    try:
        results = run(backends.get_backend(args.backend), args.hidden, QUICK if args.quick else FULL)
    except digits.GradientMismatch as error:
        errors = Console(stderr=True)
        errors.print("[bold red]adcore's gradient differs from the hand-written gradient:[/]")
        errors.print(str(error), markup=False)
        return 1
    results["total_seconds"] = perf_counter() - start
    console.print(results_table(results))
    with open(args.json, "w") as file:
        json.dump(results, file, indent=2)
    console.print(f"total {results['total_seconds']:.1f} s; figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
