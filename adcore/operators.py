"""The differential operators, with autograd 1.9.1's names, signatures and ``argnum`` semantics.

Each operator ``op(fun, argnum=0)`` returns a function taking ``fun``'s
arguments; ``argnum`` (an int, or a tuple of ints for a tuple of arguments)
picks what is differentiated. The returned function is named
``op_of_fun`` (``op_of_fun_wrt_argnum_N`` for ``argnum`` other than 0).

Errors name the operator the user called and the user's function, also when
the operator is built from others (``hessian`` is ``jacfwd`` of ``grad``:
``_as_step_of``). What a function returns is checked in one place,
``_output_space``: operators that need a scalar or an array refuse containers
(a tuple of one item is not a scalar), the others differentiate them item by
item. Operators, and the functions they return (``vjp``, ``jvp``, ``hvp``), run
with the array libraries' own autograd (torch's) off: ``recording_paused``.
"""

import math
import warnings

from backends import array_backend, backend_of, recording_paused

from . import numpy as anp

# importing builtins registers tuple/list/dict boxes and joins returned containers
from .builtins import ContainerVSpace, build_container
from .core import autograd_alias_installed
from .core import (
    Ones,
    RuleNotDefined,
    VJPNode,
    backward_pass,
    check_no_ended_box,
    defjvp_argnum,
    defvjp_argnum,
    getval,
    isbox,
    next_trace_id,
    primitive,
    toposort,
    trace,
    value_and_vjp,
    vspace,
    without_boxes_of,
)
from .core import make_jvp as _make_jvp
from .core import make_vjp as _make_vjp
from .core.batching import all_batch_safe, cotangent_batch
from .core.forward import TapeNode, has_jvps, tape_jvp, tape_order
from .core.wrapping import wraps
from .jit import jit as _jit
from .vmap import batched_rows

__all__ = [
    "checkpoint",
    "deriv",
    "elementwise_grad",
    "grad",
    "grad_and_aux",
    "grad_named",
    "hessian",
    "hessian_tensor_product",
    "hessian_vector_product",
    "holomorphic_grad",
    "hvp",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "linearize",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_jvp_reversemode",
    "make_vjp",
    "multigrad_dict",
    "tensor_jacobian_product",
    "value_and_grad",
    "vector_jacobian_product",
    "vjp",
]


def _name(fun):
    return getattr(fun, "__name__", type(fun).__name__)


def _describe(x):
    """``x`` in words for an error message: its type, and its dtype or value (a traced value as its raw value)."""
    x = getval(x)
    if isinstance(x, (tuple, list, dict)):
        return f"{type(x).__name__} of {len(x)} item{'' if len(x) == 1 else 's'}"
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return f"{type(x).__name__} {x!r}"
    shape = tuple(getattr(x, "shape", ()))
    if type(x).__name__ == str(dtype):
        return f"{dtype} scalar"
    return f"{type(x).__name__} of dtype {dtype} and shape {shape}"


def _with_article(words):
    return f"{'an' if words[0] in 'aeiou' else 'a'} {words}"


def _differentiable(op, fun_name, argnum, x):
    """``x``, a value to differentiate, or the integer array ``x`` as floats (:func:`_integer_array_as_float`).

    Raises
    ------
    TypeError
        Naming ``op``, the argument ``argnum`` and ``fun_name``, for a value that is no point of a vector
        space, or is of no floating-point or complex dtype (a boolean array, a Python or NumPy integer scalar).
    """
    where = f"{op}: argument {argnum} of {fun_name}"
    try:
        vs = vspace(x)
    except TypeError:
        raise TypeError(
            f"{where} is a {_describe(x)}, which cannot be differentiated; pass a float or complex array or scalar"
        ) from None
    if vs.differentiable:
        return x
    as_float = _integer_array_as_float(x)
    if as_float is x:
        raise TypeError(
            f"{where} is a {_describe(x)}; only floating-point or complex values can be differentiated "
            "(write 3.0 rather than 3, or convert with x.astype(float))"
        )
    return as_float


def _integer_array_as_float(x):
    """``x``, or the integer array ``x`` converted to its library's default floating dtype (float64 for
    NumPy): autograd differentiates integer arrays (``elementwise_grad(f)(np.arange(3))``), and the
    derivative is then in that dtype. Python and NumPy integer scalars (write ``3.0``), which autograd
    refuses, and boolean arrays (masks, not points of a space) are left as they are."""
    backend = array_backend(x)
    if backend is None or not backend.isdtype(x.dtype, "integral"):
        return x
    return backend.astype(x, backend.default_float(backend.device(x)))


def unary_to_nary(unary_operator):
    """Make ``unary_operator(fun, x, ...)`` into ``operator(fun, argnum=0, ..., jit=False)(*args, **kwargs)``;
    ``jit=True`` records the operator's function once per signature and replays it (``adcore.jit``).

    ``unary_operator`` is called with a one-argument function that carries ``op`` (the
    operator's name) and ``__name__`` (the user's function's): its error messages name both.
    """

    @wraps(unary_operator)
    def nary_operator(fun, argnum=0, *nary_op_args, jit=False, **nary_op_kwargs):
        nary_f = _nary(unary_operator, unary_operator.__name__, _name(fun), fun, argnum, nary_op_args, nary_op_kwargs)
        return _jit(nary_f) if jit else nary_f

    return nary_operator


def _as_step_of(op, fun_name, operator, fun, argnum=0, *nary_op_args, **nary_op_kwargs):
    """``operator(fun, argnum, ...)`` (an operator made by ``unary_to_nary``) as a step of the operator
    ``op`` that the user called on the function ``fun_name``: its errors name ``op`` and ``fun_name``,
    not ``operator`` and the intermediate ``fun`` (``hessian`` is ``jacfwd`` of ``grad``)."""
    return _nary(operator.__wrapped__, op, fun_name, fun, argnum, nary_op_args, nary_op_kwargs)


def _check_callable(op, fun):
    if not callable(fun):
        raise TypeError(f"{op}: fun must be callable, got {_describe(fun)}")


