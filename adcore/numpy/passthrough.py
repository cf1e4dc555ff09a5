"""NumPy's names that take no derivative: its types and constants, and its non-differentiable functions.

``autograd.numpy`` offers every name of NumPy; this module gives ``adcore.numpy``
the ones that have no derivative to define, so code written for autograd finds
them at the same path:

- NumPy's types, classes and constants (``ndarray``, ``dtype``, ``errstate``,
  ``vectorize``, ``poly1d``, ``euler_gamma``, ...), and its functions that take
  no array (``seterr``, ``set_printoptions``, ``promote_types``, ...), are
  NumPy's own objects.
- Functions of arrays whose result is an integer, a boolean or a fixed
  construction (``gcd``, ``digitize``, ``isin``, ``packbits``,
  ``histogram``, ``tril_indices``, ``bartlett``, ...) are *non-differentiable*
  (``notrace_primitive``): they see the values under traced arguments, and
  their results are constants. They run on the backend of their array
  arguments: through the standard's functions where it has them (the bitwise
  functions, ``digitize`` through ``searchsorted``, ``heaviside``, ``tri``,
  ``indices``, ``empty``, ``identity``), otherwise through the library's own
  NumPy-named function (``Backend.numpy_function``: NumPy, CuPy, JAX, Dask),
  or a form written with the standard's functions (``ravel_multi_index``,
  ``unravel_index``, ``put``: ``Backend.standard_<name>``); a backend without
  one raises ``NotImplementedError`` naming the backend and
  the function. Called with no array (Python numbers or lists), NumPy computes
  and array results are put on the default backend.
- Functions that make arrays from files, buffers or a window formula
  (``loadtxt``, ``frombuffer``, ``hanning``, ...) are NumPy's, their arrays put
  on the default backend (``backend.from_numpy``).
- Printing and saving (``array2string``, ``savetxt``, ...) read the values on
  the host (``backend.to_numpy``, an explicit copy).
- Functions that write into an array (``copyto``, ``place``, ``put``,
  ``putmask``, ``put_along_axis``, ``fill_diagonal``) refuse traced arrays with
  ``TypeError``, as item assignment does: a traced value is immutable.

A derivative that adcore does not implement is never a silent zero: such a
function is made with :func:`without_derivative`, recorded in the op table's
``not_implemented`` (``adcore.core.ops``) with the reason, and raises
``NotImplementedError`` naming the function when given a traced argument.
"""

import inspect

import numpy as _np

from backends import array_backend, backend_of, default_backend

from ..core import Box, getval, isbox, nondifferentiable, notrace_primitive
from ..core.ops import not_implemented as derivatives_not_implemented
from ..core.wrapping import wraps
from .declare import zero_derivative
from .random import _to_default_backend
from .selection import searchsorted as _searchsorted
from .declare import iscomplexobj as _iscomplexobj
from .elementwise import isnan as _isnan
from .indexing import where as _where
from .reductions import argmax as _argmax
from .reductions import argmin as _argmin
from .shapes import ravel as _ravel

# ---- the mechanisms ----


def unboxed(value):
    """``value`` with every traced value in it (also inside lists, tuples and dicts) replaced by its value."""
    if type(value) in Box.types:
        return getval(value)
    if type(value) in (list, tuple):
        return type(value)(unboxed(item) for item in value)
    if isinstance(value, dict):
        return {key: unboxed(item) for key, item in value.items()}
    return value


def arrays_in(values):
    """The arrays (of any backend) among ``values`` and inside their lists and tuples."""
    found = []
    for value in values:
        if isinstance(value, (list, tuple)):
            found.extend(arrays_in(value))
        elif array_backend(value) is not None:
            found.append(value)
    return found


def traced_in(values):
    """Whether a traced value is among ``values`` or inside their lists, tuples and dicts."""
    for value in values:
        if isbox(value):
            return True
        if isinstance(value, (list, tuple, dict)) and traced_in(value.values() if isinstance(value, dict) else value):
            return True
    return False


def _named(fun, name, doc):
    fun.__name__ = fun.__qualname__ = name
    fun.__doc__ = doc
    return fun


