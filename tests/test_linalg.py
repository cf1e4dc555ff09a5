"""``adcore.numpy.linalg`` against finite differences, NumPy and known derivatives.

The spec table checks every function in both modes to order 2, in float64 and
float32, on every backend, on well-conditioned inputs built inside the spec
function from an unconstrained one (``spd``: ``x @ x.T + n I``; ``shifted``:
``x + n I``). Eigenvectors and singular vectors are only defined up to sign (or
phase), so their specs differentiate functions that do not depend on it.
"""

import math

import numpy
import pytest

import adcore.numpy as np
from adcore import grad, hessian, make_jvp, make_vjp
from adcore.core import getval
from adcore.test_util import check_grads
from specs import COMPLEX, P, R, Spec, U, spec_tests

try:
    import array_api_strict

    STRICT_HAS_EIG = hasattr(array_api_strict.linalg, "eig")
except ImportError:  # the strict backend is then skipped anyway
    STRICT_HAS_EIG = False

NO_STRICT_EIG = {} if STRICT_HAS_EIG else {"array_api_strict": "array-api-strict before 2025.12 has no linalg.eig"}


def spd(x):
    """A symmetric positive-definite matrix (stack) from any square ``x``."""
    return np.matmul(x, np.matrix_transpose(x)) + float(x.shape[-1]) * np.eye_like(x)


def hpd(x):
    """A Hermitian positive-definite matrix (stack) from any complex square ``x``."""
    return np.matmul(x, np.conj(np.matrix_transpose(x))) + float(x.shape[-1]) * np.eye_like(x)


def shifted(x):
    """A well-conditioned square matrix (stack) from ``x`` with entries in ``U``."""
    return x + float(x.shape[-1]) * np.eye_like(x)


def flat(*arrays):
    """The arrays raveled and concatenated, so one spec can check several outputs."""
    return np.concatenate([np.reshape(a, (-1,)) for a in arrays])


def spec(name, fun, *shapes, domains=(R, R), **options):
    return Spec(name, fun, shapes, domains, **options)


def eigh_matrix_function(x, uplo="L"):
    w, v = np.linalg.eigh(x, UPLO=uplo)
    return v @ (np.sin(w)[..., None] * np.matrix_transpose(v))


def eigh_matrix_function_complex(x, uplo="L"):
    """``v f(w) v^H``: does not depend on the phases of the eigenvectors."""
    w, v = np.linalg.eigh(x, UPLO=uplo)
    return v @ (np.sin(w)[..., None] * np.conj(np.matrix_transpose(v)))


def svd_thin_complex(x):
    """Phase-invariant functions of the thin factors: the moduli and the reconstruction."""
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return flat(np.abs(u), s, np.abs(vh), (u * s[..., None, :]) @ vh)


def svd_full_complex(x):
    """As ``svd_full``, with moduli and conjugate transposes."""
    u, s, vh = np.linalg.svd(x)
    k = min(x.shape[-2:])
    u_k, u_perp, vh_k, vh_perp = u[..., :, :k], u[..., :, k:], vh[..., :k, :], vh[..., k:, :]
    ct = lambda a: np.conj(np.matrix_transpose(a))  # noqa: E731
    return flat(np.abs(u_k), np.abs(vh_k), s, u_perp @ ct(u_perp), ct(vh_perp) @ vh_perp, (u_k * s[..., None, :]) @ vh_k)


def svd_thin(x):
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return flat(u * u, s, vh * vh, (u * s[..., None, :]) @ vh)


def svd_full(x):
    """Gauge-invariant functions of the full factors: squares of the first k columns, the
    projector onto the completion, and the reconstruction."""
    u, s, vh = np.linalg.svd(x)
    m, n = x.shape[-2:]
    k = min(m, n)
    u_k, u_perp = u[..., :, :k], u[..., :, k:]
    vh_k, vh_perp = vh[..., :k, :], vh[..., k:, :]
    return flat(
        u_k * u_k,
        vh_k * vh_k,
        s,
        u_perp @ np.matrix_transpose(u_perp),
        np.matrix_transpose(vh_perp) @ vh_perp,
        (u_k * s[..., None, :]) @ vh_k,
    )


def qr_complete_invariant(x):
    q, r = np.linalg.qr(x, mode="complete")
    n = x.shape[-1]
    q_perp = q[..., :, n:]
    return flat(q[..., :, :n], r, q_perp @ np.matrix_transpose(q_perp))


def eig_values(x):
    w, _ = np.linalg.eig(x)
    return flat(np.real(w), np.imag(w))


def eig_vectors(x):
    _, v = np.linalg.eig(x)
    return np.abs(v) ** 2


def eig_reconstruction(x):
    w, v = np.linalg.eig(x)
    return np.real((v * w[..., None, :]) @ np.linalg.inv(v))


