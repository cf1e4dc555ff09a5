"""A derivative has no effect outside itself: the constants it reads, other threads, the collector.

The sweep runs every line of every spec table with each argument in turn differentiated and the
others constant NumPy arrays, given as they are, as a reversed view, a broadcast view, a slice of a
larger array, a view of memory that an ndarray does not own, and read by two nested traces through
views of one owner (the inner trace ending before or after the outer one's use). All in one process,
so that a case which leaves state behind fails the next: after each call the result must equal the
one computed from fresh copies, every user array's flags must be what they were, no module-level
registry, cache or list of adcore's may have grown, and the collector's switch must be as it was.
"""

import gc
import importlib
import sys
import threading

import numpy
import pytest
from conftest import TEST_BACKENDS
from specs import inputs

import adcore
import adcore.numpy as np
from adcore import grad, value_and_grad
from adcore.core import reverse
from adcore.extend import defvjp, primitive

NUMPY = TEST_BACKENDS[0]

#: The test modules whose spec tables the sweep runs, and the name of each table.
TABLES = {
    "test_numpy_rules": "SPECS",
    "test_numpy_more": "SPECS",
    "test_array_api": "SPECS",
    "test_einsum": "CASES",
    "test_fft": "SPECS",
    "test_linalg": "SPECS",
    "test_selection": "SPECS",
    "test_scipy_linalg": "SPECS",
    "test_scipy_linalg_compositions": "SPECS",
    "test_scipy_signal_integrate": "SPECS",
    "test_scipy_special": "SPECS",
    "test_scipy_stats": "SPECS",
}


def total(value):
    """The sum of every entry (real and imaginary parts) of ``value``, a traced array or a tuple of them."""
    if isinstance(value, (tuple, list)):
        return sum(total(item) for item in value)
    return np.sum(np.real(value)) + np.sum(np.imag(value))


def flags(array):
    """Every flag NumPy keeps for ``array``, by name."""
    return {name: getattr(array.flags, name) for name in ("writeable", "owndata", "c_contiguous", "f_contiguous", "aligned")}


def registry_sizes():
    """The length of every module-level dict, list and set of ``adcore`` and ``backends``, by module and name."""
    sizes = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or module_name.split(".")[0] not in ("adcore", "backends"):
            continue
        for name, value in vars(module).items():
            if isinstance(value, (dict, list, set)) and not name.startswith("__"):
                sizes[module_name, name] = len(value)
    return sizes


def reversed_view(a):
    """A view with negative strides (0-d: a plain view) holding ``a``'s values."""
    if a.ndim == 0:
        return a.copy()[...]
    flipped = numpy.flip(a).copy()
    return numpy.flip(flipped)


def broadcast_view(a):
    """A broadcast view of the shape of ``a``: its first row repeated (stride 0 along the first axis)."""
    return numpy.broadcast_to(a.copy()[:1] if a.ndim else a.copy(), a.shape)


def slice_view(a):
    """``a``'s values as the inner part of a larger array (a view that does not own its memory)."""
    big = numpy.zeros(tuple(n + 2 for n in a.shape) or (3,), a.dtype)
    inner = big[tuple(slice(1, -1) for _ in a.shape)] if a.ndim else big[1:2].reshape(())
    inner[...] = a
    return inner


def foreign_view(a):
    """``a``'s values in memory that a ``bytearray`` owns (the view's base is no ndarray)."""
    return numpy.frombuffer(bytearray(a.tobytes()), a.dtype).reshape(a.shape)


FORMS = {"array": lambda a: a.copy(), "reversed": reversed_view, "broadcast": broadcast_view, "slice": slice_view, "foreign": foreign_view}


def views_of_one_owner(arrays):
    """Views of one 1-d owner holding the values of ``arrays``, each of its array's shape."""
    owner = numpy.concatenate([a.reshape(-1) for a in arrays]) if arrays else numpy.zeros(0)
    views, start = [], 0
    for a in arrays:
        views.append(owner[start : start + a.size].reshape(a.shape))
        start += a.size
    return owner, views


