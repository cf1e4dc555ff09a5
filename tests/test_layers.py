"""The layers of ``layers.json`` hold: no import arrow it lists under "never" is drawn, and no import circle.

Imports are read from the source (``ast``), so the test sees every import statement, in functions too,
without importing anything (but the public namespaces of an entry of "internals", for their ``__all__``).
An arrow marked "pending" in ``layers.json`` is drawn today and expected to fail (strict: the test run
reports it when it starts to hold, so the marker goes with the import).
"""

import ast
import functools
import importlib
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LAYERS = json.loads((ROOT / "layers.json").read_text())
PACKAGES = ("adcore", "backends")


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def _runs_on_import(statements):
    """The statements of ``statements`` that run when the module is imported: not those in functions,
    nor those under ``if __name__ == "__main__":`` (the module run as a script)."""
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(statement, ast.If) and ast.unparse(statement.test).replace("'", '"') == '__name__ == "__main__"':
            yield from _runs_on_import(statement.orelse)
            continue
        yield statement
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from _runs_on_import(getattr(statement, field, []))


def _absolute(name, node, is_package):
    """The module that the ``from ... import`` statement ``node`` of module ``name`` imports from, by its full name."""
    if not node.level:
        return node.module
    package = name.split(".") if is_package else name.split(".")[:-1]
    return ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))


def imports(name, source, is_package, module_level=False):
    """The modules that module ``name`` (of source ``source``) imports: ``adcore``'s and ``backends``'
    modules by their full names (``from . import x`` is the module ``x`` where there is one, else its
    package), other libraries by their top-level name. Every import statement, or with
    ``module_level`` only those that run when the module is imported."""
    tree = ast.parse(source)
    nodes = _runs_on_import(tree.body) if module_level else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, node, is_package)
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names}
    return {m if m.split(".")[0] in PACKAGES else m.split(".")[0] for m in found}


def _chain(node):
    """``["anp", "linalg", "norm"]`` for the expression ``anp.linalg.norm``; None for one that is no dotted name."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return [node.id, *reversed(names)] if isinstance(node, ast.Name) else None


def takes(name, source, is_package):
    """``{(module, attribute), ...}``: what module ``name`` (of source ``source``) takes of ``adcore``'s and
    ``backends``' modules: each module it imports (attribute None; ``from module import *`` too), and each
    name it takes from one, by ``from module import name`` or as an attribute of a module it imported
    (``anp.sum``; a chain, ``anp.linalg.norm``, is followed through the submodules). A module is known by
    the name an import binds, wherever that name is read."""
    tree = ast.parse(source)
    found, bound = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    found.add((alias.name, None))
                    bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, node, is_package)
            if base.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    found.add((f"{base}.{alias.name}", None))
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
                else:
                    found.add((base, None if alias.name == "*" else alias.name))
    for node in ast.walk(tree):
        chain = _chain(node) if isinstance(node, ast.Attribute) else None
        if chain is None or chain[0] not in bound:
            continue
        module = bound[chain[0]]
        for attribute in chain[1:]:
            if f"{module}.{attribute}" not in MODULES:
                found.add((module, attribute))
                break
            module = f"{module}.{attribute}"
    return found


@functools.cache
def imports_of(module, module_level=False):
    path = MODULES[module]
    return imports(module, path.read_text(), path.name == "__init__.py", module_level)


@functools.cache
def takes_of(module):
    path = MODULES[module]
    return frozenset(takes(module, path.read_text(), path.name == "__init__.py"))


@functools.cache
def public_names(module):
    """The names of the public namespace ``module``: its ``__all__``, or without one its names that do not start with ``_``."""
    namespace = importlib.import_module(module)
    return frozenset(getattr(namespace, "__all__", None) or (name for name in vars(namespace) if not name.startswith("_")))


def is_internal(module, attribute, internals):
    """Whether taking ``attribute`` of ``module`` (or ``module`` itself, attribute None) takes the private machinery
    described by the entry ``internals`` of ``layers.json``: a module of its layers that is not public, or a name of a
    public one outside its public names, unless it is one of the entry's doors."""
    if layer_of(module) not in internals["of"] or f"{module}.{attribute}" in internals["doors"]:
        return False
    if module not in internals["public"]:
        return True
    return attribute is not None and attribute not in public_names(module)


@functools.cache
def layer_of(module):
    """The layer of the longest entry of ``layers.json`` that is ``module`` or a package above it."""
    entries = [(entry, layer) for layer, spec in LAYERS["layers"].items() for entry in spec["modules"]]
    matches = [(len(entry), layer) for entry, layer in entries if module == entry or module.startswith(entry + ".")]
    return max(matches)[1] if matches else None


