"""The program of ``adcore.jit``: recorded raw calls, optimised, as straight-line Python.

A recording (``adcore.jit``) gives the calls in the order they ran, each as an
:class:`Instruction` whose arguments are :class:`Ref` (a slot: an input or the
result of an earlier call) or constants. :func:`build_program` then

1. reads the items of containers the program built directly (``forward_container_items``):
   the backward pass of a function of a list of parameters adds, per item read, a container
   of zeros holding that item's cotangent; the program keeps the cotangents and no zeros;
2. removes the calls whose results reach no output (``remove_dead``: the
   discarded gradient of a Hessian-vector product, a value's forward pass under
   ``grad``);
3. replaces constant arrays that repeat one value by that value, and drops
   products by one (``simplify``: the cotangent a sum hands back is a broadcast
   of ones); a NaN-safe product of the chain rule by a constant is a plain one;
4. makes the chain rule's NaN-safe products plain products where their NaN would reach an
   output, which the program checks once (``defer_nan_masks``; on a NaN it returns the
   masked program's result);
5. fuses chains of elementwise arithmetic into one pass (``fuse``): ``numexpr``
   on NumPy arrays (if installed: the ``[jit]`` extra), an ``ElementwiseKernel``
   on CuPy arrays; a value used once, by the next call of the chain, is never
   written to memory;
6. plans buffers on NumPy (``plan_buffers``): an elementwise call writes its
   result into an argument that dies with it (in place) or into a dead buffer of
   the same shape and dtype, so a long program allocates a few arrays, not one per
   call; other arrays are released at their last use;
7. writes the calls as the lines of a Python function and compiles it
   (``write_functions``; a long program as a chain of functions): functions and
   constants are globals of that function, numbers are literals, and a value read
   once is written inside the expression of the call that reads it.

Calls of other backends (Dask, torch, JAX, array-api-strict) run as recorded:
on Dask the replay builds one lazy graph, computed by the caller.
"""

import builtins
import functools
import itertools
import math

import numpy as _np

from backends import backend_of

from .builtins import build_container, container_take, container_untake, make_container
from .core import snapshot_value, snapshots
from .core.ops import op_named


@functools.cache
def _numexpr():
    """``numexpr`` (the ``[jit]`` extra; without it NumPy programs run unfused), or None; imported at
    the first program that could use it, not with adcore (importing it starts its thread pool and
    sets ``numpy.expm1x``)."""
    try:
        import numexpr
    except ImportError:
        return None
    return numexpr


class Ref:
    """An argument that is a value of the program: slot ``slot`` (an input or a call's result)."""

    __slots__ = ["slot"]

    def __init__(self, slot):
        self.slot = slot

    def __repr__(self):
        return f"v{self.slot}"


class Instruction:
    """One raw call ``fn(*args, **kwargs) -> slot out``.

    ``api`` is the Array API name of an elementwise function (None for others);
    ``inplace`` whether ``fn`` takes ``out=`` and returns a fresh NumPy array
    (a NumPy ufunc, or a fused expression); ``out_buffer`` the slot whose array
    it writes into (set by :func:`plan_buffers`).
    """

    __slots__ = ["fn", "args", "kwargs", "out", "api", "inplace", "out_buffer", "reads"]

    def __init__(self, fn, args, kwargs, out, api=None, inplace=False):
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.out = out
        self.api = api
        self.inplace = inplace
        self.out_buffer = None
        self.reads = None

    @classmethod
    def of_call(cls, f_raw, args, kwargs, out, raw_args, value):
        """The instruction of the primitive call ``f_raw(*raw_args, **kwargs) -> value``, with the
        elementwise ones resolved to their backend's function (no dispatch at replay): the NumPy
        ufunc itself for an array result (which can then write into a buffer, ``out=``), else the
        backend's function for the recorded argument types (``Backend.function_for``: NumPy's
        float64 scalar operators), which the signature fixes for every replay."""
        api = getattr(f_raw, "api_name", None)
        if api is None or kwargs:
            return cls(f_raw, args, kwargs, out)
        backend = backend_of(*raw_args)
        ufunc = numpy_ufunc(api) if backend.name == "numpy" else None
        if ufunc is not None and type(value) is _np.ndarray:
            return cls(ufunc, args, kwargs, out, api, inplace=value.ndim > 0)
        return cls(backend.function_for(api, tuple(map(type, raw_args))), args, kwargs, out, api)


@functools.cache
def numpy_ufunc(api):
    """NumPy's ufunc of the Array API name ``api``, or None (looked up once: a missing name costs NumPy's
    module ``__getattr__`` an exception)."""
    ufunc = getattr(_np, api, None)
    return ufunc if isinstance(ufunc, _np.ufunc) else None


def refs_in(value):
    """The :class:`Ref` in an argument (nested in tuples, lists and dicts), in order."""
    if type(value) is Ref:
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from refs_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from refs_in(item)