def with_argument(fun, args, argnum):
    """``x -> total(fun(*args))`` with ``x`` in place of ``args[argnum]``."""

    def scalar(x):
        return total(fun(*args[:argnum], x, *args[argnum + 1 :]))

    return scalar


def nested(fun, outer_args, inner_args, argnum, inner_first):
    """An outer function of ``x`` reading ``outer_args`` and taking the gradient of an inner one reading
    ``inner_args``, the inner trace ending before (``inner_first``) or after the outer's use of its constants."""
    inner = with_argument(fun, inner_args, argnum)
    outer = with_argument(fun, outer_args, argnum)

    def scalar(x):
        if inner_first:
            pulled = np.sum(grad(inner)(x) * x)
            return pulled + outer(x)
        used = outer(x)
        return used + np.sum(grad(inner)(x) * x)

    return scalar


def outcome(scalar, x):
    """``value_and_grad(scalar)(x)`` as NumPy arrays, or the exception's type."""
    try:
        value, gradient = value_and_grad(scalar)(x)
    except Exception as error:  # noqa: BLE001 - compared with the reference's
        return type(error)
    return numpy.asarray(value), numpy.asarray(gradient)


def same_outcome(got, expected):
    if isinstance(expected, type) or isinstance(got, type):
        return got is expected
    try:
        for a, b in zip(got, expected):
            numpy.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
    except AssertionError:
        return False
    return True


#: spec line -> the forms at which its result is not unique, so that rounding (a copy's layout against a
#: view's, one LAPACK against another) may pick another: a broadcast view repeats one row, and the
#: orthogonal factor of a rank-deficient ``a.T @ b`` is not unique (seen with SciPy 1.15 on Python 3.10)
NOT_UNIQUE = {"orthogonal_procrustes": ("broadcast",)}


def cases(spec, dtype):
    """``(label, scalar, reference, x, user arrays)`` for each argument of ``spec`` differentiated and each form."""
    args = inputs(NUMPY, spec, dtype)
    for argnum, x in enumerate(args):
        fixed = [a for i, a in enumerate(args) if i != argnum]
        for form, make in FORMS.items():
            if form in NOT_UNIQUE.get(spec.name, ()):
                continue
            made = [make(a) for a in fixed]
            copies = [numpy.array(a) for a in made]
            at = list(made)
            at.insert(argnum, x)
            again = list(copies)
            again.insert(argnum, x)
            users = [*made, *(a.base for a in made if isinstance(a.base, numpy.ndarray))]
            yield f"argnum {argnum}, {form}", with_argument(spec.fun, at, argnum), with_argument(spec.fun, again, argnum), x, users
        if spec.order < 2 or not fixed:
            continue
        owner, views = views_of_one_owner(fixed + fixed)
        outer_args, inner_args = list(views[: len(fixed)]), list(views[len(fixed) :])
        outer_args.insert(argnum, x)
        inner_args.insert(argnum, x)
        copies = [numpy.array(a) for a in fixed]
        plain = list(copies)
        plain.insert(argnum, x)
        for inner_first in (False, True):
            label = f"argnum {argnum}, nested views of one owner, inner trace ending {'first' if inner_first else 'last'}"
            yield (
                label,
                nested(spec.fun, outer_args, inner_args, argnum, inner_first),
                nested(spec.fun, plain, plain, argnum, inner_first),
                x,
                [owner, *views],
            )


def sweep_problems(spec):
    """What went wrong in the sweep of one spec line, one text per case."""
    problems = []
    dtype = spec.dtypes[0]
    for label, scalar, reference, x, users in cases(spec, dtype):
        expected = outcome(reference, x)
        before = [flags(a) for a in users]
        sizes, collecting = registry_sizes(), gc.isenabled()
        got = outcome(scalar, x)
        if not same_outcome(got, expected):
            problems.append(f"{spec.name} ({label}): {got if isinstance(got, type) else 'a result'} instead of {expected}")
        if [flags(a) for a in users] != before:
            problems.append(f"{spec.name} ({label}): the flags of the user's arrays changed")
        now = registry_sizes()
        grown = {key: (size, now[key]) for key, size in sizes.items() if now.get(key, 0) > size}
        if grown:
            problems.append(f"{spec.name} ({label}): module-level state grew: {grown}")
        if gc.isenabled() != collecting:
            problems.append(f"{spec.name} ({label}): the collector was left {'on' if gc.isenabled() else 'off'}")
    return problems


