"""Python containers (``tuple``, ``list``, ``dict``) as differentiable values.

A traced container is a :class:`SequenceBox` or :class:`DictBox`; reading an
item is the primitive ``container_take``, whose VJP puts the cotangent back at
that item with zeros elsewhere. The vector space of a container is the product
of its items' spaces, so gradients have the structure of the input.
"""

from .core import Box, VSpace, defjvp, defjvp_argnum, defvjp, defvjp_argnum, primitive, vspace


@primitive
def container_take(container, index):
    """``container[index]``."""
    return container[index]


@primitive
def container_untake(x, index, vs):
    """The adjoint of ``container_take``: a container of ``vs`` holding ``x`` at ``index``, zeros elsewhere."""
    items = vs.items(vs.zeros())
    items[index] = x
    return vs.rebuild(items)


@primitive
def make_container(container_type, keys, *values):
    """A ``container_type`` (``tuple``, ``list`` or ``dict`` with ``keys``) of ``values``, traced item by item."""
    return dict(zip(keys, values)) if container_type is dict else container_type(values)


defvjp(container_take, lambda ans, container, index: _untake_f(vspace(container), index))
defjvp(container_take, "same")
defvjp(container_untake, lambda ans, x, index, vs: lambda g: container_take(g, index))
defjvp(container_untake, "same")
defvjp_argnum(make_container, lambda argnum, ans, args, kwargs: _take_f(args[1], argnum - 2))
defjvp_argnum(make_container, lambda argnum, g, ans, args, kwargs: container_untake(g, _key(args[1], argnum - 2), vspace(ans)))


def _untake_f(vs, index):
    return lambda g: container_untake(g, index, vs)


def _take_f(keys, position):
    index = _key(keys, position)
    return lambda g: container_take(g, index)


def _key(keys, position):
    return position if keys is None else keys[position]


class SequenceBox(Box):
    """A traced ``tuple`` or ``list``."""

    __slots__ = []

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


SequenceBox.register(tuple)
SequenceBox.register(list)
DictBox.register(dict)


class ContainerVSpace(VSpace):
    """The product of the spaces of a container's items."""

    def __init__(self, value):
        self.container_type = type(value)
        self.keys = tuple(value) if isinstance(value, dict) else None
        self.spaces = [vspace(item) for item in self.items(value)]
        self.size = sum(vs.size for vs in self.spaces)
        self.iscomplex = any(vs.iscomplex for vs in self.spaces)
        self.differentiable = all(vs.differentiable for vs in self.spaces)

    def items(self, container):
        """The items of ``container`` as a list indexable like the container (by key for a dict)."""
        return dict(container) if self.keys is not None else list(container)

    def rebuild(self, items):
        if self.keys is not None:
            return {key: items[key] for key in self.keys}
        return self.container_type(items)

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

    def randn(self, rng):
        return self._map(lambda vs: vs.randn(rng))

    def add(self, x, y):
        return self._map(lambda vs, a, b: vs.add(a, b), x, y)

    def scalar_mul(self, x, a):
        return self._map(lambda vs, item: vs.scalar_mul(item, a), x)

    def inner_prod(self, x, y):
        positions = range(len(self.spaces)) if self.keys is None else self.keys
        return sum(vs.inner_prod(x[i], y[i]) for i, vs in zip(positions, self.spaces))

    def covector(self, x):
        return self._map(lambda vs, item: vs.covector(item), x)

    def standard_basis(self):
        zeros = self.zeros()
        positions = range(len(self.spaces)) if self.keys is None else self.keys
        for i, vs in zip(positions, self.spaces):
            for basis_vector in vs.standard_basis():
                items = self.items(zeros)
                items[i] = basis_vector
                yield self.rebuild(items)


for _container_type in (tuple, list, dict):
    ContainerVSpace.register(_container_type)
