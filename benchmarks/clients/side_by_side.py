"""What every client script shares: the environment, the source distribution, the two runs and the table."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Pinned as in the environment the alias's own tests run in, so that only autograd vs adcore differs.
#: pytest-reportlog writes each test's outcome and duration as it ends (an interrupted run still reports).
COMMON = [
    "numpy==2.4.6",
    "scipy==1.17.1",
    "matplotlib==3.11.2",
    "autograd==1.9.1",
    "pytest",
    "pytest-reportlog",
    "pytest-xdist",
]

#: One thread per numerical library in both runs (the machine may be shared).
THREADS = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


@dataclass
class Client:
    """A library: its name and version on PyPI, the packages its tests need, where its tests lie in its
    source distribution, and pytest's arguments as its CI passes them."""

    name: str
    version: str
    test_packages: list
    tests: str
    pytest_args: list = field(default_factory=list)


@dataclass
class Run:
    seconds: float
    outcomes: dict  # test id -> "passed", "failed" or "skipped"
    durations: dict  # test id -> seconds


def parse_args(client, argv):
    description = f"{client.name} {client.version}'s tests under autograd and through adcore's alias"
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--venv", default="/work/venv-clients2", help="the environment (made if missing)")
    parser.add_argument("--work", default="/tmp/adcore-clients", help="where the source distribution is unpacked")
    parser.add_argument(
        "--side",
        choices=("both", "autograd", "alias", "none"),
        default="both",
        help="run one side only (its counts printed; two such commands may run at once, sharing the machine alike), "
        "or none: compare the two reports that earlier runs left in --work",
    )
    parser.add_argument("--workers", type=int, default=0, help="pytest-xdist workers per run (0: none)")
    parser.add_argument(
        "--interleave",
        action="store_true",
        help="both sides, one test file at a time under each in turn (per-test times comparable on a shared machine)",
    )
    parser.add_argument(
        "--abba",
        action="store_true",
        help="as --interleave, each test file run four times, autograd, alias, alias, autograd; each test's time is the "
        "faster of its side's two (the load of a shared machine falls alike on both sides)",
    )
    parser.add_argument(
        "pytest_args",
        nargs="*",
        help="more arguments for pytest (a subset of the tests: -k ..., or test files, which --interleave and --abba then "
        "run instead of the whole suite)",
    )
    return parser.parse_args(argv)


def python_of(venv):
    return str(Path(venv) / "bin" / "python")