SPECS = [
    # inverse, determinants, linear systems
    spec("inv", lambda x: np.linalg.inv(shifted(x)), (3, 3), domains=(U,)),
    spec("inv_stack", lambda x: np.linalg.inv(shifted(x)), (2, 3, 3), domains=(U,)),
    spec("inv_complex", lambda x: np.linalg.inv(shifted(x)), (3, 3), domains=(U,), dtypes=COMPLEX),
    spec("det_1x1", np.linalg.det, (1, 1)),
    spec("det_2x2", np.linalg.det, (2, 2, 2)),
    spec("det_3x3", np.linalg.det, (3, 3)),
    spec("det_3x3_stack", np.linalg.det, (2, 3, 3)),
    spec("det_4x4", lambda x: np.linalg.det(shifted(x)), (2, 4, 4), domains=(U,)),
    spec("det_complex", np.linalg.det, (3, 3), dtypes=COMPLEX),
    spec("slogdet", lambda x: np.linalg.slogdet(x)[1], (3, 3)),
    spec("slogdet_stack", lambda x: np.linalg.slogdet(shifted(x))[1], (2, 4, 4), domains=(U,)),
    spec("slogdet_sign_times_det", lambda x: (lambda s, l: s * np.exp(l))(*np.linalg.slogdet(x)), (2, 3, 3)),
    spec("solve_vector", lambda a, b: np.linalg.solve(shifted(a), b), (3, 3), (3,), domains=(U, R)),
    spec("solve_matrix", lambda a, b: np.linalg.solve(shifted(a), b), (3, 3), (3, 2), domains=(U, R)),
    spec("solve_stack_vector", lambda a, b: np.linalg.solve(shifted(a), b), (2, 3, 3), (3,), domains=(U, R)),
    spec("solve_broadcast", lambda a, b: np.linalg.solve(shifted(a), b), (2, 1, 3, 3), (4, 3, 2), domains=(U, R)),
    spec("solve_complex", lambda a, b: np.linalg.solve(shifted(a), b), (3, 3), (3, 2), domains=(U, R), dtypes=COMPLEX),
    spec("pinv_tall", np.linalg.pinv, (4, 3)),
    spec("pinv_wide", np.linalg.pinv, (2, 3)),
    spec("pinv_stack", lambda x: np.linalg.pinv(x, rtol=None), (2, 4, 3)),
    spec("pinv_square", lambda x: np.linalg.pinv(shifted(x)), (3, 3), domains=(U,)),
    spec("matrix_power_0", lambda x: x + np.linalg.matrix_power(x, 0), (3, 3)),
    spec("matrix_power_1", lambda x: np.linalg.matrix_power(x, 1), (3, 3)),
    spec("matrix_power_5", lambda x: np.linalg.matrix_power(x, 5), (2, 3, 3), domains=(U,)),
    spec("matrix_power_-2", lambda x: np.linalg.matrix_power(shifted(x), -2), (3, 3), domains=(U,)),
    spec("matrix_power_complex", lambda x: np.linalg.matrix_power(x, 3), (3, 3), dtypes=COMPLEX),
    spec("lstsq_vector", lambda a, b: np.linalg.lstsq(a, b)[0], (4, 2), (4,)),
    spec("lstsq_matrix", lambda a, b: np.linalg.lstsq(a, b)[0], (4, 2), (4, 3)),
    spec("lstsq_min_norm", lambda a, b: np.linalg.lstsq(a, b)[0], (2, 3), (2,)),
    spec("lstsq_residuals", lambda a, b: np.linalg.lstsq(a, b)[1], (5, 2), (5, 3)),
    spec("lstsq_singular_values", lambda a, b: np.linalg.lstsq(a, b, rcond=1e-10)[3], (4, 3), (4,)),
    # factorizations
    spec("cholesky", lambda x: np.linalg.cholesky(spd(x)), (3, 3)),
    spec("cholesky_stack_upper", lambda x: np.linalg.cholesky(spd(x), upper=True), (2, 3, 3)),
    spec("cholesky_reads_lower", lambda x: np.linalg.cholesky(shifted(x)), (3, 3), domains=(U,)),
    spec("eigh_matrix_function", lambda x: eigh_matrix_function(spd(x)), (3, 3)),
    spec("eigh_stack_upper", lambda x: eigh_matrix_function(spd(x), "U"), (2, 3, 3)),
    spec("eigh_values", lambda x: np.linalg.eigh(x)[0], (4, 4)),
    spec("eigh_vectors_squared", lambda x: np.linalg.eigh(x, UPLO="U")[1] ** 2, (2, 3, 3)),
    spec("eigvalsh", np.linalg.eigvalsh, (2, 3, 3)),
    spec("eigvalsh_upper", lambda x: np.linalg.eigvalsh(spd(x), UPLO="U"), (3, 3)),
    spec("svd_tall", svd_thin, (4, 3)),
    spec("svd_wide", svd_thin, (2, 4)),
    spec("svd_square_stack", svd_thin, (2, 3, 3)),
    spec("svd_full_tall", svd_full, (4, 2)),
    spec("svd_full_wide", svd_full, (2, 2, 4)),
    spec("svd_values", lambda x: np.linalg.svd(x, compute_uv=False), (2, 3, 4)),
    # the Hermitian factorizations of complex input (autograd's complex convention)
    spec("cholesky_complex", lambda x: np.linalg.cholesky(hpd(x)), (3, 3), dtypes=COMPLEX),
    spec("cholesky_complex_stack_upper", lambda x: np.linalg.cholesky(hpd(x), upper=True), (2, 3, 3), dtypes=COMPLEX),
    spec("eigh_complex_matrix_function", lambda x: eigh_matrix_function_complex(hpd(x)), (3, 3), dtypes=COMPLEX),
    spec("eigh_complex_upper_abs", lambda x: flat(*(np.abs(f) for f in np.linalg.eigh(x, "U"))), (2, 3, 3), dtypes=COMPLEX),
    spec("eigvalsh_complex", np.linalg.eigvalsh, (2, 3, 3), dtypes=COMPLEX),
    spec("svd_complex_tall", svd_thin_complex, (4, 3), dtypes=COMPLEX),
    spec("svd_complex_wide_stack", svd_thin_complex, (2, 2, 4), dtypes=COMPLEX),
    spec("svd_complex_full_tall", svd_full_complex, (4, 2), dtypes=COMPLEX),
    spec("svd_complex_full_wide", svd_full_complex, (2, 4), dtypes=COMPLEX),
    spec("svd_complex_values", lambda x: np.linalg.svd(x, compute_uv=False), (2, 3, 4), dtypes=COMPLEX),
    spec("qr_tall", lambda x: flat(*np.linalg.qr(x)), (4, 3)),
    spec("qr_square_stack", lambda x: flat(*np.linalg.qr(x)), (2, 3, 3)),
    spec("qr_wide", lambda x: flat(*np.linalg.qr(x)), (2, 4)),
    spec("qr_complete_tall", qr_complete_invariant, (4, 2)),
    spec("qr_complete_wide", lambda x: flat(*np.linalg.qr(x, mode="complete")), (2, 3)),
    spec("qr_r", lambda x: np.linalg.qr(x, mode="r"), (2, 4, 3)),
    spec("eig_values", eig_values, (3, 3), skip=NO_STRICT_EIG),
    spec("eig_vectors_abs", eig_vectors, (2, 3, 3), skip=NO_STRICT_EIG),
    spec("eig_reconstruction", eig_reconstruction, (3, 3), skip=NO_STRICT_EIG),
    spec("eig_complex_input", eig_values, (3, 3), dtypes=COMPLEX, skip=NO_STRICT_EIG),
    # norms
    *[
        spec(f"vector_norm_ord{ord}_axis{axis}_keepdims{keepdims}", fun, (2, 3, 4), domains=(domain,))
        for ord, axis, keepdims, domain in [
            (2, None, False, R),
            (2, 1, True, R),
            (1, (0, 2), False, R),
            (math.inf, -1, False, R),
            (-math.inf, None, True, R),
            (0, 1, False, R),
            (3, (1, 2), True, R),
            (0.5, -1, False, P),
            (-1.5, 0, False, P),
        ]
        for fun in [lambda x, o=ord, a=axis, k=keepdims: np.linalg.vector_norm(x, axis=a, keepdims=k, ord=o)]
    ],
    *[
        spec(f"matrix_norm_ord{ord}_keepdims{keepdims}", fun, (2, 3, 4))
        for ord, keepdims in [("fro", False), ("nuc", True), (1, False), (-1, True), (2, False), (-2, False)]
        + [(math.inf, False), (-math.inf, True)]
        for fun in [lambda x, o=ord, k=keepdims: np.linalg.matrix_norm(x, ord=o, keepdims=k)]
    ],
    spec("norm_flat", np.linalg.norm, (2, 3, 4)),
    spec("norm_flat_keepdims", lambda x: np.linalg.norm(x, keepdims=True), (2, 3)),
    spec("norm_vector_ord1", lambda x: np.linalg.norm(x, ord=1), (4,)),
    spec("norm_matrix_inf", lambda x: np.linalg.norm(x, ord=math.inf), (3, 4)),
    spec("norm_axis", lambda x: np.linalg.norm(x, ord=3, axis=-2), (2, 3, 4)),
    spec("norm_axes_nuc", lambda x: np.linalg.norm(x, ord="nuc", axis=(2, 0), keepdims=True), (3, 2, 4)),
    spec("norm_axes_2", lambda x: np.linalg.norm(x, ord=2, axis=(0, 2)), (3, 2, 4)),
    spec("norm_complex", lambda z: np.linalg.norm(z, axis=-1), (2, 3), dtypes=COMPLEX),
]

