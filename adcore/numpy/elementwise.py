"""The elementwise family: each primitive declared once, with its derivative and its facts.

One line per primitive (:func:`~adcore.numpy.declare.elementwise`): its name, its partial
derivatives ``d(ans, *args)``, what they read, and the facts the passes ask (NaN propagation,
the jit's fusion). Everything else follows from the declaration: the VJP and the JVP, what a node
keeps, batch-safety, ``vmap``'s broadcasting, the op table's entry. Every rule is written with
``adcore.numpy`` functions, so rules are traced themselves (higher order works) and run on every
backend. Squares of outputs use ``square``: the backends' ``pow(x, 2)`` is a general power,
several times slower.
"""

import math

from backends import backend_of

from ..core import getval
from .declare import (
    broadcast,
    elementwise,
    iscomplexobj,
    kept_unless_differentiated,
    times_partial,
    zero_derivative,
    zero_where_masked,
)

__all__ = """negative abs absolute exp log log1p expm1 sqrt square sin cos tan sinh cosh tanh arcsin arccos arctan
arcsinh arccosh arctanh log2 log10 reciprocal real imag conj conjugate add subtract multiply divide true_divide power
maximum minimum arctan2 hypot logaddexp logaddexp2 mod remainder copysign equal not_equal greater greater_equal less
less_equal logical_and logical_or logical_not logical_xor sign floor ceil round around isfinite isnan isinf trunc fix
rint floor_divide signbit""".split()

LN2, LN10 = 0.6931471805599453, 2.302585092994046
NAN = {"propagates_nan": True}  # the result holds a NaN wherever an argument does
CALL = {"propagates_nan": True, "fusion": "call"}  # and the jit fuses it as the call of its Array API name


def replace_zero(x, value):
    from . import indexing  # at call time: the families import this module

    if not hasattr(getval(x), "shape"):
        return value if x == 0 else x
    return indexing.where(x == 0, value, x)


def reciprocal_of(y):
    """``1 / y``, with IEEE division for a Python number too: ``1 / 0`` is ``inf`` (NumPy's value, and
    the derivative of ``log`` at 0 or of ``x / 0``), not a ``ZeroDivisionError``; the result stays a
    weak scalar."""
    if isinstance(y, (int, float)) and y == 0:
        return math.copysign(math.inf, y)
    return 1.0 / y


def one_minus_square(x):
    """``1 - x**2`` as ``(1 - x)(1 + x)``: exact near ``|x| = 1``, where ``1 - x**2`` loses half the digits."""
    return multiply(1.0 - x, 1.0 + x)


def inverse_hypot_one(x):
    """``1 / sqrt(x**2 + 1)`` through ``hypot``, which does not overflow for |x| > 1e154."""

    if iscomplexobj(x):
        return 1.0 / sqrt(square(x) + 1.0)
    return 1.0 / hypot(x, 1.0)


def sech_squared(ans, x):
    """``tanh'``: ``1 / cosh(x)**2`` (``_sech_squared``), to full precision in both tails, where
    ``1 - tanh(x)**2`` is 0 once ``tanh`` rounds to 1 (|x| > 19 in float64, 9 in float32); ``1 - ans**2``
    for complex ``x``, where ``cosh`` overflows to NaN."""

    if iscomplexobj(x):
        return 1.0 - square(ans)
    return _sech_squared(x)


def tanh_chain(g, ans, x):
    """``g sech(x)**2`` by one primitive, ``_tanh_tangent`` (``Backend.tanh_tangent``: one kernel where the
    backend fuses it), ``g (1 - ans**2)`` for complex ``x`` (see :func:`sech_squared`): ``tanh``'s tangent along
    ``g``, and its cotangent of ``g`` where the backend fuses chain products."""

    if iscomplexobj(x):
        return times_partial(g, 1.0 - square(ans))
    return _tanh_tangent(g, x)


def is_two(y):
    """Whether the exponent ``y`` is the constant 2 (a Python number, not traced): ``x**2``, which the rules of
    ``power`` treat as ``square``."""
    return type(y) in (int, float) and y == 2