def _nary(unary_operator, op, fun_name, fun, argnum, nary_op_args, nary_op_kwargs, trailing=0):
    """``unary_operator`` made n-ary in ``argnum``, reporting errors as ``op`` of ``fun_name``. The last
    ``trailing`` positional arguments of a call are the operator's own (``hvp``'s vector), passed to
    ``unary_operator`` after ``x`` and before ``nary_op_args``."""
    _check_callable(op, fun)
    if not (isinstance(argnum, int) or (isinstance(argnum, (tuple, list)) and all(isinstance(i, int) for i in argnum))):
        raise TypeError(f"{op}: argnum must be an int or a tuple of ints, got {argnum!r}")
    argnums = (argnum,) if isinstance(argnum, int) else tuple(argnum)
    if len(set(argnums)) != len(argnums):
        raise TypeError(f"{op}: argnum {argnum!r} names an argument twice")

    @wraps(fun)
    def nary_f(*args, **kwargs):
        args = list(args)
        operator_args = nary_op_args
        if trailing:
            operator_args = (*args[len(args) - trailing :], *nary_op_args)
            del args[len(args) - trailing :]
        for i in argnums:
            if not -len(args) <= i < len(args):
                raise TypeError(
                    f"{op}: argnum {i} is out of range; {nary_f.__name__} was called with {len(args)} positional argument(s)"
                )
            args[i] = _differentiable(op, fun_name, i, args[i])

        def unary_f(x):
            subargs = list(args)
            for i, xi in zip(argnums, (x,) if isinstance(argnum, int) else x):
                subargs[i] = xi
            return fun(*subargs, **kwargs)

        unary_f.__name__ = fun_name
        unary_f.op = op

        x = args[argnum] if isinstance(argnum, int) else tuple(args[i] for i in argnum)
        first = next_trace_id()
        with recording_paused():
            result = unary_operator(unary_f, x, *operator_args, **nary_op_kwargs)
        if autograd_alias_installed():
            # autograd returns a box of a trace started in the call where rules computed with the traced values
            # (PennyLane's VJPs execute circuits holding them): of the operator's own trace, and at second order
            # (jacobian of grad) of the inner operator's over it. Its value is the derivative; the boxes of the
            # traces still running are under those and kept (a box of an ended trace inside one of theirs raises).
            result = without_boxes_of(result, first, next_trace_id())
        check_no_ended_box(result, ((first, next_trace_id()),), f"{op}: the result for {fun_name}")
        return result

    nary_f.__name__ = f"{op}_of_{fun_name}" + ("" if argnum == 0 else f"_wrt_argnum_{argnum}")
    nary_f.__qualname__ = nary_f.__name__
    nary_f.__doc__ = (
        f"{op} of function {fun_name} with respect to argument number {argnum}. "
        f"Takes the same arguments as {fun_name} but returns the {op}."
    )
    return nary_f


def _leaf_spaces(vs):
    """The spaces of the arrays of a value of space ``vs`` (a container's, at any depth, in order)."""
    if not isinstance(vs, ContainerVSpace):
        return [vs]
    return [leaf for item_vs in vs.spaces for leaf in _leaf_spaces(item_vs)]


def _leaves(vs, value):
    """The arrays of ``value`` (of space ``vs``), in the order of ``_leaf_spaces(vs)``."""
    if not isinstance(vs, ContainerVSpace):
        return [value]
    items = vs.items(value)
    positions = range(len(vs.spaces)) if vs.keys is None else vs.keys
    return [leaf for i, item_vs in zip(positions, vs.spaces) for leaf in _leaves(item_vs, items[i])]


def _with_leaves(vs, leaves):
    """A value of the structure of ``vs`` (a container's, or an array) holding ``leaves`` in order."""
    leaves = iter(leaves)

    def build(vs):
        if not isinstance(vs, ContainerVSpace):
            return next(leaves)
        items = [build(item_vs) for item_vs in vs.spaces]
        return vs.rebuild(items if vs.keys is None else dict(zip(vs.keys, items)))

    return build(vs)


#: What an operator needs its function to return (``_output_space``): any differentiable value
#: (an array, a scalar, or a tuple, list or dict of them, at any depth), an array, a real array,
#: a scalar (real or complex), a real scalar.
ANY, ARRAY, REAL_ARRAY, SCALAR, REAL_SCALAR = "any", "array", "real array", "scalar", "real scalar"


def _output_space(op, name, ans, needs, returned="returned"):
    """The vector space of ``ans``, which the function ``name`` returned to the operator ``op``, checked
    against what that operator ``needs`` (``ANY``, ``ARRAY``, ``REAL_ARRAY``, ``SCALAR``, ``REAL_SCALAR``).

    Raises
    ------
    TypeError
        Naming the operator, the function and what it returned: a value with no vector space
        (None, a string, a container holding one), a container where an array or a scalar is
        needed (the one place that refuses them, so no operator reads a container of one item
        as a scalar), or an array that is not a (real) scalar where one is needed.
    """
    try:
        vs = vspace(ans)
    except TypeError:
        expected = "an array, a scalar, or a tuple, list or dict of them" if needs == ANY else "an array or a scalar"
        held = _first_leaf_without_space(ans)
        holding = f" holding a {type(held).__name__}" if held is not ans else ""
        raise TypeError(
            f"{op}: {name} must return {expected}, but it {returned} a {type(getval(ans)).__name__}{holding}"
        ) from None
    if hasattr(vs, "shape") and not vs.differentiable and str(vs.dtype) == "object":
        raise TypeError(
            f"{op}: function {name} {returned} {_with_article(_describe(ans))}, NumPy's array of traced values "
            "(numpy.array((x[0], x[1]))): its derivative would be lost; make it with adcore.numpy.array "
            "(autograd.numpy.array), or reduce it to a traced value (np.sum(a), a[i]) before returning it"
        )
    if needs == ANY:
        return vs
    if not hasattr(vs, "shape"):
        raise TypeError(_container_output_message(op, name, ans, needs, returned))
    if needs in (SCALAR, REAL_SCALAR) and (vs.size != 1 or (needs == REAL_SCALAR and vs.iscomplex) or not vs.differentiable):
        only = "real scalar-output" if needs == REAL_SCALAR else "scalar-output"
        raise TypeError(
            f"{op}: function {name} {returned} {_with_article(_describe(ans))}; {op} only applies to {only} functions. "
            "Try jacobian, elementwise_grad or holomorphic_grad."
        )
    if needs == REAL_ARRAY and vs.iscomplex:
        raise TypeError(
            f"{op}: function {name} {returned} {_with_article(_describe(ans))}; {op} only applies to real-output functions; "
            "try holomorphic_grad."
        )
    return vs


