"""Indexing and selection: ``getitem`` and its adjoint ``untake`` (scatter-add), ``where`` and ``clip``,
``diagonal`` and its adjoint, ``tril``/``triu``, and the index queries ``nonzero``, ``argwhere``; each primitive
with its VJP and JVP beside it. Cotangents with leading batch axes are the core's (:func:`batch_ndim`)."""

import builtins
import math

from backends import backend_of

from ..core import def_linear, defjvp, defvjp, notrace_primitive, primitive
from ..core.batching import batch_ndim, cotangent_batch, def_batch_safe_vjp
from ..core.ops import declare_facts, def_signature_only, def_value_shaped
from .declare import broadcast, metadata, unbroadcast, unbroadcast_elementwise
from .dtypes import _untraced_when, ones_like
from .elementwise import logical_and
from .shapes import _as_array, _holds_arrays, array_like, inverse_permutation, ndim, reshape, shape, stack, transpose

__all__ = (
    """argwhere clip diag diagonal diagonal_untake eye_like flatnonzero getitem nonzero tri_mask tril triu untake where""".split()
)


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
    if not _holds_arrays((condition, x, y)):
        return backend.to_numpy(result).tolist()
    return result


@primitive
def clip(a, a_min, a_max):
    """``a`` limited to ``[a_min, a_max]``; differentiable in ``a`` only (as in autograd)."""
    return backend_of(a, a_min, a_max, op="clip").clip(a, a_min, a_max)


def inside_clip(a, a_min, a_max):
    """Where ``a`` lies within the bounds (a bound of None is no bound)."""
    inside = ones_like(a, dtype=bool)
    if a_min is not None:
        inside = logical_and(inside, a >= a_min)
    if a_max is not None:
        inside = logical_and(inside, a <= a_max)
    return inside


defvjp(
    clip,
    lambda ans, a, a_min, a_max: unbroadcast_elementwise(a, ans, lambda g: where(inside_clip(a, a_min, a_max), g, 0.0)),
)
defjvp(clip, lambda g, ans, a, a_min, a_max: broadcast(where(inside_clip(a, a_min, a_max), g, 0.0), ans))
defvjp(
    where.primitive,
    None,
    lambda ans, c, x, y: unbroadcast_elementwise(x, ans, lambda g: where(c, g, 0.0)),
    lambda ans, c, x, y: unbroadcast_elementwise(y, ans, lambda g: where(c, 0.0, g)),
)
defjvp(
    where.primitive,
    None,
    lambda g, ans, c, x, y: broadcast(where(c, g, 0.0), ans),
    lambda g, ans, c, x, y: broadcast(where(c, 0.0, g), ans),
)
def_batch_safe_vjp(clip, where.primitive)


def diag(v, k=0):
    """The ``k``-th diagonal of a 2-d ``v``, or a 2-d array with the 1-d ``v`` on it (``v`` may be a list)."""
    v = _as_array(v)
    if ndim(v) == 2:
        return diagonal(v, k)
    n = shape(v)[0] + builtins.abs(k)
    return diagonal_untake(v, k, (n, n))


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


def grad_diagonal(ans, x, offset=0, axis1=0, axis2=1):
    x_shape, n = shape(x), ndim(x)
    axis1, axis2 = axis1 % n, axis2 % n
    order = [a for a in range(n) if a not in (axis1, axis2)] + [axis1, axis2]
    last_two_shape = tuple(x_shape[a] for a in order)
    return lambda g: transpose(diagonal_untake(g, offset, last_two_shape), inverse_permutation(order))


defvjp(diagonal, grad_diagonal)
def_linear(diagonal)
defvjp(diagonal_untake, lambda ans, g, offset, shape: lambda h: diagonal(h, offset, -2, -1))
def_linear(diagonal_untake)


def _to_last_two(backend, x, axis1, axis2):
    n = len(x.shape)
    axis1, axis2 = axis1 % n, axis2 % n
    return backend.permute_dims(x, tuple(a for a in range(n) if a not in (axis1, axis2)) + (axis1, axis2))


@notrace_primitive
def tri_mask(x, k, lower):
    """Where ``j - i <= k`` (``lower``) or ``j - i >= k`` over the last two axes of ``x``, on ``x``'s device."""
    backend = backend_of(x, op="tril" if lower else "triu")
    xp, device = backend.xp, backend.device(x)
    offsets = xp.arange(x.shape[-1], device=device)[None, :] - xp.arange(x.shape[-2], device=device)[:, None]
    return offsets <= k if lower else offsets >= k


def_signature_only(tri_mask)


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


def_signature_only(eye_like)


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


def after_batch(index):
    """``index`` for an array with :func:`batch_ndim` batch axes in front, or None where prepending
    full slices would not keep the batch axes in front (integer-array and boolean indices)."""
    index = index if isinstance(index, tuple) else (index,)
    if all(i is None or i is Ellipsis or type(i) in (int, slice) for i in index):
        return (slice(None),) * batch_ndim() + index
    return None


def per_batch_row(g, row_vjp):
    """``row_vjp`` applied to each row of the batch of cotangents ``g``, the results stacked."""
    batch_shape = shape(g)[: batch_ndim()]
    rows = reshape(g, (math.prod(batch_shape),) + shape(g)[len(batch_shape) :])  # -1 is ambiguous for an empty row
    with cotangent_batch(0):
        out = stack([row_vjp(rows[i, ...]) for i in range(shape(rows)[0])])
    return reshape(out, batch_shape + shape(out)[1:])


def grad_getitem(ans, x, index):
    """``untake``: ``g`` added into zeros of ``x``'s shape at ``index`` (a batch of cotangents with a
    basic index in one scatter, with integer-array or boolean indices one row at a time)."""
    meta = metadata(x)

    def vjp(g):
        if not batch_ndim():
            return unbroadcast(untake(g, index, meta[0]), meta)
        batched_index = after_batch(index)
        if batched_index is None:
            return unbroadcast(per_batch_row(g, lambda row: untake(row, index, meta[0])), meta)
        return unbroadcast(untake(g, batched_index, shape(g)[: batch_ndim()] + meta[0]), meta)

    return vjp


def grad_untake(ans, g, index, x_shape):
    """``getitem``: the entries of ``h`` at ``index`` (per batch row for integer-array or boolean indices)."""

    def vjp(h):
        if not batch_ndim():
            return getitem(h, index)
        batched_index = after_batch(index)
        if batched_index is None:
            return per_batch_row(h, lambda row: getitem(row, index))
        return getitem(h, batched_index)

    return vjp


defvjp(getitem, grad_getitem)
def_linear(getitem)
defvjp(untake, grad_untake)
def_linear(untake)
def_batch_safe_vjp(getitem, untake)
declare_facts(getitem, mask_argument=1)


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


def_value_shaped(nonzero, flatnonzero, argwhere, where.untraced)
