"""What the distributions share: arguments in one floating dtype, NaN for invalid parameters, and
``location_scale``, which makes the functions of a location-scale family from its standard form."""

import inspect
import math

from backends import array_backend, backend_of

from ... import numpy as anp
from ...core import getval, isbox
from ...numpy import dtypes
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
        return anp.add(v, dtypes.zeros_like(as_array)) if isbox(v) else as_array

    return tuple(one(v) for v in values)


def valid(value, *conditions):
    """``value`` where all ``conditions`` hold, NaN elsewhere (SciPy's answer for invalid parameters)."""
    condition = conditions[0]
    for more in conditions[1:]:
        condition = anp.logical_and(condition, more)
    return anp.where(condition, value, math.nan)


def positive(value):
    return anp.greater(value, 0)


#: a distribution function's values below and above the support of its standard form
_TAILS = {"cdf": (0.0, 1.0), "logcdf": (-math.inf, 0.0), "sf": (1.0, 0.0), "logsf": (0.0, -math.inf)}


def location_scale(module, *shapes, support=None, closed=False, symmetric=False, **standard):
    """``(logpdf, pdf, cdf, logcdf, sf, logsf)`` of the distribution of ``x = loc + scale * z``, from
    the standard form of ``z``: SciPy's functions ``f(x, *shapes, loc=0.0, scale=1.0)`` of ``module``.

    Each keyword of ``standard`` is a function of the standard form, given as ``(docstring, f)`` with
    ``f(z, *shapes)``, or as a docstring alone for one made from the others: ``pdf`` is
    ``exp(logpdf)``; ``sf`` of a ``symmetric`` standard form (about 0) is ``cdf`` at ``-z``, and its
    ``logsf`` is ``logcdf`` at ``-z`` when ``logcdf`` is given; otherwise ``logcdf`` and ``logsf`` are
    ``log(cdf)`` and ``log(sf)``. The public functions standardise ``z = (x - loc) / scale`` (the
    arguments promoted together, ``promote``), subtract ``log(scale)`` from the log-density, and give
    NaN where ``scale`` or a shape is not positive. With ``support=(low, high)`` (``high`` may be
    ``math.inf``), the log-density is -inf outside ``[low, high]`` and the distribution functions are
    their limits outside ``(low, high)`` (outside ``[low, high]`` if ``closed``: for a standard form
    smooth up to the ends, as ``uniform``'s); there the standard form sees a point inside instead of
    ``z``, so their derivatives are 0 (where-safe). Every derivative comes from those compositions.
    """
    low, high = support or (-math.inf, math.inf)
    inner = low + 1.0 if high == math.inf else (low + high) / 2
    names = ("x", *shapes, "loc", "scale")

    def standardized(args):
        """``(z, scale, shapes)`` from ``(x, *shapes, loc, scale)``, promoted together."""
        x, loc, scale, *params = promote(args[0], args[-2], args[-1], *args[1:-2])
        return anp.divide(anp.subtract(x, loc), scale), scale, params

    def within(z, ends):
        """Where ``z`` lies in the support, its ends included if ``ends``."""
        compare_low, compare_high = (anp.greater_equal, anp.less_equal) if ends else (anp.greater, anp.less)
        above_low = compare_low(z, low)
        return above_low if high == math.inf else anp.logical_and(above_low, compare_high(z, high))

    def logpdf(args):
        z, scale, params = standardized(args)
        if support is None:
            value = anp.subtract(standard["logpdf"][1](z, *params), anp.log(scale))
        else:
            inside = within(z, ends=True)
            value = anp.subtract(standard["logpdf"][1](anp.where(inside, z, inner), *params), anp.log(scale))
            value = anp.where(inside, value, -math.inf)
        return valid(value, *map(positive, params), positive(scale))

    def distribution_function(name, f, flip=False):
        def compute(args):
            z, scale, params = standardized(args)
            if flip:
                z = anp.negative(z)
            if support is None:
                value = f(z, *params)
            else:
                below, above = _TAILS[name]
                inside = within(z, ends=closed)
                value = anp.where(inside, f(anp.where(inside, z, inner), *params), below if high == math.inf else above)
                if high != math.inf:  # below the support
                    value = anp.where((anp.less if closed else anp.less_equal)(z, low), below, value)
            return valid(value, *map(positive, params), positive(scale))

        return compute

    declared = {name: entry for name, entry in standard.items() if isinstance(entry, tuple)}
    computes = {"logpdf": logpdf, "pdf": lambda args: anp.exp(logpdf(args))}
    computes.update({name: distribution_function(name, f) for name, (_, f) in declared.items() if name != "logpdf"})
    made = {"pdf": f"``exp(logpdf({', '.join(names)}))``."}
    if "logcdf" not in declared:
        computes["logcdf"] = lambda args: anp.log(computes["cdf"](args))
        made["logcdf"] = f"``log(cdf({', '.join(names)}))``."
    if symmetric and "sf" not in declared:
        computes["sf"] = distribution_function("sf", declared["cdf"][1], flip=True)
        made["sf"] = "``cdf`` at ``-z`` (the distribution is symmetric)."
    if symmetric and "logcdf" in declared and "logsf" not in declared:
        computes["logsf"] = distribution_function("logsf", declared["logcdf"][1], flip=True)
        made["logsf"] = "``logcdf`` at ``-z``."
    elif "logsf" not in declared:
        computes["logsf"] = lambda args: anp.log(computes["sf"](args))
        made["logsf"] = f"``log(sf({', '.join(names)}))``."
    parameters = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in names[:-2]]
    parameters += [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d) for name, d in (("loc", 0.0), ("scale", 1.0))
    ]
    signature = inspect.Signature(parameters)
    defaults = (None,) * len(names[:-2]) + (0.0, 1.0)  # None: x and the shapes, which have no default

    def public(name):
        compute = computes[name]

        def function(*args, **kwargs):
            if kwargs:  # every keyword names a parameter not given by position, and every shape is given
                rest = names[len(args) :]
                values = args + tuple(map(kwargs.get, rest, defaults[len(args) :]))
                bound = sum(map(kwargs.__contains__, rest)) == len(kwargs) and all(map(kwargs.__contains__, rest[:-2]))
            else:
                values, bound = args + defaults[len(args) :], len(args) >= len(names) - 2
            if not bound or len(values) != len(names):  # what signature.bind (13 us a call) refuses
                try:
                    signature.bind(*args, **kwargs)
                except TypeError as error:
                    raise TypeError(f"{module.rpartition('.')[2]}.{name}(): {error}") from None
            return compute(values)

        entry = standard.get(name, made.get(name))
        function.__doc__ = entry[0] if isinstance(entry, tuple) else entry
        function.__name__ = function.__qualname__ = name
        function.__module__, function.__signature__ = module, signature
        return function

    return tuple(public(name) for name in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"))