def arg_refs(instruction):
    """The :class:`Ref` among ``instruction``'s arguments (computed once, kept in ``instruction.reads``)."""
    refs = instruction.reads
    if refs is None:
        refs = []
        for arg in instruction.args:
            if type(arg) is Ref:
                refs.append(arg)
            elif isinstance(arg, (tuple, list, dict)):
                refs += refs_in(arg)
        for arg in (instruction.kwargs or {}).values():
            refs += refs_in(arg)
        instruction.reads = refs
    return refs


# ---- 1. dead values ----


def remove_dead(instructions, output):
    """The instructions whose results reach ``output`` (a template holding :class:`Ref`), in order."""
    live = {ref.slot for ref in refs_in(output)}
    kept = []
    for instruction in reversed(instructions):
        if instruction.out in live:
            kept.append(instruction)
            live.update(ref.slot for ref in arg_refs(instruction))
    kept.reverse()
    return kept


def use_counts(instructions, output):
    """Slot -> how many times the instructions and the output read it."""
    counts = {}
    for ref in itertools.chain(refs_in(output), *(arg_refs(i) for i in instructions)):
        counts[ref.slot] = counts.get(ref.slot, 0) + 1
    return counts


# ---- 2. items of containers built by the program ----

_TAKE, _UNTAKE, _MAKE = container_take.fun, container_untake.fun, make_container.fun


def forward_container_items(instructions, output, kinds):
    """``instructions`` with each read of an item of a container that the program built replaced by
    the item, and each sum with a zero of ``container_untake`` replaced by its other term.

    Under a recording the backward pass adds the cotangents of a container as containers (a
    ``container_untake`` per item read: the cotangent at its position, zeros elsewhere), where the
    eager first-order pass adds only the items read (``SparseCotangent``). Here ``container_take``
    of ``make_container(..., a, ...)`` is ``a``, of ``container_untake(x, index, vs)`` it is ``x`` at
    ``index`` and a zero elsewhere, and ``add(zero, x)`` (of ``x``'s kind) is ``x``, as in the eager
    pass (which never adds the zero). The containers left unread are then removed as dead values:
    a gradient of ``n`` parameters read out of a list neither allocates nor adds ``n`` zeros of each.
    """
    outputs = {ref.slot for ref in refs_in(output)}
    built = {}  # slot -> its make_container or container_untake instruction
    zeros = set()  # slots holding a zero of container_untake (an array, or a container of zeros)
    renamed = {}
    kept = []
    for instruction in instructions:
        read_renamed(instruction, renamed)
        fn, out = instruction.fn, instruction.out
        if fn is _MAKE or fn is _UNTAKE:
            built[out] = instruction
        elif fn is _TAKE and type(instruction.args[0]) is Ref and not instruction.kwargs:
            item = _item_read(instruction.args, built, zeros)
            if item is _ZERO:
                zeros.add(out)
            elif item is not None and out not in outputs:
                renamed[out] = item.slot
                continue
        elif instruction.api == "add" and out not in outputs:
            other = _added_to_zero(instruction.args, zeros)
            if other is not None and kinds[other.slot][:3] == kinds[out][:3]:
                renamed[out] = other.slot
                continue
        kept.append(instruction)
    return kept


_ZERO = object()


def _item_read(args, built, zeros):
    """What ``container_take(*args)`` reads when its container was built by the program: a
    :class:`Ref`, ``_ZERO``, or None (unknown)."""
    container, index = args
    if container.slot in zeros:
        return _ZERO
    source = built.get(container.slot)
    if source is None:
        return None
    position = _position(index, *_layout(source))
    return None if position is None else _item_at(source, position, built, zeros)


def _layout(source):
    """The keys (None for a sequence) and the length of the container ``source`` builds."""
    if source.fn is _MAKE:
        return source.args[1], len(source.args) - 2
    vs = source.args[2]
    return vs.keys, len(vs.spaces)


def _item_at(source, position, built, zeros):
    """The item at ``position`` of the container built by ``source``: a :class:`Ref`, ``_ZERO`` or None."""
    if source.fn is _MAKE:
        item = source.args[2 + position]
        return item if type(item) is Ref else None
    x, index, vs = source.args
    if type(index) is slice:  # x holds the items at these positions
        positions = range(len(vs.spaces))[index]
        if position not in positions:
            return _ZERO
        if type(x) is not Ref or x.slot in zeros:
            return _ZERO if type(x) is Ref else None
        inner = built.get(x.slot)
        return None if inner is None else _item_at(inner, positions.index(position), built, zeros)
    written = _position(index, vs.keys, len(vs.spaces))
    if written is None:
        return None
    if written != position:
        return _ZERO
    return x if type(x) is Ref else None


def _position(index, keys, length):
    """The position ``index`` reads in a container of ``length`` items (with ``keys`` for a dict), or None."""
    if keys is not None:
        return keys.index(index) if index in keys else None
    if type(index) is not int or not -length <= index < length:
        return None
    return range(length)[index]


