"""Tracing: boxes, nodes, trace ids and primitives.

A traced call wraps its input in a :class:`Box` tagged with a fresh trace id
and a root :class:`Node`. Every :func:`primitive` called on boxes unboxes the
arguments of the innermost trace, computes the raw result, records a node
(whose kind, VJP or JVP, is chosen by the trace) and boxes the result again.
Nested traces (a ``grad`` inside a ``grad``) get increasing ids, so a box of an
outer trace is an ordinary constant to an inner one.

This module imports no array library.
"""

import gc
import itertools
import sys
import threading
import warnings
from contextvars import ContextVar

from .wrapping import wraps


class Node:
    """A recorded primitive call; subclasses keep what their mode needs.

    ``__init__(value, fun, args, kwargs, parent_argnums, parents)`` is called
    for each primitive call; ``initialize_root(*args)`` for the traced input.
    """

    __slots__ = []

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        raise NotImplementedError

    def initialize_root(self, *args, **kwargs):
        raise NotImplementedError

    def check_python_use(self, what):
        """Called before the value becomes a Python value (``what``: ``"bool()"``...); a trace
        that cannot follow the value into Python (``adcore.jit``'s) raises here."""

    #: None, or for a trace that computes each primitive its own way (``adcore.vmap``'s batch trace):
    #: ``interpret(f_wrapped, args, kwargs)``, called instead of the primitive when a box of the trace
    #: is the innermost among the arguments (the boxes of other traces are left in ``args``).
    interpret = None

    @classmethod
    def new_root(cls, *args, **kwargs):
        root = cls.__new__(cls)
        root.initialize_root(*args, **kwargs)
        return root


class TypeMap(dict):
    """``type -> handler``; a type not registered is resolved once by ``resolvers``, then cached.

    Lets the array layer teach the core about array types it cannot list in
    advance (any Array API library), without the core importing them. A
    resolver takes a value and returns a handler for its type, or None. For a
    map that is not ``required``, a type no resolver knows has the handler None.
    """

    def __init__(self, what, required=True):
        super().__init__()
        self.what = what
        self.required = required
        self.resolvers = []

    def find(self, value):
        """The handler for ``type(value)``, or None if no resolver knows it (then cached if not ``required``)."""
        value_type = type(value)
        try:
            return self[value_type]
        except KeyError:
            pass
        for resolve in self.resolvers:
            handler = resolve(value)
            if handler is not None:
                self[value_type] = handler
                return handler
        if not self.required:
            self[value_type] = None
        return None

    def of(self, value):
        """The handler for ``type(value)``.

        Raises
        ------
        TypeError
            If no handler is registered or resolved for ``type(value)``.
        """
        handler = self.find(value)
        if handler is None:
            value_type = type(value)
            raise TypeError(f"{self.what} values of type {value_type.__module__}.{value_type.__qualname__}")
        return handler


class Box:
    """A value being traced: the raw ``_value``, its ``_trace_id`` and its ``_node``.

    ``types`` holds every box type (a primitive orders their traces); ``see_through`` those whose
    ``_value`` is the value itself (:func:`getval` goes under them). A box of an *interpreting* trace
    (``adcore.vmap``'s, whose ``_value`` holds a batch of values) is in ``types`` only: to the other
    traces, to :func:`getval` and to ``vspace`` it is a value of its own, with its own shape.
    """

    __slots__ = ["_value", "_trace_id", "_node"]
    type_mappings = TypeMap("adcore cannot trace (differentiate through)")
    types = set()
    see_through = set()

    def __init__(self, value, trace_id, node):
        self._value = value
        self._trace_id = trace_id
        self._node = node

    def __bool__(self):
        self._node.check_python_use("bool()")
        return bool(self._value)

    def __repr__(self):
        return f"{type(self).__name__}({self._value!r}, trace_id={self._trace_id})"

    @property
    def _trace(self):
        """autograd's name of ``_trace_id``: boxes of one trace have equal ones, an inner trace's is larger."""
        return self._trace_id

    @classmethod
    def register(cls, value_type):
        Box.types.add(cls)
        Box.see_through.add(cls)
        Box.type_mappings[value_type] = cls
        Box.type_mappings[cls] = cls

    @classmethod
    def register_interpreting(cls, box_type):
        """Declare ``cls`` the box type of an interpreting trace (whose nodes define ``interpret``), whose
        values are boxed by ``box_type`` in the other traces."""
        Box.types.add(cls)
        Box.type_mappings[cls] = box_type