def square_chain(g, ans, x, *exponent):
    """``g 2x`` by one primitive, ``_square_tangent`` (``Backend.square_tangent``: one kernel where the backend fuses
    it): the cotangent of ``square``'s and ``x**2``'s argument for ``g``, where the backend fuses chain products;
    None for ``power`` with an exponent other than the constant 2."""
    if exponent and not is_two(exponent[0]):
        return None
    return _square_tangent(g, x)


def jvp_tanh(g, ans, x):
    return broadcast(tanh_chain(g, ans, x), ans)


def vjp_abs(g, ans, x):
    """``g * conj(x) / |x|`` (``g * sign(x)`` for real ``x``), and 0 at ``x = 0`` (autograd's convention)."""

    if not iscomplexobj(x):
        return multiply(g, sign(x))
    return multiply(g, conj(x)) / replace_zero(ans, 1.0)


def jvp_abs(g, ans, x):
    if not iscomplexobj(x):
        return multiply(g, sign(x))
    return real(multiply(g, conj(x))) / replace_zero(ans, 1.0)


def power_partial_x(ans, x, y):
    """``y x**(y - 1)``; ``2 x`` for the constant exponent 2 (one product where a power and a product
    would be traced: ``x**2`` is common, and its rules are themselves differentiated under nesting).

    Where ``y`` is 0 the power is taken as ``x**1`` (autograd's rule, ``x ** where(y, y - 1, 1)``): the
    partial is then exactly 0, also at ``x = 0``, where ``0 * 0**-1`` would be NaN (``x**0`` is the
    constant 1, the first term of a polynomial ``sum(c * x ** arange(n))``).
    """
    from . import dtypes, indexing  # at call time: the families import this module

    if type(y) in (int, float):
        return multiply(x, 2.0) if y == 2 else multiply(y, power(x, y - 1 if y != 0 else 1))
    return multiply(y, power(x, indexing.where(not_equal(y, 0), subtract(y, 1), dtypes.ones_like(y))))


def power_partial_y(ans, x, y):
    """``log(x) x**y``, with ``log`` taken at 1 where ``x`` is 0 (the partial is then 0, not NaN)."""
    return multiply(log(replace_zero(x, 1.0)), ans)


def jvp_power(g, ans, x, y):
    """The tangent of ``x**y`` along ``g`` in ``x``: ``g`` times :func:`power_partial_x`, for the constant exponent 2
    ``2 (g x)``, so that a trace enclosing forward mode (``hvp``'s) keeps ``x``, which it holds anyway, and no
    ``2 x`` of its own (one array fewer held until the backward pass; doubling is exact, so the value is the
    same)."""
    if is_two(y):
        return broadcast(multiply(times_partial(g, x), 2.0), ans)
    return broadcast(times_partial(g, power_partial_x(ans, x, y)), ans)


def jvp_power_y(g, ans, x, y):
    return broadcast(times_partial(g, power_partial_y(ans, x, y)), ans)


def balanced_eq(x, z, y):
    """1 where ``x`` is the selected value ``z``, 1/2 where it ties with ``y``, else 0 (autograd's rule)."""
    from . import dtypes, indexing  # at call time: the families import this module

    one = dtypes.ones_like(z)
    return indexing.where(x == z, one, 0.0) / indexing.where(x == y, 2.0, one)


def over_squared_norm(v, y, x):
    """``v / (x**2 + y**2)`` as ``(v / r) / r`` with ``r = hypot(x, y)``: the squares under- or overflow for
    |x|, |y| beyond 1e-154 or 1e154 (0 / 0 = NaN, or 0) where the quotient is a normal number."""
    r = hypot(x, y)
    return divide(divide(v, r), r)


