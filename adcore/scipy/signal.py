"""The differentiable ``adcore.scipy.signal``: SciPy's N-d ``convolve``.

``convolve`` is a primitive, bilinear in its two inputs: its JVP is the
convolution with the tangent in place of that input (``def_linear``), and its
VJP is a correlation of the cotangent with the other input, i.e. a ``"valid"``
convolution of the cotangent, zero-padded back to the ``"full"`` size, with the
other input flipped along every axis (autograd's ``scipy/signal.py`` does the same
with mode-dependent shortcuts). Computed by ``scipy.signal.convolve`` on NumPy,
``cupyx.scipy.signal.convolve`` on CuPy, and from the Array API standard's
``fft`` extension (or direct sums) elsewhere.
"""

import builtins
import itertools
import math

from backends import backend_of

from ..core import def_linear, defvjp_argnum, primitive
from ..numpy import wrapper as anp
from ..numpy.rules import metadata, unbroadcast

__all__ = ["convolve"]

_MODES = ("full", "valid", "same")
_METHODS = ("auto", "direct", "fft")


def _crop(shape1, shape2, mode):
    """``(starts, sizes)``: where the output of ``mode`` lies in the ``"full"`` convolution, per axis.

    Raises
    ------
    ValueError
        For an unknown ``mode``, or ``"valid"`` with neither input at least as large as the
        other in every dimension (SciPy's messages).
    """
    if mode == "full":
        return (0,) * len(shape1), tuple(n1 + n2 - 1 for n1, n2 in zip(shape1, shape2))
    if mode == "same":
        return tuple((n2 - 1) // 2 for n2 in shape2), tuple(shape1)
    if mode == "valid":
        if not (all(n1 >= n2 for n1, n2 in zip(shape1, shape2)) or all(n2 >= n1 for n1, n2 in zip(shape1, shape2))):
            raise ValueError("convolve: for 'valid' mode, one must be at least as large as the other in every dimension")
        return tuple(builtins.min(n1, n2) - 1 for n1, n2 in zip(shape1, shape2)), tuple(
            builtins.abs(n1 - n2) + 1 for n1, n2 in zip(shape1, shape2)
        )
    raise ValueError(f"convolve: acceptable mode flags are 'valid', 'same', or 'full', not mode={mode!r}")


@primitive
def convolve(in1, in2, mode="full", method="auto"):
    """The N-d convolution of ``in1`` and ``in2``, SciPy's ``scipy.signal.convolve``.

    Parameters
    ----------
    in1, in2 : arrays with the same number of dimensions (non-empty)
    mode : {"full", "valid", "same"}
        ``"full"``: shape ``in1.shape + in2.shape - 1``; ``"valid"``: the entries that do not
        depend on zero padding, shape ``|in1.shape - in2.shape| + 1`` (one input must be at
        least as large as the other in every dimension); ``"same"``: the shape of ``in1``,
        centred in the full output.
    method : {"auto", "direct", "fft"}
        How to compute it (SciPy's choice on NumPy and CuPy). On other backends ``"direct"``
        (and integer input) sums shifted copies of the input with fewer entries, the others
        multiply ``fftn`` spectra.

    Returns
    -------
    out : array of the promoted dtype of ``in1`` and ``in2``, the shape given by ``mode``.

    Raises
    ------
    ValueError
        For an unknown ``mode`` or ``method``, inputs of different dimensionality, or a
        ``"valid"`` pair where neither input is at least as large as the other.

    Notes
    -----
    Derivatives: linear in each input, so the JVP is ``convolve`` of the tangent; the VJP of
    ``in1`` is ``convolve(pad(g), flip(in2), "valid")``, with ``g`` zero-padded to the full
    output (and the same with the inputs swapped); holomorphic (no conjugation), as
    autograd's.

    >>> import adcore.numpy as np
    >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
    array([0. , 1. , 2.5, 4. , 1.5])
    """
    if method not in _METHODS:
        raise ValueError(f"convolve: acceptable method flags are 'auto', 'direct', or 'fft', not method={method!r}")
    shape1, shape2 = anp.shape(in1), anp.shape(in2)
    if len(shape1) != len(shape2):
        raise ValueError(f"convolve: in1 and in2 should have the same dimensionality, got shapes {shape1} and {shape2}")
    starts, sizes = _crop(shape1, shape2, mode)
    backend = backend_of(in1, in2, op="scipy.signal.convolve")
    if not shape1:
        return backend.multiply(in1, in2)
    try:
        fun = backend.scipy_module("signal").convolve
    except (NotImplementedError, AttributeError, ImportError):
        full = _standard_convolve(backend, in1, in2, method)
        return full[tuple(slice(start, start + size) for start, size in zip(starts, sizes))]
    return fun(in1, in2, mode=mode, method=method)


def grad_convolve(argnum, ans, args, kwargs):
    in1, in2 = args[:2]
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "full")
    method = args[3] if len(args) > 3 else kwargs.get("method", "auto")
    other, meta = (in2, in1)[argnum], metadata(args[argnum])
    shape1, shape2 = anp.shape(in1), anp.shape(in2)
    starts, sizes = _crop(shape1, shape2, mode)
    full = [n1 + n2 - 1 for n1, n2 in zip(shape1, shape2)]
    widths = [(start, total - start - size) for start, total, size in zip(starts, full, sizes)]

    padded = any(before or after for before, after in widths)

    def vjp(g):
        return unbroadcast(convolve(anp.pad(g, widths) if padded else g, anp.flip(other), "valid", method), meta)

    return vjp


defvjp_argnum(convolve, grad_convolve)
def_linear(convolve)


def _standard_convolve(backend, in1, in2, method):
    """The ``"full"`` convolution from the Array API standard: products of ``fftn`` spectra, or
    (``method="direct"``, integer or boolean input) sums of shifted copies of the larger input
    scaled by each entry of the smaller."""
    xp = backend.xp
    full = tuple(n1 + n2 - 1 for n1, n2 in zip(in1.shape, in2.shape))
    dtype = xp.result_type(in1, in2)
    if method == "direct" or not backend.isdtype(dtype, ("real floating", "complex floating")):
        small, large = (in1, in2) if math.prod(in1.shape) <= math.prod(in2.shape) else (in2, in1)
        device = backend.device(in1)
        out = xp.zeros(full, dtype=dtype, device=device)
        for index in itertools.product(*(range(n) for n in small.shape)):
            region = tuple(slice(i, i + n) for i, n in zip(index, large.shape))
            # no item assignment (JAX arrays are immutable); xp.multiply promotes the 0-d entry as an array (torch's * would not)
            out = out + backend.scatter_add(full, dtype, device, region, xp.multiply(small[index], large))
        return out
    axes = tuple(range(len(full)))
    fft = backend.fft  # the backend's: on Dask it first makes the transformed axes one chunk
    if backend.isdtype(dtype, "complex floating"):
        in1, in2 = xp.astype(in1, dtype), xp.astype(in2, dtype)
        return fft.ifftn(fft.fftn(in1, s=full, axes=axes) * fft.fftn(in2, s=full, axes=axes), s=full, axes=axes)
    spectra = fft.rfftn(in1, s=full, axes=axes) * fft.rfftn(in2, s=full, axes=axes)
    return xp.astype(fft.irfftn(spectra, s=full, axes=axes), dtype)
