"""``adcore.jit``: record a function (typically a derivative) once per signature, replay it without tracing.

The first call of ``jit(fun)`` with a given *signature* of arguments runs ``fun``
under a recording trace: each argument's arrays and floats are boxed, and every
primitive computed from them (the forward pass, and the backward or forward
pass of any derivative taken inside, whose rules are themselves primitives) is
written down as one raw backend call. The calls are optimised (dead values
removed, elementwise chains fused, buffers reused and updated in place) and
turned into one straight-line Python function. The first call returns what
``fun`` computed while recorded (the program does not run then); later calls
with the same signature run that function: no boxes, no nodes, no closures, no
backward pass.

What a signature is
-------------------
The layout of the arguments (tuples, lists, dicts and namedtuples, nested), and
for each leaf:

- an array (of any backend): its type, shape, dtype, backend and device. It is
  a traced input: its values may change from call to call.
- a Python ``float`` or ``complex``, or a NumPy inexact scalar (``np.float64``):
  its type. A traced input too.
- anything else (``int``, ``bool``, ``str``, ``None``, NumPy integer scalars,
  functions, other objects): its value (its identity for an unhashable object).
  A *static* value: a new value records anew. Python ints stay static because
  they steer shapes, axes and loops (``range(n)``).

The default backend (``adcore.use_backend``) is part of the signature too. At
most ``cache_size`` signatures are kept per function (the least recently used
is dropped).

What is frozen at record time
-----------------------------
As with ``jax.jit``: whatever ``fun`` reads that is not an argument. Arrays from
closures and globals are copied when recorded (later writes to them are not
seen), Python values are baked in, and side effects (``print``, appending to a
list) happen at the recording call only. A value taken out of its box
(``adcore.core.getval``) stays recorded through adcore's functions, but what
the array library computes from it directly (``getval(x) * 2`` on NumPy) is a
constant.

What is refused
---------------
Python cannot be recorded, so a trace whose course depends on the values of
its traced inputs is refused with :class:`JitError`, naming the line of ``fun``
(or, with ``on_refusal="eager"``, ``fun`` runs eagerly for that signature):
``bool`` (``if``, ``while``, ``and``), ``float``, ``int``, ``complex``,
``operator.index`` (``range(n)``, ``seq[i]``), ``format`` (an f-string) or
``.item()`` of a traced value, or of the result of a non-differentiable
function of one (``x > 0``, ``np.any``, ``np.argmax``); a Python value
computed from traced values (``np.allclose``); a shape that
depends on values (``x[x > 0]``, ``np.nonzero``, one-argument ``np.where``);
random numbers drawn inside ``fun`` (``adcore.numpy.random``, or NumPy's global
generator outside adcore's functions: pass them as arguments instead). Under
an outer derivative (``grad(jit(f))``), ``jit(f)`` runs ``f`` eagerly: the outer
trace needs its nodes.

Correctness
-----------
A replay calls the same backend functions on the same kinds of values as the
recording did, so without fusion its results equal the eager ones bit for bit
(the tests replay every line of the spec table of rules, on every backend).
Fused chains compute the same expressions in one pass, equal to floating-point
rounding (the first call, which returns the recorded eager values, can then differ
from the replays in the last bits): ``numexpr`` fuses the arithmetic between NumPy's own transcendental
functions; a CuPy ``ElementwiseKernel`` fuses both (CUDA's math library).
"""

import builtins
import linecache
import os
import sys
import threading
import weakref
from collections import OrderedDict
from contextlib import contextmanager
from functools import update_wrapper

import numpy as _np

from backends import array_backend, default_backend

from .builtins import build_container
from .core import Box, Node, getval, new_box, snapshot_value, snapshots, tracer
from .core import trace as _trace
from .core.batching import batch_ndim
from .core.ops import op_of, signature_only
from .jit_program import Instruction, Ref, build_program, refs_in

__all__ = ["JitError", "jit"]


class JitError(TypeError):
    """``adcore.jit`` cannot record the function: its course depends on the values of its traced inputs."""


# ---- signatures: the layout of the arguments and the kind of each leaf ----

#: Leaves that are traced inputs by type alone.
_TRACED_SCALARS = (float, complex)


