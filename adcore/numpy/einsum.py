"""``einsum``: Einstein summation, differentiable in every operand, on every backend.

:func:`einsum` takes NumPy's subscripts (explicit ``'ij,jk->ik'`` or implicit
``'ij,jk'``, ``...`` broadcasting, repeated subscripts) and brings them to a
*canonical* form before tracing: the ellipsis is spelled out with unused
letters, the output is explicit, size-1 axes that broadcast are squeezed out
(differentiably, so their cotangent is summed back to size 1) and Python or
NumPy scalar operands are multiplied in afterwards. The one primitive,
:func:`einsum_args`, only ever sees canonical subscripts: every subscript has
one size wherever it occurs.

The function is linear in each operand, so its rules are short (as in
autograd 1.9.1's ``grad_einsum``, extended to repeated subscripts):

- JVP in operand ``k``: the same einsum with the tangent in place of operand ``k``.
- VJP in operand ``k``: an einsum of the output cotangent with the other operands
  (not conjugated, autograd's convention for complex products) that produces
  operand ``k``'s subscripts. A subscript repeated in operand ``k`` (``'ii'``) gets
  a fresh letter tied to it by an identity factor, which puts the cotangent on
  the diagonal; a subscript found nowhere but in operand ``k`` (``'ij->i'``) gets a
  factor of ones, which broadcasts the cotangent along it.

NumPy and CuPy compute with their own ``einsum``. The Array API standard has no
einsum, so backends without one (array-api-strict) use :func:`einsum_array_api`,
written with the standard's functions only, on the operands' device.
"""

import operator
import string

from backends import array_backend, backend_of

from ..core import def_linear, defvjp_argnum, getval, notrace_primitive, primitive
from . import elementwise, indexing, shapes
from .declare import metadata, unbroadcast

#: The letters NumPy accepts as subscripts; the ellipsis and the rules take unused ones.
LETTERS = string.ascii_letters


def einsum(subscripts, *operands):
    """Einstein summation over ``operands`` as NumPy's ``einsum``.

    Parameters
    ----------
    subscripts : str
        Comma-separated subscripts of the operands (letters and at most one
        ``...`` each), optionally followed by ``->`` and the output's subscripts.
        Without ``->`` the output has the broadcast ``...`` axes, then the
        letters used exactly once, in alphabetical order (NumPy's implicit mode).
        NumPy's sublist form is taken too: ``einsum(a, [0, 1], b, [1, 2], [0, 2])``
        is ``einsum("ab,bc->ac", a, b)`` (integers 0 to 51 and ``Ellipsis``).
    *operands : arrays or scalars
        Arrays of one backend and device (traced or not); Python and NumPy
        scalars are allowed where their subscripts are empty.

    Returns
    -------
    array
        The sum over the subscripts missing from the output of the product of
        the operands, on the operands' backend and device, in their promoted
        dtype (float32 operands give float32).

    Raises
    ------
    TypeError
        If a sublist holds something other than integers and ``Ellipsis``.
    ValueError
        If the subscripts are malformed, do not match the number or the
        dimensions of the operands, or give one subscript sizes that do not
        broadcast.

    Examples
    --------
    >>> import numpy
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> a = numpy.arange(6.0).reshape(2, 3)
    >>> grad(lambda x: np.einsum("ij,ij->", x, x))(a)  # d/dx sum(x * x) = 2 x
    array([[ 0.,  2.,  4.],
           [ 6.,  8., 10.]])
    """
    if not isinstance(subscripts, str):
        subscripts, operands = subscripts_from_sublists(subscripts, *operands)
    operands = [shapes._as_array(x) for x in operands]
    operand_shapes = [shapes.shape(x) for x in operands]
    terms, output = parse_subscripts(subscripts, operand_shapes)
    sizes = subscript_sizes(terms, operand_shapes)
    arrays, array_terms, scalars = [], [], []
    for x, term, shape in zip(operands, terms, operand_shapes):
        if array_backend(getval(x)) is None:
            scalars.append(x)
            continue
        kept = [i for i, (label, n) in enumerate(zip(term, shape)) if not (n == 1 and sizes[label] != 1)]
        if len(kept) < len(term):  # size-1 axes broadcast against the other operands
            x = shapes.reshape(x, tuple(shape[i] for i in kept))
            term = "".join(term[i] for i in kept)
        arrays.append(x)
        array_terms.append(term)
    if not arrays:  # scalars only: NumPy gives a 0-d result of their product
        arrays, array_terms = [shapes.array(scalars.pop(0))], [""]
    result = einsum_args(",".join(array_terms) + "->" + output, *arrays)
    for scalar in scalars:
        result = elementwise.multiply(result, scalar)
    return result