test_derivatives, test_value_matches_numpy = spec_tests(SPECS)


# ---- values against numpy.linalg (float64) ----


def _rng_matrix(shape, seed=1):
    return numpy.random.default_rng(seed).uniform(-1.0, 1.0, size=shape)


def _spd_numpy(shape):
    x = _rng_matrix(shape)
    return x @ numpy.swapaxes(x, -1, -2) + shape[-1] * numpy.eye(shape[-1])


def _same_up_to_sign(actual, expected):
    """Eigenvectors and singular vectors from two LAPACK builds may differ in sign: compare magnitudes."""
    numpy.testing.assert_allclose(numpy.abs(actual), numpy.abs(expected), rtol=1e-10, atol=1e-10)


VALUE_CASES = {
    "inv": (np.linalg.inv, numpy.linalg.inv, [_rng_matrix((2, 3, 3)) + 3 * numpy.eye(3)], None),
    "det": (np.linalg.det, numpy.linalg.det, [_rng_matrix((2, 4, 4))], None),
    "slogdet": (np.linalg.slogdet, numpy.linalg.slogdet, [_rng_matrix((2, 3, 3))], None),
    "solve": (np.linalg.solve, numpy.linalg.solve, [_rng_matrix((2, 3, 3)) + 3 * numpy.eye(3), _rng_matrix((3,), 2)], None),
    "pinv": (np.linalg.pinv, numpy.linalg.pinv, [_rng_matrix((2, 4, 3))], None),
    "cholesky": (np.linalg.cholesky, numpy.linalg.cholesky, [_spd_numpy((2, 3, 3))], None),
    "cholesky_upper": (
        lambda a: np.linalg.cholesky(a, upper=True),
        lambda a: numpy.linalg.cholesky(a, upper=True),
        [_spd_numpy((3, 3))],
        None,
    ),
    "eigh": (np.linalg.eigh, numpy.linalg.eigh, [_spd_numpy((2, 3, 3))], (None, _same_up_to_sign)),
    "eigh_nonsymmetric_upper": (
        lambda a: np.linalg.eigh(a, "U"),
        lambda a: numpy.linalg.eigh(a, "U"),
        [_rng_matrix((3, 3))],
        (None, _same_up_to_sign),
    ),
    "eigvalsh": (np.linalg.eigvalsh, numpy.linalg.eigvalsh, [_rng_matrix((3, 3))], None),
    "svd": (np.linalg.svd, numpy.linalg.svd, [_rng_matrix((2, 4, 3))], (_same_up_to_sign, None, _same_up_to_sign)),
    "svd_thin": (
        lambda a: np.linalg.svd(a, full_matrices=False),
        lambda a: numpy.linalg.svd(a, full_matrices=False),
        [_rng_matrix((3, 5))],
        (_same_up_to_sign, None, _same_up_to_sign),
    ),
    "svdvals": (
        lambda a: np.linalg.svd(a, compute_uv=False),
        lambda a: numpy.linalg.svd(a, compute_uv=False),
        [_rng_matrix((3, 5))],
        None,
    ),
    "qr": (np.linalg.qr, numpy.linalg.qr, [_rng_matrix((2, 4, 3))], (_same_up_to_sign, _same_up_to_sign)),
    "qr_complete": (
        lambda a: np.linalg.qr(a, "complete")[1],
        lambda a: numpy.linalg.qr(a, "complete")[1],
        [_rng_matrix((4, 3))],
        _same_up_to_sign,
    ),
    "qr_r": (lambda a: np.linalg.qr(a, "r"), lambda a: numpy.linalg.qr(a, "r"), [_rng_matrix((3, 5))], _same_up_to_sign),
    "matrix_power": (
        lambda a: [np.linalg.matrix_power(a, n) for n in range(-3, 6)],
        lambda a: [numpy.linalg.matrix_power(a, n) for n in range(-3, 6)],
        [_rng_matrix((2, 3, 3)) + 2 * numpy.eye(3)],
        None,
    ),
}


