"""The differentiable ``adcore.scipy.signal``: SciPy's N-d ``convolve``, and autograd's form of it
with ``axes`` and ``dot_axes``.

``convolve`` is a primitive, bilinear in its two inputs: its JVP is the
convolution with the tangent in place of that input (``def_linear``), and its
VJP is a correlation of the cotangent with the other input, i.e. a ``"valid"``
convolution of the cotangent, zero-padded back to the ``"full"`` size, with the
other input flipped along every axis (autograd's ``scipy/signal.py`` does the same
with mode-dependent shortcuts). Computed by ``scipy.signal.convolve`` on NumPy,
``cupyx.scipy.signal.convolve`` on CuPy, and from the Array API standard's
``fft`` extension (or direct sums) elsewhere.

autograd's ``convolve(A, B, axes, dot_axes, mode)`` (convolution along some axes,
a tensor product along others) is a composition of differentiable functions
(:func:`convolve_axes`): the larger input is zero-padded and cut into windows the
size of the other along each convolved axis, and one ``einsum`` contracts the
windows with the flipped other input.
"""

import builtins
import itertools
import math
import operator

from backends import backend_of

from ..core import def_linear, defvjp_argnum, primitive
from ..numpy import wrapper as anp
from ..numpy.einsum import LETTERS, einsum
from ..numpy.rules import metadata, unbroadcast

__all__ = ["convolve", "convolve_axes", "convolve_nd"]

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


def convolve(in1, in2, *args, **kwargs):
    """SciPy's ``convolve(in1, in2, mode="full", method="auto")`` (:func:`convolve_nd`), or autograd's
    ``convolve(A, B, axes=None, dot_axes=((), ()), mode="full")`` (:func:`convolve_axes`).

    The forms are told apart by the third positional argument (a mode string is SciPy's) or by
    the keywords ``axes`` and ``dot_axes`` (autograd's); without either, both forms compute the
    same N-d convolution.

    Raises
    ------
    TypeError
        For more positional arguments than the form takes, an argument given twice, or an
        unknown keyword.
    """
    names = ("mode", "method") if not args or isinstance(args[0], str) else ("axes", "dot_axes", "mode")
    if len(args) > len(names):
        raise TypeError(f"convolve: takes at most {2 + len(names)} positional arguments here, got {2 + len(args)}")
    for name, value in zip(names, args):
        if name in kwargs:
            raise TypeError(f"convolve: got the argument {name!r} twice")
        kwargs[name] = value
    unknown = set(kwargs) - {"mode", "method", "axes", "dot_axes"}
    if unknown:
        raise TypeError(f"convolve: unexpected keyword argument(s) {sorted(unknown)}")
    if kwargs.get("axes") is None and not any(kwargs.get("dot_axes") or ()):
        return convolve_nd(in1, in2, kwargs.get("mode", "full"), kwargs.get("method", "auto"))
    return convolve_axes(in1, in2, kwargs.get("axes"), kwargs.get("dot_axes", ((), ())), kwargs.get("mode", "full"))


