"""The differentiable ``adcore.scipy.special`` namespace: SciPy's special functions with their derivatives.

``import adcore.scipy.special as special`` gives SciPy's names and signatures::

    >>> from adcore import grad
    >>> from adcore.scipy import special
    >>> float(grad(special.gammaln)(3.0))  # digamma(3) = 3/2 - Euler's gamma
    0.9227843350984671

Each function is either a primitive, with its VJP and JVP registered right below
it, or a composition of primitives (``multigammaln``, ``entr``, ``logsumexp``,
``softmax``, ``log_softmax``), whose derivatives come for free.
The rules use only ``adcore.numpy`` and ``adcore.scipy.special`` functions, so
they are traced in turn: every derivative here can be differentiated again.

What adcore has, against SciPy and JAX
--------------------------------------
``jax.scipy.special`` (JAX 0.7) and the scaled and inverse functions of ``scipy.special`` that
models reach for. "x only": differentiable in the argument, ``NotImplementedError`` in the
parameter (see Derivatives below); "-": not there.

=========================================  =====  ===============  ==========================
function                                   SciPy  JAX              adcore
=========================================  =====  ===============  ==========================
gamma, gammaln, digamma (psi), polygamma   yes    yes              yes (polygamma: x only)
rgamma, gammasgn, multigammaln             yes    yes              yes (gammasgn: constant)
beta, betaln                               yes    yes              yes
betainc                                    yes    yes              yes (a, b: first order)
betaincc, betaincinv, betainccinv          yes    -                yes (a, b: first order)
gammainc, gammaincc                        yes    yes              yes (a: first order)
gammaincinv, gammainccinv                  yes    -                yes (a: first order)
erf, erfc, erfinv, erfcx                   yes    yes              yes
erfcinv                                    yes    -                yes
ndtr, ndtri, log_ndtr                      yes    yes              yes
exp1, expi                                 yes    yes              yes
expn                                       yes    yes              -
i0, i0e, i1, i1e                           yes    yes              yes
iv, ive, kv, kve                           yes    -                x only (not the order)
j0, j1, jn (JAX: bessel_jn), y0, y1, yn    yes    bessel_jn only   yes (jn, yn: x only)
wrightomega                                yes    -                yes (real x)
lambertw                                   yes    -                yes (complex result, as SciPy)
expit, log_expit, logit                    yes    expit, logit     yes, on every backend
xlogy, xlog1py, entr, rel_entr, kl_div     yes    yes              yes, on every backend
logsumexp, softmax, log_softmax            yes    yes              yes, on every backend
zeta, spence, poch, hyp1f1, hyp2f1         yes    yes              -
factorial, bernoulli, fresnel, loggamma    yes    yes              -
lpmn, lpmn_values, sph_harm, sph_harm_y    yes    yes              -
=========================================  =====  ===============  ==========================

Backends
--------
A primitive's raw values come from the backend of its arguments,
``backend.scipy_module("special")``: SciPy on NumPy (imported on first use, so
``import adcore`` does not import SciPy), ``cupyx.scipy.special`` on CuPy. The
Array API standard defines no special function, so on other backends
(array-api-strict) the functions that its operations express exactly --
``expit``, ``log_expit``, ``logit``, ``xlogy``, ``xlog1py``, ``rel_entr``, ``kl_div``
and the compositions ``entr``, ``logsumexp``, ``softmax``, ``log_softmax`` --
are computed from those operations, and every other function raises
``NotImplementedError`` naming the backend and the function. Without SciPy (a base
install) the numpy backend computes the same few from the standard's operations and
the others raise ``ImportError`` naming the extra (``pip install "adcore[scipy]"``). adcore never copies
to the host to call SciPy behind the user's back (on a non-default device that
would be a hidden transfer): convert the arrays to NumPy explicitly instead.

Shapes and dtypes
-----------------
Elementwise functions broadcast their array arguments like NumPy. The result
has the promoted dtype of the floating-point array arguments (float32 stays
float32), or float64 when there are none (integer arrays, Python scalars):
SciPy computes some functions in float64 only (``polygamma``, ``multigammaln``,
and ``jn``, ``yn``, ``iv``, ``ive`` with an integer-array order), and their
results are cast back.

Derivatives
-----------
For real arguments; the source of each formula is in the function's docstring:
the NIST Digital Library of Mathematical Functions (DLMF, https://dlmf.nist.gov),
Abramowitz and Stegun (A&S), autograd's ``autograd/scipy/special.py`` and JAX's
``jax/_src/scipy/special.py``. Derivatives that have no closed form raise
``NotImplementedError`` when asked for (they are listed in
``DERIVATIVES_NOT_IMPLEMENTED``, the op table's ``not_implemented_in``); adcore does not return a silent zero for them:

- the second derivative of ``gammainc``/``gammaincc(a, x)`` in ``a`` and of ``betainc``/``betaincc(a, b, x)``
  in ``a`` and ``b`` (and of their inverses): the first is computed by adcore's own series and continued
  fractions, on numpy and cupy (JAX has a dedicated kernel for gammainc's, ``igamma_grad_a``, and none
  for betainc's).
- the order ``v`` of ``iv``, ``ive``, ``kv``, ``kve`` and ``jn`` (SciPy's ``jn`` accepts real
  orders, as ``jv``): the derivative in the order is a series with no closed form
  (DLMF 10.15, 10.38); the integer order ``n`` of ``yn`` and ``polygamma``
  (they are defined at integers only). autograd returns zero for these; adcore
  raises.
"""

import math

import numpy

from backends import array_backend, backend_of, get_backend

from .. import numpy as anp
from ..core import getval, notrace_primitive, primitive
from ..core.ops import not_implemented_in as DERIVATIVES_NOT_IMPLEMENTED
from ..numpy import dtypes, reductions
from ..numpy.declare import _is_dtype_kind, def_elementwise
from ..numpy.numerics import _sin_cos_pi

__all__ = [
    "beta",
    "betainc",
    "betaincc",
    "betainccinv",
    "betaincinv",
    "betaln",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcinv",
    "erfcx",
    "erfinv",
    "exp1",
    "expi",
    "expit",
    "gamma",
    "gammainc",
    "gammaincc",
    "gammainccinv",
    "gammaincinv",
    "gammaln",
    "gammasgn",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "iv",
    "ive",
    "j0",
    "j1",
    "jn",
    "kl_div",
    "lambertw",
    "kv",
    "kve",
    "log_expit",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "rel_entr",
    "rgamma",
    "softmax",
    "wrightomega",
    "xlog1py",
    "xlogy",
    "y0",
    "y1",
    "yn",
]

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


# ---- how a primitive gets its raw values ----


def floating_dtype(backend, values):
    """The dtype of a result computed on ``backend`` from ``values``: the promoted dtype of its
    floating-point arrays among them (float32 stays float32), or float64 if there are none
    (integer arrays, Python scalars), complex128 if one of those is a Python complex. NumPy
    scalars count as NumPy arrays, as NumPy and adcore's vector spaces take them; on other
    backends they are Python scalars."""
    floating = [v.dtype for v in values if array_owner(v) is backend and _is_dtype_kind(backend, v.dtype, _FLOATING)]
    if floating:
        return floating[0] if len(floating) == 1 else backend.result_type(*floating)
    return backend.dtype("complex128" if any(isinstance(v, complex) for v in values) else "float64")


_FLOATING = ("real floating", "complex floating")


def array_owner(value):
    """The backend of an array (NumPy for NumPy scalars), None for Python scalars and other values."""
    return get_backend("numpy") if isinstance(value, numpy.generic) else array_backend(value)


def _backend_function(backend, name):
    """The backend's ``scipy.special.<name>``, or None if it has none."""
    try:
        module = backend.scipy_module("special")
    except NotImplementedError:
        module = None
    return getattr(module, name, None)