def readable_signature(fun):
    """``fun``'s ``inspect.Signature``, or None when none can be read; never raises.

    ``inspect.signature`` reads NumPy's Python functions, and its ufuncs from NumPy 2.4 on. For a ufunc of
    an older NumPy (which refuses: ``ValueError: callable <ufunc 'gcd'> is not supported by signature``)
    the signature is built as NumPy 2.4 states it: ``nin`` positional-only operands (``x``, or ``x1``,
    ``x2``...), ``out`` (None, or a tuple of ``nout`` Nones), then the keyword-only arguments of every ufunc
    (``where`` for elementwise ufuncs, ``axes``/``axis``/``keepdims`` for generalized ones, ``casting``,
    ``order``, ``dtype``, ``subok``, ``signature``). Any other callable without one gives None.
    """
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return ufunc_signature(fun) if isinstance(fun, _np.ufunc) else None


def ufunc_signature(ufunc):
    """The ``inspect.Signature`` of a NumPy ufunc as NumPy 2.4 states it, from its ``nin``, ``nout`` and
    ``signature`` (for the NumPy versions whose ufuncs have none)."""
    P = inspect.Parameter
    names = ["x"] if ufunc.nin == 1 else [f"x{i}" for i in range(1, ufunc.nin + 1)]
    parameters = [P(name, P.POSITIONAL_ONLY) for name in names]
    parameters.append(P("out", P.POSITIONAL_OR_KEYWORD, default=None if ufunc.nout == 1 else (None,) * ufunc.nout))
    if ufunc.signature is None:
        keywords = {"where": True}
    else:
        keywords = {"axes": _np._NoValue, "axis": _np._NoValue, "keepdims": False}
    keywords.update(casting="same_kind", order="K", dtype=None, subok=True, signature=None)
    parameters += [P(name, P.KEYWORD_ONLY, default=value) for name, value in keywords.items()]
    return inspect.Signature(parameters)


#: NumPy's name -> its parameters that NumPy reads as arrays (``array_like``: a number, or a list or tuple) where
#: a library takes arrays only (CuPy's ``isin(x, [1, 2])``: "'list' object has no attribute 'ravel'"; its
#: ``lexsort`` of a tuple of keys; JAX's functions of lists). A ufunc's operands are also read as arrays, but
#: libraries take numbers there (and promote them as Python scalars): only their lists and tuples are made arrays.
ARRAY_LIKE = {
    "isin": ("element", "test_elements"),
    "lexsort": ("keys",),
    "packbits": ("a",),
    "unpackbits": ("a",),
    "unravel_index": ("indices",),
    "histogram": ("a", "weights"),
    "histogram_bin_edges": ("a", "weights"),
    "histogram2d": ("x", "y", "weights"),
    "histogramdd": ("weights",),
}


def on_backend(name):
    """NumPy's ``name``, non-differentiable, computed by the library of its array arguments
    (``Backend.numpy_function``), what NumPy reads as an array there (``ARRAY_LIKE``) made an array of that
    library and device first; with no array argument, by NumPy, array results on the default backend."""
    numpy_fun = getattr(_np, name)
    signature = readable_signature(numpy_fun)
    ufunc = isinstance(numpy_fun, _np.ufunc)
    if signature is None:
        array_like = ()
    elif ufunc:
        array_like = tuple(signature.parameters)[: numpy_fun.nin]
    else:
        array_like = ARRAY_LIKE.get(name, ())
    made_arrays = (list, tuple) if ufunc else (list, tuple, bool, int, float, complex, _np.generic)

    def raw(*args, **kwargs):
        args, kwargs = unboxed(args), unboxed(kwargs)
        arrays = arrays_in((*args, *kwargs.values()))
        if not arrays:
            return _on_default_backend(numpy_fun(*args, **kwargs))
        backend = backend_of(*arrays, op=name)
        library_fun = backend.numpy_function(name)
        if array_like and any(isinstance(v, made_arrays) for v in (*args, *kwargs.values())):
            args, kwargs = _as_arrays(backend, backend.device(arrays[0]), signature, array_like, made_arrays, args, kwargs)
        return library_fun(*args, **kwargs)

    doc = f"NumPy's ``{name}`` (not differentiable), computed by the library of its array arguments."
    if signature is not None:
        raw.__signature__ = signature
    return notrace_primitive(_named(raw, name, doc))


