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
from . import dtypes, elementwise, indexing, shapes
from .declare import metadata, unbroadcast

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
    axis = shapes._normalize_axis(axis, len(a_shape), "take")
    taken = backend.take(a, backend.reshape(indices, (-1,)), axis=axis)
    return backend.reshape(taken, a_shape[:axis] + tuple(indices.shape) + a_shape[axis + 1 :])


@shapes.array_like("a")
def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times along ``axis`` (of the flattened array when None).

    ``repeats`` is one count, or one per element along ``axis`` (a list or an integer array, read on the host).
    Derivative: with one count, a broadcast and a reshape (linear); with counts per element, one ``take`` of the
    indices NumPy's ``repeat`` gives, whose VJP adds the cotangent back at them.

    Raises
    ------
    ValueError
        As NumPy's ``repeat``: a negative count, or counts that do not broadcast along ``axis``.
    """
    if axis is None or shapes.ndim(a) == 0:  # NumPy repeats a 0-d array along axis 0 or -1 as a 1-d one
        axis = 0 if axis is None else shapes._normalize_axis(axis, 1)
        a = shapes.ravel(a)
    axis = shapes._normalize_axis(axis, shapes.ndim(a))
    if hasattr(repeats, "shape"):  # an array of counts (NumPy's integer scalars too): read on the host, as NumPy sizes its result
        repeats = backend_of(repeats, op="repeat").to_numpy(repeats).tolist()
    if not isinstance(repeats, int):  # counts per element: one gather of the indices NumPy's repeat gives (its errors too)
        return take(a, _np.repeat(_np.arange(shapes.shape(a)[axis]), repeats).tolist(), axis)
    a_shape = shapes.shape(a)
    expanded = shapes.broadcast_to(shapes.expand_dims(a, axis + 1), a_shape[: axis + 1] + (repeats,) + a_shape[axis + 1 :])
    return shapes._own_array(shapes.reshape(expanded, a_shape[:axis] + (a_shape[axis] * repeats,) + a_shape[axis + 1 :]))


@primitive
def untake_axis(g, indices, axis, a_shape):
    """The adjoint of ``take(a, indices, axis)``: zeros of ``a_shape`` with ``g`` added at ``indices``
    along ``axis`` (repeated indices accumulate)."""
    backend = backend_of(g, indices, op="take")
    indices = _index_array(backend, indices, g, "take")
    leading, n, trailing = _around_axis(a_shape, axis, "take")
    positions = _flat_positions(backend, backend.reshape(indices, (1, -1, 1)), leading, n, trailing, backend.device(g))
    return _scatter_flat(backend, g, positions, a_shape)


defvjp(take, lambda ans, a, indices, axis=None: lambda g: untake_axis(g, indices, axis, shapes.shape(a)), None)
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
    shapes._normalize_axis(axis, len(_shape(arr)), "take_along_axis")
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
    axis = shapes._normalize_axis(axis, len(shape), name)
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
    shapes._normalize_axis(axis, len(_shape(a)), "sort")
    return backend.sort(a, axis=axis, stable=True)


def grad_sort(ans, a, axis=-1, kind=None, order=None, stable=None):
    permutation = argsort(a, axis)
    a_shape = shapes.shape(a)
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
    shapes._normalize_axis(axis, len(_shape(a)), "argsort")
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
    a_shape = shapes.shape(a)
    n = _size(a_shape) if axis is None else a_shape[shapes._normalize_axis(axis, len(a_shape), name)]
    for k in _as_sequence(kth):
        if not -n <= int(k) < n:
            raise ValueError(f"{name}: kth(={k}) out of bounds ({n})")


# ---- order statistics ----

#: NumPy's quantile methods, in the order of NumPy's documentation (the first nine are Hyndman
#: and Fan's definitions 1 to 9), all of which adcore has (see ``quantile``)
METHODS = (
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "linear",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
)

#: Hyndman and Fan's ``(alpha, beta)`` of the continuous methods other than ``linear``: the
#: position is ``n * q + (alpha + q * (1 - alpha - beta)) - 1`` (NumPy's ``_compute_virtual_index``)
_ALPHA_BETA = {
    "interpolated_inverted_cdf": (0.0, 1.0),
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
}


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """The ``q``-th quantiles of ``a`` along ``axis`` (NumPy's ``quantile``).

    Parameters
    ----------
    a : array
        Real entries (integer arrays are taken as float64).
    q : float, sequence of floats, or array
        Probabilities in ``[0, 1]``. A Python value is checked and made an
        array on ``a``'s device; an array must be of ``a``'s backend and device
        (it is not checked, which would force its value). ``q`` may be traced:
        the continuous methods are differentiable in ``q`` too.
    axis : int, sequence of ints or None, optional
        The axes to reduce (all by default).
    out : None
        Not supported (adcore arrays are immutable).
    overwrite_input : bool, optional
        Accepted and ignored (``a`` is never modified).
    method : str, optional
        One of NumPy's thirteen methods (``METHODS``), with NumPy's values. With
        ``n`` the length of a slice and ``x`` the slice sorted (0-based):

        - continuous: ``linear`` (the default; position ``q * (n - 1)``) and
          Hyndman and Fan's ``interpolated_inverted_cdf``, ``hazen``,
          ``weibull``, ``median_unbiased``, ``normal_unbiased`` (position
          ``n * q + alpha + q * (1 - alpha - beta) - 1``) interpolate linearly
          between the order statistics around the position, which is clipped
          to ``[0, n - 1]``;
        - ``midpoint`` averages the two around ``q * (n - 1)``, and
          ``averaged_inverted_cdf`` the two around ``n * q - 1`` when it is a
          whole number (else it takes the one above);
        - discrete: ``lower``, ``higher``, ``nearest`` (ties to even) take an
          order statistic next to ``q * (n - 1)``; ``inverted_cdf`` takes
          ``x[ceil(n * q) - 1]`` and ``closest_observation`` the order
          statistic nearest ``n * q - 1/2`` (ties to the even one, 1-based).
    keepdims : bool, optional
    weights : array_like, optional
        Non-negative weights of the entries of ``a``, with ``method="inverted_cdf"``
        only (NumPy's rule): of ``a``'s shape, or, when ``axis`` is given, of the
        shape of the reduced axes (in the order ``axis`` names them). The result
        is the smallest entry whose share of the total weight, counted from the
        smallest entry up, reaches ``q``. The weights are not differentiated (the
        result is piecewise constant in them). Weights given as Python values or
        a NumPy array are checked; an array of another backend is not (that would
        force its value): a slice whose weights are negative, not finite or all
        zero then gives NaN. So does, in ``nanquantile``, a slice whose entries
        that are not NaN all have weight 0 (NumPy raises ``ValueError``).

    Returns
    -------
    array
        ``q.shape + a.shape`` without the reduced axes (with size 1 there if
        ``keepdims``), in ``a``'s dtype (float32 stays float32). A slice that
        contains a NaN gives NaN.

    Raises
    ------
    ValueError
        If a Python ``q`` is outside ``[0, 1]``, ``method`` is unknown, a
        reduced slice is empty, ``weights`` are given with another method than
        ``"inverted_cdf"``, do not fit ``a`` and ``axis``, or (host weights) are
        negative, not finite or all zero.
    TypeError
        If ``weights`` differ from ``a`` in shape and ``axis`` is None.
    numpy.exceptions.AxisError
        If an axis is out of bounds.

    Notes
    -----
    Every method is ``x_lo + t * (x_hi - x_lo)`` of two entries of ``sort(a)``
    taken with ``take_along_axis`` (NumPy's ``_lerp``, exact at ``t = 1``),
    where ``x_lo``/``x_hi`` are the order statistics around the position and
    ``t`` is the fraction of the position (the continuous methods), 1/2 or 0
    (``midpoint``, ``averaged_inverted_cdf``), or the two are one entry (the
    discrete methods). The result is therefore piecewise linear in ``a``: its
    derivative is ``1 - t`` at the lower order statistic, ``t`` at the upper
    one and 0 elsewhere (one-hot for a discrete method, and where the position
    is clipped to an end). Its derivative in ``q`` is ``(x_hi - x_lo) * dt/dq``:
    0 for the discrete methods, ``midpoint`` and ``averaged_inverted_cdf``,
    whose ``t`` does not move with ``q`` between jumps. The position is
    computed in ``a``'s dtype, so for float32 a discrete method may pick a
    neighbouring entry where the position is within rounding of a whole number
    (NumPy computes it in float64).

    Examples
    --------
    >>> import adcore.numpy as np
    >>> np.quantile(np.array([1.0, 2.0, 3.0, 4.0]), [0.25, 0.5])
    array([1.75, 2.5 ])
    >>> np.quantile(np.array([1.0, 2.0, 3.0, 4.0]), 0.5, method="inverted_cdf", weights=[1, 1, 1, 5])
    array(4.)
    """
    _check_method(method, weights, "quantile")
    return _quantile(a, q, axis, out, method, keepdims, weights, 1.0, False, "quantile")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """The ``q``-th percentiles of ``a``: ``quantile(a, q / 100, ...)``, with ``q`` in ``[0, 100]``.

    Every method, ``weights`` and the derivatives as ``quantile``'s.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> np.percentile(np.array([1.0, 2.0, 3.0]), 50)
    array(2.)
    """
    _check_method(method, weights, "percentile")
    return _quantile(a, q, axis, out, method, keepdims, weights, 100.0, False, "percentile")


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
    return _quantile(a, 0.5, axis, out, "median", keepdims, None, 1.0, False, "median")


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """``quantile`` of the entries of ``a`` that are not NaN; NaN for a slice of NaNs only.

    Every method and ``weights`` as ``quantile``'s (NumPy drops the NaN
    entries and their weights). NaN entries get a zero derivative.
    """
    _check_method(method, weights, "nanquantile")
    return _quantile(a, q, axis, out, method, keepdims, weights, 1.0, True, "nanquantile")


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """``percentile`` of the entries of ``a`` that are not NaN."""
    _check_method(method, weights, "nanpercentile")
    return _quantile(a, q, axis, out, method, keepdims, weights, 100.0, True, "nanpercentile")


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``median`` of the entries of ``a`` that are not NaN; NaN for a slice of NaNs only.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> np.nanmedian(np.array([3.0, np.nan, 1.0]))
    array(2.)
    """
    return _quantile(a, 0.5, axis, out, "median", keepdims, None, 1.0, True, "nanmedian")


def _quantile(a, q, axis, out, method, keepdims, weights, scale, skip_nan, name):
    """The quantiles of ``a`` over ``axis``: the reduced axes are moved last and merged, each slice
    sorted, and the order statistics around each position gathered and combined by ``method``
    (one of ``METHODS``, or ``"median"``: the mean of the two around the position, as NumPy's
    ``median`` computes it)."""
    if out is not None:
        raise TypeError(f"{name}: out= is not supported (adcore arrays are immutable); use the returned array")
    a = shapes.asarray(a)
    if not backend_of(getval(a)).isdtype(getval(a).dtype, "real floating"):
        a = dtypes.astype(a, dtypes.float64)
    x, kept_shape, keepdims_shape = _reduced_axes_last(a, axis, name)
    if weights is not None:
        weights = _weights(weights, getval(a), axis, skip_nan, name)
    n = shapes.shape(x)[-1]
    if n == 0:
        raise ValueError(f"{name}: cannot take a quantile of an empty slice (shape {shapes.shape(a)}, axis {axis})")
    q = _probabilities(q, x, scale, name)
    q_shape = shapes.shape(q)
    q = shapes.reshape(q, (1,) * len(kept_shape) + (-1,))
    if skip_nan:
        missing = elementwise.isnan(x)
        count = _count_valid(missing)
        result_is_nan = count == 0
        # NaNs sort last as +inf; a slice of NaNs only becomes zeros (its result is NaN anyway),
        # which keeps inf - inf out of the interpolation
        x = indexing.where(missing, indexing.where(result_is_nan, dtypes.zeros_like(getval(x)), dtypes.inf), x)
    else:
        count = n
        result_is_nan = _any_nan(x)
    if weights is None:
        result = _order_statistic(sort(x, axis=-1), q, count, method)
    else:
        weights = _reduced_axes_last(weights, axis, name)[0]
        if skip_nan:
            weights = indexing.where(getval(missing), dtypes.zeros_like(weights), weights)
        result = take_along_axis(sort(x, axis=-1), _weighted_inverted_cdf(x, weights, q), -1)
        result_is_nan = elementwise.logical_or(result_is_nan, _invalid_weights(weights))
    result = shapes.moveaxis(indexing.where(result_is_nan, dtypes.nan, result), -1, 0)
    return shapes.reshape(result, q_shape + (keepdims_shape if keepdims else kept_shape))


def _check_method(method, weights, name):
    if method not in METHODS:
        raise ValueError(f"{name}: method {method!r} is not one of NumPy's quantile methods: {', '.join(METHODS)}")
    if weights is not None and method != "inverted_cdf":
        raise ValueError(f"{name}: only method 'inverted_cdf' supports weights (as in NumPy), got method {method!r}")


def _weights(weights, a, axis, skip_nan, name):
    """The weights as an array of ``a``'s shape, backend and device (NumPy's ``_weights_are_valid``).

    Weights given as Python values or a NumPy array are checked on the host, as NumPy does (for
    the nan functions, whose slices' weights depend on where ``a``'s NaNs are, only their sign);
    an array of another backend is not (that would force its value): ``_invalid_weights``
    makes the slices of invalid weights NaN instead. The array is made by :func:`_weights_like`,
    so that ``adcore.jit`` records it when the weights are traced.
    """
    raw = getval(weights)
    on_host = array_backend(raw) is None or isinstance(raw, _np.ndarray)
    if on_host:
        raw = _np.asarray(raw)
        if raw.dtype.kind not in "biuf":
            raise TypeError(f"{name}: weights must be real numbers, got dtype {raw.dtype}")
    else:
        backend_of(a, raw, op=name)  # weights must be on a's backend and device
    a_shape, w_shape = tuple(a.shape), tuple(raw.shape)
    axes = tuple(range(len(a_shape)))
    order = along = None
    if w_shape != a_shape:
        if axis is None:
            raise TypeError(f"{name}: axis must be given when the shapes of a {a_shape} and weights {w_shape} differ")
        axes = tuple(shapes._normalize_axis(ax, len(a_shape), name) for ax in _as_sequence(axis))
        if w_shape != tuple(a_shape[ax] for ax in axes):
            raise ValueError(
                f"{name}: weights of shape {w_shape} do not fit a of shape {a_shape} along axis {axis}: "
                f"expected {tuple(a_shape[ax] for ax in axes)} or {a_shape}"
            )
        order = tuple(sorted(range(len(axes)), key=axes.__getitem__))
        along = tuple(a_shape[d] if d in axes else 1 for d in range(len(a_shape)))
    elif axis is not None:
        axes = tuple(shapes._normalize_axis(ax, len(a_shape), name) for ax in _as_sequence(axis))
    if on_host:
        host = _np.asarray(raw, dtype=_np.float64)
        if _np.any(host < 0):
            raise ValueError(f"{name}: weights must be non-negative")
        if order is not None:
            host = _np.reshape(_np.transpose(host, order), along)
        total = _np.sum(_np.broadcast_to(host, a_shape), axis=axes)
        if not skip_nan and not _np.all(_np.isfinite(total) & (total > 0)):
            raise ValueError(f"{name}: the weights of a slice are not finite or all zero")
    return _weights_like(weights, a, order, along)


@notrace_primitive
def _weights_like(weights, a, order, along):
    """``weights`` on ``a``'s backend and device (as float64 if given on the host), its axes put in
    ``order`` and reshaped to ``along`` (unless ``order`` is None), broadcast to ``a``'s shape."""
    backend = backend_of(a)
    if array_backend(weights) is None or isinstance(weights, _np.ndarray):
        weights = backend.from_numpy(_np.asarray(weights, dtype=_np.float64), device=backend.device(a))
    if order is not None:
        weights = backend.reshape(backend.permute_dims(weights, order), along)
    return backend.broadcast_to(weights, tuple(a.shape))


@notrace_primitive
def _weighted_inverted_cdf(x, weights, q):
    """The positions of method ``inverted_cdf`` with weights in each slice of ``sort(x)`` (NumPy's
    weighted ``_quantile``).

    ``x`` (not sorted) and ``weights`` are arrays of shape ``(..., n)``, ``q`` of shape
    ``(1, ..., k)``; the result (shape ``(..., k)``) is, in each slice, the first position where the
    normalised cumulative weight reaches ``q`` (cumulative weights of 0 never do), clipped to the
    slice. A non-differentiable primitive, so that ``adcore.jit`` records it and a replay selects
    by the new values (the positions depend on them); ``_invalid_weights`` tells the slices whose
    positions mean nothing.
    """
    backend = backend_of(x, op="quantile")
    float64 = backend.dtype("float64")
    order = backend.argsort(x, axis=-1, stable=True)
    cdf = backend.cumulative_sum(backend.astype(backend.take_along_axis(weights, order, axis=-1), float64), axis=-1)
    total = cdf[..., -1:]
    usable = backend.logical_and(backend.isfinite(total), total > 0)
    cdf = backend.astype(cdf / backend.where(usable, total, backend.ones_like(total)), q.dtype)  # in q's dtype, as NumPy
    cdf = backend.where(cdf == 0, backend.asarray(-1.0, dtype=q.dtype, device=backend.device(cdf)), cdf)
    below = backend.expand_dims(cdf, axis=-2) < backend.expand_dims(q, axis=-1)
    index = backend.sum(backend.astype(below, backend.dtype("int64")), axis=-1)
    return backend.minimum(index, x.shape[-1] - 1)


@notrace_primitive
def _invalid_weights(weights):
    """Whether the weights of each slice along the last axis are negative, not finite or all zero
    (shape ``(..., 1)``): its weighted quantiles are NaN."""
    backend = backend_of(weights, op="quantile")
    total = backend.sum(backend.astype(weights, backend.dtype("float64")), axis=-1, keepdims=True)
    return backend.logical_or(
        backend.any(weights < 0, axis=-1, keepdims=True),
        backend.logical_not(backend.logical_and(backend.isfinite(total), total > 0)),
    )


def _reduced_axes_last(a, axis, name):
    """``(x, kept_shape, keepdims_shape)``: ``a`` with the axes ``axis`` moved last (in their order)
    and merged into one, the shape of the other axes, and ``a``'s shape with 1 on the reduced axes."""
    a_shape = shapes.shape(a)
    ndim = len(a_shape)
    if axis is None:
        axes = list(range(ndim))
    else:
        axes = sorted(shapes._normalize_axis(ax, ndim, name) for ax in _as_sequence(axis))
        if len(set(axes)) != len(axes):
            raise ValueError(f"{name}: repeated axis in {axis}")
    kept = [d for d in range(ndim) if d not in axes]
    if kept + axes != list(range(ndim)):
        a = shapes.transpose(a, kept + axes)
    kept_shape = tuple(a_shape[d] for d in kept)
    merged = kept_shape + (_size(tuple(a_shape[d] for d in axes)),)
    if shapes.shape(a) != merged:
        a = shapes.reshape(a, merged)
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
        q = elementwise.divide(q, scale)
    return q if getval(q).dtype == x_value.dtype else dtypes.astype(q, x_value.dtype)


def _order_statistic(x, q, count, method):
    """The ``q``-th quantile of each slice of the sorted ``x`` (along its last axis), by ``method``.

    ``count`` is the number of entries per slice that count (an int, or for the ``nan``
    functions an integer array of shape ``(..., 1)``). The position is computed as NumPy's
    ``_QuantileMethods`` compute it (the same operations in the same order), the indices around
    it without tracing; the weight ``t`` depends on ``q``, so a traced ``q`` is differentiated
    through it.
    """
    n = count if isinstance(count, int) else _as_float(count, q)
    last = count - 1 if isinstance(count, int) else _as_float(count - 1, q)
    if method in ("linear", "lower", "higher", "nearest", "midpoint", "median"):
        position = elementwise.multiply(q, last)
    elif method in _ALPHA_BETA:
        alpha, beta = _ALPHA_BETA[method]
        position = elementwise.subtract(
            elementwise.add(elementwise.multiply(q, n), elementwise.add(alpha, elementwise.multiply(q, 1 - alpha - beta))), 1.0
        )
    else:  # inverted_cdf, averaged_inverted_cdf, closest_observation
        position = elementwise.subtract(elementwise.multiply(q, n), 1.0)
        if method == "closest_observation":
            position = elementwise.subtract(position, 0.5)
    at = getval(position)
    below = elementwise.floor(at)
    whole = below == at
    if method in ("lower", "higher", "nearest", "inverted_cdf", "closest_observation"):
        if method == "inverted_cdf":
            index = indexing.where(whole, below, below + 1.0)
        elif method == "closest_observation":  # at a tie, the even order statistic (1-based)
            index = indexing.where(elementwise.logical_and(whole, elementwise.remainder(below, 2.0) == 1.0), below, below + 1.0)
        else:
            index = {"lower": elementwise.floor, "higher": elementwise.ceil, "nearest": elementwise.round}[method](at)
        return take_along_axis(x, _as_index(_clip(index, last)), -1)
    lower = take_along_axis(x, _as_index(_clip(below, last)), -1)
    if method == "median":
        return elementwise.multiply(
            elementwise.add(lower, take_along_axis(x, _as_index(_clip(elementwise.ceil(at), last)), -1)), 0.5
        )
    upper = take_along_axis(x, _as_index(_clip(below + 1.0, last)), -1)
    if method == "midpoint":
        t = indexing.where(whole, dtypes.zeros_like(at), dtypes.full_like(at, 0.5))
    elif method == "averaged_inverted_cdf":
        t = indexing.where(whole, dtypes.full_like(at, 0.5), dtypes.ones_like(at))
    else:
        t = elementwise.subtract(position, below)
    # where the position is clipped to an end both order statistics are that end: t = 0 makes
    # its derivative exactly 1 (and t's derivative in q 0)
    inside = elementwise.logical_and(elementwise.greater_equal(at, 0.0), elementwise.less(at, last))
    return _lerp(lower, upper, indexing.where(inside, t, dtypes.zeros_like(at)))


def _clip(index, last):
    """The float array of whole numbers ``index`` clipped to ``[0, last]`` (to 0 if ``last < 0``,
    a slice without entries)."""
    return elementwise.maximum(elementwise.minimum(index, last), 0.0)


def _lerp(lower, upper, t):
    """``lower + t * (upper - lower)``, as ``upper - (1 - t) * (upper - lower)`` for ``t >= 1/2``
    (NumPy's ``_lerp``: exact at both ends)."""
    difference = elementwise.subtract(upper, lower)
    from_lower = elementwise.add(lower, elementwise.multiply(difference, t))
    from_upper = elementwise.subtract(upper, elementwise.multiply(difference, elementwise.subtract(1.0, t)))
    return indexing.where(t >= 0.5, from_upper, from_lower)


@notrace_primitive
@notrace_primitive
def _as_index(x):
    """The integer array of the whole numbers in the float array ``x`` (recorded by ``adcore.jit``: the
    positions depend on the values)."""
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
    "repeat",
    "searchsorted",
    "sort",
    "take",
    "take_along_axis",
]