def _raw(name, standard=None):
    """The raw function ``name``: the backend's ``scipy.special.<name>`` cast back to the arguments'
    floating dtype, else ``standard`` (the same function from Array API operations) if given.

    Raises
    ------
    NotImplementedError
        Naming the function and the backend, if the backend has neither.
    ImportError
        Naming adcore's extra to install, if the backend's library is missing (SciPy on numpy) and there is no ``standard``.
    """

    def raw(*args):
        backend = backend_of(*args, op=f"scipy.special.{name}")
        dtype = floating_dtype(backend, args)
        try:
            fun = _backend_function(backend, name)
        except ImportError:  # the backend's library is missing (SciPy): built from the standard, or the error names the extra
            if standard is None:
                raise
            fun = None
        if fun is not None:
            return _cast(backend, fun(*args), dtype)
        if standard is None:
            raise NotImplementedError(
                f"scipy.special.{name}: the {backend.name} backend has no special function {name!r} (the Array API "
                "standard defines none; the numpy backend has all of SciPy's, cupy those of cupyx.scipy.special); "
                "convert the arrays to the numpy backend"
            )
        args = [anp.astype(a, dtype) if array_owner(a) is backend and a.dtype != dtype else a for a in args]
        return standard(*args)

    raw.__name__ = raw.__qualname__ = name
    return raw


def _special(name, doc, *partials, standard=None, reads="arguments"):
    """The primitive ``name`` (see ``_raw``) with elementwise rules from its ``partials``, which read ``reads``
    (``adcore.numpy.declare.def_elementwise``)."""
    fun = primitive(_raw(name, standard))
    fun.__doc__ = doc
    def_elementwise(fun, *partials, name=name, reads=reads)
    return fun


def _no_derivative(name, argname, reason, order=1):
    """A partial derivative that raises: ``name`` has no closed-form derivative in ``argname`` (or,
    with ``order=2``, its first derivative there is implemented and the second is not)."""
    which = "second derivative" if order == 2 else "derivative"
    DERIVATIVES_NOT_IMPLEMENTED.setdefault(name, []).append(f"{argname} (second order)" if order == 2 else argname)

    def partial(ans, *args):
        raise NotImplementedError(
            f"scipy.special.{name}: the {which} with respect to {argname} is not implemented ({reason}); "
            f"pass {argname} as a constant"
        )

    return partial


def _over_x(f, x, sign):
    """``f(x) / x`` for ``f`` = ``j1`` (``sign`` -1) or ``i1`` (``sign`` +1), where-safe at 0: for
    |x| < 1e-4 the series ``1/2 + sign x²/16`` (within rounding there), as the quotient loses every
    digit where ``f(x) ≈ x / 2`` is subnormal."""
    small = anp.less(anp.abs(x), 1e-4)
    safe = anp.where(small, 1.0, x)
    return anp.where(small, 0.5 + sign * anp.square(x) / 16.0, f(safe) / safe)


_NO_ORDER = "there is no closed form in the order (DLMF 10.15, 10.38)"
_INTEGER_ORDER = "the function is defined at integer orders only"

# ---- gamma and related functions ----

gamma = _special(
    "gamma",
    """The gamma function Γ(x), elementwise.

    Derivative: Γ'(x) = Γ(x) ψ(x), ψ the digamma function (DLMF 5.2.2), with ψ reflected for x < 0
    (``_digamma_reflected``).
    """,
    lambda ans, x: anp.multiply(ans, _digamma_reflected(x)),
    reads="both",
)

gammaln = _special(
    "gammaln",
    """log|Γ(x)|, elementwise.

    Derivative: ψ(x) (DLMF 5.2.2), also where Γ(x) < 0 (reflected there, ``_digamma_reflected``).
    """,
    lambda ans, x: _digamma_reflected(x),
)

digamma = psi = _special(
    "digamma",
    """The digamma function ψ(x) = Γ'(x) / Γ(x), elementwise (``psi`` is the same function).

    Derivative: ψ'(x) = polygamma(1, x), the trigamma function (DLMF 5.15).
    """,
    lambda ans, x: polygamma(1, x),
)

polygamma = _special(
    "polygamma",
    """The polygamma function ψ⁽ⁿ⁾(x), the n-th derivative of ψ, for integers ``n >= 0``; elementwise.

    Derivative in ``x``: polygamma(n + 1, x) (DLMF 5.15). In ``n``: raises ``NotImplementedError``
    (``n`` is an integer order).
    """,
    _no_derivative("polygamma", "n", _INTEGER_ORDER),
    lambda ans, n, x: polygamma(n + 1, x),
)


def _digamma_reflected(x):
    """ψ(x), for x < 0 through the reflection ψ(x) = ψ(1 - x) - π cot(πx) (DLMF 5.5.4) with the
    cotangent of the reduced argument: near the poles ψ is the cotangent's pole, which SciPy's
    ``digamma`` there gets from the rounded ``π * x`` (relative error 1e-6 at -1 + 1e-8)."""
    negative = anp.less(x, 0.0)
    x_left = anp.where(negative, x, -0.5)  # each branch sees only its own side (finite higher derivatives)
    sin_pi_x, cos_pi_x = _sin_cos_pi(x_left)
    reflected = anp.subtract(digamma(anp.subtract(1.0, x_left)), math.pi * cos_pi_x / sin_pi_x)
    return anp.where(negative, reflected, digamma(anp.where(negative, 1.0, x)))


def _rgamma_derivative(ans, x):
    """-ψ(x) / Γ(x) for x >= 1/2; below, the derivative of the reflection 1 / Γ(x) = Γ(1 - x) sin(πx) / π
    (DLMF 5.5.3), Γ(1 - x) (cos(πx) - ψ(1 - x) sin(πx) / π): finite at the poles of Γ, where it is
    (-1)^n n! at x = -n, and to full precision near them."""
    left = anp.less(x, 0.5)
    x_left = anp.where(left, x, 0.0)
    sin_pi_x, cos_pi_x = _sin_cos_pi(x_left)
    one_minus_x = anp.subtract(1.0, x_left)
    reflected = anp.multiply(gamma(one_minus_x), cos_pi_x - digamma(one_minus_x) * sin_pi_x / math.pi)
    return anp.where(left, reflected, anp.negative(anp.multiply(ans, digamma(anp.where(left, 1.0, x)))))


rgamma = _special(
    "rgamma",
    """1 / Γ(x), elementwise (0 at the poles of Γ).

    Derivative: -ψ(x) / Γ(x) (DLMF 5.2.2); for x < 1/2 that of the reflection formula (DLMF 5.5.3),
    which is finite at the poles of Γ, (-1)^n n! at x = -n (``_rgamma_derivative``).
    """,
    _rgamma_derivative,
    reads="both",
)

gammasgn = notrace_primitive(_raw("gammasgn"))
gammasgn.__doc__ = """The sign of Γ(x) (+1 or -1), elementwise; non-differentiable (piecewise constant)."""


def multigammaln(a, d):
    """The log of the multivariate gamma function, elementwise in ``a``, for an integer ``d >= 1``.

    ``log Γ_d(a) = d (d - 1) / 4 log(π) + sum_{j=0}^{d-1} gammaln(a - j / 2)`` (DLMF §35.3),
    a composition of ``gammaln``, so its derivatives are ``gammaln``'s. NaN where
    ``a <= (d - 1) / 2`` (SciPy raises ``ValueError`` there; a NaN keeps the computation
    shape-stable and lazy backends lazy).
    """
    total = gammaln(a)
    for j in range(1, d):
        total = anp.add(total, gammaln(anp.subtract(a, 0.5 * j)))
    total = anp.add(total, 0.25 * d * (d - 1) * math.log(math.pi))
    return anp.where(anp.greater(a, 0.5 * (d - 1)), total, math.nan)


def _digamma_difference(a, b, ans):
    """ψ(a) - ψ(a + b), computed in the dtype of ``ans``. Where |b| < ε^(1/4) |a| (ε that dtype's
    epsilon) the difference of the two digammas would keep only the digits of ε ψ(a) / (b ψ'(a)) (all
    of them lost once a + b rounds to a), so there it is the Taylor series -Σ_{k=1..4} ψ⁽ᵏ⁾(a) bᵏ / k!
    (DLMF 5.15.1), whose first omitted term is below ε; elsewhere the difference loses at most ε^(3/4)."""
    raw = getval(ans)
    threshold = float(backend_of(raw).finfo(raw.dtype).eps) ** 0.25
    small = anp.less(anp.abs(b), threshold * anp.abs(a))
    a_small, b_small = anp.where(small, a, 1.0), anp.where(small, b, 0.0)  # each branch sees its own points only
    series = 0.0
    for k in range(4, 0, -1):  # Horner's rule in b
        series = anp.multiply(anp.add(polygamma(k, a_small), series), b_small) / k
    a_far, b_far = anp.where(small, 1.0, a), anp.where(small, 1.0, b)
    return anp.where(small, anp.negative(series), anp.subtract(digamma(a_far), digamma(anp.add(a_far, b_far))))


