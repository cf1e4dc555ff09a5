"""The NumPy names beyond the primitives: compositions (arrays.py, numerics.py), NumPy's keywords
(signatures.py), the rest of numpy.linalg, and the non-differentiable pass-through names (passthrough.py).

Differentiable functions are lines of a spec table (derivatives in both modes to order 2,
float64 and float32, on every backend); their values are compared with NumPy's own functions.
"""

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import adcore
import adcore.numpy as np
from adcore import grad
from adcore.core import isbox
from adcore.numpy.passthrough import derivatives_not_implemented
from adcore.test_util import check_grads
from specs import OTHER_BACKENDS, P, R, U, cases, spec_tests

POSITIVE = (0.5, 1.5)
NUMPY_NAMED = {
    "array_api_strict": "needs the library's NumPy-named unique/isin/argsort (the standard's set functions differ)",
    "torch": "needs the library's NumPy-named unique/isin/argsort (torch's differ from NumPy's)",
    "dask": "the result's size depends on the values, unknown to a lazy array",
}
NO_EIG = {"dask": "linalg.eig's dtype depends on the values (not lazy)"}
SCIPY_SPECIAL = dict.fromkeys(OTHER_BACKENDS, "i0 is scipy.special's (NumPy and CuPy only)")
VALUE_SIZED = {"dask": "a boolean mask gives a data-dependent shape, unknown to a lazy array"}
DASK_INDEX_ZERO = {"dask": "Dask 2026.8 gives x[i] the shape of x for a one-element Dask index array i == [0] (an upstream bug)"}


def _increasing(w):
    """Strictly increasing knots from any ``w``: a cumulative sum of positive steps."""
    return np.cumsum(np.exp(w))