@pytest.mark.parametrize("table", list(TABLES))
def test_spec_table_with_constant_numpy_arrays_of_every_form(table, full_run):
    """Every line with two arguments or more (those too slow for the default run on numpy only in ``--full``)."""
    specs = getattr(importlib.import_module(table), TABLES[table])
    problems = []
    for spec in specs:
        if len(spec.shapes) < 2 or "numpy" in spec.skip or ("numpy" in spec.full_only and not full_run):
            continue
        problems += sweep_problems(spec)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


# ---- the error paths: the user's function or a rule raises after constants were used ----


@primitive
def failing_product(a, x):
    return a * x


defvjp(failing_product, None, lambda ans, a, x: lambda g: 1 / 0)


@pytest.mark.parametrize("raiser", ["function", "rule", "seed"])
@pytest.mark.parametrize("form", list(FORMS))
def test_an_error_leaves_flags_and_state_as_they_were_and_the_next_call_works(raiser, form):
    constant = FORMS[form](numpy.arange(1.0, 7.0).reshape(2, 3))
    users = [constant, *([constant.base] if isinstance(constant.base, numpy.ndarray) else [])]
    works = grad(lambda x: np.sum(np.multiply(constant, x)))
    numpy.testing.assert_array_equal(works(numpy.ones((2, 3))), constant)  # (the caches of first calls filled)
    before, sizes, collecting = [flags(a) for a in users], registry_sizes(), gc.isenabled()

    def fails(x):
        y = np.sum(np.multiply(constant, x))
        if raiser == "function":
            raise ZeroDivisionError("the user's error")
        if raiser == "rule":
            return y + np.sum(failing_product(constant, x))
        return np.multiply(constant, x)  # not a scalar: grad refuses it

    with pytest.raises(ZeroDivisionError if raiser != "seed" else TypeError):
        grad(fails)(numpy.ones((2, 3)))
    assert [flags(a) for a in users] == before and registry_sizes() == sizes and gc.isenabled() == collecting
    numpy.testing.assert_array_equal(works(numpy.ones((2, 3))), constant)


def test_cross_with_a_constant_first_argument_then_every_later_grad():
    """Issue 24's example: ``np.cross(a, y)`` with a constant ``a`` raised, and poisoned every later grad."""
    a, b = numpy.array([1.0, 2.0, 3.0]), numpy.array([0.5, -1.0, 2.0])
    numpy.testing.assert_array_equal(grad(lambda y: np.sum(np.cross(a, y)))(b), numpy.cross(numpy.ones(3), a))
    assert a.flags.writeable
    numpy.testing.assert_array_equal(grad(lambda y: np.sum(a * y))(b), a)


# ---- the collector ----


def test_the_collector_switch_is_kept_and_given_back_on_errors():
    enabled = gc.isenabled()
    try:
        for switch in (gc.disable, gc.enable):
            switch()
            state = gc.isenabled()
            seen = []

            def loss(x, seen=seen):
                seen.append(gc.isenabled())
                return np.sum(x * x)

            grad(loss)(numpy.ones(3))
            assert gc.isenabled() == state and seen == [False]
            with pytest.raises(ZeroDivisionError):
                grad(lambda x: 1 / 0)(numpy.ones(3))
            assert gc.isenabled() == state
    finally:
        (gc.enable if enabled else gc.disable)()


# ---- other threads ----