beta = _special(
    "beta",
    """The beta function B(a, b) = Γ(a) Γ(b) / Γ(a + b), elementwise.

    Derivatives (DLMF 5.12.1 and 5.2.2): ∂B/∂a = B (ψ(a) - ψ(a + b)), and symmetrically in ``b``; the
    difference of digammas by ``_digamma_difference`` (full precision also where b is far below a).
    """,
    lambda ans, a, b: anp.multiply(ans, _digamma_difference(a, b, ans)),
    lambda ans, a, b: anp.multiply(ans, _digamma_difference(b, a, ans)),
    reads="both",
)

betaln = _special(
    "betaln",
    """log|B(a, b)|, elementwise.

    Derivatives (DLMF 5.12.1 and 5.2.2): ψ(a) - ψ(a + b) in ``a``, ψ(b) - ψ(a + b) in ``b``
    (``_digamma_difference``).
    """,
    lambda ans, a, b: _digamma_difference(a, b, ans),
    lambda ans, a, b: _digamma_difference(b, a, ans),
    reads="both",
)


def _gamma_density(a, x):
    """``x**(a-1) exp(-x) / Γ(a)``, through logarithms."""
    return anp.exp(anp.subtract(anp.subtract(xlogy(anp.subtract(a, 1.0), x), x), gammaln(a)))


#: the most terms of a shape derivative's series or continued fraction (``_gammainc_a``, ``_betainc_shape``): enough
#: for shapes below 1e6; an element that needs more is NaN
_MOST_TERMS = 10000
_EPS64 = 2.0**-53


def _float64_arguments(name, needs, *args):
    """``(backend, dtype, xp, functions, args)`` for a shape derivative of ``scipy.special.<name>`` computed
    in float64 on the arguments' backend: ``dtype`` is the arguments' floating dtype (the result's),
    ``functions`` the backend's raw special functions named in ``needs``, ``args`` the arguments as float64
    arrays broadcast together.

    Raises
    ------
    NotImplementedError
        Naming the function and the backend, if the backend lacks one of ``needs``.
    """
    backend = backend_of(*args, op=f"scipy.special.{name}")
    dtype = floating_dtype(backend, args)
    functions = [_backend_function(backend, need) for need in needs]
    if any(function is None for function in functions):
        raise NotImplementedError(
            f"scipy.special.{name}: the derivative with respect to its shape needs {', '.join(needs)}, which the "
            f"{backend.name} backend has not all of; convert the arrays to the numpy backend"
        )
    xp, float64 = backend.xp, backend.dtype("float64")
    arrays = xp.broadcast_arrays(*(xp.asarray(v, dtype=float64) for v in args))
    return backend, dtype, xp, functions, arrays


def _cast(backend, result, dtype):
    """``result`` in ``dtype``."""
    return result if result.dtype == dtype else backend.astype(result, dtype)


def _signed_exp(xp, log_prefactor, total):
    """``exp(log_prefactor) * total``, as ``sign(total) exp(log_prefactor + log|total|)``: no overflow or
    underflow before the product does."""
    return xp.sign(total) * xp.exp(log_prefactor + xp.log(xp.abs(total)))


def _continued_fraction(xp, b_1, db_1, term, targets, like):
    """The continued fraction F = 1 / (b_1 + a_2 / (b_2 + a_3 / (b_3 + ...))) and its derivatives dF_i in
    parameters p_i, elementwise, summed until the quantities ``targets(F, dF)`` (a tuple of arrays) have
    converged to rounding at every element, at most ``_MOST_TERMS`` terms.

    ``db_1`` is the list of ∂b_1/∂p_i; ``term(k)`` gives ``(a_(k+1), b_(k+1), [∂a_(k+1)/∂p_i], [∂b_(k+1)/∂p_i])``.
    The forward recurrences A_n = b_n A_(n-1) + a_n A_(n-2), B_n alike (A_0 = 0, A_1 = 1, B_0 = 1,
    B_1 = b_1), run together with their derivatives in each p_i and are rescaled by 1 / B_n at each step, so
    that F = A_n and dF_i = dA_i - F dB_i. ``like`` is an array of the elements' shape. Returns the
    converged targets and the mask of the elements that had not converged.
    """
    zero = xp.zeros_like(like)
    A_prev, A, B_prev, B = zero, xp.ones_like(like), xp.ones_like(like), b_1
    dA_prev, dA, dB_prev, dB = [zero for _ in db_1], [zero for _ in db_1], [zero for _ in db_1], list(db_1)
    F = A / B
    values = targets(F, [(dA_i - F * dB_i) / B for dA_i, dB_i in zip(dA, dB)])
    active = xp.ones_like(like, dtype=xp.bool)
    for k in range(1, _MOST_TERMS + 1):
        a_k, b_k, da_k, db_k = term(k)
        A_next, B_next = b_k * A + a_k * A_prev, b_k * B + a_k * B_prev
        dA_next = [b_k * dA[i] + db_k[i] * A + a_k * dA_prev[i] + da_k[i] * A_prev for i in range(len(dA))]
        dB_next = [b_k * dB[i] + db_k[i] * B + a_k * dB_prev[i] + da_k[i] * B_prev for i in range(len(dB))]
        scale = 1.0 / B_next
        A_prev, A, B_prev, B = A * scale, A_next * scale, B * scale, xp.ones_like(like)
        dA_prev, dA = [d * scale for d in dA], [d * scale for d in dA_next]
        dB_prev, dB = [d * scale for d in dB], [d * scale for d in dB_next]
        new = targets(A, [dA_i - A * dB_i for dA_i, dB_i in zip(dA, dB)])
        still = xp.zeros_like(active)
        for old_value, new_value in zip(values, new):
            still = still | (xp.abs(new_value - old_value) > _EPS64 * xp.abs(new_value))
        values = tuple(xp.where(active, n, o) for n, o in zip(new, values))
        active = active & still
        if not bool(xp.any(active)):
            break
    return values, active


def _gammainc_a_raw(a, x):
    """∂P(a, x)/∂a, elementwise, computed in float64 on the arguments' backend and cast back to their
    floating dtype.

    For x < a + 1 the series P = x^a e^(-x) Σ_n x^n / Γ(a + n + 1) (DLMF 8.7.1) differentiated
    term by term: ∂P/∂a = x^a e^(-x) Σ_n x^n / Γ(a + n + 1) (log x - ψ(a + n + 1)), with
    ψ(a + n + 1) = ψ(a + n) + 1/(a + n) and the prefactor in logarithms (no overflow, no
    underflow before the result does). For x >= a + 1 the derivative of Q = 1 - P, whose
    Legendre continued fraction Q = x^a e^(-x) / Γ(a) · 1/(x + 1 - a - 1(1 - a)/(x + 3 - a - 2(2 - a)/...))
    (the even form of DLMF 8.9.2) is summed by ``_continued_fraction`` with its derivative in a, so that
    P's digits near 1 do not cancel. Both loops run over the whole array until every element has converged
    to rounding, at most ``_MOST_TERMS`` terms (O(√a) are needed near x = a); an element that has not
    converged by then is NaN. 0 at x = 0 and x = inf, NaN where a <= 0 or x < 0 or either is NaN.
    """
    backend, dtype, xp, (gammaln_raw, digamma_raw), (a, x) = _float64_arguments("gammainc", ("gammaln", "digamma"), a, x)
    valid = (a > 0) & (x > 0) & (x < math.inf)
    series = valid & (x < a + 1)
    fraction = valid & ~series
    # each loop sees its own points, and a point that converges at once elsewhere
    a_s, x_s = xp.where(series, a, 1.0), xp.where(series, x, 0.5)
    a_f, x_f = xp.where(fraction, a, 1.0), xp.where(fraction, x, 10.0)

    log_x = xp.log(x_s)
    ratio = xp.ones_like(a_s)  # x^n Γ(a + 1) / Γ(a + n + 1)
    d = log_x - digamma_raw(a_s + 1.0)  # log x - ψ(a + n + 1)
    total, active = d, xp.ones_like(series)
    for n in range(1, _MOST_TERMS + 1):
        ratio = ratio * x_s / (a_s + n)
        d = d - 1.0 / (a_s + n)
        total = xp.where(active, total + ratio * d, total)
        # the tail is below the term times a bounded factor once the ratio decays; |d| + 1 guards d's zero
        active = active & (ratio * (xp.abs(d) + 1.0) > _EPS64 * xp.abs(total))
        if not bool(xp.any(active)):
            break
    log_prefactor = a_s * log_x - x_s - gammaln_raw(a_s + 1.0)
    d_series = xp.where(active, math.nan, _signed_exp(xp, log_prefactor, total))

    # b_1 = x + 1 - a, a_(k+1) = k(a - k), b_(k+1) = x + 2k + 1 - a
    log_x = xp.log(x_f)
    # x^a e^-x / Γ(a) (log x - ψ(a)) = x^a e^-x / Γ(a + 1) (a (log x - ψ(a + 1)) + 1): finite as a -> 0
    log_term = a_f * (log_x - digamma_raw(a_f + 1.0)) + 1.0
    (_, D), active = _continued_fraction(
        xp,
        x_f + 1.0 - a_f,
        [-1.0],
        lambda k: (k * (a_f - k), x_f + (2 * k + 1) - a_f, [k], [-1.0]),
        # the derivative of Q over x^a e^-x / Γ(a + 1)
        lambda F, dF: (F, F * log_term + a_f * dF[0]),
        a_f,
    )
    log_prefactor = a_f * log_x - x_f - gammaln_raw(a_f + 1.0)
    d_fraction = xp.where(active, math.nan, -_signed_exp(xp, log_prefactor, D))

    boundary = ((x == 0) | (x == math.inf)) & (a > 0)
    result = xp.where(series, d_series, xp.where(fraction, d_fraction, xp.where(boundary, 0.0, math.nan)))
    return _cast(backend, result, dtype)


