"""``python -m adcore.coverage``: how much of NumPy and SciPy adcore differentiates, per module.

Every public function of the modules in ``MODULES`` (``adcore.numpy`` and its
``linalg`` and ``fft``, ``adcore.scipy``'s modules, and each distribution of
``adcore.scipy.stats``) falls in one group:

- ``vjp+jvp``: a primitive with both rules registered;
- ``vjp only`` / ``jvp only``: a primitive with one rule (a gap to close);
- ``composed``: a composition of primitives, so both modes come from their rules;
- ``non-differentiable``: registered as such (``notrace_primitive``);
- ``creation``: makes a new constant array (``zeros``, ``arange``, ...);
- ``not implemented``: a derivative adcore declares it does not implement, with the reason
  (the op table's ``not_implemented``, :mod:`adcore.core.ops`): it raises when differentiated;
- ``no rule``: a primitive with neither rule.

The ``vmap rule`` and ``vmap loop`` columns count the primitives with a derivative rule by how
``adcore.vmap`` computes them for a batch: by a batching rule (the op table's, ``Op.batching`` or the
family's default, or a user's in ``adcore.vmap.batching_rules``), or by its fallback loop over the examples; the loops are listed under the
table. A composed function is batched through the primitives it calls.

The primitives declared in the op table (``adcore.core.ops``, one declaration each in a family module,
or in a user's module) are counted by family and mathematical kind (:func:`declared_report`).

NumPy's and SciPy's own objects that adcore re-exports unchanged (``seterr``,
``get_printoptions``, ...: they take no array) are not listed.

A function in ``vjp+jvp`` or ``composed`` may still lack the derivative in an
argument that has no closed form (the op table's ``not_implemented_in``: ``adcore.scipy.special``'s,
printed under the table). The report is plain text and needs nothing beyond a base install (NumPy and
array-api-compat).
"""

import argparse
import importlib
import inspect
import json

from .core import nondifferentiable, primitive_jvps, primitive_vjps
from .core.ops import not_implemented, not_implemented_in, ops

STATS = ("beta", "cauchy", "chi2", "dirichlet", "expon", "gamma", "laplace", "logistic", "multivariate_normal", "norm")
STATS += ("poisson", "t", "uniform")
MODULES = ("numpy", "numpy.linalg", "numpy.fft", "scipy.linalg", "scipy.signal", "scipy.integrate", "scipy.special")
MODULES += tuple(f"scipy.stats.{name}" for name in STATS)
CREATION = frozenset("zeros ones full eye arange linspace eye_like empty identity tri indices from_dlpack".split())
GROUPS = ("vjp+jvp", "vjp only", "jvp only", "composed", "non-differentiable", "creation", "not implemented", "no rule")


def classify(fun, name):
    """The group of ``fun`` (see the module docstring); a primitive untraced for some calls is
    classified by its ``.primitive``."""
    fun = getattr(fun, "primitive", fun)
    if fun in not_implemented:
        return "not implemented"
    if fun in nondifferentiable:
        return "non-differentiable"
    if hasattr(fun, "fun"):
        has_vjp, has_jvp = fun in primitive_vjps, fun in primitive_jvps
        return {(True, True): "vjp+jvp", (True, False): "vjp only", (False, True): "jvp only"}.get((has_vjp, has_jvp), "no rule")
    return "creation" if name in CREATION else "composed"


def coverage():
    """``{module: {name: group}}`` for the modules of ``MODULES`` that exist."""
    report = {}
    for module_name in MODULES:
        try:
            module = importlib.import_module(f"adcore.{module_name}")
        except ImportError:
            continue
        names = getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")])
        functions = {n: getattr(module, n) for n in names}
        report[module_name] = {
            name: classify(fun, name)
            for name, fun in sorted(functions.items())
            if callable(fun) and not inspect.isclass(fun) and not inspect.ismodule(fun) and is_adcore(fun)
        }
    return report


