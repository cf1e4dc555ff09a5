"""The rest of scipy.linalg (``adcore/scipy/linalg_compositions.py``): derivatives of the compositions on every
backend, values against SciPy's own functions, and the names adcore runs without a derivative."""

import numpy
import pytest
import scipy.linalg

import adcore.numpy as np
import adcore.scipy.linalg as linalg
from adcore import grad
from specs import OTHER_BACKENDS, P, R, U, cases, spec_tests

LU = {name: "needs an LU factorization (SciPy or CuPy)" for name in OTHER_BACKENDS}
NO_EIG = {"dask": "linalg.eig's dtype depends on the values (not lazy)"}
SYLVESTER = {"dask": "solve_sylvester runs matrix by matrix; its Kronecker form is refused on Dask"}


def _spd(a):
    """A symmetric positive-definite matrix from any square ``a``."""
    return np.add(np.matmul(a, np.matrix_transpose(a)), np.multiply(np.eye_like(a), 3.0))


def _well_conditioned(a):
    return np.add(a, np.multiply(np.eye_like(a), 3.0))


def _band(ab):
    """Upper band storage of a diagonally dominant matrix: the diagonal row made large."""
    return np.concatenate([ab[:-1, :], np.add(ab[-1:, :], 4.0)], axis=0)


SPECS = [
    # special matrices
    *cases("block_diag", lambda a, b: linalg.block_diag(a, b, 2.0), ((2, 3), (1,))),
    *cases("toeplitz", lambda c, r: linalg.toeplitz(c, r), ((3,), (4,))),
    *cases("hankel", lambda c, r: linalg.hankel(c, r), ((3,), (2,))),
    *cases("circulant", lambda c: linalg.circulant(c), ((2, 3),)),
    *cases("companion", lambda a: linalg.companion(a), ((4,),), (P,)),
    *cases("convolution_matrix", lambda a: linalg.convolution_matrix(a, 3, "same"), ((4,),)),
    *cases("fiedler", lambda a: linalg.fiedler(a), ((3,),)),
    *cases("fiedler_companion", lambda a: linalg.fiedler_companion(a), ((6,),), (P,)),
    *cases("leslie", lambda f, s: linalg.leslie(f, s), ((3,), (2,))),
    *cases("khatri_rao", lambda a, b: linalg.khatri_rao(a, b), ((2, 3), (2, 3))),
    *cases("diagsvd", lambda s: linalg.diagsvd(s, 2, 3), ((2,),)),
    # decompositions in SciPy's conventions
    *cases("eigvals", lambda a: np.real(linalg.eigvals(_spd(a))), ((3, 3),), skip=NO_EIG),
    *cases("eig_symmetric", lambda a: np.abs(linalg.eig(_spd(a))[1]), ((3, 3),), skip=NO_EIG),
    *cases("eigvalsh", lambda a: linalg.eigvalsh(_spd(a)), ((3, 3),)),
    *cases("svdvals", lambda a: linalg.svdvals(a), ((3, 2),)),
    *cases("norm", lambda a: linalg.norm(a, 1), ((3, 2),)),
    *cases("qr_r", lambda a: linalg.qr(a, mode="r")[0], ((3, 2),)),
    *cases("rq", lambda a: np.concatenate([np.ravel(f) for f in linalg.rq(a, mode="economic")]), ((2, 3),)),
    *cases("qr_multiply", lambda a, c: linalg.qr_multiply(a, c)[0], ((3, 2), (2, 3))),
    *cases("lu", lambda a: np.concatenate([np.ravel(f) for f in linalg.lu(_well_conditioned(a))[1:]]), ((3, 3),), (U,), skip=LU),
    *cases("lstsq", lambda a, b: linalg.lstsq(a, b)[0], ((4, 2), (4,))),
    *cases("pinv", lambda a: linalg.pinv(a), ((3, 2),)),
    *cases("pinvh", lambda a: linalg.pinvh(_spd(a)), ((3, 3),)),
    *cases("polar", lambda a: np.concatenate([np.ravel(f) for f in linalg.polar(_well_conditioned(a))]), ((2, 2),), (U,)),
    *cases("orthogonal_procrustes", lambda a, b: linalg.orthogonal_procrustes(a, b)[0], ((3, 2), (3, 2))),
    *cases("orth_projector", lambda a: np.matmul(linalg.orth(a), np.matrix_transpose(linalg.orth(a))), ((3, 2),)),
    *cases("subspace_angles", lambda a, b: linalg.subspace_angles(a, b), ((4, 2), (4, 1))),
    # matrix functions
    *cases("cosm", lambda a: linalg.cosm(a), ((2, 2),), (U,)),
    *cases("sinm", lambda a: linalg.sinm(a), ((2, 2),), (U,)),
    *cases("tanm", lambda a: linalg.tanm(a), ((2, 2),), ((-0.3, 0.3),)),
    *cases("coshm", lambda a: linalg.coshm(a), ((2, 2),), (U,)),
    *cases("sinhm", lambda a: linalg.sinhm(a), ((2, 2),), (U,)),
    *cases("tanhm", lambda a: linalg.tanhm(a), ((2, 2),), (U,)),
    *cases("signm", lambda a: linalg.signm(_spd(a)), ((2, 2),), (U,)),
    *cases("fractional_matrix_power", lambda a: linalg.fractional_matrix_power(_spd(a), 0.5), ((2, 2),), (U,)),
    *cases("expm_frechet", lambda a, e: linalg.expm_frechet(a, e)[1], ((2, 2), (2, 2)), (U, R)),
    # structured problems
    *cases("solve_toeplitz", lambda c, r, b: linalg.solve_toeplitz((np.add(c, 4.0), r), b), ((3,), (3,), (3,)), (U, U, R)),
    *cases("matmul_toeplitz", lambda c, x: linalg.matmul_toeplitz(c, x), ((3,), (3, 2))),
    *cases(
        "solve_circulant",
        lambda c, b: linalg.solve_circulant(np.concatenate([np.add(c[:1], 4.0), c[1:]]), b),
        ((3,), (3,)),
        (U, R),
    ),
    *cases("solveh_banded", lambda ab, b: linalg.solveh_banded(_band(ab), b), ((2, 3), (3,)), (U, R)),
    *cases("cholesky_banded", lambda ab: linalg.cholesky_banded(_band(ab)), ((2, 3),), (U,)),
    *cases("eigvals_banded", lambda ab: linalg.eigvals_banded(_band(ab)), ((2, 3),), (U,)),
    *cases("eigvalsh_tridiagonal", lambda d, e: linalg.eigvalsh_tridiagonal(d, e), ((3,), (2,))),
    *cases(
        "solve_continuous_lyapunov", lambda a, q: linalg.solve_continuous_lyapunov(a, q), ((2, 2), (2, 2)), (U, R), skip=SYLVESTER
    ),
    *cases(
        "solve_discrete_lyapunov", lambda a, q: linalg.solve_discrete_lyapunov(np.multiply(a, 0.5), q), ((2, 2), (2, 2)), (U, R)
    ),
]

