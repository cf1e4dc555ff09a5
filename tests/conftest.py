"""One registry of test backends; the ``backend`` fixture runs a test on each of them.

A backend that cannot run here (not installed, CuPy without a GPU) has its
tests deselected, and is named once with the reason in the run's header and
summary. ``array_api_strict:device1`` puts every input on a non-default strict
device, so a hidden host copy or a value made on the default device fails on
the CPU. What a backend that runs here cannot do is listed once, in
``KNOWN_FAILURES``: each entry becomes a strict xfail, so a case that starts
passing is noticed.

Two runs: the default one (``python -m pytest``) runs every test file on every
backend here, with a sample of the spec tables' grids (``tests/specs.py``); the
full run (``python -m pytest --full``, in CI after the default one) adds the
rest of the grids, the tests marked ``full`` and the ``full`` hypothesis profile.
"""

import json
import os
import re
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import backends

# Eager JAX compiles each operation once per shape and dtype; for the thousands of tiny ones the tests
# make, XLA's optimisation passes cost more than they save (set before JAX starts; about 30% of its time).
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")


@dataclass(frozen=True)
class BackendCase:
    """A backend and the device test inputs are put on; the default run keeps every ``sample``-th of its
    cases of each test function, the full run every ``full_sample``-th."""

    name: str
    device_name: str | None = None
    sample: int = 1
    full_sample: int = 1

    @property
    def id(self):
        return self.name if self.device_name is None else f"{self.name}:{self.device_name}"

    @property
    def backend(self):
        return backends.get_backend(self.name)

    @property
    def device(self):
        if self.device_name is None:
            return None
        return self.backend.xp.Device(self.device_name)

    def asarray(self, data, dtype="float64"):
        """``data`` (anything NumPy takes) as an array of this backend, on its device."""
        return self.backend.from_numpy(np.asarray(data, dtype=dtype), dtype=dtype, device=self.device)

    def to_numpy(self, x):
        return self.backend.to_numpy(x)

    def check_device(self, x):
        """Assert that ``x`` is an array of this backend on its device (NumPy's 0-d results are NumPy scalars)."""
        if self.name == "numpy" and isinstance(x, np.generic):
            return
        assert backends.array_backend(x) is self.backend, f"expected a {self.name} array, got {type(x)}"
        if self.device is not None:
            assert self.backend.device(x) == self.device, f"expected device {self.device}, got {self.backend.device(x)}"


TEST_BACKENDS = [
    BackendCase("numpy"),
    BackendCase("array_api_strict"),
    # The same library as array_api_strict, on another device: what it adds (a value made on, or moved to, the
    # default device) shows in half of the cases, in the full run too (CI's platform legs need the time).
    BackendCase("array_api_strict", "device1", sample=2, full_sample=2),
    BackendCase("cupy"),
    BackendCase("torch"),
    BackendCase("jax"),
    # Each Dask operation builds a graph and each check computes it: milliseconds apiece (the slowest backend).
    BackendCase("dask", sample=4, full_sample=2),
]