def _container_output_message(op, name, ans, needs, returned):
    value = getval(ans)
    trailing_comma = " Did you leave a trailing comma?" if isinstance(value, tuple) and len(value) == 1 else ""
    if needs in (SCALAR, REAL_SCALAR):
        return (
            f"{op}: function {name} {returned} {_with_article(_describe(value))}; {op} needs a {needs} output.{trailing_comma} "
            "Return the scalar itself (an item of the container, or the sum of its items), or use make_vjp for a "
            "function that returns a container."
        )
    return (
        f"{op}: function {name} {returned} {_with_article(_describe(value))}; {op} needs an array output.{trailing_comma} "
        f"Return one array (stack the items, or take {op} of each), or use make_vjp or make_jvp for a function that returns "
        "a container."
    )


def _first_leaf_without_space(value):
    """The first item of the (nested) container ``value`` that has no vector space (``value`` itself if none)."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else ()
    for item in items:
        try:
            vspace(item)
        except TypeError:
            return _first_leaf_without_space(item)
    return value


def _space_name(vs):
    """A value's space in words for an error message: shape, dtype, backend and device, or the container."""
    if not hasattr(vs, "shape"):
        items = ", ".join(map(_space_name, vs.spaces))
        return f"a {vs.container_type.__name__} of ({items})"
    return f"shape {tuple(vs.shape)} and dtype {vs.dtype} ({vs.backend.name}, device {vs.device})"


def _in_space(where, what, expected_vs, given):
    """``given`` (a cotangent or tangent) as a value of ``expected_vs``, or an error saying how it differs.

    Shapes and container structures must match exactly (a plain tuple is taken for a named
    one). The dtype must be floating-point, and real for a real space (an integer or boolean
    value would be cast, the imaginary part of a complex one dropped, silently); a real value
    for a complex space is exact, and any precision is taken (the derivative then has its
    input's dtype, as in autograd). Arrays must be of the space's backend and device. A Python
    scalar is weakly typed: it is taken for a 0-d space of any such dtype and converted to it
    (``vjp(1.0)``). Errors follow JAX's ``vjp``: ``ValueError`` for a shape or structure,
    ``TypeError`` for a type or dtype.
    """
    try:
        given_vs = vspace(given)
    except TypeError:
        raise TypeError(f"{where}: the {what} is a {type(given).__name__}; expected {_space_name(expected_vs)}") from None
    if given_vs == expected_vs and not isinstance(given, (int, float, complex)):
        return given  # the common case: the very space (its shape, dtype, backend and device), nothing to check or convert
    _check_same_space(where, what, expected_vs, given_vs, strict=not isinstance(given, (int, float, complex)))
    if isinstance(given, (int, float, complex)) and hasattr(expected_vs, "shape"):
        return expected_vs.scalar_mul(expected_vs.ones(), given)
    return given


def _structure(vs):
    """A container space's structure: its kind (any tuple, a named tuple too, is a tuple: ``eigh``'s
    cotangent may be a plain pair), its keys and its length."""
    kind = tuple if issubclass(vs.container_type, tuple) else vs.container_type
    return kind, vs.keys, len(vs.spaces)


def _check_same_space(where, what, expected, given, strict):
    """``strict``: also the backend and device (not for Python scalars, which have neither, nor
    items of containers, where a mixed backend is reported by the first operation that meets it)."""

    def differs():  # formatted only when raised: the check runs on every vjp and jvp call
        return f"{where}: the {what} has {_space_name(given)}; expected {_space_name(expected)}"

    if hasattr(expected, "shape") != hasattr(given, "shape"):
        raise TypeError(differs())
    if not hasattr(expected, "shape"):
        if _structure(expected) != _structure(given):
            raise ValueError(differs())
        for expected_item, given_item in zip(expected.spaces, given.spaces):
            _check_same_space(where, what, expected_item, given_item, strict=False)
        return
    if tuple(given.shape) != tuple(expected.shape):
        raise ValueError(differs())
    if expected.differentiable and not (given.differentiable and (expected.iscomplex or not given.iscomplex)):
        raise TypeError(differs())
    if strict and expected.device is not None and (given.backend is not expected.backend or given.device != expected.device):
        raise ValueError(differs())


def _with_checked_output(fun, needs, returned="returned"):
    """``fun`` checking what it returns against what the operator ``fun.op`` needs (``_output_space``)
    as soon as it returns, inside the trace (before ``make_vjp`` or ``make_jvp`` join a returned
    container); the output's space of the last call is kept as ``.space``."""

    def checked(x):
        ans = fun(x)
        checked.space = _output_space(fun.op, fun.__name__, ans, needs, returned)
        return ans

    checked.__name__ = fun.__name__  # cheaper than functools.wraps (hvp on small inputs)
    return checked


@unary_to_nary
def make_vjp(fun, x):
    """``(vjp, ans)``: ``ans = fun(x)`` and ``vjp(g)``, the cotangent of ``x`` for an output cotangent ``g``.

    ``g`` has the shape and dtype of ``ans``; ``vjp(g)`` those of ``x``.

    ``fun`` may return a (nested) tuple, list or dict of arrays; ``ans`` is then
    that container (of arrays, never of traced values) and ``g`` a container of
    the same structure.

    Raises
    ------
    TypeError
        If ``fun`` returns no array, scalar or container of them. From ``vjp(g)``:
        if ``g`` is not an array or scalar, or its dtype is not floating-point, or
        complex for a real ``ans`` (any precision is taken; a Python scalar too).
    ValueError
        From ``vjp(g)``, if ``g`` has another shape (or container structure),
        backend or device than ``ans``.

    >>> vjp, ans = make_vjp(lambda x: x * x)(3.0)
    >>> float(ans), float(vjp(1.0))
    (9.0, 6.0)
    """
    made_from = next_trace_id()
    checked = _with_checked_output(fun, ANY)
    unchecked_vjp, ans = _make_vjp(checked, x)
    ans_vs = checked.space
    where = f"{fun.op}: vjp of {fun.__name__}"
    return _derivative_function(where, made_from, lambda g: unchecked_vjp(_in_space(where, "cotangent g", ans_vs, g))), ans


@unary_to_nary
def make_jvp(fun, x):
    """``jvp(v) -> (ans, tangent)``: ``fun(x)`` and its derivative along ``v`` (forward mode).

    ``v`` has the shape and dtype of ``x``; the tangent those of ``fun(x)``: for a
    returned (nested) tuple, list or dict of arrays, a container of the same structure.

    Raises
    ------
    TypeError, ValueError
        From ``jvp(v)``: if ``fun`` returns no array, scalar or container of them, or ``v`` is
        not in the space of ``x`` (as for ``make_vjp``'s cotangent).

    >>> ans, tangent = make_jvp(lambda x: x * x)(3.0)(1.0)
    >>> float(tangent)
    6.0
    """
    made_from = next_trace_id()
    jvp = _make_jvp(_with_checked_output(fun, ANY), x)
    return _taking_tangents_of(fun, x, lambda v: _with_writable_tangent(*jvp(v)), made_from)