test_derivatives, test_value_matches_numpy = spec_tests(SPECS)

RNG = numpy.random.default_rng(1)
A = RNG.normal(size=(4, 4))
S = A @ A.T + 4 * numpy.eye(4)
B, C, WIDE = RNG.normal(size=(4, 3)), RNG.normal(size=4), RNG.normal(size=(3, 5))
BAND = numpy.array([[0, 1.0, 0.5, 0.2], [4.0, 5, 6, 7]])

#: name -> a call made with ``m`` = adcore.scipy.linalg and with ``m`` = scipy.linalg, whose results must agree
AGAINST_SCIPY = {
    "block_diag": lambda m: m.block_diag(A[:2, :3], 2.0, C),
    "toeplitz_conjugate_row": lambda m: m.toeplitz(C + 1j * C[::-1]),
    "hankel_zeros": lambda m: m.hankel(C),
    "convolution_matrix_full": lambda m: m.convolution_matrix(C, 3),
    "convolution_matrix_same_wide": lambda m: m.convolution_matrix(C[:2], 5, "same"),
    "convolution_matrix_valid": lambda m: m.convolution_matrix(C, 3, "valid"),
    "fiedler_companion": lambda m: m.fiedler_companion(numpy.arange(1.0, 8)),
    "fiedler_companion_3": lambda m: m.fiedler_companion(C[:3]),
    "diagsvd": lambda m: m.diagsvd(C[:3], 3, 5),
    "dft": lambda m: m.dft(3),
    "hadamard": lambda m: m.hadamard(4),
    "pascal": lambda m: m.pascal(4),
    "bandwidth": lambda m: numpy.array(m.bandwidth(numpy.triu(A, -1) - numpy.triu(A, 3))),
    "issymmetric": lambda m: m.issymmetric(S),
    "ishermitian": lambda m: m.ishermitian(A),
    "eig_values": lambda m: m.eig(A)[0],
    "eig_vectors_magnitudes": lambda m: numpy.abs(m.eig(A)[1]),
    "eig_vectors_real": lambda m: m.eig(S)[1],
    "eigvals_homogeneous": lambda m: m.eigvals(A, homogeneous_eigvals=True),
    "svd": lambda m: m.svd(B)[2],
    "norm_2": lambda m: m.norm(B, 2),
    "qr_full": lambda m: m.qr(B)[0],
    "qr_economic": lambda m: m.qr(B, mode="economic")[1],
    "qr_r": lambda m: m.qr(B, mode="r")[0],
    "qr_pivoting": lambda m: m.qr(B, pivoting=True)[1],
    "qr_pivots": lambda m: m.qr(B, pivoting=True)[2],
    "qr_multiply_left": lambda m: m.qr_multiply(B, WIDE[:, :2], mode="left")[0],
    "rq_wide": lambda m: m.rq(WIDE)[0],
    "rq_wide_q": lambda m: m.rq(WIDE)[1],
    "rq_tall_q": lambda m: m.rq(B)[1],
    "rq_r": lambda m: m.rq(B, mode="r"),
    "lu_p": lambda m: m.lu(A)[0],
    "lu_permute_l": lambda m: m.lu(A, permute_l=True)[0],
    "lu_indices": lambda m: m.lu(A, p_indices=True)[0],
    "lstsq_residues_vector": lambda m: m.lstsq(B, C)[1],
    "lstsq_residues_matrix": lambda m: m.lstsq(B, A)[1],
    "lstsq_rank": lambda m: m.lstsq(B, C)[2],
    "pinv_atol": lambda m: m.pinv(B, atol=1.5),
    "pinv_rank": lambda m: m.pinv(B, return_rank=True)[1],
    "pinvh": lambda m: m.pinvh(S),
    "polar_left": lambda m: m.polar(B, "left")[1],
    "null_space": lambda m: numpy.abs(m.null_space(WIDE)),
    "orth": lambda m: numpy.abs(m.orth(B)),
    "orthogonal_procrustes_scale": lambda m: m.orthogonal_procrustes(B, B[::-1])[1],
    # the branch for fewer columns in a than in b; not A[:, :2] with B: two planes and a 3-space of R^4 meet, and
    # SciPy's algorithm gives the zero angle as arccos of a cosine within ulps of 1 (rounding of about 1e-8)
    "subspace_angles_swapped": lambda m: m.subspace_angles(A[:, :1], B[:, :2]),
    "cdf2rdf_w": lambda m: m.cdf2rdf(*numpy.linalg.eig(A))[0],
    "cdf2rdf_v": lambda m: m.cdf2rdf(*numpy.linalg.eig(A))[1],
    "cosm_complex": lambda m: m.cosm(A / 3 + 1j * S / 10),
    "sinm": lambda m: m.sinm(A / 3),
    "tanhm": lambda m: m.tanhm(A / 3),
    "signm": lambda m: m.signm(S - 5 * numpy.eye(4)),
    "fractional_matrix_power_integer": lambda m: m.fractional_matrix_power(S, 2),
    "expm_frechet": lambda m: m.expm_frechet(A / 3, B @ WIDE[:, :4])[1],
    "solve_toeplitz": lambda m: m.solve_toeplitz((C + 3, C[::-1]), C),
    "solve_circulant": lambda m: m.solve_circulant(C + numpy.array([3, 0, 0, 0]), B),
    "solveh_banded_lower": lambda m: m.solveh_banded(BAND[::-1], C, lower=True),
    "cholesky_banded_lower": lambda m: m.cholesky_banded(numpy.array([[4.0, 5, 6, 7], [1.0, 0.5, 0.2, 0]]), lower=True),
    "cho_solve_banded": lambda m: m.cho_solve_banded((scipy.linalg.cholesky_banded(BAND), False), C),
    "eig_banded_vectors": lambda m: numpy.abs(m.eig_banded(BAND)[1]),
    "eigh_tridiagonal_vectors": lambda m: numpy.abs(m.eigh_tridiagonal(C, C[:3])[1]),
    "solve_continuous_lyapunov": lambda m: m.solve_continuous_lyapunov(A - 3 * numpy.eye(4), S),
    "solve_discrete_lyapunov": lambda m: m.solve_discrete_lyapunov(A / 3, S),
    "schur": lambda m: m.schur(A)[0],
    "LinAlgWarning": lambda m: numpy.array(m.LinAlgWarning is scipy.linalg.LinAlgWarning),
}