@primitive
def convolve_nd(in1, in2, mode="full", method="auto"):
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
    >>> convolve_nd(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
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
        return unbroadcast(convolve_nd(anp.pad(g, widths) if padded else g, anp.flip(other), "valid", method), meta)

    return vjp


defvjp_argnum(convolve_nd, grad_convolve)
def_linear(convolve_nd)


def convolve_axes(a, b, axes=None, dot_axes=((), ()), mode="full"):
    """autograd's generalised convolution: ``a`` and ``b`` convolved along ``axes``, contracted along
    ``dot_axes``, and in outer product along their other axes.

    Parameters
    ----------
    a, b : arrays
    axes : pair of sequences of ints, optional
        ``(axes of a, axes of b)`` convolved pairwise (as SciPy's ``convolve`` along each pair);
        all axes of ``a`` with the same axes of ``b`` when None.
    dot_axes : pair of sequences of ints
        ``(axes of a, axes of b)`` summed over pairwise, as ``tensordot``.
    mode : {"full", "valid", "same"}
        Per convolved pair, SciPy's modes; ``"same"`` has the size of ``a``'s axis.

    Returns
    -------
    array
        Axes in the order: ``a``'s other axes, ``b``'s other axes, then the convolved axes (in the
        order of ``axes``); the dtype promoted from ``a`` and ``b``, on their backend and device.

    Raises
    ------
    ValueError
        For an unknown ``mode``, pairs of unequal lengths, an axis out of range or named twice,
        or ``"valid"`` with neither input at least as large as the other along every convolved pair.

    Notes
    -----
    Differentiable in both inputs in both modes, as the composition of ``pad``, slices,
    ``stack``, ``flip`` and ``einsum`` it is.
    """
    if mode not in _MODES:
        raise ValueError(f"convolve: acceptable mode flags are 'valid', 'same', or 'full', not mode={mode!r}")
    a_shape, b_shape = anp.shape(a), anp.shape(b)
    if axes is None:
        axes = (range(len(a_shape)), range(len(a_shape)))
    conv_a, conv_b = _axis_list(axes[0], len(a_shape)), _axis_list(axes[1], len(b_shape))
    dot_a, dot_b = _axis_list(dot_axes[0], len(a_shape)), _axis_list(dot_axes[1], len(b_shape))
    if len(conv_a) != len(conv_b) or len(dot_a) != len(dot_b):
        raise ValueError(f"convolve: axes {axes} and dot_axes {dot_axes} must pair as many axes of a as of b")
    if len(set(conv_a + dot_a)) < len(conv_a + dot_a) or len(set(conv_b + dot_b)) < len(conv_b + dot_b):
        raise ValueError(f"convolve: axes {axes} and dot_axes {dot_axes} name an axis twice")
    sizes = [(a_shape[i], b_shape[j]) for i, j in zip(conv_a, conv_b)]
    if mode == "valid" and not (all(n >= m for n, m in sizes) or all(m >= n for n, m in sizes)):
        raise ValueError("convolve: for 'valid' mode, one must be at least as large as the other in every dimension")
    # the input with the smaller convolved extent is the filter: the windows of the other have its size
    if mode == "valid":
        a_filters = all(n <= m for n, m in sizes)
    else:
        a_filters = math.prod(n for n, _ in sizes) <= math.prod(m for _, m in sizes)
    letters = iter(LETTERS)
    a_terms = {i: next(letters) for i in range(len(a_shape)) if i not in conv_a}
    b_terms = {j: next(letters) for j in range(len(b_shape)) if j not in conv_b}
    for i, j in zip(dot_a, dot_b):
        b_terms[j] = a_terms[i]
    ignored = [a_terms[i] for i in sorted(a_terms) if i not in dot_a] + [b_terms[j] for j in sorted(b_terms) if j not in dot_b]
    signal, filt = (b, a) if a_filters else (a, b)
    signal_axes, filter_axes = (conv_b, conv_a) if a_filters else (conv_a, conv_b)
    signal_terms, filter_terms = (b_terms, a_terms) if a_filters else (a_terms, b_terms)
    signal_ndim = len(anp.shape(signal))
    window_terms, out_terms = [], []
    for signal_axis, filter_axis in zip(signal_axes, filter_axes):
        signal = _windows(signal, signal_axis, anp.shape(filt)[filter_axis], mode)
        filt = anp.flip(filt, filter_axis)
        signal_terms[signal_axis] = next(letters)
        out_terms.append(signal_terms[signal_axis])
        filter_terms[filter_axis] = next(letters)
        window_terms.append(filter_terms[filter_axis])
    signal_subscripts = "".join(signal_terms[i] for i in range(signal_ndim)) + "".join(window_terms)
    filter_subscripts = "".join(filter_terms[i] for i in range(len(anp.shape(filt))))
    out = einsum(f"{signal_subscripts},{filter_subscripts}->{''.join(ignored + out_terms)}", signal, filt)
    if mode != "same":
        return out
    crop = tuple(slice((m - 1) // 2, (m - 1) // 2 + n) for n, m in sizes)  # SciPy's "same" of a (in1)
    return out[(slice(None),) * len(ignored) + crop]


def _axis_list(axes, ndim):
    """``axes`` as a list of non-negative ints below ``ndim``."""
    result = []
    for axis in axes:
        axis = operator.index(axis)
        if not -ndim <= axis < ndim:
            raise ValueError(f"convolve: axis {axis} is out of range for an array of {ndim} dimensions")
        result.append(axis % ndim)
    return result


def _windows(signal, axis, n_filter, mode):
    """``signal`` zero-padded along ``axis`` (by ``n_filter - 1`` on each side, unless ``mode`` is
    ``"valid"``) and cut into its windows of ``n_filter`` entries: the windows' axis replaces ``axis``
    and the entries within a window go last."""
    if mode != "valid":
        widths = [(0, 0)] * len(anp.shape(signal))
        widths[axis] = (n_filter - 1, n_filter - 1)
        signal = anp.pad(signal, widths)
    length = anp.shape(signal)[axis] - n_filter + 1
    lead = (slice(None),) * axis
    return anp.stack([signal[lead + (slice(j, j + length), ...)] for j in range(n_filter)], axis=-1)


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