def new_box(value, trace_id, node):
    box_type = Box.type_mappings.get(type(value)) or Box.type_mappings.of(value)
    return box_type(value, trace_id, node)


def autograd_alias_installed():
    """Whether the autograd alias serves ``import autograd`` (``adcore.compat.autograd.install``), for the
    few behaviours that follow autograd's there; read from ``sys.modules``, so the outermost layer is never
    imported to tell (nothing of adcore imports ``adcore.compat``, see ``layers.json``)."""
    alias = sys.modules.get("adcore.compat.autograd")
    return alias is not None and alias.installed()


def isbox(x):
    return type(x) in Box.types


def getval(x):
    """The raw value under any number of boxes (down to a box of an interpreting trace, see :class:`Box`)."""
    while type(x) in _see_through:
        x = x._value
    return x


_see_through = Box.see_through


def getval_above(x, trace_id):
    """``x`` without the boxes that :func:`getval` goes under of the traces newer than ``trace_id`` (a box of
    an interpreting trace keeps, under its own box, the values of the traces older than its own)."""
    while type(x) in _see_through and x._trace_id > trace_id:
        x = x._value
    return x


def interpreting_box(values):
    """The box of the innermost interpreting trace among ``values`` (raw values or boxes of such a trace,
    as :func:`getval` leaves them), or None."""
    top = None
    for value in values:
        if type(value) in Box.types and (top is None or value._trace_id > top._trace_id):
            top = value
    return top


_trace_ids = itertools.count(1)


#: The creation numbers of the reverse-mode nodes (``VJPNode.number``), which order the backward pass.
node_numbers = itertools.count()


def next_trace_id():
    """An id larger than that of every trace started so far, and never a trace's: the traces started
    between two calls have the ids ``first <= id < last`` (those of other threads too)."""
    return next(_trace_ids)


class UnexpectedBoxError(TypeError):
    """A value traced by adcore (a :class:`Box`) reached a place where a raw value belongs: a
    primitive's raw function computed with a traced value it did not receive as an argument, or a
    result holds a box of a trace that has ended."""


_AS_ARGUMENT = (
    "Pass the value to the primitive as an argument (and give its derivative in that argument with "
    "defvjp/defjvp), or write the function as a composition of differentiable functions instead of a primitive"
)