#: What the strict Array API cannot express (on either of its devices).
INTEGER_ARRAYS_WITH_INTEGERS_ONLY = "`x[:, i]`: the standard allows integer-array indices beside integers only, not slices"
STRICT_LIMITS = {
    "test_numpy_rules.py::test_getitem_mixed_index_follows_numpy[list]": "`x[[0, 2]]`: the standard has no list indices",
    "test_numpy_rules.py::test_getitem_mixed_index_follows_numpy": INTEGER_ARRAYS_WITH_INTEGERS_ONLY,
    "test_backends.py::test_scatter_add_with_a_reversed_slice_and_repeats": INTEGER_ARRAYS_WITH_INTEGERS_ONLY,
    "test_backends.py::test_raw_array_operators_defer_to_a_traced_operand": "`raw + traced`: strict arrays raise instead "
    "of deferring to the traced operand",
    "test_iterables.py::test_*[lexsort-list]": "`lexsort`: the standard has none (adcore raises NotImplementedError)",
    "test_iterables.py::test_*[lexsort-tuple]": "`lexsort`: the standard has none (adcore raises NotImplementedError)",
}
LU = "`scipy.linalg.lu_factor`: the Array API standard has no LU factorisation"
ODEINT = "`odeint`: scipy.integrate.odeint runs on NumPy arrays only"
NO_JN = "`jn`: cupyx.scipy.special (CuPy 14) has none (adcore raises NotImplementedError)"
NO_IV = "`iv`: cupyx.scipy.special (CuPy 14) has neither iv nor ive (adcore raises NotImplementedError)"
#: backend id -> {test pattern: reason}, one place per backend. A pattern matches the start of the
#: test's name ``file::test_name[ids]`` with the backend's id left out of the ids (``*`` matches anything).
#: Each reason starts with the gap's name in README's backend table, in backticks (tests/test_readme.py checks).
KNOWN_FAILURES = {
    "array_api_strict": STRICT_LIMITS,
    "array_api_strict:device1": STRICT_LIMITS,
    "torch": {
        "test_scipy_linalg.py::test_*[lu_": LU,
        "test_numpy_rules.py::test_getitem_mixed_index_follows_numpy[int_slice_array]": "`x[0, :, [0, 1, 2]]`: torch reads an "
        "integer beside an integer array apart from NumPy's rule; adcore refuses such an index on torch rather than differ from "
        "the untraced value",
        "test_scipy_signal_integrate.py::test_*[odeint_": ODEINT,
        "test_iterables.py::test_*[lexsort-list]": "`lexsort`: torch has none (adcore raises NotImplementedError)",
        "test_iterables.py::test_*[lexsort-tuple]": "`lexsort`: torch has none (adcore raises NotImplementedError)",
    },
    "jax": {"test_scipy_linalg.py::test_*[lu_": LU, "test_scipy_signal_integrate.py::test_*[odeint_": ODEINT},
    "cupy": {
        "test_scipy_special.py::test_*[jn": NO_JN,
        "test_accuracy.py::test_*[jn_": NO_JN,
        "test_scipy_special.py::test_*[iv": NO_IV,
        "test_accuracy.py::test_*[iv": NO_IV,
        "test_scipy_special.py::test_*[kv": "`kv`: cupyx.scipy.special (CuPy 14) has neither kv nor kve (adcore raises "
        "NotImplementedError)",
        "test_scipy_special.py::test_*[wrightomega": "`wrightomega`: cupyx.scipy.special (CuPy 14) has none (adcore raises "
        "NotImplementedError)",
        "test_scipy_signal_integrate.py::test_*[odeint_": ODEINT,
    },
    "dask": {
        "test_scipy_linalg.py::test_*[lu_": LU,
        "test_scipy_signal_integrate.py::test_*[odeint_": ODEINT,
        "test_numpy_rules.py::test_*[where_one_argument": "`where(condition)`: a data-dependent shape, unknown to a lazy array",
        "test_integer_values.py::test_*[selected_by_where]": "`where(condition)`: a data-dependent shape, unknown to a lazy "
        "array",
        "test_numpy_rules.py::test_derivatives[getitem_mask": "`x[mask]`: a data-dependent shape, unknown to a lazy array",
        "test_rules_containers.py::test_hessian_through_a_mask_selecting_nothing": "`x[mask]`: a data-dependent shape, "
        "unknown to a lazy array",
        "test_numpy_rules.py::test_getitem_mixed_index_follows_numpy[int_slice_array]": "`x[1, :, i]`: Dask reads an integer "
        "array beside integers apart from NumPy's rule; adcore refuses such an index on Dask rather than give a wrong value",
    },
}


def _pattern(text):
    return re.compile(".*".join(map(re.escape, text.split("*"))))


_KNOWN_FAILURES = {name: [(_pattern(p), reason) for p, reason in cases.items()] for name, cases in KNOWN_FAILURES.items()}


