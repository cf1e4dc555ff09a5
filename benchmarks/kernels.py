"""Kernel launches per derivative: the ``kernels`` column of ``python -m benchmarks``, and the count that
``tests/test_cupy_signatures.py`` holds under a ceiling for CuPy without a GPU (NumPy standing in).

A call's launches are its array operations that compute array entries: each call of an array library's
function whose result is an array that is no view of an argument (:func:`launched`: ``reshape``,
``broadcast_to``, ``empty`` and results that are no array, a shape, a dtype or a Python number, launch
nothing), and each operator or ufunc used on an array directly (``a * b``, ``g += h``, ``a.sum()``). On a
GPU each is one kernel launch; on the CPU the count says what a GPU would launch. An operation counts
once: what it runs inside itself is its own.

The operations are seen, per library, for the length of one counted call only (a context variable and
a context manager; nothing of a count outlives it, and another thread counts nothing):

- NumPy, and array-api-strict (whose arrays hold NumPy's): the counted call runs on views of its input
  arrays of the ``ndarray`` subclass :class:`CountedArray`, whose ufuncs and NumPy functions count.
  Functions that make an array from no array (``zeros``, ``ones``, ``eye``) and methods that copy
  (``astype``, ``copy``) are not seen, and code that takes exact ``ndarray`` types only (``adcore.jit``'s
  numexpr fusion) runs its unfused path.
- PyTorch: a ``TorchFunctionMode`` sees every call of a ``torch`` function or ``Tensor`` method.
- CuPy on a GPU: a ``cupy.cuda.MemoryHook`` counts the arrays allocated (each new array).
- Dask and JAX: not counted (None).
"""

import contextlib
import contextvars
from functools import partial

import numpy

from .peers import tree_map

#: NumPy-named functions that make an array without computing its entries (its memory is left as it is).
NO_KERNEL = frozenset({"empty", "empty_like"})

#: The launches of the counted call running in this context, or None.
_counting = contextvars.ContextVar("benchmarks.kernels.counting", default=None)


class Launches:
    """The launches counted so far in one call (``count``), and how many counted operations are running
    (``inside``: what they run themselves is not counted again)."""

    def __init__(self):
        self.count = 0
        self.inside = 0


@contextlib.contextmanager
def counting():
    """A block whose launches are counted in the :class:`Launches` it yields."""
    launches = Launches()
    token = _counting.set(launches)
    try:
        yield launches
    finally:
        _counting.reset(token)


def launch(count=1):
    """Count ``count`` launches in the counted call running here, if any and if no counted operation runs."""
    launches = _counting.get()
    if launches is not None and not launches.inside:
        launches.count += count


def launched(name, args, result, arrays=numpy.ndarray, results=(numpy.ndarray, numpy.generic), shares=numpy.shares_memory):
    """Whether the function ``name``, called with ``args``, launched a kernel to give ``result``: it made an
    array (an instance of ``results``, not a dtype, a shape or a Python value) that is not a view of an
    argument (an instance of ``arrays`` with which ``shares(result, argument)``: ``broadcast_to``, ``reshape``,
    ``permute_dims`` and ``asarray`` of an array give views, which launch nothing) and whose memory it wrote
    (``empty`` does not)."""
    if name in NO_KERNEL:
        return False
    outputs = result if isinstance(result, tuple) else (result,)
    inputs = [a for a in args if isinstance(a, arrays)]
    return any(isinstance(r, results) and not any(shares(r, a) for a in inputs) for r in outputs)


def counted(name, fun, args, kwargs, rule=launched):
    """``fun(*args, **kwargs)``, counted as one launch if ``rule(name, args, result)`` says it launched one (and
    a call is being counted, outside any other counted operation); what ``fun`` runs itself is not counted."""
    launches = _counting.get()
    if launches is None or launches.inside:
        return fun(*args, **kwargs)
    launches.inside += 1
    try:
        result = fun(*args, **kwargs)
        launches.count += rule(name, args, result)
    finally:
        launches.inside -= 1
    return result


def count(call, library=None):
    """The launches of one call of ``call()``, after one more call that fills the caches (adcore's dispatch,
    ``adcore.jit``'s recording); ``library`` (``"torch"``, ``"cupy"``) names a library whose operations are seen
    by a hook of its own (see the module's docstring), None for arrays that count themselves."""
    call()
    with counting() as launches, _HOOKS.get(library, contextlib.nullcontext)():
        call()
    return launches.count


