"""Bad input, one table: each case gives a clear error (type, and a message naming the function and
the argument) or a correct result, never a silently wrong number.

A case is ``Bad(what, run, raises, match)`` (``run(backend)`` raises ``raises`` with a message
matching the regex ``match``) or ``Good(what, run, expected)`` (``run(backend)`` returns
``expected``: values equal, NaN equal to NaN, and a floating-point array of the backend and
device of the input unless ``on_input_backend`` is False). Every case runs on NumPy and on
array-api-strict on both of its devices; the other backends are left out for speed (the errors
come from adcore, and the array libraries' own messages differ in wording only).

Conventions chosen here:

- Differentiating with respect to a Python or NumPy integer scalar or a boolean value raises
  ``TypeError`` naming the operator and the argument (autograd's "Can't differentiate w.r.t. type"
  and JAX's "grad requires real- or complex-valued inputs" do the same), rather than returning
  float zeros: an integer scalar is almost always a forgotten ``.0``. An integer *array* is
  differentiated in its library's default floating dtype, as autograd does (its values are taken
  as that dtype's). ``grad`` of a function with an integer or boolean output raises ``TypeError``,
  as autograd's does: the derivative of a step is not what the caller meant.
- ``vjp(g)`` from ``make_vjp`` and ``jvp(v)`` from ``make_jvp`` check ``g`` and ``v`` as JAX does:
  ``ValueError`` for another shape or container structure, backend or device, ``TypeError`` for a
  non-array or a dtype that would be silently cast or dropped (integer, boolean, complex for
  real); another precision (float32 for float64) or a real value for a complex space is exact
  and taken. A Python scalar is weakly typed (``vjp(1.0)``).
- Non-finite inputs propagate as IEEE arithmetic says (no error, no silent zero).
- Empty arrays give empty gradients and Jacobians of shape ``out.shape + in.shape``.
"""

from dataclasses import dataclass
from typing import Callable

import numpy
import pytest
from conftest import TEST_BACKENDS

import adcore.numpy as np
import backends
from adcore import elementwise_grad, grad, jacobian, make_jvp, make_vjp, value_and_grad


@dataclass(frozen=True)
class Bad:
    what: str
    run: Callable
    raises: type
    match: str


@dataclass(frozen=True)
class Good:
    what: str
    run: Callable
    expected: object
    on_input_backend: bool = True


def f(x):
    return np.sum(x * x)


def double(x):
    return x * 2.0


def other_backend(b):
    """An array of a backend other than ``b``'s (NumPy's other is array-api-strict and back)."""
    if b.name == "numpy":
        return backends.get_backend("array_api_strict").xp.asarray([1.0, 2.0])
    return numpy.asarray([1.0, 2.0])


def strict_on(device):
    strict = backends.get_backend("array_api_strict").xp
    return strict.asarray([1.0, 2.0], device=strict.Device(device))


NOT_FLOAT = r"grad: argument 0 of f is a .*{}.*only floating-point or complex values can be differentiated"
NOT_A_VALUE = r"grad: argument 0 of f is a {} .*cannot be differentiated; pass a float or complex array or scalar"
VJP_SHAPE = r"make_vjp: vjp of double: the cotangent g has shape \(3,\).*; expected shape \(2,\)"

