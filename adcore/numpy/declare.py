"""The declaration helpers of the op table, and the chain rule of the elementwise kinds.

A primitive of ``adcore.numpy`` is declared once, in its family module, by one call of a helper
here. :func:`elementwise` makes the primitive (computed by the arguments' backend under its Array
API name, or by a function given), registers its VJP and JVP, and records its facts in the op table
(:mod:`adcore.core.ops`): the Array API name, the kind, what each argument's rule reads (declared,
so that a node keeps only that), batch-safety (every elementwise rule is batch-safe), NaN
propagation, how the jit fuses it, and room for a batching rule. :func:`zero_derivative` declares
one of zero derivative (comparisons, rounding); :func:`def_elementwise` gives a primitive made
elsewhere (``adcore.scipy.special``'s) the rules and the facts of an elementwise one.

Below them, the chain rule's helpers: broadcasting undone in one place (:func:`unbroadcast`),
forward contributions brought to the output's space (:func:`broadcast`), and the product of a
cotangent with a partial derivative (:func:`product_into`): 0 where the cotangent is 0 and the
partial NaN, and written into a buffer that the backward pass owns.
"""

from backends import array_backend, array_under, backend_of, default_backend, forget_on_change

from ..core import (
    Lent,
    Ones,
    def_linear,
    defjvp,
    defjvp_argnum,
    defvjp_saved_values,
    getval,
    isbox,
    notrace_primitive,
    primitive,
    vspace,
)
from ..core.batching import batch_ndim
from ..core.ops import declare, def_signature_only
from ..core.tracer import primitive_name

# ---- the declarations ----


def elementwise(name, d=None, *, api=None, raw=None, kind=None, reads=None, vjp=None, jvp=None, chain=None, kept=None, **facts):
    """Declare the elementwise primitive ``name``: make it, register its rules, record its facts; returns it.

    Parameters
    ----------
    name : str
        adcore's (NumPy's) name.
    d : callable or tuple of callables, optional
        The partial derivative in each argument, ``d(ans, *args)`` (``ans`` the output): the VJP and
        the JVP are both the product of the (co)tangent with it (:func:`def_elementwise`).
    api : str, optional
        The Array API name (or ``Backend`` method) that computes it, ``name`` by default; with ``raw``,
        the backend method that ``adcore.jit`` calls in its place.
    raw : callable, optional
        A function of the raw arguments that computes it (then no Array API name is needed).
    kind : str, optional
        The mathematics (``adcore.core.ops.KINDS``): ``"elementwise"`` (the default with ``d``),
        ``"bilinear"`` (``multiply``), ``"linear"`` (its JVP is then the primitive applied to the
        tangent), ``"general"`` (the default with ``vjp``).
    reads : str or tuple of str, optional
        What each argument's rule reads: ``"arguments"`` (the default), ``"output"``, ``"both"`` or
        ``"nothing"`` (the default of ``linear``); one string for every argument. A node keeps the
        output only where a differentiated argument's rule reads it, and the argument of a function of
        one argument only where its rule reads it. Declared, never read from the rule's code.
    vjp : tuple of callables, optional
        Rules that are no product with a partial: ``vjp[i](g, ans, *args)``, the cotangent of argument
        ``i`` in the output's space (broadcasting is undone after it), or None for a zero one. The node
        keeps the arguments (to undo broadcasting).
    jvp : tuple of callables or "linear", optional
        ``jvp[i](g, ans, *args)``, the contribution of argument ``i`` (None: none); ``"linear"``: the
        primitive applied to the tangent. Given with ``d``, it replaces the product with the partial.
    kept : callable, optional
        With ``d``: ``kept(args, argnums)``, what a node keeps of the arguments when ``argnums`` are
        differentiated, where some partial reads fewer than all of them (:func:`kept_unless_differentiated`).
    chain : callable, optional
        With ``d``: ``chain(g, ans, *args)``, the chain rule's product of ``g`` with the partial in the first
        argument by one primitive, which the VJP calls instead of the partial and the product where only the
        first argument is differentiated and the backend computes it in one kernel (``Backend.fuses_chain_products``:
        CuPy; ``tanh``'s, ``square``'s); None where it has no such primitive for these arguments (``power``'s
        for an exponent other than 2).
    **facts
        ``propagates_nan``, ``fusion``, ``batching`` (see ``adcore.core.ops.Op``).

    Raises
    ------
    ValueError
        For a kind, a ``reads`` or a fact the op table does not know.

    Examples
    --------
    ``adcore.numpy.elementwise`` declares each of its primitives so, e.g.::

        sin = elementwise("sin", d=lambda ans, x: cos(x), propagates_nan=True, fusion="call")
        exp = elementwise("exp", d=lambda ans, x: ans, reads="output", propagates_nan=True, fusion="call")
    """
    if raw is None:
        api = api or name
        raw = dispatched(name, api)
    else:
        raw.__name__ = raw.__qualname__ = name
        if api is not None:
            raw.api_name = api  # adcore.jit calls the backend's method by this name directly
    fun = primitive(raw)
    reads = reads or ("nothing" if kind == "linear" else "arguments")
    if d is not None:
        def_elementwise(
            fun,
            *(d if isinstance(d, tuple) else (d,)),
            name=name,
            api=api,
            kind=kind or "elementwise",
            reads=reads,
            chain=chain,
            kept=kept,
            **facts,
        )
    else:
        reads = _per_argument(reads, len(vjp))
        declare(fun, name, api=api, family="elementwise", kind=kind or "general", reads=reads, batch_safe=True, **facts)
        _def_vjp_in_output_space(fun, vjp, reads)
    if jvp == "linear" or (kind == "linear" and jvp is None):
        def_linear(fun)
    elif jvp is not None:
        defjvp(fun, *jvp)
    return fun


