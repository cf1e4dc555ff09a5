"""The libraries a workload is timed with: adcore on the chosen backend, and each installed peer.

A ``Peer`` gives one library the same shape: a namespace ``np`` in which the
workloads' functions are written, its differential operators (``grad``,
``hvp``, ``jacobians``), how inputs are made (``put``) and read back
(``to_numpy``), how a call is waited for, and how its peak memory is read.
Peers are optional imports: one that is missing, or cannot run beside the
chosen backend, is listed in ``skipped`` with the reason instead.
"""

import importlib.util
import os
import tracemalloc
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from types import SimpleNamespace

import numpy

import adcore
import adcore.numpy as anp

#: The peers in the order they are timed and shown, after adcore.
PEER_NAMES = ("adcore.jit", "autograd", "torch", "jax", "jax.jit")


def library_version(distribution):
    """The installed version of ``distribution``, or None."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def tree_map(fun, value):
    """``fun`` applied to each array of ``value``: an array, or (nested) tuples and lists of them,
    whose structure is kept (a list of ``(W, b)`` tuples comes back as one)."""
    if isinstance(value, (tuple, list)):
        return type(value)(tree_map(fun, v) for v in value)
    return fun(value)


def tree_leaves(value):
    """The arrays of ``value`` (an array, or nested tuples and lists of them), in order, as a tuple."""
    if isinstance(value, (tuple, list)):
        return tuple(leaf for v in value for leaf in tree_leaves(v))
    return (value,)


def tree_unflatten(structure, leaves):
    """``structure`` (as for :func:`tree_map`) with its arrays replaced, in order, by ``leaves``."""
    leaves = iter(leaves)
    return tree_map(lambda _: next(leaves), structure)


class Peer:
    """One automatic-differentiation library, ready to time.

    Attributes
    ----------
    name : str
        The contender's name in the table (``"adcore"``, ``"autograd"``, ``"torch"``, ``"jax"``, ``"jax.jit"``).
    version : str
        The library's version.
    device : str
        Where it computes (``"cpu"``, ``"cuda:0"``...).
    np : namespace
        NumPy-named functions the workloads are written with (``sin``, ``tanh``, ``exp``, ``log``,
        ``sum``, ``max`` with ``axis``/``keepdims``, ``matmul``); traced by this library.
    jacobians : dict
        Mode (``"jacfwd"``, ``"jacrev"``) -> Jacobian operator ``op(fun)(x)``.
    """

    name = version = device = np = None
    jacobians = {}
    #: Whether the benchmark counts this library's kernel launches per derivative (``kernels``): adcore's only.
    counts_kernels = False

    def put(self, value, dtype="float64"):
        """The NumPy array or Python float ``value`` as an input of this library, on its device."""
        raise NotImplementedError

    def to_numpy(self, value):
        """A result of this library (an array, or a tuple of arrays) on the host, as NumPy."""
        return tree_map(numpy.asarray, value)

    def grad(self, fun):
        """The gradient of scalar ``fun`` with respect to its first argument (an array, or nested tuples
        and lists of arrays)."""
        raise NotImplementedError

    def hvp(self, fun):
        """``hvp(fun)(x, v)``: the Hessian of scalar ``fun`` at ``x`` times ``v``."""
        raise NotImplementedError

    def hessian(self, fun):
        """``hessian(fun)(x)``: the Hessian of scalar ``fun`` at the vector ``x``, shape ``x.shape * 2``."""
        raise NotImplementedError

    def per_example(self, kind, fun, in_axes=0):
        """This library's ``vmap`` of its ``kind`` (``"grad"`` or ``"hvp"``, as :meth:`grad` and :meth:`hvp`)
        of ``fun``, mapped over ``in_axes`` as ``jax.vmap`` reads them; None if the library has no ``vmap``."""
        return None

    def finished(self, call):
        """``call`` followed by waiting for its result (identity for a library that returns finished values)."""
        return call

    def synchronize(self):
        """Wait for this library's queued device work (a no-op on the CPU)."""

    def peak_memory(self, call):
        """``call()``'s result, and the peak bytes allocated while it ran as this library's allocator sees them
        (None where it keeps no such count)."""
        return call(), None