def _added_to_zero(args, zeros):
    """The other term of a sum of two values, one of them a zero of ``container_untake``, or None."""
    if len(args) != 2 or not all(type(arg) is Ref for arg in args):
        return None
    first, second = args
    if first.slot in zeros:
        return second
    return first if second.slot in zeros else None


# ---- 3. constants of one value, and products by one ----


def simplify(instructions, output, kinds):
    """``instructions`` with each constant NumPy array that repeats one value (a broadcast, such as
    the cotangent a sum hands back) replaced by that value as a NumPy scalar of its dtype where it
    does not set the result's shape (the same result, no array kept by the program, and the call
    can join a fused chain), and each product by one that leaves its other argument's kind as it
    was removed (its reads go to that argument: ``x * 1`` is ``x`` exactly in IEEE arithmetic).
    """
    outputs = {ref.slot for ref in refs_in(output)}
    renamed = {}
    kept = []
    for instruction in instructions:
        read_renamed(instruction, renamed)
        if instruction.api == "multiply_zero_nan" and _never_masked(instruction.args):
            instruction = plain_product(instruction, kinds)
        if instruction.api is not None and type(instruction.fn) is _np.ufunc:
            instruction.args = _scalar_constants(instruction, kinds)
            same = _product_by_one(instruction, kinds)
            if same is not None and instruction.out not in outputs:
                renamed[instruction.out] = same
                continue
        kept.append(instruction)
    return kept


def _on_numpy(instruction):
    return getattr(getattr(instruction.fn, "__self__", None), "name", None) == "numpy"


def _never_masked(args):
    """Whether ``multiply_zero_nan(g, partial)`` is ``g * partial``: a constant partial without NaN, or a
    constant cotangent without zeros (the seed's ones)."""
    g, partial = args
    return _constant_where(partial, lambda c: c == c) or _constant_where(g, lambda c: c != 0)


def _constant_where(arg, test):
    if type(arg) in (float, _np.float64):
        return bool(test(arg))
    return type(arg) is _np.ndarray and arg.dtype.kind == "f" and bool(_np.all(test(arg)))


def plain_product(instruction, kinds):
    """The NumPy backend's ``multiply_zero_nan`` as a plain product (the function it calls when no
    entry is masked): the ufunc for an array result (which can write into a buffer), else the
    backend's multiply for the recorded argument types."""
    backend = getattr(instruction.fn, "__self__", None)
    if backend is None or backend.name != "numpy":
        return instruction
    kind = kinds[instruction.out]
    if kind[0] is _np.ndarray and kind[1]:
        return Instruction(_np.multiply, instruction.args, {}, instruction.out, "multiply", inplace=True)
    types = tuple(kinds[arg.slot][0] if type(arg) is Ref else type(arg) for arg in instruction.args)
    return Instruction(backend.function_for("multiply", types), instruction.args, {}, instruction.out, "multiply")


def read_renamed(instruction, renamed):
    """Point ``instruction``'s arguments at the slots that replace removed ones (``renamed``: slot -> slot)."""
    if renamed and any(ref.slot in renamed for ref in arg_refs(instruction)):
        instruction.args = tuple(_renamed(arg, renamed) for arg in instruction.args)
        instruction.reads = None


def _renamed(arg, renamed):
    if type(arg) is Ref:
        return Ref(renamed[arg.slot]) if arg.slot in renamed else arg
    if type(arg) in (tuple, list):
        return type(arg)(_renamed(item, renamed) for item in arg)
    return arg


def _scalar_constants(instruction, kinds):
    args = instruction.args
    for position, arg in enumerate(args):
        if type(arg) is not _np.ndarray or arg.size == 0 or (any(arg.strides) and not _np.all(arg == arg.flat[0])):
            continue
        others = [_shape_of(other, kinds) for index, other in enumerate(args) if index != position]
        if _np.broadcast_shapes(*others) == kinds[instruction.out][1]:
            args = args[:position] + (arg[(0,) * arg.ndim],) + args[position + 1 :]
    return args


def _shape_of(arg, kinds):
    if type(arg) is Ref:
        shape = kinds[arg.slot][1]
        return () if shape is None else shape  # a Python float
    return _np.shape(arg)


def _product_by_one(instruction, kinds):
    """The slot ``instruction`` (a product) equals exactly, or None."""
    if instruction.api != "multiply":
        return None
    for one, other in (instruction.args, reversed(instruction.args)):
        if type(other) is Ref and type(one) is not Ref and _np.ndim(one) == 0 and one == 1:
            if kinds[other.slot][:3] == kinds[instruction.out][:3]:
                return other.slot
    return None


# ---- 4. the chain rule's NaN masks, checked once on the outputs ----

def propagates_nan(api):
    """Whether the call of the Array API name ``api`` gives a result that holds a NaN (somewhere) whenever an
    argument does: the op table's ``propagates_nan``."""
    op = op_named(api)
    return op is not None and op.propagates_nan


