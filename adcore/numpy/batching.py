"""The batching rules of the numpy layer's primitives outside the elementwise family (``rule(fun, size,
batched, args, kwargs) -> (out, out_batched)``, see ``adcore.vmap``), each written into the op table as
the primitive's ``batching`` fact, beside the elementwise family's default, broadcasting
(``batching_defaults``). A rule computes with the numpy layer's primitives, so that the traces around
the batch record them. ``ON_THE_BOXES`` marks the primitives that ``vmap`` calls on the batch boxes
themselves: ``shape``, ``ndim``, ``size`` (the boxes answer for one example), ``make_container`` and
``container_untake`` (a container of batch boxes), and the non-differentiable functions of NumPy's
signatures, whose bodies call primitives that have batching rules.
"""

import numpy as _np

from backends import array_backend, array_under

from .. import builtins
from ..core import Box, getval
from ..core.ops import ON_THE_BOXES, batching_defaults, declare_facts, primitive_under
from . import declare, dtypes, fft, indexing, linalg, products, reductions, selection, shapes, signatures
from .einsum import einsum_args


def _raw(value):
    """The array under every box, a batch box's too."""
    return array_under(getval(value))


def _ndim(value, batched):
    """The ndim of one example of ``value`` (0 for a dtype, a string or None among the arguments)."""
    if batched:
        return shapes.ndim(value) - 1
    return 0 if value is None or isinstance(value, (type, str)) else shapes.ndim(value)


def _with_ndim(value, ndim):
    """A batched ``value`` with axes of size 1 put after its batch axis, up to ``ndim`` axes for one example."""
    shape = shapes.shape(value)
    missing = ndim - (len(shape) - 1)
    return value if missing <= 0 else shapes.reshape(value, (shape[0],) + (1,) * missing + tuple(shape[1:]))


def _aligned(a, b, a_batched, b_batched):
    """``(a, b)``, each batched one given the example ndim of the other (axes of size 1 after its batch axis),
    so that the batch axis leads the stacks of matrices they broadcast to (``matmul``, ``solve``)."""
    na, nb = _ndim(a, a_batched), _ndim(b, b_batched)
    return (_with_ndim(a, nb) if a_batched else a), (_with_ndim(b, na) if b_batched else b)


def broadcasting(fun, size, batched, args, kwargs):
    """Elementwise: the batched arguments given the example ndim of the widest (axes of size 1 after
    the batch axis); the others broadcast against them as they are."""
    ndim = max(_ndim(arg, is_batched) for arg, is_batched in zip(args, batched))
    args = [_with_ndim(arg, ndim) if is_batched else arg for arg, is_batched in zip(args, batched)]
    return fun(*args, **kwargs), True


