"""MkDocs hook (mkdocs.yml, ``hooks:``): the parts of the site made from the code at each build, so none can go stale.

A page asks for one with a line ``<!-- generated: NAME -->``, which ``on_page_markdown`` replaces by ``GENERATED[NAME]()``:

- ``coverage numpy`` / ``coverage scipy``: what ``python -m adcore.coverage`` reports for ``adcore.numpy`` (with its
  ``linalg`` and ``fft``) and ``adcore.scipy``, one table per module listing every function by group;
- ``known failures``: what each backend cannot do, from ``KNOWN_FAILURES`` in ``tests/conftest.py``;
- ``benchmark results``: README.md's table of the last benchmark run (between its ``benchmark-results`` markers).

An unknown name, or a module of ``adcore.coverage.MODULES`` that does not import, stops the build.
``on_page_content`` drops the Sphinx roles some docstrings use (``:class:`Box```), which mkdocstrings shows as text.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = re.compile(r"^<!-- generated: ([a-z ]+) -->$", re.MULTILINE)
SPHINX_ROLE = re.compile(r":(?:func|class|meth|mod|attr):(?=<code>)")


def fail(message):
    """Stop the build with ``message`` (imported here: tests/test_docs.py runs the generators without MkDocs)."""
    from mkdocs.exceptions import PluginError

    raise PluginError(message)


def coverage_tables(prefix):
    """The functions of the coverage report's modules under ``prefix``, per module, grouped as the report groups them."""
    from adcore import coverage as cov
    from adcore.core.ops import not_implemented

    report = cov.coverage()
    missing = [m for m in cov.MODULES if m.split(".")[0] == prefix and m not in report]
    if missing:
        fail(f"docs/hooks.py: adcore.{', adcore.'.join(missing)} did not import (pip install -e '.[docs]')")
    reasons = {getattr(f, "__name__", ""): reason for f, reason in not_implemented.items()}
    tallies = cov.counts(report)
    modules = [m for m in report if m.split(".")[0] == prefix]
    columns = ("differentiable", *cov.GROUPS)
    lines = [
        "| module | " + " | ".join(columns) + " |",
        "|---|" + "---:|" * len(columns),
        *(f"| `adcore.{m}` | " + " | ".join(str(tallies[m][c]) for c in columns) + " |" for m in modules),
    ]
    for module in modules:
        lines += ["", f"### `adcore.{module}`", "", "| group | functions |", "|---|---|"]
        for group in cov.GROUPS:
            names = sorted(name for name, g in report[module].items() if g == group)
            if not names:
                continue
            if group == "not implemented":
                cells = "; ".join(f"`{name}` ({reasons.get(name, 'see its docstring')})" for name in names)
            else:
                cells = ", ".join(f"`{name}`" for name in names)
            lines.append(f"| {group} ({len(names)}) | {cells} |")
    if prefix == "scipy":
        from adcore.scipy.special import DERIVATIVES_NOT_IMPLEMENTED

        partial = ", ".join(
            f"`{name}` in {', '.join(f'`{a}`' for a in args)}" for name, args in sorted(DERIVATIVES_NOT_IMPLEMENTED.items())
        )
        lines += ["", f"No derivative (no closed form; raises `NotImplementedError` when differentiated): {partial}."]
    return "\n".join(lines)


def known_failures():
    """``KNOWN_FAILURES`` of tests/conftest.py as a table; its assignments are evaluated alone (no pytest needed)."""
    tree = ast.parse((ROOT / "tests" / "conftest.py").read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets):
            try:
                value = eval(compile(ast.Expression(node.value), "tests/conftest.py", "eval"), {"__builtins__": {}}, names)
            except Exception:  # an assignment that needs more than constants (not one KNOWN_FAILURES reads)
                continue
            names.update((t.id, value) for t in node.targets)
    lines = ["| backend | what it cannot do (the test expected to fail, and why) |", "|---|---|"]
    for backend, cases in names["KNOWN_FAILURES"].items():
        reasons = list(dict.fromkeys(cases.values()))
        lines.append(f"| `{backend}` | " + "<br>".join(reason.replace("|", "\\|") for reason in reasons) + " |")
    return "\n".join(lines)


def benchmark_results():
    """README.md's table of the last benchmark run."""
    readme = (ROOT / "README.md").read_text()
    found = re.search(r"<!-- benchmark-results:start -->\n(.*?)<!-- benchmark-results:end -->", readme, re.DOTALL)
    if found is None:
        fail("docs/hooks.py: README.md has no benchmark-results markers")
    return found.group(1).strip()


GENERATED = {
    "coverage numpy": lambda: coverage_tables("numpy"),
    "coverage scipy": lambda: coverage_tables("scipy"),
    "known failures": known_failures,
    "benchmark results": benchmark_results,
}


def on_page_markdown(markdown, page, config, files):
    def replace(match):
        name = match.group(1)
        if name not in GENERATED:
            fail(f"{page.file.src_path}: unknown generated part {name!r}; the parts are {', '.join(GENERATED)}")
        return GENERATED[name]()

    return PLACEHOLDER.sub(replace, markdown)


def on_page_content(html, page, config, files):
    return SPHINX_ROLE.sub("", html)