def defer_nan_masks(instructions, output, kinds):
    """``(instructions, checked)``: each of the NumPy backend's ``multiply_zero_nan(g, partial)`` (``g *
    partial``, but 0 where ``g`` is 0 and ``partial`` NaN) made a plain product where its value reaches an
    output through calls that keep a NaN (:func:`propagates_nan`, containers); ``checked`` the output
    slots those products reach.

    A product differs from the masked one only where it is NaN, and that NaN reaches a checked output:
    so if the checked outputs hold no NaN, the program computed what the masked one would have, and
    otherwise the caller runs the masked program (:func:`build_program`). The masks then cost one
    check of the outputs, not a test of every partial (three calls each, or three passes fused).
    """
    outputs = {ref.slot for ref in refs_in(output)}
    reaching = set(outputs)  # slots whose NaN would reach an output
    unmasked = set()
    for instruction in reversed(instructions):
        if instruction.out not in reaching:
            continue
        args = instruction.args
        if instruction.api == "multiply_zero_nan" and _on_numpy(instruction):
            unmasked.add(instruction.out)
        elif not propagates_nan(instruction.api) and instruction.fn is not _MAKE:
            continue
        reaching.update(arg.slot for arg in args if type(arg) is Ref)
    if not unmasked:
        return instructions, []
    tainted = set(unmasked)  # values computed from an unmasked product
    for instruction in instructions:
        for ref in arg_refs(instruction):
            if ref.slot in tainted:
                tainted.add(instruction.out)
                break
    changed = [plain_product(i, kinds) if i.out in unmasked else i for i in instructions]
    return changed, sorted(outputs & tainted & reaching)


def has_nan(*values):
    """Whether a value (a float, a NumPy array or scalar, or a container of them) holds a NaN (an array's
    entries checked by the NumPy backend's ``may_hold_nan``, which answers exactly); any other value answers True."""
    for value in values:
        kind = type(value)
        if kind in (float, complex) or isinstance(value, _np.generic):
            if value != value:
                return True
        elif kind is _np.ndarray:
            if value.dtype.kind in "fc" and backend_of(value).may_hold_nan(value):
                return True
            if value.dtype.kind not in "fcbiu":
                return True
        elif isinstance(value, (tuple, list)):
            if has_nan(*value):
                return True
        elif isinstance(value, dict):
            if has_nan(*value.values()):
                return True
        else:
            return True
    return False


# ---- 5. fusion of elementwise chains ----

def fusion(api):
    """How a fused chain writes a call of the Array API name ``api`` (the op table's ``fusion``): an expression
    of its operands in both ``numexpr`` and C (CuPy's kernels), ``"call"`` for a function of one argument under
    C's (the standard's) name, or None. The calls are fused on CuPy only: on NumPy they stay NumPy's calls, whose
    SIMD loops compute them faster than numexpr's (``exp`` by a third, ``sqrt`` twice as fast, one thread each)
    and then equal the eager values bit for bit; numexpr fuses the arithmetic between them."""
    op = op_named(api)
    return None if op is None else op.fusion
#: The smallest array (entries) worth a fused call: below it NumPy's per-call cost is smaller than the fuser's.
FUSE_MIN_SIZE = 1 << 14


def fused_expression(api, operands, c=False):
    """The expression of one call on ``operands`` (source text), for numexpr or (``c``) CUDA C."""
    form = fusion(api)
    if form == "call":
        return f"{api}({operands[0]})"
    if api == "pow" and c:
        return f"pow({operands[0]}, {operands[1]})"
    if api == "multiply_zero_nan":  # Backend.multiply_zero_nan: g * partial, but 0 where g is 0 and partial NaN
        g, partial = operands
        if c:
            return f"(({g} == 0 && {partial} != {partial}) ? 0.0 : {g} * {partial})"
        return f"where(({g} == 0) & ({partial} != {partial}), 0.0, {g} * {partial})"
    return form.format(*operands)


def fusable_api(api, backend_name):
    form = fusion(api)
    if form is not None and form != "call":
        return True
    # the mask reads g and the partial twice each: fused on NumPy, the text of a chain of them would double at each
    # product (numexpr has no common subexpressions; CUDA's compiler has); there defer_nan_masks drops the masks
    return backend_name == "cupy" and (form == "call" or api == "multiply_zero_nan")


class Fuser:
    """Fuses chains on one backend: ``numpy`` (numexpr) or ``cupy`` (an ElementwiseKernel)."""

    def __init__(self, kinds, backend_name):
        self.kinds = kinds
        self.backend_name = backend_name

    def fusable(self, instruction):
        """Whether ``instruction`` may join a fused chain: elementwise, a large float64 (or boolean)
        array result, its array arguments of the same dtypes."""
        if not fusable_api(instruction.api, self.backend_name) or instruction.kwargs:
            return False
        kind = self.kinds[instruction.out]
        if not self.is_array(kind) or str(kind[2]) not in ("float64", "bool") or math.prod(kind[1]) < FUSE_MIN_SIZE:
            return False
        return all(self.fusable_leaf(arg) for arg in instruction.args)

    def is_array(self, kind):
        return kind[0] is _np.ndarray if self.backend_name == "numpy" else kind[0].__module__.startswith("cupy")

    def fusable_leaf(self, arg):
        if type(arg) is Ref:
            kind = self.kinds[arg.slot]
            return (self.is_array(kind) or kind[0] is _np.float64) and str(kind[2]) in ("float64", "bool")
        if type(arg) is _np.ndarray:  # a constant array (the seed's broadcast cotangent), read as it is
            return arg.dtype == _np.float64
        return type(arg) in (float, int, bool, _np.float64) and (type(arg) is not float or math.isfinite(arg))


