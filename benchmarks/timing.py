"""Side-by-side timing: the median of interleaved runs, so that a noisy machine slows every contender alike."""

import gc
import random
import statistics
from time import perf_counter


def median_times(contenders, synchronize, repeats, warmup=2, progress=None):
    """The median wall time of each contender, in seconds.

    After ``warmup`` untimed calls of each, every repetition calls each
    contender once, in an order drawn afresh (from a fixed seed), so that no
    contender always runs first or right after the same other one: what one
    library leaves behind (spinning threads, fragmented memory, the kernel's
    huge pages in use) then slows each of the others alike. Before each
    call a full garbage collection (untimed) clears the previous contender's
    garbage, so each pays only for the collections its own allocations cause;
    the objects alive before the first repetition (imported modules, inputs)
    are frozen out of the collector meanwhile (``gc.freeze``), so that neither
    those collections nor the ones inside the calls walk them again and again.
    The device is synchronised before every clock read, so queued GPU work is
    counted.

    Parameters
    ----------
    contenders : dict
        Name -> a function of no arguments.
    synchronize : callable
        Waits for the backend's queued work (``backend.synchronize``).
    repeats, warmup : int
        Timed and untimed calls of each contender.
    progress : callable, optional
        ``progress(done, total)`` after each call, untimed ones included.

    Returns
    -------
    dict
        Name -> median seconds, in the order of ``contenders``.
    """
    names = list(contenders)
    total, done = (warmup + repeats) * len(names), 0
    progress = progress or (lambda done, total: None)
    for name in names:
        for _ in range(warmup):
            contenders[name]()
            done += 1
            progress(done, total)
    samples = {name: [] for name in names}
    orders = random.Random(0)
    gc.collect()
    gc.freeze()
    try:
        for _ in range(repeats):
            for name in orders.sample(names, len(names)):
                gc.collect()
                synchronize()
                start = perf_counter()
                contenders[name]()
                synchronize()
                samples[name].append(perf_counter() - start)
                done += 1
                progress(done, total)
    finally:
        gc.unfreeze()
    return {name: statistics.median(times) for name, times in samples.items()}
