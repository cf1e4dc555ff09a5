"""Derivatives computed in several threads at once equal the sequential ones exactly, and the default
backend set in one thread does not leak into another (it is a context variable).

Each thread traces its own graph: trace ids come from one counter (``next`` on an ``itertools.count``
is atomic), nodes and boxes belong to one call, and the registries are only read once the rules are
loaded. The threads are released together by a barrier, and switch every microsecond, so that their
traces interleave.
"""

import gc
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy
import pytest
from conftest import TEST_BACKENDS

import adcore
import adcore.numpy as np
import backends
from adcore import grad, hessian, jacobian, make_jvp, value_and_grad
from adcore.scipy.special import logsumexp

THREADS = 8
THREAD_BACKENDS = [case for case in TEST_BACKENDS if case.name in ("numpy", "array_api_strict")]


@pytest.fixture(autouse=True)
def fast_switching():
    """Threads switch every microsecond (instead of every 5 ms), so that traces really interleave."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def mlp_loss(params, x):
    w1, w2 = params
    hidden = np.tanh(np.matmul(x, w1))  # raw @ traced: array-api-strict does not defer (README)
    return np.mean((hidden @ w2) ** 2)


WORKLOADS = {
    "mlp": lambda b, rng: grad(mlp_loss)(
        (b.asarray(rng.normal(size=(4, 8))), b.asarray(rng.normal(size=(8, 2)))), b.asarray(rng.normal(size=(5, 4)))
    ),
    "logsumexp": lambda b, rng: grad(lambda x: logsumexp(x * 3.0))(b.asarray(rng.normal(size=7))),
    "value_and_grad": lambda b, rng: value_and_grad(lambda x: np.sum(np.sin(x) * np.exp(x)))(b.asarray(rng.normal(size=6))),
    "jacobian": lambda b, rng: jacobian(lambda x: np.cumsum(x**2) / np.sum(x**2))(b.asarray(rng.normal(size=4))),
    "hessian": lambda b, rng: hessian(lambda x: np.sum(np.cos(x) * x**3))(b.asarray(rng.normal(size=3))),
    "forward": lambda b, rng: make_jvp(lambda x: np.prod(x) * x)(b.asarray(rng.normal(size=5)))(b.asarray(rng.normal(size=5))),
    "loop": lambda b, rng: grad(_loop)(b.asarray(rng.normal(size=3))),
    "nested": lambda b, rng: grad(lambda x: np.sum(grad(lambda y: np.sum(np.sin(y) * x))(x) ** 2))(b.asarray(rng.normal(size=3))),
}


def _loop(x):
    for _ in range(200):
        x = x + 0.01 * np.sin(x)
    return np.sum(x)


def _flatten(value):
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _as_numpy(b, value):
    return [numpy.asarray(b.to_numpy(leaf) if backends.array_backend(leaf) is not None else leaf) for leaf in _flatten(value)]


def _run(b, name, seed, barrier=None):
    if barrier is not None:
        barrier.wait()
    return _as_numpy(b, WORKLOADS[name](b, numpy.random.default_rng(seed)))


@pytest.mark.parametrize("backend", THREAD_BACKENDS, ids=lambda case: case.id, indirect=True)
def test_concurrent_gradients_equal_sequential_ones(backend):
    """Each thread its own function and data; then all threads the same function on their own data."""
    tasks = [(name, seed) for seed, name in enumerate(WORKLOADS)]
    tasks += [("mlp", 100 + seed) for seed in range(THREADS)]
    expected = [_run(backend, name, seed) for name, seed in tasks]
    batches = [tasks[i : i + THREADS] for i in range(0, len(tasks), THREADS)]
    with ThreadPoolExecutor(THREADS) as pool:
        for _ in range(3):
            results = []
            for batch in batches:
                barrier = threading.Barrier(len(batch), timeout=20)  # each batch starts together
                results += list(pool.map(lambda task, barrier=barrier: _run(backend, *task, barrier), batch))
            for (name, _), got, want in zip(tasks, results, expected):
                assert len(got) == len(want)
                for a, b in zip(got, want):
                    numpy.testing.assert_array_equal(a, b, err_msg=name)
    assert gc.isenabled(), "the garbage collector is back on once every trace has ended"


def test_the_same_function_object_in_many_threads():
    """One closure, one input array shared read-only by all threads."""
    x = numpy.linspace(-1.0, 1.0, 50)
    f = grad(lambda w: np.sum(np.tanh(w * x) ** 2))
    expected = f(0.7)
    barrier = threading.Barrier(THREADS, timeout=20)

    def run(_):
        barrier.wait()
        return [f(0.7) for _ in range(20)]

    with ThreadPoolExecutor(THREADS) as pool:
        for results in pool.map(run, range(THREADS)):
            assert all(r == expected for r in results)


def test_default_backend_is_per_thread():
    """set_backend and use_backend in one thread leave the others' default backend alone, also while
    they run at the same time; a new thread starts from numpy."""
    barrier = threading.Barrier(4, timeout=20)
    seen = {}

    def with_set_backend(name):
        adcore.set_backend(name)
        barrier.wait()
        made = [backends.array_backend(np.zeros(2)).name for _ in range(50)]
        barrier.wait()
        seen[f"set {name}"] = (adcore.default_backend().name, set(made))

    def with_use_backend(name):
        with adcore.use_backend(name):
            barrier.wait()
            inside = adcore.default_backend().name
            g = grad(lambda x: np.sum(x * np.ones(3)))(1.0)  # np.ones from the thread's default backend
            barrier.wait()
        seen[f"use {name}"] = (inside, backends.array_backend(g).name if backends.array_backend(g) else "scalar")
        seen[f"after use {name}"] = adcore.default_backend().name

    def plain():
        barrier.wait()
        seen["plain"] = adcore.default_backend().name
        barrier.wait()

    with ThreadPoolExecutor(4) as pool:
        futures = [
            pool.submit(with_set_backend, "array_api_strict"),
            pool.submit(with_set_backend, "numpy"),
            pool.submit(with_use_backend, "array_api_strict"),
            pool.submit(plain),
        ]
        for future in futures:
            future.result()
    assert seen["set array_api_strict"] == ("array_api_strict", {"array_api_strict"})
    assert seen["set numpy"] == ("numpy", {"numpy"})
    assert seen["use array_api_strict"] == ("array_api_strict", "array_api_strict")
    assert seen["after use array_api_strict"] == "numpy"
    assert seen["plain"] == "numpy"
    assert adcore.default_backend().name == "numpy"


def test_vmap_beside_a_thread_that_records_a_jit():
    """While one thread records ``adcore.jit`` (which hooks every primitive's raw call, in every thread),
    another thread's ``vmap`` of a derivative whose rules call non-differentiable functions (``isnan``,
    ``equal`` of the NaN-masking chain rule) batches them as without the recording."""
    recording, finished = threading.Event(), threading.Event()

    def held_open(x):
        recording.set()
        assert finished.wait(timeout=20)
        return np.sum(x * x)

    recorder = threading.Thread(target=lambda: adcore.jit(grad(held_open))(numpy.ones(3)))
    recorder.start()
    try:
        assert recording.wait(timeout=20)
        xs = numpy.random.default_rng(4).normal(size=(5, 3))
        f = lambda x: np.sum(np.tanh(x) * x**2)  # noqa: E731
        result = adcore.vmap(adcore.hvp(f))(xs, numpy.ones((5, 3)))
    finally:
        finished.set()
        recorder.join(timeout=20)
    expected = numpy.stack([adcore.hvp(f)(x, numpy.ones(3)) for x in xs])
    numpy.testing.assert_allclose(result, expected, rtol=1e-12)
