"""Creation on the default backend (or, for array ends and fill values, the backend of those arrays):
``zeros``, ``ones``, ``full``, ``eye``, ``arange``, ``linspace``."""

from backends import backend_of, default_backend

from ..core import getval, isbox
from .dtypes import astype, result_type
from .elementwise import add, multiply, subtract
from .shapes import broadcast_to

__all__ = """arange eye full linspace ones zeros""".split()


def zeros(shape, dtype=float):
    backend = default_backend()
    return backend.zeros(shape, dtype=backend.dtype(dtype))


def ones(shape, dtype=float):
    backend = default_backend()
    return backend.ones(shape, dtype=backend.dtype(dtype))


def full(shape, fill_value, dtype=None):
    """An array of ``shape`` filled with ``fill_value``; differentiable in an array ``fill_value``
    (broadcast to ``shape`` on its own backend and device)."""
    if isbox(fill_value) or hasattr(fill_value, "shape"):
        filled = broadcast_to(fill_value, (shape,) if isinstance(shape, int) else tuple(shape))
        if dtype is not None:
            return astype(filled, dtype)
        return filled if isbox(filled) else backend_of(filled).asarray(filled, copy=True)  # writable, as NumPy's
    backend = default_backend()
    return backend.full(shape, fill_value, dtype=backend.dtype(dtype))


def eye(N, M=None, k=0, dtype=float):
    backend = default_backend()
    return backend.eye(N, M, k=k, dtype=backend.dtype(dtype))


def arange(start, stop=None, step=1, dtype=None):
    backend = default_backend()
    return backend.arange(start, stop, step, dtype=backend.dtype(dtype))


def linspace(start, stop, num=50, endpoint=True, dtype=float):
    """``num`` evenly spaced numbers from ``start`` to ``stop``; differentiable in array (0-d)
    ``start`` and ``stop``, as ``start + (stop - start) * t`` on their backend and device."""
    ends = [getval(end) for end in (start, stop) if isbox(end) or hasattr(end, "shape")]
    if not ends:
        backend = default_backend()
        return backend.linspace(start, stop, num, endpoint=endpoint, dtype=backend.dtype(dtype))
    backend = backend_of(*ends, op="linspace")
    t = backend.linspace(0.0, 1.0, num, endpoint=endpoint, dtype=result_type(ends[0]), device=backend.device(ends[0]))
    return add(start, multiply(subtract(stop, start), t))
