"""``vmap``: a function of one example mapped over a batch, by a batch trace.

``vmap(f)(xs)`` runs ``f`` once, on :class:`BatchBox` values: each holds the whole batch with
its batch axis first (``_value``), and reads as one example (``shape``, ``ndim``, ``len``). The
batch trace is an *interpreting* trace (``Node.interpret``): a primitive called on its boxes
runs its batching rule, which computes the batched result with ``adcore.numpy`` primitives (so
that the traces outside it, a ``grad`` around the ``vmap``, record those), instead of being
recorded. To every other trace, to ``getval`` and to ``vspace``, a batch box is one value of the
example's shape, so the batch trace nests with ``grad``, ``jacobian``, ``hvp`` and itself in
both orders, ordered by trace ids as the other traces are.

A batching rule is ``rule(fun, size, batched, args, kwargs) -> (out, out_batched)``: ``args``
are the primitive's arguments with each batched one (``batched[i]``) replaced by its value with
the batch axis first, ``out_batched`` says whether ``out`` (or each item of a returned tuple)
has that axis. ``batching_rules`` holds them, keyed by primitive; a primitive of the elementwise
family (the op table, ``adcore.core.ops``) broadcasts, or runs the batching rule it was declared
with. A primitive without a rule
is computed by a loop over the examples (one call per example, then a stack), with a
``VmapFallbackWarning`` naming it, once per ``vmap`` call.
"""

import warnings

import numpy as _np

from backends import array_backend, default_backend, register_traced_type

from .core import Box, Node, VSpace, next_trace_id
from .core.ops import op_of
from .numpy import declare, dtypes, indexing, products, reductions, shapes
from .numpy.boxes import ArrayBox
from .numpy.einsum import einsum_args
from .numpy.vspaces import ArrayVSpace

__all__ = ["VmapFallbackWarning", "batching_rules", "vmap"]


class VmapFallbackWarning(UserWarning):
    """A primitive without a batching rule was computed by a loop over the batch (slower, same values)."""


class BatchNode(Node):
    """The batch trace of one ``vmap`` call: its batch ``size``, its ``trace_id``, and the primitives it
    has warned about (once per call); ``warned`` None for a batch that adcore made itself
    (:func:`batched_rows`), whose loops are its own business and never warned about."""

    __slots__ = ["size", "trace_id", "warned"]

    def __init__(self, size, trace_id, warn=True):
        self.size = size
        self.trace_id = trace_id
        self.warned = set() if warn else None

    def check_python_use(self, what):
        raise TypeError(
            f"adcore.vmap: {what} of a batched value: each example of the batch may give another Python value, "
            "so control flow cannot depend on it; write the choice as data instead, e.g. "
            "adcore.numpy.where(condition, x, y) in place of `x if condition else y`"
        )

    def interpret(self, fun, args, kwargs):
        """``fun(*args, **kwargs)`` for the batch: its batching rule, or a loop over the examples."""
        trace_id = self.trace_id
        batched = tuple(type(arg) is BatchBox and arg._trace_id == trace_id for arg in args)
        values = tuple(arg._value if is_batched else arg for arg, is_batched in zip(args, batched))
        rule = batching_rules.get(fun)
        if rule is on_the_boxes:
            return fun.fun(*args, **kwargs)
        if rule is None:
            rule = family_rule(fun)
        if rule is None or (isinstance(rule, tuple) and rule[0] is None):
            out, out_batched = self.loop(fun, batched, values, kwargs)
        else:
            out, out_batched = rule(fun, self.size, batched, values, kwargs)
            if out is NotImplemented:  # the rule declines this call (e.g. advanced indices apart)
                out, out_batched = self.loop(fun, batched, values, kwargs)
        if type(out_batched) is tuple:
            return tuple(self.box(item, item_batched) for item, item_batched in zip(out, out_batched))
        return self.box(out, out_batched)

    def box(self, value, batched):
        return BatchBox(value, self.trace_id, self) if batched else value

    def loop(self, fun, batched, values, kwargs):
        """One call of ``fun`` per example, the results stacked (the fallback of a primitive without a rule)."""
        name = getattr(fun, "__qualname__", None) or getattr(fun, "__name__", repr(fun))
        if self.warned is not None and fun not in self.warned:
            self.warned.add(fun)
            warnings.warn(
                f"adcore.vmap: {name} has no batching rule; it is computed by a loop over the {self.size} examples",
                VmapFallbackWarning,
                stacklevel=4,
            )
        rows = [fun(*_example(values, batched, self.trace_id, i), **kwargs) for i in range(self.size)]
        if type(rows[0]) is tuple:
            return tuple(shapes.stack(list(items)) for items in zip(*rows)), (True,) * len(rows[0])
        return shapes.stack(rows), True


