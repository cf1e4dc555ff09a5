"""NumPy's full signatures for the functions whose primitives take fewer arguments.

The primitives (``wrapper.sum``, ``wrapper.reshape``, ...) take what their
derivative rules need; the functions here are what ``adcore.numpy`` exports
under NumPy's names, with NumPy's positional order and the keywords users pass:
``out`` (accepted when None; an array to write into raises
``NotImplementedError``, since adcore never writes into arrays), ``initial``
and ``where`` of the reductions, ``order`` of ``reshape``, ``decimals`` of
``round``, ``optimize`` of ``einsum``, ``retstep`` and ``axis`` of
``linspace``, ``copy`` and ``ndmin`` of ``array``, and ``device`` and ``like``
of the creation functions (the array is made by ``like``'s backend, else by
the default backend, on ``device``). Each handles its keywords with adcore
functions and calls the primitive, so derivatives are the primitives' rules.
A value that cannot be supported raises a clear error naming the function.
"""

import builtins

import numpy as _np

from backends import backend_of

from ..core import getval, isbox, notrace_primitive
from . import einsum as _einsum
from . import creation, declare, dtypes, elementwise, indexing, reductions, shapes
from .linalg import _NO_VALUE
from .passthrough import _check_order, _creation_backend, _creation_device
from .selection import take as _take

__all__ = [
    "all",
    "amax",
    "amin",
    "any",
    "arange",
    "argmax",
    "argmin",
    "around",
    "array",
    "asarray",
    "clip",
    "concatenate",
    "cumprod",
    "cumsum",
    "einsum",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "linspace",
    "max",
    "mean",
    "min",
    "ones",
    "ones_like",
    "prod",
    "ptp",
    "reshape",
    "round",
    "std",
    "sum",
    "take",
    "trace",
    "var",
    "zeros",
    "zeros_like",
]


def _no_out(out, name):
    if out is not None:
        raise NotImplementedError(f"{name}: out= is not supported (adcore never writes into an array); use the result")


def _given(value):
    return value is not _NO_VALUE


def _mask(where, x):
    """``where`` (a NumPy ``where=`` argument: a bool, a list or an array) as a boolean array of ``x``'s
    backend and device, broadcast to ``x``'s shape."""
    where = getval(where)
    if not hasattr(where, "shape"):
        raw = getval(x)
        backend = backend_of(raw, op="where")
        where = backend.from_numpy(_np.asarray(where, dtype=bool), device=backend.device(raw) if hasattr(raw, "shape") else None)
    return shapes.broadcast_to(where, shapes.shape(x))


# ---- reductions ----


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    """The sum over ``axis`` (all axes when None) of the entries where ``where`` holds, plus ``initial``."""
    return _masked(reductions.sum, elementwise.add, 0, "sum", a, axis, dtype, out, keepdims, initial, where)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    """The product over ``axis`` of the entries where ``where`` holds, times ``initial``."""
    return _masked(reductions.prod, elementwise.multiply, 1, "prod", a, axis, dtype, out, keepdims, initial, where)


def _masked(reduce, combine, identity, name, a, axis, dtype, out, keepdims, initial, where):
    """``reduce`` of ``a`` with the entries outside ``where`` replaced by ``identity``, combined with ``initial``."""
    _no_out(out, name)
    a = shapes._as_array(a)
    if _given(where) and where is not True:
        a = indexing.where(_mask(where, a), a, identity)
    result = reduce(a, axis=axis, dtype=dtype, keepdims=keepdims)
    return combine(result, initial) if _given(initial) else result


def _extreme(reduce, combine, name, a, axis, out, keepdims, initial, where):
    _no_out(out, name)
    a = shapes._as_array(a)
    if _given(where) and where is not True:
        if not _given(initial):
            raise ValueError(
                f"reduction operation '{name}' does not have an identity, so to use a where mask one has to specify 'initial'"
            )
        a = indexing.where(_mask(where, a), a, initial)
    result = reduce(a, axis=axis, keepdims=keepdims)
    return combine(result, initial) if _given(initial) else result


