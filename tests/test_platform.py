"""What differs between the Pythons and NumPys adcore declares (pyproject.toml) and breaks an import there.

CI runs this file (with the rest of the default run) on every CPython the machine has and with the oldest
declared NumPy, SciPy and array-api-compat, so each case below runs under each of them:

- Wrapping a builtin or a C type: ``functools.wraps(builtins.type)`` raises on CPython 3.12.0-3.12.3
  (``__type_params__`` is a descriptor there, python/cpython#119011), and a class's ``__dict__`` is its
  namespace of methods. ``adcore.core.wrapping.wraps``, which every primitive factory uses, copies only what
  a function can hold.
- Reading a NumPy callable's signature: NumPy's ufuncs have an ``inspect.signature`` from NumPy 2.4 on only;
  ``readable_signature`` builds the same one from ``nin``/``nout`` before, and gives None, never an error,
  for a callable with none.
"""

import builtins
import functools
import inspect
import re
from pathlib import Path

import numpy
import pytest

import adcore.numpy as anp
from adcore.core import notrace_primitive, primitive
from adcore.core.wrapping import wraps
from adcore.numpy.passthrough import readable_signature, ufunc_signature, without_derivative


class _Plain:
    """A class to wrap."""

    def method(self):
        return 1


WRAPPED = {
    "type": builtins.type,
    "ufunc": numpy.add,
    "builtin_function": builtins.len,
    "class": _Plain,
    "partial": functools.partial(max, 1),
}


@pytest.mark.parametrize("name", WRAPPED)
def test_wraps_copies_only_what_a_function_can_hold(name):
    wrapped = WRAPPED[name]

    @wraps(wrapped)
    def wrapper(*args, **kwargs):
        return wrapped(*args, **kwargs)

    assert wrapper.__wrapped__ is wrapped
    assert wrapper.__name__ == getattr(wrapped, "__name__", "wrapper")
    assert not set(vars(wrapper)) & {"method", "mro", "__init__", "__call__", "__dict__"}  # no class namespace copied
    assert isinstance(getattr(wrapper, "__type_params__", ()), tuple)


@pytest.mark.parametrize("name", WRAPPED)
@pytest.mark.parametrize("factory", [primitive, notrace_primitive, lambda f: without_derivative(f, "f", "a test")])
def test_every_primitive_factory_wraps_builtins_and_c_types(name, factory):
    wrapped = WRAPPED[name]
    made = factory(wrapped)
    assert made.__name__ == getattr(wrapped, "__name__", made.__name__)
    if name == "type":
        assert made(1.5) is float
    elif name == "ufunc":
        assert made(1.0, 2.0) == 3.0


def test_the_builtins_adcore_wraps_keep_their_names():
    import adcore.builtins as ab

    assert (ab.type.__name__, ab.isinstance.__name__) == ("type", "isinstance")
    assert ab.type(1.5) is float


def _numpy_callables():
    """NumPy's callables that ``adcore.numpy`` offers under the same name (what it wraps or passes through)."""
    names = sorted(name for name in anp.__all__ if callable(getattr(numpy, name, None)))
    return [name for name in names if not inspect.isclass(getattr(numpy, name))]


def test_a_signature_is_read_for_every_numpy_callable_adcore_wraps_or_none_without_an_error():
    """Every ufunc gets one (NumPy's own from 2.4, else the one built from ``nin``/``nout``); any other callable
    gets ``inspect``'s, or None exactly where ``inspect`` cannot read one (NumPy's C functions before 2.4)."""
    names = _numpy_callables()
    assert len(names) > 300
    for name in names:
        fun = getattr(numpy, name)
        signature = readable_signature(fun)
        if isinstance(fun, numpy.ufunc):
            positional = [p for p in signature.parameters.values() if p.kind is p.POSITIONAL_ONLY]
            assert len(positional) == fun.nin, name
            assert "out" in signature.parameters, name
        elif signature is None:
            with pytest.raises((TypeError, ValueError)):
                inspect.signature(fun)


@pytest.mark.parametrize("name", sorted(n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc)))
def test_a_ufunc_signature_is_numpys_own(name):
    """The signature built for a NumPy without ufunc signatures is the one NumPy 2.4 states, and binds calls."""
    ufunc = getattr(numpy, name)
    built = ufunc_signature(ufunc)
    try:
        assert built == inspect.signature(ufunc)
    except ValueError:  # NumPy < 2.4: only the built one
        pass
    built.bind(*range(ufunc.nin), out=None, dtype=None)


def test_a_callable_without_a_signature_gives_none():
    assert readable_signature(numpy.add) is not None
    assert readable_signature(object()) is None


def test_readme_states_the_declared_python_and_dependency_ranges():
    """README's 'Supported versions' quotes pyproject.toml's lower bounds of Python, NumPy, SciPy and array-api-compat."""
    root = Path(__file__).parents[1]
    pyproject, readme = (root / "pyproject.toml").read_text(), (root / "README.md").read_text()
    python = re.search(r'requires-python = ">=(\d+\.\d+)"', pyproject).group(1)
    assert f"Python {python}" in readme
    for name in ("numpy", "scipy", "array-api-compat"):
        lowest = re.search(rf'"{re.escape(name)}>=([0-9.]+)', pyproject).group(1)
        assert f"{name} {lowest}" in readme.replace("NumPy", "numpy").replace("SciPy", "scipy"), name