def fuse(instructions, output, kinds):
    """``instructions`` with each chain of fusable calls (each value in it read once, by the next
    call of the chain, and not an output) made one call; returns the new list."""
    producers = {}
    fusers = {}
    chained = set()  # slots computed inside a fused expression, never stored
    for instruction in instructions:
        name = _backend_name(kinds[instruction.out]) if instruction.api is not None else None
        if name not in ("numpy", "cupy") or (name == "numpy" and _numexpr() is None):
            continue
        fuser = fusers.setdefault(name, Fuser(kinds, name))
        if fuser.fusable(instruction):
            producers[instruction.out] = instruction
    if not producers:
        return instructions
    counts = use_counts(instructions, output)
    for instruction in producers.values():
        for ref in arg_refs(instruction):
            if ref.slot in producers and counts.get(ref.slot) == 1:
                chained.add(ref.slot)
    fused = []
    for instruction in instructions:
        if instruction.out in chained:
            continue
        if instruction.out in producers and any(ref.slot in chained for ref in arg_refs(instruction)):
            instruction = fused_instruction(instruction, producers, chained, fusers[_backend_name(kinds[instruction.out])])
        fused.append(instruction)
    return fused


def _backend_name(kind):
    module = getattr(kind[0], "__module__", "")
    if kind[0] is _np.ndarray:
        return "numpy"
    return "cupy" if module.startswith("cupy") else None


def fused_instruction(root, producers, chained, fuser):
    """The one call computing ``root`` and the chained calls below it."""
    leaves = []  # the arguments of the fused call: Refs and NumPy scalars, each once
    names = {}
    c = fuser.backend_name == "cupy"

    def leaf(arg):
        key = ("slot", arg.slot) if type(arg) is Ref else ("constant", id(arg))
        if key not in names:
            names[key] = f"a{len(leaves)}"
            leaves.append(arg)
        return names[key]

    def expression(instruction):
        operands = []
        for arg in instruction.args:
            if type(arg) is Ref and arg.slot in chained:
                operands.append(expression(producers[arg.slot]))
            elif type(arg) in (Ref, _np.float64, _np.ndarray):
                operands.append(leaf(arg))
            elif type(arg) is bool:
                operands.append(str(arg).lower() if c else str(arg))
            else:
                operands.append(repr(arg))
        return fused_expression(instruction.api, operands, c)

    source = expression(root)
    dtypes = [fuser.kinds[arg.slot][2] if type(arg) is Ref else _np.dtype("float64") for arg in leaves]
    out_dtype = fuser.kinds[root.out][2]
    if fuser.backend_name == "numpy":
        fn = numexpr_call(source, [f"a{i}" for i in range(len(leaves))], dtypes)
    else:
        fn = cupy_kernel(source, dtypes, out_dtype)
    return Instruction(fn, tuple(leaves), {}, root.out, api="fused", inplace=fuser.backend_name == "numpy")


def numexpr_call(source, names, dtypes):
    """``fn(*arrays, out=None)``: ``source`` evaluated by numexpr, one pass over the arrays."""
    compiled = _numexpr().NumExpr(source, signature=[(name, dtype.type) for name, dtype in zip(names, dtypes)])

    def fn(*arrays, out=None):
        return compiled(*arrays, out=out, order="K", casting="safe", ex_uses_vml=False)

    fn.__name__ = "numexpr"
    fn.source = source
    return fn


def cupy_kernel(source, dtypes, out_dtype):
    """``fn(*arrays)``: the C expression ``source`` as one CuPy ``ElementwiseKernel`` (which broadcasts
    as NumPy does).

    Not run by the test suite on machines without a GPU, so kept to the smallest C: the operators of
    expressions of the op table's ``fusion`` (``pow`` as C's function), and its ``"call"`` functions, which
    CUDA's math library has under the standard's names.
    """
    import cupy

    params = ", ".join(f"{_c_type(dtype)} a{i}" for i, dtype in enumerate(dtypes))
    kernel = cupy.ElementwiseKernel(params, f"{_c_type(out_dtype)} out", f"out = {source}", "adcore_jit_fused")

    def fn(*arrays):
        return kernel(*arrays)

    fn.__name__ = "cupy_kernel"
    return fn


def _c_type(dtype):
    return "bool" if str(dtype) == "bool" else "float64"


# ---- 6. buffers (NumPy) ----


