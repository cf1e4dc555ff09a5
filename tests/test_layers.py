"""The layers of ``layers.json`` hold: no import arrow it lists under "never" is drawn, and no import circle.

Imports are read from the source (``ast``), so the test sees every import statement, in functions too,
without importing anything. An arrow marked "pending" in ``layers.json`` is drawn today and expected to
fail (strict: the test run reports it when it starts to hold, so the marker goes with the import).
"""

import ast
import functools
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
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names}
    return {m if m.split(".")[0] in PACKAGES else m.split(".")[0] for m in found}


@functools.cache
def imports_of(module, module_level=False):
    path = MODULES[module]
    return imports(module, path.read_text(), path.name == "__init__.py", module_level)


@functools.cache
def layer_of(module):
    """The layer of the longest entry of ``layers.json`` that is ``module`` or a package above it."""
    entries = [(entry, layer) for layer, spec in LAYERS["layers"].items() for entry in spec["modules"]]
    matches = [(len(entry), layer) for entry, layer in entries if module == entry or module.startswith(entry + ".")]
    return max(matches)[1] if matches else None


def targets(items):
    """``(layers, modules, libraries)`` named by an arrow's ``to``."""
    layers = {item for item in items if item in LAYERS["layers"]}
    libraries = set(LAYERS["libraries"]) if "libraries" in items else set()
    return layers, set(items) - layers - {"libraries"}, libraries


def drawn(arrow):
    """``["module -> imported", ...]``: the imports that draw ``arrow``."""
    layers, modules, libraries = targets(arrow["to"])
    found = []
    for module in MODULES:
        if layer_of(module) not in arrow["from"]:
            continue
        for target in sorted(imports_of(module)):
            hits_module = any(target == m or target.startswith(m + ".") for m in modules)
            if target in libraries or hits_module or (target in MODULES and layer_of(target) in layers):
                found.append(f"{module} -> {target}")
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
        layers, modules, _ = targets(arrow["to"])
        assert modules <= set(MODULES), f"{_arrow_id(arrow)}: {modules - set(MODULES)} are no modules or layers"
        assert arrow["why"]


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
