"""The differentiable ``adcore.numpy.linalg`` namespace: NumPy's ``numpy.linalg`` names and signatures.

Each function runs on the backend of its array arguments through the Array
API's ``linalg`` extension (``backend.linalg.inv`` and so on; NumPy 2's
``numpy.linalg`` has the same names), and is either a primitive, with its VJP
and JVP written right below it, or a composition of adcore primitives
(``matrix_power``, ``lstsq`` and the norms), whose derivatives come for free.
The rules use only ``adcore.numpy`` functions, so they are traced in turn:
Hessians (reverse-over-reverse or forward-over-reverse) work through every
function here, on every backend.

Conventions
-----------
- Stacks of matrices ``(..., m, n)`` are supported wherever NumPy supports
  them (``lstsq`` is 2-d only, as in NumPy).
- Functions with several outputs return NumPy 2's named tuples, traced or not
  (``eigh(a).eigenvalues``, ``slogdet(a).logabsdet``, ``svd(a).S``, ``qr(a).R``,
  ``eig(a).eigenvectors``), which unpack as tuples; their tangents are named tuples
  of the same type, and a plain tuple is taken as their cotangent. ``lstsq``
  returns a plain tuple, as NumPy does.
- ``eigh``, ``eigvalsh`` and ``cholesky`` read one triangle of ``a`` (the
  lower one unless ``UPLO="U"``), as NumPy does; the raw functions make that
  explicit (they factor the symmetric matrix built from that triangle) so every
  backend computes the same function, and the derivatives are those of that
  function (autograd's convention for ``eigh``). For a symmetric
  parametrisation ``a = f(theta)`` the derivative with respect to ``theta`` is
  the same under any convention.
- Derivatives are for real inputs (complex ones raise ``NotImplementedError``
  when differentiated), except ``inv``, ``solve``, ``det``, ``matrix_power``
  and ``eig``, whose rules are holomorphic (autograd's complex convention), the
  Hermitian factorizations ``cholesky``, ``eigh``, ``eigvalsh`` and ``svd``, and
  the norms, which take complex arrays. ``eig`` and ``eigvals`` return real arrays for real input
  when every eigenvalue is real, as NumPy's before 2.5, except on Dask (always complex: the values are
  unknown); with NumPy 2.5 and later, complex arrays, as NumPy's.
- Eigenvalues (``eigh``, ``eig``) and singular values (``svd``) must be
  distinct for the eigenvector and singular-vector derivatives to exist; at
  repeated values they are infinite or NaN, as in every AD system.

References: M. Giles, "An extended collection of matrix derivative results for
forward and reverse mode algorithmic differentiation" (2008); I. Murray,
"Differentiation of the Cholesky decomposition" (2016); J. Townsend,
"Differentiating the singular value decomposition" (2016); M. Seeger et al.,
"Auto-differentiating linear algebra" (2017); H.-J. Liao et al.,
"Differentiable programming tensor networks" (2019) for wide QR; S. Walter and
L. Lehmann, "Algorithmic differentiation of linear algebra functions with
application in optimum experimental design" (2010) for QR; G. Golub and
V. Pereyra (1973) for the pseudo-inverse; and the reference implementations in
autograd (``autograd/numpy/linalg.py``) and JAX (``jax/_src/lax/linalg.py``).
"""

import builtins
import math
import numbers
import operator
from collections import namedtuple

import numpy as _np

from backends import array_backend, backend_of

from ..core import defjvp, defvjp, getval, isbox, notrace_primitive, primitive
from ..core.ops import def_signature_only
from . import declare, dtypes, elementwise, indexing, products, reductions, shapes
from .declare import broadcast, metadata, unbroadcast

__all__ = [
    "cholesky",
    "det",
    "eig",
    "eigh",
    "eigvalsh",
    "inv",
    "lstsq",
    "matrix_norm",
    "matrix_power",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "vector_norm",
]


#: NumPy 2's named results (``numpy.linalg._linalg``), also the Array API's.
EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


# ---- helpers: the backend's function, and matrix algebra with adcore functions ----


def _linalg_fun(name, *arrays):
    """The backend's ``linalg.<name>`` for ``arrays``.

    Raises
    ------
    NotImplementedError
        Naming the backend, if its library has no such function.
    """
    backend = backend_of(*arrays, op=f"linalg.{name}")
    try:
        return getattr(backend.linalg, name)
    except AttributeError:
        raise NotImplementedError(f"linalg.{name}: the {backend.name} backend has no function linalg.{name}") from None


def _t(x):
    """``x`` with its last two axes swapped."""
    return shapes.matrix_transpose(x)


def _mm(*factors):
    """The matrix product of ``factors``, left to right (raw and traced factors mix safely)."""
    result = factors[0]
    for factor in factors[1:]:
        result = products.matmul(result, factor)
    return result


def _diag(v):
    """The stack of diagonal matrices with ``v`` (``(..., n)``) on the diagonal: ``(..., n, n)``."""
    return elementwise.multiply(shapes.expand_dims(v, -1), indexing.eye_like(v))


def _diagonal(x):
    return indexing.diagonal(x, 0, -2, -1)


def _scale_columns(x, v):
    """``x @ diag(v)``: column ``j`` of ``x`` times ``v[..., j]``."""
    return elementwise.multiply(x, shapes.expand_dims(v, -2))


def _scale_rows(v, x):
    """``diag(v) @ x``: row ``i`` of ``x`` times ``v[..., i]``."""
    return elementwise.multiply(shapes.expand_dims(v, -1), x)


def _off_diagonal_mask(x):
    """Where ``i != j`` over the last two axes of ``x``'s square matrices (a raw boolean array)."""
    return indexing.eye_like(x) == 0.0


def _divided_by_gaps(w, x):
    """``x[..., i, j] / (w[j] - w[i])`` off the diagonal, 0 on it; where-safe, so nothing divides by zero,
    also in derivatives.

    At a degenerate pair (``|w[j] - w[i]| <= sqrt(eps) * max|w|``, ``eps`` that of ``w``'s dtype)
    the quotient is 0 where ``x[..., i, j]`` is 0 and NaN elsewhere, as PyTorch's eigenvector
    derivatives. ``x`` is 0 there when the function differentiated does not use the vectors (the
    values' derivatives, e.g. of ``w[0] + w[1]`` for ``w[0] == w[1]``, stay exact); a function of the
    vectors, even one invariant to the choice of basis of the degenerate space
    (``v @ diag(f(w)) @ v.T``), gets NaN rather than a finite wrong number: the rule cannot see
    the divided difference ``(f(w[j]) - f(w[i])) / (w[j] - w[i])`` that its exact derivative needs
    (differentiate such functions as matrix functions: ``expm``, ``logm``, ``sqrtm``, ``pinv``).
    Above the threshold the rounding of the computed gaps costs at most about ``sqrt(eps)`` relative.
    """
    gaps = elementwise.subtract(shapes.expand_dims(w, -2), shapes.expand_dims(w, -1))
    scale = shapes.expand_dims(reductions.max(elementwise.abs(w), axis=-1, keepdims=True), -1)
    degenerate = elementwise.logical_and(
        _off_diagonal_mask(gaps), elementwise.abs(gaps) <= elementwise.multiply(scale, _eps(getval(w)) ** 0.5)
    )
    off = elementwise.logical_and(_off_diagonal_mask(gaps), elementwise.logical_not(degenerate))
    quotient = indexing.where(off, elementwise.divide(x, indexing.where(off, gaps, 1.0)), 0.0)
    return indexing.where(elementwise.logical_and(degenerate, x != 0.0), dtypes.nan, quotient)


def _solve_right(x, r):
    """``x @ inv(r)`` for square ``r``."""
    return _t(solve(_t(r), _t(x)))


