"""``adcore.scipy.linalg`` against finite differences, SciPy and closed-form derivatives.

The spec table checks every function in both modes to order 2, in float64 and
float32, on every backend, on well-conditioned inputs built inside the spec
function from an unconstrained one (``spd``, ``shifted`` as in ``test_linalg``).
On array-api-strict the primitives run their standard-function forms (``linalg.solve``
for triangular, banded and Sylvester systems; Padé, Denman-Beavers and inverse
scaling and squaring for ``expm``, ``sqrtm``, ``logm``); ``lu_factor`` has none and
is checked to raise there.
"""

import numpy
import pytest
import scipy.linalg

import adcore.numpy as np
import adcore.scipy.linalg as linalg
from adcore import grad, make_jvp, make_vjp
from specs import COMPLEX, SCIPY_BACKENDS, R, Spec, U, spec_tests

NO_LU = {"array_api_strict": "the Array API standard has no LU factorization (lu_factor is checked to raise there)"}


def spd(x):
    """A symmetric positive-definite matrix (stack) from any square ``x``."""
    return np.matmul(x, np.matrix_transpose(x)) + float(x.shape[-1]) * np.eye_like(x)


def shifted(x):
    """A well-conditioned square matrix (stack) from ``x`` with entries in ``U``, eigenvalues near ``n``."""
    return x + float(x.shape[-1]) * np.eye_like(x)


def dominant_band(ab, u):
    """Band storage ``ab`` with 5 added to the main diagonal (row ``u``): a well-conditioned banded matrix."""
    return np.concatenate([ab[..., :u, :], ab[..., u : u + 1, :] + 5.0, ab[..., u + 1 :, :]], axis=-2)


def flat(*arrays):
    return np.concatenate([np.reshape(a, (-1,)) for a in arrays])


def spec(name, fun, *shapes, domains=(R, R, R), **options):
    return Spec(name, fun, shapes, domains, **options)


def eigh_matrix_function(x, **options):
    w, v = linalg.eigh(spd(x), **options)
    return v @ (np.sin(w)[..., None] * np.matrix_transpose(v))


def generalized_eigh(a, b, **options):
    """Sign-invariant functions of the generalized eigenvectors: ``v * v`` and ``v diag(w) v.T``."""
    w, v = linalg.eigh(spd(a), spd(b), **options)
    return flat(w, v * v, v @ (w[..., None] * np.matrix_transpose(v)))