def max(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    """The largest entry over ``axis`` (all axes when None), of those where ``where`` holds and ``initial``."""
    return _extreme(reductions.max, elementwise.maximum, "maximum", a, axis, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    """The smallest entry over ``axis`` (all axes when None), of those where ``where`` holds and ``initial``."""
    return _extreme(reductions.min, elementwise.minimum, "minimum", a, axis, out, keepdims, initial, where)


amax, amin = max, min


def ptp(a, axis=None, out=None, keepdims=False):
    """``max - min`` over ``axis``."""
    _no_out(out, "ptp")
    return reductions.ptp(a, axis=axis, keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NO_VALUE):
    """The mean over ``axis`` of the entries where ``where`` holds (computed in ``dtype`` if given)."""
    _no_out(out, "mean")
    a = shapes._as_array(a)
    if dtype is not None:
        a = dtypes.astype(a, dtype)
    if not _given(where) or where is True:
        return reductions.mean(a, axis=axis, keepdims=keepdims)
    mask = _mask(where, a)
    count = reductions.sum(dtypes.astype(mask, getval(a).dtype), axis=axis, keepdims=keepdims)
    return reductions.sum(indexing.where(mask, a, 0), axis=axis, keepdims=keepdims) / count


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NO_VALUE, mean=_NO_VALUE, correction=_NO_VALUE):
    """The variance over ``axis`` of the entries where ``where`` holds, divided by ``count - ddof``
    (``correction`` is the standard's name for ``ddof``); ``mean`` may be given, computed with ``keepdims``."""
    _no_out(out, "var")
    if _given(correction):
        if ddof != 0:
            raise ValueError("var: ddof and correction can't be provided simultaneously")
        ddof = correction
    a = shapes._as_array(a)
    if dtype is not None:
        a = dtypes.astype(a, dtype)
    if (not _given(where) or where is True) and not _given(mean):
        return reductions.var(a, axis=axis, ddof=ddof, keepdims=keepdims)
    mask = _mask(True if not _given(where) else where, a)
    center = mean if _given(mean) else globals()["mean"](a, axis=axis, keepdims=True, where=mask)
    centered = elementwise.subtract(a, center)
    squared = (
        elementwise.real(elementwise.multiply(centered, elementwise.conj(centered)))
        if declare.iscomplexobj(a)
        else elementwise.square(centered)
    )
    count = reductions.sum(dtypes.astype(mask, getval(squared).dtype), axis=axis, keepdims=keepdims)
    return reductions.sum(indexing.where(mask, squared, 0), axis=axis, keepdims=keepdims) / elementwise.maximum(count - ddof, 0)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NO_VALUE, mean=_NO_VALUE, correction=_NO_VALUE):
    """The square root of :func:`var`, with the same arguments."""
    return elementwise.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction))


def cumsum(a, axis=None, dtype=None, out=None):
    """The cumulative sum along ``axis`` (of the flattened ``a`` when None), in ``dtype`` if given."""
    _no_out(out, "cumsum")
    a = shapes._as_array(a)
    return reductions.cumsum(a if dtype is None else dtypes.astype(a, dtype), axis=axis)


