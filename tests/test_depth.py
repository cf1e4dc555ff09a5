"""Depth and size of a graph, and what an exception leaves behind.

- A chain of 10^6 primitives is differentiated without ``RecursionError`` (the toposort and the
  backward pass are loops, not recursion) and with memory linear in its length: the peak resident
  memory grows about ten times from 10^5 to 10^6 primitives. The primitive is the cheapest one
  there is (a user primitive on Python floats, through ``adcore.extend``), so the figures are those
  of the engine alone. Each size runs in a fresh interpreter, where a thread samples the resident
  size every 2 ms (``getrusage``'s peak would not do: Linux keeps it across ``exec``, so a child of
  a large pytest process starts with its parent's peak).
- An exception raised in the user's function while it is traced, in a nested ``grad``, in a
  rule while tracing, or in a VJP during the backward pass leaves no state behind: the next
  derivative is right, the garbage collector is back on, and trace ids keep increasing.
"""

import gc
import json
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

import adcore.numpy as np
from adcore import grad, hessian, make_jvp
from adcore.extend import defjvp, defvjp, primitive

ROOT = Path(__file__).resolve().parents[1]

CHAIN = """
import json, os, sys, threading, time
from adcore import grad
from adcore.extend import defvjp, primitive

RATE = 1.000001


@primitive
def step(x):
    return x * RATE


defvjp(step, lambda ans, x: lambda g: g * RATE)


def chain(x):
    for _ in range(n):
        x = step(x)
    return x


def resident():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def sample(peak, done):
    while not done.wait(0.002):
        peak.append(max(peak.pop(), resident()))


n = 1000
grad(chain)(1.0)  # warm up: everything imported and cached before the baseline
n = int(sys.argv[1])
base = resident()
peak, done = [base], threading.Event()
sampler = threading.Thread(target=sample, args=(peak, done))
sampler.start()
start = time.perf_counter()
g = grad(chain)(1.0)
seconds = time.perf_counter() - start
done.set()
sampler.join()
print(json.dumps({"seconds": seconds, "growth": peak[0] - base, "gradient": g, "recursion_limit": sys.getrecursionlimit()}))
"""


def _chain(n):
    out = subprocess.run([sys.executable, "-c", CHAIN, str(n)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.full  # a million primitives: the default run's slowest test (test_core checks long chains)
@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="samples the resident size from /proc/self/statm (Linux)")
def test_a_million_primitives_without_recursion_and_in_linear_memory():
    """The figures are printed (``pytest -rP tests/test_depth.py`` shows them)."""
    small, large = _chain(10**5), _chain(10**6)
    for n, run in ((10**5, small), (10**6, large)):
        print(f"grad of a chain of {n} primitives: {run['seconds']:.2f} s, peak memory +{run['growth'] / 2**20:.0f} MiB")
        assert run["recursion_limit"] <= 10_000, "the limit was not raised to make this pass"
        assert run["gradient"] == pytest.approx(1.000001**n, rel=1e-9)
    # linear: ten times the primitives, about ten times the memory (not 100 times, not unbounded)
    assert 5 * small["growth"] < large["growth"] < 15 * small["growth"]
    assert large["growth"] / 10**6 < 2048, "at most 2 KiB per recorded primitive"


def test_a_long_chain_of_array_operations_in_forward_mode():
    """Forward mode keeps no graph: each node is dropped as soon as its successor is made."""

    def chain(x):
        for _ in range(50_000):
            x = x + 1e-6 * x
        return x

    _, tangent = make_jvp(chain)(numpy.ones(2))(numpy.ones(2))
    numpy.testing.assert_allclose(tangent, (1 + 1e-6) ** 50_000, rtol=1e-9)


# ---- exceptions leave no state behind


def _trace_id(log):
    """A function recording the trace id of its (boxed) argument in ``log``."""

    def f(x):
        log.append(x._trace_id)
        return np.sum(np.sin(x) * x)

    return f


def _check_clean(log):
    """The next derivatives are right, the collector is on, and trace ids kept increasing."""
    x = numpy.array([0.3, -1.2])
    numpy.testing.assert_allclose(grad(_trace_id(log))(x), numpy.sin(x) + x * numpy.cos(x), rtol=1e-12)
    numpy.testing.assert_allclose(hessian(lambda x: np.sum(x**3))(x), numpy.diag(6 * x), rtol=1e-12)
    assert gc.isenabled()
    assert log == sorted(log) and len(set(log)) == len(log), f"trace ids must only increase: {log}"


class UserError(Exception):
    pass


def test_exception_in_the_traced_function():
    log = []
    grad(_trace_id(log))(numpy.ones(2))

    def fails(x):
        np.exp(x) * 2.0  # a few nodes recorded, then the user's code raises
        raise UserError("in the user's function")

    with pytest.raises(UserError):
        grad(fails)(numpy.ones(2))
    with pytest.raises(UserError):
        make_jvp(fails)(numpy.ones(2))(numpy.ones(2))
    _check_clean(log)


def test_exception_in_a_nested_grad():
    log = []
    grad(_trace_id(log))(numpy.ones(2))

    def inner_fails(y):
        raise UserError("in the inner function")

    with pytest.raises(UserError):
        grad(lambda x: np.sum(grad(lambda y: np.sum(y * x) + inner_fails(y))(x)))(numpy.ones(2))
    with pytest.raises(UserError):
        hessian(lambda x: np.sum(x) + inner_fails(x))(numpy.ones(2))
    _check_clean(log)


def test_exception_in_a_backward_pass_and_in_a_rule():
    log = []
    grad(_trace_id(log))(numpy.ones(2))

    @primitive
    def fragile(x):
        return x * 2.0

    def broken_vjp(ans, x):
        def vjp(g):
            raise UserError("in the VJP")

        return vjp

    def broken_jvp(g, ans, x):
        raise UserError("in the JVP")

    defvjp(fragile, broken_vjp)
    defjvp(fragile, broken_jvp)
    with pytest.raises(UserError, match="in the VJP"):
        grad(lambda x: np.sum(np.sin(fragile(x))))(numpy.ones(2))
    with pytest.raises(UserError, match="in the JVP"):
        make_jvp(lambda x: fragile(x))(numpy.ones(2))(numpy.ones(2))
    with pytest.raises(UserError, match="in the VJP"):
        grad(lambda x: np.sum(grad(lambda y: np.sum(fragile(y) * x))(x)))(numpy.ones(2))
    _check_clean(log)


def test_an_exception_with_the_collector_already_off_leaves_it_off():
    gc.disable()
    try:
        with pytest.raises(ZeroDivisionError):
            grad(lambda x: np.sin(x) + 1 / 0)(1.0)
        assert not gc.isenabled()
    finally:
        gc.enable()