def _example(values, batched, trace_id, i):
    """The arguments of example ``i``: item ``i`` of each batched value, also inside tuples and lists."""
    out = []
    for value, is_batched in zip(values, batched):
        if is_batched:
            value = value[i, ...]
        elif isinstance(value, (tuple, list)) and any(_is_batched(item, trace_id) for item in value):
            value = type(value)(item._value[i, ...] if _is_batched(item, trace_id) else item for item in value)
        out.append(value)
    return out


def _is_batched(value, trace_id):
    return type(value) is BatchBox and value._trace_id == trace_id


def _raw(value):
    """The array under every box (batch boxes included)."""
    while type(value) in Box.types:
        value = value._value
    return value


class BatchBox(ArrayBox):
    """A batched value of the batch trace: ``_value`` holds the batch, its batch axis first; ``shape``,
    ``ndim``, ``size``, ``len`` and iteration are those of one example."""

    __slots__ = []

    shape = property(lambda self: shapes.shape(self._value)[1:])
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(_np.prod(self.shape)))
    device = property(lambda self: array_backend(_raw(self)).device(_raw(self)))

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of unsized object (a 0-d array)")
        return shape[0]

    def __array_namespace__(self, api_version=None):
        from .array_api import namespace

        raw = _raw(self)
        return namespace(array_backend(raw) or default_backend())


BatchBox.register_interpreting(ArrayBox)
register_traced_type(BatchBox, array_of=_raw)


def _batch_vspace(box):
    """The space of one example of ``box``: the array space of its shape, dtype, backend and device."""
    space = ArrayVSpace(_raw(box))
    return space.reshaped(tuple(box.shape), space.dtype)


VSpace.register(BatchBox, _batch_vspace)


# ---- batching rules ----


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


def on_the_boxes(fun, size, batched, args, kwargs):
    """The raw function called on the boxes themselves (``BatchNode.interpret`` does so before unboxing):
    ``shape``, ``ndim``, ``size``, which the boxes answer for one example; ``make_container`` and
    ``container_untake``, which only place their arguments in a container (a Python container of batch
    boxes, whose items the traces around follow one by one); the non-differentiable functions of NumPy's
    signatures (``adcore.numpy.argmax``...), whose bodies call primitives that have batching rules."""
    raise AssertionError("interpret calls the raw function of such a primitive itself")


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
    na, nb = _ndim(a, a_batched), _ndim(b, b_batched)
    if a_batched:
        a = _with_ndim(a, nb)
    if b_batched:
        b = _with_ndim(b, na)
    out = fun(a, b)
    b_is_vector = b_vector or (not b_batched and nb == 1)
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
    na, nb = _ndim(a, a_batched), _ndim(b, b_batched)
    if a_batched:
        a = _with_ndim(a, nb)
    if b_batched:
        b = _with_ndim(b, na)
    out = fun(a, b)
    return (shapes.squeeze(out, -1) if vector else out), True


def where(fun, size, batched, args, kwargs):
    """``where(condition, x, y)`` broadcasts; ``where(condition)`` (indices) has a size per example: a loop."""
    if len(args) < 3 and "x" not in kwargs:
        return NotImplemented, None
    return broadcasting(fun, size, batched, args, kwargs)


def _table():
    """``{primitive: rule}`` for the primitives of ``adcore.numpy`` outside the elementwise family (whose rules
    :func:`family_rule` reads from the op table)."""
    from . import builtins
    from .numpy import fft, linalg, selection, signatures

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
        builtins.make_container: on_the_boxes,
        builtins.container_untake: on_the_boxes,
    }
    for name in "shape ndim size".split():
        table[getattr(shapes, name)] = on_the_boxes
    for name in "any all argmax argmin round".split():
        table[getattr(signatures, name)] = on_the_boxes
    table[dtypes.result_type] = table[declare.iscomplexobj] = dtype_metadata
    table[dtypes.zeros_like] = table[dtypes.ones_like] = broadcasting
    for name in "inv det slogdet cholesky eigh eigvalsh eig pinv qr svd".split():
        table[getattr(linalg, name)] = stacked_linalg
    table[linalg.solve] = solve
    return {_primitive(fun): rule for fun, rule in table.items()}


def _primitive(fun):
    """The primitive under ``fun``, a public function that may wrap it to fix its signature (``array_like``,
    ``functools.wraps``): the first in the ``__wrapped__`` chain that wraps its own raw function."""
    while getattr(fun, "__wrapped__", None) is not getattr(fun, "fun", None):
        fun = fun.__wrapped__
    return fun


