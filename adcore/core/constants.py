"""The constants policy: how a trace keeps the mutable arrays its rules read but does not differentiate.

A node keeps the constant arguments its VJP reads (data, weights held fixed); a write to one
of them between the call and the backward pass would change the derivative. Each trace keeps
its own :class:`Constants`, so nothing here outlives a call or is seen by another thread, and
no flag of a user's array is ever changed:

- **a copy where it is cheap**: a constant is replaced in the node by its snapshot (``snapshots``),
  so that later writes cannot reach it and the derivative is that of the values the call read;
- **a check at the end where it is not**: past a trace's copy budget, a constant is kept as it is
  with its fingerprint (``fingerprints``), taken once per array per trace; the single-use trace
  (``grad``) compares the fingerprints at its end and raises if one changed (:meth:`Constants.verify`).

Measured on NumPy arrays (this project's machine, one thread): a copy costs 0.2 to 0.4 us for 100
entries and 0.04 to 0.1 ms per MB; a CRC-32 about 0.3 ms per MB, each time it is taken, and the
check takes it twice. The copy is the quicker at every size: on a gradient that reads 1,000 small
constant arrays it costs within 2% of the read-only marking it replaces (a lock, two dictionaries
and two flag writes per constant), and the benchmarks' eager rows are unchanged (within 3%, side by
side). The check spares the memory of copies of large arrays, and of an array read by every step
of a long loop. A write by another thread while a primitive reads the array is a data race that
neither can see: the copy (or fingerprint) is taken just after the primitive has read it.
"""

from .tracer import TypeMap, primitive_name

#: ``type -> snapshot(value)``: a copy that later writes to ``value`` cannot reach, for the
#: mutable array types (filled by the array layer); None for immutable types.
snapshots = TypeMap("adcore cannot snapshot", required=False)
#: ``type -> fingerprint(value)``: a value equal to an earlier fingerprint of ``value`` exactly when
#: its entries, shape and dtype are as they were, or None for a value that cannot be fingerprinted
#: (filled by the array layer, for the array types with an ``nbytes``); None for the other types,
#: whose constants are always copied.
fingerprints = TypeMap("adcore cannot fingerprint", required=False)
#: The types of constant arguments found to need no snapshot (numbers, boxes...); only ever grows,
#: by the types seen, and is emptied of a type whose backend changes.
immutable_types = set()
_UNSEEN = object()

#: Bytes of constants a single-use trace copies before it checks them instead (per trace).
COPY_BUDGET = 1 << 24


class Constants:
    """How the nodes of one trace keep their constant arguments.

    ``Constants()`` copies every constant (a trace whose VJP may run again: ``make_vjp``).
    ``Constants(copy_budget=COPY_BUDGET)`` (a single-use trace: ``grad``) copies constants
    until ``copy_budget`` bytes are copied, and beyond keeps each larger array as it is with
    its fingerprint, for :meth:`verify` at the end of the backward pass. Calls on unboxed values
    pay nothing.
    """

    __slots__ = ["copy_budget", "checked"]

    def __init__(self, copy_budget=None):
        self.copy_budget = copy_budget
        self.checked = {}  # id(value) -> (value, fingerprint, fun): kept alive, so that ids are not reused

    def keep(self, args, argnums, fun):
        """``args`` with each mutable constant (not at ``argnums``) replaced by its snapshot, or checked."""
        copied = None
        for argnum, arg in enumerate(args):
            if argnum in argnums:
                continue
            arg_type = type(arg)
            snapshot = snapshots.get(arg_type, _UNSEEN)
            if snapshot is _UNSEEN:
                snapshot = snapshots.find(arg)
            if snapshot is None:
                immutable_types.add(arg_type)
                continue
            if self.copy_budget is not None:
                if id(arg) in self.checked:
                    continue
                fingerprint = fingerprints.get(arg_type, _UNSEEN)
                if fingerprint is _UNSEEN:
                    fingerprint = fingerprints.find(arg)
                if fingerprint is not None:
                    size = arg.nbytes
                    if size <= self.copy_budget:
                        self.copy_budget -= size
                    elif self.check(arg, fingerprint, fun):
                        continue
            copied = copied or list(args)
            copied[argnum] = snapshot(arg)
        return args if copied is None else tuple(copied)

    def check(self, value, fingerprint, fun):
        """Keep ``value`` as it is, with its fingerprint, for :meth:`verify`; False if it has none."""
        taken = fingerprint(value)
        if taken is None:
            return False
        self.checked[id(value)] = (value, taken, fun)
        return True

    def verify(self, op, fun):
        """Raise ``ValueError`` naming ``op``, ``fun`` and the arrays if a constant kept unchecked has changed
        since the trace first read it (the derivative just computed may have read other values)."""
        changed = sorted(
            {
                f"an array of shape {tuple(value.shape)} and dtype {value.dtype} used by {primitive_name(prim)}"
                for value, fingerprint, prim in self.checked.values()
                if fingerprints[type(value)](value) != fingerprint
            }
        )
        if changed:
            raise ValueError(
                f"{op}: {getattr(fun, '__name__', fun)} or another thread wrote to an array that the derivative reads as a "
                f"constant, after the function had used it: {'; '.join(changed)}. Write to a copy (x = x.copy()), or finish "
                "writing before using the array"
            )


def snapshot_value(value):
    """``value``, or its snapshot if it is a mutable array (registered in ``snapshots``)."""
    snapshot = snapshots.find(value)
    return value if snapshot is None else snapshot(value)


__all__ = ["COPY_BUDGET", "Constants", "fingerprints", "immutable_types", "snapshot_value", "snapshots"]
