"""The derivative rules of ``adcore.numpy`` beyond the elementwise family (``adcore.numpy.elementwise``):
each primitive's VJP and JVP side by side.

Every rule is written with ``adcore.numpy`` functions, never a raw array
library, so rules are traced themselves (higher order works) and run on every
backend. Where either operand of a product may be a raw array and the other a
traced one, rules call ``anp.multiply`` rather than ``*``: some libraries
(array-api-strict) raise on ``raw * box`` instead of deferring to the box.
Broadcasting is undone in one place, :func:`unbroadcast`; forward-mode
contributions are brought to the output's shape and dtype by :func:`broadcast`.

Cotangents with leading batch axes (``jacrev``'s) are the core's
(:mod:`adcore.core.batching`): a rule asks :func:`batch_ndim`.
"""

import math

from ..core import def_linear, defjvp, defjvp_argnums, defvjp, defvjp_argnum, getval
from ..core.batching import batch_ndim, cotangent_batch, def_batch_safe_vjp
from . import wrapper as anp
from .declare import broadcast, metadata, unbroadcast, unbroadcast_elementwise, unbroadcast_f

# ---- clip and where: elementwise, with rules of their own ----


def inside_clip(a, a_min, a_max):
    """Where ``a`` lies within the bounds (a bound of None is no bound)."""
    inside = anp.ones_like(a, dtype=bool)
    if a_min is not None:
        inside = anp.logical_and(inside, a >= a_min)
    if a_max is not None:
        inside = anp.logical_and(inside, a <= a_max)
    return inside


defvjp(
    anp.clip,
    lambda ans, a, a_min, a_max: unbroadcast_elementwise(a, ans, lambda g: anp.where(inside_clip(a, a_min, a_max), g, 0.0)),
)
defjvp(anp.clip, lambda g, ans, a, a_min, a_max: broadcast(anp.where(inside_clip(a, a_min, a_max), g, 0.0), ans))
defvjp(
    anp.where.primitive,
    None,
    lambda ans, c, x, y: unbroadcast_elementwise(x, ans, lambda g: anp.where(c, g, 0.0)),
    lambda ans, c, x, y: unbroadcast_elementwise(y, ans, lambda g: anp.where(c, 0.0, g)),
)
defjvp(
    anp.where.primitive,
    None,
    lambda g, ans, c, x, y: broadcast(anp.where(c, g, 0.0), ans),
    lambda g, ans, c, x, y: broadcast(anp.where(c, 0.0, g), ans),
)
def_batch_safe_vjp(anp.clip, anp.where.primitive)

# ---- reductions ----