def cumprod(a, axis=None, dtype=None, out=None):
    """The cumulative product along ``axis`` (of the flattened ``a`` when None), in ``dtype`` if given."""
    _no_out(out, "cumprod")
    a = shapes._as_array(a)
    return reductions.cumprod(a if dtype is None else dtypes.astype(a, dtype), axis=axis)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum of the ``offset`` diagonal over ``axis1`` and ``axis2``, in ``dtype`` if given."""
    _no_out(out, "trace")
    result = reductions.trace(a, offset, axis1, axis2)
    return result if dtype is None else dtypes.astype(result, dtype)


@notrace_primitive
def any(a, axis=None, out=None, keepdims=False, *, where=True):
    """Whether any entry over ``axis`` (of those where ``where`` holds) is true (not differentiable)."""
    _no_out(out, "any")
    a = shapes._as_array(a)
    return reductions.any(a if where is True else elementwise.logical_and(a, where), axis=axis, keepdims=keepdims)


@notrace_primitive
def all(a, axis=None, out=None, keepdims=False, *, where=True):
    """Whether every entry over ``axis`` (of those where ``where`` holds) is true (not differentiable)."""
    _no_out(out, "all")
    a = shapes._as_array(a)
    return reductions.all(
        a if where is True else elementwise.logical_or(a, elementwise.logical_not(where)), axis=axis, keepdims=keepdims
    )


@notrace_primitive
def argmax(a, axis=None, out=None, *, keepdims=False):
    """The index of the largest entry along ``axis`` (of the flattened ``a`` when None)."""
    _no_out(out, "argmax")
    return reductions.argmax(a, axis=axis, keepdims=keepdims)


@notrace_primitive
def argmin(a, axis=None, out=None, *, keepdims=False):
    """The index of the smallest entry along ``axis`` (of the flattened ``a`` when None)."""
    _no_out(out, "argmin")
    return reductions.argmin(a, axis=axis, keepdims=keepdims)


# ---- elementwise and shape ----


@notrace_primitive
def round(a, decimals=0, out=None):
    """``a`` rounded to ``decimals`` decimals, halves to even (negative ``decimals``: to tens, hundreds, ...),
    as NumPy's (``rint(a * 10**decimals) / 10**decimals``); not differentiable (derivative 0 almost everywhere)."""
    _no_out(out, "round")
    if decimals == 0:
        return elementwise.round(a)
    if decimals > 0:
        scale = 10.0**decimals
        return elementwise.divide(elementwise.round(elementwise.multiply(a, scale)), scale)
    scale = 10.0 ** (-decimals)
    return elementwise.multiply(elementwise.round(elementwise.divide(a, scale)), scale)


around = round


def clip(a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=None, max=None):
    """``a`` limited to ``[a_min, a_max]`` (``min`` / ``max`` are NumPy 2's names; None means no limit)."""
    _no_out(out, "clip")
    low = a_min if _given(a_min) else min
    high = a_max if _given(a_max) else max
    return indexing.clip(a, low, high)


def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    """``a`` with a new ``shape`` (``newshape`` is its old name), its entries read and placed in C order, or
    in Fortran order (``order="F"``: the first index changing fastest). ``copy`` is accepted: a traced
    array is immutable, and NumPy's reshape of an adcore array never needs a copy it could refuse."""
    if shape is None:
        shape = newshape
    elif newshape is not None:
        raise TypeError("reshape: you cannot specify 'newshape' and 'shape' arguments at the same time")
    if shape is None:
        raise TypeError("reshape: the 'shape' argument is required")
    if order == "F":
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return shapes.transpose(shapes.reshape(shapes.transpose(a), shape[::-1]))
    if order not in ("C", "A"):
        raise ValueError(f"reshape: order must be one of 'C', 'F', 'A', not {order!r}")
    return shapes.reshape(a, shape)


def take(a, indices, axis=None, out=None, mode="raise"):
    """The entries of ``a`` at ``indices`` along ``axis``; ``mode`` ``"wrap"`` or ``"clip"`` brings
    out-of-range indices into range first, as in NumPy."""
    _no_out(out, "take")
    if mode != "raise":
        indices = _index_mode(getval(indices), shapes.size(a) if axis is None else shapes.shape(a)[axis], mode)
    return _take(a, indices, axis=axis)


def _index_mode(indices, n, mode):
    if mode == "wrap":
        return elementwise.remainder(indices, n) if hasattr(indices, "shape") else _np.remainder(indices, n).tolist()
    if mode == "clip":
        return indexing.clip(indices, 0, n - 1) if hasattr(indices, "shape") else _np.clip(indices, 0, n - 1).tolist()
    raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', not {mode!r}")


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """The arrays joined along ``axis`` (flattened first when ``axis`` is None), cast to ``dtype`` if given."""
    _no_out(out, "concatenate")
    arrays = shapes._sequence(arrays, "concatenate")
    if axis is None:
        arrays, axis = [shapes.ravel(x) for x in arrays], 0
    result = shapes.concatenate(arrays, axis=axis)
    return result if dtype is None else dtypes.astype(result, dtype)


def einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    """NumPy's ``einsum``; ``optimize`` (any of NumPy's values) is accepted, the contraction order being
    adcore's own; ``dtype`` casts the result."""
    _no_out(out, "einsum")
    _check_order(order, "einsum")
    result = _einsum.einsum(*operands)
    return result if dtype is None else dtypes.astype(result, dtype)


# ---- creation ----


def _made(make, like, device, dtype, *args, **kwargs):
    backend = _creation_backend(like)
    return make(backend, *args, dtype=backend.dtype(dtype), device=_creation_device(backend, like, device), **kwargs)


def zeros(shape, dtype=float, order="C", *, device=None, like=None):
    """An array of zeros of ``shape`` and ``dtype``, by ``like``'s backend or the default one, on ``device``."""
    _check_order(order, "zeros")
    if like is None and device is None:
        return creation.zeros(shape, dtype)
    return _made(lambda b, *a, **k: b.zeros(*a, **k), like, device, dtype, shape)


def ones(shape, dtype=float, order="C", *, device=None, like=None):
    """An array of ones of ``shape`` and ``dtype``, by ``like``'s backend or the default one, on ``device``."""
    _check_order(order, "ones")
    if like is None and device is None:
        return creation.ones(shape, dtype)
    return _made(lambda b, *a, **k: b.ones(*a, **k), like, device, dtype, shape)


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """An array of ``shape`` filled with ``fill_value`` (differentiable in an array ``fill_value``)."""
    _check_order(order, "full")
    if (like is None and device is None) or isbox(fill_value) or hasattr(fill_value, "shape"):
        return creation.full(shape, fill_value, dtype)
    return _made(lambda b, *a, **k: b.full(*a, **k), like, device, dtype, shape, fill_value)


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    """The ``N x M`` array with ones on the ``k``-th diagonal."""
    _check_order(order, "eye")
    if like is None and device is None:
        return creation.eye(N, M, k, dtype)
    return _made(lambda b, *a, **kw: b.eye(*a, **kw), like, device, dtype, N, M, k=k)


def arange(start, stop=None, step=1, dtype=None, *, device=None, like=None):
    """Evenly spaced numbers in ``[start, stop)`` (``[0, start)`` with one argument)."""
    if like is None and device is None:
        return creation.arange(start, stop, step, dtype)
    return _made(lambda b, *a, **k: b.arange(*a, **k), like, device, dtype, start, stop, step)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """``num`` evenly spaced numbers from ``start`` to ``stop`` (``stop`` left out unless ``endpoint``),
    along a new ``axis`` for array ends; with ``retstep`` also the spacing. Differentiable in array
    ``start`` and ``stop``, as ``start + (stop - start) * t`` on their backend and device."""
    if num < 0:
        raise ValueError(f"linspace: number of samples, {num}, must be non-negative")
    divisions = (num - 1 if endpoint else num) or 1
    arrays = [getval(end) for end in (start, stop) if isbox(end) or hasattr(end, "shape")]
    if not arrays:
        samples = _scalar_linspace(start, stop, num, endpoint, dtype, device)
    else:
        backend = backend_of(*arrays, op="linspace")
        raw = next((end for end in arrays if hasattr(end, "dtype")), None)  # a traced Python float has none
        raw = backend.asarray(arrays[0]) if raw is None else raw
        real = elementwise.real(raw).dtype if declare.iscomplexobj(raw) else raw.dtype
        real = real if backend.isdtype(real, "real floating") else None
        t = backend.linspace(0.0, 1.0, num, endpoint=endpoint, dtype=real, device=backend.device(raw))
        ends_ndim = builtins.max(shapes.ndim(start), shapes.ndim(stop))
        t = backend.reshape(t, (-1,) + (1,) * ends_ndim)
        samples = elementwise.add(start, elementwise.multiply(elementwise.subtract(stop, start), t))
        if axis != 0:
            samples = shapes.moveaxis(samples, 0, axis)
        if dtype is not None:
            samples = dtypes.astype(samples, dtype)
    if not retstep:
        return samples
    step = elementwise.divide(elementwise.subtract(stop, start), divisions) if num > 1 else _np.nan
    return samples, step


