"""Jacobians from one backward pass of a batch of cotangents (``jacrev``, ``jacobian``), and from one
forward pass of a batch of tangents (``jacfwd``).

Each function is differentiated twice, with the batch and with one backward pass per
row (the batch switched off), and both are checked against finite differences. Functions
with a primitive whose VJP is not declared batch-safe must take the row-by-row path.
"""

import warnings

import numpy
import pytest

import adcore.numpy as np
import adcore.operators as operators
import adcore.scipy.special as special
from adcore import grad, jacfwd, jacobian, jacrev
from adcore.extend import def_batch_safe_vjp, defvjp, primitive

A = numpy.array([[0.3, -1.2, 0.5], [0.8, 0.1, -0.4], [-0.6, 0.9, 1.1], [0.2, 0.7, -0.3]])
X = numpy.array([0.4, -0.7, 1.3])
X2 = numpy.array([[0.4, -0.7, 1.3], [0.9, 0.2, -0.5]])

#: name -> (input, function of (x, constants)), for functions whose primitives are all batch-safe.
BATCHED = {
    "tanh_matmul": (X, lambda x, c: np.tanh(np.matmul(c["A"], x))),
    "vector_matmul_matrix": (X, lambda x, c: np.matmul(x, np.transpose(c["A"]))),
    "inner_matmul": (X, lambda x, c: np.matmul(x, x) * x),
    "matrix_matmul_matrix": (X2, lambda x, c: np.matmul(np.transpose(x), x)),
    "broadcast_both": (X, lambda x, c: np.reshape(x, (3, 1)) * np.sin(x) + 1.0),
    "sum_axis": (X2, lambda x, c: np.sum(x**2, axis=0) / np.sum(np.exp(x))),
    "sum_keepdims": (X2, lambda x, c: np.sum(x, axis=-1, keepdims=True) * x),
    "max_min": (X2, lambda x, c: np.max(x, axis=1) * np.min(x)),
    "prod": (X2, lambda x, c: np.prod(x, axis=0)),
    "dot_tensordot": (X2, lambda x, c: np.tensordot(x, c["A"], axes=([1], [1])) + np.dot(c["A"], np.sum(x, axis=0))),
    "tensordot_b": (X, lambda x, c: np.tensordot(c["A"], np.cos(x), axes=1)),
    "transpose_3d": (X2, lambda x, c: np.transpose(np.reshape(x, (1, 2, 3)), (2, 0, 1)) ** 3),
    "stack_concatenate": (X, lambda x, c: np.concatenate([np.stack([x, np.sin(x)]), np.reshape(x, (1, 3))])),
    "where_clip": (X, lambda x, c: np.where(x > 0, x**2, -x) + np.clip(x, -0.5, 0.5)),
    "float32_inside": (X, lambda x, c: np.astype(np.astype(x, "float32") * 2.0, "float64")),
    "complex_output": (X, lambda x, c: np.exp(np.multiply(x, 1.0 + 2.0j))),
    "logsumexp_var": (X2, lambda x, c: special.logsumexp(x, axis=1) + np.var(x, axis=1)),
    "broadcast_to_abs": (X, lambda x, c: np.broadcast_to(np.abs(x), (2, 3)) - x),
    "getitem_basic": (X2, lambda x, c: x[0, ...] * x[1, ...] + x[:, 0:1] + np.reshape(x, (6,))[None, 4]),
    "getitem_integer_array": (X, lambda x, c: x[c["index"]] * x[0]),
    "getitem_of_getitem_gradient": (X, lambda x, c: grad(lambda y: np.sum(y[c["index"]] ** 3))(x)),
}

#: Functions with a primitive whose VJP is not declared batch-safe.
ROW_BY_ROW = {
    "cumsum": (X, lambda x, c: np.cumsum(x**2)),
    "flip": (X, lambda x, c: np.flip(x) * x),
    "einsum": (X, lambda x, c: np.einsum("i,i->i", x, np.tanh(x))),
}


def constants(backend):
    return {"A": backend.asarray(A), "index": backend.asarray([2, 0, 2], "int64")}


def numerical_jacobian(f, x, backend, eps=1e-6):
    """Central differences, one column per entry of ``x``."""
    data = numpy.asarray(x, dtype=float)
    columns = []
    for i in range(data.size):
        step = numpy.zeros(data.size)
        step[i] = eps
        plus = backend.to_numpy(f(backend.asarray(data + step.reshape(data.shape))))
        minus = backend.to_numpy(f(backend.asarray(data - step.reshape(data.shape))))
        columns.append((plus - minus) / (2 * eps))
    return numpy.stack(columns, axis=-1).reshape(plus.shape + data.shape)


def backward_passes(monkeypatch):
    """A list that receives one entry per backward pass ``jacrev`` runs."""
    calls = []
    real = operators.backward_pass

    def counted(g, end_node):
        calls.append(1)
        return real(g, end_node)

    monkeypatch.setattr(operators, "backward_pass", counted)
    return calls


