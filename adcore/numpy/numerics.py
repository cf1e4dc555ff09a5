"""NumPy's numerical functions beyond the elementwise and reduction primitives, as differentiable compositions.

Statistics (``cov``, ``corrcoef``), signals (``convolve``, ``correlate``,
``unwrap``), integration and interpolation (``trapezoid``, ``interp``),
polynomials (``polyval``, ``polyfit``, ``roots``, ...), and the elementwise
functions NumPy has beyond the standard (``fmod``, ``modf``, ``frexp``,
``ldexp``, ``divmod``, ``i0``). Each is written with adcore's primitives, so
its derivatives in both modes, at any order, come from their rules, on every
backend those primitives run on; the quantities that are piecewise constant
in the inputs (an interval index, a number of periods, a binary exponent) are
read off the values and have derivative zero, as their true derivative is
wherever it exists.

Also here: NumPy 2's Array API names for existing functions (``acos``,
``pow``, ``vecdot``, ``cumulative_sum``, ...).

Dtypes: results keep the inputs' precision (float32 stays float32), where
NumPy computes ``cov``, ``corrcoef``, ``interp`` and ``polyfit`` in float64.
"""

import builtins
import warnings

import numpy as _np

from backends import backend_of

from ..core import getval, isbox, notrace_primitive
from . import arrays, declare, dtypes, elementwise, indexing, linalg, products, reductions, shapes
from .arrays import _as_array_like, _from_host, _index_like, _no_out
from .passthrough import host_values
from .selection import searchsorted, take
from .signatures import linspace

__all__ = [
    "acos",
    "acosh",
    "allclose",
    "angle",
    "array_equal",
    "array_equiv",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bincount",
    "cbrt",
    "convolve",
    "corrcoef",
    "correlate",
    "cov",
    "cumulative_prod",
    "cumulative_sum",
    "deg2rad",
    "degrees",
    "divmod",
    "ediff1d",
    "exp2",
    "fabs",
    "float_power",
    "fmax",
    "fmin",
    "fmod",
    "frexp",
    "geomspace",
    "i0",
    "interp",
    "isclose",
    "iscomplex",
    "isneginf",
    "isposinf",
    "isreal",
    "ldexp",
    "logspace",
    "matvec",
    "modf",
    "nan_to_num",
    "poly",
    "polyadd",
    "polyder",
    "polydiv",
    "polyfit",
    "polyint",
    "polymul",
    "polysub",
    "polyval",
    "positive",
    "pow",
    "rad2deg",
    "radians",
    "real_if_close",
    "roots",
    "sinc",
    "trapezoid",
    "trapz",
    "unwrap",
    "vander",
    "vecdot",
    "vecmat",
]

# ---- NumPy 2's Array API names ----

acos, acosh, asin, asinh = elementwise.arccos, elementwise.arccosh, elementwise.arcsin, elementwise.arcsinh
atan, atan2, atanh, pow = elementwise.arctan, elementwise.arctan2, elementwise.arctanh, elementwise.power


@shapes.array_like("x")
def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """The cumulative sum along ``axis`` (optional for 1-d ``x``); ``include_initial`` puts a 0 first."""
    return _cumulative(reductions.cumsum, 0.0, x, axis, dtype, out, include_initial, "cumulative_sum")


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """The cumulative product along ``axis`` (optional for 1-d ``x``); ``include_initial`` puts a 1 first."""
    return _cumulative(reductions.cumprod, 1.0, x, axis, dtype, out, include_initial, "cumulative_prod")


def _cumulative(accumulate, initial, x, axis, dtype, out, include_initial, name):
    _no_out(out, name)
    if axis is None:
        if shapes.ndim(x) > 1:
            raise ValueError(f"{name}: axis must be given for an array of more than one dimension")
        axis = 0
    if dtype is not None:
        x = dtypes.astype(x, dtype)
    result = accumulate(x, axis=axis)
    if not include_initial:
        return result
    shape = list(shapes.shape(result))
    shape[axis] = 1
    return shapes.concatenate([_constant(result, tuple(shape), initial), result], axis=axis)


def _constant(like, shape, value):
    """An array of ``shape`` filled with ``value``, of the backend, device and dtype of ``like`` (not traced)."""
    raw = getval(like)
    backend = backend_of(raw, op="constant")
    return backend.full(shape, value, dtype=raw.dtype, device=backend.device(raw))


vecdot = linalg.vecdot


def matvec(x1, x2, /):
    """The matrix-vector products of the stacks ``x1 (..., m, n)`` and ``x2 (..., n)``: ``(..., m)``."""
    _core_dimensions("matvec", x1, 2, x2, 1)
    return reductions.sum(elementwise.multiply(x1, shapes.expand_dims(x2, -2)), axis=-1)


