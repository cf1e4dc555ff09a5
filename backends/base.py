"""The Backend interface: one array library, seen through Array API names.

A backend answers the standard's functions as attributes (``backend.sin``,
``backend.permute_dims``, ``backend.concat``), plus what differentiation needs
and the standard lacks: ``scatter_add``, host transfer, random numbers,
``synchronize``. It knows nothing of derivatives.
"""

import math

import array_api_compat
import numpy

#: Array API functions taking arrays or Python scalars elementwise. NumPy scalars
#: carry no backend, so they are passed on as Python scalars; the standard
#: requires at least one array among the arguments, so a call with scalars only
#: gets its first argument made an array first. A fact of the standard (its
#: elementwise functions, with ``clip`` and ``where``), not a list of adcore's
#: primitives: tests/test_backends.py checks that every Array API name of adcore's
#: op table declared elementwise is here.
ELEMENTWISE = frozenset(
    "abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_invert bitwise_left_shift bitwise_or "
    "bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide equal exp expm1 floor floor_divide "
    "greater greater_equal hypot imag isfinite isinf isnan less less_equal log log1p log2 log10 logaddexp "
    "logical_and logical_not logical_or logical_xor maximum minimum multiply negative nextafter not_equal "
    "positive pow real reciprocal remainder round sign signbit sin sinh sqrt square subtract tan tanh trunc where".split()
)


def shares_entries(shape, strides):
    """Whether an array of ``shape`` and ``strides`` has two entries at one address: an axis longer than 1
    with stride 0, as a broadcast view has."""
    return any(stride == 0 and length > 1 for length, stride in zip(shape, strides))


def install_command(*extras):
    """The pip command that installs adcore with ``extras`` (``pip install "adcore[scipy]"``), one per extra, joined by "or"."""
    return " or ".join(f'pip install "adcore[{extra}]"' for extra in extras)


