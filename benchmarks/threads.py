"""The thread pools of the numerical libraries, pinned for the run (one thread each by default).

On a machine shared with other work, or with fewer cores than the pools
assume, the pools of NumPy's BLAS, OpenMP, PyTorch and XLA oversubscribe the
cores: a 200 x 200 matrix product took 10 to 30 times longer once PyTorch was
imported, which moved workloads e and f by factors of several between runs.
Every contender therefore runs with the same small pools, set here:
``threadpoolctl`` for the BLAS and OpenMP libraries loaded (again before each
workload, for those loaded since), ``torch.set_num_threads`` for PyTorch, and
``XLA_FLAGS`` for JAX (read when JAX starts, so set before the peers load).
"""

import os
import sys

from threadpoolctl import threadpool_info, threadpool_limits


def xla_flags(threads):
    """Set XLA's CPU thread pools to ``threads`` for a JAX started after this (a flag given already is kept)."""
    flags = os.environ.get("XLA_FLAGS", "")
    if "intra_op_parallelism_threads" not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads={threads}".strip()


class ThreadPins:
    """Keeps the pools of every library loaded at ``threads`` threads (None: the libraries' own defaults).

    ``apply()`` pins the pools loaded so far; ``restore()`` gives back those
    found (the benchmark's tests run it in their own process).
    """

    def __init__(self, threads):
        self.threads = threads
        self.limits = []
        self.torch_threads = None
        if threads is not None:
            xla_flags(threads)

    def apply(self):
        if self.threads is None:
            return
        self.limits.append(threadpool_limits(limits=self.threads))
        torch = sys.modules.get("torch")
        if torch is not None:
            self.torch_threads = self.torch_threads or torch.get_num_threads()
            torch.set_num_threads(self.threads)

    def restore(self):
        for limit in reversed(self.limits):
            limit.restore_original_limits()
        self.limits.clear()
        torch = sys.modules.get("torch")
        if torch is not None and self.torch_threads:
            torch.set_num_threads(self.torch_threads)

    def describe(self):
        """What was pinned, for the table's header: ``"1 thread per pool (openblas, openmp, torch, xla)"``."""
        if self.threads is None:
            return "thread pools at the libraries' defaults (--threads 0)"
        pools = sorted({pool["internal_api"] for pool in threadpool_info()})
        pools += ["torch"] * ("torch" in sys.modules) + ["xla"] * ("jax" in sys.modules)
        unit = "thread" if self.threads == 1 else "threads"
        return f"{self.threads} {unit} per pool ({', '.join(pools)}; --threads to change)"
