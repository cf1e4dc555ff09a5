"""The backend registry: which array library computes a call, and the default one.

``backend_of(*values)`` finds the backend of a call's arguments by a dictionary
lookup on their types, filled on first sight of a type through
``array_api_compat``. Python and NumPy scalars carry no backend; a call with no
array argument goes to the default backend (``numpy`` unless changed with
``set_backend`` or ``use_backend``, which are per thread and per context).
"""

import contextvars
import importlib
import numbers
import sys
import threading
from contextlib import contextmanager

import array_api_compat
import numpy as np

from .base import Backend, install_command

__all__ = [
    "Backend",
    "array_backend",
    "array_under",
    "available",
    "backend_of",
    "default_backend",
    "forget_on_change",
    "get_backend",
    "recording_paused",
    "register_traced_type",
    "set_backend",
    "use_backend",
]

NAMES = ("numpy", "cupy", "array_api_strict", "torch", "jax", "dask")

_loaded = {}
_load_lock = threading.Lock()
_UNSEEN = object()


class _TypeRegistry(dict):
    """``type -> backend`` (None: not an array of any backend), filled on first sight of a type. When the
    entry of a type already seen changes or goes (a backend standing in for another, as the tests do), the
    caches derived from it forget that type (``forget_on_change``); lookups are those of a ``dict``."""

    __slots__ = ("forgetters",)

    def __init__(self):
        super().__init__()
        self.forgetters = []

    def __setitem__(self, value_type, backend):
        if value_type in self:
            self._forget(value_type)
        super().__setitem__(value_type, backend)

    def __delitem__(self, value_type):
        super().__delitem__(value_type)
        self._forget(value_type)

    def _forget(self, value_type):
        for forget in self.forgetters:
            forget(value_type)


_by_type = _TypeRegistry()


def forget_on_change(forget):
    """Call ``forget(value_type)`` whenever the backend registered for ``value_type`` changes or is
    removed, so that a cache keyed on array types (snapshot and fingerprint functions, mutability) never
    serves a backend that no longer serves that type."""
    _by_type.forgetters.append(forget)


def get_backend(name):
    """The backend called ``name`` (one of ``NAMES``), loading its library on first use.

    Raises
    ------
    ValueError
        If ``name`` is not a backend adcore knows.
    ImportError
        If the library is not installed, naming adcore's extra that installs it (``pip install "adcore[jax]"``).
    RuntimeError
        If the library cannot run here (CuPy without a GPU or its driver).
    """
    if isinstance(name, Backend):
        return name
    try:
        return _loaded[name]
    except KeyError:
        pass
    if name not in NAMES:
        raise ValueError(f"unknown adcore backend {name!r}; the backends are {', '.join(NAMES)}")
    try:
        with _load_lock:  # one Backend object per library, also when threads ask for it first at once
            backend = _loaded.get(name) or _loaded.setdefault(name, _load(name))
    except ImportError as error:
        library, extras = LIBRARIES[name]
        raise ImportError(
            f"adcore's {name} backend needs {library}, which is not installed here ({error}); {install_command(*extras)}"
        ) from error
    return backend


#: backend name -> (the library it needs, adcore's extras that install it)
LIBRARIES = {
    "cupy": ("CuPy", ("cuda12", "cuda13")),
    "array_api_strict": ("array-api-strict", ("test",)),
    "torch": ("PyTorch", ("torch",)),
    "jax": ("JAX", ("jax",)),
    "dask": ("Dask", ("dask",)),
}


#: backend name -> its class, in the module of ``backends`` of the same name (imported on first use)
_CLASSES = {"cupy": "CuPyBackend", "torch": "TorchBackend", "jax": "JaxBackend", "dask": "DaskBackend"}


def _load(name):
    """A new backend ``name``, its library imported now."""
    if name == "numpy":
        from .numpy import NumPyBackend

        return NumPyBackend()
    if name == "array_api_strict":
        from .array_api import load

        return load(name)
    return getattr(importlib.import_module(f"backends.{name}"), _CLASSES[name])()


_default = contextvars.ContextVar(
    "adcore_default_backend",
    default=get_backend("numpy"),  # noqa: B039 - one Backend object per library, shared by every context
)


#: The backends whose library has an autograd of its own that records operations, by the module that
#: makes it (a library not imported has recorded nothing, and is not imported to pause it).
RECORDING = {"torch": "torch"}


class recording_paused:
    """A block in which no array library records operations for an autograd of its own (torch's), in
    this thread: adcore differentiates, so what it computes carries no ``grad_fn``, and tensors with
    ``requires_grad=True`` are read as plain ones. adcore's differential operators run inside one.

    Cost: a dictionary look-up when torch is not imported; with it, two switches of torch's grad
    mode per block (per operator call, not per operation).
    """

    __slots__ = ("_switched",)

    def __enter__(self):
        self._switched = switched = []
        for name, module in RECORDING.items():
            if module in sys.modules:
                backend = get_backend(name)
                switched.append((backend, backend.set_recording(False)))
        return self

    def __exit__(self, *exc_info):
        for backend, was_on in self._switched:
            backend.set_recording(was_on)