CASES = [
    # ---- non-array inputs
    Bad("string argument", lambda b: grad(f)("abc"), TypeError, NOT_A_VALUE.format("str")),
    Bad("None argument", lambda b: grad(f)(None), TypeError, NOT_A_VALUE.format("NoneType")),
    Bad("object argument", lambda b: grad(f)(object()), TypeError, NOT_A_VALUE.format("object")),
    Bad("list of a float and a string", lambda b: grad(f)([1.0, "a"]), TypeError, NOT_A_VALUE.format("list")),
    Bad("set argument", lambda b: grad(f)({1.0, 2.0}), TypeError, NOT_A_VALUE.format("set")),
    Bad("string to make_jvp", lambda b: make_jvp(double)("abc"), TypeError, r"make_jvp: argument 0 of double is a str"),
    Bad("None to jacobian", lambda b: jacobian(double)(None), TypeError, r"jacobian: argument 0 of double is a NoneType"),
    Bad("non-callable function", lambda b: grad(3.0)(1.0), TypeError, r"grad: fun must be callable, got float 3.0"),
    Bad("traced value + string", lambda b: grad(lambda x: np.sum(x + "a"))(b.asarray([1.0])), TypeError, r"add|str"),
    Good(
        "nested list of floats (ragged)", lambda b: grad(lambda x: x[0][1] * 3.0)([[1.0, 2.0], [3.0]]), [[0.0, 3.0], [0.0]], False
    ),
    Good("tuple of scalars", lambda b: grad(lambda x: x[0] * x[1])((2.0, 5.0)), (5.0, 2.0), False),
    # ---- integer and boolean inputs
    Good("integer array: differentiated as floats, as in autograd", lambda b: grad(f)(b.asarray([1, 2], "int64")), [2.0, 4.0]),
    Bad("boolean array", lambda b: grad(f)(b.asarray([True, False], "bool")), TypeError, NOT_FLOAT.format("bool")),
    Bad("Python int", lambda b: grad(f)(3), TypeError, NOT_FLOAT.format("int")),
    Bad("Python bool", lambda b: grad(f)(True), TypeError, NOT_FLOAT.format("bool")),
    Bad("NumPy int scalar", lambda b: grad(f)(numpy.int32(3)), TypeError, NOT_FLOAT.format("int32")),
    Good(
        "integer array in a tuple argnum",
        lambda b: grad(lambda x, n: np.sum(x * n), (0, 1))(b.asarray([1.0]), b.asarray([2], "int64"))[1],
        [1.0],
    ),
    Good(
        "integer input to make_jvp",
        lambda b: make_jvp(double)(b.asarray([1, 2], "int64"))(b.asarray([1.0, 1.0]))[1],
        [2.0, 2.0],
    ),
    Good("integer input to elementwise_grad", lambda b: elementwise_grad(double)(b.asarray([1], "int64")), [2.0]),
    Good(
        "integer array not differentiated",
        lambda b: grad(lambda x, n: np.sum(x * np.astype(n, x.dtype)))(b.asarray([1.0, 2.0]), b.asarray([3, 4], "int64")),
        [3.0, 4.0],
    ),
    Bad(
        "integer-valued output (a cast)",
        lambda b: grad(lambda x: np.astype(np.sum(x), "int64"))(b.asarray([1.5])),
        TypeError,
        r"grad: function <lambda> returned an? .*int64.*; grad only applies to real scalar-output functions",
    ),
    Bad(
        "boolean output",
        lambda b: grad(lambda x: np.sum(x) > 0.0)(b.asarray([1.5])),
        TypeError,
        r"grad: function <lambda> returned an? .*bool.*; grad only applies to real scalar-output functions",
    ),
    # ---- empty arrays, 0-d arrays and scalars
    Good("empty array", lambda b: grad(f)(b.asarray(numpy.zeros(0))), numpy.zeros(0)),
    Good("empty 2-d array", lambda b: grad(f)(b.asarray(numpy.zeros((2, 0)))), numpy.zeros((2, 0))),
    Good("division by a Python zero", lambda b: grad(lambda x: np.sum(x / 0))(b.asarray([1.0, -1.0])), [numpy.inf, numpy.inf]),
    Good("mean of an empty array", lambda b: grad(np.mean)(b.asarray(numpy.zeros(0))), numpy.zeros(0)),
    Good("jacobian of an empty array", lambda b: jacobian(double)(b.asarray(numpy.zeros(0))), numpy.zeros((0, 0))),
    Good("jacobian of an empty output", lambda b: jacobian(lambda x: x[:0])(b.asarray([1.0, 2.0])), numpy.zeros((0, 2))),
    Good("0-d array", lambda b: grad(f)(b.asarray(3.0)), 6.0),
    Good("0-d float32 array", lambda b: grad(f)(b.asarray(3.0, "float32")), numpy.float32(6.0)),
    Good("Python float", lambda b: grad(f)(3.0), 6.0, False),
    Good(
        "log at a Python zero",
        lambda b: (grad(np.log)(0.0), grad(np.log)(-0.0), grad(np.log10)(0.0)),
        (numpy.inf, -numpy.inf, numpy.inf),
        False,
    ),
    Good(
        "log1p and arctanh at their poles", lambda b: (grad(np.log1p)(-1.0), grad(np.arctanh)(1.0)), (numpy.inf, numpy.inf), False
    ),
    Good("nan_to_num of a Python float", lambda b: grad(np.nan_to_num)(2.0), 1.0, False),
    Good("NumPy float32 scalar", lambda b: grad(f)(numpy.float32(3.0)), numpy.float32(6.0), False),
    Good("size-1 output of shape (1,)", lambda b: grad(double)(b.asarray([1.5])), [2.0]),
    # ---- non-finite inputs
    Good("NaN input", lambda b: grad(f)(b.asarray([numpy.nan, 1.0])), [numpy.nan, 2.0]),
    Good("infinite input", lambda b: grad(lambda x: np.sum(np.exp(x)))(b.asarray([numpy.inf, 0.0])), [numpy.inf, 1.0]),
    Good(
        "NaN masked by where",
        lambda b: grad(lambda x: np.sum(np.where(x > 0.0, x, 0.0)))(b.asarray([numpy.nan, 1.0])),
        [0.0, 1.0],
    ),
    Good("-inf through exp", lambda b: grad(lambda x: np.sum(np.exp(x)))(b.asarray([-numpy.inf, 0.0])), [0.0, 1.0]),
    # ---- two backends or devices
    Bad(
        "arrays from two backends",
        lambda b: grad(lambda x: np.sum(x * other_backend(b)))(b.asarray([1.0, 2.0])),
        ValueError,
        r"multiply: arrays from two backends in one call",
    ),
    Bad(
        "arrays on two devices",
        lambda b: grad(lambda x: np.sum(x + strict_on("device1")))(strict_on("CPU_DEVICE")),
        ValueError,
        r"add: array_api_strict arrays on two devices in one call",
    ),
    # ---- argnum
    Bad("argnum out of range", lambda b: grad(lambda x, y: x * y, 2)(1.0, 2.0), TypeError, r"grad: argnum 2 is out of range"),
    Bad("argnum a string", lambda b: grad(f, "x"), TypeError, r"grad: argnum must be an int or a tuple of ints, got 'x'"),
    Bad("argnum a float", lambda b: grad(f, 0.0), TypeError, r"grad: argnum must be an int or a tuple of ints, got 0.0"),
    Bad(
        "argnum named twice",
        lambda b: grad(lambda x, y: x * y, (1, 1)),
        TypeError,
        r"grad: argnum \(1, 1\) names an argument twice",
    ),
    Good(
        "negative argnum", lambda b: grad(lambda x, y: np.sum(np.multiply(x, y)), -1)(b.asarray([2.0]), b.asarray([3.0])), [2.0]
    ),
    # ---- what the function returns
    Bad(
        "function returning None",
        lambda b: grad(lambda x: None)(b.asarray(1.0)),
        TypeError,
        r"grad: <lambda> must return an array or a scalar.*NoneType",
    ),
    Bad(
        "function returning a string",
        lambda b: grad(lambda x: "a")(b.asarray(1.0)),
        TypeError,
        r"grad: <lambda> must return .*str",
    ),
    Bad(
        "function returning an object",
        lambda b: grad(lambda x: object())(b.asarray(1.0)),
        TypeError,
        r"grad: <lambda> must return .*object",
    ),
    Bad(
        "make_vjp of a function returning None",
        lambda b: make_vjp(lambda x: None)(b.asarray(1.0)),
        TypeError,
        r"make_vjp: <lambda> must return",
    ),
    Bad(
        "make_jvp of a function returning None",
        lambda b: make_jvp(lambda x: None)(b.asarray(1.0))(1.0),
        TypeError,
        r"make_jvp: <lambda> must return",
    ),
    Bad(
        "jacobian of a function returning None",
        lambda b: jacobian(lambda x: None)(b.asarray([1.0])),
        TypeError,
        r"jacobian: <lambda> must return",
    ),
    Bad(
        "non-scalar output to grad",
        lambda b: grad(double)(b.asarray([1.0, 2.0])),
        TypeError,
        r"grad: function double returned .*shape \(2,\); grad only applies to real scalar-output functions\. Try jacobian",
    ),
    Bad(
        "non-scalar output to value_and_grad",
        lambda b: value_and_grad(double)(b.asarray([1.0, 2.0])),
        TypeError,
        r"value_and_grad only applies to real scalar-output",
    ),
    Bad(
        "complex output to grad",
        lambda b: grad(lambda x: x * 1j)(1.0),
        TypeError,
        r"grad only applies to real scalar-output.*holomorphic_grad",
    ),
    Bad(
        "list output to grad",
        lambda b: grad(lambda x: [x, x])(b.asarray(1.0)),
        TypeError,
        r"grad: function <lambda> returned a list of 2 items; grad needs a real scalar output",
    ),
    Good("output not depending on the input", lambda b: grad(lambda x: 5.0)(b.asarray([1.0, 2.0])), [0.0, 0.0]),
    Bad("user function raising", lambda b: grad(lambda x: 1 / 0)(b.asarray(1.0)), ZeroDivisionError, r"division by zero"),
    # ---- cotangents and tangents
    Bad(
        "cotangent of the wrong shape",
        lambda b: make_vjp(double)(b.asarray([1.0, 2.0]))[0](b.asarray([1.0, 2.0, 3.0])),
        ValueError,
        VJP_SHAPE,
    ),
    Bad(
        "cotangent that would broadcast",
        lambda b: make_vjp(double)(b.asarray([1.0, 2.0]))[0](b.asarray([1.0])),
        ValueError,
        r"make_vjp: vjp of double: the cotangent g has shape \(1,\)",
    ),
    Bad(
        "scalar cotangent for an array output",
        lambda b: make_vjp(double)(b.asarray([1.0, 2.0]))[0](1.0),
        ValueError,
        r"make_vjp: vjp of double: the cotangent g has shape \(\)",
    ),
    Bad(
        "integer cotangent",
        lambda b: make_vjp(double)(b.asarray([1.0, 2.0]))[0](b.asarray([1, 2], "int64")),
        TypeError,
        r"make_vjp: vjp of double: the cotangent g has shape \(2,\) and dtype .*int64",
    ),
    Bad(
        "complex cotangent for a real output",
        lambda b: make_vjp(double)(b.asarray([1.0, 2.0]))[0](b.asarray([1.0, 2.0], "complex128")),
        TypeError,
        r"cotangent g has .*complex128.*expected .*float64",
    ),
    Bad(
        "None cotangent",
        lambda b: make_vjp(double)(b.asarray([1.0, 2.0]))[0](None),
        TypeError,
        r"make_vjp: vjp of double: the cotangent g is a NoneType",
    ),
    Bad(
        "cotangent from another backend",
        lambda b: make_vjp(double)(b.asarray([1.0, 2.0]))[0](other_backend(b)),
        ValueError,
        r"make_vjp: vjp of double: the cotangent g has .*; expected",
    ),
    Bad(
        "cotangent of the wrong shape, constant output",
        lambda b: make_vjp(lambda x: 2.0)(b.asarray([1.0]))[0](b.asarray([1.0, 2.0])),
        ValueError,
        r"cotangent g has shape \(2,\)",
    ),
    Bad(
        "cotangent missing an item of a tuple output",
        lambda b: make_vjp(lambda x: (x, x))(b.asarray([1.0]))[0]((b.asarray([1.0]),)),
        ValueError,
        r"cotangent g has a tuple of \(shape \(1,\).*\); expected a tuple of \(shape",
    ),
    Bad(
        "tangent of the wrong shape",
        lambda b: make_jvp(double)(b.asarray([1.0, 2.0]))(b.asarray([1.0])),
        ValueError,
        r"make_jvp: jvp of double: the tangent v has shape \(1,\)",
    ),
    Bad(
        "integer tangent",
        lambda b: make_jvp(double)(b.asarray([1.0, 2.0]))(b.asarray([1, 1], "int64")),
        TypeError,
        r"make_jvp: jvp of double: the tangent v has .*int64",
    ),
    Good(
        "float32 cotangent for a float64 output",
        lambda b: make_vjp(double)(b.asarray([1.0, 2.0]))[0](b.asarray([1.0, 3.0], "float32")),
        [2.0, 6.0],
    ),
    Good(
        "real cotangent for a complex output",
        lambda b: make_vjp(lambda x: x * 1j)(b.asarray([1.0, 2.0]))[0](b.asarray([1.0, 3.0])),
        [0.0, 0.0],
    ),
    Good("Python float cotangent for a 0-d output", lambda b: make_vjp(double)(b.asarray(1.0))[0](1.0), 2.0),
    Good("Python float tangent for a 0-d input", lambda b: make_jvp(double)(b.asarray(1.0))(1.0)[1], 2.0),
    # ---- keyword arguments
    Bad(
        "keyword a reduction does not take",
        lambda b: grad(lambda x: np.sum(x, keepdim=True))(b.asarray([1.0])),
        TypeError,
        r"sum\(\) got an unexpected keyword argument 'keepdim'",
    ),
    Bad(
        "keyword an elementwise function does not take",
        lambda b: grad(lambda x: np.sum(np.exp(x, foo=1)))(b.asarray([1.0])),
        TypeError,
        r"exp\(\) got an unexpected keyword argument 'foo'",
    ),
    Bad(
        "keyword the user function does not take",
        lambda b: grad(f)(b.asarray([1.0]), scale=2.0),
        TypeError,
        r"f\(\) got an unexpected keyword argument 'scale'",
    ),
    Bad(
        "axis out of range",
        lambda b: grad(lambda x: np.sum(x, axis=3))(b.asarray([1.0])),
        ValueError,
        r"axis 3 is out of bounds for array of dimension 1",
    ),
    # ---- traced values used as something else
    Bad("traced value to float", lambda b: grad(lambda x: float(x) * x)(b.asarray(1.0)), TypeError, r"traced"),
    Bad(
        "item assignment into a traced array",
        lambda b: grad(lambda x: x.__setitem__(0, 1.0))(b.asarray([1.0])),
        TypeError,
        r"cannot be assigned to.*where",
    ),
]


