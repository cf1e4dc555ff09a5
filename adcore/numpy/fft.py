"""The differentiable ``adcore.numpy.fft``: NumPy's discrete Fourier transforms on every backend.

The names, signatures and results are NumPy's (``n``/``s``, ``axis``/``axes``,
``norm`` in ``None``/``"backward"``, ``"ortho"``, ``"forward"``); the raw
transforms are the Array API fft extension of the arguments' backend.

Every transform is linear, so its JVP is the transform of the tangent
(``def_linear``), and its VJP is the transpose in autograd's convention: the
cotangent ``g`` of ``y = A x`` maps to ``A^T g`` (its real part for a real
``x``; ``check_grads`` pairs it with conjugated covectors). Three primitives do
the work, over explicit sizes ``s`` and distinct non-negative ``axes``, each
with its VJP and JVP below it:

- ``_c2c``: ``fftn`` / ``ifftn``. The DFT matrix ``F`` is symmetric, so the
  transpose of ``x -> F P x`` (``P`` crops or zero-pads ``x`` to ``s``) is
  ``g -> P^T F g``: the same transform, then the padding undone by cropping and
  the cropping by zero-padding (``_crop_pad``). autograd's ``fft`` VJP.
- ``_r2c``: ``rfftn``, ``y = H F P x`` with ``H`` keeping the frequencies
  ``0 .. s[-1] // 2`` of the last axis. The VJP ``Re(P^T F H^T g)`` is an
  ``irfftn`` of ``conj(g)`` weighted by 1 at frequency 0 and Nyquist (even
  ``s[-1]``) and 1/2 elsewhere, because ``irfftn`` counts each of those
  frequencies twice (once for its Hermitian mirror); the scale matches with the
  dual normalisation (``"backward"`` <-> ``"forward"``, ``"ortho"`` itself).
- ``_c2r``: ``irfftn``, ``y = Re(B P x)`` with ``B`` the inverse DFT on the
  other axes and, on the last, the half spectrum weighted 1 at frequency 0 and
  Nyquist and 2 elsewhere. The VJP ``P^T B^T g`` of a real ``g`` is those
  weights times ``conj(rfftn(g))`` with the dual normalisation.

Odd lengths are exact (autograd refuses them). ``fft2``, ``fftn`` and the others
call these; repeated ``axes`` are done one axis at a time in NumPy's order;
``hfft`` and ``ihfft`` are compositions, as in NumPy. ``fftshift`` and
``ifftshift`` are primitives, each the other's VJP; ``fftfreq`` and
``rfftfreq`` are not differentiable.

Derivations: the transposes above, checked to order 2 against finite
differences by ``tests/test_fft.py``; the weights are autograd 1.9.1's
``make_rfft_factors`` (``autograd/numpy/fft.py``), extended to odd lengths.
"""

import numpy as _np

from backends import backend_of, default_backend

from ..core import def_linear, defvjp, getval, notrace_primitive, primitive
from . import declare, dtypes, elementwise, shapes

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "fftshift",
    "ifftshift",
    "fftfreq",
    "rfftfreq",
]

#: the normalisation whose inverse (forward) transform has the scale of this forward (inverse) one
_DUAL_NORM = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


# ---- the primitives and their rules ----


@primitive
def _c2c(x, s, axes, norm, forward):
    """The ``fftn`` (``forward``) or ``ifftn`` of the complex ``x`` over ``axes``, ``x`` cropped or
    zero-padded to the sizes ``s`` first: an array of ``x``'s dtype, ``s`` along ``axes``."""
    fft = backend_of(x, op="fft" if forward else "ifft").fft
    if len(axes) == 1:
        return (fft.fft if forward else fft.ifft)(x, n=s[0], axis=axes[0], norm=norm)
    return (fft.fftn if forward else fft.ifftn)(x, s=s, axes=axes, norm=norm)


def grad_c2c(ans, x, s, axes, norm, forward):
    x_shape = shapes.shape(x)
    return lambda g: _crop_pad(_c2c(g, s, axes, norm, forward), x_shape)


defvjp(_c2c, grad_c2c)
def_linear(_c2c)


@primitive
def _r2c(x, s, axes, norm):
    """The ``rfftn`` of the real ``x`` over ``axes`` (sizes ``s``): complex, of ``x``'s precision, with
    ``s`` along ``axes`` except ``s[-1] // 2 + 1`` along the last."""
    return backend_of(x, op="rfft").fft.rfftn(x, s=s, axes=axes, norm=norm)