SPECS = [
    # statistics and signals
    *cases("cov", lambda m: np.cov(m), ((3, 4),)),
    *cases("cov_weights", lambda m: np.cov(m, aweights=[0.5, 1.0, 2.0, 1.0], ddof=0), ((2, 4),)),
    *cases("cov_two", lambda x, y: np.cov(x, y, rowvar=False), ((4,), (4,))),
    *cases("corrcoef", lambda m: np.corrcoef(m), ((3, 4),)),
    *cases("convolve_full", lambda a, v: np.convolve(a, v), ((5,), (3,))),
    *cases("convolve_same", lambda a, v: np.convolve(a, v, "same"), ((3,), (5,))),
    *cases("convolve_valid", lambda a, v: np.convolve(a, v, "valid"), ((5,), (2,))),
    *cases("correlate_full", lambda a, v: np.correlate(a, v, "full"), ((3,), (4,))),
    *cases("correlate_valid", lambda a, v: np.correlate(a, v), ((5,), (3,))),
    *cases("unwrap", lambda p: np.unwrap(np.multiply(p, 4.0)), ((6,),)),
    # integration and interpolation
    *cases("trapezoid", lambda y: np.trapezoid(y, axis=0), ((3, 4),)),
    *cases("trapezoid_x", lambda y, x: np.trapezoid(y, _increasing(x)), ((3, 4), (4,))),
    *cases("interp", lambda x, w, fp: np.interp(x, _increasing(w), fp), ((3,), (4,), (4,)), (POSITIVE, (-1.0, 0.0), R)),
    *cases("interp_outside", lambda x, fp: np.interp(x, [0.0, 0.5, 1.0], fp, right=-1.0), ((3,), (3,)), ((-0.5, 1.5), R)),
    # polynomials
    *cases("polyval", lambda p, x: np.polyval(p, x), ((4,), (3,))),
    *cases("polyadd", lambda a, b: np.polyadd(a, b), ((4,), (2,))),
    *cases("polysub", lambda a, b: np.polysub(a, b), ((2,), (3,))),
    *cases("polymul", lambda a, b: np.polymul(a, b), ((3,), (2,))),
    *cases("polyder", lambda p: np.polyder(p, 2), ((5,),)),
    *cases("polyint", lambda p, k: np.polyint(p, 2, k=[k[0], k[1]]), ((3,), (2,))),
    *cases("polydiv", lambda u, v: np.concatenate(np.polydiv(u, v)), ((5,), (3,)), (R, POSITIVE)),
    *cases("polyfit", lambda x, y: np.polyfit(_increasing(x), y, 2), ((6,), (6,)), ((-1.0, 0.0), R)),
    *cases("poly", lambda z: np.poly(z), ((3,),)),
    *cases("roots", lambda z: np.sort(np.roots(np.poly(_increasing(z)))), ((3,),), ((-1.0, 0.0),), skip=NO_EIG),
    *cases("vander", lambda x: np.vander(x, 4), ((3,),)),
    # elementwise
    *cases("fmod", lambda x, y: np.fmod(x, y), ((3,), (3,)), ((2.2, 2.8), (1.0, 1.05))),
    *cases("fmod_negative", lambda x, y: np.fmod(np.negative(x), y), ((3,), (3,)), ((2.2, 2.8), (1.0, 1.05))),
    *cases("modf", lambda x: np.modf(x)[0], ((3,),), ((0.2, 1.8),)),
    *cases("frexp", lambda x: np.frexp(x)[0], ((3,),), ((1.1, 1.9),)),
    *cases("ldexp", lambda x: np.ldexp(x, 3), ((3,),)),
    *cases("divmod", lambda x, y: np.divmod(x, y)[1], ((3,), (3,)), ((2.2, 2.8), (1.0, 1.05))),
    *cases("i0", lambda x: np.i0(x), ((3,),), skip=SCIPY_SPECIAL),
    # creation with differentiable ends
    *cases("linspace_axis", lambda a, b: np.linspace(a, b, 4, axis=1), ((2,), (2,))),
    *cases("linspace_step", lambda a, b: np.linspace(a, b, 5, endpoint=False, retstep=True)[1], ((), ())),
    *cases("geomspace", lambda a, b: np.geomspace(a, b, 5), ((), ()), (P, P)),
    *cases("geomspace_negative", lambda a, b: np.geomspace(np.negative(a), np.negative(b), 4, endpoint=False), ((), ()), (P, P)),
    *cases("logspace", lambda a, b: np.logspace(a, b, 4, base=2.0), ((), ())),
    *cases("bincount", lambda w: np.bincount([0, 2, 2, 1], weights=w, minlength=5), ((4,),)),
    *cases("ediff1d", lambda x: np.ediff1d(x, to_begin=x[0, :1], to_end=2.0), ((2, 3),)),
    *cases("cumulative_sum", lambda x: np.cumulative_sum(x, axis=1, include_initial=True), ((2, 3),)),
    *cases("cumulative_prod", lambda x: np.cumulative_prod(x, axis=0), ((2, 3),)),
    *cases("vecdot", lambda x, y: np.vecdot(x, y), ((2, 3), (3,))),
    *cases("matvec", lambda a, v: np.matvec(a, v), ((2, 3), (3,))),
    *cases("vecmat", lambda v, a: np.vecmat(v, a), ((2,), (2, 3))),
    # construction and rearrangement
    *cases("block", lambda a, b: np.block([[a, b], [b, a]]), ((2, 2), (2, 1))),
    *cases("meshgrid", lambda x, y: np.multiply(*np.meshgrid(x, y)), ((2,), (3,))),
    *cases("broadcast_arrays", lambda x, y: np.multiply(*np.broadcast_arrays(x, y)), ((2, 1), (3,))),
    *cases("unstack", lambda x: np.unstack(x, axis=1)[1], ((2, 3),)),
    *cases("diagflat", lambda v: np.diagflat(v, 1), ((2, 2),)),
    *cases("make_diagonal", lambda d: np.make_diagonal(d, axis1=-1, axis2=-2), ((2, 3),)),
    *cases("array_from_args", lambda x, y: np.array_from_args((), {}, x, y), ((3,), (3,))),
    *cases("insert", lambda a, v: np.insert(a, 1, v, axis=1), ((2, 3), (2,)), joint=True),  # v takes a's dtype
    *cases("insert_flat", lambda a, v: np.insert(a, [0, 2, 2], v), ((2, 2), (3,)), joint=True),
    *cases("delete", lambda a: np.delete(a, [0, 2], axis=1), ((2, 3),)),
    *cases("resize", lambda a: np.resize(a, (2, 4)), ((3,),)),
    *cases("choose", lambda x, y: np.choose(np.astype(np.greater(x, 0.0), np.int64), [x, y]), ((3,), (3,))),
    *cases("select", lambda x, y: np.select([np.greater(x, 0.0), np.greater(y, 0.0)], [np.multiply(x, y), y], 0.5), ((4,), (4,))),
    *cases("compress", lambda a: np.compress([True, False, True], a, axis=0), ((3, 2),)),
    *cases("extract", lambda a: np.extract(np.greater(a, 0.0), a), ((2, 3),), skip=VALUE_SIZED),
    *cases(
        "piecewise",
        lambda x: np.piecewise(x, [np.less(x, 0.0), np.greater(x, 1.0)], [np.square, np.exp, 0.5]),
        ((5,),),
        skip=DASK_INDEX_ZERO,
    ),
    *cases("apply_along_axis", lambda a: np.apply_along_axis(lambda r: np.multiply(r, r[0]), 1, a), ((2, 3),)),
    *cases("apply_over_axes", lambda a: np.apply_over_axes(np.sum, a, [0]), ((2, 3),)),
    *cases("r_", lambda x, y: np.r_[x, y, 0.5], ((2,), (3,))),
    *cases("c_", lambda x, y: np.c_[x, y], ((2,), (2,))),
    *cases("trim_zeros", lambda x: np.trim_zeros(np.concatenate([np.zeros_like(x[:1]), x])), ((3,),), (POSITIVE,)),
    *cases("unique", lambda x: np.unique(np.concatenate([x, x[:2]])), ((4,),), skip=NUMPY_NAMED),
    *cases("union1d", lambda x, y: np.union1d(x, y), ((3,), (2,)), skip=NUMPY_NAMED),
    *cases("intersect1d", lambda x, y: np.intersect1d(np.concatenate([x, y]), y), ((3,), (2,)), skip=NUMPY_NAMED),
    *cases("setdiff1d", lambda x, y: np.setdiff1d(np.concatenate([x, y]), y), ((3,), (2,)), skip=NUMPY_NAMED),
    *cases("setxor1d", lambda x, y: np.setxor1d(np.concatenate([x, y[:1]]), y), ((3,), (2,)), skip=NUMPY_NAMED),
    *cases("sort_complex", lambda x: np.real(np.sort_complex(x)), ((4,),), skip=NUMPY_NAMED),
    *cases("unique_values", lambda x: np.unique_values(np.concatenate([x, x[:2]])), ((4,),), skip=NUMPY_NAMED),
    *cases("unique_counts", lambda x: np.unique_counts(np.concatenate([x, x[1:]]))[0], ((3,),), skip=NUMPY_NAMED),
    *cases("unique_inverse", lambda x: np.unique_inverse(np.concatenate([x, x[:1]]))[0], ((3,),), skip=NUMPY_NAMED),
    *cases("unique_all", lambda x: np.unique_all(np.concatenate([x, x[:1]]))[0], ((3,),), skip=NUMPY_NAMED),
    # conversions (adcore's arrays are contiguous, in C order, and never subclasses)
    *cases("asanyarray", lambda x: np.asanyarray(x, order="C"), ((2, 3),)),
    *cases("ascontiguousarray", lambda x: np.ascontiguousarray(x), ((),)),
    *cases("asfortranarray_1d", lambda x: np.asfortranarray(x), ((3,),)),
    *cases("asarray_chkfinite", lambda x: np.asarray_chkfinite(x), ((2, 3),)),
    *cases("require", lambda x: np.require(x, requirements=["C", "W"]), ((2, 3),)),
    # Python lists (nested too) of traced values, where NumPy takes an array
    *cases("sum_list", lambda x, y: np.sum([x, y, x]), ((), ())),
    *cases("sum_nested_list", lambda x, y: np.sum([[x, y], [y, 0.5]], axis=0), ((), ())),
    *cases("prod_list", lambda x, y: np.prod([x, y]), ((), ())),
    *cases("max_list", lambda x, y: np.max([x, np.add(y, 3.0)]), ((), ())),
    *cases("mean_list", lambda x, y: np.mean([x, y]), ((), ())),
    *cases("var_list", lambda x, y: np.var([x, y, 0.5]), ((), ())),
    *cases("diag_list", lambda x, y: np.diag([x, y]), ((), ())),
    *cases("array_nested_list", lambda x, y: np.array([[x, 0.0], [0.0, y]]), ((), ())),
    *cases("trace_list", lambda x, y: np.trace([[x, y], [y, 0.5]]), ((), ())),
    *cases("cumsum_list", lambda x, y: np.cumsum([x, y, x]), ((), ())),
    *cases("cumprod_list", lambda x, y: np.cumprod([x, y]), ((), ())),
    *cases("dot_list", lambda x, y: np.dot([x, y], [y, 0.5]), ((), ())),
    *cases("outer_list", lambda x, y: np.outer([x, y], [y, 0.5]), ((), ())),
    *cases("norm_list", lambda x, y: np.linalg.norm([x, y]), ((), ())),
    # NumPy's keywords
    *cases("sum_where_initial", lambda x: np.sum(x, axis=1, where=np.greater(x, 0.0), initial=1.0), ((2, 3),)),
    *cases("prod_where", lambda x: np.prod(x, axis=0, where=np.greater(x, 0.0)), ((2, 3),)),
    *cases("max_initial", lambda x: np.max(x, axis=0, initial=0.0), ((2, 3),)),
    *cases("min_where", lambda x: np.min(x, where=np.less(x, 1.0), initial=1.0), ((2, 3),)),
    *cases("mean_where", lambda x: np.mean(x, axis=1, where=np.greater(x, -1.0)), ((2, 3),)),
    *cases("var_where", lambda x: np.var(x, axis=0, where=np.greater(x, -1.5), correction=0), ((3, 2),)),
    *cases("std_mean", lambda x: np.std(x, axis=1, mean=np.mean(x, axis=1, keepdims=True), ddof=1), ((2, 3),)),
    *cases("reshape_order_F", lambda x: np.reshape(x, (3, 2), order="F"), ((2, 3),)),
    *cases("reshape_method_order_F", lambda x: x.reshape(6, order="F"), ((2, 3),)),
    *cases("take_wrap", lambda x: np.take(x, [0, 7, -8], mode="wrap"), ((2, 3),)),
    *cases("take_clip_axis", lambda x: np.take(x, [[0, 4], [-3, 1]], axis=1, mode="clip"), ((2, 3),)),
    *cases("choose_array_clip", lambda c: np.choose([[0, 3, -1], [2, 1, 5]], c, mode="clip"), ((3, 2, 3),)),
    *cases("choose_array_wrap", lambda c: np.choose([[0, 3, -1], [2, 1, 5]], c, mode="wrap"), ((3, 1, 3),)),
    *cases("clip_min", lambda x: np.clip(x, min=-0.5), ((4,),)),
    *cases("concatenate_axis_none", lambda x, y: np.concatenate([x, y], axis=None), ((2, 2), (3,))),
    *cases("einsum_optimize", lambda a, b: np.einsum("ij,jk->ik", a, b, optimize="greedy"), ((2, 3), (3, 2))),
    *cases("array_ndmin", lambda x: np.array(x, ndmin=3), ((3,),)),
    *cases("full_like_traced", lambda x, v: np.full_like(x, v[0]), ((2, 2), (1,)), joint=True),  # x's dtype
    *cases("cumsum_dtype", lambda x: np.cumsum(x, axis=0, dtype=x.dtype), ((2, 3),)),
    # numpy.linalg
    *cases("cond", lambda a: np.linalg.cond(a), ((3, 3),)),
    *cases("cond_1", lambda a: np.linalg.cond(np.add(a, np.multiply(np.eye_like(a), 3.0)), 1), ((3, 3),), (U,)),
    *cases("eigvals", lambda a: np.linalg.eigvals(np.add(np.matmul(a, a.T), np.eye_like(a))), ((3, 3),), skip=NO_EIG),
    *cases("svdvals", lambda a: np.linalg.svdvals(a), ((3, 2),)),
    *cases(
        "tensorinv",
        lambda a: np.linalg.tensorinv(np.reshape(np.add(a, np.multiply(np.eye_like(a), 3.0)), (4, 2, 2)), 1),
        ((4, 4),),
        (U,),
    ),
    *cases(
        "tensorsolve",
        lambda a, b: np.linalg.tensorsolve(np.reshape(np.add(a, np.multiply(np.eye_like(a), 3.0)), (2, 2, 4)), b),
        ((4, 4), (2, 2)),
        (U, R),
    ),
    *cases("linalg_trace", lambda a: np.linalg.trace(a, offset=1), ((2, 3, 3),)),
    *cases("linalg_cross", lambda a, b: np.linalg.cross(a, b), ((2, 3), (3,))),
    *cases("linalg_outer", lambda a, b: np.linalg.outer(a, b), ((2,), (3,))),
    *cases("linalg_diagonal", lambda a: np.linalg.diagonal(a, offset=-1), ((3, 3),)),
]

