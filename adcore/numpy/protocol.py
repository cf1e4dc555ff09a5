"""NumPy's own functions called on traced values: ``ArrayBox.__array_ufunc__`` (NEP 13) and
``ArrayBox.__array_function__`` (NEP 18).

Code that calls ``numpy.sin(x)``, ``numpy.sum(x, axis=0)``, ``numpy.concatenate([x, y])``
or ``numpy.linalg.solve(a, x)`` on a traced ``x`` reaches here, and the call is
handed to the function of the same name in ``adcore.numpy`` (``adcore.numpy.linalg``,
``adcore.numpy.fft``), so it is differentiated as if the code had imported
``adcore.numpy``. A NumPy operator between a raw array and a traced one
(``raw * x``) takes the same road (NumPy calls ``numpy.multiply``). Ufunc methods:
``reduce`` of ``add``, ``multiply``, ``maximum``, ``minimum``, ``logical_and`` and
``logical_or`` (as ``sum``, ``prod``, ``max``, ``min``, ``all``, ``any`` over ``axis``,
default 0), ``accumulate`` of ``add`` and ``multiply``, and ``outer`` of any binary
ufunc. What has no counterpart raises ``TypeError`` naming the NumPy function and
pointing to ``adcore.numpy``; so do the ufunc keywords adcore cannot honour
(``out`` other than None, ``where`` other than True, ``casting``, ``order``,
``subok``, ``signature``).
"""

import functools
import importlib

import numpy as _np

from . import signatures
from . import dtypes, shapes

#: NumPy's modules whose functions are dispatched, and adcore's counterparts (module paths)
_MODULES = {"numpy": "adcore.numpy", "numpy.linalg": "adcore.numpy.linalg", "numpy.fft": "adcore.numpy.fft"}
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min", "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}
_UFUNC_DEFAULTS = {"casting": "same_kind", "order": "K", "subok": True, "signature": None}


@functools.cache
def _counterpart_table():
    """NumPy function -> the adcore function of the same name and module, for every NumPy function that
    adcore defines itself (its re-exports of NumPy's own objects are left out: they would call back here).
    Built on first use; a thread that comes meanwhile builds its own, complete, copy."""
    table = {}
    for numpy_path, adcore_path in _MODULES.items():
        source, target = importlib.import_module(numpy_path), importlib.import_module(adcore_path)
        for name, numpy_fun in list(vars(source).items()):  # vars: no lazy import of NumPy's submodules
            adcore_fun = getattr(target, name, None)
            if callable(numpy_fun) and adcore_fun is not None and adcore_fun is not numpy_fun:
                try:
                    table[numpy_fun] = adcore_fun
                except TypeError:  # an unhashable callable: not a function NumPy dispatches
                    pass
    return table


def _adcore_name(module, name):
    return f"{_MODULES.get(module, 'adcore.numpy')}.{name}"


def _refuse(numpy_name, why, way_out):
    raise TypeError(f"{numpy_name} on a traced array: {why}; {way_out}")


def _use(adcore_name):
    return f"call {adcore_name} instead (import adcore.numpy as np), or compute with adcore.numpy functions"


def array_function(self, func, types, args, kwargs):
    """``numpy.<func>(...)`` with a traced argument: adcore's function of the same name, on the same arguments."""
    module = getattr(func, "__module__", "numpy") or "numpy"
    numpy_name = f"{module}.{func.__name__}"
    target = _counterpart_table().get(func)
    if target is None:
        _refuse(numpy_name, "adcore has no counterpart that traces it", _use(_adcore_name(module, func.__name__)))
    return target(*args, **kwargs)


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """``numpy.<ufunc>(...)`` (or one of its methods) with a traced operand: adcore's function of the same name.

    ``raw * x`` comes here through NumPy's ufunc dispatch: a plain call (no keywords) goes straight to
    the counterpart (one dictionary lookup); everything else through :func:`_ufunc_method`."""
    if method == "__call__" and not kwargs:
        target = _counterpart_table().get(ufunc)
        if target is not None:
            return target(*inputs)
    return _ufunc_method(ufunc, method, inputs, kwargs)


def _ufunc_method(ufunc, method, inputs, kwargs):
    name = ufunc.__name__
    numpy_name = (f"numpy.{name}" if hasattr(_np, name) else f"the ufunc {name!r}") + (
        "" if method == "__call__" else f".{method}"
    )
    _check_ufunc_keywords(kwargs, numpy_name, name)
    dtype = kwargs.pop("dtype", None)
    if method != "reduce" and kwargs.pop("where", True) is not True:
        _refuse(numpy_name, "where= would leave entries unset", f"use adcore.numpy.where(mask, adcore.numpy.{name}(...), other)")
    if method == "__call__":
        target = _counterpart_table().get(ufunc)
        if target is None:
            _refuse(numpy_name, "adcore has no counterpart that traces it", _use(f"adcore.numpy.{name}"))
        result = target(*inputs, **kwargs)
    elif method == "reduce" and name in _REDUCE:
        kwargs.setdefault("axis", 0)
        result = getattr(signatures, _REDUCE[name])(*inputs, **kwargs)
    elif method == "accumulate" and name in _ACCUMULATE:
        result = getattr(signatures, _ACCUMULATE[name])(*inputs, axis=kwargs.pop("axis", 0), **kwargs)
    elif method == "outer" and ufunc.nin == 2 and ufunc in _counterpart_table():
        a, b = inputs
        a = shapes.reshape(a, shapes.shape(a) + (1,) * shapes.ndim(b))
        result = _counterpart_table()[ufunc](a, b, **kwargs)
    else:
        _refuse(numpy_name, "adcore has no counterpart of this ufunc method", _use(f"adcore.numpy.{_REDUCE.get(name, name)}"))
    return result if dtype is None else dtypes.astype(result, dtype)


def _check_ufunc_keywords(kwargs, numpy_name, name):
    out = kwargs.pop("out", None)
    if out is not None and any(o is not None for o in (out if isinstance(out, tuple) else (out,))):
        _refuse(numpy_name, "out= cannot be written (adcore never writes into an array)", "use the returned array")
    for keyword, default in _UFUNC_DEFAULTS.items():
        if kwargs.pop(keyword, default) != default:
            _refuse(numpy_name, f"the keyword {keyword}= is not supported", _use(f"adcore.numpy.{name}"))
