"""What every workload shares: the run's context, checking each contender's derivative against
the hand-written one, and timing them side by side.

A workload's result is a dict (written to the JSON file as is)::

    {"id": "a", "title": ..., "unit": "us/primitive" or "ms" or "s",
     "contenders": {name: {"seconds": ..., "memory_bytes": ... or None, "kernels": ... or None,
                           "hand-written": ratio, "autograd": ratio, ...}},
     "skipped": {name: reason}, "target": {"goal": ..., "value": ..., "met": True/False/None} or None, ...}

``"hand-written"`` and ``"autograd"`` are each contender's time over theirs,
measured in the same interleaved run (None where autograd was not timed);
``"kernels"`` the kernel launches of one call (``kernels``), for adcore's contenders
and the hand-written derivative (None for the peers, and where not counted).
Workloads add their own figures: ``"us_per_primitive"`` (a, b, g),
``"short_seconds"`` and ``"linearity"`` (g), ``"test_accuracy"`` (h).
"""

from dataclasses import dataclass, field
from functools import partial
from time import perf_counter

import numpy

from .kernels import kernels
from .peers import tree_leaves, tree_map
from .timing import median_times

HAND = "hand-written"

#: Largest difference from the hand-written derivative, relative to its largest entry, by dtype.
RTOL = {"float64": 1e-8, "float32": 1e-4}


@dataclass(frozen=True)
class Settings:
    """How long a run is: ``quick`` picks the small sizes; ``repeats`` maps a workload's letter to its
    timed calls of each contender; ``warmup`` is the untimed calls before them."""

    quick: bool
    repeats: dict
    warmup: int


FULL = Settings(quick=False, repeats={"a": 9, "b": 9, "c": 9, "d": 3, "e": 15, "f": 9, "g": 3, "h": 3, "i": 9, "k": 9, "n": 9, "v": 5}, warmup=1)
QUICK = Settings(quick=True, repeats={"a": 3, "b": 3, "c": 3, "d": 3, "e": 3, "f": 3, "g": 3, "h": 1, "i": 3, "k": 3, "n": 3, "v": 3}, warmup=1)


class WrongDerivative(AssertionError):
    """A contender's derivative differs from the hand-written one."""


@dataclass
class Context:
    """One run: the backend, the contenders that loaded, the settings, and the errors found so far.

    Attributes
    ----------
    backend : backends.Backend
    peers : list of peers.Peer
        adcore first.
    skipped : dict
        Peer name -> why it is not timed.
    settings : Settings
    errors : list of str
        One line per wrong or failing contender; a run with any exits with status 1.
    progress : callable
        ``progress(text, done, total)``: what the run is doing now, and how far, for a progress bar.
    """

    backend: object
    peers: list
    skipped: dict
    settings: Settings
    errors: list = field(default_factory=list)
    progress: object = lambda text, done, total: None

    def timing_progress(self, workload_id):
        """``median_times``'s ``progress`` for workload ``workload_id``: calls done of the total."""
        return lambda done, total: self.progress(f"{workload_id}: timing", done, total)

    @property
    def adcore(self):
        return self.peers[0]

    def repeats(self, workload_id):
        return self.settings.repeats[workload_id[0]]

    def synchronize(self):
        for peer in self.peers:
            peer.synchronize()


def check(name, value, reference, dtype):
    """Raise ``WrongDerivative`` unless ``value`` (a NumPy array, or nested tuples and lists of them) matches ``reference``.

    Each array may differ from its reference by ``RTOL[dtype]`` times the
    reference's largest entry (summation orders differ between libraries);
    shapes and dtypes must be equal.
    """
    values, references = tree_leaves(value), tree_leaves(reference)
    if len(values) != len(references):
        raise WrongDerivative(f"{name}: {len(values)} arrays where the hand-written derivative has {len(references)}")
    for index, (ours, theirs) in enumerate(zip(values, references)):
        ours, theirs = numpy.asarray(ours), numpy.asarray(theirs)
        where = f"{name}, array {index}" if len(references) > 1 else name
        if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
            raise WrongDerivative(f"{where}: {ours.dtype}{list(ours.shape)}, hand-written {theirs.dtype}{list(theirs.shape)}")
        error = float(numpy.max(numpy.abs(ours - theirs), initial=0.0))
        scale = float(numpy.max(numpy.abs(theirs), initial=0.0))
        if not error <= RTOL[dtype] * scale:
            raise WrongDerivative(
                f"{where}: largest difference {error:.3e} from the hand-written derivative, "
                f"{error / scale if scale else float('inf'):.3e} of its largest entry (tolerance {RTOL[dtype]:.0e})"
            )


