"""The coverage report, and the non-differentiable functions it counts."""

import subprocess
import sys

import numpy
import pytest

import adcore.numpy as np
from adcore import grad
from adcore.coverage import batching, batching_report, classify, counts, coverage
from adcore.extend import primitive


def test_every_primitive_has_both_rules():
    for module, groups in coverage().items():
        gaps = [name for name, group in groups.items() if group in ("vjp only", "jvp only", "no rule")]
        assert gaps == [], f"{module}: {gaps}"


def test_counts_and_groups():
    report = coverage()
    tally = counts(report)["numpy"]
    assert tally["differentiable"] == tally["vjp+jvp"] + tally["composed"]
    assert report["numpy"]["sin"] == "vjp+jvp"
    assert report["numpy"]["mean"] == "composed"
    assert report["numpy"]["argmax"] == "non-differentiable"
    assert report["numpy"]["zeros"] == "creation"
    assert classify(primitive(lambda x: x), "identity") == "no rule"


def test_vmap_column_counts_the_primitives_with_rules():
    """Each primitive with a derivative rule is counted once, by how vmap batches it; a primitive behind a wrapper
    that fixes its signature (``np.linalg.cholesky``) is found under it."""
    report = coverage()
    batched = batching_report(report)
    for module, groups in report.items():
        ruled = {name for name, group in groups.items() if group in ("vjp+jvp", "vjp only", "jvp only")}
        assert set(batched[module]) == ruled, module
    assert batched["numpy"]["sin"] == batched["numpy"]["matmul"] == batched["numpy.linalg"]["cholesky"] == "rule"
    assert batching(np.mean) is None
    assert batching(primitive(lambda x: x)) == "loop"


def test_scipy_signal_counts_its_convolutions():
    """SciPy's convolution family is counted as differentiable (compositions of one bilinear primitive)."""
    report = coverage()["scipy.signal"]
    for name in ("convolve", "convolve2d", "convolve_nd", "correlate", "correlate2d", "fftconvolve", "oaconvolve"):
        assert report[name] == "composed", name


def test_command_prints_the_table(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "adcore.coverage", "--json", str(tmp_path / "c.json")], capture_output=True, text=True, check=True
    )
    assert "numpy" in out.stdout and "vjp+jvp" in out.stdout and "vmap loop" in out.stdout
    assert (tmp_path / "c.json").exists()


@pytest.mark.parametrize(
    "fun",
    [
        np.floor,
        np.ceil,
        np.round,
        np.sign,
        np.trunc,
        np.rint,
        np.isfinite,
        np.isnan,
        np.isposinf,
        np.signbit,
        np.argmax,
        np.argmin,
    ],
)
def test_nondifferentiable_functions_give_zero_gradient_and_plain_values(fun):
    x = numpy.array([0.3, -1.7, 2.5])

    def f(x):
        value = fun(x)
        assert not hasattr(value, "_node")
        return np.sum(x * 0.0 + 1.0 * np.sum(np.astype(value, float)))

    numpy.testing.assert_array_equal(grad(f)(x), numpy.zeros(3))


def test_predicates_on_traced_values(backend):
    x = backend.asarray([1.0, -2.0, 0.0])

    def f(x):
        assert np.count_nonzero(x) == 2
        assert bool(np.any(x < 0.0)) and not bool(np.all(x < 0.0))
        assert np.allclose(x, x) and np.array_equal(x, x)
        assert [backend.to_numpy(i).tolist() for i in np.nonzero(x)] == [[0, 1]]
        return np.sum(x**2)

    numpy.testing.assert_array_equal(backend.to_numpy(grad(f)(x)), [2.0, -4.0, 0.0])