test_derivatives, test_value_matches_numpy = spec_tests(SPECS)

# ---- values against NumPy's own functions (NumPy inputs) ----

RNG = numpy.random.default_rng(0)
A5, V3, M34 = RNG.normal(size=5), RNG.normal(size=3), RNG.normal(size=(3, 4))
SQUARE = RNG.normal(size=(3, 3))

#: name -> a call made with ``m`` = adcore.numpy and with ``m`` = numpy, whose results must agree
AGAINST_NUMPY = {
    "convolve_swapped_same": lambda m: m.convolve(V3, A5, "same"),
    "convolve_swapped_valid": lambda m: m.convolve(V3, A5, "valid"),
    "correlate_same": lambda m: m.correlate(A5, V3, "same"),
    "correlate_swapped_valid": lambda m: m.correlate(V3, A5, "valid"),
    "correlate_complex": lambda m: m.correlate(A5 + 1j * A5[::-1], V3 - 2j * V3, "full"),
    "cov": lambda m: m.cov(M34),
    "cov_weights": lambda m: m.cov(M34, fweights=[1, 2, 1, 3], aweights=[0.5, 1, 2, 1]),
    "cov_1d": lambda m: m.cov(A5),
    "corrcoef": lambda m: m.corrcoef(M34),
    "interp": lambda m: m.interp(numpy.linspace(-1, 3, 9), [0, 1, 2.5], [1.0, -1, 2]),
    "interp_left_right": lambda m: m.interp(numpy.linspace(-1, 3, 9), [0, 1, 2.5], [1.0, -1, 2], left=7, right=-7),
    "interp_period": lambda m: m.interp(numpy.linspace(-1, 7, 9), [0, 1, 2.5, 4], [1.0, -1, 2, 0], period=5),
    "interp_scalar": lambda m: m.interp(0.3, [0, 1.0], [1.0, 2]),
    "trapezoid_x": lambda m: m.trapezoid(M34, x=[0, 1, 3, 4.0]),
    "trapezoid_x2d": lambda m: m.trapezoid(M34, x=M34.cumsum(axis=1), axis=1),
    "polyder_constant": lambda m: m.polyder([5.0]),
    "polyint": lambda m: m.polyint(A5, 2, k=[1.0, 2.0]),
    "polydiv": lambda m: m.polydiv(A5, V3)[1],
    "polydiv_short": lambda m: m.polydiv(V3, A5)[0],
    "polyfit": lambda m: m.polyfit(A5, 1 + A5**2, 2),
    "polyfit_weights": lambda m: m.polyfit(A5, numpy.c_[A5, A5**3], 2, w=A5**2),
    "poly_complex": lambda m: m.poly([1 + 1j, 1 - 1j, 2]),
    "poly_matrix": lambda m: m.poly(SQUARE),
    "roots": lambda m: m.roots([1.0, -3, 2]),
    "roots_zeros": lambda m: m.sort_complex(m.roots([0, 1.0, 0, 1, 0, 0])),
    "vander_increasing": lambda m: m.vander(V3, 5, increasing=True),
    "fmod": lambda m: m.fmod(numpy.array([5.3, -5.3, 5.3, -5.3, 4.0]), numpy.array([2.0, 2, -2, -2, 2])),
    "modf_inf": lambda m: m.modf(numpy.array([1.5, -2.25, numpy.inf]))[0],
    "frexp_mantissa": lambda m: m.frexp(numpy.array([8.0, 7.99999, -3.0, 0.0, 1e-310, numpy.inf]))[0],
    "frexp_exponent": lambda m: m.frexp(numpy.array([8.0, 7.99999, -3.0, 0.0, 1e-310]))[1],
    "frexp_float32": lambda m: m.frexp(numpy.array([8.0, 7.99999, -3.0, 1e-40], numpy.float32))[0],
    "ldexp_subnormal": lambda m: m.ldexp(numpy.array([1.0, 3.0]), numpy.array([2, -1070])),
    "unwrap_2d": lambda m: m.unwrap(numpy.array([[0, 3, 6.5], [9, 1.0, -5]]), axis=0),
    "unwrap_period": lambda m: m.unwrap(numpy.array([0, 3, 6.5, 9, 1.0]), period=4, discont=1),
    "geomspace_array": lambda m: m.geomspace(numpy.array([1.0, 2]), 1000.0, 4, axis=1),
    "logspace": lambda m: m.logspace(0.0, 2.0, 5),
    "bincount": lambda m: m.bincount(numpy.array([0, 3, 1, 3])),
    "ediff1d": lambda m: m.ediff1d(M34, to_begin=[9.0, 8], to_end=7),
    "i0": lambda m: m.i0(A5),
    "real_if_close": lambda m: m.real_if_close(A5 + 1e-20j),
    "insert_axis": lambda m: m.insert(M34, [1, 3], [[9.0], [8.0], [7.0]], axis=1),
    "insert_slice": lambda m: m.insert(A5, slice(0, 4, 2), [1.0, 2]),
    "delete_slice": lambda m: m.delete(A5, slice(1, 4, 2)),
    "piecewise_one_condition": lambda m: m.piecewise(A5, A5 < 0, [lambda x: -x, 3.0]),
    "block_scalars": lambda m: m.block([[M34, numpy.ones((3, 1))], [numpy.zeros((1, 4)), 2.0]]),
    "r_directive": lambda m: m.r_["0,2,0", A5, A5],
    "r_slices": lambda m: m.r_[A5, 0:1:3j, 2.0, [3, 4], 1:7:2],
    "c_matrices": lambda m: m.c_[M34, M34],
    "trim_zeros_2d": lambda m: m.trim_zeros(numpy.array([[0.0, 0, 0], [0, 1, 0], [0, 0, 0]])),
    "trim_zeros_front": lambda m: m.trim_zeros(numpy.array([0.0, 0, 1, 2, 0]), "f"),
    "unique_axis": lambda m: m.unique(numpy.array([[1.0, 2], [1, 2], [0, 1]]), axis=0),
    "unique_counts": lambda m: m.unique(numpy.array([3.0, 1, 3, 2]), return_counts=True, return_index=True)[2],
    "setxor1d": lambda m: m.setxor1d([3.0, 1, 2, 1], [1.0, 5]),
    "sort_complex": lambda m: m.sort_complex(numpy.array([1 + 2j, 1 - 1j, 0])),
    "meshgrid_ij_sparse": lambda m: m.meshgrid(V3, A5, indexing="ij", sparse=True)[1],
    "meshgrid_three": lambda m: m.meshgrid(V3, A5, A5)[2],
    "fromfunction": lambda m: m.fromfunction(lambda i, j: i * 2.0 + j, (2, 3)),
    "apply_along_axis_matrix": lambda m: m.apply_along_axis(lambda r: m.outer(r[:2], r[:3]), 1, M34),
    "choose_clip": lambda m: m.choose(numpy.array([0, 5, 1]), [V3, 2 * V3], mode="clip"),
    "cumulative_sum_initial": lambda m: m.cumulative_sum(A5, include_initial=True),
    "cond_minus_2": lambda m: m.linalg.cond(M34, -2),
    "matrix_rank": lambda m: m.linalg.matrix_rank(M34),
    "matrix_rank_tol": lambda m: m.linalg.matrix_rank(numpy.eye(3), tol=0.5),
    "matrix_rank_hermitian": lambda m: m.linalg.matrix_rank(SQUARE @ SQUARE.T, hermitian=True),
    "eigvals_complex": lambda m: m.linalg.eigvals(SQUARE),
    "var_where_empty": lambda m: m.var(M34, axis=1, where=M34 > 1, ddof=1),
    "round_decimals": lambda m: m.round(M34, 3),
    "round_negative_decimals": lambda m: m.round(M34 * 1000, -2),
    "take_clip": lambda m: m.take(M34, [0, 13, -20], axis=1, mode="clip"),
    "max_where": lambda m: m.max(M34, axis=0, where=M34 > 0, initial=-5.0),
    "linspace_retstep": lambda m: m.linspace(numpy.zeros(2), numpy.array([1.0, 2.0]), 4, axis=-1, retstep=True)[1],
    "full_like_shape": lambda m: m.full_like(M34, 2.0, shape=(2, 2)),
    "zeros_like_dtype": lambda m: m.zeros_like(M34, numpy.float32),
    "array_copy_none": lambda m: m.array(M34, copy=None, ndmin=3),
    "tri": lambda m: m.tri(3, 4, 1),
    "indices": lambda m: m.indices((2, 3)),
    "indices_sparse": lambda m: m.indices((2, 3), sparse=True)[1],
    "identity": lambda m: m.identity(3),
    "digitize": lambda m: m.digitize(A5, [-1, 0, 1.0]),
    "digitize_decreasing_right": lambda m: m.digitize(A5, [1.0, 0, -1], right=True),
    "heaviside": lambda m: m.heaviside(numpy.array([-1.0, 0, 2, numpy.nan]), 0.5),
    "nanargmax": lambda m: m.nanargmax(numpy.array([[1.0, numpy.nan, 3], [4, 2, numpy.nan]]), axis=1),
    "isrealobj": lambda m: m.isrealobj(A5 + 0j),
}


