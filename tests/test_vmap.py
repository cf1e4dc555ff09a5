"""``adcore.vmap``: a batched run equals the loop over the examples, for the spec tables' functions, along
random ``in_axes``/``out_axes``; its compositions with the operators in both orders; its errors.

The oracle is the loop ``stack([f(x) for x in xs])`` on the same backend (``adcore.numpy.stack``), so a
batching rule that mixes examples, moves the wrong axis or drops the batch axis fails.
"""

import warnings
import zlib
from collections import namedtuple

import numpy
import pytest

import adcore
import adcore.numpy as np
from adcore import grad, hvp, jacobian, make_vjp, vmap
from adcore.test_util import check_grads
from adcore.vmap import VmapFallbackWarning
from specs import inputs
from test_numpy_rules import SPECS

B = 3
TOL = dict(rtol=1e-10, atol=1e-10)


#: Spec lines whose batched run does not equal the loop: a gap of vmap, each a strict xfail with its cause (a case
#: that starts passing fails the run, to be taken off this table).
NOT_YET = {
    "loop": {},
    "grad": {
        "where_one_argument": "`x[np.where(x > 0)]` under vmap(grad): the index is a tuple of batched index arrays, and "
        "the VJP's `untake` gets it beside an unbatched cotangent; a primitive looks for traced values among its own "
        "arguments only, not inside a tuple, so the raw scatter receives batch boxes (TypeError)",
    },
}


def _param(spec, kind):
    reason = NOT_YET[kind].get(spec.name)
    marks = [pytest.mark.xfail(reason=f"vmap: {reason}", raises=TypeError, strict=True)] if reason else []
    return pytest.param(spec, id=spec.name, marks=marks)


def _value_specs():
    """One spec per line of the table whose arguments are real arrays (the shapes the line lists)."""
    return [s for s in SPECS if s.dtypes[0] == "float64" and s.variant[0] == s.variant[1] - 1]


def _batched_args(backend, spec, rng):
    """For each argument: ``(batch, in_axis)``, the examples stacked along a random axis, or (for some
    arguments of a several-argument function) the example itself with in_axis None. A ``joint`` spec's arguments
    are all mapped on array-api-strict, whose raw arrays cannot take a traced one on their right (``x + y``)."""
    args, axes, examples = [], [], []
    for k in range(len(spec.shapes)):
        rows = [inputs(backend, spec, "float64", seed=10 * k + i)[k] for i in range(B)]
        if len(spec.shapes) > 1 and rng.random() < 0.3 and not (spec.joint and backend.name == "array_api_strict"):
            args.append(rows[0])
            axes.append(None)
            examples.append([rows[0]] * B)
            continue
        axis = int(rng.integers(-(len(spec.shapes[k]) + 1), len(spec.shapes[k]) + 1))
        args.append(np.stack(rows, axis=axis))
        axes.append(axis)
        examples.append(rows)
    if all(a is None for a in axes):
        examples[0] = [inputs(backend, spec, "float64", seed=i)[0] for i in range(B)]
        axes[0], args[0] = 0, np.stack(examples[0])
    return args, tuple(axes), [list(example) for example in zip(*examples)]


def _traced_value(fun, args):
    """``fun(*args)`` as adcore computes it for one example (traced, as the batch is: a raw torch tensor takes
    no negative slice step, a traced one does)."""
    return make_vjp(fun)(*args)[1]


def _assert_close(backend, result, expected):
    backend.check_device(result)
    numpy.testing.assert_allclose(backend.to_numpy(result), backend.to_numpy(expected), **TOL)


