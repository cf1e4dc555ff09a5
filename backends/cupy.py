"""CuPy on an NVIDIA GPU, through array-api-compat's cupy namespace: what differs from NumPy.
Imported only when asked for.

What CuPy 14 refuses that NumPy takes, and what this backend does about it
(``tests/test_cupy_signatures.py`` checks every call adcore makes against CuPy's own
signatures and checks, on a machine without a GPU):

- Scalars: CuPy's functions that are not ufuncs take arrays only. The array arguments
  listed in ``ARRAY_ARGUMENTS`` (``where``'s condition, ``broadcast_to``, ``reshape``,
  ``sum``, ``tensordot``...) are made arrays when they are Python or NumPy scalars, and so
  is the order ``n`` of ``cupyx.scipy.special.polygamma``.
- Devices: arrays are made, and computations run, on the current GPU (choose it with
  ``with cupy.cuda.Device(i):``, as in CuPy). array-api-compat's creation functions ignore
  ``device=`` and its ``fftfreq``/``rfftfreq`` refuse a CuPy device: here they run inside
  ``with cupy.cuda.Device(device)``.
- Stacks of matrices: CuPy's ``linalg.solve`` and cupyx's ``solve_triangular`` take equal
  batch dimensions only (they are broadcast first, as NumPy does); cupyx's ``lu_factor`` and
  ``expm`` take one matrix (a stack is done matrix by matrix). ``solve_triangular`` computes
  in the dtype of ``a``: both are promoted first, as SciPy does.
- ``cupyx.scatter_add`` takes int32, int64, uint32, uint64, float16, float32 and float64
  only: complex values are added as their real and imaginary parts, other dtypes by the
  base class's one-hot product.
- ``cupyx.scipy.signal.convolve`` chooses a method (``"auto"``) for 1-d input only: n-d
  input is convolved by FFT (``"direct"`` for integers, exact).
- ``linalg.eig`` needs cuSOLVER 11.7 (CUDA 12.6) or newer; with an older one it raises
  ``NotImplementedError`` saying so.
- cupyx (CuPy 14) has no ``scipy.special.jn``, ``iv``, ``ive`` (adcore raises
  ``NotImplementedError`` naming the backend), no ``scipy.linalg.solve_banded``,
  ``solve_sylvester``, ``sqrtm``, ``logm`` (adcore computes them from the standard's
  functions), and no ``scipy.integrate`` (``odeint`` runs on NumPy arrays only).
"""

import functools
import importlib

import array_api_compat.cupy
import cupy
import cupyx
import numpy

from .base import Backend, shares_entries

#: Array API name -> how many leading arguments CuPy takes as arrays only (a scalar there is made an array)
ARRAY_ARGUMENTS = {
    **dict.fromkeys("where broadcast_to reshape sum prod max min argmax argmin all any count_nonzero".split(), 1),
    **dict.fromkeys("cumulative_sum cumulative_prod permute_dims flip expand_dims squeeze".split(), 1),
    **dict.fromkeys("zeros_like ones_like empty_like full_like".split(), 1),
    "tensordot": 2,
}
#: creation functions whose ``device=`` array-api-compat's cupy namespace accepts and ignores
CREATION = frozenset("arange empty empty_like eye full full_like linspace ones ones_like zeros zeros_like".split())
#: the dtypes ``cupyx.scatter_add`` accepts (CuPy's ``_scatter_op``: "cupy.add.at only supports ...")
SCATTER_ADD_DTYPES = frozenset("int32 int64 uint32 uint64 float16 float32 float64".split())
#: The derivative helpers that this backend computes in one kernel, where the base class composes several
#: array operations: name -> ``(in_params, out_params, operation)`` of a ``cupy.ElementwiseKernel`` whose
#: type placeholder ``T`` is one floating dtype (real or complex) shared by its arrays. Each stands for the
#: ``Backend`` method of the same name (its docstring gives the mathematics); ``KERNEL_DTYPES`` the dtypes
#: each is compiled for (CuPy compiles a kernel once per dtype, at its first call).
KERNELS = {
    "multiply_zero_nan": ("T a, T b", "T product", "product = (isnan(b) && a == T(0)) ? T(0) : a * b"),
    "sech_squared": ("T x", "T y", "T u = exp(-2 * fabs(x)); y = 4 * u / ((1 + u) * (1 + u))"),
    "tanh_tangent": (
        "T g, T x",
        "T y",
        "T u = exp(-2 * fabs(x)); T s = 4 * u / ((1 + u) * (1 + u)); y = (isnan(s) && g == T(0)) ? T(0) : g * s",
    ),
    "square_tangent": ("T g, T x", "T y", "T p = x + x; y = (isnan(p) && g == T(0)) ? T(0) : g * p"),
    "zero_where_masked": ("T g, T partial", "T y", "y = (isnan(partial) && g == T(0)) ? T(0) : partial"),
}
KERNEL_DTYPES = {
    "multiply_zero_nan": frozenset("float32 float64 complex64 complex128".split()),
    "sech_squared": frozenset("float32 float64".split()),
    "tanh_tangent": frozenset("float32 float64".split()),
    "square_tangent": frozenset("float32 float64 complex64 complex128".split()),
    "zero_where_masked": frozenset("float32 float64 complex64 complex128".split()),
}


