"""The derivative rules of ``adcore.numpy``: each primitive's VJP and JVP side by side.

Every rule is written with ``adcore.numpy`` functions, never a raw array
library, so rules are traced themselves (higher order works) and run on every
backend. Where either operand of a product may be a raw array and the other a
traced one, rules call ``anp.multiply`` rather than ``*``: some libraries
(array-api-strict) raise on ``raw * box`` instead of deferring to the box.
Broadcasting is undone in one place, :func:`unbroadcast`; forward-mode
contributions are brought to the output's shape and dtype by :func:`broadcast`.

Cotangents with leading batch axes (``jacrev``'s) are the core's
(:mod:`adcore.core.batching`): a rule asks :func:`batch_ndim`.
"""

import dis
import math

import backends

from ..core import (
    def_linear,
    defjvp,
    defjvp_argnum,
    defjvp_argnums,
    defvjp,
    defvjp_argnum,
    defvjp_saved_values,
    getval,
    isbox,
)
from ..core.batching import batch_ndim, cotangent_batch, def_batch_safe_vjp
from . import wrapper as anp

# ---- helpers named after what they undo ----


def metadata(x):
    """What a VJP keeps of an argument instead of the argument: its shape, its dtype (None for a
    Python scalar, whose cotangent keeps the output's dtype) and whether it is complex."""
    raw = getval(x)
    shape = tuple(raw.shape) if hasattr(raw, "shape") else anp.shape(raw)
    return shape, getattr(raw, "dtype", None), anp.iscomplexobj.fun(raw)


def unbroadcast(g, meta):
    """Sum the cotangent ``g`` over the axes broadcasting added to an argument of
    ``meta = (shape, dtype, iscomplex)``, give it that dtype (float32 stays float32), and
    keep only its real part for a real argument. Leading batch axes (:func:`batch_ndim`) are kept."""
    x_shape, x_dtype, x_complex = meta
    batch = batch_ndim()
    raw = getval(g)
    g_dtype = getattr(raw, "dtype", None)  # tested for None first: NumPy's dtypes compare equal to None
    if g_dtype is not None and x_dtype is not None and g_dtype == x_dtype and raw.shape[batch:] == x_shape:
        return g  # already in the argument's space (the common case: nothing was broadcast)
    if not x_complex and anp.iscomplexobj(g):
        g = anp.real(g)
    elif x_complex and x_dtype is None and not anp.iscomplexobj(g):
        g = anp.add(g, 0j)  # a Python complex's cotangent is complex, of the output's precision
    g_shape = anp.shape(g)
    if g_shape[batch:] != x_shape:
        lead = len(g_shape) - len(x_shape)
        stretched = tuple(lead + i for i, n in enumerate(x_shape) if n == 1 and g_shape[lead + i] != 1)
        g = anp.reshape(anp.sum(g, axis=tuple(range(batch, lead)) + stretched), g_shape[:batch] + x_shape)
    if x_dtype is not None and getattr(getval(g), "dtype", x_dtype) != x_dtype:
        g = anp.astype(g, x_dtype)
    return g


def unbroadcast_f(x, vjp):
    meta = metadata(x)
    return lambda g: unbroadcast(vjp(g), meta)


def unbroadcast_elementwise(x, ans, vjp):
    """:func:`unbroadcast_f` for an elementwise function with output ``ans``, whose ``vjp(g)`` is in
    the output's space: when argument ``x`` is in that space too, there is nothing to undo and
    ``vjp`` is returned as it is (no metadata kept, no work per backward pass)."""
    return vjp if same_space(x, ans) else unbroadcast_f(x, vjp)


def same_space(x, ans):
    """Whether a cotangent of ``ans`` is already one of ``x``: same shape and dtype (a Python
    scalar ``x`` has no dtype, so only the shape and complexness must agree)."""
    x_dtype = getattr(x, "dtype", None)
    if x_dtype is None:
        return not getattr(ans, "shape", ()) and (isinstance(x, complex) or not anp.iscomplexobj(ans))
    ans_dtype = getattr(ans, "dtype", None)
    return type(x_dtype) is type(ans_dtype) and x_dtype == ans_dtype and x.shape == ans.shape


def broadcast(g, ans):
    """A forward-mode contribution ``g`` in the output's shape and dtype."""
    raw, raw_ans = getval(g), getval(ans)
    g_dtype, ans_dtype = getattr(raw, "dtype", None), getattr(raw_ans, "dtype", None)
    if g_dtype is not None and ans_dtype is not None and g_dtype == ans_dtype and raw.shape == raw_ans.shape:
        return g  # already in the output's space (the common case)
    if not hasattr(raw, "shape"):
        return anp.multiply(g, anp.ones_like(ans))
    if anp.iscomplexobj(g) and not anp.iscomplexobj(ans):
        g = anp.real(g)
    ans_shape = anp.shape(ans)
    if anp.shape(g) != ans_shape:
        g = anp.broadcast_to(g, ans_shape)
    if ans_dtype is not None and getval(g).dtype != ans_dtype:
        g = anp.astype(g, ans_dtype)
    return g


def defvjp_elementwise(fun, *vjps):
    """Reverse rules of an elementwise function: ``vjps[i](g, ans, *args)`` is the cotangent of
    argument ``i`` in the output's space; broadcasting is then undone where the argument was broadcast
    (:func:`cotangent_of`). The node keeps the arguments, and the output only where a rule of a
    differentiated argument reads it (:func:`reads_parameter`). A rule that gives back ``g`` itself (``add``'s)
    for one argument passes on the backward pass's ownership of ``g`` (:func:`~adcore.core.reverse.local_vjp`)."""

    def vjp(g, owned, ans, args, kwargs, argnums):
        if len(argnums) == 1:
            cotangent = cotangent_of(args[argnums[0]], vjps[argnums[0]](g, ans, *args))
            return (cotangent,), owned and cotangent is g
        return tuple(cotangent_of(args[i], vjps[i](g, ans, *args)) for i in argnums), False

    readers = [argnum for argnum, rule in enumerate(vjps) if reads_parameter(rule, 1)]
    defvjp_saved_values(fun, vjp, output_readers=readers)


