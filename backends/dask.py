"""Dask arrays through array-api-compat: the generic backend's differences. Imported only when asked for.

Everything stays lazy: tracing a function and its backward pass only add tasks to
Dask's graph, computed when the user calls ``compute`` or ``persist``. NumPy arrays
beside Dask arrays in a call are constants Dask wraps, as Dask itself does; the
derivative with respect to one is a Dask array of its shape.

- Dask's namespace lacks ``take_along_axis``: applied here block by block, and
  the float16 dtype: dtypes are NumPy's.
- ``broadcast_to`` gives the axes it stretches Dask's automatic chunks (Dask's own
  makes them one chunk), so the cotangent of a reduction over a large axis is
  chunked along it, within Dask's chunk size, and never one block of that axis.
- Dask reshapes only by merging or splitting axes evenly against their chunks:
  a reshape it refuses goes through the flat shape.
- Dask transforms only axes held in one chunk: ``fft`` functions get their
  axes made one chunk first (``rechunk``, lazy).
- Scatter-add (the VJP of integer indexing) is a weighted ``bincount`` of the
  flat positions, lazy, with memory of one output per block (the standard's
  one-hot fallback would need ``values.size * out.size``).
- Dask's linear algebra takes single 2-d matrices only (and lacks ``det``,
  ``slogdet``, ``eigh``, ``eigvalsh``, ``pinv``): the factorisations run lazily
  matrix by matrix with ``apply_gufunc``, each block's own library (NumPy)
  factorising its stack of matrices, the two matrix axes in one chunk (a matrix
  must fit one worker). ``eig`` is always complex (``lazy``): NumPy's dtype
  (real or complex) depends on the values, which a lazy array cannot know.
"""

import math

import array_api_compat.dask.array
import dask.array
import numpy

from .base import Backend