@pytest.mark.parametrize("spec", [_param(s, "loop") for s in _value_specs()])
def test_vmap_equals_the_loop(spec, backend):
    if backend.name in spec.skip:
        pytest.skip(spec.skip[backend.name])
    rng = numpy.random.default_rng(zlib.crc32(spec.name.encode()))  # the same axes in every process
    args, in_axes, examples = _batched_args(backend, spec, rng)
    expected = np.stack([_traced_value(spec.fun, example) for example in examples])
    out_axis = int(rng.integers(-np.ndim(expected), np.ndim(expected)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VmapFallbackWarning)  # a loop is slower, never wrong: its values are checked
        result = vmap(spec.fun, in_axes=in_axes, out_axes=out_axis)(*args)
    _assert_close(backend, result, np.moveaxis(expected, 0, out_axis))


@pytest.mark.parametrize("spec", [_param(s, "grad") for s in _value_specs()[::3]])
def test_vmap_of_grad_equals_the_loop_of_grad(spec, backend):
    if backend.name in spec.skip:
        pytest.skip(spec.skip[backend.name])
    args = [np.stack([inputs(backend, spec, "float64", seed=i)[k] for i in range(B)]) for k in range(len(spec.shapes))]
    scalar = lambda *a: np.sum(spec.fun(*a))  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VmapFallbackWarning)
        result = vmap(grad(scalar))(*args)
    expected = np.stack([grad(scalar)(*[a[i, ...] for a in args]) for i in range(B)])
    _assert_close(backend, result, expected)


def _f(x):
    return np.sum(np.tanh(x) * x**2) + np.sum(np.sin(x[1:] * x[:-1]))


@pytest.mark.parametrize(
    "name",
    [
        "vmap(grad)", "grad(vmap)", "vmap(jacobian)", "jacobian(vmap)", "vmap(vmap)", "vmap(hvp)", "vmap(grad(grad))",
        "vmap(grad jit=True)", "jit(vmap(grad))", "jit(vmap(hvp))", "vmap(jit(hvp))",
    ],
)
def test_compositions(name, backend):
    xs = backend.asarray(numpy.random.default_rng(1).normal(size=(B, 4)))
    vs = backend.asarray(numpy.random.default_rng(2).normal(size=(B, 4)))
    rows = [xs[i, ...] for i in range(B)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)  # every primitive these reach has a batching rule
        if name == "vmap(grad)":
            result, expected = vmap(grad(_f))(xs), np.stack([grad(_f)(x) for x in rows])
        elif name == "vmap(grad jit=True)":
            per_example = vmap(grad(_f, jit=True))
            per_example(xs)  # the first call records, the second replays
            result, expected = per_example(xs), np.stack([grad(_f)(x) for x in rows])
        elif name == "jit(vmap(grad))":
            batched = adcore.jit(vmap(grad(_f)))
            batched(xs + 1.0)  # recorded at other values than those it replays
            result, expected = batched(xs), np.stack([grad(_f)(x) for x in rows])
        elif name in ("jit(vmap(hvp))", "vmap(jit(hvp))"):
            batched = adcore.jit(vmap(hvp(_f))) if name == "jit(vmap(hvp))" else vmap(adcore.jit(hvp(_f)))
            batched(xs + 1.0, vs)
            result = batched(xs, vs)
            expected = np.stack([hvp(_f)(x, vs[i, ...]) for i, x in enumerate(rows)])
        elif name == "grad(vmap)":
            result, expected = grad(lambda x: np.sum(vmap(_f)(x)))(xs), np.stack([grad(_f)(x) for x in rows])
        elif name == "vmap(jacobian)":
            result, expected = vmap(jacobian(np.sin))(xs), np.stack([jacobian(np.sin)(x) for x in rows])
        elif name == "jacobian(vmap)":
            g = lambda x: vmap(lambda r: np.sin(r) * r[0])(x)  # noqa: E731
            result, expected = jacobian(g)(xs), jacobian(lambda x: np.stack([np.sin(r) * r[0] for r in x]))(xs)
        elif name == "vmap(vmap)":
            result = vmap(vmap(lambda v: np.sum(np.sin(v) * v)), in_axes=1)(np.reshape(xs, (B, 2, 2)))
            grid = np.reshape(xs, (B, 2, 2))
            expected = np.stack([np.stack([np.sum(np.sin(grid[i, j, ...]) * grid[i, j, ...]) for i in range(B)]) for j in range(2)])
        elif name == "vmap(hvp)":
            result = vmap(hvp(_f))(xs, vs)
            expected = np.stack([hvp(_f)(x, vs[i, ...]) for i, x in enumerate(rows)])
        else:
            h = lambda x: grad(lambda y: np.sum(np.cos(y) * x))(x)[0]  # noqa: E731
            result, expected = vmap(grad(h))(xs), np.stack([grad(h)(x) for x in rows])
    _assert_close(backend, result, expected)


