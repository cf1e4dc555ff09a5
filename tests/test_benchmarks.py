"""The benchmark's own checks: its MLP gradient equals the hand-written one on every backend,
a wrong gradient makes it fail, and a quick ``python -m benchmarks`` writes every figure."""

import json
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

import adcore
from benchmarks import digits
from benchmarks.__main__ import main

ROOT = Path(__file__).resolve().parents[1]

RESULT_KEYS = {
    "backend",
    "device",
    "quick",
    "python_version",
    "numpy_version",
    "autograd_present",
    "autograd_version",
    "hidden",
    "training_steps",
    "training_seconds",
    "train_accuracy",
    "test_accuracy",
    "gradient_check_max_relative_error",
    "mlp_batch_size",
    "mlp_gradient_seconds",
    "mlp_gradient_ratios",
    "chain_steps",
    "chain_primitives",
    "chain_seconds",
    "chain_us_per_primitive",
    "chain_ratios",
    "total_seconds",
}


def small_problem(backend, n=5, hidden=8):
    """A few samples and parameters with non-zero biases, as arrays of ``backend`` on its device."""
    rng = numpy.random.default_rng(1)
    x = backend.asarray(rng.uniform(0.0, 1.0, (n, digits.N_PIXELS)))
    y = backend.asarray(digits.one_hot(rng.integers(0, digits.N_CLASSES, n)))
    params = tuple(backend.asarray(p + 0.1 * rng.standard_normal(p.shape)) for p in digits.init_params(hidden))
    return params, x, y


def test_mlp_gradient_equals_hand_written(backend):
    params, x, y = small_problem(backend)
    assert digits.check_gradient(params, x, y, backend.backend) <= 1e-8
    for gradient, param in zip(adcore.grad(digits.loss)(params, x, y), params):
        backend.check_device(gradient)
        assert gradient.shape == param.shape and gradient.dtype == param.dtype


def test_wrong_gradient_fails_the_run(monkeypatch, tmp_path, capsys):
    right = digits.hand_grad
    monkeypatch.setattr(digits, "hand_grad", lambda *args: tuple(g * 1.001 for g in right(*args)))
    assert main(["--quick", "--json", str(tmp_path / "r.json")]) == 1
    assert "differs from the hand-written gradient" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("backend_name", ["numpy", "array_api_strict"])
def test_quick_run_writes_every_figure(tmp_path, backend_name):
    path = tmp_path / "r.json"
    command = [sys.executable, "-m", "benchmarks", "--quick", "--backend", backend_name, "--json", str(path)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    results = json.loads(path.read_text())
    assert results.keys() == RESULT_KEYS
    assert results["backend"] == backend_name and results["quick"] is True
    assert 0.0 <= results["test_accuracy"] <= 1.0
    assert results["gradient_check_max_relative_error"] <= 1e-8
    for figures in ("mlp_gradient_seconds", "chain_seconds"):
        assert {"adcore", "hand-written"} <= results[figures].keys()
        assert all(seconds > 0 for seconds in results[figures].values())
    assert results["mlp_gradient_ratios"]["adcore/hand-written"] > 0