def _symmetric_from(x, lower):
    """The symmetric (Hermitian, for complex ``x``) matrix built from the lower (or upper) triangle
    of ``x``: what a LAPACK routine reading one triangle sees (of a complex diagonal it reads the
    real part). Real-linear in ``x``."""
    strict = indexing.tril(x, -1) if lower else indexing.triu(x, 1)
    if declare.iscomplexobj(x):
        return elementwise.add(elementwise.add(strict, _ct(strict)), _diag(elementwise.real(_diagonal(x))))
    return elementwise.add(indexing.tril(x) if lower else indexing.triu(x), _t(strict))


def _symmetric_from_adjoint(g, lower):
    """The adjoint of ``_symmetric_from`` for the real inner product ``Re(sum(conj(x) * y))``: a
    cotangent of the symmetric matrix taken back to the triangle it was built from (the real part
    of the diagonal once, the off-diagonal pairs summed). It commutes with ``conj``, so it serves
    autograd's complex convention unchanged."""
    strict = indexing.tril(elementwise.add(g, _ct(g)), -1) if lower else indexing.triu(elementwise.add(g, _ct(g)), 1)
    diagonal = elementwise.real(_diagonal(g)) if declare.iscomplexobj(g) else _diagonal(g)
    return elementwise.add(strict, _diag(diagonal))


def _conj(x):
    """``conj(x)``, skipped for real ``x``.

    The rules of the Hermitian factorizations below are written as the adjoint of their JVP for the
    real inner product ``Re(sum(conj(x) * y))``; in autograd's convention (the gradient of a real
    function of ``z = x + iy`` is ``df/dx - i df/dy``) a VJP is that adjoint between conjugates:
    ``vjp(g) = conj(adjoint(conj(g)))``. For real arrays both conjugates vanish.
    """
    return elementwise.conj(x) if declare.iscomplexobj(x) else x


def _real(x):
    """The real part of ``x`` (values such as eigenvalues that are real but computed in complex arithmetic)."""
    return elementwise.real(x) if declare.iscomplexobj(x) else x


def _ct(x):
    """The conjugate transpose of each matrix of ``x`` (the transpose for real ``x``)."""
    return elementwise.conj(_t(x)) if declare.iscomplexobj(x) else _t(x)


def _real_only(op, a):
    """Raise if ``a`` is complex: the rules of ``op`` are written for real input."""
    if declare.iscomplexobj(a):
        raise NotImplementedError(f"the derivative of linalg.{op} is implemented for real input only (got {getval(a).dtype})")


def _lower_uplo(UPLO):
    if UPLO not in ("L", "U", "l", "u"):
        raise ValueError(f"UPLO argument must be 'L' or 'U', got {UPLO!r}")
    return UPLO in ("L", "l")


def _square_matrix_shape(a, op):
    shape = shapes.shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"{op}: expected a stack of square matrices (..., n, n), got shape {shape}")
    return shape


# ---- inverse, determinants, linear systems ----


@primitive
def inv(a):
    """The inverse of each square matrix of ``a`` (``(..., n, n)``); same shape and dtype.

    Derivative (Giles 2008, 2.2.3): ``d inv(a) = -inv(a) da inv(a)``.

    >>> import adcore.numpy as np
    >>> np.linalg.inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
    array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """
    return _linalg_fun("inv", a)(a)


def grad_inv(ans, a):
    return lambda g: elementwise.negative(_mm(_t(ans), g, _t(ans)))


def jvp_inv(g, ans, a):
    return elementwise.negative(_mm(ans, g, ans))


defvjp(inv, grad_inv)
defjvp(inv, jvp_inv)


@primitive
def det(a):
    """The determinant of each square matrix of ``a``: shape ``a.shape[:-2]``.

    Derivative (Giles 2008, 2.2.4): ``d det(a) = sum(cofactor(a) * da)``, with the cofactor
    matrix (the transposed adjugate). For ``n <= 3`` it is an explicit polynomial in the
    entries, so the gradient (and every higher derivative) is exact and finite also at
    singular matrices; for ``n >= 4`` it is ``det(a) * inv(a).T``, which fails (NaN, inf,
    or NumPy's ``LinAlgError``) at exactly singular matrices.

    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> grad(np.linalg.det)(np.array([[1.0, 2.0], [2.0, 4.0]]))  # singular: the adjugate, transposed
    array([[ 4., -2.],
           [-2.,  1.]])
    """
    return _linalg_fun("det", a)(a)


def _cofactor(a, det_a):
    """The cofactor matrix of each square matrix of ``a`` (``det_a`` its determinant)."""
    n = shapes.shape(a)[-1]
    if n == 1:
        return dtypes.ones_like(a)
    if n == 2:

        def entry(i, j):
            return a[..., i, j]

        rows = [[entry(1, 1), elementwise.negative(entry(1, 0))], [elementwise.negative(entry(0, 1)), entry(0, 0)]]
        return shapes.stack([shapes.stack(row, axis=-1) for row in rows], axis=-2)
    if n == 3:
        r = [a[..., i, :] for i in range(3)]
        return shapes.stack([_cross3(r[1], r[2]), _cross3(r[2], r[0]), _cross3(r[0], r[1])], axis=-2)
    return elementwise.multiply(shapes.expand_dims(det_a, (-2, -1)), _t(inv(a)))


def _cross3(u, v):
    """The cross product of stacks of 3-vectors (the Array API has ``linalg.cross``, but
    this form is differentiable with the primitives at hand)."""
    u0, u1, u2 = u[..., 0], u[..., 1], u[..., 2]
    v0, v1, v2 = v[..., 0], v[..., 1], v[..., 2]
    return shapes.stack(
        [
            elementwise.subtract(elementwise.multiply(u1, v2), elementwise.multiply(u2, v1)),
            elementwise.subtract(elementwise.multiply(u2, v0), elementwise.multiply(u0, v2)),
            elementwise.subtract(elementwise.multiply(u0, v1), elementwise.multiply(u1, v0)),
        ],
        axis=-1,
    )


def grad_det(ans, a):
    return lambda g: elementwise.multiply(shapes.expand_dims(g, (-2, -1)), _cofactor(a, ans))


def jvp_det(g, ans, a):
    return reductions.sum(elementwise.multiply(_cofactor(a, ans), g), axis=(-2, -1))


defvjp(det, grad_det)
defjvp(det, jvp_det)


@primitive
def slogdet(a):
    """``SlogdetResult(sign, logabsdet)`` of each square matrix of ``a`` (real).

    Derivative (Giles 2008): ``d logabsdet = sum(inv(a).T * da)``; ``sign`` is piecewise
    constant (derivative 0).
    """
    sign, logabsdet = _linalg_fun("slogdet", a)(a)
    return SlogdetResult(sign, logabsdet)


def grad_slogdet(ans, a):
    _real_only("slogdet", a)
    return lambda g: elementwise.multiply(shapes.expand_dims(g[1], (-2, -1)), _t(inv(a)))


def jvp_slogdet(g, ans, a):
    _real_only("slogdet", a)
    sign = ans[0]
    return SlogdetResult(dtypes.zeros_like(sign), reductions.sum(elementwise.multiply(_t(inv(a)), g), axis=(-2, -1)))


defvjp(slogdet, grad_slogdet)
defjvp(slogdet, jvp_slogdet)


@primitive
def solve(a, b):
    """The solution ``x`` of ``a @ x = b``, for ``a`` of shape ``(..., m, m)``.

    As in NumPy 2 (and the Array API), ``b`` is a vector only when it is 1-d (shape
    ``(m,)``); otherwise it is a stack of matrices ``(..., m, k)``. Leading dimensions
    broadcast.

    Derivative (Giles 2008, 2.3.1): ``dx = solve(a, db - da @ x)``; cotangents
    ``b_bar = solve(a.T, x_bar)`` and ``a_bar = -b_bar @ x.T``.
    """
    return _linalg_fun("solve", a, b)(a, b)