def batching(fun):
    """How ``adcore.vmap`` computes ``fun`` for a batch: ``"rule"`` (a batching rule, or declared elementwise),
    ``"loop"`` (the fallback loop over the examples), or None for a function that is no primitive."""
    from .vmap import has_batching_rule

    fun = getattr(fun, "primitive", fun)
    if not hasattr(fun, "fun"):
        return None
    return "rule" if has_batching_rule(fun) else "loop"


def batching_report(report):
    """``{module: {name: "rule" or "loop"}}``: the primitives with a derivative rule among ``report``'s
    (:func:`coverage`'s), by :func:`batching`."""
    ruled = ("vjp+jvp", "vjp only", "jvp only")
    return {
        module_name: {
            name: batching(getattr(importlib.import_module(f"adcore.{module_name}"), name))
            for name, group in groups.items()
            if group in ruled
        }
        for module_name, groups in report.items()
    }


def declared_report():
    """``{family: {kind: [names]}}``: the primitives declared in the op table by a family's helper (an
    ``adcore.numpy.declare.elementwise`` line, adcore's or a user's), by family and mathematical kind."""
    report = {}
    for op in ops.values():
        if op.family != "general":
            report.setdefault(op.family, {}).setdefault(op.kind, []).append(op.name)
    return {family: {kind: sorted(names) for kind, names in sorted(kinds.items())} for family, kinds in sorted(report.items())}


def is_adcore(fun):
    """Whether ``fun`` is adcore's (a primitive or a function of adcore), not NumPy's or SciPy's own object."""
    return hasattr(fun, "fun") or (getattr(fun, "__module__", None) or "").startswith("adcore")


def counts(report):
    """``{module: {group: count}}``; ``differentiable`` counts the functions with both modes."""
    result = {}
    for module, groups in report.items():
        tally = {group: sum(1 for g in groups.values() if g == group) for group in GROUPS}
        tally["differentiable"] = tally["vjp+jvp"] + tally["composed"]
        result[module] = tally
    return result


def text_table(header, rows):
    """``rows`` under ``header`` as plain text, one line each: the first column left-aligned, the others right-aligned."""
    rows = [list(map(str, row)) for row in [header, *rows]]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join([row[0].ljust(widths[0]), *(cell.rjust(w) for cell, w in zip(row[1:], widths[1:]))]) for row in rows]
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:]])


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m adcore.coverage", description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also write the report as JSON")
    args = parser.parse_args(argv)
    report = coverage()
    tallies = counts(report)
    batched = batching_report(report)
    for module, tally in tallies.items():
        kinds = list(batched[module].values())
        tally["vmap rule"], tally["vmap loop"] = kinds.count("rule"), kinds.count("loop")
    columns = ("differentiable", *GROUPS, "vmap rule", "vmap loop")
    print("adcore: differentiable NumPy and SciPy functions per module")
    print(text_table(["module", *columns], [[module, *(tally[c] for c in columns)] for module, tally in tallies.items()]))
    for module, groups in report.items():
        gaps = sorted(name for name, group in groups.items() if group in ("vjp only", "jvp only", "no rule"))
        print(f"{module}: without both rules: {', '.join(gaps) or 'none'}")
        declared = sorted(name for name, group in groups.items() if group == "not implemented")
        if declared:
            print(f"{module}: derivative not implemented (raises when differentiated): {', '.join(declared)}")
        loops = sorted(name for name, kind in batched[module].items() if kind == "loop")
        print(f"{module}: vmap by a loop over the examples (no batching rule): {', '.join(loops) or 'none'}")
    if "scipy.special" in report:
        partial = ", ".join(f"{name} ({', '.join(args)})" for name, args in sorted(not_implemented_in.items()))
        print(f"scipy.special: no derivative in (no closed form): {partial}")
    families = declared_report()
    for family, kinds in families.items():
        print(f"op table, {family} family: " + ", ".join(f"{kind} {len(names)}" for kind, names in kinds.items()))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"counts": tallies, "functions": report, "vmap": batched, "declared": families}, out, indent=2)


if __name__ == "__main__":
    main()
