"""The primitives of ``adcore.scipy.linalg`` and the compositions built right on them (``adcore.scipy.linalg`` exports them).

The table of how each function is computed and differentiated, its backends and its
conventions are ``adcore.scipy.linalg``'s docstring. ``adcore.scipy.linalg_compositions``
builds the rest of ``scipy.linalg`` on this module; this module imports neither of them.
"""

import builtins
import math

import numpy as _np

from backends import backend_of

from .. import numpy as anp
from ..core import defjvp, defjvp_argnums, defvjp, defvjp_argnums, notrace_primitive, primitive
from ..numpy import declare, dtypes, indexing, shapes
from ..numpy import linalg as _np_linalg
from ..numpy.declare import broadcast, metadata, unbroadcast
from ..numpy.linalg import _ct, _diag, _diagonal, _drop_last, _mm, _symmetric_from, _t

__all__ = [
    "cho_factor",
    "cho_solve",
    "cholesky",
    "det",
    "eigh",
    "expm",
    "inv",
    "logm",
    "lu_factor",
    "lu_solve",
    "solve",
    "solve_banded",
    "solve_sylvester",
    "solve_triangular",
    "sqrtm",
]


# ---- helpers ----


def _library_function(name, *values):
    """``(backend, fun)``: the arrays' backend and its ``scipy.linalg.<name>``, or None for ``fun``
    when the backend's library has none (then the standard-function form is used)."""
    backend = backend_of(*values, op=f"scipy.linalg.{name}")
    try:
        return backend, getattr(backend.scipy_module("linalg"), name)
    except (NotImplementedError, AttributeError, ImportError):
        return backend, None


def _as_matrix(x, vector):
    """``x`` with a trailing axis of size 1 when it stands for a (stack of) vector(s)."""
    return anp.expand_dims(x, -1) if vector else x


def _as_given(x, vector):
    return _drop_last(x) if vector else x


def _triangle(x, lower, unit_diagonal=False):
    """The triangle of ``x`` a triangular solver reads: lower or upper, without the diagonal when
    it is taken to be 1."""
    k = (-1 if lower else 1) if unit_diagonal else 0
    return anp.tril(x, k) if lower else anp.triu(x, k)


def _symmetric(a, lower, hermitian=True):
    """The symmetric (Hermitian, for complex ``a`` and ``hermitian``) matrix that a LAPACK routine
    reading one triangle of ``a`` sees."""
    if hermitian or not declare.iscomplexobj(a):
        return _symmetric_from(a, lower)
    strict = anp.tril(a, -1) if lower else anp.triu(a, 1)
    return anp.add(_triangle(a, lower), _t(strict))


def _same_precision(result, a, backend):
    """``result`` in the precision of ``a`` (float32 stays float32), keeping its real or complex kind."""
    if str(a.dtype).split(".")[-1] not in ("float32", "complex64"):
        return result
    single = "complex64" if backend.isdtype(result.dtype, "complex floating") else "float32"
    return backend.astype(result, backend.dtype(single))


_TRANS = {0: "N", "N": "N", "n": "N", 1: "T", "T": "T", "t": "T", 2: "C", "C": "C", "c": "C"}


def _trans_code(trans, op):
    try:
        return _TRANS[trans]
    except (KeyError, TypeError):
        raise ValueError(f"{op}: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}") from None


def _holomorphic_trans(a, trans, op):
    """The transpose a rule applies: ``"C"`` is ``"T"`` for real ``a``; for complex ``a`` it is not
    holomorphic in ``a``, which the rules do not cover."""
    trans = _trans_code(trans, op)
    if trans != "C":
        return trans
    if declare.iscomplexobj(a):
        raise NotImplementedError(
            f"scipy.linalg.{op}: the derivative with respect to the matrix for trans='C' and complex input is "
            "not implemented (not holomorphic); pass conj(a) with trans='T' instead"
        )
    return "T"


def _missing(name, backend):
    """The error for ``name`` on ``backend``: the ImportError naming adcore's extra to install where the backend's
    library is only missing (SciPy on numpy), else NotImplementedError."""
    try:
        backend.scipy_module("linalg")
    except ImportError as error:
        return error
    except NotImplementedError:
        pass
    return NotImplementedError(
        f"scipy.linalg.{name}: the {backend.name} backend has no scipy.linalg.{name} and the Array API standard "
        "has no function to build it from; use NumPy (SciPy) or CuPy arrays"
    )


# ---- triangular systems ----