def targets(items):
    """``(layers, modules, libraries, internals)`` named by an arrow's ``to``."""
    layers = {item for item in items if item in LAYERS["layers"]}
    internals = {item for item in items if item in LAYERS["internals"]}
    libraries = set(LAYERS["libraries"]) if "libraries" in items else set()
    return layers, set(items) - layers - internals - {"libraries"}, libraries, internals


def drawn(arrow):
    """``["module -> imported", ...]``: the imports that draw ``arrow`` (``module -> imported.name`` for a
    name taken of an entry of "internals")."""
    layers, modules, libraries, internals = targets(arrow["to"])
    found = []
    for module in MODULES:
        if layer_of(module) not in arrow["from"]:
            continue
        for target in sorted(imports_of(module)):
            hits_module = any(target == m or target.startswith(m + ".") for m in modules)
            if target in libraries or hits_module or (target in MODULES and layer_of(target) in layers):
                found.append(f"{module} -> {target}")
        for target, attribute in sorted(takes_of(module), key=str):
            if any(is_internal(target, attribute, LAYERS["internals"][entry]) for entry in internals):
                found.append(f"{module} -> {target}" + ("" if attribute is None else f".{attribute}"))
    return found


def _arrow_id(arrow):
    return f"{'+'.join(arrow['from'])}->{'+'.join(arrow['to'])}"


ARROWS = [
    pytest.param(
        arrow, id=_arrow_id(arrow), marks=[pytest.mark.xfail(strict=True, reason=arrow["pending"])] if "pending" in arrow else []
    )
    for arrow in LAYERS["never"]
]


@pytest.mark.parametrize("arrow", ARROWS)
def test_no_arrow_marked_never_is_drawn(arrow):
    """Each "never" arrow of layers.json: no module of a "from" layer imports (anywhere in it) a module
    of a "to" layer, a "to" module, or a listed library."""
    assert not drawn(arrow), f"{arrow['why']}; drawn by: {', '.join(drawn(arrow))}"


def test_no_import_circle():
    """The imports that run when a module is imported draw no circle among adcore's and backends' modules
    (a circle makes the result depend on which module is imported first)."""
    graph = {module: {m for m in imports_of(module, module_level=True) if m in MODULES} for module in MODULES}
    circles, state = [], {}

    def visit(module, path):
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                circles.append(" -> ".join(path[path.index(target) :] + [target]))
            elif target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in MODULES:
        if module not in state:
            visit(module, [module])
    assert not circles, f"import circles: {circles}"


def test_layers_json_names_what_exists():
    """Every module is in a layer (the layer "api" holds the package adcore alone), every entry names an
    existing module or package, and every arrow names existing layers, modules and libraries."""
    assert {module: layer_of(module) for module in MODULES if layer_of(module) is None} == {}
    assert [module for module in MODULES if layer_of(module) == "api"] == ["adcore"]
    for spec in LAYERS["layers"].values():
        assert set(spec["modules"]) <= set(MODULES), spec["modules"]
    for arrow in LAYERS["never"]:
        assert set(arrow["from"]) <= set(LAYERS["layers"]), arrow["from"]
        layers, modules, _, _ = targets(arrow["to"])
        assert modules <= set(MODULES), f"{_arrow_id(arrow)}: {modules - set(MODULES)} are no modules or layers"
        assert arrow["why"]
    for name, internals in LAYERS["internals"].items():
        assert set(internals["of"]) <= set(LAYERS["layers"]), name
        assert all(layer_of(module) in internals["of"] for module in internals["public"]), internals["public"]
        for door in internals["doors"]:
            module, attribute = door.rsplit(".", 1)
            assert layer_of(module) in internals["of"] and hasattr(importlib.import_module(module), attribute), door
        assert internals["role"]


def test_the_import_reader_sees_every_kind_of_import():
    """``imports`` resolves relative imports (from a module and from a package), keeps submodules,
    reads imports in functions unless ``module_level``, and leaves out a script's ``__main__`` block."""
    source = """
import numpy.linalg
from backends import backend_of
from . import shapes
from ..core import getval
from .declare import broadcast
try:
    import cupy
except ImportError:
    pass
class Box:
    from ..core import vspace

def later():
    from ..array_api import namespace

if __name__ == "__main__":
    from adcore.compat import autograd
"""
    on_import = {"numpy", "backends", "adcore.numpy.shapes", "adcore.core", "adcore.numpy.declare", "cupy", "adcore.core.vspace"}
    assert imports("adcore.numpy.boxes", source, False, module_level=True) == on_import
    assert imports("adcore.numpy.boxes", source, False) == on_import | {"adcore.array_api", "adcore.compat.autograd"}
    assert imports("adcore.numpy", "from . import shapes\nfrom .. import core", True) == {"adcore.numpy.shapes", "adcore.core"}