def plan_buffers(instructions, output, kinds):
    """Set ``out_buffer`` of each in-place capable call that can write into a dead buffer; return
    the slots to release after each instruction (index -> slots), for the arrays not reused.

    A buffer is the result of such a call (a fresh NumPy array, C-contiguous, as the eager call's
    was); any other result may share memory with its array arguments, so a buffer is dead only
    after the last use of every value that may share it. Outputs are never dead.
    """
    if not any(_releasable(kinds[instruction.out]) for instruction in instructions):
        return {}  # no array of one dimension or more: nothing to reuse or release (a program of scalars)
    end = len(instructions)
    last_use = {ref.slot: end for ref in refs_in(output)}
    for index, instruction in enumerate(instructions):
        for ref in arg_refs(instruction):
            if last_use.get(ref.slot, -1) < end:
                last_use[ref.slot] = index
    shares = {}  # slot -> the buffers its value may share memory with
    for instruction in instructions:
        if instruction.inplace:
            shares[instruction.out] = {instruction.out}
        else:
            shares[instruction.out] = set().union(*(shares.get(ref.slot, ()) for ref in arg_refs(instruction)))
    buffer_end = {}
    for slot, buffers in shares.items():
        for buffer in buffers:
            buffer_end[buffer] = builtins.max(buffer_end.get(buffer, -1), last_use.get(slot, -1))
    dying = {}
    for buffer, index in buffer_end.items():
        if 0 <= index < end and _is_buffer(kinds[buffer]):
            dying.setdefault(index, []).append(buffer)
    free = {}  # (shape, dtype) -> dead buffers
    released = {}
    for index, instruction in enumerate(instructions):
        kind = kinds[instruction.out]
        if instruction.inplace and _is_buffer(kind):
            key = (kind[1], kind[2])
            own = [b for b in dying.get(index, ()) if (kinds[b][1], kinds[b][2]) == key and b in _arg_slots(instruction)]
            if own:
                instruction.out_buffer = own[0]
                dying[index].remove(own[0])
            elif free.get(key):
                instruction.out_buffer = free[key].pop()
        for buffer in dying.get(index, ()):
            free.setdefault((kinds[buffer][1], kinds[buffer][2]), []).append(buffer)
    reused = {instruction.out_buffer for instruction in instructions} - {None}
    for index, instruction in enumerate(instructions):
        for ref in arg_refs(instruction):
            if last_use.get(ref.slot) == index and _releasable(kinds[ref.slot]) and ref.slot not in reused:
                released.setdefault(index, set()).add(ref.slot)
    return released


def _arg_slots(instruction):
    return {ref.slot for ref in arg_refs(instruction)}


def _is_buffer(kind):
    """A NumPy array of at least one dimension, C-contiguous (the layout of a fresh ufunc result)."""
    return kind[0] is _np.ndarray and len(kind[1]) > 0 and kind[3]


def _releasable(kind):
    """Worth a ``del`` at its last use: an array of at least one dimension (scalars are cheaper kept)."""
    return bool(kind[1]) and isinstance(kind[1], tuple)


# ---- 7. the Python function ----

_LITERAL_TYPES = (int, bool, str, type(None))


def literal(value):
    """``value`` as Python source if it reads back as the same object type and value, else None."""
    kind = type(value)
    if kind in _LITERAL_TYPES:
        return repr(value)
    if kind is float:
        return repr(value) if math.isfinite(value) else None
    if kind is tuple and builtins.all(literal(item) is not None for item in value):
        return "(" + "".join(f"{literal(item)}, " for item in value) + ")"
    return None


class Writer:
    """The source of the program and the globals it reads (functions and constants, by identity).

    ``slot_name(slot)`` is how the function being written reads a slot: ``v7`` (a local), or
    ``r[7]`` (the list through which the functions of a long program share their values);
    ``inline`` maps a slot to the expression written in its place (read once, see :func:`_body`).
    """

    def __init__(self):
        self.globals = {"build_container": build_container, "snapshot_value": snapshot_value}
        self.names = {}
        self.slot_name = "v{}".format
        self.inline = {}

    def name_of(self, value, prefix):
        key = id(value)
        if key not in self.names:
            self.names[key] = name = f"{prefix}{len(self.names)}"
            self.globals[name] = value
        return self.names[key]

    def source(self, value, copy=False):
        """An argument (or the output template) as source: slots by name, numbers as literals."""
        kind = type(value)
        if kind is Ref:
            return self.inline.pop(value.slot, None) or self.slot_name(value.slot)
        text = literal(value)
        if text is not None:
            return text
        holds_refs = next(refs_in(value), None) is not None
        if kind is tuple and holds_refs:
            return "(" + "".join(f"{self.source(item, copy)}, " for item in value) + ")"
        if kind is list and holds_refs:
            return "[" + ", ".join(self.source(item, copy) for item in value) + "]"
        if kind is dict and holds_refs:
            return "{" + ", ".join(f"{self.source(k)}: {self.source(v, copy)}" for k, v in value.items()) + "}"
        if isinstance(value, (tuple, list)) and holds_refs:
            items = ", ".join(self.source(item, copy) for item in value)
            return f"build_container({self.name_of(kind, 'C')}, [{items}])"
        name = self.name_of(value, "C")
        return f"snapshot_value({name})" if copy and snapshots.find(value) is not None else name

    def call(self, instruction):
        args = [self.source(arg) for arg in instruction.args]
        args += [f"{key}={self.source(arg)}" for key, arg in (instruction.kwargs or {}).items()]
        if instruction.out_buffer is not None:
            args.append(f"out={self.slot_name(instruction.out_buffer)}")
        return f"{self.name_of(instruction.fn, 'F')}({', '.join(args)})"


