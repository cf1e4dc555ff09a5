"""The differentiable NumPy-named functions: primitives computed by the arguments' backend.

Each primitive here has NumPy's name and signature and computes its raw result
with the Array API function of the backend its arguments belong to
(``backends.backend_of``); calls without an array argument go to the default
backend. Functions that are compositions of primitives (``mean``, ``dot``,
``stack``) are plain Python functions and need no rules of their own.
"""

import builtins

import numpy as _np

from backends import backend_of, default_backend

from ..core import getval, isbox, notrace_primitive, primitive


def _elementwise(name, api_name=None):
    api_name = api_name or name

    def raw(*args):
        return getattr(backend_of(*args, op=name), api_name)(*args)

    raw.__name__ = raw.__qualname__ = name
    raw.__doc__ = f"Elementwise ``{name}`` (the Array API's ``{api_name}``) on any backend; broadcasts like NumPy."
    return raw


# ---- differentiable elementwise functions ----

negative = primitive(_elementwise("negative"))
abs = absolute = primitive(_elementwise("abs"))
exp = primitive(_elementwise("exp"))
log = primitive(_elementwise("log"))
log1p = primitive(_elementwise("log1p"))
expm1 = primitive(_elementwise("expm1"))
sqrt = primitive(_elementwise("sqrt"))
square = primitive(_elementwise("square"))
sin = primitive(_elementwise("sin"))
cos = primitive(_elementwise("cos"))
tan = primitive(_elementwise("tan"))
sinh = primitive(_elementwise("sinh"))
cosh = primitive(_elementwise("cosh"))
tanh = primitive(_elementwise("tanh"))
arcsin = primitive(_elementwise("arcsin", "asin"))
arccos = primitive(_elementwise("arccos", "acos"))
arctan = primitive(_elementwise("arctan", "atan"))
add = primitive(_elementwise("add"))
subtract = primitive(_elementwise("subtract"))
multiply = primitive(_elementwise("multiply"))
divide = true_divide = primitive(_elementwise("divide"))
power = primitive(_elementwise("power", "pow"))
maximum = primitive(_elementwise("maximum"))
minimum = primitive(_elementwise("minimum"))


@primitive
def where(condition, x, y):
    """``x`` where ``condition`` holds, else ``y`` (broadcast together)."""
    return backend_of(condition, x, y, op="where").where(condition, x, y)


@primitive
def clip(a, a_min, a_max):
    """``a`` limited to ``[a_min, a_max]``; differentiable in ``a`` only (as in autograd)."""
    return backend_of(a, a_min, a_max, op="clip").clip(a, a_min, a_max)


# ---- reductions ----


@primitive
def sum(x, axis=None, dtype=None, keepdims=False):
    backend = backend_of(x, op="sum")
    return backend.sum(x, axis=_axis(axis), dtype=backend.dtype(dtype), keepdims=keepdims)


@primitive
def prod(x, axis=None, dtype=None, keepdims=False):
    backend = backend_of(x, op="prod")
    return backend.prod(x, axis=_axis(axis), dtype=backend.dtype(dtype), keepdims=keepdims)


@primitive
def max(x, axis=None, keepdims=False):
    return backend_of(x, op="max").max(x, axis=_axis(axis), keepdims=keepdims)


@primitive
def min(x, axis=None, keepdims=False):
    return backend_of(x, op="min").min(x, axis=_axis(axis), keepdims=keepdims)


amax, amin = max, min


def mean(x, axis=None, keepdims=False):
    """The mean over ``axis`` (all axes by default): ``sum(x, axis) / count``; keeps float32."""
    return sum(x, axis=axis, keepdims=keepdims) / _count(shape(x), axis)


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _count(x_shape, axis):
    if axis is None:
        axis = range(len(x_shape))
    count = 1
    for a in (axis,) if isinstance(axis, int) else axis:
        count *= x_shape[a]
    return count


# ---- linear algebra ----