def vecmat(x1, x2, /):
    """The vector-matrix products ``conj(x1) @ x2`` of the stacks ``x1 (..., n)`` and ``x2 (..., n, m)``: ``(..., m)``."""
    _core_dimensions("vecmat", x1, 1, x2, 2)
    return reductions.sum(elementwise.multiply(shapes.expand_dims(elementwise.conj(x1), -1), x2), axis=-2)


def _core_dimensions(name, x1, n1, x2, n2):
    if shapes.ndim(x1) < n1 or shapes.ndim(x2) < n2:
        raise ValueError(
            f"{name}: inputs need {n1} and {n2} dimensions at least, got shapes {shapes.shape(x1)} and {shapes.shape(x2)}"
        )


# ---- elementwise ----


def fmod(x1, x2):
    """The C remainder of ``x1 / x2``, with the sign of ``x1``: ``remainder`` moved by ``x2`` where the
    signs differ (exact, as NumPy's). Derivatives: 1 in ``x1``, ``-trunc(x1 / x2)`` in ``x2``."""
    r = elementwise.remainder(x1, x2)
    moved = elementwise.logical_and(
        elementwise.not_equal(r, 0), elementwise.not_equal(elementwise.signbit(r), elementwise.signbit(x1))
    )
    return indexing.where(moved, elementwise.subtract(r, x2), r)


def modf(x, /):
    """``(fractional part, integral part)``, both with the sign of ``x``; the integral part has derivative 0."""
    whole = elementwise.trunc(x)
    return indexing.where(elementwise.isinf(x), elementwise.copysign(0.0, x), elementwise.subtract(x, whole)), whole


def divmod(x1, x2, /):
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return elementwise.floor_divide(x1, x2), elementwise.remainder(x1, x2)


@shapes.array_like("x1", "x2")
def ldexp(x1, x2, /):
    """``x1 * 2**x2`` for integer ``x2``, exact (two multiplications by powers of two that cannot overflow)."""
    return _times_power_of_two(x1, getval(x2))