def test_per_example_gradients_of_an_mlp(backend):
    """The benchmark's workload, small: the parameters shared (in_axes None), the examples mapped."""
    rng = numpy.random.default_rng(3)
    w1, w2 = backend.asarray(rng.normal(size=(5, 7))), backend.asarray(rng.normal(size=(7,)))
    xs, ys = backend.asarray(rng.normal(size=(6, 5))), backend.asarray(rng.normal(size=(6,)))

    def loss(w1, w2, x, y):
        return (np.matmul(np.tanh(np.matmul(x, w1)), w2) - y) ** 2

    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)  # every primitive it reaches has a batching rule
        g1, g2 = vmap(grad(loss, (0, 1)), in_axes=(None, None, 0, 0))(w1, w2, xs, ys)
    for i in range(6):
        e1, e2 = grad(loss, (0, 1))(w1, w2, xs[i, ...], ys[i, ...])
        _assert_close(backend, g1[i, ...], e1)
        _assert_close(backend, g2[i, ...], e2)


def test_per_example_gradients_of_a_tuple_of_parameters_and_their_own_derivative(backend):
    """Parameters passed as one tuple and unpacked inside (``W, w = params``, as the benchmark's MLP): the cotangent
    of the tuple inside ``vmap`` is sparse, holding the batch's items; the per-example gradients equal the loop's,
    and a ``grad`` around the ``vmap`` (a differentiating trace outside the batch) differentiates them in turn."""
    rng = numpy.random.default_rng(4)
    params = (backend.asarray(rng.normal(size=(3, 4))), backend.asarray(rng.normal(size=(4,))))
    xs, ys = backend.asarray(rng.normal(size=(5, 3))), backend.asarray(rng.normal(size=(5,)))

    def loss(params, x, y):
        W, w = params
        return (np.sum(np.tanh(np.matmul(x, W)) * w) - y) ** 2

    per_example = vmap(grad(loss), in_axes=(None, 0, 0))
    gW, gw = per_example(params, xs, ys)
    for i in range(5):
        eW, ew = grad(loss)(params, xs[i, ...], ys[i, ...])
        _assert_close(backend, gW[i, ...], eW)
        _assert_close(backend, gw[i, ...], ew)
    check_grads(lambda W, w: np.sum(per_example((W, w), xs, ys)[1] ** 2), modes=("rev",), order=1)(*params)


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "eig", "pinv", "qr", "svd"])
def test_stacked_linalg_is_batched_without_a_loop(name, backend):
    """The public functions (some wrap their primitive to fix its signature) reach the batching rule."""
    rng = numpy.random.default_rng(4)
    a = rng.normal(size=(B, 3, 3))
    a = backend.asarray(a @ numpy.swapaxes(a, 1, 2) + 3.0 * numpy.eye(3))
    fun = getattr(np.linalg, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)
        result = vmap(fun)(a)
    rows = [fun(a[i, ...]) for i in range(B)]
    if isinstance(result, tuple):
        for k, item in enumerate(result):
            _assert_close(backend, item, np.stack([row[k] for row in rows]))
    else:
        _assert_close(backend, result, np.stack(rows))