#: cases whose NumPy call needs a newer NumPy than the oldest adcore supports: name -> that NumPy
NEWER_NUMPY = {"trim_zeros_2d": (2, 2)}  # trim_zeros of an n-d array: NumPy 2.2 on


@pytest.mark.parametrize("name", AGAINST_NUMPY)
def test_values_match_numpys_own_functions(name):
    call = AGAINST_NUMPY[name]
    if tuple(int(p) for p in numpy.__version__.split(".")[:2]) < NEWER_NUMPY.get(name, (0, 0)):
        pytest.skip(f"NumPy {numpy.__version__} cannot compute the reference (NumPy {NEWER_NUMPY[name]} on)")
    ours, theirs = numpy.asarray(call(np)), numpy.asarray(call(numpy))
    assert ours.shape == theirs.shape
    if theirs.dtype.kind in "biu":
        assert ours.dtype == theirs.dtype
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


# ---- the non-differentiable names on every backend ----

#: name -> (a call on arrays ``x`` (float) and ``k`` (integer) of one backend, the same call's NumPy result)
NOT_DIFFERENTIABLE = {
    "gcd": lambda m, x, k: m.gcd(k, 6),
    "bitwise_and": lambda m, x, k: m.bitwise_and(k, 3),
    "invert": lambda m, x, k: m.invert(k),
    "left_shift": lambda m, x, k: m.left_shift(k, 2),
    "nextafter": lambda m, x, k: m.nextafter(x, 2.0),
    "heaviside": lambda m, x, k: m.heaviside(x, 0.5),
    "digitize": lambda m, x, k: m.digitize(x, m.asarray([-1.0, 0.0, 1.0]) if m is numpy else _like(x, [-1.0, 0.0, 1.0])),
    "nanargmin": lambda m, x, k: m.nanargmin(x),
    "isrealobj": lambda m, x, k: m.isrealobj(x),
    "ix_": lambda m, x, k: m.ix_(k, k)[1],
    "isin": lambda m, x, k: m.isin(k, [1, 2]),
    "lexsort": lambda m, x, k: m.lexsort((x, k)),
    "histogram": lambda m, x, k: m.histogram(x, bins=3, range=(-2.0, 2.0))[0],
    "tril_indices_from": lambda m, x, k: m.tril_indices_from(m.reshape(x, (2, 2)))[1],
    "round": lambda m, x, k: m.round(x, 1),
    "any_where": lambda m, x, k: m.any(m.greater(x, 10.0), where=m.greater(x, 0.0)),
    "argmax_keepdims": lambda m, x, k: m.argmax(m.reshape(x, (2, 2)), axis=1, keepdims=True),
    "matrix_rank": lambda m, x, k: m.linalg.matrix_rank(m.reshape(x, (2, 2))),
    "ravel_multi_index_clip": lambda m, x, k: m.ravel_multi_index((k, m.flip(k)), (3, 5), mode="clip"),
    "ravel_multi_index_modes_F": lambda m, x, k: m.ravel_multi_index((k, m.flip(k)), (3, 5), mode=("wrap", "clip"), order="F"),
    "ravel_multi_index": lambda m, x, k: m.ravel_multi_index((k % 3, m.flip(k) % 5), (3, 5)),
    "unravel_index": lambda m, x, k: m.unravel_index(k, (3, 5))[1],
    "unravel_index_F": lambda m, x, k: m.unravel_index(k, (4, 4), order="F")[0],
}
#: what only the libraries with a NumPy-named function of that name compute (``Backend.numpy_function``)
NUMPY_NAMED_ONLY = {"gcd", "isin", "lexsort", "histogram"}


