"""NumPy, the reference backend: NumPy 2's own functions answer the Array API names."""

import importlib
import operator
import sys
import zlib

import numpy

from .base import Backend, install_command, shares_entries


class NumPyBackend(Backend):
    arrays_beside_slices = True
    multi_device = False
    numpy_namespace = numpy

    def __init__(self):
        super().__init__("numpy", numpy)

    def lookup(self, api_name):
        if api_name in REDUCING_UFUNCS:
            return reduction_of_ndarray(api_name, *REDUCING_UFUNCS[api_name])
        ufunc = getattr(numpy, api_name)
        scalar_operator = SCALAR_OPERATORS.get(api_name)
        return ufunc if scalar_operator is None else float64_scalars_by_operator(ufunc, scalar_operator)

    def function_for(self, api_name, types):
        """For ``add``, ``subtract``, ``multiply`` and ``divide``: the Python operator for two float
        scalars, one of them a ``numpy.float64``, else the ufunc (see ``float64_scalars_by_operator``):
        the same values without its type test on every call."""
        scalar_operator = SCALAR_OPERATORS.get(api_name)
        if scalar_operator is None:
            return getattr(self, api_name)
        if len(types) == 2 and set(types) <= _FLOAT_SCALARS and numpy.float64 in types:
            return scalar_operator
        return getattr(numpy, api_name)

    def device(self, x):
        return "cpu"

    def dtype(self, spec):
        return None if spec is None else numpy.dtype(spec)

    def to_numpy(self, x):
        return numpy.asarray(x)

    def from_numpy(self, x, dtype=None, device=None):
        return numpy.asarray(x, dtype=dtype)

    def two_norm(self, x, axes, keepdims):
        """As ``Backend.two_norm``; over every axis of a real float array, ``sqrt(dot(x, x))`` of the flattened
        array, as ``numpy.linalg.norm`` computes it (one pass, no array of squares)."""
        if type(x) is numpy.ndarray and x.dtype.kind == "f" and not keepdims and len(axes) == x.ndim:
            flat = x.ravel()
            return numpy.sqrt(numpy.dot(flat, flat))
        if getattr(x, "dtype", None) == object:  # entries of any type: their own operators (sqrt has none, ** has)
            return numpy.sum(x * x, axis=axes, keepdims=keepdims) ** 0.5
        return super().two_norm(x, axes, keepdims)

    @staticmethod
    def _real_norm(x, ord, axis, keepdims):
        """``linalg_norm`` of a real ``ndarray`` in the forms computed here, None for the others."""
        ndim = x.ndim
        if axis is None:
            if ord is None or ord == 2 and ndim == 1 or ndim == 2 and ord in ("fro", "f"):
                flat = x.ravel(order="K")
                norm = numpy.sqrt(flat.dot(flat))
                return norm.reshape((1,) * ndim) if keepdims else norm
            if keepdims or not x.size or isinstance(ord, str):
                return None
            if ndim == 1:
                if ord in _REDUCING_ORDERS:
                    return NumPyBackend._real_vector_norm(x, ord)
                return NumPyBackend._p_norm(x, ord, 0, False)
            if ndim == 2 and ord in (1, -1, numpy.inf, -numpy.inf):
                sums = numpy.add.reduce(numpy.abs(x), axis=0 if ord in (1, -1) else 1)
                return numpy.maximum.reduce(sums, axis=0, initial=0) if ord > 0 else numpy.minimum.reduce(sums, axis=0)
            return None
        if type(axis) is int:
            if ord is None or ord == 2:  # NumPy's sqrt(sum(conj(x) x)) along the axis
                return numpy.sqrt(numpy.add.reduce(x * x, axis=axis, keepdims=keepdims))
            return NumPyBackend._p_norm(x, ord, axis, keepdims)
        if type(axis) is tuple and len(axis) == 2 and (ord is None or ord in ("fro", "f")):
            return numpy.sqrt(numpy.add.reduce(x * x, axis=axis, keepdims=keepdims))
        return None

    @staticmethod
    def _p_norm(x, ord, axis, keepdims):
        """NumPy's vector ``ord``-norm along ``axis`` for an order other than 0, 1, 2 and +-inf: ``sum(|x|**p) ** (1/p)``,
        in place as it computes it; None for another ``ord``."""
        if not isinstance(ord, (int, float)) or ord in _REDUCING_ORDERS or ord == 2 or ord != ord:
            return None
        powers = numpy.abs(x)
        powers **= ord
        norm = numpy.add.reduce(powers, axis=axis, keepdims=keepdims)
        norm **= numpy.reciprocal(ord, dtype=norm.dtype)
        return norm

    @staticmethod
    def _real_vector_norm(x, ord):
        """The ``ord``-norm (1, 0, inf or -inf) of a non-empty real vector, as ``numpy.linalg.norm`` reduces it."""
        if ord == 1:
            return numpy.add.reduce(numpy.abs(x), axis=0)
        if ord == 0:
            return numpy.add.reduce((x != 0).astype(x.dtype), axis=0)
        return numpy.maximum.reduce(numpy.abs(x), 0, None, None, False, 0) if ord > 0 else numpy.minimum.reduce(numpy.abs(x), 0)

    def two_norm_vjp(self, g, ans, x, axes, keepdims):
        """As ``Backend.two_norm_vjp``; the norm of a whole real ``ndarray`` (a scalar, not 0) as ``x * (g / ans)``,
        the same two operations without the masks and reshape."""
        if type(x) is numpy.ndarray and x.dtype.kind == "f" and not numpy.ndim(ans) and ans != 0:
            return x * (g / ans)
        return super().two_norm_vjp(g, ans, x, axes, keepdims)

    def linalg_norm(self, x, ord, axis, keepdims):
        """``numpy.linalg.norm`` for an ``ndarray`` of float32, float64, complex64 or complex128 (NumPy's own
        dtypes for it: narrower floats are summed in float32 by adcore, integers made floats), else None (also
        where NumPy raises). For a real array, the forms of :meth:`_real_norm` are computed as NumPy's function
        computes them, without its Python layers (most of a small norm's time): the 2-norm of the whole array
        (``sqrt(dot(x, x))`` of the flattened array, keepdims too), the 2-norms along one axis and the Frobenius
        norms over two, the vector p-norms along one axis, the vector norms of order 1, 0 and +-inf of a vector,
        and the matrix norms of order +-1 and +-inf of a matrix (the same reductions as NumPy's, in its order)."""
        if type(x) is not numpy.ndarray:
            return None
        char = x.dtype.char
        if char not in "fdFD":
            return None
        if char in "fd":
            try:
                norm = self._real_norm(x, ord, axis, keepdims)
            except ValueError:  # an axis out of bounds or twice: adcore's composition raises, with adcore's message
                return None
            if norm is not None:
                return norm
        try:
            return numpy.linalg.norm(x, ord, axis, keepdims)
        except (ValueError, TypeError):  # adcore's composition raises, with adcore's message
            return None

    def broadcast_to(self, x, shape):
        """``numpy.broadcast_to``: a read-only view, with stride 0 on the axes added or stretched. For a
        C-contiguous ndarray (the cotangent of a sum...) the view is made directly, without NumPy's
        Python layers (about 5 us, most of a small reduction's VJP); NumPy's function otherwise, and
        for a shape that does not fit (its error)."""
        lead = len(shape) - x.ndim if type(x) is numpy.ndarray else -1
        if lead < 0 or not x.flags.c_contiguous or not x.size or x.dtype.hasobject:
            return numpy.broadcast_to(x, shape)
        strides = [0] * lead
        for n, m, stride in zip(shape[lead:], x.shape, x.strides):
            if n == m or m == 1 and type(n) is int and n >= 0:
                strides.append(stride if n == m else 0)
            else:
                return numpy.broadcast_to(x, shape)
        if any(type(n) is not int or n < 0 for n in shape[:lead]):
            return numpy.broadcast_to(x, shape)
        view = numpy.ndarray(shape, x.dtype, x, 0, tuple(strides))
        view.flags.writeable = False
        return view

    def multiply_zero_nan(self, a, b):
        product = self.multiply(a, b)
        if type(b) in _FLOAT_SCALARS and type(a) in _FLOAT_SCALARS:  # two scalars: no array operations
            return product if b == b or a != 0 else type(product)(0)
        if not holds_nan(b):  # the common case: one pass over b, no array made
            return product
        return numpy.where(numpy.isnan(b) & numpy.equal(a, 0), 0, product)[()]

    def multiply_zero_nan_into(self, a, b, out=None):
        if holds_nan(b):
            return self.multiply_zero_nan(a, b)
        if out is None or out is a:
            a *= b  # the operator: quicker than the ufunc called with out= on small arrays
            return a
        return numpy.multiply(a, b, out=b)  # a * b, not b * a: complex products round by their order

    def tanh_tangent(self, g, x):
        """As ``Backend.tanh_tangent``, the product written into ``sech_squared``'s new array where it keeps that
        array's shape and dtype: one array made, as when the product is written into a cotangent the backward
        pass owns."""
        partial = self.sech_squared(x)
        if type(partial) is numpy.ndarray and type(g) is numpy.ndarray and g.shape == partial.shape and g.dtype == partial.dtype:
            return self.multiply_zero_nan_into(g, partial, out=partial)
        return self.multiply_zero_nan(g, partial)

    def sech_squared(self, x):
        """As ``Backend.sech_squared``, in the result's buffer, a block of ``SECH_BLOCK`` entries at a time (its
        7 passes then read the cache, and the only other array is one block's ``(1 + u)**2``)."""
        result = numpy.abs(x)
        if type(result) is not numpy.ndarray or result.dtype.kind != "f":  # a scalar, or integers: the standard's way
            return super().sech_squared(x)
        flat = result.reshape(-1)  # a view: abs made a new contiguous array
        denominator = numpy.empty(min(flat.size, SECH_BLOCK), result.dtype)
        for start in range(0, flat.size, SECH_BLOCK):
            u = flat[start : start + SECH_BLOCK]
            v = denominator[: u.size]
            u *= -2.0
            numpy.exp(u, out=u)
            numpy.add(u, 1.0, out=v)
            v *= v
            u *= 4.0
            u /= v
        return result

    def may_hold_nan(self, x):
        return holds_nan(x)

    def unwritable(self, x):
        return type(x) is numpy.ndarray and (not x.flags.writeable or 0 in x.strides and shares_entries(x.shape, x.strides))

    def owns_memory(self, x):
        return x.base is None

    def memory_order(self, x):
        flags = x.flags
        return "C" if flags.c_contiguous else "F" if flags.f_contiguous else None

    def read_only(self, x):
        return not x.flags.writeable

    def read_only_copy(self, x):
        copy = x.copy()
        copy.flags.writeable = False
        return copy

    def read_only_view(self, memory, like):
        return numpy.lib.stride_tricks.as_strided(memory, shape=like.shape, strides=like.strides, writeable=False)

    def snapshot(self, x):
        """A copy of ``x``, of its type, shape, strides order and dtype (``x.copy``: about half of ``asarray``'s time
        on small arrays, which a trace copies one per constant). An ``ndarray`` subclass stays of its class (its own
        ``copy``), so that the box type a library registered for it (``Box.type_mappings``) still traces it."""
        return x.copy(order="K") if isinstance(x, numpy.ndarray) else super().snapshot(x)

    checks_constants = True

    def fingerprint(self, x):
        """``(shape, strides, dtype, CRC-32 of the entries)`` of an ``ndarray`` ``x`` (None for other types and
        for object arrays, whose entries are references). The entries are read once, without a copy when they
        lie in one block of memory; the axes of a broadcast view (stride 0) are read once. Two fingerprints of
        different entries are equal with the odds of a CRC-32 collision (one in 2**32 for a random change; none
        for a change of up to 32 consecutive bits)."""
        if type(x) is not numpy.ndarray or x.dtype.hasobject:
            return None
        entries = x[tuple(slice(0, 1) if stride == 0 else slice(None) for stride in x.strides)]
        if entries.flags.f_contiguous and not entries.flags.c_contiguous:
            entries = entries.T
        entries = numpy.ascontiguousarray(entries).reshape(-1).view(numpy.uint8)
        return x.shape, x.strides, x.dtype, zlib.crc32(entries)

    def scatter_add_repeated(self, out, index, values):
        numpy.add.at(out, index, values)
        return out

    def scipy_module(self, name):
        """``scipy.<name>``.

        Raises
        ------
        ImportError
            If SciPy is not installed, naming adcore's extra that installs it.
        """
        module = sys.modules.get(f"scipy.{name}")  # imported: no import machinery (most of a small special function's time)
        try:
            module = module or importlib.import_module(f"scipy.{name}")
        except ModuleNotFoundError as error:
            if error.name != "scipy":
                raise
            raise ImportError(
                f"scipy.{name} on the numpy backend needs SciPy, which is not installed here; {install_command('scipy')}",
                name="scipy",
            ) from error
        if name == "linalg" and not scipy_linalg_takes_stacks():
            return _StackedScipyLinalg(module)
        return module


