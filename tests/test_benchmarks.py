"""The benchmark suite's own checks: its hand-written derivatives against finite differences, the MLP
gradient on every backend, and small runs of ``python -m benchmarks`` (JSON, plot, README table,
a wrong gradient exiting 1, a missing peer reported)."""

import importlib.util
import json
import re
import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy
import pytest

import adcore
import backends
from benchmarks import batching, curvature, digits, elementwise, kernels, mlp, norms, overhead, peers, readme, report
from benchmarks.__main__ import main, parse_args
from benchmarks.threads import ThreadPins

ROOT = Path(__file__).resolve().parents[1]


def central_gradient(f, x, h=1e-6):
    """The gradient of scalar ``f`` at the float64 array ``x`` by central differences."""
    x = numpy.asarray(x, dtype=float)
    grad = numpy.zeros_like(x)
    for i in numpy.ndindex(x.shape):
        step = numpy.zeros_like(x)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


# ---- hand-written derivatives against finite differences (NumPy, small sizes) ----


def test_chain_derivatives_match_finite_differences():
    for x in (0.5, numpy.array([0.1, -0.7, 2.0])):
        numeric = central_gradient(lambda v: numpy.sum(overhead.chain(v, numpy, steps=30)), x)
        numpy.testing.assert_allclose(overhead.chain_derivative(x, numpy, steps=30), numeric, rtol=1e-7)
    numeric = central_gradient(lambda v: overhead.recurrence(v, numpy, steps=200), 0.5)
    numpy.testing.assert_allclose(overhead.recurrence_derivative(0.5, numpy, steps=200), numeric, rtol=1e-7)


def _perturbed(params, rng):
    return peers.tree_map(lambda p: p + 0.1 * rng.standard_normal(p.shape), params)


def _check_hand_gradient(loss, params, hand):
    """Each array of ``hand`` (structured as ``params``) against central differences of ``loss(params)``."""
    leaves = peers.tree_leaves(params)
    for index, (param, expected) in enumerate(zip(leaves, peers.tree_leaves(hand))):

        def loss_of(value, index=index):
            return loss(peers.tree_unflatten(params, leaves[:index] + (value,) + leaves[index + 1 :]))

        numpy.testing.assert_allclose(expected, central_gradient(loss_of, param), rtol=1e-6, atol=1e-9)


def test_mlp_hand_gradient_matches_finite_differences():
    rng = numpy.random.default_rng(3)
    params = _perturbed(mlp.init_params((4, 5, 3, 3), rng), rng)
    x, y = rng.uniform(0, 1, (6, 4)), mlp.one_hot(rng.integers(0, 3, 6), 3)
    hand = mlp.hand_grad(params, x, y, numpy)
    assert isinstance(hand, list) and all(isinstance(pair, tuple) for pair in hand)
    _check_hand_gradient(lambda p: mlp.loss(p, x, y, numpy), params, hand)


def test_deep_network_hand_gradient_matches_finite_differences():
    rng = numpy.random.default_rng(4)
    params = _perturbed(mlp.init_params((3, 3, 3, 3), rng), rng)
    x = rng.standard_normal((2, 3))
    _check_hand_gradient(lambda p: mlp.deep_loss(p, x, numpy), params, mlp.deep_hand_grad(params, x, numpy))


def test_rosenbrock_hessian_matches_finite_differences():
    x = numpy.random.default_rng(5).uniform(-2.0, 2.0, 5)

    def gradient(z):
        return central_gradient(partial(curvature.rosenbrock, np=numpy), z, h=1e-4)

    numeric = numpy.stack([central_gradient(lambda z, i=i: gradient(z)[i], x, h=1e-4) for i in range(5)])
    numpy.testing.assert_allclose(curvature.rosenbrock_hessian(x, numpy), numeric, rtol=1e-5, atol=1e-4)


def test_elementwise_hand_gradient_matches_finite_differences():
    x = numpy.linspace(-2.0, 2.0, 7)
    numeric = central_gradient(partial(elementwise.damped_square, np=numpy), x)
    numpy.testing.assert_allclose(elementwise.damped_square_grad(x, numpy), numeric, rtol=1e-7)