def _like(x, data):
    return adcore.numpy.arrays._from_host(numpy.asarray(data), x)


@pytest.mark.parametrize("name", NOT_DIFFERENTIABLE)
def test_not_differentiable_names_run_on_every_backend(backend, name):
    call = NOT_DIFFERENTIABLE[name]
    data, ints = numpy.array([0.5, -1.5, 0.0, 2.5]), numpy.array([1, 2, 3, 12])
    x, k = backend.asarray(data), backend.asarray(ints, "int64")
    if name in NUMPY_NAMED_ONLY and getattr(backend.backend.numpy_namespace, name, None) is None:
        with pytest.raises(NotImplementedError, match=f"{name}: the {backend.name} backend has no NumPy function"):
            call(np, x, k)
        return
    result = call(np, x, k)
    expected = call(numpy, data, ints)
    if not isinstance(result, (bool, numpy.bool_)):
        backend.check_device(result)
        result = backend.to_numpy(result)
    numpy.testing.assert_array_equal(numpy.asarray(result), expected)

    def traced(x):  # the same call on a traced value: the result is plain, the derivative zero
        value = call(np, x, k)
        assert not isbox(value)
        return np.sum(np.multiply(x, 2.0))

    numpy.testing.assert_array_equal(backend.to_numpy(grad(traced)(x)), 2.0 * numpy.ones(4))