SPECS = [
    # triangular systems
    spec("solve_triangular", lambda a, b: linalg.solve_triangular(shifted(a), b), (3, 3), (3, 2), domains=(U, R)),
    spec(
        "solve_triangular_lower_T_unit_stack",
        lambda a, b: linalg.solve_triangular(a, b, trans="T", lower=True, unit_diagonal=True),
        (2, 3, 3),
        (3,),
        domains=(U, R),
    ),
    spec("solve_triangular_C", lambda a, b: linalg.solve_triangular(shifted(a), b, trans=2), (3, 3), (3,), domains=(U, R)),
    spec(
        "solve_triangular_complex",
        lambda a, b: linalg.solve_triangular(shifted(a), b, trans=1, lower=True),
        (3, 3),
        (3, 2),
        domains=(U, R),
        dtypes=COMPLEX,
    ),
    # LU
    spec("lu_factor", lambda a: linalg.lu_factor(shifted(a))[0], (3, 3), domains=(U,), skip=NO_LU),
    spec("lu_factor_pivoting_stack", lambda a: linalg.lu_factor(a)[0], (2, 3, 3), skip=NO_LU),
    spec("lu_solve", lambda a, b: linalg.lu_solve(linalg.lu_factor(a), b), (3, 3), (3, 2), skip=NO_LU),
    spec("lu_solve_T_vector", lambda a, b: linalg.lu_solve(linalg.lu_factor(a), b, trans=1), (3, 3), (3,), skip=NO_LU),
    # Cholesky
    spec("cholesky_upper", lambda a: linalg.cholesky(spd(a)), (3, 3)),
    spec("cholesky_lower_reads_lower", lambda a: linalg.cholesky(shifted(a), lower=True), (2, 3, 3), domains=(U,)),
    spec("cho_solve_lower", lambda a, b: linalg.cho_solve(linalg.cho_factor(spd(a), lower=True), b), (3, 3), (3,)),
    spec("cho_solve_upper", lambda a, b: linalg.cho_solve(linalg.cho_factor(spd(a)), b), (3, 3), (3, 2)),
    # general systems, inverse, determinant
    spec("solve", lambda a, b: linalg.solve(shifted(a), b), (2, 3, 3), (3, 2), domains=(U, R)),
    spec("solve_transposed", lambda a, b: linalg.solve(shifted(a), b, transposed=True), (3, 3), (3,), domains=(U, R)),
    spec("solve_sym_lower", lambda a, b: linalg.solve(shifted(a), b, assume_a="sym", lower=True), (3, 3), (3,), domains=(U, R)),
    spec("solve_pos_upper", lambda a, b: linalg.solve(spd(a), b, assume_a="pos"), (3, 3), (3, 2)),
    spec("solve_diagonal", lambda a, b: linalg.solve(shifted(a), b, assume_a="diagonal"), (3, 3), (3,), domains=(U, R)),
    spec("solve_tridiagonal", lambda a, b: linalg.solve(shifted(a), b, assume_a="tridiagonal"), (4, 4), (4,), domains=(U, R)),
    spec(
        "solve_lower_triangular",
        lambda a, b: linalg.solve(shifted(a), b, assume_a="lower triangular"),
        (3, 3),
        (3, 2),
        domains=(U, R),
    ),
    spec("solve_complex", lambda a, b: linalg.solve(shifted(a), b), (3, 3), (3,), domains=(U, R), dtypes=COMPLEX),
    spec("inv", lambda a: linalg.inv(shifted(a)), (2, 3, 3), domains=(U,)),
    spec("inv_pos_lower", lambda a: linalg.inv(spd(a), assume_a="pos", lower=True), (3, 3)),
    spec("inv_diagonal", lambda a: linalg.inv(shifted(a), assume_a="diagonal"), (3, 3), domains=(U,)),
    spec("inv_upper_triangular", lambda a: linalg.inv(shifted(a), assume_a="upper triangular"), (3, 3), domains=(U,)),
    spec("det", linalg.det, (2, 3, 3)),
    spec("solve_banded", lambda ab, b: linalg.solve_banded((1, 2), dominant_band(ab, 2), b), (4, 5), (5,)),
    spec("solve_banded_stack", lambda ab, b: linalg.solve_banded((2, 0), dominant_band(ab, 0), b), (2, 3, 4), (4, 2)),
    # symmetric eigenproblems
    spec("eigh_upper", lambda a: eigh_matrix_function(a, lower=False), (3, 3)),
    spec("eigh_values_only", lambda a: linalg.eigh(spd(a), eigvals_only=True), (2, 3, 3)),
    spec("eigh_subset", lambda a: linalg.eigh(spd(a), subset_by_index=(1, 2))[0], (3, 3)),
    spec("eigh_generalized", generalized_eigh, (3, 3), (3, 3)),
    spec("eigh_generalized_type3_upper", lambda a, b: generalized_eigh(a, b, type=3, lower=False), (3, 3), (3, 3)),
    # matrix equations and functions
    spec(
        "solve_sylvester",
        lambda a, b, q: linalg.solve_sylvester(shifted(a), shifted(b), q),
        (3, 3),
        (2, 2),
        (3, 2),
        domains=(U, U, R),
    ),
    spec("expm", linalg.expm, (3, 3)),
    spec("expm_stack", linalg.expm, (2, 2, 2)),
    spec("expm_complex", linalg.expm, (2, 2), dtypes=COMPLEX),
    spec("sqrtm", lambda a: linalg.sqrtm(shifted(a)), (3, 3), domains=(U,)),
    spec("logm", lambda a: linalg.logm(shifted(a)), (3, 3), domains=(U,), full_only=("dask",)),
]

test_derivatives, test_value_matches_numpy = spec_tests(SPECS)

#: logm on Dask builds large graphs (its Padé steps matrix by matrix): seconds per check, the default run's slowest.
LOGM_ON_DASK_IN_FULL_RUN = pytest.mark.full("dask")


# ---- values against SciPy (float64, raw calls on the backend) ----


def _matrix(shape, seed=1):
    return numpy.random.default_rng(seed).uniform(-1.0, 1.0, size=shape)


A = _matrix((3, 3)) + 3.0 * numpy.eye(3)
A_STACK = _matrix((2, 3, 3), seed=4) + 3.0 * numpy.eye(3)
S = A @ A.T
B = _matrix((3, 2), seed=2)
V = _matrix((3,), seed=3)
AB = _matrix((4, 5), seed=5) + numpy.array([[0.0], [0.0], [5.0], [0.0]])

