"""The differentiable ``adcore.scipy.integrate``: SciPy's ``odeint``, with adjoint gradients.

``odeint`` integrates ``dy/dt = func(y, t, *args)`` with SciPy's LSODA and is
differentiable with respect to the initial state ``y0``, the output times ``t``
and the numbers and arrays in ``args``:

- reverse mode (VJP) by the adjoint method: one augmented ODE for the state, its
  adjoint ``a`` (``da/dt = -a^T df/dy``) and the accumulated parameter and time
  cotangents, solved backwards between consecutive output times, with the
  cotangent of each output added on the way (Chen et al. 2018, "Neural ordinary
  differential equations", appendix B; Froehlich et al. 2017; autograd 1.9.1's
  ``autograd/scipy/integrate.py``, whose algorithm this follows);
- forward mode (JVP) by the forward sensitivity equations: ``s = dy`` solves
  ``ds/dt = df/dy s + df/dargs dargs`` with ``s(t0) = dy0 - f(y0, t0) dt0``, and the
  output tangent is ``s(t_i) + f(y_i, t_i) dt_i``.

Both are new ``odeint`` solves of augmented systems, whose right-hand sides use
adcore's own ``make_vjp``/``make_jvp`` of ``func``, so derivatives of any order
exist (each order nests another solve). Their accuracy is that of the solver:
tighten ``rtol`` and ``atol`` for accurate derivatives. The adjoint solve runs the
state backwards in time, which is ill-conditioned for strongly dissipative
(stiff) systems; the forward mode has no such issue.

NumPy only: SciPy's solver runs on the host, so arrays of other backends raise
``NotImplementedError`` naming the backend.
"""

import numpy as _np

from backends import backend_of

from .. import numpy as anp
from ..core import defjvp_argnums, defvjp_argnums, getval, isbox, primitive
from ..misc.flatten import flatten
from ..numpy import dtypes, reductions, shapes
from ..numpy.declare import broadcast, metadata, unbroadcast
from ..operators import make_jvp, make_vjp

__all__ = ["odeint"]