@pytest.mark.parametrize(
    "make", [lambda m: m.empty((2, 3)), lambda m: m.identity(2), lambda m: m.tri(2), lambda m: m.indices((2,))]
)
def test_creation_names_honour_the_default_backend(backend, make):
    if backend.device is not None:
        pytest.skip("creation functions make arrays on the default device")
    with adcore.use_backend(backend.name):
        made = make(np)
    backend.check_device(made)
    assert made.shape == make(numpy).shape


def test_creation_keywords_device_and_like(backend):
    like = backend.asarray([1.0, 2.0], "float32")
    device = backend.backend.device(like)
    for made in (
        np.zeros(3, like=like),
        np.ones((2,), device=device, like=like),
        np.full(2, 7.0, like=like),
        np.eye(2, like=like),
        np.arange(3.0, like=like),
        np.empty(2, like=like),
        np.array([1.0, 2.0], like=like),
        np.zeros_like(like, shape=(3,)),
    ):
        backend.check_device(made)
    with pytest.raises(NotImplementedError, match="order='F'"):
        np.zeros(3, order="F")


def test_out_other_than_none_is_refused():
    x = numpy.ones(3)
    for call in (lambda: np.sum(x, out=numpy.empty(())), lambda: np.cumsum(x, out=x), lambda: np.mean(x, out=numpy.empty(()))):
        with pytest.raises(NotImplementedError, match="out= is not supported"):
            call()
    assert np.sum(x, out=None) == 3.0


