"""Dask arrays through array-api-compat: the generic backend's differences. Imported only when asked for.

Everything stays lazy: tracing a function and its backward pass only add tasks to
Dask's graph, computed when the user calls ``compute`` or ``persist``. Dask's
namespace lacks ``take_along_axis``, composed here from ``take`` on flat
positions; the linear algebra it lacks (``det``, ``slogdet``, ``eigh``,
``eigvalsh``, ``pinv``, ``matrix_power``) has no composition from the standard's
functions and raises ``NotImplementedError`` naming the backend and the function.
"""

import array_api_compat.dask.array

from .base import Backend


class DaskBackend(Backend):
    def __init__(self):
        super().__init__("dask", array_api_compat.dask.array)

    def take_along_axis(self, x, indices, axis=-1):
        """``x``'s entries at ``indices`` along ``axis`` (same ndim; the other axes broadcast), as a lazy
        ``take`` from the flattened ``x`` at the flat positions of those entries."""
        xp = self.xp
        axis = axis % x.ndim
        shape = tuple(n if i == axis else max(n, m) for i, (n, m) in enumerate(zip(indices.shape, x.shape)))
        positions = xp.zeros(shape, dtype=xp.int64)
        stride = 1
        for i in reversed(range(x.ndim)):
            if i == axis:
                coordinate = indices
            else:
                coordinate = xp.reshape(xp.arange(x.shape[i], dtype=xp.int64), tuple(-1 if j == i else 1 for j in range(x.ndim)))
            positions = positions + xp.astype(coordinate, xp.int64) * stride
            stride *= x.shape[i]
        flat = xp.take(xp.reshape(x, (-1,)), xp.reshape(positions, (-1,)), axis=0)
        return xp.reshape(flat, shape)