def subscripts_from_sublists(*args):
    """NumPy's sublist form ``(a, [0, 1], b, [1, 2], [0, 2])`` as ``("ab,bc->ac", [a, b])``."""
    pairs = len(args) // 2
    terms = [_sublist_term(sublist) for sublist in args[1 : 2 * pairs : 2]]
    subscripts = ",".join(terms) + ("->" + _sublist_term(args[-1]) if len(args) % 2 else "")
    return subscripts, list(args[0 : 2 * pairs : 2])


def _sublist_term(sublist):
    return "".join("..." if label is Ellipsis else _sublist_letter(label, sublist) for label in sublist)


def _sublist_letter(label, sublist):
    try:
        i = operator.index(label)
    except TypeError:
        i = -1
    if not 0 <= i < len(LETTERS):
        raise TypeError(
            f"einsum: a sublist holds integers from 0 to {len(LETTERS) - 1} and Ellipsis, got {label!r} in {sublist!r}"
        )
    return LETTERS[i]


@primitive
def einsum_args(subscripts, *operands):
    """Einstein summation in canonical form, with the operands as separate arguments so each can be traced.

    ``subscripts`` is ``'<term>,<term>...-><output>'`` of letters only, the output
    explicit and without repeats, and each letter has one size wherever it
    occurs (no broadcasting): :func:`einsum` brings NumPy's forms to this one.
    """
    backend = backend_of(*operands, op="einsum")
    native = native_einsum(backend)
    if native is not None:
        return native(subscripts, *operands)
    return einsum_array_api(backend.xp, subscripts, operands)


def grad_einsum(argnum, ans, args, kwargs):
    """The VJP in operand ``argnum - 1``: the output cotangent contracted with the other
    operands into that operand's subscripts (see the module docstring for the factors)."""
    (terms, output), operands = split_subscripts(args[0]), args[1:]
    k = argnum - 1
    x, x_term = operands[k], terms[k]
    meta = metadata(x)
    others = [(term, op) for i, (term, op) in enumerate(zip(terms, operands)) if i != k]
    named = set(output).union(*(term for term, _ in others))
    fresh = [c for c in LETTERS if c not in args[0]]
    target, factor_terms, factors = [], [], []
    for label, n in zip(x_term, shapes.shape(x)):
        if label in target:  # a repeated subscript: put the cotangent on the diagonal
            if not fresh:
                raise ValueError(f"einsum: {args[0]!r} leaves too few unused letters for the VJP of a repeated subscript")
            tied = fresh.pop(0)
            factor_terms.append(label + tied)
            factors.append(indexing.eye_like(x, n))
            target.append(tied)
            continue
        target.append(label)
        if label not in named and x_term.count(label) == 1:  # summed in x only: broadcast the cotangent
            factor_terms.append(label)
            factors.append(ones_like_axis(x, n))
    subscripts = ",".join([output, *(term for term, _ in others), *factor_terms]) + "->" + "".join(target)
    other_operands = [op for _, op in others]
    return lambda g: unbroadcast(einsum_args(subscripts, g, *other_operands, *factors), meta)


defvjp_argnum(einsum_args, grad_einsum)
def_linear(einsum_args)


# ---- subscripts ----