def checked_calls(ctx, workload_id, calls, reference, dtype="float64", memory=False):
    """The calls whose result matches ``reference``; the others are reported in ``ctx.errors``.

    Each call runs once here, timed: the first call, which also records or compiles what does
    (``adcore.jit``, ``jax.jit``) and warms caches. If ``memory`` is true, a second call
    measures the peak memory (a replay, for the contenders that record). Then adcore's contenders'
    kernel launches are counted (``launches``), untimed.

    Parameters
    ----------
    calls : dict
        Contender name -> ``(peer, call)``: ``call()`` returns the derivative in ``peer``'s arrays.
    reference : array or tuple of arrays
        The hand-written derivative, as NumPy.

    Returns
    -------
    passed : dict
        Contender name -> ``(peer, call)``, for the contenders that passed.
    figures : dict
        Contender name -> ``{"memory_bytes": peak bytes or None, "first_call_seconds": ..., "kernels": ...}``, for
        the same contenders.
    """
    passed, figures = {}, {}
    for index, (name, (peer, call)) in enumerate(calls.items()):
        ctx.progress(f"{workload_id}: checking {name}", index, len(calls))
        try:
            first, value = first_call(ctx, peer.finished(call))
            peak = peer.peak_memory(call)[1] if memory else None
            check(f"workload {workload_id}, {name}", peer.to_numpy(value), reference, dtype)
            count = launches(ctx, peer, call)
        except WrongDerivative as error:
            ctx.errors.append(str(error))
            continue
        except Exception as error:  # noqa: BLE001 - a contender that fails is reported with the others
            ctx.errors.append(f"workload {workload_id}, {name}: raised {type(error).__name__}: {error}")
            continue
        passed[name], figures[name] = (peer, call), {"memory_bytes": peak, "first_call_seconds": first, "kernels": count}
    return passed, figures


def launches(ctx, peer, call):
    """The kernel launches of one call of ``call`` (``kernels.kernels``) if ``peer`` is adcore's (eager or
    ``adcore.jit``; the hand-written derivative runs as adcore's), else None: untimed calls, after the check."""
    return kernels(ctx.backend.name, call) if peer.counts_kernels else None


def first_call(ctx, call):
    """``(seconds, result)`` of ``call()``, the device synchronised before and after."""
    ctx.synchronize()
    start = perf_counter()
    result = call()
    ctx.synchronize()
    return perf_counter() - start, result


def compare(ctx, workload_id, calls, hand_written, dtype="float64", memory=False, warmup=None):
    """Check each contender against the hand-written derivative, then time them all side by side.

    Parameters
    ----------
    ctx : Context
    workload_id : str
        ``"a"``, ``"c32"``...; its letter picks the repeats.
    calls : dict
        Contender name -> ``(peer, call)``, each ``call()`` returning the derivative in ``peer``'s arrays.
    hand_written : callable
        Returns the derivative by hand, in the arrays of ``ctx.backend``.
    memory : bool
        Also measure each contender's peak memory, in the untimed call that checks it.
    warmup : int, optional
        Untimed calls of each before timing (default: the settings'); the check already made one.

    Returns
    -------
    dict
        Contender name (the hand-written one first) -> ``{"seconds", "memory_bytes", "kernels", "hand-written", "autograd"}``.
    """
    hand_first, reference = first_call(ctx, ctx.adcore.finished(hand_written))
    hand_peak = ctx.adcore.peak_memory(hand_written)[1] if memory else None
    hand_kernels = launches(ctx, ctx.adcore, hand_written)
    passed, figures = checked_calls(ctx, workload_id, calls, ctx.adcore.to_numpy(reference), dtype, memory)
    timed = {HAND: ctx.adcore.finished(hand_written)}
    timed.update((name, peer.finished(call)) for name, (peer, call) in passed.items())
    warmup = ctx.settings.warmup if warmup is None else warmup
    seconds = median_times(timed, ctx.synchronize, ctx.repeats(workload_id), warmup, ctx.timing_progress(workload_id))
    figures[HAND] = {"memory_bytes": hand_peak, "first_call_seconds": hand_first, "kernels": hand_kernels}
    return add_ratios({name: {"seconds": s, **figures[name]} for name, s in seconds.items()})