@pytest.mark.parametrize(
    "a_shape, b_shape, in_axes",
    [
        ((3, 3), (3,), 0), ((3, 3), (3, 2), 0), ((2, 3, 3), (2, 3, 1), 0), ((3, 3), (3,), (None, 0)),
        ((3, 3), (3,), (0, None)), ((3, 3), (2, 3, 4), (0, None)), ((2, 3, 3), (3, 2), (None, 0)),
    ],
)
def test_solve_is_batched_without_a_loop(a_shape, b_shape, in_axes, backend):
    """``solve(a, b)`` of an example's vector or stack of matrices ``b``, either operand mapped or shared."""
    rng = numpy.random.default_rng(7)
    mapped = [in_axes == 0 or in_axes[k] == 0 for k in range(2)]
    a = rng.normal(size=((B,) if mapped[0] else ()) + a_shape) + 4.0 * numpy.eye(3)
    a, b = backend.asarray(a), backend.asarray(rng.normal(size=((B,) if mapped[1] else ()) + b_shape))
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)
        result = vmap(np.linalg.solve, in_axes=in_axes)(a, b)
    rows = [np.linalg.solve(a[i, ...] if mapped[0] else a, b[i, ...] if mapped[1] else b) for i in range(B)]
    _assert_close(backend, result, np.stack(rows))


@pytest.mark.parametrize(
    "name, fun",
    [
        ("flip", lambda a: np.flip(a)),
        ("flip_axis", lambda a: np.flip(a, -1)),
        ("diagonal", lambda a: np.diagonal(a, 1, 0, 1)),
        ("diagonal_negative_axes", lambda a: np.diagonal(a, -1, -1, 0)),
        ("fftshift", lambda a: np.fft.fftshift(a)),
        ("ifftshift_axes", lambda a: np.fft.ifftshift(a, axes=(0, -1))),
        ("take_along_axis", lambda a: np.take_along_axis(a, np.argmax(a, axis=1, keepdims=True), 1)),
        ("sort", lambda a: np.cumsum(np.sort(a, axis=1), axis=1)),
        ("sort_flat_stable", lambda a: np.cumsum(np.sort(a, axis=None, stable=True))),
        ("argsort", lambda a: np.take_along_axis(a, np.argsort(a, axis=0), 0)),
    ],
)
@pytest.mark.parametrize("in_axis", [0, -1])
def test_shape_rules_batch_without_a_loop_also_per_example_gradients(name, fun, in_axis, backend):
    """Each of these primitives (and the adjoint its gradient calls) has a batching rule: no fallback warning, the
    values and per-example gradients of the loop."""
    x = backend.asarray(numpy.random.default_rng(5).normal(size=(B, 4, 5, 2)))
    xs = np.moveaxis(x, 0, in_axis)
    rows = [x[i, ...] for i in range(B)]
    scalar = lambda a: np.sum(fun(a) ** 2)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)
        result = vmap(fun, in_axes=in_axis)(xs)
        gradients = vmap(grad(scalar), in_axes=in_axis)(xs)
    _assert_close(backend, result, np.stack([fun(r) for r in rows]))
    _assert_close(backend, gradients, np.stack([grad(scalar)(r) for r in rows]))


def test_index_arrays_batch_where_the_library_indexes_them_beside_a_slice(backend):
    """``x[index_array]`` for each example is ``batch[:, index_array]`` where the library takes an index array
    beside a slice (NumPy's indexing); elsewhere (array-api-strict: the standard allows index arrays beside
    integers only) it is looped over: the same values and gradients either way."""
    x = backend.asarray(numpy.random.default_rng(6).normal(size=(B, 5)))
    index = backend.asarray([4, 0, 0, 2], dtype="int64")
    fun = lambda a: a[index] * a[0]  # noqa: E731
    rows = [x[i, ...] for i in range(B)]
    scalar = lambda a: np.sum(fun(a) ** 2)  # noqa: E731
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", VmapFallbackWarning)
        result, gradients = vmap(fun)(x), vmap(grad(scalar))(x)
    _assert_close(backend, result, np.stack([fun(r) for r in rows]))
    _assert_close(backend, gradients, np.stack([grad(scalar)(r) for r in rows]))
    looped = any(issubclass(w.category, VmapFallbackWarning) for w in seen)
    assert looped is not backend.backend.arrays_beside_slices