#: The primitives declared elementwise (by :func:`def_elementwise`): ``adcore.vmap`` batches them by broadcasting.
elementwise_primitives = set()


def def_elementwise(fun, *partials):
    """Rules of an elementwise function from its partial derivatives ``partial(ans, *args)``.

    The Jacobian in each argument is diagonal, so the VJP and the JVP are both
    multiplication by the partial derivative (unbroadcast for the VJP,
    broadcast for the JVP), a product in which a zero (co)tangent times a NaN
    partial is 0 (``_times_partial``: NaN data masked out contributes nothing).

    A node keeps only what its partials read (:func:`reads_parameter`): the output if the
    partial of a differentiated argument reads it (``exp``'s), not otherwise (``multiply``'s);
    a unary function's argument only if its partial reads it (``tanh``'s does not). The VJP
    needs no closure per node, and writes its product into the output's cotangent ``g``
    when the backward pass owns ``g``, else into the partial when the partial made it
    (:func:`product_into`). So a partial returns a number, a value it was given (the output or
    an argument, unchanged), or a new array that nothing else holds.
    """
    elementwise_primitives.add(fun)
    unary = len(partials) == 1
    readers = [argnum for argnum, partial in enumerate(partials) if reads_parameter(partial, 0)]
    keeps_arguments = not unary or reads_parameter(partials[0], 1)

    def vjp(g, owned, ans, args, kwargs, argnums):
        if args is None:  # a unary function whose partial reads the output only: g is in the argument's space
            partial = partials[0](ans, None)
            return (product_into(g, partial, owned, not owned and made_by_rule(partial, ans, ())),), True
        if len(argnums) == 1:
            argnum = argnums[0]
            partial = partials[argnum](ans, *args)
            made = not owned and made_by_rule(partial, ans, args)
            return (cotangent_of(args[argnum], product_into(g, partial, owned, made)),), True
        last = argnums[-1]
        products = []
        for argnum in argnums:
            partial = partials[argnum](ans, *args)
            writes_g = owned and argnum == last
            product = product_into(g, partial, writes_g, not writes_g and made_by_rule(partial, ans, args))
            products.append(cotangent_of(args[argnum], product))
        return tuple(products), True

    def jvp(argnum, g, ans, args, kwargs):
        return broadcast(times_partial(g, partials[argnum](ans, *args)), ans)

    defvjp_saved_values(fun, vjp, output_readers=readers, keeps_arguments=keeps_arguments)
    defjvp_argnum(fun, jvp)
    def_batch_safe_vjp(fun)


def def_elementwise_of_output(fun, partial):
    """Rules of a unary elementwise function whose derivative is a function of its output
    (``exp``: ``ans``; ``tanh``: ``1 - ans**2``): the node keeps the output alive, not the input."""
    def_elementwise(fun, lambda ans, x: partial(ans))


def reads_parameter(function, position):
    """Whether ``function`` (a rule such as ``lambda ans, x: anp.cos(x)``) reads its parameter at
    ``position``, judged once from its code: a load of that name, or a closure over it. Anything
    but plain Python code, and a parameter collected by ``*args``, are taken to be read."""
    code = getattr(function, "__code__", None)
    if code is None or position >= code.co_argcount:
        return True
    name = code.co_varnames[position]
    if name in code.co_cellvars:
        return True
    return any(
        instruction.opname.startswith("LOAD")
        and (instruction.argval == name or isinstance(instruction.argval, tuple) and name in instruction.argval)
        for instruction in dis.get_instructions(code)
    )


def cotangent_of(x, g):
    """``g``, a cotangent in the output's space, as one of argument ``x``: itself when ``x`` has its
    shape and dtype (the common case, tested first), else unbroadcast (:func:`unbroadcast`)."""
    x_dtype = getattr(x, "dtype", None)
    g_dtype = getattr(g, "dtype", None)
    if g_dtype is not None and x_dtype is not None and x_dtype == g_dtype and x.shape == g.shape:
        return g
    return unbroadcast(g, metadata(x))


#: array type -> its backend if ``x += y`` writes into ``x`` (an array of a library whose arrays are mutable), else False
_in_place_backends = {}
backends.forget_on_change(lambda value_type: _in_place_backends.pop(value_type, None))


def in_place_backend(x, y):
    """The backend of ``x`` if ``x += y`` and ``x *= y`` can write into ``x`` and give what ``x + y`` and ``x * y``
    would, else None: ``x`` is an array of a library with mutable arrays (not a box or a scalar), and ``y`` a real
    Python number or an array (or NumPy scalar) of ``x``'s dtype with ``x``'s shape or none. The caller must own
    ``x`` (nobody else may see it change)."""
    backend = _in_place_backends.get(type(x))
    if backend is None:
        backend = backends.array_backend(x)
        backend = _in_place_backends[type(x)] = backend if backend is not None and backend.mutable_arrays else False
    if backend is False:
        return None
    if type(y) in (float, int):
        return backend
    if isbox(y):
        return None
    y_dtype = getattr(y, "dtype", None)
    return backend if y_dtype is not None and y_dtype == x.dtype and (y.shape == x.shape or not y.shape) else None


