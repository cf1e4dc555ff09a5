"""PyTorch on the CPU through array-api-compat: the generic backend's differences. Imported only when asked for.

adcore does the differentiation: its operators run with torch's autograd off
(``set_recording``, through ``backends.recording_paused``), so torch records
nothing, also for inputs with ``requires_grad=True``, and results carry no ``grad_fn``.
"""

import numbers

import array_api_compat.torch
import numpy
import torch

from .base import Backend, shares_entries

#: creation functions whose dtype, when not given, follows NumPy's defaults (float64), not torch's
#: (float32), as ``asarray`` does: name -> the NumPy dtype of a call's arguments
NUMPY_DEFAULT_DTYPE = {
    "full": lambda shape, fill_value, **kw: numpy.asarray(fill_value).dtype,
    "arange": lambda *ends, **kw: numpy.result_type(*(e for e in ends if e is not None)),
    "linspace": lambda start, stop, *rest, **kw: numpy.result_type(start, stop, 1.0),
}


class TorchBackend(Backend):
    arrays_beside_slices = True

    def __init__(self):
        super().__init__("torch", array_api_compat.torch)

    def set_recording(self, on):
        """torch's grad mode, switched by the function ``torch.set_grad_enabled`` calls (it makes no object)."""
        was_on = torch.is_grad_enabled()
        torch._C._set_grad_enabled(on)
        return was_on

    def lookup(self, api_name):
        fun = super().lookup(api_name)
        return _numpy_default_dtype(fun, self, NUMPY_DEFAULT_DTYPE[api_name]) if api_name in NUMPY_DEFAULT_DTYPE else fun

    def asarray(self, obj, dtype=None, device=None, copy=None):
        """Python and NumPy data get NumPy's dtype unless told (a Python float is float64, not
        torch's default float32); a 0-d NumPy value goes in as a Python scalar, whose dtype
        torch.asarray changes with ``copy=True`` (for a 0-d array it refuses: "can't alias")."""
        if not isinstance(obj, torch.Tensor):
            dtype = self.dtype(numpy.asarray(obj).dtype if dtype is None else dtype)
            if isinstance(obj, (numpy.ndarray, numpy.generic)) and obj.ndim == 0:
                obj = obj.item()
        return self.xp.asarray(obj, dtype=dtype, device=device, copy=copy)

    def from_numpy(self, x, dtype=None, device=None):
        return self.asarray(numpy.asarray(x), dtype=dtype, device=device, copy=True)

    def unwritable(self, x):
        return isinstance(x, torch.Tensor) and shares_entries(x.shape, x.stride())

    def einsum(self, subscripts, *operands):
        """torch.einsum does not promote mixed dtypes."""
        dtype = self.xp.result_type(*operands)
        return torch.einsum(subscripts, *(self.xp.astype(x, dtype, copy=False) for x in operands))

    def take_along_axis(self, x, indices, axis=-1):
        """torch.take_along_dim takes int64 indices only."""
        return self.xp.take_along_axis(x, self.xp.astype(indices, torch.int64, copy=False), axis=axis)

    def getitem(self, x, index):
        flipped, index = numpy_index(index, x.shape, x.device)
        return (torch.flip(x, flipped) if flipped else x)[index]

    def scatter_add(self, shape, dtype, device, index, values):
        flipped, index = numpy_index(index, shape, device)
        out = super().scatter_add(shape, dtype, device, index, values)
        return torch.flip(out, flipped) if flipped else out

    def scatter_add_repeated(self, out, index, values):
        """An out-of-place ``index_add`` at the flat positions ``index`` selects (slices and integer arrays mixed)."""
        xp = self.xp
        flat = xp.reshape(out, (-1,)).index_add(0, self.flat_positions(out, index), xp.reshape(values, (-1,)))
        return xp.reshape(flat, out.shape)