def expand_reduced(g, x_shape, axis, keepdims, batch=0):
    """``g``, reduced from ``x_shape`` over ``axis``, broadcast back to ``x_shape`` after its
    ``batch`` leading axes (:func:`batch_ndim` for a cotangent)."""
    batch_shape = anp.shape(g)[:batch]
    if not keepdims and (axis is not None or batch):
        axes = range(len(x_shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
        reduced = {a % len(x_shape) for a in axes} if x_shape else set()  # NumPy takes axis 0 or -1 of a 0-d array
        g = anp.reshape(g, batch_shape + tuple(1 if i in reduced else n for i, n in enumerate(x_shape)))
    return anp.broadcast_to(g, batch_shape + x_shape)


def grad_sum(ans, x, axis=None, dtype=None, keepdims=False):
    meta = metadata(x)
    return lambda g: unbroadcast(expand_reduced(g, meta[0], axis, keepdims, batch_ndim()), meta)


defvjp(anp.sum.primitive, grad_sum)
def_linear(anp.sum.primitive)
def_batch_safe_vjp(anp.sum.primitive)


def chooser_weights(ans, x, axis, keepdims):
    """How the derivative of ``max``/``min`` splits among ``x``: equally over the entries equal to the
    result (autograd's and JAX's convention for ties). Returns the weights and the dtype to give the
    derivative back in: float16 counts its ties in float32 (a count above 65504 is inf in float16,
    and a derivative of 1/count would then be 0)."""
    chosen, narrow = anp._accumulating(
        anp.astype(x == expand_reduced(ans, anp.shape(x), axis, keepdims), anp.result_type(getval(x)))
    )
    return chosen / anp.sum(chosen, axis=axis, keepdims=True), narrow


def grad_chooser(ans, x, axis=None, keepdims=False):
    x_shape = anp.shape(x)

    def vjp(g):
        weights, narrow = chooser_weights(ans, x, axis, keepdims)
        # anp.multiply, not ``*``: under vmap ``g`` may be a raw array and ``weights`` a batch, which a raw
        # array-api-strict array refuses on its right
        return anp._given_back(anp.multiply(expand_reduced(g, x_shape, axis, keepdims, batch_ndim()), weights), narrow)

    return vjp


def jvp_chooser(g, ans, x, axis=None, keepdims=False):
    weights, narrow = chooser_weights(ans, x, axis, keepdims)
    return anp._given_back(anp.sum(g * weights, axis=axis, keepdims=keepdims), narrow)


defvjp(anp.max, grad_chooser)
defjvp(anp.max, jvp_chooser)
defvjp(anp.min, grad_chooser)
defjvp(anp.min, jvp_chooser)
def_batch_safe_vjp(anp.max, anp.min)


def prod_of_others(x, axis):
    """For each entry, the product of the other entries reduced with it; exact when entries are 0.

    With no zero in a reduction, it is ``prod / x``; with one zero, it is the
    product of the non-zero entries at the zero and 0 elsewhere; with more, 0.
    (Second derivatives at points with a zero entry are not covered.)
    """
    is_zero = x == 0
    nonzero = anp.where(is_zero, 1.0, x)
    zeros_count = anp.sum(anp.astype(is_zero, anp.result_type(getval(x))), axis=axis, keepdims=True)
    prod_nonzero = anp.prod(nonzero, axis=axis, keepdims=True)
    only_zero = anp.logical_and(is_zero, zeros_count == 1)
    return anp.where(zeros_count == 0, prod_nonzero / nonzero, anp.where(only_zero, prod_nonzero, 0.0))


def grad_prod(ans, x, axis=None, dtype=None, keepdims=False):
    meta = metadata(x)
    return lambda g: unbroadcast(
        anp.multiply(expand_reduced(g, meta[0], axis, keepdims, batch_ndim()), prod_of_others(x, axis)), meta
    )


defvjp(anp.prod.primitive, grad_prod)
defjvp(
    anp.prod.primitive,
    lambda g, ans, x, axis=None, dtype=None, keepdims=False: broadcast(
        anp.sum(anp.multiply(g, prod_of_others(x, axis)), axis=axis, keepdims=keepdims), ans
    ),
)
def_batch_safe_vjp(anp.prod.primitive)


def reverse_cumsum(g, axis):
    """``sum_{j >= i} g_j`` along ``axis``: the adjoint of ``cumsum``."""
    return anp.flip(anp.cumsum(anp.flip(g, axis), axis), axis)


def grad_cumsum(ans, x, axis=None):
    x_shape = anp.shape(x)
    if axis is None:
        return lambda g: anp.reshape(reverse_cumsum(g, 0), x_shape)
    return lambda g: reverse_cumsum(g, axis)


defvjp(anp.cumsum, grad_cumsum)
def_linear(anp.cumsum)


def first_zero_masks(x, axis):
    """Along ``axis``: where no zero has come yet, and where the first zero is."""
    zeros_so_far = anp.cumsum(anp.astype(x == 0, anp.result_type(getval(x))), axis)
    before = zeros_so_far == 0
    return before, anp.logical_and(x == 0, zeros_so_far == 1)


def cumprod_parts(x, axis):
    """What both cumprod rules need, exact with zeros: with the first zero along ``axis`` at z,
    an entry before z has derivative terms ``ans_j / x_i`` (j < z); the entry at z those of the
    cumulative product with ``x_z`` replaced by 1; entries after z have none. Returns the masks
    of "before z" and "at z", ``x`` with zeros replaced by 1 (to divide by), and that product."""
    before, first_zero = first_zero_masks(x, axis)
    return before, first_zero, anp.where(x == 0, 1.0, x), anp.cumprod(anp.where(first_zero, 1.0, x), axis)


def grad_cumprod(ans, x, axis=None):
    x_shape = anp.shape(x)
    flat = axis is None
    x, axis = (anp.ravel(x), 0) if flat else (x, axis)

    def vjp(g):
        g = anp.ravel(g) if flat else g
        before, first_zero, x_nonzero, ans_safe = cumprod_parts(x, axis)
        through_zero = reverse_cumsum(anp.multiply(g, ans_safe), axis)
        before_zero = reverse_cumsum(anp.multiply(g, anp.cumprod(x, axis)), axis) / x_nonzero
        result = anp.where(before, before_zero, anp.where(first_zero, through_zero, 0.0))
        return anp.reshape(result, x_shape) if flat else result

    return vjp


def jvp_cumprod(g, ans, x, axis=None):
    if axis is None:
        x, g, axis = anp.ravel(x), anp.ravel(g), 0
    before, first_zero, x_nonzero, ans_safe = cumprod_parts(x, axis)
    g_at_zero = anp.sum(anp.where(first_zero, g, 0.0), axis=axis, keepdims=True)
    before_zero = anp.multiply(anp.cumsum(anp.divide(g, x_nonzero), axis), anp.cumprod(x, axis))
    return broadcast(anp.where(before, before_zero, anp.multiply(g_at_zero, ans_safe)), ans)


defvjp(anp.cumprod, grad_cumprod)
defjvp(anp.cumprod, jvp_cumprod)
defvjp(anp.flip, lambda ans, x, axis=None: lambda g: anp.flip(g, axis))
def_linear(anp.flip)

# ---- linear algebra ----


def swap_last(x):
    axes = list(range(anp.ndim(x)))
    axes[-2:] = axes[-1], axes[-2]
    return anp.transpose(x, axes)


def drop_last(x):
    return anp.reshape(x, anp.shape(x)[:-1])


def grad_matmul_a(ans, a, b):
    """``g b^T``; with a vector ``b``, the outer product ``g b``. A vector ``a`` against a matrix
    ``b`` is the row vector ``g b^T`` too (one product, no reshapes: fast under nesting)."""
    a_nd, b_nd = anp.ndim(a), anp.ndim(b)
    if b_nd == 1:
        return unbroadcast_f(a, lambda g: anp.multiply(anp.expand_dims(g, -1), b))
    if a_nd == 1 and b_nd > 2:
        return unbroadcast_f(a, lambda g: drop_last(anp.matmul(b, anp.expand_dims(g, -1))))
    return unbroadcast_f(a, lambda g: anp.matmul(g, swap_last(b)))


def grad_matmul_b(ans, a, b):
    """``a^T g``; with a vector ``a``, the outer product ``a g``. For a matrix ``a`` and a vector
    ``b`` it is the row vector ``g a`` (one product, no transpose or reshapes)."""
    a_nd, b_nd = anp.ndim(a), anp.ndim(b)
    if a_nd == 1 and b_nd == 1:
        return unbroadcast_f(b, lambda g: anp.multiply(anp.expand_dims(g, -1), a))
    if a_nd == 1:
        return unbroadcast_f(b, lambda g: anp.multiply(anp.expand_dims(a, -1), anp.expand_dims(g, -2)))
    if b_nd == 1 and a_nd == 2:
        return unbroadcast_f(b, lambda g: anp.matmul(g, a))
    if b_nd == 1:
        return unbroadcast_f(b, lambda g: drop_last(anp.matmul(swap_last(a), anp.expand_dims(g, -1))))
    return unbroadcast_f(b, lambda g: anp.matmul(swap_last(a), g))


defvjp(anp.matmul, grad_matmul_a, grad_matmul_b)
def_linear(anp.matmul)
def_batch_safe_vjp(anp.matmul)


def tensordot_axes(axes, a_nd, b_nd):
    """``tensordot``'s ``axes`` as two lists of non-negative axes of ``a`` and ``b``."""
    if isinstance(axes, int):
        return list(range(a_nd - axes, a_nd)), list(range(axes))
    a_axes, b_axes = ([ax] if isinstance(ax, int) else list(ax) for ax in axes)
    return [ax % a_nd for ax in a_axes], [ax % b_nd for ax in b_axes]


def inverse_permutation(order):
    return tuple(order.index(i) for i in range(len(order)))


def permute_after_batch(x, perm, batch_at=0):
    """``x`` with its :func:`batch_ndim` batch axes, found at position ``batch_at``, moved to the
    front and its other axes permuted by ``perm`` (reversed when None), as ``transpose`` does."""
    batch = batch_ndim()
    if not batch:
        return anp.transpose(x, perm)
    others = [i for i in range(anp.ndim(x)) if not batch_at <= i < batch_at + batch]
    perm = reversed(range(len(others))) if perm is None else perm
    return anp.transpose(x, tuple(range(batch_at, batch_at + batch)) + tuple(others[p] for p in perm))


def grad_tensordot_a(ans, a, b, axes=2):
    a_axes, b_axes = tensordot_axes(axes, anp.ndim(a), anp.ndim(b))
    a_free = [i for i in range(anp.ndim(a)) if i not in a_axes]
    b_free = [i for i in range(anp.ndim(b)) if i not in b_axes]
    order = a_free + [a_axes[j] for j in sorted(range(len(b_axes)), key=b_axes.__getitem__)]

    def vjp(g):
        batch = batch_ndim()
        g_b_free = tuple(range(batch + len(a_free), batch + len(a_free) + len(b_free)))
        return permute_after_batch(anp.tensordot(g, b, axes=(g_b_free, tuple(b_free))), inverse_permutation(order))

    return unbroadcast_f(a, vjp)


def grad_tensordot_b(ans, a, b, axes=2):
    a_axes, b_axes = tensordot_axes(axes, anp.ndim(a), anp.ndim(b))
    a_free = [i for i in range(anp.ndim(a)) if i not in a_axes]
    b_free = [i for i in range(anp.ndim(b)) if i not in b_axes]
    order = [b_axes[j] for j in sorted(range(len(a_axes)), key=a_axes.__getitem__)] + b_free

    def vjp(g):
        batch = batch_ndim()
        g_a_free = tuple(range(batch, batch + len(a_free)))
        product = anp.tensordot(a, g, axes=(tuple(a_free), g_a_free))
        return permute_after_batch(product, inverse_permutation(order), batch_at=len(a_axes))

    return unbroadcast_f(b, vjp)


defvjp(anp.tensordot, grad_tensordot_a, grad_tensordot_b)
def_linear(anp.tensordot)
def_batch_safe_vjp(anp.tensordot)

# ---- shape functions ----


def grad_reshape(ans, x, newshape):
    meta = metadata(x)
    return lambda g: unbroadcast(anp.reshape(g, anp.shape(g)[: batch_ndim()] + meta[0]), meta)


def grad_transpose(ans, x, axes=None):
    inverse = None if axes is None else inverse_permutation([ax % anp.ndim(x) for ax in axes])
    return lambda g: permute_after_batch(g, inverse)


defvjp(anp.reshape, grad_reshape)
def_linear(anp.reshape)
defvjp(anp.transpose, grad_transpose)
def_linear(anp.transpose)
defvjp(anp.broadcast_to, lambda ans, x, shape: unbroadcast_f(x, lambda g: g))
def_linear(anp.broadcast_to)
def_batch_safe_vjp(anp.reshape, anp.transpose, anp.broadcast_to)


def grad_concatenate(argnum, ans, args, kwargs):
    """The argument's piece of ``g``, in its dtype (:func:`unbroadcast`): the output has the promoted
    dtype of all the arrays, so a real argument beside a complex one keeps the real part of its piece,
    and a float32 one beside a float64 one is given float32."""
    axis, arrays = args[0], args[1:]
    x = arrays[argnum - 1]
    if axis is None:
        start = sum(anp.size(a) for a in arrays[: argnum - 1])
        stop, x_shape = start + anp.size(x), anp.shape(x)
        return unbroadcast_f(x, lambda g: anp.reshape(g[..., start:stop], anp.shape(g)[: batch_ndim()] + x_shape))
    start = sum(anp.shape(a)[axis] for a in arrays[: argnum - 1])
    stop = start + anp.shape(x)[axis]
    index = (slice(None),) * (axis % anp.ndim(ans)) + (slice(start, stop), ...)
    return unbroadcast_f(x, lambda g: g[(slice(None),) * batch_ndim() + index])


def jvp_concatenate(argnums, gs, ans, args, kwargs):
    tangents = dict(zip(argnums, gs))
    pieces = [tangents[i] if i in tangents else anp.zeros_like(a) for i, a in enumerate(args) if i > 0]
    return broadcast(anp.concatenate_args(args[0], *pieces), ans)


defvjp_argnum(anp.concatenate_args, grad_concatenate)
defjvp_argnums(anp.concatenate_args, jvp_concatenate)
def_batch_safe_vjp(anp.concatenate_args)


def grad_diagonal(ans, x, offset=0, axis1=0, axis2=1):
    x_shape, n = anp.shape(x), anp.ndim(x)
    axis1, axis2 = axis1 % n, axis2 % n
    order = [a for a in range(n) if a not in (axis1, axis2)] + [axis1, axis2]
    last_two_shape = tuple(x_shape[a] for a in order)
    return lambda g: anp.transpose(anp.diagonal_untake(g, offset, last_two_shape), inverse_permutation(order))


defvjp(anp.diagonal, grad_diagonal)
def_linear(anp.diagonal)
defvjp(anp.diagonal_untake, lambda ans, g, offset, shape: lambda h: anp.diagonal(h, offset, -2, -1))
def_linear(anp.diagonal_untake)

# ---- indexing ----


def after_batch(index):
    """``index`` for an array with :func:`batch_ndim` batch axes in front, or None where prepending
    full slices would not keep the batch axes in front (integer-array and boolean indices)."""
    index = index if isinstance(index, tuple) else (index,)
    if all(i is None or i is Ellipsis or type(i) in (int, slice) for i in index):
        return (slice(None),) * batch_ndim() + index
    return None


def per_batch_row(g, row_vjp):
    """``row_vjp`` applied to each row of the batch of cotangents ``g``, the results stacked."""
    batch_shape = anp.shape(g)[: batch_ndim()]
    rows = anp.reshape(g, (math.prod(batch_shape),) + anp.shape(g)[len(batch_shape) :])  # -1 is ambiguous for an empty row
    with cotangent_batch(0):
        out = anp.stack([row_vjp(rows[i, ...]) for i in range(anp.shape(rows)[0])])
    return anp.reshape(out, batch_shape + anp.shape(out)[1:])


def grad_getitem(ans, x, index):
    """``untake``: ``g`` added into zeros of ``x``'s shape at ``index`` (a batch of cotangents with a
    basic index in one scatter, with integer-array or boolean indices one row at a time)."""
    meta = metadata(x)

    def vjp(g):
        if not batch_ndim():
            return unbroadcast(anp.untake(g, index, meta[0]), meta)
        batched_index = after_batch(index)
        if batched_index is None:
            return unbroadcast(per_batch_row(g, lambda row: anp.untake(row, index, meta[0])), meta)
        return unbroadcast(anp.untake(g, batched_index, anp.shape(g)[: batch_ndim()] + meta[0]), meta)

    return vjp


def grad_untake(ans, g, index, x_shape):
    """``getitem``: the entries of ``h`` at ``index`` (per batch row for integer-array or boolean indices)."""

    def vjp(h):
        if not batch_ndim():
            return anp.getitem(h, index)
        batched_index = after_batch(index)
        if batched_index is None:
            return per_batch_row(h, lambda row: anp.getitem(row, index))
        return anp.getitem(h, batched_index)

    return vjp


defvjp(anp.getitem, grad_getitem)
def_linear(anp.getitem)
defvjp(anp.untake, grad_untake)
def_linear(anp.untake)
def_batch_safe_vjp(anp.getitem, anp.untake)

# ---- dtype ----


def grad_astype(ans, x, dtype):
    """A cast to a floating-point or complex dtype passes the cotangent through (a cast to an
    integer or boolean dtype is not traced: ``anp.astype``)."""
    return unbroadcast_f(x, lambda g: g)


defvjp(anp.astype.primitive, grad_astype)
def_linear(anp.astype.primitive)
def_batch_safe_vjp(anp.astype.primitive)
