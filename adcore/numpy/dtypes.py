"""Dtypes and casts: ``astype`` (a cast to an integer or boolean dtype is not traced), ``result_type``,
NumPy's dtype names and constants, and the arrays made like another (``zeros_like``, ...: not traced)."""

import numpy as _np

from backends import backend_of

from ..core import Box, def_linear, defvjp, getval, notrace_primitive, primitive, tracer
from ..core.batching import def_batch_safe_vjp
from ..core.ops import def_signature_only
from ..core.wrapping import wraps
from .declare import unbroadcast_f

__all__ = """astype bool_ complex128 complex64 e empty_like float16 float32 float64 full_like inf int16 int32 int64 int8 isscalar
nan
newaxis ones_like pi result_type zeros_like""".split()


def _untraced_when(piecewise_constant):
    """Decorate a primitive so that the calls for which ``piecewise_constant(*args, **kwargs)`` holds
    compute on the raw values and return an untraced result; ``.primitive`` is the primitive
    itself, which holds the rules, ``.untraced`` the non-differentiable primitive of those calls.

    Those calls make integer or boolean values (a cast to an integer dtype, a sum in one,
    ``where(condition)``'s indices): piecewise constant in the inputs, so their derivative is zero
    wherever it exists. Untraced, they carry no tangent or cotangent, and serve as indices, shapes
    and factors in both modes and at every order (``x[x[0].astype(int)] * x ** 2``), as the
    results of comparisons, ``floor`` and ``argmax`` do (``notrace_primitive``).
    """

    box_types = Box.types

    def decorate(traced):
        raw = traced.fun
        untraced_primitive = notrace_primitive(raw)  # seen by adcore.jit, which records its calls

        @wraps(raw)
        def fun(*args, **kwargs):
            if tracer.raw_call_hook is None:  # nothing records: a call without boxes is the raw call either way
                for value in args:
                    if type(value) in box_types:
                        break
                else:
                    if not kwargs or not any(type(value) in box_types for value in kwargs.values()):
                        return raw(*args, **kwargs)
            try:
                untraced = piecewise_constant(*args, **kwargs)
            except TypeError:  # a call the function itself refuses (and names)
                untraced = False
            if untraced:
                return untraced_primitive(*args, **kwargs)
            return traced(*args, **kwargs)

        fun.primitive, fun.untraced = traced, untraced_primitive
        return fun

    return decorate


def _exact_dtype(x, dtype):
    """Whether ``dtype`` (read by the backend of ``x``) is an integer or boolean dtype; None is not."""
    if dtype is None:
        return False
    backend = backend_of(getval(x))
    try:
        return _exact_dtypes[backend, dtype]
    except KeyError:
        exact = _exact_dtypes[backend, dtype] = not backend.isdtype(backend.dtype(dtype), ("real floating", "complex floating"))
        return exact


_exact_dtypes = {}  # (backend, dtype) -> whether it is an integer or boolean dtype


@_untraced_when(_exact_dtype)
@primitive
def astype(x, dtype):
    """``x`` cast to ``dtype``; a cast to an integer or boolean dtype is untraced (its derivative is zero)."""
    backend = backend_of(x, op="astype")
    if not hasattr(x, "dtype"):  # a Python scalar (a traced float, or a rule's comparison of one)
        return backend.asarray(x, dtype=backend.dtype(dtype))
    return backend.astype(x, backend.dtype(dtype))


def grad_astype(ans, x, dtype):
    """A cast to a floating-point or complex dtype passes the cotangent through (a cast to an
    integer or boolean dtype is not traced: ``astype``)."""
    return unbroadcast_f(x, lambda g: g)


defvjp(astype.primitive, grad_astype)
def_linear(astype.primitive)
def_batch_safe_vjp(astype.primitive)


@notrace_primitive
def isscalar(x):
    return isinstance(x, (int, float, complex, bool, _np.generic))


@notrace_primitive
def result_type(*arrays_and_dtypes):
    return backend_of(*arrays_and_dtypes, op="result_type").result_type(*arrays_and_dtypes)


@notrace_primitive
def zeros_like(x, dtype=None):
    backend = backend_of(x, op="zeros_like")
    return backend.zeros_like(x, dtype=backend.dtype(dtype))


@notrace_primitive
def ones_like(x, dtype=None):
    backend = backend_of(x, op="ones_like")
    return backend.ones_like(x, dtype=backend.dtype(dtype))


@notrace_primitive
def empty_like(x, dtype=None):
    backend = backend_of(x, op="empty_like")
    return backend.empty_like(x, dtype=backend.dtype(dtype))


def_signature_only(isscalar, result_type, zeros_like, ones_like, empty_like)


@notrace_primitive
def full_like(x, fill_value, dtype=None):
    backend = backend_of(x, op="full_like")
    return backend.full_like(x, fill_value, dtype=backend.dtype(dtype))


pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None


float16, float32, float64 = _np.float16, _np.float32, _np.float64


complex64, complex128 = _np.complex64, _np.complex128


bool_ = _np.bool_


def _casting_int_type(int_type):
    """NumPy's ``int_type`` (a dtype, ``np.int64(x)``), callable on traced values too: the cast reads
    their value and is not differentiated (autograd's ``wrap_intdtype``). It is a subclass of
    NumPy's type, so ``dtype=``, ``astype`` and ``numpy.dtype`` take it as NumPy's."""

    def __new__(cls, *args, **kwargs):
        return int_type(*map(getval, args), **kwargs)

    return type(int_type.__name__, (int_type,), {"__new__": __new__, "__module__": __name__, "__doc__": int_type.__doc__})


int8, int16, int32, int64 = map(_casting_int_type, (_np.int8, _np.int16, _np.int32, _np.int64))