def _times_power_of_two(x, k):
    """``x * 2**k`` in ``x``'s precision: two exact scalings by powers of two, each within range
    (``k`` a Python integer, or an integer array of ``x``'s backend)."""
    if not hasattr(k, "shape"):
        return elementwise.multiply(elementwise.multiply(x, 2.0 ** (int(k) // 2)), 2.0 ** (int(k) - int(k) // 2))
    half = elementwise.floor_divide(k, 2)
    dtype = getval(x).dtype if hasattr(getval(x), "dtype") and _is_floating(x) else dtypes.float64
    return elementwise.multiply(
        elementwise.multiply(x, _power_of_two(half, dtype)), _power_of_two(elementwise.subtract(k, half), dtype)
    )


@notrace_primitive
def _power_of_two(k, dtype):
    backend = backend_of(k, op="ldexp")
    return backend.astype(backend.pow(2.0, backend.astype(k, backend.dtype(dtype))), backend.dtype(dtype))


def frexp(x, /):
    """``(mantissa, exponent)`` with ``x = mantissa * 2**exponent`` and ``0.5 <= |mantissa| < 1`` (0, inf and
    NaN give themselves and exponent 0), as NumPy's; the exponent is int32 with derivative 0."""
    exponent = _binary_exponent(getval(x))
    return _times_power_of_two(x, elementwise.negative(exponent)), exponent


@notrace_primitive
def _binary_exponent(x):
    backend = backend_of(x, op="frexp")
    x = x if hasattr(x, "shape") else backend.asarray(x)
    finite = backend.isfinite(x) & (x != 0)
    magnitude = backend.where(finite, backend.abs(x), backend.ones_like(x))
    exponent = backend.astype(backend.floor(backend.log2(magnitude)), backend.dtype("int32")) + 1
    for _ in range(2):  # log2 may round across a power of two: move the exponent until the mantissa is in [0.5, 1)
        mantissa = backend.abs(_times_power_of_two(magnitude, -exponent))
        exponent = exponent + backend.astype(mantissa >= 1.0, exponent.dtype) - backend.astype(mantissa < 0.5, exponent.dtype)
    return backend.where(finite, exponent, backend.zeros_like(exponent))


def i0(x):
    """The modified Bessel function of the first kind, order 0 (``scipy.special.i0``; derivative ``i1``)."""
    from ..scipy.special import i0 as special_i0  # adcore.scipy is built on adcore.numpy

    return special_i0(x)


@shapes.array_like("a")
def real_if_close(a, tol=100):
    """``real(a)`` if every imaginary part of the complex ``a`` is below ``tol`` (in machine epsilons when
    ``tol > 1``), else ``a``."""
    if not declare.iscomplexobj(a):
        return a
    raw = getval(a)
    backend = backend_of(raw, op="real_if_close")
    raw = raw if hasattr(raw, "dtype") else backend.asarray(raw)  # a Python complex
    if tol > 1:
        tol = backend.finfo(backend.real(raw).dtype).eps * tol
    return elementwise.real(a) if host_values(backend.all(backend.abs(backend.imag(raw)) < tol)) else a


# ---- statistics ----


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """The covariance matrix of the variables in the rows (``rowvar``) or columns of ``m`` (and ``y``),
    with NumPy's frequency and reliability weights; 0-d for a single variable."""
    X = _variables(m, rowvar, dtype)
    if y is not None:
        X = shapes.concatenate([X, _variables(y, rowvar, dtype)], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    weights = None
    for w in (fweights, aweights):
        if w is not None:
            w = _as_array_like(w, X)
            weights = w if weights is None else elementwise.multiply(weights, w)
    mean, total = reductions.average(X, axis=1, weights=weights, returned=True)
    if weights is None:
        factor = shapes.shape(X)[1] - ddof
    elif ddof == 0:
        factor = total
    elif aweights is None:
        factor = total - ddof
    else:
        factor = total - ddof * reductions.sum(elementwise.multiply(weights, aweights)) / total
    if not isbox(factor) and _np.all(host_values(factor) <= 0):
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        factor = 0.0
    centered = elementwise.subtract(X, shapes.expand_dims(mean, 1))
    weighted = centered if weights is None else elementwise.multiply(centered, weights)
    c = products.matmul(centered, elementwise.conj(shapes.transpose(weighted))) / factor
    return shapes.squeeze(c)


def _variables(m, rowvar, dtype):
    X = shapes.array(m) if not (isbox(m) or hasattr(m, "shape")) else m
    if shapes.ndim(X) > 2:
        raise ValueError("cov: m has more than 2 dimensions")
    if dtype is not None:
        X = dtypes.astype(X, dtype)
    elif not declare.iscomplexobj(X) and not _is_floating(X):
        X = dtypes.astype(X, dtypes.float64)
    X = shapes.reshape(X, (1, -1)) if shapes.ndim(X) < 2 else X
    return shapes.transpose(X) if not rowvar and shapes.shape(X)[0] != 1 else X


def _is_floating(x):
    raw = getval(x)
    return backend_of(raw).isdtype(raw.dtype, "real floating")


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson's correlation coefficients ``cov / sqrt(outer(diag(cov), diag(cov)))``, the real (and
    imaginary) parts clipped to ``[-1, 1]`` as in NumPy."""
    c = cov(x, y, rowvar, dtype=dtype)
    if shapes.ndim(c) == 0:
        return c / c
    stddev = elementwise.sqrt(elementwise.real(indexing.diagonal(c)))
    c = c / shapes.expand_dims(stddev, 1) / shapes.expand_dims(stddev, 0)
    if declare.iscomplexobj(c):
        return elementwise.add(
            indexing.clip(elementwise.real(c), -1.0, 1.0), elementwise.multiply(indexing.clip(elementwise.imag(c), -1.0, 1.0), 1j)
        )
    return indexing.clip(c, -1.0, 1.0)


# ---- signals ----


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-d sequences, ``mode`` ``"full"``, ``"same"`` or ``"valid"``.

    Computed as one gather of the longer sequence, zero-padded, into a ``(len(output), len(shorter))``
    matrix times the shorter sequence (memory ``O((n + m) min(n, m))``).
    """
    a, v = _sequence(a, v, "convolve"), _sequence(v, a, "convolve")
    n, m = shapes.shape(a)[0], shapes.shape(v)[0]
    full = _full_convolution(a, v) if n >= m else _full_convolution(v, a)
    return _mode_slice(full, n, m, mode, "convolve", (builtins.min(n, m) - 1) // 2)


def correlate(a, v, mode="valid"):
    """The cross-correlation ``c[k] = sum_n a[n + k] * conj(v[n])`` of two 1-d sequences, as NumPy's
    ``correlate`` (``mode`` ``"valid"``, ``"same"`` or ``"full"``).

    ``"same"`` keeps ``max(n, m)`` entries of the ``"full"`` output (``n = len(a)``,
    ``m = len(v)``), as NumPy: from index ``(m - 1) // 2`` when ``n >= m``; when ``n < m``
    NumPy correlates the swapped pair and reverses (and conjugates) the result, which moves
    the window to start at ``n // 2`` (one place later when ``n`` is even).
    """
    a, v = _sequence(a, v, "correlate"), _sequence(v, a, "correlate")
    n, m = shapes.shape(a)[0], shapes.shape(v)[0]
    reversed_v = shapes.flip(elementwise.conj(v), 0)
    full = _full_convolution(a, reversed_v) if n >= m else _full_convolution(reversed_v, a)
    return _mode_slice(full, n, m, mode, "correlate", (m - 1) // 2 if n >= m else n // 2)


def _sequence(x, other, name):
    x = shapes.ravel(_as_array_like(x, other) if isbox(other) or hasattr(other, "shape") else shapes.array(x))
    if shapes.ndim(x) != 1 or shapes.shape(x)[0] == 0:
        raise ValueError(f"{name}: the sequences must be 1-d and not empty")
    return x


def _full_convolution(long, short):
    """``out[k] = sum_j long[k - j] short[j]``, ``k < n + m - 1``, for ``len(long) >= len(short)``."""
    n, m = shapes.shape(long)[0], shapes.shape(short)[0]
    padded = arrays.pad(long, (m - 1, m - 1))
    positions = _np.arange(n + m - 1)[:, None] + (m - 1) - _np.arange(m)[None, :]
    return products.matmul(take(padded, _index_like(positions, padded)), short)


def _mode_slice(full, n, m, mode, name, same_start):
    """The rows of the full convolution of sequences of lengths ``n`` and ``m`` that ``mode`` keeps
    (``"same"``: ``max(n, m)`` rows from ``same_start``)."""
    if mode == "full":
        return full
    if mode == "same":
        return full[same_start : same_start + builtins.max(n, m), ...]
    if mode == "valid":
        return full[builtins.min(n, m) - 1 : builtins.max(n, m), ...]
    raise ValueError(f"{name}: mode must be 'full', 'same' or 'valid', not {mode!r}")


@notrace_primitive
def _phase_correction(p, discont, axis, period):
    """The multiples of ``period`` that ``unwrap`` adds after each step of ``p`` along ``axis`` (piecewise constant)."""
    backend = backend_of(p, op="unwrap")
    n = p.ndim
    later = backend.getitem(p, (slice(None),) * (axis % n) + (slice(1, None),))
    earlier = backend.getitem(p, (slice(None),) * (axis % n) + (slice(None, -1),))
    step = later - earlier
    high = period / 2
    wrapped = backend.remainder(step + high, period) - high
    wrapped = backend.where((wrapped == -high) & (step > 0), backend.full_like(wrapped, high), wrapped)
    correction = backend.where(backend.abs(step) < discont, backend.zeros_like(step), wrapped - step)
    summed = backend.cumulative_sum(correction, axis=axis % n)
    first = backend.zeros_like(backend.getitem(p, (slice(None),) * (axis % n) + (slice(0, 1),)))
    return backend.concat([first, summed], axis=axis % n)


def unwrap(p, discont=None, axis=-1, *, period=2 * _np.pi):
    """``p`` with its jumps of more than ``discont`` (default ``period / 2``) along ``axis`` brought back
    by multiples of ``period``: ``p`` plus a piecewise-constant correction (derivative 1)."""
    p = shapes.asarray(p) if not isbox(p) else p
    if not _is_floating(p):
        p = dtypes.astype(p, dtypes.float64)
    discont = period / 2 if discont is None else builtins.max(discont, period / 2)
    return elementwise.add(p, _phase_correction(p, discont, shapes._normalize_axis(axis, shapes.ndim(p)), period))


# ---- integration and interpolation ----


@shapes.array_like("y", "x")
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule, at the sample points ``x`` (1-d, or of
    ``y``'s shape) or with spacing ``dx``."""
    y = y if isbox(y) or hasattr(y, "shape") else shapes.array(y)
    n = shapes.ndim(y)
    axis = shapes._normalize_axis(axis, n)
    upper, lower = y[shapes._along(axis, slice(1, None), n)], y[shapes._along(axis, slice(None, -1), n)]
    if x is None:
        d = dx
    else:
        x = _as_array_like(x, y)
        d = shapes.diff(x)
        if shapes.ndim(x) == 1:
            d = shapes.reshape(d, (-1,) + (1,) * (n - axis - 1))
        else:
            d = shapes.diff(x, axis=axis)
    return reductions.sum(elementwise.multiply(d, elementwise.add(upper, lower)) / 2.0, axis=axis)


def trapz(y, x=None, dx=1.0, axis=-1):
    """NumPy's ``trapz`` (removed in NumPy 2.4; autograd offers it beside NumPy 2.1-2.3): ``trapezoid``."""
    return trapezoid(y, x=x, dx=dx, axis=axis)


def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant of the points ``(xp, fp)`` (``xp`` increasing) at ``x``, ``left`` /
    ``right`` (default ``fp[0]`` / ``fp[-1]``) outside, as NumPy's ``interp``; with ``period``, ``xp`` is
    read modulo the period. Differentiable in ``x``, ``xp`` and ``fp`` (one-sided at the points ``xp``)."""
    xp, fp = _as_array_like(xp, fp), _as_array_like(fp, xp)
    if shapes.ndim(xp) != 1 or shapes.shape(xp) != shapes.shape(fp):
        raise ValueError("interp: xp and fp must be 1-d sequences of the same length")
    x = _as_array_like(x, xp)
    if period is not None:
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        period = builtins.abs(period)
        x = elementwise.remainder(x, period)
        xp = elementwise.remainder(xp, period)
        order = _index_like(_np.argsort(host_values(xp), kind="stable"), xp)
        xp, fp = take(xp, order), take(fp, order)
        xp = shapes.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = shapes.concatenate([fp[-1:], fp, fp[:1]])
        left = right = None
    count = shapes.shape(xp)[0]
    if count == 1:
        result = shapes.broadcast_to(fp[0], shapes.shape(x))
    else:
        i = indexing.clip(searchsorted(getval(xp), getval(x), side="right") - 1, 0, count - 2)
        x0, x1, y0, y1 = take(xp, i), take(xp, i + 1), take(fp, i), take(fp, i + 1)
        t = elementwise.subtract(x, x0) / elementwise.subtract(x1, x0)
        result = elementwise.add(y0, elementwise.multiply(t, elementwise.subtract(y1, y0)))
    result = indexing.where(elementwise.less(x, xp[0]), fp[0] if left is None else left, result)
    return indexing.where(elementwise.greater(x, xp[-1]), fp[-1] if right is None else right, result)


# ---- polynomials (coefficients from the highest power down, as NumPy's poly* functions) ----


def _coefficients(p, like=None):
    p = _as_array_like(p, like) if like is not None and (isbox(like) or hasattr(like, "shape")) else p
    p = shapes.array(p) if not (isbox(p) or hasattr(p, "shape")) else p
    return shapes.reshape(p, (1,)) if shapes.ndim(p) == 0 else p


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-d ``x``: columns ``x**(N-1), ..., x, 1`` (reversed if ``increasing``).

    Built by repeated products, so the derivative is exact at ``x = 0``."""
    x = _coefficients(x)
    if shapes.ndim(x) != 1:
        raise ValueError("vander: x must be a one-dimensional array or sequence")
    N = shapes.shape(x)[0] if N is None else N
    columns = [dtypes.ones_like(x)] if N else []
    for _ in range(1, N):
        columns.append(elementwise.multiply(columns[-1], x))
    if not columns:
        return shapes.reshape(shapes.ravel(x)[:0], (shapes.shape(x)[0], 0))
    return shapes.stack(columns if increasing else columns[::-1], axis=1)


@shapes.array_like("p", "x")
def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by Horner's scheme."""
    x = shapes.asarray(x) if not (isbox(x) or hasattr(x, "shape")) else x
    p = _coefficients(p, x)
    y = dtypes.zeros_like(x)
    for i in range(shapes.shape(p)[0]):
        y = elementwise.add(elementwise.multiply(y, x), p[i])
    return y


def polyadd(a1, a2):
    """The sum of two polynomials (the shorter padded with leading zeros)."""
    a1, a2 = _aligned(a1, a2)
    return elementwise.add(a1, a2)


def polysub(a1, a2):
    """The difference of two polynomials (the shorter padded with leading zeros)."""
    a1, a2 = _aligned(a1, a2)
    return elementwise.subtract(a1, a2)


def _aligned(a1, a2):
    a1, a2 = _coefficients(a1, a2), _coefficients(a2, a1)
    n1, n2 = shapes.shape(a1)[0], shapes.shape(a2)[0]
    return arrays.pad(a1, (builtins.max(n2 - n1, 0), 0)), arrays.pad(a2, (builtins.max(n1 - n2, 0), 0))


def polymul(a1, a2):
    """The product of two polynomials: the convolution of their coefficients."""
    return convolve(_coefficients(a1, a2), _coefficients(a2, a1))


def polyder(p, m=1):
    """The ``m``-th derivative of the polynomial ``p``."""
    if m < 0:
        raise ValueError("polyder: order of derivative must be positive (see polyint)")
    p = _coefficients(p)
    for _ in range(m):
        n = shapes.shape(p)[0] - 1
        p = elementwise.multiply(p[:-1], _from_host(_np.arange(n, 0, -1), p, getval(p).dtype))
    return p


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of the polynomial ``p``, the integration constants ``k`` (a scalar or
    ``m`` values, default 0) last."""
    if m < 0:
        raise ValueError("polyint: order of integral must be positive (see polyder)")
    constants = [0.0] * m if k is None else [k] * m if shapes.ndim(k) == 0 else list(k)
    if len(constants) < m:
        raise ValueError("polyint: k must be a scalar or a rank-1 array of length 1 or >m")
    p = _coefficients(p)
    for constant in constants[:m]:
        n = shapes.shape(p)[0]
        scaled = elementwise.divide(p, _from_host(_np.arange(n, 0, -1), p, getval(p).dtype))
        p = shapes.concatenate([scaled, shapes.reshape(_as_array_like(constant, scaled), (1,))])
    return p


def polydiv(u, v):
    """``(quotient, remainder)`` of the polynomial division ``u / v``, by long division; the remainder's
    leading (numerically) zero coefficients are dropped, as in NumPy."""
    u, v = _coefficients(u, v), _coefficients(v, u)
    u, v = elementwise.add(u, 0.0), elementwise.add(v, 0.0)
    m, n = shapes.shape(u)[0] - 1, shapes.shape(v)[0] - 1
    remainder = [u[i] for i in range(m + 1)]
    quotient = []
    for k in range(m - n + 1):
        d = elementwise.divide(remainder[k], v[0])
        quotient.append(d)
        for j in range(n + 1):
            remainder[k + j] = elementwise.subtract(remainder[k + j], elementwise.multiply(d, v[j]))
    q = shapes.stack(quotient) if quotient else dtypes.zeros_like(u[:1])
    r = shapes.stack(remainder)
    while shapes.shape(r)[0] > 1 and _np.allclose(host_values(r[0]), 0, rtol=1e-14):
        r = r[1:]
    return q, r


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial fit of degree ``deg`` to the points ``(x, y)`` (``y`` of shape ``(n,)`` or
    ``(n, k)``), with optional weights ``w``, as NumPy's ``polyfit`` (its column scaling included);
    ``full=True`` also returns ``(residuals, rank, singular_values, rcond)``.

    Raises
    ------
    NotImplementedError
        For ``cov=True``.
    """
    if cov:
        raise NotImplementedError("polyfit: cov=True is not supported; compute the covariance from the residuals")
    x, y = _coefficients(x, y), _coefficients(y, x)
    order = int(deg) + 1
    if deg < 0 or shapes.ndim(x) != 1 or shapes.shape(x)[0] != shapes.shape(y)[0] or shapes.ndim(y) > 2:
        raise ValueError("polyfit: expected deg >= 0, x 1-d, and y of x's length (1-d or 2-d)")
    if not _is_floating(x):
        x = dtypes.astype(x, dtypes.float64)
    if rcond is None:
        rcond = shapes.shape(x)[0] * float(backend_of(getval(x)).finfo(getval(x).dtype).eps)
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _as_array_like(w, x)
        lhs = elementwise.multiply(lhs, shapes.expand_dims(w, 1))
        rhs = elementwise.multiply(rhs, w if shapes.ndim(rhs) == 1 else shapes.expand_dims(w, 1))
    scale = elementwise.sqrt(reductions.sum(elementwise.multiply(lhs, lhs), axis=0))
    lhs = elementwise.divide(lhs, scale)
    c, residuals, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = elementwise.divide(c, scale) if shapes.ndim(c) == 1 else elementwise.divide(c, shapes.expand_dims(scale, 1))
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", _np.exceptions.RankWarning, stacklevel=2)
    return (c, residuals, rank, s, rcond) if full else c


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (or of the characteristic polynomial of
    a square matrix); real when the complex roots come in conjugate pairs, as NumPy's."""
    zeros = _coefficients(seq_of_zeros)
    shape = shapes.shape(zeros)
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        zeros = linalg.eigvals(zeros)
    elif len(shape) != 1:
        raise ValueError("poly: input must be 1d or non-empty square 2d array.")
    if shapes.shape(zeros)[0] == 0:
        return 1.0
    a = dtypes.ones_like(zeros[:1])
    for i in range(shapes.shape(zeros)[0]):
        a = elementwise.subtract(arrays.pad(a, (0, 1)), elementwise.multiply(zeros[i], arrays.pad(a, (1, 0))))
    if declare.iscomplexobj(a):
        roots_ = host_values(zeros)
        if _np.all(_np.sort(roots_) == _np.sort(roots_.conjugate())):
            a = elementwise.real(a)
    return a


def roots(p):
    """The roots of the polynomial with coefficients ``p``: the eigenvalues of its companion matrix (leading
    and trailing zero coefficients handled as in NumPy); real when all of them are real, as NumPy's, on
    every backend but Dask, where they are complex (``linalg.eigvals``' dtype there)."""
    p = _coefficients(p)
    if shapes.ndim(p) != 1:
        raise ValueError("roots: input must be a rank-1 array.")
    nonzero = _np.flatnonzero(host_values(p))
    if nonzero.size == 0:
        return shapes.array([])
    trailing = shapes.shape(p)[0] - int(nonzero[-1]) - 1
    p = p[int(nonzero[0]) : int(nonzero[-1]) + 1]
    if not (_is_floating(p) or declare.iscomplexobj(p)):
        p = dtypes.astype(p, dtypes.float64)
    n = shapes.shape(p)[0]
    if n > 1:
        first_row = shapes.reshape(elementwise.negative(p[1:]) / p[0], (1, n - 1))
        shift = indexing.eye_like(shapes.reshape(p[1:], (1, n - 1)))[: n - 2, :]  # [I, 0]: the companion's subdiagonal
        found = linalg.eigvals(shapes.concatenate([first_row, shift], axis=0))
        if linalg.NUMPY_EIG_ALWAYS_COMPLEX and not declare.iscomplexobj(p) and linalg.known_real(found):
            found = elementwise.real(found)  # NumPy 2.5's roots stay real where its eigvals no longer do
    else:
        found = shapes.ravel(p)[:0]
    return shapes.concatenate([found, _constant(found, (trailing,), 0)]) if trailing else found


# ---- creation with differentiable ends ----


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)``: ``num`` numbers evenly spaced on a log scale."""
    result = elementwise.power(base, linspace(start, stop, num, endpoint=endpoint, axis=axis))
    return result if dtype is None else dtypes.astype(result, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` numbers from ``start`` to ``stop`` (real of one sign, or complex) in geometric progression,
    ``exp(linspace(log(start), log(stop)))`` with the ends exact."""
    sign = 1.0
    if not (declare.iscomplexobj(start) or declare.iscomplexobj(stop)):
        ends = [host_values(end) for end in (start, stop)]
        if builtins.any(_np.any(end == 0) for end in ends):
            raise ValueError("geomspace: Geometric sequence cannot include zero")
        if builtins.all(_np.all(end < 0) for end in ends):
            sign, start, stop = -1.0, elementwise.negative(start), elementwise.negative(stop)
    result = elementwise.exp(linspace(elementwise.log(start), elementwise.log(stop), num, endpoint=endpoint, axis=axis))
    if num:
        ax = axis % shapes.ndim(result)
        position = shapes.reshape(_index_like(_np.arange(num), result), (-1,) + (1,) * (shapes.ndim(result) - ax - 1))
        result = indexing.where(position == 0, _along(start, ax), result)
        if endpoint and num > 1:
            result = indexing.where(position == num - 1, _along(stop, ax), result)
    result = elementwise.multiply(result, sign)
    return result if dtype is None else dtypes.astype(result, dtype)


def _along(end, axis):
    """An end of a ``linspace``-like sequence with the sequence's axis inserted (size 1)."""
    return shapes.expand_dims(end, axis) if shapes.ndim(end) else end


# ---- counting ----


@shapes.array_like("weights")
def bincount(x, weights=None, minlength=0):
    """The number of occurrences of each value in the non-negative integer ``x`` (int64), or, with
    ``weights``, the sum of the weights per value: differentiable in ``weights`` (a scatter-add)."""
    raw = getval(x)
    if not hasattr(raw, "shape"):
        on_weights = weights is not None and hasattr(getval(weights), "shape")
        raw = _index_like(raw, weights) if on_weights else _np.asarray(raw, dtype=_np.int64)
    backend = backend_of(raw, op="bincount")
    if raw.ndim != 1:
        raise ValueError("bincount: x must be 1-d")
    if raw.shape[0] and host_values(backend.any(raw < 0)):
        raise ValueError("bincount: 'list' argument must have no negative elements")
    length = builtins.max(int(host_values(backend.max(raw))) + 1 if raw.shape[0] else 0, minlength)
    if weights is None:
        ones = backend.ones(raw.shape, dtype=backend.dtype("float64"), device=backend.device(raw))
        return backend.astype(indexing.untake(ones, raw, (length,)), backend.dtype("int64"))
    weights = _as_array_like(weights, raw)
    if not _is_floating(weights) and not declare.iscomplexobj(weights):
        weights = dtypes.astype(weights, dtypes.float64)
    return indexing.untake(weights, raw, (length,))


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of consecutive elements of the flattened ``ary``, with ``to_begin`` / ``to_end`` around them."""
    flat = shapes.ravel(ary)
    pieces = [elementwise.subtract(flat[1:], flat[:-1])]
    if to_begin is not None:
        pieces.insert(0, shapes.ravel(_as_array_like(to_begin, flat)))
    if to_end is not None:
        pieces.append(shapes.ravel(_as_array_like(to_end, flat)))
    return shapes.concatenate([dtypes.astype(piece, getval(flat).dtype) for piece in pieces]) if len(pieces) > 1 else pieces[0]


# ---- elementwise functions the Array API standard lacks, and comparisons, composed from primitives ----


def exp2(x):
    """``2 ** x``."""
    return elementwise.power(2.0, x)


def deg2rad(x):
    return elementwise.multiply(x, _np.pi / 180.0)


def rad2deg(x):
    return elementwise.multiply(x, 180.0 / _np.pi)


radians, degrees = deg2rad, rad2deg


def fabs(x):
    return elementwise.abs(x)


@shapes.array_like("x")
def positive(x):
    return x


def cbrt(x):
    """The real cube root, ``sign(x) * |x|**(1/3)`` (its derivative is infinite at 0)."""
    return elementwise.multiply(elementwise.sign(x), elementwise.power(elementwise.abs(x), 1.0 / 3.0))


def sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0. For |pi x| < 1, its Taylor series to the x**18 term (within rounding
    there), whose derivatives keep full precision near 0 (those of the quotient are the difference of two
    nearly equal terms); elsewhere the quotient with ``sin(pi x)`` from ``_sin_cos_pi`` (exact zeros at the
    integers). Each branch sees only its own points, so no derivative is NaN."""
    small = elementwise.less(elementwise.abs(x), 1.0 / _np.pi)
    x_small, x_large = indexing.where(small, x, 0.0), indexing.where(small, 1.0, x)
    u2 = elementwise.square(elementwise.multiply(x_small, _np.pi))
    series = 1.0
    for k in range(9, 0, -1):  # sum_k (-u**2)**k / (2k + 1)!, by Horner's rule
        series = 1.0 - u2 * series / (2.0 * k * (2.0 * k + 1.0))
    return indexing.where(small, series, _sin_cos_pi(x_large)[0] / elementwise.multiply(x_large, _np.pi))


def _sin_cos_pi(x):
    """``(sin(pi x), cos(pi x))`` from the reduced argument ``r = x - round(x)`` (exact, |r| <= 1/2):
    sin(pi x) exactly 0 at the integers, and both to full precision near them and for large |x|,
    where ``sin(pi * x)`` keeps only the digits of the rounded product ``pi * x``."""
    n = elementwise.round(x)
    r = elementwise.multiply(elementwise.subtract(x, n), _np.pi)
    parity = 1.0 - 2.0 * elementwise.remainder(n, 2.0)  # (-1)**n
    return elementwise.multiply(parity, elementwise.sin(r)), elementwise.multiply(parity, elementwise.cos(r))


def fmax(x, y):
    """The maximum, ignoring NaN (NumPy's ``fmax``); derivatives as ``maximum``'s."""
    return indexing.where(elementwise.isnan(y), x, indexing.where(elementwise.isnan(x), y, elementwise.maximum(x, y)))


def fmin(x, y):
    """The minimum, ignoring NaN (NumPy's ``fmin``); derivatives as ``minimum``'s."""
    return indexing.where(elementwise.isnan(y), x, indexing.where(elementwise.isnan(x), y, elementwise.minimum(x, y)))


def float_power(x, y):
    """``x ** y`` computed in float64 (complex128 for complex input), as NumPy's ``float_power``."""
    return elementwise.power(_widen(x), _widen(y))


def _widen(x):
    if not hasattr(getval(x), "dtype"):
        return x
    return dtypes.astype(x, dtypes.complex128 if declare.iscomplexobj(x) else dtypes.float64)


@shapes.array_like("x")
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced by finite numbers (real input); the derivative is 0 at replaced entries."""
    value = getval(x)
    backend = backend_of(value, op="nan_to_num")
    finfo = backend.finfo(value.dtype if hasattr(value, "dtype") else backend.dtype(type(value)))
    posinf = finfo.max if posinf is None else posinf
    neginf = finfo.min if neginf is None else neginf
    infinite = elementwise.isinf(x)
    return indexing.where(
        elementwise.logical_and(infinite, x > 0),
        posinf,
        indexing.where(elementwise.logical_and(infinite, x < 0), neginf, indexing.where(elementwise.isnan(x), nan, x)),
    )


def angle(z, deg=False):
    """The argument of ``z``: ``arctan2(imag(z), real(z))`` (0 or pi for real input)."""
    if declare.iscomplexobj(z):
        result = elementwise.arctan2(elementwise.imag(z), elementwise.real(z))
    else:
        result = indexing.where(elementwise.less(z, 0), _np.pi, dtypes.zeros_like(z))
    return rad2deg(result) if deg else result


@notrace_primitive
def isposinf(x):
    return elementwise.logical_and(elementwise.isinf(x), elementwise.greater(x, 0))


@notrace_primitive
def isneginf(x):
    return elementwise.logical_and(elementwise.isinf(x), elementwise.less(x, 0))


@notrace_primitive
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    backend = backend_of(a, b, op="isclose")
    close = backend.logical_or(backend.equal(a, b), backend.abs(backend.subtract(a, b)) <= atol + rtol * backend.abs(b))
    if equal_nan:
        close = backend.logical_or(close, backend.logical_and(backend.isnan(a), backend.isnan(b)))
    return close


@notrace_primitive
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(reductions.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


@notrace_primitive
def array_equal(a, b):
    return shapes.shape(a) == shapes.shape(b) and bool(reductions.all(elementwise.equal(a, b)))


@notrace_primitive
def array_equiv(a, b):
    try:
        return bool(reductions.all(elementwise.equal(a, b)))
    except ValueError:
        return False


@notrace_primitive
def iscomplex(x):
    return elementwise.not_equal(elementwise.imag(x), 0) if declare.iscomplexobj(x) else dtypes.zeros_like(x, dtype=bool)


@notrace_primitive
def isreal(x):
    return elementwise.equal(elementwise.imag(x), 0) if declare.iscomplexobj(x) else dtypes.ones_like(x, dtype=bool)
