"""The rest of ``scipy.linalg``, as compositions of adcore's linear algebra (``adcore.scipy.linalg`` exports it).

=================================================  ==============================================================
functions                                          how they are computed (and so differentiated)
=================================================  ==============================================================
``block_diag toeplitz hankel circulant companion   gathers and concatenations of the arguments: linear in them
convolution_matrix fiedler fiedler_companion
leslie khatri_rao diagsvd``
``kron`` (removed in SciPy 1.17)                  ``adcore.numpy.kron``: bilinear
``eig eigvals``                                    ``adcore.numpy.linalg.eig`` (right eigenvectors, ``b=None``)
``eigvalsh svd svdvals qr norm pinv lstsq lu``     ``adcore.numpy.linalg`` / ``lu_factor``, SciPy's conventions
``pinvh polar null_space orth rq qr_multiply       compositions of ``eigh``, ``svd`` and ``qr``
orthogonal_procrustes subspace_angles cdf2rdf``
``cosm sinm tanm coshm sinhm tanhm signm           ``expm``, ``logm``, ``sqrtm`` and ``solve`` (holomorphic), and
fractional_matrix_power expm_frechet``             the block formula for the Frechet derivative
``solve_toeplitz matmul_toeplitz solve_circulant   the dense or FFT form of the structured problem
solveh_banded cholesky_banded cho_solve_banded
eig_banded eigvals_banded eigh_tridiagonal
eigvalsh_tridiagonal solve_continuous_lyapunov
solve_lyapunov solve_discrete_lyapunov``
=================================================  ==============================================================

The results equal SciPy's up to rounding (SciPy's specialised LAPACK drivers, Levinson
recursion and Schur-based algorithms compute the same functions); eigenvectors and singular
vectors are defined up to sign, which may differ from SciPy's where SciPy calls another
driver (banded and tridiagonal eigenproblems). ``dft hadamard helmert hilbert invhilbert
invpascal pascal`` are SciPy's constants, put on the default backend; ``bandwidth``,
``issymmetric`` and ``ishermitian`` are not differentiable; SciPy's BLAS/LAPACK helpers
and exceptions are SciPy's own. ``schur rsf2csf qz ordqz hessenberg ldl cossin qr_delete
qr_insert qr_update solve_continuous_are solve_discrete_are funm matrix_balance expm_cond
clarkson_woodruff_transform`` run SciPy's (CuPy's ``cupyx.scipy.linalg`` where it has them,
otherwise ``NotImplementedError`` naming the backend) and have no derivative in adcore:
given a traced argument they raise ``NotImplementedError`` naming the function.
"""

import builtins
import importlib

import numpy as _np

from backends import backend_of

from .. import numpy as anp
from ..core import getval, isbox, notrace_primitive
from ..numpy import creation, declare, dtypes, indexing, reductions, shapes
from ..numpy import fft as _fft
from ..numpy import linalg as _np_linalg
from ..numpy.arrays import _as_array_like, _from_host, _index_like
from ..numpy.linalg import _ct, _mm, _symmetric_from, _t
from ..numpy.numerics import _mode_slice
from ..numpy.passthrough import _on_default_backend, host_values, unboxed, without_derivative
from ..numpy.selection import take
from .linalg_primitives import (
    _banded_to_dense,
    _dense_to_banded,
    _permutation_matrix,
    _unit_lower,
    cholesky,
    eigh,
    expm,
    logm,
    lu_factor,
    solve_sylvester,
    solve_triangular,
    sqrtm,
)


def _scipy_linalg():
    return importlib.import_module("scipy.linalg")  # imported on first use: import adcore does not import SciPy


def _array(x, like=None):
    """``x`` as an array (of ``like``'s backend if ``like`` is one)."""
    if isbox(x) or hasattr(x, "shape"):
        return x
    return _as_array_like(x, like) if like is not None and (isbox(like) or hasattr(like, "shape")) else shapes.array(x)


def _zeros(like, shape):
    raw = getval(like)
    backend = backend_of(raw, op="zeros")
    return backend.zeros(shape, dtype=raw.dtype, device=backend.device(raw))


def _eps(x):
    raw = getval(x)
    backend = backend_of(raw, op="eps")
    return float(backend.finfo(anp.real(raw).dtype if declare.iscomplexobj(raw) else raw.dtype).eps)


# ---- special matrices (linear in their arguments) ----


def block_diag(*arrs):
    """The block-diagonal matrix of the arrays (0-d and 1-d ones are rows), zeros elsewhere."""
    if not arrs:
        return creation.zeros((1, 0))
    blocks = [anp.atleast_2d(_array(a, arrs[0])) for a in arrs]
    like = next((b for b in blocks if isbox(b)), blocks[0])
    dtype = anp.result_type(*[getval(b) for b in blocks])
    widths = [anp.shape(b)[1] for b in blocks]
    total = builtins.sum(widths)
    rows = []
    for i, block in enumerate(blocks):
        before, after = builtins.sum(widths[:i]), total - builtins.sum(widths[: i + 1])
        height = anp.shape(block)[0]
        pieces = [_zeros(like, (height, before)), anp.astype(block, dtype), _zeros(like, (height, after))]
        rows.append(shapes.concatenate([anp.astype(p, dtype) for p in pieces], axis=1))
    return shapes.concatenate(rows, axis=0)