def _as_arrays(backend, device, signature, names, kinds, args, kwargs):
    """``(args, kwargs)`` with the values of the types ``kinds`` given to the parameters ``names`` of ``signature``
    made arrays of ``backend`` on ``device`` (as NumPy reads them: a sequence of arrays is their stack); unchanged
    if they do not bind (the library's own function then says what is wrong)."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return args, kwargs
    for parameter in names:
        value = bound.arguments.get(parameter)
        if isinstance(value, kinds):
            bound.arguments[parameter] = _as_backend_array(backend, device, value)
    return bound.args, bound.kwargs


def _as_backend_array(backend, device, value):
    """The array NumPy's ``asarray`` makes of ``value`` (a number, an array, or a nested list or tuple of them),
    as an array of ``backend`` on ``device``."""
    if hasattr(value, "shape") and not isinstance(value, _np.generic):
        return value
    if isinstance(value, (list, tuple)) and arrays_in(value):
        return backend.stack([_as_backend_array(backend, device, item) for item in value])
    if isinstance(value, _np.generic):
        return backend.from_numpy(_np.asarray(value), device=device)
    return backend.asarray(value, device=device)


def made_by_numpy(name):
    """NumPy's ``name`` (a constructor from files, buffers or a formula), its arrays put on the default backend."""

    def raw(*args, **kwargs):
        return _on_default_backend(getattr(_np, name)(*unboxed(args), **unboxed(kwargs)))

    return notrace_primitive(_named(raw, name, f"NumPy's ``{name}``, its array results on the default backend."))


def made_like(name):
    """NumPy's ``name(arr, ...)`` (index arrays for ``arr``), its arrays on ``arr``'s backend and device."""

    def raw(arr, *args, **kwargs):
        backend = backend_of(arr, op=name)
        shape_only = _np.broadcast_to(_np.empty((), dtype=bool), tuple(arr.shape))
        result = getattr(_np, name)(shape_only, *args, **kwargs)
        return _map_arrays(lambda a: backend.from_numpy(a, device=backend.device(arr)), result)

    return notrace_primitive(_named(raw, name, f"NumPy's ``{name}``, its index arrays on ``arr``'s backend and device."))


def on_host(name):
    """NumPy's ``name`` (printing, saving) on the values of its array arguments copied to the host."""

    def raw(*args, **kwargs):
        return getattr(_np, name)(*_map_arrays(_host_copy, unboxed(args)), **_map_arrays(_host_copy, unboxed(kwargs)))

    return notrace_primitive(_named(raw, name, f"NumPy's ``{name}`` of the arrays' values, read on the host."))


def in_place(name):
    """NumPy's ``name``, which writes into an array: refused on traced values (they are immutable)."""

    def writes(*args, **kwargs):
        if traced_in((*args, *kwargs.values())):
            raise TypeError(
                f"adcore: {name} writes into an array, and arrays being differentiated cannot be written to; "
                "build the result instead, e.g. with adcore.numpy.where(mask, value, x) or adcore.numpy.concatenate"
            )
        arrays = arrays_in((*args, *kwargs.values()))
        return backend_of(*arrays, op=name).numpy_function(name)(*args, **kwargs)

    nondifferentiable.add(writes)
    return _named(writes, name, f"NumPy's in-place ``{name}`` on arrays that are not traced.")


def without_derivative(fun, name, reason, differentiable_args=None):
    """``fun`` for values that are not traced; a traced argument (one of ``differentiable_args``, names of
    parameters of ``fun``'s signature, or any argument when it is None or no signature can be read) raises ``NotImplementedError``
    naming ``name`` and ``reason``. Recorded in ``adcore.core.ops.not_implemented``."""
    signature = None if differentiable_args is None else readable_signature(fun)

    @wraps(fun)
    def wrapped(*args, **kwargs):
        if signature is None:
            checked = args + tuple(kwargs.values())
        else:
            given = signature.bind_partial(*args, **kwargs).arguments
            checked = [given.get(parameter) for parameter in differentiable_args]
        if traced_in(checked):
            raise NotImplementedError(
                f"{name}: adcore has no derivative for it ({reason}); compute it outside the differentiated "
                "function, or on the values alone (adcore.core.getval)"
            )
        return fun(*unboxed(args), **unboxed(kwargs))

    derivatives_not_implemented[wrapped] = reason
    return wrapped


