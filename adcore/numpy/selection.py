"""Gathers, sorting and order statistics: ``take``, ``take_along_axis``, ``sort``, ``partition``,
``median``, ``quantile``, ``percentile`` (and their ``nan`` versions), and the non-differentiable
``argsort``, ``argpartition`` and ``searchsorted``.

NumPy's names and signatures; each runs on the backend and device of its array
argument through the Array API's ``take``, ``take_along_axis``, ``sort``,
``argsort`` and ``searchsorted`` (2024.12).

Derivatives:

- The gathers ``take`` and ``take_along_axis`` are linear, so their JVP is the
  gather of the tangent; their VJP is the adjoint, a scatter-add of the
  cotangent (repeated indices accumulate) by ``Backend.scatter_add``, through the
  primitives :func:`untake_axis` and :func:`untake_along_axis` whose own VJP is
  the gather again (so every order works, as for ``getitem``/``untake``).
- ``sort`` is the gather of its input through the sorting permutation ``p =
  argsort(a)``: JVP ``take_along_axis(g, p)``, VJP the scatter of ``g`` back
  through ``p`` (JAX's and PyTorch's rule). Ties follow the stable ``argsort``:
  of equal entries, the one that comes first in ``a`` owns the earlier output
  position, and so its derivative.
- ``partition``, ``median``, ``quantile`` and friends are compositions of
  ``sort`` and gathers, so their derivatives come with them.
"""

import numpy as _np

from backends import array_backend, backend_of

from ..core import defjvp, defvjp, getval, notrace_primitive, primitive
from . import wrapper as anp
from .rules import metadata, unbroadcast

# ---- gathers and their adjoints ----