class _UnderTrace(Exception):
    """An argument holds a value traced by an outer derivative: ``jit`` runs ``fun`` eagerly."""


def flatten(value, leaves, statics):
    """A hashable key of ``value``'s layout and leaf kinds; its traced leaves are appended to
    ``leaves``, its static objects to ``statics`` (kept alive so that a key made of an id stays valid).

    Raises
    ------
    _UnderTrace
        If a leaf is a box (a value traced by an outer derivative).
    """
    kind = type(value)
    if kind is _np.ndarray:
        leaves.append(value)
        return (kind, value.shape, value.dtype)
    if kind in _TRACED_SCALARS:
        leaves.append(value)
        return kind
    if kind is tuple or kind is list:
        return (kind, tuple([flatten(item, leaves, statics) for item in value]))
    if kind is dict:
        return (kind, tuple([(key, flatten(item, leaves, statics)) for key, item in value.items()]))
    if kind in Box.types:
        raise _UnderTrace
    if isinstance(value, _np.generic):
        if isinstance(value, _np.inexact):
            leaves.append(value)
            return kind
        return (kind, value)
    if isinstance(value, (tuple, list)):  # namedtuples and other subclasses
        return (kind, tuple([flatten(item, leaves, statics) for item in value]))
    if isinstance(value, dict):
        return (kind, tuple([(key, flatten(item, leaves, statics)) for key, item in value.items()]))
    backend = array_backend(value)
    if backend is not None:
        leaves.append(value)
        return (kind, tuple(value.shape), str(value.dtype), backend.name, str(backend.device(value)))
    statics.append(value)
    try:
        hash(value)
    except TypeError:
        return (kind, id(value))
    return (kind, value)


def unflatten(value, leaves):
    """``value`` with its traced leaves replaced, in order, by the items of the iterator ``leaves``."""
    kind = type(value)
    if kind is _np.ndarray or kind in _TRACED_SCALARS:
        return next(leaves)
    if isinstance(value, (tuple, list)):
        return build_container(kind, [unflatten(item, leaves) for item in value])
    if isinstance(value, dict):
        return build_container(kind, [(key, unflatten(item, leaves)) for key, item in value.items()])
    if isinstance(value, _np.generic):
        return next(leaves) if isinstance(value, _np.inexact) else value
    return next(leaves) if array_backend(value) is not None else value


# ---- refusals: where in the user's code, and what to do instead ----

_PACKAGE_DIRS = tuple(
    os.path.dirname(os.path.abspath(path)) + os.sep
    for path in (__file__, sys.modules["backends"].__file__, sys.modules["contextlib"].__file__)
)