def test_curvature_hand_derivatives_match_finite_differences():
    A, x, v = curvature.layer_inputs(5, seed=4)
    jacobian = numpy.stack([central_gradient(lambda z, i=i: curvature.tanh_layer(z, A, numpy)[i], x) for i in range(5)])
    numpy.testing.assert_allclose(curvature.tanh_layer_jacobian(x, A, numpy), jacobian, rtol=1e-7)

    def gradient(z):
        return central_gradient(lambda w: curvature.tanh_energy(w, A, numpy), z, h=1e-4)

    t = 1e-4
    numeric_hvp = (gradient(x + t * v) - gradient(x - t * v)) / (2 * t)
    numpy.testing.assert_allclose(curvature.tanh_energy_hvp(x, v, A, numpy), numeric_hvp, rtol=1e-5, atol=1e-7)


def test_per_example_hand_derivatives_match_finite_differences():
    params, X, Y = batching.mlp_inputs(seed=7)
    X, Y = X[:3], Y[:3]
    hand = batching.squared_error_gradients(params, X, Y, numpy)
    for i in range(3):
        for position, parameter in enumerate(params):

            def loss(value, i=i, position=position):
                moved = params[:position] + (value,) + params[position + 1 :]
                return batching.squared_error(moved, X[i], Y[i], np=numpy)

            numpy.testing.assert_allclose(hand[position][i], central_gradient(loss, parameter), rtol=1e-6, atol=1e-8)
    A, _, _ = curvature.layer_inputs(4, seed=8)
    rng = numpy.random.default_rng(9)
    X, V = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    one_at_a_time = [curvature.tanh_energy_hvp(x, v, A, numpy) for x, v in zip(X, V)]
    numpy.testing.assert_allclose(batching.energy_hvps(X, V, A, numpy), one_at_a_time, rtol=1e-12)


def test_norm_hand_gradient_matches_finite_differences():
    x, A, B = norms.row_inputs(4, seed=6)
    for index, value in enumerate((x, A, B)):

        def part(v, index=index):
            inputs = [x, A, B]
            inputs[index] = v
            return norms.norm_sum(tuple(inputs), numpy)

        numpy.testing.assert_allclose(norms.norm_sum_grad((x, A, B), numpy)[index], central_gradient(part, value), rtol=1e-6)


def test_norm_workload_times_every_variant(small, monkeypatch, tmp_path):
    monkeypatch.setattr(norms, "ROW_SIZE", 5)
    monkeypatch.setattr(norms, "SIZES", (4,))
    monkeypatch.setattr(norms, "CALL_SECONDS", 1e-4)
    assert main(["--quick", "--only", "norm", "--peers", "autograd", "--json", str(tmp_path / "r.json")]) == 0
    (workload,) = json.loads((tmp_path / "r.json").read_text())["workloads"]
    assert workload["id"] == "n" and {"hand-written", "adcore", "autograd"} == workload["contenders"].keys()
    variants = workload["variants"]
    assert [entry["variant"] for entry in variants] == [name for name, *_ in norms.VARIANTS]
    for entry, (_, _, _, autograd_differentiates) in zip(variants, norms.VARIANTS):
        assert entry["untraced_ratio"] > 0 and (entry["grad_ratio"] is not None) == autograd_differentiates
    assert "x autograd's gradient" in workload["target"]["value"] and "x NumPy" in workload["target"]["value"]


# ---- the MLP loss on every backend ----


def test_mlp_gradient_equals_hand_written(backend):
    rng = numpy.random.default_rng(1)
    params = peers.tree_map(backend.asarray, _perturbed(mlp.init_params((6, 8, 8, 3), rng), rng))
    x, y = backend.asarray(rng.uniform(0, 1, (5, 6))), backend.asarray(mlp.one_hot(rng.integers(0, 3, 5), 3))
    ours = adcore.grad(mlp.loss)(params, x, y)
    hand = mlp.hand_grad(params, x, y, backend.backend.xp)
    assert isinstance(ours, list) and all(isinstance(pair, tuple) for pair in ours)
    for gradient, expected, param in zip(*map(peers.tree_leaves, (ours, hand, params))):
        backend.check_device(gradient)
        assert gradient.shape == param.shape and gradient.dtype == param.dtype
        numpy.testing.assert_allclose(backend.to_numpy(gradient), backend.to_numpy(expected), rtol=1e-10, atol=1e-14)


# ---- runs of the suite ----

WORKLOAD_KEYS = {"id", "title", "unit", "contenders", "skipped", "target"}
ENTRY_KEYS = {"seconds", "memory_bytes", "kernels", "hand-written", "autograd"}