def _shifted(axis, batched_ndim):
    """An example's ``axis`` (an int, a sequence or None: every axis) as the batch's."""
    if axis is None:
        return tuple(range(1, batched_ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(a + 1 if a >= 0 else a for a in axis)
    return axis + 1 if axis >= 0 else axis


def _call_args(fun, args, kwargs):
    """The positional arguments of the call ``fun(*args, **kwargs)`` of a primitive, with their defaults
    (read from its raw function's signature)."""
    code, defaults = fun.fun.__code__, fun.fun.__defaults__ or ()
    names = code.co_varnames[: code.co_argcount]
    values = dict(zip(names[len(names) - len(defaults) :], defaults))
    values.update(zip(names, args))
    values.update(kwargs)
    return [values[name] for name in names]


def reduction(fun, size, batched, args, kwargs):
    """``fun(x, axis, ...)`` over the shifted axes (None: every axis of one example)."""
    x, axis, *rest = _call_args(fun, args, kwargs)
    return fun(x, _shifted(axis, shapes.ndim(x)), *rest), True


def cumulative(fun, size, batched, args, kwargs):
    """``cumsum``/``cumprod``: along the shifted axis; of each flattened example when ``axis`` is None."""
    x, axis = _call_args(fun, args, kwargs)
    if axis is None:
        x, axis = shapes.reshape(x, (size, -1)), 0
    return fun(x, _shifted(axis, shapes.ndim(x))), True


def arg_reduction(fun, size, batched, args, kwargs):
    """``argmax``/``argmin``: along the shifted axis; of each flattened example when ``axis`` is None."""
    x, axis, keepdims = _call_args(fun, args, kwargs)
    if axis is None:
        out = fun(shapes.reshape(x, (size, -1)), 1, False)
        return (shapes.reshape(out, (size,) + (1,) * (shapes.ndim(x) - 1)) if keepdims else out), True
    return fun(x, _shifted(axis, shapes.ndim(x)), keepdims), True


def dtype_metadata(fun, size, batched, args, kwargs):
    """``result_type``, ``iscomplexobj``: of dtypes alone, which the batch shares with each example (the raw
    arrays asked, not the boxes, which a library's own ``result_type`` would hand back to adcore's)."""
    return fun.fun(*map(_raw, args), **kwargs), False


def diagonal(fun, size, batched, args, kwargs):
    x, offset, axis1, axis2 = _call_args(fun, args, kwargs)
    ndim = shapes.ndim(x)
    return fun(x, offset, _shifted(axis1, ndim), _shifted(axis2, ndim)), True


def diagonal_untake(fun, size, batched, args, kwargs):
    """The adjoint of ``diagonal`` over the last two axes, which batches over the leading ones."""
    g, offset, shape = args
    if batched[1] or batched[2]:
        return NotImplemented, None
    return fun(g, offset, (size, *shape)), True


def take_along_axis(fun, size, batched, args, kwargs):
    """Both arrays given the batch axis; of each flattened example when ``axis`` is None."""
    x, indices, axis = _call_args(fun, args, kwargs)
    x, indices = _batch_of(x, batched[0], size), _batch_of(indices, batched[1], size)
    if axis is None:
        x, axis = shapes.reshape(x, (size, -1)), 0
    return fun(x, indices, _shifted(axis, shapes.ndim(x))), True


def untake_along_axis(fun, size, batched, args, kwargs):
    """The adjoint of ``take_along_axis``: both arrays given the batch axis (``axis`` None: into each flattened
    example, then its shape)."""
    g, indices, axis, arr_shape = args
    g, indices = _batch_of(g, batched[0], size), _batch_of(indices, batched[1], size)
    if axis is None:
        flat = fun(g, indices, 1, (size, int(_np.prod(arr_shape))))
        return shapes.reshape(flat, (size, *arr_shape)), True
    return fun(g, indices, _shifted(axis, shapes.ndim(g)), (size, *arr_shape)), True


def sorting(fun, size, batched, args, kwargs):
    """``sort``/``argsort``: along the shifted axis; of each flattened example when ``axis`` is None."""
    keywords = {key: value for key, value in kwargs.items() if key == "stable"}
    a, axis, kind, order = _call_args(fun, args, {key: value for key, value in kwargs.items() if key != "stable"})
    if axis is None:
        a, axis = shapes.reshape(a, (size, -1)), 0
    return fun(a, _shifted(axis, shapes.ndim(a)), kind, order, **keywords), True


def reshape(fun, size, batched, args, kwargs):
    x, newshape = _call_args(fun, args, kwargs)
    newshape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    return fun(x, (size, *newshape)), True


def transpose(fun, size, batched, args, kwargs):
    x, axes = _call_args(fun, args, kwargs)
    n = shapes.ndim(x) - 1
    axes = reversed(range(n)) if axes is None else (a % n if n else a for a in axes)
    return fun(x, (0, *(a + 1 for a in axes))), True


def broadcast_to(fun, size, batched, args, kwargs):
    x, shape = _call_args(fun, args, kwargs)
    shape = tuple(shape)
    return fun(_with_ndim(x, len(shape)), (size, *shape)), True


def _batch_of(value, is_batched, size):
    """``value`` with a batch axis first: itself if batched, else broadcast along a new one."""
    if is_batched:
        return value
    return shapes.broadcast_to(shapes.reshape(value, (1, *shapes.shape(value))), (size, *shapes.shape(value)))


def concatenate_args(fun, size, batched, args, kwargs):
    axis, arrays = args[0], args[1:]
    arrays = [_batch_of(a, b, size) for a, b in zip(arrays, batched[1:])]
    if axis is None:
        return fun(1, *(shapes.reshape(a, (size, -1)) for a in arrays)), True
    return fun(_shifted(axis, shapes.ndim(arrays[0])), *arrays), True


def stack_args(fun, size, batched, args, kwargs):
    axis, arrays = args[0], args[1:]
    return fun(axis + 1, *(_batch_of(a, b, size) for a, b in zip(arrays, batched[1:]))), True


def _plain_index(index):
    """``index`` as a tuple whose advanced indices (arrays, and integers among them) are next to each
    other, so a leading slice for the batch axis keeps NumPy's placement; None if they are apart or batched."""
    index = index if isinstance(index, tuple) else (index,)
    advanced = [
        i
        for i, item in enumerate(index)
        if not isinstance(item, (slice, type(None), type(Ellipsis))) and not isinstance(item, (int, _np.integer))
    ]
    if any(type(item) in Box.types for item in index):
        return None
    if advanced:
        positions = [i for i, item in enumerate(index) if not isinstance(item, (slice, type(None), type(Ellipsis)))]
        if positions != list(range(positions[0], positions[-1] + 1)):
            return None
    # the Array API indexes every axis or ends with an ellipsis; the batch axis makes one more
    return index if any(item is Ellipsis for item in index) else (*index, Ellipsis)


def _batched_index(index, x):
    """``index`` with a leading slice for the batch axis of ``x`` (a batch), or None where that is not
    NumPy's indexing of each example (see :func:`_plain_index`) or ``x``'s library refuses index arrays
    beside a slice (``Backend.arrays_beside_slices``)."""
    index = _plain_index(index)
    if index is None:
        return None
    if not array_backend(_raw(x)).arrays_beside_slices and any(hasattr(item, "shape") for item in index):
        return None
    return (slice(None), *index)


def getitem(fun, size, batched, args, kwargs):
    x, index = args
    index = None if batched[1] else _batched_index(index, x)
    if index is None:
        return NotImplemented, None
    return fun(x, index), True


def untake(fun, size, batched, args, kwargs):
    g, index, x_shape = args
    index = None if batched[1] or batched[2] else _batched_index(index, g)
    if index is None:
        return NotImplemented, None
    return fun(_batch_of(g, batched[0], size), index, (size, *x_shape)), True


def matmul(fun, size, batched, args, kwargs):
    """``a @ b`` with NumPy's stacking: a batched vector is made a one-row (``a``) or one-column (``b``)
    matrix, then the batched operands get the example ndim of the other (axes of size 1 after the
    batch axis) so that the batch axis leads the result; the added row or column is dropped after."""
    (a, b), (a_batched, b_batched) = args, batched
    a_vector = a_batched and _ndim(a, True) == 1
    b_vector = b_batched and _ndim(b, True) == 1
    if a_vector:
        a = shapes.reshape(a, (size, 1, -1))
    if b_vector:
        b = shapes.reshape(b, (size, -1, 1))
    a, b = _aligned(a, b, a_batched, b_batched)
    out = fun(a, b)
    b_is_vector = b_vector or (not b_batched and _ndim(b, False) == 1)
    if a_vector:
        out = shapes.squeeze(out, -1 if b_is_vector else -2)
    if b_vector:
        out = shapes.squeeze(out, -1)
    return out, True


def tensordot(fun, size, batched, args, kwargs):
    a, b, axes = _call_args(fun, args, kwargs)
    a_batched, b_batched = batched[0], batched[1]
    na, nb = _ndim(a, a_batched), _ndim(b, b_batched)
    if isinstance(axes, int):
        axes_a, axes_b = list(range(na - axes, na)), list(range(axes))
    else:
        axes_a, axes_b = ([x] if isinstance(x, int) else list(x) for x in axes)
        axes_a, axes_b = [x % na for x in axes_a], [x % nb for x in axes_b]
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    term_a = [next(letters) for _ in range(na)]
    term_b = [next(letters) for _ in range(nb)]
    for i, j in zip(axes_a, axes_b):
        term_b[j] = term_a[i]
    out = [c for i, c in enumerate(term_a) if i not in axes_a] + [c for j, c in enumerate(term_b) if j not in axes_b]
    batch = next(letters)
    subscripts = f"{batch * a_batched}{''.join(term_a)},{batch * b_batched}{''.join(term_b)}->{batch}{''.join(out)}"
    return einsum_args(subscripts, a, b), True


def einsum(fun, size, batched, args, kwargs):
    """``einsum_args`` (canonical subscripts, letters only): a fresh letter for the batch axis."""
    subscripts, operands = args[0], args[1:]
    terms, output = subscripts.split("->")
    batch = next(c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in subscripts)
    terms = [batch * is_batched + term for term, is_batched in zip(terms.split(","), batched[1:])]
    return fun(f"{','.join(terms)}->{batch}{output}", *operands), True


def stacked_linalg(fun, size, batched, args, kwargs):
    """NumPy's ``linalg`` is batched over leading axes: the batched matrix as it is."""
    if batched[1:] and any(batched[1:]):
        return NotImplemented, None
    out = fun(*args, **kwargs)
    return out, (True,) * len(out) if type(out) is tuple else True


def solve(fun, size, batched, args, kwargs):
    """``solve(a, b)`` of stacks (NumPy 2 reads a ``b`` of two or more axes as matrices): an example's vector
    ``b`` becomes a one-column matrix, and a batched operand gets the example ndim of the other (axes of size
    1 after its batch axis), so that the batch axis leads the broadcast stacks."""
    (a, b), (a_batched, b_batched) = args, batched
    vector = _ndim(b, b_batched) == 1
    if vector:
        b = shapes.expand_dims(b, -1)
    out = fun(*_aligned(a, b, a_batched, b_batched))
    return (shapes.squeeze(out, -1) if vector else out), True


def where(fun, size, batched, args, kwargs):
    """``where(condition, x, y)`` broadcasts; ``where(condition)`` (indices) has a size per example: a loop."""
    if len(args) < 3 and "x" not in kwargs:
        return NotImplemented, None
    return broadcasting(fun, size, batched, args, kwargs)


def _declare():
    """Write each rule into the op table, on the primitive under the function named (``primitive_under``)."""
    table = {
        indexing.where.primitive: where,
        indexing.clip: broadcasting,
        reductions.sum.primitive: reduction,
        reductions.prod.primitive: reduction,
        reductions.max: reduction,
        reductions.min: reduction,
        reductions.all: reduction,
        reductions.any: reduction,
        reductions.count_nonzero: reduction,
        shapes.flip: reduction,
        indexing.diagonal: diagonal,
        indexing.diagonal_untake: diagonal_untake,
        fft.fftshift: reduction,
        fft.ifftshift: reduction,
        selection.take_along_axis: take_along_axis,
        selection.untake_along_axis: untake_along_axis,
        selection.sort: sorting,
        selection.argsort: sorting,
        reductions.cumsum: cumulative,
        reductions.cumprod: cumulative,
        reductions.argmax: arg_reduction,
        reductions.argmin: arg_reduction,
        shapes.reshape: reshape,
        shapes.transpose: transpose,
        shapes.broadcast_to: broadcast_to,
        shapes.concatenate_args: concatenate_args,
        shapes.stack_args: stack_args,
        indexing.getitem: getitem,
        indexing.untake: untake,
        products.matmul: matmul,
        products.tensordot: tensordot,
        einsum_args: einsum,
        dtypes.astype.primitive: broadcasting,
        dtypes.astype.untraced: broadcasting,
        builtins.make_container: ON_THE_BOXES,
        builtins.container_untake: ON_THE_BOXES,
    }
    for name in "shape ndim size".split():
        table[getattr(shapes, name)] = ON_THE_BOXES
    for name in "any all argmax argmin round".split():
        table[getattr(signatures, name)] = ON_THE_BOXES
    table[dtypes.result_type] = table[declare.iscomplexobj] = dtype_metadata
    table[dtypes.zeros_like] = table[dtypes.ones_like] = broadcasting
    for name in "inv det slogdet cholesky eigh eigvalsh eig pinv qr svd".split():
        table[getattr(linalg, name)] = stacked_linalg
    table[linalg.solve] = solve
    for fun, rule in table.items():
        declare_facts(primitive_under(fun), batching=rule)


batching_defaults["elementwise"] = broadcasting
_declare()