VALUE_CASES = {
    "solve_triangular": (linalg.solve_triangular, scipy.linalg.solve_triangular, (A, B), {"trans": 1, "lower": True}),
    "solve_triangular_unit": (linalg.solve_triangular, scipy.linalg.solve_triangular, (A_STACK, V), {"unit_diagonal": True}),
    "cholesky": (linalg.cholesky, scipy.linalg.cholesky, (S,), {}),
    "cholesky_lower": (linalg.cholesky, scipy.linalg.cholesky, (S,), {"lower": True}),
    "solve": (linalg.solve, scipy.linalg.solve, (A_STACK, V), {}),
    "solve_sym": (linalg.solve, scipy.linalg.solve, (A, B), {"assume_a": "sym"}),
    "solve_pos": (linalg.solve, scipy.linalg.solve, (S, B), {"assume_a": "pos", "lower": True}),
    "solve_tridiagonal": (linalg.solve, scipy.linalg.solve, (A, V), {"assume_a": "tridiagonal"}),
    "solve_upper_triangular": (linalg.solve, scipy.linalg.solve, (A, B), {"assume_a": "upper triangular"}),
    "inv": (linalg.inv, scipy.linalg.inv, (A_STACK,), {}),
    "inv_pos": (linalg.inv, scipy.linalg.inv, (S,), {"assume_a": "pos"}),
    "inv_lower_triangular": (linalg.inv, scipy.linalg.inv, (A,), {"assume_a": "lower triangular"}),
    "det": (linalg.det, scipy.linalg.det, (A_STACK,), {}),
    "solve_banded": (
        lambda ab, b: linalg.solve_banded((1, 2), ab, b),
        lambda ab, b: scipy.linalg.solve_banded((1, 2), ab, b),
        (AB, _matrix((5,), seed=6)),
        {},
    ),
    "solve_sylvester": (linalg.solve_sylvester, scipy.linalg.solve_sylvester, (A, S[:2, :2], _matrix((3, 2))), {}),
    "expm": (linalg.expm, scipy.linalg.expm, (A_STACK,), {}),
    "expm_large_norm": (linalg.expm, scipy.linalg.expm, (4.0 * A,), {}),
    "sqrtm": (linalg.sqrtm, scipy.linalg.sqrtm, (A_STACK,), {}),
    "logm": (linalg.logm, scipy.linalg.logm, (S,), {}),
    "eigh_values": (lambda a: linalg.eigh(a)[0], lambda a: scipy.linalg.eigh(a)[0], (S,), {}),
    "eigh_generalized_values": (
        lambda a, b: linalg.eigh(a, b, type=2)[0],
        lambda a, b: scipy.linalg.eigh(a, b, type=2)[0],
        (A @ A.T, S + numpy.eye(3)),
        {},
    ),
}


def _scipy_value(theirs, arrays, options):
    """SciPy's value; a stack of matrices in the first argument taken matrix by matrix (SciPy before 1.16
    takes one matrix per call)."""
    first, *rest = arrays
    if first.ndim == 3:
        return numpy.stack([theirs(matrix, *rest, **options) for matrix in first])
    return theirs(*arrays, **options)


@pytest.mark.parametrize("name", VALUE_CASES)
def test_values_match_scipy(name, backend):
    """Raw calls agree with ``scipy.linalg`` in float64 and stay on the input's backend and device
    (on array-api-strict: the standard-function forms)."""
    ours, theirs, arrays, options = VALUE_CASES[name]
    try:
        expected = _scipy_value(theirs, arrays, options)
    except (TypeError, ValueError) as error:  # inv's assume_a (SciPy 1.17), solve's "tridiagonal" (1.15)...
        if not options:
            raise
        pytest.skip(f"SciPy {scipy.__version__} refuses {options} ({error}): nothing to compare with")
    result = ours(*[backend.asarray(a) for a in arrays], **options)
    backend.check_device(result)
    numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("eigh_type", [1, 2, 3])
def test_generalized_eigenvectors_match_scipy_up_to_sign(lower, eigh_type):
    a, b = A @ A.T, S + numpy.eye(3)
    w, v = linalg.eigh(a, b, lower=lower, type=eigh_type)
    w_s, v_s = scipy.linalg.eigh(a, b, lower=lower, type=eigh_type)
    numpy.testing.assert_allclose(w, w_s, rtol=1e-10)
    numpy.testing.assert_allclose(numpy.abs(v), numpy.abs(v_s), rtol=1e-8, atol=1e-10)