def _check_result(result, expected, case, backend):
    """``result`` equals ``expected`` (a nested list or tuple of them where ``result`` is one)."""
    if isinstance(result, (list, tuple)):
        assert type(result) is type(expected) and len(result) == len(expected), f"{case.what}: got {result!r}"
        for got, want in zip(result, expected):
            _check_result(got, want, case, backend)
        return
    if case.on_input_backend:
        backend.check_device(result)
    result_backend = backends.array_backend(result)
    value = numpy.asarray(result) if result_backend is None else result_backend.to_numpy(result)
    expected = numpy.asarray(expected)
    assert value.shape == expected.shape, f"{case.what}: shape {value.shape}, expected {expected.shape}"
    assert value.dtype.kind == "f", f"{case.what}: dtype {value.dtype}, expected a floating-point one"
    if expected.dtype == numpy.float32:
        assert value.dtype == numpy.float32, f"{case.what}: dtype {value.dtype}, expected float32"
    numpy.testing.assert_array_equal(value, expected, err_msg=case.what)


BAD_INPUT_BACKENDS = [case for case in TEST_BACKENDS if case.name in ("numpy", "array_api_strict")]


@pytest.mark.parametrize("backend", BAD_INPUT_BACKENDS, ids=lambda case: case.id, indirect=True)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.what.replace(" ", "_"))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_bad_input(case, backend):
    if isinstance(case, Bad):
        with pytest.raises(case.raises, match=case.match):
            case.run(backend)
    else:
        _check_result(case.run(backend), case.expected, case, backend)


