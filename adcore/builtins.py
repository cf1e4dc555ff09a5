"""Python containers (``tuple``, ``list``, ``dict``, namedtuples) as differentiable values.

A traced container is a :class:`SequenceBox` or :class:`DictBox`; reading an
item is the primitive ``container_take``, whose VJP puts the cotangent back at
that item with zeros elsewhere. The vector space of a container is the product
of its items' spaces, so gradients have the structure of the input.

As in ``autograd.builtins``: ``isinstance`` and ``type`` see through boxes, and
``tuple``, ``list`` and ``dict`` build traced containers from traced items.
"""

import builtins
import weakref

from .core import (
    Box,
    VSpace,
    accumulate,
    defjvp,
    defjvp_argnum,
    defvjp_saved_values,
    dense,
    getval,
    isbox,
    notrace_primitive,
    output_joiners,
    packing,
    primitive,
    snapshot_value,
    snapshots,
    sparse_cotangents,
    vspace,
)
from .core.ops import def_signature_only

isinstance = notrace_primitive(builtins.isinstance)
type = notrace_primitive(builtins.type)
def_signature_only(isinstance, type)


def build_container(container_type, items):
    """A ``container_type`` of ``items`` (a mapping's items for a dict type; positional fields for a namedtuple)."""
    if builtins.issubclass(container_type, builtins.dict):
        return container_type(items)
    if builtins.hasattr(container_type, "_fields"):
        return container_type(*items)
    return container_type(items)


@primitive
def container_take(container, index):
    """``container[index]``."""
    return container[index]


@primitive
def container_untake(x, index, vs):
    """The adjoint of ``container_take``: a container of ``vs`` holding ``x`` at ``index``, zeros elsewhere.

    The zeros of an array item are a read-only broadcast of one zero (nothing is allocated), recorded
    as such (:func:`_is_untake_zero`) so that adding them is skipped: the gradient of a tuple of ``n``
    parameters sums ``n`` of these containers, which would otherwise allocate ``n`` zeros of every
    parameter and make ``n`` passes over it (about a third of an MLP gradient's time, single-threaded).
    """
    zeros = [_untake_zero(item_vs) for item_vs in vs.spaces]
    items = zeros if vs.keys is None else builtins.dict(builtins.zip(vs.keys, zeros))
    items[index] = x  # the container's own assignment: negative indices and slices as in container_take
    return vs.rebuild(items)


def _untake_zero(vs):
    backend = getattr(vs, "backend", None)
    if backend is None:  # a container item
        return vs.zeros()
    zero = backend.broadcast_to(backend.zeros((), dtype=vs.dtype, device=vs.device), vs.shape)
    _record_untake_zero(zero)
    return zero


#: ``id -> array`` for the zeros made by ``container_untake`` that are still alive.
_untake_zeros = weakref.WeakValueDictionary()


def _record_untake_zero(zero):
    try:
        _untake_zeros[builtins.id(zero)] = zero
    except TypeError:  # a value that cannot be weakly referenced is simply added, as any other
        pass


def _is_untake_zero(value):
    value = getval(value)
    return _untake_zeros.get(builtins.id(value)) is value


@primitive
def make_container(container_type, keys, *values):
    """A ``container_type`` (a sequence type, or a dict type with ``keys``) of ``values``, traced item by item."""
    return build_container(container_type, values if keys is None else builtins.zip(keys, values))


packing.add(make_container)


class SparseCotangent:
    """The cotangent of a container in a first-order backward pass, holding only the items read.

    Reading item ``i`` of a traced container gives the container the cotangent
    ``{i: g}`` (not a container of zeros with ``g`` at ``i``), and the backward pass
    adds such cotangents by filling items in place (:meth:`add_into`): a gradient
    with respect to ``n`` parameters read once each costs ``O(n)``, not ``O(n**2)``.
    The rules of the container primitives read it as it is; every other rule, and the
    user, get :meth:`dense` (the container, with zeros for the items never read).

    Attributes
    ----------
    container : tuple, list or dict
        The raw container whose cotangent this is.
    items : dict
        Position (an int; a key for a dict) -> the cotangent of that item (itself sparse
        for a container item).
    """

    __slots__ = ["container", "items"]

    def __init__(self, container, items):
        self.container = container
        self.items = items

    def positions(self):
        return builtins.list(self.container) if builtins.isinstance(self.container, builtins.dict) else range(len(self.container))

    def item(self, position):
        """The cotangent of item ``position`` (zeros if it was never read)."""
        g = self.items.get(position)
        return vspace(self.container[position]).zeros() if g is None else g

    def dense(self):
        """The cotangent as a container of the container's type, zeros where no item was read."""
        return _rebuild_like(self.container, [dense(self.item(position)) for position in self.positions()])

    @staticmethod
    def add(x, y):
        """``x + y`` for cotangents of one container, one of them sparse: sparse if both are."""
        if builtins.type(x) is not SparseCotangent:
            x, y = y, x
        if builtins.type(y) is SparseCotangent:
            return SparseCotangent.add_into(SparseCotangent(x.container, builtins.dict(x.items)), y)
        items = {position: y[position] for position in x.positions()}
        for position, g in x.items.items():
            items[position] = accumulate(items[position], g)
        return _rebuild_like(x.container, builtins.list(items.values()))

    @staticmethod
    def add_into(x, y):
        """``x + y``, the items of ``y`` added into the sparse ``x`` (which the caller owns)."""
        if builtins.type(x) is not SparseCotangent or builtins.type(y) is not SparseCotangent:
            return SparseCotangent.add(x, y)
        for position, g in y.items.items():
            x.items[position] = accumulate(x.items.get(position), g)
        return x

    add_needs_space = False


