"""Products: ``matmul`` and ``tensordot`` (bilinear primitives, each with its VJP beside it, batch-safe), and
the compositions ``dot``, ``inner``, ``outer``, ``vdot``, ``kron``, ``cross``."""

import builtins

from backends import backend_of

from ..core import def_linear, defvjp, primitive
from ..core.batching import batch_ndim, def_batch_safe_vjp
from .declare import unbroadcast_f
from .elementwise import conj, multiply, subtract
from .reductions import sum
from .shapes import (
    _as_array,
    expand_dims,
    inverse_permutation,
    moveaxis,
    ndim,
    permute_after_batch,
    ravel,
    reshape,
    shape,
    stack,
    transpose,
)

__all__ = """cross dot inner kron matmul outer tensordot vdot""".split()


@primitive
def matmul(a, b):
    return backend_of(a, b, op="matmul").matmul(a, b)


def swap_last(x):
    axes = list(range(ndim(x)))
    axes[-2:] = axes[-1], axes[-2]
    return transpose(x, axes)


def drop_last(x):
    return reshape(x, shape(x)[:-1])


def grad_matmul_a(ans, a, b):
    """``g b^T``; with a vector ``b``, the outer product ``g b``. A vector ``a`` against a matrix
    ``b`` is the row vector ``g b^T`` too (one product, no reshapes: fast under nesting)."""
    a_nd, b_nd = ndim(a), ndim(b)
    if b_nd == 1:
        return unbroadcast_f(a, lambda g: multiply(expand_dims(g, -1), b))
    if a_nd == 1 and b_nd > 2:
        return unbroadcast_f(a, lambda g: drop_last(matmul(b, expand_dims(g, -1))))
    return unbroadcast_f(a, lambda g: matmul(g, swap_last(b)))


def grad_matmul_b(ans, a, b):
    """``a^T g``; with a vector ``a``, the outer product ``a g``. For a matrix ``a`` and a vector
    ``b`` it is the row vector ``g a`` (one product, no transpose or reshapes)."""
    a_nd, b_nd = ndim(a), ndim(b)
    if a_nd == 1 and b_nd == 1:
        return unbroadcast_f(b, lambda g: multiply(expand_dims(g, -1), a))
    if a_nd == 1:
        return unbroadcast_f(b, lambda g: multiply(expand_dims(a, -1), expand_dims(g, -2)))
    if b_nd == 1 and a_nd == 2:
        return unbroadcast_f(b, lambda g: matmul(g, a))
    if b_nd == 1:
        return unbroadcast_f(b, lambda g: drop_last(matmul(swap_last(a), expand_dims(g, -1))))
    return unbroadcast_f(b, lambda g: matmul(swap_last(a), g))


defvjp(matmul, grad_matmul_a, grad_matmul_b)
def_linear(matmul)
def_batch_safe_vjp(matmul)


@primitive
def tensordot(a, b, axes=2):
    """The sum of products over ``axes``: an int (the last ``axes`` of ``a`` with the first of ``b``), or a
    pair of axes or of sequences of axes (NumPy's forms; an axis alone is made a sequence, the standard's form)."""
    if not isinstance(axes, int):
        axes = tuple((axis,) if isinstance(axis, int) else tuple(axis) for axis in axes)
    return backend_of(a, b, op="tensordot").tensordot(a, b, axes=axes)


def tensordot_axes(axes, a_nd, b_nd):
    """``tensordot``'s ``axes`` as two lists of non-negative axes of ``a`` and ``b``."""
    if isinstance(axes, int):
        return list(range(a_nd - axes, a_nd)), list(range(axes))
    a_axes, b_axes = ([ax] if isinstance(ax, int) else list(ax) for ax in axes)
    return [ax % a_nd for ax in a_axes], [ax % b_nd for ax in b_axes]


def grad_tensordot_a(ans, a, b, axes=2):
    a_axes, b_axes = tensordot_axes(axes, ndim(a), ndim(b))
    a_free = [i for i in range(ndim(a)) if i not in a_axes]
    b_free = [i for i in range(ndim(b)) if i not in b_axes]
    order = a_free + [a_axes[j] for j in sorted(range(len(b_axes)), key=b_axes.__getitem__)]

    def vjp(g):
        batch = batch_ndim()
        g_b_free = tuple(range(batch + len(a_free), batch + len(a_free) + len(b_free)))
        return permute_after_batch(tensordot(g, b, axes=(g_b_free, tuple(b_free))), inverse_permutation(order))

    return unbroadcast_f(a, vjp)


def grad_tensordot_b(ans, a, b, axes=2):
    a_axes, b_axes = tensordot_axes(axes, ndim(a), ndim(b))
    a_free = [i for i in range(ndim(a)) if i not in a_axes]
    b_free = [i for i in range(ndim(b)) if i not in b_axes]
    order = [b_axes[j] for j in sorted(range(len(a_axes)), key=a_axes.__getitem__)] + b_free

    def vjp(g):
        batch = batch_ndim()
        g_a_free = tuple(range(batch, batch + len(a_free)))
        product = tensordot(a, g, axes=(tuple(a_free), g_a_free))
        return permute_after_batch(product, inverse_permutation(order), batch_at=len(a_axes))

    return unbroadcast_f(b, vjp)


defvjp(tensordot, grad_tensordot_a, grad_tensordot_b)
def_linear(tensordot)
def_batch_safe_vjp(tensordot)


def dot(a, b):
    """NumPy's ``dot``: a product for 0-d operands, else a sum over the last axis of
    ``a`` and the second-to-last of ``b`` (the only axis of a 1-d ``b``)."""
    a, b = _as_array(a), _as_array(b)
    if ndim(a) == 0 or ndim(b) == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=([ndim(a) - 1], [builtins.max(ndim(b) - 2, 0)]))


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