def grad_r2c(ans, x, s, axes, norm):
    x_shape = shapes.shape(x)
    halves = _half_spectrum_weights(ans, s[-1], axes[-1], 0.5)
    return lambda g: _crop_pad(_c2r(elementwise.multiply(elementwise.conj(g), halves), s, axes, _DUAL_NORM[norm]), x_shape)


defvjp(_r2c, grad_r2c)
def_linear(_r2c)


@primitive
def _c2r(x, s, axes, norm):
    """The ``irfftn`` of the complex ``x`` (a half spectrum on the last of ``axes``) to sizes ``s``:
    real, of ``x``'s precision, with ``s`` along ``axes``."""
    return backend_of(x, op="irfft").fft.irfftn(x, s=s, axes=axes, norm=norm)


def grad_c2r(ans, x, s, axes, norm):
    x_shape = shapes.shape(x)
    doubles = _half_spectrum_weights(x, s[-1], axes[-1], 2.0)
    return lambda g: _crop_pad(elementwise.multiply(elementwise.conj(_r2c(g, s, axes, _DUAL_NORM[norm])), doubles), x_shape)


defvjp(_c2r, grad_c2r)
def_linear(_c2r)


@notrace_primitive
def _half_spectrum_weights(like, n, axis, inner):
    """Weights of a half spectrum of length ``n // 2 + 1`` along ``axis``: 1 at frequency 0 and, for
    an even ``n``, at the Nyquist frequency ``n / 2``; ``inner`` elsewhere. Shaped to broadcast
    against ``like``, in its dtype and on its device."""
    backend = backend_of(like, op="fft")
    k = backend.arange(n // 2 + 1, device=backend.device(like))
    at_ends = backend.astype((k == 0) | (2 * k == n), like.dtype)
    weights = at_ends * (1.0 - inner) + inner
    return backend.reshape(weights, tuple(n // 2 + 1 if i == axis else 1 for i in range(like.ndim)))


@primitive
def _crop_pad(x, shape):
    """``x`` cut to ``shape``, or padded with zeros at the end of each axis to reach it (same dtype)."""
    backend = backend_of(x, op="fft")
    x = x[tuple(slice(0, min(n, m)) for n, m in zip(shape, x.shape))]  # the standard forbids stops past the end
    for axis, n in enumerate(shape):
        if n > x.shape[axis]:
            pad_shape = x.shape[:axis] + (n - x.shape[axis],) + x.shape[axis + 1 :]
            x = backend.concat([x, backend.zeros(pad_shape, dtype=x.dtype, device=backend.device(x))], axis=axis)
    return x


def grad_crop_pad(ans, x, shape):
    x_shape = shapes.shape(x)
    return lambda g: _crop_pad(g, x_shape)


defvjp(_crop_pad, grad_crop_pad)
def_linear(_crop_pad)


@primitive
def fftshift(x, axes=None):
    """``x`` rolled so that frequency 0 is in the middle of each of ``axes`` (all by default); same
    shape and dtype. Its VJP is ``ifftshift`` (a permutation's transpose is its inverse)."""
    return backend_of(x, op="fftshift").fft.fftshift(x, axes=_axes_arg(axes))


@primitive
def ifftshift(x, axes=None):
    """The inverse of ``fftshift``: frequency 0 back to index 0 of each of ``axes``; same shape and dtype."""
    return backend_of(x, op="ifftshift").fft.ifftshift(x, axes=_axes_arg(axes))


defvjp(fftshift, lambda ans, x, axes=None: lambda g: ifftshift(g, axes))
def_linear(fftshift)
defvjp(ifftshift, lambda ans, x, axes=None: lambda g: fftshift(g, axes))
def_linear(ifftshift)


def _axes_arg(axes):
    return tuple(axes) if isinstance(axes, list) else axes


# ---- argument handling, as NumPy's ----


def _norm(name, norm):
    if norm is None:
        return "backward"
    if norm not in _DUAL_NORM:
        raise ValueError(f'{name}: invalid norm {norm!r}; use None, "backward", "ortho" or "forward"')
    return norm


def _sizes_and_axes(name, x, s, axes, half_spectrum_input=False):
    """NumPy's ``s`` and ``axes`` made explicit: sizes (``-1`` keeps the input's size, ``None`` is the
    default of the 1-d transform) and non-negative axes. ``axes=None`` means all axes, or the last
    ``len(s)`` (NumPy's deprecated behaviour, without its warning).

    ``half_spectrum_input``: ``x`` is a half spectrum along the last axis (the ``irfft`` family), whose
    default size there is ``2 * (m - 1)``.
    """
    shape = shapes.shape(x)
    ndim = len(shape)
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    axes = tuple(shapes._normalize_axis(a, ndim, name) for a in axes)
    if s is None:
        s = [None] * len(axes)
    s = list(s)
    if len(s) != len(axes):
        raise ValueError(f"{name}: s and axes have different lengths ({len(s)} and {len(axes)})")
    for i, (n, axis) in enumerate(zip(s, axes)):
        if n is None and half_spectrum_input and i == len(axes) - 1:
            n = 2 * (shape[axis] - 1)
        elif n is None or n == -1:
            n = shape[axis]
        if n < 1:
            raise ValueError(f"{name}: invalid number of FFT data points ({n}) along axis {axis}")
        s[i] = int(n)
    return tuple(s), axes


def _as_complex(a):
    """``a`` as a complex array: complex64 from float32, complex128 from other real dtypes."""
    x = shapes.asarray(a)
    if declare.iscomplexobj(x):
        return x
    return dtypes.astype(x, "complex64" if _is_float32(x) else "complex128")


def _as_real(name, a):
    """``a`` as a real floating array (integers become float64); complex input is refused, as NumPy does."""
    x = shapes.asarray(a)
    if declare.iscomplexobj(x):
        raise TypeError(f"{name}: the input must be real, got {getval(x).dtype}; take adcore.numpy.real(x) first, or use fft")
    value = getval(x)
    if not backend_of(value, op=name).isdtype(value.dtype, "real floating"):
        return dtypes.astype(x, "float64")
    return x


def _is_float32(x):
    value = getval(x)
    return value.dtype == backend_of(value).dtype("float32")


def _has_repeats(axes):
    return len(set(axes)) < len(axes)


# ---- the NumPy-named transforms ----


def _complex_transform(name, a, s, axes, norm, forward):
    norm = _norm(name, norm)
    x = _as_complex(a)
    s, axes = _sizes_and_axes(name, x, s, axes)
    if not axes:
        return shapes.asarray(a)
    if _has_repeats(axes):  # one axis at a time, the last first (NumPy's order)
        for n, axis in reversed(list(zip(s, axes))):
            x = _c2c(x, (n,), (axis,), norm, forward)
        return x
    return _c2c(x, s, axes, norm, forward)


def _real_transform(name, a, s, axes, norm):
    norm = _norm(name, norm)
    x = _as_real(name, a)
    s, axes = _sizes_and_axes(name, x, s, axes)
    if not axes:
        raise ValueError(f"{name}: no axis to transform")
    if _has_repeats(axes):  # the real transform on the last axis, then the others from the last (NumPy's order)
        x = _r2c(x, s[-1:], axes[-1:], norm)
        for n, axis in reversed(list(zip(s[:-1], axes[:-1]))):
            x = _c2c(x, (n,), (axis,), norm, True)
        return x
    return _r2c(x, s, axes, norm)


def _inverse_real_transform(name, a, s, axes, norm):
    norm = _norm(name, norm)
    x = _as_complex(a)
    s, axes = _sizes_and_axes(name, x, s, axes, half_spectrum_input=True)
    if not axes:
        raise ValueError(f"{name}: no axis to transform")
    if _has_repeats(axes):  # the complex inverses in order, then the real one on the last axis (NumPy's order)
        for n, axis in zip(s[:-1], axes[:-1]):
            x = _c2c(x, (n,), (axis,), norm, False)
        return _c2r(x, s[-1:], axes[-1:], norm)
    return _c2r(x, s, axes, norm)


def fft(a, n=None, axis=-1, norm=None):
    """The 1-d discrete Fourier transform of ``a`` along ``axis``, cropped or zero-padded to ``n`` points.

    Returns a complex array (complex64 for float32 or complex64 ``a``, else complex128) of ``a``'s
    shape with ``n`` along ``axis``. ``norm`` scales the result by 1 (``None``, ``"backward"``),
    ``1 / sqrt(n)`` (``"ortho"``) or ``1 / n`` (``"forward"``).

    Raises
    ------
    ValueError
        If ``n < 1`` or ``norm`` is not one of those above.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> grad(lambda x: np.sum(np.abs(np.fft.fft(x)) ** 2))(np.array([1.0, 2.0]))  # Parseval: 2 * n * x
    array([4., 8.])
    """
    return _complex_transform("fft", a, (n,), (axis,), norm, True)


def ifft(a, n=None, axis=-1, norm=None):
    """The inverse of ``fft`` along ``axis`` (``n`` points; ``norm`` as ``fft``'s, so ``None`` divides
    by ``n``): a complex array of ``a``'s shape with ``n`` along ``axis``."""
    return _complex_transform("ifft", a, (n,), (axis,), norm, False)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """``fftn`` over ``axes``, by default the last two."""
    return _complex_transform("fft2", a, s, axes, norm, True)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """``ifftn`` over ``axes``, by default the last two."""
    return _complex_transform("ifft2", a, s, axes, norm, False)


def fftn(a, s=None, axes=None, norm=None):
    """The n-d discrete Fourier transform of ``a`` over ``axes`` (all by default, or the last
    ``len(s)``), each cropped or zero-padded to its size in ``s`` (``-1``: unchanged).

    Returns a complex array (complex64 for float32 or complex64 ``a``) of ``a``'s shape with ``s``
    along ``axes``; ``norm`` as ``fft``'s, with ``n`` the product of ``s``.

    Raises
    ------
    ValueError
        If ``s`` and ``axes`` differ in length, a size is below 1 or ``norm`` is unknown.
    """
    return _complex_transform("fftn", a, s, axes, norm, True)


def ifftn(a, s=None, axes=None, norm=None):
    """The inverse of ``fftn`` (arguments as ``fftn``'s)."""
    return _complex_transform("ifftn", a, s, axes, norm, False)


def rfft(a, n=None, axis=-1, norm=None):
    """The 1-d transform of the real ``a`` along ``axis`` (``n`` points), its non-negative frequencies only.

    Returns a complex array (complex64 for float32 ``a``) of ``a``'s shape with ``n // 2 + 1`` along
    ``axis``. The VJP weights the cotangent for the frequencies that stand for two (see the module).

    Raises
    ------
    TypeError
        If ``a`` is complex (as NumPy): use ``fft``, or take the real part first.
    ValueError
        If ``n < 1`` or ``norm`` is unknown.
    """
    return _real_transform("rfft", a, (n,), (axis,), norm)


def irfft(a, n=None, axis=-1, norm=None):
    """The inverse of ``rfft``: ``n`` real points (default ``2 * (m - 1)`` for ``m`` input points)
    along ``axis`` from the half spectrum ``a``, which is cropped or zero-padded to ``n // 2 + 1``.

    Returns a real array (float32 for complex64 or float32 ``a``) of ``a``'s shape with ``n`` along
    ``axis``. As NumPy, the imaginary parts at frequency 0 and Nyquist are ignored.
    """
    return _inverse_real_transform("irfft", a, (n,), (axis,), norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """``rfftn`` over ``axes``, by default the last two."""
    return _real_transform("rfft2", a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """``irfftn`` over ``axes``, by default the last two."""
    return _inverse_real_transform("irfft2", a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """``fftn`` of the real ``a`` keeping, on the last of ``axes``, the non-negative frequencies only
    (``s[-1] // 2 + 1`` of them): complex (complex64 for float32 ``a``)."""
    return _real_transform("rfftn", a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of ``rfftn``: real (float32 for complex64 ``a``), with ``s`` along ``axes`` (by
    default ``2 * (m - 1)`` on the last axis for ``m`` input points there)."""
    return _inverse_real_transform("irfftn", a, s, axes, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The transform of a signal with Hermitian symmetry, given by its first half ``a``: ``n`` real points
    (default ``2 * (m - 1)``). As NumPy: ``irfft(conj(a), n, axis)`` with the dual normalisation."""
    return irfft(elementwise.conj(_as_complex(a)), n, axis, _DUAL_NORM[_norm("hfft", norm)])


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of ``hfft`` for the real ``a``: ``n // 2 + 1`` complex points. As NumPy:
    ``conj(rfft(a, n, axis))`` with the dual normalisation."""
    return elementwise.conj(rfft(a, n, axis, _DUAL_NORM[_norm("ihfft", norm)]))


# ---- not differentiable ----


@notrace_primitive
def fftfreq(n, d=1.0, device=None):
    """The sample frequencies of an ``n``-point ``fft`` with sample spacing ``d``: ``n`` floats made by
    the default backend (``adcore.use_backend``) on ``device`` (its default device if None)."""
    return default_backend().fft.fftfreq(n, d=d, device=device)


@notrace_primitive
def rfftfreq(n, d=1.0, device=None):
    """The ``n // 2 + 1`` non-negative sample frequencies of an ``n``-point ``rfft`` (as ``fftfreq``)."""
    return default_backend().fft.rfftfreq(n, d=d, device=device)


test = _np.fft.test  # NumPy's test runner of numpy.fft, as autograd.numpy.fft has it
__all__ += ["test"]