def _shaped_like(item, g):
    """``g``, the cotangent of ``item``, as a container like it where ``item`` is a list or tuple and ``g``
    an array (the cotangent an array function's rule gives a nested list it took whole): one item per
    row (traced when ``g`` is), as autograd's sum into a container of zeros makes it."""
    sequences = (builtins.list, builtins.tuple)
    if not builtins.isinstance(item, sequences) or builtins.isinstance(getval(g), (*sequences, SparseCotangent)):
        return g
    return make_container(builtins.type(item), None, *(_shaped_like(sub, g[i]) for i, sub in builtins.enumerate(item)))


def _rebuild_like(container, values):
    """A container of ``container``'s type (and keys, for a dict) holding ``values``, in order."""
    if builtins.isinstance(container, builtins.dict):
        return build_container(builtins.type(container), builtins.zip(container, values))
    return build_container(builtins.type(container), values)


def _position(container, index):
    """The position that ``container[index]`` reads (negative indices counted from the end)."""
    return index if builtins.isinstance(container, builtins.dict) else range(len(container))[index]


def _untake_sparse(g, container, index):
    """``container_untake`` in a first-order backward pass: ``g`` at ``index`` of ``container``, sparse."""
    container = getval(container)  # the raw container also under an outer trace: only its structure is read
    if builtins.isinstance(index, slice):
        positions = range(len(container))[index]
        items = g.items if builtins.type(g) is SparseCotangent else builtins.dict(builtins.enumerate(g))
        return SparseCotangent(container, {positions[i]: item for i, item in items.items()})
    return SparseCotangent(container, {_position(container, index): g})


def _take(g, index):
    """Item ``index`` of a cotangent ``g`` of a container: sparse, a container, or an array (the cotangent a
    user's VJP gives a list it took whole, one row per item), which is indexed as an array (its own rule)."""
    if builtins.type(g) is not SparseCotangent:
        return container_take(g, index) if _container_box(getval(g)) else g[index]
    if builtins.isinstance(index, slice):
        return container_take(g.dense(), index)
    return g.item(_position(g.container, index))


def _untake(g, container, index):
    """The VJP of ``container_take``: sparse in a first-order pass, also one inside ``vmap`` (whose batch boxes the
    sparse cotangent holds as items), a traced container under a differentiating trace."""
    g = _shaped_like(getval(container)[index], g)
    if builtins.type(g) in Box.see_through:
        return container_untake(g, index, vspace(container))
    return _untake_sparse(g, container, index)


VSpace.register(SparseCotangent, SparseCotangent)
sparse_cotangents.add(SparseCotangent)

defvjp_saved_values(container_take, lambda g, owned, ans, args, kwargs, argnums: ((_untake(g, args[0], args[1]),), True))
defjvp(container_take, "same")
defvjp_saved_values(container_untake, lambda g, owned, ans, args, kwargs, argnums: ((_take(g, args[1]),), False))
defjvp(container_untake, "same")
_NUMBERS = (builtins.int, builtins.float, builtins.complex)


def _item_cotangent(g, item):
    """``g``, the cotangent of a container's ``item``; a Python number given for an array item (a user's VJP
    may return ``0.0`` for an item of a list it took, as autograd accepts) made an array of the item's space."""
    if builtins.type(g) in _NUMBERS and builtins.type(getval(item)) not in _NUMBERS:
        return vspace(item).zeros() + g
    return g


defvjp_saved_values(
    make_container,
    lambda g, owned, ans, args, kwargs, argnums: (
        tuple(_item_cotangent(_take(g, _key(args[1], argnum - 2)), args[argnum]) for argnum in argnums),
        False,
    ),
)
defjvp_argnum(make_container, lambda argnum, g, ans, args, kwargs: container_untake(g, _key(args[1], argnum - 2), vspace(ans)))