def _scalar_linspace(start, stop, num, endpoint, dtype, device):
    if device is None:
        return creation.linspace(start, stop, num, endpoint=endpoint, dtype=float if dtype is None else dtype)
    backend = _creation_backend(None)
    return backend.linspace(
        start, stop, num, endpoint=endpoint, dtype=backend.dtype(float if dtype is None else dtype), device=device
    )


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    """A new array from ``object`` (an array, a scalar or nested lists of them, traced values included),
    with at least ``ndmin`` dimensions (ones prepended); ``copy=False`` raises ``ValueError`` where a
    copy is needed, as NumPy's. Made by ``like``'s backend when ``object`` holds no array."""
    _check_order(order, "array")
    if like is not None and not (isbox(object) or hasattr(object, "shape")) and not shapes._holds_arrays(_as_list(object)):
        backend = _creation_backend(like)
        result = backend.asarray(object, dtype=backend.dtype(dtype), device=backend.device(getval(like)))
    elif copy is False or copy is None:
        result = _without_copy(object, dtype, copy)
    else:
        result = shapes.array(object, dtype)
    n = shapes.ndim(result)
    return shapes.reshape(result, (1,) * (ndmin - n) + shapes.shape(result)) if n < ndmin else result


def _as_list(obj):
    return obj if isinstance(obj, (list, tuple)) else [obj]


def _without_copy(obj, dtype, copy):
    if isbox(obj):
        return shapes.asarray(obj, dtype)
    if hasattr(obj, "shape"):
        backend = backend_of(obj, op="array")
        return backend.asarray(obj, dtype=backend.dtype(dtype), copy=copy)
    if copy is False:
        raise ValueError("array: Unable to avoid copy while creating an array as requested (copy=False).")
    return shapes.array(obj, dtype)


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``a`` as an array, without a copy where it already is one of the right dtype (``copy=True`` always
    copies, ``copy=False`` refuses to)."""
    _check_order(order, "asarray")
    if copy is True or like is not None:
        return array(a, dtype, copy=True, like=like)
    if copy is False:
        return array(a, dtype, copy=False)
    result = shapes.asarray(a, dtype)
    if device is not None and not isbox(result):
        backend = backend_of(result, op="asarray")
        return backend.asarray(result, device=device) if backend.multi_device else result
    return result


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Zeros of ``a``'s backend, device, shape (or ``shape``) and dtype (or ``dtype``); not traced."""
    return _like("zeros", a, None, dtype, order, shape, device)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Ones of ``a``'s backend, device, shape (or ``shape``) and dtype (or ``dtype``); not traced."""
    return _like("ones", a, None, dtype, order, shape, device)


def empty_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """An array of ``a``'s backend, device, shape (or ``shape``) and dtype (or ``dtype``), values unset."""
    return _like("empty", a, None, dtype, order, shape, device)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """``fill_value`` in an array of ``a``'s backend, device, shape (or ``shape``) and dtype (or ``dtype``);
    differentiable in a traced ``fill_value`` (broadcast to the shape)."""
    if isbox(fill_value) or hasattr(fill_value, "shape"):
        _check_order(order, "full_like")
        filled = shapes.broadcast_to(fill_value, shapes.shape(a) if shape is None else _shape_tuple(shape))
        return dtypes.astype(filled, getval(a).dtype if dtype is None else dtype)
    return _like("full", a, fill_value, dtype, order, shape, device)


def _shape_tuple(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _like(kind, a, fill_value, dtype, order, shape, device):
    _check_order(order, f"{kind}_like")
    raw = getval(a)
    if not hasattr(raw, "shape"):
        raw = shapes.asarray(raw)
    backend = backend_of(raw, op=f"{kind}_like")
    shape = tuple(raw.shape) if shape is None else _shape_tuple(shape)
    dtype = raw.dtype if dtype is None else backend.dtype(dtype)
    device = backend.device(raw) if device is None else device
    fill = () if fill_value is None else (getval(fill_value),)
    return getattr(backend, kind)(shape, *fill, dtype=dtype, device=device)
