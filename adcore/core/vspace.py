"""Vector spaces of traced values: where zeros, ones and cotangent sums come from.

``vspace(x)`` returns the :class:`VSpace` of ``x`` (shape, dtype, backend and
device for arrays; the spaces of the items for containers). Subclasses
implement the raw operations; this module imports no array library.
"""

import os
from contextlib import contextmanager
from contextvars import ContextVar

from .tracer import Box, TypeMap, getval, primitive

#: Whether each rule's output is checked against its space as it is made (``set_debug``, ``ADCORE_DEBUG=1``,
#: and always inside ``check_grads``).
checking_rules = ContextVar("adcore_checking_rules", default=os.environ.get("ADCORE_DEBUG", "0") not in ("", "0"))


class VSpace:
    """The space a value lives in. Subclasses set ``size``, ``iscomplex`` and
    ``differentiable`` (False for integer and boolean arrays), and implement
    ``zeros``, ``ones``, ``standard_basis`` and ``randn``.

    ``add``, ``scalar_mul``, ``inner_prod`` and ``covector`` are primitives
    (differentiable, with the rules of ``reverse.py`` and ``forward.py``) that
    call the hooks ``_add``, ``_scalar_mul``, ``_inner_prod`` and ``_covector``,
    as in autograd: a user's space overrides the hooks (``_add`` is ``x + y``,
    ``_scalar_mul`` is ``x * a`` and ``_covector`` is ``x`` unless overridden;
    ``_inner_prod`` has no default). The array and container spaces override the
    public methods themselves, with functions that are primitives already.
    """

    __slots__ = []
    mappings = TypeMap("adcore has no vector space for")
    iscomplex = False
    differentiable = True
    #: False where ``add`` is a static method (it needs nothing of the space, e.g. elementwise
    #: addition of arrays): ``accumulate`` then calls it without building a space per sum.
    add_needs_space = True

    def zeros(self):
        raise NotImplementedError

    def ones(self):
        raise NotImplementedError

    def standard_basis(self):
        raise NotImplementedError

    def randn(self, rng=None):
        """A random vector of the space, standard normal entries drawn from ``rng`` (a NumPy
        ``Generator`` or ``numpy.random``; None: NumPy's global generator, as autograd's ``randn()``)."""
        raise NotImplementedError

    @primitive
    def add(self, x, y):
        return self._add(x, y)

    def add_into(self, x, y):
        """``x + y``, written into ``x`` where the space can (``x`` is a buffer the caller owns)."""
        return self.add(x, y)

    @primitive
    def scalar_mul(self, x, a):
        return self._scalar_mul(x, a)

    @primitive
    def inner_prod(self, x, y):
        return self._inner_prod(x, y)

    @primitive
    def covector(self, x):
        """The dual vector of ``x`` (its complex conjugate for complex spaces)."""
        return self._covector(x)

    def _add(self, x, y):
        return x + y

    def _scalar_mul(self, x, a):
        return x * a

    def _inner_prod(self, x, y):
        raise NotImplementedError(f"{type(self).__name__} defines no inner product (_inner_prod)")

    def _covector(self, x):
        return x

    def copy(self, value):
        """A copy of ``value`` that nothing else holds (:class:`Lent`'s ``dense``); the default is ``value * 1``."""
        return self.scalar_mul(value, 1.0)

    def writable(self, value):
        """``value``, a derivative in this space about to be returned to the user, as one whose arrays can be
        written entry by entry (the array layer copies a broadcast view, whose entries share memory); the
        default returns it unchanged."""
        return value

    def mismatch(self, value):
        """None if ``value`` (a rule's tangent or cotangent) fits this space, else how it differs
        (``"shape (3,) instead of (2, 3)"``); spaces that check nothing (the default) give None."""
        return None

    def __eq__(self, other):
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __repr__(self):
        return f"{type(self).__name__}({self.__dict__})"

    @classmethod
    def register(cls, value_type, vspace_maker=None):
        VSpace.mappings[value_type] = vspace_maker or cls