@pytest.mark.parametrize(
    "fun",
    [
        lambda a: np.argmax(a, axis=0),
        lambda a: np.argmin(a, keepdims=True),
        lambda a: np.any(a > 0.5, axis=1),
        lambda a: np.all(a > -2.0, where=a < 1.0),
        lambda a: np.round(a, 1),
    ],
    ids=["argmax", "argmin", "any", "all_where", "round_decimals"],
)
def test_numpy_signature_functions_reach_the_rules(fun, backend):
    """``adcore.numpy.argmax`` and the like (NumPy's signatures around a primitive) batch through the primitive."""
    x = backend.asarray(numpy.random.default_rng(6).normal(size=(B, 4, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)
        result = vmap(fun)(x)
    expected = np.stack([fun(x[i, ...]) for i in range(B)])
    numpy.testing.assert_array_equal(backend.to_numpy(result), backend.to_numpy(expected))


def test_containers_and_out_axes():
    Pair = namedtuple("Pair", "a b")
    xs = numpy.arange(12.0).reshape(3, 4)
    out = vmap(lambda p, d: {"s": p.a + d["k"], "t": (p.b * 2.0,)}, in_axes=(Pair(0, 1), {"k": None}), out_axes={"s": 1, "t": (0,)})(
        Pair(xs, xs.T), {"k": numpy.ones(4)}
    )
    numpy.testing.assert_array_equal(out["s"], (xs + 1.0).T)
    numpy.testing.assert_array_equal(out["t"][0], xs * 2.0)


def test_unbatched_output_is_broadcast_and_axis_size():
    out = vmap(lambda x: 2.0, in_axes=None, axis_size=4)(numpy.ones(3))
    assert out.shape == (4,)
    out = vmap(lambda x, y: y, in_axes=(0, None))(numpy.ones((5, 2)), numpy.arange(3.0))
    numpy.testing.assert_array_equal(out, numpy.broadcast_to(numpy.arange(3.0), (5, 3)))


def test_the_example_shape_is_what_fun_sees():
    seen = []
    vmap(lambda x: seen.append((x.shape, x.ndim, len(x))) or x)(numpy.ones((5, 3, 2)))
    assert seen == [((3, 2), 2, 3)]


def test_fallback_loop_warns_once_per_call_and_is_right():
    @adcore.primitive
    def cube(x):
        return x**3

    xs = numpy.arange(6.0).reshape(3, 2)
    for _ in range(2):  # each call warns again: nothing is remembered between calls
        with pytest.warns(VmapFallbackWarning, match="cube has no batching rule") as record:
            out = vmap(lambda x: cube(x) + cube(x))(xs)
        assert len([w for w in record if issubclass(w.category, VmapFallbackWarning)]) == 1
        numpy.testing.assert_array_equal(out, 2 * xs**3)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: vmap(lambda x, y: x + y)(numpy.ones((3, 2)), numpy.ones((4, 2))), r"argument 0 has size 3, argument 1 has size 4"),
        (lambda: vmap(lambda x: x, in_axes=2)(numpy.ones((3, 2))), r"in_axes 2 is out of range for argument 0"),
        (lambda: vmap(lambda x: x, in_axes=(0, 0))(numpy.ones(3)), r"one entry per positional argument"),
        (lambda: vmap(lambda x: x, in_axes=None)(numpy.ones(3)), r"give axis_size"),
        (lambda: vmap(lambda x: x, out_axes=None)(numpy.ones(3)), r"out_axes is None for output"),
        (lambda: vmap(lambda x: x, out_axes=3)(numpy.ones((3, 2))), r"out_axes 3 is out of range for output"),
        (lambda: vmap(lambda p: p[0], in_axes=([0, 0],))([numpy.ones(3)]), r"does not match its structure"),
    ],
)
def test_errors_name_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("convert", [bool, float, int, lambda x: 1 if x > 0 else 0])
def test_control_flow_on_a_batched_value_says_to_use_where(convert):
    with pytest.raises(TypeError, match="where"):
        vmap(lambda x: convert(np.sum(x)))(numpy.ones((3, 2)))
