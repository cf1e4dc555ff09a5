"""The results, shown: the machine they were measured on, a ``rich`` table, a bar chart of the
ratios (matplotlib), and the Markdown table kept in README.md between marker comments."""

import os
import platform
import re
import subprocess
from pathlib import Path

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from .peers import library_version
from .suite import HAND, JIT

README_START = "<!-- benchmark-results:start -->"
README_END = "<!-- benchmark-results:end -->"
LIBRARIES = ("numpy", "scipy", "array-api-compat", "autograd", "torch", "jax", "jaxlib", "cupy-cuda12x", "cupy-cuda13x")


def machine_info(backend, device):
    """What the figures depend on: the platform, the CPUs, the library versions, the backend and its device."""
    info = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "load_average_at_start": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "adcore_commit": _git_commit(),
        "versions": {name: version for name in LIBRARIES if (version := library_version(name)) is not None},
        "backend": backend.name,
        "device": device,
    }
    if backend.name == "cupy":
        import cupy

        info["gpu"] = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    return info


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _git_commit():
    try:
        run = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return run.stdout.strip() or None


def format_time(workload, entry):
    """A contender's time in the workload's unit: microseconds per primitive, milliseconds or seconds."""
    if workload["unit"] == "us/primitive":
        return f"{entry['us_per_primitive']:.2f} µs/prim"
    if workload["unit"] == "ms":
        return f"{entry['seconds'] * 1e3:.2f} ms"
    return f"{entry['seconds']:.2f} s"


def _ratio(value):
    return "—" if value is None else f"{value:.2f}x"


def _memory(entry):
    memory = entry.get("memory_bytes")
    return "—" if memory is None else f"{memory / 2**20:.1f} MiB"


def _kernels(entry):
    kernels = entry.get("kernels")
    return "—" if kernels is None else f"{kernels:g}"


def _note(entry, name):
    if "jit" in name and entry.get("first_call_seconds") is not None:
        return f"first call {entry['first_call_seconds']:.3g} s"
    if entry.get("linearity") is not None:
        return f"linearity {entry['linearity']:.2f}"
    if entry.get("test_accuracy") is not None:
        return f"accuracy {entry['test_accuracy']:.3f}"
    return ""


def _verdict(workload, target=None):
    """The verdict of ``target`` (the workload's, or its ``jit_target``): met, not met, or why it was not
    checked (the peers the target names that were not timed, with the reason: "not checked: torch not installed")."""
    target = target or workload["target"]
    if target["met"] is not None:
        return "met" if target["met"] else "not met"
    missing = [
        f"{name} {reason}" for name, reason in workload["skipped"].items() if re.search(rf"\b{re.escape(name)}\b", target["goal"])
    ]
    return f"not checked: {'; '.join(missing) or 'a figure is missing'}"


def rows(results):
    """One row per workload and contender: workload, contender, time, x hand-written, x autograd, memory, kernel
    launches per derivative, note,
    and on adcore's first row its figures against the workload's target with "met" or "not met" (on the
    first ``adcore.jit`` row, against the jit target)."""
    for workload in results["workloads"]:
        first = first_jit = True
        for name, entry in workload["contenders"].items():
            is_adcore = name.startswith("adcore") and not name.startswith(JIT)
            goal = workload["target"] if is_adcore and first and workload["target"] else None
            if goal:
                first = False
            if name.startswith(JIT) and first_jit and workload.get("jit_target"):
                goal, first_jit = workload["jit_target"], False
            yield (
                workload["id"],
                name,
                format_time(workload, entry),
                _ratio(entry.get(HAND)),
                _ratio(entry.get("autograd")),
                _memory(entry),
                _kernels(entry),
                _note(entry, name),
                f"{goal['value']}: {_verdict(workload, goal)}" if goal else "",
            )


def _machine_line(results):
    machine = results["machine"]
    where = machine.get("gpu") or machine["cpu"] or machine["machine"]
    load = machine.get("load_average_at_start")
    return (
        f"{machine['backend']} backend on {machine['device']} ({where}, {machine['cpus_usable']} of {machine['cpu_count']} CPUs"
        + (f", load average {load[0]:.1f} at start" if load else "")
        + f"), adcore at commit {machine['adcore_commit'] or 'unknown'}, Python {machine['python']}, "
        + ", ".join(f"{name} {version}" for name, version in machine["versions"].items())
    )


def _skips(results):
    skipped = {}
    for workload in results["workloads"]:
        for name, reason in workload["skipped"].items():
            skipped.setdefault(f"{name}: {reason}", []).append(workload["id"])
    every = len(results["workloads"])
    return [text if len(ids) == every else f"{text} (workload {', '.join(ids)})" for text, ids in skipped.items()]