@primitive
def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    """Solve ``op(t) x = b`` for ``x``, ``t`` the triangle of ``a`` selected by ``lower``.

    Parameters
    ----------
    a : array, shape (..., m, m)
        Only the lower (``lower=True``) or upper triangle is read; with ``unit_diagonal`` the
        diagonal is taken to be 1 and not read either.
    b : array, shape (m,) or (..., m, k)
        The right-hand side; 1-d means one vector (leading dimensions broadcast).
    trans : {0, 1, 2, "N", "T", "C"}
        ``op(t)`` is ``t``, ``t.T`` or ``t.conj().T``.

    Returns
    -------
    x : array of the broadcast shape of ``a`` and ``b`` (``(..., m)`` for 1-d ``b``), their
        promoted dtype.

    Raises
    ------
    ValueError
        For an invalid ``trans``.
    NotImplementedError
        When differentiating with respect to a complex ``a`` with ``trans="C"``.

    Notes
    -----
    Derivative (Giles 2008, 2.3.1, on the triangle read): ``dx = solve_triangular(a, db - op(dt) x)``;
    cotangents ``b_bar = op(t)^-T x_bar`` and ``t_bar = -b_bar x.T`` (transposed for
    ``trans="T"``), kept on the triangle read. Computed by ``scipy.linalg.solve_triangular``
    (``cupyx`` on CuPy), else by ``linalg.solve`` on ``op(t)``.

    >>> import adcore.numpy as np
    >>> solve_triangular(np.array([[2.0, 1.0], [0.0, 4.0]]), np.array([4.0, 8.0]))
    array([1., 2.])
    """
    code = _trans_code(trans, "solve_triangular")
    backend, fun = _library_function("solve_triangular", a, b)
    if fun is not None:
        return fun(a, b, trans=code, lower=lower, unit_diagonal=unit_diagonal)
    t = _triangle(a, lower, unit_diagonal)
    if unit_diagonal:
        t = t + anp.eye_like(a)
    op = {"N": t, "T": backend.matrix_transpose(t), "C": backend.conj(backend.matrix_transpose(t))}[code]
    return backend.linalg.solve(op, b)


def _solve_triangular_transposed(a, g, trans, lower, unit_diagonal):
    """``op(t)^-T g`` (plain transpose): the adjoint of ``g -> op(t)^-1 g``."""
    if trans == "C" and declare.iscomplexobj(a):  # op(t)^T = conj(t)
        return anp.conj(solve_triangular(a, anp.conj(g), "N", lower, unit_diagonal))
    return solve_triangular(a, g, "N" if trans in ("T", "C") else "T", lower, unit_diagonal)