def test_where_without_initial_is_refused_for_max():
    with pytest.raises(ValueError, match="specify 'initial'"):
        np.max(numpy.ones(3), where=numpy.array([True, False, True]))


def test_array_copy_false_refuses_a_copy():
    with pytest.raises(ValueError, match="copy=False"):
        np.array([1.0, 2.0], copy=False)
    x = numpy.ones(3)
    assert np.array(x, copy=False) is x


NEW_ARRAY_CASES = {
    "repeat a column": lambda np, v, m: np.repeat(v[:, None], 2, 1),
    "repeat once": lambda np, v, m: np.repeat(v, 1),
    "repeat a 1 x 1": lambda np, v, m: np.repeat(m[:1, :1], 3, axis=0),
    "tile a column": lambda np, v, m: np.tile(v[:, None], (1, 2)),
    "tile once": lambda np, v, m: np.tile(m, (1, 1)),
    "roll by 0": lambda np, v, m: np.roll(v, 0),
    "roll by the length": lambda np, v, m: np.roll(m, 2, axis=0),
    "meshgrid": lambda np, v, m: np.meshgrid(v, v)[0],
    "meshgrid sparse": lambda np, v, m: np.meshgrid(v, v, sparse=True)[1],
    "choose one choice": lambda np, v, m: np.choose([0, 0, 0], [v]),
    "select": lambda np, v, m: np.select([v > -1], [v]),
    "matrix_power 0": lambda np, v, m: np.linalg.matrix_power(m, 0),
}


@pytest.mark.parametrize("name", list(NEW_ARRAY_CASES))
def test_functions_returning_a_new_array_return_a_writable_one_of_its_own(name):
    """What a NumPy function returns as a new array can be written into without touching its argument,
    as a library does with ``out = np.repeat(value[:, None], 2, 1); out[ok] = ...`` (surpyval's bounds):
    never a read-only broadcast view, nor the argument itself."""
    make = NEW_ARRAY_CASES[name]
    v, m = numpy.arange(3.0), numpy.arange(4.0).reshape(2, 2)
    kept = v.copy(), m.copy()
    ours, theirs = make(np, v, m), make(numpy, v, m)
    numpy.testing.assert_array_equal(ours, theirs)
    assert ours.flags.writeable and not numpy.shares_memory(ours, v) and not numpy.shares_memory(ours, m)
    ours[...] = -1.0
    numpy.testing.assert_array_equal(v, kept[0])
    numpy.testing.assert_array_equal(m, kept[1])


def test_writing_functions_refuse_traced_arrays():
    def f(x):
        np.copyto(x, 0.0)
        return x

    with pytest.raises(TypeError, match="copyto writes into an array"):
        grad(lambda x: np.sum(f(x)))(numpy.ones(2))
    target = numpy.zeros(3)
    np.put(target, [0, 2], [5.0, 6.0])
    numpy.testing.assert_array_equal(target, [5.0, 0.0, 6.0])


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_put_writes_as_numpys_on_every_backend(backend, mode):
    indices = [4, -1, 4, 0] if mode == "raise" else [9, -7, 4, 4, 1]
    expected = numpy.arange(6.0).reshape(2, 3)
    numpy.put(expected, indices, [10.0, 20.0], mode=mode)  # v repeats; the last write at a position wins
    target = backend.asarray(numpy.arange(6.0).reshape(2, 3))
    assert np.put(target, backend.asarray(indices, "int64"), backend.asarray([10.0, 20.0]), mode=mode) is None
    backend.check_device(target)
    numpy.testing.assert_array_equal(backend.to_numpy(target), expected)


def test_index_functions_refuse_out_of_range_entries_as_numpy(backend):
    if backend.name == "dask":
        pytest.skip("Dask's own ravel_multi_index checks nothing (lazy values)")
    k = backend.asarray([0, 3], "int64")
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        np.ravel_multi_index((k, k), (3, 5))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        np.ravel_multi_index((k - 1, k), (5, 5))
    with pytest.raises(IndexError, match="out of bounds"):
        np.put(backend.asarray(numpy.zeros(3)), k, backend.asarray([1.0]))
    with pytest.raises(ValueError, match="mode must be 'raise', 'wrap' or 'clip'"):
        np.choose(k, backend.asarray(numpy.ones((4, 2))), mode="nearest")


