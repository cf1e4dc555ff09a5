"""adcore's calls into CuPy, checked against CuPy's own code on a machine without a GPU.

The ``cupy`` parametrisations of the test suite need a GPU; this module needs only
``import cupy`` (``cupy-cuda12x`` imports without one). It runs the spec tables' functions
and their derivatives (both modes, to each spec's order) through the cupy backend's own
code, ``backends/cupy.py`` and array-api-compat's cupy namespace, with NumPy standing in
for CuPy: each CuPy module that ``backends/cupy.py`` imports is replaced by a stand-in
whose functions compute with the NumPy (SciPy, array-api-compat numpy) function of the
same name, and check every call against the CuPy function it stands for:

1. **Signature**: the arguments bind to ``inspect.signature`` of the CuPy function (for a
   CuPy ufunc: at most ``nargs`` positional arguments, and only ``out``, ``dtype``,
   ``casting`` by keyword).
2. **CuPy's own checks**: the CuPy function is run on the call's arguments, each NumPy
   array replaced by a CuPy array of the same shape and dtype over memory that is never
   read (``cupy.cuda.UnownedMemory``). What CuPy raises before it first needs the device
   (``TypeError``, ``ValueError``, ``AttributeError``, ``NotImplementedError``, ``IndexError``,
   ``KeyError``) fails the check; a CUDA error means that CuPy accepted the arguments and
   went to the GPU. The CUDA libraries that are not installed are replaced by modules
   whose functions raise that CUDA error (``cupy_backends.cuda.libs``), so that
   ``cupyx.scipy.linalg`` imports here.
3. **What CuPy refuses only after it first asks the device** (for the current GPU, or to run
   a kernel), read from its source: ``BEYOND_THE_DEVICE`` below.
4. **Devices**: array-api-compat's cupy creation functions ignore ``device=`` (the array is
   made on the current GPU), so a call passing a device must run inside
   ``with cupy.cuda.Device(device)``.

What it cannot see: anything the GPU computes (values, precision, speed, memory), CuPy's
refusals after it first asks the device that ``BEYOND_THE_DEVICE`` does not list, the methods and
operators called on arrays (``x.real``, ``x + y``, ``x[index]``), NumPy's own behaviour where
CuPy's differs in results rather than in what it accepts (the stand-ins return 0-d arrays
where NumPy returns scalars, as CuPy does), and whether the CUDA libraries load. It does
not run where a GPU is present: there the cupy parametrisations run for real, and the
arrays over unused memory would reach the device.
"""

import contextlib
import importlib
import inspect
import sys
import types
import warnings
from functools import partial

import array_api_compat.numpy
import numpy
import pytest
import scipy.linalg  # noqa: F401 - the stand-ins of cupyx.scipy's modules
import scipy.signal  # noqa: F401
import scipy.special  # noqa: F401
from conftest import _KNOWN_FAILURES

import adcore.numpy as np
import adcore.scipy.special as special
import backends
from adcore import grad, hvp, make_vjp, vjp
from adcore.coverage import is_adcore
from adcore.test_util import check_grads
from backends.base import Backend
from benchmarks import kernels
from specs import inputs

cupy = pytest.importorskip("cupy", reason="the check reads CuPy's signatures: pip install cupy-cuda12x (no GPU needed)")


def _gpu_here():
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except cupy.cuda.runtime.CUDARuntimeError:
        return False


pytestmark = [
    pytest.mark.skipif(_gpu_here(), reason="a GPU is present: the cupy parametrisations of the tests run for real"),
    pytest.mark.filterwarnings("ignore:cupyx.jit.rawkernel is experimental:FutureWarning"),
]

#: What CuPy refuses only after it first asks the device (the current GPU, or a kernel), which the
#: run on arrays over unused memory does not reach, read from CuPy's source:
#: ``path`` of a CuPy function -> (whether the call's bound arguments are accepted, why not, where CuPy says so)
BEYOND_THE_DEVICE = {
    "cupyx.scipy.special.polygamma": (
        lambda n, x: isinstance(n, numpy.ndarray),
        "its order n must be an array: CuPy's polygamma computes gamma(n + 1.0) on the GPU, then passes n == 0 to "
        "cupy.where, whose condition.astype fails on a Python bool",
        "cupyx/scipy/special/_polygamma.py",
    ),
    "cupyx.scipy.linalg.lu_factor": (
        lambda a, **options: a.ndim == 2,
        "a must be one matrix (2-d): _lu_factor calls cupy.asarray (which asks for the current device), then _util._assert_2d",
        "cupyx/scipy/linalg/_decomp_lu.py",
    ),
}