def odeint(
    func,
    y0,
    t,
    args=(),
    Dfun=None,
    col_deriv=0,
    full_output=0,
    ml=None,
    mu=None,
    rtol=None,
    atol=None,
    tcrit=None,
    h0=0.0,
    hmax=0.0,
    hmin=0.0,
    ixpr=0,
    mxstep=0,
    mxhnil=0,
    mxordn=12,
    mxords=5,
    printmessg=0,
    tfirst=False,
):
    """Integrate ``dy/dt = func(y, t, *args)`` from ``y(t[0]) = y0``; SciPy's ``scipy.integrate.odeint``.

    Parameters
    ----------
    func : callable
        ``func(y, t, *args)`` (``func(t, y, *args)`` with ``tfirst``) returning ``dy/dt``, an
        array of ``y``'s shape, written with ``adcore.numpy`` functions. Traced values it
        depends on must come through ``args``.
    y0 : array or scalar, shape (n,) or ()
        The initial state (a scalar is one state of size 1).
    t : array, shape (k,)
        The output times, monotonic, starting with the initial time.
    args : tuple
        Extra arguments of ``func``: arrays and numbers (or tuples, lists and dicts of them),
        all differentiable.
    rtol, atol, tcrit, h0, hmax, hmin, ixpr, mxstep, mxhnil, mxordn, mxords, printmessg
        SciPy's solver options, used for every solve (also the derivative ones).
    Dfun, col_deriv, ml, mu
        SciPy's Jacobian options (``Dfun(y, t, *args)``); used for the value only, since they
        change how the solver iterates, not the solution.

    Returns
    -------
    y : array, shape (k, n)
        ``y[i]`` approximates the state at ``t[i]``; ``y[0] = y0``. Its dtype is the promoted
        dtype of ``y0``, ``t`` and the arrays in ``args`` (at least float32; Python numbers do
        not widen it), so float32 input stays float32; SciPy integrates in float64 inside.

    Raises
    ------
    NotImplementedError
        For ``full_output`` (its diagnostics are not differentiable: call
        ``scipy.integrate.odeint`` for them), and for arrays of a backend other than NumPy.
    TypeError
        If ``args`` is not a tuple, holds something other than arrays and numbers, or ``func`` depends on a
        traced value that does not come through ``args``.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> t = np.linspace(0.0, 1.0, 3)
    >>> decay = lambda k: odeint(lambda y, t, k: -k * y, 1.0, t, args=(k,), rtol=1e-10, atol=1e-10)[-1, 0]
    >>> round(float(grad(decay)(2.0)), 6)  # d/dk exp(-k) at k = 2
    -0.135335
    """
    backend = backend_of(getval(y0), getval(t), op="scipy.integrate.odeint")
    if backend.name != "numpy":
        raise NotImplementedError(
            f"odeint: the {backend.name} backend is not supported (scipy.integrate.odeint runs on NumPy arrays); "
            "move y0, t and args to NumPy"
        )
    if full_output:
        raise NotImplementedError(
            "odeint: full_output is not supported (the solver diagnostics are not differentiable); "
            "call scipy.integrate.odeint for them"
        )
    if not isinstance(getval(args), tuple):  # a traced tuple (check_grads over args) holds one
        given = type(getval(args)).__name__
        raise TypeError(f"odeint: args must be a tuple of func's extra arguments (args=(k,) for one), not {given}")
    try:
        flat_args, unflatten = flatten(args)
    except TypeError as error:
        raise TypeError(f"odeint: args must hold arrays and numbers, which are differentiated ({error})") from None

    def dynamics(y, time, flat):
        rate = func(time, y, *unflatten(flat)) if tfirst else func(y, time, *unflatten(flat))
        return shapes.reshape(shapes.asarray(rate), (-1,))

    jacobian = None
    if Dfun is not None:

        def jacobian_function(y, time, flat):
            return Dfun(time, y, *unflatten(flat)) if tfirst else Dfun(y, time, *unflatten(flat))

        jacobian = {"Dfun": jacobian_function, "col_deriv": col_deriv, "ml": ml, "mu": mu}
    options = {
        "rtol": rtol,
        "atol": atol,
        "tcrit": tcrit,
        "h0": h0,
        "hmax": hmax,
        "hmin": hmin,
        "ixpr": ixpr,
        "mxstep": mxstep,
        "mxhnil": mxhnil,
        "mxordn": mxordn,
        "mxords": mxords,
        "printmessg": printmessg,
    }
    y0, t = shapes.asarray(y0), shapes.asarray(t)
    dtype = _np.result_type(*(getval(x) for x in (y0, t, *_arrays_in(args))), _np.float32)
    dtype = dtype if dtype in (_np.float32, _np.float64) else _np.float64
    return _odeint(dynamics, shapes.reshape(anp.astype(y0, dtype), (-1,)), t, flat_args, options=options, jacobian=jacobian)


def _arrays_in(value):
    """The arrays among the leaves of a nesting of tuples, lists and dicts (Python numbers left out)."""
    value = getval(value)
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [array for item in value for array in _arrays_in(item)]
    return [value] if hasattr(value, "dtype") else []


@primitive
def _odeint(dynamics, y0, t, flat_args, options=None, jacobian=None):
    """``scipy.integrate.odeint`` of ``dy/dt = dynamics(y, t, flat_args)`` (1-d NumPy ``y0``, ``flat_args``):
    shape ``(len(t), len(y0))``, in ``y0``'s dtype. SciPy integrates in float64, and ``dynamics``
    sees float64 states and arguments, so float32 input adds no rounding noise inside the solve
    (which would defeat tight tolerances)."""
    backend = backend_of(y0, t, flat_args, op="scipy.integrate.odeint")
    wide = backend.dtype("float64")
    wide_args = backend.astype(flat_args, wide)
    extra = {} if jacobian is None else dict(jacobian, Dfun=lambda y, time: jacobian["Dfun"](y, time, wide_args))

    def rate(y, time):
        value = dynamics(y, time, wide_args)
        if isbox(value):
            raise TypeError("odeint: func depends on a traced value it closes over; pass such values through args")
        return value

    ys = backend.scipy_module("integrate").odeint(rate, backend.astype(y0, wide), backend.astype(t, wide), **options, **extra)
    return backend.astype(ys, y0.dtype)