def prepare(client, venv, work):
    """The environment's python and the unpacked source distribution's folder (each made if missing)."""
    python = python_of(venv)
    if not Path(python).exists():
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    packages = [*COMMON, f"{client.name}=={client.version}", *client.test_packages]
    subprocess.run([python, "-m", "pip", "install", "-q", *packages], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "-e", str(ROOT)], check=True)
    source = Path(work) / f"{client.name}-{client.version}"
    if not source.exists():
        Path(work).mkdir(parents=True, exist_ok=True)
        download = [python, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", work]
        subprocess.run([*download, f"{client.name}=={client.version}"], check=True)
        with tarfile.open(Path(work) / f"{client.name}-{client.version}.tar.gz") as archive:
            archive.extractall(work, filter="data")
    return python, source


#: The two sides: a label and whether the run goes through the alias.
SIDES = (("autograd", False), ("alias", True))


def run_pytest(python, source, through_alias, arguments, report):
    """One pytest run in ``source`` writing ``report``; its wall time in seconds."""
    launcher = [python, "-m", "adcore.compat.autograd", "-m", "pytest"] if through_alias else [python, "-m", "pytest"]
    command = [*launcher, *arguments, "-q", "-p", "no:cacheprovider", f"--report-log={report}"]
    start = time.perf_counter()
    subprocess.run(command, cwd=source, env={**os.environ, **THREADS}, stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def run_suite(python, source, client, through_alias, extra_args, report, workers):
    """Run the client's tests once; their outcomes and durations from pytest-reportlog's report."""
    options = ["-n", str(workers)] if workers else []
    seconds = run_pytest(python, source, through_alias, [client.tests, *client.pytest_args, *options, *extra_args], report)
    return read_report(report, seconds)


def test_files(source, client, extra_args=()):
    """The test files (``test_*.py``, ``*_test.py``) under the paths among ``extra_args``, or else under the
    client's test paths (``tests`` and the paths among its pytest arguments), relative to ``source``; and the
    pytest arguments that are not paths (the client's and ``extra_args``'s)."""
    arguments = [*client.pytest_args, *extra_args]
    chosen = [argument for argument in extra_args if (source / argument).exists()]
    paths = chosen or [client.tests, *(argument for argument in client.pytest_args if (source / argument).exists())]
    options = [argument for argument in arguments if not (source / argument).exists()]
    files = []
    for path in (source / path for path in paths):
        found = [*path.rglob("test_*.py"), *path.rglob("*_test.py")] if path.is_dir() else [path]
        files += sorted(str(file.relative_to(source)) for file in found)
    return files, options


def run_interleaved(python, source, client, extra_args, reports, abba=False):
    """Both sides, one test file at a time, each file under both before the next (the side that goes first
    alternates; with ``abba``, each file runs autograd, alias, alias, autograd and each test keeps the faster
    of its side's two times), so that both see the same load of a shared machine: :class:`Run` per side."""
    files, options = test_files(source, client, extra_args)
    seconds = dict.fromkeys(reports, 0.0)
    for report in reports.values():
        Path(report).write_text("")
    for index, file in enumerate(files):
        order = SIDES + SIDES[::-1] if abba else SIDES if index % 2 == 0 else SIDES[::-1]
        parts = {label: [] for label in reports}
        for label, through_alias in order:
            part = Path(f"{reports[label]}.part{len(parts[label])}")
            taken = run_pytest(python, source, through_alias, [file, *options], part)
            parts[label].append((part, taken))
        for label, runs in parts.items():
            fastest = min(runs, key=lambda run: run[1])
            seconds[label] += fastest[1]
            with open(reports[label], "a") as report:
                report.write(_fastest_per_test([part for part, _ in runs]) if abba else fastest[0].read_text())
    return {label: read_report(report, seconds[label]) for label, report in reports.items()}


def _fastest_per_test(parts):
    """The reportlog lines of the runs ``parts`` of one file, each test's from the run where it took least time
    (its phases together, as :func:`read_report` counts them; a test that failed in one run is kept failed)."""
    runs = [read_report(part, 0.0) for part in parts if part.exists()]
    lines = [_lines_per_test(part) for part in parts if part.exists()]
    chosen = {}  # test -> ((failed, -seconds), index of the run)
    for index, run in enumerate(runs):
        for test, seconds in run.durations.items():
            rank = (run.outcomes.get(test) == "failed", -seconds)
            if test not in chosen or rank > chosen[test][0]:
                chosen[test] = (rank, index)
    return "".join(line for test, (_, index) in chosen.items() for line in lines[index][test])


def _lines_per_test(report):
    """``test id -> [its reportlog lines]`` of a report's test phases."""
    tests = {}
    for line in Path(report).read_text().splitlines():
        entry = json.loads(line)
        if entry.get("$report_type") == "TestReport":
            tests.setdefault(entry["nodeid"], []).append(line + "\n")
    return tests


def read_report(report, seconds):
    """A :class:`Run` from a pytest-reportlog file: a test failed if any of its phases did, was skipped if
    its setup was, and passed if its call did; its duration is that of its phases together."""
    outcomes, durations = {}, {}
    with open(report) as lines:
        for line in lines:
            entry = json.loads(line)
            if entry.get("$report_type") != "TestReport":
                continue
            test, outcome = entry["nodeid"], entry["outcome"]
            durations[test] = durations.get(test, 0.0) + entry["duration"]
            if outcome == "failed":
                outcomes[test] = "failed"
            elif outcomes.get(test) != "failed" and (outcome == "skipped" or entry["when"] == "call"):
                outcomes[test] = outcome
    return Run(seconds, outcomes, durations)


def tally(run):
    """'P passed, F failed, S skipped of N' for a run."""
    outcomes = list(run.outcomes.values())
    counted = ", ".join(f"{outcomes.count(outcome)} {outcome}" for outcome in ("passed", "failed", "skipped"))
    return f"{counted} of {len(outcomes)}"


def main(client, argv=None):
    args = parse_args(client, argv)
    python, source = prepare(client, args.venv, args.work)
    reports = {label: Path(args.work) / f"{client.name}-{label}.jsonl" for label, _ in SIDES}
    interleaved = args.interleave or args.abba
    runs = run_interleaved(python, source, client, args.pytest_args, reports, args.abba) if interleaved else {}
    for label, through_alias in SIDES:
        report, seconds = reports[label], Path(f"{reports[label]}.seconds")
        if interleaved:
            seconds.write_text(f"{runs[label].seconds}\n")
        elif args.side in ("both", label):
            runs[label] = run_suite(python, source, client, through_alias, args.pytest_args, report, args.workers)
            seconds.write_text(f"{runs[label].seconds}\n")
        elif args.side == "none":
            runs[label] = read_report(report, float(seconds.read_text()))
        if label in runs and args.side != "none":
            print(f"{client.name} {client.version}, {label}: {tally(runs[label])} in {runs[label].seconds:.0f} s")
    if len(runs) < 2:
        return 0
    theirs, ours = runs["autograd"], runs["alias"]
    passed = {label: {test for test, outcome in run.outcomes.items() if outcome == "passed"} for label, run in runs.items()}
    lost = sorted(passed["autograd"] - passed["alias"])
    both = passed["autograd"] & passed["alias"]
    ratios = [ours.durations[t] / theirs.durations[t] for t in both if theirs.durations[t] > 0.05]  # tests of 50 ms or more
    median = statistics.median(ratios) if ratios else float("nan")
    counts = {label: tally(run) for label, run in runs.items()}
    print("| library (version) | under autograd | through the alias | time alias/autograd (total; per test, median) |")
    print("|---|---|---|---|")
    total = f"{ours.seconds / theirs.seconds:.2f} ({ours.seconds:.0f} s / {theirs.seconds:.0f} s)"
    print(
        f"| {client.name} {client.version} | {counts['autograd']} | {counts['alias']} | "
        f"{total}; {median:.2f} over {len(ratios)} tests |"
    )
    for test in lost:
        print(f"passes under autograd only: {test} ({ours.outcomes.get(test, 'not run')} through the alias)")
    gained = sorted(passed["alias"] - passed["autograd"])
    for test in gained:
        print(f"passes through the alias only: {test}")
    return 1 if lost else 0