_gammainc_a = primitive(_gammainc_a_raw)
def_elementwise(
    _gammainc_a,
    _no_derivative("gammainc", "a", "the second derivative in a of the series and continued fraction", order=2),
    # ∂²P/∂a∂x = ∂/∂a (x^(a-1) e^(-x) / Γ(a)) = that density times (log x - ψ(a))
    lambda ans, a, x: anp.multiply(_gamma_density(a, x), anp.subtract(anp.log(x), digamma(a))),
)

_GAMMAINC_A_DOC = """the series of P (DLMF 8.7.1) for x < a + 1 and the Legendre continued fraction of Q (the even
    form of DLMF 8.9.2) for x >= a + 1, each differentiated in a term by term (``_gammainc_a_raw``; JAX computes it
    with its kernel ``igamma_grad_a``). Relative error below 2e-12 in float64 against mpmath
    (``tests/test_accuracy.py``: a from 0.01 to 1000, x from 1e-300 to 1e4 and both tails, where the
    derivative is a normal float; growing as about 2e-15 a, 2e-10 at a = 1e5); 0 where it
    underflows, and NaN where a > about 1e6 with x near a (more than 10000 terms). Its own
    derivative in ``x`` is the density times log x - ψ(a); in ``a`` it raises ``NotImplementedError`` (second order
    in a is not implemented)."""

gammainc = _special(
    "gammainc",
    f"""The regularized lower incomplete gamma function P(a, x), elementwise.

    Derivative in ``x``: x^(a-1) e^(-x) / Γ(a) (DLMF 8.2.1, 8.2.4). In ``a``: {_GAMMAINC_A_DOC}
    """,
    lambda ans, a, x: _gammainc_a(a, x),
    lambda ans, a, x: _gamma_density(a, x),
)

gammaincc = _special(
    "gammaincc",
    f"""The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), elementwise.

    Derivative in ``x``: -x^(a-1) e^(-x) / Γ(a) (DLMF 8.2.2, 8.2.4). In ``a``: -∂P/∂a, by {_GAMMAINC_A_DOC}
    """,
    lambda ans, a, x: anp.negative(_gammainc_a(a, x)),
    lambda ans, a, x: anp.negative(_gamma_density(a, x)),
)


def _inverse_partials(density, shape_partials, sign):
    """The partial derivatives of an inverse ``x(shapes..., y)`` of ``y = ±F(shapes..., x)`` (``sign`` ±1), ``F``
    a distribution function with ``density(shapes..., x)`` = ∂F/∂x and ``shape_partials`` its partials in the
    shapes: by the implicit function theorem, ∂x/∂s = -(∂F/∂s) / (∂F/∂x) in each shape s (whatever ``sign``:
    F and y change together) and ∂x/∂y = ±1 / (∂F/∂x), each at x = the inverse (the output)."""
    shape_rules = [
        lambda ans, *args, partial=partial: anp.negative(anp.divide(partial(*args[:-1], ans), density(*args[:-1], ans)))
        for partial in shape_partials
    ]
    return (*shape_rules, lambda ans, *args: anp.divide(sign, density(*args[:-1], ans)))


gammaincinv = _special(
    "gammaincinv",
    """The inverse of ``gammainc`` in x: x with P(a, x) = y, for y in [0, 1]; elementwise.

    Derivatives (implicit function theorem): 1 / ∂P/∂x = x^(1-a) e^x Γ(a) in ``y``, -(∂P/∂a) / (∂P/∂x) in ``a``,
    at x = the result; ∂P/∂a is ``gammainc``'s (first order only: the second derivative in ``a`` raises
    ``NotImplementedError``). Relative error below 2e-12 in float64 against mpmath at the exact inverse
    (a from 0.1 to 1000, y from 1e-8 to 0.999).
    """,
    *_inverse_partials(_gamma_density, [lambda a, x: _gammainc_a(a, x)], 1.0),
    reads="output",
)

gammainccinv = _special(
    "gammainccinv",
    """The inverse of ``gammaincc`` in x: x with Q(a, x) = y, for y in [0, 1]; elementwise.

    Derivatives (implicit function theorem): -1 / ∂P/∂x = -x^(1-a) e^x Γ(a) in ``y``, -(∂P/∂a) / (∂P/∂x) in
    ``a`` (as ``gammaincinv``'s: Q = 1 - P), at x = the result; first order only in ``a``. Relative error
    below 2e-12 in float64 against mpmath, as ``gammaincinv``'s.
    """,
    *_inverse_partials(_gamma_density, [lambda a, x: _gammainc_a(a, x)], -1.0),
    reads="output",
)

# ---- the incomplete beta function ----


def _beta_density(a, b, x):
    """``x**(a-1) (1-x)**(b-1) / B(a, b)``, through logarithms (exact 0**0 = 1 at the ends)."""
    return anp.exp(
        anp.subtract(anp.add(xlogy(anp.subtract(a, 1.0), x), xlog1py(anp.subtract(b, 1.0), anp.negative(x))), betaln(a, b))
    )