@pytest.fixture
def small(monkeypatch):
    """Workloads shrunk so that a run takes seconds: short chains, a low accuracy to reach."""
    monkeypatch.setattr(overhead, "STEPS", 50)
    monkeypatch.setattr(overhead, "RECURRENCE_STEPS", {True: (400, 100), False: (400, 100)})
    monkeypatch.setattr(digits, "TARGET_ACCURACY", {True: 0.5, False: 0.5})
    monkeypatch.setattr(elementwise, "SIZE", {True: 1000, False: 1000})


@pytest.mark.full  # every workload, plotted and written to README (the default run keeps the shorter runs of main below)
def test_quick_run_writes_json_plot_and_readme(small, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    paths = {name: tmp_path / name for name in ("r.json", "r.png", "README.md")}
    paths["README.md"].write_text(f"# title\n{report.README_START}\nold\n{report.README_END}\ntail\n")
    argv = ["--quick", "--only", "a,recurrence", "--only", "d", "--peers", "autograd", "--json", str(paths["r.json"])]
    assert main(argv + ["--plot", str(paths["r.png"]), "--readme", str(paths["README.md"])]) == 0
    results = json.loads(paths["r.json"].read_text())
    assert {"command", "date", "quick", "machine", "peers", "skipped_peers", "workloads", "total_seconds"} == results.keys()
    assert {"platform", "cpu_count", "versions", "backend", "device", "threads"} <= results["machine"].keys()
    assert results["machine"]["threads"].startswith("1 thread per pool (openblas")
    assert [w["id"] for w in results["workloads"]] == ["a", "d", "g"]
    for workload in results["workloads"]:
        assert WORKLOAD_KEYS <= workload.keys()
        assert {"hand-written", "adcore", "autograd"} <= workload["contenders"].keys()
        for entry in workload["contenders"].values():
            assert ENTRY_KEYS <= entry.keys() and entry["seconds"] > 0
        assert workload["contenders"]["hand-written"]["hand-written"] == 1.0
        assert workload["skipped"]["torch"] == "not asked for (--peers)"
        assert set(workload["target"]) == {"goal", "value", "met"}
    a, d, g = results["workloads"]
    assert a["contenders"]["adcore"]["us_per_primitive"] > 0
    assert a["target"]["met"] is None  # torch was not timed
    assert all(d["contenders"][name]["memory_bytes"] > 0 for name in ("hand-written", "adcore", "autograd"))
    assert d["contenders"]["hand-written"]["kernels"] == 9  # tanh, negative, exp, t * t, 1 - ..., 2 * ..., ... - t, 2 products
    assert d["contenders"]["adcore"]["kernels"] > 9 and d["contenders"]["autograd"]["kernels"] is None
    assert g["contenders"]["adcore"]["linearity"] > 0 and "a per primitive" in g["target"]["value"]
    assert paths["r.png"].read_bytes().startswith(b"\x89PNG")
    text = paths["README.md"].read_text()
    assert text.startswith(f"# title\n{report.README_START}\nMeasured with `python -m benchmarks --quick")
    assert "| a | adcore |" in text and "old" not in text and text.endswith(f"{report.README_END}\ntail\n")
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 80, "the table fits an 80-column terminal"
    assert re.search(r"peak MiB +kernels", out) and re.search(r"\nd hand-written .* 9 *\n", out)
    assert "| kernels |" in text
    assert "1 thread per pool (openblas" in out and "a scalar-chain: " in out and "d elementwise: " in out  # header, progress
    joined = " ".join(out.split())
    assert "not checked: torch not asked for (--peers)" in joined
    assert not re.search(r"adcore: [^;:]*x torch", joined), "no torch ratio is measured (the goal may name torch)"
    paths["README.md"].write_text(f"{report.README_START}\n{report.README_END}\n")
    assert readme.main([str(paths["r.json"]), str(paths["README.md"])]) == 0
    assert "| a | adcore |" in paths["README.md"].read_text()


def test_digits_mlp_deep_and_hessian_workloads(small, monkeypatch, tmp_path):
    monkeypatch.setattr(mlp, "SIZES", (20, 16, 16, 10))
    monkeypatch.setattr(mlp, "BATCH", 8)
    monkeypatch.setattr(mlp, "DEEP_LAYERS", 4)
    monkeypatch.setattr(curvature, "ROSENBROCK_SIZE", 6)
    argv = ["--quick", "--only", "c,h,i,k", "--peers", "autograd", "--json", str(tmp_path / "r.json")]
    assert main(argv) == 0
    workloads = json.loads((tmp_path / "r.json").read_text())["workloads"]
    assert [w["id"] for w in workloads] == ["c64", "c32", "h", "i", "k"]
    assert workloads[1]["dtype"] == "float32"
    h = workloads[2]
    assert h["steps"] >= 1 and h["contenders"]["adcore"]["test_accuracy"] >= 0.5 and h["target"] is None
    for workload in workloads[3:]:
        assert "x autograd" in workload["target"]["value"] and workload["contenders"]["autograd"]["autograd"] == 1.0


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_vmap_workload_checks_every_contender_against_the_batched_hand_derivative(small, monkeypatch, tmp_path):
    monkeypatch.setattr(batching, "EXAMPLES", 5)
    argv = ["--quick", "--only", "vmap", "--peers", "adcore.jit,torch", "--json", str(tmp_path / "r.json")]
    assert main(argv) == 0
    workloads = json.loads((tmp_path / "r.json").read_text())["workloads"]
    assert [w["id"] for w in workloads] == ["v1", "v2"]
    for workload in workloads:
        assert set(workload["contenders"]) == {"hand-written", "adcore", "adcore.jit", "torch", batching.LOOP}
        assert "x the loop" in workload["target"]["value"] and "x torch" in workload["target"]["value"]
        assert workload["skipped"]["autograd"] == "has no vmap"


KERNEL_BACKENDS = [name for name in ("numpy", "array_api_strict", "torch") if backends.unavailable_reason(name) is None]


@pytest.mark.parametrize("name", KERNEL_BACKENDS)
def test_kernels_count_new_arrays_not_views(name):
    """Each backend counts alike: a product and a sum make new arrays, a reshape is a view; the inputs (a
    partial's) are counted wherever they are used."""
    backend = backends.get_backend(name)
    x = backend.from_numpy(numpy.linspace(0.1, 1.0, 6))

    def two_launches(x, xp):
        return xp.reshape(x * 2.0, (2, 3)) + 1.0

    assert kernels.kernels(name, partial(two_launches, x, backend.xp)) == 2


def test_kernels_of_a_small_gradient_on_numpy():
    """grad of sum(x * x) on NumPy: the forward pass's product and sum; grad's seed of ones pulled back through
    the sum and the product makes each argument's cotangent x itself (``adcore.core.Ones``, lent, no product),
    and the two cotangents are summed into a new array: 3."""
    x = numpy.linspace(0.1, 1.0, 5)
    assert kernels.kernels("numpy", partial(adcore.grad(lambda x: adcore.numpy.sum(x * x)), x)) == 3
    assert kernels.kernels("dask", partial(adcore.grad(lambda x: adcore.numpy.sum(x * x)), x)) is None
    with pytest.raises(TypeError, match="kernels: a call to count on numpy must be a functools.partial"):
        kernels.kernels("numpy", lambda: None)


def test_wrong_gradient_exits_1(small, monkeypatch, tmp_path, capsys):
    right = overhead.chain_derivative
    monkeypatch.setattr(overhead, "chain_derivative", lambda *args, **kwargs: right(*args, **kwargs) * 1.001)
    assert main(["--quick", "--only", "a", "--peers", "autograd", "--json", str(tmp_path / "r.json")]) == 1
    err = capsys.readouterr().err
    assert "workload a, adcore: largest difference" in err and "workload a, autograd" in err
    assert not (tmp_path / "r.json").exists()


def test_missing_peer_is_reported(small, monkeypatch, tmp_path, capsys):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "autograd" else find_spec(name, *a))
    assert main(["--quick", "--only", "b", "--peers", "autograd", "--json", str(tmp_path / "r.json")]) == 0
    results = json.loads((tmp_path / "r.json").read_text())
    assert results["skipped_peers"]["autograd"] == "not installed"
    assert results["workloads"][0]["contenders"]["adcore"]["autograd"] is None
    assert "autograd: not installed" in capsys.readouterr().out