def grad_solve_triangular_a(ans, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    trans = _holomorphic_trans(a, trans, "solve_triangular")
    meta, vector = metadata(a), anp.ndim(b) == 1

    def vjp(g):
        g_b = _solve_triangular_transposed(a, _as_matrix(g, vector), trans, lower, unit_diagonal)
        x = _as_matrix(ans, vector)
        g_t = _mm(g_b, _t(x)) if trans == "N" else _mm(x, _t(g_b))
        return unbroadcast(anp.negative(_triangle(g_t, lower, unit_diagonal)), meta)

    return vjp


def grad_solve_triangular_b(ans, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    trans, meta, vector = _trans_code(trans, "solve_triangular"), metadata(b), anp.ndim(b) == 1
    return lambda g: unbroadcast(
        _as_given(_solve_triangular_transposed(a, _as_matrix(g, vector), trans, lower, unit_diagonal), vector), meta
    )


def jvp_solve_triangular_a(g, ans, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    trans = _holomorphic_trans(a, trans, "solve_triangular")
    vector = anp.ndim(b) == 1
    dt = _triangle(g, lower, unit_diagonal)
    rhs = _mm(dt if trans == "N" else _t(dt), _as_matrix(ans, vector))
    return broadcast(anp.negative(_as_given(solve_triangular(a, rhs, trans, lower, unit_diagonal), vector)), ans)


def jvp_solve_triangular_b(g, ans, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    return broadcast(solve_triangular(a, g, trans, lower, unit_diagonal), ans)


defvjp(solve_triangular, grad_solve_triangular_a, grad_solve_triangular_b)
defjvp(solve_triangular, jvp_solve_triangular_a, jvp_solve_triangular_b)


# ---- LU ----


@primitive
def lu_factor(a, overwrite_a=False, check_finite=True):
    """The LU factorization with partial pivoting of each square matrix of ``a``, as SciPy packs it.

    Returns
    -------
    lu : array, shape (..., m, m), ``a``'s dtype
        ``u`` in the upper triangle and the unit lower triangular ``l`` below the diagonal, with
        ``p a = l u`` for the row permutation ``p`` that ``piv`` encodes.
    piv : integer array, shape (..., m)
        Row ``i`` was interchanged with row ``piv[i]`` (0-based, in order); not differentiable.

    Raises
    ------
    NotImplementedError
        On a backend whose library has no LU factorization (the Array API standard has none),
        naming it; when differentiating for a non-square ``a``.

    Notes
    -----
    Derivative (JAX's ``_lu_jvp_rule``): with ``f = l^-1 p da u^-1``, ``dl = l tril(f, -1)`` and
    ``du = triu(f) u``, so ``d lu = dl + du``. The VJP is its transpose:
    ``a_bar = p.T l^-T (tril(l.T l_bar, -1) + triu(u_bar u.T)) u^-T`` with ``l_bar``, ``u_bar`` the
    strictly lower and upper parts of ``lu_bar``. Both need a non-singular ``a``.
    """
    backend, fun = _library_function("lu_factor", a)
    if fun is None:
        raise _missing("lu_factor", backend)
    lu, piv = fun(a)
    return (lu, piv)


@notrace_primitive
def _permutation_matrix(piv, like):
    """The matrix ``p`` (dtype of ``like``) with ``(p a)[i] = a[perm[i]]`` after the row interchanges
    ``piv`` (LAPACK's ``ipiv``, 0-based): ``p a = l u`` for ``lu_factor``'s result."""
    backend = backend_of(piv, like, op="lu_solve")
    xp, n = backend.xp, piv.shape[-1]
    rows = xp.arange(n, device=backend.device(piv))
    perm = xp.broadcast_to(xp.astype(rows, piv.dtype), piv.shape)
    for i in range(n):
        j = piv[..., i : i + 1]
        perm = xp.where(rows == i, backend.take_along_axis(perm, j, axis=-1), xp.where(rows == j, perm[..., i : i + 1], perm))
    return xp.astype(perm[..., :, None] == xp.astype(rows, piv.dtype), like.dtype)


def _square_only(a, op):
    m, n = anp.shape(a)[-2:]
    if m != n:
        raise NotImplementedError(f"scipy.linalg.{op}: derivatives are implemented for square matrices, got shape {anp.shape(a)}")


def _unit_lower(lu):
    """``l``: the strictly lower triangle of ``lu`` with ones on the diagonal."""
    return anp.add(anp.tril(lu, -1), anp.eye_like(lu))


def grad_lu_factor(ans, a, overwrite_a=False, check_finite=True):
    _square_only(a, "lu_factor")
    lu, piv = ans
    p = _permutation_matrix(piv, lu)

    def vjp(g):
        g_lu = g[0]
        g_l = anp.tril(_mm(_t(_unit_lower(lu)), anp.tril(g_lu, -1)), -1)
        g_u = anp.triu(_mm(anp.triu(g_lu), _t(anp.triu(lu))))
        left = solve_triangular(lu, anp.add(g_l, g_u), "T", lower=True, unit_diagonal=True)
        return _mm(_t(p), _t(solve_triangular(lu, _t(left), "N", lower=False)))

    return vjp


def jvp_lu_factor(g, ans, a, overwrite_a=False, check_finite=True):
    _square_only(a, "lu_factor")
    lu, piv = ans
    p = _permutation_matrix(piv, lu)
    f = solve_triangular(lu, _mm(p, g), "N", lower=True, unit_diagonal=True)
    f = _t(solve_triangular(lu, _t(f), "T", lower=False))
    return (anp.add(_mm(_unit_lower(lu), anp.tril(f, -1)), _mm(anp.triu(f), anp.triu(lu))), dtypes.zeros_like(piv))


defvjp(lu_factor, grad_lu_factor)
defjvp(lu_factor, jvp_lu_factor)


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` (``trans=0``), ``a.T x = b`` (1) or ``a.conj().T x = b`` (2) given
    ``lu_factor(a) = (lu, piv)``.

    ``b`` is ``(m,)`` or ``(..., m, k)``; the result has the broadcast shape. A composition of
    ``solve_triangular`` and the row permutation of ``piv`` (``p a = l u``, so ``x = u^-1 l^-1 p b``
    and, transposed, ``x = p.T l^-T u^-T b``): differentiable in ``lu`` (its triangles) and ``b``,
    on every backend (``lu`` and ``piv`` may come from elsewhere).

    Raises
    ------
    ValueError
        For an invalid ``trans``.
    """
    lu, piv = lu_and_piv
    code = _trans_code(trans, "lu_solve")
    vector = anp.ndim(b) == 1
    p = _permutation_matrix(piv, lu)
    b = _as_matrix(b, vector)
    if code == "N":
        y = solve_triangular(lu, anp.matmul(p, b), "N", lower=True, unit_diagonal=True)
        return _as_given(solve_triangular(lu, y, "N", lower=False), vector)
    y = solve_triangular(lu, b, code, lower=False)
    return _as_given(anp.matmul(_t(p), solve_triangular(lu, y, code, lower=True, unit_diagonal=True)), vector)


# ---- Cholesky ----


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of each symmetric (Hermitian) positive-definite matrix of ``a``.

    Returns the upper triangular ``u`` with ``a = u.conj().T @ u`` (SciPy's default), or the
    lower ``l`` with ``a = l @ l.conj().T`` when ``lower=True``; shape and dtype of ``a``. Only the
    triangle named by ``lower`` is read (SciPy's LAPACK call does the same).

    A composition: ``adcore.numpy.linalg.cholesky`` of the symmetric matrix built from that
    triangle (derivative: Murray 2016; real input).
    """
    return _np_linalg.cholesky(_symmetric(a, lower), upper=not lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``(c, lower)`` for ``cho_solve``: ``c`` the Cholesky factor of ``a`` (see ``cholesky``) and
    ``lower`` the Python bool given.

    SciPy leaves arbitrary values in the other triangle of ``c``; here they are zeros. Composed
    of ``cholesky``, so differentiable (real input).
    """
    return cholesky(a, lower=lower), bool(lower)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` given ``cho_factor(a) = (c, lower)``.

    ``b`` is ``(m,)`` or ``(..., m, k)``. Only the triangle of ``c`` named by ``lower`` is read. A
    composition of two ``solve_triangular``: ``x = c^-1 c^-H b`` (upper) or ``c^-H c^-1 b``
    (lower); differentiable in ``c`` (real) and ``b``.
    """
    c, lower = c_and_lower
    if lower:
        return solve_triangular(c, solve_triangular(c, b, "N", lower=True), "C", lower=True)
    return solve_triangular(c, solve_triangular(c, b, "C", lower=False), "N", lower=False)


# ---- general systems, inverse, determinant ----

_ASSUME_A = {
    None: "gen",
    "gen": "gen",
    "general": "gen",
    "sym": "sym",
    "symmetric": "sym",
    "her": "her",
    "hermitian": "her",
    "pos": "pos",
    "positive definite": "pos",
    "diagonal": "diagonal",
    "tridiagonal": "tridiagonal",
    "banded": "gen",
    "upper triangular": "upper",
    "lower triangular": "lower",
}


def _structure(assume_a, op, allowed):
    kind = _ASSUME_A.get(assume_a)
    if kind not in allowed:
        names = sorted(name for name, k in _ASSUME_A.items() if name is not None and k in allowed)
        raise ValueError(f"{op}: assume_a must be None or one of {names}, got {assume_a!r}")
    return kind


def _read(a, kind, lower):
    """The matrix SciPy's solver for ``kind`` sees: the entries it reads, the others implied."""
    if kind in ("sym", "her", "pos"):
        return _symmetric(a, lower, hermitian=kind != "sym")
    if kind == "tridiagonal":
        return anp.triu(anp.tril(a, 1), -1)
    return a


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None, transposed=False):
    """Solve ``a x = b`` (``a.T x = b`` with ``transposed``) for ``x``; SciPy's ``scipy.linalg.solve``.

    Parameters
    ----------
    a : array, shape (..., m, m)
    b : array, shape (m,) or (..., m, k)
        1-d means one vector; leading dimensions broadcast.
    lower : bool
        For ``assume_a`` in ``"sym"``, ``"her"``, ``"pos"``: read the lower (else the upper)
        triangle of ``a``.
    assume_a : str, optional
        ``None``/``"gen"``/``"banded"``: all of ``a``; ``"sym"``, ``"her"``, ``"pos"``: one
        triangle; ``"diagonal"``, ``"tridiagonal"``, ``"upper triangular"``, ``"lower
        triangular"``: that part only (as SciPy's dedicated solvers read).

    Returns
    -------
    x : array of the broadcast shape, the promoted dtype.

    Raises
    ------
    ValueError
        For an unknown ``assume_a``.
    NotImplementedError
        For ``transposed=True`` with complex ``a`` (as SciPy).

    Notes
    -----
    A composition of ``adcore.numpy.linalg.solve`` (Giles 2008, 2.3.1), ``solve_triangular``
    or a division on the part of ``a`` read, so the derivative with respect to ``a`` lives on
    that part (the function SciPy computes).
    """
    kind = _structure(assume_a, "solve", set(_ASSUME_A.values()))
    if transposed:
        if declare.iscomplexobj(a):
            raise NotImplementedError("solve: transposed=True is not supported for complex a (as in SciPy); pass a.T")
        a = _t(a)
    if kind in ("upper", "lower"):
        return solve_triangular(a, b, lower=kind == "lower")
    if kind == "diagonal":
        vector = anp.ndim(b) == 1
        return _as_given(anp.divide(_as_matrix(b, vector), anp.expand_dims(_diagonal(a), -1)), vector)
    return _np_linalg.solve(_read(a, kind, lower), b)


def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    """The inverse of each square matrix of ``a`` (``(..., m, m)``); SciPy's ``scipy.linalg.inv``.

    ``assume_a`` (``None``/``"gen"``, ``"diagonal"``, ``"upper triangular"``, ``"lower
    triangular"``, ``"pos"``, ``"sym"``, ``"her"``) and ``lower`` select the part of ``a`` read, as
    in ``solve``. A composition of ``adcore.numpy.linalg.inv`` (``d inv(a) = -inv(a) da inv(a)``,
    Giles 2008) or ``solve_triangular`` on that part.

    Raises
    ------
    ValueError
        For an unknown ``assume_a``.
    """
    kind = _structure(assume_a, "inv", {"gen", "diagonal", "upper", "lower", "pos", "sym", "her"})
    if kind in ("upper", "lower"):
        return solve_triangular(a, anp.eye_like(a), lower=kind == "lower")
    if kind == "diagonal":
        return _diag(anp.divide(1.0, _diagonal(a)))
    return _np_linalg.inv(_read(a, kind, lower))


def det(a, overwrite_a=False, check_finite=True):
    """The determinant of each square matrix of ``a``: ``adcore.numpy.linalg.det`` (its cofactor
    derivative, exact also at singular matrices for ``m <= 3``)."""
    return _np_linalg.det(a)


@primitive
def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` for the banded ``a`` stored in ``ab`` (SciPy's layout).

    Parameters
    ----------
    l_and_u : (int, int)
        The numbers ``(l, u)`` of non-zero lower and upper diagonals.
    ab : array, shape (..., l + u + 1, m)
        ``ab[u + i - j, j] = a[i, j]``; the corners outside ``a`` are not read.
    b : array, shape (m,) or (..., m, k)

    Returns
    -------
    x : array of the broadcast shape, the promoted dtype.

    Raises
    ------
    ValueError
        If ``ab`` does not have ``l + u + 1`` rows.

    Notes
    -----
    Derivative: that of ``solve`` (Giles 2008, 2.3.1) with ``da`` restricted to the band:
    ``dx = solve_banded((l, u), ab, db - da x)``; ``b_bar`` solves the transposed banded system
    (bandwidths ``(u, l)``), ``ab_bar`` is ``-b_bar x.T`` read back into band storage. The rules
    go through dense ``m x m`` matrices. Computed by ``scipy.linalg.solve_banded``, else by
    ``linalg.solve`` on the dense matrix.
    """
    l, u = l_and_u
    if anp.shape(ab)[-2] != l + u + 1:
        raise ValueError(
            f"solve_banded: ab must have l + u + 1 = {l + u + 1} rows for (l, u) = {(l, u)}, got shape {anp.shape(ab)}"
        )
    backend, fun = _library_function("solve_banded", ab, b)
    if fun is not None:
        return fun((l, u), ab, b)
    return backend.linalg.solve(_banded_to_dense(ab, l, u), b)


def _band_rows(l, u, m):
    """``(row, offset, start, stop)`` for each row of band storage: ``ab[row, start:stop]`` is the
    diagonal ``offset`` (``j - i``) of the dense matrix."""
    return [(row, u - row, builtins.max(u - row, 0), m + builtins.min(u - row, 0)) for row in range(l + u + 1)]


def _banded_to_dense(ab, l, u):
    """The dense matrices ``(..., m, m)`` of the band storage ``ab``; linear in ``ab``."""
    m = anp.shape(ab)[-1]
    dense = None
    for row, offset, start, stop in _band_rows(l, u, m):
        if stop > start:
            term = anp.diagonal_untake(ab[..., row, start:stop], offset, (m, m))
            dense = term if dense is None else anp.add(dense, term)
    return dense


def _dense_to_banded(a, l, u):
    """The band storage of the ``(l, u)`` band of ``a`` (zeros in the corners): the adjoint of ``_banded_to_dense``."""
    m, nd = anp.shape(a)[-1], anp.ndim(a)
    rows = [
        anp.pad(indexing.diagonal(a, offset, -2, -1), [(0, 0)] * (nd - 2) + [(start, m - stop)])
        for row, offset, start, stop in _band_rows(l, u, m)
    ]
    return anp.stack(rows, axis=-2)


def grad_solve_banded(argnums, ans, args, kwargs):
    (l, u), ab, b = args[:3]
    vector = anp.ndim(b) == 1
    ab_t = _dense_to_banded(_t(_banded_to_dense(ab, l, u)), u, l)
    metas = {1: metadata(ab), 2: metadata(b)}

    def vjp(g):
        g_b = solve_banded((u, l), ab_t, _as_matrix(g, vector))
        cotangents = {2: _as_given(g_b, vector)}
        if 1 in argnums:
            cotangents[1] = _dense_to_banded(anp.negative(_mm(g_b, _t(_as_matrix(ans, vector)))), l, u)
        return tuple(unbroadcast(cotangents[argnum], metas[argnum]) for argnum in argnums)

    return vjp


def jvp_solve_banded(argnums, gs, ans, args, kwargs):
    (l, u), ab, b = args[:3]
    tangents = dict(zip(argnums, gs))
    vector = anp.ndim(b) == 1
    rhs = _as_matrix(tangents[2], vector) if 2 in tangents else None
    if 1 in tangents:
        product = anp.negative(_mm(_banded_to_dense(tangents[1], l, u), _as_matrix(ans, vector)))
        rhs = product if rhs is None else anp.add(rhs, product)
    return broadcast(_as_given(solve_banded((l, u), ab, rhs), vector), ans)


defvjp_argnums(solve_banded, grad_solve_banded)
defjvp_argnums(solve_banded, jvp_solve_banded)


# ---- symmetric eigenproblems ----


def eigh(
    a,
    b=None,
    *,
    lower=True,
    eigvals_only=False,
    overwrite_a=False,
    overwrite_b=False,
    type=1,
    check_finite=True,
    subset_by_index=None,
    subset_by_value=None,
    driver=None,
):
    """Eigenvalues (ascending) and eigenvectors of a symmetric (Hermitian) ``a``, or of the
    generalized problem with a positive-definite ``b``; SciPy's ``scipy.linalg.eigh``.

    Parameters
    ----------
    a, b : arrays, shape (..., m, m)
        Only the lower (``lower=True``, the default) or upper triangle of each is read.
    type : {1, 2, 3}
        The generalized problem: ``a v = w b v`` (1), ``a b v = w v`` (2), ``b a v = w v`` (3).
    subset_by_index : (int, int), optional
        Keep the eigenvalues ``lo`` to ``hi`` (inclusive) of the ascending order.
    driver
        Accepted and ignored (the result does not depend on it).

    Returns
    -------
    w : array, shape (..., m) (or the subset), real
        Returned alone when ``eigvals_only``.
    v : array, shape (..., m, m) (or (..., m, k))
        Columns normalized as SciPy's: ``v.T b v = I`` (types 1, 2), ``v.T b^-1 v = I`` (type 3).

    Raises
    ------
    ValueError
        For a ``type`` other than 1, 2, 3.
    NotImplementedError
        For ``subset_by_value`` (its output shape depends on the values: select with
        ``subset_by_index`` or mask ``w``).

    Notes
    -----
    A composition: ``adcore.numpy.linalg.eigh`` (Giles 2008; Seeger et al. 2017; distinct
    eigenvalues for eigenvector derivatives) and, with ``b``, the Cholesky reduction
    ``c = l^-1 a l^-T`` (types 2, 3: ``l.T a l``) with ``b = l l.T`` and ``v = l^-T u`` (type 3:
    ``l u``), as LAPACK's ``sygv``. Eigenvectors are defined up to sign: differentiate functions
    that do not depend on it. Real input for derivatives.
    """
    if subset_by_value is not None:
        raise NotImplementedError(
            "eigh: subset_by_value is not supported (the number of eigenvalues returned depends on the values); "
            "use subset_by_index or select from the full result"
        )
    if type not in (1, 2, 3):
        raise ValueError(f"eigh: type must be 1, 2 or 3, got {type!r}")
    if b is None:
        c = a
    else:
        l_b = _np_linalg.cholesky(_symmetric(b, lower))
        a_s = _symmetric(a, lower)
        if type == 1:
            half = solve_triangular(l_b, a_s, "N", lower=True)
            c = _ct(solve_triangular(l_b, _ct(half), "N", lower=True))
        else:
            c = _mm(_ct(l_b), a_s, l_b)
    uplo = "L" if lower or b is not None else "U"
    if eigvals_only:
        w = _np_linalg.eigvalsh(c, UPLO=uplo)
        return w if subset_by_index is None else w[..., subset_by_index[0] : subset_by_index[1] + 1]
    w, v = _np_linalg.eigh(c, UPLO=uplo)
    if b is not None:
        v = _mm(l_b, v) if type == 3 else solve_triangular(l_b, v, "C", lower=True)
    if subset_by_index is not None:
        lo, hi = subset_by_index
        w, v = w[..., lo : hi + 1], v[..., :, lo : hi + 1]
    return w, v


# ---- matrix equations ----


@primitive
def solve_sylvester(a, b, q):
    """The solution ``x`` of ``a x + x b = q``.

    Parameters
    ----------
    a : array, shape (..., m, m)
    b : array, shape (..., n, n)
    q : array, shape (..., m, n)

    Returns
    -------
    x : array, shape (..., m, n), the promoted dtype.

    Notes
    -----
    Derivative (autograd's ``scipy/linalg.py``): ``a dx + dx b = dq - da x - x db``; cotangents
    ``q_bar = solve_sylvester(a.T, b.T, x_bar)``, ``a_bar = -q_bar x.T``, ``b_bar = -x.T q_bar``.
    Computed by ``scipy.linalg.solve_sylvester`` (Bartels-Stewart), else by ``linalg.solve`` on
    the Kronecker form ``(a (x) I + I (x) b.T) vec(x) = vec(q)``.
    """
    backend, fun = _library_function("solve_sylvester", a, b, q)
    if fun is not None:
        return fun(a, b, q)
    return _standard_sylvester(backend, a, b, q)


def grad_solve_sylvester(argnums, ans, args, kwargs):
    a, b, q = args
    metas = [metadata(x) for x in args]

    def vjp(g):
        g_q = solve_sylvester(_t(a), _t(b), g)
        cotangents = {0: lambda: anp.negative(_mm(g_q, _t(ans))), 1: lambda: anp.negative(_mm(_t(ans), g_q)), 2: lambda: g_q}
        return tuple(unbroadcast(cotangents[argnum](), metas[argnum]) for argnum in argnums)

    return vjp


def jvp_solve_sylvester(argnums, gs, ans, args, kwargs):
    a, b, q = args
    parts = {0: lambda g: anp.negative(_mm(g, ans)), 1: lambda g: anp.negative(_mm(ans, g)), 2: lambda g: g}
    rhs = None
    for argnum, g in zip(argnums, gs):
        part = parts[argnum](g)
        rhs = part if rhs is None else anp.add(rhs, part)
    return broadcast(solve_sylvester(a, b, rhs), ans)


defvjp_argnums(solve_sylvester, grad_solve_sylvester)
defjvp_argnums(solve_sylvester, jvp_solve_sylvester)


# ---- matrix functions ----


def _block_frechet(f, a, e):
    """``L_f(a, e)``: the upper right block of ``f([[a, e], [0, a]])`` (Higham 2008, theorem 3.6)."""
    m = anp.shape(a)[-1]
    zeros = dtypes.zeros_like(a)
    block = shapes.concatenate([shapes.concatenate([a, e], axis=-1), shapes.concatenate([zeros, a], axis=-1)], axis=-2)
    return f(block)[..., :m, m:]


@primitive
def expm(A):
    """The matrix exponential of each square matrix of ``A`` (``(..., m, m)``); same shape and dtype.

    Derivative: the Fréchet derivative ``L_exp(A, E)`` by the block formula (Al-Mohy and Higham
    2009; module notes): JVP ``L_exp(A, dA)``, VJP ``L_exp(A.T, G)``. Computed by
    ``scipy.linalg.expm`` (``cupyx`` on CuPy), else by scaling and squaring with the [13/13] Padé
    approximant (Higham 2005).

    >>> import adcore.numpy as np
    >>> expm(np.array([[0.0, 1.0], [0.0, 0.0]]))
    array([[1., 1.],
           [0., 1.]])
    """
    backend, fun = _library_function("expm", A)
    if fun is not None:
        return fun(A)
    return _standard_expm(backend, A)


defvjp(expm, lambda ans, A: lambda g: _block_frechet(expm, _t(A), g))
defjvp(expm, lambda g, ans, A: _block_frechet(expm, A, g))


@primitive
def sqrtm(A, disp=True, blocksize=64):
    """The principal square root ``X`` (``X @ X = A``) of each square matrix of ``A``.

    Dtypes: real input whose square root is real gives the input's real dtype on every backend.
    Real input whose square root is not real (eigenvalues on the negative real axis) gives a
    complex result, as SciPy, on numpy (SciPy's ``sqrtm``); on the other backends (the
    Denman-Beavers iteration, in the input's dtype) it raises ``ValueError``: pass a complex
    matrix there. ``blocksize`` is accepted and ignored.

    Raises
    ------
    NotImplementedError
        For ``disp=False`` (deprecated in SciPy; estimate the error as
        ``norm(X @ X - A) / norm(A)``).

    Notes
    -----
    Derivative (autograd's): ``X dX + dX X = dA``, so the JVP is ``solve_sylvester(X, X, dA)``
    and the VJP ``solve_sylvester(X.T, X.T, G)`` (real part for real ``A``). Computed by
    ``scipy.linalg.sqrtm``, else by the scaled product Denman-Beavers iteration.
    """
    if disp is not True:
        raise NotImplementedError(
            "sqrtm: disp=False (deprecated in SciPy) is not supported; estimate the error as norm(X @ X - A) / norm(A)"
        )
    backend, fun = _library_function("sqrtm", A)
    result = fun(A) if fun is not None else _standard_sqrtm(backend, A)
    return _same_precision(result, A, backend)


def grad_sqrtm(ans, A, disp=True, blocksize=64):
    meta = metadata(A)
    return lambda g: unbroadcast(solve_sylvester(_t(ans), _t(ans), g), meta)


defvjp(sqrtm, grad_sqrtm)
defjvp(sqrtm, lambda g, ans, A, disp=True, blocksize=64: broadcast(solve_sylvester(ans, ans, g), ans))


@primitive
def logm(A, disp=True):
    """The principal matrix logarithm of each square matrix of ``A`` (``expm(logm(A)) = A``).

    Real input whose logarithm is not real gives a complex result, as SciPy, on numpy (SciPy's
    ``logm``); on the other backends (computed in the input's dtype) it raises ``ValueError``: pass
    a complex matrix there. Real input with a real logarithm gives the input's real dtype on every
    backend; float32 input gives float32 (SciPy returns float64; here it computes in float64 and
    casts back).

    Raises
    ------
    NotImplementedError
        For ``disp=False`` (deprecated in SciPy).

    Notes
    -----
    Derivative: the Fréchet derivative by the block formula (Higham 2008, theorem 3.6;
    module notes): JVP ``L_log(A, dA)``, VJP ``L_log(A.T, G)``. Computed by
    ``scipy.linalg.logm`` (inverse scaling and squaring, Al-Mohy and Higham 2012), else by
    inverse scaling and squaring with ``sqrtm``'s iteration and Gauss-Legendre quadrature.
    """
    if disp is not True:
        raise NotImplementedError("logm: disp=False (deprecated in SciPy) is not supported")
    backend, fun = _library_function("logm", A)
    if fun is None:
        return _standard_logm(backend, A)
    wide = backend.astype(A, backend.dtype("complex128" if backend.isdtype(A.dtype, "complex floating") else "float64"))
    return _same_precision(fun(wide), A, backend)


def grad_logm(ans, A, disp=True):
    meta = metadata(A)
    return lambda g: unbroadcast(_block_frechet(logm, _t(A), g), meta)


defvjp(logm, grad_logm)
defjvp(logm, lambda g, ans, A, disp=True: broadcast(_block_frechet(logm, A, g), ans))


# ---- the standard-function forms (raw arrays; for backends without SciPy's functions) ----

#: Padé [13/13] coefficients and the 1-norm bound below which it is accurate to double precision (Higham 2005)
_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152
_MAX_ITERATIONS = 100


def _eye(backend, a):
    return backend.eye(a.shape[-1], dtype=a.dtype, device=backend.device(a))


def _max_abs(backend, x):
    """``max(abs(x))`` read on the host (a Python float)."""
    return float(backend.max(backend.abs(x))) if math.prod(x.shape) else 0.0


def _standard_expm(backend, a):
    """``expm`` by scaling and squaring with the [13/13] Padé approximant (Higham 2005, algorithm 2.3
    with the last degree only), from ``matmul`` and ``linalg.solve``."""
    norm = _max_abs(backend, backend.sum(backend.abs(a), axis=-2))
    squarings = builtins.max(0, math.ceil(math.log2(norm / _THETA13))) if norm > 0 else 0
    a = a / 2.0**squarings
    c, ident = _PADE13, _eye(backend, a)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (c[13] * a6 + c[11] * a4 + c[9] * a2) + c[7] * a6 + c[5] * a4 + c[3] * a2 + c[1] * ident)
    v = a6 @ (c[12] * a6 + c[10] * a4 + c[8] * a2) + c[6] * a6 + c[4] * a4 + c[2] * a2 + c[0] * ident
    result = backend.linalg.solve(v - u, v + u)
    for _ in range(squarings):
        result = result @ result
    return result


def _standard_sqrtm(backend, a):
    """``sqrtm`` by the scaled product form of the Denman-Beavers iteration (Higham 2008, eq. 6.29):
    ``y -> sqrt(a)`` as ``m -> I``, with determinantal scaling.

    Raises
    ------
    ValueError
        If it does not converge (eigenvalues on or near the closed negative real axis; SciPy's
        Schur method handles those on NumPy).
    """
    n, ident = a.shape[-1], _eye(backend, a)
    tolerance = 10 * n * float(backend.finfo(a.dtype).eps)
    m = y = a
    for _ in range(_MAX_ITERATIONS):
        mu = backend.abs(backend.linalg.det(m)) ** (-1.0 / (2 * n))
        mu = backend.reshape(mu, mu.shape + (1, 1))
        m_inv = backend.linalg.inv(m)
        y = 0.5 * mu * (y @ (ident + m_inv / mu**2))
        m = 0.5 * (ident + 0.5 * (mu**2 * m + m_inv / mu**2))
        if _max_abs(backend, m - ident) <= tolerance:
            return y
    raise ValueError(
        f"sqrtm: the Denman-Beavers iteration on the {backend.name} backend did not converge; the matrix may have "
        "eigenvalues on the closed negative real axis (use NumPy arrays, for SciPy's Schur method)"
    )


def _standard_logm(backend, a):
    """``logm`` by inverse scaling and squaring (Higham 2008, section 11.5): square roots until
    ``|a - I| <= 1/4``, then ``log(I + x) = integral_0^1 x (I + t x)^-1 dt`` by 8-point
    Gauss-Legendre quadrature (the [8/8] Padé approximant), times ``2**k``."""
    ident, roots = _eye(backend, a), 0
    while _max_abs(backend, backend.sum(backend.abs(a - ident), axis=-2)) > 0.25:
        if roots == _MAX_ITERATIONS:
            raise ValueError(f"logm: inverse scaling and squaring on the {backend.name} backend did not converge")
        a, roots = _standard_sqrtm(backend, a), roots + 1
    x = a - ident
    nodes, weights = _np.polynomial.legendre.leggauss(8)
    result = 0.0
    for node, weight in zip(nodes, weights):
        result = result + float(weight / 2) * backend.linalg.solve(ident + float((node + 1) / 2) * x, x)
    return 2.0**roots * result


def _standard_sylvester(backend, a, b, q):
    """``solve_sylvester`` from ``linalg.solve`` on the Kronecker form: with row-major ``vec``,
    ``(a (x) I_n + I_m (x) b.T) vec(x) = vec(q)``."""
    xp = backend.xp
    m, n = q.shape[-2:]
    eye_m = backend.reshape(_eye(backend, a), (m, 1, m, 1))
    eye_n = backend.reshape(_eye(backend, b), (1, n, 1, n))
    a4 = backend.reshape(a, a.shape[:-2] + (m, 1, m, 1))
    bt4 = backend.reshape(xp.matrix_transpose(b), b.shape[:-2] + (1, n, 1, n))
    kron = a4 * eye_n + eye_m * bt4
    kron = backend.reshape(kron, kron.shape[:-4] + (m * n, m * n))
    x = backend.linalg.solve(kron, backend.reshape(q, q.shape[:-2] + (m * n, 1)))
    return backend.reshape(x, x.shape[:-2] + (m, n))