def _gathered(values, positions):
    """``values[positions]`` for a NumPy integer array ``positions``: one differentiable gather."""
    return take(values, _index_like(positions, values))


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (default ``conj(c)``; ``r[0]`` is ignored)."""
    c = anp.ravel(_array(c, r))
    r = anp.conj(c) if r is None else anp.ravel(_array(r, c))
    m, n = anp.shape(c)[0], anp.shape(r)[0]
    values = shapes.concatenate([anp.flip(c, 0), r[1:]])
    return _gathered(values, m - 1 - _np.arange(m)[:, None] + _np.arange(n)[None, :])


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (default zeros; ``r[0]`` is ignored)."""
    c = anp.ravel(_array(c, r))
    r = dtypes.zeros_like(c) if r is None else anp.ravel(_array(r, c))
    m, n = anp.shape(c)[0], anp.shape(r)[0]
    values = shapes.concatenate([c, r[1:]])
    return _gathered(values, _np.arange(m)[:, None] + _np.arange(n)[None, :])


def circulant(c):
    """The circulant matrix with first column ``c`` (the last axis of ``c``, batched over the others)."""
    c = _array(c)
    n = anp.shape(c)[-1]
    positions = (_np.arange(n)[:, None] - _np.arange(n)[None, :]) % n
    return take(c, _index_like(positions, c), axis=-1)


def companion(a):
    """The companion matrix of the polynomial ``a`` (highest power first): first row ``-a[1:] / a[0]``,
    ones on the subdiagonal."""
    a = anp.ravel(_array(a))
    n = anp.shape(a)[0]
    if n < 2:
        raise ValueError("companion: the length of `a` must be at least 2.")
    first_row = shapes.reshape(anp.negative(a[1:]) / a[0], (1, n - 1))
    return shapes.concatenate([first_row, anp.astype(anp.eye_like(first_row)[: n - 2, :], getval(first_row).dtype)], axis=0)


