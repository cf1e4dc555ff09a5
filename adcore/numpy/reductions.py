"""Reductions: ``sum``, ``prod``, ``max``/``min`` (ties share the derivative equally), ``cumsum``, ``cumprod``
(exact with zeros), each with its VJP and JVP beside it; the compositions ``mean``, ``var``, ``std``,
``average``, ``ptp``, ``trace`` and the ``nan*`` family (floats narrower than 32 bits accumulate in float32);
the non-differentiable ``all``, ``any``, ``count_nonzero``, ``argmax``, ``argmin``."""

import math

import numpy as _np

from backends import backend_of

from ..core import Lent, Ones, def_linear, defjvp, defvjp, getval, isbox, notrace_primitive, primitive
from ..core.batching import batch_ndim, def_batch_safe_vjp
from .declare import broadcast, iscomplexobj, metadata, unbroadcast
from .dtypes import _exact_dtype, _untraced_when, astype, float32, result_type
from .elementwise import conj, divide, isnan, logical_and, logical_not, multiply, real, sqrt, square, subtract
from .indexing import diagonal, where
from .shapes import _as_array, _axis, _count, _normalize_axis, array, array_like, broadcast_to, flip, ndim, ravel, reshape, shape

__all__ = """all amax amin any argmax argmin average count_nonzero cumprod cumsum max mean min nancumprod nancumsum nanmax nanmean
nanmin nanprod nanstd nansum nanvar prod ptp std sum trace var""".split()


@_untraced_when(lambda x, axis=None, dtype=None, keepdims=False: _exact_dtype(x, dtype))
@primitive
def sum(x, axis=None, dtype=None, keepdims=False):
    if isinstance(x, (list, tuple)):  # a list, perhaps of traced values: made one (traced) array first
        return sum(array(x), axis, dtype, keepdims)
    backend = backend_of(x, op="sum")
    return backend.sum(x, axis=_axis(axis), dtype=backend.dtype(dtype), keepdims=keepdims)


