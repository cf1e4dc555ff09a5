"""Code written against the Array API standard only (``xp = array_namespace(x)``) is differentiated unchanged.

Each function below takes its namespace from its input: on raw arrays that is the
library's own (the value test compares against NumPy's), while traced it is
adcore's differentiable namespace (``adcore.array_api``).
"""

import array_api_compat
import array_api_extra as xpx
import numpy
import pytest

import adcore
from adcore import grad
from adcore.array_api import namespace
from specs import P, U, cases, spec_tests


def ns(x):
    return array_api_compat.array_namespace(x)


def renamed_elementwise(x):
    xp = ns(x)
    return xp.sum(
        xp.pow(x, 3.0) + xp.acos(x) * xp.asin(x) + xp.atan(x) + xp.atan2(x, 1.5) + xp.acosh(2.0 + x * x) + xp.atanh(x / 2)
    )


def shapes_and_concat(x):
    xp = ns(x)
    m = xp.reshape(xp.concat([x, xp.sin(x)], axis=0), (2, 3))
    parts = xp.unstack(xp.permute_dims(m, (1, 0)), axis=0)
    stacked = xp.stack(parts, axis=1)
    return xp.sum(xp.matrix_transpose(stacked) @ m) + xp.sum(xp.flip(xp.roll(m, 1, axis=1), axis=0) * m)


def reductions(x):
    xp = ns(x)
    m = xp.reshape(x, (2, 3))
    return (
        xp.sum(xp.std(m, axis=0, correction=1.0))
        + xp.sum(xp.var(m, axis=1))
        + xp.sum(xp.cumulative_sum(m, axis=1, include_initial=True))
        + xp.sum(xp.cumulative_prod(xp.reshape(m, (-1,))))
        + xp.sum(xp.max(m, axis=1) * xp.min(m, axis=0)[:2])
        + xp.mean(xp.prod(m, axis=0))
    )


def vectors(x):
    xp = ns(x)
    m = xp.reshape(x, (2, 3))
    return xp.vecdot(x, x) + xp.sum(xp.vecdot(m, m, axis=0)) + xp.sum(xp.clip(x, min=-0.3, max=0.5) * x)


def dtypes_and_creation(x):
    xp = ns(x)
    ones = xp.ones(x.shape, dtype=x.dtype, device=array_api_compat.device(x))
    weights = xp.asarray([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=x.dtype, device=array_api_compat.device(x))
    mask = x > 0.0
    return xp.sum(xp.where(mask, x * weights, ones)) + xp.sum(xp.astype(x, xp.float64) ** 2)


def sorting(x):
    xp = ns(x)
    order = xp.argsort(x, descending=True)
    return xp.sum(
        xp.sort(x, descending=True) * xp.linspace(1.0, 2.0, 6, dtype=x.dtype, device=array_api_compat.device(x))
    ) + xp.sum(xp.take(x, order[:2]))


def linear_algebra(x):
    xp = ns(x)
    a = xp.reshape(x[:4], (2, 2)) + 3.0 * xp.eye(2, dtype=x.dtype, device=array_api_compat.device(x))
    spd = a @ xp.matrix_transpose(a)
    eigenvalues, _ = xp.linalg.eigh(spd)
    sign, logabsdet = xp.linalg.slogdet(spd)
    return (
        xp.sum(xp.linalg.inv(a))
        + xp.linalg.det(a)
        + logabsdet * sign
        + xp.sum(eigenvalues)
        + xp.sum(xp.linalg.svdvals(a))
        + xp.linalg.matrix_norm(a)
        + xp.sum(xp.linalg.vector_norm(a, axis=0))
        + xp.sum(xp.linalg.trace(spd))
        + xp.sum(xp.linalg.diagonal(a) * xp.linalg.outer(x[:2], x[2:4])[0, :])
        + xp.sum(xp.linalg.cholesky(spd))
        + xp.sum(xp.linalg.solve(a, x[4:]))
    )


SPECS = [
    *cases("renamed_elementwise", renamed_elementwise, ((6,),), (U,)),
    *cases("shapes_and_concat", shapes_and_concat, ((3,),)),
    *cases("reductions", reductions, ((6,),), (P,)),
    *cases("vectors", vectors, ((6,),)),
    *cases("dtypes_and_creation", dtypes_and_creation, ((6,),), order=1),
    *cases("sorting", sorting, ((6,),), order=1),
    *cases("linear_algebra", linear_algebra, ((6,),), (U,)),
    # array-api-extra's functions are written against the standard; adcore's namespace makes them differentiable
    *cases("xpx.cov", lambda x: ns(x).sum(xpx.cov(ns(x).reshape(x, (2, 3)))), ((6,),)),
    *cases("xpx.sinc", lambda x: ns(x).sum(xpx.sinc(x)), ((6,),)),
    *cases("xpx.kron", lambda x: ns(x).sum(xpx.kron(ns(x).reshape(x, (2, 3)), ns(x).reshape(x, (3, 2))) ** 2), ((6,),)),
    *cases("xpx.atleast_nd", lambda x: ns(x).sum(xpx.atleast_nd(x, ndim=3) ** 2), ((6,),)),
]

test_derivatives, test_value_matches_numpy = spec_tests(SPECS)


def test_gradient_of_a_standard_only_function_is_exact(backend):
    """d/dx sum(x ** 2) is 2 x, through ``xp.pow`` and ``xp.sum`` of the traced value's namespace."""
    x = backend.asarray([1.0, -2.0, 3.0])
    g = grad(lambda x: ns(x).sum(ns(x).pow(x, 2)))(x)
    backend.check_device(g)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [2.0, -4.0, 6.0])


def test_one_namespace_per_backend_with_the_backends_dtypes(backend):
    x = backend.asarray([1.0, 2.0])

    def check(x):
        xp = array_api_compat.array_namespace(x, x * 2.0)
        assert xp is namespace(backend.name)
        assert xp.float64 == backend.backend.xp.float64
        assert xp.__array_api_version__ == "2024.12"
        assert array_api_compat.device(x) == backend.backend.device(adcore.core.getval(x))
        zeros = xp.zeros(2, dtype=xp.float32, device=x.device)
        backend.check_device(zeros)
        return xp.sum(x)

    grad(check)(x)


def test_a_name_that_would_drop_the_derivative_is_refused():
    with pytest.raises(AttributeError, match=r"adcore\.array_api\[numpy\] has no differentiable 'nanmean'"):
        namespace("numpy").nanmean  # noqa: B018 - the attribute lookup is what is tested
