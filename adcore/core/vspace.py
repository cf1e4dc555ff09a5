"""Vector spaces of traced values: where zeros, ones and cotangent sums come from.

``vspace(x)`` returns the :class:`VSpace` of ``x`` (shape, dtype, backend and
device for arrays; the spaces of the items for containers). Subclasses
implement the raw operations; this module imports no array library.
"""

import os
from contextlib import contextmanager
from contextvars import ContextVar

from .tracer import Box, TypeMap, getval

#: Whether each rule's output is checked against its space as it is made (``set_debug``, ``ADCORE_DEBUG=1``,
#: and always inside ``check_grads``).
checking_rules = ContextVar("adcore_checking_rules", default=os.environ.get("ADCORE_DEBUG", "0") not in ("", "0"))


class VSpace:
    """The space a value lives in. Subclasses set ``size``, ``iscomplex`` and
    ``differentiable`` (False for integer and boolean arrays), and implement
    ``zeros``, ``ones``, ``standard_basis``, ``randn``, ``add``, ``scalar_mul``
    and ``inner_prod``."""

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

    def randn(self, rng):
        raise NotImplementedError

    def add(self, x, y):
        raise NotImplementedError

    def scalar_mul(self, x, a):
        raise NotImplementedError

    def inner_prod(self, x, y):
        raise NotImplementedError

    def covector(self, x):
        """The dual vector of ``x`` (its complex conjugate for complex spaces)."""
        return x

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


def accumulate(prev, new):
    """``prev + new`` (cotangents or tangents) in their space; ``prev`` None means nothing yet."""
    if prev is None:
        return new
    value = getval(new)
    space = VSpace.mappings.of(value)
    if getattr(space, "add_needs_space", True):
        return space(value).add(prev, new)
    return space.add(prev, new)


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
    problem = space.mismatch(getval(value))
    if problem is not None:
        raise ValueError(f"{rule} returned a {what} of {problem} (adcore.set_debug checks rules)")