def _solve_vector_or_matrix(a, b, vector):
    """``solve(a, b)`` treating ``b`` as a stack of vectors ``(..., m)`` when ``vector``, whatever its ndim."""
    if vector:
        return _drop_last(solve(a, shapes.expand_dims(b, -1)))
    return solve(a, b)


def _drop_last(x):
    """``x`` without its last axis (of size 1)."""
    return shapes.reshape(x, shapes.shape(x)[:-1])


def grad_solve_a(ans, a, b):
    meta, vector = metadata(a), shapes.ndim(b) == 1

    def vjp(g):
        g_b = _solve_vector_or_matrix(_t(a), g, vector)
        if vector:
            return unbroadcast(
                elementwise.negative(elementwise.multiply(shapes.expand_dims(g_b, -1), shapes.expand_dims(ans, -2))), meta
            )
        return unbroadcast(elementwise.negative(_mm(g_b, _t(ans))), meta)

    return vjp


def grad_solve_b(ans, a, b):
    meta, vector = metadata(b), shapes.ndim(b) == 1
    return lambda g: unbroadcast(_solve_vector_or_matrix(_t(a), g, vector), meta)


def jvp_solve_a(g, ans, a, b):
    if shapes.ndim(b) == 1:
        return broadcast(
            elementwise.negative(_solve_vector_or_matrix(a, _drop_last(_mm(g, shapes.expand_dims(ans, -1))), True)), ans
        )
    return broadcast(elementwise.negative(solve(a, _mm(g, ans))), ans)


def jvp_solve_b(g, ans, a, b):
    return broadcast(solve(a, g), ans)


defvjp(solve, grad_solve_a, grad_solve_b)
defjvp(solve, jvp_solve_a, jvp_solve_b)

_NO_VALUE = type("_NoValueType", (), {"__repr__": lambda self: "<no value>"})()


@primitive
def pinv(a, rcond=None, hermitian=False, *, rtol=_NO_VALUE):
    """The Moore-Penrose pseudo-inverse of each matrix of ``a`` (``(..., m, n)`` to ``(..., n, m)``).

    Singular values at most ``rtol * largest`` count as zero. As in NumPy 2: ``rcond`` is
    the old name of ``rtol``; with neither given the cutoff is ``1e-15``; ``rtol=None``
    means ``max(m, n) * eps``. ``hermitian`` is accepted for compatibility and ignored (the
    general algorithm gives the same result).

    Derivative (Golub and Pereyra 1973), valid where the rank is locally constant::

        dP = -P da P + P P.T da.T (I - a P) + (I - P a) da.T P.T P
    """
    if rcond is None:
        cutoff = 1e-15 if rtol is _NO_VALUE else rtol
    elif rtol is not _NO_VALUE:
        raise ValueError("pinv: `rtol` and `rcond` can't be both set")
    else:
        cutoff = rcond
    return _linalg_fun("pinv", a)(a, rtol=cutoff)


def _pinv_projectors(p, a):
    """``(I - a p, I - p a)``: the projectors onto the complements of ``a``'s range and row space."""
    m, n = shapes.shape(a)[-2:]
    return elementwise.subtract(indexing.eye_like(a, m), _mm(a, p)), elementwise.subtract(indexing.eye_like(a, n), _mm(p, a))


def grad_pinv(ans, a, rcond=None, hermitian=False, rtol=_NO_VALUE):
    _real_only("pinv", a)

    def vjp(g):
        p, pt, gt = ans, _t(ans), _t(g)
        range_complement, row_complement = _pinv_projectors(p, a)
        return elementwise.add(
            elementwise.add(elementwise.negative(_mm(pt, g, pt)), _mm(range_complement, gt, p, pt)),
            _mm(pt, p, gt, row_complement),
        )

    return vjp


def jvp_pinv(g, ans, a, rcond=None, hermitian=False, rtol=_NO_VALUE):
    _real_only("pinv", a)
    p, pt, gt = ans, _t(ans), _t(g)
    range_complement, row_complement = _pinv_projectors(p, a)
    return elementwise.add(
        elementwise.add(elementwise.negative(_mm(p, g, p)), _mm(p, pt, gt, range_complement)), _mm(row_complement, gt, pt, p)
    )


defvjp(pinv, grad_pinv)
defjvp(pinv, jvp_pinv)


@shapes.array_like("a")
def matrix_power(a, n):
    """``a`` (a stack of square matrices) raised to the integer power ``n``; ``n < 0`` inverts first.

    A composition of ``matmul`` (by repeated squaring) and ``inv``, so its derivatives are
    theirs. ``n = 0`` gives identity matrices, which do not depend on ``a``.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    """
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"matrix_power: exponent must be an integer, got {n!r}") from None
    shape = _square_matrix_shape(a, "matrix_power")
    if n == 0:
        return shapes._own_array(shapes.broadcast_to(indexing.eye_like(a), shape))
    if n < 0:
        a, n = inv(a), -n
    result = None
    while True:
        if n & 1:
            result = a if result is None else products.matmul(result, a)
        n >>= 1
        if not n:
            return result
        a = products.matmul(a, a)


def multi_dot(arrays):
    """``arrays[0] @ arrays[1] @ ...`` as NumPy's ``multi_dot`` (a 1-d first or last array is a
    row or column vector), left to right; a composition of ``dot``, so its derivatives are dot's."""
    if len(arrays) < 2:
        raise ValueError(f"multi_dot: needs at least two arrays, got {len(arrays)}")
    result = arrays[0]
    for array in arrays[1:]:
        result = products.dot(result, array)
    return result


@shapes.array_like("a", "b")
def lstsq(a, b, rcond=None):
    """The least-squares solution of ``a @ x = b``: ``(x, residuals, rank, s)``, a plain tuple.

    ``a`` is ``(m, n)`` and ``b`` is ``(m,)`` or ``(m, k)``, as in NumPy (no stacks).
    ``x = pinv(a) @ b`` (the minimum-norm solution); ``residuals`` is the squared norm of
    ``b - a @ x`` per column (shape ``(k,)``, or ``(1,)`` for 1-d ``b``) when ``a`` has full
    column rank ``n < m``, else empty; ``rank`` (a Python int, read on the host) is the number
    of singular values above ``rcond * largest`` (default ``max(m, n) * eps``); ``s`` are
    the singular values. Built from ``pinv``, ``matmul`` and ``svd``, so it is
    differentiable (in ``a`` where its rank is locally constant, and in ``b``).

    Raises
    ------
    ValueError
        If ``a`` is not 2-d or ``b`` not 1-d or 2-d.
    """
    if shapes.ndim(a) != 2 or shapes.ndim(b) not in (1, 2):
        raise ValueError(
            f"lstsq: a must be 2-d and b 1-d or 2-d (NumPy's rule), got shapes {shapes.shape(a)} and {shapes.shape(b)}"
        )
    m, n = shapes.shape(a)
    if rcond is None:
        rcond = builtins.max(m, n) * _eps(a)
    x = products.matmul(pinv(a, rtol=rcond), b)
    s = svd(a, compute_uv=False)
    rank = _rank(s, rcond)
    squared = reductions.sum(elementwise.square(elementwise.subtract(b, products.matmul(a, x))), axis=0)
    residuals = shapes.reshape(squared, (-1,))
    if not (rank == n and m > n):
        residuals = residuals[:0]
    return (x, residuals, rank, s)


@notrace_primitive
def _eps(x):
    backend = backend_of(x, op="lstsq")
    return float(backend.finfo(x.dtype).eps)


def_signature_only(_eps)


@notrace_primitive
def _rank(s, rcond):
    """The number of singular values ``s`` above ``rcond`` times the largest (read on the host)."""
    backend = backend_of(s, op="lstsq")
    if s.shape[-1] == 0:
        return 0
    count = backend.sum(backend.astype(s > rcond * backend.max(s), backend.dtype("int64")))
    return int(backend.to_numpy(count))


# ---- factorizations ----


