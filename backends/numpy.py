"""NumPy, the reference backend: NumPy 2's own functions answer the Array API names."""

import importlib

import numpy

from .base import Backend


class NumPyBackend(Backend):
    multi_device = False

    def __init__(self):
        super().__init__("numpy", numpy)

    def lookup(self, api_name):
        return getattr(numpy, api_name)

    def device(self, x):
        return "cpu"

    def dtype(self, spec):
        return None if spec is None else numpy.dtype(spec)

    def to_numpy(self, x):
        return numpy.asarray(x)

    def from_numpy(self, x, dtype=None, device=None):
        return numpy.asarray(x, dtype=dtype)

    def scatter_add_repeated(self, out, index, values):
        numpy.add.at(out, index, values)
        return out

    def scipy_module(self, name):
        return importlib.import_module(f"scipy.{name}")
