"""ArrayBox: a traced array that behaves like an array where users touch it."""

import numpy as _np

from backends import array_backend, backend_of, forget_on_change, register_traced_type

from ..core import autograd_alias_installed
from ..core import Box, fingerprints, getval, isbox, snapshots
from ..core.constants import immutable_types
from . import signatures as np_signatures
from . import dtypes, elementwise, indexing, products, reductions, shapes
from .arrays import compress
from .protocol import array_function, array_ufunc
from .selection import argpartition, argsort, repeat, searchsorted


def _signature_method(name):
    """The method ``name`` of traced arrays: ``adcore.numpy.name(self, ...)`` (NumPy's function of that name)."""
    function = getattr(np_signatures, name)

    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def _object_array_of_items(box):
    """A NumPy object array of the shape of ``box`` whose entries are its 0-d traced items (``box[i, j]``)."""
    items = _np.empty(box.shape, dtype=object)
    for index in _np.ndindex(*box.shape):
        items[index] = box[index]
    return items


class ArrayBox(Box):
    """A traced array: arithmetic operators, comparisons, indexing, ``len``,
    iteration and the array attributes (``shape ndim size dtype T``).

    Comparisons are not differentiable and return plain boolean arrays. Item
    assignment raises ``TypeError``: a traced array is immutable. ``__array_namespace__``
    (adcore's differentiable Array API namespace) is given by ``adcore.array_api``, the
    layer built on this package, when it is imported (``import adcore`` imports it).
    """

    __slots__ = []
    __array_priority__ = 100.0
    __array_ufunc__ = array_ufunc  # numpy.sin(x), raw * x: adcore's function of the ufunc's name (NEP 13)
    __array_function__ = array_function  # numpy.sum(x), numpy.linalg.solve(a, x): adcore's (NEP 18)

    shape = property(lambda self: shapes.shape(self._value))
    ndim = property(lambda self: shapes.ndim(self._value))
    size = property(lambda self: shapes.size(self._value))

    @property
    def dtype(self):
        """The value's dtype; a traced Python scalar has its default-backend dtype (float64 for a float)."""
        value = getval(self._value)
        dtype = getattr(value, "dtype", None)
        return dtypes.result_type(value) if dtype is None else dtype

    T = property(lambda self: shapes.transpose(self))
    real = property(lambda self: elementwise.real(self))
    imag = property(lambda self: elementwise.imag(self))
    mT = property(lambda self: shapes.matrix_transpose(self))
    device = property(lambda self: backend_of(getval(self)).device(getval(self)))
    itemsize = property(lambda self: self._value.itemsize)
    nbytes = property(lambda self: self._value.nbytes)
    flat = property(lambda self: shapes.ravel(self))  # indexing and iteration of the flattened array; not writable

    def __len__(self):
        shape = shapes.shape(self._value)
        if not shape:
            raise TypeError("len() of unsized object (a 0-d array)")
        return shape[0]

    def __iter__(self):
        return (self[i, ...] for i in range(len(self)))

    def __getitem__(self, index):
        return indexing.getitem(self, index)

    def __setitem__(self, index, value):
        raise TypeError(
            "adcore: arrays being differentiated cannot be assigned to (x[index] = value); "
            "build the result instead, e.g. with adcore.numpy.where(mask, value, x) or adcore.numpy.concatenate"
        )

    def __hash__(self):
        return id(self)

    def _no_conversion(self, *args):
        value = self
        while isbox(value):  # a trace that refuses the conversion says why (adcore.jit names the place)
            value._node.check_python_use("float(), int(), complex(), operator.index() or .item()")
            value = value._value
        raise TypeError(
            "adcore: a traced value cannot become a Python number (that would drop its derivative); "
            "keep computing with adcore.numpy functions, or read the value alone with adcore.core.getval(x)"
        )

    __float__ = __int__ = __complex__ = __index__ = _no_conversion

    def __format__(self, spec):
        self._node.check_python_use("format()")  # an f-string of a traced value: adcore.jit refuses (its text would be frozen)
        return format(self._value, spec)

    def __array__(self, dtype=None, copy=None):
        """Refused (``TypeError``): NumPy's array of a traced value drops its derivative. Under the autograd
        alias (``adcore.compat.autograd``), with no dtype or ``object``, NumPy's array is made as autograd's
        boxes give it: an object array of the 0-d traced items (``numpy.array((x[0], x[1] ** 2))``), whose
        later arithmetic, indexing and sums (NumPy's object loops call the items' operators) stay traced; a
        differentiated function that returns such an array, and any cast of it to numbers, still raise."""
        if (dtype is None or _np.dtype(dtype) == object) and autograd_alias_installed():
            return _object_array_of_items(self)
        raise TypeError(
            "adcore: a traced array cannot become a NumPy array (that would drop its derivative, or "
            "build an object array); call adcore.numpy functions (np.array, np.stack, ...) instead of numpy's"
        )

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """torch's protocol for other array types: ``raw_tensor + x`` (a tensor method) defers to this
        array's reflected operator; any other torch function (``torch.sin(x)``) raises, naming adcore's."""
        if func.__qualname__.startswith(("TensorBase.", "Tensor.")):
            return NotImplemented
        raise TypeError(foreign_function_message("torch", func.__name__))

    __neg__ = elementwise.negative
    __pos__ = lambda self: self  # noqa: E731
    __abs__ = elementwise.abs
    __add__ = __radd__ = elementwise.add  # commutative: x + box is box + x
    __sub__ = elementwise.subtract
    __rsub__ = lambda self, other: elementwise.subtract(other, self)  # noqa: E731
    __mul__ = __rmul__ = elementwise.multiply  # commutative: x * box is box * x
    __truediv__ = elementwise.divide
    __rtruediv__ = lambda self, other: elementwise.divide(other, self)  # noqa: E731
    __pow__ = elementwise.power
    __rpow__ = lambda self, other: elementwise.power(other, self)  # noqa: E731
    __mod__ = elementwise.mod
    __rmod__ = lambda self, other: elementwise.mod(other, self)  # noqa: E731
    __floordiv__ = elementwise.floor_divide
    __rfloordiv__ = lambda self, other: elementwise.floor_divide(other, self)  # noqa: E731
    __matmul__ = products.matmul
    __rmatmul__ = lambda self, other: products.matmul(other, self)  # noqa: E731
    __eq__ = elementwise.equal
    __ne__ = elementwise.not_equal
    __gt__ = elementwise.greater
    __ge__ = elementwise.greater_equal
    __lt__ = elementwise.less
    __le__ = elementwise.less_equal

    # the methods of the same names as NumPy's functions, with NumPy's signatures (signatures.py)
    sum, mean, prod, max, min, ptp, all, any, var, std, cumsum, cumprod, clip, trace, argmax, argmin = map(
        _signature_method, "sum mean prod max min ptp all any var std cumsum cumprod clip trace argmax argmin".split()
    )

    def round(self, decimals=0, out=None):
        return np_signatures.round(self, decimals, out)

    def take(self, indices, axis=None, out=None, mode="raise"):
        return np_signatures.take(self, indices, axis, out, mode)

    def compress(self, condition, axis=None, out=None):
        return compress(condition, self, axis, out)

    def searchsorted(self, v, side="left", sorter=None):
        return searchsorted(self, v, side, sorter)

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        return argpartition(self, kth, axis, kind, order)

    def choose(self, choices, out=None, mode="raise"):
        from .arrays import choose  # a traced array of indices: the choices decide what is differentiated

        return choose(self, choices, out, mode)

    def tolist(self):
        """Nested lists of 0-d traced values (a traced value cannot become Python numbers: that would drop its derivative)."""
        return [item.tolist() for item in self] if self.ndim else self

    def reshape(self, *shape, order="C", copy=None):
        return np_signatures.reshape(self, shape[0] if len(shape) == 1 else shape, order=order, copy=copy)

    def transpose(self, *axes):
        return shapes.transpose(self, (axes[0] if len(axes) == 1 else axes) or None)

    def ravel(self):
        return shapes.ravel(self)

    flatten = ravel

    def squeeze(self, axis=None):
        return shapes.squeeze(self, axis)

    def dot(self, other):
        return products.dot(self, other)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return dtypes.astype(self, dtype)

    def conj(self):
        return elementwise.conj(self)

    conjugate = conj

    def swapaxes(self, axis1, axis2):
        return shapes.swapaxes(self, axis1, axis2)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return indexing.diagonal(self, offset, axis1, axis2)

    def repeat(self, repeats, axis=None):
        return repeat(self, repeats, axis)

    def nonzero(self):
        return indexing.nonzero(self)

    def copy(self, order="K"):
        return self

    def __copy__(self):
        return self  # immutable: its own copy

    def __deepcopy__(self, memo):
        return self

    def view(self, dtype=None, type=None):
        """The array itself (a traced array is immutable); a view as another dtype or type is refused."""
        if dtype is not None or type is not None:
            raise TypeError("adcore: a traced array cannot be viewed as another dtype or type (that reinterprets its bytes)")
        return self

    def __contains__(self, value):
        return bool(reductions.any(elementwise.equal(self, value)))

    def __divmod__(self, other):
        return elementwise.floor_divide(self, other), elementwise.mod(self, other)

    def __rdivmod__(self, other):
        return elementwise.floor_divide(other, self), elementwise.mod(other, self)

    def argsort(self, axis=-1):
        return argsort(self, axis)

    item = _no_conversion

    def _no_writing(self, *args, **kwargs):
        raise TypeError(
            "adcore: arrays being differentiated cannot be changed in place (sort, partition, fill, put, resize); "
            "use the functions that return a new array: adcore.numpy.sort, np.partition, np.full_like, np.where, np.resize"
        )

    sort = partition = fill = put = resize = itemset = setfield = _no_writing