def test_the_table_is_long_enough():
    assert len(CASES) >= 40
    assert len({case.what for case in CASES}) == len(CASES), "each case has its own description"


# ---- an axis out of bounds: NumPy's error, never an axis taken modulo the rank ----

#: the arguments after the array, for functions of ``adcore.numpy`` with an ``axis`` that need more
AXIS_FUNCTION_ARGUMENTS = {"take": (0,), "roll": (1,), "insert": (0, 1.0), "delete": (0,), "repeat": (2,), "quantile": (0.5,)}
AXIS_FUNCTION_ARGUMENTS |= {"percentile": (50,), "nanquantile": (0.5,), "nanpercentile": (50,), "split": (1,)}
AXIS_FUNCTION_ARGUMENTS |= {"array_split": (1,), "partition": (0,), "argpartition": (0,), "append": ("x",)}
NOT_SWEPT = {"apply_along_axis", "take_along_axis", "put_along_axis"}  # their array is not the first argument


def _functions_with_an_axis():
    import inspect

    names = []
    for name in sorted(dir(np)):
        function = getattr(np, name)
        if name.startswith("_") or name in NOT_SWEPT or not callable(function) or not hasattr(numpy, name):
            continue
        try:
            if "axis" in inspect.signature(function).parameters:
                names.append(name)
        except (TypeError, ValueError):
            continue
    return names


