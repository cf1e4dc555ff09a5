"""``adcore.numpy.emath`` (NumPy's ``numpy.emath``, ``numpy.lib.scimath``): the logarithms, square
root, power and inverse sine, cosine and hyperbolic tangent whose result is complex where the real
function is undefined.

Their dtype depends on the values, as in NumPy: a real argument is made complex (``complex64`` for
``float32`` and the small integers, ``complex128`` otherwise) when one of its entries lies outside
the real domain (below 0 for ``sqrt``, ``log``, ``log2``, ``log10``, ``logn`` and ``power``'s base;
beyond 1 in absolute value for ``arccos``, ``arcsin`` and ``arctanh``), and the result is that of
the complex function; otherwise the result is real. On a backend whose values are known (NumPy,
CuPy, PyTorch, JAX, array-api-strict) adcore follows NumPy exactly. On Dask (``Backend.lazy``: the
values are unknown until computed) a real argument is always made complex, so the result is
always complex. Under ``adcore.jit`` the dtype is a branch on traced values, which the recording
refuses (``JitError``); jit the function on complex arguments instead.

Derivatives are those of the functions applied (``sqrt``, ``log``, ..., and of the cast to complex,
whose VJP keeps the real part of the cotangent for a real argument).
"""

import numpy as _np

from backends import array_backend, backend_of

from ..core import getval
from . import dtypes, elementwise, indexing, reductions, shapes

_SINGLE = ("float32", "float16", "int8", "int16", "uint8", "uint16", "bool")


def _complex(x):
    """``x`` as a complex array: complex64 for NumPy's single-precision kinds, complex128 otherwise."""
    kind = str(getval(x).dtype).split(".")[-1]
    return dtypes.astype(x, dtypes.complex64 if kind in _SINGLE else dtypes.complex128)


def _complex_where(x, outside):
    """``x`` as an array, made complex if it is real and ``outside(x)`` holds for one of its entries
    (always, for a real ``x`` on a lazy backend)."""
    x = shapes.asarray(x)
    return _complex(x) if _made_complex(x, outside) else x


def _made_complex(x, outside):
    """Whether the array ``x`` is real and is made complex: ``outside(x)`` holds for one of its entries, or
    its backend is lazy."""
    value = getval(x)
    backend = backend_of(value)
    if backend.isdtype(value.dtype, "complex floating"):
        return False
    return backend.lazy or bool(reductions.any(outside(value)))


def _array_beside(value, x):
    """``value`` as NumPy's ``asarray`` makes it (float64 for a Python float, as NumPy's ``emath`` reads
    its second argument), on the backend and device of the array ``x``; an array as it is."""
    if array_backend(getval(value)) is not None:
        return value
    backend = backend_of(getval(x))
    return backend.from_numpy(_np.asarray(value), device=backend.device(getval(x)))


def _negative(value):
    return elementwise.less(value, 0)


def _beyond_one(value):
    return elementwise.greater(elementwise.abs(value), 1)


def sqrt(x):
    """The square root of ``x``, complex if a real ``x`` has a negative entry (``numpy.emath.sqrt``)."""
    return elementwise.sqrt(_complex_where(x, _negative))


def log(x):
    """The natural logarithm of ``x``, complex if a real ``x`` has a negative entry (``numpy.emath.log``)."""
    return elementwise.log(_complex_where(x, _negative))


def log2(x):
    """The base-2 logarithm of ``x``, complex if a real ``x`` has a negative entry (``numpy.emath.log2``)."""
    return elementwise.log2(_complex_where(x, _negative))


def log10(x):
    """The base-10 logarithm of ``x``, complex if a real ``x`` has a negative entry (``numpy.emath.log10``)."""
    return elementwise.log10(_complex_where(x, _negative))


def logn(n, x):
    """The base-``n`` logarithm of ``x``, ``log(x) / log(n)``, each made complex by its own sign
    (``numpy.emath.logn``)."""
    x = shapes.asarray(x)
    n = _array_beside(n, x)
    return elementwise.divide(elementwise.log(_complex_where(x, _negative)), elementwise.log(_complex_where(n, _negative)))


def power(x, p):
    """``x ** p``, complex if a real ``x`` has a negative entry; an integer ``p`` with a negative entry
    is made float first, as NumPy does (on Dask any integer ``p``) (``numpy.emath.power``)."""
    x = shapes.asarray(x)
    p = _array_beside(p, x)
    value = getval(p)
    backend = backend_of(value)
    if backend.isdtype(value.dtype, "integral") and (backend.lazy or bool(reductions.any(elementwise.less(value, 0)))):
        p = dtypes.astype(p, dtypes.float64)
    return elementwise.power(_complex_where(x, _negative), p)


def arccos(x):
    """The inverse cosine of ``x``, complex if a real ``x`` has an entry beyond 1 in absolute value
    (``numpy.emath.arccos``): there ``-i arccosh(x)`` for ``x > 1`` and ``pi - i arccosh(-x)`` for
    ``x < -1``, NumPy's values, and their derivatives along the real line (:func:`_beyond_the_cut`)."""
    x = shapes.asarray(x)
    if not _made_complex(x, _beyond_one):
        return elementwise.arccos(x)
    return _beyond_the_cut(
        x,
        elementwise.arccos,
        lambda x: indexing.where(elementwise.greater(x, 0), dtypes.zeros_like(x), dtypes.full_like(x, _np.pi)),
        -1.0,
    )


def arcsin(x):
    """The inverse sine of ``x``, complex if a real ``x`` has an entry beyond 1 in absolute value
    (``numpy.emath.arcsin``): there ``sign(x) pi / 2 + i arccosh(|x|)``, NumPy's values, and their
    derivatives along the real line (:func:`_beyond_the_cut`)."""
    x = shapes.asarray(x)
    if not _made_complex(x, _beyond_one):
        return elementwise.arcsin(x)
    return _beyond_the_cut(x, elementwise.arcsin, lambda x: elementwise.multiply(elementwise.sign(x), 0.5 * _np.pi), 1.0)


def _beyond_the_cut(x, inside, real_outside, imag_sign):
    """The complex inverse cosine or sine of the real ``x`` (``inside``: the real function on
    ``[-1, 1]``; beyond it ``real_outside(x) + imag_sign * i arccosh(|x|)``).

    Beyond 1 in absolute value the real line is the functions' branch cut, where the complex rule
    (``-1 / sqrt(1 - z**2)`` for ``arccos``) is the derivative from the other side of the cut; written
    with real functions of ``x``, the derivative is that of NumPy's values along the real line. Each
    real function sees only arguments of its own region, so that no NaN reaches a derivative.
    """
    within = elementwise.less_equal(elementwise.abs(getval(x)), 1.0)
    real = indexing.where(within, inside(indexing.where(within, x, 0.0)), real_outside(getval(x)))
    imag = indexing.where(
        within,
        dtypes.zeros_like(getval(x)),
        elementwise.multiply(imag_sign, elementwise.arccosh(indexing.where(within, 2.0, elementwise.abs(x)))),
    )
    complex_x = _complex(x)
    return elementwise.add(dtypes.astype(real, complex_x.dtype), elementwise.multiply(dtypes.astype(imag, complex_x.dtype), 1j))


def arctanh(x):
    """The inverse hyperbolic tangent of ``x``, complex if a real ``x`` has an entry beyond 1 in absolute
    value (``numpy.emath.arctanh``)."""
    return elementwise.arctanh(_complex_where(x, _beyond_one))


__all__ = ["arccos", "arcsin", "arctanh", "log", "log10", "log2", "logn", "power", "sqrt"]
