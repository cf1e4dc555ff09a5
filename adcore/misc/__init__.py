"""Helpers built on adcore's public API, as autograd 1.9.1's ``autograd.misc``.

``from adcore.misc import flatten, const_graph`` and
``from adcore.misc.optimizers import adam`` work as their autograd
counterparts; the modules keep autograd's names (``flatten``,
``optimizers``, ``fixed_points``, ``tracers``).
"""

from .fixed_points import fixed_point
from .flatten import flatten, flatten_func
from .tracers import const_graph

__all__ = ["const_graph", "fixed_point", "flatten", "flatten_func"]