SCALAR_TYPES = (
    float,
    complex,
    _np.float16,
    _np.float32,
    _np.float64,
    _np.longdouble,
    _np.complex64,
    _np.complex128,
    _np.clongdouble,
)
for _type in (*SCALAR_TYPES, _np.int8, _np.int16, _np.int32, _np.int64, _np.uint8, _np.bool_):
    ArrayBox.register(_type)
Box.type_mappings.resolvers.append(lambda value: ArrayBox if array_backend(value) is not None else None)
register_traced_type(ArrayBox)


def _backend_method(name, flag):
    """A resolver for ``snapshots`` or ``fingerprints``: the backend's method ``name`` for an array of a
    library whose ``flag`` is set (``mutable_arrays``, ``checks_constants``); None for boxes and scalars."""

    def resolve(value):
        if type(value) in Box.types:
            return None
        backend = array_backend(value)
        return getattr(backend, name) if backend is not None and getattr(backend, flag) else None

    return resolve


snapshots.resolvers.append(_backend_method("snapshot", "mutable_arrays"))
fingerprints.resolvers.append(_backend_method("fingerprint", "checks_constants"))


def _forget_backend_of(value_type):
    """Drop what the core's caches found from the former backend of ``value_type`` (its snapshot and fingerprint
    methods, that it needs neither), when the registry of array types changes (``forget_on_change``)."""
    snapshots.pop(value_type, None)
    fingerprints.pop(value_type, None)
    immutable_types.discard(value_type)


forget_on_change(_forget_backend_of)


def foreign_function_message(library, name):
    """The error for ``library``'s function ``name`` called on a traced array: what to call instead."""
    return (
        f"{library}.{name}: called on an array adcore is differentiating, which {library}'s functions cannot trace; "
        f"call adcore.numpy's counterpart (import adcore.numpy as np; np.{name}(x)) or that of the array's Array API "
        "namespace (xp = array_api_compat.array_namespace(x)) instead"
    )
