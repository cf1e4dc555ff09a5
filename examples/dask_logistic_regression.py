"""Logistic regression by gradient descent on a chunked Dask data set, through a ``dask.distributed`` cluster.

adcore traces the loss on Dask arrays, so the forward pass, the backward pass and
the update ``w - rate * gradient`` of one step are one lazy task graph; the
cluster's workers compute it chunk by chunk, and ``persist()`` after each step
keeps the next step's graph from growing. The same steps are then run with the
NumPy backend on the same data (computed whole), and the two weight vectors must
agree to 1e-10.

Run from the repository root::

    python -m pip install -e ".[dask]" && python examples/dask_logistic_regression.py

``--rows``, ``--chunk``, ``--features``, ``--steps`` and ``--workers`` change the
size of the run; ``--quick`` is a short one.
"""

import argparse
import sys
from time import perf_counter

import dask
import dask.array as da
import numpy
from dask.distributed import Client, LocalCluster
from rich.console import Console
from rich.table import Table

import adcore.numpy as np
from adcore import value_and_grad


def loss(w, x, y):
    """The mean logistic loss ``mean(log(1 + exp(-y * (x @ w))))`` plus ``1e-3 * |w|^2 / 2``.

    ``x``: (rows, features); ``y``: (rows,) of -1 and 1; ``w``: (features,); a 0-d array.
    """
    margins = y * (x @ w)
    return np.mean(np.logaddexp(0.0, -margins)) + 0.5e-3 * np.sum(w * w)


def make_data(rows, features, chunk, seed=0):
    """A chunked data set made lazily, chunk by chunk, on the workers: labels from a known
    weight vector plus noise. Returns ``(x, y)`` as Dask arrays of ``rows`` rows in chunks of ``chunk``."""
    rng = da.random.default_rng(seed)
    x = rng.standard_normal((rows, features), chunks=(chunk, features))
    truth = numpy.linspace(-1.0, 1.0, features)
    y = da.where(x @ truth + 0.5 * rng.standard_normal(rows, chunks=chunk) > 0, 1.0, -1.0)
    return x, y


def descend(w, x, y, steps, rate, step_done=lambda w, loss: (w, loss)):
    """``steps`` of gradient descent from ``w``; ``step_done(w, loss)`` may persist them (Dask)."""
    losses = []
    for _ in range(steps):
        value, gradient = value_and_grad(loss)(w, x, y)
        w, value = step_done(w - rate * gradient, value)
        losses.append(value)
    return w, losses


def graph_tasks(*collections):
    """The number of tasks in the graph that computes ``collections``."""
    return len(dask.base.collections_to_expr(collections, optimize_graph=False).__dask_graph__())


def run(rows, features, chunk, steps, workers, rate=0.5):
    """Fit on Dask through a LocalCluster and on NumPy; return a dict of the figures."""
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            x, y = dask.persist(*make_data(rows, features, chunk))
            w0 = da.zeros(features, chunks=features)

            value, gradient = value_and_grad(loss)(w0, x, y)
            w_next = w0 - rate * gradient
            tasks_before = graph_tasks(w_next, value)
            w_next, value = dask.persist(w_next, value)
            tasks_after = graph_tasks(w_next, value)

            start = perf_counter()
            w_dask, losses = descend(w0, x, y, steps, rate, step_done=lambda w, value: dask.persist(w, value))
            w_dask, losses = dask.compute(w_dask, losses)
            dask_seconds = (perf_counter() - start) / steps

            x_numpy, y_numpy = dask.compute(x, y)

    start = perf_counter()
    w_numpy, losses_numpy = descend(numpy.zeros(features), x_numpy, y_numpy, steps, rate)
    numpy_seconds = (perf_counter() - start) / steps
    return {
        "rows": rows,
        "chunk": chunk,
        "chunks": -(-rows // chunk),
        "features": features,
        "steps": steps,
        "workers": workers,
        "loss_first": float(losses[0]),
        "loss_last": float(losses[-1]),
        "max_weight_difference": float(numpy.max(numpy.abs(w_dask - w_numpy))),
        "max_loss_difference": float(numpy.max(numpy.abs(numpy.asarray(losses) - numpy.asarray(losses_numpy)))),
        "tasks_before_persist": tasks_before,
        "tasks_after_persist": tasks_after,
        "dask_seconds_per_step": dask_seconds,
        "numpy_seconds_per_step": numpy_seconds,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--chunk", type=int, default=50_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="20,000 rows in chunks of 5,000, 5 steps")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.chunk, args.steps = 20_000, 5_000, 5
    figures = run(args.rows, args.features, args.chunk, args.steps, args.workers)

    table = Table(title="Logistic regression on Dask through a LocalCluster, checked against NumPy")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name, value in figures.items():
        table.add_row(name.replace("_", " "), f"{value:.4g}" if isinstance(value, float) else str(value))
    Console().print(table)
    agree = figures["max_weight_difference"] <= 1e-10
    Console().print("weights agree with NumPy to 1e-10" if agree else "[red]weights differ from NumPy's by more than 1e-10[/red]")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