def zero_derivative(name, api=None, **facts):
    """Declare the elementwise primitive ``name`` of zero derivative (a comparison, a rounding: piecewise
    constant), computed by the backend's ``api`` (``name`` by default): its results are not traced; returns it."""
    api = api or name
    fun = notrace_primitive(dispatched(name, api))
    declare(fun, name, api=api, family="elementwise", kind="zero", batch_safe=True, **facts)
    return fun


def _per_argument(reads, count):
    return (reads,) * count if isinstance(reads, str) else tuple(reads)


def def_elementwise(fun, *partials, name=None, api=None, kind="elementwise", reads=None, chain=None, kept=None, **facts):
    """Rules of the elementwise primitive ``fun`` from its partial derivatives ``partial(ans, *args)``, and
    its facts in the op table (``name``, ``api``, ``kind``, ``reads``, ``chain``, ``kept``, ``facts``: see
    :func:`elementwise`).

    The Jacobian in each argument is diagonal, so the VJP and the JVP are both multiplication by the
    partial derivative (unbroadcast for the VJP, broadcast for the JVP), a product in which a zero
    (co)tangent times a NaN partial is 0 (:func:`times_partial`: NaN data masked out contributes
    nothing).

    A node keeps only what the partials are declared to read (``reads``): the output if the partial of
    a differentiated argument reads it (``exp``'s), not otherwise (``multiply``'s); a unary function's
    argument only if its partial reads it (``tanh``'s does not). The VJP needs no closure per node,
    and writes its product into the output's cotangent ``g`` when the backward pass owns ``g``, else
    into the partial when the partial made it (:func:`product_into`). So a partial returns a number, a
    value it was given (the output or an argument, unchanged), or a new array that nothing else holds.
    """
    reads = _per_argument(reads or "arguments", len(partials))
    declare(fun, name or primitive_name(fun), api=api, family="elementwise", kind=kind, reads=reads, batch_safe=True, **facts)
    unary = len(partials) == 1
    readers = [argnum for argnum, read in enumerate(reads) if read in ("output", "both")]
    keeps_arguments = kept or not unary or reads[0] in ("arguments", "both")

    def vjp(g, owned, ans, args, kwargs, argnums):
        if type(g) is Ones:
            pulled_back = partials_as_cotangents(partials, g.space, ans, args, argnums)
            if pulled_back is not None:
                return pulled_back
            g = g.dense()
        elif type(g) is Lent:
            g = g.value  # read only: not owned
        if args is None:  # a unary function whose partial reads the output only: g is in the argument's space
            partial = partials[0](ans, None)
            return (product_into(g, partial, owned, not owned and made_by_rule(partial, ans, ())),), True
        if chain is not None and argnums == (0,) and fuses_chain_products(g):
            product = chain(g, ans, *args)
            if product is not None:
                return (cotangent_of(args[0], product),), False
        if len(argnums) == 1:
            argnum = argnums[0]
            partial = partials[argnum](ans, *args)
            made = not owned and made_by_rule(partial, ans, args)
            return (cotangent_of(args[argnum], product_into(g, partial, owned, made)),), True
        last = argnums[-1]
        products = []
        for argnum in argnums:
            partial = partials[argnum](ans, *args)
            writes_g = owned and argnum == last
            product = product_into(g, partial, writes_g, not writes_g and made_by_rule(partial, ans, args))
            products.append(cotangent_of(args[argnum], product))
        return tuple(products), True

    def jvp(argnum, g, ans, args, kwargs):
        return broadcast(times_partial(g, partials[argnum](ans, *args)), ans)

    vjp.takes_lazy = True
    defvjp_saved_values(fun, vjp, output_readers=readers, keeps_arguments=keeps_arguments)
    defjvp_argnum(fun, jvp)