@primitive
def take(a, indices, axis=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` if ``axis`` is None).

    Parameters
    ----------
    a : array
    indices : int, sequence of ints or integer array
        Of any shape; negative indices count from the end. An array must be of
        ``a``'s backend and device; Python ints and lists are made one there.
    axis : int, optional

    Returns
    -------
    array
        ``a.shape[:axis] + indices.shape + a.shape[axis + 1:]``, ``a``'s dtype.

    Raises
    ------
    numpy.exceptions.AxisError
        If ``axis`` is out of bounds.
    ValueError
        If ``indices`` is an array of another backend or device.
    TypeError
        If ``indices`` are not integers.

    Notes
    -----
    VJP: the cotangent added back at ``indices`` (:func:`untake_axis`), so
    repeated indices accumulate. Out-of-bounds indices are not checked on
    backends that do not check them (the Array API leaves them unspecified).

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> grad(lambda x: np.sum(np.take(x, [0, 0, 2])))(np.array([1.0, 2.0, 3.0]))
    array([2., 0., 1.])
    """
    backend = backend_of(a, indices, op="take")
    indices = _index_array(backend, indices, a, "take")
    a_shape = _shape(a)
    if axis is None:
        a, a_shape, axis = backend.reshape(a, (-1,)), (_size(a_shape),), 0
    axis = anp._normalize_axis(axis, len(a_shape), "take")
    taken = backend.take(a, backend.reshape(indices, (-1,)), axis=axis)
    return backend.reshape(taken, a_shape[:axis] + tuple(indices.shape) + a_shape[axis + 1 :])


@primitive
def untake_axis(g, indices, axis, a_shape):
    """The adjoint of ``take(a, indices, axis)``: zeros of ``a_shape`` with ``g`` added at ``indices``
    along ``axis`` (repeated indices accumulate)."""
    backend = backend_of(g, indices, op="take")
    indices = _index_array(backend, indices, g, "take")
    leading, n, trailing = _around_axis(a_shape, axis, "take")
    positions = _flat_positions(backend, backend.reshape(indices, (1, -1, 1)), leading, n, trailing, backend.device(g))
    return _scatter_flat(backend, g, positions, a_shape)


defvjp(take, lambda ans, a, indices, axis=None: lambda g: untake_axis(g, indices, axis, anp.shape(a)), None)
defjvp(take, "same", None)
defvjp(untake_axis, lambda ans, g, indices, axis, a_shape: lambda h: take(h, indices, axis))
defjvp(untake_axis, "same")


@primitive
def take_along_axis(arr, indices, axis=-1):
    """The entries of ``arr`` at ``indices`` along ``axis``, one 1-d slice at a time (NumPy's).

    Parameters
    ----------
    arr : array
    indices : integer array or nested lists
        With ``arr``'s number of dimensions; the other axes broadcast against
        ``arr``'s. With ``axis=None``, 1-d indices into the flattened ``arr``.
    axis : int or None, optional
        -1 by default (NumPy 2.3's and the Array API's default).

    Returns
    -------
    array
        The broadcast shape of ``arr`` and ``indices``, with ``indices``'
        length along ``axis``; ``arr``'s dtype.

    Notes
    -----
    VJP: the cotangent added back along ``axis`` at ``indices``
    (:func:`untake_along_axis`), then summed over the axes broadcasting
    stretched.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> x = np.array([[3.0, 1.0, 2.0]])
    >>> np.take_along_axis(x, np.argsort(x, axis=1), axis=1)
    array([[1., 2., 3.]])
    """
    backend = backend_of(arr, indices, op="take_along_axis")
    indices = _index_array(backend, indices, arr, "take_along_axis")
    if axis is None:
        return backend.take_along_axis(backend.reshape(arr, (-1,)), indices, axis=0)
    anp._normalize_axis(axis, len(_shape(arr)), "take_along_axis")
    return backend.take_along_axis(arr, indices, axis=axis)


@primitive
def untake_along_axis(g, indices, axis, arr_shape):
    """The adjoint of ``take_along_axis(arr, indices, axis)`` for ``arr`` of ``arr_shape`` (already
    broadcast against ``indices``): zeros with ``g`` added at ``indices`` along ``axis``."""
    backend = backend_of(g, indices, op="take_along_axis")
    indices = _index_array(backend, indices, g, "take_along_axis")
    leading, n, trailing = _around_axis(arr_shape, axis, "take_along_axis")
    k = _shape(g)[axis] if axis is not None else _size(_shape(g))
    indices = backend.reshape(backend.broadcast_to(indices, _shape(g)), (leading, k, trailing))
    positions = _flat_positions(backend, indices, leading, n, trailing, backend.device(g))
    return _scatter_flat(backend, g, positions, arr_shape)


def grad_take_along_axis(ans, arr, indices, axis=-1):
    meta = metadata(arr)
    if axis is None:
        return lambda g: untake_along_axis(g, indices, None, meta[0])
    stretched = _broadcast_except(meta[0], _shape(indices), axis)
    return lambda g: unbroadcast(untake_along_axis(g, indices, axis, stretched), meta)


defvjp(take_along_axis, grad_take_along_axis, None)
defjvp(take_along_axis, "same", None)
defvjp(untake_along_axis, lambda ans, g, indices, axis, arr_shape: lambda h: take_along_axis(h, indices, axis))
defjvp(untake_along_axis, "same")


def _index_array(backend, indices, like, name):
    """``indices`` as an integer array on ``like``'s device: Python ints and (nested) lists are made
    one there; an array is used as it is (``backend_of`` has checked its backend and device)."""
    if array_backend(indices) is not None:
        return indices
    indices = backend.asarray(indices, device=backend.device(like))
    if not backend.isdtype(indices.dtype, "integral"):
        if _size(tuple(indices.shape)):
            raise TypeError(f"{name}: indices must be integers, got {indices.dtype}")
        indices = backend.astype(indices, backend.dtype("int64"))
    return indices


def _around_axis(shape, axis, name):
    """``(leading, n, trailing)``: the sizes before, along and after ``axis`` (the flat size for None)."""
    if axis is None:
        return 1, _size(shape), 1
    axis = anp._normalize_axis(axis, len(shape), name)
    return _size(shape[:axis]), shape[axis], _size(shape[axis + 1 :])


def _flat_positions(backend, indices, leading, n, trailing, device):
    """Flat positions in an array of shape ``(leading, n, trailing)`` of the entries that a gather of
    ``indices`` (shape ``(leading or 1, k, trailing or 1)``, negatives counting from the end) reads."""
    indices = backend.where(indices < 0, indices + n, indices)
    rows = backend.reshape(backend.arange(leading, device=device), (leading, 1, 1))
    columns = backend.reshape(backend.arange(trailing, device=device), (1, 1, trailing))
    return backend.reshape((rows * n + indices) * trailing + columns, (-1,))


def _scatter_flat(backend, g, positions, shape):
    """Zeros of ``shape`` with the entries of ``g`` (in C order) added at the flat ``positions``.

    The index is one 1-d integer array into a 1-d array: the one form of
    integer-array indexing every Array API library has.
    """
    g = backend.reshape(g, (-1,))
    return backend.reshape(backend.scatter_add((_size(shape),), g.dtype, backend.device(g), positions, g), shape)


def _broadcast_except(arr_shape, indices_shape, axis):
    """``arr_shape`` stretched by broadcasting against ``indices_shape`` on every axis but ``axis``."""
    axis = axis % len(arr_shape)
    return tuple(n if d == axis else max(n, m) for d, (n, m) in enumerate(zip(arr_shape, indices_shape)))


# ---- sorting ----


@primitive
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``a`` sorted in ascending order along ``axis`` (of the flattened ``a`` if ``axis`` is None).

    Parameters
    ----------
    a : array
        Real entries.
    axis : int or None, optional
    kind, stable : optional
        Accepted for NumPy's signature and ignored: the sort is always stable,
        which is a valid result for every ``kind``.

    Returns
    -------
    array
        ``a``'s shape (1-d for ``axis=None``) and dtype.

    Raises
    ------
    NotImplementedError
        If ``order`` is given (structured arrays).

    Notes
    -----
    Derivative: ``sort(a) = take_along_axis(a, p)`` with ``p = argsort(a)``,
    so the JVP gathers the tangent through ``p`` and the VJP scatters the
    cotangent back (JAX's and PyTorch's rule); ``p`` is computed again when
    the call is traced. Ties: ``p`` is the stable permutation, so of equal
    entries the one first in ``a`` gets the derivative of the earlier output
    position (a valid one-sided derivative). NaNs sort last on NumPy, CuPy
    and array-api-strict.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> grad(lambda x: np.sort(x)[0])(np.array([2.0, 1.0, 3.0]))
    array([0., 1., 0.])
    """
    _check_order(order, "sort")
    backend = backend_of(a, op="sort")
    if axis is None:
        return backend.sort(backend.reshape(a, (-1,)), axis=-1, stable=True)
    anp._normalize_axis(axis, len(_shape(a)), "sort")
    return backend.sort(a, axis=axis, stable=True)


def grad_sort(ans, a, axis=-1, kind=None, order=None, stable=None):
    permutation = argsort(a, axis)
    a_shape = anp.shape(a)
    return lambda g: untake_along_axis(g, permutation, axis, a_shape)


def jvp_sort(g, ans, a, axis=-1, kind=None, order=None, stable=None):
    return take_along_axis(g, argsort(a, axis), axis)


defvjp(sort, grad_sort)
defjvp(sort, jvp_sort)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``a`` rearranged along ``axis`` so that the ``kth`` entry is where a sort would put it, the
    entries before it are not greater and those after it are not smaller.

    Computed as a full ``sort``, which is one valid partition (NumPy's own
    result may order the entries on each side differently); its derivatives
    are ``sort``'s.

    Parameters
    ----------
    a : array
    kth : int or sequence of ints
        Positions along ``axis`` (negative ones count from the end).
    axis : int or None, optional
        None partitions the flattened ``a``.
    kind : optional
        Accepted for NumPy's signature and ignored.

    Raises
    ------
    ValueError
        If a ``kth`` is out of bounds.
    NotImplementedError
        If ``order`` is given.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> np.partition(np.array([3.0, 1.0, 2.0]), 1)[1]
    np.float64(2.0)
    """
    _check_order(order, "partition")
    _check_kth(kth, a, axis, "partition")
    return sort(a, axis)


@notrace_primitive
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """The indices that sort ``a`` along ``axis`` (of the flattened ``a`` if ``axis`` is None).

    Not differentiable (integer output). Always stable: of equal entries, the
    first in ``a`` comes first, a valid result for every ``kind``.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> np.argsort(np.array([2.0, 1.0, 2.0]))
    array([1, 0, 2])
    """
    _check_order(order, "argsort")
    backend = backend_of(a, op="argsort")
    if axis is None:
        return backend.argsort(backend.reshape(a, (-1,)), axis=-1, stable=True)
    anp._normalize_axis(axis, len(_shape(a)), "argsort")
    return backend.argsort(a, axis=axis, stable=True)


@notrace_primitive
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition ``a`` around ``kth`` along ``axis``, computed as ``argsort`` (one
    valid answer). Not differentiable."""
    _check_order(order, "argpartition")
    _check_kth(kth, a, axis, "argpartition")
    return argsort(a, axis)


@notrace_primitive
def searchsorted(a, v, side="left", sorter=None):
    """Where the values ``v`` would be inserted into the sorted 1-d ``a`` to keep it sorted.

    Not differentiable (integer output). ``v`` may be a Python scalar or list
    (made an array on ``a``'s device) or an array of ``a``'s backend and device;
    ``sorter`` (optional) is an integer array that sorts ``a``.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> np.searchsorted(np.array([1.0, 2.0, 3.0]), [2.5, 0.0])
    array([2, 0])
    """
    backend = backend_of(a, v, sorter, op="searchsorted")
    if array_backend(v) is None:
        v = backend.asarray(v, device=backend.device(a))
    if sorter is None:
        return backend.searchsorted(a, v, side=side)
    return backend.searchsorted(a, v, side=side, sorter=sorter)


def _check_order(order, name):
    if order is not None:
        raise NotImplementedError(f"{name}: order= (structured arrays) is not supported by adcore")


def _check_kth(kth, a, axis, name):
    a_shape = anp.shape(a)
    n = _size(a_shape) if axis is None else a_shape[anp._normalize_axis(axis, len(a_shape), name)]
    for k in _as_sequence(kth):
        if not -n <= int(k) < n:
            raise ValueError(f"{name}: kth(={k}) out of bounds ({n})")


# ---- order statistics ----

#: NumPy's quantile methods that adcore has (see ``quantile``)
METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """The ``q``-th quantiles of ``a`` along ``axis`` (NumPy's ``quantile``).

    Parameters
    ----------
    a : array
        Real entries (integer arrays are taken as float64).
    q : float, sequence of floats, or array
        Probabilities in ``[0, 1]``. A Python value is checked and made an
        array on ``a``'s device; an array must be of ``a``'s backend and device
        (it is not checked, which would force its value). ``q`` may be traced:
        with ``method="linear"`` the result is differentiable in ``q`` too.
    axis : int, sequence of ints or None, optional
        The axes to reduce (all by default).
    out : None
        Not supported (adcore arrays are immutable).
    overwrite_input : bool, optional
        Accepted and ignored (``a`` is never modified).
    method : {"linear", "lower", "higher", "nearest", "midpoint"}, optional
        NumPy's methods of the same names. With ``position = q * (n - 1)``:
        ``linear`` interpolates between the order statistics around it,
        ``lower``/``higher``/``nearest`` take the one below, above or nearest
        (ties to even), ``midpoint`` averages the two around it.
    keepdims : bool, optional

    Returns
    -------
    array
        ``q.shape + a.shape`` without the reduced axes (with size 1 there if
        ``keepdims``), in ``a``'s dtype (float32 stays float32). A slice that
        contains a NaN gives NaN.

    Raises
    ------
    ValueError
        If a Python ``q`` is outside ``[0, 1]``, ``method`` is unknown, or a
        reduced slice is empty.
    numpy.exceptions.AxisError
        If an axis is out of bounds.

    Notes
    -----
    ``x_lo + t * (x_hi - x_lo)`` of two entries of ``sort(a)`` taken with
    ``take_along_axis``, where ``x_lo``/``x_hi`` are the order statistics at
    ``floor(position)`` and the next one and ``t`` the fraction (NumPy's
    ``_lerp``, which is exact at ``t = 1``). The derivative in ``a`` is
    therefore ``1 - t`` at the lower order statistic, ``t`` at the upper one and
    0 elsewhere: for the median of an odd number of entries, one-hot. The
    position is computed in ``a``'s dtype, so for float32 a discrete method may
    pick a neighbouring entry where ``q * (n - 1)`` is within rounding of an
    integer.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> np.quantile(np.array([1.0, 2.0, 3.0, 4.0]), [0.25, 0.5])
    array([1.75, 2.5 ])
    """
    _check_method(method, "quantile")
    return _quantile(a, q, axis, out, method, keepdims, 1.0, False, "quantile")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """The ``q``-th percentiles of ``a``: ``quantile(a, q / 100, ...)``, with ``q`` in ``[0, 100]``.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> np.percentile(np.array([1.0, 2.0, 3.0]), 50)
    array(2.)
    """
    _check_method(method, "percentile")
    return _quantile(a, q, axis, out, method, keepdims, 100.0, False, "percentile")


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median of ``a`` along ``axis`` (NumPy's ``median``; ``quantile(a, 0.5, axis)`` up to rounding).

    The mean of the two middle entries of each sorted slice, which are one
    entry for an odd length: the derivative is then one-hot, else 1/2 on each
    (exactly). A slice with a NaN gives NaN. Parameters, returns and errors
    as ``quantile``'s.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> grad(np.median)(np.array([3.0, 1.0, 2.0]))
    array([0., 0., 1.])
    """
    return _quantile(a, 0.5, axis, out, "median", keepdims, 1.0, False, "median")


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """``quantile`` of the entries of ``a`` that are not NaN; NaN for a slice of NaNs only.

    NaN entries get a zero derivative.
    """
    _check_method(method, "nanquantile")
    return _quantile(a, q, axis, out, method, keepdims, 1.0, True, "nanquantile")


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """``percentile`` of the entries of ``a`` that are not NaN."""
    _check_method(method, "nanpercentile")
    return _quantile(a, q, axis, out, method, keepdims, 100.0, True, "nanpercentile")


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``median`` of the entries of ``a`` that are not NaN; NaN for a slice of NaNs only.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> np.nanmedian(np.array([3.0, np.nan, 1.0]))
    array(2.)
    """
    return _quantile(a, 0.5, axis, out, "median", keepdims, 1.0, True, "nanmedian")


def _quantile(a, q, axis, out, method, keepdims, scale, skip_nan, name):
    """The quantiles of ``a`` over ``axis``: the reduced axes are moved last and merged, each slice
    sorted, and the order statistics around each position gathered and combined by ``method``
    (one of ``METHODS``, or ``"median"``: the mean of the two around the position, as NumPy's
    ``median`` computes it)."""
    if out is not None:
        raise TypeError(f"{name}: out= is not supported (adcore arrays are immutable); use the returned array")
    a = anp.asarray(a)
    if not backend_of(getval(a)).isdtype(getval(a).dtype, "real floating"):
        a = anp.astype(a, anp.float64)
    x, kept_shape, keepdims_shape = _reduced_axes_last(a, axis, name)
    n = anp.shape(x)[-1]
    if n == 0:
        raise ValueError(f"{name}: cannot take a quantile of an empty slice (shape {anp.shape(a)}, axis {axis})")
    q = _probabilities(q, x, scale, name)
    q_shape = anp.shape(q)
    q = anp.reshape(q, (1,) * len(kept_shape) + (-1,))
    if skip_nan:
        missing = anp.isnan(x)
        count = _count_valid(missing)
        x = anp.where(missing, anp.inf, x)
        result_is_nan = count == 0
    else:
        count = n
        result_is_nan = _any_nan(x)
    result = _order_statistic(sort(x, axis=-1), q, count, method)
    result = anp.moveaxis(anp.where(result_is_nan, anp.nan, result), -1, 0)
    return anp.reshape(result, q_shape + (keepdims_shape if keepdims else kept_shape))


def _check_method(method, name):
    if method not in METHODS:
        raise ValueError(f"{name}: method {method!r} is not supported; adcore has {', '.join(METHODS)}")


def _reduced_axes_last(a, axis, name):
    """``(x, kept_shape, keepdims_shape)``: ``a`` with the axes ``axis`` moved last (in their order)
    and merged into one, the shape of the other axes, and ``a``'s shape with 1 on the reduced axes."""
    a_shape = anp.shape(a)
    ndim = len(a_shape)
    if axis is None:
        axes = list(range(ndim))
    else:
        axes = sorted(anp._normalize_axis(ax, ndim, name) for ax in _as_sequence(axis))
        if len(set(axes)) != len(axes):
            raise ValueError(f"{name}: repeated axis in {axis}")
    kept = [d for d in range(ndim) if d not in axes]
    if kept + axes != list(range(ndim)):
        a = anp.transpose(a, kept + axes)
    kept_shape = tuple(a_shape[d] for d in kept)
    merged = kept_shape + (_size(tuple(a_shape[d] for d in axes)),)
    if anp.shape(a) != merged:
        a = anp.reshape(a, merged)
    return a, kept_shape, tuple(1 if d in axes else n for d, n in enumerate(a_shape))


def _probabilities(q, x, scale, name):
    """``q / scale`` as an array on ``x``'s backend and device, in ``x``'s dtype.

    A Python (or NumPy scalar) ``q`` is checked to lie in ``[0, scale]`` on the host first.
    """
    x_value = getval(x)
    backend = backend_of(x_value)
    if array_backend(getval(q)) is None:
        q = _np.asarray(q, dtype=_np.float64)
        if not _np.all((q >= 0) & (q <= scale)):
            bounds = "[0, 1]" if scale == 1.0 else f"[0, {scale:g}]"
            raise ValueError(f"{name}: q must be in the range {bounds}, got {q.tolist()}")
        return backend.from_numpy(q / scale, dtype=x_value.dtype, device=backend.device(x_value))
    backend_of(x_value, getval(q), op=name)  # an array q must be on x's backend and device
    if scale != 1.0:
        q = anp.divide(q, scale)
    return q if getval(q).dtype == x_value.dtype else anp.astype(q, x_value.dtype)


def _order_statistic(x, q, count, method):
    """The ``q``-th quantile of each slice of the sorted ``x`` (along its last axis), by ``method``.

    ``count`` is the number of entries per slice that count (an int, or for
    the ``nan`` functions an integer array of shape ``(..., 1)``), so the
    quantile lies at ``position = q * (count - 1)``. Indices are computed
    without tracing; the weight ``t`` depends on ``q``, so a traced ``q`` is
    differentiated through it.
    """
    last = count - 1 if isinstance(count, int) else _as_float(count - 1, q)
    position = anp.multiply(q, last)
    if method in ("lower", "higher", "nearest"):
        index = {"lower": anp.floor, "higher": anp.ceil, "nearest": anp.round}[method](position)
        return take_along_axis(x, _as_index(index), -1)
    below = anp.floor(position)
    lower = take_along_axis(x, _as_index(below), -1)
    if method == "median":
        return anp.multiply(anp.add(lower, take_along_axis(x, _as_index(anp.ceil(position)), -1)), 0.5)
    upper = take_along_axis(x, _as_index(anp.minimum(below + 1.0, last)), -1)
    if method == "midpoint":
        t = anp.where(below == getval(position), anp.zeros_like(below), anp.full_like(below, 0.5))
    else:
        t = anp.subtract(position, below)
    return _lerp(lower, upper, t)


def _lerp(lower, upper, t):
    """``lower + t * (upper - lower)``, as ``upper - (1 - t) * (upper - lower)`` for ``t >= 1/2``
    (NumPy's ``_lerp``: exact at both ends)."""
    difference = anp.subtract(upper, lower)
    from_lower = anp.add(lower, anp.multiply(difference, t))
    from_upper = anp.subtract(upper, anp.multiply(difference, anp.subtract(1.0, t)))
    return anp.where(t >= 0.5, from_upper, from_lower)


@notrace_primitive
def _as_index(x):
    """The integer array of the whole numbers in the float array ``x``."""
    backend = backend_of(x, op="quantile")
    return backend.astype(x, backend.dtype("int64"))


@notrace_primitive
def _as_float(x, like):
    backend = backend_of(x, op="quantile")
    return backend.astype(x, like.dtype)


@notrace_primitive
def _count_valid(missing):
    """The number of False entries along the last axis of the boolean ``missing``, kept as an axis."""
    backend = backend_of(missing, op="nanquantile")
    return backend.sum(backend.astype(backend.logical_not(missing), backend.dtype("int64")), axis=-1, keepdims=True)


@notrace_primitive
def _any_nan(x):
    """Whether each slice along the last axis of ``x`` holds a NaN, kept as an axis."""
    backend = backend_of(x, op="quantile")
    return backend.any(backend.isnan(x), axis=-1, keepdims=True)


# ---- shapes and axes ----


def _shape(x):
    """The shape of an array, or of (nested) lists of Python numbers."""
    return tuple(x.shape) if hasattr(x, "shape") else _np.shape(x)


def _size(shape):
    size = 1
    for n in shape:
        size *= n
    return size


def _as_sequence(value):
    """``value`` if it is a list or tuple, else ``(value,)`` (an int, a NumPy integer)."""
    return value if isinstance(value, (list, tuple)) else (value,)


__all__ = [
    "argpartition",
    "argsort",
    "median",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "partition",
    "percentile",
    "quantile",
    "searchsorted",
    "sort",
    "take",
    "take_along_axis",
]
