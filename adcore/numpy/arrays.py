"""NumPy's array construction and rearrangement functions, differentiable as compositions of primitives.

Each function here selects, repeats, places or combines the elements of its
array arguments: it is written with adcore's primitives (``take``,
``concatenate``, ``where``, ``broadcast_to``, ``getitem``, ...), so both modes
and every order come from their rules, on every backend those primitives run
on. Where *which* elements are taken depends on the values (``unique``,
``trim_zeros``, the set operations, ``sort_complex``) or on a NumPy rule that is
easiest read off NumPy itself (``insert``, ``delete``), the positions are
computed on the values, not traced (their derivative is zero), and the
elements are then gathered with ``take``: the derivative flows to the elements
taken, repeated positions accumulating. Those value-dependent functions need
the library's NumPy-named function (``Backend.numpy_function``: NumPy, CuPy,
JAX, Dask) and raise ``NotImplementedError`` naming the backend elsewhere;
their results have value-dependent sizes, which Dask arrays do not know.

Functions of several results return plain tuples (NumPy's ``unique_all`` and
friends return named tuples), as ``adcore.numpy.linalg`` does.
"""

import builtins
import math

import numpy as _np

from backends import backend_of

from ..builtins import SequenceBox
from ..core import getval, isbox
from . import creation, declare, dtypes, elementwise, indexing, products, reductions, shapes
from .passthrough import _check_order, host_values, indices
from .selection import median, take, take_along_axis

__all__ = [
    "apply_along_axis",
    "apply_over_axes",
    "array_from_args",
    "asanyarray",
    "asarray_chkfinite",
    "ascontiguousarray",
    "asfortranarray",
    "block",
    "broadcast_arrays",
    "c_",
    "c_class",
    "choose",
    "compress",
    "concat",
    "delete",
    "diagflat",
    "extract",
    "fromfunction",
    "insert",
    "intersect1d",
    "make_diagonal",
    "meshgrid",
    "pad",
    "permute_dims",
    "piecewise",
    "r_",
    "r_class",
    "require",
    "resize",
    "row_stack",
    "select",
    "setdiff1d",
    "setxor1d",
    "sort_complex",
    "trim_zeros",
    "union1d",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unstack",
]


# ---- helpers ----


def _from_host(values, a, dtype=None):
    """The NumPy data ``values`` as an array of ``a``'s backend (``a`` traced or not), on its device, in
    ``dtype`` (a dtype of that backend; NumPy's own by default)."""
    value = getval(a)
    backend = backend_of(value, op="constant")
    return backend.from_numpy(_np.asarray(values), dtype=dtype, device=backend.device(value))


def _index_like(index, a, dtype="int64"):
    """The NumPy integer array ``index`` as an integer array (int64 unless ``dtype``) of ``a``'s backend, on its device."""
    return _from_host(_np.asarray(index, dtype=dtype), a)


def _true_positions(condition, a):
    """The flat positions where ``condition`` (an array, a list or a bool) holds, as an integer array
    of ``a``'s backend and device (computed there when ``condition`` is an array)."""
    condition = getval(condition)
    if not hasattr(condition, "shape"):
        return _index_like(_np.flatnonzero(condition), a)
    backend = backend_of(condition, op="index")
    return backend.nonzero(backend.reshape(condition, (-1,)))[0]


class _Library:
    """The NumPy-named functions of the library of ``values`` (``Backend.numpy_function``), not differentiated:
    they read the positions that value-dependent selections take."""

    def __init__(self, name, *values):
        self.backend = backend_of(*(getval(v) for v in values), op=name)

    def __getattr__(self, name):
        return self.backend.numpy_function(name)


def _as_array_like(x, like):
    """``x`` as an array on the backend, device and dtype of ``like`` (a traced value or an array) if it is not one."""
    if type(x) is SequenceBox:  # a traced list: the traced array of its items
        return shapes.array(x)
    if isbox(x) or hasattr(x, "shape"):
        return x
    return shapes._as_arrays_like([like, x])[1]


