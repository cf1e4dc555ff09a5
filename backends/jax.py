"""JAX on the CPU, with float64 enabled: the generic backend's differences. Imported only when asked for.

Loading this backend turns on ``jax_enable_x64`` (JAX's default is float32
only), so float64 stays float64 as on every other backend. JAX arrays are
immutable: scatter-add is a functional ``.at[index].add``.
"""

import jax
import jax.numpy
import numpy

from .base import Backend

jax.config.update("jax_enable_x64", True)  # before this backend makes any array


class JaxBackend(Backend):
    arrays_beside_slices = True
    mutable_arrays = False
    numpy_namespace = jax.numpy

    def __init__(self):
        super().__init__("jax", jax.numpy)

    def to_numpy(self, x):
        """A writable copy on the host (JAX's ``to_device`` takes a ``Device``, not ``"cpu"``)."""
        return numpy.array(x)

    def getitem(self, x, index):
        return x[_arrays_for_lists(index)]

    def scatter_add(self, shape, dtype, device, index, values):
        out = self.xp.zeros(shape, dtype=dtype, device=device)
        return out.at[_arrays_for_lists(index)].add(values)


def _arrays_for_lists(index):
    """``index`` with its lists made arrays: JAX refuses ``x[[0, 2]]``, which NumPy reads as ``x[array([0, 2])]``."""
    if isinstance(index, list):
        return jax.numpy.asarray(index)
    if isinstance(index, tuple):
        return tuple(jax.numpy.asarray(i) if isinstance(i, list) else i for i in index)
    return index