#: array-api-compat's cupy functions that accept ``device=`` and ignore it (array_api_compat/cupy/_aliases.py
#: passes them through ``array_api_compat.common._aliases``, whose ``_check_device`` checks nothing for CuPy)
IGNORE_DEVICE = frozenset(
    f"array_api_compat.cupy.{name}"
    for name in "arange empty empty_like eye full full_like linspace ones ones_like zeros zeros_like".split()
)

CUDA_ERRORS = (cupy.cuda.runtime.CUDARuntimeError, cupy.cuda.driver.CUDADriverError)
REFUSALS = (TypeError, ValueError, AttributeError, NotImplementedError, IndexError, KeyError)
UFUNC_KEYWORDS = frozenset({"out", "dtype", "casting"})


# ---- the CUDA libraries: stand-ins that raise CuPy's "no device" error where a library is missing ----


class _NoDevice:
    """Any function or constant of a missing CUDA library: calling it raises the CUDA error a GPU-less machine gives."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise cupy.cuda.runtime.CUDARuntimeError(100)  # cudaErrorNoDevice

    def __getattr__(self, name):
        return _NoDevice(f"{self.name}.{name}")


class _MissingLibrary(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _NoDevice(f"{self.__name__}.{name}")


def _stand_in_missing_cuda_libraries():
    """Let ``cupyx.scipy.linalg`` and ``cupy.linalg`` import without the CUDA library wheels (cuBLAS, cuSOLVER...):
    each library that cannot load is replaced, in this process only, by a module whose functions raise a CUDA error."""
    libs = importlib.import_module("cupy_backends.cuda.libs")
    for name in ("cublas", "cusolver", "cusparse", "curand"):
        try:
            getattr(libs, name)
        except ImportError:
            module = sys.modules[f"cupy_backends.cuda.libs.{name}"] = _MissingLibrary(f"cupy_backends.cuda.libs.{name}")
            setattr(libs, name, module)
            setattr(cupy.cuda, name, module)
    for name, lib in (("cupyx._cusolver", "cusolver"), ("cupy.cuda.cufft", "cufft")):
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = _MissingLibrary(name)
            if lib == "cufft":
                cupy.cuda.cufft = sys.modules[name]


if not _gpu_here():  # with a GPU the missing libraries must fail as they do, and this module is skipped
    _stand_in_missing_cuda_libraries()


# ---- CuPy arrays over memory that is never read ----

_NO_MEMORY = 1 << 20  # a device address that is never dereferenced: any kernel stops at the missing GPU first


def _cupy_array(x):
    memory = cupy.cuda.UnownedMemory(_NO_MEMORY, max(x.nbytes, 1), None, device_id=0)
    return cupy.ndarray(x.shape, x.dtype, memptr=cupy.cuda.MemoryPointer(memory, 0))


def _as_cupy(value, key=None):
    """``value`` with its NumPy arrays made CuPy arrays of the same shape and dtype (and NumPy's device a GPU)."""
    if isinstance(value, numpy.ndarray):
        return _cupy_array(value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_as_cupy(v) for v in value)
    if key == "device" and value is not None:
        return cupy.cuda.Device(0)
    return value


def _cupy_refusal(real, args, kwargs):
    """What CuPy raises for this call before it needs the device, or None if it gets that far."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            real(*_as_cupy(args), **{k: _as_cupy(v, k) for k, v in kwargs.items()})
    except CUDA_ERRORS:
        return None
    except REFUSALS as error:
        return f"{type(error).__name__}: {error}"
    return None


# ---- the checks ----


def _key(value):
    """What a check of ``value`` depends on: an array's shape and dtype, a scalar's type and value."""
    kind = type(value)
    if kind is CupyLike or kind is numpy.ndarray:
        return (value.shape, value.dtype)
    if kind is tuple or kind is list:
        return (kind, *map(_key, value))
    if kind is slice:
        return (kind, value.start, value.stop, value.step)
    try:
        return (kind, hash(value), value)
    except TypeError:
        return kind


def _summary(value):
    """``value`` as a problem's message shows it."""
    if isinstance(value, numpy.ndarray):
        return f"array{value.shape}:{value.dtype}"
    if isinstance(value, numpy.generic):
        return f"numpy.{type(value).__name__}"
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        inner = ", ".join(_summary(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, (bool, int, float, complex)):
        return type(value).__name__
    if isinstance(value, (str, slice, type(None), type(Ellipsis), numpy.dtype, type)):
        return repr(value)
    return type(value).__name__


def _signature_problem(real, args, kwargs):
    if isinstance(real, cupy.ufunc):
        if len(args) > real.nargs or set(kwargs) - UFUNC_KEYWORDS:
            return f"CuPy's ufunc takes {real.nin} inputs and {sorted(UFUNC_KEYWORDS)} by keyword"
        return None
    try:
        signature = inspect.signature(real)
    except (TypeError, ValueError):
        return None
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as error:
        return f"does not bind to {signature}: {error}"
    return bound


class Recorder:
    """The calls made into the stand-ins, and what CuPy would refuse among them."""

    checked = {}  # what a check depends on (``_key``) -> the call's problems: each kind of call is checked once

    def __init__(self):
        self.problems = {}
        self.devices = [None]
        self.calls = 0

    def check(self, path, real, args, kwargs):
        self.calls += 1
        device = kwargs.get("device") if path in IGNORE_DEVICE else None
        device_ignored = device is not None and device != self.devices[-1]
        key = (path, device_ignored, *map(_key, args), *((k, _key(v)) for k, v in kwargs.items()))
        problems = self.checked.get(key)
        if problems is None:
            problems = self.checked[key] = self._problems(path, real, args, kwargs, device_ignored)
        for problem in problems:
            shown = [_summary(a) for a in args] + [f"{k}={_summary(v)}" for k, v in kwargs.items()]
            self.problems.setdefault(problem, f"{path}({', '.join(shown)})")

    def _problems(self, path, real, args, kwargs, device_ignored):
        problems = []
        bound = _signature_problem(real, args, kwargs)
        if isinstance(bound, str):
            return [f"{path}: {bound}"]
        refusal = _cupy_refusal(real, args, kwargs)
        if refusal is not None:
            problems.append(f"{path}: CuPy raises {refusal}")
        if path in BEYOND_THE_DEVICE and isinstance(bound, inspect.BoundArguments):
            accepts, why, source = BEYOND_THE_DEVICE[path]
            if not accepts(**bound.arguments):
                problems.append(f"{path}: {why} ({source})")
        if device_ignored:
            problems.append(f"{path}: array-api-compat's cupy ignores device= (wrap the call in `with cupy.cuda.Device(device)`)")
        return problems

    @contextlib.contextmanager
    def on_device(self, device):
        self.devices.append(device)
        try:
            yield
        finally:
            self.devices.pop()


class CupyLike(kernels.CountedOperators):
    """A NumPy array whose operators, reductions and integer indexing give 0-d arrays, not NumPy scalars, as
    CuPy's do (a NumPy scalar would reach the next call as a scalar where CuPy passes an array).

    An operator or ufunc method used on it directly (``a * b``, ``-a``, ``g += h``, ``a.sum()``), as CuPy runs
    it, is one kernel launch in a counted call (``benchmarks.kernels``), unless it runs inside a stand-in's call
    (whose launch is counted there)."""

    def __array_wrap__(self, array, context=None, return_scalar=False):
        return array if type(array) is CupyLike else array.view(CupyLike)

    @staticmethod
    def _counted(result):
        return _like_cupy(result)

    def __getitem__(self, index):
        item = super().__getitem__(index)
        return numpy.asarray(item).view(CupyLike) if isinstance(item, numpy.generic) else item


def _like_cupy(result):
    """``result`` as CuPy returns it: 0-d arrays, never NumPy scalars."""
    if isinstance(result, (numpy.generic, numpy.ndarray)) and type(result) is not CupyLike:
        return numpy.asarray(result).view(CupyLike)
    if isinstance(result, tuple):
        items = [_like_cupy(r) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    return result


# ---- the stand-ins ----


class _Device:
    """``cupy.cuda.Device``: a context that records the current device."""

    def __init__(self, recorder, device=None):
        self.recorder, self.id = recorder, device

    def __enter__(self):
        self._context = self.recorder.on_device(self.id)
        self._context.__enter__()
        return self

    def __exit__(self, *exc):
        return self._context.__exit__(*exc)


def _cuda(recorder):
    """``cupy.cuda`` for the stand-in: one device, streams that are already synchronised."""
    stream = types.SimpleNamespace(synchronize=lambda: None)
    return types.SimpleNamespace(
        Device=lambda device=None: _Device(recorder, device),
        runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, CUDARuntimeError=cupy.cuda.runtime.CUDARuntimeError),
        get_current_stream=lambda: stream,
    )


class StandIn:
    """A CuPy module as ``backends/cupy.py`` sees it, computing with its NumPy-side counterpart.

    Functions are checked (see ``Recorder``) and computed by the NumPy side's function of
    the same name; submodules are stand-ins in turn; other attributes (dtypes, constants,
    classes) come from the NumPy side. An attribute CuPy lacks raises ``AttributeError``, as
    CuPy's module would.
    """

    def __init__(self, real, numpy_side, recorder, overrides):
        self._real, self._numpy_side, self._recorder, self._overrides = real, numpy_side, recorder, overrides

    def __getattr__(self, name):
        path = f"{self._real.__name__}.{name}"
        if path in self._overrides:
            value = self._overrides[path]
            return value(self._recorder) if path in RECORDER_OVERRIDES else value
        real = getattr(self._real, name, None)
        if real is None and isinstance(self._real, types.ModuleType):
            real = _submodule(path)
        if real is None:
            raise AttributeError(f"module {self._real.__name__!r} has no attribute {name!r}")
        side = getattr(self._numpy_side, name)
        if isinstance(real, types.ModuleType):
            return StandIn(real, side, self._recorder, self._overrides)
        if isinstance(real, type) or not callable(real):
            return side
        recorder = self._recorder

        def call(*args, **kwargs):
            recorder.check(path, real, args, kwargs)
            return _like_cupy(kernels.counted(name, side, args, kwargs))  # a launch if ``kernels.launched``

        call.__name__ = name
        setattr(self, name, call)
        return call


class _ElementwiseKernel:
    """``cupy.ElementwiseKernel`` for the stand-in: a call is one launch, computed on NumPy by the base class's
    composition of the helper the kernel stands for (``backends.cupy.KERNELS``: ``adcore_<helper>``), which
    is what its CUDA operation must equal (``test_kernel_operations_compile`` compiles that operation)."""

    def __init__(self, recorder, in_params, out_params, operation, name):
        self.recorder, self.helper = recorder, name.removeprefix("adcore_")
        assert sys.modules["backends.cupy"].KERNELS[self.helper] == (in_params, out_params, operation)

    def __call__(self, *arrays):
        self.recorder.calls += 1
        kernels.launch()
        assert len({a.dtype for a in arrays}) == 1, "the kernel's T is one dtype"
        numpy_backend = backends.get_backend("numpy")
        return _like_cupy(getattr(Backend, self.helper)(numpy_backend, *(numpy.asarray(a) for a in arrays)))


#: The overrides made for each recorder (``StandIn`` calls them with it).
RECORDER_OVERRIDES = {"cupy.cuda": _cuda, "cupy.ElementwiseKernel": lambda recorder: partial(_ElementwiseKernel, recorder)}


def _submodule(path):
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError:
        return None


class _ImportLib:
    """``importlib`` for ``backends/cupy.py``: CuPy's modules come back as stand-ins."""

    def __init__(self, roots):
        self._roots = roots

    def import_module(self, name):
        root, *rest = name.split(".")
        if root not in self._roots:
            return importlib.import_module(name)
        module = self._roots[root]
        for part in rest:
            try:
                module = getattr(module, part)
            except AttributeError:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name) from None
        return module


def _scatter_add(a, slices, value):
    numpy.add.at(a, slices, value)


def recording_backend(monkeypatch):
    """The cupy backend of ``backends/cupy.py``, its CuPy modules replaced by stand-ins, serving NumPy
    arrays; returns ``(backend, recorder)``."""
    import backends.cupy as module

    recorder = Recorder()
    overrides = {
        **RECORDER_OVERRIDES,
        "cupy.ndarray": numpy.ndarray,
        "cupy.asnumpy": numpy.asarray,
    }
    cupyx_side = types.SimpleNamespace(scatter_add=_scatter_add, scipy=importlib.import_module("scipy"))
    compat_side = types.SimpleNamespace(cupy=array_api_compat.numpy)
    roots = {
        "cupy": StandIn(cupy, numpy, recorder, overrides),
        "cupyx": StandIn(importlib.import_module("cupyx"), cupyx_side, recorder, overrides),
        "array_api_compat": StandIn(importlib.import_module("array_api_compat"), compat_side, recorder, overrides),
    }
    for name, value in vars(module).copy().items():
        if isinstance(value, types.ModuleType):
            if value is importlib:
                monkeypatch.setattr(module, name, _ImportLib(roots))
            elif value.__name__.split(".")[0] in roots:
                stand_in = roots[value.__name__.split(".")[0]]
                for part in value.__name__.split(".")[1:]:
                    stand_in = getattr(stand_in, part)
                monkeypatch.setattr(module, name, stand_in)
    backend = module.CuPyBackend()
    monkeypatch.setitem(backends._by_type, numpy.ndarray, backend)
    monkeypatch.setitem(backends._by_type, CupyLike, backend)
    return backend, recorder


@pytest.fixture
def recorded(monkeypatch):
    backend, recorder = recording_backend(monkeypatch)
    with backends.use_backend(backend):
        yield backend, recorder


def _assert_cupy_accepts(recorder, what):
    assert recorder.calls, f"{what}: no call reached the cupy stand-ins (the check checked nothing)"
    assert not recorder.problems, f"{what}: calls CuPy refuses:\n" + "\n".join(
        f"- {problem}\n    first seen as {call}" for problem, call in recorder.problems.items()
    )


# ---- the spec tables ----

SPEC_MODULES = (
    "test_numpy_rules",
    "test_linalg",
    "test_fft",
    "test_selection",
    "test_einsum",
    "test_array_api",
    "test_scipy_special",
    "test_scipy_linalg",
    "test_scipy_stats",
    "test_scipy_signal_integrate",
)


def _specs():
    """The spec tables' lines that run on cupy; those ``KNOWN_FAILURES["cupy"]`` lists are strict xfails here too."""
    for module_name in SPEC_MODULES:
        module = importlib.import_module(module_name)
        for spec in getattr(module, "SPECS", None) or module.CASES:
            if "cupy" in spec.skip:
                continue
            name = f"{module_name}.py::test_derivatives[{spec.name}-{spec.dtypes[0]}]"
            reasons = [reason for pattern, reason in _KNOWN_FAILURES.get("cupy", ()) if pattern.match(name)]
            marks = [pytest.mark.xfail(reason=f"cupy: {reasons[0]}", raises=NotImplementedError, strict=True)] if reasons else []
            yield pytest.param(spec, id=f"{module_name.removeprefix('test_')}::{spec.name}", marks=marks)


class _NumPyCase:
    """The spec inputs as NumPy arrays (which the recording backend serves)."""

    name = "cupy"
    device = None

    @staticmethod
    def asarray(data, dtype="float64"):
        return numpy.asarray(data, dtype=dtype).view(CupyLike)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("spec", list(_specs()))
def test_spec_calls_satisfy_cupy(spec, recorded):
    """The spec's function and its derivatives (both modes, to its order) make only calls CuPy accepts."""
    backend, recorder = recorded
    args = inputs(_NumPyCase, spec, spec.dtypes[0])
    for argnum in [tuple(range(len(args)))] if spec.joint else range(len(args)):
        check_grads(spec.fun, argnum, modes=("fwd", "rev"), order=spec.order)(*args)
    _assert_cupy_accepts(recorder, spec.name)


# ---- what the spec tables do not reach ----


def _multivariate_normal_points():
    from adcore.scipy.stats import multivariate_normal

    mean, cov = numpy.zeros(3), numpy.eye(3) + 0.1
    return grad(lambda m: np.sum(multivariate_normal.logpdf(numpy.ones((4, 3)), m, cov)))(mean)


def _complex_take():
    z = numpy.array([1.0 + 2.0j, 3.0 - 1.0j, 0.5j])
    index = numpy.array([0, 2, 0])
    return vjp(lambda z: np.take(z, index), z)[1](numpy.ones(3, dtype=complex))


def _frequencies_on_a_device():
    from adcore.numpy import fft

    x = numpy.linspace(0.0, 1.0, 8).view(CupyLike)
    device = backends.backend_of(x).device(x)
    frequencies = np.concatenate([fft.fftfreq(4, 0.5, device=device), fft.rfftfreq(6, device=device)])
    return grad(lambda x: np.sum(np.multiply(frequencies, x)))(x)


OTHER_CASES = {
    "vjp of a python float": lambda: vjp(lambda x: np.multiply(x, x), 1.5)[1](1.0),
    "grad of a python float": lambda: grad(lambda x: np.sum(np.sin(x)))(0.5),
    "array of nested python numbers": lambda: np.array([[1.0, 2.0], [3.0, 4.0]]),
    "sum and reshape of a python float": lambda: (np.sum(2.0), np.reshape(2.0, (1,)), np.broadcast_to(2.0, (3,))),
    "tensordot of python floats": lambda: np.tensordot(2.0, 3.0, axes=0),
    "maximum of python floats": lambda: grad(lambda x: np.maximum(x, 1.0))(1.0),
    "j1 of a python float": lambda: grad(special.j1)(0.5),
    "multivariate_normal.logpdf of several points": _multivariate_normal_points,
    "vjp of take of a complex array": _complex_take,
    "fftfreq and rfftfreq on a device": _frequencies_on_a_device,
    "zeros and ones on a device": lambda: make_vjp(lambda x: np.sum(np.multiply(x, x)))(numpy.ones(3))[0](1.0),
    "isin of a list": lambda: np.isin(numpy.arange(4).view(CupyLike), [1, 2]),
    "lexsort of a tuple of arrays": lambda: np.lexsort((numpy.array([0.5, -1.5]).view(CupyLike), numpy.arange(2).view(CupyLike))),
    "gcd of a list": lambda: np.gcd(numpy.arange(4).view(CupyLike), [6, 6, 6, 6]),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", list(OTHER_CASES))
def test_other_calls_satisfy_cupy(name, recorded):
    _, recorder = recorded
    OTHER_CASES[name]()
    _assert_cupy_accepts(recorder, name)


def _scalar_calls():
    """``(name, arguments, differentiable)`` of ``adcore.numpy``'s functions that the NumPy backend computes from
    Python floats alone (one or two), and whether it differentiates them there."""
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in np.__all__:
            fun = getattr(np, name)
            if not callable(fun) or isinstance(fun, type) or not is_adcore(fun):  # not NumPy objects adcore passes through
                continue
            for args in ((0.5,), (0.5, 1.5)):
                try:
                    result = fun(*args)
                    if not (hasattr(result, "shape") or isinstance(result, (float, complex, list))):
                        continue  # answered in Python (ndim, isscalar, finfo): nothing reaches the backend
                except Exception:  # noqa: BLE001 - not a function of these arguments
                    continue
                try:
                    grad(lambda *a: np.sum(fun(*a)))(*args)  # noqa: B023 - called at once
                    differentiable = True
                except Exception:  # noqa: BLE001 - not differentiable there
                    differentiable = False
                found.append(pytest.param(name, args, differentiable, id=f"{name}{args}"))
                break
    return found


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, args, differentiable", _scalar_calls())
def test_python_floats_on_cupy_as_the_default_backend(name, args, differentiable, recorded):
    """What ``adcore.numpy`` computes from Python floats on NumPy, it asks of CuPy in a form CuPy accepts
    (with cupy as the default backend), its derivative too."""
    _, recorder = recorded
    fun = getattr(np, name)
    fun(*args)
    if differentiable:
        grad(lambda *a: np.sum(fun(*a)))(*args)
    _assert_cupy_accepts(recorder, f"{name}{args}")


# ---- what the backend says where CuPy cannot help ----


def test_without_a_gpu_the_cupy_backend_says_so():
    reason = backends.unavailable_reason("cupy")
    assert reason is not None and "needs an NVIDIA GPU" in reason, reason


def test_eig_without_geev_names_the_cuda_version_needed(recorded, monkeypatch):
    backend, _ = recorded

    def no_geev(x):
        raise RuntimeError("geev is not available")  # CuPy's message with cuSOLVER older than 11.7

    monkeypatch.setattr(backend.xp.linalg, "_namespace", types.SimpleNamespace(eig=no_geev, eigvals=no_geev))
    with pytest.raises(NotImplementedError, match=r"linalg\.eig: CuPy's eig needs cuSOLVER 11\.7 or newer \(CUDA 12\.6\+\)"):
        np.linalg.eig(numpy.eye(2).view(CupyLike))


@pytest.mark.parametrize("name", ["integrate", "no_such_module"])
def test_a_scipy_module_cupyx_lacks_is_not_implemented(name, recorded):
    backend, _ = recorded
    with pytest.raises(NotImplementedError, match=f"the cupy backend has no scipy.{name}: cupyx.scipy has no module"):
        backend.scipy_module(name)


def test_a_missing_cuda_library_names_the_extras(recorded, monkeypatch):
    import backends.cupy as module

    backend, _ = recorded

    def import_module(name):
        raise ImportError("libcublasLt.so.12: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(module, "importlib", types.SimpleNamespace(import_module=import_module))
    with pytest.raises(ImportError, match=r"cupyx.scipy.linalg cannot load a CUDA library .* install adcore\[cuda12\]"):
        backend.scipy_module("linalg")


# ---- kernel launches per derivative ----


def _launch_cases():
    """Benchmark workloads a, c, d, e at small sizes on stand-in CuPy arrays: ``{id: (derivative, per)}``, the
    count divided by ``per`` (a: per step of the chain)."""
    from benchmarks import curvature, elementwise, mlp, overhead

    rng = numpy.random.default_rng(0)

    def cupy_like(a):
        return numpy.asarray(a, dtype="float64").view(CupyLike)

    A, x, v = (cupy_like(a) for a in curvature.layer_inputs(6, 0))
    params = [(cupy_like(rng.standard_normal((m, n))), cupy_like(rng.standard_normal(n))) for m, n in ((8, 16), (16, 4))]
    inputs, targets = cupy_like(rng.standard_normal((5, 8))), cupy_like(numpy.eye(4)[[0, 1, 2, 3, 0]])
    steps = 10
    return {
        "a": (lambda: grad(lambda x: overhead.chain(x, steps=steps))(cupy_like(0.5)), steps),
        "c": (lambda: grad(mlp.loss)(params, inputs, targets), 1),
        "d": (lambda: grad(elementwise.damped_square)(cupy_like(rng.standard_normal(10))), 1),
        "e": (lambda: hvp(lambda x: curvature.tanh_energy(x, A))(x, v), 1),
    }


#: kernel launches per derivative on CuPy (``_launches``): a per step of sin(x) * 0.999 + 0.001, c the MLP's
#: gradient, d workload d's gradient, e a Hessian-vector product. A change that adds launches fails here; one that
#: removes some lowers them. With the one-kernel NaN-safe product and sech_squared (backends.cupy.KERNELS) the
#: calls were a 7.1, c 50, d 17, e 28 (views and operators counted alike, as calls); counted as launches then,
#: a 7.1, c 44, d 17, e 29; now, with no mask for a product with a number that is not NaN and tanh's chain product
#: as one kernel (``Backend.tanh_tangent``), a 6.1, c 41, d 15, e 26 (before those kernels, as calls: a 11.1, c 72,
#: d 43, e 68); with the masked product's derivative as one kernel (``Backend.zero_where_masked``), e 23; with
#: grad's seed of ones pulled back without multiplying by it (``adcore.core.Ones``: d's product gives its factors)
#: and ``square``'s chain product as one kernel (``Backend.square_tangent``), d 11.
LAUNCH_CEILINGS = {"a": 6.1, "c": 41, "d": 11, "e": 23}
#: the kernels of workload d's gradient written by hand (benchmarks/elementwise.py: tanh, negative, exp, t * t,
#: 1 - ..., 2 * ..., ... - t and two products)
HAND_WRITTEN_D = 9


def _launches(case):
    """The kernel launches of one call of ``case``'s derivative, per ``per`` (``benchmarks.kernels.count``): the
    stand-ins' calls that launch a kernel (``kernels.launched``) and the operators used on the stand-in arrays
    directly (``CupyLike``)."""
    derivative, per = case
    return kernels.count(derivative) / per


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("workload", sorted(LAUNCH_CEILINGS))
def test_launches_per_derivative_within_the_ceiling(workload, recorded):
    count = _launches(_launch_cases()[workload])
    assert count <= LAUNCH_CEILINGS[workload], f"workload {workload}: {count:g} calls into CuPy per derivative"


def test_elementwise_gradient_within_two_kernels_of_the_hand_written(recorded):
    """Workload d's gradient: the forward pass's 6 (the hand-written gradient computes no value), then exp's,
    negative's, square's and tanh's products and the sum of x's two cotangents; grad's seed and the product's
    multiplication by it launch nothing (``adcore.core.Ones``)."""
    assert _launches(_launch_cases()["d"]) <= HAND_WRITTEN_D + 2


def _load_nvrtc():
    """CuPy's NVRTC bindings, with the library of the pip package ``nvidia-cuda-nvrtc-cu12`` loaded if CuPy
    finds none itself (a machine without the CUDA toolkit); skips the test where neither is there."""
    from cupy.cuda import nvrtc

    try:
        nvrtc.getVersion()
    except Exception:  # noqa: BLE001 - CuPy's loader raises its own error types
        try:
            import nvidia.cuda_nvrtc
        except ImportError:
            pytest.skip("no NVRTC to compile with: pip install nvidia-cuda-nvrtc-cu12 (no GPU needed)")
        import ctypes
        import pathlib

        lib = pathlib.Path(nvidia.cuda_nvrtc.__path__[0]) / "lib"
        for name in ("libnvrtc-builtins.so.12*", "libnvrtc.so.12"):
            ctypes.CDLL(str(next(lib.glob(name))), mode=ctypes.RTLD_GLOBAL)
        nvrtc.getVersion()
    return nvrtc


#: every one-kernel helper of ``backends.cupy.KERNELS`` (``test_every_kernel_is_compiled`` checks the list)
KERNEL_NAMES = ["multiply_zero_nan", "sech_squared", "square_tangent", "tanh_tangent", "zero_where_masked"]


def test_every_kernel_is_compiled():
    assert sorted(KERNEL_NAMES) == sorted(backends.cupy.KERNELS)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_kernel_operations_compile(name):
    """Each one-kernel helper's CUDA operation compiles (NVRTC, no GPU needed) for every dtype it serves, with
    CuPy's own headers (its ``complex<T>``), as the body of a function of the kernel's parameters."""
    import os

    from backends.cupy import KERNEL_DTYPES, KERNELS

    nvrtc = _load_nvrtc()
    in_params, out_params, operation = KERNELS[name]
    params = [f"const T& {p.split()[1]}" for p in in_params.split(",")] + [f"T& {p.split()[1]}" for p in out_params.split(",")]
    c_types = {"float32": "float", "float64": "double", "complex64": "complex<float>", "complex128": "complex<double>"}
    source = "#include <cupy/complex.cuh>\n" + f"template <typename T> __device__ void k({', '.join(params)}) {{ {operation}; }}\n"
    for dtype in sorted(KERNEL_DTYPES[name]):
        source += f"template __device__ void k<{c_types[dtype]}>({', '.join(p.replace('T', c_types[dtype]) for p in params)});\n"
    include = os.path.join(os.path.dirname(cupy.__file__), "_core", "include")
    cccl = os.path.join(include, "cupy", "_cccl")
    program = nvrtc.createProgram(source, f"{name}.cu", [], [])
    options = ["-arch=compute_80", "--std=c++17", f"-I{include}"] + [f"-I{os.path.join(cccl, d)}" for d in ("thrust", "libcudacxx", "cub")]
    try:
        nvrtc.compileProgram(program, options)
    except nvrtc.NVRTCError:
        pytest.fail(f"{name}'s operation does not compile:\n{nvrtc.getProgramLog(program)}")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
def test_one_kernel_helpers_equal_the_composition(dtype, recorded):
    """The one-kernel helpers (the NaN-safe product, sech_squared, tanh's chain product, the masked product's
    derivative) give the base class's values and dtypes (the stand-in
    computes the kernel by that composition), launch once where they serve the dtype, and leave the other
    calls (integers, mixed dtypes, scalars) to the composition."""
    backend, recorder = recorded
    rng = numpy.random.default_rng(1)
    a = numpy.array([0.0, 1.5, 0.0, -2.0, 3.0]).astype(dtype)
    b = numpy.array([numpy.nan, numpy.nan, 2.0, numpy.inf, -1.0]) if dtype != "int64" else rng.integers(-3, 3, 5)
    b = b.astype(dtype)
    served = dtype in backends.cupy.KERNEL_DTYPES["multiply_zero_nan"]
    recorder.calls = 0
    product = backend.multiply_zero_nan(a, b)
    assert recorder.calls == 1 if served else recorder.calls > 1  # integers: the composition's five calls
    expected = Backend.multiply_zero_nan(backends.get_backend("numpy"), a, b)
    numpy.testing.assert_array_equal(product, expected)
    assert product.dtype == expected.dtype
    recorder.calls = 0
    mixed = backend.multiply_zero_nan(a.astype("float32"), b.astype("float64")) if dtype != "int64" else None
    if mixed is not None:
        assert recorder.calls > 1 and mixed.dtype == numpy.float64
    if dtype in ("float32", "float64"):
        recorder.calls = 0
        x = numpy.array([-800.0, -3.0, 0.0, 0.5, 20.0]).astype(dtype)
        assert backend.sech_squared(x).dtype == x.dtype and recorder.calls == 1
        numpy.testing.assert_array_equal(backend.sech_squared(x), Backend.sech_squared(backends.get_backend("numpy"), x))
        recorder.calls = 0
        g = numpy.array([0.0, 1.5, 0.0, -2.0, 3.0]).astype(dtype)
        assert backend.tanh_tangent(g, x).dtype == x.dtype and recorder.calls == 1
        numpy.testing.assert_array_equal(backend.tanh_tangent(g, x), Backend.tanh_tangent(backends.get_backend("numpy"), g, x))
    if served:
        recorder.calls = 0
        masked = backend.zero_where_masked(a, b)
        assert recorder.calls == 1 and masked.dtype == b.dtype
        numpy.testing.assert_array_equal(masked, Backend.zero_where_masked(backends.get_backend("numpy"), a, b))