def _betainc_shape(a, b, x):
    """``(∂I/∂a, ∂I/∂b)`` of I_x(a, b), elementwise, computed in float64 on the arguments' backend and cast back
    to their floating dtype.

    The continued fraction I_y(p, q) = K F, K = y^p (1 - y)^q / (p B(p, q)), F = 1 / (1 + d_1 / (1 + d_2 /
    (1 + ...))), d_(2m+1) = -(p + m)(p + q + m) y / ((p + 2m)(p + 2m + 1)), d_(2m) = m (q - m) y / ((p + 2m - 1)(p + 2m))
    (DLMF 8.17.22; Numerical Recipes, 6.4), differentiated in p and q: ∂I/∂p = K (F ∂log K/∂p + ∂F/∂p) with
    ∂log K/∂p = log y - ψ(p + 1) + ψ(p + q), ∂log K/∂q = log(1 - y) - ψ(q) + ψ(p + q) (the differences of
    digammas by ``_digamma_difference``), and ∂F by
    ``_continued_fraction`` (Boik and Robison-Cox, "Derivatives of the incomplete beta function", J. Stat.
    Software 3(1), 1998). It converges fast for y < (p + 1) / (p + q + 2) (O(√max(p, q)) terms near that point):
    there it is summed with (p, q, y) = (a, b, x), elsewhere with (b, a, 1 - x) and the symmetry I_x(a, b) =
    1 - I_(1-x)(b, a) (DLMF 8.17.4), whose derivatives need no difference against 1. Logarithms of x and 1 - x
    come from ``log`` and ``log1p`` of x, K from logarithms (no overflow or underflow before the result does).
    At most ``_MOST_TERMS`` terms; an element that has not converged by then is NaN. 0 at x = 0 and x = 1, NaN
    where a <= 0, b <= 0, x is outside [0, 1] or an argument is NaN.
    """
    backend, dtype, xp, (betaln_raw, _, _), (a, b, x) = _float64_arguments("betainc", ("betaln", "digamma", "polygamma"), a, b, x)
    valid = (a > 0) & (b > 0) & (x > 0) & (x < 1)
    swap = x * (a + b + 2.0) > a + 1.0
    # the side summed, (p, q, y); a point that converges at once elsewhere
    p = xp.where(valid, xp.where(swap, b, a), 1.0)
    q = xp.where(valid, xp.where(swap, a, b), 1.0)
    x_in = xp.where(valid, x, 0.25)
    y = xp.where(valid & swap, 1.0 - x_in, x_in)
    log_x, log_1mx = xp.log(x_in), xp.log1p(-x_in)
    log_y, log_1my = xp.where(swap, log_1mx, log_x), xp.where(swap, log_x, log_1mx)
    # ψ(p + q) - ψ(p + 1) and ψ(p + q) - ψ(q) without cancellation where q is near 1 or p far below q
    log_K_p = log_y - _digamma_difference(p + 1.0, q - 1.0, p)
    log_K_q = log_1my - _digamma_difference(q, p, p)

    def term(k):
        m = k // 2
        if k % 2:
            denominator = (p + 2 * m) * (p + 2 * m + 1)
            d = -(p + m) * (p + q + m) * y / denominator
            d_p = -((p + q + m) + (p + m)) * y / denominator - d * (1.0 / (p + 2 * m) + 1.0 / (p + 2 * m + 1))
            d_q = -(p + m) * y / denominator
        else:
            denominator = (p + 2 * m - 1) * (p + 2 * m)
            d = m * (q - m) * y / denominator
            d_p = -d * (1.0 / (p + 2 * m - 1) + 1.0 / (p + 2 * m))
            d_q = m * y / denominator
        return d, 1.0, [d_p, d_q], [0.0, 0.0]

    (_, D_p, D_q), active = _continued_fraction(
        xp, xp.ones_like(p), [0.0, 0.0], term, lambda F, dF: (F, F * log_K_p + dF[0], F * log_K_q + dF[1]), p
    )
    log_K = p * log_y + q * log_1my - xp.log(p) - betaln_raw(p, q)
    dI_p = xp.where(active, math.nan, _signed_exp(xp, log_K, D_p))
    dI_q = xp.where(active, math.nan, _signed_exp(xp, log_K, D_q))
    outside = xp.where(((x == 0) | (x == 1)) & (a > 0) & (b > 0), 0.0, math.nan)
    dI_a = xp.where(valid, xp.where(swap, -dI_q, dI_p), outside)
    dI_b = xp.where(valid, xp.where(swap, -dI_p, dI_q), outside)
    return _cast(backend, dI_a, dtype), _cast(backend, dI_b, dtype)


def _betainc_a_raw(a, b, x):
    """∂I_x(a, b)/∂a (``_betainc_shape``)."""
    return _betainc_shape(a, b, x)[0]


def _betainc_b_raw(a, b, x):
    """∂I_x(a, b)/∂b (``_betainc_shape``)."""
    return _betainc_shape(a, b, x)[1]


_BETAINC_SECOND = "the second derivative in the shapes of the continued fraction"
_betainc_second_a = _no_derivative("betainc", "a", _BETAINC_SECOND, order=2)
_betainc_second_b = _no_derivative("betainc", "b", _BETAINC_SECOND, order=2)
_betainc_a = primitive(_betainc_a_raw)
_betainc_b = primitive(_betainc_b_raw)
# ∂²I/∂s∂x = ∂/∂s of the density: the density times log x - ψ(a) + ψ(a + b) (s = a),
# log(1 - x) - ψ(b) + ψ(a + b) (s = b)
def_elementwise(
    _betainc_a,
    _betainc_second_a,
    _betainc_second_b,
    lambda ans, a, b, x: anp.multiply(_beta_density(a, b, x), anp.subtract(anp.log(x), _digamma_difference(a, b, ans))),
    reads=("arguments", "arguments", "both"),
)
def_elementwise(
    _betainc_b,
    _betainc_second_a,
    _betainc_second_b,
    lambda ans, a, b, x: anp.multiply(
        _beta_density(a, b, x), anp.subtract(anp.log1p(anp.negative(x)), _digamma_difference(b, a, ans))
    ),
    reads=("arguments", "arguments", "both"),
)

_BETAINC_SHAPE_DOC = """the continued fraction of DLMF 8.17.22 differentiated in a and b
    (Boik and Robison-Cox 1998), on the side of x where it converges fast, with the symmetry
    I_x(a, b) = 1 - I_(1-x)(b, a) on the other (``_betainc_shape``). Relative error below 2e-12 in float64
    against mpmath (``tests/test_accuracy.py``: a and b from 0.01 to 1000 each against each, x from 1e-300 to
    1 - 1e-8 on both sides of the mean), where the derivative is a normal float; 0 where it underflows. Beyond
    a + b = 1e4 the error grows as about 1e-15 (a + b) (the logarithm of the prefactor and the sum F ∂log K + ∂F
    cancel): 2e-10 at a = 1e5, 1e-9 at 1e6, 2.5e-7 at 1e8 (against mpmath's quadrature of the derivative);
    NaN where 10000 terms do not converge (shapes near 1e9 at x near the mean). Their own derivative in
    x is the density's in the shape; the second derivative in a and b raises ``NotImplementedError``."""

betainc = _special(
    "betainc",
    f"""The regularized incomplete beta function I_x(a, b), elementwise.

    Derivative in ``x``: x^(a-1) (1 - x)^(b-1) / B(a, b) (DLMF 8.17.1-8.17.2). In ``a`` and ``b``:
    {_BETAINC_SHAPE_DOC}
    """,
    lambda ans, a, b, x: _betainc_a(a, b, x),
    lambda ans, a, b, x: _betainc_b(a, b, x),
    lambda ans, a, b, x: _beta_density(a, b, x),
)

betaincc = _special(
    "betaincc",
    f"""The complement 1 - I_x(a, b) of ``betainc``, accurate where I_x(a, b) is near 1; elementwise.

    Derivatives: those of ``betainc`` with the sign changed; in ``a`` and ``b``: {_BETAINC_SHAPE_DOC}
    """,
    lambda ans, a, b, x: anp.negative(_betainc_a(a, b, x)),
    lambda ans, a, b, x: anp.negative(_betainc_b(a, b, x)),
    lambda ans, a, b, x: anp.negative(_beta_density(a, b, x)),
)

betaincinv = _special(
    "betaincinv",
    """The inverse of ``betainc`` in x: x with I_x(a, b) = y, for y in [0, 1]; elementwise.

    Derivatives (implicit function theorem): 1 / ∂I/∂x = B(a, b) x^(1-a) (1 - x)^(1-b) in ``y``,
    -(∂I/∂a) / (∂I/∂x) in ``a`` and -(∂I/∂b) / (∂I/∂x) in ``b``, at x = the result, with ``betainc``'s
    derivatives in a and b (first order only). Relative error below 2e-12 in float64 against mpmath at the exact
    inverse (a and b from 0.3 to 100, y from 1e-8 to 0.999) where 1 - x >= 1e-5; nearer 1 the result keeps
    1 - x to eps / (1 - x) only, and the derivative, taken at the rounded result, too (7e-5 at 1 - x = 7e-13).
    """,
    *_inverse_partials(_beta_density, [_betainc_a, _betainc_b], 1.0),
    reads="output",
)

betainccinv = _special(
    "betainccinv",
    """The inverse of ``betaincc`` in x: x with 1 - I_x(a, b) = y, for y in [0, 1]; elementwise.

    Derivatives (implicit function theorem): -1 / ∂I/∂x in ``y``; in ``a`` and ``b`` those of ``betaincinv``
    (at x = the result), first order only, with the same accuracy (below 3e-13 in float64 against mpmath where
    1 - x >= 1e-5).
    """,
    *_inverse_partials(_beta_density, [_betainc_a, _betainc_b], -1.0),
    reads="output",
)

# ---- error functions ----

erf = _special(
    "erf",
    """The error function, elementwise.

    Derivative: 2 / √π exp(-x²) (DLMF 7.2.1).
    """,
    lambda ans, x: (2.0 / _SQRT_PI) * anp.exp(anp.negative(anp.square(x))),
)

