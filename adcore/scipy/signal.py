"""The differentiable ``adcore.scipy.signal``: SciPy's N-d ``convolve``, ``correlate``,
``fftconvolve`` and ``oaconvolve``, the 2-d ``convolve2d`` and ``correlate2d`` with their
boundary conditions, and autograd's form of ``convolve`` with ``axes`` and ``dot_axes``.

Every one of them is built on one primitive, :func:`_convolve`: the ``"full"``, ``"same"`` or
``"valid"`` window of the convolution of two arrays along some axes, broadcast along the others.
It is bilinear in its two inputs: its JVP is the convolution with the tangent in place of that
input (``def_linear``), and its VJP is a correlation of the cotangent with the other input, i.e. a
``"valid"`` convolution of the cotangent, zero-padded back to the ``"full"`` size, with the other
input flipped along the convolved axes (autograd's ``scipy/signal.py`` does the same with
mode-dependent shortcuts), summed over the axes broadcasting stretched. Computed by SciPy's
``convolve``, ``fftconvolve`` and ``oaconvolve`` on NumPy, cupyx's on CuPy, and from the Array API
standard's ``fft`` extension (or direct sums) elsewhere.

The windows follow SciPy exactly, argument swaps included:

- ``"same"`` has the shape of ``in1``, centred in the ``"full"`` output (SciPy's ``_centered``: from
  ``(full - n1) // 2``); ``"valid"`` has ``|n1 - n2| + 1`` entries per convolved axis (either input
  may be the larger, as long as it is the larger along every convolved axis).
- ``correlate(in1, in2)`` is ``convolve(in1, conj(flip(in2)))`` in every mode (SciPy's ``"fft"`` form,
  which its ``"direct"`` form equals).
- ``convolve2d`` and ``correlate2d`` extend ``in1`` by its boundary condition (``fill`` with
  ``fillvalue``, ``wrap``, ``symm``: repeated as often as the kernel needs) and keep the ``"valid"``
  part; ``correlate2d``'s ``"same"`` window is centred differently from ``correlate``'s for an even
  kernel (``(m - 1) // 2`` rows of extension before, ``m // 2`` after, SciPy's ``correlate2d``), and its
  ``"valid"`` output is conjugated when ``in2`` is the larger (SciPy swaps the inputs, reverses
  the result and does not conjugate it back).

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

import numpy as _np

from backends import backend_of

from .. import numpy as anp
from ..core import def_linear, defvjp_argnum, getval, isbox, primitive
from ..numpy import declare, dtypes, shapes
from ..numpy.declare import metadata, unbroadcast
from ..numpy.einsum import LETTERS, einsum
from ..numpy.selection import take

__all__ = ["convolve", "convolve2d", "convolve_axes", "convolve_nd", "correlate", "correlate2d", "fftconvolve", "oaconvolve"]

_MODES = ("full", "valid", "same")
_METHODS = ("auto", "direct", "fft")
#: SciPy's names of the boundary conditions of ``convolve2d`` and ``correlate2d``, by the extension each means
_BOUNDARIES = {"fill": "fill", "pad": "fill", "wrap": "wrap", "circular": "wrap", "symm": "symm", "symmetric": "symm"}


def _window(shape1, shape2, mode, axes, name):
    """``(full, starts, sizes)``: the shape of the ``"full"`` convolution of arrays of shapes ``shape1``
    and ``shape2`` along ``axes`` (every axis when None), broadcast along the others, and where the
    output of ``mode`` lies in it, per axis.

    Raises
    ------
    ValueError
        For an unknown ``mode``; axes not convolved that neither are equal nor hold a 1 (``axes``
        given); ``"valid"`` with neither input at least as large as the other along every convolved
        axis (with ``axes`` given, axes where an input has one entry are not counted, as SciPy's
        ``fftconvolve``). The messages are SciPy's, after the name of the function.
    """
    if mode not in _MODES:
        raise ValueError(f"{name}: acceptable mode flags are 'valid', 'same', or 'full', not mode={mode!r}")
    convolved = range(len(shape1)) if axes is None else axes
    if axes is not None and any(
        n1 != n2 and 1 not in (n1, n2) for i, (n1, n2) in enumerate(zip(shape1, shape2)) if i not in axes
    ):
        raise ValueError(
            f"{name}: incompatible shapes for in1 and in2: {shape1} and {shape2} (the axes not convolved must be equal or 1)"
        )
    pairs = [(shape1[i], shape2[i]) for i in convolved if axes is None or 1 not in (shape1[i], shape2[i])]
    if mode == "valid" and not (all(n1 >= n2 for n1, n2 in pairs) or all(n2 >= n1 for n1, n2 in pairs)):
        raise ValueError(f"{name}: for 'valid' mode, one must be at least as large as the other in every dimension")
    full, starts, sizes = [], [], []
    for i, (n1, n2) in enumerate(zip(shape1, shape2)):
        total = n1 + n2 - 1 if i in convolved else builtins.max(n1, n2)
        if mode == "full" or (mode == "valid" and i not in convolved):
            start, size = 0, total
        elif mode == "same":
            start, size = (total - n1) // 2, n1
        else:
            start, size = builtins.min(n1, n2) - 1, builtins.abs(n1 - n2) + 1
        full.append(total)
        starts.append(start)
        sizes.append(size)
    return tuple(full), tuple(starts), tuple(sizes)


@primitive
def _convolve(in1, in2, mode, method, axes):
    """The ``mode`` window (:func:`_window`) of the convolution of ``in1`` and ``in2`` along ``axes``:
    every axis when None (SciPy's ``convolve``), else the given non-negative axes with the others
    broadcast (SciPy's ``fftconvolve``); ``method`` is ``"auto"``, ``"direct"``, ``"fft"`` or ``"oa"``
    (overlap-add, SciPy's ``oaconvolve``). The public functions check the arguments first."""
    shape1, shape2 = anp.shape(in1), anp.shape(in2)
    backend = backend_of(in1, in2, op="scipy.signal.convolve")
    if not shape1:
        return backend.multiply(in1, in2)
    try:
        module = backend.scipy_module("signal")
    except (NotImplementedError, AttributeError, ImportError):
        full, starts, sizes = _window(shape1, shape2, mode, axes, "convolve")
        out = _standard_convolve(backend, in1, in2, method, range(len(full)) if axes is None else axes, full)
        return out[tuple(slice(start, start + size) for start, size in zip(starts, sizes))]
    if axes is None:
        return module.convolve(in1, in2, mode=mode, method=method)
    return (module.oaconvolve if method == "oa" else module.fftconvolve)(in1, in2, mode=mode, axes=axes)


def grad_convolve(argnum, ans, args, kwargs):
    in1, in2, mode, method, axes = args
    other, meta = (in2, in1)[argnum], metadata(args[argnum])
    full, starts, sizes = _window(anp.shape(in1), anp.shape(in2), mode, axes, "convolve")
    widths = [(start, total - start - size) for start, total, size in zip(starts, full, sizes)]
    padded = any(before or after for before, after in widths)

    def vjp(g):
        correlation = _convolve(anp.pad(g, widths) if padded else g, anp.flip(other, axes), "valid", method, axes)
        return unbroadcast(correlation, meta)

    return vjp


defvjp_argnum(_convolve, grad_convolve)
def_linear(_convolve)


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


def convolve_nd(in1, in2, mode="full", method="auto"):
    """The N-d convolution of ``in1`` and ``in2``, SciPy's ``scipy.signal.convolve``.

    Parameters
    ----------
    in1, in2 : arrays with the same number of dimensions (non-empty)
    mode : {"full", "valid", "same"}
        ``"full"``: shape ``in1.shape + in2.shape - 1``; ``"valid"``: the entries that do not
        depend on zero padding, shape ``|in1.shape - in2.shape| + 1`` (one input must be at
        least as large as the other in every dimension); ``"same"``: the shape of ``in1``,
        centred in the full output (from ``(in2.shape - 1) // 2``).
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
    return _checked_convolve(in1, in2, mode, method, "convolve")


def correlate(in1, in2, mode="full", method="auto"):
    """The N-d cross-correlation ``out[k] = sum_j in1[j + k] conj(in2[j])``, SciPy's
    ``scipy.signal.correlate``: :func:`convolve_nd` of ``in1`` and ``conj(flip(in2))``.

    Parameters
    ----------
    in1, in2 : arrays with the same number of dimensions (non-empty), real or complex
    mode : {"full", "valid", "same"}
        As :func:`convolve_nd`: ``"full"`` has shape ``in1.shape + in2.shape - 1`` (lag
        ``-(n2 - 1)`` first), ``"same"`` the shape of ``in1`` (from ``n2 // 2`` of the full output),
        ``"valid"`` ``|in1.shape - in2.shape| + 1`` (when ``in2`` is the larger, the lags are
        negative: SciPy's swap with reversal and conjugation gives the same numbers).
    method : {"auto", "direct", "fft"}

    Returns
    -------
    out : array of the promoted dtype of ``in1`` and ``in2``; ``in1 * conj(in2)`` for two 0-d inputs.

    Raises
    ------
    ValueError
        As :func:`convolve_nd`.

    Notes
    -----
    Linear in ``in1``, conjugate-linear in ``in2`` (real-linear): the derivatives are those of
    ``convolve_nd``, ``flip`` and ``conj``.

    >>> import adcore.numpy as np
    >>> correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
    array([0.5, 2. , 3.5, 3. , 0. ])
    """
    return _checked_convolve(in1, anp.flip(anp.conj(in2)), mode, method, "correlate")


def _checked_convolve(in1, in2, mode, method, name):
    if method not in _METHODS:
        raise ValueError(f"{name}: acceptable method flags are 'auto', 'direct', or 'fft', not method={method!r}")
    shape1, shape2 = anp.shape(in1), anp.shape(in2)
    if len(shape1) != len(shape2):
        raise ValueError(f"{name}: in1 and in2 should have the same dimensionality, got shapes {shape1} and {shape2}")
    _window(shape1, shape2, mode, None, name)
    return _convolve(in1, in2, mode, method, None)


def fftconvolve(in1, in2, mode="full", axes=None):
    """The convolution of ``in1`` and ``in2`` along ``axes`` by FFTs, SciPy's ``scipy.signal.fftconvolve``.

    Parameters
    ----------
    in1, in2 : arrays with the same number of dimensions (non-empty)
        Along the axes not convolved, equal sizes or 1 (broadcast).
    mode : {"full", "valid", "same"}
        Along the convolved axes as :func:`convolve_nd` (an axis where one input has one entry
        does not count in ``"valid"``'s "at least as large" rule); along the others ``"full"``
        and ``"valid"`` keep the broadcast size, ``"same"`` the centred ``in1.shape`` entries.
    axes : int or sequence of ints, optional
        The axes to convolve along (every axis when None).

    Returns
    -------
    out : floating array (integer input is made float64, as SciPy), the promoted dtype; the
        product for two 0-d inputs.

    Raises
    ------
    ValueError
        For an unknown ``mode``, inputs of different dimensionality, empty, repeated or
        out-of-range ``axes``, incompatible sizes along the other axes, or a ``"valid"`` pair
        where neither input is the larger.

    Notes
    -----
    Bilinear: the derivatives are those of the primitive described in the module docstring.

    >>> import adcore.numpy as np
    >>> fftconvolve(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, -1.0]]), axes=1)
    array([[ 1.,  1., -2.],
           [ 3.,  1., -4.]])
    """
    return _frequency_convolve(in1, in2, mode, axes, "fft", "fftconvolve")


def oaconvolve(in1, in2, mode="full", axes=None):
    """The convolution of ``in1`` and ``in2`` along ``axes`` by the overlap-add method, SciPy's
    ``scipy.signal.oaconvolve``: the same numbers (and arguments, errors, derivatives) as
    :func:`fftconvolve`, computed by SciPy's ``oaconvolve`` on NumPy and CuPy.

    >>> import adcore.numpy as np
    >>> oaconvolve(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0]), "valid")
    array([3., 5.])
    """
    return _frequency_convolve(in1, in2, mode, axes, "oa", "oaconvolve")


def _frequency_convolve(in1, in2, mode, axes, method, name):
    shape1, shape2 = anp.shape(in1), anp.shape(in2)
    if not shape1 and not shape2:
        return anp.multiply(in1, in2)
    if len(shape1) != len(shape2):
        raise ValueError(f"{name}: in1 and in2 should have the same dimensionality, got shapes {shape1} and {shape2}")
    axes = _axis_tuple(axes, len(shape1), name)
    _window(shape1, shape2, mode, axes, name)
    return _convolve(_floating(in1), _floating(in2), mode, method, axes)


def _axis_tuple(axes, ndim, name):
    """``axes`` (None: every axis; an int; a sequence of ints) as a sorted tuple of non-negative ints."""
    if axes is None:
        return tuple(range(ndim))
    axes = [operator.index(a) for a in (axes if hasattr(axes, "__len__") else [axes])]
    if not axes:
        raise ValueError(f"{name}: when provided, axes cannot be empty")
    if any(not -ndim <= a < ndim for a in axes):
        raise ValueError(f"{name}: axes {axes} exceed the dimensionality of the input ({ndim})")
    if len({a % ndim for a in axes}) < len(axes):
        raise ValueError(f"{name}: all axes must be unique, got {axes}")
    return tuple(sorted(a % ndim for a in axes))


def _floating(x):
    """``x``, or float64 where it holds integers or booleans (what SciPy's FFTs compute in)."""
    return anp.astype(x, anp.float64) if _holds_integers(x) else x


def _holds_integers(x):
    """Whether ``x`` (an array or a Python number) has an integer or boolean dtype."""
    x = getval(x)
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return isinstance(x, int)
    return bool(backend_of(x, op="scipy.signal").isdtype(dtype, ("integral", "bool")))


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """The 2-d convolution of ``in1`` and ``in2`` with a boundary condition, SciPy's
    ``scipy.signal.convolve2d``.

    Parameters
    ----------
    in1, in2 : 2-d arrays (non-empty)
    mode : {"full", "valid", "same"}
        As :func:`convolve_nd` (``"same"``: the shape of ``in1``; ``"valid"`` swaps the inputs
        when ``in2`` is the larger).
    boundary : {"fill", "wrap", "symm"}
        How ``in1`` is extended beyond its edges: by ``fillvalue`` (``"pad"`` is the same), periodically
        (``"circular"``) or by mirror images that repeat the edge (``"symmetric"``), as far as the
        kernel reaches (the pattern repeats when the kernel is the larger). Unused by ``"valid"``.
    fillvalue : scalar or one-element array
        The value beyond the edges for ``"fill"``; it may be traced (the output is affine in it).

    Returns
    -------
    out : 2-d array of the promoted dtype of ``in1`` and ``in2``.

    Raises
    ------
    ValueError
        For inputs that are not 2-d, an unknown ``mode`` or ``boundary``, a ``fillvalue`` of more
        than one entry or complex with real inputs, or a ``"valid"`` pair where neither input is
        the larger.

    Notes
    -----
    ``convolve_nd(extended in1, in2, "valid")``, with the extension a ``take`` of ``in1`` (or a zero
    ``pad`` plus ``fillvalue`` times a constant mask): the derivatives are theirs (bilinear in
    ``in1`` and ``in2``).

    >>> import adcore.numpy as np
    >>> convolve2d(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 1.0]]), "same", "wrap")
    array([[3., 3.],
           [7., 7.]])
    """
    return _two_dimensional(in1, in2, mode, boundary, fillvalue, "convolve2d")


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """The 2-d cross-correlation of ``in1`` and ``in2`` with a boundary condition, SciPy's
    ``scipy.signal.correlate2d``: ``out[k] = sum_j ext(in1)[j + k] conj(in2[j])``.

    Arguments, returns and errors as :func:`convolve2d`. As SciPy: the ``"same"`` window takes
    ``(m - 1) // 2`` rows (columns) of extension before ``in1`` and ``m // 2`` after, for a kernel
    of ``m`` (one place off :func:`correlate`'s for an even ``m``), and ``"valid"`` with ``in2`` the
    larger gives the conjugate of :func:`correlate`'s output (SciPy swaps the inputs and reverses
    the result without conjugating it back).

    >>> import adcore.numpy as np
    >>> correlate2d(np.array([[1.0, 2.0, 3.0]]), np.array([[1.0, -1.0]]), "same")
    array([[-1., -1.,  3.]])
    """
    return _two_dimensional(in1, in2, mode, boundary, fillvalue, "correlate2d")


def _two_dimensional(in1, in2, mode, boundary, fillvalue, name):
    shape1, shape2 = anp.shape(in1), anp.shape(in2)
    if len(shape1) != 2 or len(shape2) != 2:
        raise ValueError(f"{name}: inputs must both be 2-D arrays, got shapes {shape1} and {shape2}")
    if boundary not in _BOUNDARIES:
        raise ValueError(
            f"{name}: acceptable boundary flags are 'fill', 'circular' (or 'wrap'), and 'symmetric' (or 'symm'), "
            f"not boundary={boundary!r}"
        )
    _window(shape1, shape2, mode, None, name)
    correlating = name == "correlate2d"
    kernel = anp.flip(anp.conj(in2)) if correlating else in2
    if mode == "valid":
        out = _convolve(in1, kernel, "valid", "auto", None)
        swapped = not all(n1 >= n2 for n1, n2 in zip(shape1, shape2))
        return anp.conj(out) if correlating and swapped else out
    if mode == "full":
        widths = [(m - 1, m - 1) for m in shape2]
    elif correlating:
        widths = [((m - 1) // 2, m // 2) for m in shape2]
    else:
        widths = [(m - 1 - (m - 1) // 2, (m - 1) // 2) for m in shape2]
    extended = _extend(in1, widths, _BOUNDARIES[boundary], fillvalue, in2, name)
    return _convolve(extended, kernel, "valid", "auto", None)


def _extend(x, widths, extension, fillvalue, other, name):
    """``x`` extended by ``widths[i] = (before, after)`` entries along each axis ``i``: ``fillvalue``
    (``"fill"``), periodically (``"wrap"``) or by mirror images repeating the edge (``"symm"``,
    period ``2n``)."""
    if extension == "fill":
        padded = anp.pad(x, widths)
        fillvalue = _fill_value(fillvalue, x, other, name)
        if isinstance(fillvalue, (int, float, complex)) and fillvalue == 0:
            return padded
        mask = anp.pad(dtypes.zeros_like(x), widths, constant_values=1)  # 1 beyond the edges: a constant
        return anp.add(padded, anp.multiply(fillvalue, mask))
    for axis, (before, after) in enumerate(widths):
        n = anp.shape(x)[axis]
        positions = _np.arange(-before, n + after)
        if extension == "wrap":
            index = positions % n
        else:
            cycle = positions % (2 * n)
            index = _np.where(cycle < n, cycle, 2 * n - 1 - cycle)
        x = take(x, index.tolist(), axis=axis)
    return x


def _fill_value(fillvalue, x, other, name):
    """``fillvalue`` as SciPy takes it: one entry, cast to an integer output, complex only for a complex
    output. A Python or NumPy value becomes a Python number; an array of ``x``'s backend (traced or
    not) stays there, made 0-d."""
    host = not isbox(fillvalue) and isinstance(fillvalue, (int, float, complex, list, tuple, _np.ndarray, _np.generic))
    size = _np.size(fillvalue) if host else anp.size(fillvalue)
    if size != 1:
        raise ValueError(f"{name}: `fillvalue` must be scalar or an array with one element, got {size} elements")
    value = _np.asarray(fillvalue).reshape(()).item() if host else shapes.reshape(fillvalue, ())
    if (isinstance(value, complex) if host else declare.iscomplexobj(value)) and not (
        declare.iscomplexobj(x) or declare.iscomplexobj(other)
    ):
        if not host or value.imag:
            raise ValueError(f"{name}: could not cast the complex `fillvalue` {value} to the real output type")
        value = value.real
    if _holds_integers(x) and _holds_integers(other):
        return int(value.real) if host else anp.astype(value, anp.result_type(x, other))
    return value


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


def _standard_convolve(backend, in1, in2, method, axes, full):
    """The ``"full"`` convolution along ``axes`` (broadcast along the others; shape ``full``) from the
    Array API standard: products of ``fftn`` spectra, or (``method="direct"``, integer or boolean
    input) sums of shifted copies of the input with more entries along ``axes``, each scaled by one
    entry of the other."""
    xp = backend.xp
    dtype = xp.result_type(in1, in2)
    if method == "direct" or not backend.isdtype(dtype, ("real floating", "complex floating")):
        along = [math.prod(x.shape[a] for a in axes) for x in (in1, in2)]
        small, large = (in1, in2) if along[0] <= along[1] else (in2, in1)
        device = backend.device(in1)
        out = xp.zeros(full, dtype=dtype, device=device)
        for index in itertools.product(*(range(small.shape[a]) for a in axes)):
            entry, region = [slice(None)] * len(full), [slice(None)] * len(full)
            for a, i in zip(axes, index):
                entry[a], region[a] = slice(i, i + 1), slice(i, i + large.shape[a])
            # no item assignment (JAX arrays are immutable); xp.multiply broadcasts the entry (torch's * may not promote)
            out = out + backend.scatter_add(full, dtype, device, tuple(region), xp.multiply(small[tuple(entry)], large))
        return out
    axes = tuple(axes)
    sizes = tuple(full[a] for a in axes)
    fft = backend.fft  # the backend's: on Dask it first makes the transformed axes one chunk
    if backend.isdtype(dtype, "complex floating"):
        in1, in2 = xp.astype(in1, dtype), xp.astype(in2, dtype)
        return fft.ifftn(fft.fftn(in1, s=sizes, axes=axes) * fft.fftn(in2, s=sizes, axes=axes), s=sizes, axes=axes)
    spectra = fft.rfftn(in1, s=sizes, axes=axes) * fft.rfftn(in2, s=sizes, axes=axes)
    return xp.astype(fft.irfftn(spectra, s=sizes, axes=axes), dtype)
