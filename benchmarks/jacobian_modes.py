"""``python -m benchmarks.jacobian_modes``: ``jacobian``'s choice of mode against both modes, timed.

For functions R^n -> R^m of three kinds (batch-safe VJPs, a long chain of small steps, a primitive
whose VJP is not batch-safe) and a range of ``(n, m)``, it times, side by side on NumPy: the rows
in reverse (``jacrev``), the columns pushed forward through the recorded graph (what ``jacobian``
does in forward mode), ``jacfwd`` (one forward trace per column), ``jacobian`` itself, and
autograd's ``jacobian`` where it is installed. The last column is ``jacobian``'s time over the
faster of the two modes (1.0: it chose the faster). The constants of ``adcore.operators``'
``_forward_is_cheaper`` were fitted to this table.
"""

import argparse
import time

import numpy

import adcore.numpy as anp
from adcore import jacfwd, jacobian, jacrev
from adcore.core import trace, vspace
from adcore.core.forward import TapeNode, tape_jvp, tape_order
from adcore.operators import _jacobian_columns

SHAPES = [(2, 50), (2, 1000), (10, 100), (10, 1000), (50, 100), (100, 200), (100, 2000), (200, 400), (400, 100)]


def functions(np, n, m, rng):
    """Name -> ``f(x)``, R^n -> R^m, written with the NumPy-named namespace ``np``."""
    A = rng.standard_normal((m, n)) / numpy.sqrt(n)

    def chain(x):
        y = A @ x
        for _ in range(40):
            y = y + 0.01 * np.sin(y)
        return y

    return {
        "batch-safe": lambda x: np.tanh(A @ x) * 2.0 + np.sin(A @ x) * x[0],
        "chain-40": chain,
        "row-by-row": lambda x: np.cumsum(np.tanh(A @ x)) * x[0],  # cumsum's VJP is not batch-safe
    }


def tape_forward(f):
    """The Jacobian's columns pushed through one recorded graph (``jacobian``'s forward mode, forced)."""

    def columns(x):
        ans, end_node = trace(TapeNode.new_root(), f, x)
        nodes = tape_order(end_node)
        return _jacobian_columns(lambda v: tape_jvp(nodes, v), vspace(ans), vspace(x))

    return columns


def best_time(call, x, repeats):
    """The least time of ``repeats`` calls ``call(x)``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call(x)
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    try:
        import autograd
        import autograd.numpy as agnp
    except ImportError:
        autograd = None
    rng = numpy.random.default_rng(0)
    labels = ("jacrev", "tape fwd", "jacfwd", "jacobian", "autograd")
    header = f"{'function':11s} {'n':>4s} {'m':>5s} | " + " ".join(f"{label:>9s}" for label in labels) + " | chosen/best"
    print(header + "\n" + "-" * len(header))
    for n, m in SHAPES:
        seed = int(rng.integers(1 << 30))
        ours = functions(anp, n, m, numpy.random.default_rng(seed))
        theirs = functions(agnp, n, m, numpy.random.default_rng(seed)) if autograd else {}
        x = rng.standard_normal(n)
        for name, f in ours.items():
            reference = jacrev(f)(x)
            for mode in (tape_forward(f), jacobian(f)):
                numpy.testing.assert_allclose(mode(x), reference, rtol=1e-10, atol=1e-12)
            ms = {
                label: 1e3 * best_time(op(f), x, args.repeats)
                for label, op in (("jacrev", jacrev), ("tape fwd", tape_forward), ("jacfwd", jacfwd), ("jacobian", jacobian))
            }
            ms["autograd"] = 1e3 * best_time(autograd.jacobian(theirs[name]), x, args.repeats) if autograd else float("nan")
            ratio = ms["jacobian"] / min(ms["jacrev"], ms["tape fwd"])
            cells = " ".join(f"{ms[label]:9.2f}" for label in labels)
            print(f"{name:11s} {n:4d} {m:5d} | {cells} | {ratio:5.2f}", flush=True)
    print("(milliseconds, best of", args.repeats, "runs; NumPy, one process)")


if __name__ == "__main__":
    main()
