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
has that axis. Each rule is a fact of the op table (``adcore.core.ops``: ``Op.batching``, written beside
the declarations by ``adcore.numpy.batching``), or its family's default (a primitive of the elementwise
family broadcasts); ``batching_rules`` holds a user's own, keyed by primitive, read first. A primitive
without a rule is computed by a loop over the examples (one call per example, then a stack), with a
``VmapFallbackWarning`` naming it, once per ``vmap`` call.
"""

import warnings

import numpy as _np

from backends import array_backend, default_backend, register_traced_type

from . import numpy as anp
from .core import Box, Node, VSpace, next_trace_id
from .core.ops import ON_THE_BOXES, batching_defaults, ops, primitive_under
from .numpy import ArrayBox, ArrayVSpace

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
        rule = batching_rules.get(fun) if batching_rules else None
        if rule is None:
            op = ops.get(fun)  # family_rule, inline: this runs for every primitive of the batch
            rule = None if op is None else op.batching or batching_defaults.get(op.family)
        if rule is ON_THE_BOXES:
            return fun.fun(*args, **kwargs)
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
            return tuple(anp.stack(list(items)) for items in zip(*rows)), (True,) * len(rows[0])
        return anp.stack(rows), True


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

    shape = property(lambda self: anp.shape(self._value)[1:])
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


# ---- batching rules: the op table's (adcore.numpy.batching) ----


def has_batching_rule(fun):
    """Whether ``vmap`` computes the primitive under ``fun`` by a batching rule (else by a loop over the examples)."""
    fun = primitive_under(fun)
    return fun in batching_rules or family_rule(fun) is not None


def family_rule(fun):
    """The batching rule of ``fun``'s op-table entry: the one it was declared with, else its family's default
    (broadcasting, for the elementwise family); None for a primitive the table gives none."""
    op = ops.get(fun)
    return None if op is None else op.batching or batching_defaults.get(op.family)


#: ``primitive -> batching rule`` of a user's own (see the module docstring), read before the op table's;
#: a primitive with neither is computed by a loop over the examples.
batching_rules = {}


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
            shape = anp.shape(leaf)
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
            leaf if axis is None else BatchBox(leaf if axis == 0 else anp.moveaxis(leaf, axis, 0), trace_id, node)
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
    size = anp.shape(rows)[0]
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
            value = leaf if array_backend(_raw(leaf)) is not None else anp.asarray(leaf)
            value = anp.broadcast_to(anp.reshape(value, (1, *anp.shape(value))), (size, *anp.shape(value)))
        axis = _normalized(axis, anp.ndim(value), path, "out_axes")
        values.append(value if axis == 0 else anp.moveaxis(value, 0, axis))
    return _rebuild(out, iter(values))
