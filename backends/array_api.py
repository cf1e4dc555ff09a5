"""Any other Array API library (array-api-strict) through array-api-compat; PyTorch, JAX and Dask,
which differ in more, have modules of their own (``torch.py``, ``jax.py``, ``dask.py``)."""

import importlib

import array_api_compat
import numpy

from .base import Backend

#: backend name -> the module whose arrays it handles
LIBRARIES = {"array_api_strict": "array_api_strict"}


class StrictBackend(Backend):
    """array-api-strict: its devices are names, and only its CPU device converts to NumPy."""

    def to_numpy(self, x):
        return numpy.asarray(x.to_device(self.xp.Device("CPU_DEVICE")))

    def unwritable(self, x):
        """Every array: the standard has no way to tell a broadcast view (which array-api-strict, on NumPy,
        keeps read-only)."""
        return hasattr(x, "__array_namespace__")


def load(name):
    """The backend for library ``name``, made from one of its arrays' namespace."""
    library = importlib.import_module(LIBRARIES[name])
    kind = StrictBackend if name == "array_api_strict" else Backend
    return kind(name, array_api_compat.array_namespace(library.asarray(0.0)))
