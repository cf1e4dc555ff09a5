"""adcore: automatic differentiation of NumPy-style code on pluggable array backends.

A derivative has no effect outside itself: it changes no flag of the user's arrays, keeps nothing of
a call at module level, and leaves other threads alone; docs/module-state.md lists every module-level
mutable of ``adcore`` and ``backends``, with who writes it and when.

>>> import adcore.numpy as np
>>> from adcore import grad
>>> float(grad(lambda x: np.sin(x) * x)(0.0))
0.0
"""

from backends import available, default_backend, get_backend, set_backend, use_backend

# autograd's top-level names (explicit re-exports, kept out of __all__ so that a star import shadows no builtin)
from . import array_api as _array_api  # noqa: F401 - gives traced arrays their __array_namespace__
from .builtins import dict as dict
from .builtins import isinstance as isinstance
from .builtins import list as list
from .builtins import tuple as tuple
from .builtins import type as type
from .core import primitive as primitive
from .core import UnexpectedBoxError, set_debug
from .jit import JitError, jit
from .operators import *  # noqa: F403
from .operators import __all__ as _operators_all
from .vmap import VmapFallbackWarning, vmap

__version__ = "0.1.0"

__all__ = [
    "JitError",
    "UnexpectedBoxError",
    "available",
    "default_backend",
    "get_backend",
    "jit",
    "set_backend",
    "set_debug",
    "use_backend",
    "vmap",
    "VmapFallbackWarning",
    *_operators_all,
]