def user_place():
    """``file:line in function: source`` of the innermost caller outside adcore, the backends and the
    standard library's context managers (the line of the recorded function that asked for the value)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIRS):
        frame = frame.f_back
    if frame is None:
        return "an unknown place"
    code = frame.f_code
    source = linecache.getline(code.co_filename, frame.f_lineno).strip()
    return f"{code.co_filename}:{frame.f_lineno} in {code.co_name}" + (f": {source}" if source else "")


def refusal(recording, what, way_out):
    return JitError(
        f"adcore.jit cannot record {recording.name}: {what}, at {user_place()}. {way_out} "
        "(or pass on_refusal='eager' to run it eagerly)"
    )


BRANCH = (
    "A recorded program cannot follow Python's branches on traced values: compute both sides and "
    "select with adcore.numpy.where, or pass the value that steers Python as a static argument (an int)"
)
FORMAT = "The text would be frozen at the recording's values: format the returned values outside the jitted function"


# ---- the recording: every raw call on a recorded value, written down ----


class JitNode(Node):
    """The node of a recording's boxes: the value's slot. The call that made the value was written
    down by :func:`raw_call` when it ran; the node checks that its value is a recorded one."""

    __slots__ = ["recording", "slot"]

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        recording = parents[0].recording
        if type(value) in Box.types:
            raise refusal(
                recording,
                f"{getattr(fun, '__name__', 'a primitive')} mixes its values with one traced by a derivative taken outside jit",
                "Pass that value to the jitted function as an argument",
            )
        self.recording = recording
        self.slot = recording.slot_of(value)

    def initialize_root(self, recording, slot):
        self.recording = recording
        self.slot = slot

    def check_python_use(self, what):
        raise refusal(self.recording, f"{what} of a traced value", FORMAT if what == "format()" else BRANCH)


VALUE_SHAPE = "a shape that depends on traced values"
VALUE_SHAPE_WAY_OUT = "Keep shapes fixed: select with adcore.numpy.where(mask, x, 0.0) rather than x[mask] or nonzero"


class Recording:
    """The raw calls of one recording, in the order they ran (``instructions``), and what is known of
    each value (``kinds``: per slot, type, shape, dtype and whether a NumPy array is C-contiguous).

    A value is recorded by identity: the raw values of the recording's boxes, and the results of
    calls that read a recorded value, wherever adcore's code takes them out of their boxes
    (``getval``) and computes on (``reductions.max(getval(a))``). ``tracked`` maps ``id(value)`` to its
    slot, for as long as the value lives (a weak reference, or the value itself where it has none).
    """

    def __init__(self, name):
        self.name = name
        self.instructions = []
        self.kinds = []
        self.tracked = {}
        self.trace_id = None
        self.depth = 0  # > 0 while a recorded call runs: the calls it makes are part of it

    def track(self, value):
        """A new slot holding ``value`` (an input's private copy, or a recorded call's result)."""
        backend = array_backend(value)
        contiguous = backend is not None and backend.memory_order(value) == "C"
        self.kinds.append((type(value), getattr(value, "shape", None), getattr(value, "dtype", None), contiguous))
        slot = len(self.kinds) - 1
        if type(value) in (int, bool):
            return slot  # small ints are shared objects: not tracked by identity
        key = id(value)
        if type(value).__weakrefoffset__:
            keep = weakref.ref(value, lambda ref, key=key: self.forget(key, ref))
        else:  # NumPy's scalars, tuples: small, kept alive (so their id is not reused meanwhile)
            keep = value
        self.tracked[key] = (slot, keep)
        return slot

    def release(self):
        """Drop the calls, kinds and values held: the recording itself may outlive its call, in a cycle of
        the traced function's closures (and the callbacks of its weak references hold it: another one)."""
        self.instructions, self.kinds, self.tracked = [], [], {}

    def forget(self, key, ref):
        entry = self.tracked.get(key)
        if entry is not None and entry[1] is ref:
            del self.tracked[key]

    def slot_of(self, value):
        entry = self.tracked.get(id(value))
        return None if entry is None else entry[0]

    def box_input(self, value):
        """A box of a private copy of the input ``value`` (so that no constant of ``fun`` is the same object)."""
        if type(value) is float:
            value = float.fromhex(value.hex())  # a new float object, equal to the input (-0.0 and NaN included)
        elif type(value) is complex:
            value = complex(float.fromhex(value.real.hex()), float.fromhex(value.imag.hex()))
        elif hasattr(value, "shape") and snapshots.find(value) is not None:
            value = snapshot_value(value)
        root = JitNode.new_root(self, self.track(value))
        return new_box(value, self.trace_id, root)

    def template(self, value):
        """``value`` with its recorded values as :class:`Ref` (boxed or raw, inside tuples and lists too),
        or None if it holds none."""
        kind = type(value)
        if kind in _UNTRACKED:
            return None
        slot = self.slot_of(getval(value) if kind in Box.types else value)
        if slot is not None:
            return Ref(slot)
        if kind is tuple or kind is list:
            items = [self.template(item) for item in value]
            if builtins.all(item is None for item in items):
                return None
            return kind(value[i] if item is None else item for i, item in enumerate(items))
        return None

    def call(self, f_wrapped, f_raw, args, kwargs, boxed_by_jit):
        """``f_raw`` on the raw values of ``args``; written down if an argument is a recorded value.

        The result of a written-down call is boxed by the recording (unless the primitive that
        called boxes it, ``boxed_by_jit``): whatever computes with it, adcore's own code that took
        a value out of its box (``reductions.max(getval(a)) + 1.0``) included, is then recorded too.
        """
        raw_args = [getval(arg) for arg in args]  # boxes at the top only (those of a non-differentiable function)
        template = self.args_template(args, raw_args)
        if template is None:
            return f_raw(*raw_args, **kwargs)
        nondifferentiable = f_wrapped in tracer.nondifferentiable
        self.check_shapes_fixed(f_wrapped, template)
        self.depth += 1
        try:
            value = f_raw(*raw_args, **kwargs)
        finally:
            self.depth -= 1
        if _holds_boxes(value):
            return value  # an item of a container of boxes, made while recording: that structure is fixed
        if nondifferentiable:
            if signature_only(f_wrapped):  # the op table's fact: run while recording, its result a constant
                return value
            if type(value) in (bool, int, float, complex):  # not NumPy's scalars (np.float64 is a float)
                raise refusal(
                    self, f"{f_wrapped.__name__} gives a Python {type(value).__name__} computed from traced values", BRANCH
                )
            if array_backend(value) is None and not isinstance(value, _np.generic) and not _holds_arrays(value):
                return value  # a dtype, a type, a shape: what the signature fixes
        slot = self.track(value)
        self.instructions.append(Instruction.of_call(f_raw, template, kwargs, slot, raw_args, value))
        if boxed_by_jit or Box.type_mappings.find(value) is None:
            return value
        return new_box(value, self.trace_id, JitNode.new_root(self, slot))

    def args_template(self, args, raw_args):
        """``raw_args`` (the raw values of ``args``) with the recorded values as :class:`Ref` (see
        :meth:`template`), as a tuple; None if they hold none (one look-up per argument)."""
        tracked = self.tracked
        template = None
        for position, raw in enumerate(raw_args):
            kind = type(raw)
            entry = None if kind in _UNTRACKED else tracked.get(id(raw))
            if entry is not None:
                item = Ref(entry[0])
            elif kind is tuple or kind is list:
                item = self.template(args[position])
                if item is None:
                    continue
            else:
                continue
            if template is None:
                template = list(raw_args)
            template[position] = item
        return None if template is None else tuple(template)

    def output_template(self, value):
        """What ``fun`` returned, with its recorded values (boxed or raw) as :class:`Ref`."""
        if isinstance(value, (tuple, list)) and type(value) not in Box.types:
            return build_container(type(value), [self.output_template(item) for item in value])
        if isinstance(value, dict) and type(value) not in Box.types:
            return build_container(type(value), [(key, self.output_template(item)) for key, item in value.items()])
        if type(value) in Box.types and not _is_jit_box(value):
            raise refusal(self, "it returns a value traced by a derivative taken outside jit", "Return raw values")
        raw = getval(value)
        slot = self.slot_of(raw)
        return raw if slot is None else Ref(slot)

    def check_shapes_fixed(self, f_wrapped, template):
        """Refuse a call whose result's shape depends on traced values: of a primitive the op table declares
        ``value_shaped``, or with a traced boolean mask as its ``mask_argument``."""
        op = op_of(f_wrapped)
        if op is None:
            return
        if op.value_shaped:
            raise refusal(self, f"{VALUE_SHAPE} ({f_wrapped.__name__})", VALUE_SHAPE_WAY_OUT)
        mask = op.mask_argument
        if mask is not None and type(template[mask]) is Ref and _is_boolean(self.kinds[template[mask].slot]):
            raise refusal(self, f"{VALUE_SHAPE} (an index by a traced boolean mask)", VALUE_SHAPE_WAY_OUT)


