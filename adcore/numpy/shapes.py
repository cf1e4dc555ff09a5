"""The shape family: ``reshape``, ``transpose``, ``broadcast_to``, ``concatenate``, ``flip`` (linear primitives,
each with its VJP and JVP beside it), the compositions that rearrange axes (``stack``, ``squeeze``, ``moveaxis``,
``split``, ``tile``, ``repeat``, ``roll``, ...), ``array`` and ``asarray`` (a nested list of traced values is
stacked), and the shape queries ``shape``, ``ndim``, ``size``."""

import builtins
import inspect

import numpy as _np

from backends import array_backend, backend_of

from ..builtins import SequenceBox, container
from ..core import def_linear, defjvp_argnums, defvjp, defvjp_argnum, getval, isbox, notrace_primitive, primitive
from ..core.batching import batch_ndim, def_batch_safe_vjp
from ..core.ops import def_signature_only
from ..core.wrapping import wraps
from .declare import broadcast, metadata, unbroadcast, unbroadcast_f
from .dtypes import astype, full_like, zeros_like
from .elementwise import subtract

__all__ = """append array array_split asarray atleast_1d atleast_2d atleast_3d broadcast_to column_stack
concatenate concatenate_args
copy diff dsplit dstack expand_dims flip fliplr flipud gradient hsplit hstack matrix_transpose moveaxis ndim ravel
reshape roll rollaxis rot90 shape size split squeeze stack swapaxes tile transpose vsplit vstack""".split()


def array_like(*names):
    """Declare the parameters ``names`` of a function NumPy's ``array_like``: a list or tuple passed
    there (of numbers, arrays or traced values), or a traced list or tuple, is made one array (:func:`array`)
    before the function runs, as NumPy takes it, so that the function (a primitive, or a composition that reads
    ``shape``) sees an array. The function returned calls ``fun``; for a primitive, ``.primitive`` is ``fun``
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


def inverse_permutation(order):
    return tuple(order.index(i) for i in range(len(order)))


def permute_after_batch(x, perm, batch_at=0):
    """``x`` with its :func:`batch_ndim` batch axes, found at position ``batch_at``, moved to the
    front and its other axes permuted by ``perm`` (reversed when None), as ``transpose`` does."""
    batch = batch_ndim()
    if not batch:
        return transpose(x, perm)
    others = [i for i in range(ndim(x)) if not batch_at <= i < batch_at + batch]
    perm = reversed(range(len(others))) if perm is None else perm
    return transpose(x, tuple(range(batch_at, batch_at + batch)) + tuple(others[p] for p in perm))


def grad_reshape(ans, x, newshape):
    meta = metadata(x)
    return lambda g: unbroadcast(reshape(g, shape(g)[: batch_ndim()] + meta[0]), meta)


def grad_transpose(ans, x, axes=None):
    inverse = None if axes is None else inverse_permutation([ax % ndim(x) for ax in axes])
    return lambda g: permute_after_batch(g, inverse)


defvjp(reshape, grad_reshape)
def_linear(reshape)
defvjp(transpose, grad_transpose)
def_linear(transpose)
defvjp(broadcast_to, lambda ans, x, shape: unbroadcast_f(x, lambda g: g))
def_linear(broadcast_to)
def_batch_safe_vjp(reshape, transpose, broadcast_to)


@primitive
def concatenate_args(axis, *arrays):
    """``concatenate(arrays, axis)`` with the arrays as separate arguments, so each can be traced."""
    return backend_of(*arrays, op="concatenate").concat(arrays, axis=axis)


def grad_concatenate(argnum, ans, args, kwargs):
    """The argument's piece of ``g``, in its dtype (:func:`unbroadcast`): the output has the promoted
    dtype of all the arrays, so a real argument beside a complex one keeps the real part of its piece,
    and a float32 one beside a float64 one is given float32."""
    axis, arrays = args[0], args[1:]
    x = arrays[argnum - 1]
    if axis is None:
        start = sum(size(a) for a in arrays[: argnum - 1])
        stop, x_shape = start + size(x), shape(x)
        return unbroadcast_f(x, lambda g: reshape(g[..., start:stop], shape(g)[: batch_ndim()] + x_shape))
    start = sum(shape(a)[axis] for a in arrays[: argnum - 1])
    stop = start + shape(x)[axis]
    index = (slice(None),) * (axis % ndim(ans)) + (slice(start, stop), ...)
    return unbroadcast_f(x, lambda g: g[(slice(None),) * batch_ndim() + index])


def def_joining(join, grad_join):
    """The rules of ``join(axis, *arrays)`` (``concatenate_args``, ``stack_args``), linear in each array: the VJP
    ``grad_join`` (each array's piece of the cotangent), the JVP the join of the tangents (zeros for the arrays
    not differentiated), batch-safe."""

    def jvp(argnums, gs, ans, args, kwargs):
        tangents = dict(zip(argnums, gs))
        pieces = [tangents[i] if i in tangents else zeros_like(a) for i, a in enumerate(args) if i > 0]
        return broadcast(join(args[0], *pieces), ans)

    defvjp_argnum(join, grad_join)
    defjvp_argnums(join, jvp)
    def_batch_safe_vjp(join)


def_joining(concatenate_args, grad_concatenate)


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
        raise TypeError(
            f'{name}: arrays to stack must be passed as a "sequence" type such as list or tuple, not {type(arrays).__name__}'
        )
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
    return stack_args(_normalize_axis(axis, ndim(arrays[0]) + 1), *arrays)


@primitive
def stack_args(axis, *arrays):
    """``stack(arrays, axis)`` (``axis`` not negative) with the arrays as separate arguments, so each can be
    traced: one node for the whole stack (``array`` of a list of traced scalars), as autograd's ``array_from_args``."""
    return backend_of(*arrays, op="stack").stack(arrays, axis=axis)


def grad_stack(argnum, ans, args, kwargs):
    """The argument's slice of ``g`` along the stacked axis, in its dtype (:func:`unbroadcast`, as
    :func:`grad_concatenate`)."""
    index = (slice(None),) * args[0] + (argnum - 1, ...)
    return unbroadcast_f(args[argnum], lambda g: g[(slice(None),) * batch_ndim() + index])


def_joining(stack_args, grad_stack)


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


defvjp(flip, lambda ans, x, axis=None: lambda g: flip(g, axis))
def_linear(flip)


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
    arr, values = (
        array(v) if isinstance(v, (list, tuple)) and _holds_arrays(v) else _not_an_iterator(v, "append") for v in (arr, values)
    )
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
    returns an array of its own, which its caller may write into (``Backend.read_only``). A traced value is
    immutable and kept."""
    backend = None if isbox(x) else array_backend(x)
    return array(x) if backend is not None and backend.read_only(x) else x


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


def_signature_only(shape, ndim, size)


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
    for item in obj:
        if hasattr(item, "shape") or isbox(item) or isinstance(item, (list, tuple)) and _holds_arrays(item):
            return True
    return False