@settings(max_examples=6, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3),
    n=st.integers(1, 4),
    mode=st.sampled_from(["wrap", "clip"]),
    as_array=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_choose_and_take_with_a_mode_match_numpy_on_every_backend(backend, shapes, n, mode, as_array, seed):
    """``choose`` (choices as one array or a list, indices out of range on both sides) and ``take`` (along
    each axis), values against NumPy and derivatives in both modes, on every backend."""
    (index_shape, choice_shape), _ = shapes
    rng = numpy.random.default_rng(seed)
    index = rng.integers(-2 * n, 2 * n + 1, size=index_shape)
    data = rng.uniform(-1, 1, (n,) + choice_shape)
    chosen = lambda c: np.choose(index.tolist(), c if as_array else [c[k, ...] for k in range(n)], mode=mode)  # noqa: E731
    c = backend.asarray(data)
    result = chosen(c)
    backend.check_device(result)
    numpy.testing.assert_array_equal(backend.to_numpy(result), numpy.choose(index, data, mode=mode))
    check_grads(chosen, modes=("fwd", "rev"), order=1)(c)
    if backend.name == "dask" and index.size == 1:
        return  # DASK_INDEX_ZERO: Dask's gather by a one-element index array fails upstream
    axis = int(rng.integers(0, data.ndim))
    taken = lambda c: np.take(c, index.tolist(), axis=axis, mode=mode)  # noqa: E731
    numpy.testing.assert_array_equal(backend.to_numpy(taken(c)), numpy.take(data, index, axis=axis, mode=mode))
    check_grads(taken, modes=("fwd", "rev"), order=1)(c)


def test_declared_missing_derivatives_raise_naming_the_function():
    assert np.histogram in derivatives_not_implemented
    with pytest.raises(NotImplementedError, match="histogram: adcore has no derivative"):
        grad(lambda w: np.sum(np.histogram(numpy.ones(3), weights=w)[0]))(numpy.ones(3))
    counts = grad(lambda x: np.sum(x) + np.sum(np.histogram(x, bins=2)[0]))(numpy.ones(3))
    numpy.testing.assert_array_equal(counts, numpy.ones(3))


def test_numpy_types_and_constants_are_numpys():
    assert np.ndarray is numpy.ndarray and np.dtype is numpy.dtype and np.errstate is numpy.errstate
    assert np.euler_gamma == numpy.euler_gamma and np.finfo(np.float32).eps == numpy.finfo(numpy.float32).eps
    assert np.finfo(numpy.ones(2, numpy.float32)).bits == 32
    with np.errstate(divide="ignore"):
        assert np.divide(1.0, 0.0) == numpy.inf


def test_reductions_over_axis_0_or_minus_1_of_a_0d_array(backend):
    # NumPy, array_api_strict and torch take them (make_ggnvp's default g sums a scalar output over axis
    # -1); the VJP took the axis modulo ndim 0. JAX and Dask refuse them.
    def f(x):
        return np.sum(x, axis=-1) * np.prod(x, axis=0) + np.max(x, axis=-1)

    x = backend.asarray(0.7)
    try:
        f(x)
    except (ValueError, IndexError) as error:
        pytest.skip(f"the library refuses it: {error}")
    check_grads(f, modes=("fwd", "rev"), order=2)(x)


PAD_OPTIONS = {
    "constant": st.fixed_dictionaries({"constant_values": st.floats(-2, 2)}),
    "edge": st.just({}),
    "reflect": st.fixed_dictionaries({"reflect_type": st.sampled_from(["even", "odd"])}),
    "symmetric": st.fixed_dictionaries({"reflect_type": st.sampled_from(["even", "odd"])}),
    "wrap": st.just({}),
    "linear_ramp": st.fixed_dictionaries({"end_values": st.floats(-2, 2)}),
    **{
        m: st.fixed_dictionaries({}, optional={"stat_length": st.integers(1, 4)})
        for m in ("maximum", "minimum", "mean", "median")
    },
}


@settings(max_examples=12, derandomize=True, deadline=None)
@given(shape=st.lists(st.integers(2, 3), min_size=1, max_size=2), mode=st.sampled_from(sorted(PAD_OPTIONS)), data=st.data())
def test_pad_matches_numpy_in_every_mode(shape, mode, data):
    """Per-axis widths up to three times the axis (NumPy's repeated reflections), every mode and option:
    values against NumPy's ``pad``, derivatives against finite differences."""
    widths = [(data.draw(st.integers(0, 3 * n)), data.draw(st.integers(0, 3 * n))) for n in shape]
    options = data.draw(PAD_OPTIONS[mode])
    x = numpy.random.default_rng(len(widths)).uniform(-1, 1, shape)
    numpy.testing.assert_allclose(np.pad(x, widths, mode=mode, **options), numpy.pad(x, widths, mode=mode, **options), rtol=1e-13)
    check_grads(lambda x: np.pad(x, widths, mode=mode, **options), modes=("fwd", "rev"), order=1)(x)
