"""CuPy on an NVIDIA GPU: the NumPy backend's differences. Imported only when asked for."""

import importlib

import array_api_compat.cupy
import cupy
import cupyx

from .base import Backend


class CuPyBackend(Backend):
    numpy_namespace = cupy

    def __init__(self):
        cupy.cuda.runtime.getDeviceCount()
        super().__init__("cupy", array_api_compat.cupy)

    def device(self, x):
        return x.device

    def to_numpy(self, x):
        return cupy.asnumpy(x)

    def synchronize(self):
        cupy.cuda.get_current_stream().synchronize()

    def scatter_add_repeated(self, out, index, values):
        cupyx.scatter_add(out, index, values)
        return out

    def scipy_module(self, name):
        return importlib.import_module(f"cupyx.scipy.{name}")