def host_values(value):
    """The values of ``value`` (a number, a list, or an array of any backend and device, traced or not) as a
    NumPy array, read on the host (``backend.to_numpy``): for the decisions NumPy itself makes on values
    (which elements ``piecewise`` gives each function, a polynomial's leading zeros, whether all eigenvalues
    are real), and the scalar tests that need a Python bool."""
    value = getval(value)
    return backend_of(value).to_numpy(value) if hasattr(value, "shape") else _np.asarray(value)


def _map_arrays(convert, value):
    if isinstance(value, tuple):
        return tuple(_map_arrays(convert, item) for item in value)
    if isinstance(value, list):
        return [_map_arrays(convert, item) for item in value]
    if isinstance(value, dict):
        return {key: _map_arrays(convert, item) for key, item in value.items()}
    return convert(value) if array_backend(value) is not None else value


def _on_default_backend(value):
    return _map_arrays(_to_default_backend, value)


def _host_copy(x):
    return backend_of(x).to_numpy(x)


_NOT_EXPORTED = set(globals())  # the imports and mechanisms above; every public name below is exported

# ---- NumPy's types, classes and constants, and its functions that take no array ----

# fmt: off
_NUMPY_OBJECTS = (
    "bool byte short intc int_ intp long longlong ubyte ushort uintc uint uintp ulong ulonglong uint8 uint16 uint32 "
    "uint64 half single double longdouble float128 csingle cdouble clongdouble complex256 bytes_ str_ void object_ "
    "datetime64 timedelta64 generic number integer signedinteger unsignedinteger inexact floating complexfloating "
    "flexible character dtype ndarray matrix memmap recarray record poly1d vectorize errstate broadcast busdaycalendar "
    "flatiter nditer ndenumerate ndindex ufunc euler_gamma "
    "base_repr binary_repr format_float_positional format_float_scientific get_printoptions set_printoptions "
    "printoptions getbufsize setbufsize geterr seterr geterrcall seterrcall get_include show_config show_runtime info "
    "test typename iterable can_cast promote_types min_scalar_type mintypecode common_type issubdtype isdtype "
    "busday_count busday_offset is_busday datetime_as_string datetime_data nested_iters frompyfunc asmatrix bmat "
    "broadcast_shapes"
).split()
# fmt: on
globals().update({name: getattr(_np, name) for name in _NUMPY_OBJECTS if hasattr(_np, name)})


@notrace_primitive
def finfo(dtype):
    """NumPy's ``finfo`` of a dtype, or of an array's (traced or not, of any backend) dtype."""
    return _type_info("finfo", dtype)


@notrace_primitive
def iinfo(dtype):
    """NumPy's ``iinfo`` of a dtype, or of an array's (traced or not, of any backend) dtype."""
    return _type_info("iinfo", dtype)


def _type_info(kind, dtype):
    """NumPy's ``finfo``/``iinfo`` of ``dtype``; for a dtype NumPy does not know (torch's), the backend's (that of
    the array it came from, else the default backend)."""
    array = dtype if hasattr(dtype, "shape") and not isinstance(dtype, type) else None
    dtype = dtype if array is None else array.dtype
    try:
        return getattr(_np, kind)(dtype)
    except (TypeError, ValueError):
        return getattr(default_backend() if array is None else backend_of(array, op=kind), kind)(dtype)


# ---- non-differentiable elementwise functions ----

bitwise_and = zero_derivative("bitwise_and")
bitwise_or = zero_derivative("bitwise_or")
bitwise_xor = zero_derivative("bitwise_xor")
invert = bitwise_not = bitwise_invert = zero_derivative("invert", "bitwise_invert")
left_shift = bitwise_left_shift = zero_derivative("left_shift", "bitwise_left_shift")
right_shift = bitwise_right_shift = zero_derivative("right_shift", "bitwise_right_shift")
nextafter = zero_derivative("nextafter")
gcd = on_backend("gcd")
lcm = on_backend("lcm")
spacing = on_backend("spacing")
isnat = on_backend("isnat")
bitwise_count = on_backend("bitwise_count")


