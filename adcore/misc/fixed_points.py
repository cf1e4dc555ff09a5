"""Fixed points differentiated implicitly (autograd 1.9.1's ``autograd.misc.fixed_points``).

The derivative of the fixed point ``x* = f(a)(x*)`` with respect to ``a`` does
not depend on the iterations that found it: by the implicit function theorem
``dx*/da = (I - df/dx)^-1 df/da``. Both rules find the inverse as a second
fixed point, with the same ``distance`` and ``tol``:

- reverse mode: the adjoint ``u = g + (df/dx)^T u``, then ``vjp = (df/da)^T u``;
- forward mode: the tangent ``t = (df/dx) t + (df/da) v``.

Each iteration of a rule costs one VJP (or JVP) of ``f(a)`` at ``x*``; nothing
of the forward iterations is kept.
"""

from ..builtins import tuple as traced_tuple
from ..core import defjvp, defvjp, primitive, vspace
from ..operators import make_jvp, make_vjp

__all__ = ["fixed_point"]


@primitive
def fixed_point(f, a, x0, distance, tol):
    """Iterate ``x = f(a)(x)`` from ``x0`` until ``distance(x, x_prev) <= tol``; differentiable in ``a``.

    Parameters
    ----------
    f : callable
        ``f(a)`` returns the update ``x -> x_next``, a contraction near the
        fixed point; written with ``adcore.numpy`` functions so that it can be
        differentiated in ``a`` and ``x``.
    a : array, scalar or nesting of them
        The parameters; the derivative is taken with respect to them.
    x0 : array or scalar
        The first iterate.
    distance : callable
        ``distance(x, x_prev)``, a real scalar (e.g. ``np.max(np.abs(x - x_prev))``).
    tol : float
        Iterations stop once ``distance(x, x_prev) <= tol``.

    Returns
    -------
    array or scalar
        The fixed point (the space of ``f(a)(x0)``). Its derivative with
        respect to ``a`` (either mode, any order) is the implicit one; the
        derivative with respect to ``x0`` is zero.

    Examples
    --------
    Newton's iteration for ``sqrt(a)``; ``d sqrt(a) / da = 1 / (2 sqrt(a))``:

    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> newton = lambda a: lambda x: 0.5 * (x + np.divide(a, x))
    >>> sqrt = lambda a: fixed_point(newton, a, 1.0, lambda x, y: np.abs(x - y), 1e-12)
    >>> round(float(sqrt(4.0)), 12), round(float(grad(sqrt)(4.0)), 12)
    (2.0, 0.25)
    """
    update = f(a)
    x, x_prev = update(x0), x0
    while distance(x, x_prev) > tol:
        x, x_prev = update(x), x
    return x


def grad_fixed_point(ans, f, a, x0, distance, tol):
    """``(df/da)^T u`` where the adjoint ``u = g + (df/dx)^T u`` at ``x* = ans`` is itself a ``fixed_point``
    (a traced one, with ``a``, ``ans`` and ``g`` as its parameters, so that higher orders work)."""

    def adjoint_update(params):
        a, x_star, g = params
        vjp_x, _ = make_vjp(f(a))(x_star)
        return lambda u: vspace(x_star).add(vjp_x(u), g)

    vjp_a, _ = make_vjp(lambda a, x: f(a)(x))(a, ans)

    def vjp(g):
        adjoint = fixed_point(adjoint_update, traced_tuple((a, ans, g)), vspace(ans).zeros(), distance, tol)
        return vjp_a(adjoint)

    return vjp


def jvp_fixed_point(v, ans, f, a, x0, distance, tol):
    """The tangent ``t = (df/dx) t + (df/da) v`` at ``x* = ans``, as a ``fixed_point``."""

    def tangent_update(params):
        a, x_star, tangent_from_a = params
        jvp_x = make_jvp(f(a))(x_star)
        return lambda t: vspace(x_star).add(jvp_x(t)[1], tangent_from_a)

    _, tangent_from_a = make_jvp(lambda a, x: f(a)(x))(a, ans)(v)
    return fixed_point(tangent_update, traced_tuple((a, ans, tangent_from_a)), vspace(ans).zeros(), distance, tol)


defvjp(fixed_point, None, grad_fixed_point, None)
defjvp(fixed_point, None, jvp_fixed_point, None)