def scipy_linalg_takes_stacks():
    """Whether the installed SciPy's ``scipy.linalg`` functions take stacks of matrices (SciPy 1.16 on)."""
    import scipy

    return tuple(int(part) for part in scipy.__version__.split(".")[:2]) >= (1, 16)


def _over_stacks(fun, core_ndims, leading=0):
    """SciPy's ``fun`` applied matrix by matrix over the broadcast leading axes of its array arguments, as
    SciPy 1.16 does itself: ``core_ndims`` gives each array argument's core dimensions (after the
    ``leading`` non-array arguments), ``"1|2"`` for a right-hand side that is a vector when 1-d and a matrix
    otherwise. Returns what ``fun`` returns, each array stacked back; arguments without stacks go straight
    to ``fun``."""

    def stacked(*args, **kwargs):
        arrays = [numpy.asarray(a) for a in args[leading : leading + len(core_ndims)]]
        cores = [(2 if a.ndim >= 2 else 1) if n == "1|2" else n for a, n in zip(arrays, core_ndims)]
        batch = numpy.broadcast_shapes(*(a.shape[: a.ndim - n] for a, n in zip(arrays, cores)))
        if batch == ():
            return fun(*args, **kwargs)
        arrays = [numpy.broadcast_to(a, batch + a.shape[a.ndim - n :]) for a, n in zip(arrays, cores)]
        rest = args[leading + len(core_ndims) :]
        results = [fun(*args[:leading], *(a[index] for a in arrays), *rest, **kwargs) for index in numpy.ndindex(batch)]
        if isinstance(results[0], tuple):
            return tuple(numpy.stack(parts).reshape(batch + parts[0].shape) for parts in zip(*results))
        return numpy.stack(results).reshape(batch + results[0].shape)

    return stacked


