"""Errors that say what to do: a backend or an extra that is not installed, CuPy without a GPU, a base
install (``pip install adcore``: NumPy and array-api-compat only), another library's function called
on a traced array, ``odeint``'s ``args``, and a rule whose cotangent or tangent has the wrong shape or
dtype (``adcore.set_debug``).

A missing library is simulated in a fresh interpreter whose imports of it fail as they do where it is
not installed (``ModuleNotFoundError``), so these run on any machine.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

import adcore
import adcore.numpy as np
import backends
from adcore import grad, make_jvp
from adcore.extend import defjvp, defvjp, primitive
from adcore.scipy.integrate import odeint
from adcore.test_util import check_grads

#: Everything but NumPy and array-api-compat, adcore's only dependencies.
OPTIONAL = ("scipy", "rich", "torch", "jax", "dask", "cupy", "cupyx", "array_api_strict", "sklearn", "autograd", "matplotlib")


def run_without(modules, code):
    """Run ``code`` in a fresh interpreter where importing any of ``modules`` fails as if it were not installed;
    returns what it printed, parsed as JSON."""
    blocker = f"""
import sys

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {tuple(modules)!r}:
            raise ModuleNotFoundError(f"No module named {{name.partition('.')[0]!r}}", name=name.partition(".")[0])

