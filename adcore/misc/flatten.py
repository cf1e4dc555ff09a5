"""Nested containers of arrays as one flat vector, and back (autograd 1.9.1's ``autograd.misc.flatten``).

Optimizers and examples work on one vector; models keep their parameters in
tuples, lists and dicts. :func:`flatten` joins the leaves into a vector on their
backend and device; the ``unflatten`` it returns cuts a vector back into the
nested structure with ``adcore.numpy`` functions, so ``grad`` goes through both.
"""

import itertools
import numbers

import numpy

from backends import array_backend, backend_of, default_backend

from .. import numpy as anp
from ..core import getval

__all__ = ["flatten", "flatten_func"]


def flatten(value):
    """Join the leaves of a nesting of tuples, lists and dicts into one 1-d array.

    Leaves are taken depth first, dict items in sorted key order (as autograd
    does; dict keys must be sortable), each raveled in C order. Both directions
    are differentiable: ``value`` may hold traced arrays, and ``unflatten`` may
    be given a traced vector.

    Parameters
    ----------
    value : array, scalar, or tuple, list or dict nesting them
        Namedtuples and dict subclasses built from a dict (``OrderedDict``)
        count as containers. Arrays must share one backend and device.
        Traced values are accepted.

    Returns
    -------
    flat : array
        A 1-d array of size the total size of the leaves, on the leaves'
        backend and device (the default backend when all leaves are Python or
        NumPy scalars), of the leaves' promoted dtype (Python scalars take the
        arrays' dtype). An empty container gives a float64 array of size 0.
    unflatten : callable
        ``unflatten(vector)`` returns the structure of ``value`` (same
        container types, dict keys in their original order) whose leaves are
        pieces of ``vector``, reshaped to the leaves' shapes (a scalar leaf
        comes back as a 0-d array) in ``vector``'s dtype. Raises ``ValueError``
        if ``vector`` is not 1-d of size ``flat.size``.

    Raises
    ------
    TypeError
        If a leaf is neither an array nor a number (e.g. ``None``, a string).
    ValueError
        If the arrays come from two backends or two devices.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> flat, unflatten = flatten({"w": np.ones((2, 2)), "b": (0.5, np.zeros(1))})
    >>> flat
    array([0.5, 0. , 1. , 1. , 1. , 1. ])
    >>> unflatten(flat * 2)["w"]
    array([[2., 2.],
           [2., 2.]])
    """
    leaves = []
    structure = _structure(value, leaves)
    shapes = [anp.shape(leaf) for leaf in leaves]
    bounds = [0, *itertools.accumulate(anp.size(leaf) for leaf in leaves)]
    flat, total = _join(leaves), bounds[-1]

    def unflatten(vector):
        if anp.shape(vector) != (total,):
            raise ValueError(
                f"unflatten: expected a 1-d vector of size {total} (as flatten returned), got shape {anp.shape(vector)}"
            )
        pieces = iter([anp.reshape(vector[start:stop], shape) for start, stop, shape in zip(bounds, bounds[1:], shapes)])
        return _build(structure, pieces)

    return flat, unflatten


def flatten_func(func, example):
    """``func`` seen as a function of one flat vector, for optimizers and solvers that take vectors.

    Parameters
    ----------
    func : callable
        ``func(params, *args)`` with ``params`` structured like ``example``;
        it returns an array, a scalar or a nesting of them.
    example : nesting of arrays and scalars
        Fixes the structure of ``params`` (see :func:`flatten`).

    Returns
    -------
    flat_func : callable
        ``flat_func(vector, *args) = flatten(func(unflatten(vector), *args))[0]``;
        differentiable in ``vector``.
    unflatten : callable
        The ``unflatten`` of ``flatten(example)``.
    flat_example : array
        ``flatten(example)[0]``.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> f, unflatten, x0 = flatten_func(lambda p: np.sum(p["a"] ** 2) + p["b"], {"a": np.ones(2), "b": 3.0})
    >>> grad(lambda x: f(x)[0])(x0)
    array([2., 2., 1.])
    """
    flat_example, unflatten = flatten(example)

    def flat_func(vector, *args):
        return flatten(func(unflatten(vector), *args))[0]

    return flat_func, unflatten, flat_example


def _structure(value, leaves):
    """The containers of ``value`` with None at each leaf; the leaves are appended to ``leaves``
    in flattening order (dict items by sorted key)."""
    raw = getval(value)
    if isinstance(raw, (tuple, list)):
        return _like(raw, [_structure(item, leaves) for item in value])
    if isinstance(raw, dict):
        children = {key: _structure(value[key], leaves) for key in sorted(raw)}
        return _like(raw, {key: children[key] for key in raw})
    if not (isinstance(raw, numbers.Number) or array_backend(raw) is not None):
        raise TypeError(
            f"flatten: a leaf of type {type(raw).__name__} is neither an array nor a number; "
            "flatten takes tuples, lists and dicts nesting arrays and scalars"
        )
    leaves.append(value)
    return None


def _build(structure, pieces):
    """``structure`` with its None leaves replaced, in flattening order, by the items of the iterator ``pieces``."""
    if isinstance(structure, (tuple, list)):
        return _like(structure, [_build(item, pieces) for item in structure])
    if isinstance(structure, dict):
        built = {key: _build(structure[key], pieces) for key in sorted(structure)}
        return _like(structure, {key: built[key] for key in structure})
    return next(pieces)


def _like(container, items):
    """A container of ``container``'s type holding ``items`` (a list, or a dict for a mapping);
    a namedtuple takes them as its fields."""
    kind = type(container)
    return kind(*items) if hasattr(kind, "_fields") else kind(items)


def _join(leaves):
    """The leaves raveled and concatenated on the arrays' backend and device; a scalar leaf
    (traced or not) becomes a 1-element array by a differentiable ``add`` to a zero."""
    raws = [getval(leaf) for leaf in leaves]
    arrays = [raw for raw in raws if array_backend(raw) is not None]
    if arrays:
        backend = backend_of(*arrays, op="flatten")
        dtype, device = backend.result_type(*arrays), backend.device(arrays[0])
    else:
        backend = default_backend()
        dtype, device = backend.dtype(numpy.result_type(*raws) if raws else "float64"), None
    if not leaves:
        return backend.zeros((0,), dtype=dtype, device=device)
    zero = backend.zeros((1,), dtype=dtype, device=device)
    return anp.concatenate([anp.ravel(leaf) if array_backend(raw) else anp.add(zero, leaf) for leaf, raw in zip(leaves, raws)])