def logistic_weight(x, y, scale=1.0):
    """``d/dx log(exp(x) + exp(y)) = 1 / (1 + exp(y - x))`` (``scale`` ln 2: the same for ``logaddexp2``),
    from the difference of the inputs: to full precision in both tails and for large inputs
    (``exp(x - ans)`` loses the digits ``ans`` rounds off), 1/2 at ties. Where both are -inf the
    weight is 0 (-inf is log 0: the sum does not move when either moves, as in ``logsumexp``);
    where both are +inf it is NaN."""
    from . import indexing  # at call time: the families import this module

    d = subtract(x, y) if scale == 1.0 else multiply(subtract(x, y), scale)
    ahead = greater_equal(d, 0)
    # each branch of the where sees only its own sign of d (so neither overflows), and is smooth at
    # d = 0 for the higher derivatives (a form through |d| would have second derivative 0 at ties)
    e_ahead, e_behind = exp(negative(indexing.where(ahead, d, 0.0))), exp(indexing.where(ahead, 0.0, d))
    weight = indexing.where(ahead, 1.0 / (1.0 + e_ahead), e_behind / (1.0 + e_behind))
    return indexing.where(logical_and(equal(x, -math.inf), equal(y, -math.inf)), 0.0, weight)


def remainder_quotient(ans, x, y):
    """The integer ``n`` with ``ans = x - n y``, as the backend's remainder used it: ``(x - ans) / y``
    rounded (``floor(x / y)`` can differ by one where ``x / y`` rounds up to an integer)."""
    return round(divide(subtract(x, ans), y))


def copysign_partial(g, ans, x, y):
    return multiply(g, sign(x) * sign(ans))


def times_partial_raw(g, partial):
    """``g * partial``: the chain rule's product in an elementwise rule (a cotangent or a tangent ``g``
    times a partial derivative), but 0 where ``g`` is 0 and ``partial`` is NaN. An entry the output
    does not depend on (masked by ``where`` or a ``nan*`` reduction) then contributes nothing even
    where its value, and so its partial, is NaN (a NaN in the data): IEEE's 0 * NaN would make every
    gradient it is added to NaN. An infinite partial keeps IEEE's product (0 * inf = NaN)."""
    return backend_of(g, partial, op="multiply").multiply_zero_nan(g, partial)


def sech_squared_raw(x):
    """``1 / cosh(x)**2`` for real ``x``: the derivative of ``tanh``, one primitive (``Backend.sech_squared``:
    one exponential, full precision in both tails)."""
    return backend_of(x, op="tanh").sech_squared(x)


def tanh_tangent_raw(g, x):
    """``g / cosh(x)**2`` for real ``x`` (0 where ``g`` is 0, as ``_times_partial``): the tangent of ``tanh``
    along ``g``, one primitive, so that a trace enclosing forward mode (``hvp``'s) records one node for it,
    not the partial and the product."""
    return backend_of(g, x, op="tanh").tanh_tangent(g, x)


def square_tangent_raw(g, x):
    """``g * 2x`` (0 where ``g`` is 0, as ``_times_partial``): the chain rule's product of ``square``, one primitive."""
    return backend_of(g, x, op="square").square_tangent(g, x)


def owned_copy_raw(x):
    """A copy of ``x`` (``Backend.snapshot``) whose entries can be written one at a time: a derivative handed
    to the user where it is a view that cannot be (``VSpace.writable``); a primitive, so that ``adcore.jit``
    records it."""
    return backend_of(x, op="copy").snapshot(x)


def logaddexp2_raw(x, y):
    """``log2(2**x + 2**y)``, through ``logaddexp`` in base e (stable for large inputs); a primitive, so
    that its derivative is formed from ``x - y`` rather than from the rounded ``x * log(2)``."""
    return backend_of(x, y, op="logaddexp2").logaddexp(x * LN2, y * LN2) / LN2


# ---- functions of one argument ----