def parse_subscripts(subscripts, shapes):
    """NumPy's subscripts for operands of ``shapes`` as ``(terms, output)``: one string of
    letters per operand with ``...`` spelled out by unused letters, and the explicit output.

    The ellipsis axes of all operands are aligned on the right, as in broadcasting.
    """
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    if "->" in output or "-" in inputs or ">" in inputs:
        raise ValueError(f"einsum: {subscripts!r} has a '-' or '>' that is not one output arrow '->'")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: {subscripts!r} gives subscripts for {len(terms)} operands, but {len(shapes)} were given")
    for term in [*terms, output]:
        _check_term(subscripts, term)
    ellipsis_ndims = []
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        letters = len(term.replace("...", ""))
        ndim = len(shape) - letters if "..." in term else 0
        if ndim < 0 or ("..." not in term and letters != len(shape)):
            raise ValueError(
                f"einsum: operand {i} has {len(shape)} dimensions (shape {shape}), "
                f"but {term!r} in {subscripts!r} gives {letters} subscripts"
            )
        ellipsis_ndims.append(ndim)
    unused = [c for c in LETTERS if c not in spec]
    n_ellipsis = max(ellipsis_ndims, default=0)
    if n_ellipsis > len(unused):
        raise ValueError(f"einsum: {subscripts!r} leaves too few unused letters to spell out its '...'")
    ellipsis = "".join(unused[:n_ellipsis])
    expanded = [term.replace("...", ellipsis[n_ellipsis - ndim :]) for term, ndim in zip(terms, ellipsis_ndims)]
    if not arrow:
        once = sorted(c for c in set(inputs) if inputs.count(c) == 1 and c in LETTERS)
        return expanded, ellipsis + "".join(once)
    if n_ellipsis and "..." not in output:
        raise ValueError(f"einsum: {subscripts!r} has '...' axes in its operands but no '...' in its output")
    for c in output.replace("...", ""):
        if output.count(c) > 1:
            raise ValueError(f"einsum: {subscripts!r} repeats the output subscript {c!r}")
        if c not in inputs:
            raise ValueError(f"einsum: the output subscript {c!r} of {subscripts!r} is in no operand")
    return expanded, output.replace("...", ellipsis)


def _check_term(subscripts, term):
    rest = term.replace("...", "", 1)
    if "." in rest:
        raise ValueError(f"einsum: {subscripts!r} has a '.' that is not part of one '...' in {term!r}")
    bad = [c for c in rest if c not in LETTERS]
    if bad:
        raise ValueError(f"einsum: {subscripts!r} has the character {bad[0]!r}; subscripts are the letters a-z and A-Z")


def subscript_sizes(terms, shapes):
    """The size of each subscript after broadcasting (size-1 axes stretch to the others' size).

    Raises ``ValueError`` where one subscript has two sizes other than 1, or
    where a subscript repeated in one operand has axes of different sizes.
    """
    sizes = {}
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        own = {}
        for label, n in zip(term, shape):
            if own.setdefault(label, n) != n:
                raise ValueError(
                    f"einsum: operand {i} (shape {shape}) repeats the subscript {label!r} over axes of sizes "
                    f"{own[label]} and {n}; the axes of a repeated subscript must have one size"
                )
            m = sizes.get(label, 1)
            if n != m and 1 not in (n, m):
                raise ValueError(f"einsum: the subscript {label!r} has sizes {m} and {n}, which do not broadcast")
            sizes[label] = m if n == 1 else n
    return sizes


def split_subscripts(subscripts):
    """Canonical subscripts as ``(terms, output)``."""
    inputs, _, output = subscripts.partition("->")
    return inputs.split(","), output


# ---- constant factors of the VJP ----


@notrace_primitive
def ones_like_axis(x, n):
    """Ones of shape ``(n,)`` in ``x``'s backend, dtype and device (a constant, never traced)."""
    backend = backend_of(x, op="einsum")
    return backend.ones((n,), dtype=x.dtype, device=backend.device(x))


# ---- the raw computation ----

_native = {}