class DaskBackend(Backend):
    arrays_beside_slices = True
    lazy = True
    takes_numpy_arrays = True  # as Dask does (``dask_array @ numpy_array``): a constant wrapped lazily, on the host
    numpy_namespace = dask.array

    def __init__(self):
        super().__init__("dask", array_api_compat.dask.array)

    def dtype(self, spec):
        """NumPy's dtype for ``spec``: Dask arrays carry NumPy's dtypes, float16 included, which the
        standard's namespace (array-api-compat's) leaves out."""
        return None if spec is None else numpy.dtype(spec)

    def lookup(self, api_name):
        found = super().lookup(api_name)
        if api_name == "fft":
            return _OneChunkFFT(found)
        if api_name == "linalg":
            return _PerMatrixLinalg(found)
        return found

    def eye(self, n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
        """Dask's ``eye`` drops a block when ``n_cols != n_rows`` and ``k != 0`` (its graph misses a
        dependency): built here as ``row + k == column`` from two ``arange``."""
        xp = self.xp
        n_cols = n_rows if n_cols is None else n_cols
        diagonal = xp.reshape(xp.arange(n_rows), (-1, 1)) + k == xp.reshape(xp.arange(n_cols), (1, -1))
        return xp.astype(diagonal, xp.float64 if dtype is None else dtype)

    def getitem(self, x, index):
        """``x[index]``; an integer array beside an integer or another integer array is refused: Dask reads
        such an index apart from NumPy's rule (``x[1, :, i]`` comes back transposed), which would be a wrong value."""
        parts = index if isinstance(index, tuple) else (index,)
        arrays = [
            i for i in parts if isinstance(i, list) or (hasattr(i, "dtype") and i.ndim and self.isdtype(i.dtype, "integral"))
        ]
        integers = [i for i in parts if isinstance(i, int) or (hasattr(i, "dtype") and not i.ndim)]
        if arrays and len(arrays) + len(integers) > 1:
            raise NotImplementedError(
                "getitem: the dask backend cannot index with an integer array together with integers or other integer "
                "arrays (Dask does not follow NumPy's rule for them); index one axis at a time"
            )
        return x[index]

    def searchsorted(self, a, v, side="left", sorter=None):
        """Dask's takes no ``sorter`` (``a`` is sorted by it first: the same positions) and fails on a 0-d
        ``v`` (its blocks' results are NumPy scalars), searched as a 1-element array."""
        if sorter is not None:
            a = self.xp.take(a, sorter)
        if v.ndim == 0:
            return self.xp.reshape(self.xp.searchsorted(a, self.xp.reshape(v, (1,)), side=side), ())
        return self.xp.searchsorted(a, v, side=side)

    def scatter_masked(self, zeros, mask, values):
        _known_sizes(values.shape, "getitem with a boolean mask")
        return super().scatter_masked(zeros, mask, values)

    def scatter_add(self, shape, dtype, device, index, values):
        """Dask's item assignment fails on an empty region: nothing to add there."""
        if 0 in values.shape:
            return self.xp.zeros(shape, dtype=dtype)
        return super().scatter_add(shape, dtype, device, index, values)

    def reshape(self, x, shape):
        """Dask reshapes only by merging or splitting axes evenly against their chunks (``(3, 2, 3)`` chunked
        along the first axis cannot become ``(3, 3, 2)``); such a reshape goes through the flat shape, a merge
        then a split, both of which Dask takes (lazy, the chunks of the flat array follow)."""
        try:
            return self.xp.reshape(x, shape)
        except NotImplementedError:
            return self.xp.reshape(self.xp.reshape(x, (-1,)), shape)

    def broadcast_to(self, x, shape):
        _known_sizes(tuple(x.shape) + tuple(shape), "broadcast_to")
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
        positions = self.flat_positions(out, index)
        values = xp.reshape(values, (-1,))
        if xp.isdtype(out.dtype, "complex floating"):
            added = _bincount(positions, xp.real(values), size) + 1j * _bincount(positions, xp.imag(values), size)
        else:
            added = _bincount(positions, values, size)
        return out + xp.astype(xp.reshape(added, out.shape), out.dtype)


def _known_sizes(shape, op):
    """Refuse, with the way out, to build a derivative on an array of unknown size (a boolean mask's selection)."""
    if any(math.isnan(n) for n in shape):
        raise NotImplementedError(
            f"{op}: on the dask backend an array whose size depends on its values (x[mask], where(condition)) has "
            "unknown chunk sizes, so its derivative cannot be built lazily; use np.where(mask, x, 0.0) instead of x[mask]"
        )


def _bincount(positions, weights, size):
    return dask.array.bincount(positions.rechunk(weights.chunks), weights=weights, minlength=size)


class _OneChunkFFT:
    """Dask's ``fft`` namespace, with the axes a transform works on made one chunk first."""

    ONE_AXIS = frozenset({"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"})

    def __init__(self, fft):
        self._fft = fft

    def __getattr__(self, name):
        fun = getattr(self._fft, name)
        if name.endswith("freq"):
            return fun

        def transform(x, *args, **kwargs):
            axes = kwargs.get("axes")
            if name in self.ONE_AXIS:
                axes = (kwargs.get("axis", -1),)
            elif axes is None:
                axes = range(x.ndim)
            elif isinstance(axes, int):
                axes = (axes,)
            return fun(x.rechunk({axis % x.ndim: -1 for axis in axes}), *args, **kwargs)

        transform.__name__ = name
        return transform


class _PerMatrixLinalg:
    """Dask's ``linalg`` namespace, with the factorisations applied matrix by matrix (see the module's docstring).

    Each is NumPy's ``linalg`` function under a gufunc signature; the dtypes of its
    outputs follow NumPy's (real eigenvalues, singular values and ``logabsdet``).
    """

    def __init__(self, linalg):
        self._linalg = linalg

    def __getattr__(self, name):
        return getattr(self._linalg, name)

    def inv(self, x):
        return _per_matrix(numpy.linalg.inv, "(m,m)->(m,m)", (x,), (x.dtype,))

    def det(self, x):
        return _per_matrix(numpy.linalg.det, "(m,m)->()", (x,), (x.dtype,))

    def slogdet(self, x):
        return _per_matrix(lambda a: tuple(numpy.linalg.slogdet(a)), "(m,m)->(),()", (x,), (x.dtype, _real(x.dtype)))

    def solve(self, a, b):
        signature = "(m,m),(m)->(m)" if b.ndim == 1 else "(m,m),(m,k)->(m,k)"
        return _per_matrix(numpy.linalg.solve, signature, (a, b), (numpy.result_type(a.dtype, b.dtype),))

    def pinv(self, x, rtol=None):
        return _per_matrix(lambda a: numpy.linalg.pinv(a, rtol=rtol), "(m,n)->(n,m)", (x,), (x.dtype,))

    def cholesky(self, x, upper=False):
        return _per_matrix(lambda a: numpy.linalg.cholesky(a, upper=upper), "(m,m)->(m,m)", (x,), (x.dtype,))

    def eigh(self, x):
        return _per_matrix(lambda a: tuple(numpy.linalg.eigh(a)), "(m,m)->(m),(m,m)", (x,), (_real(x.dtype), x.dtype))

    def eigvalsh(self, x):
        return _per_matrix(numpy.linalg.eigvalsh, "(m,m)->(m)", (x,), (_real(x.dtype),))

    def eig(self, x):
        """Always complex (NumPy's dtype depends on the values, unknown to a lazy array)."""
        complex_dtype = numpy.result_type(x.dtype, numpy.complex64)
        eig = lambda a: tuple(part.astype(complex_dtype) for part in numpy.linalg.eig(a))  # noqa: E731
        return _per_matrix(eig, "(m,m)->(m),(m,m)", (x,), (complex_dtype, complex_dtype))

    def svd(self, x, full_matrices=True):
        m, n = x.shape[-2:]
        k = min(m, n)
        signature = "(m,n)->(m,m),(k),(n,n)" if full_matrices else "(m,n)->(m,k),(k),(k,n)"
        svd = lambda a: tuple(numpy.linalg.svd(a, full_matrices=full_matrices))  # noqa: E731
        return _per_matrix(svd, signature, (x,), (x.dtype, _real(x.dtype), x.dtype), {"k": k})

    def svdvals(self, x):
        k = min(x.shape[-2:])
        return _per_matrix(numpy.linalg.svdvals, "(m,n)->(k)", (x,), (_real(x.dtype),), {"k": k})

    def qr(self, x, mode="reduced"):
        m, n = x.shape[-2:]
        signature = "(m,n)->(m,m),(m,n)" if mode == "complete" else "(m,n)->(m,k),(k,n)"
        qr = lambda a: tuple(numpy.linalg.qr(a, mode=mode))  # noqa: E731
        return _per_matrix(qr, signature, (x,), (x.dtype, x.dtype), {"k": min(m, n)})


def _per_matrix(fun, signature, arrays, dtypes, sizes=None):
    """``fun`` of the stacks of matrices ``arrays``, lazily, with ``dask.array.apply_gufunc``."""
    single = len(dtypes) == 1
    return dask.array.apply_gufunc(
        fun,
        signature,
        *arrays,
        output_dtypes=dtypes[0] if single else list(dtypes),
        output_sizes=sizes,
        allow_rechunk=True,
        vectorize=False,
    )


def _real(dtype):
    """The real dtype of ``dtype``'s precision (float64 for complex128)."""
    return numpy.empty(0, dtype=dtype).real.dtype