class _StackedScipyLinalg:
    """``scipy.linalg`` of a SciPy older than 1.16 (one matrix per call), with the functions adcore passes
    stacks of matrices to applied matrix by matrix (``_over_stacks``); every other name is SciPy's own."""

    _CORES = {
        "solve_triangular": ((2, "1|2"), 0),
        "solve_banded": ((2, "1|2"), 1),
        "lu_factor": ((2,), 0),
        "solve_sylvester": ((2, 2, 2), 0),
        "sqrtm": ((2,), 0),
        "logm": ((2,), 0),
        "funm": ((2,), 0),
        "signm": ((2,), 0),
        "schur": ((2,), 0),
    }

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        found = getattr(self._module, name)
        if name in self._CORES:
            found = _over_stacks(found, *self._CORES[name])
        setattr(self, name, found)
        return found


#: The vector norm orders that ``NumPyBackend._real_vector_norm`` computes as one reduction.
_REDUCING_ORDERS = (1, 0, numpy.inf, -numpy.inf)

#: Array API name of a reduction -> (the ufunc whose ``reduce`` NumPy's function of that name calls for an
#: ``ndarray``, the dtype it passes when none is given)
REDUCING_UFUNCS = {
    "sum": (numpy.add, None),
    "prod": (numpy.multiply, None),
    "max": (numpy.maximum, None),
    "min": (numpy.minimum, None),
    "any": (numpy.logical_or, bool),
    "all": (numpy.logical_and, bool),
}