def partials_as_cotangents(partials, space, ans, args, argnums):
    """``(cotangents, fresh)`` of an elementwise VJP given :class:`~adcore.core.Ones` of the output's ``space``: each
    differentiated argument's partial derivative itself (``1 * partial``), unbroadcast (``cotangent_of``); a partial
    the rule did not make (an argument, the output) lent (:class:`~adcore.core.Lent`), so that nothing writes it.
    None where a partial is not an array of the output's shape, dtype and backend (a number, a broadcast factor, a
    NumPy constant of a Dask output): the caller multiplies ones then."""
    lent, cotangents = False, []
    shape, dtype = getattr(space, "shape", None), getattr(space, "dtype", None)
    for argnum in argnums:
        partial = partials[argnum](ans, *(args or (None,)))
        if dtype is None or getattr(partial, "shape", None) != shape or getattr(partial, "dtype", None) != dtype:
            return None
        if array_backend(getval(partial)) is not space.backend:  # a constant of another library: the product converts
            return None
        cotangent = partial if args is None else cotangent_of(args[argnum], partial)
        if made_by_rule(partial, ans, args or ()):
            cotangents.append(cotangent)
        else:
            lent = True
            cotangents.append(Lent(cotangent))
    return tuple(cotangents), not lent


def _def_vjp_in_output_space(fun, vjps, reads):
    """Reverse rules of an elementwise primitive from ``vjps[i](g, ans, *args)``, the cotangent of argument
    ``i`` in the output's space (None: zero); broadcasting is then undone where the argument was broadcast
    (:func:`cotangent_of`). The node keeps the arguments, and the output only where a differentiated
    argument's rule reads it (``reads``). A rule that gives back ``g`` itself (``add``'s) for one argument
    passes on the backward pass's ownership of ``g`` (:func:`~adcore.core.reverse.local_vjp`)."""

    def cotangent(argnum, g, ans, args):
        rule = vjps[argnum]
        return vspace(args[argnum]).zeros() if rule is None else cotangent_of(args[argnum], rule(g, ans, *args))

    def vjp(g, owned, ans, args, kwargs, argnums):
        if len(argnums) == 1:
            argnum = argnums[0]
            rule = vjps[argnum]
            result = vspace(args[argnum]).zeros() if rule is None else cotangent_of(args[argnum], rule(g, ans, *args))
            return (result,), owned and result is g
        return tuple(cotangent(argnum, g, ans, args) for argnum in argnums), False

    readers = [argnum for argnum, read in enumerate(reads) if read in ("output", "both")]
    defvjp_saved_values(fun, vjp, output_readers=readers)


# ---- how a declared primitive is computed: the backend's function, found once per argument types ----

#: The dispatch caches of :func:`dispatched`, emptied when the backend registered for a type changes.
_dispatch_caches = []


def _forget_dispatch(value_type):
    """Empty every dispatch cache, whatever ``value_type`` (a registry change is rare: tests' stand-in backends)."""
    for found in _dispatch_caches:
        found.clear()


forget_on_change(_forget_dispatch)