def _name_without_backend(item, case):
    """``file::test_name[ids]`` with the backend's id (pytest puts a fixture's id first) left out."""
    ids = item.name[len(item.originalname) + 1 : -1].removeprefix(case.id).removeprefix("-")
    return f"{item.path.name}::{item.originalname}" + (f"[{ids}]" if ids else "")


def _known_failure(item, case):
    """Mark ``item`` a strict xfail, with its backend and reason, if ``KNOWN_FAILURES`` lists it."""
    if case.id not in _KNOWN_FAILURES:
        return
    name = _name_without_backend(item, case)
    for pattern, reason in _KNOWN_FAILURES[case.id]:
        if pattern.match(name):
            item.add_marker(pytest.mark.xfail(reason=f"{case.id}: {reason}", strict=True))
            return


# ---- the default run and the full run ----


def pytest_addoption(parser):
    parser.addoption(
        "--full",
        action="store_true",
        help="adcore: the full run, every dtype, shape and derivative order of the spec tables on every backend, "
        "the tests marked full, and the 'full' hypothesis profile (CI runs it after the default run)",
    )
    parser.addoption(
        "--backends",
        default=None,
        help="adcore: run the backend-parametrised tests on these backends only (comma-separated ids, e.g. numpy or "
        "numpy,torch); the tests without a backend run as usual (CI's legs on other Pythons use --backends numpy)",
    )
    parser.addoption(
        "--record-run",
        action="store_true",
        help="adcore: record this run's figures (time, counts, backends, machine) as the last measured default or "
        "full run, in tests/last_runs.json and README.md (tests/test_readme.py checks that README quotes them)",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "full(*backends): only in the full run (--full); with names, only on those backends")
    config.addinivalue_line("markers", "grid(line, shape, dtype): a spec-table case's place in its grid (tests/specs.py)")
    config.addinivalue_line("markers", "spread(line): a case the default run keeps on every third backend only (by line)")
    if config.getoption("--full"):
        os.environ.setdefault("HYPOTHESIS_PROFILE", "full")


@pytest.fixture
def full_run(request):
    """Whether this is the full run (``--full``)."""
    return request.config.getoption("--full")


def in_default_run(item, case):
    """Whether the default run keeps ``item`` (on backend ``case``, or None).

    Not a test marked ``full`` (for ``case``'s backend, where the mark names
    backends). A spec-table case (``grid`` mark) is kept at one shape and one
    dtype per line and backend: with ``r`` the line's index plus the backend's
    in ``TEST_BACKENDS``, shape ``r mod shapes`` and dtype ``r mod dtypes`` (on
    numpy the first dtype), so that the backends together cover the shapes and
    dtypes, and every line runs on every backend. A case marked ``spread(line)`` (a
    costly check repeated over the spec table) is kept on the backends whose index
    in ``TEST_BACKENDS`` plus ``line`` is a multiple of 3.
    """
    full = item.get_closest_marker("full")
    if full is not None and (not full.args or (case is not None and case.name in full.args)):
        return False
    spread = item.get_closest_marker("spread")
    if spread is not None and case is not None:
        return (spread.kwargs["line"] + TEST_BACKENDS.index(case)) % 3 == 0
    grid = item.get_closest_marker("grid")
    if grid is None or case is None:
        return True
    r = grid.kwargs["line"] + TEST_BACKENDS.index(case)
    (shape, shapes), (dtype, dtypes) = grid.kwargs["shape"], grid.kwargs["dtype"]
    return shape == r % shapes and dtype == (0 if case.name == "numpy" else r % dtypes)


def _in_backend_sample(item, case, seen, full):
    """Whether ``item`` is one of the every ``case.sample``-th (``full_sample``-th in the full run) cases of its
    test function on ``case``'s backend (counted in ``seen``, in collection order, which every xdist worker shares)."""
    sample = None if case is None else case.full_sample if full else case.sample
    if sample is None or sample == 1:
        return True
    key = (item.path, item.originalname, case.id)
    seen[key] += 1
    return (seen[key] - 1) % sample == 0