@pytest.mark.parametrize("checked", [False, True], ids=["copied", "checked"])
def test_a_thread_writing_to_an_array_that_a_derivative_reads(checked, monkeypatch):
    """Issue 24: another thread's write to an array that a derivative reads as a constant, between its use and
    the end of the derivative, succeeds; the derivative is that of the values it read (a copy), or a clear error
    (a constant checked at the end), never one of values it did not read."""
    if checked:
        monkeypatch.setattr(reverse, "COPY_BUDGET", 0)
    shared = numpy.linspace(0.0, 1.0, 50)
    used, written = threading.Event(), threading.Event()
    errors = []

    def loss(x):
        y = np.sum(np.sin(x) * shared)
        used.set()
        assert written.wait(timeout=30)
        return y

    def writer():
        assert used.wait(timeout=30)
        try:
            shared[0] += 1.0
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        written.set()

    thread = threading.Thread(target=writer)
    thread.start()
    expected = numpy.cos(1.0) * numpy.linspace(0.0, 1.0, 50)
    try:
        if checked:
            with pytest.raises(ValueError, match="or another thread wrote to an array that the derivative reads"):
                grad(loss)(numpy.ones(50))
        else:
            numpy.testing.assert_array_equal(grad(loss)(numpy.ones(50)), expected)
    finally:
        written.set()
        thread.join()
    assert not errors and shared[0] == 1.0 and shared.flags.writeable


THREADS = 8


def test_derivatives_beside_writers_and_a_jit_recording():
    """8 threads take derivatives reading one constant, 8 threads write to their own arrays (and read the
    constant), one thread records ``adcore.jit``s; each gets exactly its sequential result, no error."""
    constant = numpy.linspace(-1.0, 1.0, 200)
    rounds = 30

    def derivative(seed):
        x = numpy.random.default_rng(seed).normal(size=200)
        return [grad(lambda x: np.sum(np.tanh(x * constant) ** 2))(x) for _ in range(rounds)]

    def writer(seed):
        own = numpy.zeros(200)
        for step in range(rounds * 20):
            own += constant
            own[step % 200] = seed
        return own

    def recording(seed):
        results = []
        for step in range(rounds // 3):
            f = adcore.jit(grad(lambda x, s=step: np.sum(np.sin(x * constant + s))))
            results.append(f(numpy.full(200, 0.1 * seed)))
        return results

    tasks = [(derivative, seed) for seed in range(THREADS)] + [(writer, seed) for seed in range(THREADS)] + [(recording, 1)]
    expected = [fun(seed) for fun, seed in tasks]
    results, errors = [None] * len(tasks), []
    barrier = threading.Barrier(len(tasks), timeout=30)

    def run(i):
        fun, seed = tasks[i]
        barrier.wait()
        try:
            results[i] = fun(seed)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(tasks))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors
    for (fun, _), got, want in zip(tasks, results, expected):
        numpy.testing.assert_array_equal(numpy.asarray(got), numpy.asarray(want), err_msg=fun.__name__)
    assert constant.flags.writeable and gc.isenabled()


# ---- the table of module-level state ----


def test_every_module_level_mutable_is_in_the_table():
    """docs/module-state.md names every module-level dict, list, set, type map, context variable, counter,
    lock and thread-local of ``adcore`` and ``backends`` (a new one needs a line saying who writes it and when)."""
    import contextvars
    import itertools
    import pathlib
    import pkgutil
    import weakref

    import backends

    table = (pathlib.Path(__file__).parent.parent / "docs" / "module-state.md").read_text()
    kinds = (dict, list, set, contextvars.ContextVar, itertools.count, threading.local, type(threading.Lock()), weakref.WeakValueDictionary)
    missing = set()
    for package in (adcore, backends):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            try:
                module = importlib.import_module(info.name)
            except ImportError:  # an optional library (cupy, jax) not installed here
                continue
            for name, value in vars(module).items():
                if isinstance(value, kinds) and not name.startswith("__") and not name.endswith("_all") and f"{name}`" not in table:
                    missing.add(f"{info.name}.{name}")
    assert not missing, f"not in docs/module-state.md: {sorted(missing)}"