def _describe(workload):
    goal = workload["target"]["goal"] if workload["target"] else "none in the issue"
    jit = workload.get("jit_target")
    return f"{workload['id']}: {workload['title']}; target: {goal}" + (f"; adcore.jit: {jit['goal']}" if jit else "")


def _threads(results):
    return results["machine"].get("threads") or "thread pools not recorded"


def results_table(results):
    """The figures for the terminal, fitted to its width (80 columns and up): a heading with the thread
    pools' pinning, a ``rich`` table with one row per contender, and under it the machine, each workload's
    title, its target and adcore's figures against it."""
    mode = "--quick" if results["quick"] else "full run"
    lines = [_machine_line(results)]
    for workload in results["workloads"]:
        target = workload["target"]
        jit = workload.get("jit_target")
        lines.append(
            _describe(workload)
            + (f"; adcore: {target['value']}: {_verdict(workload)}" if target else "")
            + (f"; adcore.jit: {jit['value']}: {_verdict(workload, jit)}" if jit else "")
        )
    table = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False)
    columns = ("", "contender", "time", "×hand", "×autograd", "peak MiB", "kernels")
    for column in columns:
        table.add_column(column, justify="left" if column in ("", "contender") else "right", no_wrap=True)
    table.add_column("note")  # wraps in a terminal narrower than 80 columns
    for workload, contender, time, hand, autograd, memory, kernels, note, _ in rows(results):
        table.add_row(workload, contender, time, hand, autograd, memory.removesuffix(" MiB"), kernels, note)
    heading = f"adcore benchmarks ({mode}), {_threads(results)}: medians of interleaved runs after warm-up"
    notes = lines + [f"not timed: {text}" for text in _skips(results)]
    return Group(Text(heading, style="bold"), table, *map(Text, notes))


def plot(results, path):
    """A PNG bar chart of every contender's time over the hand-written one's, per workload (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = results["workloads"]
    names = list(dict.fromkeys(name for w in workloads for name in w["contenders"] if name != HAND))
    libraries = list(dict.fromkeys(name.split()[0] for name in names))
    modes = {}
    colours = {}  # a library's contenders share a hue (tab20's pairs: dark, then light)
    for name in names:
        library = name.split()[0]
        shade = modes.setdefault(library, 0)
        modes[library] += 1
        colours[name] = plt.get_cmap("tab20")((2 * libraries.index(library) + shade % 2) % 20)
    figure, axes = plt.subplots(figsize=(max(8, 1.3 * len(workloads) + 4), 5), layout="constrained")
    for position, workload in enumerate(workloads):
        shown = [name for name in workload["contenders"] if name != HAND]
        width = 0.8 / max(len(shown), 1)
        for index, name in enumerate(shown):
            offset = (index - (len(shown) - 1) / 2) * width
            axes.bar(position + offset, workload["contenders"][name][HAND], width, color=colours[name])
    for name, colour in colours.items():
        axes.bar(0, 0, 0, color=colour, label=name)  # one legend entry per contender
    axes.axhline(1.0, color="black", linewidth=0.8, label="hand-written")
    axes.set_yscale("log")
    axes.set_xticks(range(len(workloads)), [w["id"] for w in workloads])
    axes.set_xlabel("workload")
    axes.set_ylabel("time / hand-written time (log scale)")
    machine = results["machine"]
    axes.set_title(f"adcore on {machine['backend']} ({machine['device']}): time relative to the hand-written derivative")
    axes.legend(fontsize="small", ncols=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.savefig(path, dpi=120)
    plt.close(figure)


def markdown(results):
    """The figures as a Markdown table, with the machine, the command and the date."""
    lines = [
        f"Measured with `{results['command']}` on {results['date']}: {_machine_line(results)}; {_threads(results)}. "
        f"Medians of interleaved runs; the whole run took {results['total_seconds']:.0f} s.",
        "",
        "| workload | contender | time | × hand-written | × autograd | peak memory | kernels | note | adcore vs target |",
        "|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    lines += [f"| {' | '.join(row)} |" for row in rows(results)]
    lines += ["", *(f"- {_describe(workload)}" for workload in results["workloads"])]
    lines += [f"- not timed: {text}" for text in _skips(results)]
    return "\n".join(lines)


def update_readme(results, path="README.md"):
    """Replace the text between the README's benchmark markers with :func:`markdown` of ``results``.

    Raises
    ------
    ValueError
        If ``path`` lacks either marker (or has them out of order).
    """
    path = Path(path)
    text = path.read_text()
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        raise ValueError(f"update_readme: {path} needs the lines {README_START} and {README_END}, in that order")
    path.write_text(text[: start + len(README_START)] + "\n" + markdown(results) + "\n" + text[end:])