def expand_reduced(g, x_shape, axis, keepdims, batch=0):
    """``g``, reduced from ``x_shape`` over ``axis``, broadcast back to ``x_shape`` after its
    ``batch`` leading axes (:func:`batch_ndim` for a cotangent)."""
    batch_shape = shape(g)[:batch]
    if not keepdims and (axis is not None or batch):
        axes = range(len(x_shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
        reduced = {a % len(x_shape) for a in axes} if x_shape else set()  # NumPy takes axis 0 or -1 of a 0-d array
        g = reshape(g, batch_shape + tuple(1 if i in reduced else n for i, n in enumerate(x_shape)))
    return broadcast_to(g, batch_shape + x_shape)


def grad_sum(ans, x, axis=None, dtype=None, keepdims=False):
    meta = metadata(x)

    def vjp(g):
        if type(g) is Ones:  # ones pulled back through a sum are ones in the argument's space (of a known shape)
            if meta[1] is not None and type(math.prod(meta[0])) is int:  # Dask's unknown sizes are NaN
                return Ones(g.space.reshaped(meta[0], meta[1]))
            g = g.dense()
        lent = type(g) is Lent
        cotangent = unbroadcast(expand_reduced(g.value if lent else g, meta[0], axis, keepdims, batch_ndim()), meta)
        return Lent(cotangent) if lent else cotangent  # a view of a lent value is lent

    if not isbox(x):  # a traced x (a higher-order pass, a vmap batch) is given the array of ones, as other rules
        vjp.takes_lazy = True
    return vjp


defvjp(sum.primitive, grad_sum)
def_linear(sum.primitive)
def_batch_safe_vjp(sum.primitive)


@_untraced_when(lambda x, axis=None, dtype=None, keepdims=False: _exact_dtype(x, dtype))
@primitive
def prod(x, axis=None, dtype=None, keepdims=False):
    if isinstance(x, (list, tuple)):
        return prod(array(x), axis, dtype, keepdims)
    backend = backend_of(x, op="prod")
    return backend.prod(x, axis=_axis(axis), dtype=backend.dtype(dtype), keepdims=keepdims)


def prod_of_others(x, axis):
    """For each entry, the product of the other entries reduced with it; exact when entries are 0.

    With no zero in a reduction, it is ``prod / x``; with one zero, it is the
    product of the non-zero entries at the zero and 0 elsewhere; with more, 0.
    (Second derivatives at points with a zero entry are not covered.)
    """
    is_zero = x == 0
    nonzero = where(is_zero, 1.0, x)
    zeros_count = sum(astype(is_zero, result_type(getval(x))), axis=axis, keepdims=True)
    prod_nonzero = prod(nonzero, axis=axis, keepdims=True)
    only_zero = logical_and(is_zero, zeros_count == 1)
    return where(zeros_count == 0, prod_nonzero / nonzero, where(only_zero, prod_nonzero, 0.0))


def grad_prod(ans, x, axis=None, dtype=None, keepdims=False):
    meta = metadata(x)
    return lambda g: unbroadcast(
        multiply(expand_reduced(g, meta[0], axis, keepdims, batch_ndim()), prod_of_others(x, axis)), meta
    )


defvjp(prod.primitive, grad_prod)
defjvp(
    prod.primitive,
    lambda g, ans, x, axis=None, dtype=None, keepdims=False: broadcast(
        sum(multiply(g, prod_of_others(x, axis)), axis=axis, keepdims=keepdims), ans
    ),
)
def_batch_safe_vjp(prod.primitive)


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


def chooser_weights(ans, x, axis, keepdims):
    """How the derivative of ``max``/``min`` splits among ``x``: equally over the entries equal to the
    result (autograd's and JAX's convention for ties). Returns the weights and the dtype to give the
    derivative back in: float16 counts its ties in float32 (a count above 65504 is inf in float16,
    and a derivative of 1/count would then be 0)."""
    chosen, narrow = _accumulating(astype(x == expand_reduced(ans, shape(x), axis, keepdims), result_type(getval(x))))
    return chosen / sum(chosen, axis=axis, keepdims=True), narrow


def grad_chooser(ans, x, axis=None, keepdims=False):
    x_shape = shape(x)

    def vjp(g):
        weights, narrow = chooser_weights(ans, x, axis, keepdims)
        # multiply, not ``*``: under vmap ``g`` may be a raw array and ``weights`` a batch, which a raw
        # array-api-strict array refuses on its right
        return _given_back(multiply(expand_reduced(g, x_shape, axis, keepdims, batch_ndim()), weights), narrow)

    return vjp


def jvp_chooser(g, ans, x, axis=None, keepdims=False):
    weights, narrow = chooser_weights(ans, x, axis, keepdims)
    return _given_back(sum(g * weights, axis=axis, keepdims=keepdims), narrow)


defvjp(max, grad_chooser)
defjvp(max, jvp_chooser)
defvjp(min, grad_chooser)
defjvp(min, jvp_chooser)
def_batch_safe_vjp(max, min)


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


def reverse_cumsum(g, axis):
    """``sum_{j >= i} g_j`` along ``axis``: the adjoint of ``cumsum``."""
    return flip(cumsum(flip(g, axis), axis), axis)


def grad_cumsum(ans, x, axis=None):
    x_shape = shape(x)
    if axis is None:
        return lambda g: reshape(reverse_cumsum(g, 0), x_shape)
    return lambda g: reverse_cumsum(g, axis)


defvjp(cumsum, grad_cumsum)
def_linear(cumsum)


cumprod = primitive(_cumulative("cumprod", "cumulative_prod", "product"))


def first_zero_masks(x, axis):
    """Along ``axis``: where no zero has come yet, and where the first zero is."""
    zeros_so_far = cumsum(astype(x == 0, result_type(getval(x))), axis)
    before = zeros_so_far == 0
    return before, logical_and(x == 0, zeros_so_far == 1)


def cumprod_parts(x, axis):
    """What both cumprod rules need, exact with zeros: with the first zero along ``axis`` at z,
    an entry before z has derivative terms ``ans_j / x_i`` (j < z); the entry at z those of the
    cumulative product with ``x_z`` replaced by 1; entries after z have none. Returns the masks
    of "before z" and "at z", ``x`` with zeros replaced by 1 (to divide by), and that product."""
    before, first_zero = first_zero_masks(x, axis)
    return before, first_zero, where(x == 0, 1.0, x), cumprod(where(first_zero, 1.0, x), axis)


def grad_cumprod(ans, x, axis=None):
    x_shape = shape(x)
    flat = axis is None
    x, axis = (ravel(x), 0) if flat else (x, axis)

    def vjp(g):
        g = ravel(g) if flat else g
        before, first_zero, x_nonzero, ans_safe = cumprod_parts(x, axis)
        through_zero = reverse_cumsum(multiply(g, ans_safe), axis)
        before_zero = reverse_cumsum(multiply(g, cumprod(x, axis)), axis) / x_nonzero
        result = where(before, before_zero, where(first_zero, through_zero, 0.0))
        return reshape(result, x_shape) if flat else result

    return vjp


def jvp_cumprod(g, ans, x, axis=None):
    if axis is None:
        x, g, axis = ravel(x), ravel(g), 0
    before, first_zero, x_nonzero, ans_safe = cumprod_parts(x, axis)
    g_at_zero = sum(where(first_zero, g, 0.0), axis=axis, keepdims=True)
    before_zero = multiply(cumsum(divide(g, x_nonzero), axis), cumprod(x, axis))
    return broadcast(where(before, before_zero, multiply(g_at_zero, ans_safe)), ans)


defvjp(cumprod, grad_cumprod)
defjvp(cumprod, jvp_cumprod)


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


def trace(x, offset=0, axis1=0, axis2=1):
    x = _as_array(x)
    return sum(diagonal(x, offset, axis1, axis2), axis=-1)


all = notrace_primitive(_reduction("all"))


any = notrace_primitive(_reduction("any"))


count_nonzero = notrace_primitive(_reduction("count_nonzero"))


@notrace_primitive
def argmax(x, axis=None, keepdims=False):
    return backend_of(x, op="argmax").argmax(x, axis=axis, keepdims=keepdims)


@notrace_primitive
def argmin(x, axis=None, keepdims=False):
    return backend_of(x, op="argmin").argmin(x, axis=axis, keepdims=keepdims)
