"""``adcore.numpy.einsum`` against finite differences and against ``numpy.einsum``.

One line per case in ``CASES``: the subscripts, the shapes of the operands and
options of ``Spec``. Each case runs on every backend (NumPy's own ``einsum``;
the Array API fallback on array-api-strict, also on a non-default device), in
float64 and float32 (complex128 and complex64 for complex cases), in forward and
reverse mode, to order 2, in each operand.
"""

import numpy
import pytest

import adcore.numpy as np
from adcore import grad, make_jvp
from adcore.numpy.einsum import einsum_array_api, native_einsum
from adcore.test_util import check_grads
from specs import COMPLEX, Spec, inputs, spec_tests


def case(subscripts, *shapes, **options):
    def fun(*operands):
        return np.einsum(subscripts, *operands)

    fun.__name__ = f"einsum_{subscripts}"
    return Spec(f"{subscripts}{''.join(map(str, shapes))}", fun, shapes, **options)


def sublist_case(name, sublists, output, *shapes):
    """NumPy's sublist form: ``einsum(a, sublists[0], b, sublists[1], ..., output)``."""

    def fun(*operands):
        args = [item for pair in zip(operands, sublists) for item in pair]
        return np.einsum(*args, *([] if output is None else [output]))

    fun.__name__ = f"einsum_sublists_{name}"
    return Spec(f"sublists-{name}", fun, shapes)


CASES = [
    case("ij,jk->ik", (2, 3), (3, 4)),  # matrix product
    case("...ij,...jk->...ik", (5, 2, 3), (5, 3, 4)),  # batched matmul
    case("...ij,...jk->...ik", (2, 1, 2, 3), (3, 3, 4)),  # size-1 ellipsis axis broadcast (batch (2, 3))
    case("...i,...i->...", (3, 1), (2, 1, 4)),  # size-1 axes broadcast in the ellipsis and in a letter
    case("ij,ij->ij", (1, 3), (2, 3)),  # a lettered size-1 axis broadcast
    case("i,j->ij", (3,), (4,)),  # outer product
    case("ii", (3, 3)),  # trace (implicit output)
    case("ii->i", (3, 3)),  # diagonal
    case("iij->j", (3, 3, 2)),
    case("iii->", (2, 2, 2)),
    case("...ii->...i", (2, 3, 3)),
    case("ii,i->i", (3, 3), (3,)),  # a repeated subscript shared with another operand
    case("ij->i", (2, 3)),  # summed within one operand
    case("ij,k->jk", (2, 3), (4,)),  # i summed in operand 0 only
    case("ij->ji", (2, 3)),  # transpose
    case("ba", (2, 3)),  # implicit output: alphabetical, so a transpose
    case("i...j->j...i", (2, 3, 4, 5)),
    case("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)),  # three operands
    case(",ij->ij", (), (2, 3)),  # 0-d times array
    case("ij,jk", (2, 3), (3, 4)),  # implicit output
    case("i,i", (3,), (3,)),  # implicit inner product
    case("bA,aB", (3, 2), (2, 3)),  # implicit: upper case before lower case, as NumPy
    case("ij,jk->ik", (2, 3), (3, 4), dtypes=COMPLEX),
    case("...ij,...jk", (2, 1, 2, 3), (3, 3, 4), dtypes=COMPLEX),
    case("ii->i", (3, 3), dtypes=COMPLEX),
    case("ij,k->jk", (2, 3), (4,), dtypes=COMPLEX),
    case("i,i", (3,), (3,), dtypes=COMPLEX),
]

test_derivatives, test_value_matches_numpy = spec_tests(CASES)

SUBLIST_CASES = [
    sublist_case("matmul", [[0, 1], [1, 2]], [0, 2], (2, 3), (3, 4)),
    sublist_case("ellipsis", [(Ellipsis, 0, 1), (Ellipsis, 1, 2)], (Ellipsis, 0, 2), (2, 2, 3), (1, 3, 4)),
    sublist_case("implicit-trace", [(0, 0)], None, (3, 3)),
    sublist_case("three", [(0, 1, 2), (3, 1, 0), (3, 3, 0)], (3, 2, 0), (3, 4, 4), (4, 4, 3), (4, 4, 3)),
]

test_sublist_derivatives, test_sublist_value_matches_numpy = spec_tests(SUBLIST_CASES)


@pytest.mark.parametrize("spec, dtype", [pytest.param(s, d, id=f"{s.name}-{d}") for s in CASES for d in s.dtypes])
def test_value_matches_numpy_einsum(spec, dtype, backend):
    """The value equals ``numpy.einsum``'s, with the operands' backend, device and dtype."""
    args = inputs(backend, spec, dtype)
    subscripts = spec.fun.__name__.removeprefix("einsum_")
    expected = numpy.einsum(subscripts, *[backend.to_numpy(a) for a in args])
    result = np.einsum(subscripts, *args)
    backend.check_device(result)
    assert result.dtype == args[0].dtype
    tolerance = 1e-12 if dtype in ("float64", "complex128") else 1e-5
    numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=tolerance, atol=tolerance)


