"""adcore's differentiable Array API namespace: what a traced array's ``__array_namespace__`` returns.

Code written against the Array API standard only, taking its namespace from its
input (``xp = array_api_compat.array_namespace(x)``), is differentiated without
change: while ``x`` is traced, ``xp`` is this namespace, whose functions are
adcore's primitives under the standard's names and signatures (``concat``,
``permute_dims``, ``pow``, ``acos``, ``matrix_transpose``, ``vecdot``,
``astype``, ``linalg.vector_norm``, ...).

There is one namespace per backend (``namespace(backend)``), so that its dtypes
(``xp.float64``), constants and creation functions (``xp.zeros``) are that
backend's, and two traced arrays of one backend share a namespace (as
``array_namespace`` requires). Its names are of three kinds:

- differentiable functions: adcore's primitives and compositions of them;
- non-differentiable functions (comparisons, ``argmax``, ``sign``, ``unique_*``,
  integer and boolean functions): computed on the raw values, their results
  carry no derivative, as their derivative is zero wherever it exists;
- creation and data-type functions, dtypes and constants: the backend's own
  (their results do not depend on an array being differentiated).

A standard name outside these raises ``AttributeError`` naming it, rather than
returning a raw function that would drop a derivative.

Limit: ``array_namespace(traced, raw)`` with a raw array of the same library
raises ``TypeError`` (two namespaces), as for any two array types; take the
namespace from the traced value alone, or wrap the raw one with ``xp.asarray``.
"""

from functools import cache

from backends import backend_of, get_backend

from . import numpy as anp
from .core import getval, isbox
from .core.ops import ops
from .core.wrapping import wraps
from .numpy import fft as anp_fft
from .numpy import linalg as anp_linalg

__all__ = ["namespace"]

API_VERSION = "2024.12"

# ---- functions of adcore.numpy whose NumPy name and signature are the standard's ----
# (the elementwise ones come from the op table: ``_declared_elementwise``)

SAME = (
    "atleast_1d broadcast_to matmul moveaxis positive stack tensordot tril triu where squeeze expand_dims flip roll take "
    "take_along_axis tile repeat diff max min mean prod sum"
).split()

#: non-differentiable functions of adcore.numpy (they see raw values), under the standard's names
NONDIFFERENTIABLE = "all any argmax argmin count_nonzero nonzero searchsorted".split()

#: the backend's own functions, applied to raw values: sets, data types, creation
RAW_FUNCTIONS = (
    "isin unique_all unique_counts unique_inverse unique_values can_cast finfo iinfo isdtype result_type "
    "arange empty empty_like eye from_dlpack full full_like linspace ones ones_like zeros zeros_like __array_namespace_info__"
).split()
#: the backend's dtypes and constants
RAW_VALUES = (
    "e inf nan newaxis pi bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128".split()
)


def _on_raw_values(fun):
    """``fun`` applied to the raw values of its arguments (for functions whose result carries no derivative)."""

    @wraps(fun)
    def on_raw(*args, **kwargs):
        return fun(*map(getval, args), **{key: getval(value) for key, value in kwargs.items()})

    return on_raw


# ---- differentiable functions that differ from NumPy's in name or signature ----


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype``: differentiable to a floating dtype; an integer or boolean result is a raw
    array (its derivative is 0, and a boolean cotangent could not be summed on every backend)."""
    _same_device(x, device, "astype")
    backend = backend_of(getval(x))
    if backend.isdtype(dtype, ("real floating", "complex floating")):
        return anp.astype(x, dtype)
    return backend.astype(getval(x), dtype)


def clip(x, /, min=None, max=None):
    """``x`` limited to ``[min, max]``; differentiable in ``x`` (a bound of None means no limit)."""
    if min is not None:
        x = anp.maximum(x, min)
    return x if max is None else anp.minimum(x, max)


def concat(arrays, /, *, axis=0):
    return anp.concatenate(arrays, axis=axis)


def permute_dims(x, /, axes):
    return anp.transpose(x, axes)


def reshape(x, /, shape, *, copy=None):
    return anp.reshape(x, shape)


def matrix_transpose(x, /):
    return anp.swapaxes(x, -1, -2)


def vecdot(x1, x2, /, *, axis=-1):
    """``sum(conj(x1) * x2, axis)``, the standard's vector dot product (conjugating the first argument)."""
    return anp.sum(anp.multiply(anp.conj(x1), x2), axis=axis)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    return anp.std(x, axis=axis, ddof=correction, keepdims=keepdims)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    return anp.var(x, axis=axis, ddof=correction, keepdims=keepdims)


cumulative_sum, cumulative_prod = anp.cumulative_sum, anp.cumulative_prod  # NumPy 2's are the standard's (and out=)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """``x`` sorted along ``axis``; descending is the ascending sort reversed (ties keep no order, as the values are equal)."""
    result = anp.sort(x, axis=axis)
    return anp.flip(result, axis=axis) if descending else result


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """Indices sorting ``x`` along ``axis``; stable, and for ``descending`` ties keep their order too."""
    if not descending:
        return anp.argsort(x, axis=axis)
    n = anp.shape(x)[axis]
    return anp.flip(n - 1 - anp.argsort(anp.flip(getval(x), axis=axis), axis=axis), axis=axis)


def broadcast_arrays(*arrays):
    return list(anp.broadcast_arrays(*arrays))


unstack = anp.unstack


def meshgrid(*arrays, indexing="xy"):
    """Coordinate arrays from 1-d ``arrays`` (``"xy"``: the first two axes swapped, as NumPy's)."""
    return list(anp.meshgrid(*arrays, indexing=indexing))


