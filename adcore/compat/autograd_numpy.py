"""``autograd.numpy`` under the alias: :mod:`adcore.numpy`, but for the joining functions that autograd
1.9.1 lets take any iterable.

autograd's ``stack``, ``concatenate``, ``hstack``, ``vstack`` (``row_stack``), ``column_stack`` and
``select`` read their list arguments with a ``for`` loop, so they take a generator, a ``map`` or an
iterator where NumPy (and so ``adcore.numpy``) raises ``TypeError``. Programs written for autograd
pass generators there (``np.stack(x * k for k in ks)``); the functions here read such an argument
once into a list, in order, and call ``adcore.numpy``'s, so values and derivatives are adcore's.
Every other name is ``adcore.numpy``'s own object (module ``__getattr__``), and so are ``dstack``,
``block``, ``choose``, ``piecewise`` and ``lexsort``, which refuse an iterator under autograd too.

NumPy's own ``numpy.array`` of traced values (``numpy.array((x[0], x[1] ** 2))``) gives, as under
autograd, an object array of the 0-d traced items (``ArrayBox.__array__``): NumPy's object loops call
their operators, so sums, products, indexing, ``matmul``, ``max``, ``where``, ``stack`` and ``linalg.norm``
of it stay traced, with their derivatives. Where the derivative would be lost it raises ``TypeError``
instead: such an array returned by a differentiated function (autograd's ``jacobian`` then gives zeros,
silently; a 0-d one too, as ``np.dot`` of two makes), and a cast of it to numbers (``dtype=float``,
``astype``). NumPy's functions with no object loop (``numpy.exp``) raise NumPy's ``TypeError``, as under
autograd.
"""

from functools import wraps

import adcore.numpy as _numpy


#: ``adcore.numpy``'s public names (the alias's ``autograd.numpy`` adds the submodules autograd binds)
__all__ = list(_numpy.__all__)


def __getattr__(name):
    return getattr(_numpy, name)


def __dir__():
    return sorted({*dir(_numpy), *_ITERABLE_ARGUMENTS})


def _listed(value):
    """``value`` as NumPy takes it where it is a sequence (a list, a tuple, an array, a traced list),
    else (a generator, a ``map``, an iterator) its items read once into a list, as autograd's loop reads them."""
    return value if hasattr(value, "__getitem__") else list(value)


def _taking_iterables(fun, count):
    """``fun`` with its first ``count`` positional arguments taken as any iterable, as autograd takes them."""

    @wraps(fun)
    def taking(*args, **kwargs):
        return fun(*map(_listed, args[:count]), *args[count:], **kwargs)

    return taking


#: name -> how many leading arguments autograd 1.9.1 takes as any iterable
_ITERABLE_ARGUMENTS = {"stack": 1, "concatenate": 1, "hstack": 1, "vstack": 1, "row_stack": 1, "column_stack": 1, "select": 2}

globals().update({name: _taking_iterables(getattr(_numpy, name), count) for name, count in _ITERABLE_ARGUMENTS.items()})
