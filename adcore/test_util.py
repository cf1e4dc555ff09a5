"""The gradient checker: derivatives against central finite differences, in both modes, to any order.

Finite differences are computed in float64 (complex128) even for float32
inputs, at the same point, so they are accurate to about 1e-10; the
tolerance then only has to absorb the rounding of the derivative computed in
the input's own precision:

============  ======  ======
input dtype   rtol    atol
============  ======  ======
float64       1e-6    1e-6
float32       2e-3    2e-3
============  ======  ======

A rule wrong by 0.1% fails in float64 (``tests/test_test_util.py`` checks it).
"""

from itertools import product

import numpy as _np

from .builtins import ContainerVSpace, build_container, container
from .core import Node, rules_checked, trace, vspace
from .numpy import ArrayVSpace
from .operators import make_jvp, make_vjp, unary_to_nary

EPS = 1e-6
TOLERANCES = {"float64": {"rtol": 1e-6, "atol": 1e-6}, "float32": {"rtol": 2e-3, "atol": 2e-3}}


def _leaves(x):
    if isinstance(x, dict):
        return [leaf for key in x for leaf in _leaves(x[key])]
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [x]


def _map(fun, x):
    if isinstance(x, dict):
        return {key: _map(fun, value) for key, value in x.items()}
    if isinstance(x, (list, tuple)):
        return build_container(type(x), [_map(fun, item) for item in x])
    return fun(x)


def _to_float64(x):
    if _precision(x) != "float32":
        return x
    backend = vspace(x).backend
    wide = "complex128" if backend.isdtype(x.dtype, "complex floating") else "float64"
    return backend.astype(x, backend.dtype(wide))


def _precision(x):
    dtype = getattr(x, "dtype", None)
    return "float32" if dtype is not None and str(dtype).split(".")[-1] in ("float32", "complex64") else "float64"


def _to_numpy(x):
    return _np.asarray(vspace(x).backend.to_numpy(x)) if hasattr(x, "shape") else _np.asarray(x)


def _tolerance(x):
    return TOLERANCES["float32" if any(_precision(leaf) == "float32" for leaf in _leaves(x)) else "float64"]


class _ValueNode(Node):
    """Records nothing: evaluating ``f`` under a trace of these nodes gives ``f``'s value
    with its argument boxed, as in the derivative being checked (so array methods work
    on every backend)."""

    __slots__ = []

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        pass

    def initialize_root(self):
        pass


def _value(f, x):
    return trace(_ValueNode.new_root(), lambda x: container(f(x)), x)[0]


def _numerical_jvp(f, x, v):
    """Central differences of ``f`` at ``x`` along ``v``, in float64."""
    x, v = _map(_to_float64, x), _map(_to_float64, v)
    x_vs = vspace(x)
    f_plus = _value(f, x_vs.add(x, x_vs.scalar_mul(v, EPS)))
    f_minus = _value(f, x_vs.add(x, x_vs.scalar_mul(v, -EPS)))
    y_vs = vspace(f_plus)
    return y_vs.scalar_mul(y_vs.add(f_plus, y_vs.scalar_mul(f_minus, -1.0)), 1.0 / (2 * EPS))


def _same_space(expected, actual):
    """Whether ``actual`` has the shape, dtype, backend and device of ``expected`` (a Python
    scalar's space has no device)."""
    if isinstance(expected, ContainerVSpace) and isinstance(actual, ContainerVSpace):
        return (
            expected.container_type is actual.container_type
            and expected.keys == actual.keys
            and all(map(_same_space, expected.spaces, actual.spaces))
        )
    if isinstance(expected, ArrayVSpace) and isinstance(actual, ArrayVSpace):
        return (
            expected.shape == actual.shape
            and expected.dtype == actual.dtype
            and expected.backend is actual.backend
            and (expected.device is None or expected.device == actual.device)
        )
    return expected == actual


def _assert_close(what, exact, numeric, tolerance):
    for a, b in zip(_leaves(exact), _leaves(numeric)):
        a, b = _to_numpy(a), _to_numpy(b)
        if not _np.allclose(a, b, **tolerance):
            raise AssertionError(f"{what}\n  exact:   {a}\n  numeric: {b}\n  tolerance: {tolerance}")