@cache
def unavailable():
    """``{backend name: why it cannot run here}`` for the backends of ``TEST_BACKENDS`` that cannot."""
    reasons = {case.name: backends.unavailable_reason(case.name) for case in TEST_BACKENDS}
    return {name: reason for name, reason in reasons.items() if reason}


def _backend_case(item):
    case = getattr(getattr(item, "callspec", None), "params", {}).get("backend")
    return case if isinstance(case, BackendCase) else None


def pytest_collection_modifyitems(config, items):
    """Deselect the tests of backends that cannot run here or that ``--backends`` leaves out, outside ``--full``
    those the default run leaves out (``in_default_run``), and the cases beyond a backend's sample
    (``_in_backend_sample``), unless named by their id; mark the cases of ``KNOWN_FAILURES`` as strict xfails."""
    full = config.getoption("--full")
    named = {arg for arg in config.args if "[" in arg}  # cases asked for by their id run in any case
    chosen = _chosen_backends(config)
    kept, deselected, seen = [], [], Counter()
    for item in items:
        case = _backend_case(item)
        if (case is not None and (case.name in unavailable() or case.id not in chosen)) or not (
            item.nodeid in named or ((full or in_default_run(item, case)) and _in_backend_sample(item, case, seen, full))
        ):
            deselected.append(item)
            continue
        if case is not None:
            _known_failure(item, case)
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


def _chosen_backends(config):
    """The ids of ``TEST_BACKENDS`` that ``--backends`` names (all of them without it); an unknown id is an error."""
    ids = [case.id for case in TEST_BACKENDS]
    if config.getoption("--backends") is None:
        return ids
    chosen = [name.strip() for name in config.getoption("--backends").split(",") if name.strip()]
    unknown = [name for name in chosen if name not in ids]
    if unknown:
        raise pytest.UsageError(f"--backends: unknown backend id(s) {', '.join(unknown)}; the ids are {', '.join(ids)}")
    return chosen


def _run_lines(config):
    chosen = _chosen_backends(config)
    here = ", ".join(case.id for case in TEST_BACKENDS if case.name not in unavailable() and case.id in chosen)
    run = "full run" if config.getoption("--full") else "default run (a sample of the spec grids; --full for all of them)"
    return [f"adcore: {run} on {here}"] + [
        f"adcore: backend {name} cannot run here, its tests deselected: {reason}" for name, reason in unavailable().items()
    ]


RUNS = Path(__file__).with_name("last_runs.json")
README = Path(__file__).parents[1] / "README.md"
README_RUNS = ("<!-- test-runs:start -->", "<!-- test-runs:end -->")
_STARTED = {}


def runs_text(runs):
    """README's lines for the recorded runs (``RUNS``): ``{"default": record, "full": record}``, then CI's
    platform legs (``{"leg <platform>": record}``, runs with ``--backends`` on another Python or dependency
    versions) and the sum of the recorded runs' times (CI's test time, without installation)."""
    lines = []
    for kind in ("default", "full", *sorted(k for k in runs if k.startswith("leg "))):
        if kind not in runs:
            lines.append(f"- {kind} run: not measured yet")
            continue
        run = runs[kind]
        cpu = f", {run['cpu_seconds'] / 60:.1f} min of CPU time" if run.get("cpu_seconds") else ""
        lines.append(
            f"- {kind} run, `{run['command']}`: {run['seconds'] / 60:.1f} min{cpu} on {run['cpus']} cores (load average "
            f"{run['load_average_at_start']} at start); {run['passed']:,} passed, {run['skipped']:,} skipped, "
            f"{run['xfailed']:,} xfailed, {run['failed'] + run['error']:,} failed, on {', '.join(run['backends'])} "
            f"({run['date']}, commit {run['commit']})"
        )
    if any(k.startswith("leg ") for k in runs):
        total = sum(run["seconds"] for run in runs.values())
        lines.append(f"- all of them, CI's test time without installation: {total / 60:.1f} min")
    return "\n".join(lines)


