"""The differentiable NumPy-named functions: primitives computed by the arguments' backend.

Each primitive here has NumPy's name and signature and computes its raw result
with the Array API function of the backend its arguments belong to
(``backends.backend_of``); calls without an array argument go to the default
backend. The elementwise family is declared in ``adcore.numpy.elementwise`` and
re-exported here. Functions that are compositions of primitives (``mean``, ``dot``,
``stack``) are plain Python functions and need no rules of their own.
"""

import builtins
import inspect

import numpy as _np

from backends import backend_of, default_backend

from ..builtins import SequenceBox, container
from ..core import getval, isbox, notrace_primitive, primitive
from ..core.wrapping import wraps
from .declare import _dtype_kinds, _is_dtype_kind, iscomplexobj  # noqa: F401 - re-exported
from .elementwise import (  # noqa: F401 - the elementwise family, re-exported (the chain rule's own too)
    _owned_copy,
    _sech_squared,
    _tanh_tangent,
    _times_partial,
    abs,
    absolute,
    add,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    around,
    ceil,
    conj,
    conjugate,
    copysign,
    cos,
    cosh,
    divide,
    equal,
    exp,
    expm1,
    fix,
    floor,
    floor_divide,
    greater,
    greater_equal,
    hypot,
    imag,
    isfinite,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    power,
    real,
    reciprocal,
    remainder,
    rint,
    round,
    sign,
    signbit,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    true_divide,
    trunc,
)


def _untraced_when(piecewise_constant):
    """Decorate a primitive so that the calls for which ``piecewise_constant(*args, **kwargs)`` holds
    compute on the raw values and return an untraced result; ``.primitive`` is the primitive
    itself, which holds the rules, ``.untraced`` the non-differentiable primitive of those calls.

    Those calls make integer or boolean values (a cast to an integer dtype, a sum in one,
    ``where(condition)``'s indices): piecewise constant in the inputs, so their derivative is zero
    wherever it exists. Untraced, they carry no tangent or cotangent, and serve as indices, shapes
    and factors in both modes and at every order (``x[x[0].astype(int)] * x ** 2``), as the
    results of comparisons, ``floor`` and ``argmax`` do (``notrace_primitive``).
    """

    def decorate(traced):
        untraced_primitive = notrace_primitive(traced.fun)  # seen by adcore.jit, which records its calls

        @wraps(traced.fun)
        def fun(*args, **kwargs):
            try:
                untraced = piecewise_constant(*args, **kwargs)
            except TypeError:  # a call the function itself refuses (and names)
                untraced = False
            if untraced:
                return untraced_primitive(*args, **kwargs)
            return traced(*args, **kwargs)

        fun.primitive, fun.untraced = traced, untraced_primitive
        return fun

    return decorate


def _exact_dtype(x, dtype):
    """Whether ``dtype`` (read by the backend of ``x``) is an integer or boolean dtype; None is not."""
    if dtype is None:
        return False
    backend = backend_of(getval(x))
    try:
        return _exact_dtypes[backend, dtype]
    except KeyError:
        exact = _exact_dtypes[backend, dtype] = not backend.isdtype(backend.dtype(dtype), ("real floating", "complex floating"))
        return exact


_exact_dtypes = {}  # (backend, dtype) -> whether it is an integer or boolean dtype


def array_like(*names):
    """Declare the parameters ``names`` of a function NumPy's ``array_like``: a list or tuple passed
    there (of numbers, arrays or traced values), or a traced list or tuple, is made one array (:func:`array`) before the function
    runs, as NumPy takes it, so that the function (a primitive, or a composition that reads ``shape``)
    sees an array. The function returned calls ``fun``; for a primitive, ``.primitive`` is ``fun``
    (which holds the rules)."""

    def decorate(fun):
        parameters = list(inspect.signature(fun).parameters)
        positions = tuple(parameters.index(name) for name in names)

        @wraps(fun)
        def with_arrays(*args, **kwargs):
            if builtins.any(type(args[i]) in _sequences for i in positions if i < len(args)):
                args = tuple(array(a) if i in positions and type(a) in _sequences else a for i, a in enumerate(args))
            for name in names:
                if type(kwargs.get(name)) in _sequences:
                    kwargs[name] = array(kwargs[name])
            return fun(*args, **kwargs)

        if hasattr(fun, "fun"):
            with_arrays.primitive = fun
        return with_arrays

    return decorate


#: what NumPy reads as a sequence of values where it takes ``array_like``: a list or tuple, traced or not (a
#: traced one, ``adcore.builtins.tuple(...)``, is no array of any backend, and read as one would be a scalar)
_sequences = (list, tuple, SequenceBox)


# ---- elementwise functions the Array API standard lacks, composed from primitives ----

def exp2(x):
    """``2 ** x``."""
    return power(2.0, x)


def deg2rad(x):
    return multiply(x, _np.pi / 180.0)


def rad2deg(x):
    return multiply(x, 180.0 / _np.pi)


radians, degrees = deg2rad, rad2deg


def fabs(x):
    return abs(x)


@array_like("x")
def positive(x):
    return x


def cbrt(x):
    """The real cube root, ``sign(x) * |x|**(1/3)`` (its derivative is infinite at 0)."""
    return multiply(sign(x), power(abs(x), 1.0 / 3.0))


def sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0. For |pi x| < 1, its Taylor series to the x**18 term (within rounding
    there), whose derivatives keep full precision near 0 (those of the quotient are the difference of two
    nearly equal terms); elsewhere the quotient with ``sin(pi x)`` from ``_sin_cos_pi`` (exact zeros at the
    integers). Each branch sees only its own points, so no derivative is NaN."""
    small = less(abs(x), 1.0 / _np.pi)
    x_small, x_large = where(small, x, 0.0), where(small, 1.0, x)
    u2 = square(multiply(x_small, _np.pi))
    series = 1.0
    for k in range(9, 0, -1):  # sum_k (-u**2)**k / (2k + 1)!, by Horner's rule
        series = 1.0 - u2 * series / (2.0 * k * (2.0 * k + 1.0))
    return where(small, series, _sin_cos_pi(x_large)[0] / multiply(x_large, _np.pi))


def _sin_cos_pi(x):
    """``(sin(pi x), cos(pi x))`` from the reduced argument ``r = x - round(x)`` (exact, |r| <= 1/2):
    sin(pi x) exactly 0 at the integers, and both to full precision near them and for large |x|,
    where ``sin(pi * x)`` keeps only the digits of the rounded product ``pi * x``."""
    n = round(x)
    r = multiply(subtract(x, n), _np.pi)
    parity = 1.0 - 2.0 * remainder(n, 2.0)  # (-1)**n
    return multiply(parity, sin(r)), multiply(parity, cos(r))


def fmax(x, y):
    """The maximum, ignoring NaN (NumPy's ``fmax``); derivatives as ``maximum``'s."""
    return where(isnan(y), x, where(isnan(x), y, maximum(x, y)))


def fmin(x, y):
    """The minimum, ignoring NaN (NumPy's ``fmin``); derivatives as ``minimum``'s."""
    return where(isnan(y), x, where(isnan(x), y, minimum(x, y)))


def float_power(x, y):
    """``x ** y`` computed in float64 (complex128 for complex input), as NumPy's ``float_power``."""
    return power(_widen(x), _widen(y))


def _widen(x):
    if not hasattr(getval(x), "dtype"):
        return x
    return astype(x, complex128 if iscomplexobj(x) else float64)


@array_like("x")
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced by finite numbers (real input); the derivative is 0 at replaced entries."""
    value = getval(x)
    backend = backend_of(value, op="nan_to_num")
    finfo = backend.finfo(value.dtype if hasattr(value, "dtype") else backend.dtype(type(value)))
    posinf = finfo.max if posinf is None else posinf
    neginf = finfo.min if neginf is None else neginf
    infinite = isinf(x)
    return where(logical_and(infinite, x > 0), posinf, where(logical_and(infinite, x < 0), neginf, where(isnan(x), nan, x)))


def angle(z, deg=False):
    """The argument of ``z``: ``arctan2(imag(z), real(z))`` (0 or pi for real input)."""
    if iscomplexobj(z):
        result = arctan2(imag(z), real(z))
    else:
        result = where(less(z, 0), _np.pi, zeros_like(z))
    return rad2deg(result) if deg else result


@_untraced_when(lambda condition, x=None, y=None: x is None and y is None)
@primitive
def where(condition, x=None, y=None):
    """``x`` where ``condition`` holds, else ``y`` (broadcast together); with ``condition``
    alone, its ``nonzero`` indices (as NumPy's). Of Python numbers and lists alone (no array),
    the result is Python numbers and lists too, as autograd's ``where`` gives.

    Raises
    ------
    ValueError
        If only one of ``x`` and ``y`` is given (as NumPy).
    """
    if (x is None) != (y is None):
        raise ValueError("where: give both x and y, or neither (then where gives the indices where condition holds)")
    backend = backend_of(condition, x, y, op="where")
    if x is None:
        return backend.nonzero(condition)
    result = backend.where(condition, x, y)
    if not (_holds_arrays([condition]) or _holds_arrays([x]) or _holds_arrays([y])):
        return backend.to_numpy(result).tolist()
    return result


@primitive
def clip(a, a_min, a_max):
    """``a`` limited to ``[a_min, a_max]``; differentiable in ``a`` only (as in autograd)."""
    return backend_of(a, a_min, a_max, op="clip").clip(a, a_min, a_max)


# ---- reductions ----


@_untraced_when(lambda x, axis=None, dtype=None, keepdims=False: _exact_dtype(x, dtype))
@primitive
def sum(x, axis=None, dtype=None, keepdims=False):
    if isinstance(x, (list, tuple)):  # a list, perhaps of traced values: made one (traced) array first
        return sum(array(x), axis, dtype, keepdims)
    backend = backend_of(x, op="sum")
    return backend.sum(x, axis=_axis(axis), dtype=backend.dtype(dtype), keepdims=keepdims)


@_untraced_when(lambda x, axis=None, dtype=None, keepdims=False: _exact_dtype(x, dtype))
@primitive
def prod(x, axis=None, dtype=None, keepdims=False):
    if isinstance(x, (list, tuple)):
        return prod(array(x), axis, dtype, keepdims)
    backend = backend_of(x, op="prod")
    return backend.prod(x, axis=_axis(axis), dtype=backend.dtype(dtype), keepdims=keepdims)


def _reduction(name):
    """``name(x, axis=None, keepdims=False)`` of the backend of ``x`` (axis an int, a tuple or a list)."""

    def raw(x, axis=None, keepdims=False):
        if isinstance(x, (list, tuple)):  # a list, perhaps of traced values: the primitive of an array
            return globals()[name](array(x), axis, keepdims)
        return getattr(backend_of(x, op=name), name)(x, axis=_axis(axis), keepdims=keepdims)

    raw.__name__ = raw.__qualname__ = name
    raw.__doc__ = f"``{name}`` over ``axis`` (all axes when None), as NumPy's, on any backend."
    return raw


max = primitive(_reduction("max"))
min = primitive(_reduction("min"))


amax, amin = max, min


def _is_narrow_float(backend, dtype):
    """Whether ``dtype`` is a real float narrower than 32 bits (float16, bfloat16); asked once per dtype."""
    key = (type(dtype), dtype)  # the type first: dtypes of two libraries are never compared
    try:
        return _narrow_floats[key]
    except KeyError:
        narrow = _narrow_floats[key] = bool(backend.isdtype(dtype, "real floating")) and backend.finfo(dtype).bits < 32
        return narrow


_narrow_floats = {}  # (dtype type, dtype) -> whether sums of it accumulate in float32


def _accumulating(x):
    """``(x, dtype)``: ``x`` in float32 where it is a float narrower than 32 bits, with its dtype to give
    results back in (``_given_back``), else ``(x, None)``. Sums and counts of such arrays accumulate
    in float32, as NumPy's ``mean`` does: in float16 a sum or a count above 65504 is inf, and
    2048 + 1 rounds to 2048."""
    value = getval(x)
    dtype = getattr(value, "dtype", None)
    if dtype is None or not _is_narrow_float(backend_of(value, op="accumulate"), dtype):
        return x, None
    return astype(x, float32), dtype


def _given_back(result, dtype):
    """``result`` in ``dtype``, the narrow dtype that ``_accumulating`` widened (unchanged when None)."""
    return result if dtype is None else astype(result, dtype)


def mean(x, axis=None, keepdims=False):
    """The mean over ``axis`` (all axes by default): ``sum(x, axis) / count``; keeps float32, and
    float16 (accumulated in float32)."""
    x, narrow = _accumulating(_as_array(x))
    return _given_back(sum(x, axis=axis, keepdims=keepdims) / _count(shape(x), axis, "mean"), narrow)


def var(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The variance ``sum(|x - mean|**2) / (count - ddof)``; real for complex ``x``, float32 kept, and
    float16 (accumulated in float32)."""
    x, narrow = _accumulating(_as_array(x))
    count = _count(shape(x), axis, "var")
    centered = subtract(x, mean(x, axis=axis, keepdims=True))
    squared = real(multiply(centered, conj(centered))) if iscomplexobj(x) else square(centered)
    return _given_back(sum(squared, axis=axis, keepdims=keepdims) / (count - ddof), narrow)


def std(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return sqrt(var(x, axis=axis, ddof=ddof, keepdims=keepdims))


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The weighted mean ``sum(a * w) / sum(w)`` over ``axis``; ``weights`` 1-d along ``axis`` or ``a``'s shape."""
    a = _as_array(a)
    if weights is None:
        total = _count(shape(a), axis, "average")
        result = mean(a, axis=axis, keepdims=keepdims)
    else:
        if ndim(weights) == 1 and ndim(a) > 1:
            along = _normalize_axis(axis, ndim(a), "average")
            weights = reshape(weights, tuple(-1 if i == along else 1 for i in range(ndim(a))))
        (a, narrow), weights = _accumulating(a), _accumulating(weights)[0]  # float16 accumulates in float32
        total = sum(broadcast_to(weights, shape(a)), axis=axis, keepdims=keepdims)
        result = _given_back(sum(multiply(a, weights), axis=axis, keepdims=keepdims) / total, narrow)
        total = _given_back(total, narrow)
    return (result, total) if returned else result


def ptp(a, axis=None, keepdims=False):
    """``max - min`` over ``axis``."""
    return max(a, axis=axis, keepdims=keepdims) - min(a, axis=axis, keepdims=keepdims)


def _cumulative(name, api_name, what, accumulate_wide=False):
    """NumPy's ``name(x, axis=None)`` through the standard's ``api_name`` (the flattened array when None);
    with ``accumulate_wide``, a float narrower than 32 bits accumulates in float32 (see ``_accumulating``)."""

    def raw(x, axis=None):
        backend = backend_of(x, op=name)
        if axis is None:
            x, axis = backend.reshape(x, (-1,)), 0
        if accumulate_wide and _is_narrow_float(backend, x.dtype):
            return backend.astype(getattr(backend, api_name)(backend.astype(x, backend.dtype("float32")), axis=axis), x.dtype)
        return getattr(backend, api_name)(x, axis=axis)

    raw.__name__ = raw.__qualname__ = name
    raw.__doc__ = f"Cumulative {what} along ``axis`` (of the flattened array when ``axis`` is None)."
    return raw


cumsum = primitive(_cumulative("cumsum", "cumulative_sum", "sum", accumulate_wide=True))
cumprod = primitive(_cumulative("cumprod", "cumulative_prod", "product"))


def _nonnan_count(x, axis, keepdims):
    return sum(astype(logical_not(isnan(x)), result_type(getval(x))), axis=axis, keepdims=keepdims)


def nansum(x, axis=None, keepdims=False):
    return sum(where(isnan(x), 0.0, x), axis=axis, keepdims=keepdims)


def nanprod(x, axis=None, keepdims=False):
    return prod(where(isnan(x), 1.0, x), axis=axis, keepdims=keepdims)


@array_like("x")
def nanmean(x, axis=None, keepdims=False):
    x, narrow = _accumulating(x)
    return _given_back(nansum(x, axis=axis, keepdims=keepdims) / _nonnan_count(x, axis, keepdims), narrow)


@array_like("x")
def nanvar(x, axis=None, ddof=0, keepdims=False):
    x, narrow = _accumulating(x)
    centered = where(isnan(x), 0.0, subtract(x, nanmean(x, axis=axis, keepdims=True)))
    return _given_back(sum(square(centered), axis=axis, keepdims=keepdims) / (_nonnan_count(x, axis, keepdims) - ddof), narrow)


@array_like("x")
def nanstd(x, axis=None, ddof=0, keepdims=False):
    return sqrt(nanvar(x, axis=axis, ddof=ddof, keepdims=keepdims))


def nanmax(x, axis=None, keepdims=False):
    return max(where(isnan(x), -_np.inf, x), axis=axis, keepdims=keepdims)


def nanmin(x, axis=None, keepdims=False):
    return min(where(isnan(x), _np.inf, x), axis=axis, keepdims=keepdims)


def nancumsum(x, axis=None):
    return cumsum(where(isnan(x), 0.0, x), axis=axis)


def nancumprod(x, axis=None):
    return cumprod(where(isnan(x), 1.0, x), axis=axis)


def _as_array(x):
    """A list or tuple (of numbers or traced values, or itself traced) as one array, as NumPy's functions take
    them; an object whose ``shape`` is a method as NumPy's array of it (``_read_foreign``)."""
    return array(x) if isinstance(x, _sequences) else _read_foreign(x)


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _count(x_shape, axis, name):
    """The number of entries that ``name`` reduces over ``axis`` (an int, a sequence or None: all) of ``x_shape``."""
    if axis is None:
        axis = range(len(x_shape))
    count = 1
    for a in (axis,) if isinstance(axis, int) else axis:
        count *= x_shape[_normalize_axis(a, len(x_shape), name)]
    return count


def _normalize_axis(axis, ndim, name=None):
    """``axis`` in ``range(ndim)``, counting negative ones from the end; ``numpy.exceptions.AxisError``
    (an IndexError and a ValueError, prefixed with ``name``) where it is out of bounds, as NumPy's."""
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(axis, ndim, msg_prefix=name)
    return axis % ndim


# ---- linear algebra ----


@primitive
def matmul(a, b):
    return backend_of(a, b, op="matmul").matmul(a, b)


@primitive
def tensordot(a, b, axes=2):
    """The sum of products over ``axes``: an int (the last ``axes`` of ``a`` with the first of ``b``), or a
    pair of axes or of sequences of axes (NumPy's forms; an axis alone is made a sequence, the standard's form)."""
    if not isinstance(axes, int):
        axes = tuple((axis,) if isinstance(axis, int) else tuple(axis) for axis in axes)
    return backend_of(a, b, op="tensordot").tensordot(a, b, axes=axes)


def dot(a, b):
    """NumPy's ``dot``: a product for 0-d operands, else a sum over the last axis of
    ``a`` and the second-to-last of ``b`` (the only axis of a 1-d ``b``)."""
    a, b = _as_array(a), _as_array(b)
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
    axes = tuple(reversed(range(ndim(x)))) if axes is None else tuple(_normalize_axis(a, ndim(x)) for a in axes)
    return backend_of(x, op="transpose").permute_dims(x, axes)


@primitive
def broadcast_to(x, shape):
    return backend_of(x, op="broadcast_to").broadcast_to(x, tuple(shape))


@primitive
def concatenate_args(axis, *arrays):
    """``concatenate(arrays, axis)`` with the arrays as separate arguments, so each can be traced."""
    return backend_of(*arrays, op="concatenate").concat(arrays, axis=axis)


def _not_an_iterator(value, name):
    """``value``, unless it is an iterator (a generator, a ``map``): NumPy makes a 0-d object array of one
    where it expects an array, and adcore has no object arrays.

    Raises
    ------
    TypeError
        Naming ``name`` and the iterator's type.
    """
    if hasattr(value, "__next__") and not hasattr(value, "__getitem__"):
        raise TypeError(
            f"{name}: a {type(value).__name__} is not an array (NumPy makes a 0-d object array of it, which adcore has "
            "none of); pass a list or a tuple"
        )
    return value


def _sequence(arrays, name):
    """The argument ``arrays`` of a joining function ``name`` (``stack``, ``concatenate``, ``hstack``, ...)
    as a list, read exactly once, as NumPy takes it: a sequence (a list, a tuple, a ``range``, an array,
    a traced list), whose items are the arrays to join.

    Raises
    ------
    TypeError
        ``arrays`` is not a sequence (a generator, a ``map``, an iterator), as NumPy refuses it (NumPy's
        text, prefixed by ``name``); code written for autograd, which takes any iterable there, gets
        autograd's behaviour from the alias (``adcore.compat.autograd_numpy``).
    """
    if not hasattr(arrays, "__getitem__"):
        if name == "concatenate":
            raise TypeError(f"concatenate: The first input argument needs to be a sequence, not {type(arrays).__name__}")
        raise TypeError(f'{name}: arrays to stack must be passed as a "sequence" type such as list or tuple, not {type(arrays).__name__}')
    return [_read_foreign(item) for item in arrays]


def _read_foreign(x):
    """``x``, or, where ``x`` is an object whose ``shape`` is a method (some libraries' tensor-likes: ``t.shape()``),
    the NumPy array that NumPy makes of it (``numpy.asarray``: through its ``__array__``, or as a sequence). adcore
    reads ``shape`` as the tuple of an array everywhere else; such an object is an array of no backend, so it is
    read here, on the host, once, as NumPy reads it."""
    return _np.asarray(x) if callable(getattr(x, "shape", None)) else x


def concatenate(arrays, axis=0):
    return concatenate_args(axis, *_sequence(arrays, "concatenate"))


def stack(arrays, axis=0):
    arrays = _as_arrays_like(_sequence(arrays, "stack"))
    axis = _normalize_axis(axis, ndim(arrays[0]) + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis=axis)


def ravel(x):
    return reshape(x, (-1,))


def expand_dims(x, axis):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    new_ndim = ndim(x) + len(axes)
    axes = {_normalize_axis(a, new_ndim) for a in axes}
    if len(axes) != new_ndim - ndim(x):
        raise ValueError(f"expand_dims: repeated axis in {axis}")
    dims = iter(shape(x))
    return reshape(x, tuple(1 if i in axes else next(dims) for i in range(new_ndim)))


def squeeze(x, axis=None):
    x_shape = shape(x)
    if axis is None:
        axes = {i for i, n in enumerate(x_shape) if n == 1}
    else:  # NumPy takes axis 0 or -1 of a 0-d array, and keeps it
        axes = {_normalize_axis(a, builtins.max(len(x_shape), 1)) for a in ((axis,) if isinstance(axis, int) else axis)}
        axes = axes if x_shape else set()
        if builtins.any(x_shape[a] != 1 for a in axes):
            raise ValueError(f"squeeze: cannot remove axis {axis} of shape {x_shape}; its size is not 1")
    return reshape(x, tuple(n for i, n in enumerate(x_shape) if i not in axes))


@primitive
def flip(x, axis=None):
    """``x`` reversed along ``axis`` (all axes when None)."""
    return backend_of(x, op="flip").flip(x, axis=_axis(axis))


def fliplr(x):
    return flip(x, 1)


def flipud(x):
    return flip(x, 0)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated by ``k`` quarter turns in the plane of ``axes`` (as NumPy's)."""
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    swapped = swapaxes(m, axes[0], axes[1])
    return flip(swapped, axes[1]) if k == 3 else swapaxes(flip(m, axes[1]), axes[0], axes[1])


def atleast_1d(*arrays):
    """Each of ``arrays`` (array_like: a list is made an array) with at least one dimension."""
    result = [x if ndim(x) >= 1 else reshape(x, (1,)) for x in map(_as_array, arrays)]
    return result[0] if len(result) == 1 else _array_list(result)


def atleast_2d(*arrays):
    """Each of ``arrays`` (array_like: a list is made an array) with at least two dimensions."""
    result = [x if ndim(x) >= 2 else reshape(x, (1,) * (2 - ndim(x)) + shape(x)) for x in map(_as_array, arrays)]
    return result[0] if len(result) == 1 else _array_list(result)


def atleast_3d(*arrays):
    def to_3d(x):
        n = ndim(x)
        new_shape = {0: (1, 1, 1), 1: (1, *shape(x), 1), 2: (*shape(x), 1)}.get(n, shape(x))
        return reshape(x, new_shape)

    result = [to_3d(x) for x in map(_as_array, arrays)]
    return result[0] if len(result) == 1 else _array_list(result)


def hstack(arrays):
    arrays = [atleast_1d(a) for a in _sequence(arrays, "hstack")]
    return concatenate(arrays, axis=0 if ndim(arrays[0]) == 1 else 1)


def vstack(arrays):
    return concatenate([atleast_2d(a) for a in _sequence(arrays, "vstack")], axis=0)


def dstack(arrays):
    return concatenate([atleast_3d(a) for a in _sequence(arrays, "dstack")], axis=2)


def column_stack(arrays):
    return concatenate([reshape(a, (-1, 1)) if ndim(a) < 2 else a for a in _sequence(arrays, "column_stack")], axis=1)


def append(arr, values, axis=None):
    """``arr`` and ``values`` joined along ``axis`` (both flattened when None); either may be a list that
    holds traced values."""
    arr, values = (array(v) if isinstance(v, (list, tuple)) and _holds_arrays(v) else _not_an_iterator(v, "append") for v in (arr, values))
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], axis=0)
    return concatenate([arr, values], axis=axis)


def _array_list(arrays):
    """A list of arrays, returned by a function such as ``split``: one traced list when an array is
    traced (as autograd's primitives return it), so that a function returning it is differentiated
    also by the engine's ``make_vjp``/``make_jvp``, which trace one value."""
    return container(arrays)


def _along(axis, index, n):
    """An index selecting ``index`` (an int or a slice) along ``axis`` of an ``n``-d array."""
    return (slice(None),) * _normalize_axis(axis, n) + (index, ...)


@array_like("ary")
def array_split(ary, indices_or_sections, axis=0):
    """Pieces of ``ary`` along ``axis`` (NumPy's ``array_split``), each a differentiable slice."""
    length = shape(ary)[_normalize_axis(axis, ndim(ary))]
    if isinstance(indices_or_sections, int):
        base, extra = divmod(length, indices_or_sections)
        sizes = [base + 1] * extra + [base] * (indices_or_sections - extra)
        bounds = [0]
        for size_ in sizes:
            bounds.append(bounds[-1] + size_)
    else:
        bounds = [0, *indices_or_sections, length]
    return _array_list([ary[_along(axis, slice(start, stop), ndim(ary))] for start, stop in zip(bounds[:-1], bounds[1:])])


@array_like("ary")
def split(ary, indices_or_sections, axis=0):
    if isinstance(indices_or_sections, int) and shape(ary)[axis] % indices_or_sections:
        raise ValueError(f"split: array of length {shape(ary)[axis]} does not split into {indices_or_sections} equal parts")
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=1 if ndim(ary) > 1 else 0)


def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=2)


def _own_array(x):
    """``x``, copied where it is an untraced read-only array: a broadcast view, reshaped, where NumPy's function
    (``repeat``, ``tile``, ``meshgrid``, ``choose``, ``select``, ``linalg.matrix_power`` to the power 0)
    returns an array of its own, which its caller may write into. A traced value is immutable and kept."""
    flags = None if isbox(x) else getattr(x, "flags", None)
    return array(x) if not getattr(flags, "writeable", True) else x


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis, as one reshape of a broadcast (so the VJP is a sum)."""
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    n = builtins.max(ndim(A), len(reps))
    a_shape = (1,) * (n - ndim(A)) + shape(A)
    reps = (1,) * (n - len(reps)) + reps
    interleaved = [d for size_ in a_shape for d in (1, size_)]
    target = [d for rep, size_ in zip(reps, a_shape) for d in (rep, size_)]
    tiled = broadcast_to(reshape(A, tuple(interleaved)), tuple(target))
    return _own_array(reshape(tiled, tuple(rep * size_ for rep, size_ in zip(reps, a_shape))))


@array_like("a")
def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times along ``axis`` (of the flattened array when None)."""
    if axis is None or ndim(a) == 0:  # NumPy repeats a 0-d array along axis 0 or -1 as a 1-d one
        axis = 0 if axis is None else _normalize_axis(axis, 1)
        a = ravel(a)
    axis = _normalize_axis(axis, ndim(a))
    if hasattr(repeats, "shape"):  # an array of counts (NumPy's integer scalars too): read on the host, as NumPy sizes its result
        repeats = backend_of(repeats, op="repeat").to_numpy(repeats).tolist()
    if not isinstance(repeats, int):
        pieces = [repeat(a[_along(axis, slice(i, i + 1), ndim(a))], r, axis) for i, r in enumerate(repeats) if r]
        return concatenate(pieces, axis=axis)
    a_shape = shape(a)
    expanded = broadcast_to(expand_dims(a, axis + 1), a_shape[: axis + 1] + (repeats,) + a_shape[axis + 1 :])
    return _own_array(reshape(expanded, a_shape[:axis] + (a_shape[axis] * repeats,) + a_shape[axis + 1 :]))


def roll(a, shift, axis=None):
    """``a`` shifted cyclically by ``shift`` along ``axis`` (of the flattened array when None)."""
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), shape(a))
    if not isinstance(axis, int):
        shifts = (shift,) * len(axis) if isinstance(shift, int) else shift
        for one_shift, one_axis in zip(shifts, axis):
            a = roll(a, one_shift, one_axis)
        return a
    n = ndim(a)
    axis = _normalize_axis(axis, n)
    k = shift % shape(a)[axis] if shape(a)[axis] else 0
    if k == 0:
        return copy(a)  # a new array, as NumPy's (never the argument itself)
    return concatenate([a[_along(axis, slice(-k, None), n)], a[_along(axis, slice(None, -k), n)]], axis=axis)