def test_lu_factor_matches_scipy_and_lu_solve_runs_on_every_backend(backend):
    pivoted = _matrix((2, 3, 3), seed=8)
    factors = [scipy.linalg.lu_factor(matrix) for matrix in pivoted]  # one matrix per call, as every SciPy takes
    lu, piv = numpy.stack([f[0] for f in factors]), numpy.stack([f[1] for f in factors])
    assert numpy.any(piv != numpy.arange(3))  # rows are interchanged
    if backend.name == "numpy":
        ours_lu, ours_piv = linalg.lu_factor(pivoted)
        numpy.testing.assert_array_equal(ours_lu, lu)
        numpy.testing.assert_array_equal(ours_piv, piv)
    for trans in (0, 1, 2):
        for b in (V, _matrix((3, 2))):
            x = linalg.lu_solve((backend.asarray(lu), backend.asarray(piv, "int32")), backend.asarray(b), trans=trans)
            backend.check_device(x)
            expected = numpy.stack([scipy.linalg.lu_solve(f, b, trans=trans) for f in factors])
            numpy.testing.assert_allclose(backend.to_numpy(x), expected, rtol=1e-10)


def test_lu_factor_raises_naming_the_backend_without_one(backend):
    if backend.name in SCIPY_BACKENDS:
        pytest.skip(f"{backend.name} has SciPy's lu_factor (cupyx.scipy.linalg's on cupy): the spec table checks it")
    with pytest.raises(NotImplementedError, match=f"the {backend.name} backend has no scipy.linalg.lu_factor"):
        linalg.lu_factor(backend.asarray(A))


def test_cho_factor_returns_the_factor_and_the_flag():
    c, lower = linalg.cho_factor(S, lower=True)
    assert lower is True
    numpy.testing.assert_allclose(c, numpy.linalg.cholesky(S), rtol=1e-12)
    numpy.testing.assert_allclose(linalg.cho_solve((c, lower), B), scipy.linalg.cho_solve(scipy.linalg.cho_factor(S, True), B))


def test_inv_diagonal_is_the_inverse_of_the_diagonal():
    """SciPy 1.17 reads only the diagonal but leaves ``a``'s off-diagonal entries in its result;
    adcore returns the inverse of the matrix read."""
    numpy.testing.assert_allclose(linalg.inv(A, assume_a="diagonal"), numpy.diag(1.0 / numpy.diag(A)), rtol=1e-14)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["expm", "sqrtm", pytest.param("logm", marks=LOGM_ON_DASK_IN_FULL_RUN)])
def test_matrix_functions_keep_the_precision(name, dtype, backend):
    a = backend.asarray(S / 10.0, dtype)
    result = getattr(linalg, name)(a)
    assert str(result.dtype).endswith(dtype)
    g = grad(lambda x: np.sum(getattr(linalg, name)(x)))(a)
    assert str(g.dtype).endswith(dtype)
    backend.check_device(g)


# ---- exact derivatives ----

D = numpy.array([0.5, 1.0, 2.0])
E = _matrix((3, 3), seed=7)


def _divided_differences(f, df, d):
    """``F[i, j] = (f(d_i) - f(d_j)) / (d_i - d_j)``, ``f'(d_i)`` on the diagonal: the Fréchet
    derivative of a matrix function at ``diag(d)`` is ``F * E`` (Higham 2008, theorem 3.11)."""
    gaps = d[:, None] - d[None, :]
    same = gaps == 0
    return numpy.where(same, df(d)[:, None] + 0 * gaps, (f(d)[:, None] - f(d)[None, :]) / numpy.where(same, 1.0, gaps))