def _outcome(module, name, shape, axis):
    """``("ok", value)`` or ``(exception type, message)`` of ``module.name`` on ones of ``shape`` along ``axis``."""
    import warnings

    x = module.ones(shape) if shape else module.array(1.5)
    args = tuple(x if a == "x" else a for a in AXIS_FUNCTION_ARGUMENTS.get(name, ()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", getattr(module, name)(x, *args, axis=axis)
        except Exception as error:
            return type(error), str(error)


@pytest.mark.parametrize("name", _functions_with_an_axis())
def test_an_axis_out_of_bounds_raises_as_numpys(name):
    """Each function of ``adcore.numpy`` with an ``axis`` raises where NumPy raises (an ``AxisError``, or
    NumPy's own exception type), never computes along another axis, and agrees with NumPy where it returns."""
    for shape in [(), (2, 3)]:
        for axis in (-3, -1, 1, 2, 3):
            expected, ours = _outcome(numpy, name, shape, axis), _outcome(np, name, shape, axis)
            if expected[0] is TypeError:  # NumPy wants other arguments of this function
                continue
            where = f"{name}(ones({shape}), axis={axis})"
            if expected[0] == "ok":
                if ours[0] != "ok":  # a refusal is not a wrong number; only NumPy's legacy for 0-d arrays may differ
                    assert shape == () and issubclass(ours[0], numpy.exceptions.AxisError), f"{where}: {ours}"
                    continue
                pairs = zip(*(v if isinstance(v, (list, tuple)) else [v] for v in (expected[1], ours[1])))
                for value, our in pairs:
                    numpy.testing.assert_allclose(numpy.asarray(our), numpy.asarray(value), err_msg=where)
            else:
                assert ours[0] != "ok", f"{where} returned a value where NumPy raises {expected}"
                assert issubclass(ours[0], (numpy.exceptions.AxisError, expected[0])), f"{where}: {ours}, NumPy: {expected}"


def test_rollaxis_counts_a_negative_start_as_numpy():
    x = numpy.arange(24.0).reshape(2, 3, 4)
    for axis in range(-3, 3):
        for start in range(-3, 4):
            assert np.rollaxis(np.array(x), axis, start).shape == numpy.rollaxis(x, axis, start).shape, (axis, start)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.transpose(x, (0, 2)),
        lambda m, x: m.swapaxes(x, 0, 2),
        lambda m, x: m.swapaxes(x, -3, 1),
        lambda m, x: m.moveaxis(x, 2, 0),
        lambda m, x: m.moveaxis(x, 0, -3),
        lambda m, x: m.average(x, axis=2, weights=m.ones(3)),
    ],
)
def test_axes_out_of_bounds_raise_axis_errors(call):
    x = numpy.ones((2, 3))
    with pytest.raises(numpy.exceptions.AxisError):
        call(numpy, x)
    with pytest.raises(numpy.exceptions.AxisError):
        call(np, np.array(x))