def _with_writable_tangent(ans, tangent):
    """``(ans, tangent)`` with the tangent's arrays writable entry by entry (``VSpace.writable``: a copy of a
    broadcast view, which a linear function's tangent can be)."""
    return ans, vspace(tangent).writable(tangent)


def _taking_tangents_of(fun, x, unchecked_jvp, made_from):
    """``unchecked_jvp`` of ``fun`` at ``x``, given only tangents in the space of ``x`` (``_in_space``), made
    by the traces from ``made_from`` on (:func:`_derivative_function`)."""
    x_vs = vspace(x)
    where = f"{fun.op}: jvp of {fun.__name__}"
    return _derivative_function(where, made_from, lambda v: unchecked_jvp(_in_space(where, "tangent v", x_vs, v)))


def _derivative_function(where, made_from, derivative):
    """``derivative`` (a vjp, jvp or hvp that an operator returns, made by the traces started from the id
    ``made_from`` until now) called with recording paused, its result checked to hold no box of those
    traces nor of traces started and ended during the call (``UnexpectedBoxError``: a rule closed
    over a traced value). Boxes of other traces (one running around the call) are legal."""
    made = (made_from, next_trace_id())

    def checked(v):
        first = next_trace_id()
        with recording_paused():
            result = derivative(v)
        check_no_ended_box(result, (made, (first, next_trace_id())), f"{where}: the derivative")
        return result

    return checked


@unary_to_nary
def make_jvp_reversemode(fun, x):
    """``jvp(v)``: the derivative of ``fun`` at ``x`` along ``v``, as the VJP of the VJP (which is
    linear in the cotangent, so its own VJP is the JVP): forward mode for functions whose primitives
    have VJP rules only (autograd's ``make_jvp_reversemode``; J. Townsend, "A new trick for
    calculating Jacobian vector products", 2017). Returns the tangent only, as autograd's does; for a
    returned (nested) tuple, list or dict of arrays, a container of the same structure.

    Raises
    ------
    TypeError, ValueError
        As ``make_jvp``.

    >>> float(make_jvp_reversemode(lambda x: x ** 3)(2.0)(1.0))
    12.0
    """
    made_from = next_trace_id()
    checked = _with_checked_output(fun, ANY)
    vjp, _ = _make_vjp(checked, x)
    reverse_jvp, _ = _make_vjp(vjp, checked.space.zeros())
    return _taking_tangents_of(fun, x, reverse_jvp, made_from)


@unary_to_nary
def grad(fun, x):
    """The gradient of a real scalar-valued ``fun`` with respect to argument ``argnum``.

    The gradient has the shape and dtype of the argument (float32 stays float32).
    Computed in reverse mode: one trace and one backward pass.

    Raises
    ------
    TypeError
        If ``fun`` returns a non-scalar or complex value (use ``jacobian`` or
        ``elementwise_grad``) or a container (a tuple, list or dict, even of one
        scalar: a trailing comma), or an integer or boolean one (``np.allclose(...)``,
        whose derivative is undefined), or the argument is not a float or complex value.

    >>> float(grad(lambda x: x * x)(3.0))
    6.0
    """
    return _pullback_of_ones(fun, _with_checked_output(fun, REAL_SCALAR), x)[1]


def _pullback_of_ones(fun, checked, x, traced=None):
    """``(ans, cotangent of x)`` for ``ans = traced(x)`` (default ``checked``: ``fun`` with its output
    checked, whose space ``ans`` has) and the cotangent of ones: one trace and one backward pass
    (``value_and_vjp``: constants copied up to a budget, beyond it checked at the end)."""
    return value_and_vjp(traced or checked, x, lambda ans: Ones(checked.space), fun.op)


@unary_to_nary
def value_and_grad(fun, x):
    """``(fun(x), grad(fun)(x))`` from one trace.

    Raises
    ------
    TypeError
        As ``grad``.

    >>> value, gradient = value_and_grad(lambda x: x * x)(3.0)
    >>> float(value), float(gradient)
    (9.0, 6.0)
    """
    return _pullback_of_ones(fun, _with_checked_output(fun, REAL_SCALAR), x)


@unary_to_nary
def grad_and_aux(fun, x):
    """For ``fun`` returning ``(value, aux)``: ``(grad of value, aux)``; ``aux`` is not differentiated.

    Raises
    ------
    TypeError
        If ``fun`` does not return a pair, or ``value`` is not a real scalar (as for ``grad``).

    >>> g, aux = grad_and_aux(lambda x: (x * x, "note"))(3.0)
    >>> float(g), aux
    (6.0, 'note')
    """
    aux = []

    def value_only(x):
        out = fun(x)
        try:
            value, aux_value = out
        except (TypeError, ValueError):
            returned = _with_article(_describe(out))
            message = f"{fun.op}: function {fun.__name__} must return a pair (value, aux), but it returned {returned}"
            raise TypeError(message) from None
        aux.append(_untraced(aux_value, x._trace_id))
        return value

    value_only.__name__, value_only.op = fun.__name__, fun.op
    checked = _with_checked_output(value_only, REAL_SCALAR, "returned as its value (the first of (value, aux))")
    return _pullback_of_ones(fun, checked, x)[1], aux[0]


def _untraced(value, trace_id):
    """``value`` with the boxes of trace ``trace_id`` replaced by their values (outer traces kept)."""
    if isinstance(value, (list, tuple)):
        return build_container(type(value), [_untraced(item, trace_id) for item in value])
    if isinstance(value, dict):
        return {key: _untraced(item, trace_id) for key, item in value.items()}
    return value._value if isbox(value) and value._trace_id == trace_id else value


@unary_to_nary
def elementwise_grad(fun, x):
    """The sum of the Jacobian's rows: for elementwise ``fun``, the derivative of each output entry
    with respect to its input entry. One backward pass, seeded with ones.

    Raises
    ------
    TypeError
        If ``fun`` returns a complex value (use ``holomorphic_grad``) or a container.

    >>> elementwise_grad(lambda x: x * x)(anp.array([1.0, 2.0]))
    array([2., 4.])
    """
    return _pullback_of_ones(fun, _with_checked_output(fun, REAL_ARRAY), x)[1]