def test_threads_are_pinned_for_every_library_and_restored():
    torch = pytest.importorskip("torch")
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = ({pool["prefix"]: pool["num_threads"] for pool in threadpoolctl.threadpool_info()}, torch.get_num_threads())
    pins = ThreadPins(1)
    pins.apply()
    try:
        assert {pool["num_threads"] for pool in threadpoolctl.threadpool_info()} == {1} and torch.get_num_threads() == 1
        assert pins.describe().startswith("1 thread per pool (") and "torch" in pins.describe()
    finally:
        pins.restore()
    assert ({pool["prefix"]: pool["num_threads"] for pool in threadpoolctl.threadpool_info()}, torch.get_num_threads()) == before
    assert ThreadPins(None).describe() == "thread pools at the libraries' defaults (--threads 0)"
    assert parse_args(["--threads", "3"]).threads == 3
    with pytest.raises(SystemExit):
        parse_args(["--threads", "-1"])


def test_peers_outside_numpy_backend():
    _, skipped = peers.load_peers(adcore.get_backend("array_api_strict"), "cpu", wanted=("autograd",))
    assert skipped["autograd"].startswith("NumPy only")


def test_only_takes_letters_and_names():
    assert parse_args(["--only", "h,scalar-chain", "--only", "jacobian"]).only == ["a", "f", "h"]
    assert parse_args(["--only", "hessian,k"]).only == ["i", "k"]
    assert parse_args([]).only == list("abcdefghiknv")
    with pytest.raises(SystemExit):
        parse_args(["--only", "z"])
    with pytest.raises(SystemExit):
        parse_args(["--peers", "tensorflow"])