def dispatched(name, api_name):
    """``name(*args)``: the backend function ``api_name`` called on ``args``, found once per argument types.

    The first call with some argument types asks ``backend_of`` (which raises for arrays of two
    backends) and ``Backend.function_for`` (which may pick a function for exactly those types, as
    NumPy's float64 scalar operators); later calls with the same types look the function up. An
    entry for arrays holds while the registry of array types is unchanged (``forget_on_change``
    empties the cache); one for a call with no array argument, while the default backend is the
    one it was found for (it changes with ``use_backend``). Two arrays of a library with several
    devices are not cached (``backend_of`` compares their devices on every call). ``api_name`` is
    kept on the function: ``adcore.jit`` calls the backend's function by it directly.
    """
    found = {}  # argument types -> (function, the default backend it was found for, or None for a call on arrays)
    _dispatch_caches.append(found)

    def resolve(args, types):
        arrays = [position for position, value in enumerate(args) if array_backend(value) is not None]
        backend = backend_of(*args, op=name)
        function = backend.function_for(api_name, types)
        if len(arrays) < 2 or not backend.multi_device:
            found[types] = (function, None if arrays else backend)
        return function

    def call(*args):
        count = len(args)
        types = (type(args[0]),) if count == 1 else (type(args[0]), type(args[1])) if count == 2 else tuple(map(type, args))
        entry = found.get(types)
        if entry is not None and (entry[1] is None or entry[1] is default_backend()):
            return entry[0](*args)
        return resolve(args, types)(*args)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"Elementwise ``{name}`` (the Array API's ``{api_name}``) on any backend; broadcasts like NumPy."
    call.api_name = api_name
    return call


# ---- the dtype query the chain rule asks ----


@notrace_primitive
def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (Python ``complex`` included)."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return isinstance(x, complex)
    iscomplex = _dtype_kinds.get((type(dtype), dtype, "complex floating"))
    return _is_dtype_kind(backend_of(x, op="iscomplexobj"), dtype, "complex floating") if iscomplex is None else iscomplex


def_signature_only(iscomplexobj)


#: (dtype type, dtype, kind) -> whether the dtype is of that kind (the type first: dtypes of two
#: libraries are never compared); asked of the backend once per dtype and kind.
_dtype_kinds = {}


def _is_dtype_kind(backend, dtype, kind):
    """``backend.isdtype(dtype, kind)``, cached in ``_dtype_kinds``."""
    key = (type(dtype), dtype, kind)
    result = _dtype_kinds.get(key)
    if result is None:
        result = _dtype_kinds[key] = bool(backend.isdtype(dtype, kind))
    return result


# ---- the chain rule's helpers, named after what they undo ----


def metadata(x):
    """What a VJP keeps of an argument instead of the argument: its shape, its dtype (None for a
    Python scalar, whose cotangent keeps the output's dtype) and whether it is complex."""
    raw = getval(x)
    if hasattr(raw, "shape"):
        return tuple(raw.shape), getattr(raw, "dtype", None), iscomplexobj.fun(raw)
    from .shapes import shape  # at call time: the families import this module

    return shape(raw), getattr(raw, "dtype", None), iscomplexobj.fun(raw)


def unbroadcast(g, meta):
    """Sum the cotangent ``g`` over the axes broadcasting added to an argument of
    ``meta = (shape, dtype, iscomplex)``, give it that dtype (float32 stays float32), and
    keep only its real part for a real argument. Leading batch axes (:func:`batch_ndim`) are kept."""
    x_shape, x_dtype, x_complex = meta
    batch = batch_ndim()
    raw = getval(g)
    g_dtype = getattr(raw, "dtype", None)  # tested for None first: NumPy's dtypes compare equal to None
    if g_dtype is not None and x_dtype is not None and g_dtype == x_dtype and raw.shape[batch:] == x_shape:
        return g  # already in the argument's space (the common case: nothing was broadcast)
    if not isbox(g) and g_dtype is not None and not x_complex and not iscomplexobj(g):
        return _unbroadcast_on_backend(g, x_shape, x_dtype, batch)
    from . import dtypes, elementwise, reductions, shapes  # at call time: the families import this module

    if not x_complex and iscomplexobj(g):
        g = elementwise.real(g)
    elif x_complex and x_dtype is None and not iscomplexobj(g):
        g = elementwise.add(g, 0j)  # a Python complex's cotangent is complex, of the output's precision
    g_shape = shapes.shape(g)
    if g_shape[batch:] != x_shape:
        g = shapes.reshape(reductions.sum(g, axis=_broadcast_axes(g_shape, x_shape, batch)), g_shape[:batch] + x_shape)
    if x_dtype is not None and getattr(getval(g), "dtype", x_dtype) != x_dtype:
        g = dtypes.astype(g, x_dtype)
    return g