erfc = _special(
    "erfc",
    """The complementary error function 1 - erf(x), elementwise.

    Derivative: -2 / √π exp(-x²) (DLMF 7.2.2).
    """,
    lambda ans, x: (-2.0 / _SQRT_PI) * anp.exp(anp.negative(anp.square(x))),
)

erfinv = _special(
    "erfinv",
    """The inverse of ``erf`` on (-1, 1), elementwise.

    Derivative (of an inverse function, with DLMF 7.2.1): √π / 2 exp(erfinv(y)²).
    """,
    lambda ans, y: (0.5 * _SQRT_PI) * anp.exp(anp.square(ans)),
    reads="output",
)

erfcinv = _special(
    "erfcinv",
    """The inverse of ``erfc`` on (0, 2), elementwise.

    Derivative (of an inverse function, with DLMF 7.2.2): -√π / 2 exp(erfcinv(y)²).
    """,
    lambda ans, y: (-0.5 * _SQRT_PI) * anp.exp(anp.square(ans)),
    reads="output",
)


def _erfcx_derivative(ans, x):
    """2 x erfcx(x) - 2/√π (DLMF 7.2.3 and 7.2.2), for x > 12 the asymptotic series
    -1/(√π x²) Σ_n (-1)^n (2n+1)!! / (2x²)^n (DLMF 7.12.1 differentiated; 16 terms, below the rounding
    there), where the difference of the two terms, each near 2/√π, would keep only the digits of
    2x² ε."""
    far = anp.greater(x, 12.0)
    x_far, x_near = anp.where(far, x, 12.0), anp.where(far, 0.0, x)
    inverse_square = 0.5 / anp.square(x_far)  # 1 / (2x²)
    series = 0.0
    for n in range(16, 0, -1):  # Horner's rule: Σ (-1)^n (2n+1)!! t^n = 1 - 3t (1 - 5t (1 - ...))
        series = 1.0 - (2 * n + 1) * inverse_square * series
    asymptotic = anp.negative(series / (_SQRT_PI * anp.square(x_far)))
    near = anp.subtract(anp.multiply(2.0 * x_near, erfcx(x_near)), 2.0 / _SQRT_PI)
    return anp.where(far, asymptotic, near)


erfcx = _special(
    "erfcx",
    """The scaled complementary error function exp(x²) erfc(x), elementwise.

    Derivative: 2 x erfcx(x) - 2/√π (DLMF 7.2.2 and the product rule); for x > 12 the
    asymptotic series of that difference (``_erfcx_derivative``), as the difference itself loses
    the digits of 2x² ε. Relative error below 1e-13 in float64 (mpmath, ``tests/test_accuracy.py``);
    -inf where erfcx overflows (x < -26.6).
    """,
    _erfcx_derivative,
)

ndtr = _special(
    "ndtr",
    """The standard normal cumulative distribution function Φ(x), elementwise.

    Derivative: the normal density exp(-x²/2) / √(2π) (A&S 26.2.1-26.2.2).
    """,
    lambda ans, x: anp.exp(anp.multiply(anp.square(x), -0.5)) / _SQRT_2PI,
)

log_ndtr = _special(
    "log_ndtr",
    """log Φ(x), accurate far into the lower tail; elementwise.

    Derivative: φ(x) / Φ(x) = exp(-x²/2 - log √(2π) - log Φ(x)), computed in logarithms (A&S
    26.2.1-26.2.2); below x = -20, where the exponent is the difference of two large numbers
    (relative error 1e-6 at -1e5 in float64), by the continued fraction of the Mills ratio
    (``_inverse_mills_ratio``).
    """,
    lambda ans, x: _log_ndtr_derivative(ans, x),
    reads="both",
)


def _inverse_mills_ratio(t, terms=8):
    """φ(t) / Φ(-t) for t >= 20, by Laplace's continued fraction ``t + 1/(t + 2/(t + 3/(t + ...))``
    (A&S 26.2.14), to full precision with 8 terms there."""
    v = t
    for k in range(terms, 0, -1):
        v = t + k / v
    return v


def _log_ndtr_derivative(ans, x):
    far = anp.less(x, -20.0)
    # each branch sees only its own points (at x = 0, log Φ = -log 2), so none overflows under a higher derivative
    x_near, ans_near = anp.where(far, 0.0, x), anp.where(far, -math.log(2.0), ans)
    near = anp.exp(anp.subtract(anp.multiply(anp.square(x_near), -0.5) - _LOG_SQRT_2PI, ans_near))
    return anp.where(far, _inverse_mills_ratio(anp.negative(anp.where(far, x, -20.0))), near)


ndtri = _special(
    "ndtri",
    """The inverse of ``ndtr`` on (0, 1), elementwise.

    Derivative (of an inverse function): √(2π) exp(ndtri(p)² / 2).
    """,
    lambda ans, p: _SQRT_2PI * anp.exp(anp.multiply(anp.square(ans), 0.5)),
    reads="output",
)

# ---- Bessel functions ----

j0 = _special(
    "j0",
    """The Bessel function of the first kind of order 0, elementwise.

    Derivative: -J_1(x) (DLMF 10.6.3).
    """,
    lambda ans, x: anp.negative(j1(x)),
)

j1 = _special(
    "j1",
    """The Bessel function of the first kind of order 1, elementwise.

    Derivative: J_0(x) - J_1(x) / x (DLMF 10.6.2), 1/2 at 0; written with ``j0`` and ``j1`` only,
    which every backend with Bessel functions has (autograd's (J_0 - J_2) / 2 needs ``jn``).
    """,
    lambda ans, x: anp.subtract(j0(x), _over_x(j1, x, -1.0)),
)

y0 = _special(
    "y0",
    """The Bessel function of the second kind of order 0, for ``x > 0``; elementwise.

    Derivative: -Y_1(x) (DLMF 10.6.3).
    """,
    lambda ans, x: anp.negative(y1(x)),
)

y1 = _special(
    "y1",
    """The Bessel function of the second kind of order 1, for ``x > 0``; elementwise.

    Derivative: Y_0(x) - Y_1(x) / x (DLMF 10.6.2).
    """,
    lambda ans, x: anp.subtract(y0(x), y1(x) / x),
)

jn = _special(
    "jn",
    """The Bessel function of the first kind J_n(x), elementwise (SciPy's ``jn``: real orders too).

    Derivative in ``x``: (J_(n-1)(x) - J_(n+1)(x)) / 2 (DLMF 10.6.1). In ``n``: raises
    ``NotImplementedError`` (no closed form).
    """,
    _no_derivative("jn", "n", _NO_ORDER),
    lambda ans, n, x: anp.multiply(anp.subtract(jn(n - 1, x), jn(n + 1, x)), 0.5),
)

yn = _special(
    "yn",
    """The Bessel function of the second kind Y_n(x) of integer order ``n``, for ``x > 0``; elementwise.

    Derivative in ``x``: (Y_(n-1)(x) - Y_(n+1)(x)) / 2 (DLMF 10.6.1). In ``n``: raises
    ``NotImplementedError`` (an integer order).
    """,
    _no_derivative("yn", "n", _INTEGER_ORDER),
    lambda ans, n, x: anp.multiply(anp.subtract(yn(n - 1, x), yn(n + 1, x)), 0.5),
)

i0 = _special(
    "i0",
    """The modified Bessel function of the first kind of order 0, elementwise.

    Derivative: I_1(x) (DLMF 10.29.3).
    """,
    lambda ans, x: i1(x),
)

i1 = _special(
    "i1",
    """The modified Bessel function of the first kind of order 1, elementwise.

    Derivative: I_0(x) - I_1(x) / x (DLMF 10.29.2), 1/2 at 0; written with ``i0`` and ``i1`` only
    (and ``inf`` where I_0 overflows, not inf - inf = NaN).
    """,
    lambda ans, x: _i1_derivative(x),
)


def _i1_derivative(x):
    i0_x = i0(x)
    return anp.where(anp.isinf(i0_x), i0_x, anp.subtract(i0_x, _over_x(i1, x, 1.0)))