def native_einsum(backend):
    """The backend's own ``einsum``, or None where it has none (the Array API standard has none).

    A backend lacking a function raises ``NotImplementedError`` when it is
    looked up; the answer is kept, so each backend is asked once.
    """
    try:
        return _native[backend]
    except KeyError:
        pass
    try:
        fun = backend.einsum
    except NotImplementedError:
        fun = None
    _native[backend] = fun
    return fun


def einsum_array_api(xp, subscripts, operands):
    """Canonical einsum with the Array API namespace ``xp`` only, on the operands' device.

    Each operand first takes the diagonals of its repeated subscripts
    (``linalg.diagonal``); then the operands are contracted two at a time, each
    time with the operand sharing the most subscripts with the result so far, as
    a batched ``matmul`` (summing first the subscripts no later operand and not
    the output needs); last, the remaining subscripts outside the output are
    summed and the axes put in the output's order. The dtype is the operands'
    promoted dtype; no value leaves the device.
    """
    terms, output = split_subscripts(subscripts)
    pending = [take_diagonals(xp, x, term) for x, term in zip(operands, terms)]
    x, term = pending.pop(0)
    while pending:
        # greedy: next, the operand sharing the most subscripts with the result so far (avoids outer products)
        y, y_term = pending.pop(max(range(len(pending)), key=lambda i: len(set(pending[i][1]) & set(term))))
        needed = set(output).union(*(t for _, t in pending))
        x, term = sum_except(xp, x, term, needed | set(y_term))
        y, y_term = sum_except(xp, y, y_term, needed | set(term))
        x, term = contract(xp, x, term, y, y_term, needed)
    x, term = sum_except(xp, x, term, set(output))
    return xp.permute_dims(x, tuple(term.index(label) for label in output))


def take_diagonals(xp, x, term):
    """``x`` with each subscript repeated in ``term`` reduced to its diagonal; returns ``(x, term)``."""
    while len(set(term)) < len(term):
        label = next(c for c in term if term.count(c) > 1)
        first = term.index(label)
        second = term.index(label, first + 1)
        rest = [i for i in range(len(term)) if i not in (first, second)]
        x = xp.linalg.diagonal(xp.permute_dims(x, (*rest, first, second)))
        term = "".join(term[i] for i in rest) + label
    return x, term


def sum_except(xp, x, term, keep):
    """``x`` summed over the subscripts of ``term`` not in ``keep``; returns ``(x, term)``."""
    axes = tuple(i for i, label in enumerate(term) if label not in keep)
    if not axes:
        return x, term
    return xp.sum(x, axis=axes), "".join(label for label in term if label in keep)


def contract(xp, x, x_term, y, y_term, keep):
    """The product of ``x`` and ``y`` summed over their shared subscripts not in ``keep``,
    as one batched ``matmul``; returns ``(result, its subscripts)``."""
    shared = [label for label in x_term if label in y_term]
    batch = [label for label in shared if label in keep]
    summed = [label for label in shared if label not in keep]
    x_only = [label for label in x_term if label not in y_term]
    y_only = [label for label in y_term if label not in x_term]
    sizes = dict(zip(x_term, x.shape)) | dict(zip(y_term, y.shape))
    x = _grouped(xp, x, x_term, [batch, x_only, summed], sizes)
    y = _grouped(xp, y, y_term, [batch, summed, y_only], sizes)
    result_term = batch + x_only + y_only
    return xp.reshape(xp.matmul(x, y), tuple(sizes[label] for label in result_term)), "".join(result_term)


def _grouped(xp, x, term, groups, sizes):
    """``x`` as a 3-d array: its axes ordered as ``groups`` and each group made one axis."""
    x = xp.permute_dims(x, tuple(term.index(label) for group in groups for label in group))
    return xp.reshape(x, tuple(_product(sizes[label] for label in group) for group in groups))


def _product(values):
    result = 1
    for value in values:
        result *= value
    return result


__all__ = ["einsum", "einsum_args", "einsum_array_api", "native_einsum"]