def reduction_of_ndarray(api_name, ufunc, result_dtype):
    """NumPy's reduction ``api_name(x, axis=None, dtype=None, keepdims=False)`` (``dtype`` for ``sum`` and
    ``prod`` only); for an ``ndarray``, the ``ufunc.reduce`` that NumPy's function calls, with the same
    arguments, without its Python layers (about 1 us, most of a small reduction's time)."""
    function = getattr(numpy, api_name)

    def reduce(x, axis=None, dtype=None, keepdims=False):
        if type(x) is numpy.ndarray:
            return ufunc.reduce(x, axis, result_dtype if dtype is None else dtype, None, keepdims)
        if dtype is None:
            return function(x, axis=axis, keepdims=keepdims)
        return function(x, axis=axis, dtype=dtype, keepdims=keepdims)

    reduce.__name__ = reduce.__qualname__ = api_name
    return reduce


#: Array API name -> the Python operator that NumPy's float64 scalars implement with the same
#: IEEE operation as the ufunc (correctly rounded, so the value is identical), without the
#: ufunc's per-call cost (about 1 us, most of a scalar primitive's time).
SCALAR_OPERATORS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv}
_FLOAT_SCALARS = frozenset((float, numpy.float64))


def float64_scalars_by_operator(ufunc, scalar_operator):
    """``ufunc(x, y)``, computed by ``scalar_operator`` when both are float scalars and one is a
    ``numpy.float64``: the result is the ufunc's, a ``numpy.float64`` of the same value, with the
    same floating-point warnings (NumPy's scalar arithmetic honours ``numpy.errstate``). Two Python
    floats still go to the ufunc, whose result is a ``numpy.float64`` (and ``1.0 / 0.0`` is inf, not an error).
    """

    def call(*args, **kwargs):
        if len(args) == 2 and not kwargs:
            x, y = args
            if type(x) in _FLOAT_SCALARS and type(y) in _FLOAT_SCALARS and (type(x) is numpy.float64 or type(y) is numpy.float64):
                return scalar_operator(x, y)
        return ufunc(*args, **kwargs)

    call.__name__ = ufunc.__name__
    return call


#: Entries per block of ``NumPyBackend.sech_squared`` (a block and its denominator fit a core's cache).
SECH_BLOCK = 1 << 15


#: The most entries of a real floating array that ``holds_nan`` first sums in Python (quicker than a reduction there).
SMALL_NAN_CHECK = 32


def holds_nan(x):
    """Whether ``x`` (a NumPy array or scalar, or a Python number) holds a NaN, without making an array:
    ``minimum`` propagates a NaN (of either part of a complex number), so the smallest entry is NaN exactly
    when one is, and the reduction neither overflows nor warns (a sum is NaN for inf + -inf, and warns).
    A real floating array of at most ``SMALL_NAN_CHECK`` entries is first summed as Python floats (no
    warning; NaN if an entry is): a sum that is not NaN answers, about twice as fast as the reduction."""
    if type(x) in (float, int, complex):
        return x != x
    size = getattr(x, "size", 1)
    if size <= SMALL_NAN_CHECK and type(x) is numpy.ndarray and x.dtype.kind == "f":
        total = sum(x.ravel().tolist())
        if total == total:
            return False
    elif not size:
        return False
    smallest = numpy.minimum.reduce(x, axis=None)
    return smallest != smallest