_UNTRACKED = (int, bool, str, type(None))  # small ints are shared objects: never recorded by identity


def _is_jit_box(value):
    return type(value) in Box.types and type(value._node) is JitNode


def _is_boolean(kind):
    return kind[2] is not None and str(kind[2]).split(".")[-1] in ("bool", "bool_")


def _holds_boxes(value):
    if type(value) in Box.types:
        return True
    return isinstance(value, (tuple, list)) and builtins.any(_holds_boxes(item) for item in value)


def _holds_arrays(value):
    return isinstance(value, (tuple, list)) and builtins.any(
        array_backend(item) is not None or _holds_arrays(item) for item in value
    )


_local = threading.local()  # .recording: the recording open in this thread, if any


def raw_call(f_wrapped, f_raw, args, kwargs, node):
    """``tracer.raw_call_hook`` while any recording is open: every primitive's raw call (in every
    thread) comes here; those of a thread that records, on its recorded values, are written down."""
    recording = getattr(_local, "recording", None)
    if (
        node is None
    ):  # a non-differentiable function, or a call on no box: the newer of a batch trace and the recording goes first
        top = tracer.interpreting_box(map(getval, args))
        if top is not None and (recording is None or recording.depth or top._trace_id > recording.trace_id):
            return top._node.interpret(f_wrapped, tuple(tracer.getval_above(arg, top._trace_id) for arg in args), kwargs)
    if recording is None or recording.depth or signature_only(f_wrapped):
        return f_raw(*map(getval, args), **kwargs)
    return recording.call(f_wrapped, f_raw, args, kwargs, boxed_by_jit=type(node) is JitNode)