def vspace(value):
    """The :class:`VSpace` of ``value`` (of its raw value, for a box).

    Raises
    ------
    TypeError
        If no vector space is registered for the type of ``value``.
    """
    value = getval(value) if type(value) in Box.types else value
    return VSpace.mappings.of(value)(value)


#: The types of cotangents that hold only part of a value (``adcore.builtins.SparseCotangent``): each
#: has ``dense()``, which the backward pass applies before any rule that does not name its saved
#: values sees one, and to the cotangent it returns.
sparse_cotangents = set()


def dense(g):
    """``g``, or ``g.dense()`` if it is a sparse cotangent (see ``sparse_cotangents``)."""
    return g.dense() if type(g) in sparse_cotangents else g


class Ones:
    """The cotangent whose entries are all 1 in ``space``, held as its space alone: the seed of a backward pass
    that pulls back ones (``grad``'s). A rule that declares it reads its cotangent only as a factor (``takes_lazy``:
    an elementwise product, a sum's broadcast) gives its partial derivative, or a ``Ones`` of its argument's space,
    instead of multiplying by 1 (a kernel launch on a GPU and a pass over memory, each); every other rule sees
    ``dense()``, the array of ones."""

    __slots__ = ["space"]

    def __init__(self, space):
        self.space = space

    def dense(self):
        return self.space.ones()


class Lent:
    """A value of the trace (an argument or the output of a node) lent as a cotangent, where a rule that was given
    :class:`Ones` returns its partial derivative without copying it: a rule that declares it reads its cotangent
    only (``takes_lazy``) reads ``value``, and every other use makes ``dense()``, a copy, so that no buffer of the
    trace is written by the pass or handed to the user."""

    __slots__ = ["value"]

    def __init__(self, value):
        self.value = value

    def dense(self):
        return vspace(self.value).copy(self.value)


#: The cotangents that stand for an array without being one (:class:`Ones`, :class:`Lent`).
lazy_cotangents = (Ones, Lent)
sparse_cotangents.update(lazy_cotangents)


def unlent(g):
    """``g`` with a :class:`Lent` value read in place and :class:`Ones` made an array: the operand of a sum, which
    reads it and writes only into a buffer the pass owns."""
    kind = type(g)
    return g.value if kind is Lent else g.dense() if kind is Ones else g


def accumulate(prev, new):
    """``prev + new`` (cotangents or tangents) in their space; ``prev`` None means nothing yet."""
    if prev is None:
        return new
    prev, new = unlent(prev), unlent(new)
    return _adding_space(new).add(prev, new)


def accumulate_into(owned, new):
    """``owned + new``, written into ``owned`` where its space can (``VSpace.add_into``): the
    backward pass owns that buffer, so nobody else sees it change."""
    return _adding_space(owned).add_into(owned, unlent(new))


def _adding_space(value):
    """The space that adds ``value``: its class where ``add`` needs no space (``add_needs_space``)."""
    value = getval(value)
    space = VSpace.mappings.of(value)
    return space(value) if getattr(space, "add_needs_space", True) else space


def set_debug(on=True):
    """Check every rule's output as it is made (in this thread and context): a VJP's cotangent must have
    its argument's shape and dtype, a JVP's tangent its output's, else ``ValueError`` names the primitive
    and the argnum. ``ADCORE_DEBUG=1`` turns it on for the process; ``check_grads`` always checks.

    Off by default: checking about doubles the time per primitive (a vector space per argument at trace
    time and a comparison per rule; measured on a scalar chain, NumPy), while off costs one context
    variable read per recorded call (about 20 ns of the 6 us a primitive takes). Without it, a backward
    pass still checks the input's cotangent once, at its end.
    """
    checking_rules.set(bool(on))


@contextmanager
def rules_checked():
    """Check every rule's output inside the block (see ``set_debug``)."""
    token = checking_rules.set(True)
    try:
        yield
    finally:
        checking_rules.reset(token)


def check_rule_output(space, value, rule, what):
    """Raise ``ValueError`` if ``value``, the ``what`` (tangent or cotangent) returned by ``rule``, does not fit ``space``."""
    problem = space.mismatch(getval(unlent(value)))
    if problem is not None:
        raise ValueError(f"{rule} returned a {what} of {problem} (adcore.set_debug checks rules)")
