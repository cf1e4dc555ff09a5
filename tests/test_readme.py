"""README's claims, checked: its Python examples run, its shell commands install extras that exist, CI
runs its test command and the adcore modules it runs programs with exist, its backend table lists
exactly the gaps of ``KNOWN_FAILURES``, the test runs it quotes are the last recorded ones
(``tests/last_runs.json``, written by ``--record-run``), and its prose quotes no other run's time."""

import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import KNOWN_FAILURES, README, README_RUNS, RUNS, runs_text

import backends
from benchmarks.__main__ import parse_args
from benchmarks.report import README_END, README_START

ROOT = Path(__file__).resolve().parents[1]
TEXT = README.read_text()


def code_blocks(language):
    return re.findall(rf"^```{language}\n(.*?)^```", TEXT, flags=re.MULTILINE | re.DOTALL)


def test_readme_has_code_blocks():
    assert len(code_blocks("python")) >= 2 and len(code_blocks("sh")) >= 2


@pytest.mark.parametrize("index", range(len(code_blocks("python"))))
def test_python_block_runs(index, tmp_path):
    """Each Python example runs as it is, in a fresh interpreter, from another directory."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    run = subprocess.run(
        [sys.executable, "-c", code_blocks("python")[index]],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr


def test_shell_blocks_name_extras_that_exist_and_ci_runs_the_test_command():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    named = set(re.findall(r"(?:\.|adcore|`)\[(\w+)\]", TEXT))
    assert named and named <= extras.keys(), f"README names extras pyproject.toml lacks: {named - extras.keys()}"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    for block in code_blocks("sh"):
        for line in block.strip().splitlines():
            for command in (part.strip() for part in line.partition("#")[0].split("&&")):
                if command.startswith("python -m benchmarks"):
                    parse_args(command.split()[3:])
                elif command.startswith("python -m pytest"):
                    assert line in ci, f"CI (.ci/run) does not run README's test command {line!r}"
                elif command.startswith("python -m adcore."):  # a program run through one of adcore's modules
                    module = command.split()[2]
                    assert importlib.util.find_spec(module) and callable(importlib.import_module(module).main), command
                else:
                    assert re.fullmatch(r'python -m pip install -e "\.\[\w+\]"', command), command


def readme_gaps():
    """``{backend: the backticked terms after "gaps" in its row of README's backend table}``."""
    rows = dict(re.findall(r"^\| `(\w+)` \|(.*)\|$", TEXT, flags=re.MULTILINE))
    assert set(rows) == set(backends.NAMES), "README's backend table has one row per backend"
    return {name: set(re.findall(r"`([^`]+)`", row.partition("gaps")[2])) for name, row in rows.items()}


def known_gaps():
    """``{backend: the gaps KNOWN_FAILURES names}``: each reason starts with the gap's name in backticks."""
    gaps = {name: set() for name in backends.NAMES}
    for case_id, cases in KNOWN_FAILURES.items():
        for reason in cases.values():
            term = re.match(r"`([^`]+)`: ", reason)
            assert term, f"KNOWN_FAILURES[{case_id!r}]: {reason!r} should start with README's name for the gap, in backticks"
            gaps[case_id.partition(":")[0]].add(term.group(1))
    return gaps


def test_backend_table_lists_the_known_failures():
    assert readme_gaps() == known_gaps()


def test_quoted_test_runs_are_the_last_recorded():
    runs = json.loads(RUNS.read_text())
    start, end = TEXT.index(README_RUNS[0]) + len(README_RUNS[0]), TEXT.index(README_RUNS[1])
    assert TEXT[start:end].strip() == runs_text(runs), "run the tests with --record-run to update both"


#: A time in seconds, minutes or hours as README would quote a run's ("took 0.23 s", "about 10 minutes").
RUN_TIME = r"\b\d[\d.,]*\s?(?:s|ms|µs|min|minutes?|seconds?|hours?)\b"


def test_prose_quotes_run_times_only_from_measured_runs():
    """Times of test or benchmark runs appear only in the blocks written from a measured run (``--record-run``,
    ``python -m benchmarks --readme``), which the tests above and tests/test_benchmarks.py check."""
    prose = TEXT
    for start, end in (README_RUNS, (README_START, README_END)):
        prose = prose[: prose.index(start)] + prose[prose.index(end) :]
    assert re.findall(rf"[^\n]*{RUN_TIME}[^\n]*", prose) == []