def _arrays(*values):
    """``values`` as arrays: a traced number as a 0-d array, numbers and lists on the backend and device of
    the first array among ``values`` (traced or not), else on the default backend, in NumPy's dtype for them;
    a traced list as the traced array of its items."""
    values = [shapes.array(v) if type(v) is SequenceBox else v for v in values]
    values = [_zero_dim(v) if isbox(v) and not hasattr(getval(v), "shape") else v for v in values]
    like = next((v for v in values if isbox(v) or hasattr(v, "shape")), None)

    def made(v):
        if isbox(v) or hasattr(v, "shape"):
            return v
        return shapes.array(v) if like is None else _from_host(_np.asarray(v), like)

    return made(values[0]) if len(values) == 1 else [made(v) for v in values]


def _zero_dim(number):
    """A traced number as a 0-d array of the default backend: times a 0-d one (exact, differentiable)."""
    backend = backend_of(getval(number), op="array")
    return elementwise.multiply(number, backend.ones((), dtype=backend.dtype(type(getval(number)))))


def _no_out(out, name):
    if out is not None:
        raise NotImplementedError(f"{name}: out= is not supported (adcore's arrays are not written into); use the result")


# ---- names of the Array API standard and of NumPy 2 for existing functions ----


def concat(arrays, /, *, axis=0):
    """The standard's ``concat``: ``concatenate(arrays, axis)``; ``axis=None`` joins the flattened arrays."""
    if axis is None:
        return shapes.concatenate([shapes.ravel(a) for a in arrays], axis=0)
    return shapes.concatenate(arrays, axis=axis)


def permute_dims(a, /, axes):
    """The standard's ``permute_dims``: ``transpose(a, axes)``."""
    return shapes.transpose(a, axes)


