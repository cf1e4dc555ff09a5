"""Where the output window of ``"full"``, ``"same"`` and ``"valid"`` convolutions and correlations
lies, for every pair of lengths and parities, in values and derivatives.

NumPy's ``convolve`` and ``correlate`` swap their arguments when the second is longer (and
``correlate`` then reverses and conjugates the result), which moves the centre of a ``"same"``
window by one place for some parities. Each of these functions is linear in each argument
(real-linear: ``correlate`` conjugates its second one), so its derivative along a direction is
the function of that direction: the reference Jacobian is NumPy's (or SciPy's) function applied
to the basis vectors of the argument's real space, and adcore's JVP and VJP are compared with
that matrix (``J v`` and ``J^T u``, with adcore's complex convention ``vjp(conj(u)) == conj(J^T u)``).
"""

import itertools

import numpy
import pytest
import scipy.linalg
import scipy.signal

import adcore.numpy as np
from adcore import make_jvp, make_vjp
from adcore.scipy import linalg as alinalg

LENGTHS = range(1, 8)
#: Dask builds and computes a graph per evaluation (about 40 times NumPy's time here): it runs the pairs of
#: lengths 1..4, which still hold every parity pair in both orders
LAZY_LENGTHS = range(1, 5)
MODES = ("full", "same", "valid")
KINDS = {"real": ("float64", "float64"), "complex": ("complex128", "complex128"), "mixed": ("float64", "complex128")}


def _real_coordinates(x):
    """``x`` as a real vector: its entries, then (complex ``x``) their imaginary parts."""
    x = numpy.asarray(x).ravel()
    return numpy.concatenate([x.real, x.imag]) if numpy.iscomplexobj(x) else x.astype(float)


def _from_real_coordinates(r, like):
    like = numpy.asarray(like)
    if numpy.iscomplexobj(like):
        half = r.size // 2
        return (r[:half] + 1j * r[half:]).reshape(like.shape)
    return r.reshape(like.shape)


def _reference_jacobian(reference, args, argnum):
    """The real matrix of the linear map ``reference`` in argument ``argnum`` at ``args``, from its
    values at the basis vectors of that argument's real space."""
    x = numpy.asarray(args[argnum])
    columns = []
    for j in range(_real_coordinates(x).size):
        basis = numpy.zeros(_real_coordinates(x).size)
        basis[j] = 1.0
        moved = list(args)
        moved[argnum] = _from_real_coordinates(basis, x)
        columns.append(_real_coordinates(reference(*moved)))
    return numpy.stack(columns, axis=1)


def check_linear_map(function, reference, args, backend, rng, label):
    """``function(*args)`` against ``reference(*args)`` and its JVP and VJP in each argument against
    the reference Jacobian (``function`` is linear in each argument)."""
    expected = numpy.asarray(reference(*args))
    boxed = [backend.asarray(x, x.dtype.name) for x in args]
    value = function(*boxed)
    backend.check_device(value)
    numpy.testing.assert_allclose(backend.to_numpy(value), expected, rtol=1e-10, atol=1e-12, err_msg=f"{label}: value")
    for argnum, x in enumerate(args):
        jacobian = _reference_jacobian(reference, args, argnum)

        def along(x_arg, argnum=argnum):
            moved = list(boxed)
            moved[argnum] = x_arg
            return function(*moved)

        v = _from_real_coordinates(rng.standard_normal(jacobian.shape[1]), x)
        _, tangent = make_jvp(along)(boxed[argnum])(backend.asarray(v, x.dtype.name))
        numpy.testing.assert_allclose(
            _real_coordinates(backend.to_numpy(tangent)), jacobian @ _real_coordinates(v), rtol=1e-10, atol=1e-12,
            err_msg=f"{label}: JVP in argument {argnum}",
        )  # fmt: skip
        u = _from_real_coordinates(rng.standard_normal(jacobian.shape[0]), expected)
        vjp, _ = make_vjp(along)(boxed[argnum])
        cotangent = numpy.conj(backend.to_numpy(vjp(backend.asarray(numpy.conj(u), expected.dtype.name))))
        numpy.testing.assert_allclose(
            _real_coordinates(cotangent), jacobian.T @ _real_coordinates(u), rtol=1e-10, atol=1e-12,
            err_msg=f"{label}: VJP in argument {argnum}",
        )  # fmt: skip


def _sequence(rng, n, dtype):
    x = rng.standard_normal(n)
    return (x + 1j * rng.standard_normal(n)).astype(dtype) if dtype.startswith("complex") else x.astype(dtype)


def _raises_like(reference, args):
    try:
        reference(*args)
    except ValueError:
        return True
    return False


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_numpy_convolve_and_correlate_every_length_pair(name, mode, kind, backend):
    """Every pair of lengths 1..7 (both orders, every parity pair)."""
    rng = numpy.random.default_rng(0)
    function, reference = getattr(np, name), getattr(numpy, name)
    lengths = LAZY_LENGTHS if backend.name == "dask" else LENGTHS
    for n, m in itertools.product(lengths, lengths):
        a, v = _sequence(rng, n, KINDS[kind][0]), _sequence(rng, m, KINDS[kind][1])
        check_linear_map(
            lambda a, v: function(a, v, mode), lambda a, v: reference(a, v, mode), (a, v), backend, rng, f"{name}({n}, {m}, {mode!r})"
        )


@pytest.mark.parametrize("mode", MODES)
def test_convolution_matrix_every_length_pair(mode, backend):
    """``convolution_matrix(a, n, mode) @ v == numpy.convolve(a, v, mode)``: the matrix against SciPy's."""
    rng = numpy.random.default_rng(1)
    lengths = LAZY_LENGTHS if backend.name == "dask" else LENGTHS
    for m, n in itertools.product(lengths, lengths):
        a = rng.standard_normal(m)
        check_linear_map(
            lambda a: alinalg.convolution_matrix(a, n, mode),
            lambda a: scipy.linalg.convolution_matrix(a, n, mode),
            (a,),
            backend,
            rng,
            f"convolution_matrix({m}, {n}, {mode!r})",
        )