@notrace_primitive
def heaviside(x1, x2):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0`` (NaN stays NaN)."""
    backend = backend_of(x1, x2, op="heaviside")
    x1 = x1 if hasattr(x1, "shape") else backend.asarray(x1)
    zero, one = backend.zeros_like(x1), backend.ones_like(x1)
    return backend.where(x1 < 0, zero, backend.where(x1 > 0, one, backend.where(backend.isnan(x1), x1, x2 + zero)))


# ---- non-differentiable functions of arrays ----


@notrace_primitive
def digitize(x, bins, right=False):
    """The index of the bin of each ``x`` (NumPy's ``digitize``), through ``searchsorted``: ``bins``
    increasing or decreasing (checked on the first and last bin)."""
    backend = backend_of(x, bins, op="digitize")
    bins = bins if hasattr(bins, "shape") else backend.asarray(bins)
    x = x if hasattr(x, "shape") else backend.asarray(x, dtype=bins.dtype)
    if bins.shape[0] > 1 and host_values(bins[-1] < bins[0]):
        return bins.shape[0] - _searchsorted(backend.flip(bins, axis=0), x, side="left" if right else "right")
    return _searchsorted(bins, x, side="left" if right else "right")


@notrace_primitive
def nanargmax(a, axis=None, keepdims=False):
    """The index of the largest non-NaN value (NumPy's ``nanargmax``); an all-NaN slice raises ``ValueError``."""
    _no_all_nan(a, axis, "nanargmax")
    return _argmax(_where(_isnan(a), -_np.inf, a), axis=axis, keepdims=keepdims)


@notrace_primitive
def nanargmin(a, axis=None, keepdims=False):
    """The index of the smallest non-NaN value (NumPy's ``nanargmin``); an all-NaN slice raises ``ValueError``."""
    _no_all_nan(a, axis, "nanargmin")
    return _argmin(_where(_isnan(a), _np.inf, a), axis=axis, keepdims=keepdims)


def _no_all_nan(a, axis, name):
    backend = backend_of(a, op=name)
    if backend.name != "dask" and host_values(backend.any(backend.all(backend.isnan(a), axis=axis))):
        raise ValueError(f"{name}: All-NaN slice encountered")


@notrace_primitive
def isrealobj(x):
    """Whether ``x`` has no complex dtype."""
    return not _iscomplexobj(x)


@notrace_primitive
def ix_(*args):
    """Open mesh index arrays (NumPy's ``ix_``): the ``k``-th 1-d sequence shaped to lie along axis ``k``."""
    arrays = arrays_in(args)
    backend = backend_of(*arrays, op="ix_")
    result = []
    for k, seq in enumerate(args):
        seq = seq if hasattr(seq, "shape") else backend.asarray(seq)
        if backend.isdtype(seq.dtype, "bool"):
            seq = backend.nonzero(seq)[0]
        result.append(backend.reshape(seq, (1,) * k + (-1,) + (1,) * (len(args) - k - 1)))
    return tuple(result)


@notrace_primitive
def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's ``einsum_path``: the contraction order, from the operands' shapes only."""
    stand_ins = [_np.broadcast_to(_np.zeros((), dtype=float), tuple(getattr(x, "shape", ()))) for x in operands]
    return _np.einsum_path(subscripts, *stand_ins, optimize=optimize, einsum_call=einsum_call)


isin = on_backend("isin")


def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    """NumPy's ``in1d`` (removed in NumPy 2.4; autograd offers it beside NumPy 2.1-2.3): ``isin`` of the
    flattened ``ar1``, a 1-d bool array on ``ar1``'s backend (not differentiable). ``kind`` is passed on only
    when given (CuPy's ``isin`` has no such parameter)."""
    options = {} if kind is None else {"kind": kind}
    return isin(_ravel(ar1), ar2, assume_unique=assume_unique, invert=invert, **options)


lexsort = on_backend("lexsort")
packbits = on_backend("packbits")
unpackbits = on_backend("unpackbits")
ravel_multi_index = on_backend("ravel_multi_index")
unravel_index = on_backend("unravel_index")
may_share_memory = on_backend("may_share_memory")
shares_memory = on_backend("shares_memory")
isfortran = on_backend("isfortran")
histogram_bin_edges = on_backend("histogram_bin_edges")
_WEIGHTS = "a derivative in the weights would be a scatter-add of the cotangent per bin; use np.bincount(index, weights)"
histogram, histogram2d, histogramdd = (
    without_derivative(on_backend(name), name, _WEIGHTS, differentiable_args=("weights",))
    for name in ("histogram", "histogram2d", "histogramdd")
)


# ---- creation ----


def _creation_backend(like):
    """The backend that makes a new array: ``like``'s (NumPy's ``like=``), else the default one."""
    return default_backend() if like is None else backend_of(getval(like), op="like")


def _creation_device(backend, like, device):
    """The device of a new array: ``device`` if given, else ``like``'s (None: the backend's default)."""
    return device if device is not None or like is None else backend.device(getval(like))


def empty(shape, dtype=float, order="C", *, device=None, like=None):
    """A new array of ``shape`` and ``dtype``, values unset, on the default backend (or ``like``'s), on ``device``."""
    _check_order(order, "empty")
    backend = _creation_backend(like)
    return backend.empty(shape, dtype=backend.dtype(dtype), device=_creation_device(backend, like, device))


def identity(n, dtype=None, *, like=None):
    """The ``n x n`` identity, float64 unless ``dtype`` is given, on the default backend (or ``like``'s)."""
    backend = _creation_backend(like)
    return backend.eye(n, dtype=backend.dtype(float if dtype is None else dtype), device=_creation_device(backend, like, None))


def tri(N, M=None, k=0, dtype=float, *, like=None):
    """Ones at and below the ``k``-th diagonal of an ``N x M`` array, zeros above."""
    backend = _creation_backend(like)
    xp, device = backend.xp, _creation_device(backend, like, None)
    M = N if M is None else M
    below = xp.reshape(xp.arange(M, device=device), (1, -1)) - xp.reshape(xp.arange(N, device=device), (-1, 1)) <= k
    return backend.astype(below, backend.dtype(dtype))


def indices(dimensions, dtype=int, sparse=False):
    """Index grids of ``dimensions`` (NumPy's ``indices``): a ``(len(dimensions), *dimensions)`` array, or
    with ``sparse`` a tuple of arrays each varying along one axis."""
    backend = default_backend()
    n = len(dimensions)
    grids = [
        backend.reshape(backend.arange(size, dtype=backend.dtype(dtype)), (1,) * i + (size,) + (1,) * (n - i - 1))
        for i, size in enumerate(dimensions)
    ]
    if sparse:
        return tuple(grids)
    if not grids:
        return backend.empty((0,), dtype=backend.dtype(dtype))
    return backend.stack([backend.broadcast_to(grid, tuple(dimensions)) for grid in grids])


def from_dlpack(x, /, *, device=None, copy=None):
    """An array of the default backend sharing the memory of ``x`` (any DLPack producer)."""
    return default_backend().xp.from_dlpack(x, device=device, copy=copy)


def _check_order(order, name):
    if order not in ("C", "K", "A", None):
        raise NotImplementedError(f"{name}: order={order!r} is not supported; adcore's arrays are in C order")


for _name in "load loadtxt genfromtxt fromfile frombuffer fromiter fromregex fromstring".split():
    globals()[_name] = made_by_numpy(_name)
for _name in "bartlett blackman hamming hanning kaiser tril_indices triu_indices diag_indices mask_indices".split():
    globals()[_name] = made_by_numpy(_name)
for _name in "tril_indices_from triu_indices_from diag_indices_from".split():
    globals()[_name] = made_like(_name)
for _name in "array2string array_repr array_str save savetxt savez savez_compressed".split():
    globals()[_name] = on_host(_name)
for _name in "copyto place put putmask put_along_axis fill_diagonal".split():
    globals()[_name] = in_place(_name)

__all__ = sorted(name for name in globals() if not name.startswith("_") and name not in _NOT_EXPORTED)
