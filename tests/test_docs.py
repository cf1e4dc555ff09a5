"""The documentation site (mkdocs.yml, docs/): checked without building it, and built when MkDocs is installed.

Without MkDocs: every page of the navigation exists and every page is in it; the reference pages name
every public name (``adcore.__all__``, ``adcore.extend.__all__``, ``backends.__all__``); the parts that
docs/hooks.py generates at build time can be generated; the ``[docs]`` extra exists; and every Python
block of every page runs (each page in a fresh interpreter, its blocks in order in one namespace). A
block whose first line is ``# needs: NAME`` runs only where backend ``NAME`` can run.

With MkDocs (``pip install -e ".[docs]"``): ``mkdocs build --strict`` into a temporary folder.
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import adcore
import adcore.extend
import backends

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)
NEEDS = re.compile(r"# needs: (\w+)")


def nav_pages():
    """The pages mkdocs.yml's ``nav`` lists (``- Title: page.md`` lines)."""
    text = (ROOT / "mkdocs.yml").read_text()
    nav = text[text.index("\nnav:\n") :]
    nav = nav[: re.search(r"\n\S", nav[1:]).start() + 1]
    return re.findall(r"^\s+- [^:\n]+: (\S+\.md)$", nav, re.MULTILINE)


def load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks


def test_nav_lists_every_page_and_each_exists():
    listed = nav_pages()
    assert listed, "mkdocs.yml has no nav"
    assert [page for page in listed if not (DOCS / page).is_file()] == []
    assert sorted(listed) == PAGES


@pytest.mark.parametrize(
    "page, module, names",
    [
        ("reference/adcore.md", "adcore", adcore.__all__),
        ("reference/extend.md", "adcore.extend", adcore.extend.__all__),
        ("reference/backends.md", "backends", backends.__all__),
    ],
)
def test_reference_pages_name_every_public_name(page, module, names):
    text = (DOCS / page).read_text()
    assert [name for name in names if f"\n::: {module}.{name}\n" not in text] == []


def test_generated_parts_are_known_and_can_be_made():
    hooks = load_hooks()
    asked = {name for page in PAGES for name in hooks.PLACEHOLDER.findall((DOCS / page).read_text())}
    assert asked == set(hooks.GENERATED)
    pytest.importorskip("scipy")  # adcore.scipy's table needs it (the [docs] extra brings it)
    from adcore.coverage import coverage

    made = {name: make() for name, make in hooks.GENERATED.items()}
    for module, functions in coverage().items():
        table = made[f"coverage {module.split('.')[0]}"]
        assert f"### `adcore.{module}`" in table
        assert [name for name in functions if f"`{name}`" not in table] == []
    assert "| `dask` |" in made["known failures"] and "`scipy.linalg.lu_factor`" in made["known failures"]
    assert "| workload | contender |" in made["benchmark results"]


def test_docs_extra_exists():
    text = (ROOT / "pyproject.toml").read_text()
    extra = re.search(r"^docs = \[(.*)\]$", text, re.MULTILINE)
    assert extra is not None, "pyproject.toml has no [docs] extra"
    assert {"mkdocs", "mkdocs-material", "mkdocstrings[python]"} <= set(re.findall(r'"([^"<>=]+)', extra.group(1)))


def blocks(page):
    """``[(line, source)]``: the Python blocks of ``page``, with the line each starts on."""
    text = (DOCS / page).read_text()
    return [(text.count("\n", 0, found.start(1)) + 1, found.group(1)) for found in BLOCK.finditer(text)]


def can_run(source):
    needs = NEEDS.match(source)
    return needs is None or needs.group(1) in backends.available()


@pytest.mark.parametrize("page", [page for page in PAGES if blocks(page)])
def test_python_blocks_run(page, tmp_path):
    runnable = [(line, source) for line, source in blocks(page) if can_run(source)]
    if not runnable:
        pytest.skip(f"{page}: every block needs a backend that cannot run here")
    # Each block compiled as docs/PAGE from its own line, so a traceback points into the page.
    script = "namespace = {'__name__': '__main__'}\n" + "".join(
        f"exec(compile({chr(10) * (line - 1) + source!r}, {'docs/' + page!r}, 'exec'), namespace)\n" for line, source in runnable
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"a Python block of docs/{page} failed:\n{done.stderr[-4000:]}"


def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert not re.search(r"^WARNING\b", done.stderr, re.MULTILINE), done.stderr[-4000:]  # MkDocs' log lines
    assert (tmp_path / "site" / "reference" / "numpy" / "index.html").is_file()