def row_by_row(jacobian_operator, f, x, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(operators, "_batch_safe", lambda end_node: False)
        return jacobian_operator(f)(x)


def case(backend, entry):
    """``(data, f, x)`` for a table entry ``(data, fun)``: ``f(x) = fun(x, constants)`` on ``backend``."""
    data, fun = entry
    c = constants(backend)

    def f(x):
        return fun(x, c)

    return data, f, backend.asarray(data)


@pytest.mark.parametrize("name", list(BATCHED))
def test_batched_rows_equal_the_rows_one_by_one(backend, name, monkeypatch):
    data, f, x = case(backend, BATCHED[name])
    calls = backward_passes(monkeypatch)
    batched = jacrev(f)(x)
    assert len(calls) == (2 if name == "complex_output" else 1), "jacrev did not push the rows as one batch"
    backend.check_device(batched)
    expected = row_by_row(jacrev, f, x, monkeypatch)
    assert batched.shape == expected.shape and batched.dtype == expected.dtype
    numpy.testing.assert_allclose(backend.to_numpy(batched), backend.to_numpy(expected), rtol=1e-12, atol=1e-12)
    eps, rtol = (1e-2, 1e-4) if name == "float32_inside" else (1e-6, 1e-6)  # differences of float32 values
    numerical = numerical_jacobian(f, data, backend, eps)
    numpy.testing.assert_allclose(backend.to_numpy(batched), numerical, rtol=rtol, atol=1e-7)
    numpy.testing.assert_allclose(backend.to_numpy(batched), backend.to_numpy(jacfwd(f)(x)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(BATCHED) + list(ROW_BY_ROW))
def test_jacfwd_pushes_every_column_in_one_forward_pass(backend, name):
    """``jacfwd`` runs the function once, on the batch of the input's basis tangents (a primitive without a
    batching rule loops over the batch inside that one pass, silently), and equals ``jacrev``."""
    data, f, x = case(backend, {**BATCHED, **ROW_BY_ROW}[name])
    runs = []

    def counted(x):
        runs.append(1)
        return f(x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no VmapFallbackWarning: the batch is adcore's own
        columns = jacfwd(counted)(x)
    assert len(runs) == 1, f"jacfwd ran the function {len(runs)} times"
    backend.check_device(columns)
    numpy.testing.assert_allclose(backend.to_numpy(columns), backend.to_numpy(jacrev(f)(x)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(ROW_BY_ROW))
def test_graphs_with_other_primitives_fall_back_to_rows(backend, name, monkeypatch):
    data, f, x = case(backend, ROW_BY_ROW[name])
    calls = backward_passes(monkeypatch)
    jac = jacrev(f)(x)
    assert len(calls) == jac.shape[0], "a graph with a VJP not declared batch-safe must be walked row by row"
    numpy.testing.assert_allclose(backend.to_numpy(jac), numerical_jacobian(f, data, backend), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batched_jacobian_keeps_the_dtype(backend, dtype):
    x = backend.asarray(X, dtype)
    a = backend.asarray(A, dtype)
    jac = jacobian(lambda x: np.tanh(np.matmul(a, x)) * 2.0)(x)
    backend.check_device(jac)
    assert jac.dtype == x.dtype and jac.shape == (4, 3)
    expected = (1 - numpy.tanh(A @ X) ** 2)[:, None] * A * 2
    numpy.testing.assert_allclose(backend.to_numpy(jac), expected, rtol=1e-5 if dtype == "float32" else 1e-13)


def test_second_order_through_batched_rows(backend, monkeypatch):
    """A Hessian as the batched Jacobian of a gradient (whose graph is made of the rules' own
    primitives), and the gradient of a function of a batched Jacobian."""
    c = constants(backend)
    x = backend.asarray(X)

    def f(x):
        return np.sum(np.tanh(np.matmul(c["A"], x)) ** 2)

    hess = jacrev(grad(f))(x)
    numpy.testing.assert_allclose(backend.to_numpy(hess), backend.to_numpy(jacfwd(grad(f))(x)), rtol=1e-12, atol=1e-12)

    def jacobian_norm(x):
        return np.sum(jacrev(lambda x: np.tanh(np.matmul(c["A"], x)))(x) ** 2)

    batched = grad(jacobian_norm)(x)
    expected = row_by_row(grad, jacobian_norm, x, monkeypatch)
    numpy.testing.assert_allclose(backend.to_numpy(batched), backend.to_numpy(expected), rtol=1e-12, atol=1e-12)
    numpy.testing.assert_allclose(backend.to_numpy(batched), numerical_jacobian(jacobian_norm, X, backend), rtol=1e-6, atol=1e-7)


def test_output_that_does_not_depend_on_the_input(backend):
    c = constants(backend)
    jac = jacrev(lambda x: c["A"][0, ...])(backend.asarray(X))
    assert jac.shape == (3, 3)
    numpy.testing.assert_array_equal(backend.to_numpy(jac), numpy.zeros((3, 3)))


def test_rows_in_several_batches(backend, monkeypatch):
    monkeypatch.setattr(operators, "BATCH_ENTRIES", 14)  # two rows (of 4 + 3 entries) per backward pass
    c = constants(backend)
    x = backend.asarray(X)

    def f(x):
        return np.sin(np.matmul(c["A"], x))

    calls = backward_passes(monkeypatch)
    jac = jacrev(f)(x)
    assert len(calls) == 2
    numpy.testing.assert_allclose(backend.to_numpy(jac), numpy.cos(A @ X)[:, None] * A, rtol=1e-14)


def test_a_user_primitive_declared_batch_safe(backend, monkeypatch):
    @primitive
    def cube(x):
        return x * x * x

    defvjp(cube, lambda ans, x: lambda g: g * (3.0 * x * x))
    x = backend.asarray(X)
    calls = backward_passes(monkeypatch)
    jacrev(cube)(x)
    assert len(calls) == 3, "a primitive not declared batch-safe is walked row by row"
    def_batch_safe_vjp(cube)
    jac = jacrev(cube)(x)
    assert len(calls) == 4
    numpy.testing.assert_allclose(backend.to_numpy(jac), numpy.diag(3 * X**2), rtol=1e-14)