def product_into(g, factor, owned, made=False):
    """``g * factor`` (0 where ``g`` is 0 and ``factor`` NaN: ``anp._times_partial``), written into ``g`` when
    the backward pass owns ``g``, or else into ``factor`` when the rule ``made`` it (:func:`made_by_rule`, asked
    only where ``g`` is not owned), where the product keeps the shape and dtype of the buffer written
    (:func:`in_place_backend`) and the library can check ``factor`` for NaN without waiting
    (``Backend.multiply_zero_nan_into``): one buffer fewer for large arrays."""
    backend = in_place_backend(g, factor) if owned else None
    if backend is not None:
        return backend.multiply_zero_nan_into(g, factor)
    backend = in_place_backend(factor, g) if made and getattr(factor, "ndim", 0) else None  # 0-d: NumPy's product is a scalar
    if backend is not None:
        return backend.multiply_zero_nan_into(g, factor, out=factor)
    return times_partial(g, factor)


def made_by_rule(partial, ans, args):
    """Whether ``partial``, what a partial derivative function of :func:`def_elementwise` returned, is a value
    it made: one with memory of its own (``base`` None: a NumPy array, or scalar) that is neither the node's
    output nor one of its arguments. Nothing else holds it, so the VJP may write its product into it where it
    is an array (:func:`in_place_backend`)."""
    return getattr(partial, "base", False) is None and partial is not ans and all(partial is not arg for arg in args)


def times_partial(g, partial):
    """``anp._times_partial(g, partial)``, the chain rule's product in an elementwise rule, called
    straight on the backend where neither is traced (a first-order derivative: no primitive call),
    and in Python for two float scalars (Python's, or NumPy's ``float64``, a subclass: the product is
    NumPy's then, as the ufunc's)."""
    if isinstance(g, float) and isinstance(partial, float):
        product = g * partial
        return product if partial == partial or g != 0 else type(product)(0)
    if isbox(g) or isbox(partial):
        return anp._times_partial(g, partial)
    return backends.backend_of(g, partial, op="multiply").multiply_zero_nan(g, partial)


def zero_where_masked(g, partial):
    """The partial derivative in ``g`` of the chain rule's product ``_times_partial(g, partial)``: ``partial``, but 0
    where the product was masked (``g`` 0 and ``partial`` NaN). There the product is 0 whatever ``g`` is, so its
    derivative is 0 too, and a NaN of data masked out (by ``nansum``, ``where``) stays out of second derivatives, as
    of first ones; ``partial`` itself where it holds no NaN (``Backend.may_hold_nan``)."""
    raw = getval(partial)
    if isbox(raw):  # a batch of values (adcore.vmap's): computed as data
        pass
    elif not hasattr(raw, "shape"):
        if raw == raw:
            return partial
    elif not backends.backend_of(raw, op="multiply").may_hold_nan(raw):
        return partial
    return anp.where(anp.logical_and(anp.equal(g, 0), anp.isnan(partial)), 0.0, partial)


def balanced_eq(x, z, y):
    """1 where ``x`` is the selected value ``z``, 1/2 where it ties with ``y``, else 0 (autograd's rule)."""
    one = anp.ones_like(z)
    return anp.where(x == z, one, 0.0) / anp.where(x == y, 2.0, one)


LN2, LN10 = 0.6931471805599453, 2.302585092994046


def replace_zero(x, value):
    if not hasattr(getval(x), "shape"):
        return value if x == 0 else x
    return anp.where(x == 0, value, x)


def reciprocal(y):
    """``1 / y``, with IEEE division for a Python number too: ``1 / 0`` is ``inf`` (NumPy's value, and
    the derivative of ``log`` at 0 or of ``x / 0``), not a ``ZeroDivisionError``; the result stays a
    weak scalar."""
    if isinstance(y, (int, float)) and y == 0:
        return math.copysign(math.inf, y)
    return 1.0 / y


# ---- unary elementwise ----

def_elementwise(anp.negative, lambda ans, x: -1.0)  # not lambda g: -g: its VJP then writes into an owned g
def_linear(anp.negative)  # JVP: negative(g), not a product
# Squares of outputs use ``square``: the backends' ``pow(x, 2)`` is a general power, several times slower.
def_elementwise_of_output(anp.exp, lambda ans: ans)
def_elementwise(anp.log, lambda ans, x: reciprocal(x))
def_elementwise(anp.log1p, lambda ans, x: reciprocal(1.0 + x))
def_elementwise(anp.expm1, lambda ans, x: anp.exp(x))  # not ans + 1, which is 0 where ans rounds to -1 (x < -37)
# sqrt at 0: derivative 0 rather than +inf, so sqrt(sum(x**2)) at x = 0 has the finite
# subgradient 0 (the norm's) instead of 0 * inf = NaN; a documented convention (tests/test_edges.py).
def_elementwise_of_output(anp.sqrt, lambda ans: 0.5 / replace_zero(ans, float("inf")))
def_elementwise(anp.square, lambda ans, x: 2.0 * x)
def_elementwise(anp.sin, lambda ans, x: anp.cos(x))
def_elementwise(anp.cos, lambda ans, x: -anp.sin(x))
def_elementwise_of_output(anp.tan, lambda ans: 1.0 + anp.square(ans))
def_elementwise(anp.sinh, lambda ans, x: anp.cosh(x))
def_elementwise(anp.cosh, lambda ans, x: anp.sinh(x))


def sech_squared(ans, x):
    """``tanh'``: ``1 / cosh(x)**2`` (``anp._sech_squared``), to full precision in both tails, where
    ``1 - tanh(x)**2`` is 0 once ``tanh`` rounds to 1 (|x| > 19 in float64, 9 in float32); ``1 - ans**2``
    for complex ``x``, where ``cosh`` overflows to NaN."""
    if anp.iscomplexobj(x):
        return 1.0 - anp.square(ans)
    return anp._sech_squared(x)


def one_minus_square(x):
    """``1 - x**2`` as ``(1 - x)(1 + x)``: exact near ``|x| = 1``, where ``1 - x**2`` loses half the digits."""
    return anp.multiply(1.0 - x, 1.0 + x)