@pytest.mark.parametrize("name", AGAINST_SCIPY)
def test_values_match_scipys_own_functions(name):
    call = AGAINST_SCIPY[name]
    ours, theirs = numpy.asarray(call(linalg)), numpy.asarray(call(scipy.linalg))
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)


WITHOUT_DERIVATIVE = {
    "schur": lambda m, a: m.schur(a)[0],
    "hessenberg": lambda m, a: m.hessenberg(a),
    "solve_continuous_are": lambda m, a: m.solve_continuous_are(a, numpy.eye(2), numpy.eye(2), numpy.eye(2)),
    "funm": lambda m, a: m.funm(a, numpy.exp),
}


@pytest.mark.parametrize("name", WITHOUT_DERIVATIVE)
def test_scipys_functions_without_a_derivative_raise_when_differentiated(name):
    call = WITHOUT_DERIVATIVE[name]
    a = numpy.array([[1.0, 0.2], [0.1, -1.0]])
    numpy.testing.assert_allclose(call(linalg, a), call(scipy.linalg, a))
    with pytest.raises(NotImplementedError, match=f"scipy.linalg.{name}: adcore has no derivative"):
        grad(lambda a: np.sum(call(linalg, a)))(a)


def test_scipys_functions_name_a_backend_without_them(backend):
    if backend.name in ("numpy", "cupy"):
        pytest.skip("SciPy (or cupyx) has the function")
    with pytest.raises(NotImplementedError, match=f"the {backend.name} backend has no scipy.linalg"):
        linalg.schur(backend.asarray(numpy.eye(2)))