iv = _special(
    "iv",
    """The modified Bessel function of the first kind I_v(x) of real order ``v``, elementwise.

    Derivative in ``x``: (I_(v-1)(x) + I_(v+1)(x)) / 2 (DLMF 10.29.1). In ``v``: raises
    ``NotImplementedError`` (no closed form).
    """,
    _no_derivative("iv", "v", _NO_ORDER),
    lambda ans, v, x: anp.multiply(anp.add(iv(v - 1, x), iv(v + 1, x)), 0.5),
)

ive = _special(
    "ive",
    """The exponentially scaled I_v(x) exp(-|x|), elementwise.

    Derivative in ``x``: (ive(v-1, x) + ive(v+1, x)) / 2 - sign(x) ive(v, x) (DLMF 10.29.1 and the
    product rule). In ``v``: raises ``NotImplementedError`` (no closed form).
    """,
    _no_derivative("ive", "v", _NO_ORDER),
    lambda ans, v, x: anp.subtract(anp.multiply(anp.add(ive(v - 1, x), ive(v + 1, x)), 0.5), anp.multiply(anp.sign(x), ans)),
    reads=("arguments", "both"),
)

i0e = _special(
    "i0e",
    """The exponentially scaled I_0(x) exp(-|x|), elementwise.

    Derivative: i1e(x) - sign(x) i0e(x) (DLMF 10.29.3 and the product rule); 0 at x = 0, where
    the function has a corner (the one-sided derivatives are -1 and 1). For large |x| the two
    terms nearly cancel (both near 1/√(2π|x|)): relative error about 2|x| ε.
    """,
    lambda ans, x: anp.subtract(i1e(x), anp.multiply(anp.sign(x), ans)),
    reads="both",
)


def _i1e_over_x(x):
    """i1e(x) / x, where-safe at 0: for |x| < 1e-4 the series exp(-|x|) (1/2 + x²/16)."""
    small = anp.less(anp.abs(x), 1e-4)
    x_small, safe = anp.where(small, x, 0.0), anp.where(small, 1.0, x)
    series = anp.multiply(anp.exp(anp.negative(anp.abs(x_small))), 0.5 + anp.square(x_small) / 16.0)
    return anp.where(small, series, i1e(safe) / safe)


i1e = _special(
    "i1e",
    """The exponentially scaled I_1(x) exp(-|x|), elementwise.

    Derivative: i0e(x) - i1e(x) / x - sign(x) i1e(x) (DLMF 10.29.2 and the product rule), 1/2 at
    0 (i1e(x) / x tends to 1/2 there, ``_i1e_over_x``). For large |x| the terms nearly cancel:
    relative error about 2|x| ε.
    """,
    lambda ans, x: anp.subtract(anp.subtract(i0e(x), _i1e_over_x(x)), anp.multiply(anp.sign(x), ans)),
    reads="both",
)

kv = _special(
    "kv",
    """The modified Bessel function of the second kind K_v(x) of real order ``v``, for ``x > 0``; elementwise.

    Derivative in ``x``: -(K_(v-1)(x) + K_(v+1)(x)) / 2 (DLMF 10.29.1). In ``v``: raises
    ``NotImplementedError`` (no closed form).
    """,
    _no_derivative("kv", "v", _NO_ORDER),
    lambda ans, v, x: anp.multiply(anp.add(kv(v - 1, x), kv(v + 1, x)), -0.5),
)

kve = _special(
    "kve",
    """The exponentially scaled K_v(x) exp(x), for ``x > 0``; elementwise.

    Derivative in ``x``: kve(v, x) - (kve(v-1, x) + kve(v+1, x)) / 2 (DLMF 10.29.1 and the
    product rule; for large x the terms nearly cancel: relative error about 2x ε; -inf where
    kve(v ± 1) overflows, near 0). In ``v``: raises ``NotImplementedError`` (no closed form).
    """,
    _no_derivative("kve", "v", _NO_ORDER),
    lambda ans, v, x: _kve_derivative(ans, v, x),
    reads=("arguments", "both"),
)


def _kve_derivative(ans, v, x):
    half_sum = anp.multiply(anp.add(kve(v - 1, x), kve(v + 1, x)), 0.5)
    return anp.where(anp.isinf(half_sum), anp.negative(half_sum), anp.subtract(ans, half_sum))


# ---- exponential integrals and Wright's omega ----

exp1 = _special(
    "exp1",
    """The exponential integral E_1(x) = ∫_x^∞ e^(-t) / t dt, for ``x > 0``; elementwise.

    Derivative: -e^(-x) / x (DLMF 6.2.1).
    """,
    lambda ans, x: anp.negative(anp.exp(anp.negative(x)) / x),
)

expi = _special(
    "expi",
    """The exponential integral Ei(x) (principal value), for ``x != 0``; elementwise.

    Derivative: e^x / x (DLMF 6.2.5).
    """,
    lambda ans, x: anp.exp(x) / x,
)

wrightomega = _special(
    "wrightomega",
    """Wright's omega function ω(x), the solution of ω + log ω = x, for real ``x``; elementwise.

    Derivative: ω / (1 + ω) (differentiating ω + log ω = x; Corless and Jeffrey, "The Wright ω
    function", 2002).
    """,
    lambda ans, x: anp.divide(ans, anp.add(ans, 1.0)),
    reads="output",
)


def _lambertw_raw(z, k, tol):
    """The backend's ``lambertw(z, k, tol)``, complex of the arguments' precision (complex64 for float32 or
    complex64 ``z``, as NumPy's complex counterpart of the floating dtype)."""
    backend = backend_of(z, op="scipy.special.lambertw")
    dtype = floating_dtype(backend, (z,))
    complex_dtype = backend.result_type(dtype, backend.dtype("complex64"))
    fun = _backend_function(backend, "lambertw")
    if fun is None:
        raise NotImplementedError(
            f"scipy.special.lambertw: the {backend.name} backend has no special function 'lambertw' (the numpy backend "
            "has SciPy's, cupy cupyx.scipy.special's); convert the arrays to the numpy backend"
        )
    return _cast(backend, fun(z, k, tol), complex_dtype)


_lambertw = primitive(_lambertw_raw)
def_elementwise(
    _lambertw,
    # W e^W = z: W' = W / (z (1 + W)) = e^(-W) / (1 + W), which needs no division by z (W'(0) = 1 on branch 0)
    lambda ans, z, k, tol: anp.divide(anp.exp(anp.negative(ans)), anp.add(ans, 1.0)),
    lambda ans, z, k, tol: 0.0,  # the branch: an integer index (piecewise constant)
    lambda ans, z, k, tol: 0.0,  # the tolerance of the iteration: no effect on the result beyond rounding
    reads=("output", "arguments", "arguments"),
)


def lambertw(z, k=0, tol=1e-8):
    """The Lambert W function, branch ``k``: W with W e^W = z, elementwise, complex-valued as SciPy's (complex128
    for float64 or complex128 ``z``, complex64 for float32 or complex64).

    Derivative in ``z`` (holomorphic away from the branch point -1/e and, for k != 0, from 0): W / (z (1 + W)) =
    e^(-W) / (1 + W), written without a division by z, so W'(0) = 1 on branch 0 (Corless et al., "On the
    Lambert W function", 1996, eq. 3.2); infinite at z = -1/e. A real ``z`` gets the real part of its cotangent
    (as for every real argument of a complex function). ``k`` and ``tol`` are constants (derivative 0). Relative
    error below 3e-13 in float64 against mpmath on the real line of branch 0 (-1/e to 1e300).
    """
    return _lambertw(z, k, tol)


# ---- logistic functions (also built from standard operations) ----


def _expit_standard(x):
    e = anp.exp(anp.negative(anp.abs(x)))
    return anp.where(anp.greater_equal(x, 0), 1.0 / (1.0 + e), e / (1.0 + e))


expit = _special(
    "expit",
    """The logistic sigmoid 1 / (1 + exp(-x)), elementwise; on every backend.

    Derivative: expit(x) expit(-x), to full precision in both tails (where ``ans (1 - ans)``, autograd's
    form, is 0 once ``ans`` rounds to 1: x > 37 in float64, 17 in float32).
    """,
    lambda ans, x: anp.multiply(ans, expit(anp.negative(x))),
    standard=_expit_standard,
    reads="both",
)

log_expit = _special(
    "log_expit",
    """log(expit(x)) = -log(1 + exp(-x)), accurate for large ``|x|``; elementwise; on every backend.

    Derivative: 1 - expit(x) = expit(-x).
    """,
    lambda ans, x: expit(anp.negative(x)),
    standard=lambda x: anp.negative(anp.logaddexp(anp.negative(x), dtypes.zeros_like(x))),
)