def _to_numpy(backend, x):
    return backend.to_numpy(x) if hasattr(x, "shape") else numpy.asarray(x)


@pytest.mark.parametrize("name", VALUE_CASES)
def test_values_match_numpy_linalg(name, backend):
    """Raw calls (not traced) agree with ``numpy.linalg`` in float64, on the input's backend and
    device; several outputs come back as NumPy's named tuples (the same name and fields)."""
    ours, theirs, arrays, compare = VALUE_CASES[name]
    result = ours(*[backend.asarray(a) for a in arrays])
    expected = theirs(*arrays)
    if isinstance(expected, tuple):
        assert (type(result).__name__, result._fields) == (type(expected).__name__, expected._fields)
    results, expecteds = (result, expected) if isinstance(expected, (tuple, list)) else ((result,), (expected,))
    compares = compare if isinstance(compare, tuple) else (compare,) * len(results)
    for r, e, c in zip(results, expecteds, compares):
        backend.check_device(r)
        (c or _assert_close)(_to_numpy(backend, r), numpy.asarray(e))


def _assert_close(actual, expected):
    numpy.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # ord < 0 with a zero entry, as in NumPy
@pytest.mark.parametrize("ord", [None, 2, 1, -1, 0, 3, 0.5, math.inf, -math.inf])
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norms_match_numpy(ord, axis, keepdims, backend):
    x = _rng_matrix((3, 4))
    x[0, 1] = 0.0
    if ord is not None:
        expected = numpy.linalg.vector_norm(x, ord=ord, axis=axis, keepdims=keepdims)
        result = np.linalg.vector_norm(backend.asarray(x), ord=ord, axis=axis, keepdims=keepdims)
        numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-12)
    if axis is not None or ord is None:
        expected = numpy.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
        result = np.linalg.norm(backend.asarray(x), ord=ord, axis=axis, keepdims=keepdims)
        numpy.testing.assert_allclose(_to_numpy(backend, result), expected, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_untraced_norms_of_ndarrays_are_numpys_to_the_bit(dtype):
    """``linalg.norm`` of a NumPy array, untraced, gives what ``numpy.linalg.norm`` gives, bit for bit and of
    its type, in every form that adcore computes without NumPy's function (whole arrays, kept dimensions, one
    axis, two axes, the vector orders 0, +-1, +-inf and p, the matrix orders +-1, +-inf), at sizes where
    summation orders would differ."""
    rng = numpy.random.default_rng(7)
    for shape in ((1,), (7,), (300,), (1, 9), (40, 3), (5, 300), (3, 4, 5)):
        x = rng.standard_normal(shape).astype(dtype)
        x.flat[0] = 0.0
        forms = [{}, {"ord": None, "keepdims": True}]
        forms += [{"axis": axis, "keepdims": keepdims} for axis in range(-x.ndim, x.ndim) for keepdims in (False, True)]
        forms += [{"ord": 2, "axis": -1}, {"ord": 3, "axis": -1}, {"ord": -1.5, "axis": 0, "keepdims": True}]
        pairs = [(0, -1), (-1, 0)] if x.ndim > 1 else []
        forms += [{"ord": order, "axis": pair, "keepdims": kept} for order in (None, "fro") for pair in pairs for kept in (0, 1)]
        vector_orders, matrix_orders = (0, 1, True, math.inf, -math.inf, 2, 3, 0.5), (1, -1, math.inf, -math.inf, "fro")
        forms += [{"ord": order} for order in (vector_orders if x.ndim == 1 else matrix_orders if x.ndim == 2 else ())]
        for form in forms:
            ours, theirs = np.linalg.norm(x, **form), numpy.linalg.norm(x, **form)
            assert type(ours) is type(theirs) and ours.dtype == theirs.dtype and numpy.shape(ours) == numpy.shape(theirs), form
            assert numpy.array_equal(ours, theirs), (shape, form)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
@pytest.mark.parametrize("axis", [None, (0, 1), (2, 0)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norms_match_numpy(ord, axis, keepdims, backend):
    x = _rng_matrix((3, 4, 5))
    if axis is None:
        x = x[0]
        expected = numpy.linalg.matrix_norm(x, ord="fro" if ord is None else ord, keepdims=keepdims)
        result = np.linalg.matrix_norm(backend.asarray(x), ord="fro" if ord is None else ord, keepdims=keepdims)
        numpy.testing.assert_allclose(_to_numpy(backend, result), expected, rtol=1e-12)
    expected = numpy.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    result = np.linalg.norm(backend.asarray(x), ord=ord, axis=axis, keepdims=keepdims)
    numpy.testing.assert_allclose(_to_numpy(backend, result), expected, rtol=1e-12)


@pytest.mark.parametrize("shapes", [((5, 3), (5,)), ((5, 3), (5, 2)), ((2, 4), (2,)), ((3, 3), (3, 2))], ids=str)
def test_lstsq_matches_numpy(shapes, backend):
    a, b = _rng_matrix(shapes[0]), _rng_matrix(shapes[1], seed=2)
    x, residuals, rank, s = np.linalg.lstsq(backend.asarray(a), backend.asarray(b))
    expected = numpy.linalg.lstsq(a, b)
    for ours, theirs in zip((x, residuals, s), (expected[0], expected[1], expected[3])):
        backend.check_device(ours)
        numpy.testing.assert_allclose(backend.to_numpy(ours), theirs, rtol=1e-10, atol=1e-12)
    assert rank == int(expected[2]) and isinstance(rank, int)


def test_lstsq_rank_deficient_matches_numpy(backend):
    a = _rng_matrix((5, 3))
    a[:, 2] = a[:, 0] + a[:, 1]
    b = _rng_matrix((5,), seed=2)
    x, residuals, rank, s = np.linalg.lstsq(backend.asarray(a), backend.asarray(b))
    expected = numpy.linalg.lstsq(a, b)
    numpy.testing.assert_allclose(backend.to_numpy(x), expected[0], rtol=1e-8)
    assert rank == 2 and backend.to_numpy(residuals).shape == (0,) == expected[1].shape


#: name -> (adcore's function, NumPy's, a scalar function of the result read by field name, the same by position);
#: the scalar functions do not depend on the sign (phase) of eigenvectors and singular vectors
NAMED_RESULTS = {
    "eigh": (
        np.linalg.eigh,
        numpy.linalg.eigh,
        lambda r: np.sum(r.eigenvalues**2) + np.sum(r.eigenvectors**4),
        lambda r: np.sum(r[0] ** 2) + np.sum(r[1] ** 4),
    ),
    "slogdet": (np.linalg.slogdet, numpy.linalg.slogdet, lambda r: r.sign * r.logabsdet, lambda r: r[0] * r[1]),
    "svd": (
        np.linalg.svd,
        numpy.linalg.svd,
        lambda r: np.sum(r.S**2) + np.sum(r.U**4),
        lambda r: np.sum(r[1] ** 2) + np.sum(r[0] ** 4),
    ),
    "svd_thin": (
        lambda a: np.linalg.svd(a, full_matrices=False),
        lambda a: numpy.linalg.svd(a, full_matrices=False),
        lambda r: np.sum(r.Vh**4) * np.sum(r.S),
        lambda r: np.sum(r[2] ** 4) * np.sum(r[1]),
    ),
    "qr": (
        np.linalg.qr,
        numpy.linalg.qr,
        lambda r: np.sum(r.R**2) + np.sum(r.Q**4),
        lambda r: np.sum(r[1] ** 2) + np.sum(r[0] ** 4),
    ),
    "qr_complete": (
        lambda a: np.linalg.qr(a, mode="complete"),
        lambda a: numpy.linalg.qr(a, mode="complete"),
        lambda r: np.sum(r.R**2),
        lambda r: np.sum(r[1] ** 2),
    ),
    "eig_general": (
        np.linalg.eig,
        numpy.linalg.eig,
        lambda r: np.sum(np.real(r.eigenvalues) ** 2) + np.sum(np.abs(r.eigenvectors) ** 4),
        lambda r: np.sum(np.real(r[0]) ** 2) + np.sum(np.abs(r[1]) ** 4),
    ),
}


@pytest.mark.parametrize("name", NAMED_RESULTS)
def test_multiple_outputs_are_numpys_named_tuples_traced_and_untraced(name, backend):
    # issue 13: NumPy 2 code reading .eigenvalues, .logabsdet, .S or .R failed, traced or not
    if name.startswith("eig_") and backend.name in NO_STRICT_EIG:
        pytest.skip(NO_STRICT_EIG[backend.name])
    ours, theirs, by_field, by_position = NAMED_RESULTS[name]
    data = _spd_numpy((3, 3))
    a = backend.asarray(data)
    expected_type = type(theirs(data))

    def check(result):
        result = getval(result)
        assert (type(result).__name__, result._fields) == (expected_type.__name__, expected_type._fields)
        *items, last = result  # still unpacks as a tuple
        assert getattr(result, result._fields[-1]) is last

    check(ours(a))
    seen = []
    assert float(backend.to_numpy(by_field(ours(a)))) == pytest.approx(float(backend.to_numpy(by_position(ours(a)))))

    def f(a):
        result = ours(a)
        seen.append(result)
        return by_field(result)

    g = grad(f)(a)
    check(seen[-1])
    numpy.testing.assert_allclose(backend.to_numpy(g), backend.to_numpy(grad(lambda a: by_position(ours(a)))(a)), rtol=1e-12)
    check_grads(f, modes=("fwd", "rev"), order=1)(a)
    v = backend.asarray(_rng_matrix((3, 3)))
    value, tangent = make_jvp(ours)(a)(v)
    check(value)
    check(tangent)
    vjp, value = make_vjp(ours)(a)
    check(value)
    cotangent = [x * 0.0 + 1.0 for x in value]
    named, plain = vjp(type(value)(*cotangent)), vjp(tuple(cotangent))
    numpy.testing.assert_allclose(backend.to_numpy(named), backend.to_numpy(plain), rtol=1e-15)


# ---- exact derivatives ----


@pytest.mark.parametrize(
    "a, cofactor",
    [
        ([[1.0, 2.0], [3.0, 4.0]], [[4.0, -3.0], [-2.0, 1.0]]),
        ([[1.0, 2.0], [2.0, 4.0]], [[4.0, -2.0], [-2.0, 1.0]]),  # singular: inv fails, the cofactor does not
        ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[-3.0, 6.0, -3.0], [6.0, -12.0, 6.0], [-3.0, 6.0, -3.0]]),
        ([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
        ([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]),
    ],
)
def test_det_gradient_is_the_cofactor_matrix_also_when_singular(a, cofactor, backend):
    x = backend.asarray(a)
    numpy.testing.assert_allclose(backend.to_numpy(grad(np.linalg.det)(x)), cofactor, atol=1e-12)
    # second order at the same (singular) point: forward over reverse equals the exact
    # difference quotient of the cofactor, which is quadratic in the entries
    v = numpy.random.default_rng(0).standard_normal(numpy.shape(a))
    _, tangent = make_jvp(grad(np.linalg.det))(x)(backend.asarray(v))
    cof = lambda m: numpy.asarray(grad(np.linalg.det)(numpy.asarray(m)))  # noqa: E731
    expected = (cof(numpy.asarray(a) + v) - cof(numpy.asarray(a) - v)) / 2.0
    numpy.testing.assert_allclose(backend.to_numpy(tangent), expected, atol=1e-12)


def test_hessian_of_logdet(backend):
    """d^2 log|det a| [v, w] = -trace(inv(a) v inv(a) w), in forward-over-reverse and reverse-over-reverse."""
    a = _rng_matrix((3, 3)) + 3 * numpy.eye(3)
    v = numpy.random.default_rng(3).standard_normal((3, 3))
    a_inv = numpy.linalg.inv(a)
    expected = -(a_inv.T @ v.T @ a_inv.T)

    def logdet(x):
        return np.linalg.slogdet(x)[1]

    _, tangent = make_jvp(grad(logdet))(backend.asarray(a))(backend.asarray(v))
    numpy.testing.assert_allclose(backend.to_numpy(tangent), expected, rtol=1e-10)
    full = backend.to_numpy(hessian(logdet)(backend.asarray(a)))
    numpy.testing.assert_allclose(numpy.tensordot(full, v, axes=2), expected, rtol=1e-10)


NORMS_AT_ZERO = {
    "vector_norm": (np.linalg.vector_norm, (4,)),
    "vector_norm_ord1": (lambda x: np.linalg.vector_norm(x, ord=1), (4,)),
    "vector_norm_ord3": (lambda x: np.linalg.vector_norm(x, ord=3), (4,)),
    "vector_norm_ord0.5": (lambda x: np.linalg.vector_norm(x, ord=0.5), (4,)),
    "vector_norm_inf": (lambda x: np.linalg.vector_norm(x, ord=math.inf), (4,)),
    "vector_norm_axis": (lambda x: np.sum(np.linalg.vector_norm(x, axis=1)), (2, 3)),
    "norm": (np.linalg.norm, (2, 3)),
    "norm_fro": (lambda x: np.linalg.norm(x, "fro"), (2, 3)),
    "matrix_norm": (np.linalg.matrix_norm, (2, 3)),
}


@pytest.mark.parametrize("name", NORMS_AT_ZERO)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_norm_derivatives_at_zero_are_finite_zeros(name, dtype, backend):
    f, shape = NORMS_AT_ZERO[name]
    zero = backend.asarray(numpy.zeros(shape), dtype)
    g = grad(f)(zero)
    assert str(g.dtype).endswith(dtype)
    numpy.testing.assert_array_equal(backend.to_numpy(g), numpy.zeros(shape))
    _, hvp = make_jvp(grad(f))(zero)(backend.asarray(numpy.ones(shape), dtype))
    numpy.testing.assert_array_equal(backend.to_numpy(hvp), numpy.zeros(shape))
    numpy.testing.assert_array_equal(backend.to_numpy(hessian(f)(zero)), numpy.zeros(shape + shape))


def test_norm_gradient_with_zero_entries(backend):
    """Only the zero vector is special: a zero entry of a non-zero vector gets the ordinary gradient."""
    x = numpy.array([3.0, 0.0, -4.0])
    g = grad(np.linalg.norm)(backend.asarray(x))
    numpy.testing.assert_allclose(backend.to_numpy(g), x / 5.0)
    g = grad(lambda x: np.linalg.vector_norm(x, ord=3))(backend.asarray(x))
    numpy.testing.assert_allclose(backend.to_numpy(g), numpy.sign(x) * x**2 / numpy.sum(numpy.abs(x) ** 3) ** (2 / 3))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_gradient_is_that_of_the_triangle_read(uplo, backend):
    """``eigh`` reads one triangle, so the gradient of ``sum(w) = trace`` is the identity, and that
    of ``sum(w**2) = |S|_F^2`` counts each off-diagonal entry of the triangle twice."""
    a = _rng_matrix((3, 3))
    triangle, strict = (numpy.tril, -1) if uplo == "L" else (numpy.triu, 1)
    g = grad(lambda x: np.sum(np.linalg.eigh(x, uplo)[0]))(backend.asarray(a))
    numpy.testing.assert_allclose(backend.to_numpy(g), numpy.eye(3), atol=1e-12)
    g = grad(lambda x: np.sum(np.linalg.eigvalsh(x, uplo) ** 2))(backend.asarray(a))
    symmetric = triangle(a) + triangle(a, strict).T
    expected = 4.0 * triangle(symmetric) - 2.0 * numpy.diag(numpy.diag(symmetric))
    numpy.testing.assert_allclose(backend.to_numpy(g), expected, rtol=1e-10, atol=1e-12)


LINALG_FUNCTIONS_FLOAT32 = {
    "inv": lambda x: np.sum(np.linalg.inv(shifted(x))),
    "det": lambda x: np.linalg.det(shifted(x)),
    "slogdet": lambda x: np.linalg.slogdet(shifted(x))[1],
    "solve": lambda x: np.sum(np.linalg.solve(shifted(x), x[..., 0])),
    "pinv": lambda x: np.sum(np.linalg.pinv(x)),
    "cholesky": lambda x: np.sum(np.linalg.cholesky(spd(x))),
    "eigh": lambda x: np.sum(np.linalg.eigh(spd(x))[0]),
    "eigvalsh": lambda x: np.sum(np.linalg.eigvalsh(spd(x))),
    "svd": lambda x: np.sum(np.linalg.svd(x)[1]),
    "qr": lambda x: np.sum(np.linalg.qr(x)[1]),
    "matrix_power": lambda x: np.sum(np.linalg.matrix_power(x, 3)),
    "lstsq": lambda x: np.sum(np.linalg.lstsq(x, x[:, 0])[0]),
    "norm": lambda x: np.linalg.norm(x, "nuc"),
}


@pytest.mark.parametrize("name", LINALG_FUNCTIONS_FLOAT32)
def test_float32_gradients_stay_float32(name, backend):
    x = backend.asarray(_rng_matrix((3, 3)), "float32")
    g = grad(LINALG_FUNCTIONS_FLOAT32[name])(x)
    assert str(g.dtype).endswith("float32")
    backend.check_device(g)
    _, tangent = make_jvp(grad(LINALG_FUNCTIONS_FLOAT32[name]))(x)(x)
    assert str(tangent.dtype).endswith("float32")


def test_vjp_of_unused_outputs_is_zero(backend):
    """The cotangent of a several-output primitive arrives as a full tuple, zeros for unused outputs."""
    a = backend.asarray(_spd_numpy((3, 3)))
    vjp, _ = make_vjp(lambda x: np.linalg.eigh(x)[0])(a)
    g = vjp(backend.asarray(numpy.ones(3)))
    numpy.testing.assert_allclose(backend.to_numpy(g), numpy.eye(3), atol=1e-12)


def test_complex_hermitian_values_match_numpy(backend):
    """eigh, eigvalsh and cholesky read one triangle of a Hermitian matrix, as NumPy does (of the
    diagonal, its real part), also inside the derivative: the gradient of the eigenvalues' sum is
    the identity on the triangle read."""
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    h = x @ x.conj().T + 3 * numpy.eye(3)
    for uplo, triangle in (("L", numpy.tril), ("U", numpy.triu)):
        a = backend.asarray(triangle(h) + 0.5j * numpy.eye(3), "complex128")  # an imaginary diagonal is not read
        numpy.testing.assert_allclose(backend.to_numpy(np.linalg.eigvalsh(a, uplo)), numpy.linalg.eigvalsh(h), rtol=1e-10)
        numpy.testing.assert_allclose(backend.to_numpy(np.linalg.eigh(a, uplo)[0]), numpy.linalg.eigvalsh(h), rtol=1e-10)
        g = grad(lambda z, u=uplo: np.sum(np.linalg.eigvalsh(z, u)))(a)
        numpy.testing.assert_allclose(backend.to_numpy(g), numpy.eye(3), atol=1e-12)
    lower = backend.asarray(numpy.tril(h), "complex128")
    for upper in (False, True):
        expected = numpy.linalg.cholesky(h, upper=upper)
        numpy.testing.assert_allclose(backend.to_numpy(np.linalg.cholesky(lower, upper=upper)), expected, rtol=1e-10)


# ---- errors ----


def test_errors_name_the_problem():
    a = numpy.eye(3)
    with pytest.raises(ValueError, match="mode"):
        np.linalg.qr(a, mode="raw")
    with pytest.raises(ValueError, match="UPLO"):
        np.linalg.eigh(a, UPLO="X")
    with pytest.raises(ValueError, match="invalid norm order"):
        np.linalg.vector_norm(a, ord="fro")
    with pytest.raises(ValueError, match="invalid norm order"):
        np.linalg.matrix_norm(a, ord=3)
    with pytest.raises(ValueError, match="improper number of dimensions"):
        np.linalg.norm(numpy.ones((2, 2, 2)), ord=2)
    with pytest.raises(ValueError, match="duplicate axes"):
        np.linalg.norm(a, axis=(1, 1))
    with pytest.raises(TypeError, match="integer"):
        np.linalg.matrix_power(a, 1.5)
    with pytest.raises(ValueError, match="2-d"):
        np.linalg.lstsq(numpy.ones((2, 3, 3)), numpy.ones(3))
    with pytest.raises(ValueError, match="can't be both set"):
        np.linalg.pinv(a, 1e-10, rtol=1e-10)


def test_missing_backend_function_raises_not_implemented_naming_the_backend(monkeypatch):
    from types import SimpleNamespace

    import adcore.numpy.linalg as linalg_module
    from backends import Backend

    bare = Backend("bare", SimpleNamespace(linalg=SimpleNamespace()))
    monkeypatch.setattr(linalg_module, "backend_of", lambda *args, op=None: bare)
    with pytest.raises(NotImplementedError, match="bare backend has no function linalg.eig"):
        np.linalg.eig(numpy.eye(2))