_open_recordings = 0
_open_lock = threading.Lock()


@contextmanager
def recording_open(recording):
    """Within the block: raw calls come to ``raw_call`` (all threads share the hook), this thread's
    go to ``recording``, and random draws in this thread are refused."""
    global _open_recordings
    with _open_lock:
        _open_recordings += 1
        tracer.raw_call_hook = raw_call

    def refuse_draw(name):
        raise refusal(recording, f"it draws random numbers ({name})", "Draw them outside and pass them as an argument")

    token = tracer.draw_refusal.set(refuse_draw)
    previous, _local.recording = getattr(_local, "recording", None), recording
    try:
        yield
    finally:
        _local.recording = previous
        tracer.draw_refusal.reset(token)
        with _open_lock:
            _open_recordings -= 1
            if _open_recordings == 0:
                tracer.raw_call_hook = None


def record(fun, name, args, kwargs, leaves):
    """Run ``fun(*args, **kwargs)`` with its traced ``leaves`` boxed; return the optimised program and
    the recording call's result (what ``fun`` computed, as the program returns it: no replay needed).

    The collector is off throughout, as in a trace: the recording's calls and values are dropped
    (``Recording.release``) and freed by their counts before it is back on; it would otherwise walk all
    of them, at each collection and once more at the end.
    """
    with tracer.gc_paused():
        return recorded(Recording(name), fun, args, kwargs, leaves)


def recorded(recording, fun, args, kwargs, leaves):
    outputs = []

    def traced(start_box):
        recording.trace_id = start_box._trace_id
        boxes = iter([recording.box_input(leaf) for leaf in leaves])
        call_args = unflatten(args, boxes)
        call_kwargs = unflatten(kwargs, boxes)
        outputs.append(fun(*call_args, **call_kwargs))

    before = _np.random.get_state()
    try:
        with recording_open(recording):
            # traced returns None (the outputs are recorded): no warning that the output is independent
            _trace(JitNode.new_root(recording, None), traced, 0.0, warn_if_independent=False)
        template = recording.output_template(outputs[0])
        program = build_program(recording, len(leaves), template)
        check_global_draws(recording, program, leaves, before)
    finally:
        recording.release()
    return program, recorded_result(template, outputs[0], leaves)


def recorded_result(template, value, leaves):
    """What the program returns for ``template``, taken from the recording: the value ``fun`` computed
    (``value``, what it returned) for a recorded value, the caller's leaf for an input, a copy of a constant."""
    if type(template) is Ref:
        return leaves[template.slot] if template.slot < len(leaves) else getval(value)
    if next(refs_in(template), None) is None:
        return snapshot_value(template)
    if isinstance(template, dict):
        return build_container(type(template), [(key, recorded_result(t, value[key], leaves)) for key, t in template.items()])
    return build_container(type(template), [recorded_result(t, v, leaves) for t, v in zip(template, value)])


def check_global_draws(recording, program, leaves, before):
    """Refuse a recording during which NumPy's global generator moved, unless all its draws were made
    inside recorded calls (SciPy's ``logm`` estimates norms with random vectors): replayed from the
    state ``before``, the program must leave the generator where the recording did."""
    after = _np.random.get_state()
    if _same_state(before, after):
        return
    _np.random.set_state(before)
    program(*leaves)
    replayed = _np.random.get_state()
    _np.random.set_state(after)
    if not _same_state(replayed, after):
        raise refusal(
            recording, "it draws random numbers from NumPy's global generator (numpy.random)", "Draw them outside and pass them"
        )