@primitive
def matmul(a, b):
    return backend_of(a, b, op="matmul").matmul(a, b)


@primitive
def tensordot(a, b, axes=2):
    return backend_of(a, b, op="tensordot").tensordot(a, b, axes=axes)


def dot(a, b):
    """NumPy's ``dot``: a product for 0-d operands, else a sum over the last axis of
    ``a`` and the second-to-last of ``b`` (the only axis of a 1-d ``b``)."""
    if ndim(a) == 0 or ndim(b) == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=([ndim(a) - 1], [builtins.max(ndim(b) - 2, 0)]))


# ---- shape functions ----


@primitive
def reshape(x, newshape):
    newshape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    return backend_of(x, op="reshape").reshape(x, newshape)


@primitive
def transpose(x, axes=None):
    axes = tuple(reversed(range(ndim(x)))) if axes is None else tuple(axes)
    return backend_of(x, op="transpose").permute_dims(x, axes)


@primitive
def broadcast_to(x, shape):
    return backend_of(x, op="broadcast_to").broadcast_to(x, tuple(shape))


@primitive
def concatenate_args(axis, *arrays):
    """``concatenate(arrays, axis)`` with the arrays as separate arguments, so each can be traced."""
    return backend_of(*arrays, op="concatenate").concat(arrays, axis=axis)


def concatenate(arrays, axis=0):
    return concatenate_args(axis, *arrays)


def stack(arrays, axis=0):
    arrays = _as_arrays_like(arrays)
    axis = axis if axis >= 0 else axis + ndim(arrays[0]) + 1
    return concatenate([expand_dims(a, axis) for a in arrays], axis=axis)


def ravel(x):
    return reshape(x, (-1,))


def expand_dims(x, axis):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    new_ndim = ndim(x) + len(axes)
    axes = {a % new_ndim for a in axes}
    dims = iter(shape(x))
    return reshape(x, tuple(1 if i in axes else next(dims) for i in range(new_ndim)))


def squeeze(x, axis=None):
    x_shape = shape(x)
    if axis is None:
        axes = {i for i, n in enumerate(x_shape) if n == 1}
    else:
        axes = {a % len(x_shape) for a in ((axis,) if isinstance(axis, int) else axis)}
        if any(x_shape[a] != 1 for a in axes):
            raise ValueError(f"squeeze: cannot remove axis {axis} of shape {x_shape}; its size is not 1")
    return reshape(x, tuple(n for i, n in enumerate(x_shape) if i not in axes))


def swapaxes(x, axis1, axis2):
    axes = list(range(ndim(x)))
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return transpose(x, axes)


def matrix_transpose(x):
    """``x`` with its last two axes swapped (a stack of transposed matrices)."""
    return swapaxes(x, -1, -2)