def has_batching_rule(fun):
    """Whether ``vmap`` computes the primitive under ``fun`` by a batching rule (else by a loop over the examples)."""
    fun = _primitive(fun)
    return fun in batching_rules or family_rule(fun) is not None


def family_rule(fun):
    """The batching rule of ``fun``'s op-table entry: the one it was declared with, else broadcasting for the
    elementwise family; None for a primitive declared by no family."""
    op = op_of(fun)
    if op is None:
        return None
    return op.batching or (broadcasting if op.family == "elementwise" else None)


#: ``primitive -> batching rule`` (see the module docstring); a primitive not here and without a rule of its
#: op-table entry (:func:`family_rule`) is computed by a loop over the examples.
batching_rules = _table()


# ---- the operator ----


def _leaves(tree, axes, path, out):
    """Append ``(path, leaf, axis)`` for each leaf of ``tree``, ``axes`` a prefix tree of axes (an int or None
    covers the subtree under it)."""
    if axes is None or isinstance(axes, int):
        if isinstance(tree, (tuple, list)):
            for i, item in enumerate(tree):
                _leaves(item, axes, f"{path}[{i}]", out)
        elif isinstance(tree, dict):
            for key, item in tree.items():
                _leaves(item, axes, f"{path}[{key!r}]", out)
        else:
            out.append((path, tree, axes))
        return
    if isinstance(tree, dict) and isinstance(axes, dict) and set(tree) == set(axes):
        for key, item in tree.items():
            _leaves(item, axes[key], f"{path}[{key!r}]", out)
        return
    if isinstance(tree, (tuple, list)) and isinstance(axes, (tuple, list)) and len(tree) == len(axes):
        for i, (item, axis) in enumerate(zip(tree, axes)):
            _leaves(item, axis, f"{path}[{i}]", out)
        return
    raise ValueError(
        f"vmap: in_axes {axes!r} for {path} does not match its structure ({type(tree).__name__}"
        f"{f' of {len(tree)} items' if isinstance(tree, (tuple, list, dict)) else ''}); give an int, None, or a "
        "container of the same structure"
    )


