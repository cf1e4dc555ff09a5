"""``adcore.compat.autograd``: code written for autograd 1.9.1 runs on adcore through its own imports.

``install()`` maps every module path of autograd to an adcore module (``MODULES``), ahead of an
installed autograd; ``python -m adcore.compat.autograd SCRIPT [ARGS]`` runs a script that way.
The fixture ``alias`` installs it for one test and puts ``sys.modules`` back afterwards.
"""

import importlib
import importlib.util
import subprocess
import sys
import textwrap
import types

import numpy
import pytest

import adcore
import adcore.numpy
import adcore.test_util
from adcore.compat import autograd as alias

AUTOGRAD_INSTALLED = importlib.util.find_spec("autograd") is not None and alias._finder not in sys.meta_path


@pytest.fixture
def aliased():
    saved = {name: module for name, module in sys.modules.items() if name == "autograd" or name.startswith("autograd.")}
    alias.install()
    yield
    alias.uninstall()
    sys.modules.update(saved)


@pytest.mark.parametrize("path", sorted(alias.MODULES))
def test_every_module_path_offers_the_adcore_modules_names(path, aliased):
    module = importlib.import_module(path)
    target = importlib.import_module(alias.MODULES[path])
    public = getattr(target, "__all__", None) or [name for name in dir(target) if not name.startswith("_")]
    for name in public:
        value = getattr(target, name)
        if not isinstance(value, types.ModuleType):
            assert getattr(module, name) is value, f"{path}.{name}"


def test_importing_module_paths_leaves_adcore_attributes_in_place(aliased):
    # the import system sets the parent's attribute named after a module it loads: the parents are the
    # alias's own modules, never adcore's (autograd.misc.flatten is the function, as autograd's is)
    targets = {name: importlib.import_module(target) for name, target in alias.MODULES.items()}
    before = {name: dict(vars(module)) for name, module in targets.items()}
    for path in sorted(alias.MODULES):
        importlib.import_module(path)
    for name, module in targets.items():
        changed = {key for key, value in vars(module).items() if before[name].get(key, value) is not value}
        added = set(vars(module)) - set(before[name])
        assert not changed and not added, f"{alias.MODULES[name]}: {sorted(changed | added)} set"
    import autograd.misc

    assert autograd.misc.flatten is adcore.misc.flatten is importlib.import_module("adcore.misc.flatten").flatten


def test_autograd_programs_import_adcore(aliased):
    import autograd.numpy as np
    import autograd.numpy.random as npr
    from autograd import dict, grad, isinstance, list, primitive, tuple, type  # noqa: A004
    from autograd.scipy.stats import norm

    # autograd.numpy holds adcore.numpy's names, but for the joining functions that take any iterable
    assert np.sum is adcore.numpy.sum and np.linalg.inv is adcore.numpy.linalg.inv and np.ArrayBox is adcore.numpy.ArrayBox
    assert npr.normal is adcore.numpy.random.normal and grad is adcore.grad
    assert primitive is adcore.core.primitive and norm.logpdf is importlib.import_module("adcore.scipy.stats.norm").logpdf
    import autograd.core  # served by adcore.compat.autograd_core, leaving adcore.core in place

    assert adcore.core is sys.modules["adcore.core"] and autograd.core.defvjp is adcore.core.defvjp
    assert autograd.core.primitive is not adcore.core.primitive  # the one with autograd's deprecated methods
    assert (isinstance, type, tuple, list, dict) == (adcore.isinstance, adcore.type, adcore.tuple, adcore.list, adcore.dict)
    assert grad(lambda x: np.sum(np.tanh(x) ** 2))(numpy.zeros(3)).tolist() == [0.0, 0.0, 0.0]