def _unbroadcast_on_backend(g, x_shape, x_dtype, batch):
    """:func:`unbroadcast` of a real cotangent array that is not traced (a first-order pass, not recorded by the
    jit), for a real argument: summed, reshaped and cast by its backend directly, with no primitive calls (as
    :func:`times_partial` computes its product)."""
    backend = backend_of(g, op="unbroadcast")
    if g.shape[batch:] != x_shape:
        g = backend.reshape(backend.sum(g, axis=_broadcast_axes(g.shape, x_shape, batch)), g.shape[:batch] + x_shape)
    return g if x_dtype is None or g.dtype == x_dtype else backend.astype(g, x_dtype)


def _broadcast_axes(g_shape, x_shape, batch):
    """The axes of a cotangent of ``g_shape`` that broadcasting added to, or stretched in, an argument of
    ``x_shape`` (after ``batch`` leading batch axes): those that :func:`unbroadcast` sums over."""
    lead = len(g_shape) - len(x_shape)
    stretched = tuple(lead + i for i, n in enumerate(x_shape) if n == 1 and g_shape[lead + i] != 1)
    return tuple(range(batch, lead)) + stretched


def unbroadcast_f(x, vjp):
    meta = metadata(x)
    return lambda g: unbroadcast(vjp(g), meta)


def unbroadcast_elementwise(x, ans, vjp):
    """:func:`unbroadcast_f` for an elementwise function with output ``ans``, whose ``vjp(g)`` is in
    the output's space: when argument ``x`` is in that space too, there is nothing to undo and
    ``vjp`` is returned as it is (no metadata kept, no work per backward pass)."""
    return vjp if same_space(x, ans) else unbroadcast_f(x, vjp)


def same_space(x, ans):
    """Whether a cotangent of ``ans`` is already one of ``x``: same shape and dtype (a Python
    scalar ``x`` has no dtype, so only the shape and complexness must agree)."""
    x_dtype = getattr(x, "dtype", None)
    if x_dtype is None:
        return not getattr(ans, "shape", ()) and (isinstance(x, complex) or not iscomplexobj(ans))
    ans_dtype = getattr(ans, "dtype", None)
    return type(x_dtype) is type(ans_dtype) and x_dtype == ans_dtype and x.shape == ans.shape


def broadcast(g, ans):
    """A forward-mode contribution ``g`` in the output's shape and dtype."""
    raw, raw_ans = getval(g), getval(ans)
    g_dtype, ans_dtype = getattr(raw, "dtype", None), getattr(raw_ans, "dtype", None)
    if g_dtype is not None and ans_dtype is not None and g_dtype == ans_dtype and raw.shape == raw_ans.shape:
        return g  # already in the output's space (the common case)
    from . import dtypes, elementwise, shapes  # at call time: the families import this module

    if not hasattr(raw, "shape"):
        return elementwise.multiply(g, dtypes.ones_like(ans))
    if iscomplexobj(g) and not iscomplexobj(ans):
        g = elementwise.real(g)
    ans_shape = shapes.shape(ans)
    if shapes.shape(g) != ans_shape:
        g = shapes.broadcast_to(g, ans_shape)
    if ans_dtype is not None and getval(g).dtype != ans_dtype:
        g = dtypes.astype(g, ans_dtype)
    return g


def kept_unless_differentiated(position):
    """``kept(args, argnums)`` for a primitive whose argument at ``position`` only its own partial reads
    (``_tanh_tangent``'s ``g``): a node keeps every argument where that one is differentiated, else the others
    (None in its place), so that a constant there (a tangent direction, in ``hvp``) is not held until the
    backward pass."""

    def kept(args, argnums):
        return args if position in argnums else args[:position] + (None,) + args[position + 1 :]

    return kept


def cotangent_of(x, g):
    """``g``, a cotangent in the output's space, as one of argument ``x``: itself when ``x`` has its
    shape and dtype (the common case, tested first), else unbroadcast (:func:`unbroadcast`)."""
    x_dtype = getattr(x, "dtype", None)
    g_dtype = getattr(g, "dtype", None)
    if g_dtype is not None and x_dtype is not None and x_dtype == g_dtype and x.shape == g.shape:
        return g
    return unbroadcast(g, metadata(x))


#: array type -> its backend if ``x += y`` writes into ``x`` (an array of a library whose arrays are mutable), else False
_in_place_backends = {}
forget_on_change(lambda value_type: _in_place_backends.pop(value_type, None))


