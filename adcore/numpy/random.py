"""``adcore.numpy.random``: NumPy's random numbers, delivered on the default backend.

Every name of ``numpy.random`` is here (``randn``, ``normal``, ``seed``,
``RandomState``, ``default_rng``, ...), so autograd code such as
``npr = np.random.RandomState(0); npr.randn(3, 2)`` runs unchanged. The
numbers are always drawn by NumPy (the same streams, seeds and states as
``numpy.random``; the module functions share NumPy's global state). When the
default backend is ``numpy`` the results are returned as they are; for another
default backend (``adcore.set_backend``, ``adcore.use_backend``), every NumPy
array a function or method returns is copied explicitly to that backend, on
its default device, with ``backend.from_numpy`` (same dtype). Python scalars,
states and generators are never converted.

Arguments go to NumPy as they are: pass Python or NumPy values (shapes,
scalars, NumPy arrays), not arrays of another backend. The functions are not
differentiable: for a reparametrised sample write ``mu + sigma * np.random.randn(n)``.

>>> import adcore.numpy as np
>>> npr = np.random.RandomState(0)
>>> npr.randn(2, 2).shape
(2, 2)
"""

import numpy as _np
import numpy.random as _np_random

from backends import default_backend

from ..core.tracer import draw_refusal

__all__ = list(_np_random.__all__)
get_bit_generator = _np_random.get_bit_generator  # the bit generator behind the module functions
set_bit_generator = _np_random.set_bit_generator
test = _np_random.test
__all__ += ["get_bit_generator", "set_bit_generator", "test"]


def _to_default_backend(value):
    """``value`` copied to the default backend if it is a NumPy array and that backend is not NumPy."""
    backend = default_backend()
    if backend.name == "numpy" or not isinstance(value, _np.ndarray):
        return value
    return backend.from_numpy(value)


def _on_default_backend(sample, name):
    def on_default_backend(*args, **kwargs):
        refuse = draw_refusal.get()
        if refuse is not None:
            refuse(f"adcore.numpy.random.{name}")
        return _to_default_backend(sample(*args, **kwargs))

    on_default_backend.__name__ = on_default_backend.__qualname__ = name
    on_default_backend.__doc__ = f"``numpy.random.{name}``, with a NumPy array result on the default backend."
    return on_default_backend


def _convert_results(cls):
    """Give ``cls`` each public method of its NumPy base class, its array results on the default backend."""
    base = cls.__bases__[0]
    for name in dir(base):
        if not name.startswith("_") and callable(getattr(base, name)):
            setattr(cls, name, _on_default_backend(getattr(base, name), f"{base.__name__}.{name}"))
    return cls


@_convert_results
class RandomState(_np_random.RandomState):
    """``numpy.random.RandomState`` (a subclass: the same seeds, streams and states) whose
    methods return their arrays on the default backend."""


@_convert_results
class Generator(_np_random.Generator):
    """``numpy.random.Generator`` (a subclass: the same bit generators and streams) whose
    methods return their arrays on the default backend."""


def default_rng(seed=None):
    """``numpy.random.default_rng``: a :class:`Generator` over the bit generator NumPy's would use
    (PCG64 seeded by ``seed``, or the one ``seed`` holds), with array results on the default backend."""
    if isinstance(seed, Generator):
        return seed
    return Generator(_np_random.default_rng(seed).bit_generator)


for _name in __all__:
    if _name not in globals():  # the module functions; classes (bit generators, SeedSequence) pass through
        _value = getattr(_np_random, _name)
        globals()[_name] = _value if isinstance(_value, type) else _on_default_backend(_value, _name)