def add_ratios(figures, key="seconds"):
    """``figures`` with each contender's ``key`` over the hand-written one's and autograd's added."""
    for name in (HAND, "autograd"):
        base = figures.get(name, {}).get(key)
        for entry in figures.values():
            entry[name] = entry[key] / base if base else None
    return figures


def gradient_calls(ctx, function, inputs, dtype="float64"):
    """For each contender, ``call() = grad(function)(*inputs)`` with its own namespace and arrays.

    Parameters
    ----------
    function : callable
        ``function(x, *data, np=namespace)``, scalar-valued; differentiated in ``x``
        (an array, a Python float, or nested tuples and lists of arrays).
    inputs : tuple
        ``(x, *data)`` as NumPy arrays, Python floats, or nested tuples and lists of arrays.

    Returns
    -------
    dict
        Contender name -> ``(peer, call)``.
    """
    calls = {}
    for peer in ctx.peers:
        args = tuple(put(peer, value, dtype) for value in inputs)
        calls[peer.name] = (peer, partial(gradient_of(peer, function), *args))  # a partial: ``kernels`` counts on its inputs
    return calls


def put(peer, value, dtype):
    """``value`` (an array, a float, or nested tuples and lists of them) as ``peer``'s input."""
    return tree_map(lambda v: peer.put(v, dtype), value)


def _bind(function, np):
    def bound(*args):
        return function(*args, np=np)

    bound.__name__ = getattr(function, "__name__", "function")
    return bound


def target(goal, figures, met):
    """A workload's target from the issue: what it asks, adcore's figures, and whether it is met.

    ``figures`` is a list of ``(template, value)`` pairs, such as ``("{:.2f}x autograd", 0.3)``;
    those whose value is None (not measured) are left out. ``met`` is None when a figure is missing.
    """
    shown = ", ".join(template.format(value) for template, value in figures if value is not None)
    missing = any(value is None for _, value in figures)
    return {"goal": goal, "value": shown or "not measured", "met": None if missing else bool(met)}


JIT = "adcore.jit"


def jit_target(figures, time=None, memory=None, linearity=None, names=(JIT, "jax.jit")):
    """The issue's target for the ``adcore.jit`` row: its time (and peak memory, linearity) against the
    hand-written derivative's, and its first call (record and run) ahead of ``jax.jit``'s where JAX ran.

    ``names`` are the rows compared for the first call (``"adcore.jit jacrev"``... in workload f).
    Returns None if the jit row was not timed.
    """
    jit, jax = figures.get(names[0]), figures.get(names[1])
    if jit is None:
        return None
    goals, shown, met = [], [], True
    if time is not None:
        goals.append(f"<= {time}x hand-written")
        shown.append(("{:.2f}x", jit[HAND]))
        met = met and jit[HAND] <= time
    if memory is not None:
        hand = figures[HAND]["memory_bytes"]
        ratio = jit["memory_bytes"] / hand if jit.get("memory_bytes") is not None and hand else None
        goals.append(f"<= {memory}x its memory")
        shown.append(("{:.2f}x memory", ratio))
        met = met and ratio is not None and ratio <= memory
    if linearity is not None:
        goals.append(f"linearity <= {linearity}")
        shown.append(("linearity {:.2f}", jit.get("linearity")))
        met = met and jit.get("linearity") is not None and jit["linearity"] <= linearity
    goals.append("first call ahead of jax.jit")
    if jax is not None:
        first = jit["first_call_seconds"] / jax["first_call_seconds"]
        shown.append(("first call {:.2f}x jax.jit's", first))
        met = met and first < 1.0
    return target(", ".join(goals), shown, met)


def ratio_or_none(figures, name, base):
    """``figures[name]["seconds"]`` over ``figures[base]["seconds"]``, or None if either was not timed."""
    if name in figures and base in figures:
        return figures[name]["seconds"] / figures[base]["seconds"]
    return None


def skipped_peers(ctx, extra=None):
    """The peers not timed in a workload: those that did not load, and ``extra`` (name -> reason)."""
    skipped = dict(ctx.skipped)
    skipped.update(extra or {})
    return skipped


def gradient_of(peer, function):
    """``peer``'s gradient operator applied to ``function(x, *data, np=...)`` with ``peer``'s namespace."""
    return peer.grad(_bind(function, peer.np))