@primitive
def cholesky(a, /, *, upper=False):
    """The Cholesky factor of each symmetric (Hermitian) positive-definite matrix of ``a``: lower
    triangular ``L`` with ``a = L @ L.T`` (``L @ L.conj().T``; ``upper=True``: that transpose).

    Reads the lower triangle of ``a`` only, as NumPy does; the derivative is that of this
    function (see the module notes).

    Derivative (Murray 2016): ``dL = L Phi(inv(L) dS inv(L).T)``, where ``dS`` is the
    symmetric tangent built from the lower triangle and ``Phi`` takes the lower triangle
    with the diagonal halved; the VJP is ``inv(L).T Phi(L.T L_bar) inv(L)`` taken back to
    the lower triangle. For complex input the transposes are conjugate transposes and the VJP
    is taken between conjugates (``_conj``).
    """
    l = _linalg_fun("cholesky", a)(_symmetric_from(a, lower=True))
    return _ct(l) if upper else l


def _phi(x):
    """The lower triangle of ``x`` with its diagonal halved (Murray's ``Phi``; self-adjoint)."""
    return elementwise.add(indexing.tril(x, -1), elementwise.multiply(0.5, elementwise.multiply(x, indexing.eye_like(x))))


def grad_cholesky(ans, a, upper=False):
    l = _ct(ans) if upper else ans

    def vjp(g):
        g_l = _conj(_ct(g) if upper else g)
        l_inv = inv(l)
        return _conj(_symmetric_from_adjoint(_mm(_ct(l_inv), _phi(_mm(_ct(l), g_l)), l_inv), lower=True))

    return vjp


def jvp_cholesky(g, ans, a, upper=False):
    l = _ct(ans) if upper else ans
    l_inv = inv(l)
    dl = _mm(l, _phi(_mm(l_inv, _symmetric_from(g, lower=True), _ct(l_inv))))
    return _ct(dl) if upper else dl


defvjp(cholesky, grad_cholesky)
defjvp(cholesky, jvp_cholesky)


@primitive
def eigh(a, UPLO="L"):
    """``EighResult(eigenvalues, eigenvectors)``: the eigenvalues ``w`` (ascending, real) and
    eigenvectors ``v`` (columns) of each real symmetric or complex Hermitian matrix of ``a``, read
    from its lower (``UPLO="L"``) or upper triangle.

    Derivative (Giles 2008, 3.1; Seeger et al. 2017), for distinct eigenvalues: with the
    symmetric tangent ``dS`` built from the triangle read and ``M = v.T dS v``,
    ``dw = diag(M)`` and ``dv = v (F * M)``, ``F[i, j] = 1 / (w[j] - w[i])`` off the
    diagonal. The VJP is ``v (diag(w_bar) + F * (v.T v_bar)) v.T``, taken back to the
    triangle. Eigenvectors are defined up to sign (a phase, for complex input; the derivative
    keeps ``v.conj().T dv`` off the diagonal): differentiate functions that do not depend on
    it (``v @ diag(f(w)) @ v.conj().T``, ``abs(v)``). For complex input the transposes are
    conjugate transposes and the VJP is taken between conjugates (``_conj``).

    Raises
    ------
    ValueError
        If ``UPLO`` is not ``"L"`` or ``"U"``.
    """
    w, v = _linalg_fun("eigh", a)(_symmetric_from(a, _lower_uplo(UPLO)))
    return EighResult(w, v)


def grad_eigh(ans, a, UPLO="L"):
    w, v = ans
    lower = _lower_uplo(UPLO)

    def vjp(g):
        g_w, g_v = g
        inner = elementwise.add(_diag(g_w), _divided_by_gaps(w, _mm(_ct(v), _conj(g_v))))
        return _conj(_symmetric_from_adjoint(_mm(v, inner, _ct(v)), lower))

    return vjp


def jvp_eigh(g, ans, a, UPLO="L"):
    w, v = ans
    m = _mm(_ct(v), _symmetric_from(g, _lower_uplo(UPLO)), v)
    return EighResult(_real(_diagonal(m)), _mm(v, _divided_by_gaps(w, m)))


defvjp(eigh, grad_eigh)
defjvp(eigh, jvp_eigh)


@primitive
def eigvalsh(a, UPLO="L"):
    """The eigenvalues (ascending, real) of each real symmetric or complex Hermitian matrix of
    ``a``, read from one triangle.

    Derivative: ``dw = diag(v.T dS v)`` with the eigenvectors ``v`` of ``eigh`` (computed
    when a derivative is asked for); VJP ``v diag(w_bar) v.T``, taken back to the triangle.
    """
    return _linalg_fun("eigvalsh", a)(_symmetric_from(a, _lower_uplo(UPLO)))


def grad_eigvalsh(ans, a, UPLO="L"):
    lower = _lower_uplo(UPLO)

    def vjp(g):
        v = eigh(a, UPLO)[1]
        return _conj(_symmetric_from_adjoint(_mm(_scale_columns(v, g), _ct(v)), lower))

    return vjp


def jvp_eigvalsh(g, ans, a, UPLO="L"):
    v = eigh(a, UPLO)[1]
    return _real(reductions.sum(elementwise.multiply(_conj(v), _mm(_symmetric_from(g, _lower_uplo(UPLO)), v)), axis=-2))


defvjp(eigvalsh, grad_eigvalsh)
defjvp(eigvalsh, jvp_eigvalsh)


@primitive
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """The singular value decomposition of each real or complex matrix of ``a`` (``(..., m, n)``, ``k = min(m, n)``).

    Returns ``SVDResult(U, S, Vh)``, ``(u, s, vh)`` with ``a = u[..., :k] * s @ vh[..., :k, :]``:
    ``u`` is ``(..., m, m)`` and ``vh`` ``(..., n, n)`` with ``full_matrices=True`` (NumPy's
    default), else ``(..., m, k)`` and ``(..., k, n)``; ``s`` (``(..., k)``, descending) alone
    when ``compute_uv=False``. ``hermitian`` is accepted for compatibility and ignored.

    Derivative (Townsend 2016; Seeger et al. 2017), for distinct non-zero singular values:
    with ``dP = u.T da v`` and ``F[i, j] = 1 / (s[j]**2 - s[i]**2)``::

        ds = diag(dP)
        du = u (F * (dP S + S dP.T)) + (I - u u.T) da v / s
        dv = v (F * (S dP + dP.T S)) + (I - v v.T) da.T u / s

    For complex input the transposes are conjugate transposes, ``ds`` is the real part of
    ``diag(dP)``, and the imaginary part of that diagonal, divided by ``s``, goes to
    ``u.conj().T du`` (the gauge JAX takes: the phases of ``u`` and ``v`` move together);
    the VJP is the adjoint taken between conjugates (``_conj``).

    Singular vectors are defined up to sign (a phase, for complex input): differentiate
    functions that do not depend on it. With ``full_matrices=True`` and ``m != n`` the extra columns of ``u`` (or ``v``) are
    any orthonormal completion; their derivative is taken in the gauge that only keeps them
    orthogonal to the first ``k`` (``du_perp = -u_k du_k.T u_perp``), which is exact for
    every function invariant to the choice of completion (``u_perp @ u_perp.T``, ``a``).
    """
    fun = _linalg_fun("svd" if compute_uv else "svdvals", a)
    if not compute_uv:
        return fun(a)
    u, s, vh = fun(a, full_matrices=full_matrices)
    return SVDResult(u, s, vh)


def _svd_split(ans, full_matrices, m, n):
    """``(u_k, u_perp, s, v_k, v_perp)`` from ``svd``'s output; the ``_perp`` parts are None when absent."""
    u, s, vh = ans
    v = _ct(vh)
    k = builtins.min(m, n)
    u_perp = v_perp = None
    if full_matrices and m > k:
        u, u_perp = u[..., :, :k], u[..., :, k:]
    if full_matrices and n > k:
        v, v_perp = v[..., :, :k], v[..., :, k:]
    return u, u_perp, s, v, v_perp