def inverse_hypot_one(x):
    """``1 / sqrt(x**2 + 1)`` through ``hypot``, which does not overflow for |x| > 1e154."""
    if anp.iscomplexobj(x):
        return 1.0 / anp.sqrt(anp.square(x) + 1.0)
    return 1.0 / anp.hypot(x, 1.0)


def jvp_tanh(g, ans, x):
    """``g sech(x)**2`` by one primitive, ``_tanh_tangent`` (``g (1 - ans**2)`` for complex ``x``, see :func:`sech_squared`)."""
    if anp.iscomplexobj(x):
        return broadcast(times_partial(g, 1.0 - anp.square(ans)), ans)
    return broadcast(anp._tanh_tangent(g, x), ans)


def_elementwise(anp.tanh, sech_squared)
defjvp(anp.tanh, jvp_tanh)
def_elementwise(anp._sech_squared, lambda ans, x: -2.0 * ans * anp.tanh(x))  # (sech**2)' = -2 sech**2 tanh
# ans = g sech(x)**2 is linear in g; in x its partial is g (sech**2)' = -2 ans tanh(x), 0 where ans is 0 (g is 0)
def_elementwise(
    anp._tanh_tangent,
    lambda ans, g, x: zero_where_masked(g, anp._sech_squared(x)),
    lambda ans, g, x: anp._times_partial(-2.0 * ans, anp.tanh(x)),
)
def_elementwise(anp.arcsin, lambda ans, x: 1.0 / anp.sqrt(one_minus_square(x)))
def_elementwise(anp.arccos, lambda ans, x: -1.0 / anp.sqrt(one_minus_square(x)))
def_elementwise(anp.arctan, lambda ans, x: 1.0 / (1.0 + x**2))
def_elementwise(anp.arcsinh, lambda ans, x: inverse_hypot_one(x))
# sqrt(x - 1) sqrt(x + 1): x - 1 is exact near 1, and neither factor overflows where x**2 does
def_elementwise(anp.arccosh, lambda ans, x: 1.0 / anp.multiply(anp.sqrt(x - 1.0), anp.sqrt(x + 1.0)))
def_elementwise(anp.arctanh, lambda ans, x: reciprocal(one_minus_square(x)))
def_elementwise(anp.log2, lambda ans, x: reciprocal(x * LN2))
def_elementwise(anp.log10, lambda ans, x: reciprocal(x * LN10))
def_elementwise_of_output(anp.reciprocal, lambda ans: -anp.square(ans))


def grad_abs(ans, x):
    """``g * conj(x) / |x|`` (``g * sign(x)`` for real ``x``), and 0 at ``x = 0`` (autograd's convention)."""
    if not anp.iscomplexobj(x):
        return lambda g: anp.multiply(g, anp.sign(x))
    return lambda g: anp.multiply(g, anp.conj(x)) / replace_zero(ans, 1.0)


def jvp_abs(g, ans, x):
    if not anp.iscomplexobj(x):
        return anp.multiply(g, anp.sign(x))
    return anp.real(anp.multiply(g, anp.conj(x))) / replace_zero(ans, 1.0)


defvjp(anp.abs, grad_abs)
defjvp(anp.abs, jvp_abs)
def_batch_safe_vjp(anp.abs)

# ---- complex numbers (autograd's convention: the gradient of a real f of z = x + iy is df/dx - i df/dy) ----

defvjp(anp.real, lambda ans, x: unbroadcast_f(x, lambda g: g))
def_linear(anp.real)
defvjp(anp.imag, lambda ans, x: unbroadcast_f(x, lambda g: anp.multiply(-1j, g)))
def_linear(anp.imag)
defvjp(anp._owned_copy, lambda ans, x: lambda g: g)
def_linear(anp._owned_copy)
def_batch_safe_vjp(anp._owned_copy)
defvjp(anp.conj, lambda ans, x: lambda g: anp.conj(g))
def_linear(anp.conj)
def_batch_safe_vjp(anp.real, anp.imag, anp.conj)

# ---- binary elementwise ----

defvjp_elementwise(anp.add, lambda g, ans, x, y: g, lambda g, ans, x, y: g)
defjvp(anp.add, lambda g, ans, x, y: broadcast(g, ans), lambda g, ans, x, y: broadcast(g, ans))
defvjp_elementwise(anp.subtract, lambda g, ans, x, y: g, lambda g, ans, x, y: -g)
defjvp(anp.subtract, lambda g, ans, x, y: broadcast(g, ans), lambda g, ans, x, y: broadcast(-g, ans))
def_batch_safe_vjp(anp.add, anp.subtract)
def_elementwise(anp.multiply, lambda ans, x, y: y, lambda ans, x, y: x)
# the chain rule's own product (its (co)tangent times ``partial`` is again a _times_partial: a zero one gives 0)
def_elementwise(anp._times_partial, lambda ans, g, partial: zero_where_masked(g, partial), lambda ans, g, partial: g)
def_elementwise(anp.divide, lambda ans, x, y: reciprocal(y), lambda ans, x, y: anp.divide(-ans, y))


def power_partial_x(ans, x, y):
    """``y x**(y - 1)``; ``2 x`` for the constant exponent 2 (one product where a power and a product
    would be traced: ``x**2`` is common, and its rules are themselves differentiated under nesting).

    Where ``y`` is 0 the power is taken as ``x**1`` (autograd's rule, ``x ** where(y, y - 1, 1)``): the
    partial is then exactly 0, also at ``x = 0``, where ``0 * 0**-1`` would be NaN (``x**0`` is the
    constant 1, the first term of a polynomial ``sum(c * x ** arange(n))``).
    """
    if type(y) in (int, float):
        return anp.multiply(x, 2.0) if y == 2 else anp.multiply(y, anp.power(x, y - 1 if y != 0 else 1))
    return anp.multiply(y, anp.power(x, anp.where(anp.not_equal(y, 0), anp.subtract(y, 1), anp.ones_like(y))))