def _platform():
    """``CPython 3.12.1, numpy 2.5.5, scipy 1.18.1, array-api-compat 1.16.0``: what a platform leg runs on."""
    import platform

    import array_api_compat

    versions = [f"CPython {platform.python_version()}", f"numpy {np.__version__}"]
    try:
        import scipy

        versions.append(f"scipy {scipy.__version__}")
    except ImportError:
        pass
    return ", ".join([*versions, f"array-api-compat {array_api_compat.__version__}"])


def pytest_sessionstart(session):
    _STARTED.update(seconds=time.perf_counter(), load=os.getloadavg()[0], date=time.strftime("%Y-%m-%d", time.gmtime()))


def _cpu_seconds(*whose):
    """The user and system CPU time of this process (``"self"``) and of its waited-for subprocesses (``"children"``)."""
    import resource  # Unix only, as is this record's CPU time

    usages = [resource.getrusage({"self": resource.RUSAGE_SELF, "children": resource.RUSAGE_CHILDREN}[who]) for who in whose]
    return sum(usage.ru_utime + usage.ru_stime for usage in usages)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook
def pytest_testnodedown(node, error):
    """xdist: add a worker's CPU time (its tests' subprocesses too), sent by its ``pytest_sessionfinish``."""
    _STARTED["workers_cpu_seconds"] = _STARTED.get("workers_cpu_seconds", 0.0) + node.workeroutput.get("cpu_seconds", 0.0)


def pytest_sessionfinish(session, exitstatus):
    """With ``--record-run``: this run's figures become ``RUNS``' ``"default"`` or ``"full"`` entry, and README
    quotes them. Written by the main process; each xdist worker sends it its CPU time (``pytest_testnodedown``)."""
    config = session.config
    if not config.getoption("--record-run"):
        return
    if hasattr(config, "workerinput"):
        config.workeroutput["cpu_seconds"] = _cpu_seconds("self", "children")
        return
    stats = config.pluginmanager.get_plugin("terminalreporter").stats
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True, check=False).stdout
    if "workers_cpu_seconds" in _STARTED:
        cpu_seconds = _cpu_seconds("self") + _STARTED["workers_cpu_seconds"]
    else:
        cpu_seconds = _cpu_seconds("self", "children")
    runs = json.loads(RUNS.read_text()) if RUNS.exists() else {}
    if config.getoption("--full"):
        kind = "full"
    elif config.getoption("--backends") is not None:
        kind = f"leg {_platform()}"
    else:
        kind = "default"
    runs[kind] = {
        "command": " ".join(["python -m pytest", *(arg for arg in config.invocation_params.args if arg != "--record-run")]),
        "date": _STARTED["date"],
        "commit": commit.strip() or None,
        "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "load_average_at_start": round(_STARTED["load"], 1),
        "seconds": round(time.perf_counter() - _STARTED["seconds"]),
        "cpu_seconds": round(cpu_seconds),
        "backends": [case.id for case in TEST_BACKENDS if case.name not in unavailable() and case.id in _chosen_backends(config)],
        **{outcome: len(stats.get(outcome, [])) for outcome in ("passed", "skipped", "xfailed", "failed", "error")},
    }
    RUNS.write_text(json.dumps(runs, indent=2) + "\n")
    text = README.read_text()
    start, end = text.index(README_RUNS[0]) + len(README_RUNS[0]), text.index(README_RUNS[1])
    README.write_text(text[:start] + "\n" + runs_text(runs) + "\n" + text[end:])


def pytest_report_header(config):
    return _run_lines(config)


def pytest_terminal_summary(terminalreporter, config):
    for line in _run_lines(config):
        terminalreporter.write_line(line)


@pytest.fixture(params=[pytest.param(b, id=b.id) for b in TEST_BACKENDS])
def backend(request):
    return request.param