@pytest.mark.parametrize(
    "name, f, df",
    [
        ("expm", numpy.exp, numpy.exp),
        ("sqrtm", numpy.sqrt, lambda d: 0.5 / numpy.sqrt(d)),
        pytest.param("logm", numpy.log, lambda d: 1.0 / d, marks=LOGM_ON_DASK_IN_FULL_RUN),
    ],
)
def test_frechet_derivatives_at_a_diagonal_matrix(name, f, df, backend):
    """At ``diag(d)`` both modes give the divided differences times the direction, exactly."""
    fun = getattr(linalg, name)
    a = backend.asarray(numpy.diag(D))
    expected = _divided_differences(f, df, D) * E
    value, tangent = make_jvp(fun)(a)(backend.asarray(E))
    numpy.testing.assert_allclose(backend.to_numpy(value), numpy.diag(f(D)), rtol=1e-12, atol=1e-14)
    numpy.testing.assert_allclose(backend.to_numpy(tangent), expected, rtol=1e-10, atol=1e-12)
    vjp, _ = make_vjp(fun)(a)
    numpy.testing.assert_allclose(backend.to_numpy(vjp(backend.asarray(E))), expected, rtol=1e-10, atol=1e-12)


def test_expm_of_a_nilpotent_matrix(backend):
    """``expm(t N) = I + t N + t^2 N^2 / 2`` for the 3x3 shift ``N``, so ``d/dt`` at 1 is ``N + N^2``."""
    n = numpy.diag([1.0, 1.0], 1)
    value, tangent = make_jvp(lambda t: linalg.expm(t * backend.asarray(n)))(backend.asarray(1.0))(backend.asarray(1.0))
    numpy.testing.assert_allclose(backend.to_numpy(value), numpy.eye(3) + n + n @ n / 2, atol=1e-14)
    numpy.testing.assert_allclose(backend.to_numpy(tangent), n + n @ n, atol=1e-13)


@pytest.mark.parametrize("lower, unit_diagonal", [(False, False), (True, True)])
def test_solve_triangular_reads_one_triangle(lower, unit_diagonal, backend):
    """The other triangle (and a unit diagonal) gets a zero gradient: SciPy never reads it."""
    read = (numpy.tril(numpy.ones((3, 3)), -1 if unit_diagonal else 0) if lower else numpy.triu(numpy.ones((3, 3)))) == 1
    b = backend.asarray(V)
    g = grad(lambda x: np.sum(linalg.solve_triangular(x, b, lower=lower, unit_diagonal=unit_diagonal)))(backend.asarray(A))
    g = backend.to_numpy(g)
    assert numpy.all(g[~read] == 0.0) and numpy.all(g[read] != 0.0)


def test_sqrtm_hessian_vector_product_matches_finite_differences():
    """Forward over reverse through the Sylvester rules: the HVP of ``sum(sqrtm(a)**2)``."""

    def f(x):
        return np.sum(linalg.sqrtm(x) ** 2)

    v = _matrix((3, 3), seed=9)
    _, hvp = make_jvp(grad(f))(S)(v)
    step = 1e-5
    expected = (grad(f)(S + step * v) - grad(f)(S - step * v)) / (2 * step)
    numpy.testing.assert_allclose(hvp, expected, rtol=1e-6, atol=1e-8)


# ---- errors ----


def test_errors_name_the_function_and_the_way_out():
    with pytest.raises(ValueError, match="solve_triangular: trans must be"):
        linalg.solve_triangular(A, V, trans="X")
    with pytest.raises(ValueError, match="solve: assume_a must be"):
        linalg.solve(A, V, assume_a="orthogonal")
    with pytest.raises(ValueError, match="inv: assume_a must be"):
        linalg.inv(A, assume_a="tridiagonal")
    with pytest.raises(NotImplementedError, match="transposed=True is not supported for complex"):
        linalg.solve(A + 0j, V, transposed=True)
    with pytest.raises(NotImplementedError, match="subset_by_value"):
        linalg.eigh(S, subset_by_value=(0.0, 1.0))
    with pytest.raises(ValueError, match="type must be 1, 2 or 3"):
        linalg.eigh(S, S, type=4)
    with pytest.raises(NotImplementedError, match="disp=False"):
        linalg.sqrtm(S, disp=False)
    with pytest.raises(NotImplementedError, match="trans='T' instead"):
        grad(lambda a: np.real(np.sum(linalg.solve_triangular(a, V, trans="C"))))(A + 1j * E)
    with pytest.raises(NotImplementedError, match="square matrices"):
        grad(lambda a: np.sum(linalg.lu_factor(a)[0]))(_matrix((3, 2)))


def test_sqrtm_standard_iteration_says_when_it_cannot_converge():
    strict = pytest.importorskip("array_api_strict")
    with pytest.raises(ValueError, match="negative real axis"):
        linalg.sqrtm(strict.asarray(numpy.diag([-1.0, 4.0])))