#: Calls per compiled function. CPython's compiler takes memory and time in proportion to a function's
#: length (about 4 kB a line while it runs), so a longer program is compiled as a chain of functions of
#: this many calls, which share the values that cross from one to another through one list.
CHUNK = 2000


def write_functions(instructions, n_inputs, output, released, name, checked=()):
    """The program as Python: ``[(function name, source)]``, the entry point last, and their globals;
    with ``checked`` slots, the entry point returns ``masked_program``'s result if one holds a NaN."""
    writer = Writer()
    inputs = ", ".join(f"v{slot}" for slot in range(n_inputs))

    def returned():
        lines = []
        if checked:
            writer.globals["has_nan"] = has_nan
            lines.append(f"    if has_nan({', '.join(writer.source(Ref(slot)) for slot in checked)}):")
            lines.append(f"        return masked_program({inputs})")
        return [*lines, f"    return {writer.source(output, copy=True)}"]

    if len(instructions) <= CHUNK:
        read_once = inlinable(instructions, output, set())
        lines = [f"def {name}({inputs}):", *_body(writer, instructions, 0, released, set(), n_inputs, read_once)]
        return [(name, "\n".join([*lines, *returned()]) + "\n")], writer.globals
    chunks = [instructions[start : start + CHUNK] for start in range(0, len(instructions), CHUNK)]
    produced = {instruction.out: k for k, chunk in enumerate(chunks) for instruction in chunk}
    shared = {ref.slot for ref in refs_in(output)}
    for k, chunk in enumerate(chunks):
        shared.update(ref.slot for instruction in chunk for ref in arg_refs(instruction) if produced.get(ref.slot) != k)
        shared.update(instruction.out_buffer for instruction in chunk if produced.get(instruction.out_buffer, k) != k)
    read_once = inlinable(instructions, output, shared)
    functions = []
    for k, chunk in enumerate(chunks):
        local = {instruction.out for instruction in chunk}
        writer.slot_name = lambda slot, local=local: f"v{slot}" if slot in local else f"r[{slot}]"
        body = _body(writer, chunk, k * CHUNK, released, shared, n_inputs, read_once)
        functions.append((f"{name}_{k}", "\n".join([f"def {name}_{k}(r):", *body]) + "\n"))
    writer.slot_name = "r[{}]".format
    size = builtins.max(produced) + 1
    lines = [f"def {name}({inputs}):", f"    r = [{inputs}{', ' if n_inputs else ''}*[None] * {size - n_inputs}]"]
    lines += [f"    {function}(r)" for function, _ in functions]
    lines += returned()
    return [*functions, (name, "\n".join(lines) + "\n")], writer.globals


def inlinable(instructions, output, shared):
    """The slots that may be written inside the expression of the call that reads them: read once, by
    a call of the same function (not ``shared``), and neither an output nor a buffer written in place."""
    counts = use_counts(instructions, output)
    kept = {ref.slot for ref in refs_in(output)} | {instruction.out_buffer for instruction in instructions}
    return {i.out for i in instructions if counts.get(i.out) == 1 and i.out not in kept and i.out not in shared}


#: The deepest nesting of calls written as one expression (Python's parser allows 200 parentheses).
INLINE_DEPTH = 8


def _body(writer, instructions, start, released, shared, n_inputs, read_once):
    """The lines of ``instructions`` (the first at index ``start`` of the program): each call, the
    values other functions read put in ``r``, and each array released at its last use.

    A value of ``read_once`` is written inside the call that reads it (``v3 = add(v0, multiply(sin(v0),
    1e-05))``) where the calls then still run in the recorded order: those written inside one call must be
    the last ones pending, read in the order they were computed. No name, no line and no ``del`` for it:
    CPython compiles the program about twice as fast, and the replay skips a store and a load per value.
    """
    lines = []
    pending = {}  # slot -> (expression, depth, indices of the calls in it): values not written yet, in order
    named = set()

    def write(slot, expression, indices):
        named.add(slot)
        lines.append(f"    v{slot} = r[{slot}] = {expression}" if slot in shared else f"    v{slot} = {expression}")
        for index in indices:
            for released_slot in sorted(released.get(index, ())):
                if released_slot < n_inputs or (released_slot in read_once and released_slot not in named):
                    continue  # the caller holds the inputs; a value written inside its reader has no name
                name = writer.slot_name(released_slot)
                lines.append(f"    del {name}" if name.startswith("v") else f"    {name} = None")

    def write_pending():
        for slot, (expression, _, indices) in pending.items():
            write(slot, expression, indices)
        pending.clear()

    for index, instruction in enumerate(instructions, start):
        depth, indices = 1, [index]
        reads = [ref.slot for ref in arg_refs(instruction) if ref.slot in pending] if pending else ()
        if reads and reads == list(pending)[-len(reads) :]:
            inner = [pending.pop(slot) for slot in reads]
            writer.inline = {slot: entry[0] for slot, entry in zip(reads, inner)}
            depth += builtins.max(entry[1] for entry in inner)
            indices = [done for entry in inner for done in entry[2]] + indices
        elif reads:
            write_pending()
        expression = writer.call(instruction)
        if instruction.out in read_once and depth < INLINE_DEPTH:
            pending[instruction.out] = (expression, depth, indices)
        else:
            if pending:
                write_pending()
            write(instruction.out, expression, indices)
    write_pending()
    return lines