class Backend:
    """One array library, seen through the Array API standard's names.

    A backend for a new library is one subclass: its ``__init__`` calls ``super().__init__(name, xp)`` with
    the library's Array API namespace (``array_api_compat``'s wrapper where the library needs one), its class
    attributes (below) describe the library's arrays, and it overrides only what the library does
    differently. The class body has two blocks:

    - **Required operations**, what adcore computes with: the standard's functions as attributes
      (``backend.sin``, ``backend.permute_dims``, through ``lookup``), host transfer, dtypes, NumPy's
      indexing and scatter-add, NumPy's functions the standard lacks, random numbers, the products and norms
      that derivatives need, snapshots of mutable arrays, ``synchronize``. Each has a default written with
      the standard's functions (or the answer of a library without the feature: ``set_recording`` records
      nothing); a backend overrides one where its library differs, and raises ``NotImplementedError``
      naming itself and the operation where it cannot do it.
    - **Optional performance hooks**: each default is safe, giving the values the fast path would give
      (a new array instead of a write in place, a NaN mask computed instead of skipped, a copy instead of a
      shared read-only one, the standard's function for every argument type); a backend overrides a hook
      where its library has a quicker way, and answers for its own arrays only.

    Attributes
    ----------
    name : str
        The name used by ``get_backend`` and in error messages.
    xp : module
        The library's Array API namespace.
    multi_device : bool
        Whether arrays of this library can live on different devices (so calls
        check that their arguments share one).
    mutable_arrays : bool
        Whether arrays of this library can be written to in place (so values saved
        for a backward pass are snapshots, see ``snapshot``).
    takes_numpy_arrays : bool
        Whether NumPy arrays beside this library's arrays in one call are its constants
        (Dask wraps them lazily, on the host): such a call runs on this backend.
    lazy : bool
        Whether arrays of this library hold no values until computed (Dask): a result whose dtype
        NumPy picks by the values (``eig``'s) takes a dtype fixed in advance instead.
    arrays_beside_slices : bool
        Whether ``x[index]`` takes integer index arrays beside slices (``x[:, [0, 2]]``), as NumPy
        does; the standard allows them only beside integers, so a library it does not know says no
        (``adcore.vmap`` then indexes example by example).
    """

    multi_device = True
    lazy = False
    mutable_arrays = True
    takes_numpy_arrays = False
    arrays_beside_slices = False
    #: The library's own module of NumPy-named functions with NumPy's meaning (``numpy``, ``cupy``,
    #: ``jax.numpy``, ``dask.array``), or None where its names mean something else (torch) or only
    #: the standard's exist (array-api-strict). Serves ``numpy_function``.
    numpy_namespace = None

    # ---- required operations (each default written with the standard's functions) ----

    def __init__(self, name, xp):
        self.name = name
        self.xp = xp

    def __getattr__(self, api_name):
        if api_name.startswith("_"):
            raise AttributeError(api_name)
        try:
            fun = self.lookup(api_name)
        except AttributeError:
            raise NotImplementedError(f"the {self.name} backend has no function {api_name!r}") from None
        setattr(self, api_name, fun)
        return fun

    def lookup(self, api_name):
        """The function answering the Array API name ``api_name`` (cached by ``__getattr__``)."""
        fun = getattr(self.xp, api_name)
        return _first_scalar_as_array(fun, self) if api_name in ELEMENTWISE else fun

    def __repr__(self):
        return f"<adcore backend {self.name}>"

    def device(self, x):
        return array_api_compat.device(x)

    def dtype(self, spec):
        """This library's dtype for ``spec`` (a NumPy dtype, type or name, or already one of ours)."""
        if spec is None:
            return None
        try:
            name = numpy.dtype(spec).name
        except TypeError:
            return spec
        return getattr(self.xp, name)

    def default_float(self, device=None):
        """The library's default real floating dtype on ``device`` (what an integer array times 1.0 becomes)."""
        return self.xp.__array_namespace_info__().default_dtypes(device=device)["real floating"]

    def to_numpy(self, x):
        """An explicit copy of ``x`` on the host, as a NumPy array."""
        return numpy.asarray(array_api_compat.to_device(x, "cpu"))

    def from_numpy(self, x, dtype=None, device=None):
        """An explicit copy of the NumPy array ``x`` in this library, on ``device``."""
        return self.xp.asarray(x, dtype=self.dtype(dtype), device=device)

    def real(self, x):
        """NumPy's ``real``: the real part of a complex ``x``, and a real ``x`` itself (the standard's
        ``real`` takes complex arrays only)."""
        if hasattr(x, "dtype") and not self.isdtype(x.dtype, "complex floating"):
            return x
        return self.lookup("real")(x)

    def imag(self, x):
        """NumPy's ``imag``: the imaginary part of a complex ``x``, and zeros of a real ``x``'s shape and
        dtype (the standard's ``imag`` takes complex arrays only)."""
        if hasattr(x, "dtype") and not self.isdtype(x.dtype, "complex floating"):
            return self.zeros_like(x)
        return self.lookup("imag")(x)

    def getitem(self, x, index):
        """``x[index]`` with NumPy's indexing (a library whose arrays lack part of it overrides this)."""
        return x[index]

    def scatter_add(self, shape, dtype, device, index, values):
        """``out = zeros(shape); out[index] += values``, with repeated indices accumulating.

        The standard has no scatter-add: an index without integer arrays cannot
        repeat a position, so it is a plain assignment; an integer-array index is
        accumulated by ``scatter_add_repeated``.
        """
        xp = self.xp
        out = xp.zeros(shape, dtype=dtype, device=device)
        index = tuple(self.xp.asarray(i, device=device) if isinstance(i, list) else i for i in _as_tuple(index))
        if any(_is_integer_array(xp, i) for i in index):
            return self.scatter_add_repeated(out, index, values)
        if len(index) == 1 and _is_boolean_array(xp, index[0]):
            return self.scatter_masked(out, index[0], values)
        kept = tuple(i for i in index if i is not None)
        out[kept] = xp.reshape(values, out[kept].shape) if values.ndim else values
        return out

    def scatter_masked(self, zeros, mask, values):
        """``zeros`` with ``values`` (one row per true entry of ``mask``, in order) put where ``mask`` holds.

        Written without item assignment: each position of the mask picks its row
        of ``values`` by the running count of true entries, then ``where`` keeps
        the masked ones (shape-stable, and no host copy of the mask).
        """
        xp = self.xp
        if values.shape[0] == 0:
            return zeros
        flat_mask = xp.reshape(mask, (-1,))
        rows = xp.cumulative_sum(xp.astype(flat_mask, xp.int64)) - 1
        picked = xp.take(values, xp.where(flat_mask, rows, 0), axis=0)
        keep = xp.reshape(flat_mask, (-1,) + (1,) * (values.ndim - 1))
        return xp.reshape(xp.where(keep, picked, 0.0), zeros.shape)

    def scatter_add_repeated(self, out, index, values):
        """``out[index] += values`` for an index with integer arrays, which may repeat positions.

        The standard has no such routine: positions are made flat and summed
        through a one-hot matrix product (memory ``values.size * out.size``).
        Libraries with a native scatter-add override this.
        """
        xp = self.xp
        shape, device = out.shape, self.device(out)
        size = math.prod(shape)
        one_hot = xp.astype(self.flat_positions(out, index)[:, None] == xp.arange(size, device=device)[None, :], out.dtype)
        return out + xp.reshape(xp.reshape(values, (1, -1)) @ one_hot, shape)

    def flat_positions(self, out, index):
        """The flat (C-order) positions in ``out`` of the entries ``out[index]`` selects: a 1-d integer
        array on ``out``'s device (what a scatter-add at ``index`` adds to, repeats included)."""
        xp = self.xp
        positions = xp.reshape(xp.arange(math.prod(out.shape), device=self.device(out)), out.shape)
        return xp.reshape(positions[index], (-1,))

    def numpy_function(self, name):
        """This library's function of NumPy's name ``name`` and NumPy's meaning, for the NumPy functions
        that the Array API standard lacks (``gcd``, ``histogram``, ``packbits``, ...); where the library
        has none, this class's ``standard_<name>`` written with the standard's functions (``put``,
        ``ravel_multi_index``, ``unravel_index``) if there is one.

        Raises
        ------
        NotImplementedError
            Naming the backend and the function, if the library has no NumPy-style namespace or no such function.
        """
        fun = getattr(self.numpy_namespace, name, None)
        standard = getattr(type(self), f"standard_{name}", None)  # the class's: a backend's __getattr__ raises
        if fun is None and standard is not None:
            fun = standard.__get__(self)
        if fun is None:
            raise NotImplementedError(f"{name}: the {self.name} backend has no NumPy function {name!r}")
        return fun

    # NumPy's index functions written with the standard's functions: ``numpy_function`` returns them for a
    # library without a NumPy-style namespace (array-api-strict, torch) or without the function (Dask's ``put``).

    def _index_in_range(self, name, index, size, mode, error, negative):
        """``index`` (an integer array) brought into ``[0, size)`` by ``mode``: ``"wrap"`` (modulo), ``"clip"``,
        or ``"raise"`` (the exception ``error`` for an entry outside ``[-size, size)``, or outside ``[0, size)``
        unless ``negative``; negative entries count from the end)."""
        xp = self.xp
        if mode == "wrap":
            return index % size
        if mode == "clip":
            return xp.clip(index, 0, size - 1)
        if mode != "raise":
            raise ValueError(f"{name}: mode must be 'raise', 'wrap' or 'clip', not {mode!r}")
        if bool(xp.any((index < (-size if negative else 0)) | (index >= size))):
            raise error
        return xp.where(index < 0, index + size, index)

    def standard_ravel_multi_index(self, multi_index, dims, mode="raise", order="C"):
        """NumPy's ``ravel_multi_index``: the flat positions of the indices ``multi_index`` (one integer
        array per axis of ``dims``, broadcast together) in an array of shape ``dims``; ``mode`` one for
        all axes or one per axis (``"raise"`` refuses negative entries, as NumPy)."""
        xp = self.xp
        if order not in ("C", "F"):
            raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', not {order!r}")
        dims = tuple(int(d) for d in dims)
        if len(multi_index) != len(dims):
            raise ValueError(f"ravel_multi_index: parameter multi_index must be a sequence of length {len(dims)}")
        modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
        device = self.device(next(i for i in multi_index if hasattr(i, "shape")))
        indices = xp.broadcast_arrays(*(xp.asarray(i, dtype=xp.int64, device=device) for i in multi_index))
        flat = xp.zeros(indices[0].shape, dtype=xp.int64, device=device)
        for axis in range(len(dims)) if order == "C" else reversed(range(len(dims))):
            error = ValueError("ravel_multi_index: invalid entry in coordinates array")
            index = self._index_in_range("ravel_multi_index", indices[axis], dims[axis], modes[axis], error, False)
            flat = flat * dims[axis] + index
        return flat

    def standard_unravel_index(self, indices, shape, order="C"):
        """NumPy's ``unravel_index``: the tuple of coordinate arrays of the flat positions ``indices`` in an
        array of shape ``shape``."""
        xp = self.xp
        if order not in ("C", "F"):
            raise ValueError(f"unravel_index: order must be 'C' or 'F', not {order!r}")
        shape = (int(shape),) if isinstance(shape, int) else tuple(int(d) for d in shape)
        size = math.prod(shape)
        if bool(xp.any((indices < 0) | (indices >= size))):
            raise ValueError(f"unravel_index: index out of bounds for an array of size {size}")
        coordinates = [None] * len(shape)
        for axis in reversed(range(len(shape))) if order == "C" else range(len(shape)):
            coordinates[axis], indices = indices % shape[axis], indices // shape[axis]
        return tuple(coordinates)

    def standard_put(self, a, ind, v, mode="raise"):
        """NumPy's ``put``: ``a.flat[ind] = v`` in place, ``v`` repeated to the length of ``ind``, the
        last write winning at a repeated position; ``mode`` as ``take``'s. Written through a one-hot
        comparison (memory ``ind.size * a.size``) and one assignment ``a[...] = ``."""
        xp = self.xp
        device = self.device(a)
        size = math.prod(a.shape)
        ind = xp.reshape(xp.asarray(ind, dtype=xp.int64, device=device), (-1,))
        v = xp.reshape(xp.asarray(v, dtype=a.dtype, device=device), (-1,))
        if ind.shape[0] == 0 or v.shape[0] == 0:
            return None
        error = IndexError(f"put: an index is out of bounds for an array of size {size}")
        ind = self._index_in_range("put", ind, size, mode, error, True)
        writes = xp.arange(ind.shape[0], device=device)
        hits = ind[:, None] == xp.arange(size, device=device)[None, :]
        last = xp.max(xp.where(hits, writes[:, None], -1), axis=0)  # the last write at each position, -1 if none
        values = xp.take(v, xp.where(last >= 0, last, 0) % v.shape[0], axis=0)
        a[...] = xp.reshape(xp.where(last >= 0, values, xp.reshape(a, (-1,))), a.shape)
        return None

    def random_normal(self, rng, shape, dtype, device=None):
        """Standard normal samples from the NumPy generator ``rng``; complex dtypes get both parts."""
        values = rng.standard_normal(shape)
        if self.xp.isdtype(dtype, "complex floating"):
            values = values + 1j * rng.standard_normal(shape)
        return self.from_numpy(values, dtype=dtype, device=device)

    def multiply_zero_nan(self, a, b):
        """``a * b`` broadcast, but 0 where ``a`` is 0 and ``b`` is NaN (where IEEE gives NaN); 0 * inf stays NaN.
        Either may be a Python or NumPy scalar (tested in Python: an array made of it would be on the default device)."""
        a, b = (v.item() if isinstance(v, numpy.generic) else v for v in (a, b))
        product = self.multiply(a, b) if hasattr(a, "shape") or hasattr(b, "shape") else a * b  # the standard refuses two scalars
        nan_b = self.isnan(b) if hasattr(b, "shape") else b != b
        if nan_b is False:  # a number that is not NaN (negative's -1.0): no mask to compute
            return product
        masks = [nan_b, self.equal(a, 0) if hasattr(a, "shape") else a == 0]
        if any(m is False for m in masks):
            return product
        arrays = [m for m in masks if m is not True]
        if not arrays:
            return type(product)(0)
        return self.where(arrays[0] if len(arrays) == 1 else self.logical_and(*arrays), 0.0, product)

    def sech_squared(self, x):
        """``1 / cosh(x)**2`` of real ``x`` (the derivative of ``tanh``), as ``4u / (1 + u)**2`` with
        ``u = exp(-2|x|)``: ``u`` is in [0, 1], so nothing overflows (``cosh`` does beyond |x| = 710), both
        tails keep full precision (``1 - tanh(x)**2`` is 0 once ``tanh`` rounds to 1), and one exponential
        costs less than ``cosh``. A Python or NumPy scalar gives a 0-d array (or NumPy scalar)."""
        u = self.exp(self.multiply(self.abs(x), -2.0))
        return self.divide(self.multiply(u, 4.0), self.square(self.add(u, 1.0)))

    def two_norm(self, x, axes, keepdims):
        """``sqrt(sum(|x|**2))`` over ``axes`` (a tuple of non-negative ints): the 2-norm of vectors, the
        Frobenius norm of matrices; real, of ``x``'s real dtype."""
        squares = self.real(self.multiply(x, self.conj(x))) if self.isdtype(x.dtype, "complex floating") else self.multiply(x, x)
        return self.sqrt(self.sum(squares, axis=axes, keepdims=keepdims))

    def p_norm(self, x, axes, keepdims, p):
        """``sum(|x|**p) ** (1/p)`` over ``axes`` (a tuple of non-negative ints) for a real ``p > 0``: the vector
        ``p``-norm, real, of ``x``'s real dtype."""
        return self.sum(self.abs(x) ** p, axis=axes, keepdims=keepdims) ** (1.0 / p)

    def _kept(self, value, x, axes, keepdims):
        """``value``, reduced over ``axes`` of ``x``, with those axes back as size 1."""
        if axes and not keepdims:
            return self.reshape(value, tuple(1 if axis in axes else n for axis, n in enumerate(x.shape)))
        return value

    def _direction(self, x):
        return self.conj(x) if self.isdtype(x.dtype, "complex floating") else x

    def two_norm_vjp(self, g, ans, x, axes, keepdims):
        """The cotangent of ``x`` from the cotangent ``g`` of ``ans = two_norm(x, axes, keepdims)``, none of them
        traced: ``g * conj(x) / ans``, 0 where ``ans`` is 0 (the subgradient), ``g`` broadcast over ``axes``."""
        zero = self.equal(ans, 0.0)
        scale = self.where(zero, 0.0, self.divide(g, self.where(zero, 1.0, ans)))
        return self.multiply(self._kept(scale, x, axes, keepdims), self._direction(x))

    def p_norm_partial(self, ans, x, axes, keepdims, p):
        """The partial derivative of ``ans = p_norm(x, axes, keepdims, p)`` in ``x``, neither traced:
        ``conj(x) |x|**(p-2) / ans**(p-1)``, 0 at the entries equal to 0 and where ``ans`` is 0."""
        magnitude = self.abs(x)
        zero = self.equal(magnitude, 0.0)
        safe = self.where(zero, 1.0, magnitude)
        ratio = safe / self._kept(self.where(self.equal(ans, 0.0), 1.0, ans), x, axes, keepdims)  # ans 0: x 0
        return self.multiply(self.where(zero, 0.0, ratio ** (p - 1.0) / safe), self._direction(x))

    def snapshot(self, x):
        """A copy of ``x`` (same shape, dtype and device) that writes to ``x`` cannot reach.

        Used for the arrays a recorded call keeps for its derivative; only called
        when ``mutable_arrays`` is true.
        """
        return self.xp.asarray(x, copy=True)

    def unwritable(self, x):
        """Whether ``x``, a derivative about to be handed to the user, is an array whose entries cannot be
        written one at a time: a view whose entries share memory (a reduction's cotangent is a broadcast of
        one value: NumPy marks it read-only, PyTorch writes every entry at once) or a read-only one. The
        default is False: a library whose writes make new arrays (Dask) or that has none (JAX)."""
        return False

    def set_recording(self, on):
        """Turn this library's own autograd recording (torch's) on or off in this thread; return
        whether it was on. Libraries that record nothing ignore it (see ``recording_paused``)."""
        return False

    def synchronize(self):
        """Wait for queued work on the device (a no-op on the CPU); call before reading a clock."""

    def scipy_module(self, name):
        """This library's counterpart of ``scipy.<name>`` (``"linalg"``, ``"signal"``, ...).

        Raises
        ------
        NotImplementedError
            Naming the backend: only NumPy (SciPy) and CuPy (``cupyx.scipy``) have one.
        """
        raise NotImplementedError(f"the {self.name} backend has no scipy.{name} (SciPy's functions run on numpy and cupy)")

    # ---- optional performance hooks (each default safe: the same values, the fast path off) ----

    def function_for(self, api_name, types):
        """The function answering ``api_name`` for arguments of exactly these ``types`` (a tuple), as
        cached per types by adcore's dispatch: ``lookup``'s, unless a library has a faster one for them.
        The default is ``lookup``'s function for every type."""
        return getattr(self, api_name)

    def may_hold_nan(self, x):
        """Whether the array ``x`` may hold a NaN: True unless the library can tell without waiting that it
        holds none (NumPy answers exactly; a lazy or device array would have to be computed). The default is
        True: the products that mask NaN compute their mask."""
        return True

    def multiply_zero_nan_into(self, a, b, out=None):
        """``multiply_zero_nan(a, b)``, written into ``out`` (``a`` by default, or ``b``: an array of this
        library whose shape and dtype the product keeps) where the library can tell without waiting whether
        ``b`` holds a NaN (NumPy); elsewhere a new array (a lazy or device array would have to be computed to
        tell). The default is ``multiply_zero_nan``'s new array."""
        return self.multiply_zero_nan(a, b)

    #: Whether ``tanh_tangent`` and ``square_tangent`` (the chain-rule products primitives declare) are one kernel here, so that
    #: a VJP computes it instead of the partial and a product written into a buffer it owns (CuPy). The
    #: default is False: the partial, then the product.
    fuses_chain_products = False

    def tanh_tangent(self, g, x):
        """``multiply_zero_nan(g, sech_squared(x))`` of real ``x``: the chain rule's product of ``tanh`` (its tangent
        along ``g``, and its cotangent for ``g``), which a library that fuses kernels computes in one. The
        default is the two operations."""
        return self.multiply_zero_nan(g, self.sech_squared(x))

    def square_tangent(self, g, x):
        """``multiply_zero_nan(g, 2 * x)``: the chain rule's product of ``square`` (and of ``x**2``), which a library
        that fuses kernels computes in one. The default is the two operations."""
        return self.multiply_zero_nan(g, self.multiply(x, 2.0))

    def zero_where_masked(self, g, partial):
        """``partial``, but 0 where ``g`` is 0 and ``partial`` is NaN: the derivative in ``g`` of the chain rule's
        product ``multiply_zero_nan(g, partial)``, which a library that fuses kernels computes in one. The
        default is the four operations (``equal``, ``isnan``, ``logical_and``, ``where``)."""
        return self.where(self.logical_and(self.equal(g, 0), self.isnan(partial)), 0.0, partial)

    def linalg_norm(self, x, ord, axis, keepdims):
        """NumPy's ``linalg.norm`` of an array of this library, computed by the library in one call, or None
        where it has no such function (adcore then composes it, see ``adcore.numpy.linalg.norm``). The default
        is None."""
        return None

    #: Whether ``fingerprint`` can check this library's arrays for writes without copying them (then
    #: constants of a single-use trace past its copy budget are checked instead of copied by ``snapshot``).
    #: The default is False: they are copied.
    checks_constants = False

    def fingerprint(self, x):
        """A value equal to an earlier fingerprint of ``x`` exactly when ``x``'s entries, shape and dtype are
        as they were, or None where ``x`` cannot be fingerprinted (the caller then copies it); only called
        when ``checks_constants`` is true, for an ``x`` with an ``nbytes``. The default raises
        ``NotImplementedError`` naming the backend (``checks_constants`` is False)."""
        raise NotImplementedError(f"the {self.name} backend cannot fingerprint arrays")

    def owns_memory(self, x):
        """Whether the array ``x`` has memory of its own, no view of another array's (so a caller that made it,
        and holds it alone, may write into it). The default is False: the library does not say."""
        return False

    def memory_order(self, x):
        """``"C"`` if the entries of the array ``x`` lie in one block of memory in C order, ``"F"`` if in Fortran
        order (a block of one dimension is ``"C"``), else None. The default is None: the layout is unknown (a
        library that shows no memory, or a lazy one)."""
        return None

    def read_only(self, x):
        """Whether the array ``x`` refuses writes (NumPy's read-only arrays: a broadcast view, a frozen copy).
        The default is False: a library without read-only arrays."""
        return False

    def read_only_copy(self, x):
        """A copy of ``x`` that writes to ``x`` cannot reach, itself refusing writes where the library can mark
        an array so (NumPy). The default is ``snapshot``'s copy."""
        return self.snapshot(x)

    def read_only_view(self, memory, like):
        """The 1-d array ``memory``, holding the entries of an array like ``like`` in its memory order (see
        ``memory_order``, which is not None for ``like``), seen with ``like``'s shape and layout, refusing writes
        where the library can (NumPy: a view with ``like``'s strides). The default reshapes ``memory`` with the
        standard's functions (a view or a copy, as the library makes it)."""
        if self.memory_order(like) == "C":
            return self.reshape(memory, like.shape)
        return self.permute_dims(self.reshape(memory, like.shape[::-1]), tuple(reversed(range(len(like.shape)))))


def _as_tuple(index):
    return index if isinstance(index, tuple) else (index,)


def _is_boolean_array(xp, index):
    return hasattr(index, "dtype") and index.dtype == xp.bool


def _is_integer_array(xp, index):
    return hasattr(index, "dtype") and xp.isdtype(index.dtype, "integral")


def _first_scalar_as_array(fun, backend):
    def call(*args, **kwargs):
        args = tuple(a.item() if isinstance(a, numpy.generic) else a for a in args)
        if args and not any(hasattr(a, "shape") for a in args):
            args = (backend.asarray(args[0]),) + args[1:]
        return fun(*args, **kwargs)

    call.__name__ = fun.__name__
    return call