def test_the_reader_of_names_sees_what_a_module_takes():
    """``takes`` reads the names imported from a module, the attributes of an imported module (through
    submodules, in functions too) and the modules imported; not the attributes of other values, nor other
    libraries; ``is_internal`` finds the private machinery among them."""
    source = """
import numpy as onp
import adcore.numpy.linalg
from . import numpy as anp
from .numpy import random as _random
from .numpy.fft import _as_complex, fft
from .numpy.declare import elementwise
from .numpy.shapes import *

def f(x):
    return anp.sum(anp.linalg.norm(x)) + adcore.numpy.linalg.det(x) + _random.recording_refusal + onp.float32 + x.sum
"""
    assert takes("adcore.operators", source, False) == {
        ("adcore.numpy.linalg", None), ("adcore.numpy", None), ("adcore.numpy.random", None),
        ("adcore.numpy.fft", "_as_complex"), ("adcore.numpy.fft", "fft"), ("adcore.numpy.declare", "elementwise"),
        ("adcore.numpy.shapes", None), ("adcore.numpy", "sum"), ("adcore.numpy.linalg", "norm"), ("adcore.numpy.linalg", "det"),
        ("adcore.numpy.random", "recording_refusal"),
    }
    internals = LAYERS["internals"]["rule internals"]
    internal = {taken for taken in takes("adcore.operators", source, False) if is_internal(*taken, internals)}
    assert internal == {
        ("adcore.numpy.fft", "_as_complex"), ("adcore.numpy.random", "recording_refusal"), ("adcore.numpy.shapes", None),
    }


#: What names NumPy's memory flags and views' owners: the attributes ``x.flags`` (with ``.writeable``,
#: ``.c_contiguous``...), ``x.setflags(...)``, ``x.base``, and the keyword ``writeable=`` (``as_strided``).
NUMPY_LAYOUT_ATTRIBUTES = frozenset(("flags", "setflags", "base", "writeable", "c_contiguous", "f_contiguous", "owndata"))


def numpy_layout_names(source):
    """``["line N: name", ...]``: where ``source`` names NumPy's memory flags or ``.base`` (an attribute of
    ``NUMPY_LAYOUT_ATTRIBUTES``, also through ``getattr``, the keyword ``writeable``, or the string ``"WRITEABLE"``,
    a flag's name)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        name = None
        if isinstance(node, ast.Attribute) and node.attr in NUMPY_LAYOUT_ATTRIBUTES:
            name = "." + node.attr
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr", "setattr"):
            attr = node.args[1] if len(node.args) > 1 else None
            if isinstance(attr, ast.Constant) and attr.value in NUMPY_LAYOUT_ATTRIBUTES:
                name = f"{node.func.id}(..., {attr.value!r})"
        elif isinstance(node, ast.keyword) and node.arg == "writeable":
            name = "writeable="
        elif isinstance(node, ast.Constant) and node.value == "WRITEABLE":
            name = '"WRITEABLE"'
        if name is not None:
            found.append(f"line {node.lineno}: {name}")
    return found


def test_only_the_backend_modules_name_numpys_flags():
    """No module outside the backend modules (``backends/numpy.py``; ``backends/cupy.py``, whose arrays have the same
    ``.flags`` and ``.base``: each library's facts in its module) reads or sets NumPy's flags (writeable, contiguity)
    or ``.base``: they ask ``Backend`` methods (``owns_memory``, ``memory_order``,
    ``read_only``, ``read_only_copy``, ``read_only_view``, ``unwritable``), which the backend modules answer."""
    found = {
        module: names
        for module, path in MODULES.items()
        if layer_of(module) != "backend modules" and (names := numpy_layout_names(path.read_text()))
    }
    assert found == {}, f"NumPy's flags or .base named outside the backend modules (ask a Backend method): {found}"


def test_the_flag_reader_sees_each_way_of_naming_them():
    """``numpy_layout_names`` finds reads and writes of the flags, ``.base``, ``setflags``, ``getattr``'s reads, the
    keyword and the flag's name as a string, and not other names that start alike (``base_name``)."""
    source = """
a = x.flags.writeable
x.flags.writeable = False
y = x.base
x.setflags(write=False)
v = as_strided(m, shape=s, writeable=False)
r = numpy.require(x, requirements=["WRITEABLE"])
backends.base_name, x.shape
flags = getattr(value, "flags", None)
"""
    assert sorted(numpy_layout_names(source)) == [
        "line 2: .flags", "line 2: .writeable", "line 3: .flags", "line 3: .writeable", "line 4: .base",
        "line 5: .setflags", "line 6: writeable=", 'line 7: "WRITEABLE"', "line 9: getattr(..., 'flags')",
    ]
