"""Every public name of autograd 1.9.1's NumPy and SciPy modules exists at the same path in adcore.

autograd's ``autograd.numpy`` (``.linalg``, ``.fft``, ``.random``) and
``autograd.scipy.*`` offer the names of the NumPy and SciPy namespaces they wrap;
each of them must be in adcore's module of the same path (``adcore.numpy`` ...).
The names autograd defines itself in those modules (its rule helpers such as
``grad_solve`` or ``make_rfft_factors``, its imports such as ``np``, ``scipy``,
``defvjp``, and the ``numpy_vjps``-style submodules that ``adcore.compat.autograd``
provides) are implementation details of autograd, not NumPy's or SciPy's API: they
are listed apart, except the few adcore offers too (``AUTOGRAD_OWN``). ``MISSING``
is the short list of NumPy/SciPy names adcore leaves out, each with its reason.
"""

import importlib

import numpy
import pytest

import adcore.numpy as np

autograd = pytest.importorskip("autograd")

#: autograd module -> the NumPy / SciPy namespace it wraps (its names, or a distribution's methods)
WRAPPED = {
    "numpy": "numpy",
    "numpy.linalg": "numpy.linalg",
    "numpy.fft": "numpy.fft",
    "numpy.random": "numpy.random",
    "scipy.linalg": "scipy.linalg",
    "scipy.special": "scipy.special",
    "scipy.signal": "scipy.signal",
    "scipy.integrate": "scipy.integrate",
    **{f"scipy.stats.{d}": f"scipy.stats:{d}" for d in "beta chi2 dirichlet gamma multivariate_normal norm poisson t".split()},
}

#: NumPy / SciPy names of those modules that adcore does not have, with the reason (target: none)
MISSING = {}

#: names other libraries set on NumPy's module when imported, which autograd.numpy then copies: not NumPy's
NOT_NUMPYS = {"numpy": {"expm1x"}}  # numexpr (an optional fuser of adcore.jit) sets numpy.expm1x = numpy.expm1

#: autograd's own names in those modules that adcore offers too, at the same path
AUTOGRAD_OWN = {
    "numpy": {"array_from_args", "make_diagonal", "r_class", "c_class"},
}


def _wrapped_namespace(spec):
    module, _, attribute = spec.partition(":")
    namespace = importlib.import_module(module)
    return getattr(namespace, attribute) if attribute else namespace


def _public(namespace):
    return {name for name in dir(namespace) if not name.startswith("_")}


@pytest.mark.parametrize("module", WRAPPED)
def test_every_numpy_and_scipy_name_of_autograd_is_in_adcore(module):
    theirs = importlib.import_module(f"autograd.{module}")
    ours = importlib.import_module(f"adcore.{module}")
    wrapped = _public(_wrapped_namespace(WRAPPED[module])) - NOT_NUMPYS.get(module, set())
    required = (_public(theirs) & wrapped) | AUTOGRAD_OWN.get(module, set())
    missing = sorted(name for name in required if not hasattr(ours, name))
    assert missing == sorted(MISSING.get(module, {})), f"adcore.{module} lacks {missing}"


def test_autograd_helpers_are_its_own_names():
    """What the comparison leaves out is autograd's: not a name of the namespace it wraps."""
    theirs = importlib.import_module("autograd.numpy.linalg")
    helpers = _public(theirs) - _public(numpy.linalg)
    assert {"grad_solve", "norm_vjp", "npla"} <= helpers
    assert not helpers & _public(numpy.linalg)


#: ndarray attributes a traced array does not have: they expose or move the raw buffer, which would drop the
#: derivative (read ``adcore.core.getval(x)`` for the values), or move it to a device (not differentiated)
NOT_ON_TRACED_ARRAYS = {
    "base": "the raw buffer",
    "byteswap": "the raw buffer",
    "ctypes": "the raw buffer",
    "data": "the raw buffer",
    "dump": "serialisation of the raw buffer",
    "dumps": "serialisation of the raw buffer",
    "flags": "the raw buffer's layout",
    "getfield": "the raw buffer",
    "setflags": "the raw buffer's layout",
    "strides": "the raw buffer's layout",
    "tobytes": "serialisation of the raw buffer",
    "tofile": "serialisation of the raw buffer",
    "tostring": "serialisation of the raw buffer (NumPy 2.1 and 2.2's deprecated name of tobytes)",
    "to_device": "a move between devices is not a differentiated operation",
    "newbyteorder": "removed in NumPy 2.0 (NumPy 2.1 and 2.2 still list a stub that raises AttributeError)",
}


def test_traced_arrays_have_the_ndarray_and_autograd_methods():
    from autograd.numpy.numpy_boxes import ArrayBox as AutogradArrayBox

    missing = sorted(n for n in _public(numpy.ndarray) if not hasattr(np.ArrayBox, n))
    assert missing == sorted(n for n in NOT_ON_TRACED_ARRAYS if hasattr(numpy.ndarray, n))
    assert sorted(n for n in _public(AutogradArrayBox) if not hasattr(np.ArrayBox, n)) == []
