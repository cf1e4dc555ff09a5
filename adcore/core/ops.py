"""The op table: every fact about a primitive that a pass asks, declared once beside the primitive.

A family module (``adcore.numpy.elementwise``, ...) declares each primitive with one call of a
declaration helper, which writes one :class:`Op` here. The passes read the table, never a rule's
code: the backward pass (what a node keeps), the batched pullbacks of ``jacrev``
(:attr:`Op.batch_safe`, :mod:`adcore.core.batching`), ``adcore.vmap`` (``family``, ``batching``),
the jit (``api``, ``propagates_nan``, ``fusion``, ``signature_only``, ``value_shaped``, ``mask_argument``) and the
coverage report (``kind``, and the derivatives declared not implemented). The model is
JAX's ``ad.py`` (``defjvp2`` *declares* that a rule reads the output; ``deflinear2``,
``defbilinear``, ``defjvp_zero`` name the mathematics) and tinygrad's ``GroupOp``.

The table is written while the modules that declare primitives are imported (and by a user's
``adcore.extend`` declarations of their own primitives, before they differentiate them); it is
only read afterwards. This module imports no array library.
"""

from .tracer import primitive_name

#: The mathematical kinds: ``elementwise`` (a diagonal Jacobian: each output entry is a function of
#: the entries at its position), ``linear``, ``bilinear``, ``zero`` (a zero derivative wherever it
#: exists: comparisons, rounding), ``general`` (anything else, with rules of its own).
KINDS = ("elementwise", "linear", "bilinear", "zero", "general")

#: What a rule may read besides the cotangent: the primitive's output, its arguments, both, or neither.
READS = ("output", "arguments", "both", "nothing")


class Op:
    """The facts of one primitive.

    Attributes
    ----------
    name : str
        adcore's (NumPy's) name.
    api : str or None
        The Array API name (or ``Backend`` method) that computes it, which the jit calls directly;
        None for a primitive computed by a function of its own.
    family : str
        The family module that declares it (``"elementwise"``), or ``"general"``.
    kind : str
        One of :data:`KINDS`.
    reads : tuple of str
        Per argument, what its rule reads (:data:`READS`): the node keeps the output only where a
        differentiated argument's rule reads it, and the arguments only where a rule reads them.
    batch_safe : bool
        Whether its VJP is correct for a cotangent with leading batch axes (implied by an elementwise
        family; declared by ``def_batch_safe_vjp`` for the others).
    propagates_nan : bool
        Whether its result holds a NaN wherever an argument does (the jit's deferred NaN masks).
    fusion : str or None
        How the jit's fuser writes a call of it: an expression of its operands ``{0}``, ``{1}`` in
        both numexpr and C, ``"call"`` for a function of one argument that C's math library has under
        the Array API name, or None where it is not fused.
    batching : callable, ON_THE_BOXES or None
        Its ``adcore.vmap`` batching rule (``adcore.numpy.batching``), where its family's default
        (:data:`batching_defaults`: broadcasting, for elementwise) does not do; :data:`ON_THE_BOXES` for one
        that ``vmap`` calls on the batch boxes themselves.
    signature_only : bool
        Whether its result depends on the shapes, dtypes and types of its arguments only, not on their
        values (``shape``, ``zeros_like``, ``result_type``): ``adcore.jit`` runs it while recording and
        keeps its result, a fact of the signature (:func:`def_signature_only`).
    value_shaped : bool
        Whether the shape of its result depends on the values of its arguments, not on their shapes alone
        (``nonzero``, ``argwhere``): ``adcore.jit`` refuses to record it (:func:`def_value_shaped`).
    mask_argument : int or None
        The position of the argument that selects entries (``getitem``'s index, 1): where it is a boolean
        mask, the shape of the result depends on the mask's values, and ``adcore.jit`` refuses to record the call.
    """

    __slots__ = [
        "name", "api", "family", "kind", "reads", "batch_safe", "propagates_nan", "fusion", "batching", "signature_only",
        "value_shaped", "mask_argument",
    ]

    def __init__(self, name, api=None, family="general", kind="general", reads=(), batch_safe=False, **facts):
        self.name, self.api, self.family, self.kind, self.reads = name, api, family, kind, tuple(reads)
        self.batch_safe = batch_safe
        self.propagates_nan = facts.pop("propagates_nan", False)
        self.fusion = facts.pop("fusion", None)
        self.batching = facts.pop("batching", None)
        self.signature_only = facts.pop("signature_only", False)
        self.value_shaped = facts.pop("value_shaped", False)
        self.mask_argument = facts.pop("mask_argument", None)
        if facts or kind not in KINDS or not set(self.reads) <= set(READS):
            raise ValueError(f"declaring {name}: unknown kind {kind!r}, reads {reads!r} or facts {sorted(facts)}")

    def __repr__(self):
        return f"Op({self.name!r}, api={self.api!r}, family={self.family!r}, kind={self.kind!r})"


#: ``primitive -> Op``: the op table.
ops = {}
#: ``Array API name -> Op``: the same entries by the name the jit records (two primitives of one name,
#: ``round`` and ``rint``, have the same facts).
apis = {}
#: ``family -> batching rule``: the rule of the primitives of a family that declare none of their own.
batching_defaults = {}
#: :attr:`Op.batching` of a primitive whose raw function ``adcore.vmap`` calls on the batch boxes themselves.
ON_THE_BOXES = "on the boxes"
#: ``function -> reason``: the functions whose derivative adcore declares it does not implement (they raise
#: ``NotImplementedError`` when differentiated: PyTorch's ``not_implemented``, apart from ``nondifferentiable``).
not_implemented = {}
#: ``name -> [argument, ...]``: the primitives whose derivative in those arguments raises (no closed form).
not_implemented_in = {}


def declare(fun, name, **facts):
    """Record the :class:`Op` of primitive ``fun`` (see its attributes for ``facts``); returns it."""
    op = ops[fun] = Op(name, **facts)
    if op.api is not None:
        apis[op.api] = op
    return op


def declare_facts(fun, **facts):
    """Set ``facts`` (attributes of :class:`Op`) on the entry of primitive ``fun``, declaring a general one,
    named after it, for a primitive that no family module declares; returns the entry."""
    op = ops.get(fun)
    if op is None:
        return declare(fun, primitive_name(fun), **facts)
    for fact, value in facts.items():
        setattr(op, fact, value)
    return op


def def_signature_only(*funs):
    """Declare that the results of ``funs`` depend on the shapes, dtypes and types of their arguments only
    (:attr:`Op.signature_only`)."""
    for fun in funs:
        declare_facts(fun, signature_only=True)


def def_value_shaped(*funs):
    """Declare that the shapes of the results of ``funs`` depend on the values of their arguments (:attr:`Op.value_shaped`)."""
    for fun in funs:
        declare_facts(fun, value_shaped=True)


def signature_only(fun):
    """Whether ``fun``'s entry declares it :attr:`~Op.signature_only` (False for a primitive without one)."""
    op = ops.get(fun)
    return op is not None and op.signature_only


def primitive_under(fun):
    """The primitive under ``fun``, a public function that may wrap it to fix its signature (``array_like``,
    ``functools.wraps``): the first in the ``__wrapped__`` chain that wraps its own raw function."""
    while getattr(fun, "__wrapped__", None) is not getattr(fun, "fun", None):
        fun = fun.__wrapped__
    return fun


def op_of(fun):
    """The :class:`Op` of ``fun``, or None for a primitive declared by no family."""
    return ops.get(fun)


def op_named(api):
    """The :class:`Op` computed by the Array API function ``api``, or None."""
    return apis.get(api)