def check_jvp(f, x, rng):
    x_vs = vspace(x)
    v = x_vs.randn(rng)
    y, tangent = make_jvp(f)(x)(v)
    name = getattr(f, "__name__", "f")
    if not _same_space(vspace(y), vspace(tangent)):
        raise AssertionError(f"check_grads: the JVP of {name} returned {vspace(tangent)}, expected {vspace(y)}")
    _assert_close(
        f"check_grads: the JVP of {name} disagrees with finite differences", tangent, _numerical_jvp(f, x, v), _tolerance(x)
    )


def check_vjp(f, x, rng):
    x_vs = vspace(x)
    vjp, y = make_vjp(f)(x)
    y_vs = vspace(y)
    u, v = y_vs.randn(rng), x_vs.randn(rng)
    cotangent = x_vs.covector(vjp(y_vs.covector(u)))
    name = getattr(f, "__name__", "f")
    if not _same_space(x_vs, vspace(cotangent)):
        raise AssertionError(f"check_grads: the VJP of {name} returned {vspace(cotangent)}, expected {x_vs}")
    exact = x_vs.inner_prod(v, cotangent)
    numeric = vspace(_map(_to_float64, y)).inner_prod(_map(_to_float64, u), _numerical_jvp(f, x, v))
    _assert_close(
        f"check_grads: the VJP of {name} disagrees with finite differences (<J^T u, v> vs <u, J v>)",
        exact,
        numeric,
        _tolerance(x),
    )


@unary_to_nary
def check_grads(f, x, modes=("fwd", "rev"), order=2, seed=0):
    """Check the derivatives of ``f`` at ``x`` against central finite differences.

    Usage: ``check_grads(f, argnum=0, modes=("fwd", "rev"), order=2)(*args)``.
    ``fwd`` compares ``J v`` with finite differences along a random ``v``;
    ``rev`` compares ``<J^T u, v>`` with ``<u, J v>`` for random ``u`` and
    ``v``. With ``order > 1`` the derivative functions are checked in turn.
    Both also check that the derivative has the dtype, backend and device of
    its space (float32 in, float32 out), and every rule's output its space's shape
    and dtype as it is made (``adcore.set_debug``). Tolerances: ``TOLERANCES``.

    Raises
    ------
    AssertionError
        Naming the function and the mode, with both values.
    ValueError
        Naming the primitive and the argnum whose rule returned a value of another shape or dtype.
    """
    with rules_checked():
        _check_grads(f, x, modes, order, seed)


def _check_grads(f, x, modes, order, seed):
    rng = _np.random.default_rng(seed)
    if "fwd" in modes:
        check_jvp(f, x, rng)
        if order > 1:
            v = vspace(x).randn(rng)

            def jvp_of(x, v):
                return make_jvp(f)(x)(v)[1]

            jvp_of.__name__ = f"jvp_of_{getattr(f, '__name__', 'f')}"
            check_grads(jvp_of, (0, 1), modes, order - 1, seed + 1)(x, v)
    if "rev" in modes:
        check_vjp(f, x, rng)
        if order > 1:
            u = vspace(_value(f, x)).randn(rng)

            def vjp_of(x, u):
                return make_vjp(f)(x)[0](u)

            vjp_of.__name__ = f"vjp_of_{getattr(f, '__name__', 'f')}"
            check_grads(vjp_of, (0, 1), modes, order - 1, seed + 1)(x, u)


def combo_check(fun, *args, **kwargs):
    """``check_grads(fun, *args, **kwargs)`` at every combination of the values offered (autograd's):
    ``combo_check(f, [0, 1])([x1, x2], [y1], axis=[0, None])`` checks ``f`` in arguments 0 and 1
    at ``(x1, y1, axis=0)``, ``(x1, y1, axis=None)``, ``(x2, y1, axis=0)`` and ``(x2, y1, axis=None)``."""

    def _combo_check(*arg_choices, **kwarg_choices):
        keyword_choices = [[(key, value) for value in values] for key, values in kwarg_choices.items()]
        for call_args in product(*arg_choices):
            for call_kwargs in product(*keyword_choices):
                check_grads(fun, *args, **kwargs)(*call_args, **dict(call_kwargs))

    return _combo_check
