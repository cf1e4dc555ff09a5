"""ArrayVSpace: zeros, ones, basis vectors and random vectors made by the value's own backend,
on its device and in its dtype."""

import math

import numpy as _np

from backends import array_backend, default_backend, get_backend

from ..core import VSpace, getval
from . import elementwise, reductions, shapes
from .boxes import SCALAR_TYPES
from .declare import _is_dtype_kind, in_place_backend


class ArrayVSpace(VSpace):
    """The space of arrays of one shape, dtype, backend and device.

    Python scalars belong to the default backend; NumPy scalars to NumPy.
    Integer and boolean spaces exist (for arguments that are not
    differentiated) but are not ``differentiable``.
    """

    def __init__(self, value):
        backend = array_backend(value)
        if isinstance(value, _np.generic):
            backend = get_backend("numpy")
        if backend is None:
            backend = default_backend()
            self.dtype = backend.dtype(type(value))
            self.device = None
            self.shape = ()
        else:
            self.dtype = value.dtype
            self.device = backend.device(value)
            self.shape = tuple(value.shape)
        self.backend = backend
        self.size = math.prod(self.shape)

    @property
    def iscomplex(self):
        return _is_dtype_kind(self.backend, self.dtype, "complex floating")

    @property
    def differentiable(self):
        return _is_dtype_kind(self.backend, self.dtype, ("real floating", "complex floating"))

    def zeros(self):
        return self.backend.zeros(self.shape, dtype=self.dtype, device=self.device)

    def ones(self):
        return self.backend.ones(self.shape, dtype=self.dtype, device=self.device)

    def standard_basis(self):
        basis = self.basis_rows()
        for i in range(self.size):
            yield basis[i, ...]

    def basis_rows(self):
        """The standard basis as one array of shape ``(size,) + shape``: row ``i`` is 1 at entry ``i`` (C order)."""
        return self.backend.reshape(self.backend.eye(self.size, dtype=self.dtype, device=self.device), (self.size, *self.shape))

    def randn(self, rng=None):
        return self.backend.random_normal(_np.random if rng is None else rng, self.shape, self.dtype, self.device)

    add = staticmethod(elementwise.add)
    add_needs_space = False

    @staticmethod
    def add_into(x, y):
        """``x + y``, written into ``x`` where it keeps ``x``'s shape and dtype (:func:`in_place_backend`)."""
        if in_place_backend(x, y) is not None:
            x += y
            return x
        return elementwise.add(x, y)

    def scalar_mul(self, x, a):
        return elementwise.multiply(x, a)

    def copy(self, value):
        """A copy of ``value`` (``elementwise._owned_copy``, which ``adcore.jit`` records)."""
        return elementwise._owned_copy(value)

    def reshaped(self, shape, dtype):
        """The space of arrays of ``shape`` and ``dtype`` on this one's backend and device."""
        space = object.__new__(ArrayVSpace)
        space.backend, space.device, space.shape, space.dtype, space.size = (
            self.backend,
            self.device,
            shape,
            dtype,
            math.prod(shape),
        )
        return space

    def writable(self, value):
        """``value``, or a copy of it (``elementwise._owned_copy``, which ``adcore.jit`` records) where ``Backend.unwritable``."""
        return elementwise._owned_copy(value) if self.backend.unwritable(getval(value)) else value

    def inner_prod(self, x, y):
        """``Re(sum(conj(x) * y))``: the real inner product, also for complex spaces."""
        if self.iscomplex:
            return elementwise.real(reductions.sum(elementwise.multiply(elementwise.conj(x), y)))
        return reductions.sum(elementwise.multiply(x, y))

    def covector(self, x):
        return elementwise.conj(x) if self.iscomplex else x

    def __eq__(self, other):
        """Same shape, dtype and backend, and same device unless one is a Python scalar's (which
        has none): ``vspace(1.0) == vspace(numpy.array(1.0))``, as in autograd."""
        return (
            type(self) is type(other)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.backend is other.backend
            and (self.device is None or other.device is None or self.device == other.device)
        )

    def mismatch(self, value):
        """How ``value`` differs from this space in shape or dtype, or None. Python scalars are weakly typed:
        one fits any 0-d space, and the space of one (no device) takes any dtype."""
        shape = tuple(value.shape) if hasattr(value, "shape") else shapes.shape(value)
        if shape != self.shape:
            return f"shape {shape} instead of {self.shape}"
        dtype = getattr(value, "dtype", None)
        if dtype is not None and self.device is not None and dtype != self.dtype:
            return f"dtype {dtype} instead of {self.dtype}"
        return None


for _type in (int, bool, *SCALAR_TYPES, _np.int8, _np.int16, _np.int32, _np.int64, _np.bool_):
    ArrayVSpace.register(_type)
VSpace.mappings.resolvers.append(lambda value: ArrayVSpace if array_backend(value) is not None else None)