def test_autograd_helpers_that_libraries_import(aliased):
    """The names beyond NumPy's that libraries written for autograd import."""
    import autograd.numpy as np
    from autograd.differential_operators import make_jvp_reversemode
    from autograd.extend import JVPNode, VJPNode, defvjp, primitive, register_notrace
    from autograd.numpy.numpy_vjps import unbroadcast_f
    from autograd.test_util import check_grads, combo_check
    from autograd.util import func, subvals
    from autograd.wrap_util import unary_to_nary

    assert func(len) is len and subvals((1, 2, 3), [(0, 5), (2, 6)]) == (5, 2, 6)
    assert make_jvp_reversemode(lambda x: x**3)(2.0)(1.0) == 12.0
    assert unary_to_nary is adcore.operators.unary_to_nary
    assert check_grads is adcore.test_util.check_grads

    @primitive
    def scale(x, y):
        return x * y

    # the VJP of a broadcast argument summed back to its shape (autograd's unbroadcast_f)
    defvjp(scale, lambda ans, x, y: unbroadcast_f(x, lambda g: g * y), lambda ans, x, y: unbroadcast_f(y, lambda g: g * x))
    check_grads(scale, modes=["rev"], order=1)(numpy.ones((2, 3)), numpy.arange(3.0))
    combo_check(np.sum, [0], modes=["fwd", "rev"])([numpy.ones(3), numpy.ones((2, 3))], axis=[None, 0])

    counted = primitive(lambda x: np.floor(x) * x)
    register_notrace(VJPNode, counted)
    register_notrace(JVPNode, counted)
    assert adcore.grad(lambda x: counted(x) + x)(1.5) == 1.0
    assert adcore.make_jvp(lambda x: counted(x) + x)(1.5)(1.0)[1] == 1.0
    with pytest.raises(TypeError, match="trace_type must be VJPNode or JVPNode"):
        register_notrace(object, counted)


def test_install_takes_over_an_imported_autograd_and_uninstall_gives_it_back():
    code = textwrap.dedent(
        """
        import autograd.numpy
        from adcore.compat.autograd import install, uninstall
        install(); install()
        import autograd.numpy as np
        import adcore.numpy
        assert np.sum is adcore.numpy.sum
        uninstall()
        import autograd.numpy as np
        assert np.sum is not adcore.numpy.sum and np.__name__ == "autograd.numpy"
        print("ok")
        """
    )
    if not AUTOGRAD_INSTALLED:
        pytest.skip("autograd is not installed (pip install autograd): the take-over cannot be shown")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


SCRIPT = """
import sys
import autograd.numpy as np
from autograd import grad

def loss(w):
    return np.sum(np.log1p(np.exp(-w * np.arange(1.0, 4.0))))

print(__name__, sys.argv[1:], np.sum is __import__("adcore.numpy").numpy.sum)
print(repr(float(grad(loss)(float(sys.argv[1])))))
"""


