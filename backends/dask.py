"""Dask arrays through array-api-compat: the generic backend's differences. Imported only when asked for.

Everything stays lazy: tracing a function and its backward pass only add tasks to
Dask's graph, computed when the user calls ``compute`` or ``persist``.

- Dask's namespace lacks ``take_along_axis``: applied here block by block.
- ``broadcast_to`` gives the axes it stretches Dask's automatic chunks (Dask's own
  makes them one chunk), so the cotangent of a reduction over a large axis is
  chunked along it, within Dask's chunk size, and never one block of that axis.
- Scatter-add (the VJP of integer indexing) is a weighted ``bincount`` of the
  flat positions, lazy, with memory of one output per block (the standard's
  one-hot fallback would need ``values.size * out.size``).
- The linear algebra Dask lacks (``det``, ``slogdet``, ``eigh``, ``eigvalsh``,
  ``pinv``, ``matrix_power``) has no composition from the standard's functions
  and raises ``NotImplementedError`` naming the backend and the function.
"""

import array_api_compat.dask.array
import dask.array
import numpy

from .base import Backend


class DaskBackend(Backend):
    def __init__(self):
        super().__init__("dask", array_api_compat.dask.array)

    def broadcast_to(self, x, shape):
        out = self.xp.broadcast_to(x, shape)
        lead = len(shape) - x.ndim
        stretched = {i: "auto" for i, n in enumerate(shape) if n != 1 and (i < lead or x.shape[i - lead] == 1)}
        return out.rechunk(stretched) if stretched else out

    def take_along_axis(self, x, indices, axis=-1):
        """``x``'s entries at ``indices`` along ``axis`` (same ndim; the other axes broadcast), lazily: block by
        block with NumPy's ``take_along_axis``, ``axis`` in one chunk and the other axes chunked as ``x``."""
        axis = axis % x.ndim
        shape = tuple(max(n, m) for n, m in zip(x.shape, indices.shape))
        x = dask.array.broadcast_to(x, shape[:axis] + x.shape[axis : axis + 1] + shape[axis + 1 :])
        x = x.rechunk({axis: -1})
        chunks = x.chunks[:axis] + ((indices.shape[axis],),) + x.chunks[axis + 1 :]
        indices = dask.array.broadcast_to(indices, shape[:axis] + indices.shape[axis : axis + 1] + shape[axis + 1 :])
        return dask.array.map_blocks(numpy.take_along_axis, x, indices.rechunk(chunks), axis=axis, dtype=x.dtype, chunks=chunks)

    def scatter_add_repeated(self, out, index, values):
        xp = self.xp
        size = out.size
        positions = xp.reshape(xp.reshape(xp.arange(size), out.shape)[index], (-1,))
        values = xp.reshape(values, (-1,))
        if xp.isdtype(out.dtype, "complex floating"):
            added = _bincount(positions, xp.real(values), size) + 1j * _bincount(positions, xp.imag(values), size)
        else:
            added = _bincount(positions, values, size)
        return out + xp.astype(xp.reshape(added, out.shape), out.dtype)


def _bincount(positions, weights, size):
    return dask.array.bincount(positions.rechunk(weights.chunks), weights=weights, minlength=size)