def unavailable_reason(name):
    """Why backend ``name`` cannot run on this machine, or None if it can."""
    try:
        get_backend(name)
    except Exception as error:  # noqa: BLE001 - any failure to load means "not here", and says why
        return f"{type(error).__name__}: {error}"
    return None


def available():
    """The names of the backends that can run on this machine."""
    return [name for name in NAMES if unavailable_reason(name) is None]


def _backend_of_type(value):
    if isinstance(value, (numbers.Number, np.generic, type)) or not array_api_compat.is_array_api_obj(value):
        return None
    if array_api_compat.is_numpy_array(value):
        return get_backend("numpy")
    if array_api_compat.is_cupy_array(value):
        return get_backend("cupy")
    xp = array_api_compat.array_namespace(value)
    for backend_name, is_namespace in _NAMESPACE_TESTS.items():
        if is_namespace(xp):
            return get_backend(backend_name)
    raise TypeError(f"adcore has no backend for arrays of type {type(value).__module__}.{type(value).__name__}")


#: backend name -> whether an array namespace is that library's (by name, "jax.numpy" would match "numpy")
_NAMESPACE_TESTS = {
    "array_api_strict": array_api_compat.is_array_api_strict_namespace,
    "torch": array_api_compat.is_torch_namespace,
    "jax": array_api_compat.is_jax_namespace,
    "dask": array_api_compat.is_dask_namespace,
}


def register_traced_type(value_type, array_of=None):
    """Declare that values of ``value_type`` wrap an array of some backend for differentiation (adcore's
    boxes): they answer ``__array_namespace__`` but are arrays of no backend, so ``array_backend`` gives None.

    ``array_of``, for a box that stands for an array of its own in the traces around it (``adcore.vmap``'s
    batch box, whose ``getval`` is itself): the function giving the array under a value, whose backend
    ``backend_of`` gives for the value.
    """
    if array_of is None:
        _by_type[value_type] = None
    else:
        _array_of[value_type] = array_of


#: box type -> the function giving the array under its values (``register_traced_type``'s ``array_of``)
_array_of = {}


def array_backend(value):
    """The backend of ``value`` if it is an array (not a scalar), else None; cached per type."""
    try:
        return _by_type[type(value)]
    except KeyError:
        if type(value) in _array_of:
            return None
        backend = _by_type[type(value)] = _backend_of_type(value)
        return backend


def array_under(value):
    """The array that ``value`` stands for: ``value`` itself, or, for a box registered with ``array_of``
    (``register_traced_type``: ``adcore.vmap``'s batch of values), the array under it."""
    array_of = _array_of.get(type(value))
    return value if array_of is None else array_of(value)


def backend_of(*values, op=None):
    """The backend of the arrays among ``values`` (the default backend if there is none).

    Parameters
    ----------
    *values
        Arguments of one call; non-arrays (scalars, lists, None) are ignored.
    op : str, optional
        The calling function's name, for error messages.

    Raises
    ------
    ValueError
        If the arrays come from two backends, or from two devices of one backend (NumPy arrays beside
        Dask arrays are Dask's constants, see ``_mixed``).
    """
    found = first = None
    for value in values:
        backend = _by_type.get(type(value), _UNSEEN)
        if backend is _UNSEEN:
            array_of = _array_of.get(type(value))
            if array_of is not None:
                value = array_of(value)
            backend = array_backend(value)
        if backend is None:
            continue
        if found is None:
            found, first = backend, value
        elif backend is not found:
            found, first = _mixed(found, first, backend, value, op)
        elif backend.multi_device and backend.device(value) != backend.device(first):
            raise ValueError(
                f"{op or 'adcore'}: {backend.name} arrays on two devices in one call, "
                f"{backend.device(first)} and {backend.device(value)}; move them to one device first"
            )
    return found or _default.get()


def _mixed(found, first, backend, value, op):
    """``(backend, first value)`` of a call with arrays of two backends: the one that takes NumPy arrays
    beside its own as constants (``Backend.takes_numpy_arrays``: Dask wraps them lazily, on the host, as
    ``dask_array @ numpy_array`` does), else ``ValueError``: adcore never copies between devices."""
    if found.takes_numpy_arrays and backend.name == "numpy":
        return found, first
    if backend.takes_numpy_arrays and found.name == "numpy":
        return backend, value
    raise ValueError(
        f"{op or 'adcore'}: arrays from two backends in one call, {found.name} "
        f"({type(first).__name__}) and {backend.name} ({type(value).__name__}); "
        "move them to one backend first"
    )


def default_backend():
    """The backend that serves calls with no array argument (``np.zeros(3)``)."""
    return _default.get()


def set_backend(name):
    """Make ``name`` the default backend in this thread and context; returns the backend."""
    backend = get_backend(name)
    _default.set(backend)
    return backend


@contextmanager
def use_backend(name):
    """``with use_backend("cupy"):`` makes ``name`` the default backend inside the block."""
    token = _default.set(get_backend(name))
    try:
        yield get_backend(name)
    finally:
        _default.reset(token)