def moveaxis(x, source, destination):
    n = ndim(x)
    source = [a % n for a in ((source,) if isinstance(source, int) else source)]
    destination = [a % n for a in ((destination,) if isinstance(destination, int) else destination)]
    order = [a for a in range(n) if a not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose(x, order)


@primitive
def diagonal(x, offset=0, axis1=0, axis2=1):
    """The diagonal of ``x`` over ``axis1`` and ``axis2`` (moved to the last axis), as NumPy's."""
    backend = backend_of(x, op="diagonal")
    return backend.linalg.diagonal(_to_last_two(backend, x, axis1, axis2), offset=offset)


@primitive
def diagonal_untake(g, offset, shape):
    """The adjoint of ``diagonal`` over the last two axes: zeros of ``shape[-2:]`` with ``g`` on the
    ``offset`` diagonal, for each index of the leading axes."""
    backend = backend_of(g, op="diagonal")
    xp, device = backend.xp, backend.device(g)
    rows, cols = shape[-2:]
    k = xp.arange(g.shape[-1], device=device)
    placed = (xp.arange(rows, device=device)[None, :] == (k + builtins.max(-offset, 0))[:, None])[:, :, None] & (
        xp.arange(cols, device=device)[None, :] == (k + builtins.max(offset, 0))[:, None]
    )[:, None, :]
    return xp.tensordot(g, xp.astype(placed, g.dtype), axes=1)


def _to_last_two(backend, x, axis1, axis2):
    n = len(x.shape)
    axis1, axis2 = axis1 % n, axis2 % n
    return backend.permute_dims(x, tuple(a for a in range(n) if a not in (axis1, axis2)) + (axis1, axis2))


def trace(x, offset=0, axis1=0, axis2=1):
    return sum(diagonal(x, offset, axis1, axis2), axis=-1)


@notrace_primitive
def tri_mask(x, k, lower):
    """Where ``j - i <= k`` (``lower``) or ``j - i >= k`` over the last two axes of ``x``, on ``x``'s device."""
    backend = backend_of(x, op="tril" if lower else "triu")
    xp, device = backend.xp, backend.device(x)
    offsets = xp.arange(x.shape[-1], device=device)[None, :] - xp.arange(x.shape[-2], device=device)[:, None]
    return offsets <= k if lower else offsets >= k


def tril(x, k=0):
    """``x`` with the entries above the ``k``-th diagonal set to 0."""
    return where(tri_mask(x, k, True), x, 0.0)


def triu(x, k=0):
    """``x`` with the entries below the ``k``-th diagonal set to 0."""
    return where(tri_mask(x, k, False), x, 0.0)


@notrace_primitive
def eye_like(x, n=None):
    """The ``n x n`` identity (``n`` = the last dimension of ``x``) in ``x``'s backend, dtype and device."""
    backend = backend_of(x, op="eye_like")
    return backend.eye(x.shape[-1] if n is None else n, dtype=x.dtype, device=backend.device(x))


# ---- indexing ----


@primitive
def getitem(x, index):
    """``x[index]``: basic slices, integers, ``None``, ``...``, integer arrays and boolean masks."""
    return x[index]


@primitive
def untake(g, index, x_shape):
    """The adjoint of ``getitem``: zeros of ``x_shape`` with ``g`` added at ``index``
    (repeated positions accumulate)."""
    backend = backend_of(g, op="untake")
    return backend.scatter_add(x_shape, g.dtype, backend.device(g), index, g)


# ---- dtype ----


@primitive
def astype(x, dtype):
    backend = backend_of(x, op="astype")
    return backend.astype(x, backend.dtype(dtype))


# ---- complex numbers ----

real = primitive(_elementwise("real"))
imag = primitive(_elementwise("imag"))
conj = conjugate = primitive(_elementwise("conj"))


@notrace_primitive
def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (Python ``complex`` included)."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return isinstance(x, complex)
    return bool(backend_of(x, op="iscomplexobj").isdtype(dtype, "complex floating"))


# ---- non-differentiable functions (derivative zero where it exists, or no array output) ----


def _nondifferentiable(name, api_name=None):
    return notrace_primitive(_elementwise(name, api_name))


equal = _nondifferentiable("equal")
not_equal = _nondifferentiable("not_equal")
greater = _nondifferentiable("greater")
greater_equal = _nondifferentiable("greater_equal")
less = _nondifferentiable("less")
less_equal = _nondifferentiable("less_equal")
logical_and = _nondifferentiable("logical_and")
logical_or = _nondifferentiable("logical_or")
logical_not = _nondifferentiable("logical_not")
sign = _nondifferentiable("sign")
floor = _nondifferentiable("floor")
ceil = _nondifferentiable("ceil")
round = around = _nondifferentiable("round")
isfinite = _nondifferentiable("isfinite")
isnan = _nondifferentiable("isnan")
isinf = _nondifferentiable("isinf")


@notrace_primitive
def argmax(x, axis=None, keepdims=False):
    return backend_of(x, op="argmax").argmax(x, axis=axis, keepdims=keepdims)


@notrace_primitive
def argmin(x, axis=None, keepdims=False):
    return backend_of(x, op="argmin").argmin(x, axis=axis, keepdims=keepdims)


@notrace_primitive
def shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else ()


@notrace_primitive
def ndim(x):
    return len(x.shape) if hasattr(x, "shape") else 0


@notrace_primitive
def size(x):
    return _count(shape(x), None)


@notrace_primitive
def zeros_like(x, dtype=None):
    backend = backend_of(x, op="zeros_like")
    return backend.zeros_like(x, dtype=backend.dtype(dtype))


@notrace_primitive
def ones_like(x, dtype=None):
    backend = backend_of(x, op="ones_like")
    return backend.ones_like(x, dtype=backend.dtype(dtype))


@notrace_primitive
def full_like(x, fill_value, dtype=None):
    backend = backend_of(x, op="full_like")
    return backend.full_like(x, fill_value, dtype=backend.dtype(dtype))


# ---- creation on the default backend (or the backend of the arrays given) ----


def zeros(shape, dtype=float):
    backend = default_backend()
    return backend.zeros(shape, dtype=backend.dtype(dtype))


def ones(shape, dtype=float):
    backend = default_backend()
    return backend.ones(shape, dtype=backend.dtype(dtype))


def full(shape, fill_value, dtype=None):
    backend = default_backend()
    return backend.full(shape, fill_value, dtype=backend.dtype(dtype))


def eye(N, M=None, k=0, dtype=float):
    backend = default_backend()
    return backend.eye(N, M, k=k, dtype=backend.dtype(dtype))


def arange(start, stop=None, step=1, dtype=None):
    backend = default_backend()
    return backend.arange(start, stop, step, dtype=backend.dtype(dtype))


def linspace(start, stop, num=50, endpoint=True, dtype=float):
    backend = default_backend()
    return backend.linspace(start, stop, num, endpoint=endpoint, dtype=backend.dtype(dtype))


def array(obj, dtype=None):
    """A new array from ``obj``: an array, a scalar or (nested) lists of them, traced values included.

    Lists that hold traced values are stacked with differentiable ``stack``;
    everything else is made by the backend of the arrays in ``obj`` (the
    default backend if there are none).
    """
    if isbox(obj):
        return obj if dtype is None else astype(obj, dtype)
    if isinstance(obj, (list, tuple)) and _holds_arrays(obj):
        result = stack([array(item) if isinstance(item, (list, tuple)) else item for item in obj])
        return result if dtype is None else astype(result, dtype)
    backend = backend_of(obj, op="array")
    return backend.asarray(obj, dtype=backend.dtype(dtype), copy=True)


def asarray(obj, dtype=None):
    """``obj`` as an array, without a copy where it already is one of the right dtype."""
    if isbox(obj) or hasattr(obj, "shape"):
        if dtype is None or backend_of(getval(obj)).dtype(dtype) == getval(obj).dtype:
            return obj
        return astype(obj, dtype)
    return array(obj, dtype)


def _as_arrays_like(items):
    """``items`` with the scalars among them made arrays of the backend, device and dtype of the first array."""
    like = next(getval(item) for item in items if isbox(item) or hasattr(item, "shape"))
    backend = backend_of(like)
    return [
        item if isbox(item) or hasattr(item, "shape") else backend.asarray(item, dtype=like.dtype, device=backend.device(like))
        for item in items
    ]


def _holds_arrays(obj):
    return any(_holds_arrays(item) if isinstance(item, (list, tuple)) else hasattr(item, "shape") or isbox(item) for item in obj)


pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
int8, int16, int32, int64, bool_ = _np.int8, _np.int16, _np.int32, _np.int64, _np.bool_

_imported = {"builtins", "backend_of", "default_backend", "getval", "isbox", "notrace_primitive", "primitive"}
__all__ = sorted(name for name in list(globals()) if not name.startswith("_") and name not in _imported)