def grad_odeint(argnums, ans, args, kwargs):
    """The adjoint method (autograd's ``grad_odeint``): between consecutive output times, solve
    ``[y, a, a_t, a_p]`` backwards with ``d/dt = [f, -a^T f_y, -a^T f_t, -a^T f_p]``."""
    dynamics, y0, t, flat_args = args
    options = kwargs.get("options") or {}
    n_y = anp.size(y0)

    def augmented(state, time, params):
        y, adjoint = state[:n_y], state[n_y : 2 * n_y]
        vjp, rate = make_vjp(dynamics, (0, 1, 2))(y, time, params)
        g_y, g_t, g_p = vjp(anp.negative(adjoint))
        return shapes.concatenate([rate, g_y, shapes.reshape(g_t, (1,)), g_p])

    def vjp(g):
        g_y, g_t0, g_p = g[-1], dtypes.zeros_like(getval(g)[0, 0]), dtypes.zeros_like(flat_args)
        g_times = []
        for i in range(anp.shape(t)[0] - 1, 0, -1):
            g_ti = reductions.sum(anp.multiply(dynamics(ans[i], t[i], flat_args), g[i]))
            g_times.append(g_ti)
            g_t0 = anp.subtract(g_t0, g_ti)
            state = shapes.concatenate([ans[i], g_y, shapes.reshape(g_t0, (1,)), g_p])
            final = _odeint(augmented, state, anp.stack([t[i], t[i - 1]]), flat_args, options=options)[1]
            g_y, g_t0, g_p = anp.add(final[n_y : 2 * n_y], g[i - 1]), final[2 * n_y], final[2 * n_y + 1 :]
        g_times.append(g_t0)
        cotangents = {1: g_y, 2: anp.stack(g_times[::-1]), 3: g_p}
        return tuple(unbroadcast(cotangents[argnum], metadata(args[argnum])) for argnum in argnums)

    return vjp


def jvp_odeint(argnums, gs, ans, args, kwargs):
    """Forward sensitivities: solve ``[y, s]`` with ``d/dt = [f, f_y s + f_p dp]``."""
    dynamics, y0, t, flat_args = args
    options = kwargs.get("options") or {}
    tangents = dict(zip(argnums, gs))
    n_y, n_p = anp.size(y0), anp.size(flat_args)
    dy0 = tangents.get(1, dtypes.zeros_like(y0))
    dp = tangents.get(3, dtypes.zeros_like(flat_args))

    def sensitivity(state, time, params):
        def rate(z):
            return dynamics(z[:n_y], time, z[n_y:])

        y_and_p = shapes.concatenate([state[:n_y], params[:n_p]])
        value, tangent = make_jvp(rate)(y_and_p)(shapes.concatenate([state[n_y:], params[n_p:]]))
        return shapes.concatenate([value, tangent])

    s0 = dy0
    if 2 in tangents:
        s0 = anp.subtract(dy0, anp.multiply(dynamics(y0, t[0], flat_args), tangents[2][0]))
    solution = _odeint(sensitivity, shapes.concatenate([y0, s0]), t, shapes.concatenate([flat_args, dp]), options=options)
    tangent = solution[:, n_y:]
    if 2 in tangents:
        rates = anp.stack([dynamics(ans[i], t[i], flat_args) for i in range(anp.shape(t)[0])])
        tangent = anp.add(tangent, anp.multiply(rates, anp.expand_dims(tangents[2], -1)))
    return broadcast(tangent, ans)


defvjp_argnums(_odeint, grad_odeint)
defjvp_argnums(_odeint, jvp_odeint)
