"""Run code written for HIPS/autograd 1.9.1 on adcore, with nothing changed but how it is started.

``install()`` makes ``import autograd`` and every module path of autograd 1.9.1
(``autograd.numpy``, ``autograd.numpy.linalg``, ``autograd.scipy.stats.norm``,
``autograd.extend``, ``autograd.misc.optimizers``, ...) give a module holding the
names of the adcore module that ``MODULES`` names (the same objects), ahead of an
installed autograd::

    import adcore.compat.autograd
    adcore.compat.autograd.install()

    import autograd.numpy as np          # adcore.numpy's names (adcore.compat.autograd_numpy)
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
import importlib.metadata
import importlib.util
import os
import re
import runpy
import sys
import types

if __name__ == "__main__":
    # Run as a script (``python -m adcore.compat.autograd``), this file is __main__: hand over to the
    # module itself before anything of it is defined here, so it is executed once, under its own name.
    from adcore.compat.autograd import main as _main

    sys.exit(_main())

#: autograd 1.9.1's module path -> the adcore module whose names it offers.
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
    "autograd.numpy.numpy_jvps": "adcore.numpy.declare",
    "autograd.numpy.numpy_vjps": "adcore.numpy.declare",
    "autograd.numpy.numpy_vspaces": "adcore.numpy.vspaces",
    "autograd.numpy.numpy_wrapper": "adcore.compat.autograd_numpy",
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

#: The submodules that importing an autograd package imports (its ``__init__.py``), so they are its attributes.
SUBMODULES = {
    "autograd": ("builtins", "core", "differential_operators", "extend", "numpy", "tracer", "util", "wrap_util"),
    "autograd.numpy": ("fft", "linalg", "numpy_boxes", "numpy_jvps", "numpy_vjps", "numpy_vspaces", "numpy_wrapper", "random"),
    "autograd.scipy": ("integrate", "signal", "special", "stats"),
    "autograd.scipy.stats": ("beta", "chi2", "dirichlet", "gamma", "multivariate_normal", "norm", "poisson", "t"),
    "autograd.misc": ("flatten", "tracers"),
}

_CONTAINER_VSPACE = "adcore.builtins:ContainerVSpace"

#: The public names of autograd 1.8's and 1.9.1's modules that the adcore module of the path does not have,
#: each given by the adcore object that plays its part (``"module:name"``) or the alias module (``"path"``).
#: autograd's vector spaces of complex arrays, of containers and of ``linalg``'s named-tuple results are
#: adcore's ``ArrayVSpace`` and ``ContainerVSpace``, which cover those values themselves.
EXTRA_NAMES = {
    "autograd.builtins": {
        **dict.fromkeys(("DictMeta", "ListMeta", "TupleMeta"), "adcore.builtins:_ContainerType"),
        **dict.fromkeys(("DictVSpace", "ListVSpace", "NamedTupleVSpace", "SequenceVSpace", "TupleVSpace"), _CONTAINER_VSPACE),
    },
    "autograd.differential_operators": {"atuple": "adcore.builtins:tuple"},
    "autograd.misc.fixed_points": {"tuple": "adcore.builtins:tuple"},
    "autograd.numpy": {"Box": "adcore.core:Box", "builtins": "autograd.builtins"},
    "autograd.numpy.numpy_boxes": {"SequenceBox": "adcore.builtins:SequenceBox"},
    "autograd.numpy.numpy_jvps": {"ArrayBox": "adcore.numpy.boxes:ArrayBox", "JVPNode": "adcore.core:JVPNode"},
    "autograd.numpy.numpy_vjps": {
        "ArrayBox": "adcore.numpy.boxes:ArrayBox",
        "VJPNode": "adcore.core:VJPNode",
        "balanced_eq": "adcore.numpy.elementwise:balanced_eq",
        "replace_zero": "adcore.numpy.elementwise:replace_zero",
    },
    "autograd.numpy.numpy_vspaces": {
        "ComplexArrayVSpace": "adcore.numpy.vspaces:ArrayVSpace",
        **dict.fromkeys(
            (
                "EigResultVSpace",
                "EighResultVSpace",
                "NamedTupleVSpace",
                "QRResultVSpace",
                "SVDResultVSpace",
                "SlogdetResultVSpace",
            ),
            _CONTAINER_VSPACE,
        ),
    },
    "autograd.scipy.integrate": {"tuple": "adcore.builtins:tuple"},
    "autograd.tracer": {
        "TraceStack": "adcore.compat.autograd_util:TraceStack",
        "trace_stack": "adcore.compat.autograd_util:trace_stack",
        "register_notrace": "adcore.extend:register_notrace",
        "toposort": "adcore.core:toposort",
    },
}

#: The classes whose ``__module__`` is autograd's while the alias is installed: code that picks an array
#: library by ``type(x).__module__.split(".")[0]`` (autoray, PennyLane) sees ``autograd`` for a traced value.
CLASS_MODULES = {
    "adcore.core.tracer:Box": "autograd.tracer",
    "adcore.numpy.boxes:ArrayBox": "autograd.numpy.numpy_boxes",
    "adcore.builtins:SequenceBox": "autograd.builtins",
    "adcore.builtins:DictBox": "autograd.builtins",
}

#: An attribute the class does not have (:data:`CLASS_ATTRIBUTES`).
ABSENT = "absent"

#: The autograd release whose behaviour the alias follows where releases differ, when no autograd is installed.
NEWEST = "1.9.1"

_ARRAY_UFUNC = "adcore.numpy.protocol:array_ufunc"

#: ``(class, attribute) -> {release: value}``: the class attribute under autograd before 1.9 (``"1.8"``), from
#: 1.9 on (``"1.9"``), and adcore's own (``"adcore"``), as ``"module:name"`` specs or ``ABSENT``. autograd 1.8's
#: ``ArrayBox`` has no ``__array_ufunc__``: NumPy's binary operators on an ``ndarray`` (or a subclass) and a box
#: then defer to the box's reflected operator by ``__array_priority__``, so ``subclass * box`` is traced whatever
#: the subclass's own ``__array_ufunc__`` does with an operand it does not know (one that wraps
#: ``ndarray.__array_ufunc__``'s NotImplemented in an array would otherwise compute with it), and so do the
#: in-place ones: ``a += box`` (``a`` an array) rebinds ``a`` to the box's ``a + box`` (``__array_ufunc__ = None``
#: would defer the binary operators but make NumPy raise for the in-place ones); NumPy's ufuncs called on a box
#: directly (``numpy.log(box)``) raise ``TypeError``. autograd 1.9's has one: ``numpy.log(box)`` is traced, and
#: ``subclass * box`` reaches the subclass's ``__array_ufunc__`` first (which is why libraries pin
#: ``autograd<1.9``). Neither behaviour holds both, so the alias follows the installed autograd's release.
CLASS_ATTRIBUTES = {
    ("adcore.numpy.boxes:ArrayBox", "__array_ufunc__"): {"1.8": ABSENT, "1.9": _ARRAY_UFUNC, "adcore": _ARRAY_UFUNC}
}


def release(version=None):
    """``"1.8"`` for an autograd version before 1.9 (``"1.8.0"``, ``"1.7"``), ``"1.9"`` for 1.9 and later: which
    values of :data:`CLASS_ATTRIBUTES` apply. ``version`` defaults to the installed autograd distribution's, else
    :data:`NEWEST`. Raises ``ValueError`` naming ``version`` where it does not start with ``MAJOR.MINOR``."""
    if version is None:
        try:
            version = importlib.metadata.version("autograd")
        except importlib.metadata.PackageNotFoundError:
            version = NEWEST
    match = re.match(r"(\d+)\.(\d+)", str(version))
    if match is None:
        raise ValueError(f"autograd_version {version!r}: expected a release such as '1.8.0' or '1.9.1'")
    return "1.8" if (int(match[1]), int(match[2])) < (1, 9) else "1.9"


def _set_class_attributes(which):
    for (cls, attribute), values in CLASS_ATTRIBUTES.items():
        value, owner = values[which], _resolve(cls)
        if value != ABSENT:
            setattr(owner, attribute, _resolve(value))
        elif attribute in vars(owner):
            delattr(owner, attribute)


def _resolve(spec):
    """The object ``"module:name"`` or the module ``"module"`` (an alias path is imported through the alias)."""
    module, _, name = spec.partition(":")
    module = importlib.import_module(module)
    return getattr(module, name) if name else module


class _AliasLoader(importlib.abc.Loader):
    """Makes the module of an autograd path: a namespace of its own holding the adcore module's public
    names (``__all__``, else those not starting with ``_``), the submodules autograd's package imports
    (as alias modules), and ``EXTRA_NAMES``; other names are looked up in the adcore module (by the
    module's type, :class:`_AliasModule`).

    It is never the adcore module itself, and it has no ``__path__`` into adcore's folders (an empty one
    for a package) and a ``__file__`` in this folder: a submodule name missing from ``MODULES``, or a
    file looked up beside ``autograd.__file__``, cannot reach one of adcore's files, which would run a
    second copy of an adcore module (with its own rules and registries) under another name.
    """

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return None  # the import system's own module object

    def exec_module(self, module):
        target = importlib.import_module(self.target)
        name = module.__name__
        module.__class__ = _AliasModule
        module._adcore_target = target
        module.__file__ = __file__
        module.__dict__.update({key: getattr(target, key) for key in ("__version__", "__doc__") if hasattr(target, key)})
        for child in SUBMODULES.get(name, ()):
            importlib.import_module(f"{name}.{child}")  # the import system sets module.<child>
        public = getattr(target, "__all__", None) or [key for key in dir(target) if not key.startswith("_")]
        names = {key: getattr(target, key) for key in public}
        # an adcore submodule is not autograd's: the alias's own submodule (set above) or none
        module.__dict__.update({key: value for key, value in names.items() if not isinstance(value, types.ModuleType)})
        module.__dict__.update({key: _resolve(spec) for key, spec in EXTRA_NAMES.get(name, {}).items()})
        module.__all__ = sorted({*names, *SUBMODULES.get(name, ()), *EXTRA_NAMES.get(name, {})} & set(vars(module)))


class _AliasModule(types.ModuleType):
    """The type of the alias's modules: a name the module does not hold is looked up in its adcore module
    (``_adcore_target``). The hook is the type's, not a ``__getattr__`` in the module's namespace, which
    code that copies every callable of ``vars(autograd.numpy)`` into its own module (as a library that
    wraps the namespace does) would copy too, sending every later lookup of a missing name in its own
    module to adcore's (its own ``random`` submodule hidden by adcore's)."""

    def __getattr__(self, key):
        if key.startswith("__") or key == "_adcore_target":
            raise AttributeError(f"module {self.__name__!r} has no attribute {key!r}")
        return getattr(self._adcore_target, key)


class AliasFinder(importlib.abc.MetaPathFinder):
    """Finds the module paths of ``MODULES`` before any other finder (so before an installed autograd)."""

    def find_spec(self, fullname, path=None, target=None):
        target_name = MODULES.get(fullname)
        if target_name is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(target_name), is_package=fullname in SUBMODULES)


_finder = AliasFinder()


def install(autograd_version=None):
    """Make ``import autograd`` and its submodules give adcore's names (``MODULES``), from now on, and give
    the classes of ``CLASS_MODULES`` autograd's module names and those of ``CLASS_ATTRIBUTES`` the attributes
    of autograd ``autograd_version`` (a string such as ``"1.8.0"``; default: the installed autograd's
    version, else :data:`NEWEST`; see :func:`release`).

    Modules of a real autograd imported before are dropped from ``sys.modules``
    (code that already holds them keeps them). Calling it again sets the class attributes of
    ``autograd_version`` and does nothing else.
    """
    which = release(autograd_version)
    if _finder not in sys.meta_path:
        _drop_autograd_modules()
        sys.meta_path.insert(0, _finder)
        for spec, module in CLASS_MODULES.items():
            _resolve(spec).__module__ = module
    _set_class_attributes(which)


def installed():
    """Whether :func:`install` is in effect (``import autograd`` gives adcore's modules)."""
    return _finder in sys.meta_path


def uninstall():
    """Undo :func:`install`: later imports of ``autograd`` find the installed autograd, if any, and the
    classes of ``CLASS_MODULES`` and ``CLASS_ATTRIBUTES`` have their adcore module names and attributes again."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    _drop_autograd_modules()
    for spec in CLASS_MODULES:
        _resolve(spec).__module__ = spec.partition(":")[0]
    _set_class_attributes("adcore")


def _drop_autograd_modules():
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