sys.meta_path.insert(0, NotInstalled())
"""
    run = subprocess.run(
        [sys.executable, "-c", blocker + textwrap.dedent(code)], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


def test_a_backend_not_installed_names_its_extra():
    errors = run_without(
        ["torch", "jax", "dask", "cupy", "array_api_strict"],
        """
        import json
        import adcore
        errors = {}
        for name in ("torch", "jax", "dask", "cupy", "array_api_strict"):
            try:
                adcore.set_backend(name)
            except ImportError as error:
                errors[name] = str(error)
        print(json.dumps(errors))
        """,
    )
    assert errors["torch"] == (
        "adcore's torch backend needs PyTorch, which is not installed here (No module named 'torch'); "
        'pip install "adcore[torch]"'
    )
    assert errors["jax"].endswith('pip install "adcore[jax]"')
    assert errors["dask"].endswith('pip install "adcore[dask]"')
    assert errors["cupy"].endswith('pip install "adcore[cuda12]" or pip install "adcore[cuda13]"')
    assert errors["array_api_strict"].endswith('pip install "adcore[test]"')


def test_cupy_without_a_gpu_says_so():
    reason = backends.unavailable_reason("cupy")
    if reason is None or "needs CuPy" in reason:
        pytest.skip("CuPy runs here, or is not installed (tested above)")
    with pytest.raises(RuntimeError, match=r"^the cupy backend needs an NVIDIA GPU and its driver; CuPy finds none \(cuda"):
        adcore.set_backend("cupy")


def test_base_install_imports_every_module_and_names_the_scipy_extra():
    """Every module of adcore imports with NumPy and array-api-compat alone; what needs SciPy says which
    extra installs it; what the standard can build runs; ``python -m adcore.coverage`` prints its table."""
    found = run_without(
        OPTIONAL,
        """
        import contextlib, io, json, pkgutil, importlib
        import adcore
        import adcore.numpy as np
        failed = {}
        for module in pkgutil.walk_packages(adcore.__path__, "adcore."):
            try:
                importlib.import_module(module.name)
            except ImportError as error:
                failed[module.name] = str(error)
        from adcore.scipy import integrate, linalg, special
        from adcore.coverage import main
        errors = {}
        calls = {
            "special.gammaln": lambda: special.gammaln(np.ones(2)),
            "linalg.lu_factor": lambda: linalg.lu_factor(np.eye(2)),
            "integrate.odeint": lambda: integrate.odeint(lambda y, t: -y, np.ones(1), np.linspace(0.0, 1.0, 3)),
        }
        for name, call in calls.items():
            try:
                call()
            except ImportError as error:
                errors[name] = str(error)
        expit = float(adcore.grad(lambda x: special.expit(x))(0.0))
        solved = linalg.solve_triangular(np.eye(2), np.ones(2)).tolist()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            main([])
        print(json.dumps({"failed": failed, "errors": errors, "expit": expit, "solved": solved, "coverage": out.getvalue()}))
        """,
    )
    assert found["failed"] == {}
    missing = 'on the numpy backend needs SciPy, which is not installed here; pip install "adcore[scipy]"'
    assert found["errors"] == {
        "special.gammaln": f"scipy.special {missing}",
        "linalg.lu_factor": f"scipy.linalg {missing}",
        "integrate.odeint": f"scipy.integrate {missing}",
    }
    assert found["expit"] == 0.25
    assert found["solved"] == [1.0, 1.0]
    assert "numpy.linalg" in found["coverage"] and "vjp+jvp" in found["coverage"]


def test_a_torch_function_on_a_traced_array_names_adcores():
    torch = pytest.importorskip("torch")
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(TypeError, match=r"^torch\.sin: called on an array adcore is differentiating, .* np\.sin\(x\)"):
        grad(lambda x: np.sum(torch.sin(x)))(x)
    with pytest.raises(TypeError, match=r"^torch\.relu: .*array_namespace"):
        grad(lambda x: np.sum(torch.nn.functional.relu(x)))(x)
    numpy.testing.assert_array_equal(grad(lambda y: np.sum(x * y + x @ y))(x).numpy(), [4.0, 4.0, 4.0])  # tensor operators defer


def test_odeint_args_must_be_a_tuple():
    with pytest.raises(
        TypeError, match=r"odeint: args must be a tuple of func's extra arguments \(args=\(k,\) for one\), not float$"
    ):
        odeint(lambda y, t, k: -k * y, numpy.ones(2), numpy.linspace(0.0, 1.0, 3), args=0.5)


# ---- a rule whose output has the wrong shape or dtype ----


@primitive
def summed_twice(x):
    """``2 x``, whose rules below wrongly sum their output to a scalar."""
    return 2.0 * x


defvjp(summed_twice, lambda ans, x: lambda g: 2.0 * np.sum(g))
defjvp(summed_twice, lambda g, ans, x: 2.0 * np.sum(g))


@primitive
def widened(x):
    """``x``, whose VJP wrongly returns float64 for float32."""
    return x


defvjp(widened, lambda ans, x: lambda g: np.astype(g, "float64"))
defjvp(widened, lambda g, ans, x: g)


def loss(x):
    return np.sum(summed_twice(x) * x)


def total(x):
    return np.sum(summed_twice(x))


@pytest.fixture
def debug():
    adcore.set_debug(True)
    yield
    adcore.set_debug(False)


def test_a_wrong_cotangent_shape_is_caught_at_the_end_of_the_pass():
    """Where the wrong cotangent reaches the input alone; added to another, it broadcasts (``loss``): then only
    ``set_debug`` catches it."""
    with pytest.raises(ValueError, match=r"the derivative of total has shape \(\) instead of \(3,\), its input's: .*set_debug"):
        grad(total)(numpy.ones(3))
    assert grad(loss)(numpy.ones(3)).shape == (3,)


def test_debug_names_the_rule_its_argnum_and_the_shapes(debug):
    with pytest.raises(
        ValueError, match=r"^the VJP of summed_twice for argnum 0 returned a cotangent of shape \(\) instead of \(3,\)"
    ):
        grad(loss)(numpy.ones(3))
    with pytest.raises(ValueError, match=r"^the JVP of summed_twice for argnum 0 returned a tangent of shape \(\) instead of"):
        make_jvp(loss)(numpy.ones(3))(numpy.ones(3))
    with pytest.raises(ValueError, match=r"^the VJP of widened for argnum 0 returned a cotangent of dtype float64 instead of"):
        grad(lambda x: np.sum(widened(x) * x))(numpy.ones(3, dtype="float32"))


def test_check_grads_checks_every_rule():
    with pytest.raises(ValueError, match=r"the JVP of summed_twice for argnum 0 returned a tangent of shape \(\)"):
        check_grads(loss)(numpy.ones(3))
    with pytest.raises(ValueError, match=r"the VJP of widened for argnum 0 .* dtype float64 instead of float32"):
        check_grads(lambda x: np.sum(widened(x) * x), modes=("rev",), order=1)(numpy.ones(3, dtype="float32"))


def test_adcore_debug_turns_the_checks_on_for_the_process():
    code = """
        import sys
        import adcore.numpy as np
        from adcore import grad
        from adcore.extend import defvjp, primitive
        f = primitive(lambda x: 2.0 * x)
        defvjp(f, lambda ans, x: lambda g: np.sum(g))
        try:
            grad(lambda x: np.sum(f(x)))(np.ones(2))
        except ValueError as error:
            print(error)
    """
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "ADCORE_DEBUG": "1"},
    )
    assert run.stdout.startswith("the VJP of <lambda> for argnum 0 returned a cotangent of shape ()"), run.stdout