def tracemalloc_peak(call):
    """``call()``'s result, and the peak bytes ``tracemalloc`` saw allocated meanwhile (NumPy's arrays and Python's objects)."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class AdcorePeer(Peer):
    """adcore on ``backend``: the library under test."""

    name = "adcore"
    np = anp
    counts_kernels = True
    jacobians = {"jacfwd": adcore.jacfwd, "jacrev": adcore.jacrev}

    def __init__(self, backend, device):
        self.backend = backend
        self.device = str(device)
        self.version = library_version("adcore") or "worktree"

    def put(self, value, dtype="float64"):
        if isinstance(value, float) and self.backend.name == "numpy":
            return value  # adcore computes Python scalars on NumPy; autograd is timed on the same
        return self.backend.from_numpy(numpy.asarray(value), dtype=dtype)

    def to_numpy(self, value):
        return tree_map(self.backend.to_numpy, value)

    def grad(self, fun):
        return adcore.grad(fun)

    def hvp(self, fun):
        return adcore.hvp(fun)

    def hessian(self, fun):
        return adcore.hessian(fun)

    def per_example(self, kind, fun, in_axes=0):
        return adcore.vmap(getattr(self, kind)(fun), in_axes=in_axes)

    def synchronize(self):
        self.backend.synchronize()

    def peak_memory(self, call):
        if self.backend.name == "numpy":
            return tracemalloc_peak(call)
        if self.backend.name == "cupy":
            return cupy_pool_peak(call)
        return call(), None


class AdcoreJitPeer(AdcorePeer):
    """adcore's derivatives under ``adcore.jit``: recorded at the first call, replayed from then on.

    numexpr, which fuses the elementwise chains of NumPy programs, runs on one thread here, as
    every other library of the run does.
    """

    name = "adcore.jit"
    jacobians = {"jacfwd": partial(adcore.jacfwd, jit=True), "jacrev": partial(adcore.jacrev, jit=True)}

    def __init__(self, backend, device):
        super().__init__(backend, device)
        if importlib.util.find_spec("numexpr") is not None:
            import numexpr

            numexpr.set_num_threads(1)

    def grad(self, fun):
        return adcore.grad(fun, jit=True)

    def hvp(self, fun):
        return adcore.hvp(fun, jit=True)

    def per_example(self, kind, fun, in_axes=0):
        """``adcore.jit`` of the whole batched derivative: one recording of the ``vmap`` of the eager ``kind``
        (a ``vmap`` of ``grad(fun, jit=True)`` would replay each example's recording inside a new batch trace)."""
        return adcore.jit(adcore.vmap(getattr(AdcorePeer, kind)(self, fun), in_axes=in_axes))


def cupy_pool_peak(call):
    """``call()``'s result, and the bytes CuPy's default memory pool holds after it, started from an emptied pool.

    The pool keeps every block it was given until told to free them, reusing
    freed ones, so what it holds afterwards is the call's high-water mark (in
    the pool's rounded block sizes), less what was in use before.
    """
    import cupy

    pool = cupy.get_default_memory_pool()
    cupy.cuda.get_current_stream().synchronize()
    pool.free_all_blocks()
    before = pool.used_bytes()
    result = call()
    cupy.cuda.get_current_stream().synchronize()
    return result, pool.total_bytes() - before


class AutogradPeer(Peer):
    """HIPS/autograd, on NumPy."""

    name = "autograd"
    device = "cpu"

    def __init__(self):
        import autograd
        import autograd.numpy

        self.autograd = autograd
        self.np = autograd.numpy
        self.version = library_version("autograd")
        self.jacobians = {"jacobian": autograd.jacobian}

    def put(self, value, dtype="float64"):
        return value if isinstance(value, float) else numpy.asarray(value, dtype=dtype)

    def grad(self, fun):
        return self.autograd.grad(fun)

    def hvp(self, fun):
        return self.autograd.hessian_vector_product(fun)

    def hessian(self, fun):
        return self.autograd.hessian(fun)

    def peak_memory(self, call):
        return tracemalloc_peak(call)


class TorchPeer(Peer):
    """PyTorch eager (``torch.autograd``, and ``torch.func`` for Jacobians) on ``device``."""

    name = "torch"

    def __init__(self, device):
        import torch
        import torch.func

        self.torch = torch
        self.device = device
        self.version = torch.__version__
        names = ("sin", "cos", "tanh", "exp", "log", "sum", "matmul", "square")
        self.np = SimpleNamespace(**{name: getattr(torch, name) for name in names})
        self.np.max = torch.amax  # torch.max(x, axis) also returns the indices
        self.jacobians = {"jacfwd": torch.func.jacfwd, "jacrev": torch.func.jacrev}

    def put(self, value, dtype="float64"):
        return self.torch.as_tensor(numpy.asarray(value, dtype=dtype), device=self.device)

    def to_numpy(self, value):
        return tree_map(lambda t: t.detach().cpu().numpy(), value)

    def _leaves(self, x):
        return tree_map(lambda t: t.detach().requires_grad_(), x)

    def grad(self, fun):
        def gradient(x, *args):
            leaves = self._leaves(x)
            grads = self.torch.autograd.grad(fun(leaves, *args), tree_leaves(leaves))
            return tree_unflatten(x, grads)

        return gradient

    def hvp(self, fun):
        def hessian_times(x, v):
            x = self._leaves(x)
            (g,) = self.torch.autograd.grad(fun(x), x, create_graph=True)
            return self.torch.autograd.grad(self.torch.sum(g * v), x)[0]

        return hessian_times

    def hessian(self, fun):
        return self.torch.func.hessian(fun)

    def per_example(self, kind, fun, in_axes=0):
        func = self.torch.func
        if kind == "grad":
            return func.vmap(func.grad(fun), in_dims=in_axes)
        return func.vmap(lambda x, v: func.jvp(func.grad(fun), (x,), (v,))[1], in_dims=in_axes)

    def synchronize(self):
        if self.device != "cpu":
            self.torch.cuda.synchronize()

    def peak_memory(self, call):
        if self.device == "cpu":
            return call(), None  # torch's CPU allocator is invisible to tracemalloc and keeps no peak
        cuda = self.torch.cuda
        cuda.synchronize()
        cuda.reset_peak_memory_stats()
        before = cuda.memory_allocated()
        result = call()
        cuda.synchronize()
        return result, cuda.max_memory_allocated() - before


class JaxPeer(Peer):
    """JAX, eager (``jax``) or with every differentiated function under ``jax.jit`` (``jax.jit``)."""

    def __init__(self, device, jit):
        import jax
        import jax.numpy

        jax.config.update("jax_enable_x64", True)  # float64 as in NumPy, as adcore's jax backend does
        jax.config.update("jax_default_matmul_precision", "highest")  # no TF32 on a GPU: the same arithmetic as the rest
        self.jax = jax
        self.target = jax.devices(device)[0]
        self.device = str(self.target)
        self.jit = jit
        self.name = "jax.jit" if jit else "jax"
        self.version = jax.__version__
        self.np = jax.numpy
        self.jacobians = {mode: self._compose(getattr(jax, mode)) for mode in ("jacfwd", "jacrev")}

    def _compose(self, operator):
        return lambda fun: self.compiled(operator(fun))

    def compiled(self, call):
        """``call`` under ``jax.jit`` for the ``jax.jit`` contender, as is for eager ``jax``."""
        return self.jax.jit(call) if self.jit else call

    def put(self, value, dtype="float64"):
        return self.jax.device_put(numpy.asarray(value, dtype=dtype), self.target)

    def grad(self, fun):
        return self.compiled(self.jax.grad(fun))

    def hvp(self, fun):
        return self.compiled(self._hessian_times(fun))

    def _hessian_times(self, fun):
        return lambda x, v: self.jax.jvp(self.jax.grad(fun), (x,), (v,))[1]

    def per_example(self, kind, fun, in_axes=0):
        derivative = self.jax.grad(fun) if kind == "grad" else self._hessian_times(fun)
        return self.compiled(self.jax.vmap(derivative, in_axes=in_axes))

    def hessian(self, fun):
        return self.compiled(self.jax.hessian(fun))

    def finished(self, call):
        return lambda: self.jax.block_until_ready(call())


def load_peers(backend, device, wanted=PEER_NAMES):
    """adcore on ``backend`` and each peer in ``wanted`` that can run beside it.

    On ``cupy`` the peers run on the GPU (torch on CUDA, JAX on its GPU, told
    not to preallocate its memory pool) and autograd, NumPy only, is left out;
    on every other backend they run on the CPU.

    Returns
    -------
    peers : list of Peer
        adcore first, then the peers that loaded, in ``PEER_NAMES`` order.
    skipped : dict
        Peer name -> why it is not timed (``"not installed"``, or what failed).
    """
    on_gpu = backend.name == "cupy"
    if on_gpu:  # JAX would otherwise take 75% of the GPU's memory at its start, leaving CuPy and torch short
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    peers, skipped = [AdcorePeer(backend, device)], {}
    makers = {
        "adcore.jit": ((), partial(AdcoreJitPeer, backend, device)),
        "autograd": (("autograd",), AutogradPeer),
        "torch": (("torch",), partial(_torch_peer, on_gpu)),
        "jax": (("jax",), partial(JaxPeer, "gpu" if on_gpu else "cpu", jit=False)),
        "jax.jit": (("jax",), partial(JaxPeer, "gpu" if on_gpu else "cpu", jit=True)),
    }
    for name in PEER_NAMES:
        modules, make = makers[name]
        if name not in wanted:
            skipped[name] = "not asked for (--peers)"
            continue
        if name == "autograd" and backend.name != "numpy":
            skipped[name] = f"NumPy only (backend is {backend.name})"
            continue
        if any(importlib.util.find_spec(module) is None for module in modules):
            skipped[name] = "not installed"
            continue
        try:
            peers.append(make())
        except Exception as error:  # noqa: BLE001 - a peer that cannot start here is reported, not fatal
            skipped[name] = f"cannot run here: {type(error).__name__}: {error}"
    return peers, skipped


def _torch_peer(on_gpu):
    import torch

    if on_gpu and not torch.cuda.is_available():
        raise RuntimeError("this torch build has no CUDA")
    return TorchPeer("cuda" if on_gpu else "cpu")