def_elementwise(
    anp.power,
    power_partial_x,
    lambda ans, x, y: anp.multiply(anp.log(replace_zero(x, 1.0)), ans),
)
def_elementwise(anp.maximum, lambda ans, x, y: balanced_eq(x, ans, y), lambda ans, x, y: balanced_eq(y, ans, x))
def_elementwise(anp.minimum, lambda ans, x, y: balanced_eq(x, ans, y), lambda ans, x, y: balanced_eq(y, ans, x))


def over_squared_norm(v, y, x):
    """``v / (x**2 + y**2)`` as ``(v / r) / r`` with ``r = hypot(x, y)``: the squares under- or overflow for
    |x|, |y| beyond 1e-154 or 1e154 (0 / 0 = NaN, or 0) where the quotient is a normal number."""
    r = anp.hypot(x, y)
    return anp.divide(anp.divide(v, r), r)


def_elementwise(
    anp.arctan2,
    lambda ans, y, x: over_squared_norm(x, y, x),
    lambda ans, y, x: over_squared_norm(anp.negative(y), y, x),
)
def_elementwise(
    anp.hypot,
    lambda ans, x, y: anp.divide(x, replace_zero(ans, 1.0)),
    lambda ans, x, y: anp.divide(y, replace_zero(ans, 1.0)),
)


def logistic_weight(x, y, scale=1.0):
    """``d/dx log(exp(x) + exp(y)) = 1 / (1 + exp(y - x))`` (``scale`` ln 2: the same for ``logaddexp2``),
    from the difference of the inputs: to full precision in both tails and for large inputs
    (``exp(x - ans)`` loses the digits ``ans`` rounds off), 1/2 at ties. Where both are -inf the
    weight is 0 (-inf is log 0: the sum does not move when either moves, as in ``logsumexp``);
    where both are +inf it is NaN."""
    d = anp.subtract(x, y) if scale == 1.0 else anp.multiply(anp.subtract(x, y), scale)
    ahead = anp.greater_equal(d, 0)
    # each branch of the where sees only its own sign of d (so neither overflows), and is smooth at
    # d = 0 for the higher derivatives (a form through |d| would have second derivative 0 at ties)
    e_ahead, e_behind = anp.exp(anp.negative(anp.where(ahead, d, 0.0))), anp.exp(anp.where(ahead, 0.0, d))
    weight = anp.where(ahead, 1.0 / (1.0 + e_ahead), e_behind / (1.0 + e_behind))
    return anp.where(anp.logical_and(anp.equal(x, -math.inf), anp.equal(y, -math.inf)), 0.0, weight)


def_elementwise(anp.logaddexp, lambda ans, x, y: logistic_weight(x, y), lambda ans, x, y: logistic_weight(y, x))
def_elementwise(anp.logaddexp2, lambda ans, x, y: logistic_weight(x, y, LN2), lambda ans, x, y: logistic_weight(y, x, LN2))


def remainder_quotient(ans, x, y):
    """The integer ``n`` with ``ans = x - n y``, as the backend's remainder used it: ``(x - ans) / y``
    rounded (``floor(x / y)`` can differ by one where ``x / y`` rounds up to an integer)."""
    return anp.round(anp.divide(anp.subtract(x, ans), y))


def_elementwise(
    anp.remainder, lambda ans, x, y: anp.ones_like(ans), lambda ans, x, y: anp.negative(remainder_quotient(ans, x, y))
)
defvjp(
    anp.copysign, lambda ans, x, y: unbroadcast_elementwise(x, ans, lambda g: anp.multiply(g, anp.sign(x) * anp.sign(ans))), None
)
defjvp(anp.copysign, lambda g, ans, x, y: broadcast(anp.multiply(g, anp.sign(x) * anp.sign(ans)), ans), None)


def inside_clip(a, a_min, a_max):
    """Where ``a`` lies within the bounds (a bound of None is no bound)."""
    inside = anp.ones_like(a, dtype=bool)
    if a_min is not None:
        inside = anp.logical_and(inside, a >= a_min)
    if a_max is not None:
        inside = anp.logical_and(inside, a <= a_max)
    return inside


defvjp(
    anp.clip,
    lambda ans, a, a_min, a_max: unbroadcast_elementwise(a, ans, lambda g: anp.where(inside_clip(a, a_min, a_max), g, 0.0)),
)
defjvp(anp.clip, lambda g, ans, a, a_min, a_max: broadcast(anp.where(inside_clip(a, a_min, a_max), g, 0.0), ans))
defvjp(
    anp.where.primitive,
    None,
    lambda ans, c, x, y: unbroadcast_elementwise(x, ans, lambda g: anp.where(c, g, 0.0)),
    lambda ans, c, x, y: unbroadcast_elementwise(y, ans, lambda g: anp.where(c, 0.0, g)),
)
defjvp(
    anp.where.primitive,
    None,
    lambda g, ans, c, x, y: broadcast(anp.where(c, g, 0.0), ans),
    lambda g, ans, c, x, y: broadcast(anp.where(c, 0.0, g), ans),
)
def_batch_safe_vjp(anp.clip, anp.where.primitive)

# ---- reductions ----