def convolution_matrix(a, n, mode="full"):
    """The matrix ``A`` with ``A @ v == numpy.convolve(a, v, mode)`` for ``v`` of length ``n``."""
    a = anp.ravel(_array(a))
    m = anp.shape(a)[0]
    if n <= 0 or m == 0:
        raise ValueError("convolution_matrix: n must be positive and a not empty")
    values = shapes.concatenate([_zeros(a, (n - 1,)), a, _zeros(a, (n - 1,))])
    full = _gathered(values, n - 1 + _np.arange(m + n - 1)[:, None] - _np.arange(n)[None, :])
    return _mode_slice(full, m, n, mode, "convolution_matrix", (builtins.min(m, n) - 1) // 2)


def fiedler(a):
    """The symmetric Fiedler matrix ``abs(a[i] - a[j])``."""
    a = anp.ravel(_array(a))
    return anp.abs(anp.subtract(anp.expand_dims(a, 1), anp.expand_dims(a, 0)))


def fiedler_companion(a):
    """The Fiedler companion matrix of the polynomial ``a`` (highest power first, ``a[0] != 0``): a
    pentadiagonal matrix with the roots of ``a`` as eigenvalues, entries ``-a[k] / a[0]`` and ones."""
    a = anp.ravel(_array(a))
    n = anp.shape(a)[0]
    if n < 3:
        return shapes.reshape(anp.negative(a[1:]) / a[0], (1, 1)) if n == 2 else _zeros(a, (0, 0))
    b = anp.divide(a, a[0])
    places = [((0, 0), -1), ((1, 0), None)]  # (row, column), k for -b[k] (None for a one)
    places += [((r, c), None) for r, c in zip(range(3, n - 1, 2), range(1, n - 3, 2))]
    places += [((r, c), k) for (r, c), k in zip(zip(range(2, n - 1, 2), range(1, n - 2, 2)), range(3, n, 2))]
    places += [((r, c), None) for r, c in zip(range(0, n - 3, 2), range(2, n - 1, 2))]
    places += [((r, c), k) for (r, c), k in zip(zip(range(0, n - 2, 2), range(1, n - 1, 2)), range(2, n, 2))]
    places[0] = ((0, 0), 1)
    ones = dtypes.ones_like(b[:1])
    values = shapes.concatenate([anp.negative(b[k : k + 1]) if k is not None else ones for _, k in places])
    flat = _np.array([r * (n - 1) + c for (r, c), _ in places])
    return shapes.reshape(anp.untake(values, _index_like(flat, b), ((n - 1) ** 2,)), (n - 1, n - 1))


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` in the first row, survival ``s`` on the subdiagonal."""
    f, s = anp.ravel(_array(f, s)), anp.ravel(_array(s, f))
    n = anp.shape(f)[0]
    if anp.shape(s)[0] != n - 1:
        raise ValueError("leslie: Incorrect lengths for f and s. The length of s must be one less than the length of f.")
    dtype = anp.result_type(getval(f), getval(s))
    below = shapes.concatenate([anp.diag(anp.astype(s, dtype)), _zeros(anp.astype(s, dtype), (n - 1, 1))], axis=1)
    return shapes.concatenate([shapes.reshape(anp.astype(f, dtype), (1, n)), below], axis=0)


def khatri_rao(a, b):
    """The column-wise Kronecker product of ``a (m, k)`` and ``b (n, k)``: ``(m n, k)``."""
    a, b = _array(a, b), _array(b, a)
    if anp.ndim(a) != 2 or anp.ndim(b) != 2 or anp.shape(a)[1] != anp.shape(b)[1]:
        raise ValueError("khatri_rao: a and b must be 2-d with the same number of columns")
    product = anp.multiply(anp.expand_dims(a, 1), anp.expand_dims(b, 0))
    return shapes.reshape(product, (-1, anp.shape(a)[1]))


def diagsvd(s, M, N):
    """The ``M x N`` matrix with ``s`` on its diagonal (``len(s)`` is ``M`` or ``N``)."""
    s = anp.ravel(_array(s))
    k = anp.shape(s)[0]
    if k not in (M, N):
        raise ValueError("diagsvd: Length of s must be M or N.")
    return anp.pad(anp.diag(s), ((0, M - k), (0, N - k)))


def _scipy_constant(name):
    def raw(*args, **kwargs):
        return _on_default_backend(getattr(_scipy_linalg(), name)(*args, **kwargs))

    raw.__name__ = raw.__qualname__ = name
    raw.__doc__ = f"SciPy's ``scipy.linalg.{name}``, its array on the default backend."
    return notrace_primitive(raw)


dft, hadamard, helmert = _scipy_constant("dft"), _scipy_constant("hadamard"), _scipy_constant("helmert")
hilbert, invhilbert = _scipy_constant("hilbert"), _scipy_constant("invhilbert")
pascal, invpascal = _scipy_constant("pascal"), _scipy_constant("invpascal")


# ---- properties (not differentiable) ----


@notrace_primitive
def bandwidth(a):
    """``(lower, upper)``: the numbers of non-zero subdiagonals and superdiagonals of the 2-d ``a``."""
    backend = backend_of(a, op="bandwidth")
    rows, cols = backend.nonzero(a)
    if int(rows.shape[0]) == 0:
        return 0, 0
    offsets = cols - rows
    return builtins.max(int(host_values(backend.max(-offsets))), 0), builtins.max(int(host_values(backend.max(offsets))), 0)


def _symmetric_test(a, atol, rtol, transpose):
    backend = backend_of(a, op="issymmetric")
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("Input array should be a square array.")
    difference = backend.abs(a - transpose(a))
    if not atol and not rtol:
        return bool(host_values(backend.all(difference == 0)))
    return bool(host_values(backend.all(difference <= (atol or 0.0) + (rtol or 0.0) * backend.abs(a))))


@notrace_primitive
def issymmetric(a, atol=None, rtol=None):
    """Whether the square 2-d ``a`` equals its transpose (within ``atol + rtol * abs(a)``)."""
    return _symmetric_test(a, atol, rtol, lambda x: backend_of(x).matrix_transpose(x))


@notrace_primitive
def ishermitian(a, atol=None, rtol=None):
    """Whether the square 2-d ``a`` equals its conjugate transpose (within ``atol + rtol * abs(a)``)."""
    return _symmetric_test(a, atol, rtol, lambda x: backend_of(x).conj(backend_of(x).matrix_transpose(x)))


# ---- decompositions, in SciPy's conventions ----


def eig(a, b=None, left=False, right=True, overwrite_a=False, overwrite_b=False, check_finite=True, homogeneous_eigvals=False):
    """The eigenvalues and, with ``right``, the right eigenvectors (unit columns) of the square ``a``, in
    SciPy's dtypes: the eigenvalues are always complex; the eigenvectors are real when ``a`` is real and
    every eigenvalue is real (read on the values), complex otherwise,
    and always complex on Dask (whose values are unknown until computed).

    Raises
    ------
    NotImplementedError
        For the generalized problem (``b``) and left eigenvectors.
    """
    if b is not None or left:
        raise NotImplementedError("scipy.linalg.eig: b (the generalized problem) and left=True are not supported")
    w, v = _np_linalg.eig(a)
    if right and _np_linalg.NUMPY_EIG_ALWAYS_COMPLEX and not declare.iscomplexobj(a) and _np_linalg.known_real(w):
        v = anp.real(v)  # SciPy's real eigenvectors, where NumPy 2.5's eig is complex
    if not declare.iscomplexobj(w):
        w = anp.astype(w, "complex64" if str(getval(w).dtype).endswith("float32") else "complex128")
    w = anp.stack([w, dtypes.ones_like(w)]) if homogeneous_eigvals else w
    return (w, v) if right else w


def eigvals(a, b=None, overwrite_a=False, check_finite=True, homogeneous_eigvals=False):
    """The eigenvalues of the square ``a``, always complex (SciPy's ``eigvals``; see :func:`eig`)."""
    return eig(a, b, right=False, homogeneous_eigvals=homogeneous_eigvals)


def eigvalsh(a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1, check_finite=True, **subset):
    """The eigenvalues (ascending) of the symmetric ``a`` (``eigh(..., eigvals_only=True)``)."""
    return eigh(a, b, lower=lower, eigvals_only=True, type=type, **subset)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, lapack_driver="gesdd"):
    """``(u, s, vh)`` (or ``s`` alone without ``compute_uv``): ``adcore.numpy.linalg.svd``."""
    return _np_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def svdvals(a, overwrite_a=False, check_finite=True):
    """The singular values of ``a``, descending."""
    return _np_linalg.svd(a, compute_uv=False)


def norm(a, ord=None, axis=None, keepdims=False, check_finite=True):
    """``adcore.numpy.linalg.norm``."""
    return _np_linalg.norm(a, ord=ord, axis=axis, keepdims=keepdims)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """The QR factorization in SciPy's modes: ``"full"`` ``(q, r)`` with a square ``q``, ``"economic"``
    ``(q, r)`` reduced, ``"r"`` the tuple ``(r,)``; with ``pivoting`` also the column permutation ``p``
    (``a[:, p] = q r``, read off SciPy's pivoted factorization on the values, NumPy backend).

    Raises
    ------
    NotImplementedError
        For ``mode="raw"``, and ``pivoting`` outside NumPy.
    """
    modes = {"full": "complete", "economic": "reduced", "r": "r"}
    if mode not in modes:
        raise NotImplementedError(f"scipy.linalg.qr: mode={mode!r} is not supported; use 'full', 'economic' or 'r'")
    permutation = None
    if pivoting:
        permutation = _pivots(a)
        a = take(a, _index_like(permutation, a), axis=1)
    q, r = _np_linalg.qr(a, mode=modes["full" if mode == "r" else mode])
    result = (r,) if mode == "r" else (q, r)
    return result + (_index_like(permutation, a, "int32"),) if pivoting else result


def _pivots(a):
    raw = getval(a)
    if backend_of(raw, op="qr").name != "numpy":
        raise NotImplementedError("scipy.linalg.qr: pivoting=True runs on the numpy backend only (SciPy picks the pivots)")
    return _scipy_linalg().qr(raw, mode="r", pivoting=True)[1]


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False, overwrite_c=False):
    """``(c @ q, r)`` (``mode="right"``) or ``(q @ c, r)`` (``"left"``) with the economic QR of ``a``
    (``conjugate``: ``conj(q)``), and the pivots with ``pivoting``."""
    if mode not in ("left", "right"):
        raise ValueError(f"qr_multiply: mode must be 'left' or 'right', not {mode!r}")
    q, r, *pivots = qr(a, mode="economic", pivoting=pivoting)
    q = anp.conj(q) if conjugate else q
    c = _array(c, a)
    return (anp.matmul(q, c) if mode == "left" else anp.matmul(c, q), r, *pivots)


def rq(a, overwrite_a=False, lwork=None, mode="full", check_finite=True):
    """The RQ factorization ``a = r q`` (``mode`` ``"full"``, ``"economic"`` or ``"r"``), from the QR
    factorization of ``a`` reversed and transposed, as LAPACK's ``gerqf`` computes it."""
    if mode not in ("full", "economic", "r"):
        raise NotImplementedError(f"scipy.linalg.rq: mode={mode!r} is not supported; use 'full', 'economic' or 'r'")
    factors = qr(_reversed_t(a), mode=mode)
    return _reversed_t(factors[0]) if mode == "r" else (_reversed_t(factors[1]), _reversed_t(factors[0]))


def _reversed_t(x):
    """``J x.T J`` (``J`` the exchange matrices): QR of ``J a.T J`` gives RQ of ``a`` as ``J r.T J``, ``J q.T J``."""
    return anp.flip(_t(x), (-2, -1))


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """``(p, l, u)`` with ``a = p @ l @ u`` for the square ``a`` (``permute_l``: ``(p @ l, u)``;
    ``p_indices``: ``p`` as int32 row indices, as SciPy's), from ``lu_factor``.

    Raises
    ------
    NotImplementedError
        For a non-square ``a``, and on backends without an LU factorization (naming them).
    """
    if anp.shape(a)[-1] != anp.shape(a)[-2]:
        raise NotImplementedError("scipy.linalg.lu: only square matrices are supported")
    packed, piv = lu_factor(a)
    lower, upper = _unit_lower(packed), anp.triu(packed)
    p = _t(_permutation_matrix(getval(piv), getval(packed)))
    if permute_l:
        return _mm(p, lower), upper
    if p_indices:
        return anp.astype(reductions.argmax(p, axis=-1), "int32"), lower, upper
    return p, lower, upper


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None):
    """``(x, residues, rank, s)``: the least-squares solution with SciPy's conventions (residues a scalar for
    1-d ``b``, empty unless ``a`` has full column rank ``n < m``); singular values below ``cond`` times
    the largest are treated as zero."""
    m, n = anp.shape(a)
    x, residues, rank, s = _np_linalg.lstsq(a, b, rcond=cond if cond is not None else _eps(a))
    if anp.ndim(b) == 1 and anp.size(residues):
        residues = residues[0]
    return x, residues, rank, s


def pinv(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    """The pseudo-inverse, singular values at most ``atol + rtol * max(s)`` dropped (``rtol`` defaults to
    ``max(m, n) * eps`` when neither is given); with ``return_rank`` also the rank."""
    s = host_values(svdvals(a))
    largest = float(s.max()) if s.size else 0.0
    atol = 0.0 if atol is None else atol
    rtol = builtins.max(anp.shape(a)[-2:]) * _eps(a) if rtol is None and atol == 0.0 else rtol or 0.0
    cutoff = atol + largest * rtol
    result = _np_linalg.pinv(a, rtol=cutoff / largest if largest else 0.0)
    return (result, int((s > cutoff).sum())) if return_rank else result


def pinvh(a, atol=None, rtol=None, lower=True, return_rank=False, check_finite=True):
    """The pseudo-inverse of the symmetric (Hermitian) matrix read from the lower (``lower=True``) or
    upper triangle of ``a``, eigenvalues of magnitude at most ``atol + rtol * max|w|`` dropped (``rtol``
    defaults to ``n * eps`` when neither is given); with ``return_rank`` also the rank.

    Parameters
    ----------
    a : array, shape (n, n), real or complex
        Only one triangle is read (the real part of a complex diagonal).

    Returns
    -------
    array, shape (n, n), of ``a``'s dtype (and the rank, an int, with ``return_rank``).

    Notes
    -----
    Computed as ``adcore.numpy.linalg.pinv`` of that Hermitian matrix, whose singular values are the
    eigenvalues' magnitudes (so the cut is the same), and a complex matrix through its real embedding
    ``[[X, -Y], [Y, X]]``, whose pseudo-inverse embeds the complex one. The derivative is then
    ``pinv``'s (Golub and Pereyra 1973), which needs no eigenvectors: exact at repeated eigenvalues,
    and valid wherever the rank is locally constant (a function of ``eigh``'s vectors would be NaN
    at repeated eigenvalues, where its rule cannot know the answer).
    """
    h = _symmetric_from(a, lower)
    magnitudes = _np.abs(host_values(_np_linalg.eigvalsh(getval(h))))
    largest = float(magnitudes.max()) if magnitudes.size else 0.0
    rtol = anp.shape(a)[-1] * _eps(a) if rtol is None and not atol else rtol or 0.0
    cutoff = (atol or 0.0) + largest * rtol
    relative = cutoff / largest if largest else 0.0
    if declare.iscomplexobj(h):
        x, y = anp.real(h), anp.imag(h)
        embedded = shapes.concatenate(
            [shapes.concatenate([x, anp.negative(y)], axis=1), shapes.concatenate([y, x], axis=1)], axis=0
        )
        n = anp.shape(h)[-1]
        inverse = _np_linalg.pinv(embedded, rtol=relative)
        result = anp.add(inverse[:n, :n], anp.multiply(inverse[n:, :n], 1j))
    else:
        result = _np_linalg.pinv(h, rtol=relative)
    return (result, int((magnitudes > cutoff).sum())) if return_rank else result


def polar(a, side="right"):
    """``(u, p)``: ``a = u p`` (``side="right"``) or ``a = p u`` (``"left"``), ``u`` unitary, ``p``
    positive semi-definite, from the SVD."""
    if side not in ("right", "left"):
        raise ValueError("polar: `side` must be either 'right' or 'left'")
    w, s, vh = _np_linalg.svd(a, full_matrices=False)
    u = _mm(w, vh)
    p = _mm(anp.multiply(_ct(vh), s), vh) if side == "right" else _mm(anp.multiply(w, s), _ct(w))
    return u, p


def _rank_cut(s, rcond, a):
    values = host_values(s)
    if rcond is None:
        rcond = _eps(a) * builtins.max(anp.shape(a))
    return int((values > (values.max() if values.size else 0.0) * rcond).sum())


def null_space(A, rcond=None, *, overwrite_a=False, check_finite=True, lapack_driver="gesdd"):
    """An orthonormal basis of the null space of ``A`` (the right singular vectors of the zero singular values)."""
    u, s, vh = _np_linalg.svd(A, full_matrices=True)
    return _ct(vh[_rank_cut(s, rcond, A) :, :])


def orth(A, rcond=None):
    """An orthonormal basis of the range of ``A`` (the left singular vectors of the non-zero singular values)."""
    u, s, vh = _np_linalg.svd(A, full_matrices=False)
    return u[:, : _rank_cut(s, rcond, A)]


def orthogonal_procrustes(A, B, check_finite=True):
    """``(r, scale)``: the orthogonal ``r`` minimising ``||A r - B||`` and the sum of the singular values
    of ``A^H B``."""
    if anp.ndim(A) != 2 or anp.shape(A) != anp.shape(B):
        raise ValueError(f"orthogonal_procrustes: A and B must be 2-d of the same shape, got {anp.shape(A)} and {anp.shape(B)}")
    u, w, vt = _np_linalg.svd(_t(_mm(_t(B), anp.conj(A))))
    return _mm(u, vt), reductions.sum(w)


def subspace_angles(A, B):
    """The principal angles between the column spaces of ``A`` and ``B``, descending (Knyazev and
    Argentati's method, as SciPy's)."""
    qa, qb = orth(A), orth(B)
    qa_h_qb = _mm(_ct(qa), qb)
    sigma = svdvals(qa_h_qb)
    if anp.shape(qa)[1] >= anp.shape(qb)[1]:
        rest = anp.subtract(qb, _mm(qa, qa_h_qb))
    else:
        rest = anp.subtract(qa, _mm(qb, _ct(qa_h_qb)))
    small = anp.arcsin(indexing.clip(svdvals(rest), -1.0, 1.0))
    large = anp.arccos(indexing.clip(anp.flip(sigma, 0), -1.0, 1.0))
    return anp.where(anp.multiply(sigma, sigma) >= 0.5, small, large)


def cdf2rdf(w, v):
    """The real block-diagonal form ``(wr, vr)`` of a complex eigendecomposition whose complex eigenvalues
    come in adjacent conjugate pairs ``(j, k)``, as SciPy's: ``wr`` has ``re(w)`` on its diagonal and
    ``im(w[j])``, ``im(w[k])`` at ``(j, k)``, ``(k, j)``; ``vr = re(v u)`` with ``u`` the identity but for
    ``u[j, j] = 1j/2, u[j, k] = 1/2, u[k, j] = -1j/2, u[k, k] = 1/2``."""
    values = host_values(w)
    if values.ndim != 1:
        raise NotImplementedError("cdf2rdf: only a single eigendecomposition (1-d w) is supported")
    n = values.shape[0]
    complex_positions = _np.flatnonzero(values.imag != 0)
    pairs = list(zip(complex_positions[0::2], complex_positions[1::2]))
    corner = _np.zeros((n, n), dtype=int)
    mixing = _np.eye(n, dtype=complex)
    for j, k in pairs:
        corner[j, k], corner[k, j] = 1, 1
        mixing[j, j], mixing[j, k], mixing[k, j], mixing[k, k] = 0.5j, 0.5, -0.5j, 0.5
    imag_rows = anp.multiply(anp.expand_dims(anp.imag(w), 1), _from_host(corner, anp.imag(w), getval(anp.real(w)).dtype))
    wr = anp.add(anp.diag(anp.real(w)), imag_rows)
    return wr, anp.real(anp.matmul(v, _from_host(mixing, v, getval(v).dtype)))


# ---- matrix functions ----


def _maybe_real(a, result):
    """``result``'s real part when ``a`` is real (SciPy's ``_maybe_real``: the imaginary part is rounding)."""
    return anp.real(result) if not declare.iscomplexobj(a) and declare.iscomplexobj(result) else result


def cosm(A):
    """The matrix cosine ``(expm(iA) + expm(-iA)) / 2``."""
    if declare.iscomplexobj(A):
        return anp.multiply(anp.add(expm(anp.multiply(A, 1j)), expm(anp.multiply(A, -1j))), 0.5)
    return anp.real(expm(anp.multiply(A, 1j)))


def sinm(A):
    """The matrix sine ``(expm(iA) - expm(-iA)) / 2i``."""
    if declare.iscomplexobj(A):
        return anp.multiply(anp.subtract(expm(anp.multiply(A, 1j)), expm(anp.multiply(A, -1j))), -0.5j)
    return anp.imag(expm(anp.multiply(A, 1j)))


def tanm(A):
    """The matrix tangent ``cosm(A)^-1 sinm(A)``."""
    return _maybe_real(A, _np_linalg.solve(cosm(A), sinm(A)))


def coshm(A):
    """The hyperbolic matrix cosine ``(expm(A) + expm(-A)) / 2``."""
    return _maybe_real(A, anp.multiply(anp.add(expm(A), expm(anp.negative(A))), 0.5))


def sinhm(A):
    """The hyperbolic matrix sine ``(expm(A) - expm(-A)) / 2``."""
    return _maybe_real(A, anp.multiply(anp.subtract(expm(A), expm(anp.negative(A))), 0.5))


def tanhm(A):
    """The hyperbolic matrix tangent ``coshm(A)^-1 sinhm(A)``."""
    return _maybe_real(A, _np_linalg.solve(coshm(A), sinhm(A)))


def signm(A, disp=None):
    """The matrix sign function ``A (A^2)^(-1/2)`` (``A`` with no eigenvalue on the imaginary axis)."""
    return _maybe_real(A, _mm(A, _np_linalg.inv(sqrtm(_mm(A, A)))))


def fractional_matrix_power(A, t):
    """``A ** t``: ``matrix_power`` for an integer ``t``, else ``expm(t logm(A))`` (principal branch)."""
    if float(t).is_integer():
        return _np_linalg.matrix_power(A, int(t))
    return _maybe_real(A, expm(anp.multiply(logm(A), t)))


def expm_frechet(A, E, method=None, compute_expm=True, check_finite=True):
    """``(expm(A), L)`` (or ``L`` alone) with ``L`` the Frechet derivative of ``expm`` at ``A`` in the
    direction ``E``: the top-right block of ``expm([[A, E], [0, A]])`` (Higham 2008, theorem 3.6)."""
    E = _array(E, A)
    n = anp.shape(A)[-1]
    zeros = _zeros(A, (n, n))
    top = shapes.concatenate([A, E], axis=-1)
    block = expm(shapes.concatenate([top, shapes.concatenate([zeros, A], axis=-1)], axis=-2))
    frechet = block[..., :n, n:]
    return (block[..., :n, :n], frechet) if compute_expm else frechet


# ---- structured problems through their dense or FFT form ----


def _toeplitz_parts(c_or_cr):
    if isinstance(c_or_cr, tuple):
        return c_or_cr
    return c_or_cr, None


def solve_toeplitz(c_or_cr, b, check_finite=True):
    """The solution of ``toeplitz(c, r) x = b`` (``c_or_cr`` is ``c`` or ``(c, r)``), by a dense solve."""
    c, r = _toeplitz_parts(c_or_cr)
    return _np_linalg.solve(toeplitz(c, r), _array(b, c))


def matmul_toeplitz(c_or_cr, x, check_finite=False, workers=None):
    """``toeplitz(c, r) @ x``."""
    c, r = _toeplitz_parts(c_or_cr)
    return anp.matmul(toeplitz(c, r), _array(x, c))


def solve_circulant(c, b, singular="raise", tol=None, caxis=-1, baxis=0, outaxis=0):
    """The solution of ``circulant(c) x = b`` for a 1-d ``c``: ``ifft(fft(b) / fft(c))`` along ``baxis``
    of ``b`` (real for real ``c`` and ``b``), placed along ``outaxis``.

    Raises
    ------
    numpy.linalg.LinAlgError
        If ``circulant(c)`` is singular and ``singular="raise"``.
    NotImplementedError
        For a batch of ``c`` (more than one dimension) and ``singular="lstsq"``.
    """
    c = _array(c, b)
    b = _array(b, c)
    if anp.ndim(c) != 1:
        raise NotImplementedError("solve_circulant: only a 1-d c is supported")
    if singular != "raise":
        raise NotImplementedError("solve_circulant: only singular='raise' is supported")
    spectrum = _fft.fft(c)
    magnitudes = _np.abs(host_values(spectrum))
    tol = anp.shape(c)[0] * _eps(c) * float(magnitudes.max()) if tol is None else tol
    if (magnitudes <= tol).any():
        raise _np.linalg.LinAlgError("near singular circulant matrix.")
    b_moved = anp.moveaxis(b, baxis, -1)
    x = _fft.ifft(anp.divide(_fft.fft(b_moved), spectrum))
    if not (declare.iscomplexobj(c) or declare.iscomplexobj(b)):
        x = anp.real(x)
    return anp.moveaxis(x, -1, outaxis)


def _symmetric_band(ab, lower):
    """The dense symmetric (Hermitian) matrix whose upper (``lower=False``) or lower band storage is ``ab``."""
    bands = anp.shape(ab)[-2] - 1
    triangle = _banded_to_dense(ab, bands, 0) if lower else _banded_to_dense(ab, 0, bands)
    return anp.add(triangle, _ct(anp.subtract(triangle, anp.diag(indexing.diagonal(triangle)))))


def solveh_banded(ab, b, overwrite_ab=False, overwrite_b=False, lower=False, check_finite=True):
    """The solution of ``a x = b`` for the positive-definite ``a`` in upper (or ``lower``) band storage ``ab``."""
    return _np_linalg.solve(_symmetric_band(ab, lower), _array(b, ab))


def cholesky_banded(ab, overwrite_ab=False, lower=False, check_finite=True):
    """The Cholesky factor of the positive-definite ``a`` given in band storage, in the same band storage."""
    bands = anp.shape(ab)[-2] - 1
    factor = cholesky(_symmetric_band(ab, lower), lower=lower)
    return _dense_to_banded(factor, bands, 0) if lower else _dense_to_banded(factor, 0, bands)


def cho_solve_banded(cb_and_lower, b, overwrite_b=False, check_finite=True):
    """The solution of ``a x = b`` from the banded Cholesky factor ``(cb, lower)`` of ``cholesky_banded``."""
    cb, lower = cb_and_lower
    bands = anp.shape(cb)[-2] - 1
    factor = _banded_to_dense(cb, bands, 0) if lower else _banded_to_dense(cb, 0, bands)
    b = _array(b, cb)
    if lower:
        return solve_triangular(factor, solve_triangular(factor, b, lower=True), trans="C", lower=True)
    return solve_triangular(factor, solve_triangular(factor, b, trans="C"))


def _select_all(select, name):
    if select != "a":
        raise NotImplementedError(f"{name}: only select='a' is supported; select from the full result")


def eig_banded(
    a_band, lower=False, eigvals_only=False, overwrite_a_band=False, select="a", select_range=None, max_ev=0, check_finite=True
):
    """Eigenvalues (and eigenvectors) of the symmetric ``a`` in band storage, from its dense form."""
    _select_all(select, "eig_banded")
    return eigh(_symmetric_band(a_band, lower), eigvals_only=eigvals_only)


def eigvals_banded(a_band, lower=False, overwrite_a_band=False, select="a", select_range=None, check_finite=True):
    """Eigenvalues of the symmetric ``a`` in band storage."""
    return eig_banded(a_band, lower=lower, eigvals_only=True, select=select)


def _tridiagonal(d, e):
    d = _array(d, e)
    e = _array(e, d)
    return anp.add(anp.diag(d), anp.add(anp.diag(e, -1), anp.diag(anp.conj(e), 1)))


def eigh_tridiagonal(d, e, eigvals_only=False, select="a", select_range=None, check_finite=True, tol=0.0, lapack_driver="auto"):
    """Eigenvalues (and eigenvectors) of the symmetric tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``."""
    _select_all(select, "eigh_tridiagonal")
    return eigh(_tridiagonal(d, e), eigvals_only=eigvals_only)


def eigvalsh_tridiagonal(d, e, select="a", select_range=None, check_finite=True, tol=0.0, lapack_driver="auto"):
    """Eigenvalues of the symmetric tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``."""
    return eigh_tridiagonal(d, e, eigvals_only=True, select=select)


def solve_continuous_lyapunov(a, q):
    """The ``x`` with ``a x + x a^H = q``: ``solve_sylvester(a, a^H, q)``."""
    return solve_sylvester(a, _ct(a), q)


solve_lyapunov = solve_continuous_lyapunov


def solve_discrete_lyapunov(a, q, method=None):
    """The ``x`` with ``a x a^H - x + q = 0``, from its Kronecker form ``(I - kron(a, conj(a))) vec(x) = vec(q)``."""
    n = anp.shape(a)[-1]
    kron = shapes.reshape(anp.multiply(a[:, None, :, None], anp.conj(a)[None, :, None, :]), (n * n, n * n))
    system = anp.subtract(anp.astype(anp.eye_like(kron), getval(kron).dtype), kron)
    return shapes.reshape(_np_linalg.solve(system, anp.ravel(_array(q, a))), (n, n))


# ---- SciPy's own, without a derivative in adcore ----

LinAlgError = _np.linalg.LinAlgError


#: SciPy's warning class and BLAS/LAPACK helpers, given as they are (``adcore.scipy.linalg``'s ``__getattr__``
#: imports SciPy for them on first use)
SCIPY_OWN = ("LinAlgWarning", "find_best_blas_type", "get_blas_funcs", "get_lapack_funcs", "test")


def kron(a, b):
    """SciPy's ``kron`` (removed in SciPy 1.17; autograd offers it beside older SciPy): the Kronecker product
    of two matrices, ``adcore.numpy.kron(a, b)``, an array of shape ``(a.shape[0] * b.shape[0],
    a.shape[1] * b.shape[1])``; bilinear, so its derivatives are ``kron``'s."""
    return anp.kron(a, b)


def scipy_own(name):
    if name in SCIPY_OWN:
        return getattr(_scipy_linalg(), name)
    raise AttributeError(f"module 'adcore.scipy.linalg' has no attribute {name!r}")


def _on_backend_scipy(name):
    def raw(*args, **kwargs):
        values = [getval(a) for a in (*args, *kwargs.values()) if hasattr(getval(a), "shape")]
        backend = backend_of(*values, op=f"scipy.linalg.{name}")
        return getattr(backend.scipy_module("linalg"), name)(*unboxed(args), **unboxed(kwargs))

    raw.__name__ = raw.__qualname__ = name
    raw.__doc__ = f"SciPy's ``scipy.linalg.{name}`` (CuPy's on CuPy arrays); adcore has no derivative for it."
    return raw


_WHY = {
    "schur": "a Schur form is not unique and its derivative needs a Sylvester equation per block",
    "rsf2csf": "it rotates a Schur form, whose derivative adcore does not define",
    "qz": "a generalized Schur form is not unique",
    "ordqz": "a reordered generalized Schur form is not unique",
    "hessenberg": "the Householder reduction's derivative is not implemented",
    "ldl": "the pivoted LDL factorization's derivative is not implemented",
    "cossin": "the CS decomposition's derivative is not implemented",
    "qr_delete": "QR updates are not differentiated (differentiate qr of the updated matrix)",
    "qr_insert": "QR updates are not differentiated (differentiate qr of the updated matrix)",
    "qr_update": "QR updates are not differentiated (differentiate qr of the updated matrix)",
    "solve_continuous_are": "a Riccati equation's derivative (a Lyapunov equation) is not implemented",
    "solve_discrete_are": "a Riccati equation's derivative (a Lyapunov equation) is not implemented",
    "funm": "the derivative of an arbitrary matrix function is not implemented",
    "matrix_balance": "the balancing's scaling is piecewise constant and its derivative not implemented",
    "expm_cond": "the condition number's derivative is not implemented",
    "clarkson_woodruff_transform": "the random sketch is not differentiated",
}
globals().update({name: without_derivative(_on_backend_scipy(name), f"scipy.linalg.{name}", why) for name, why in _WHY.items()})


__all__ = [
    "LinAlgError",
    "bandwidth",
    "block_diag",
    "cdf2rdf",
    "cho_solve_banded",
    "cholesky_banded",
    "circulant",
    "companion",
    "convolution_matrix",
    "coshm",
    "cosm",
    "dft",
    "diagsvd",
    "eig",
    "eig_banded",
    "eigh_tridiagonal",
    "eigvals",
    "eigvals_banded",
    "eigvalsh",
    "eigvalsh_tridiagonal",
    "expm_frechet",
    "fiedler",
    "fiedler_companion",
    "fractional_matrix_power",
    "hadamard",
    "hankel",
    "helmert",
    "hilbert",
    "invhilbert",
    "invpascal",
    "ishermitian",
    "issymmetric",
    "khatri_rao",
    "kron",
    "leslie",
    "lstsq",
    "lu",
    "matmul_toeplitz",
    "norm",
    "null_space",
    "orth",
    "orthogonal_procrustes",
    "pascal",
    "pinv",
    "pinvh",
    "polar",
    "qr",
    "qr_multiply",
    "rq",
    "signm",
    "sinhm",
    "sinm",
    "solve_circulant",
    "solve_continuous_lyapunov",
    "solve_discrete_lyapunov",
    "solve_lyapunov",
    "solve_toeplitz",
    "solveh_banded",
    "subspace_angles",
    "svd",
    "svdvals",
    "tanhm",
    "tanm",
    "toeplitz",
    *_WHY,
]