def in_place_backend(x, y):
    """The backend of ``x`` if ``x += y`` and ``x *= y`` can write into ``x`` and give what ``x + y`` and ``x * y``
    would, else None: ``x`` is an array of a library with mutable arrays (not a box or a scalar), and ``y`` a real
    Python number or an array (or NumPy scalar) of ``x``'s dtype with ``x``'s shape or none. The caller must own
    ``x`` (nobody else may see it change)."""
    backend = _in_place_backends.get(type(x))
    if backend is None:
        backend = array_backend(x)
        backend = _in_place_backends[type(x)] = backend if backend is not None and backend.mutable_arrays else False
    if backend is False:
        return None
    if type(y) in (float, int):
        return backend
    if isbox(y):
        return None
    y_dtype = getattr(y, "dtype", None)
    return backend if y_dtype is not None and y_dtype == x.dtype and (y.shape == x.shape or not y.shape) else None


def product_into(g, factor, owned, made=False):
    """``g * factor`` (0 where ``g`` is 0 and ``factor`` NaN: ``elementwise._times_partial``), written into ``g`` when
    the backward pass owns ``g``, or else into ``factor`` when the rule ``made`` it (:func:`made_by_rule`, asked
    only where ``g`` is not owned) and it has memory of its own (``Backend.owns_memory``), where the product
    keeps the shape and dtype of the buffer written (:func:`in_place_backend`) and the library can check
    ``factor`` for NaN without waiting (``Backend.multiply_zero_nan_into``): one buffer fewer for large arrays."""
    backend = in_place_backend(g, factor) if owned else None
    if backend is not None:
        return backend.multiply_zero_nan_into(g, factor)
    backend = in_place_backend(factor, g) if made and getattr(factor, "ndim", 0) else None  # 0-d: NumPy's product is a scalar
    if backend is not None and backend.owns_memory(factor):
        return backend.multiply_zero_nan_into(g, factor, out=factor)
    return times_partial(g, factor)


def made_by_rule(partial, ans, args):
    """Whether ``partial``, what a partial derivative function of :func:`def_elementwise` returned, is a value
    it made: neither the node's output nor one of its arguments. Nothing else holds it, so the VJP may write its
    product into it where it is an array with memory of its own (:func:`product_into`)."""
    return partial is not ans and all(partial is not arg for arg in args)


def fuses_chain_products(g):
    """Whether the backend of the cotangent ``g`` computes a declared ``chain`` product in one kernel
    (``Backend.fuses_chain_products``; False for a traced ``g``, a higher-order pass)."""
    backend = array_backend(g)
    return backend is not None and backend.fuses_chain_products


def times_partial(g, partial):
    """``anp._times_partial(g, partial)``, the chain rule's product in an elementwise rule, called
    straight on the backend where neither is traced (a first-order derivative: no primitive call),
    and in Python for two float scalars (Python's, or NumPy's ``float64``, a subclass: the product is
    NumPy's then, as the ufunc's)."""
    if isinstance(g, float) and isinstance(partial, float):
        product = g * partial
        return product if partial == partial or g != 0 else type(product)(0)
    if isbox(g) or isbox(partial):
        from .elementwise import _times_partial  # at call time: elementwise imports this module

        return _times_partial(g, partial)
    return backend_of(g, partial, op="multiply").multiply_zero_nan(g, partial)


def zero_where_masked(g, partial):
    """The partial derivative in ``g`` of the chain rule's product ``_times_partial(g, partial)``: ``partial``, but 0
    where the product was masked (``g`` 0 and ``partial`` NaN). There the product is 0 whatever ``g`` is, so its
    derivative is 0 too, and a NaN of data masked out (by ``nansum``, ``where``) stays out of second derivatives, as
    of first ones; ``partial`` itself where it holds no NaN (``Backend.may_hold_nan``), and the backend's
    ``zero_where_masked`` (one kernel on CuPy) where neither is traced (a first-order pass)."""
    raw = array_under(getval(partial))  # a batch of values (adcore.vmap's): its batch's array
    if not hasattr(raw, "shape"):
        if raw == raw:
            return partial
    else:
        backend = backend_of(raw, op="multiply")
        if not backend.may_hold_nan(raw):
            return partial
        if not isbox(partial) and hasattr(g, "shape") and not isbox(g):
            return backend.zero_where_masked(g, partial)
    from .elementwise import equal, isnan, logical_and  # at call time: the families import this module
    from .indexing import where

    return where(logical_and(equal(g, 0), isnan(partial)), 0.0, partial)