def _key(keys, position):
    return position if keys is None else keys[position]


class SequenceBox(Box):
    """A traced ``tuple``, ``list`` or namedtuple (whose fields read as attributes)."""

    __slots__ = []

    def __getattr__(self, name):
        fields = builtins.getattr(builtins.type(self._value), "_fields", ())
        if name in fields:
            return self[fields.index(name)]
        raise AttributeError(f"{builtins.type(self._value).__name__!r} object has no attribute {name!r}")

    def __getitem__(self, index):
        return container_take(self, index)

    def __len__(self):
        return len(self._value)

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class DictBox(Box):
    """A traced ``dict``."""

    __slots__ = []

    def __getitem__(self, key):
        return container_take(self, key)

    def __len__(self):
        return len(self._value)

    def __iter__(self):
        return iter(self._value)

    def __contains__(self, key):
        return key in self._value

    def keys(self):
        return self._value.keys()

    def values(self):
        return [self[key] for key in self._value]

    def items(self):
        return [(key, self[key]) for key in self._value]

    def get(self, key, default=None):
        return self[key] if key in self._value else default


SequenceBox.register(builtins.tuple)
SequenceBox.register(builtins.list)
DictBox.register(builtins.dict)


def _container_box(value):
    """Tuple and dict subclasses (namedtuples, OrderedDict) box like their bases."""
    if builtins.isinstance(value, (builtins.tuple, builtins.list)):
        return SequenceBox
    return DictBox if builtins.isinstance(value, builtins.dict) else None


Box.type_mappings.resolvers.append(_container_box)


def _container_snapshot(value):
    """A container of the items' snapshots (``snapshot_value``); the container itself if no item needs one."""
    if builtins.type(value) is builtins.tuple and builtins.all(builtins.type(item) is builtins.int for item in value):
        return value  # a shape or axes: nothing to copy
    keys = builtins.list(value) if builtins.isinstance(value, builtins.dict) else builtins.range(len(value))
    items = [value[key] for key in keys]
    copies = [snapshot_value(item) for item in items]
    if all(copy is item for copy, item in zip(copies, items)):
        return value
    if builtins.isinstance(value, builtins.dict):
        return build_container(builtins.type(value), builtins.zip(keys, copies))
    return build_container(builtins.type(value), copies)


snapshots.resolvers.append(lambda value: _container_snapshot if _container_box(value) else None)


def _add_item(a, b):
    """``a + b``, skipping a zero item of ``container_untake``'s (it adds nothing)."""
    if _is_untake_zero(a):
        return b
    if _is_untake_zero(b):
        return a
    return accumulate(a, b)


class ContainerVSpace(VSpace):
    """The product of the spaces of a container's items."""

    def __init__(self, value):
        self.container_type = builtins.type(value)
        self.keys = builtins.tuple(value) if builtins.isinstance(value, builtins.dict) else None
        self.spaces = [vspace(item) for item in (value.values() if self.keys is not None else value)]
        self.size = sum(vs.size for vs in self.spaces)
        self.iscomplex = any(vs.iscomplex for vs in self.spaces)
        self.differentiable = all(vs.differentiable for vs in self.spaces)

    def items(self, container):
        """The items of ``container`` as a list indexable like the container (by key for a dict)."""
        return builtins.dict(container) if self.keys is not None else builtins.list(container)

    def rebuild(self, items):
        if self.keys is not None:
            return build_container(self.container_type, [(key, items[key]) for key in self.keys])
        return build_container(self.container_type, items)

    def _map(self, fun, *containers):
        """A container of ``fun(item space, *items)``; traced when an item is (so a sum of
        traced cotangents is itself one traced value)."""
        positions = range(len(self.spaces)) if self.keys is None else self.keys
        values = [fun(vs, *(c[i] for c in containers)) for i, vs in zip(positions, self.spaces)]
        return make_container(self.container_type, self.keys, *values)

    def zeros(self):
        return self._map(lambda vs: vs.zeros())

    def ones(self):
        return self._map(lambda vs: vs.ones())

    def randn(self, rng=None):
        return self._map(lambda vs: vs.randn(rng))

    @staticmethod
    def add(x, y):
        """``x + y`` item by item (traced if an item is), with no space built: the backward pass
        adds cotangents of containers often. Either may be a :class:`SparseCotangent`, and one may be
        an array: the cotangent of a list that an array function took (``np.append(a_list, b)``), as
        autograd's rules give, added row by row."""
        if builtins.type(x) is SparseCotangent or builtins.type(y) is SparseCotangent:
            return SparseCotangent.add(x, y)
        raw = getval(x)
        if not builtins.isinstance(raw, (builtins.list, builtins.tuple, builtins.dict)):
            raw = getval(y)
        keys = builtins.tuple(raw) if builtins.isinstance(raw, builtins.dict) else None
        positions = range(len(raw)) if keys is None else keys
        return make_container(builtins.type(raw), keys, *(_add_item(x[i], y[i]) for i in positions))

    add_into = add
    add_needs_space = False

    def scalar_mul(self, x, a):
        return self._map(lambda vs, item: vs.scalar_mul(item, a), x)

    def inner_prod(self, x, y):
        positions = range(len(self.spaces)) if self.keys is None else self.keys
        return sum(vs.inner_prod(x[i], y[i]) for i, vs in zip(positions, self.spaces))

    def covector(self, x):
        return self._map(lambda vs, item: vs.covector(item), x)

    def writable(self, value):
        """Item by item (``adcore.jit`` boxes the container it records, and records the copies too)."""
        return self._map(lambda vs, item: vs.writable(item), value)

    def standard_basis(self):
        zeros = self.zeros()
        positions = range(len(self.spaces)) if self.keys is None else self.keys
        for i, vs in zip(positions, self.spaces):
            for basis_vector in vs.standard_basis():
                items = self.items(zeros)
                items[i] = basis_vector
                yield self.rebuild(items)