@unary_to_nary
def jacrev(fun, x):
    """The Jacobian of ``fun`` at ``x``, of shape ``fun(x).shape + x.shape``, in reverse mode.

    One trace, then the rows (the cotangents of ``x`` for each basis cotangent of the output):
    when every primitive recorded has a batch-safe VJP (``adcore.core.batching``, the op table:
    elementwise functions, sums, ``matmul``, ``tensordot``, reshapes...), all rows come from
    one backward pass of the identity, shaped ``(fun(x).size,) + fun(x).shape``; otherwise
    from one backward pass per row. Both give the same values.

    For a complex output of a real input, the rows take two passes (cotangents ``e`` and
    ``-1j e`` give the real and imaginary parts).

    With respect to several arguments (a tuple ``argnum``), or an argument that is a tuple,
    list or dict of arrays, the Jacobian is a container of that structure whose arrays are
    the blocks, of shape ``fun(x).shape + x_i.shape`` (JAX's ``jacrev``); still one trace.

    >>> jacrev(lambda x: x * x)(anp.array([1.0, 2.0]))
    array([[2., 0.],
           [0., 4.]])
    >>> tuple(block.shape for block in jacrev(lambda x, y: x * y[0], (0, 1))(anp.ones(2), anp.ones(3)))
    ((2, 2), (2, 3))
    """
    ans, end_node = trace(VJPNode.new_root(), fun, x)  # end_node None: the output does not depend on x
    return _jacobian_rows(end_node, *_jacobian_spaces(fun, ans, x))


def _batch_safe(nodes):
    """Whether every primitive recorded in ``nodes`` (a graph's) has a batch-safe VJP."""
    return all_batch_safe(node.fun for node in nodes)


def _jacobian_spaces(fun, ans, x):
    """``(ans_vs, x_vs)``, checking that ``ans`` is an array."""
    return _output_space(fun.op, fun.__name__, ans, ARRAY), vspace(x)


def _jacobian_rows(end_node, ans_vs, x_vs):
    """The rows of the Jacobian from the graph ending at ``end_node`` (None: the output does not
    depend on ``x``); for a container ``x``, a container of blocks (see ``jacrev``)."""
    x_leaves = _leaf_spaces(x_vs)
    if ans_vs.size == 0:
        return _with_leaves(x_vs, [_empty_jacobian(ans_vs, vs) for vs in x_leaves])

    def vjp(g):
        return _leaves(x_vs, x_vs.zeros() if end_node is None else backward_pass(g, end_node))

    pullback = vjp
    if ans_vs.iscomplex and not x_vs.iscomplex:

        def pullback(e):
            return [anp.add(a, anp.multiply(1j, b)) for a, b in zip(vjp(e), vjp(anp.multiply(-1j, e)))]

    if ans_vs.size > 1 and end_node is not None and _batch_safe(toposort(end_node)):
        blocks = _batched_rows(pullback, ans_vs, x_leaves)
    else:
        blocks = [anp.stack(rows) for rows in zip(*(pullback(e) for e in ans_vs.standard_basis()))]
    return _with_leaves(x_vs, [anp.reshape(rows, ans_vs.shape + vs.shape) for rows, vs in zip(blocks, x_leaves)])


#: How many rows ``jacrev`` pushes through one backward pass, at most, is this number of entries
#: divided by the entries of a row of cotangents of the output and the input (it bounds the memory
#: of the batch; a Jacobian of 200 x 200 entries is one batch, of 10^4 x 10^4 about fifty).
BATCH_ENTRIES = 2**22