def _holds_boxes(obj):
    return any(_holds_boxes(item) if isinstance(item, (list, tuple)) else isbox(item) for item in obj)


def _same_device(x, device, fun):
    if device is None:
        return
    value = getval(x if not isinstance(x, (list, tuple)) else anp.asarray(x))
    backend = backend_of(value)
    if backend.device(value) != device:
        raise ValueError(f"{fun}: cannot move a traced array between devices ({backend.device(value)} to {device})")


# ---- the linear algebra extension ----


def _diagonal(x, /, *, offset=0):
    return anp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def _trace(x, /, *, offset=0, dtype=None):
    result = anp.trace(x, offset=offset, axis1=-2, axis2=-1)
    return result if dtype is None else anp.astype(result, dtype)


def _cross(x1, x2, /, *, axis=-1):
    return anp.cross(x1, x2, axis=axis)


def _svdvals(x, /):
    return anp_linalg.svd(x, compute_uv=False)


def _pinv(x, /, *, rtol=None):
    return anp_linalg.pinv(x) if rtol is None else anp_linalg.pinv(x, rtol=rtol)


LINALG = {
    "cholesky": anp_linalg.cholesky,
    "cross": _cross,
    "det": anp_linalg.det,
    "diagonal": _diagonal,
    "eigh": anp_linalg.eigh,
    "eigvalsh": anp_linalg.eigvalsh,
    "inv": anp_linalg.inv,
    "matmul": anp.matmul,
    "matrix_norm": anp_linalg.matrix_norm,
    "matrix_power": anp_linalg.matrix_power,
    "matrix_transpose": matrix_transpose,
    "outer": anp.outer,
    "pinv": _pinv,
    "qr": anp_linalg.qr,
    "slogdet": anp_linalg.slogdet,
    "solve": anp_linalg.solve,
    "svd": anp_linalg.svd,
    "svdvals": _svdvals,
    "tensordot": anp.tensordot,
    "trace": _trace,
    "vecdot": vecdot,
    "vector_norm": anp_linalg.vector_norm,
}

#: the FFT extension: NumPy's names and signatures are the standard's (``fftfreq`` and ``rfftfreq`` make new arrays)
FFT = ("fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftshift ifftshift").split()


def _declared_elementwise():
    """``{Array API name: adcore.numpy's function}`` of the op table's elementwise primitives, zero-derivative ones
    too (``acos``: ``arccos``); of two computed by one function (``round``, ``rint``), the one of its name."""
    found = {}
    for op in ops.values():
        if op.family == "elementwise" and op.api and hasattr(anp, op.name) and (op.api not in found or op.name == op.api):
            found[op.api] = getattr(anp, op.name)
    return found


STANDARD = {
    **_declared_elementwise(),
    **{name: getattr(anp, name) for name in SAME + NONDIFFERENTIABLE},
    **{
        fun.__name__: fun
        for fun in (astype, clip, concat, permute_dims, reshape, matrix_transpose, vecdot, std, var, sort, argsort)
        + (broadcast_arrays, unstack, meshgrid, cumulative_sum, cumulative_prod)
    },
}


class _Namespace:
    """Names looked up in ``functions`` (differentiable or seeing raw values), then among the backend's raw ones."""

    def __init__(self, name, backend_xp, functions, raw_functions=(), raw_values=()):
        self.__name__ = name
        self._xp = backend_xp
        self._raw_functions = frozenset(raw_functions)
        self._raw_values = frozenset(raw_values)
        self.__dict__.update(functions)

    def __getattr__(self, name):
        if name in self.__dict__.get("_raw_functions", ()):
            value = _on_raw_values(getattr(self._xp, name))
        elif name in self.__dict__.get("_raw_values", ()):
            value = getattr(self._xp, name)
        else:
            raise AttributeError(f"{self.__name__} has no differentiable {name!r} (adcore's Array API namespace)")
        setattr(self, name, value)
        return value

    def __repr__(self):
        return f"<adcore Array API namespace {self.__name__}>"


class ArrayNamespace(_Namespace):
    """The Array API namespace of traced arrays of one backend (see the module's docstring)."""

    __array_api_version__ = API_VERSION

    def __init__(self, backend):
        super().__init__(f"adcore.array_api[{backend.name}]", backend.xp, STANDARD, RAW_FUNCTIONS, RAW_VALUES)
        self.linalg = _Namespace(f"{self.__name__}.linalg", backend.xp.linalg, LINALG, ("matrix_rank",))
        fft_functions = {name: getattr(anp_fft, name) for name in FFT}
        self.fft = _Namespace(f"{self.__name__}.fft", getattr(backend.xp, "fft", None), fft_functions, ("fftfreq", "rfftfreq"))

    def asarray(self, obj, /, *, dtype=None, device=None, copy=None):
        """``obj`` as an array: traced values (alone or in lists) stay traced; anything else is made by the backend."""
        if isbox(obj) or (isinstance(obj, (list, tuple)) and _holds_boxes(obj)):
            _same_device(obj, device, "asarray")
            return anp.asarray(obj, dtype=dtype)
        return self._xp.asarray(obj, dtype=dtype, device=device, copy=copy)


def namespace(backend):
    """The differentiable Array API namespace of ``backend`` (a name or a Backend): one object per backend."""
    return _namespace_of(get_backend(backend))


@cache
def _namespace_of(backend):
    return ArrayNamespace(backend)


def _array_namespace(box, api_version=None):
    """adcore's differentiable Array API namespace for ``box``'s backend: ``ArrayBox.__array_namespace__``."""
    return namespace(backend_of(getval(box)))


# Set here, not in adcore.numpy.boxes: this namespace is built on adcore.numpy, which never imports this module.
anp.ArrayBox.__array_namespace__ = _array_namespace