row_stack = shapes.vstack


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple (NumPy 2.1's ``unstack``)."""
    moved = shapes.moveaxis(x, axis, 0)
    return tuple(moved[i, ...] for i in range(shapes.shape(moved)[0]))


def asanyarray(a, dtype=None, order=None, *, like=None):
    """``asarray(a, dtype)``: adcore has no array subclasses to keep."""
    _check_order(order, "asanyarray")
    return shapes.asarray(a, dtype)


def ascontiguousarray(a, dtype=None, *, like=None):
    """``asarray(a, dtype)`` with at least one dimension: adcore's arrays are contiguous (C order)."""
    return shapes.atleast_1d(shapes.asarray(a, dtype))


def asfortranarray(a, dtype=None, *, like=None):
    """Refused for 2 or more dimensions: adcore's arrays are in C order; ``asarray`` otherwise."""
    if shapes.ndim(a) >= 2:
        raise NotImplementedError("asfortranarray: adcore's arrays are in C order (no Fortran layout)")
    return shapes.atleast_1d(shapes.asarray(a, dtype))


def asarray_chkfinite(a, dtype=None, order=None):
    """``asarray(a, dtype)``, raising ``ValueError`` if it holds an infinity or NaN."""
    _check_order(order, "asarray_chkfinite")
    result = shapes.asarray(a, dtype)
    if not _np.all(host_values(elementwise.isfinite(result))):
        raise ValueError("array must not contain infs or NaNs")
    return result


def require(a, dtype=None, requirements=None, *, like=None):
    """``asarray(a, dtype)``; the layout requirements C, ALIGNED, WRITEABLE, OWNDATA, ENSUREARRAY hold for
    adcore's arrays (a traced one is its own copy), F (Fortran order) is refused."""
    wanted = {str(r).upper()[:1] for r in ([requirements] if isinstance(requirements, str) else requirements or [])}
    if "F" in wanted:
        raise NotImplementedError("require: adcore's arrays are in C order (no Fortran layout)")
    return shapes.asarray(a, dtype)


def array_from_args(array_args, array_kwargs, *args):
    """``array(args, *array_args, **array_kwargs)`` with the items as separate arguments (autograd's helper)."""
    return shapes.array(list(args), *array_args, **array_kwargs)


# ---- construction ----


def block(arrays):
    """An array assembled from nested lists of blocks (NumPy's ``block``): the innermost lists are
    joined along the last axis, the next ones along the second-to-last, and so on."""
    depth = _list_depth(arrays)
    leaves = _leaves(arrays, depth)
    ndim = builtins.max(depth, *(shapes.ndim(leaf) for leaf in leaves)) if leaves else depth

    def assemble(item, level):
        if level == depth:
            item = _as_array_like(item, leaves[0])
            return shapes.reshape(item, (1,) * (ndim - shapes.ndim(item)) + shapes.shape(item))
        return shapes.concatenate([assemble(part, level + 1) for part in item], axis=level - depth)

    return assemble(arrays, 0)


def _list_depth(item):
    if isinstance(item, tuple):
        raise TypeError("block: arrays is a tuple; only lists can be used to arrange blocks")
    if not isinstance(item, list):
        return 0
    if not item:
        raise ValueError("block: lists cannot be empty")
    depths = {_list_depth(part) for part in item}
    if len(depths) != 1:
        raise ValueError("block: list depths are mismatched; every block must be nested equally deep")
    return 1 + depths.pop()


def _leaves(item, depth):
    return [item] if depth == 0 else [leaf for part in item for leaf in _leaves(part, depth - 1)]


def broadcast_arrays(*args, subok=False):
    """The arrays broadcast to one shape, as a tuple."""
    shape = _np.broadcast_shapes(*(shapes.shape(a) for a in args))
    return tuple(shapes.broadcast_to(a, shape) for a in args)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-d coordinate vectors (NumPy's ``meshgrid``), as a tuple.

    ``indexing="xy"`` (Cartesian) swaps the first two output axes of ``"ij"`` (matrix) indexing;
    ``sparse`` returns arrays of size 1 along every axis but their own.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    n = len(xi)
    grid_shapes = [(1,) * i + (-1,) + (1,) * (n - i - 1) for i in range(n)]
    if indexing == "xy" and n > 1:
        grid_shapes[0], grid_shapes[1] = (1, -1) + grid_shapes[0][2:], (-1, 1) + grid_shapes[1][2:]
    grids = [shapes.reshape(x, s) for x, s in zip(xi, grid_shapes)]
    if sparse:
        return tuple(grids) if not copy else tuple(shapes.copy(grid) for grid in grids)
    grids = broadcast_arrays(*grids)
    return tuple(shapes._own_array(grid) for grid in grids) if copy else grids


def diagflat(v, k=0):
    """A 2-d array with the flattened ``v`` on its ``k``-th diagonal."""
    return indexing.diag(shapes.ravel(v), k)


def make_diagonal(D, offset=0, axis1=0, axis2=1):
    """Arrays with ``D``'s last axis on the ``offset`` diagonal of two new axes, placed at ``axis1``
    and ``axis2`` of the result (autograd's ``make_diagonal``, the adjoint of ``diagonal``)."""
    n = shapes.shape(D)[-1] + builtins.abs(offset)
    result = indexing.diagonal_untake(D, offset, shapes.shape(D)[:-1] + (n, n))
    nd = shapes.ndim(result)
    return shapes.moveaxis(result, (nd - 2, nd - 1), (axis1, axis2))


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function(*indices(shape, dtype), **kwargs)``: an array made from its index grids."""
    return function(*indices(shape, dtype=dtype), **kwargs)


class r_class:
    """``r_[...]``: slices (``start:stop:step``, or ``start:stop:nj`` for ``n`` points), scalars and arrays
    (traced ones included) joined along the first axis; a leading string ``"axis[,ndmin[,trans1d]]"``
    sets the axis, the minimum number of dimensions and where 1-d items' axis goes."""

    axis, ndmin, trans1d = 0, 1, -1

    def __getitem__(self, key):
        items = list(key) if isinstance(key, tuple) else [key]
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        if items and isinstance(items[0], str):
            axis, ndmin, trans1d = _directive(items.pop(0), axis, ndmin, trans1d)
        like = next((item for item in items if isbox(item) or hasattr(item, "shape")), None)
        return shapes.concatenate([_r_piece(item, ndmin, trans1d, like) for item in items], axis=axis)


class c_class(r_class):
    """``c_[...]``: ``r_`` with 1-d items as columns of 2-d ones, joined along the last axis."""

    axis, ndmin, trans1d = -1, 2, 0


r_ = r_class()
c_ = c_class()


def _directive(text, axis, ndmin, trans1d):
    if text in ("r", "c"):
        raise NotImplementedError(f"r_/c_: the matrix directive {text!r} is not supported (adcore has no matrix type)")
    numbers = [int(part) for part in text.split(",")]
    return tuple(numbers) + (axis, ndmin, trans1d)[len(numbers) :]


def _r_piece(item, ndmin, trans1d, like):
    """One item of ``r_`` as an array of at least ``ndmin`` dimensions, on ``like``'s backend and device
    (if there is an array among the items): a Python scalar in ``like``'s dtype (NumPy's rule for scalars)."""
    if isinstance(item, slice):
        start = 0 if item.start is None else item.start
        step = 1 if item.step is None else item.step
        count = int(abs(step)) if isinstance(step, complex) else None
        item = _np.linspace(start, item.stop, count) if count is not None else _np.arange(start, item.stop, step)
        if like is not None:  # a range's numbers take like's dtype, as Python numbers do (strict mixes no dtypes)
            item = _as_array_like(item.tolist(), like)
    if like is None and not (isbox(item) or hasattr(item, "shape")):
        item = shapes.array(item)
    elif like is not None and isinstance(item, (int, float, complex)):
        item = _as_array_like(item, like)
    elif like is not None and not (isbox(item) or backend_of(getval(item)) is backend_of(getval(like))):
        item = _from_host(_np.asarray(item), like)
    n = shapes.ndim(item)
    if n >= ndmin:
        return item
    item = shapes.reshape(item, (1,) * (ndmin - n) + shapes.shape(item))
    if trans1d == -1:
        return item
    added = ndmin - n  # the new axes are first; trans1d says where the item's own axes go instead
    first = trans1d if trans1d >= 0 else trans1d + added + 1
    axes = list(range(ndmin))
    return shapes.transpose(item, axes[:first] + axes[added:] + axes[first:added])


# ---- selection by a condition or an index ----


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for each position (broadcast together): NumPy's ``choose``; ``mode``
    ``"raise"`` (an index out of range raises ``ValueError``), ``"wrap"`` or ``"clip"``. ``choices``
    is a sequence of arrays, or an array whose rows (along axis 0) are the choices, on any backend."""
    _no_out(out, "choose")
    if hasattr(choices, "shape"):  # an array of choices: its rows (a strict Array has no len() and no iteration)
        if not shapes.ndim(choices):
            raise ValueError("choose: choices must be a sequence of arrays or an array of at least one dimension")
        choices = [choices[k, ...] for k in range(shapes.shape(choices)[0])]
    n = len(choices)
    a = getval(a)
    like = next((c for c in choices if isbox(c) or hasattr(c, "shape")), None)
    if not hasattr(a, "shape"):
        a = _np.asarray(a) if like is None else _index_like(a, like)
    backend = backend_of(a, op="choose")
    if mode == "wrap":
        a = a % n
    elif mode == "clip":
        a = backend.clip(a, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', not {mode!r}")
    elif backend.name != "dask" and host_values(backend.any((a < 0) | (a >= n))):
        raise ValueError("choose: invalid entry in choice array")
    result = choices[0]
    for k in range(1, n):
        result = indexing.where(a == k, choices[k], result)
    return shapes._own_array(
        shapes.broadcast_to(result, _np.broadcast_shapes(shapes.shape(a), *(shapes.shape(c) for c in choices)))
    )


def select(condlist, choicelist, default=0):
    """The entry of the first choice whose condition holds, else ``default`` (NumPy's ``select``)."""
    if len(condlist) != len(choicelist):
        raise ValueError("select: list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    result = default
    for condition, choice in reversed(list(zip(condlist, choicelist))):
        result = indexing.where(getval(condition), choice, result)
    shape = _np.broadcast_shapes(*(shapes.shape(x) for x in (*condlist, *choicelist, default)))
    return shapes._own_array(shapes.broadcast_to(result, shape))


def compress(condition, a, axis=None, out=None):
    """The slices of ``a`` along ``axis`` (of the flattened ``a`` when None) where ``condition`` holds."""
    _no_out(out, "compress")
    a = _arrays(a)
    return take(a, _true_positions(condition, a), axis=axis)


def extract(condition, arr):
    """The elements of the flattened ``arr`` where the flattened ``condition`` holds."""
    arr = _arrays(arr)
    return take(shapes.ravel(arr), _true_positions(condition, arr))


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i]`` evaluated on the elements of ``x`` where ``condlist[i]`` holds (NumPy's
    ``piecewise``; a later condition wins where several hold); one extra function (or value) is used
    where none holds, and elements that no function covers are 0. A function gets only its elements,
    as in NumPy, so it is never evaluated outside its piece."""
    x = x if isbox(x) or hasattr(x, "shape") else shapes.array(x)
    shape = shapes.shape(x)
    if _is_one_condition(condlist, x):
        condlist = [condlist]
    conditions = [_np.broadcast_to(_np.asarray(host_values(c)), shape) for c in condlist]
    if len(funclist) == len(conditions) + 1:
        conditions.append(~_np.any(conditions, axis=0) if conditions else _np.ones(shape, dtype=bool))
    elif len(funclist) != len(conditions):
        raise ValueError(f"piecewise: {len(conditions)} conditions need {len(conditions)} or {len(conditions) + 1} functions")
    result = dtypes.zeros_like(x)
    flat = shapes.ravel(x)
    for condition, fun in zip(conditions, funclist):
        positions = _index_like(_np.flatnonzero(condition), x)
        values = fun(take(flat, positions), *args, **kw) if callable(fun) else fun
        values = shapes.broadcast_to(_as_array_like(values, x), shapes.shape(positions))
        placed = shapes.reshape(indexing.untake(values, positions, (math.prod(shape),)), shape)
        result = indexing.where(_index_like(condition, x) != 0, placed, result)
    return result


def _is_one_condition(condlist, x):
    """NumPy's rule: a scalar, or a sequence whose first item is not a list or an array (for a non-0-d
    ``x``), is one condition rather than a list of them."""
    if isinstance(condlist, (bool, _np.bool_)) or shapes.ndim(condlist) == 0:
        return True
    first = condlist[0]
    return not (isinstance(first, list) or (hasattr(getval(first), "shape") and shapes.ndim(first) > 0)) and shapes.ndim(x) != 0


# ---- repetition, insertion, deletion ----


def resize(a, new_shape):
    """``a`` flattened, repeated as often as needed and reshaped to ``new_shape`` (NumPy's ``resize``)."""
    new_shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    total, size = math.prod(new_shape), shapes.size(a)
    if size == 0 or total == 0:
        return shapes.reshape(dtypes.zeros_like(shapes.ravel(a))[:0], (0,)) if total == 0 else creation.zeros(new_shape)
    return shapes.reshape(take(shapes.ravel(a), _index_like(_np.arange(total) % size, a)), new_shape)


def delete(arr, obj, axis=None):
    """``arr`` without the entries ``obj`` (an int, a slice, a sequence or a mask) along ``axis``
    (of the flattened ``arr`` when None)."""
    if axis is None:
        arr, axis = shapes.ravel(arr), 0
    length = shapes.shape(arr)[shapes._normalize_axis(axis, shapes.ndim(arr))]
    kept = _np.delete(_np.arange(length), obj if isinstance(obj, slice) else host_values(obj))
    return take(arr, _index_like(kept, arr), axis=axis)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the positions ``obj`` along ``axis`` (of the flattened
    ``arr`` when None), with NumPy's broadcasting of ``values``; ``values`` take ``arr``'s dtype.

    Where each element goes is read off ``numpy.insert`` applied to integer labels of the
    elements of ``arr`` and ``values``; the result gathers them with ``take``.
    """
    values = _as_array_like(values, arr)
    if dtypes.result_type(values) != getval(arr).dtype:
        values = dtypes.astype(values, getval(arr).dtype)
    arr_size, values_size = shapes.size(arr), shapes.size(values)
    arr_labels = _np.arange(arr_size).reshape(shapes.shape(arr))
    values_labels = (arr_size + _np.arange(values_size)).reshape(shapes.shape(values))
    obj = obj if isinstance(obj, (int, slice)) else host_values(obj)
    labels = _np.insert(arr_labels, obj, values_labels, axis=axis)
    source = shapes.concatenate([shapes.ravel(arr), shapes.ravel(values)], axis=0)
    return take(source, _index_like(labels, arr))


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading (``"f"``) and trailing (``"b"``) zeros along ``axis`` (every axis when
    None): the slices that hold only zeros at either end are cut off (their positions read off the values)."""
    trim = trim.lower()
    if not set(trim) <= {"f", "b"}:
        raise ValueError(f"trim_zeros: trim must contain only 'f' and 'b', not {trim!r}")
    raw = getval(filt)
    raw = raw if hasattr(raw, "shape") else _np.asarray(raw)
    backend = backend_of(raw, op="trim_zeros")
    n = raw.ndim
    axes = (
        range(n) if axis is None else [shapes._normalize_axis(a, n, "axis") for a in ((axis,) if isinstance(axis, int) else axis)]
    )
    index = [slice(None)] * n
    for ax in axes:
        held = backend.any(raw != 0, axis=tuple(a for a in range(n) if a != ax)) if n > 1 else raw != 0
        along = _np.flatnonzero(backend.to_numpy(held))  # one boolean per slice, read on the host
        start = (int(along[0]) if along.size else raw.shape[ax]) if "f" in trim else 0
        stop = (int(along[-1]) + 1 if along.size else start) if "b" in trim else raw.shape[ax]
        index[ax] = slice(start, builtins.max(start, stop))
    return filt[tuple(index)] if hasattr(getval(filt), "shape") else shapes.array(filt)[tuple(index)]


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to each 1-d slice of ``arr`` along ``axis``; its result's axes replace ``axis``."""
    nd = shapes.ndim(arr)
    axis = shapes._normalize_axis(axis, nd)
    moved = shapes.moveaxis(arr, axis, -1)
    outer = shapes.shape(moved)[:-1]
    if not outer:
        return func1d(moved, *args, **kwargs)
    results = [func1d(moved[(*index, ...)], *args, **kwargs) for index in _np.ndindex(*outer)]
    stacked = shapes.stack(results)
    result_nd = shapes.ndim(stacked) - 1
    stacked = shapes.reshape(stacked, outer + shapes.shape(stacked)[1:])
    source = tuple(range(len(outer), len(outer) + result_nd))
    return shapes.moveaxis(stacked, source, tuple(range(axis, axis + result_nd))) if result_nd else stacked


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied over each of ``axes`` in turn, keeping the number of dimensions."""
    nd = shapes.ndim(a)
    for axis in (axes,) if isinstance(axes, int) else axes:
        axis = shapes._normalize_axis(axis, nd)
        result = func(a, axis)
        if shapes.ndim(result) == nd - 1:
            result = shapes.expand_dims(result, axis)
        elif shapes.ndim(result) != nd:
            raise ValueError("apply_over_axes: function is not returning an array of the correct shape")
        a = result
    return a


# ---- sets: positions read off the values, elements gathered ----


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True, sorted=True):
    """The sorted unique elements of ``ar`` (or unique slices along ``axis``), and optionally the
    index of each one's first occurrence, the inverse indices and the counts (NumPy's ``unique``).

    Differentiable in the unique elements, gathered from their first occurrences.
    """
    ar = _arrays(ar)
    raw = getval(ar)
    options = {"return_inverse": return_inverse, "return_counts": return_counts}
    options.update({"axis": axis} if axis is not None else {}, **({} if equal_nan else {"equal_nan": False}))
    found = _Library("unique", raw).unique(raw, return_index=True, **options)
    first = found[1]
    values = take(shapes.ravel(ar), first) if axis is None else take(ar, first, axis=axis)
    extra = [first] * return_index + list(found[2:])
    return (values, *extra) if extra else values


def unique_values(x):
    """The sorted unique elements of ``x`` (flattened)."""
    return unique(x)


def unique_counts(x):
    """``(values, counts)``: the sorted unique elements of ``x`` and their counts."""
    return unique(x, return_counts=True)


def unique_inverse(x):
    """``(values, inverse_indices)``, the inverse indices shaped as ``x``."""
    values, inverse = unique(x, return_inverse=True)
    return values, _reshaped(inverse, shapes.shape(x))


def unique_all(x):
    """``(values, indices, inverse_indices, counts)``, the inverse indices shaped as ``x``."""
    values, first, inverse, counts = unique(x, return_index=True, return_inverse=True, return_counts=True)
    return values, first, _reshaped(inverse, shapes.shape(x)), counts


def _reshaped(raw, shape):
    return backend_of(raw, op="unique").reshape(raw, shape)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both ``ar1`` and ``ar2``; differentiable through ``ar1``'s elements."""
    ar1, ar2 = _arrays(ar1, ar2)
    raw1, raw2 = getval(ar1), getval(ar2)
    library = _Library("intersect1d", raw1, raw2)
    _, first1, first2 = library.intersect1d(raw1, raw2, assume_unique=assume_unique, return_indices=True)
    values = take(shapes.ravel(ar1), first1)
    return (values, first1, first2) if return_indices else values


def union1d(ar1, ar2):
    """The sorted values in either array."""
    return unique(shapes.concatenate([shapes.ravel(a) for a in _arrays(ar1, ar2)]))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The unique values of ``ar1`` that are not in ``ar2``, sorted (in ``ar1``'s order if ``assume_unique``)."""
    ar1, ar2 = _arrays(ar1, ar2)
    values = shapes.ravel(ar1) if assume_unique else unique(ar1)
    raw, other = getval(values), getval(ar2)
    library = _Library("setdiff1d", raw, other)
    return take(values, library.flatnonzero(library.isin(raw, other, invert=True)))


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of the arrays."""
    ar1, ar2 = _arrays(ar1, ar2)
    both = shapes.concatenate([shapes.ravel(a) if assume_unique else unique(a) for a in (ar1, ar2)])
    raw = getval(both)
    library = _Library("setxor1d", raw)
    order = library.backend.argsort(raw, stable=True)  # the standard's: JAX's NumPy-named one refuses kind=
    _, first, counts = library.unique(library.take(raw, order), return_index=True, return_counts=True)
    return take(both, library.take(order, first[counts == 1]))


@shapes.array_like("a")
def sort_complex(a):
    """``a`` sorted along its last axis by real part, then imaginary part, as a complex array
    (complex64 for float32 and small integer input, complex128 otherwise, as NumPy)."""
    raw = getval(a)
    if not declare.iscomplexobj(a):
        backend = backend_of(raw, op="sort_complex")
        small = builtins.any(raw.dtype == backend.dtype(name) for name in ("float32", "int8", "int16", "uint8", "uint16"))
        a = dtypes.astype(a, dtypes.complex64 if small else dtypes.complex128)
        raw = getval(a)
    return take_along_axis(a, _Library("sort_complex", raw).argsort(raw, axis=-1), axis=-1)


# ---- pad ----

#: NumPy's pad modes that are a linear map along each axis (the padded axis is ``P @ x`` for a fixed ``P``)
_LINEAR_PAD_MODES = ("edge", "reflect", "symmetric", "wrap")
_STAT_PAD_MODES = ("maximum", "minimum", "mean", "median")


@shapes.array_like("array")
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
    nd = shapes.ndim(array)
    widths = _pad_widths(pad_width, nd)
    for ax, (before, after) in enumerate(widths):
        if mode in _LINEAR_PAD_MODES:
            array = _pad_linear(array, ax, before, after, mode, kwargs.get("reflect_type", "even"))
            continue
        size_ = shapes.shape(array)[ax]
        pieces = [_pad_piece(array, ax, before, True, mode, kwargs, size_), array]
        pieces.append(_pad_piece(array, ax, after, False, mode, kwargs, size_))
        array = shapes.concatenate([p for p in pieces if p is not None], axis=ax)
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
    size_ = shapes.shape(array)[ax]
    if size_ == 0:
        raise ValueError(f"pad: can't extend empty axis {ax} using mode {mode!r}")
    options = {"reflect_type": reflect_type} if mode in ("reflect", "symmetric") else {}
    matrix = _np.pad(_np.eye(size_), ((before, after), (0, 0)), mode=mode, **options)
    raw = getval(array)
    backend = backend_of(raw, op="pad")
    matrix = backend.from_numpy(matrix, dtype=raw.dtype, device=backend.device(raw))
    return shapes.moveaxis(products.tensordot(matrix, array, axes=([1], [ax])), 0, ax)


def _pad_piece(array, ax, width, before, mode, kwargs, size_):
    if width == 0:
        return None
    nd = shapes.ndim(array)
    piece_shape = shapes._with_axis(shapes.shape(array), ax, width)
    side = 0 if before else 1
    if mode in ("constant", "empty"):
        value = _np.broadcast_to(_np.asarray(kwargs.get("constant_values", 0), dtype=float), (nd, 2))[ax][side]
        return shapes.broadcast_to(dtypes.full_like(array[shapes._along(ax, slice(0, 1), nd)], float(value)), piece_shape)
    edge = array[shapes._along(ax, slice(0, 1) if before else slice(-1, None), nd)]
    if mode == "linear_ramp":
        end = float(_np.broadcast_to(_np.asarray(kwargs.get("end_values", 0), dtype=float), (nd, 2))[ax][side])
        steps = _np.arange(width, dtype=float) / width  # NumPy's linspace(end, edge, width, endpoint=False)
        steps = steps if before else _np.ascontiguousarray(steps[::-1])
        raw = getval(array)
        backend = backend_of(raw, op="pad")
        steps = backend.from_numpy(
            steps.reshape(shapes._with_axis((1,) * nd, ax, width)), dtype=raw.dtype, device=backend.device(raw)
        )
        return elementwise.add(elementwise.multiply(elementwise.subtract(edge, end), steps), end)
    if size_ == 0:
        raise ValueError(f"pad: can't compute the {mode} of an empty axis {ax}")
    stat_length = kwargs.get("stat_length")
    length = size_ if stat_length is None else builtins.min(_pad_widths(stat_length, nd, "stat_length")[ax][side], size_)
    if length == 0:
        raise ValueError(f"pad: stat_length of 0 along axis {ax} leaves no entries for the {mode}")
    window = array[shapes._along(ax, slice(0, length) if before else slice(size_ - length, None), nd)]
    if mode == "median":
        stat = median(window, axis=ax, keepdims=True)
    else:
        stat = {"maximum": reductions.max, "minimum": reductions.min, "mean": reductions.mean}[mode](
            window, axis=ax, keepdims=True
        )
    return shapes.broadcast_to(stat, piece_shape)