def _boxes(value):
    """The boxes in ``value``: itself and the values under it, and those in tuples, lists and dicts at any depth."""
    while type(value) in Box.types:
        yield value
        value = value._value
    if isinstance(value, (tuple, list)):
        for item in value:
            yield from _boxes(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _boxes(item)


def without_boxes_of(value, first, last):
    """``value`` with each box of a trace whose id is ``first <= id < last`` (traces that have ended, see
    :func:`next_trace_id`) that is not inside a box of another trace replaced by the value it holds, at any
    depth of tuples, lists and dicts: the boxes of the traces still running, under them, are kept."""
    while type(value) in Box.types and first <= value._trace_id < last:
        value = value._value
    if isinstance(value, (tuple, list, dict)) and any(first <= box._trace_id < last for box in _boxes(value)):
        return _rebuilt(value, lambda item: without_boxes_of(item, first, last))
    return value


def check_no_ended_box(value, spans, what):
    """Raise :class:`UnexpectedBoxError` if ``value`` holds a box of a trace whose id is in one of
    ``spans`` (``(first, last)`` pairs of :func:`next_trace_id`: traces that have ended); ``what``
    names the value in the message. A box of another trace (an outer one, still running) is kept."""
    for box in _boxes(value):
        if any(first <= box._trace_id < last for first, last in spans):
            raise UnexpectedBoxError(
                f"{what} holds a traced value (a box of trace {box._trace_id}) whose trace has ended: a function or "
                "a derivative rule (defvjp/defjvp) used a value being differentiated that it did not receive as an "
                f"argument, e.g. a primitive or rule defined inside the differentiated function and closing over "
                f"its variable. {_AS_ARGUMENT}."
            )


#: The primitives whose result holds their traced arguments as they are (a container of them): a raw
#: function that receives such a result as an argument receives those values too (see :func:`_unescaped`).
packing = set()


def _unescaped(f_raw, ans, top, parents, start, outer):
    """``ans``, what the raw function ``f_raw`` returned when called on values of the trace of ``top``
    (whose traced arguments have the nodes ``parents``), with every box of that trace or of a later one
    taken off where the box was computed from the call's traced arguments only, at any depth of tuples,
    lists and dicts. ``start`` is the first node number the call may have used (:data:`node_numbers`).
    ``outer`` holds ``(trace id, parents)`` of the calls of the same primitive that this one is nested
    in (``f(x)`` with ``x`` traced by two traces records the call in the inner trace, then calls itself
    on the unboxed values for the outer one).

    A raw function may reach the traced values it receives as arguments through another route too (an
    object that holds them, as a circuit holds its parameters): its result is then a box computed from
    those values only, and the primitive's rules give its derivative, as autograd does. Its value,
    unboxed, is the primitive's raw result.

    Raises :class:`UnexpectedBoxError` for a box that depends on a traced value the call did not receive
    as an argument (a closure, a global or a keyword argument): the result would miss that dependence.
    Boxes of traces outside ``top``'s are legal (a primitive called on values of an inner trace may close
    over values of an outer one, still running, which the outer trace follows through the raw function
    while the inner one uses the primitive's rules); so is any box returned by a call with no traced
    argument (a plain call of the raw function, whose operations on traced values are traced as any code's).
    """
    top_id = top._trace_id
    if not any(box._trace_id >= top_id for box in _boxes(ans)):
        return ans
    covering = {**dict(outer), top_id: parents}

    def unboxed(box):
        while type(box) in Box.types and box._trace_id >= top_id:
            if not _computed_from(box._node, covering.get(box._trace_id, ()), start):
                raise UnexpectedBoxError(
                    f"primitive {primitive_name(f_raw)}: its raw function, called on a value of trace {top_id}, returned a "
                    f"traced value (a box of trace {box._trace_id}) computed from a value being differentiated that it did "
                    f"not receive as an argument (a closure or a global, e.g. a primitive defined inside the "
                    f"differentiated function), so the result would miss that dependence or leak the box. {_AS_ARGUMENT}."
                )
            box = box._value
        return _rebuilt(box, unboxed) if isinstance(box, (tuple, list, dict)) else box

    return unboxed(ans)


def _rebuilt(container, convert):
    """A tuple (a namedtuple), list or dict like ``container``, of its items converted by ``convert``."""
    if isinstance(container, dict):
        return type(container)((key, convert(item)) for key, item in container.items())
    items = [convert(item) for item in container]
    return type(container)(*items) if hasattr(container, "_fields") else type(container)(items)


def _computed_from(node, parents, start):
    """Whether the value of ``node`` was computed, after the node number ``start``, from the values of
    ``parents`` only, or of values packed into them (a :data:`packing` primitive's arguments): whether
    every node older than ``start`` that a path from ``node`` back to its trace's start reaches first is
    one of those."""
    covered = set()
    stack = list(parents)
    while stack:
        parent = stack.pop()
        if parent not in covered:
            covered.add(parent)
            if getattr(parent, "fun", None) in packing:
                stack.extend(parent.parents)
    seen = set()
    stack = [node]
    while stack:
        node = stack.pop()
        if node in covered or node in seen:
            continue
        if getattr(node, "number", -1) < start:  # older than the call (a forward-mode node has no number)
            return False
        seen.add(node)
        stack.extend(node.parents)
    return True


_gc_lock = threading.Lock()
_gc_pauses = 0  # blocks inside gc_paused, over all threads
_gc_was_enabled = False  # whether the collector was on when the first of them began


class gc_paused:  # noqa: N801 - used as a function: ``with gc_paused():``
    """Python's cyclic garbage collector off for the block (back on after, if it was on).

    A trace and a backward pass make many objects that live until the pass ends; the
    collector would rescan all of them over and over, making a long loop quadratic. The
    graph itself has no reference cycles, so nothing is left for the collector to find.
    Measured on benchmark workload g (the gradient of 100,000 steps of ``x + 1e-5 sin(x)``,
    300,000 primitives, CPython 3.11): 2.3 to 2.6 s with the pause, 3.3 to 3.4 s without
    (1.4x), and without it the cost per primitive grows with the length (8.7 us at 10,000
    steps, 11.2 us at 100,000); that is worth the pause's effect on the process (no thread
    collects cycles while one differentiates; nothing is lost, the next collection finds them).

    The collector is one switch for the process: blocks of several threads are counted
    under a lock, the first saves the switch and the last puts it back (reading and
    turning it in each block apart would race: a thread could read "off" from another's
    block, that block end, and the first thread then leave it off for good). So a user's
    ``gc.disable()`` before a derivative is kept, and the switch is put back however the
    block ends (an exception included); a ``gc.disable()`` by another thread while a block
    runs cannot be told from the pause's own, and is undone when the last block ends. A class rather
    than a generator: entered several times per gradient, it costs half as much.
    """

    __slots__ = []

    def __enter__(self):
        global _gc_pauses, _gc_was_enabled
        with _gc_lock:
            if _gc_pauses == 0:
                _gc_was_enabled = gc.isenabled()
                gc.disable()
            _gc_pauses += 1

    def __exit__(self, *exc_info):
        global _gc_pauses
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


def trace(start_node, fun, x, warn_if_independent=True):
    """Run ``fun(x)`` with ``x`` boxed under a new trace rooted at ``start_node``.

    Returns ``(end_value, end_node)``; ``end_node`` is None when the output does
    not depend on ``x``, and then (with ``warn_if_independent``) a ``UserWarning``
    "Output seems independent of input." is emitted, where and as autograd's
    ``trace`` emits it (libraries test for it). Trace ids only grow (one counter
    for all threads), so a trace started inside another has the larger id and
    nothing needs resetting when ``fun`` raises.
    """
    trace_id = next(_trace_ids)
    start_box = new_box(x, trace_id, start_node)
    with gc_paused():
        end_box = fun(start_box)
    if isbox(end_box) and end_box._trace_id == trace_id:
        return end_box._value, end_box._node
    if warn_if_independent:
        warnings.warn("Output seems independent of input.", stacklevel=1)
    return end_box, None


def unbox_innermost(args):
    """``args`` with the boxes of the innermost trace replaced by their values.

    Returns ``(argvals, argnums, parents, innermost_box, nested)``: the unboxed
    arguments, the positions of the boxes of the innermost trace, their nodes, one
    of those boxes (it gives the trace id and the node type; None if no argument is
    boxed), and whether boxes of an outer trace are left among ``argvals`` (so the
    call must be recorded there too).
    """
    box_types = Box.types
    top = None
    for arg in args:
        if type(arg) in box_types and (top is None or arg._trace_id > top._trace_id):
            top = arg
    if top is None:
        return args, (), (), None, False
    top_id = top._trace_id
    argvals = list(args)
    argnums = []
    parents = []
    nested = False
    for argnum, arg in enumerate(args):
        if type(arg) in box_types:
            if arg._trace_id == top_id:
                argvals[argnum] = value = arg._value
                argnums.append(argnum)
                parents.append(arg._node)
                nested = nested or type(value) in box_types
            else:
                nested = True
    return tuple(argvals), tuple(argnums), tuple(parents), top, nested


#: None, or while ``adcore.jit`` records: ``hook(f_wrapped, f_raw, args, kwargs, node)``, called instead
#: of ``f_raw`` wherever a primitive computes its raw value (``args`` as the primitive got them; ``node``
#: the node of the innermost box, whose trace boxes the result, or None), so that the calls on recorded
#: values are written down. Checked once per call; None costs nothing more.
raw_call_hook = None

#: None, or while ``adcore.jit`` records in this context: ``refuse(name)``, which a source of random
#: numbers (``adcore.numpy.random``) calls before each draw: numbers drawn inside a recorded function
#: would be frozen into its program.
draw_refusal = ContextVar("adcore_draw_refusal", default=None)

_FIRST, _SECOND = (0,), (1,)


def primitive(f_raw):
    """Wrap ``f_raw`` so that calls on boxes are recorded as nodes of the innermost trace.

    On unboxed arguments the wrapper calls ``f_raw`` directly. Rules for the
    wrapper are registered with ``defvjp``/``defjvp`` and friends. A call with
    boxes of several traces is recorded in each: the wrapper calls itself on the
    values of the innermost boxes (which records the call in the next trace out),
    then records it in the innermost trace.

    The one- and two-argument calls with one boxed argument (most calls: ``sin(x)``,
    ``x * 0.5``) are unboxed inline; every other call goes through :func:`unbox_innermost`.

    What ``f_raw`` may use besides its arguments: raw values, and values of traces outside the
    innermost trace of its boxed arguments (a primitive called inside ``grad`` of ``y``, nested in
    ``grad`` of ``x``, may close over ``x``: the outer trace follows the raw function, the inner one
    uses the rules). A value of the innermost trace, or of a later one, that ``f_raw`` reaches
    through a closure, a global or a keyword argument would bypass the rules and leave a box in
    the result: the call raises :class:`UnexpectedBoxError` when the raw result is such a box (or a
    tuple holding one); pass the value as an argument instead. ``f_raw`` may reach its traced
    arguments through another route too (an object holding them): a box computed from those only
    is taken off its result, and the rules give the derivative (:func:`_unescaped`). A call without
    boxed arguments is a plain call of ``f_raw``.
    """
    box_types = Box.types
    box_type_of = Box.type_mappings
    next_node_number = node_numbers.__next__

    def recorder(outer):
        """The wrapper, for a call nested in the calls ``outer`` (``(trace id, parents)`` of each, see
        :func:`_unescaped`; empty for the call the user makes)."""

        def call(*args, **kwargs):
            count = len(args)
            first = second = None  # whether args[0] and args[1] are boxed (None: not looked at)
            if count == 1 or count == 2:
                first, second = type(args[0]) in box_types, count == 2 and type(args[1]) in box_types
                if not (first or second):
                    if raw_call_hook is None:
                        return f_raw(*args, **kwargs)
                    return raw_call_hook(f_wrapped, f_raw, args, kwargs, None)
            if first != second:  # one box, of one or two arguments
                top = args[0] if first else args[1]
                if top._node.interpret is not None:
                    return top._node.interpret(f_wrapped, args, kwargs)
                value = top._value
                argvals = ((value,) if count == 1 else (value, args[1])) if first else (args[0], value)
                argnums, parents, nested = _FIRST if first else _SECOND, (top._node,), type(value) in box_types
            else:
                argvals, argnums, parents, top, nested = unbox_innermost(args)
                if top is None:
                    if raw_call_hook is None:
                        return f_raw(*args, **kwargs)
                    return raw_call_hook(f_wrapped, f_raw, args, kwargs, None)
                if top._node.interpret is not None:
                    return top._node.interpret(f_wrapped, args, kwargs)
            start = next_node_number()
            if nested:
                ans = recorder((*outer, (top._trace_id, parents)))(*argvals, **kwargs)
            elif raw_call_hook is None:
                ans = f_raw(*argvals, **kwargs)
            else:
                ans = raw_call_hook(f_wrapped, f_raw, argvals, kwargs, top._node)
            if type(ans) in box_types or type(ans) is tuple:
                ans = _unescaped(f_raw, ans, top, parents, start, outer)
            node = type(top._node)(ans, f_wrapped, argvals, kwargs, argnums, parents)
            return (box_type_of.get(type(ans)) or box_type_of.of(ans))(ans, top._trace_id, node)

        return call

    f_wrapped = wraps(f_raw)(recorder(()))
    f_wrapped.fun = f_raw
    return f_wrapped


nondifferentiable = set()


def notrace_primitive(f_raw):
    """Wrap ``f_raw`` so that it sees raw values and its result is never traced.

    For functions whose derivative is zero wherever it exists (``floor``,
    ``sign``, comparisons, ``argmax``) or that return no array (``shape``):
    they are *non-differentiable*, which is different from a primitive whose
    rule is *not implemented* (that one raises ``NotImplementedError``).
    """

    @wraps(f_raw)
    def f_wrapped(*args, **kwargs):
        if raw_call_hook is not None:
            return raw_call_hook(f_wrapped, f_raw, args, kwargs, None)
        values = tuple(map(getval, args))
        top = interpreting_box(values)
        if top is not None:
            return top._node.interpret(f_wrapped, values, kwargs)
        return f_raw(*values, **kwargs)

    f_wrapped.fun = f_raw
    nondifferentiable.add(f_wrapped)
    return f_wrapped


def primitive_name(fun):
    return getattr(fun, "__qualname__", None) or getattr(fun, "__name__", repr(fun))