def test_readme_without_markers_is_an_error(tmp_path):
    path = tmp_path / "README.md"
    path.write_text("no markers\n")
    with pytest.raises(ValueError, match="update_readme: .* needs the lines"):
        report.update_readme({}, path)


@pytest.mark.full  # a subprocess running workloads on strict arrays
def test_command_line_on_array_api_strict(tmp_path):
    path = tmp_path / "r.json"
    command = [sys.executable, "-m", "benchmarks", "--quick", "--only", "e", "--peers", "", "--backend", "array_api_strict"]
    run = subprocess.run(command + ["--json", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    results = json.loads(path.read_text())
    assert results["machine"]["backend"] == "array_api_strict"
    assert results["workloads"][0]["contenders"]["adcore"]["hand-written"] > 0


def test_gpu_check_runs_on_a_bare_machine():
    """benchmarks/gpu_check.sh calls ``$PYTHON`` (python3 by default: a bare GPU image has no ``python``), installs
    only from a WHEELS folder (pip without a network retries for minutes), and gives JAX its own bounded run."""
    script = (ROOT / "benchmarks" / "gpu_check.sh").read_text()
    code = [line.split("#")[0] for line in script.splitlines() if not line.lstrip().startswith("#")]
    assert not [line for line in code if re.search(r"(^|[\s;(|])python3?\s", line)], "a bare python or python3 call"
    assert 'py="${PYTHON:-python3}"' in script
    installs = [line for line in code if "pip install" in line]
    assert installs and all("--no-index" in line for line in installs), installs
    assert '"${JAX_TIMEOUT:-' in script


def test_client_abba_keeps_each_tests_faster_run_and_every_failure(tmp_path):
    """``benchmarks.clients --abba``: of a side's two runs of a file, each test's phases come from the run where it
    took least time, unless it failed in one (then that run's, so the failure is counted)."""
    from benchmarks.clients.side_by_side import _fastest_per_test, read_report

    def report(name, tests):
        path = tmp_path / name
        lines = [
            {"$report_type": "TestReport", "nodeid": test, "when": when, "outcome": outcome, "duration": seconds / 2}
            for test, (outcome, seconds) in tests.items()
            for when in ("setup", "call")
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return path

    first = report("first", {"t::a": ("passed", 2.0), "t::b": ("passed", 1.0), "t::c": ("passed", 1.0)})
    second = report("second", {"t::a": ("passed", 1.0), "t::b": ("passed", 3.0), "t::c": ("failed", 5.0)})
    merged = tmp_path / "merged"
    merged.write_text(_fastest_per_test([first, second]))
    run = read_report(merged, 0.0)
    assert run.durations == {"t::a": 1.0, "t::b": 1.0, "t::c": 5.0}
    assert run.outcomes == {"t::a": "passed", "t::b": "passed", "t::c": "failed"}