def expand_reduced(g, x_shape, axis, keepdims, batch=0):
    """``g``, reduced from ``x_shape`` over ``axis``, broadcast back to ``x_shape`` after its
    ``batch`` leading axes (:func:`batch_ndim` for a cotangent)."""
    batch_shape = anp.shape(g)[:batch]
    if not keepdims and (axis is not None or batch):
        axes = range(len(x_shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
        reduced = {a % len(x_shape) for a in axes} if x_shape else set()  # NumPy takes axis 0 or -1 of a 0-d array
        g = anp.reshape(g, batch_shape + tuple(1 if i in reduced else n for i, n in enumerate(x_shape)))
    return anp.broadcast_to(g, batch_shape + x_shape)


def grad_sum(ans, x, axis=None, dtype=None, keepdims=False):
    meta = metadata(x)
    return lambda g: unbroadcast(expand_reduced(g, meta[0], axis, keepdims, batch_ndim()), meta)


defvjp(anp.sum.primitive, grad_sum)
def_linear(anp.sum.primitive)
def_batch_safe_vjp(anp.sum.primitive)


def chooser_weights(ans, x, axis, keepdims):
    """How the derivative of ``max``/``min`` splits among ``x``: equally over the entries equal to the
    result (autograd's and JAX's convention for ties). Returns the weights and the dtype to give the
    derivative back in: float16 counts its ties in float32 (a count above 65504 is inf in float16,
    and a derivative of 1/count would then be 0)."""
    chosen, narrow = anp._accumulating(
        anp.astype(x == expand_reduced(ans, anp.shape(x), axis, keepdims), anp.result_type(getval(x)))
    )
    return chosen / anp.sum(chosen, axis=axis, keepdims=True), narrow


def grad_chooser(ans, x, axis=None, keepdims=False):
    x_shape = anp.shape(x)

    def vjp(g):
        weights, narrow = chooser_weights(ans, x, axis, keepdims)
        # anp.multiply, not ``*``: under vmap ``g`` may be a raw array and ``weights`` a batch, which a raw
        # array-api-strict array refuses on its right
        return anp._given_back(anp.multiply(expand_reduced(g, x_shape, axis, keepdims, batch_ndim()), weights), narrow)

    return vjp


def jvp_chooser(g, ans, x, axis=None, keepdims=False):
    weights, narrow = chooser_weights(ans, x, axis, keepdims)
    return anp._given_back(anp.sum(g * weights, axis=axis, keepdims=keepdims), narrow)


defvjp(anp.max, grad_chooser)
defjvp(anp.max, jvp_chooser)
defvjp(anp.min, grad_chooser)
defjvp(anp.min, jvp_chooser)
def_batch_safe_vjp(anp.max, anp.min)


def prod_of_others(x, axis):
    """For each entry, the product of the other entries reduced with it; exact when entries are 0.

    With no zero in a reduction, it is ``prod / x``; with one zero, it is the
    product of the non-zero entries at the zero and 0 elsewhere; with more, 0.
    (Second derivatives at points with a zero entry are not covered.)
    """
    is_zero = x == 0
    nonzero = anp.where(is_zero, 1.0, x)
    zeros_count = anp.sum(anp.astype(is_zero, anp.result_type(getval(x))), axis=axis, keepdims=True)
    prod_nonzero = anp.prod(nonzero, axis=axis, keepdims=True)
    only_zero = anp.logical_and(is_zero, zeros_count == 1)
    return anp.where(zeros_count == 0, prod_nonzero / nonzero, anp.where(only_zero, prod_nonzero, 0.0))


def grad_prod(ans, x, axis=None, dtype=None, keepdims=False):
    meta = metadata(x)
    return lambda g: unbroadcast(
        anp.multiply(expand_reduced(g, meta[0], axis, keepdims, batch_ndim()), prod_of_others(x, axis)), meta
    )


defvjp(anp.prod.primitive, grad_prod)
defjvp(
    anp.prod.primitive,
    lambda g, ans, x, axis=None, dtype=None, keepdims=False: broadcast(
        anp.sum(anp.multiply(g, prod_of_others(x, axis)), axis=axis, keepdims=keepdims), ans
    ),
)
def_batch_safe_vjp(anp.prod.primitive)


def reverse_cumsum(g, axis):
    """``sum_{j >= i} g_j`` along ``axis``: the adjoint of ``cumsum``."""
    return anp.flip(anp.cumsum(anp.flip(g, axis), axis), axis)


def grad_cumsum(ans, x, axis=None):
    x_shape = anp.shape(x)
    if axis is None:
        return lambda g: anp.reshape(reverse_cumsum(g, 0), x_shape)
    return lambda g: reverse_cumsum(g, axis)


defvjp(anp.cumsum, grad_cumsum)
def_linear(anp.cumsum)


def first_zero_masks(x, axis):
    """Along ``axis``: where no zero has come yet, and where the first zero is."""
    zeros_so_far = anp.cumsum(anp.astype(x == 0, anp.result_type(getval(x))), axis)
    before = zeros_so_far == 0
    return before, anp.logical_and(x == 0, zeros_so_far == 1)


def cumprod_parts(x, axis):
    """What both cumprod rules need, exact with zeros: with the first zero along ``axis`` at z,
    an entry before z has derivative terms ``ans_j / x_i`` (j < z); the entry at z those of the
    cumulative product with ``x_z`` replaced by 1; entries after z have none. Returns the masks
    of "before z" and "at z", ``x`` with zeros replaced by 1 (to divide by), and that product."""
    before, first_zero = first_zero_masks(x, axis)
    return before, first_zero, anp.where(x == 0, 1.0, x), anp.cumprod(anp.where(first_zero, 1.0, x), axis)


def grad_cumprod(ans, x, axis=None):
    x_shape = anp.shape(x)
    flat = axis is None
    x, axis = (anp.ravel(x), 0) if flat else (x, axis)

    def vjp(g):
        g = anp.ravel(g) if flat else g
        before, first_zero, x_nonzero, ans_safe = cumprod_parts(x, axis)
        through_zero = reverse_cumsum(anp.multiply(g, ans_safe), axis)
        before_zero = reverse_cumsum(anp.multiply(g, anp.cumprod(x, axis)), axis) / x_nonzero
        result = anp.where(before, before_zero, anp.where(first_zero, through_zero, 0.0))
        return anp.reshape(result, x_shape) if flat else result

    return vjp


def jvp_cumprod(g, ans, x, axis=None):
    if axis is None:
        x, g, axis = anp.ravel(x), anp.ravel(g), 0
    before, first_zero, x_nonzero, ans_safe = cumprod_parts(x, axis)
    g_at_zero = anp.sum(anp.where(first_zero, g, 0.0), axis=axis, keepdims=True)
    before_zero = anp.multiply(anp.cumsum(anp.divide(g, x_nonzero), axis), anp.cumprod(x, axis))
    return broadcast(anp.where(before, before_zero, anp.multiply(g_at_zero, ans_safe)), ans)


defvjp(anp.cumprod, grad_cumprod)
defjvp(anp.cumprod, jvp_cumprod)
defvjp(anp.flip, lambda ans, x, axis=None: lambda g: anp.flip(g, axis))
def_linear(anp.flip)

# ---- linear algebra ----


def swap_last(x):
    axes = list(range(anp.ndim(x)))
    axes[-2:] = axes[-1], axes[-2]
    return anp.transpose(x, axes)


def drop_last(x):
    return anp.reshape(x, anp.shape(x)[:-1])


def grad_matmul_a(ans, a, b):
    """``g b^T``; with a vector ``b``, the outer product ``g b``. A vector ``a`` against a matrix
    ``b`` is the row vector ``g b^T`` too (one product, no reshapes: fast under nesting)."""
    a_nd, b_nd = anp.ndim(a), anp.ndim(b)
    if b_nd == 1:
        return unbroadcast_f(a, lambda g: anp.multiply(anp.expand_dims(g, -1), b))
    if a_nd == 1 and b_nd > 2:
        return unbroadcast_f(a, lambda g: drop_last(anp.matmul(b, anp.expand_dims(g, -1))))
    return unbroadcast_f(a, lambda g: anp.matmul(g, swap_last(b)))


def grad_matmul_b(ans, a, b):
    """``a^T g``; with a vector ``a``, the outer product ``a g``. For a matrix ``a`` and a vector
    ``b`` it is the row vector ``g a`` (one product, no transpose or reshapes)."""
    a_nd, b_nd = anp.ndim(a), anp.ndim(b)
    if a_nd == 1 and b_nd == 1:
        return unbroadcast_f(b, lambda g: anp.multiply(anp.expand_dims(g, -1), a))
    if a_nd == 1:
        return unbroadcast_f(b, lambda g: anp.multiply(anp.expand_dims(a, -1), anp.expand_dims(g, -2)))
    if b_nd == 1 and a_nd == 2:
        return unbroadcast_f(b, lambda g: anp.matmul(g, a))
    if b_nd == 1:
        return unbroadcast_f(b, lambda g: drop_last(anp.matmul(swap_last(a), anp.expand_dims(g, -1))))
    return unbroadcast_f(b, lambda g: anp.matmul(swap_last(a), g))


defvjp(anp.matmul, grad_matmul_a, grad_matmul_b)
def_linear(anp.matmul)
def_batch_safe_vjp(anp.matmul)


def tensordot_axes(axes, a_nd, b_nd):
    """``tensordot``'s ``axes`` as two lists of non-negative axes of ``a`` and ``b``."""
    if isinstance(axes, int):
        return list(range(a_nd - axes, a_nd)), list(range(axes))
    a_axes, b_axes = ([ax] if isinstance(ax, int) else list(ax) for ax in axes)
    return [ax % a_nd for ax in a_axes], [ax % b_nd for ax in b_axes]


def inverse_permutation(order):
    return tuple(order.index(i) for i in range(len(order)))


def permute_after_batch(x, perm, batch_at=0):
    """``x`` with its :func:`batch_ndim` batch axes, found at position ``batch_at``, moved to the
    front and its other axes permuted by ``perm`` (reversed when None), as ``transpose`` does."""
    batch = batch_ndim()
    if not batch:
        return anp.transpose(x, perm)
    others = [i for i in range(anp.ndim(x)) if not batch_at <= i < batch_at + batch]
    perm = reversed(range(len(others))) if perm is None else perm
    return anp.transpose(x, tuple(range(batch_at, batch_at + batch)) + tuple(others[p] for p in perm))


def grad_tensordot_a(ans, a, b, axes=2):
    a_axes, b_axes = tensordot_axes(axes, anp.ndim(a), anp.ndim(b))
    a_free = [i for i in range(anp.ndim(a)) if i not in a_axes]
    b_free = [i for i in range(anp.ndim(b)) if i not in b_axes]
    order = a_free + [a_axes[j] for j in sorted(range(len(b_axes)), key=b_axes.__getitem__)]

    def vjp(g):
        batch = batch_ndim()
        g_b_free = tuple(range(batch + len(a_free), batch + len(a_free) + len(b_free)))
        return permute_after_batch(anp.tensordot(g, b, axes=(g_b_free, tuple(b_free))), inverse_permutation(order))

    return unbroadcast_f(a, vjp)


def grad_tensordot_b(ans, a, b, axes=2):
    a_axes, b_axes = tensordot_axes(axes, anp.ndim(a), anp.ndim(b))
    a_free = [i for i in range(anp.ndim(a)) if i not in a_axes]
    b_free = [i for i in range(anp.ndim(b)) if i not in b_axes]
    order = [b_axes[j] for j in sorted(range(len(a_axes)), key=a_axes.__getitem__)] + b_free

    def vjp(g):
        batch = batch_ndim()
        g_a_free = tuple(range(batch, batch + len(a_free)))
        product = anp.tensordot(a, g, axes=(tuple(a_free), g_a_free))
        return permute_after_batch(product, inverse_permutation(order), batch_at=len(a_axes))

    return unbroadcast_f(b, vjp)


defvjp(anp.tensordot, grad_tensordot_a, grad_tensordot_b)
def_linear(anp.tensordot)
def_batch_safe_vjp(anp.tensordot)

# ---- shape functions ----


def grad_reshape(ans, x, newshape):
    meta = metadata(x)
    return lambda g: unbroadcast(anp.reshape(g, anp.shape(g)[: batch_ndim()] + meta[0]), meta)


def grad_transpose(ans, x, axes=None):
    inverse = None if axes is None else inverse_permutation([ax % anp.ndim(x) for ax in axes])
    return lambda g: permute_after_batch(g, inverse)


defvjp(anp.reshape, grad_reshape)
def_linear(anp.reshape)
defvjp(anp.transpose, grad_transpose)
def_linear(anp.transpose)
defvjp(anp.broadcast_to, lambda ans, x, shape: unbroadcast_f(x, lambda g: g))
def_linear(anp.broadcast_to)
def_batch_safe_vjp(anp.reshape, anp.transpose, anp.broadcast_to)


def grad_concatenate(argnum, ans, args, kwargs):
    """The argument's piece of ``g``, in its dtype (:func:`unbroadcast`): the output has the promoted
    dtype of all the arrays, so a real argument beside a complex one keeps the real part of its piece,
    and a float32 one beside a float64 one is given float32."""
    axis, arrays = args[0], args[1:]
    x = arrays[argnum - 1]
    if axis is None:
        start = sum(anp.size(a) for a in arrays[: argnum - 1])
        stop, x_shape = start + anp.size(x), anp.shape(x)
        return unbroadcast_f(x, lambda g: anp.reshape(g[..., start:stop], anp.shape(g)[: batch_ndim()] + x_shape))
    start = sum(anp.shape(a)[axis] for a in arrays[: argnum - 1])
    stop = start + anp.shape(x)[axis]
    index = (slice(None),) * (axis % anp.ndim(ans)) + (slice(start, stop), ...)
    return unbroadcast_f(x, lambda g: g[(slice(None),) * batch_ndim() + index])


def jvp_concatenate(argnums, gs, ans, args, kwargs):
    tangents = dict(zip(argnums, gs))
    pieces = [tangents[i] if i in tangents else anp.zeros_like(a) for i, a in enumerate(args) if i > 0]
    return broadcast(anp.concatenate_args(args[0], *pieces), ans)


defvjp_argnum(anp.concatenate_args, grad_concatenate)
defjvp_argnums(anp.concatenate_args, jvp_concatenate)
def_batch_safe_vjp(anp.concatenate_args)


def grad_diagonal(ans, x, offset=0, axis1=0, axis2=1):
    x_shape, n = anp.shape(x), anp.ndim(x)
    axis1, axis2 = axis1 % n, axis2 % n
    order = [a for a in range(n) if a not in (axis1, axis2)] + [axis1, axis2]
    last_two_shape = tuple(x_shape[a] for a in order)
    return lambda g: anp.transpose(anp.diagonal_untake(g, offset, last_two_shape), inverse_permutation(order))


defvjp(anp.diagonal, grad_diagonal)
def_linear(anp.diagonal)
defvjp(anp.diagonal_untake, lambda ans, g, offset, shape: lambda h: anp.diagonal(h, offset, -2, -1))
def_linear(anp.diagonal_untake)

# ---- indexing ----


def after_batch(index):
    """``index`` for an array with :func:`batch_ndim` batch axes in front, or None where prepending
    full slices would not keep the batch axes in front (integer-array and boolean indices)."""
    index = index if isinstance(index, tuple) else (index,)
    if all(i is None or i is Ellipsis or type(i) in (int, slice) for i in index):
        return (slice(None),) * batch_ndim() + index
    return None


def per_batch_row(g, row_vjp):
    """``row_vjp`` applied to each row of the batch of cotangents ``g``, the results stacked."""
    batch_shape = anp.shape(g)[: batch_ndim()]
    rows = anp.reshape(g, (math.prod(batch_shape),) + anp.shape(g)[len(batch_shape) :])  # -1 is ambiguous for an empty row
    with cotangent_batch(0):
        out = anp.stack([row_vjp(rows[i, ...]) for i in range(anp.shape(rows)[0])])
    return anp.reshape(out, batch_shape + anp.shape(out)[1:])


def grad_getitem(ans, x, index):
    """``untake``: ``g`` added into zeros of ``x``'s shape at ``index`` (a batch of cotangents with a
    basic index in one scatter, with integer-array or boolean indices one row at a time)."""
    meta = metadata(x)

    def vjp(g):
        if not batch_ndim():
            return unbroadcast(anp.untake(g, index, meta[0]), meta)
        batched_index = after_batch(index)
        if batched_index is None:
            return unbroadcast(per_batch_row(g, lambda row: anp.untake(row, index, meta[0])), meta)
        return unbroadcast(anp.untake(g, batched_index, anp.shape(g)[: batch_ndim()] + meta[0]), meta)

    return vjp


def grad_untake(ans, g, index, x_shape):
    """``getitem``: the entries of ``h`` at ``index`` (per batch row for integer-array or boolean indices)."""

    def vjp(h):
        if not batch_ndim():
            return anp.getitem(h, index)
        batched_index = after_batch(index)
        if batched_index is None:
            return per_batch_row(h, lambda row: anp.getitem(row, index))
        return anp.getitem(h, batched_index)

    return vjp


defvjp(anp.getitem, grad_getitem)
def_linear(anp.getitem)
defvjp(anp.untake, grad_untake)
def_linear(anp.untake)
def_batch_safe_vjp(anp.getitem, anp.untake)

# ---- dtype ----


def grad_astype(ans, x, dtype):
    """A cast to a floating-point or complex dtype passes the cotangent through (a cast to an
    integer or boolean dtype is not traced: ``anp.astype``)."""
    return unbroadcast_f(x, lambda g: g)


defvjp(anp.astype.primitive, grad_astype)
def_linear(anp.astype.primitive)
def_batch_safe_vjp(anp.astype.primitive)
