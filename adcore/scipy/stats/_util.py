"""What the distributions share: arguments in one floating dtype, standardisation, NaN for invalid parameters."""

import math

from backends import array_backend, backend_of

from ...core import getval, isbox
from ...numpy import wrapper as anp
from ..special import array_owner, floating_dtype

_FLOATING = ("real floating", "complex floating")


def promote(*values):
    """``values`` in one floating dtype, on the backend and device of the arrays among them.

    The dtype is ``special.floating_dtype``'s (the promoted dtype of the floating-point
    arrays, NumPy scalars counting on NumPy, as in NumPy; float32 stays float32; float64
    if there are none). Python scalars and integer arrays, traced or not, become arrays
    of that dtype, so a Python-scalar parameter never widens a float32 result. Floating
    arrays and ``None`` are returned as they are, and everything is when no value is an
    array.
    """
    arrays = [getval(v) for v in values if array_owner(getval(v)) is not None]
    if not arrays:
        return values
    backend = backend_of(*arrays)
    dtype = floating_dtype(backend, arrays)
    device = next((backend.device(a) for a in arrays if array_backend(a) is backend), None)

    def one(v):
        raw = getval(v)
        if v is None or (array_owner(raw) is backend and backend.isdtype(raw.dtype, _FLOATING)):
            return v
        if array_owner(raw) is backend:
            return anp.astype(v, dtype)
        as_array = backend.asarray(raw, dtype=dtype, device=device)
        return anp.add(v, anp.zeros_like(as_array)) if isbox(v) else as_array

    return tuple(one(v) for v in values)


def standardized(x, loc, scale, *params):
    """``(z, scale, *params)``: the arguments promoted together and ``z = (x - loc) / scale``."""
    x, loc, scale, *params = promote(x, loc, scale, *params)
    return (anp.divide(anp.subtract(x, loc), scale), scale, *params)


def valid(value, *conditions):
    """``value`` where all ``conditions`` hold, NaN elsewhere (SciPy's answer for invalid parameters)."""
    condition = conditions[0]
    for more in conditions[1:]:
        condition = anp.logical_and(condition, more)
    return anp.where(condition, value, math.nan)


def positive(value):
    return anp.greater(value, 0)