def grad_svd(ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    m, n = shapes.shape(a)[-2:]
    if not compute_uv:

        def vjp_values(g):
            u, _, vh = svd(a, full_matrices=False)
            return _conj(_mm(_scale_columns(u, g), vh))

        return vjp_values
    u, u_perp, s, v, v_perp = _svd_split(ans, full_matrices, m, n)
    k = builtins.min(m, n)

    def vjp(g):
        g_u, g_s, g_vh = g
        g_u, g_v = _conj(g_u), _t(g_vh)  # the cotangents of u and v = vh^H, for the real inner product
        if u_perp is not None:  # the completion's cotangent, moved onto u_k (the adjoint of its gauge)
            g_u = elementwise.subtract(g_u[..., :, :k], _mm(u_perp, _ct(g_u[..., :, k:]), u))
        if v_perp is not None:
            g_v = elementwise.subtract(g_v[..., :, :k], _mm(v_perp, _ct(g_v[..., :, k:]), v))
        s2 = elementwise.square(s)
        ut_gu, vt_gv = _mm(_ct(u), g_u), _mm(_ct(v), g_v)
        inner = elementwise.add(
            elementwise.add(_scale_columns(_divided_by_gaps(s2, elementwise.subtract(ut_gu, _ct(ut_gu))), s), _diag(g_s)),
            _scale_rows(s, _divided_by_gaps(s2, elementwise.subtract(vt_gv, _ct(vt_gv)))),
        )
        if declare.iscomplexobj(ut_gu):  # the adjoint of the phase gauge (see svd)
            inner = elementwise.add(
                inner, _diag(elementwise.multiply(1j, elementwise.divide(elementwise.imag(_diagonal(ut_gu)), s)))
            )
        g_a = _mm(u, inner, _ct(v))
        if m > n:
            g_a = elementwise.add(
                g_a, _mm(_scale_columns(elementwise.subtract(g_u, _mm(u, ut_gu)), elementwise.divide(1.0, s)), _ct(v))
            )
        if n > m:
            g_a = elementwise.add(
                g_a, _mm(u, _ct(_scale_columns(elementwise.subtract(g_v, _mm(v, vt_gv)), elementwise.divide(1.0, s))))
            )
        return _conj(g_a)

    return vjp


def jvp_svd(g, ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    m, n = shapes.shape(a)[-2:]
    if not compute_uv:
        u, _, vh = svd(a, full_matrices=False)
        return _real(reductions.sum(elementwise.multiply(_conj(u), _mm(g, _ct(vh))), axis=-2))
    u, u_perp, s, v, v_perp = _svd_split(ans, full_matrices, m, n)
    dp = _mm(_ct(u), g, v)
    s2 = elementwise.square(s)
    dp_s, s_dp = _scale_columns(dp, s), _scale_rows(s, dp)
    du = _mm(u, _divided_by_gaps(s2, elementwise.add(dp_s, _ct(dp_s))))
    dv = _mm(v, _divided_by_gaps(s2, elementwise.add(s_dp, _ct(s_dp))))
    if declare.iscomplexobj(dp):  # the phase gauge: Im diag(dP) / s goes to u
        du = elementwise.add(
            du, _scale_columns(u, elementwise.multiply(1j, elementwise.divide(elementwise.imag(_diagonal(dp)), s)))
        )
    if m > n:
        du = elementwise.add(du, _scale_columns(elementwise.subtract(_mm(g, v), _mm(u, dp)), elementwise.divide(1.0, s)))
    if n > m:
        dv = elementwise.add(
            dv, _scale_columns(elementwise.subtract(_mm(_ct(g), u), _mm(v, _ct(dp))), elementwise.divide(1.0, s))
        )
    if u_perp is not None:
        du = shapes.concatenate([du, elementwise.negative(_mm(u, _ct(du), u_perp))], axis=-1)
    if v_perp is not None:
        dv = shapes.concatenate([dv, elementwise.negative(_mm(v, _ct(dv), v_perp))], axis=-1)
    return SVDResult(du, _real(_diagonal(dp)), _ct(dv))


defvjp(svd, grad_svd)
defjvp(svd, jvp_svd)


@primitive
def qr(a, mode="reduced"):
    """The QR factorization of each real matrix of ``a`` (``(..., m, n)``, ``k = min(m, n)``).

    ``mode="reduced"``: ``QRResult(Q, R)``, ``(q, r)`` with ``q`` ``(..., m, k)`` with orthonormal
    columns and ``r`` ``(..., k, n)`` upper triangular; ``"complete"``: ``q`` ``(..., m, m)``
    and ``r`` ``(..., m, n)``; ``"r"``: ``r`` alone (as ``"reduced"``).

    Derivative (Walter and Lehmann 2010; JAX's ``qr_jvp_rule``) for ``m >= n``, with
    ``C = q.T da inv(r)`` and ``O = tril(C, -1) - tril(C, -1).T``: ``dq = q (O - C) + da inv(r)``,
    ``dr = (C - O) r``. For ``m < n`` (Liao et al. 2019) ``a = [x, y]`` with ``x`` square:
    ``q, r[:, :m]`` follow ``x`` and ``dr[:, m:] = dq.T y + q.T dy``. The extra columns of a
    complete ``q`` (``m > n``) are an arbitrary orthonormal completion, differentiated in the
    gauge that only keeps them orthogonal (as for ``svd``). Requires a non-singular leading
    ``k x k`` block.

    Raises
    ------
    ValueError
        If ``mode`` is not one of ``"reduced"``, ``"complete"``, ``"r"`` (NumPy's ``"raw"``
        returns Householder reflectors, which adcore does not differentiate).
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r' (adcore does not support {mode!r})")
    q, r = _linalg_fun("qr", a)(a, mode="complete" if mode == "complete" else "reduced")
    return r if mode == "r" else QRResult(q, r)


def _qr_jvp_tall(q, r, da):
    """``(dq, dr)`` of a reduced QR with ``m >= n`` (``r`` square)."""
    da_rinv = _solve_right(da, r)
    c = _mm(_t(q), da_rinv)
    lower = indexing.tril(c, -1)
    omega = elementwise.subtract(lower, _t(lower))
    return elementwise.add(_mm(q, elementwise.subtract(omega, c)), da_rinv), _mm(elementwise.subtract(c, omega), r)


def _qr_vjp_tall(q, r, g_q, g_r):
    """The cotangent of ``a`` for a reduced QR with ``m >= n``: ``(g_q + q copyltu(M)) inv(r).T``,
    ``M = r g_r.T - g_q.T q`` and ``copyltu`` the symmetric matrix with ``M``'s lower triangle."""
    mm = elementwise.subtract(_mm(r, _t(g_r)), _mm(_t(g_q), q))
    copyltu = elementwise.add(indexing.tril(mm), _t(indexing.tril(mm, -1)))
    return _solve_right(elementwise.add(g_q, _mm(q, copyltu)), _t(r))


def _qr_jvp(q, r, a, da, complete):
    m, n = shapes.shape(a)[-2:]
    if m < n:
        dq, dr1 = _qr_jvp_tall(q, r[..., :, :m], da[..., :, :m])
        dr2 = elementwise.add(_mm(_t(dq), a[..., :, m:]), _mm(_t(q), da[..., :, m:]))
        return dq, shapes.concatenate([dr1, dr2], axis=-1)
    if complete and m > n:
        q1, q2 = q[..., :, :n], q[..., :, n:]
        dq1, dr1 = _qr_jvp_tall(q1, r[..., :n, :], da)
        dq2 = elementwise.negative(_mm(q1, _t(dq1), q2))
        return shapes.concatenate([dq1, dq2], axis=-1), shapes.concatenate([dr1, dtypes.zeros_like(r[..., n:, :])], axis=-2)
    return _qr_jvp_tall(q, r, da)


def _qr_vjp(q, r, a, g_q, g_r, complete):
    m, n = shapes.shape(a)[-2:]
    if m < n:
        g_r1, g_r2 = g_r[..., :, :m], g_r[..., :, m:]
        g_x = _qr_vjp_tall(q, r[..., :, :m], elementwise.add(g_q, _mm(a[..., :, m:], _t(g_r2))), g_r1)
        return shapes.concatenate([g_x, _mm(q, g_r2)], axis=-1)
    if complete and m > n:
        q1, q2 = q[..., :, :n], q[..., :, n:]
        g_q1 = elementwise.subtract(g_q[..., :, :n], _mm(q2, _t(g_q[..., :, n:]), q1))
        return _qr_vjp_tall(q1, r[..., :n, :], g_q1, g_r[..., :n, :])
    return _qr_vjp_tall(q, r, g_q, g_r)


def grad_qr(ans, a, mode="reduced"):
    _real_only("qr", a)

    def vjp(g):
        if mode == "r":
            q, r = qr(a)
            return _qr_vjp(q, r, a, dtypes.zeros_like(q), g, False)
        q, r = ans
        return _qr_vjp(q, r, a, g[0], g[1], mode == "complete")

    return vjp


def jvp_qr(g, ans, a, mode="reduced"):
    _real_only("qr", a)
    if mode == "r":
        q, r = qr(a)
        return _qr_jvp(q, r, a, g, False)[1]
    q, r = ans
    return QRResult(*_qr_jvp(q, r, a, g, mode == "complete"))


defvjp(qr, grad_qr)
defjvp(qr, jvp_qr)


#: Whether NumPy's ``linalg.eig`` of a real matrix is complex whatever its eigenvalues (NumPy 2.5 and later),
#: read once from NumPy itself: adcore's ``eig`` and ``eigvals`` follow the NumPy installed
NUMPY_EIG_ALWAYS_COMPLEX = _np.linalg.eig(_np.eye(1))[0].dtype.kind == "c"


def known_real(w):
    """Whether every entry of the complex array ``w`` is real (NumPy's test for a real ``roots``, and SciPy's
    for real eigenvectors), on a backend that knows the values (not Dask, ``Backend.lazy``). It reads the
    values: ``adcore.jit`` refuses it, as any branch on traced values."""
    return not backend_of(getval(w)).lazy and bool(reductions.all(elementwise.equal(elementwise.imag(w), 0)))


@primitive
def eig(a):
    """``EigResult(eigenvalues, eigenvectors)``: the eigenvalues ``w`` (``(..., n)``) and right
    eigenvectors ``v`` (``(..., n, n)``, unit-norm columns) of each square matrix of ``a``.

    Dtypes, as the installed NumPy's: complex arrays (``complex64`` for single precision, else
    ``complex128``) from NumPy 2.5 on (``NUMPY_EIG_ALWAYS_COMPLEX``); before it, for real ``a``, real
    arrays (``float32`` for ``float32`` input, else ``float64``) when every eigenvalue of every matrix
    is real, complex ones otherwise; for complex ``a``, complex arrays. The choice reads the values,
    so it is made where the backend knows them: NumPy, CuPy, torch, JAX and array-api-strict
    (whose ``linalg.eig`` returns complex arrays: adcore takes their real parts, exactly real
    there). On Dask (``Backend.lazy``: the values are unknown until computed) the result is
    always complex, for real input too. The derivatives have the dtypes of the values.
    Not in the Array API standard: runs where the backend has ``linalg.eig`` (NumPy, CuPy,
    torch, JAX, Dask; array-api-strict with API version 2025.12), else ``NotImplementedError``.

    Derivative (Giles 2008, 3.1; autograd's ``grad_eig``, after Boeddeker et al. 2017,
    eq. 4.77), for distinct eigenvalues, with ``C = inv(v) da v`` and
    ``F[i, j] = 1 / (w[j] - w[i])``: ``dw = diag(C)``, ``dv = v (F * C)`` minus its component
    along each ``v[:, j]`` that would change the unit norm. Eigenvectors are defined up to a
    complex phase (a sign, for real results): differentiate functions that do not depend on it
    (``abs(v)``, ``v @ diag(w) @ inv(v)``). For real input and complex results the derivatives
    are real (autograd's convention for complex outputs).
    """
    w, v = _linalg_fun("eig", a)(a)
    backend = backend_of(a, op="eig")
    single = str(a.dtype).split(".")[-1] in ("float32", "complex64")
    complex_dtype = backend.dtype("complex64" if single else "complex128")
    real_input = not backend.isdtype(a.dtype, "complex floating")
    if real_input and not NUMPY_EIG_ALWAYS_COMPLEX and not backend.lazy and _all_real(w, backend):
        real_dtype = backend.dtype("float32" if single else "float64")
        return EigResult(backend.astype(_real_part(w, backend), real_dtype), backend.astype(_real_part(v, backend), real_dtype))
    return EigResult(backend.astype(w, complex_dtype), backend.astype(v, complex_dtype))


def _all_real(w, backend):
    """Whether every entry of the raw ``w`` is real (a real dtype, or an imaginary part exactly 0: NumPy's
    test for ``eig``'s dtype, which LAPACK's real ``geev`` meets exactly), read on the host."""
    if not backend.isdtype(w.dtype, "complex floating"):
        return True
    return bool(backend.to_numpy(backend.all(backend.imag(w) == 0)))


def _real_part(x, backend):
    return backend.real(x) if backend.isdtype(x.dtype, "complex floating") else x


def grad_eig(ans, a):
    w, v = ans

    def vjp(g):
        g_w, g_v = g
        vt = _t(v)
        vt_gv = _mm(vt, g_v)
        norm_part = _scale_columns(_mm(vt, elementwise.conj(v)), elementwise.real(_diagonal(vt_gv)))
        inner = elementwise.add(_diag(g_w), _divided_by_gaps(w, elementwise.subtract(vt_gv, norm_part)))
        g_a = _mm(solve(vt, inner), vt)
        return g_a if declare.iscomplexobj(a) else elementwise.real(g_a)

    return vjp


def jvp_eig(g, ans, a):
    w, v = ans
    c = solve(v, _mm(dtypes.astype(g, getval(v).dtype), v))
    dv = _mm(v, _divided_by_gaps(w, c))
    radial = elementwise.real(reductions.sum(elementwise.multiply(elementwise.conj(v), dv), axis=-2))
    return EigResult(_diagonal(c), elementwise.subtract(dv, _scale_columns(v, radial)))


defvjp(eig, grad_eig)
defjvp(eig, jvp_eig)


# ---- norms (compositions; where-safe at zero) ----


@primitive
def _two_norm(x, axes, keepdims):
    """``sqrt(sum(|x|**2))`` over ``axes`` (a tuple of non-negative ints): the vector 2-norm and the Frobenius
    norm, one primitive (``Backend.two_norm``) with the rules below."""
    return backend_of(x, op="norm").two_norm(x, axes, keepdims)


def _reciprocal_or_zero(ans):
    """``1 / ans`` where ``ans`` is not 0, else 0 (where-safe: the branch not taken never sees 0)."""
    zero = ans == 0.0
    return indexing.where(zero, 0.0, elementwise.reciprocal(indexing.where(zero, 1.0, ans)))


def _kept_axes(value, axes, keepdims):
    """``value``, reduced over ``axes``, with those axes back as size 1 (for broadcasting against the input)."""
    return value if keepdims or not axes else shapes.expand_dims(value, axes)


def grad_two_norm(ans, x, axes, keepdims):
    """``g * conj(x) / |x|`` (autograd's convention for the cotangent of a real function of complex ``x``, as
    ``abs``'s), 0 where the norm is 0: the subgradient 0, every higher derivative there 0 too (the
    reciprocal is where-safe)."""

    def vjp(g):
        if not (isbox(g) or isbox(ans) or isbox(x)):  # a first-order derivative: on the backend, no primitive call
            return backend_of(x, g, op="norm").two_norm_vjp(g, ans, x, axes, keepdims)
        zero = elementwise.equal(ans, 0.0)  # g / ans as the backend's first-order path divides, so a replay rounds as it
        scale = indexing.where(zero, 0.0, elementwise.divide(g, indexing.where(zero, 1.0, ans)))
        direction = elementwise.conj(x) if declare.iscomplexobj(x) else x
        return elementwise.multiply(_kept_axes(scale, axes, keepdims), direction)

    return vjp


def jvp_two_norm(t, ans, x, axes, keepdims):
    """``Re(sum(conj(x) * t)) / |x|``, 0 where the norm is 0."""
    return elementwise.multiply(
        reductions.sum(elementwise.real(elementwise.multiply(elementwise.conj(x), t)), axis=axes, keepdims=keepdims),
        _reciprocal_or_zero(ans),
    )


defvjp(_two_norm, grad_two_norm)
defjvp(_two_norm, jvp_two_norm)


@primitive
def _p_norm(x, axes, keepdims, p):
    """``sum(|x|**p) ** (1/p)`` over ``axes`` (a tuple of non-negative ints) for a real ``p > 0`` other than 1
    and 2: the vector ``p``-norm, one primitive (``Backend.p_norm``) with the rules below."""
    return backend_of(x, op="norm").p_norm(x, axes, keepdims, p)


def _p_norm_factor(ans, x, axes, keepdims, p):
    """``(|x| / ans)**(p - 1) / |x|``, 0 where ``x`` is 0 (entry 0 contributes 0, as in the norm's value; the
    norm 0 has the subgradient 0): the partial derivative of the ``p``-norm in ``x`` is ``conj(x)`` times it."""
    magnitude = elementwise.abs(x)
    zero = magnitude == 0.0
    safe = indexing.where(zero, 1.0, magnitude)
    ratio = elementwise.divide(safe, _kept_axes(indexing.where(ans == 0.0, 1.0, ans), axes, keepdims))  # ans 0: every x 0
    return indexing.where(zero, 0.0, elementwise.divide(elementwise.power(ratio, p - 1.0), safe))


def grad_p_norm(ans, x, axes, keepdims, p):
    """``g * conj(x) * |x|**(p-2) / |x|_p**(p-1)`` (autograd's convention for a real function of complex ``x``),
    0 at the entries equal to 0 and where the norm is 0."""
    if isbox(ans) or isbox(x):
        factor = elementwise.multiply(
            _p_norm_factor(ans, x, axes, keepdims, p), elementwise.conj(x) if declare.iscomplexobj(x) else x
        )
    else:  # constant in g: computed on the backend, no primitive call
        factor = backend_of(x, op="norm").p_norm_partial(ans, x, axes, keepdims, p)
    return lambda g: elementwise.multiply(_kept_axes(g, axes, keepdims), factor)


def jvp_p_norm(t, ans, x, axes, keepdims, p):
    """``sum(Re(conj(x) t) |x|**(p-2)) / |x|_p**(p-1)``, with the zeros of :func:`grad_p_norm`."""
    inner = (
        elementwise.real(elementwise.multiply(elementwise.conj(x), t))
        if declare.iscomplexobj(x) or declare.iscomplexobj(t)
        else elementwise.multiply(x, t)
    )
    return reductions.sum(elementwise.multiply(inner, _p_norm_factor(ans, x, axes, keepdims, p)), axis=axes, keepdims=keepdims)


defvjp(_p_norm, grad_p_norm)
defjvp(_p_norm, jvp_p_norm)


def _real_dtype(x):
    return elementwise.real(getval(x)).dtype if declare.iscomplexobj(x) else getval(x).dtype


def _normalized_axes(axis, nd, op):
    axes = tuple(range(nd)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    normalized = tuple(ax % nd if -nd <= ax < nd else None for ax in axes) if nd else ()
    if None in normalized or (axis is not None and not nd):
        raise ValueError(f"{op}: axis {axis} is out of bounds for an array of dimension {nd}")
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"{op}: duplicate axes given in {axis}")
    return normalized


@shapes.array_like("x")
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The vector ``ord``-norm of ``x`` over ``axis`` (all axes by default, as one vector).

    ``ord``: ``2`` (default), ``1``, ``inf``, ``-inf``, ``0`` (the number of non-zero
    entries), or any other real ``p`` (``sum(abs(x)**p) ** (1/p)``). Real or complex ``x``;
    the result has ``x``'s real dtype.

    At ``x = 0`` every derivative is finite: the subgradient 0 (``ord > 0``), through a
    where-safe square root / root. For ``0 < p < 1`` the entries equal to 0 contribute 0.
    For ``p < 0`` a zero entry makes the norm 0 and its derivative NaN.

    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> grad(np.linalg.vector_norm)(np.zeros(3))
    array([0., 0., 0.])
    """
    x, narrow = reductions._accumulating(x)  # float16 sums in float32 (a sum of squares overflows past 65504)
    return reductions._given_back(_vector_norm(x, _normalized_axes(axis, shapes.ndim(x), "vector_norm"), keepdims, ord), narrow)


def _vector_norm(x, axes, keepdims, ord):
    if ord == 2:
        return _two_norm(x, axes, keepdims)
    if ord == 1:
        return reductions.sum(elementwise.abs(x), axis=axes, keepdims=keepdims)
    if ord == math.inf:
        return reductions.max(elementwise.abs(x), axis=axes, keepdims=keepdims)
    if ord == -math.inf:
        return reductions.min(elementwise.abs(x), axis=axes, keepdims=keepdims)
    if ord == 0:
        return reductions.sum(dtypes.astype(elementwise.not_equal(x, 0.0), _real_dtype(x)), axis=axes, keepdims=keepdims)
    if not isinstance(ord, numbers.Real) or math.isnan(ord):
        raise ValueError(f"vector_norm: invalid norm order {ord!r} for vectors")
    if ord < 0:
        return elementwise.power(
            reductions.sum(elementwise.power(elementwise.abs(x), float(ord)), axis=axes, keepdims=keepdims), 1.0 / ord
        )
    return _p_norm(x, axes, keepdims, float(ord))


@shapes.array_like("x")
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The matrix ``ord``-norm of each matrix of ``x`` (its last two axes).

    ``ord``: ``"fro"`` (default), ``"nuc"`` (sum of singular values), ``2`` / ``-2`` (largest /
    smallest singular value), ``1`` / ``-1`` (max / min column sum of ``abs``), ``inf`` /
    ``-inf`` (max / min row sum). ``keepdims`` keeps the two axes with size 1.

    Derivatives: those of the composition (``svd`` for the spectral and nuclear norms, so they
    need distinct singular values); ``"fro"`` is where-safe at 0 like ``vector_norm``.

    Raises
    ------
    ValueError
        If ``ord`` is not one of the above, or ``x`` has fewer than 2 dimensions.
    """
    if shapes.ndim(x) < 2:
        raise ValueError(f"matrix_norm: expected an array of at least 2 dimensions, got shape {shapes.shape(x)}")
    if ord in ("fro", "f"):
        result = _two_norm(x, (shapes.ndim(x) - 2, shapes.ndim(x) - 1), False)
    elif ord == "nuc":
        result = reductions.sum(svd(x, compute_uv=False), axis=-1)
    elif isinstance(ord, str):
        raise ValueError(f"matrix_norm: invalid norm order {ord!r} for matrices")
    elif ord in (2, -2):
        values = svd(x, compute_uv=False)
        result = reductions.max(values, axis=-1) if ord == 2 else reductions.min(values, axis=-1)
    elif ord in (1, -1, math.inf, -math.inf):
        sums = reductions.sum(elementwise.abs(x), axis=-2 if ord in (1, -1) else -1)
        result = reductions.max(sums, axis=-1) if ord > 0 else reductions.min(sums, axis=-1)
    else:
        raise ValueError(f"matrix_norm: invalid norm order {ord!r} for matrices")
    return shapes.expand_dims(result, (-2, -1)) if keepdims else result


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: a vector or matrix norm, chosen by ``axis`` as NumPy does.

    ``axis=None``: with ``ord=None``, the 2-norm of ``x`` flattened (any ndim); otherwise ``x``
    must be 1-d (vector norm) or 2-d (matrix norm). An int ``axis``: vector norms along it
    (``ord`` as in ``vector_norm``, ``None`` meaning 2). A pair ``axis``: matrix norms over
    those two axes (``ord`` as in ``matrix_norm``, ``None`` meaning ``"fro"``).

    A composition of ``vector_norm`` and ``matrix_norm``, with their derivatives (finite at 0).

    Raises
    ------
    ValueError
        For an invalid ``ord``, duplicate axes, or ``x`` of the wrong number of dimensions.
    """
    backend = array_backend(x)
    if backend is not None:  # an array, not traced: the library's own norm, where it has one
        result = backend.linalg_norm(x, ord, axis, keepdims)
        if result is not None:
            return result
    x = shapes.asarray(x)
    nd = shapes.ndim(x)
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            result = vector_norm(x)
            return shapes.reshape(result, (1,) * nd) if keepdims else result
        axis = tuple(range(nd))
    axes = _normalized_axes(axis, nd, "norm")
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"norm: invalid norm order {ord!r} for vectors")
        return vector_norm(x, axis=axes, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) == 2:
        moved = shapes.moveaxis(x, axes, (-2, -1))
        result = matrix_norm(moved, ord="fro" if ord is None else ord)
        return shapes.expand_dims(result, tuple(sorted(axes))) if keepdims else result
    raise ValueError(f"norm: improper number of dimensions to norm ({nd}-d array, axis={axis})")


# ---- the rest of numpy.linalg: compositions of the functions above ----

LinAlgError = _np.linalg.LinAlgError
test = _np.linalg.test


@shapes.array_like("a")
def eigvals(a):
    """The eigenvalues of each square matrix of ``a``: ``eig(a).eigenvalues``, with its dtypes (real when
    ``a`` is real and every eigenvalue is real, as NumPy's, on every backend but Dask, where they are
    complex; see :func:`eig`) and its derivatives."""
    return eig(a)[0]


def svdvals(x, /):
    """The singular values of each matrix of ``x``, descending: ``svd(x, compute_uv=False)``."""
    return svd(x, compute_uv=False)


def cond(x, p=None):
    """The condition number of each matrix of ``x``: the ratio of extreme singular values for ``p`` in
    ``None, 2, -2``, else ``norm(x, p) * norm(inv(x), p)`` (square ``x``)."""
    if p in (None, 2, -2):
        s = svdvals(x)
        return s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    _square_matrix_shape(x, "cond")
    return elementwise.multiply(norm(x, p, axis=(-2, -1)), norm(inv(x), p, axis=(-2, -1)))


@shapes.array_like("A", "tol")
@notrace_primitive
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """The number of singular values of each matrix of ``A`` above ``tol`` (default ``rtol`` times the
    largest, ``rtol`` defaulting to ``max(m, n) * eps``); for fewer than 2 dimensions, 1 unless all zero.
    Not differentiable (an integer)."""
    backend = backend_of(A, op="matrix_rank")
    A = A if hasattr(A, "shape") else backend.asarray(A)
    if A.ndim < 2:
        return int(not bool(backend.to_numpy(backend.all(A == 0))))
    s = backend.abs(_linalg_fun("eigvalsh", A)(A)) if hermitian else svd(A, compute_uv=False)
    largest = backend.max(s, axis=-1, keepdims=True)
    if tol is None:
        eps = backend.finfo(s.dtype).eps
        tol = largest * (builtins.max(A.shape[-2:]) * eps if rtol is None else rtol)
    else:
        tol = backend.asarray(tol)[..., None] if hasattr(tol, "shape") else tol
    return backend.sum(backend.astype(s > tol, backend.dtype("int64")), axis=-1)


def tensorinv(a, ind=2):
    """The inverse of ``a`` as a linear map from its last axes to its first ``ind`` axes (NumPy's ``tensorinv``)."""
    if ind <= 0:
        raise ValueError("tensorinv: Invalid ind argument.")
    shape = shapes.shape(a)
    rows = math.prod(shape[ind:])
    return shapes.reshape(inv(shapes.reshape(a, (rows, -1))), shape[ind:] + shape[:ind])


def tensorsolve(a, b, axes=None):
    """The ``x`` with ``tensordot(a, x, axes=x.ndim) == b`` (NumPy's ``tensorsolve``); ``axes`` are moved to the end first."""
    n = shapes.ndim(a)
    if axes is not None:
        rest = [k for k in range(n) if k not in [ax % n for ax in axes]]
        a = shapes.transpose(a, rest + [ax % n for ax in axes])
    unknown_shape = shapes.shape(a)[-(n - shapes.ndim(b)) :]
    size = math.prod(unknown_shape)
    if shapes.size(a) != size**2:
        raise LinAlgError("Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return shapes.reshape(solve(shapes.reshape(a, (size, size)), shapes.ravel(b)), unknown_shape)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along ``axis`` (the Array API's ``linalg.cross``)."""
    if shapes.shape(x1)[axis] != 3 or shapes.shape(x2)[axis] != 3:
        raise ValueError(
            f"cross: both inputs must be 3-vectors along axis {axis}, got shapes {shapes.shape(x1)} and {shapes.shape(x2)}"
        )
    return products.cross(x1, x2, axis=axis)


@shapes.array_like("x")
def diagonal(x, /, *, offset=0):
    """The ``offset`` diagonal of each matrix of ``x`` (its last two axes)."""
    return indexing.diagonal(x, offset, -2, -1)


def matmul(x1, x2, /):
    """The matrix product, broadcast over leading axes."""
    return products.matmul(x1, x2)


def matrix_transpose(x, /):
    """Each matrix of ``x`` transposed."""
    return shapes.matrix_transpose(x)


def outer(x1, x2, /):
    """The outer product of two 1-d arrays."""
    if shapes.ndim(x1) != 1 or shapes.ndim(x2) != 1:
        raise ValueError(f"outer: inputs must be 1-d, got shapes {shapes.shape(x1)} and {shapes.shape(x2)}")
    return products.outer(x1, x2)


def tensordot(x1, x2, /, *, axes=2):
    """``numpy.tensordot`` with the standard's keyword-only ``axes``."""
    return products.tensordot(x1, x2, axes=axes)


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the ``offset`` diagonal of each matrix of ``x``."""
    result = reductions.trace(x, offset, -2, -1)
    return result if dtype is None else dtypes.astype(result, dtype)


def vecdot(x1, x2, /, *, axis=-1):
    """``sum(conj(x1) * x2, axis)``, broadcasting the other axes.

    Raises
    ------
    ValueError
        If either input is 0-d (NumPy's rule: the vectors' axis must exist).
    """
    if shapes.ndim(x1) == 0 or shapes.ndim(x2) == 0:
        raise ValueError(f"vecdot: both inputs need a vector axis, got shapes {shapes.shape(x1)} and {shapes.shape(x2)}")
    return reductions.sum(elementwise.multiply(elementwise.conj(x1), x2), axis=axis)


__all__ += ["LinAlgError", "cond", "cross", "diagonal", "eigvals", "matmul", "matrix_rank", "matrix_transpose", "outer"]
__all__ += ["svdvals", "tensordot", "tensorinv", "tensorsolve", "test", "trace", "vecdot"]

# The primitives that take NumPy's array_like (their rules are registered above, on the primitives): a list
# given to them is made one array first (``shapes.array_like``).
cholesky, eig, eigh, eigvalsh = (shapes.array_like("a")(fun) for fun in (cholesky, eig, eigh, eigvalsh))
