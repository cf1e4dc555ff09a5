"""Run code written for HIPS/autograd 1.9.1 on adcore, with nothing changed but how it is started.

``install()`` makes ``import autograd`` and every module path of autograd 1.9.1
(``autograd.numpy``, ``autograd.numpy.linalg``, ``autograd.scipy.stats.norm``,
``autograd.extend``, ``autograd.misc.optimizers``, ...) give the adcore module
that ``MODULES`` names, ahead of an installed autograd::

    import adcore.compat.autograd
    adcore.compat.autograd.install()

    import autograd.numpy as np          # adcore.numpy (adcore.compat.autograd_numpy)
    from autograd import grad            # adcore.grad

From the command line, a script runs under the alias as ``python -m cProfile``
runs one (``sys.argv`` is the script and its arguments, ``__name__`` is
``"__main__"``)::

    python -m adcore.compat.autograd my_script.py --its --arguments
    python -m adcore.compat.autograd -m my_package.module --its --arguments

The programs then run on whatever arrays they are given: CuPy arrays run on the
GPU, Array API arrays on their own library.
"""

import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys

#: autograd 1.9.1's module path -> the adcore module that serves it.
MODULES = {
    "autograd": "adcore",
    "autograd.builtins": "adcore.builtins",
    "autograd.core": "adcore.compat.autograd_core",
    "autograd.differential_operators": "adcore.operators",
    "autograd.extend": "adcore.extend",
    "autograd.misc": "adcore.misc",
    "autograd.misc.fixed_points": "adcore.misc.fixed_points",
    "autograd.misc.flatten": "adcore.misc.flatten",
    "autograd.misc.optimizers": "adcore.misc.optimizers",
    "autograd.misc.tracers": "adcore.misc.tracers",
    "autograd.numpy": "adcore.compat.autograd_numpy",
    "autograd.numpy.fft": "adcore.numpy.fft",
    "autograd.numpy.linalg": "adcore.numpy.linalg",
    "autograd.numpy.numpy_boxes": "adcore.numpy.boxes",
    "autograd.numpy.numpy_jvps": "adcore.numpy.rules",
    "autograd.numpy.numpy_vjps": "adcore.numpy.rules",
    "autograd.numpy.numpy_vspaces": "adcore.numpy.vspaces",
    "autograd.numpy.numpy_wrapper": "adcore.numpy.wrapper",
    "autograd.numpy.random": "adcore.numpy.random",
    "autograd.scipy": "adcore.scipy",
    "autograd.scipy.integrate": "adcore.scipy.integrate",
    "autograd.scipy.linalg": "adcore.scipy.linalg",
    "autograd.scipy.signal": "adcore.scipy.signal",
    "autograd.scipy.special": "adcore.scipy.special",
    "autograd.scipy.stats": "adcore.scipy.stats",
    "autograd.scipy.stats.beta": "adcore.scipy.stats.beta",
    "autograd.scipy.stats.chi2": "adcore.scipy.stats.chi2",
    "autograd.scipy.stats.dirichlet": "adcore.scipy.stats.dirichlet",
    "autograd.scipy.stats.gamma": "adcore.scipy.stats.gamma",
    "autograd.scipy.stats.multivariate_normal": "adcore.scipy.stats.multivariate_normal",
    "autograd.scipy.stats.norm": "adcore.scipy.stats.norm",
    "autograd.scipy.stats.poisson": "adcore.scipy.stats.poisson",
    "autograd.scipy.stats.t": "adcore.scipy.stats.t",
    "autograd.test_util": "adcore.test_util",
    "autograd.tracer": "adcore.core.tracer",
    "autograd.util": "adcore.compat.autograd_util",
    "autograd.wrap_util": "adcore.compat.autograd_util",
}

#: The module paths whose last name is an attribute of the parent's adcore module that is not that module
#: (``adcore.core``; the function ``adcore.misc.flatten``, as ``autograd.misc.flatten`` is after
#: ``import autograd.misc.flatten``): :func:`install` registers them rather than leaving them to the finder.
SHADOWING = ("autograd.core", "autograd.misc.flatten")


class _AliasLoader(importlib.abc.Loader):
    """Gives the adcore module itself (not a copy), so ``autograd.numpy.linalg is adcore.numpy.linalg``."""

    def __init__(self, target):
        self.target = target
        self.target_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.target_spec = module.__spec__
        return module

    def exec_module(self, module):
        # The import system has just set the module's __spec__ to the alias's: give it back its own.
        module.__spec__ = self.target_spec


class AliasFinder(importlib.abc.MetaPathFinder):
    """Finds the module paths of ``MODULES`` before any other finder (so before an installed autograd)."""

    def find_spec(self, fullname, path=None, target=None):
        target_name = MODULES.get(fullname)
        if target_name is None:
            return None
        is_package = any(name.startswith(fullname + ".") for name in MODULES)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(target_name), is_package=is_package)


_finder = AliasFinder()


def install():
    """Make ``import autograd`` and its submodules give adcore's modules (``MODULES``), from now on.

    Modules of a real autograd imported before are dropped from ``sys.modules``
    (code that already holds them keeps them). Calling it again does nothing.
    """
    if _finder in sys.meta_path:
        return
    for name in [name for name in sys.modules if name == "autograd" or name.startswith("autograd.")]:
        del sys.modules[name]
    sys.meta_path.insert(0, _finder)
    # Imported here, not by the finder: the import system sets the attribute of the parent named after a
    # module it loads, and the parent is an adcore module (importing autograd.core would replace adcore.core).
    for name in SHADOWING:
        sys.modules[name] = importlib.import_module(MODULES[name])


def installed():
    """Whether :func:`install` is in effect (``import autograd`` gives adcore's modules)."""
    return _finder in sys.meta_path


def uninstall():
    """Undo :func:`install`: later imports of ``autograd`` find the installed autograd, if any."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [name for name in sys.modules if name == "autograd" or name.startswith("autograd.")]:
        del sys.modules[name]


def main(argv=None):
    """``python -m adcore.compat.autograd SCRIPT [ARGS]`` or ``... -m MODULE [ARGS]``."""
    argv = sys.argv[1:] if argv is None else argv
    usage = "usage: python -m adcore.compat.autograd (SCRIPT | -m MODULE) [ARGS]"
    if not argv or argv[0] in ("-h", "--help"):
        print(usage + "\n\nRuns a program written for autograd on adcore (" + __name__ + ".install()).")
        return 0 if argv else 2
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(usage, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    # Run as a script, this file is __main__: install the alias of the module itself, so that a
    # program that imports adcore.compat.autograd and calls install() finds it done.
    from adcore.compat.autograd import main as _main

    sys.exit(_main())