class CuPyBackend(Backend):
    """CuPy arrays on the current GPU; ``xp`` is array-api-compat's cupy namespace with CuPy's differences met.

    Raises
    ------
    RuntimeError
        When made on a machine without an NVIDIA GPU or its driver, saying so.
    """

    arrays_beside_slices = True
    numpy_namespace = property(lambda self: cupy)  # read when used: the CuPy check stands in for this module

    def __init__(self):
        try:
            devices = cupy.cuda.runtime.getDeviceCount()
        except cupy.cuda.runtime.CUDARuntimeError as error:
            raise RuntimeError(f"the cupy backend needs an NVIDIA GPU and its driver; CuPy finds none ({error})") from None
        if not devices:
            raise RuntimeError("the cupy backend needs an NVIDIA GPU; CuPy finds none")
        super().__init__("cupy", CuPyNamespace(array_api_compat.cupy))
        self._scipy_modules = {}
        self._kernels = {
            name: cupy.ElementwiseKernel(in_params, out_params, operation, f"adcore_{name}")
            for name, (in_params, out_params, operation) in KERNELS.items()
        }

    def _fused(self, name, *arrays):
        """The helper ``name`` of ``arrays`` by its one kernel (``KERNELS``) where every argument is a CuPy array
        of one dtype it is compiled for, else by the base class's composition."""
        dtype = getattr(arrays[0], "dtype", None)
        if dtype is None or dtype.name not in KERNEL_DTYPES[name]:
            return getattr(Backend, name)(self, *arrays)
        if not all(isinstance(a, cupy.ndarray) and a.dtype == dtype for a in arrays):
            return getattr(Backend, name)(self, *arrays)
        return self._kernels[name](*arrays)

    def multiply_zero_nan(self, a, b):
        """As ``Backend.multiply_zero_nan``; one kernel for two arrays of one floating dtype (the base class's
        composition is five: the product, ``isnan``, ``equal``, ``logical_and``, ``where``)."""
        return self._fused("multiply_zero_nan", a, b)

    def sech_squared(self, x):
        """As ``Backend.sech_squared``; one kernel for a real floating array (the composition is seven)."""
        return self._fused("sech_squared", x)

    fuses_chain_products = True

    def tanh_tangent(self, g, x):
        """As ``Backend.tanh_tangent``; one kernel for two real floating arrays of one dtype (the composition is two)."""
        return self._fused("tanh_tangent", g, x)

    def square_tangent(self, g, x):
        """As ``Backend.square_tangent``; one kernel for two arrays of one floating dtype (the composition is two)."""
        return self._fused("square_tangent", g, x)

    def zero_where_masked(self, g, partial):
        """As ``Backend.zero_where_masked``; one kernel for two arrays of one floating dtype (the composition is four)."""
        return self._fused("zero_where_masked", g, partial)

    def device(self, x):
        return x.device

    def to_numpy(self, x):
        return cupy.asnumpy(x)

    def synchronize(self):
        cupy.cuda.get_current_stream().synchronize()

    def unwritable(self, x):
        return isinstance(x, cupy.ndarray) and shares_entries(x.shape, x.strides)

    def owns_memory(self, x):
        return x.base is None

    def scatter_add_repeated(self, out, index, values):
        if out.dtype.kind == "c":
            cupyx.scatter_add(out.real, index, values.real)
            cupyx.scatter_add(out.imag, index, values.imag)
            return out
        if out.dtype.name not in SCATTER_ADD_DTYPES:
            return super().scatter_add_repeated(out, index, values)
        cupyx.scatter_add(out, index, values)
        return out

    def scipy_module(self, name):
        """``cupyx.scipy.<name>``, with the differences of ``linalg``, ``special`` and ``signal`` met.

        Raises
        ------
        NotImplementedError
            If cupyx has no such module (``integrate``).
        ImportError
            If the module cannot load a CUDA library (the extras ``[cuda12]``/``[cuda13]`` bring them).
        """
        try:
            return self._scipy_modules[name]
        except KeyError:
            pass
        try:
            module = importlib.import_module(f"cupyx.scipy.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"cupyx.scipy.{name}":
                raise
            raise NotImplementedError(
                f"the cupy backend has no scipy.{name}: cupyx.scipy has no module {name!r} (SciPy's runs on numpy arrays)"
            ) from None
        except ImportError as error:  # a CUDA library it loads is missing (libcublasLt.so.12, ...)
            raise ImportError(
                f"cupyx.scipy.{name} cannot load a CUDA library it needs ({error}); install adcore[cuda12] or "
                "adcore[cuda13], which bring NVIDIA's CUDA library wheels"
            ) from error
        module = self._scipy_modules[name] = _CUPYX_DIFFERENCES.get(name, _Namespace)(module)
        return module


def _scalars_as_arrays(fun, count):
    """``fun`` with its first ``count`` arguments made CuPy arrays where they are Python or NumPy scalars."""

    def call(*args, **kwargs):
        if not isinstance(args[0], cupy.ndarray) or (count == 2 and not isinstance(args[1], cupy.ndarray)):
            args = tuple(a if isinstance(a, cupy.ndarray) else cupy.asarray(a) for a in args[:count]) + args[count:]
        return fun(*args, **kwargs)

    call.__name__ = fun.__name__
    return call


def _on_device(fun):
    """``fun(..., device=device)`` run on ``device``: array-api-compat's cupy namespace accepts ``device=`` and
    makes the array on the current GPU."""

    def call(*args, device=None, **kwargs):
        if device is None:
            return fun(*args, **kwargs)
        with cupy.cuda.Device(device):
            return fun(*args, device=device, **kwargs)

    call.__name__ = fun.__name__
    return call


class _Namespace:
    """A CuPy namespace (module) with the functions a subclass defines replacing its own."""

    def __init__(self, namespace):
        self._namespace = namespace

    def __getattr__(self, name):
        found = getattr(self._namespace, name)
        setattr(self, name, found)
        return found


class CuPyNamespace(_Namespace):
    """array-api-compat's cupy namespace with CuPy's differences met (see the module's docstring): the
    backend's ``xp``, so that code calling ``backend.xp.zeros(..., device=d)`` gets them too."""

    def __getattr__(self, name):
        found = getattr(self._namespace, name)
        if name in CREATION:
            found = _on_device(found)
        if name in ARRAY_ARGUMENTS:
            found = _scalars_as_arrays(found, ARRAY_ARGUMENTS[name])
        elif name == "fft":
            found = _FFT(found)
        elif name == "linalg":
            found = _Linalg(found)
        setattr(self, name, found)
        return found


class _FFT(_Namespace):
    def fftfreq(self, n, /, *, d=1.0, dtype=None, device=None):
        with cupy.cuda.Device(device):
            return self._namespace.fftfreq(n, d=d, dtype=dtype)

    def rfftfreq(self, n, /, *, d=1.0, dtype=None, device=None):
        with cupy.cuda.Device(device):
            return self._namespace.rfftfreq(n, d=d, dtype=dtype)


class _Linalg(_Namespace):
    def solve(self, a, b):
        """``cupy.linalg.solve`` needs ``a.shape[:-1] == b.shape[:-1]`` for a stack ``b``: batch dimensions broadcast first."""
        if b.ndim > 1:
            a, b = _broadcast_batches(a, b)
        return self._namespace.solve(a, b)

    def eig(self, x):
        return _with_geev(self._namespace.eig, x, "eig")

    def eigvals(self, x):
        return _with_geev(self._namespace.eigvals, x, "eigvals")


def _with_geev(fun, x, name):
    try:
        return fun(x)
    except RuntimeError as error:
        if "geev" not in str(error):
            raise
        raise NotImplementedError(
            f"linalg.{name}: CuPy's {name} needs cuSOLVER 11.7 or newer (CUDA 12.6+), which this installation lacks; "
            "install adcore[cuda12] or adcore[cuda13] (they bring the CUDA libraries), or use the numpy backend"
        ) from error


def _broadcast_batches(a, b):
    """The stacks of matrices ``a`` (``(..., m, m)``) and ``b`` (``(..., m, k)``) broadcast to one batch shape."""
    batch = numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return cupy.broadcast_to(a, batch + a.shape[-2:]), cupy.broadcast_to(b, batch + b.shape[-2:])


def _matrix_by_matrix(fun, a):
    """``fun`` (of one matrix, giving a tuple of arrays or one array) applied to each matrix of the stack ``a``."""
    results = [fun(matrix) for matrix in a.reshape((-1,) + a.shape[-2:])]
    if isinstance(results[0], tuple):
        return tuple(cupy.stack(parts).reshape(a.shape[:-2] + parts[0].shape) for parts in zip(*results))
    return cupy.stack(results).reshape(a.shape[:-2] + results[0].shape)


class _CupyxLinalg(_Namespace):
    def solve_triangular(self, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=False):
        """cupyx's takes equal batch dimensions and computes in ``a``'s dtype: ``a`` and ``b`` are promoted and their
        batches broadcast first (a 1-d ``b`` is solved as one column, whatever the batch of ``a``)."""
        dtype = cupy.result_type(a, b)
        a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
        solve = functools.partial(self._namespace.solve_triangular, trans=trans, lower=lower, unit_diagonal=unit_diagonal)
        if a.ndim == 2 and b.ndim <= 2:
            return solve(a, b)
        if b.ndim == 1:
            return solve(*_broadcast_batches(a, b[:, None]))[..., 0]
        return solve(*_broadcast_batches(a, b))

    def lu_factor(self, a, overwrite_a=False, check_finite=True):
        if a.ndim == 2:
            return self._namespace.lu_factor(a)
        return _matrix_by_matrix(self._namespace.lu_factor, a)

    def expm(self, a):
        if a.ndim == 2:
            return self._namespace.expm(a)
        return _matrix_by_matrix(self._namespace.expm, a)


class _CupyxSpecial(_Namespace):
    def polygamma(self, n, x):
        """CuPy's ``polygamma`` gives ``n == 0`` to ``cupy.where``: ``n`` must be an array (here of ``x``'s dtype)."""
        if not isinstance(n, cupy.ndarray):
            n = cupy.asarray(n, dtype=x.dtype if isinstance(x, cupy.ndarray) else None)
        return self._namespace.polygamma(n, x)


class _CupyxSignal(_Namespace):
    def convolve(self, in1, in2, mode="full", method="auto"):
        if method == "auto" and in1.ndim > 1:
            method = "direct" if in1.dtype.kind in "iu" and in2.dtype.kind in "iu" else "fft"
        return self._namespace.convolve(in1, in2, mode=mode, method=method)


_CUPYX_DIFFERENCES = {"linalg": _CupyxLinalg, "special": _CupyxSpecial, "signal": _CupyxSignal}