def test_running_a_script_under_the_alias(tmp_path):
    """``python -m adcore.compat.autograd SCRIPT ARGS``: ``sys.argv`` is the script and its arguments,
    ``__name__`` is ``"__main__"``, and the script's folder is on ``sys.path``, as for ``python SCRIPT``."""
    script = tmp_path / "program.py"
    script.write_text(SCRIPT)
    (tmp_path / "helper.py").write_text("VALUE = 3\n")
    result = subprocess.run(
        [sys.executable, "-m", "adcore.compat.autograd", str(script), "0.5", "--flag"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    header, value = result.stdout.splitlines()
    assert header == "__main__ ['0.5', '--flag'] True"
    k = numpy.arange(1.0, 4.0)
    assert float(value) == pytest.approx(float(numpy.sum(-k * numpy.exp(-0.5 * k) / (1 + numpy.exp(-0.5 * k)))), rel=1e-12)
    module = subprocess.run(
        [sys.executable, "-m", "adcore.compat.autograd", "-m", "program", "0.5"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert module.returncode == 0, module.stderr
    assert module.stdout.splitlines()[0] == "__main__ ['0.5'] True"


def test_usage_is_printed_without_a_script():
    result = subprocess.run([sys.executable, "-m", "adcore.compat.autograd"], capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert "usage: python -m adcore.compat.autograd (SCRIPT | -m MODULE) [ARGS]" in result.stdout


# ---- issue 26 class 15: NumPy's array of traced scalars under the alias ----

#: what autograd 1.8 and 1.9.1 differentiate through NumPy's object array of their boxes (``numpy.array``
#: of a tuple of traced scalars): NumPy's object loops call the boxes' operators, so the result stays traced
OBJECT_ARRAY_USES = {
    "sum": lambda np, a: np.sum(a),
    "numpy.sum": lambda np, a: numpy.sum(a),
    "times a constant": lambda np, a: np.sum(a * 2.0),
    "an item": lambda np, a: a[1],
    "matmul": lambda np, a: np.sum(np.matmul(numpy.eye(2), a)),
    "max": lambda np, a: np.max(a),
    "where": lambda np, a: np.sum(np.where(True, a, 0.0)),
    "stack": lambda np, a: np.sum(np.stack(a)),
    "norm": lambda np, a: np.linalg.norm(a),
}


@pytest.mark.parametrize("use", OBJECT_ARRAY_USES)
def test_numpy_array_of_traced_scalars_stays_traced_under_the_alias(use, aliased):
    import autograd.numpy as np
    from autograd import grad

    def f(x):
        return OBJECT_ARRAY_USES[use](np, numpy.array((x[0] * x[1], x[0] ** 2)))

    x = numpy.array([0.5, 2.0])
    expected = adcore.grad(lambda x: OBJECT_ARRAY_USES[use](adcore.numpy, adcore.numpy.stack([x[0] * x[1], x[0] ** 2])))(x)
    numpy.testing.assert_allclose(grad(f)(x), expected)


def test_numpy_array_of_traced_values_refused_where_it_would_lose_the_derivative(aliased):
    """Returned from a differentiated function (autograd's jacobian is then zeros, silently), or made numbers
    (a dtype, a cast), NumPy's array of traced values raises; outside the alias it is refused at once."""
    import autograd.numpy as np
    from autograd import grad, jacobian

    x = numpy.array([0.5, 2.0])
    with pytest.raises(TypeError, match="derivative would be lost"):
        jacobian(lambda x: numpy.array((x[0] * x[1], x[0] ** 2)))(x)
    with pytest.raises(TypeError, match="derivative would be lost"):  # a 0-d object array (a tensordot's)
        grad(lambda x: np.dot(numpy.array((x[0], x[1])), numpy.array([1.0, 3.0])))(x)
    with pytest.raises(TypeError, match="cannot become a NumPy array"):
        grad(lambda x: adcore.numpy.sum(numpy.array((x[0], x[1]), dtype=float)))(x)
    alias.uninstall()
    with pytest.raises(TypeError, match="cannot become a NumPy array"):
        adcore.grad(lambda x: adcore.numpy.sum(numpy.array((x[0], x[1]))))(x)


def test_a_namespace_copied_from_an_alias_module_keeps_its_own_attribute_lookup(aliased):
    """A library that copies every callable of ``vars(autograd.numpy)`` into its own module (to wrap
    each function, as autograd's namespace holds only its names) and then imports its own submodule
    ``random`` gets its own module: an alias module holds no attribute hook in its namespace to copy,
    and still gives the adcore module's other names."""
    import autograd.numpy

    library = types.ModuleType("library_wrapping_autograd_numpy")
    functions = {key: value for key, value in vars(autograd.numpy).items() if callable(value) and not isinstance(value, type)}
    library.__dict__.update(functions)
    assert not hasattr(library, "random")
    assert not hasattr(library, "numerics")
    assert autograd.numpy.numerics is importlib.import_module(alias.MODULES["autograd.numpy"]).numerics
    with pytest.raises(AttributeError):
        autograd.numpy.__wrapped_nothing__  # noqa: B018 - the lookup is the test