for _container_type in (builtins.tuple, builtins.list, builtins.dict):
    ContainerVSpace.register(_container_type)
VSpace.mappings.resolvers.append(lambda value: ContainerVSpace if _container_box(value) else None)


def container(value):
    """``value``, a (nested) container holding traced arrays, as one traced container.

    Containers holding anything else (strings, None) are returned as they are.
    """
    if not _container_box(value) or not _traced_leaves(value):
        return value
    return _traced(value)


def joined_output(value):
    """A differentiated function's returned container as one traced value (``container``), so that
    ``make_vjp`` and ``make_jvp`` differentiate each item and return no box (``output_joiners``).

    Raises
    ------
    TypeError
        If traced items sit beside an item that is no array or number (a string, None...): the
        container cannot be one differentiable value, and returning it would leak traced values.
    """
    leaves = _leaves(value)
    if builtins.any(isbox(leaf) for leaf in leaves):
        other = next((leaf for leaf in leaves if not _is_array_or_number(leaf)), None)
        if other is not None:
            raise TypeError(
                f"the differentiated function returned a {builtins.type(value).__name__} holding a "
                f"{builtins.type(other).__name__} beside traced values; return arrays, scalars, or tuples, lists and dicts "
                "of them (pass other values out through grad_and_aux or a closure)"
            )
    return container(value)


output_joiners.resolvers.append(lambda value: joined_output if _container_box(value) else None)


def _traced(value):
    if not _container_box(value):
        return value
    keys = builtins.tuple(value) if builtins.isinstance(value, builtins.dict) else None
    items = [value[key] for key in keys] if keys is not None else value
    return make_container(builtins.type(value), keys, *(_traced(item) for item in items))


def _traced_leaves(value):
    """Whether ``value``'s leaves are all arrays or numbers, at least one of them traced."""
    leaves = _leaves(value)
    return builtins.any(isbox(leaf) for leaf in leaves) and builtins.all(_is_array_or_number(leaf) for leaf in leaves)


def _is_array_or_number(leaf):
    return (
        isbox(leaf)
        or builtins.hasattr(leaf, "shape")
        or builtins.isinstance(leaf, (builtins.int, builtins.float, builtins.complex))
    )


def _leaves(value):
    if builtins.isinstance(value, builtins.dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if builtins.isinstance(value, (builtins.tuple, builtins.list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


class _ContainerType(builtins.type):
    """The type of ``tuple``, ``list`` and ``dict`` below: ``isinstance(x, list)`` is true of plain
    lists too, and of traced ones (the value inside the box is looked at), as with autograd's, so code
    may test either name."""

    def __instancecheck__(cls, instance):
        return builtins.isinstance(getval(instance), cls.__mro__[1])


class tuple(builtins.tuple, metaclass=_ContainerType):
    """A tuple of ``value``'s items, traced if any is (``autograd.builtins.tuple``)."""

    def __new__(cls, value=()):
        return container(builtins.tuple(value))


class list(builtins.list, metaclass=_ContainerType):
    """A list of ``value``'s items, traced if any is (``autograd.builtins.list``)."""

    def __new__(cls, value=()):
        return container(builtins.list(value))


class dict(builtins.dict, metaclass=_ContainerType):
    """A dict, traced if any value is (``autograd.builtins.dict``)."""

    def __new__(cls, *args, **kwargs):
        return container(builtins.dict(*args, **kwargs))