def rollaxis(a, axis, start=0):
    n = ndim(a)
    axis = _normalize_axis(axis, n)
    if not -n <= start <= n:
        raise _np.exceptions.AxisError(f"rollaxis: 'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    start = start + n if start < 0 else start
    return moveaxis(a, axis, start - 1 if start > axis else start)


@array_like("a", "prepend", "append")
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis``."""
    nd = ndim(a)
    if nd == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _normalize_axis(axis, nd)
    edge_shape = _with_axis(shape(a), axis, 1)
    pieces = [p for p in (prepend, a, append) if p is not None]
    if len(pieces) > 1:
        edge = a[_along(axis, slice(0, 1), nd)]
        a = concatenate([broadcast_to(full_like(edge, p), edge_shape) if ndim(p) == 0 else p for p in pieces], axis=axis)
    for _ in range(n):
        a = subtract(a[_along(axis, slice(1, None), nd)], a[_along(axis, slice(None, -1), nd)])
    return a


def _with_axis(a_shape, axis, size_):
    a_shape = list(a_shape)
    a_shape[axis] = size_
    return tuple(a_shape)


@array_like("f")
def gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's ``gradient`` with unit or scalar spacing: central differences inside, one-sided at the edges.

    Raises
    ------
    NotImplementedError
        If ``edge_order`` is not 1, or a spacing is an array of coordinates (NumPy's uneven spacing).
    """
    if edge_order != 1:
        raise NotImplementedError("gradient: only edge_order=1 is supported")
    if builtins.any(ndim(h) != 0 for h in varargs):
        raise NotImplementedError("gradient: only scalar spacings are supported (no coordinate arrays)")
    nd = ndim(f)
    axes = list(range(nd)) if axis is None else [_normalize_axis(a, nd) for a in ((axis,) if isinstance(axis, int) else axis)]
    spacings = list(varargs) * len(axes) if len(varargs) == 1 else list(varargs) or [1.0] * len(axes)
    results = []
    for ax, h in zip(axes, spacings):
        inner = subtract(f[_along(ax, slice(2, None), nd)], f[_along(ax, slice(None, -2), nd)]) / (2.0 * h)
        first = subtract(f[_along(ax, slice(1, 2), nd)], f[_along(ax, slice(0, 1), nd)]) / h
        last = subtract(f[_along(ax, slice(-1, None), nd)], f[_along(ax, slice(-2, -1), nd)]) / h
        results.append(concatenate([first, inner, last], axis=ax))
    return results[0] if len(results) == 1 else _array_list(results)


#: NumPy's pad modes that are a linear map along each axis (the padded axis is ``P @ x`` for a fixed ``P``)
_LINEAR_PAD_MODES = ("edge", "reflect", "symmetric", "wrap")
_STAT_PAD_MODES = ("maximum", "minimum", "mean", "median")


@array_like("array")
def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded along each axis, axis after axis as NumPy does, in every mode of NumPy's ``pad``.

    ``pad_width``, ``stat_length``, ``constant_values`` and ``end_values`` take NumPy's forms
    (a number, a pair, or one pair per axis). ``edge``, ``reflect``, ``symmetric`` and ``wrap``
    (with ``reflect_type`` ``"even"`` or ``"odd"``, and pads of any width, NumPy's repeated
    reflections included) are linear along each axis: the padded axis is ``P @ x``, ``P`` being
    NumPy's own pad of the identity, so values and derivatives are NumPy's exactly.
    ``maximum``, ``minimum``, ``mean`` and ``median`` fill with the statistic of the first and
    last ``stat_length`` entries (derivative: that statistic's); ``linear_ramp`` runs from
    ``end_values`` to the edge; ``constant`` fills with ``constant_values``; ``empty`` (whose
    values NumPy leaves undefined) with zeros.

    Raises
    ------
    ValueError
        For an unknown mode, a keyword the mode does not take, or a statistic over an empty axis.
    NotImplementedError
        For a callable mode: NumPy's calls it to write into the padded array in place, and a
        traced array cannot be written to.
    """
    if callable(mode):
        raise NotImplementedError(
            "pad: a callable mode writes into the padded array in place, which a traced array cannot take; "
            "pad with a mode (or concatenate) instead"
        )
    allowed = {"constant": {"constant_values"}, "linear_ramp": {"end_values"}, "empty": set()}
    allowed.update(dict.fromkeys(("reflect", "symmetric"), {"reflect_type"}), edge=set(), wrap=set())
    allowed.update(dict.fromkeys(_STAT_PAD_MODES, {"stat_length"}))
    if mode not in allowed:
        raise ValueError(f"pad: mode {mode!r} is not supported; use one of {', '.join(allowed)}")
    unexpected = set(kwargs) - allowed[mode]
    if unexpected:
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: {sorted(unexpected)}")
    nd = ndim(array)
    widths = _pad_widths(pad_width, nd)
    for ax, (before, after) in enumerate(widths):
        if mode in _LINEAR_PAD_MODES:
            array = _pad_linear(array, ax, before, after, mode, kwargs.get("reflect_type", "even"))
            continue
        size_ = shape(array)[ax]
        pieces = [_pad_piece(array, ax, before, True, mode, kwargs, size_), array]
        pieces.append(_pad_piece(array, ax, after, False, mode, kwargs, size_))
        array = concatenate([p for p in pieces if p is not None], axis=ax)
    return array


def _pad_widths(pad_width, nd, name="pad_width"):
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=int), (nd, 2))
    if (widths < 0).any():
        raise ValueError(f"pad: {name} must hold non-negative numbers")
    return [tuple(int(w) for w in row) for row in widths]


def _pad_linear(array, ax, before, after, mode, reflect_type):
    """``array`` padded along ``ax`` by ``P @ x``, ``P`` NumPy's pad of the identity (see ``pad``)."""
    if before == after == 0:
        return array
    size_ = shape(array)[ax]
    if size_ == 0:
        raise ValueError(f"pad: can't extend empty axis {ax} using mode {mode!r}")
    options = {"reflect_type": reflect_type} if mode in ("reflect", "symmetric") else {}
    matrix = _np.pad(_np.eye(size_), ((before, after), (0, 0)), mode=mode, **options)
    raw = getval(array)
    backend = backend_of(raw, op="pad")
    matrix = backend.from_numpy(matrix, dtype=raw.dtype, device=backend.device(raw))
    return moveaxis(tensordot(matrix, array, axes=([1], [ax])), 0, ax)


def _pad_piece(array, ax, width, before, mode, kwargs, size_):
    if width == 0:
        return None
    nd = ndim(array)
    piece_shape = _with_axis(shape(array), ax, width)
    side = 0 if before else 1
    if mode in ("constant", "empty"):
        value = _np.broadcast_to(_np.asarray(kwargs.get("constant_values", 0), dtype=float), (nd, 2))[ax][side]
        return broadcast_to(full_like(array[_along(ax, slice(0, 1), nd)], float(value)), piece_shape)
    edge = array[_along(ax, slice(0, 1) if before else slice(-1, None), nd)]
    if mode == "linear_ramp":
        end = float(_np.broadcast_to(_np.asarray(kwargs.get("end_values", 0), dtype=float), (nd, 2))[ax][side])
        steps = _np.arange(width, dtype=float) / width  # NumPy's linspace(end, edge, width, endpoint=False)
        steps = steps if before else _np.ascontiguousarray(steps[::-1])
        raw = getval(array)
        backend = backend_of(raw, op="pad")
        steps = backend.from_numpy(steps.reshape(_with_axis((1,) * nd, ax, width)), dtype=raw.dtype, device=backend.device(raw))
        return add(multiply(subtract(edge, end), steps), end)
    if size_ == 0:
        raise ValueError(f"pad: can't compute the {mode} of an empty axis {ax}")
    stat_length = kwargs.get("stat_length")
    length = size_ if stat_length is None else builtins.min(_pad_widths(stat_length, nd, "stat_length")[ax][side], size_)
    if length == 0:
        raise ValueError(f"pad: stat_length of 0 along axis {ax} leaves no entries for the {mode}")
    window = array[_along(ax, slice(0, length) if before else slice(size_ - length, None), nd)]
    if mode == "median":
        from .selection import median  # selection imports this module

        stat = median(window, axis=ax, keepdims=True)
    else:
        stat = {"maximum": max, "minimum": min, "mean": mean}[mode](window, axis=ax, keepdims=True)
    return broadcast_to(stat, piece_shape)


def diag(v, k=0):
    """The ``k``-th diagonal of a 2-d ``v``, or a 2-d array with the 1-d ``v`` on it (``v`` may be a list)."""
    v = _as_array(v)
    if ndim(v) == 2:
        return diagonal(v, k)
    n = shape(v)[0] + builtins.abs(k)
    return diagonal_untake(v, k, (n, n))


def kron(a, b):
    """The Kronecker product, as one broadcast product of interleaved reshapes."""
    n = builtins.max(ndim(a), ndim(b))
    a_shape = (1,) * (n - ndim(a)) + shape(a)
    b_shape = (1,) * (n - ndim(b)) + shape(b)
    a_wide = reshape(a, tuple(d for s_ in a_shape for d in (s_, 1)))
    b_wide = reshape(b, tuple(d for s_ in b_shape for d in (1, s_)))
    return reshape(multiply(a_wide, b_wide), tuple(p * q for p, q in zip(a_shape, b_shape)))


def outer(a, b):
    a, b = _as_array(a), _as_array(b)
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def inner(a, b):
    a, b = _as_array(a), _as_array(b)
    if ndim(a) == 0 or ndim(b) == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=([ndim(a) - 1], [ndim(b) - 1]))


def vdot(a, b):
    """``sum(conj(a) * b)`` over the flattened arrays."""
    a, b = _as_array(a), _as_array(b)
    return sum(multiply(conj(ravel(a)), ravel(b)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (or the z-component for 2-vectors) along the given axes."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    if shape(a)[-1] == 2 and shape(b)[-1] == 2:
        return subtract(multiply(a0, b1), multiply(a1, b0))
    a2 = a[..., 2] if shape(a)[-1] == 3 else 0.0
    b2 = b[..., 2] if shape(b)[-1] == 3 else 0.0
    components = [
        subtract(multiply(a1, b2), multiply(a2, b1)),
        subtract(multiply(a2, b0), multiply(a0, b2)),
        subtract(multiply(a0, b1), multiply(a1, b0)),
    ]
    return moveaxis(stack(components, axis=-1), -1, axisc)


def copy(a):
    """A copy of ``a``; a traced array is immutable, so it is its own copy (a traced list is made an array)."""
    return a if isbox(a) and type(a) is not SequenceBox else array(a)


def swapaxes(x, axis1, axis2):
    axes = list(range(ndim(x)))
    axis1, axis2 = _normalize_axis(axis1, ndim(x), "axis1"), _normalize_axis(axis2, ndim(x), "axis2")
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return transpose(x, axes)


def matrix_transpose(x):
    """``x`` with its last two axes swapped (a stack of transposed matrices)."""
    return swapaxes(x, -1, -2)


def moveaxis(x, source, destination):
    n = ndim(x)
    source, destination = (
        [_normalize_axis(a, n, name) for a in ((axes,) if isinstance(axes, int) else axes)]
        for axes, name in ((source, "source"), (destination, "destination"))
    )
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
    x = _as_array(x)
    return sum(diagonal(x, offset, axis1, axis2), axis=-1)


@notrace_primitive
def tri_mask(x, k, lower):
    """Where ``j - i <= k`` (``lower``) or ``j - i >= k`` over the last two axes of ``x``, on ``x``'s device."""
    backend = backend_of(x, op="tril" if lower else "triu")
    xp, device = backend.xp, backend.device(x)
    offsets = xp.arange(x.shape[-1], device=device)[None, :] - xp.arange(x.shape[-2], device=device)[:, None]
    return offsets <= k if lower else offsets >= k


@array_like("x")
def tril(x, k=0):
    """``x`` with the entries above the ``k``-th diagonal set to 0."""
    return where(tri_mask(x, k, True), x, 0.0)


@array_like("x")
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
    return backend_of(x, op="getitem").getitem(x, index)


@primitive
def untake(g, index, x_shape):
    """The adjoint of ``getitem``: zeros of ``x_shape`` with ``g`` added at ``index``
    (repeated positions accumulate)."""
    backend = backend_of(g, op="untake")
    return backend.scatter_add(x_shape, g.dtype, backend.device(g), index, g)


# ---- dtype ----


@_untraced_when(_exact_dtype)
@primitive
def astype(x, dtype):
    """``x`` cast to ``dtype``; a cast to an integer or boolean dtype is untraced (its derivative is zero)."""
    backend = backend_of(x, op="astype")
    if not hasattr(x, "dtype"):  # a Python scalar (a traced float, or a rule's comparison of one)
        return backend.asarray(x, dtype=backend.dtype(dtype))
    return backend.astype(x, backend.dtype(dtype))


# ---- complex numbers ----



# ---- non-differentiable functions (derivative zero where it exists, or no array output) ----


@notrace_primitive
def isposinf(x):
    return logical_and(isinf(x), greater(x, 0))


@notrace_primitive
def isneginf(x):
    return logical_and(isinf(x), less(x, 0))


all = notrace_primitive(_reduction("all"))
any = notrace_primitive(_reduction("any"))
count_nonzero = notrace_primitive(_reduction("count_nonzero"))


@notrace_primitive
def nonzero(x):
    """The indices of the non-zero entries, one array per axis (a data-dependent shape)."""
    return backend_of(x, op="nonzero").nonzero(x)


@notrace_primitive
def flatnonzero(x):
    backend = backend_of(x, op="flatnonzero")
    return backend.nonzero(backend.reshape(x, (-1,)))[0]


@notrace_primitive
def argwhere(x):
    backend = backend_of(x, op="argwhere")
    return backend.stack(backend.nonzero(x), axis=-1)


@notrace_primitive
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    backend = backend_of(a, b, op="isclose")
    close = backend.logical_or(backend.equal(a, b), backend.abs(backend.subtract(a, b)) <= atol + rtol * backend.abs(b))
    if equal_nan:
        close = backend.logical_or(close, backend.logical_and(backend.isnan(a), backend.isnan(b)))
    return close


@notrace_primitive
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


@notrace_primitive
def array_equal(a, b):
    return shape(a) == shape(b) and bool(all(equal(a, b)))


@notrace_primitive
def array_equiv(a, b):
    try:
        return bool(all(equal(a, b)))
    except ValueError:
        return False


@notrace_primitive
def iscomplex(x):
    return not_equal(imag(x), 0) if iscomplexobj(x) else zeros_like(x, dtype=bool)


@notrace_primitive
def isreal(x):
    return equal(imag(x), 0) if iscomplexobj(x) else ones_like(x, dtype=bool)


@notrace_primitive
def isscalar(x):
    return isinstance(x, (int, float, complex, bool, _np.generic))


@notrace_primitive
def result_type(*arrays_and_dtypes):
    return backend_of(*arrays_and_dtypes, op="result_type").result_type(*arrays_and_dtypes)


@notrace_primitive
def argmax(x, axis=None, keepdims=False):
    return backend_of(x, op="argmax").argmax(x, axis=axis, keepdims=keepdims)


@notrace_primitive
def argmin(x, axis=None, keepdims=False):
    return backend_of(x, op="argmin").argmin(x, axis=axis, keepdims=keepdims)


@notrace_primitive
def shape(x):
    """The shape of an array, or of (nested) lists of arrays and numbers, as NumPy's; of an object whose
    ``shape`` is a method, that of the NumPy array NumPy makes of it (``_read_foreign``)."""
    x_shape = getattr(x, "shape", None)
    if x_shape is not None and not callable(x_shape):
        return tuple(x_shape)
    if isinstance(x, (list, tuple)):
        return (len(x), *shape(getval(x[0]))) if len(x) else (0,)
    return _read_foreign(x).shape if x_shape is not None else ()


@notrace_primitive
def ndim(x):
    return len(shape.fun(x))  # x is already a raw value: no second unboxing


@notrace_primitive
def size(x):
    return _count(shape.fun(x), None, "size")


@notrace_primitive
def zeros_like(x, dtype=None):
    backend = backend_of(x, op="zeros_like")
    return backend.zeros_like(x, dtype=backend.dtype(dtype))


@notrace_primitive
def ones_like(x, dtype=None):
    backend = backend_of(x, op="ones_like")
    return backend.ones_like(x, dtype=backend.dtype(dtype))


@notrace_primitive
def empty_like(x, dtype=None):
    backend = backend_of(x, op="empty_like")
    return backend.empty_like(x, dtype=backend.dtype(dtype))


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
    """An array of ``shape`` filled with ``fill_value``; differentiable in an array ``fill_value``
    (broadcast to ``shape`` on its own backend and device)."""
    if isbox(fill_value) or hasattr(fill_value, "shape"):
        filled = broadcast_to(fill_value, (shape,) if isinstance(shape, int) else tuple(shape))
        if dtype is not None:
            return astype(filled, dtype)
        return filled if isbox(filled) else backend_of(filled).asarray(filled, copy=True)  # writable, as NumPy's
    backend = default_backend()
    return backend.full(shape, fill_value, dtype=backend.dtype(dtype))


def eye(N, M=None, k=0, dtype=float):
    backend = default_backend()
    return backend.eye(N, M, k=k, dtype=backend.dtype(dtype))


def arange(start, stop=None, step=1, dtype=None):
    backend = default_backend()
    return backend.arange(start, stop, step, dtype=backend.dtype(dtype))


def linspace(start, stop, num=50, endpoint=True, dtype=float):
    """``num`` evenly spaced numbers from ``start`` to ``stop``; differentiable in array (0-d)
    ``start`` and ``stop``, as ``start + (stop - start) * t`` on their backend and device."""
    ends = [getval(end) for end in (start, stop) if isbox(end) or hasattr(end, "shape")]
    if not ends:
        backend = default_backend()
        return backend.linspace(start, stop, num, endpoint=endpoint, dtype=backend.dtype(dtype))
    backend = backend_of(*ends, op="linspace")
    t = backend.linspace(0.0, 1.0, num, endpoint=endpoint, dtype=result_type(ends[0]), device=backend.device(ends[0]))
    return add(start, multiply(subtract(stop, start), t))


def array(obj, dtype=None):
    """A new array from ``obj``: an array, a scalar or (nested) lists of them, traced values included.

    Lists that hold traced values are stacked with differentiable ``stack``;
    everything else is made by the backend of the arrays in ``obj`` (the
    default backend if there are none).
    """
    if isbox(obj) and isinstance(getval(obj), (list, tuple)):
        obj = list(obj)
    obj = _read_foreign(_not_an_iterator(obj, "array"))
    if isbox(obj):
        return obj if dtype is None else astype(obj, dtype)
    if isinstance(obj, (list, tuple)) and _holds_arrays(obj):
        result = stack([array(item) if isinstance(item, (list, tuple)) else item for item in obj])
        return result if dtype is None else astype(result, dtype)
    backend = backend_of(obj, op="array")
    return backend.asarray(obj, dtype=backend.dtype(dtype), copy=True)


def asarray(obj, dtype=None):
    """``obj`` as an array, without a copy where it already is one of the right dtype."""
    obj = _read_foreign(obj)
    if type(obj) is not SequenceBox and (isbox(obj) or hasattr(obj, "shape")):  # a traced list is made an array
        if dtype is None or backend_of(getval(obj)).dtype(dtype) == getval(obj).dtype:
            return obj
        return astype(obj, dtype)
    return array(obj, dtype)


def _as_arrays_like(items):
    """``items`` (read once) as a list, the scalars among them made arrays of the backend, device and dtype
    of the first array."""
    items = list(items)
    like = next((getval(item) for item in items if isbox(item) or hasattr(item, "shape")), None)
    if like is None:
        return [array(item) for item in items]
    backend = backend_of(like)
    dtype = getattr(like, "dtype", None)
    device = backend.device(like) if hasattr(like, "shape") else None
    return [
        item if isbox(item) or hasattr(item, "shape") else backend.asarray(item, dtype=dtype, device=device) for item in items
    ]


def _holds_arrays(obj):
    return builtins.any(
        _holds_arrays(item) if isinstance(item, (list, tuple)) else hasattr(item, "shape") or isbox(item) for item in obj
    )


pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
bool_ = _np.bool_


def _casting_int_type(int_type):
    """NumPy's ``int_type`` (a dtype, ``np.int64(x)``), callable on traced values too: the cast reads
    their value and is not differentiated (autograd's ``wrap_intdtype``). It is a subclass of
    NumPy's type, so ``dtype=``, ``astype`` and ``numpy.dtype`` take it as NumPy's."""

    def __new__(cls, *args, **kwargs):
        return int_type(*map(getval, args), **kwargs)

    return type(int_type.__name__, (int_type,), {"__new__": __new__, "__module__": __name__, "__doc__": int_type.__doc__})


int8, int16, int32, int64 = map(_casting_int_type, (_np.int8, _np.int16, _np.int32, _np.int64))

_imported = {
    "builtins",
    "container",
    "backend_of",
    "default_backend",
    "getval",
    "isbox",
    "notrace_primitive",
    "primitive",
    "wraps",
    "inspect",
    "array_like",
}
__all__ = sorted(name for name in list(globals()) if not name.startswith("_") and name not in _imported)