logit = _special(
    "logit",
    """log(p / (1 - p)), the inverse of ``expit``, elementwise; on every backend.

    Derivative: 1 / (p (1 - p)) (autograd).
    """,
    lambda ans, p: 1.0 / (p * (1.0 - p)),
    standard=lambda p: anp.subtract(anp.log(p), anp.log1p(anp.negative(p))),
)

# ---- x log y and relative entropy (also built from standard operations) ----


def _xlog_standard(log):
    """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN), for ``log`` = ``log`` or ``log1p``."""

    def standard(x, y):
        zero = anp.logical_and(anp.equal(x, 0), anp.logical_not(anp.isnan(y)))
        return anp.where(zero, 0.0, anp.multiply(x, log(anp.where(zero, 1.0, y))))

    return standard


def _x_over(x, y):
    """``x / y``, and 0 where both are 0 (so ``xlogy(0, y)``'s derivative in ``y`` is 0 at ``y = 0``)."""
    return anp.divide(x, anp.where(anp.logical_and(anp.equal(x, 0), anp.equal(y, 0)), 1.0, y))


xlogy = _special(
    "xlogy",
    """``x * log(y)``, and 0 where ``x == 0``; elementwise; on every backend.

    Derivatives (JAX): log(y) in ``x``; x / y in ``y`` (0 where x = y = 0: the function is 0 for
    all ``y`` at ``x = 0``).
    """,
    lambda ans, x, y: anp.log(y),
    lambda ans, x, y: _x_over(x, y),
    standard=_xlog_standard(anp.log),
)

xlog1py = _special(
    "xlog1py",
    """``x * log1p(y)``, and 0 where ``x == 0``; elementwise; on every backend.

    Derivatives (JAX): log1p(y) in ``x``; x / (1 + y) in ``y`` (0 where x = 0 and y = -1).
    """,
    lambda ans, x, y: anp.log1p(y),
    lambda ans, x, y: _x_over(x, anp.add(y, 1.0)),
    standard=_xlog_standard(anp.log1p),
)


def _rel_entr_standard(x, y):
    inside = anp.logical_and(anp.greater(x, 0), anp.greater(y, 0))
    ratio = anp.divide(anp.where(inside, x, 1.0), anp.where(inside, y, 1.0))
    boundary = anp.logical_and(anp.equal(x, 0), anp.greater_equal(y, 0))
    return anp.where(boundary, 0.0, anp.where(inside, anp.multiply(x, anp.log(ratio)), math.inf))


rel_entr = _special(
    "rel_entr",
    """``x log(x / y)`` for x, y > 0; 0 for x = 0, y >= 0; +inf otherwise; elementwise; on every backend.

    Derivatives: log(x / y) + 1 in ``x``, -x / y in ``y`` (0 at x = 0).
    """,
    lambda ans, x, y: anp.subtract(anp.log(x), anp.log(y)) + 1.0,
    lambda ans, x, y: anp.negative(_x_over(x, y)),
    standard=_rel_entr_standard,
)


def _log_ratio(x, y):
    """log(x / y), as ``log1p((x - y) / y)`` where x is within a factor 2 of y (``x - y`` is exact
    there, so the result keeps full precision as x / y tends to 1, where log(x) - log(y) and
    log(x / y) keep only the digits of the rounding), else log(x) - log(y) (no overflow of x / y)."""
    close = anp.logical_and(anp.less_equal(anp.abs(anp.subtract(x, y)), 0.5 * anp.abs(y)), anp.greater(y, 0))
    x_close, y_close = anp.where(close, x, 1.0), anp.where(close, y, 1.0)
    x_far, y_far = anp.where(close, 1.0, x), anp.where(close, 1.0, y)
    return anp.where(close, anp.log1p(anp.subtract(x_close, y_close) / y_close), anp.subtract(anp.log(x_far), anp.log(y_far)))


kl_div = _special(
    "kl_div",
    """``x log(x / y) - x + y`` for x, y > 0; ``y`` for x = 0, y >= 0; +inf otherwise; elementwise.

    ``rel_entr(x, y) - x + y``; on every backend. Derivatives: log(x / y) in ``x`` and 1 - x / y
    in ``y``, written as ``_log_ratio`` and (y - x) / y to keep full precision where x is near y
    (the derivatives of the composition, log(x / y) + 1 - 1, keep only the digits of the rounding).
    """,
    lambda ans, x, y: _log_ratio(x, y),
    lambda ans, x, y: anp.divide(anp.subtract(y, x), y),
    standard=lambda x, y: anp.add(anp.subtract(rel_entr(x, y), x), y),
)


def entr(x):
    """``-x log(x)`` for x > 0; 0 at 0; -inf for x < 0; elementwise.

    ``-rel_entr(x, 1)``, so its derivative is -(log(x) + 1). On every backend.
    """
    return anp.negative(rel_entr(x, dtypes.ones_like(x)))


# ---- log-sum-exp and softmax (compositions, on every backend) ----


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``log(sum(b * exp(a)))`` over ``axis`` (all axes by default), without overflow.

    Parameters
    ----------
    a : array
        Real input.
    axis : int or tuple of ints, optional
    b : array, optional
        Weights broadcastable to ``a`` (may be negative with ``return_sign``).
    keepdims : bool
    return_sign : bool
        Return ``(log|sum|, sign(sum))`` instead of ``log(sum)`` (NaN for a negative sum).

    Returns
    -------
    array, or (array, array)
        ``a``'s shape without ``axis`` (kept as 1 with ``keepdims``), in ``a``'s dtype.

    Notes
    -----
    Computed as ``m + log(sum(b * exp(a - m)))`` with ``m`` the maximum of ``a`` taken as a
    constant (any constant gives the same function), so the derivatives are those of the
    plain formula: ``softmax`` weights ``b exp(a - result)`` in ``a`` (autograd), and
    ``exp(a - result)`` in ``b``; every order, on every backend.

    A slice whose entries are all -inf has the value -inf (as SciPy's) and derivative 0 in
    every entry (moving a -inf entry by a finite amount leaves it -inf, so the value does not
    change), where the plain formula gives 0 * inf = NaN (as JAX and PyTorch do, see
    jax-ml/jax#6811 and pytorch/pytorch#31829): in log-space recursions (CTC, HMMs) -inf is
    log 0, and a NaN there would poison every other gradient it is added to.
    """
    a, narrow = reductions._accumulating(a)  # float16 sums its exponentials in float32 (their sum overflows past 65504)
    axes = tuple(range(anp.ndim(a))) if axis is None else axis
    raw = getval(a)
    shift = reductions.max(raw, axis=axes, keepdims=True) if anp.size(raw) else reductions.sum(raw, axis=axes, keepdims=True)
    no_mass = anp.equal(shift, -math.inf)  # a slice of -inf only: its sum of exponentials is exactly 0
    shift = anp.where(anp.isfinite(shift), shift, 0.0)
    terms = anp.exp(anp.subtract(a, shift))
    if b is not None:
        terms = anp.multiply(b, terms)
    total = reductions.sum(terms, axis=axes, keepdims=keepdims)
    if not keepdims:
        shift, no_mass = anp.squeeze(shift, axis=axes), anp.squeeze(no_mass, axis=axes)
    sign = anp.sign(total)
    total = anp.where(no_mass, 1.0, total)  # keeps log's derivative at 0, inf, out of the gradient (0 * inf = NaN)
    result = anp.where(no_mass, -math.inf, anp.add(anp.log(anp.abs(total) if return_sign else total), shift))
    result, sign = reductions._given_back(result, narrow), reductions._given_back(sign, narrow)
    return (result, sign) if return_sign else result


def softmax(x, axis=None):
    """``exp(x) / sum(exp(x))`` over ``axis`` (all axes by default); same shape and dtype as ``x``.

    ``exp(x - logsumexp(x, axis, keepdims=True))``: a composition, on every backend.
    """
    return anp.exp(anp.subtract(x, logsumexp(x, axis=axis, keepdims=True)))


def log_softmax(x, axis=None):
    """``log(softmax(x, axis))``, accurately: ``x - logsumexp(x, axis, keepdims=True)``; on every backend."""
    return anp.subtract(x, logsumexp(x, axis=axis, keepdims=True))