def test_python_scalar_operand_keeps_float32(backend):
    x = backend.asarray(numpy.arange(6.0).reshape(2, 3), "float32")
    result = np.einsum(",ij->ji", 2.0, x)
    backend.check_device(result)
    assert result.dtype == x.dtype
    numpy.testing.assert_array_equal(backend.to_numpy(result), 2.0 * numpy.arange(6.0).reshape(2, 3).T)
    g = grad(lambda s: np.sum(np.einsum(",ij->ij", s, x)))(3.0)
    assert g == 15.0
    _, tangent = make_jvp(lambda s: np.einsum(",ij->ij", s, x))(3.0)(1.0)
    numpy.testing.assert_array_equal(backend.to_numpy(tangent), numpy.arange(6.0).reshape(2, 3))


def test_cotangent_of_broadcast_axis_is_summed_back_to_size_1(backend):
    a, b = backend.asarray(numpy.ones((1, 3))), backend.asarray(numpy.arange(6.0).reshape(2, 3))
    g = grad(lambda a: np.sum(np.einsum("...j,...j->...j", a, b)))(a)
    backend.check_device(g)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [[3.0, 5.0, 7.0]])


def test_gradient_of_trace_is_identity(backend):
    x = backend.asarray(numpy.arange(9.0).reshape(3, 3))
    numpy.testing.assert_array_equal(backend.to_numpy(grad(lambda x: np.einsum("ii", x))(x)), numpy.eye(3))


def test_mixed_dtypes_give_each_operand_its_own_dtype(backend):
    a = backend.asarray(numpy.ones((2, 3)), "float32")
    b = backend.asarray(numpy.ones((3,)), "complex128")
    check_grads(lambda a: np.einsum("ij,j->i", a, b), order=1)(a)
    assert grad(lambda a: np.real(np.sum(np.einsum("ij,j->i", a, b))))(a).dtype == a.dtype


def test_native_einsum_or_array_api_fallback():
    import backends

    assert native_einsum(backends.get_backend("numpy")) is numpy.einsum
    assert native_einsum(backends.get_backend("array_api_strict")) is None


@pytest.mark.parametrize(
    "subscripts, shapes",
    [
        ("ij,jk->ik", ((2, 3), (3, 4))),
        ("iij,jk->ki", ((3, 3, 2), (2, 4))),
        ("ij,jk,kl,lm->mi", ((2, 3), (3, 4), (4, 2), (2, 3))),
        ("abc,cab->b", ((2, 3, 4), (4, 2, 3))),
        ("ij,k->", ((2, 3), (4,))),
        (",->", ((), ())),
        ("i,->i", ((0,), ())),
    ],
)
def test_array_api_fallback_matches_numpy(subscripts, shapes):
    rng = numpy.random.default_rng(0)
    operands = [rng.standard_normal(shape) for shape in shapes]
    numpy.testing.assert_allclose(einsum_array_api(numpy, subscripts, operands), numpy.einsum(subscripts, *operands), rtol=1e-12)


@pytest.mark.parametrize(
    "subscripts, shapes, message",
    [
        ("ij,jk->ik", ((2, 3),), "subscripts for 2 operands, but 1 were given"),
        ("ij,jk->ik", ((2, 3), (4, 5)), "'j' has sizes 3 and 4"),
        ("ii->i", ((2, 3),), "repeats the subscript 'i' over axes of sizes 2 and 3"),
        ("ijk->i", ((2, 3),), "operand 0 has 2 dimensions"),
        ("ij->k", ((2, 3),), "'k' of 'ij->k' is in no operand"),
        ("ij->ii", ((2, 3),), "repeats the output subscript 'i'"),
        ("i1->i", ((2, 3),), "the character '1'"),
        ("..i->i", ((2, 3),), "'.' that is not part of one '...'"),
        ("...i->i", ((2, 3),), "no '...' in its output"),
        ("i->i->i", ((2,),), "not one output arrow"),
    ],
)
def test_errors_name_the_problem(subscripts, shapes, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("...", r"\.\.\.")):
        np.einsum(subscripts, *[numpy.ones(shape) for shape in shapes])


@pytest.mark.parametrize(
    "args",
    [
        ((2, 3), [0, 1], (3, 4), [1, 2], [0, 2]),
        ((2, 3), [0, 1], (3, 4), [1, 2]),
        ((2, 2, 3), [Ellipsis, 0, 1], (3, 2), [1, 0]),
        ((3, 3), [0, 0]),
    ],
    ids=["explicit", "implicit", "ellipsis", "trace"],
)
def test_sublist_form_is_numpys(args):
    rng = numpy.random.default_rng(0)
    args = [rng.standard_normal(a) if isinstance(a, tuple) else a for a in args]
    numpy.testing.assert_allclose(np.einsum(*args), numpy.einsum(*args), rtol=1e-12)


@pytest.mark.parametrize("label", [52, -1, "i", 1.0])
def test_sublist_labels_are_checked(label):
    with pytest.raises(TypeError, match="a sublist holds integers from 0 to 51 and Ellipsis"):
        np.einsum(numpy.ones((2, 2)), [0, label])