# negative's VJP is the product with -1, which the backward pass writes into the cotangent it owns
negative = elementwise("negative", d=lambda ans, x: -1.0, kind="linear", fusion="(-{0})", **NAN)
abs = absolute = elementwise("abs", vjp=(vjp_abs,), jvp=(jvp_abs,), reads="both", **NAN)
exp = elementwise("exp", d=lambda ans, x: ans, reads="output", **CALL)
log = elementwise("log", d=lambda ans, x: reciprocal_of(x), **CALL)
log1p = elementwise("log1p", d=lambda ans, x: reciprocal_of(1.0 + x), **CALL)
expm1 = elementwise("expm1", d=lambda ans, x: exp(x), **CALL)  # not ans + 1, which is 0 where ans rounds to -1 (x < -37)
# sqrt at 0: derivative 0 rather than +inf, so sqrt(sum(x**2)) at x = 0 has the finite
# subgradient 0 (the norm's) instead of 0 * inf = NaN; a documented convention (tests/test_edges.py).
sqrt = elementwise("sqrt", d=lambda ans, x: 0.5 / replace_zero(ans, float("inf")), reads="output", **CALL)
square = elementwise("square", d=lambda ans, x: 2.0 * x, chain=square_chain, fusion="({0} * {0})", **NAN)
sin = elementwise("sin", d=lambda ans, x: cos(x), **CALL)
cos = elementwise("cos", d=lambda ans, x: -sin(x), **CALL)
tan = elementwise("tan", d=lambda ans, x: 1.0 + square(ans), reads="output", **CALL)
sinh = elementwise("sinh", d=lambda ans, x: cosh(x), **CALL)
cosh = elementwise("cosh", d=lambda ans, x: sinh(x), **CALL)
tanh = elementwise("tanh", d=sech_squared, reads="both", chain=tanh_chain, jvp=(jvp_tanh,), **CALL)
arcsin = elementwise("arcsin", d=lambda ans, x: 1.0 / sqrt(one_minus_square(x)), api="asin", fusion="call")
arccos = elementwise("arccos", d=lambda ans, x: -1.0 / sqrt(one_minus_square(x)), api="acos", fusion="call")
arctan = elementwise("arctan", d=lambda ans, x: 1.0 / (1.0 + x**2), api="atan", fusion="call")
arcsinh = elementwise("arcsinh", d=lambda ans, x: inverse_hypot_one(x), api="asinh", fusion="call")
# sqrt(x - 1) sqrt(x + 1): x - 1 is exact near 1, and neither factor overflows where x**2 does
arccosh = elementwise("arccosh", d=lambda ans, x: 1.0 / multiply(sqrt(x - 1.0), sqrt(x + 1.0)), api="acosh", fusion="call")
arctanh = elementwise("arctanh", d=lambda ans, x: reciprocal_of(one_minus_square(x)), api="atanh", fusion="call")
log2 = elementwise("log2", d=lambda ans, x: reciprocal_of(x * LN2))
log10 = elementwise("log10", d=lambda ans, x: reciprocal_of(x * LN10))
reciprocal = elementwise("reciprocal", d=lambda ans, x: -square(ans), reads="output", **NAN)

# ---- complex numbers (autograd's convention: the gradient of a real f of z = x + iy is df/dx - i df/dy) ----

real = elementwise("real", vjp=(lambda g, ans, x: g,), kind="linear")
imag = elementwise("imag", vjp=(lambda g, ans, x: multiply(-1j, g),), kind="linear")
conj = conjugate = elementwise("conj", vjp=(lambda g, ans, x: conj(g),), kind="linear")

# ---- functions of two arguments ----

