"""adcore: automatic differentiation of NumPy-style code on pluggable array backends.

>>> import adcore.numpy as np
>>> from adcore import grad
>>> float(grad(lambda x: np.sin(x) * x)(0.0))
0.0
"""

from backends import available, default_backend, get_backend, set_backend, use_backend

from .builtins import dict, isinstance, list, tuple, type  # noqa: A004 - autograd's top-level names, kept out of __all__
from .core import primitive
from .operators import *  # noqa: F403
from .operators import __all__ as _operators_all

__version__ = "0.1.0"

__all__ = ["available", "default_backend", "get_backend", "set_backend", "use_backend", *_operators_all]