# ---- NumPy's arrays: a subclass whose operations count ----


class CountedOperators(numpy.ndarray):
    """A NumPy array whose operators and ufuncs (``a * b``, ``-a``, ``g += h``, ``a.sum()``) are one launch each
    in a counted call; results come back of the class (``_counted``)."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        launch()
        plain = [x.view(numpy.ndarray) if isinstance(x, CountedOperators) else x for x in inputs]
        if out is not None:
            kwargs["out"] = tuple(o.view(numpy.ndarray) if isinstance(o, CountedOperators) else o for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        if method == "at":
            return None
        return tuple(self._counted(r) for r in result) if isinstance(result, tuple) else self._counted(result)

    #: Whether a NumPy scalar result comes back as a 0-d array of the class (as array-api-strict's and CuPy's
    #: operations give), so that what is computed from it counts too; else it stays a NumPy scalar.
    zero_d = False

    @classmethod
    def _counted(cls, result):
        if isinstance(result, numpy.ndarray) and not isinstance(result, cls):
            return result.view(cls)
        if cls.zero_d and isinstance(result, numpy.generic):
            return numpy.asarray(result).view(cls)
        return result


class CountedArray(CountedOperators):
    """A :class:`CountedOperators` whose NumPy functions (``numpy.sum``, ``numpy.where``, ``numpy.matmul``...)
    count by :func:`launched` too."""

    def __array_function__(self, func, types, args, kwargs):
        result = counted(func.__name__, partial(super().__array_function__, func, types), (args, kwargs), {}, _function_launched)
        return tuple(map(self._counted, result)) if type(result) is tuple else self._counted(result)


def _function_launched(name, call_args, result):
    args, kwargs = call_args
    return launched(name, args, result)


class _StrictCountedArray(CountedArray):
    zero_d = True


def _counting_views(value, kind):
    """``value`` (an array, or nested tuples and lists of them; anything else is kept) with its NumPy arrays
    (or array-api-strict's) seen as views of :class:`CountedArray`."""

    def view(leaf):
        if type(leaf) is numpy.ndarray:
            return leaf.view(CountedArray)
        if kind == "array_api_strict" and type(leaf).__module__.startswith("array_api_strict"):
            return type(leaf)._new(leaf._array.view(_StrictCountedArray), device=leaf.device)
        return leaf

    return tree_map(view, value)


# ---- the hooks of libraries whose operations cannot be seen from their arrays ----


#: torch's in-place methods that write no entries (they change a tensor's autograd flags).
NO_WRITE = frozenset({"requires_grad_", "detach_"})


def _torch_mode():
    import torch
    from torch.overrides import TorchFunctionMode

    def shares(a, b):
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()

    def rule(name, call_args, result):
        args, kwargs = call_args
        in_place = "out" in kwargs or (name.endswith("_") and not name.endswith("__") and name not in NO_WRITE)
        return in_place or launched(name, args, result, torch.Tensor, torch.Tensor, shares)

    class Counting(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            return counted(getattr(func, "__name__", ""), lambda a, k: func(*a, **k), (args, kwargs), {}, rule)

    return Counting()


def _cupy_hook():
    import cupy

    class Allocations(cupy.cuda.MemoryHook):
        name = "benchmarks.kernels"

        def malloc_preprocess(self, **kwargs):
            launch()

    return Allocations()


_HOOKS = {"torch": _torch_mode, "cupy": _cupy_hook}


def kernels(backend_name, call):
    """The launches of one call of a benchmark contender's ``call`` on the backend ``backend_name``, or None
    where they are not counted (Dask, JAX).

    ``call`` is a ``functools.partial`` holding the call's inputs: on NumPy and array-api-strict it runs on
    their counting views (the calls of the partial made again).

    Raises
    ------
    TypeError
        If ``call`` is no ``functools.partial`` on a backend whose inputs must be made counting views.
    """
    if backend_name in ("torch", "cupy"):
        return count(call, backend_name)
    if backend_name not in ("numpy", "array_api_strict"):
        return None
    if not isinstance(call, partial):
        raise TypeError(f"kernels: a call to count on {backend_name} must be a functools.partial of its inputs, not {call!r}")
    keywords = {key: _counting_views(value, backend_name) for key, value in call.keywords.items()}
    return count(partial(call.func, *_counting_views(call.args, backend_name), **keywords))