add = elementwise(
    "add", vjp=(lambda g, ans, x, y: g,) * 2, jvp=(lambda g, ans, x, y: broadcast(g, ans),) * 2, fusion="({0} + {1})", **NAN
)
subtract = elementwise(
    "subtract",
    vjp=(lambda g, ans, x, y: g, lambda g, ans, x, y: -g),
    jvp=(lambda g, ans, x, y: broadcast(g, ans), lambda g, ans, x, y: broadcast(-g, ans)),
    fusion="({0} - {1})",
    **NAN,
)
multiply = elementwise("multiply", d=(lambda ans, x, y: y, lambda ans, x, y: x), kind="bilinear", fusion="({0} * {1})", **NAN)
divide = true_divide = elementwise(
    "divide",
    d=(lambda ans, x, y: reciprocal_of(y), lambda ans, x, y: divide(-ans, y)),
    reads=("arguments", "both"),
    fusion="({0} / {1})",
    **NAN,
)
power = elementwise(
    "power",
    d=(power_partial_x, power_partial_y),
    reads=("arguments", "both"),
    jvp=(jvp_power, jvp_power_y),
    chain=square_chain,
    api="pow",
    fusion="({0} ** {1})",
)
CHOSEN = (lambda ans, x, y: balanced_eq(x, ans, y), lambda ans, x, y: balanced_eq(y, ans, x))  # maximum's, minimum's partials
maximum = elementwise("maximum", d=CHOSEN, reads="both")
minimum = elementwise("minimum", d=CHOSEN, reads="both")
arctan2 = elementwise(
    "arctan2",
    d=(lambda ans, y, x: over_squared_norm(x, y, x), lambda ans, y, x: over_squared_norm(negative(y), y, x)),
    api="atan2",
)
hypot = elementwise(
    "hypot",
    d=(lambda ans, x, y: divide(x, replace_zero(ans, 1.0)), lambda ans, x, y: divide(y, replace_zero(ans, 1.0))),
    reads="both",
)
logaddexp = elementwise("logaddexp", d=(lambda ans, x, y: logistic_weight(x, y), lambda ans, x, y: logistic_weight(y, x)))
logaddexp2 = elementwise(
    "logaddexp2",
    d=(lambda ans, x, y: logistic_weight(x, y, LN2), lambda ans, x, y: logistic_weight(y, x, LN2)),
    raw=logaddexp2_raw,
)
mod = remainder = elementwise(
    "remainder", d=(lambda ans, x, y: 1.0, lambda ans, x, y: negative(remainder_quotient(ans, x, y))), reads="both"
)
copysign = elementwise(
    "copysign",
    vjp=(copysign_partial, None),
    jvp=(lambda g, ans, x, y: broadcast(copysign_partial(g, ans, x, y), ans), None),
    reads="both",
)

# ---- the chain rule's own primitives ----

# g * partial (its (co)tangent times ``partial`` is again a _times_partial: a zero one gives 0)
_times_partial = elementwise(
    "_times_partial",
    d=(lambda ans, g, partial: zero_where_masked(g, partial), lambda ans, g, partial: g),
    raw=times_partial_raw,
    api="multiply_zero_nan",
)
# (sech**2)' = -2 sech**2 tanh
_sech_squared = elementwise("_sech_squared", d=lambda ans, x: -2.0 * ans * tanh(x), reads="both", raw=sech_squared_raw)
# ans = g sech(x)**2 is linear in g; in x its partial is g (sech**2)' = -2 ans tanh(x), 0 where ans is 0 (g is 0)
_tanh_tangent = elementwise(
    "_tanh_tangent",
    d=(lambda ans, g, x: zero_where_masked(g, _sech_squared(x)), lambda ans, g, x: _times_partial(ans, multiply(tanh(x), -2.0))),
    reads=("arguments", "both"),
    raw=tanh_tangent_raw,
    kept=kept_unless_differentiated(0),
)
# ans = 2 g x is linear in each argument: its partial in g is 2x (0 where g is 0), in x 2g
_square_tangent = elementwise(
    "_square_tangent",
    d=(lambda ans, g, x: zero_where_masked(g, multiply(x, 2.0)), lambda ans, g, x: multiply(g, 2.0)),
    raw=square_tangent_raw,
)
_owned_copy = elementwise("_owned_copy", vjp=(lambda g, ans, x: g,), kind="linear", raw=owned_copy_raw)

# ---- zero derivative (piecewise constant): not traced ----

equal = zero_derivative("equal")
not_equal = zero_derivative("not_equal")
greater = zero_derivative("greater", fusion="({0} > {1})")
greater_equal = zero_derivative("greater_equal", fusion="({0} >= {1})")
less = zero_derivative("less", fusion="({0} < {1})")
less_equal = zero_derivative("less_equal", fusion="({0} <= {1})")
logical_and = zero_derivative("logical_and")
logical_or = zero_derivative("logical_or")
logical_not = zero_derivative("logical_not")
logical_xor = zero_derivative("logical_xor")
sign = zero_derivative("sign")
floor = zero_derivative("floor")
ceil = zero_derivative("ceil")
round = around = zero_derivative("round")
isfinite = zero_derivative("isfinite")
isnan = zero_derivative("isnan")
isinf = zero_derivative("isinf")
trunc = fix = zero_derivative("trunc")
rint = zero_derivative("rint", "round")
floor_divide = zero_derivative("floor_divide")
signbit = zero_derivative("signbit")