def _numpy_default_dtype(fun, backend, numpy_dtype):
    def call(*args, dtype=None, **kwargs):
        if dtype is None and not any(isinstance(a, torch.Tensor) for a in args):
            dtype = backend.dtype(numpy_dtype(*args, **kwargs))
        return fun(*args, dtype=dtype, **kwargs)

    call.__name__ = fun.__name__
    return call


def numpy_index(index, shape, device):
    """The axes to flip and an index that then means in torch what ``index`` means in NumPy.

    torch has no negative slice steps, so such an axis is flipped and sliced forwards (entry
    ``i`` of an axis of size ``n`` is entry ``n - 1 - i`` of the flipped axis, so the positions
    ``start:stop:-k`` visits in descending order are visited in ascending order with step ``k``).

    Raises
    ------
    NotImplementedError
        For an integer beside an integer array, apart from it, after a slice (``x[0, :, [0, 1, 2]]``):
        torch reads the integer as a basic index and keeps the slice's axis first, NumPy puts the
        advanced indices' axis first (``(3, 3)`` transposed). A traced value would then differ
        from the untraced one (torch's rule, for a raw tensor), so adcore refuses rather than pick one.
    """
    index = tuple(torch.as_tensor(i, device=device) if isinstance(i, list) else i for i in _as_tuple(index))
    _refuse_integers_apart_from_arrays(index)
    if not any(isinstance(i, slice) and i.step is not None and i.step < 0 for i in index):
        return (), index
    axes_taken = [0 if i is None or i is Ellipsis else i.ndim if _is_mask(i) else 1 for i in index]
    axis, flipped, forward = 0, [], []
    for i, taken in zip(index, axes_taken):
        if i is Ellipsis:
            taken = len(shape) - sum(axes_taken)
        elif isinstance(i, slice) and i.step is not None and i.step < 0:
            visited = range(*i.indices(shape[axis]))
            first = shape[axis] - 1 - visited[0] if visited else 0
            i = slice(first, first + (len(visited) - 1) * -i.step + 1, -i.step) if visited else slice(0, 0)
            flipped.append(axis)
        forward.append(i)
        axis += taken
    return tuple(flipped), tuple(forward)


def _refuse_integers_apart_from_arrays(index):
    """Refuse an index whose integers and integer arrays torch and NumPy place apart (``numpy_index``).

    NumPy reads integers beside integer arrays as advanced indices: together they give one block of
    axes, in place if they are adjacent, else first. torch reads the integers as basic indices, so
    its block is in place whenever the arrays alone are adjacent: the two differ when the integers
    and arrays are apart and an axis (a slice, None, ...) comes before the first array.
    """
    advanced = [n for n, i in enumerate(index) if _is_integer(i) or _is_integer_array(i)]
    arrays = [n for n in advanced if _is_integer_array(index[n])]
    if not arrays or len(arrays) == len(advanced) or advanced == list(range(advanced[0], advanced[-1] + 1)):
        return
    if any(not _is_integer(index[n]) for n in range(arrays[0])):
        raise NotImplementedError(
            "getitem: the torch backend cannot index with an integer and an integer array apart from each other "
            "after a slice (x[0, :, [0, 1, 2]]): torch and NumPy order the result's axes differently, so the value "
            "traced would differ from the untraced one; index in two steps (x[0][:, [0, 1, 2]])"
        )


def _as_tuple(index):
    return index if isinstance(index, tuple) else (index,)


def _is_integer(index):
    """A Python integer or a 0-d integer tensor (both basic indices in torch)."""
    if isinstance(index, torch.Tensor):
        return index.ndim == 0 and index.dtype != torch.bool
    return isinstance(index, numbers.Integral) and not isinstance(index, bool)


def _is_integer_array(index):
    return isinstance(index, torch.Tensor) and index.dtype != torch.bool and index.ndim > 0


def _is_mask(index):
    return isinstance(index, torch.Tensor) and index.dtype == torch.bool