def _batched_rows(pullback, ans_vs, x_leaves):
    """The rows ``pullback(e)`` for the basis cotangents ``e`` of ``ans_vs``, stacked, one array
    per space of ``x_leaves``, computed a batch of rows per backward pass (``cotangent_batch``):
    the basis is the identity, in the output's backend, dtype and device."""
    n = ans_vs.size
    chunk = max(1, BATCH_ENTRIES // (n + sum(vs.size for vs in x_leaves)))
    blocks = [[] for _ in x_leaves]
    with cotangent_batch(1):
        for start in range(0, n, chunk):
            count = min(chunk, n - start)
            basis = ans_vs.backend.eye(count, n, k=start, dtype=ans_vs.dtype, device=ans_vs.device)
            for rows, block, vs in zip(blocks, pullback(anp.reshape(basis, (count,) + ans_vs.shape)), x_leaves):
                if anp.shape(block) != (count,) + vs.shape:  # a cotangent that is zero whatever the row
                    block = anp.broadcast_to(block, (count,) + vs.shape)
                rows.append(block)
    return [rows[0] if len(rows) == 1 else anp.concatenate(rows) for rows in blocks]


def _empty_jacobian(ans_vs, x_vs):
    """The Jacobian when the output or the input has no entries: an empty array of shape
    ``ans.shape + x.shape`` in the input's dtype (complex if either is), backend and device."""
    dtype = ans_vs.dtype if ans_vs.iscomplex and not x_vs.iscomplex else x_vs.dtype
    return x_vs.backend.zeros(ans_vs.shape + x_vs.shape, dtype=dtype, device=x_vs.device)


@unary_to_nary
def jacfwd(fun, x):
    """The Jacobian of ``fun`` at ``x``, of shape ``fun(x).shape + x.shape``, in forward mode:
    the columns, pushed as one batch of the input's basis tangents through one forward pass (two
    for a complex input, see ``jacobian``; ``adcore.vmap``'s batching rules, a primitive without
    one looped over inside the pass), cheaper than ``jacrev`` when ``x`` is small. With respect to several
    arguments or a container, a container of blocks, as ``jacrev``.

    >>> jacfwd(lambda x: x * x)(anp.array([1.0, 2.0]))
    array([[2., 0.],
           [0., 4.]])
    """
    jvp = _make_jvp(_with_checked_output(fun, ARRAY), x)
    x_vs = vspace(x)
    if any(vs.size == 0 for vs in _leaf_spaces(x_vs)):
        ans_vs = _jacobian_spaces(fun, jvp(x_vs.zeros())[0], x)[0]
    else:
        ans_vs = None  # not needed: every block has columns
    return _jacobian_columns(lambda v: jvp(v)[1], ans_vs, x_vs)


def _jacobian_columns(tangent_along, ans_vs, x_vs):
    """The Jacobian from its columns, ``tangent_along(v)`` (the output's tangent along ``v``) for each
    basis tangent ``v`` of ``x_vs``; for a container ``x``, a container of blocks (see ``jacrev``).
    ``ans_vs`` is needed only for a block of an empty input.

    The column of a complex entry is ``real(t(e)) - 1j real(t(1j e))``, ``t = tangent_along``: the
    derivative of the output's real part ``u`` in ``z = x + iy`` as ``du/dx - 1j du/dy``, the row that
    reverse mode pulls back from a real cotangent, and autograd's convention (its ``grad`` of a real
    function of ``z`` is ``df/dx - 1j df/dy``); for a holomorphic function it is ``f'(z)``."""
    x_leaves = _leaf_spaces(x_vs)
    zeros = _leaves(x_vs, x_vs.zeros())

    def column(k, vs, e):
        def along(v):
            return tangent_along(_with_leaves(x_vs, [v if j == k else z for j, z in enumerate(zeros)]))

        if not vs.iscomplex:
            return along(e)
        return anp.subtract(anp.real(along(e)), anp.multiply(1j, anp.real(along(anp.multiply(1j, e)))))

    blocks = []
    for k, vs in enumerate(x_leaves):
        if vs.size == 0:
            blocks.append(_empty_jacobian(ans_vs, vs))
            continue
        block = anp.moveaxis(batched_rows(lambda e, k=k, vs=vs: column(k, vs, e), vs.basis_rows()), 0, -1)
        blocks.append(anp.reshape(block, anp.shape(block)[:-1] + vs.shape))
    return _with_leaves(x_vs, blocks)


#: The costs that choose ``jacobian``'s mode (:func:`_forward_is_cheaper`), in nanoseconds, measured on
#: NumPy (benchmarks/jacobian_modes.py): a primitive's rule in a backward pass (``REVERSE_STEP``) or in a
#: batched forward pass through the recorded graph (``FORWARD_STEP``: its JVP and the batching rules of
#: the JVP's primitives, about twice a reverse step), and an entry of a value or tangent (``ENTRY``; a
#: batched pass has one per entry of a recorded value per row or column).
REVERSE_STEP, FORWARD_STEP, ENTRY = 6_000, 12_000, 1


@unary_to_nary
def jacobian(fun, x):
    """The Jacobian of ``fun`` at ``x``, of shape ``fun(x).shape + x.shape``, from one trace, by the
    cheaper mode: rows pulled back in reverse (as ``jacrev``), or columns pushed forward through the
    recorded graph (each primitive's JVP on the call it recorded, all columns as one batch; the function
    runs once). Forward is taken only where every primitive recorded has a JVP rule and the estimated
    cost is lower (:func:`_forward_is_cheaper`; a rule that still refuses sends it back to reverse), so
    ``jacobian`` works wherever ``jacrev`` does, and with primitives that have VJPs only (autograd's
    ``jacobian`` is always reverse). With respect to several arguments (a tuple ``argnum``) or a container, a
    container of blocks, as ``jacrev``.

    For a complex ``x``, each entry of the Jacobian is ``du/dx - 1j du/dy`` for ``u`` the real part of
    the output and ``z = x + iy`` (autograd's and ``grad``'s convention; ``f'(z)`` for a holomorphic
    ``f``); for a complex output of a real ``x``, the derivative of the output.

    >>> jacobian(lambda x: x * x)(anp.array([1.0, 2.0]))
    array([[2., 0.],
           [0., 4.]])
    """
    ans, end_node = trace(TapeNode.new_root(), fun, x)
    ans_vs, x_vs = _jacobian_spaces(fun, ans, x)
    if end_node is not None and ans_vs.size > 0 and x_vs.size > 0:
        nodes = tape_order(end_node)
        if has_jvps(nodes) and _forward_is_cheaper(nodes, ans_vs, x_vs):
            try:
                return _jacobian_columns(lambda v: tape_jvp(nodes, v), ans_vs, x_vs)
            except RuleNotDefined as error:
                if error.mode != "JVP":
                    raise
    return _jacobian_rows(end_node, ans_vs, x_vs)


def _forward_is_cheaper(nodes, ans_vs, x_vs):
    """Whether the columns of the Jacobian pushed forward through the recorded graph ``nodes`` (one
    batched pass per input leaf, two per complex one: each entry of each recorded value once per
    column) are estimated to cost less than its rows pulled back: one batched backward pass where
    every VJP is batch-safe (each entry of each recorded value once per row), else one backward pass
    per row (two per row of a complex output of a real input)."""
    steps = len(nodes)
    entries = sum(_entries(node.call[0]) for node in nodes if node.fun is not None)
    leaves = _leaf_spaces(x_vs)
    columns = sum(vs.size * (2 if vs.iscomplex else 1) for vs in leaves)
    rows = ans_vs.size * (2 if ans_vs.iscomplex and not x_vs.iscomplex else 1)
    passes = sum(2 if vs.iscomplex else 1 for vs in leaves)
    forward = passes * steps * FORWARD_STEP + columns * entries * ENTRY
    if rows > 1 and _batch_safe(nodes):
        reverse = steps * REVERSE_STEP + rows * entries * ENTRY
    else:
        reverse = rows * (steps * REVERSE_STEP + entries * ENTRY)
    return forward < reverse


def _entries(value):
    """The number of entries of a recorded value: its shape's product (1 for a scalar or a container;
    NaN for a shape a lazy library does not know yet, which makes no mode cheaper)."""
    shape = getattr(value, "shape", ())
    return math.prod(shape) if isinstance(shape, tuple) else 1


def hessian(fun, argnum=0):
    """The Hessian of scalar ``fun``, of shape ``x.shape + x.shape``.

    Reverse-over-reverse (``jacrev(grad(fun))``, autograd's mode): the gradient is traced
    once and the rows are its cotangents, all from one batched backward pass where every
    primitive allows (see ``jacrev``). The Hessian is square, so rows from one trace cost
    less than columns from a forward pass each; only where the gradient's rules use a
    primitive that has no VJP (``adcore.core.RuleNotDefined``) is it forward-over-reverse
    (``jacfwd(grad(fun))``, one forward pass through the gradient per input entry, which
    needs only JVPs there). A library that defines its primitives with ``defvjp`` alone gets
    reverse-over-reverse, which needs no JVP.

    With respect to several arguments (a tuple ``argnum``), or an argument that is a tuple,
    list or dict of arrays, the Hessian is nested as JAX's ``hessian``: for a tuple ``argnum``
    the tuple of rows ``((H00, H01, ...), (H10, H11, ...), ...)``, ``Hij`` the block of the
    second derivatives in ``x_i`` then ``x_j``, of shape ``x_i.shape + x_j.shape`` (``Hij`` is
    the transpose of ``Hji``). Row ``i`` is the Jacobian of item ``i`` of the gradient: one
    trace of the gradient per argument.

    Raises
    ------
    TypeError
        As ``grad``, naming ``hessian``.

    >>> hessian(lambda x: x ** 3)(2.0)
    array(12.)
    >>> h = hessian(lambda x, y: x ** 2 * y, (0, 1))(2.0, 3.0)
    >>> [[float(block) for block in row] for row in h]
    [[6.0, 4.0], [4.0, 0.0]]
    """
    name = _name(fun)
    gradient = _as_step_of("hessian", name, grad, fun, argnum)

    def jacobian_of(derivative):
        reverse, forward = (_as_step_of("hessian", name, jacobian, derivative, argnum) for jacobian in (jacrev, jacfwd))

        def jacobian_of_derivative(*args, **kwargs):
            try:
                return reverse(*args, **kwargs)
            except RuleNotDefined as error:
                if error.mode != "VJP":
                    raise
                return forward(*args, **kwargs)

        return jacobian_of_derivative

    def item_of_gradient(i):
        def item(*args, **kwargs):
            g = gradient(*args, **kwargs)
            return _leaves(vspace(g), g)[i]

        return item

    def hessian_of(*args, **kwargs):
        x_vs = _container_space_of_arguments(args, argnum)
        if x_vs is None:
            return jacobian_of(gradient)(*args, **kwargs)
        rows = [jacobian_of(item_of_gradient(i))(*args, **kwargs) for i in range(len(_leaf_spaces(x_vs)))]
        return _with_leaves(x_vs, rows)

    hessian_of.__name__ = hessian_of.__qualname__ = f"hessian_of_{name}"
    return hessian_of


def _container_space_of_arguments(args, argnum):
    """The space of what ``argnum`` picks from ``args`` where that is a container (a tuple ``argnum``,
    or an argument that is a tuple, list or dict); None otherwise, or where ``argnum`` is not a
    valid pick (the operator then reports it)."""
    argnums = (argnum,) if isinstance(argnum, int) else argnum
    if not isinstance(argnums, (tuple, list)) or not all(isinstance(i, int) and -len(args) <= i < len(args) for i in argnums):
        return None
    x = args[argnum] if isinstance(argnum, int) else tuple(args[i] for i in argnums)
    return vspace(x) if isinstance(x, (tuple, list, dict)) else None


def hvp(fun, argnum=0, jit=False):
    """``hvp(fun)(*args, v)``: the Hessian of scalar ``fun`` times ``v`` (``v`` shaped like the
    argument), reverse-over-forward: the gradient of the directional derivative ``<grad fun(x), v>``,
    computed by one forward-mode trace along ``v`` and one backward pass. Unlike forward-over-reverse
    (a JVP of ``grad(fun)``), it computes no value it throws away (that one computes the gradient
    itself beside its derivative). Where a primitive of ``fun`` has no JVP it is reverse-over-reverse,
    the gradient of ``<grad fun(x), v>`` (autograd's ``hessian_vector_product``). With ``jit=True``,
    recorded once per signature and replayed (``adcore.jit``).

    Raises
    ------
    TypeError
        As ``grad``, naming ``hvp``.

    >>> float(hvp(lambda x: x ** 3)(2.0, 1.0))
    12.0
    """
    hessian_times = _nary(_hessian_times_vector, "hvp", _name(fun), fun, argnum, (), {}, trailing=1)
    return _jit(hessian_times) if jit else hessian_times


def _hessian_times_vector(fun, x, v):
    """The Hessian of the real scalar ``fun`` at ``x`` times ``v`` (see ``hvp``)."""
    x_vs = vspace(x)
    v = _in_space(f"{fun.op}: the vector v of {fun.__name__}", "vector v", x_vs, v)
    checked = _with_checked_output(fun, REAL_SCALAR)
    try:
        return _pullback_of_ones(fun, checked, x, lambda x: _make_jvp(checked, x)(v)[1])[1]
    except RuleNotDefined as error:
        if error.mode != "JVP":
            raise
    return _pullback_of_ones(fun, checked, x, lambda x: x_vs.inner_prod(_pullback_of_ones(fun, checked, x)[1], v))[1]


hessian_tensor_product = hessian_vector_product = hvp


@unary_to_nary
def make_hvp(fun, x):
    """``(hvp, gradient)`` at ``x``: ``hvp(v)`` is the Hessian of ``fun`` times ``v``, reusing one
    trace of the gradient for every ``v`` (reverse-over-reverse, autograd's ``make_hvp``)."""
    made_from = next_trace_id()
    vjp_of_gradient, gradient = _make_vjp(_as_step_of(fun.op, fun.__name__, grad, fun), x)
    return _derivative_function(f"{fun.op}: hvp of {fun.__name__}", made_from, vjp_of_gradient), gradient


def tensor_jacobian_product(fun, argnum=0):
    """``tensor_jacobian_product(fun)(*args, v)``: ``v`` contracted with the leading ``v.ndim`` axes
    of the Jacobian of ``fun`` (autograd's semantics; for ``v`` shaped like the output, one VJP).

    Raises
    ------
    TypeError
        If ``fun`` returns no array (a container, for instance).

    >>> float(tensor_jacobian_product(lambda x: x ** 3)(2.0, 1.0))
    12.0
    """
    op, name = "tensor_jacobian_product", _name(fun)
    _check_callable(op, fun)

    def vector_dot_fun(*args, **kwargs):
        *args, vector = args
        ans = fun(*args, **kwargs)
        _output_space(op, name, ans, ARRAY)
        return anp.tensordot(vector, ans, axes=anp.ndim(vector))

    return _as_step_of(op, name, jacobian, vector_dot_fun, argnum)


vector_jacobian_product = tensor_jacobian_product


def make_ggnvp(f, g=lambda x: 0.5 * anp.sum(x**2, axis=-1), f_argnum=0):
    """Generalised Gauss-Newton vector products of ``g(f(x))``: ``J_f^T H_g J_f v`` (autograd's
    ``make_ggnvp``); ``make_ggnvp(f, g)(x)`` returns ``ggnvp(v)``."""
    grad_g = _as_step_of("make_ggnvp", _name(g), grad, g)
    return _nary(_ggnvp, "make_ggnvp", _name(f), f, f_argnum, (grad_g,), {})


def _ggnvp(f, x, grad_g):
    made_from = next_trace_id()
    f_vjp, f_x = _make_vjp(_with_checked_output(f, ANY), x)
    g_hvp, grad_g_x = _make_vjp(grad_g, f_x)
    f_jvp, _ = _make_vjp(f_vjp, vspace(grad_g_x).zeros())
    return _derivative_function(f"{f.op}: ggnvp of {f.__name__}", made_from, lambda v: f_vjp(g_hvp(f_jvp(v))))


@unary_to_nary
def holomorphic_grad(fun, x):
    """The complex derivative ``f'(z)`` of a holomorphic scalar ``fun``, in reverse mode.

    A real ``x`` is taken as the complex number ``x + 0j`` (``complex64`` for ``float32``,
    else ``complex128``; JAX's ``grad(holomorphic=True)`` refuses real inputs, autograd
    returns only the real part of ``f'``): the result is complex whatever the input, so
    a function with complex constants (``z * exp(1j * z)``) gets its whole derivative. As
    autograd, it warns "Input to holomorphic_grad is not complex" (a ``UserWarning``) then.

    Raises
    ------
    TypeError
        If ``fun`` returns a non-scalar or a container.

    >>> complex(holomorphic_grad(lambda z: z * z)(1.0 + 2.0j))
    (2+4j)
    >>> complex(holomorphic_grad(lambda z: z * anp.exp(1j * z))(0.0))
    (1+0j)
    """
    if not vspace(x).iscomplex:
        warnings.warn("Input to holomorphic_grad is not complex", stacklevel=3)
    return _pullback_of_ones(fun, _with_checked_output(fun, SCALAR), _as_complex(x))[1]


def _as_complex(x):
    """``x`` (a scalar, an array or a container of them) with real floating-point values made complex: a float32
    array complex64, others complex128 (as ``adcore.numpy.fft``'s transforms make their input complex)."""
    if isinstance(x, dict):
        return build_container(type(x), [(key, _as_complex(item)) for key, item in x.items()])
    if isinstance(x, (tuple, list)):
        return build_container(type(x), [_as_complex(item) for item in x])
    if isinstance(x, (int, float)):
        return complex(x)
    x = anp.asarray(x)
    if anp.iscomplexobj(x):
        return x
    value = getval(x)
    return anp.astype(x, "complex64" if value.dtype == backend_of(value).dtype("float32") else "complex128")


def grad_named(fun, argname):
    """``grad`` with respect to the argument called ``argname``.

    Raises
    ------
    TypeError
        If ``fun`` is not callable or has no argument ``argname``; otherwise as ``grad``.
    """
    import inspect

    _check_callable("grad_named", fun)
    names = list(inspect.signature(fun).parameters)
    if argname not in names:
        raise TypeError(f"grad_named: {_name(fun)} has no argument {argname!r}; its arguments are {', '.join(names)}")
    return _as_step_of("grad_named", _name(fun), grad, fun, names.index(argname))


def multigrad_dict(fun):
    """The gradient with respect to every argument at once, as ``{argument name: gradient}``
    (autograd's ``multigrad_dict``, without its extra dependency)."""
    import inspect

    _check_callable("multigrad_dict", fun)
    signature = inspect.signature(fun)

    def gradfun(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        names = list(bound.arguments)

        def of_dict(values):
            call = signature.bind_partial()
            call.arguments.update({name: values[name] for name in names})
            return fun(*call.args, **call.kwargs)

        values = {name: _differentiable("multigrad_dict", _name(fun), name, value) for name, value in bound.arguments.items()}
        gradients = _as_step_of("multigrad_dict", _name(fun), grad, of_dict)(values)
        return {name: gradients[name] for name in names}

    return gradfun


def vjp(fun, *primals):
    """JAX's functional form: ``(fun(*primals), vjp_fn)``; ``vjp_fn(g)`` is the tuple of cotangents
    of ``primals``."""
    argnums = tuple(range(len(primals)))
    pullback, ans = _as_step_of("vjp", _name(fun), make_vjp, fun, argnums)(*primals)
    return ans, pullback


def jvp(fun, primals, tangents):
    """JAX's functional form: ``(fun(*primals), tangent of the output)`` along ``tangents``."""
    argnums = tuple(range(len(primals)))
    return _as_step_of("jvp", _name(fun), make_jvp, fun, argnums)(*primals)(tuple(tangents))


def linearize(fun, *primals):
    """``(fun(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the output tangent along ``tangents``,
    reusable for many tangents (each call is one forward pass)."""
    argnums = tuple(range(len(primals)))
    primals = tuple(_integer_array_as_float(p) for p in primals)  # their tangents are floating
    pushforward = _as_step_of("linearize", _name(fun), make_jvp, fun, argnums)(*primals)
    ans, _ = pushforward(tuple(vspace(p).zeros() for p in primals))
    return ans, lambda *tangents: pushforward(tuple(tangents))[1]


@unary_to_nary
def deriv(fun, x):
    """The derivative of ``fun`` along a tangent of ones (forward mode); for scalar ``x`` the derivative.
    A complex entry's one is ``1 + 1j`` (autograd's ``deriv``: the ones of its complex vector space).

    >>> float(deriv(lambda x: x ** 3)(2.0))
    12.0
    """
    x_vs = vspace(x)
    leaf_ones = zip(_leaf_spaces(x_vs), _leaves(x_vs, x_vs.ones()))
    ones = [anp.add(one, anp.multiply(1j, one)) if vs.iscomplex else one for vs, one in leaf_ones]
    return _with_writable_tangent(*_make_jvp(_with_checked_output(fun, ANY), x)(_with_leaves(x_vs, ones)))[1]


def checkpoint(fun):
    """``fun`` as one primitive whose intermediate values are not kept: the backward pass
    (and forward mode) recomputes them, trading time for memory.

    Raises
    ------
    TypeError
        If ``fun`` is not callable, or (when called) returns no array, scalar or container of them.

    >>> f = checkpoint(lambda x: anp.sin(x) * 2.0)
    >>> round(float(grad(f)(0.0)), 6)
    2.0
    """
    _check_callable("checkpoint", fun)
    name = _name(fun)

    @wraps(fun)
    def checked(*args, **kwargs):
        ans = fun(*args, **kwargs)
        _output_space("checkpoint", name, ans, ANY)
        return ans

    checkpointed = primitive(checked)

    def vjp_argnum(argnum, ans, args, kwargs):
        return lambda g: _as_step_of("checkpoint", name, make_vjp, fun, argnum)(*args, **kwargs)[0](g)

    def jvp_argnum(argnum, g, ans, args, kwargs):
        return _as_step_of("checkpoint", name, make_jvp, fun, argnum)(*args, **kwargs)(g)[1]

    defvjp_argnum(checkpointed, vjp_argnum)
    defjvp_argnum(checkpointed, jvp_argnum)
    return checkpointed