def build_program(recording, n_inputs, template):
    """The replay function of ``recording``: takes the traced leaves, returns ``template``'s structure
    (what the recorded function returned, its recorded values as :class:`Ref`; anything else is
    returned as a constant, a mutable array copied at each call).

    Where :func:`defer_nan_masks` made products of the chain rule plain, the function checks the
    outputs they reach and, if one holds a NaN, returns what the program with the masks gives
    (compiled at the first such call).
    """
    kinds = recording.kinds
    instructions = forward_container_items(recording.instructions, template, kinds)
    instructions = remove_dead(instructions, template)
    instructions = simplify(instructions, template, kinds)
    masked = instructions
    instructions, checked = defer_nan_masks(masked, template, kinds)
    if checked:  # the compilation below changes the instructions it optimises
        masked = [Instruction(i.fn, i.args, i.kwargs, i.out, i.api, i.inplace) for i in masked]
    title = recording.name
    name = "replay_" + "".join(c if c.isalnum() else "_" for c in title)
    fallback = None
    if checked:  # (not holding the recording: its values and weak references are dropped with it)
        fallback = functools.cache(lambda: compiled(masked, n_inputs, template, kinds, name + "_masked", title))
    return compiled(instructions, n_inputs, template, kinds, name, title, checked, fallback)


def compiled(instructions, n_inputs, template, kinds, name, title, checked=(), fallback=None):
    """``instructions`` fused, their buffers planned, written as Python and compiled."""
    instructions = fuse(instructions, template, kinds)
    constants = Constants()
    for instruction in instructions:
        instruction.args = tuple(constants.frozen(arg) for arg in instruction.args)
    released = plan_buffers(instructions, template, kinds)
    functions, namespace = write_functions(instructions, n_inputs, template, released, name, checked)
    if fallback is not None:
        namespace["masked_program"] = lambda *leaves: fallback()(*leaves)
    for _, source in functions:  # one at a time: the compiler's memory is that of one function
        exec(compile(source, f"<adcore.jit of {title}>", "exec"), namespace)
    program = namespace[name]
    program.source = "\n".join(source for _, source in functions)
    program.instructions = len(instructions)
    program.masked = fallback
    return program


class Constants:
    """The constant arrays of a program, each frozen once (closures are frozen at record time: a
    snapshot of a writeable array, so later writes to the user's array are not seen).

    Equal contiguous NumPy arrays share one copy: the snapshots the backward pass took of one
    closed-over matrix (``A`` in ``A @ x``, kept by each rule that reads it, and its transpose)
    become views of a single array, as in the hand-written code, which reads one ``A`` from the cache.
    """

    #: Entries below which sharing a copy is not worth hashing the array.
    SHARED_MIN_SIZE = 1 << 12

    def __init__(self):
        self.by_content = {}
        self.by_identity = {}  # id -> (the recorded constant, kept alive so that its id is not reused; its frozen copy)

    def frozen(self, arg):
        """``arg`` frozen, once per object: a matrix read by every column of a Jacobian is copied and hashed once."""
        if type(arg) is Ref or not hasattr(arg, "shape"):
            return arg
        entry = self.by_identity.get(id(arg))
        if entry is None:
            entry = self.by_identity[id(arg)] = (arg, self.freeze(arg))
        return entry[1]

    def freeze(self, arg):
        if type(arg) is _np.ndarray:
            backend = backend_of(arg)
            if backend.read_only(arg):
                return arg  # a read-only NumPy array (a broadcast made while recording) is kept as it is
            if arg.size >= self.SHARED_MIN_SIZE and backend.memory_order(arg) is not None:
                return self.shared(arg, backend)
        return snapshot_value(arg)

    def shared(self, arg, backend):
        """A read-only view, with ``arg``'s shape and layout, of one copy of ``arg``'s memory."""
        memory = arg.ravel(order="K")
        key = (arg.dtype.str, memory.size, hash(memory.tobytes()))
        copy = self.by_content.get(key)
        if copy is None or not _np.array_equal(copy, memory):
            copy = self.by_content[key] = backend.read_only_copy(memory)
        return backend.read_only_view(copy, arg)