def _rebuild(tree, leaves):
    """``tree`` with its leaves (in ``_leaves``' order) replaced by those of the iterator ``leaves``."""
    if isinstance(tree, (tuple, list)):
        items = [_rebuild(item, leaves) for item in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    if isinstance(tree, dict):
        return type(tree)((key, _rebuild(item, leaves)) for key, item in tree.items())
    return next(leaves)


def _normalized(axis, ndim, path, what):
    if not -ndim <= axis < ndim:
        raise ValueError(f"vmap: {what} {axis} is out of range for {path}, of {ndim} dimensions")
    return axis % ndim


def vmap(fun, in_axes=0, out_axes=0, axis_size=None):
    """Map ``fun``, written for one example, over a batch: ``vmap(fun)(xs)`` is ``stack([fun(x) for x in xs])``,
    computed in one batched run of ``fun`` (JAX's ``vmap``).

    ``fun`` runs once, on values that read as one example (``x.shape`` is an example's shape) and hold the
    whole batch; each primitive computes the batch at once by its batching rule (elementwise functions by
    broadcasting, reductions and shape functions on shifted axes, ``matmul``/``einsum``/``tensordot`` and
    ``linalg`` by their stacked forms, indexing with a leading slice). A primitive without a rule is
    computed by a loop over the examples and stacked, with a :class:`VmapFallbackWarning` naming it once
    per call: never a wrong value (``python -m adcore.coverage`` lists those primitives). ``vmap`` composes
    with every differential operator, in both orders (``vmap(grad(f))`` gives per-example gradients;
    ``grad(lambda x: vmap(f)(x).sum())``, ``vmap(jacobian(f))``, ``vmap(hvp(f))``, ``vmap(vmap(f))``), with
    ``jit`` (``vmap(grad(f, jit=True))``, ``adcore.jit(vmap(f))``), and on every backend: the results are
    arrays of the arguments' backend. Not yet: an index that is a tuple of batched index arrays
    (``x[np.where(x > 0)]``) under ``vmap(grad(f))`` raises ``TypeError``.

    Parameters
    ----------
    fun : callable
        Takes the positional arguments of one example; returns an array, a scalar, or a tuple, list or
        dict of them (at any depth).
    in_axes : int, None, or a tuple/list of them (one per positional argument, each an int, None, or a
        container matching that argument's structure)
        The axis of each argument that is mapped; None: the argument is the same for every example
        (passed whole). Negative axes count from the end. Default 0.
    out_axes : int, None, or a container matching the output
        Where the batch axis goes in each output; None only for an output that does not depend on the
        batch. Default 0.
    axis_size : int, optional
        The batch size, needed only when no argument is mapped (every ``in_axes`` None).

    Returns
    -------
    callable
        ``batched(*args)``: the outputs of ``fun``, each with an axis of the batch size at its ``out_axes``
        (an output that does not depend on the batch is broadcast along it), of the arguments' backend.

    Raises
    ------
    ValueError
        If ``in_axes`` does not match the arguments' structure, a mapped axis is out of range for its
        argument, the mapped arguments disagree on the batch size (the message names each argument and
        its size), no argument is mapped and ``axis_size`` is not given, or ``out_axes`` is None for an
        output that depends on the batch or is out of range.
    TypeError
        If ``fun`` turns a batched value into a Python value (``bool()``, ``float()``, ``int()``, ``if x > 0:``):
        each example could give another; write ``adcore.numpy.where(condition, x, y)`` instead.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad, vmap
    >>> w = np.array([1.0, 2.0])
    >>> per_example_grads = vmap(grad(lambda w, x: np.sum(np.tanh(x * w))), in_axes=(None, 0))
    >>> per_example_grads(w, np.ones((5, 2))).shape
    (5, 2)
    """

    def batched(*args):
        axes = in_axes
        if not (axes is None or isinstance(axes, int)):
            if not isinstance(axes, (tuple, list)) or len(axes) != len(args):
                raise ValueError(
                    f"vmap: in_axes must be an int, None, or a tuple of one entry per positional argument; got "
                    f"{in_axes!r} for {len(args)} argument{'s' if len(args) != 1 else ''}"
                )
        leaves = []
        for i, arg in enumerate(args):
            _leaves(arg, axes if axes is None or isinstance(axes, int) else axes[i], f"argument {i}", leaves)
        sizes = {}
        mapped = []
        for path, leaf, axis in leaves:
            if axis is None:
                mapped.append((leaf, None))
                continue
            shape = shapes.shape(leaf)
            axis = _normalized(axis, len(shape), path, "in_axes") if shape else None
            if axis is None:
                raise ValueError(f"vmap: {path} is a 0-d value, which has no axis {axis} to map; give it in_axes None")
            sizes[path] = shape[axis]
            mapped.append((leaf, axis))
        if len(set(sizes.values())) > 1:
            listed = ", ".join(f"{path} has size {n}" for path, n in sizes.items())
            raise ValueError(f"vmap: the mapped axes have different sizes: {listed}")
        if sizes:
            size = next(iter(sizes.values()))
            if axis_size is not None and axis_size != size:
                raise ValueError(f"vmap: axis_size {axis_size} differs from the size {size} of the mapped axes")
        elif axis_size is None:
            raise ValueError("vmap: no argument is mapped (every in_axes is None); give axis_size, the batch size")
        else:
            size = axis_size
        trace_id = next_trace_id()
        node = BatchNode(size, trace_id)
        boxed = iter(
            leaf if axis is None else BatchBox(leaf if axis == 0 else shapes.moveaxis(leaf, axis, 0), trace_id, node)
            for leaf, axis in mapped
        )
        out = fun(*_rebuild(list(args), boxed))
        return _unbatched(out, out_axes, node, size)

    batched.__name__ = f"vmap({getattr(fun, '__name__', 'fun')})"
    batched.__doc__ = fun.__doc__
    return batched


def batched_rows(fun, rows):
    """``stack([fun(row) for row in rows])`` computed as one batch (``vmap(fun)(rows)``), for adcore's own
    batches (``jacfwd``'s basis tangents): a primitive without a batching rule is looped over silently.
    ``rows`` is an array; ``fun`` returns an array."""
    size = shapes.shape(rows)[0]
    node = BatchNode(size, next_trace_id(), warn=False)
    return _unbatched(fun(BatchBox(rows, node.trace_id, node)), 0, node, size)


def _unbatched(out, out_axes, node, size):
    leaves = []
    _leaves(out, out_axes, "output", leaves)
    values = []
    for path, leaf, axis in leaves:
        is_batched = _is_batched(leaf, node.trace_id)
        if axis is None:
            if is_batched:
                raise ValueError(f"vmap: out_axes is None for {path}, which depends on the batch; give it an axis")
            values.append(leaf)
            continue
        if is_batched:
            value = leaf._value
        else:
            value = leaf if array_backend(_raw(leaf)) is not None else shapes.asarray(leaf)
            value = shapes.broadcast_to(shapes.reshape(value, (1, *shapes.shape(value))), (size, *shapes.shape(value)))
        axis = _normalized(axis, shapes.ndim(value), path, "out_axes")
        values.append(value if axis == 0 else shapes.moveaxis(value, 0, axis))
    return _rebuild(out, iter(values))