def _same_state(first, second):
    return first[0] == second[0] and first[2:] == second[2:] and _np.array_equal(first[1], second[1])


# ---- the user's entry point ----


class Jitted:
    """``fun`` recorded once per signature and replayed; see :func:`jit`."""

    def __init__(self, fun, cache_size, on_refusal):
        self.fun = fun
        self.cache_size = cache_size
        self.on_refusal = on_refusal
        self.programs = OrderedDict()
        self.lock = threading.Lock()
        self.name = getattr(fun, "__name__", type(fun).__name__)

    def __call__(self, *args, **kwargs):
        leaves, statics = [], []
        try:
            key = (flatten(args, leaves, statics), flatten(kwargs, leaves, statics), default_backend().name, batch_ndim())
        except _UnderTrace:
            return self.fun(*args, **kwargs)
        programs = self.programs
        program = programs.get(key)
        if program is None:
            program, result = self.record(key, args, kwargs, leaves, statics)
            if type(program) is not Eager:
                return result
        elif len(programs) > 1:
            programs.move_to_end(key)
        if type(program) is Eager:
            return self.fun(*args, **kwargs)
        return program(*leaves)

    def record(self, key, args, kwargs, leaves, statics):
        """``(program, result of the recording call)``; ``(Eager(), None)`` for a refused recording under
        ``on_refusal="eager"``. The program keeps the signature's static objects alive as long as this
        function keeps the program (their ids are in its key)."""
        result = None
        try:
            program, result = record(self.fun, self.name, args, kwargs, leaves)
        except JitError:
            if self.on_refusal != "eager":
                raise
            program = Eager()
        program.statics = statics
        with self.lock:
            self.programs[key] = program
            while len(self.programs) > self.cache_size:
                self.programs.popitem(last=False)
        return program, result


class Eager:
    """The program of a signature whose recording was refused, under ``on_refusal="eager"``: the function runs
    itself. One per signature, so that what it keeps (``statics``) goes with its ``Jitted`` and nothing is
    shared between them."""

    __slots__ = ["statics"]


def jit(fun, *, cache_size=32, on_refusal="raise"):
    """``fun`` recorded once per signature of its arguments and replayed from then on.

    See the module's documentation (``adcore.jit`` module) for what a signature is, what is
    frozen at record time and what is refused. Use it around a function called many times
    with arguments of one layout: an optimisation step, a loss and its gradient, a sampler's
    log-density; the derivative operators take ``jit=True`` for the common case
    (``grad(f, jit=True)`` is ``jit(grad(f))``).

    Parameters
    ----------
    fun : callable
        A function of arrays, floats and containers of them (and static values), written with
        ``adcore.numpy``; it may take derivatives inside.
    cache_size : int
        How many signatures to keep recorded programs for (least recently used dropped).
    on_refusal : {"raise", "eager"}
        What to do when ``fun`` cannot be recorded for a signature: raise :class:`JitError`, or
        run ``fun`` eagerly for that signature from then on.

    Returns
    -------
    callable
        Takes ``fun``'s arguments, returns what ``fun`` returns (arrays of the same shapes,
        dtypes, backends and devices).

    Raises
    ------
    JitError
        At a recording call, if the course of ``fun`` depends on the values of its traced
        inputs (see above), naming the line of ``fun`` where it does.
    TypeError
        If ``fun`` is not callable, or ``on_refusal`` is neither "raise" nor "eager".

    >>> import adcore, adcore.numpy as np
    >>> step = adcore.jit(lambda x: x - 0.1 * adcore.grad(lambda y: np.sum(y ** 2))(x))
    >>> step(np.array([1.0, 2.0]))
    array([0.8, 1.6])
    """
    if not callable(fun):
        raise TypeError(f"jit: fun must be callable, got {type(fun).__name__}")
    if on_refusal not in ("raise", "eager"):
        raise TypeError(f"jit: on_refusal must be 'raise' or 'eager', got {on_refusal!r}")
    return update_wrapper(Jitted(fun, cache_size, on_refusal), fun, updated=())  # not fun's __dict__: it may hold "fun"
